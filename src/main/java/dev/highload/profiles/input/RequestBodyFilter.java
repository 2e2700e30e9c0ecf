package dev.highload.profiles.input;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.highload.profiles.problem.Problems;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;

/**
 * A request's body arrives whole before anything works for it: no thread, no admission
 * place and no database connection is held while a client sends it.
 * <p>
 * Tomcat reads a request's headers without a thread, but a servlet that reads the body
 * blocks its thread until the last byte, and Tomcat's timeout bounds only the gap between
 * two reads: a client that sends a byte a second holds a thread for as long as it likes,
 * and a few hundred such clients hold them all. Here a request with a body is put in
 * asynchronous mode and its body read with the Servlet API's non-blocking reads, the
 * thread given back between them; once the body is whole, the request is dispatched
 * again, and the rest of the chain (the request's timer, the admission limit, Spring MVC)
 * sees an ordinary request whose body is in memory.
 * <p>
 * Two bounds: a body above {@code app.web.max-request-body} is answered 413 at once when
 * its Content-Length says so, or as soon as reading it passes the limit (chunked); a body
 * not whole {@code app.web.request-body-timeout} after the headers is answered 408. Both
 * close the connection ({@code Connection: close}) without reading the rest. Requests
 * without a body (every GET) pass straight through.
 * <p>
 * Registered by {@link RequestBodyConfiguration}, for the request's first dispatch and
 * for the asynchronous one that follows the body; the filters after it are registered for
 * both too. Where the container cannot start asynchronous mode, the body is read with the
 * thread, within the same size limit.
 */
class RequestBodyFilter extends HttpFilter {

	/** The body read whole, for the dispatch that follows it. */
	static final String BODY_ATTRIBUTE = RequestBodyFilter.class.getName() + ".body";

	static final String TIMEOUT_DETAIL = "The request body did not arrive whole in time";

	private static final int BUFFER_BYTES = 4096;

	private final int limit;

	private final long timeoutMillis;

	private final Counter timedOut;

	RequestBodyFilter(WebProperties properties, MeterRegistry registry) {
		this.limit = (int) Math.min(properties.maxRequestBody().toBytes(), Integer.MAX_VALUE - 8);
		this.timeoutMillis = properties.requestBodyTimeout().toMillis();
		this.timedOut = Counter.builder("profiles.request.body.timeout")
			.description("Requests answered 408 and closed: their body was not whole in app.web.request-body-timeout")
			.register(registry);
	}

	@Override
	protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (request.getDispatcherType() == DispatcherType.ASYNC) {
			if (request.getAttribute(BODY_ATTRIBUTE) instanceof byte[] body) {
				request.removeAttribute(BODY_ATTRIBUTE);
				chain.doFilter(new WholeBodyRequest(request, body), response);
				return;
			}
			chain.doFilter(request, response);
			return;
		}
		long declared = request.getContentLengthLong();
		if (declared > this.limit) {
			Problems.answerAndClose(request, response, 413, tooLargeDetail());
			return;
		}
		boolean chunked = declared == -1 && request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
		if (declared <= 0 && !chunked) {
			chain.doFilter(request, response);
			return;
		}
		if (!request.isAsyncSupported()) {
			// Not on this service's Tomcat, where every filter supports it; the limit
			// holds anyway.
			byte[] body = readBlocking(request.getInputStream());
			if (body == null) {
				Problems.answerAndClose(request, response, 413, tooLargeDetail());
				return;
			}
			chain.doFilter(new WholeBodyRequest(request, body), response);
			return;
		}
		AsyncContext async = request.startAsync(request, response);
		async.setTimeout(this.timeoutMillis);
		BodyReader reader = new BodyReader(async, request, response, declared);
		async.addListener(reader);
		request.getInputStream().setReadListener(reader);
	}

	private String tooLargeDetail() {
		return "The request body is larger than " + this.limit + " bytes";
	}

	private byte[] readBlocking(ServletInputStream in) throws IOException {
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		byte[] buffer = new byte[BUFFER_BYTES];
		int n;
		while ((n = in.read(buffer)) != -1) {
			if (body.size() + n > this.limit) {
				return null;
			}
			body.write(buffer, 0, n);
		}
		return body.toByteArray();
	}

	/**
	 * Reads one body without blocking, on whichever container thread has bytes for it,
	 * and ends the request's asynchronous wait once: by dispatching it with the body, or
	 * by answering 413 or 408.
	 */
	private final class BodyReader implements ReadListener, AsyncListener {

		private final AsyncContext async;

		private final HttpServletRequest request;

		private final HttpServletResponse response;

		private final ByteArrayOutputStream body;

		private final byte[] buffer;

		private final AtomicBoolean ended = new AtomicBoolean();

		BodyReader(AsyncContext async, HttpServletRequest request, HttpServletResponse response, long declared) {
			this.async = async;
			this.request = request;
			this.response = response;
			int expected = (declared > 0) ? (int) declared : BUFFER_BYTES;
			this.body = new ByteArrayOutputStream(expected);
			this.buffer = new byte[Math.min(expected, BUFFER_BYTES)];
		}

		@Override
		public void onDataAvailable() throws IOException {
			ServletInputStream in = this.request.getInputStream();
			while (in.isReady() && !in.isFinished()) {
				int n = in.read(this.buffer);
				if (n == -1) {
					return;
				}
				if (this.body.size() + n > RequestBodyFilter.this.limit) {
					end(413, tooLargeDetail());
					return;
				}
				this.body.write(this.buffer, 0, n);
			}
		}

		@Override
		public void onAllDataRead() {
			if (this.ended.compareAndSet(false, true)) {
				this.request.setAttribute(BODY_ATTRIBUTE, this.body.toByteArray());
				this.async.dispatch();
			}
		}

		@Override
		public void onError(Throwable failure) {
			// The client went away or the connection failed: nobody to answer.
			if (this.ended.compareAndSet(false, true)) {
				this.async.complete();
			}
		}

		@Override
		public void onTimeout(AsyncEvent event) throws IOException {
			if (this.ended.get()) {
				return;
			}
			RequestBodyFilter.this.timedOut.increment();
			end(408, TIMEOUT_DETAIL);
		}

		private void end(int status, String detail) throws IOException {
			if (this.ended.compareAndSet(false, true)) {
				try {
					Problems.answerAndClose(this.request, this.response, status, detail);
				}
				finally {
					this.async.complete();
				}
			}
		}

		@Override
		public void onComplete(AsyncEvent event) {
		}

		@Override
		public void onError(AsyncEvent event) {
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

	}

	/**
	 * The request as the rest of the chain sees it: an ordinary first dispatch whose body
	 * is already in memory.
	 */
	private static final class WholeBodyRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		private ServletInputStream stream;

		private BufferedReader reader;

		WholeBodyRequest(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public DispatcherType getDispatcherType() {
			return DispatcherType.REQUEST;
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

		@Override
		public ServletInputStream getInputStream() {
			if (this.reader != null) {
				throw new IllegalStateException("getReader() has been called on this request");
			}
			if (this.stream == null) {
				this.stream = new BodyStream(this.body);
			}
			return this.stream;
		}

		@Override
		public BufferedReader getReader() {
			if (this.stream != null) {
				throw new IllegalStateException("getInputStream() has been called on this request");
			}
			if (this.reader == null) {
				String encoding = getCharacterEncoding();
				Charset charset = (encoding != null) ? Charset.forName(encoding) : StandardCharsets.ISO_8859_1;
				this.reader = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(this.body), charset));
			}
			return this.reader;
		}

	}

	private static final class BodyStream extends ServletInputStream {

		private final ByteArrayInputStream in;

		BodyStream(byte[] body) {
			this.in = new ByteArrayInputStream(body);
		}

		@Override
		public int read() {
			return this.in.read();
		}

		@Override
		public int read(byte[] buffer, int offset, int length) {
			return this.in.read(buffer, offset, length);
		}

		@Override
		public boolean isFinished() {
			return this.in.available() == 0;
		}

		@Override
		public boolean isReady() {
			return true;
		}

		@Override
		public void setReadListener(ReadListener listener) {
			throw new IllegalStateException("The body has been read whole before this dispatch");
		}

	}

}
