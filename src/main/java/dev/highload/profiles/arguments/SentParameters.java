package dev.highload.profiles.arguments;

import org.springframework.web.context.request.NativeWebRequest;

/**
 * The query parameters as the client sent them, for the rules binding cannot state:
 * binding reads {@code limit=} as the parameter's default and {@code after=} as absent. A
 * handler takes it as a parameter; it is left out of the OpenAPI document.
 */
public final class SentParameters {

	private final NativeWebRequest request;

	SentParameters(NativeWebRequest request) {
		this.request = request;
	}

	/**
	 * @param name a query parameter's name
	 * @return its first value as sent, {@code ""} when given empty, or {@code null}
	 */
	public String get(String name) {
		return this.request.getParameter(name);
	}

}
