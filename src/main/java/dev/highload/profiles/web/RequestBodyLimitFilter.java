package dev.highload.profiles.web;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Rejects request bodies above {@code app.web.max-request-body} with 413 before anything
 * parses them: at once when the Content-Length says so, and, for a body without one
 * (chunked), as soon as reading it passes the limit.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 3)
class RequestBodyLimitFilter extends OncePerRequestFilter {

	private final long limit;

	RequestBodyLimitFilter(WebProperties properties) {
		this.limit = properties.maxRequestBody().toBytes();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		long declared = request.getContentLengthLong();
		if (declared > this.limit) {
			reject(request, response);
			return;
		}
		if (declared == -1 && hasBody(request)) {
			chain.doFilter(new LimitedRequest(request, this.limit), response);
			return;
		}
		chain.doFilter(request, response);
	}

	private void reject(HttpServletRequest request, HttpServletResponse response) throws IOException {
		request.setAttribute(Problems.DETAIL_ATTRIBUTE, "The request body is larger than " + this.limit + " bytes");
		// The unread body is not worth reading: the connection closes after the answer.
		response.setHeader("Connection", "close");
		response.sendError(HttpStatus.CONTENT_TOO_LARGE.value());
	}

	private static boolean hasBody(HttpServletRequest request) {
		return request.getHeader("Transfer-Encoding") != null;
	}

	/** Thrown by the stream when the body passes the limit; answered with 413. */
	static final class BodyTooLargeException extends IOException {

		BodyTooLargeException(long limit) {
			super("The request body is larger than " + limit + " bytes");
		}

	}

	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private final long limit;

		private ServletInputStream stream;

		LimitedRequest(HttpServletRequest request, long limit) {
			super(request);
			this.limit = limit;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.stream == null) {
				this.stream = new LimitedStream(super.getInputStream(), this.limit);
			}
			return this.stream;
		}

	}

	private static final class LimitedStream extends ServletInputStream {

		private final ServletInputStream in;

		private final long limit;

		private long read;

		LimitedStream(ServletInputStream in, long limit) {
			this.in = in;
			this.limit = limit;
		}

		@Override
		public int read() throws IOException {
			int b = this.in.read();
			if (b != -1) {
				count(1);
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int n = this.in.read(buffer, offset, length);
			if (n > 0) {
				count(n);
			}
			return n;
		}

		private void count(int n) throws BodyTooLargeException {
			this.read += n;
			if (this.read > this.limit) {
				throw new BodyTooLargeException(this.limit);
			}
		}

		@Override
		public boolean isFinished() {
			return this.in.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.in.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.in.setReadListener(listener);
		}

	}

}
