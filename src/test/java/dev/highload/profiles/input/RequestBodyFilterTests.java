package dev.highload.profiles.input;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.mock.web.MockAsyncContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The body read whole before the chain: the size limit, declared or found while reading;
 * the non-blocking read and the dispatch that carries the body on; the 408 once the body
 * is late.
 */
class RequestBodyFilterTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RequestBodyFilter filter = new RequestBodyFilter(
			new WebProperties(DataSize.ofBytes(8), Duration.ofSeconds(5)), this.registry);

	private static final FilterChain NEVER = (request, response) -> {
		throw new AssertionError("the chain must not run");
	};

	@Test
	void aDeclaredLengthAboveTheLimitIs413AtOnceAndClosesTheConnection() throws Exception {
		MockHttpServletRequest request = post("123456789");
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(request, response, NEVER);
		assertProblem(response, 413, "The request body is larger than 8 bytes");
	}

	@Test
	void aRequestWithoutABodyPassesAsItIs() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/user/search");
		ServletRequest[] seen = new ServletRequest[1];
		this.filter.doFilter(request, new MockHttpServletResponse(), (req, res) -> seen[0] = req);
		assertThat(seen[0]).isSameAs(request);
	}

	@Test
	void withoutAsynchronousModeTheBodyIsReadWithTheThreadWithinTheLimit() throws Exception {
		MockHttpServletRequest chunked = chunked("123456789");
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(chunked, response, NEVER);
		assertProblem(response, 413, "The request body is larger than 8 bytes");
		byte[][] read = new byte[1][];
		this.filter.doFilter(chunked("12345678"), new MockHttpServletResponse(),
				(req, res) -> read[0] = ((HttpServletRequest) req).getInputStream().readAllBytes());
		assertThat(new String(read[0], StandardCharsets.US_ASCII)).isEqualTo("12345678");
	}

	@Test
	void aBodyIsReadWithoutBlockingAndCarriedToTheNextDispatch() throws Exception {
		Trickle stream = new Trickle();
		MockHttpServletRequest request = asynchronous(stream, 6);
		this.filter.doFilter(request, new MockHttpServletResponse(), NEVER);
		assertThat(request.isAsyncStarted()).isTrue();
		stream.arrive("123");
		stream.arrive("456");
		stream.end();
		MockAsyncContext async = (MockAsyncContext) request.getAsyncContext();
		assertThat(async.getDispatchedPath()).as("dispatched again").isNotNull();
		// The container's second dispatch.
		request.setAsyncStarted(false);
		request.setDispatcherType(DispatcherType.ASYNC);
		HttpServletRequest[] seen = new HttpServletRequest[1];
		String[] body = new String[1];
		this.filter.doFilter(request, new MockHttpServletResponse(), (req, res) -> {
			seen[0] = (HttpServletRequest) req;
			body[0] = new String(seen[0].getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
		});
		assertThat(body[0]).isEqualTo("123456");
		assertThat(seen[0].getDispatcherType()).as("the rest of the chain sees a first dispatch")
			.isEqualTo(DispatcherType.REQUEST);
		assertThat(seen[0].getContentLength()).isEqualTo(6);
		assertThat(request.getAttribute(RequestBodyFilter.BODY_ATTRIBUTE)).isNull();
	}

	@Test
	void aChunkedBodyIs413AsSoonAsReadingItPassesTheLimit() throws Exception {
		Trickle stream = new Trickle();
		MockHttpServletRequest request = asynchronous(stream, -1);
		request.addHeader("Transfer-Encoding", "chunked");
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(request, response, NEVER);
		stream.arrive("12345");
		assertThat(response.getStatus()).isEqualTo(200);
		stream.arrive("6789");
		assertProblem(response, 413, "The request body is larger than 8 bytes");
		assertThat(((MockAsyncContext) request.getAsyncContext()).getDispatchedPath()).as("not dispatched").isNull();
	}

	@Test
	void aBodyNotWholeInTimeIs408AndCounted() throws Exception {
		Trickle stream = new Trickle();
		MockHttpServletRequest request = asynchronous(stream, 6);
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(request, response, NEVER);
		MockAsyncContext async = (MockAsyncContext) request.getAsyncContext();
		assertThat(async.getTimeout()).isEqualTo(5000);
		stream.arrive("1");
		for (AsyncListener listener : async.getListeners()) {
			listener.onTimeout(new AsyncEvent(async));
		}
		assertProblem(response, 408, RequestBodyFilter.TIMEOUT_DETAIL);
		assertThat(this.registry.get("profiles.request.body.timeout").counter().count()).isEqualTo(1);
		// What still arrives changes nothing.
		stream.arrive("23456");
		stream.end();
		assertThat(async.getDispatchedPath()).isNull();
	}

	private static void assertProblem(MockHttpServletResponse response, int status, String detail) throws IOException {
		assertThat(response.getStatus()).isEqualTo(status);
		assertThat(response.getHeader("Connection")).isEqualTo("close");
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		var json = JsonMapper.builder().build().readTree(response.getContentAsByteArray());
		assertThat(json.path("status").asInt()).isEqualTo(status);
		assertThat(json.path("detail").asString()).isEqualTo(detail);
		assertThat(json.has("request_id")).isTrue();
	}

	private static MockHttpServletRequest post(String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register");
		request.setContent(body.getBytes(StandardCharsets.US_ASCII));
		return request;
	}

	private static MockHttpServletRequest chunked(String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register") {
			@Override
			public long getContentLengthLong() {
				return -1;
			}
		};
		request.setContent(body.getBytes(StandardCharsets.US_ASCII));
		request.addHeader("Transfer-Encoding", "chunked");
		return request;
	}

	private static MockHttpServletRequest asynchronous(Trickle stream, long length) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register") {
			@Override
			public ServletInputStream getInputStream() {
				return stream;
			}

			@Override
			public long getContentLengthLong() {
				return length;
			}
		};
		request.setAsyncSupported(true);
		return request;
	}

	/** A body that arrives in parts, as a container's non-blocking stream hands it on. */
	private static final class Trickle extends ServletInputStream {

		private final Deque<Byte> bytes = new ArrayDeque<>();

		private ReadListener listener;

		private boolean ended;

		void arrive(String part) throws IOException {
			for (byte b : part.getBytes(StandardCharsets.US_ASCII)) {
				this.bytes.add(b);
			}
			this.listener.onDataAvailable();
		}

		void end() throws IOException {
			this.ended = true;
			this.listener.onAllDataRead();
		}

		@Override
		public int read() {
			Byte next = this.bytes.poll();
			return (next != null) ? next & 0xFF : -1;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) {
			int n = 0;
			while (n < length && !this.bytes.isEmpty()) {
				buffer[offset + n++] = this.bytes.poll();
			}
			return (n == 0) ? (this.ended ? -1 : 0) : n;
		}

		@Override
		public boolean isFinished() {
			return this.ended && this.bytes.isEmpty();
		}

		@Override
		public boolean isReady() {
			return !this.bytes.isEmpty();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.listener = listener;
		}

	}

}
