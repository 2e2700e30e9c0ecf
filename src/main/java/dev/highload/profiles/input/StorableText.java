package dev.highload.profiles.input;

/**
 * What every string the API takes must be, whatever the field: a sequence of Unicode
 * scalar values PostgreSQL can store. Two kinds of Java string are not:
 * <ul>
 * <li>one with U+0000: PostgreSQL's text cannot hold it, and the insert fails (SQLState
 * 22021, a 500 before this check);</li>
 * <li>one with an unpaired UTF-16 surrogate (JSON allows {@code "\ud800"}): it has no
 * UTF-8 form, so pgjdbc's encoder writes '?' in its place (stored altered) and the
 * password hasher refused it (a 500).</li>
 * </ul>
 * Everything else is stored as sent: astral characters, combining marks, U+FFFD sent on
 * purpose, noncharacters (valid in interchange since Unicode Corrigendum #9).
 */
public final class StorableText {

	/**
	 * For the OpenAPI document of free-text fields (ECMA-262 syntax): no U+0000. Without
	 * it Schemathesis has no reason to send U+0000 on purpose, and a fuzzer reading the
	 * document cannot know that the field refuses it. Unpaired surrogates cannot be
	 * written in a JSON Schema pattern; the document's description says so in words.
	 */
	public static final String PATTERN = "^[^\\x00]*$";

	static final String NUL = "must not contain U+0000";

	static final String UNPAIRED_SURROGATE = "must be valid Unicode (no unpaired UTF-16 surrogate)";

	private StorableText() {
	}

	/**
	 * @param text a string
	 * @return why it cannot be stored as sent, or {@code null} if it can
	 */
	static String problem(CharSequence text) {
		for (int i = 0, n = text.length(); i < n; i++) {
			char c = text.charAt(i);
			if (c == '\0') {
				return NUL;
			}
			if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return UNPAIRED_SURROGATE;
			}
		}
		return null;
	}

}
