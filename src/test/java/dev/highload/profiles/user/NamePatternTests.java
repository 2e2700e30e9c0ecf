package dev.highload.profiles.user;

import java.time.LocalDate;
import java.util.List;
import java.util.Set;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EmptySource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The constraints on {@link RegisterRequest}, checked by a real Bean Validation provider.
 */
class NamePatternTests {

	private static ValidatorFactory factory;

	private static Validator validator;

	@BeforeAll
	static void createValidator() {
		factory = Validation.buildDefaultValidatorFactory();
		validator = factory.getValidator();
	}

	@AfterAll
	static void closeValidator() {
		factory.close();
	}

	@Test
	void validRequestHasNoViolations() {
		assertThat(violations(request())).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "Иван", "Mary-Jane", "O'Brien", "D’Artagnan", "de la Cruz", "Jos\u00e9", "Jose\u0301", "李",
			"Ё", "Anne-Marie O'Neil", "Saint-Exupéry", "Nguye\u0302\u0303n", "E\u0302\u0303n" })
	void validNames(String name) {
		assertThat(violations(request().withFirstName(name))).isEmpty();
		assertThat(violations(request().withSecondName(name))).isEmpty();
	}

	@Test
	void nameOf100CharactersIsValid() {
		String name = "a".repeat(100);
		assertThat(violations(request().withFirstName(name).withSecondName(name))).isEmpty();
	}

	@ParameterizedTest
	@NullSource
	@EmptySource
	@ValueSource(strings = { " Ivan", "Ivan ", " ", "Iv  an", "Iv--an", "Iv-'an", "-Ivan", "Ivan-", "'Ivan", "Ivan'",
			"Ivan1", "1", "Ivan.", "Iv.an", "<script>", "<script>alert(1)</script>", "Ivan\tPetrov", "Ivan\nPetrov",
			"\u0301Ivan", "Ivan_", "Ivan%", "Ivan\u200b", "\uD83D\uDE00", "Ivan\u00a0Petrov" })
	void invalidNames(String name) {
		assertThat(violations(request().withFirstName(name))).containsOnly("firstName");
		assertThat(violations(request().withSecondName(name))).containsOnly("secondName");
	}

	@Test
	void nameOf101CharactersIsInvalid() {
		String name = "a".repeat(101);
		assertThat(violations(request().withFirstName(name))).containsOnly("firstName");
		assertThat(violations(request().withSecondName(name))).containsOnly("secondName");
	}

	@Test
	void birthdateOnThe1900BoundaryOrInThePastIsValid() {
		assertThat(violations(request().withBirthdate(LocalDate.of(1900, 1, 1)))).isEmpty();
		assertThat(violations(request().withBirthdate(LocalDate.now().minusDays(1)))).isEmpty();
	}

	@Test
	void birthdateBefore1900IsInvalid() {
		assertThat(violations(request().withBirthdate(LocalDate.of(1899, 12, 31)))).containsOnly("birthdate");
		assertThat(violations(request().withBirthdate(LocalDate.of(1, 1, 1)))).containsOnly("birthdate");
	}

	@Test
	void birthdateInTheFutureIsInvalid() {
		assertThat(violations(request().withBirthdate(LocalDate.now().plusDays(1)))).containsOnly("birthdate");
		assertThat(violations(request().withBirthdate(LocalDate.of(3000, 1, 1)))).containsOnly("birthdate");
	}

	@Test
	void birthdateIsRequired() {
		assertThat(violations(request().withBirthdate(null))).containsOnly("birthdate");
	}

	@Test
	void passwordOf8To128CharactersIsValid() {
		assertThat(violations(request().withPassword("p".repeat(8)))).isEmpty();
		assertThat(violations(request().withPassword("p".repeat(128)))).isEmpty();
	}

	@Test
	void passwordOutside8To128CharactersIsInvalid() {
		assertThat(violations(request().withPassword("p".repeat(7)))).containsOnly("password");
		assertThat(violations(request().withPassword("p".repeat(129)))).containsOnly("password");
		assertThat(violations(request().withPassword(""))).containsOnly("password");
	}

	@Test
	void passwordIsRequired() {
		assertThat(violations(request().withPassword(null))).containsOnly("password");
	}

	@Test
	void cityAndBiographyAreOptional() {
		assertThat(violations(request().withCity(null).withBiography(null))).isEmpty();
	}

	@Test
	void biographyOfUpTo2000CharactersIsValid() {
		assertThat(violations(request().withBiography(""))).isEmpty();
		assertThat(violations(request().withBiography("b".repeat(2000)))).isEmpty();
	}

	@Test
	void biographyOver2000CharactersIsInvalid() {
		assertThat(violations(request().withBiography("b".repeat(2001)))).containsOnly("biography");
	}

	@ParameterizedTest
	@ValueSource(strings = { "Москва", "St. Petersburg", "Saint-Denis (93)", "Ростов-на-Дону", "Washington, D.C." })
	void validCities(String city) {
		assertThat(violations(request().withCity(city))).isEmpty();
	}

	@ParameterizedTest
	@EmptySource
	@ValueSource(strings = { " Moscow", "<b>Moscow</b>", "Moscow;", "Moscow   City" })
	void invalidCities(String city) {
		assertThat(violations(request().withCity(city))).containsOnly("city");
	}

	@Test
	void cityOver100CharactersIsInvalid() {
		assertThat(violations(request().withCity("c".repeat(101)))).containsOnly("city");
	}

	@Test
	void everyInvalidFieldIsReported() {
		Request request = new Request("", "Ivan1", LocalDate.of(1800, 1, 1), "b".repeat(2001), "<city>", "short");
		assertThat(violations(request)).containsOnly("firstName", "secondName", "birthdate", "biography", "city",
				"password");
	}

	/** The property paths of the violations, one entry per violation. */
	private static List<String> violations(Request request) {
		Set<ConstraintViolation<RegisterRequest>> violations = validator.validate(request.build());
		return violations.stream().map((violation) -> violation.getPropertyPath().toString()).toList();
	}

	private static Request request() {
		return new Request("Иван", "Петров", LocalDate.of(1990, 5, 17), "Люблю горные походы", "Москва",
				"correct horse");
	}

	/** A valid request to change one field of at a time. */
	private record Request(String firstName, String secondName, LocalDate birthdate, String biography, String city,
			String password) {

		Request withFirstName(String firstName) {
			return new Request(firstName, this.secondName, this.birthdate, this.biography, this.city, this.password);
		}

		Request withSecondName(String secondName) {
			return new Request(this.firstName, secondName, this.birthdate, this.biography, this.city, this.password);
		}

		Request withBirthdate(LocalDate birthdate) {
			return new Request(this.firstName, this.secondName, birthdate, this.biography, this.city, this.password);
		}

		Request withBiography(String biography) {
			return new Request(this.firstName, this.secondName, this.birthdate, biography, this.city, this.password);
		}

		Request withCity(String city) {
			return new Request(this.firstName, this.secondName, this.birthdate, this.biography, city, this.password);
		}

		Request withPassword(String password) {
			return new Request(this.firstName, this.secondName, this.birthdate, this.biography, this.city, password);
		}

		RegisterRequest build() {
			return new RegisterRequest(this.firstName, this.secondName, this.birthdate, this.biography, this.city,
					this.password);
		}

	}

}
