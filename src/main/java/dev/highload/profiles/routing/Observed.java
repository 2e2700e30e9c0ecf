package dev.highload.profiles.routing;

/**
 * What one node answered to a read: the result, and the node's position and role as the
 * statement itself reported them (the columns of {@link ReadRouter#POSITION}).
 *
 * @param value the result
 * @param seen the node's position when the statement ran: replayed (a replica) or flushed
 * (the primary); the snapshot holds nothing after it
 * @param standby whether the node is a replica
 * @param <T> the result type
 */
public record Observed<T>(T value, WalPosition seen, boolean standby) {

}
