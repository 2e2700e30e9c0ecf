package dev.highload.profiles;

import java.util.List;
import java.util.Map;

import dev.highload.profiles.LostWriteVerdict.Sent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry phase's verdict can fail: each way a key can map to other than exactly one
 * user is counted, and only a clean run holds.
 */
class LostWriteVerdictTests {

	@Test
	void keysEachMappedToTheirOneUserHold() {
		LostWriteVerdict verdict = LostWriteVerdict.of(
				List.of(new Sent("k1", "m1", 0, 0, List.of("u1")), new Sent("k2", "m2", 3, 1, List.of("u2", "u2"))),
				Map.of("m1", List.of("u1"), "m2", List.of("u2")), Map.of("k1", "u1", "k2", "u2"));

		assertThat(verdict).isEqualTo(new LostWriteVerdict(2, 2, 1, 1, 3, 3, 1, 0, 0, 0, 0));
		assertThat(verdict.holds()).isTrue();
	}

	/**
	 * What a client without a key gets: the first attempt, answered "Outcome unknown",
	 * committed after all, and its retry registered the person a second time.
	 */
	@Test
	void aRetryThatRegisteredTheSamePersonAgainIsADuplicate() {
		LostWriteVerdict verdict = LostWriteVerdict.of(List.of(new Sent("k1", "m1", 1, 0, List.of("u2"))),
				Map.of("m1", List.of("u1", "u2")), Map.of("k1", "u2"));

		assertThat(verdict.duplicates()).isEqualTo(1);
		assertThat(verdict.unmapped()).as("two users for one key").isEqualTo(1);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void twoAnswersNamingDifferentUsersAreADuplicate() {
		LostWriteVerdict verdict = LostWriteVerdict.of(List.of(new Sent("k1", "m1", 1, 0, List.of("u1", "u2"))),
				Map.of("m1", List.of("u1")), Map.of("k1", "u1"));

		assertThat(verdict.duplicates()).isEqualTo(1);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void anAcknowledgedUserMissingOnTheNewPrimaryIsLost() {
		LostWriteVerdict verdict = LostWriteVerdict.of(
				List.of(new Sent("k1", "m1", 0, 0, List.of("u1")), new Sent("k2", "m2", 0, 0, List.of("u2"))),
				Map.of("m2", List.of("u2")), Map.of("k2", "u2"));

		assertThat(verdict.lost()).isEqualTo(1);
		assertThat(verdict.unmapped()).isEqualTo(1);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void anAcknowledgedUserReplacedByAnotherIsLost() {
		LostWriteVerdict verdict = LostWriteVerdict.of(List.of(new Sent("k1", "m1", 0, 0, List.of("u1"))),
				Map.of("m1", List.of("u9")), Map.of("k1", "u9"));

		assertThat(verdict.lost()).isEqualTo(1);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void aKeyWhoseRowNamesAnotherUserIsUnmapped() {
		LostWriteVerdict verdict = LostWriteVerdict.of(List.of(new Sent("k1", "m1", 0, 0, List.of("u1"))),
				Map.of("m1", List.of("u1")), Map.of());

		assertThat(verdict.unmapped()).isEqualTo(1);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void aKeyNeverAcknowledgedFailsTheCheck() {
		LostWriteVerdict verdict = LostWriteVerdict.of(List.of(new Sent("k1", "m1", 40, 0, List.of())), Map.of(),
				Map.of());

		assertThat(verdict.unresolved()).isEqualTo(1);
		assertThat(verdict.acknowledged()).isZero();
		assertThat(verdict.holds()).isFalse();
	}

}
