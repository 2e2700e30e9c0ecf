package dev.highload.profiles.input;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Request bodies in UTF-8 (the default for JSON) are checked to be UTF-8 before Jackson
 * reads them: Jackson's own decoder refuses some malformed bytes but reads overlong forms
 * as other characters ({@code C0 80} as U+0000, a 500 from PostgreSQL; {@code C1 81} as
 * 'A', stored as if sent) and four-byte sequences above U+10FFFF. The problem names the
 * field whose value holds the first bad byte. Bodies are at most
 * {@code app.web.max-request-body} (16 KB by default): reading them whole is cheap.
 */
@ControllerAdvice
class Utf8RequestBodies extends RequestBodyAdviceAdapter {

	private static final JsonFactory JSON = new JsonFactory();

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return true;
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage input, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		MediaType type = input.getHeaders().getContentType();
		Charset charset = (type != null) ? type.getCharset() : null;
		if (charset != null && !StandardCharsets.UTF_8.equals(charset)) {
			// Decoded by the converter with that charset; strings are still checked.
			return input;
		}
		byte[] body = input.getBody().readAllBytes();
		int malformed = Utf8.firstMalformed(body);
		if (malformed >= 0) {
			throw new HttpMessageNotReadableException("The request body is not UTF-8",
					new NotUtf8Exception(fieldAt(body, malformed)), input);
		}
		return new HttpInputMessage() {

			@Override
			public InputStream getBody() {
				return new ByteArrayInputStream(body);
			}

			@Override
			public HttpHeaders getHeaders() {
				return input.getHeaders();
			}

		};
	}

	/**
	 * The name of the field whose value (or name) holds the byte at the offset: the field
	 * the parser is in when it reaches or fails on it.
	 */
	private static String fieldAt(byte[] body, int offset) {
		JsonParser parser = JSON.createParser(ObjectReadContext.empty(), body);
		try (parser) {
			for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
				if (token == JsonToken.VALUE_STRING) {
					parser.getString();
				}
				if (parser.currentLocation().getByteOffset() > offset) {
					return parser.currentName();
				}
			}
			return null;
		}
		catch (JacksonException ex) {
			return parser.currentName();
		}
	}

	/** The cause of the 400 for a body that is not UTF-8. */
	static final class NotUtf8Exception extends IOException {

		private final String field;

		NotUtf8Exception(String field) {
			super("The request body is not UTF-8");
			this.field = field;
		}

		/** The field that holds the first malformed byte, or {@code null}. */
		String field() {
			return this.field;
		}

	}

}
