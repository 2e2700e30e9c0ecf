package dev.highload.profiles.auth;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start refused for its token keys into Spring Boot's short "APPLICATION FAILED
 * TO START" report: what is wrong with the keys and how to make them, no stack trace.
 */
class TokenKeyFailureAnalyzer extends AbstractFailureAnalyzer<TokenKeyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, TokenKeyException cause) {
		String message = cause.getMessage();
		int firstLineEnd = message.indexOf('\n');
		return new FailureAnalysis(message.substring(0, firstLineEnd), message.substring(firstLineEnd + 1), cause);
	}

}
