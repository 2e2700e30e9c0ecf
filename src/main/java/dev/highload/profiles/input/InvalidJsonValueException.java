package dev.highload.profiles.input;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * A JSON value this service refuses, with the reason a client is told. Jackson adds the
 * field's path as the exception travels up, so the problem names the field.
 */
class InvalidJsonValueException extends MismatchedInputException {

	private final String reason;

	InvalidJsonValueException(JsonParser parser, Class<?> type, String reason) {
		super(parser, reason, type);
		this.reason = reason;
	}

	String reason() {
		return this.reason;
	}

}
