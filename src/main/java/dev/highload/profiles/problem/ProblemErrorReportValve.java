package dev.highload.profiles.problem;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.UUID;

import dev.highload.profiles.observability.RequestIdFilter;
import org.apache.catalina.Container;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error page, for requests it refuses before any servlet sees them (a
 * request line or headers above the size limit, a malformed request line), as a problem
 * detail instead of HTML. Errors that reach the application are answered by
 * {@code input.ProblemDetailsAdvice} and {@link ProblemErrorController}; this valve only
 * writes when nothing else has.
 */
class ProblemErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		HttpStatus known = HttpStatus.resolve(status);
		String title = (known != null) ? known.getReasonPhrase() : "Error";
		String id = UUID.randomUUID().toString();
		String detail = "The server refused the request before reading it: its request line or headers are "
				+ "malformed or too large. Characters outside ASCII in the URL must be percent-encoded "
				+ "(RFC 3986; curl -G --data-urlencode does it)";
		// A 5xx carries message and code as every other one does (Problems).
		String serverError = (status >= 500) ? ",\"message\":\"" + detail + "\",\"code\":" + status : "";
		String body = "{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status + ",\"detail\":\""
				+ detail + "\",\"request_id\":\"" + id + "\"" + serverError + "}";
		try {
			response.setContentType("application/problem+json");
			response.setCharacterEncoding("UTF-8");
			response.setHeader(RequestIdFilter.HEADER, id);
			PrintWriter writer = response.getReporter();
			if (writer != null) {
				writer.write(body);
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The connection is gone or the response is unusable: nothing more to say.
		}
	}

	/**
	 * Puts the valve in place of the error valves Tomcat and Spring Boot add to the host.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Installer {

		@Bean
		WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReportValve() {
			return (factory) -> factory.addContextCustomizers((context) -> context.addLifecycleListener((event) -> {
				if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
					replaceErrorValves(context.getParent());
				}
			}));
		}

		private static void replaceErrorValves(Container host) {
			for (Valve valve : host.getPipeline().getValves()) {
				if (valve instanceof ErrorReportValve && !(valve instanceof ProblemErrorReportValve)) {
					host.getPipeline().removeValve(valve);
				}
			}
			host.getPipeline().addValve(new ProblemErrorReportValve());
		}

	}

}
