package dev.highload.profiles.problem;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import dev.highload.profiles.observability.RequestIdFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * What every problem a controller advice answers carries besides its own members: the
 * request's id ({@code request_id}, also in the {@code X-Request-Id} header) and, unless
 * the problem names one, the request's path as {@code instance}; a 5xx problem also the
 * {@code message} and {@code code} of {@link #serverErrorMembers}.
 */
public final class Problems {

	/**
	 * A request attribute: the {@code detail} of the problem that answers the
	 * {@code sendError} of a filter, which no controller advice sees.
	 */
	public static final String DETAIL_ATTRIBUTE = Problems.class.getName() + ".detail";

	private Problems() {
	}

	/**
	 * @param problem a problem about to be answered, changed in place; {@code request_id}
	 * comes after the members it already has
	 * @param request the request it answers
	 * @return {@code problem}
	 */
	public static ProblemDetail identify(ProblemDetail problem, HttpServletRequest request) {
		problem.setProperty("request_id", RequestIdFilter.of(request));
		serverErrorMembers(problem);
		if (problem.getInstance() == null) {
			problem.setInstance(URI.create(request.getRequestURI()));
		}
		return problem;
	}

	/**
	 * The body of the problem {@link ProblemErrorController} answers to a filter's
	 * {@code sendError} with {@link #DETAIL_ATTRIBUTE}, member for member and in the same
	 * order, for a filter that answers without that error dispatch through Spring MVC (a
	 * refusal at capacity, a body too large or too slow).
	 * @param request the request it answers
	 * @param status a 4xx or 5xx status; a 5xx one gets {@code message} and {@code code}
	 * too ({@link #serverErrorMembers})
	 * @param detail the problem's {@code detail}
	 * @return the JSON, UTF-8
	 */
	public static byte[] errorBody(HttpServletRequest request, int status, String detail) {
		HttpStatus resolved = HttpStatus.valueOf(status);
		if (!resolved.isError()) {
			throw new IllegalArgumentException("not an error status: " + status);
		}
		String quotedDetail = quote(detail);
		StringBuilder body = new StringBuilder(256).append("{\"detail\":\"")
			.append(quotedDetail)
			.append("\",\"instance\":\"")
			.append(quote(request.getRequestURI()))
			.append("\",\"status\":")
			.append(status)
			.append(",\"title\":\"")
			.append(quote(resolved.getReasonPhrase()))
			.append("\",\"request_id\":\"")
			.append(quote(RequestIdFilter.of(request)))
			.append('"');
		if (resolved.is5xxServerError()) {
			body.append(",\"message\":\"").append(quotedDetail).append("\",\"code\":").append(status);
		}
		return body.append('}').toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Answers a filter's problem at once, with {@link #errorBody}, and closes the
	 * connection after it ({@code Connection: close}): a request refused before its body
	 * was read, or whose body is late or too large, is not worth reading further.
	 * @param request the request it answers
	 * @param response its response, not yet committed; headers set before are kept
	 * @param status a 4xx or 5xx status
	 * @param detail the problem's {@code detail}
	 * @throws IOException if the answer cannot be written
	 */
	public static void answerAndClose(HttpServletRequest request, HttpServletResponse response, int status,
			String detail) throws IOException {
		byte[] body = errorBody(request, status, detail);
		response.setStatus(status);
		response.setHeader(HttpHeaders.CONNECTION, "close");
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	private static String quote(String text) {
		return new String(JsonStringEncoder.getInstance().quoteAsCharArray(text));
	}

	/**
	 * On a 5xx problem, the members the OTUS Highload Architect API's 5xx answer has
	 * beside {@code request_id}, as RFC 9457 extension members: {@code message} (required
	 * there; the detail, or the title when there is none) and {@code code} (an integer
	 * that classifies the problem; the HTTP status, the title telling the kinds of 503
	 * apart). Clients written to that contract read them; docs/api.md lists the rest of
	 * what differs. Below 500 the contract defines no body, and nothing is added.
	 * @param problem a problem about to be answered, changed in place
	 */
	static void serverErrorMembers(ProblemDetail problem) {
		if (problem.getStatus() < 500) {
			return;
		}
		String message = (problem.getDetail() != null) ? problem.getDetail() : problem.getTitle();
		problem.setProperty("message", (message != null) ? message : "Server error");
		problem.setProperty("code", problem.getStatus());
	}

}
