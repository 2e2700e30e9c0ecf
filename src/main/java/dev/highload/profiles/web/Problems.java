package dev.highload.profiles.web;

import java.net.URI;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.ProblemDetail;

/**
 * What every problem a controller advice answers carries besides its own members: the
 * request's id ({@code request_id}, also in the {@code X-Request-Id} header) and, unless
 * the problem names one, the request's path as {@code instance}.
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
		if (problem.getInstance() == null) {
			problem.setInstance(URI.create(request.getRequestURI()));
		}
		return problem;
	}

}
