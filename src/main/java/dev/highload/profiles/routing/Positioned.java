package dev.highload.profiles.routing;

import java.util.function.Function;

/**
 * What a read returned, with the positions that bound the snapshot it ran on.
 *
 * @param value the read's result
 * @param covered a position the snapshot certainly includes: the node had replayed it
 * before the read began (at least the position the read asked for)
 * @param seen a position the snapshot includes nothing after: the node's position when
 * the statement had its snapshot. Given back as the client's next token, it makes the
 * next read show at least what this one showed (monotonic reads)
 * @param standby whether a replica served the read
 * @param <T> the result type
 */
public record Positioned<T>(T value, WalPosition covered, WalPosition seen, boolean standby) {

	/**
	 * @param mapping what to make of the value
	 * @param <U> the new value's type
	 * @return the new value, read at the same positions
	 */
	public <U> Positioned<U> map(Function<? super T, ? extends U> mapping) {
		return new Positioned<>(mapping.apply(this.value), this.covered, this.seen, this.standby);
	}

}
