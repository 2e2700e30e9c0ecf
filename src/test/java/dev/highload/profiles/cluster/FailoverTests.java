package dev.highload.profiles.cluster;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class FailoverTests {

	@Test
	void walPositionsParseAndPrintLikePostgres() {
		assertThat(Failover.parseLsn("0/1C544B0")).isEqualTo(0x1C544B0L);
		assertThat(Failover.parseLsn("16/B374D848")).isEqualTo((0x16L << 32) | 0xB374D848L);
		assertThat(Failover.parseLsn("16/B374D848")).isGreaterThan(Failover.parseLsn("15/FFFFFFFF"));
		assertThat(Failover.lsn(Failover.parseLsn("16/B374D848"))).isEqualTo("16/B374D848");
		assertThatIllegalArgumentException().isThrownBy(() -> Failover.parseLsn("16B374D848"));
	}

	@Test
	void onlyAnExplicitArgumentSelectsTheCommand() {
		assertThat(FailoverCommand.selects("--app.failover")).isTrue();
		assertThat(FailoverCommand.selects("--app.failover=true")).isTrue();
		assertThat(FailoverCommand.selects("--app.failover=false")).isFalse();
		assertThat(FailoverCommand.selects("--app.seed.users=10")).isFalse();
	}

}
