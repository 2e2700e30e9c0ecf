package dev.highload.profiles.consistency;

import dev.highload.profiles.routing.WalPosition;

/**
 * What a {@link ConsistentRead#write() write} returns: the body, and a position at or
 * after its commit, which the client is given as its token (header and cookie).
 *
 * @param value the body
 * @param position a WAL position at or after the write's commit; {@link WalPosition#NONE}
 * when there is none to give, and then no token is answered
 * @param <T> the body's type
 */
public record Written<T>(T value, WalPosition position) {

}
