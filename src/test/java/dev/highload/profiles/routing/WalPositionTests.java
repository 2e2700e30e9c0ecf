package dev.highload.profiles.routing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WalPositionTests {

	@Test
	void printsAsPostgresqlDoes() {
		assertThat(new WalPosition(0x1_6B37_48D8L)).hasToString("1/6B3748D8");
		assertThat(WalPosition.NONE).hasToString("0/0");
	}

	@Test
	void aLaterPositionCoversAnEarlierOne() {
		WalPosition earlier = new WalPosition(100);
		WalPosition later = new WalPosition(200);
		assertThat(later.covers(earlier)).isTrue();
		assertThat(later.covers(later)).isTrue();
		assertThat(earlier.covers(later)).isFalse();
		assertThat(earlier.max(later)).isSameAs(later);
		assertThat(later.max(earlier)).isSameAs(later);
		assertThat(earlier.covers(WalPosition.NONE)).isTrue();
	}

}
