package dev.highload.profiles.problem;

import java.net.URI;

import dev.highload.profiles.observability.RequestIdFilter;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.WebRequest;

/**
 * Errors that never reach a controller (raised by the servlet container or a filter) are
 * problem details too, never the container's HTML page or a stack trace. What the
 * container says of the error is in the request's attributes, read through Spring's
 * {@link WebRequest}: no handler takes the servlet request.
 */
@RestController
@Hidden
class ProblemErrorController implements ErrorController {

	@RequestMapping("${server.error.path:/error}")
	ResponseEntity<ProblemDetail> error(WebRequest request) {
		Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE, RequestAttributes.SCOPE_REQUEST);
		HttpStatus status = HttpStatus.resolve((code instanceof Integer i) ? i : 500);
		if (status == null || !status.isError()) {
			status = HttpStatus.INTERNAL_SERVER_ERROR;
		}
		ProblemDetail problem = ProblemDetail.forStatus(status);
		Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI, RequestAttributes.SCOPE_REQUEST);
		if (uri != null) {
			problem.setInstance(URI.create(uri.toString()));
		}
		if (request.getAttribute(Problems.DETAIL_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST) instanceof String detail) {
			problem.setDetail(detail);
		}
		problem.setProperty("request_id", RequestIdFilter
			.orNew(request.getAttribute(RequestIdFilter.ATTRIBUTE, RequestAttributes.SCOPE_REQUEST)));
		Problems.serverErrorMembers(problem);
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

}
