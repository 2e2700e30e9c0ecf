package dev.highload.profiles.consistency;

import java.util.Map;

/**
 * The keys consistency tokens are derived from, lent by the package that owns them (the
 * bearer tokens' ring, {@code app.auth.token-keys}): the instances of a deployment
 * already share it, and a key's rotation retires both kinds of token at once. This
 * package derives a MAC key of its own from each ({@link ConsistencyTokens}).
 */
@FunctionalInterface
public interface KeyRing {

	/**
	 * @return the keys by id, the one that signs first; never empty
	 */
	Map<String, byte[]> keys();

}
