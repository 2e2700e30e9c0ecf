package dev.highload.profiles.gatling;

import java.util.Locale;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.http.HttpDsl.flushCookieJar;
import static io.gatling.javaapi.http.HttpDsl.header;

/**
 * How a virtual user that has registered carries the write's consistency token into its
 * later reads ({@code -DconsistencyToken}, docs/api.md). Users who never wrote hold no
 * token and send none: a read without one sets no cookie.
 */
enum TokenCarrier {

	/**
	 * The default, as a browser does: Gatling's cookie jar, one per virtual user, keeps
	 * the {@code consistency_token} cookie the registration set and sends it with every
	 * later request, and keeps the later position a read sets in its place.
	 */
	COOKIE,

	/**
	 * As an API client that keeps the token itself: the cookie jar is emptied after the
	 * registration, and every later request sends the {@code Consistency-Token} header
	 * with the latest token an answer carried.
	 */
	HEADER,

	/**
	 * The control: the cookie jar is emptied and no token is sent, so a read may run on a
	 * replica that has not replayed the registration, and the run may count misses.
	 */
	NONE;

	static final String HEADER_NAME = "Consistency-Token";

	static final String COOKIE_NAME = "consistency_token";

	/** The session attribute that holds the latest token an answer carried. */
	static final String ATTRIBUTE = "consistency_token";

	static TokenCarrier fromSystemProperty() {
		String value = System.getProperty("consistencyToken", "cookie");
		try {
			return valueOf(value.toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("-DconsistencyToken=" + value + ": cookie, header or none", ex);
		}
	}

	/** What the user does once the registration answered. */
	ChainBuilder afterWrite() {
		return (this == COOKIE) ? exec((session) -> session) : exec(flushCookieJar());
	}

	/** A read the user makes after the registration, carrying the token this way. */
	HttpRequestActionBuilder carry(HttpRequestActionBuilder read) {
		return (this != HEADER) ? read : read.header(HEADER_NAME, "#{" + ATTRIBUTE + "}")
			.check(header(HEADER_NAME).optional().saveAs(ATTRIBUTE));
	}

}
