package dev.highload.profiles.admission;

import java.io.IOException;
import java.util.Optional;

import dev.highload.profiles.problem.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;

/**
 * Every API request passes {@link AdmissionControl} before anything else works for it
 * (only the request id and the request's timer come first,
 * {@link AdmissionConfiguration}). One over the limit is answered at once: 503 with
 * {@code Retry-After} and a problem body, the connection closed after it (a client told
 * to come back later holds no descriptor and no thread meanwhile), its body unread.
 * <p>
 * The problem is written here, the same members the error controller would answer,
 * instead of through {@code sendError} and its error dispatch through Spring MVC: a
 * refusal then costs about half as much CPU, on its own connection
 * (docs/reports/overload.md, "What a refusal costs").
 * <p>
 * Netflix's concurrency-limits ships such a filter in concurrency-limits-servlet-jakarta,
 * but that module has never been published to Maven Central (only the javax
 * concurrency-limits-servlet, last at 0.4.1); this one wraps the published core.
 */
class AdmissionFilter extends HttpFilter {

	static final String DETAIL = "The service is at capacity; retry after the time in Retry-After";

	private final AdmissionControl control;

	AdmissionFilter(AdmissionControl control) {
		this.control = control;
	}

	@Override
	protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		Optional<AdmissionControl.Admission> admitted = this.control.admit(request);
		if (admitted.isEmpty()) {
			refuse(request, response);
			return;
		}
		AdmissionControl.Admission admission = admitted.get();
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			admission.abandoned();
			throw ex;
		}
		admission.finished(response.getStatus());
	}

	private void refuse(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(this.control.retryAfterSeconds()));
		Problems.answerAndClose(request, response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, DETAIL);
	}

}
