package dev.highload.profiles.web;

import java.nio.charset.StandardCharsets;

import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The body limit, declared or found while reading a chunked body. */
class RequestBodyLimitFilterTests {

	private final RequestBodyLimitFilter filter = new RequestBodyLimitFilter(new WebProperties(DataSize.ofBytes(8)));

	@Test
	void aDeclaredLengthAboveTheLimitIs413WithoutCallingTheChain() throws Exception {
		MockHttpServletRequest request = request("123456789");
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(request, response, (req, res) -> {
			throw new AssertionError("the chain must not run");
		});
		assertThat(response.getStatus()).isEqualTo(413);
		assertThat(response.getHeader("Connection")).isEqualTo("close");
		assertThat(request.getAttribute(Problems.DETAIL_ATTRIBUTE))
			.isEqualTo("The request body is larger than 8 bytes");
	}

	@Test
	void aChunkedBodyFailsAsSoonAsReadingItPassesTheLimit() throws Exception {
		MockHttpServletRequest request = chunked("123456789");
		assertThatExceptionOfType(RequestBodyLimitFilter.BodyTooLargeException.class)
			.isThrownBy(() -> this.filter.doFilter(request, new MockHttpServletResponse(), readAll()))
			.withMessage("The request body is larger than 8 bytes");
	}

	@Test
	void bodiesUpToTheLimitAreReadWhole() throws Exception {
		byte[][] read = new byte[1][];
		FilterChain chain = (req, res) -> read[0] = ((HttpServletRequest) req).getInputStream().readAllBytes();
		this.filter.doFilter(chunked("12345678"), new MockHttpServletResponse(), chain);
		assertThat(new String(read[0], StandardCharsets.US_ASCII)).isEqualTo("12345678");
		this.filter.doFilter(request("1234"), new MockHttpServletResponse(), chain);
		assertThat(new String(read[0], StandardCharsets.US_ASCII)).isEqualTo("1234");
	}

	private static FilterChain readAll() {
		return (req, res) -> ((HttpServletRequest) req).getInputStream().readAllBytes();
	}

	private static MockHttpServletRequest request(String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register");
		request.setContent(body.getBytes(StandardCharsets.US_ASCII));
		return request;
	}

	/** A body without a Content-Length, as Tomcat presents a chunked one. */
	private static MockHttpServletRequest chunked(String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register") {

			@Override
			public long getContentLengthLong() {
				return -1;
			}

			@Override
			public int getContentLength() {
				return -1;
			}

		};
		request.setContent(body.getBytes(StandardCharsets.US_ASCII));
		request.addHeader("Transfer-Encoding", "chunked");
		return request;
	}

}
