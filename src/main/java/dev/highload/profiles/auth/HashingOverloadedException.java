package dev.highload.profiles.auth;

import dev.highload.profiles.routing.RetryLaterException;

/** The password-hashing queue is full: the client should retry shortly. */
class HashingOverloadedException extends RetryLaterException {

	HashingOverloadedException() {
		super("Overloaded", "Too many registrations and logins in progress; retry shortly", null);
	}

}
