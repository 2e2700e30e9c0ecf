package dev.highload.profiles.user;

import java.util.Optional;

/**
 * A prefix as a half-open range of strings under the "C" collation (code-point order):
 * every string that starts with {@code from} is {@code >= from} and {@code < to}. No
 * character in the prefix is special: {@code %}, {@code _} and {@code \} are literal.
 *
 * @param from the prefix itself
 * @param to the smallest string greater than every string with that prefix
 */
record PrefixRange(String from, String to) {

	/**
	 * @param prefix a non-empty prefix
	 * @return its range, or empty if no string can sort after it (a prefix made only of
	 * U+10FFFF, which no stored name contains)
	 */
	static Optional<PrefixRange> of(String prefix) {
		int[] codePoints = prefix.codePoints().toArray();
		for (int i = codePoints.length - 1; i >= 0; i--) {
			if (codePoints[i] < Character.MAX_CODE_POINT) {
				int next = codePoints[i] + 1;
				if (next == Character.MIN_SURROGATE) {
					next = Character.MAX_SURROGATE + 1;
				}
				codePoints[i] = next;
				return Optional.of(new PrefixRange(prefix, new String(codePoints, 0, i + 1)));
			}
		}
		return Optional.empty();
	}

}
