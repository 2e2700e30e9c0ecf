package dev.highload.profiles.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock that stands still until a test moves it. */
final class MutableClock extends Clock {

	private Instant instant;

	MutableClock(Instant instant) {
		this.instant = instant;
	}

	void advance(Duration duration) {
		this.instant = this.instant.plus(duration);
	}

	@Override
	public Instant instant() {
		return this.instant;
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException();
	}

}
