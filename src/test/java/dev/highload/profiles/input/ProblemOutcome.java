package dev.highload.profiles.input;

import java.io.UnsupportedEncodingException;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.test.web.servlet.assertj.MvcTestResult;

/**
 * A response in one line, "400 first_name": its status and the field its problem names
 * first. Tests of many inputs collect these in a map and compare it whole, so that a
 * failure lists every input that was answered wrongly, not only the first.
 */
public final class ProblemOutcome {

	private ProblemOutcome() {
	}

	/**
	 * @param result a MockMvc exchange
	 * @return the status, then the first {@code errors[].field} of a problem or "(none)"
	 */
	public static String of(MvcTestResult result) {
		try {
			int status = result.getResponse().getStatus();
			if (status < 400) {
				return Integer.toString(status);
			}
			String body = result.getResponse().getContentAsString();
			return status + " "
					+ JsonMapper.shared().readTree(body).path("errors").path(0).path("field").asString("(none)");
		}
		catch (UnsupportedEncodingException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
