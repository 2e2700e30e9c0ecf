package dev.highload.profiles.seed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.regex.Pattern;

import dev.highload.profiles.seed.ProfileGenerator.Profile;
import dev.highload.profiles.user.Names;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class ProfileGeneratorTests {

	private static final Pattern NAME = Pattern.compile(Names.NAME_PATTERN);

	private static final int MANY = 20_000;

	/** The first {@link #MANY} profiles of seed 42. */
	private static List<Profile> profiles;

	@BeforeAll
	static void generate() {
		profiles = generate(42, MANY);
	}

	@Test
	void sameSeedGivesTheSameProfiles() {
		List<Profile> first = generate(42, 1000);
		assertThat(generate(42, 1000)).isEqualTo(first);
		assertThat(first).isEqualTo(profiles.subList(0, 1000));
		assertThat(first).extracting(Profile::id).doesNotHaveDuplicates();
	}

	@Test
	void differentSeedGivesDifferentProfiles() {
		List<Profile> first = generate(42, 1000);
		List<Profile> other = generate(43, 1000);
		assertThat(other).isNotEqualTo(first);
		int samePeople = 0;
		for (int i = 0; i < first.size(); i++) {
			Profile a = first.get(i);
			Profile b = other.get(i);
			assertThat(b.id()).isNotEqualTo(a.id());
			if (a.firstName().equals(b.firstName()) && a.secondName().equals(b.secondName())
					&& a.birthdate().equals(b.birthdate())) {
				samePeople++;
			}
		}
		assertThat(samePeople).isLessThan(10);
	}

	@Test
	void idsAreVersionSevenOneMillisecondApart() {
		UUID previous = null;
		for (Profile profile : profiles.subList(0, 1000)) {
			assertThat(profile.id().version()).isEqualTo(7);
			assertThat(profile.id().variant()).isEqualTo(2);
			if (previous != null) {
				assertThat(millis(profile.id())).isEqualTo(millis(previous) + 1);
				assertThat(profile.id().toString()).isGreaterThan(previous.toString());
			}
			previous = profile.id();
		}
	}

	@Test
	void generatedNamesMatchTheRegistrationPattern() {
		assertThat(profiles).allSatisfy((profile) -> {
			assertThat(profile.firstName()).matches(NAME).hasSizeBetween(1, 100);
			assertThat(profile.secondName()).matches(NAME).hasSizeBetween(1, 100);
		});
	}

	@Test
	void everyListedNameAndFeminineSurnameMatchesTheRegistrationPattern() {
		List<String> names = new ArrayList<>();
		for (String language : List.of("ru", "en")) {
			names.addAll(values(language + "-male-first-names.txt"));
			names.addAll(values(language + "-female-first-names.txt"));
			names.addAll(values(language + "-surnames.txt"));
		}
		values("ru-surnames.txt").forEach((surname) -> names.add(ProfileGenerator.feminine(surname)));
		assertThat(names).hasSizeGreaterThan(1000)
			.allSatisfy((name) -> assertThat(name).matches(NAME).hasSizeBetween(1, 100));
	}

	@Test
	void birthdatesAreFrom1950To2008() {
		LocalDate first = LocalDate.of(1950, 1, 1);
		LocalDate last = LocalDate.of(2008, 12, 31);
		assertThat(profiles).extracting(Profile::birthdate)
			.allSatisfy((birthdate) -> assertThat(birthdate).isBetween(first, last));
		LocalDate earliest = profiles.stream().map(Profile::birthdate).min(LocalDate::compareTo).orElseThrow();
		LocalDate latest = profiles.stream().map(Profile::birthdate).max(LocalDate::compareTo).orElseThrow();
		assertThat(earliest).isBefore(LocalDate.of(1950, 3, 1));
		assertThat(latest).isAfter(LocalDate.of(2008, 11, 1));
	}

	@Test
	void aboutSeventyPercentAreRussian() {
		long russian = profiles.stream().filter((profile) -> isCyrillic(profile.firstName())).count();
		assertThat((double) russian / MANY).isBetween(0.67, 0.73);
	}

	@Test
	void firstAndSecondNameAreOfTheSameCulture() {
		assertThat(profiles).allSatisfy((profile) -> assertThat(isCyrillic(profile.secondName()))
			.as("%s %s", profile.firstName(), profile.secondName())
			.isEqualTo(isCyrillic(profile.firstName())));
	}

	@Test
	void russianSurnamesAreInTheBearersGender() {
		Set<String> maleNames = new HashSet<>(values("ru-male-first-names.txt"));
		Set<String> femaleNames = new HashSet<>(values("ru-female-first-names.txt"));
		Set<String> maleSurnames = new HashSet<>(values("ru-surnames.txt"));
		Set<String> femaleSurnames = new HashSet<>();
		maleSurnames.forEach((surname) -> femaleSurnames.add(ProfileGenerator.feminine(surname)));
		int women = 0;
		int men = 0;
		for (Profile profile : profiles) {
			if (femaleNames.contains(profile.firstName())) {
				assertThat(femaleSurnames).contains(profile.secondName());
				assertThat(profile.secondName()).doesNotEndWith("ов")
					.doesNotEndWith("ев")
					.doesNotEndWith("ёв")
					.doesNotEndWith("ин")
					.doesNotEndWith("ий")
					.doesNotEndWith("ой")
					.doesNotEndWith("ый");
				women++;
			}
			else if (maleNames.contains(profile.firstName())) {
				assertThat(maleSurnames).contains(profile.secondName());
				men++;
			}
		}
		assertThat(women).isGreaterThan(MANY / 4);
		assertThat(men).isGreaterThan(MANY / 4);
	}

	@Test
	void englishSurnamesAreAsListed() {
		Set<String> surnames = new HashSet<>(values("en-surnames.txt"));
		assertThat(profiles).filteredOn((profile) -> !isCyrillic(profile.firstName()))
			.hasSizeGreaterThan(MANY / 5)
			.allSatisfy((profile) -> assertThat(surnames).contains(profile.secondName()));
	}

	@Test
	void aboutFivePercentHaveNoCity() {
		long withoutCity = profiles.stream().filter((profile) -> profile.city() == null).count();
		assertThat((double) withoutCity / MANY).isBetween(0.04, 0.06);
	}

	@Test
	void citiesAndBiographiesComeFromTheBearersCulture() {
		Map<Boolean, Set<String>> cities = new HashMap<>();
		cities.put(true, new HashSet<>(values("ru-cities.txt")));
		cities.put(false, new HashSet<>(values("en-cities.txt")));
		Map<Boolean, Set<String>> phrases = new HashMap<>();
		phrases.put(true, new HashSet<>(values("ru-bio-phrases.txt")));
		phrases.put(false, new HashSet<>(values("en-bio-phrases.txt")));
		for (Profile profile : profiles) {
			boolean russian = isCyrillic(profile.firstName());
			if (profile.city() != null) {
				assertThat(cities.get(russian)).contains(profile.city());
			}
			String[] biography = profile.biography().split("\\. ", -1);
			assertThat(biography).hasSizeBetween(1, 3);
			assertThat(phrases.get(russian)).contains(biography);
		}
	}

	@ParameterizedTest
	@CsvSource({ "Иванов, Иванова", "Соловьёв, Соловьёва", "Васильев, Васильева", "Пушкин, Пушкина", "Птицын, Птицына",
			"Высоцкий, Высоцкая", "Достоевский, Достоевская", "Трубецкой, Трубецкая", "Толстой, Толстая",
			"Белый, Белая", "Черных, Черных", "Шевченко, Шевченко", "Шевчук, Шевчук" })
	void feminineFormOfARussianSurname(String male, String female) {
		assertThat(ProfileGenerator.feminine(male)).isEqualTo(female);
	}

	@Test
	void weightedListDrawsOnlyListedValuesAndHeavierOnesMoreOften() {
		List<String> listed = values("ru-surnames.txt");
		WeightedList surnames = WeightedList.load("ru-surnames.txt");
		SplittableRandom random = new SplittableRandom(1);
		Map<String, Integer> counts = new HashMap<>();
		int draws = 100_000;
		for (int i = 0; i < draws; i++) {
			counts.merge(surnames.draw(random), 1, Integer::sum);
		}
		assertThat(listed).containsAll(counts.keySet());
		// Иванов weighs 1000 and Достоевский 2 (the lightest) out of 34,432
		assertThat(weight("ru-surnames.txt", "Иванов")).isEqualTo(1000);
		assertThat(weight("ru-surnames.txt", "Достоевский")).isEqualTo(2);
		int ivanov = counts.getOrDefault("Иванов", 0);
		assertThat(ivanov).isGreaterThan(counts.getOrDefault("Достоевский", 0));
		double expected = draws * 1000.0 / totalWeight("ru-surnames.txt");
		assertThat((double) ivanov).isBetween(expected * 0.9, expected * 1.1);
	}

	@Test
	void weightedListDrawsInProportionToTheWeights() {
		// src/test/resources/seed/test-weights.txt: a 1, b 3, c 6
		WeightedList list = WeightedList.load("test-weights.txt");
		SplittableRandom random = new SplittableRandom(2);
		Map<String, Integer> counts = new HashMap<>();
		int draws = 100_000;
		for (int i = 0; i < draws; i++) {
			counts.merge(list.draw(random), 1, Integer::sum);
		}
		assertThat(counts).containsOnlyKeys("a", "b", "c");
		assertThat(counts.get("a") / (double) draws).isBetween(0.09, 0.11);
		assertThat(counts.get("b") / (double) draws).isBetween(0.28, 0.32);
		assertThat(counts.get("c") / (double) draws).isBetween(0.58, 0.62);
	}

	@ParameterizedTest
	@ValueSource(strings = { "no-such-list.txt", "../seed/no-such-list.txt" })
	void missingListIsAnError(String resource) {
		assertThatIllegalStateException().isThrownBy(() -> WeightedList.load(resource));
	}

	private static List<Profile> generate(long seed, int count) {
		ProfileGenerator generator = new ProfileGenerator(seed);
		List<Profile> profiles = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			profiles.add(generator.next());
		}
		return profiles;
	}

	private static long millis(UUID id) {
		return id.getMostSignificantBits() >>> 16;
	}

	private static boolean isCyrillic(String name) {
		return Character.UnicodeScript.of(name.codePointAt(0)) == Character.UnicodeScript.CYRILLIC;
	}

	private static List<String> values(String resource) {
		return new ArrayList<>(read(resource).keySet());
	}

	private static long weight(String resource, String value) {
		return read(resource).get(value);
	}

	private static long totalWeight(String resource) {
		return read(resource).values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * The {@code value<TAB>weight} lines of a seed list, read independently of
	 * WeightedList.
	 */
	private static Map<String, Long> read(String resource) {
		Map<String, Long> weights = new LinkedHashMap<>();
		InputStream in = ProfileGeneratorTests.class.getResourceAsStream("/seed/" + resource);
		assertThat(in).as(resource).isNotNull();
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (!line.isEmpty()) {
					String[] parts = line.split("\t");
					assertThat(parts).as(line).hasSize(2);
					weights.put(parts[0], Long.parseLong(parts[1]));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return weights;
	}

}
