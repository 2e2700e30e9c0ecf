package dev.highload.profiles.input;

import java.util.List;

/**
 * The registration fields, and JSON string literals (escapes as sent on the wire) that
 * PostgreSQL cannot store as sent: U+0000, and unpaired surrogates at the start, in the
 * middle and at the end, and in the wrong order. The slice tests and the end-to-end tests
 * send the same set.
 */
public final class UnstorableText {

	public static final List<String> REGISTRATION_FIELDS = List.of("first_name", "second_name", "biography", "city",
			"password");

	public static final List<String> JSON_LITERALS = List.of("Iv\\u0000an-password", "Iv\\ud800an-password",
			"Iv\\udc00an-password", "Ivan-password\\ud83d", "Iv\\ude00\\ud83dan-password");

	private UnstorableText() {
	}

}
