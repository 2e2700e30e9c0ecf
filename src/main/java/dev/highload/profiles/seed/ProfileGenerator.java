package dev.highload.profiles.seed;

import java.time.Instant;
import java.time.LocalDate;
import java.util.SplittableRandom;
import java.util.UUID;

import dev.highload.profiles.user.UuidV7;

/**
 * Realistic profiles, the same sequence for the same seed: Russian (70 %) and English (30
 * %) names drawn by real-life frequency, with Russian surnames in the bearer's gender;
 * cities by population; birthdates from 1950 to 2008; one to three biography phrases. Ids
 * are version-7 UUIDs one millisecond apart.
 */
final class ProfileGenerator {

	/** Timestamp of the first generated id. */
	private static final long EPOCH_MILLIS = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();

	private static final long FIRST_BIRTHDAY = LocalDate.of(1950, 1, 1).toEpochDay();

	private static final long LAST_BIRTHDAY = LocalDate.of(2008, 12, 31).toEpochDay();

	private static final Culture RUSSIAN = new Culture("ru");

	private static final Culture ENGLISH = new Culture("en");

	private final SplittableRandom random;

	private long sequence;

	ProfileGenerator(long seed) {
		this.random = new SplittableRandom(seed);
	}

	Profile next() {
		SplittableRandom r = this.random;
		UUID id = UuidV7.of(EPOCH_MILLIS + this.sequence++, r.nextLong(), r.nextLong());
		boolean russian = r.nextInt(100) < 70;
		boolean female = r.nextBoolean();
		Culture culture = russian ? RUSSIAN : ENGLISH;
		String firstName = (female ? culture.femaleNames : culture.maleNames).draw(r);
		String surname = culture.surnames.draw(r);
		if (russian && female) {
			surname = feminine(surname);
		}
		LocalDate birthdate = LocalDate.ofEpochDay(r.nextLong(FIRST_BIRTHDAY, LAST_BIRTHDAY + 1));
		String city = (r.nextInt(100) < 5) ? null : culture.cities.draw(r);
		StringBuilder biography = new StringBuilder(culture.phrases.draw(r));
		for (int extra = r.nextInt(3); extra > 0; extra--) {
			biography.append(". ").append(culture.phrases.draw(r));
		}
		return new Profile(id, firstName, surname, birthdate, biography.toString(), city);
	}

	/** The female form of a Russian surname given in its male form. */
	static String feminine(String surname) {
		if (surname.endsWith("ский") || surname.endsWith("цкий")) {
			return surname.substring(0, surname.length() - 2) + "ая";
		}
		if (surname.endsWith("ой") || surname.endsWith("ый")) {
			return surname.substring(0, surname.length() - 2) + "ая";
		}
		if (surname.endsWith("ов") || surname.endsWith("ев") || surname.endsWith("ёв") || surname.endsWith("ин")
				|| surname.endsWith("ын")) {
			return surname + "а";
		}
		return surname;
	}

	record Profile(UUID id, String firstName, String secondName, LocalDate birthdate, String biography, String city) {

	}

	private static final class Culture {

		final WeightedList maleNames;

		final WeightedList femaleNames;

		final WeightedList surnames;

		final WeightedList cities;

		final WeightedList phrases;

		Culture(String language) {
			this.maleNames = WeightedList.load(language + "-male-first-names.txt");
			this.femaleNames = WeightedList.load(language + "-female-first-names.txt");
			this.surnames = WeightedList.load(language + "-surnames.txt");
			this.cities = WeightedList.load(language + "-cities.txt");
			this.phrases = WeightedList.load(language + "-bio-phrases.txt");
		}

	}

}
