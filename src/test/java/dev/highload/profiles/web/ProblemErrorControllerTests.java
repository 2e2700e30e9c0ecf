package dev.highload.profiles.web;

import java.net.URI;

import jakarta.servlet.RequestDispatcher;
import org.junit.jupiter.api.Test;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;

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
		ResponseEntity<ProblemDetail> answer = this.controller.error(request);
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
		ResponseEntity<ProblemDetail> answer = this.controller.error(request);
		assertThat(answer.getStatusCode().value()).isEqualTo(413);
		assertThat(answer.getBody().getDetail()).isEqualTo("The request body is larger than 8 bytes");
	}

	@Test
	void aStatusThatIsNoErrorOrUnknownIs500() {
		for (Object status : new Object[] { 200, 999, "404", null }) {
			MockHttpServletRequest request = new MockHttpServletRequest("GET", "/error");
			request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, status);
			assertThat(this.controller.error(request).getStatusCode().value()).as(String.valueOf(status))
				.isEqualTo(500);
		}
	}

}
