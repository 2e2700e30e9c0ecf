package dev.highload.profiles.cluster;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start refused because another process runs the cluster into Spring Boot's short
 * "APPLICATION FAILED TO START" report: who owns it and what to do, no stack trace.
 */
class ClusterOwnedFailureAnalyzer extends AbstractFailureAnalyzer<ClusterOwnedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ClusterOwnedException cause) {
		String message = cause.getMessage();
		int firstLineEnd = message.indexOf('\n');
		String description = (firstLineEnd > 0) ? message.substring(0, firstLineEnd) : message;
		String action = (firstLineEnd > 0) ? message.substring(firstLineEnd + 1) : "Stop process " + cause.ownerPid();
		return new FailureAnalysis(description, action, cause);
	}

}
