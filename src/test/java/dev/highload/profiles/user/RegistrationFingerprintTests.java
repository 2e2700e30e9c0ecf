package dev.highload.profiles.user;

import java.time.LocalDate;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fingerprint a registration's Idempotency-Key is stored with: every field but the
 * password, unambiguously.
 */
class RegistrationFingerprintTests {

	private static final LocalDate BIRTHDATE = LocalDate.of(1990, 5, 17);

	private static final RegisterRequest REQUEST = new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "Bio", "Moscow",
			"secret-password");

	@Test
	void theSameRequestHasTheSameFingerprintWhateverItsPassword() {
		assertThat(REQUEST.fingerprint()).hasSize(32)
			.isEqualTo(
					new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "Bio", "Moscow", "secret-password").fingerprint())
			.isEqualTo(new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "Bio", "Moscow", "another-password")
				.fingerprint());
	}

	@Test
	void anyOtherFieldChangesIt() {
		List<RegisterRequest> others = List.of(new RegisterRequest("Ivan ", "Petrov", BIRTHDATE, "Bio", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrova", BIRTHDATE, "Bio", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE.plusDays(1), "Bio", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "bio", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "Bio", "Moskva", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, null, "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "Bio", null, "p"),
				// The same characters, split differently between the fields.
				new RegisterRequest("IvanP", "etrov", BIRTHDATE, "Bio", "Moscow", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "BioMoscow", "", "p"),
				new RegisterRequest("Ivan", "Petrov", BIRTHDATE, "BioMoscow", null, "p"));
		List<String> fingerprints = others.stream().map((r) -> HexFormat.of().formatHex(r.fingerprint())).toList();
		assertThat(fingerprints).doesNotHaveDuplicates()
			.doesNotContain(HexFormat.of().formatHex(REQUEST.fingerprint()));
	}

	/**
	 * Pinned, computed apart from the code (Python's hashlib over the same bytes): a
	 * change of the canonical form would turn the retry of every stored key into a 422
	 * until the keys expire.
	 */
	@Test
	void itIsSha256OfTheLabelAndTheFieldsEachAfterItsLength() {
		assertThat(HexFormat.of()
			.formatHex(new RegisterRequest("Ivan", "Petrov", BIRTHDATE, null, "Moscow", "p").fingerprint()))
			.isEqualTo("16f5e43cc71a52d1421c4976b98e38c0b87bbb557f14a2caa3f2ba0c2eb2d0d7");
	}

}
