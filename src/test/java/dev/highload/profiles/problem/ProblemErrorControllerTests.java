package dev.highload.profiles.problem;

import java.net.URI;

import dev.highload.profiles.observability.RequestIdFilter;
import jakarta.servlet.RequestDispatcher;
import org.junit.jupiter.api.Test;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.ServletWebRequest;

import static org.assertj.core.api.Assertions.assertThat;

/** Errors raised before a controller (a filter, the container) as problem details. */
class ProblemErrorControllerTests {

	private final ProblemErrorController controller = new ProblemErrorController();

	@Test
	void theContainersErrorIsAProblemWithTheRequestsPathAndId() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/error");
		request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 404);
		request.setAttribute(RequestDispatcher.ERROR_REQUEST_URI, "/no/such/path");
		request.setAttribute(RequestIdFilter.ATTRIBUTE, "trace-42");
		ResponseEntity<ProblemDetail> answer = this.controller.error(new ServletWebRequest(request));
		assertThat(answer.getStatusCode().value()).isEqualTo(404);
		assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(answer.getBody().getTitle()).isEqualTo("Not Found");
		assertThat(answer.getBody().getInstance()).isEqualTo(URI.create("/no/such/path"));
		assertThat(answer.getBody().getProperties()).containsEntry("request_id", "trace-42");
	}

	@Test
	void theBodyLimitsDetailIsKept() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/error");
		request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 413);
		request.setAttribute(Problems.DETAIL_ATTRIBUTE, "The request body is larger than 8 bytes");
		ResponseEntity<ProblemDetail> answer = this.controller.error(new ServletWebRequest(request));
		assertThat(answer.getStatusCode().value()).isEqualTo(413);
		assertThat(answer.getBody().getDetail()).isEqualTo("The request body is larger than 8 bytes");
	}

	/**
	 * The admission filter's refusal: the OTUS Highload Architect API's 5xx members
	 * beside RFC 9457's, none on a 4xx.
	 */
	@Test
	void a5xxAlsoCarriesMessageAndCode() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/error");
		request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 503);
		request.setAttribute(Problems.DETAIL_ATTRIBUTE, "The service is at capacity");
		request.setAttribute(RequestIdFilter.ATTRIBUTE, "trace-43");
		ProblemDetail problem = this.controller.error(new ServletWebRequest(request)).getBody();
		assertThat(problem.getProperties()).containsEntry("message", "The service is at capacity")
			.containsEntry("code", 503)
			.containsEntry("request_id", "trace-43");
		MockHttpServletRequest withoutDetail = new MockHttpServletRequest("GET", "/error");
		withoutDetail.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 500);
		assertThat(this.controller.error(new ServletWebRequest(withoutDetail)).getBody().getProperties())
			.containsEntry("message", "Internal Server Error")
			.containsEntry("code", 500);
		MockHttpServletRequest notFound = new MockHttpServletRequest("GET", "/error");
		notFound.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 404);
		assertThat(this.controller.error(new ServletWebRequest(notFound)).getBody().getProperties())
			.doesNotContainKeys("message", "code");
	}

	@Test
	void aStatusThatIsNoErrorOrUnknownIs500() {
		for (Object status : new Object[] { 200, 999, "404", null }) {
			MockHttpServletRequest request = new MockHttpServletRequest("GET", "/error");
			request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, status);
			assertThat(this.controller.error(new ServletWebRequest(request)).getStatusCode().value())
				.as(String.valueOf(status))
				.isEqualTo(500);
		}
	}

}
