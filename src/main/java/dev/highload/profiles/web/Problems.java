package dev.highload.profiles.web;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
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
	 * {@code sendError} of a 5xx status with {@link #DETAIL_ATTRIBUTE}, member for member
	 * and in the same order, for a filter that answers without that error dispatch
	 * through Spring MVC.
	 * @param request the request it answers
	 * @param status a 5xx status
	 * @param detail the problem's {@code detail}, also its {@code message}
	 * @return the JSON, UTF-8
	 */
	public static byte[] serverErrorBody(HttpServletRequest request, int status, String detail) {
		HttpStatus resolved = HttpStatus.valueOf(status);
		if (!resolved.is5xxServerError()) {
			throw new IllegalArgumentException("not a 5xx status: " + status);
		}
		String quotedDetail = quote(detail);
		String body = "{\"detail\":\"" + quotedDetail + "\",\"instance\":\"" + quote(request.getRequestURI())
				+ "\",\"status\":" + status + ",\"title\":\"" + quote(resolved.getReasonPhrase())
				+ "\",\"request_id\":\"" + quote(RequestIdFilter.of(request)) + "\",\"message\":\"" + quotedDetail
				+ "\",\"code\":" + status + "}";
		return body.getBytes(StandardCharsets.UTF_8);
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
