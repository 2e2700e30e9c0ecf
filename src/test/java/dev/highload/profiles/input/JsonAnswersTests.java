package dev.highload.profiles.input;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;

/** The content type is set beforehand for the service's own handlers alone. */
class JsonAnswersTests {

	private final JsonAnswers.Preset preset = new JsonAnswers.Preset();

	@Test
	void anOwnHandlerAnswersJsonWhenTheClientAcceptsItPlainly() throws Exception {
		for (String accept : new String[] { null, "*/*", "application/json", "application/*" }) {
			assertThat(contentType(new Own(), accept)).as(accept).isEqualTo("application/json");
		}
	}

	@Test
	void anyOtherAcceptIsLeftToNegotiation() throws Exception {
		for (String accept : new String[] { "text/html", "application/problem+json", "application/json, text/plain",
				"application/json;q=0.5", "APPLICATION/JSON" }) {
			assertThat(contentType(new Own(), accept)).as(accept).isNull();
		}
	}

	@Test
	void handlersOfOtherCodeAreLeftAlone() throws Exception {
		assertThat(contentType(new StringBuilder("Actuator or springdoc"), null)).isNull();
		MockHttpServletResponse response = new MockHttpServletResponse();
		assertThat(this.preset.preHandle(new MockHttpServletRequest(), response, new Object())).isTrue();
		assertThat(response.getContentType()).isNull();
	}

	private String contentType(Object bean, String accept) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/user/1");
		if (accept != null) {
			request.addHeader("Accept", accept);
		}
		MockHttpServletResponse response = new MockHttpServletResponse();
		Method method = bean.getClass().getMethod("toString");
		assertThat(this.preset.preHandle(request, response, new HandlerMethod(bean, method))).isTrue();
		return response.getContentType();
	}

	static final class Own {

		@Override
		public String toString() {
			return "a handler of this service";
		}

	}

}
