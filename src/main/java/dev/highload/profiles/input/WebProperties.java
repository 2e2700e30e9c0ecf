package dev.highload.profiles.input;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * HTTP limits ({@code app.web.*}).
 *
 * @param maxRequestBody the largest request body accepted; larger ones get 413 before
 * anything parses them. The largest valid registration (two 100-character names, a
 * 2,000-character biography, a 100-character city and a 128-character password, every
 * character up to 4 bytes of UTF-8) is under 10 KB.
 * @param requestBodyTimeout how long a request's body may take to arrive whole, from the
 * moment its headers have: past it the request is answered 408 and its connection closed.
 * Until the body is whole the request holds no thread, no admission place and no pooled
 * connection ({@link RequestBodyFilter}), so clients that trickle their bodies cannot
 * take the service's threads or its room for registrations and logins. A body of 16 KB in
 * 5 s is 3.2 KB/s, slower than any client that means to be answered
 */
@ConfigurationProperties("app.web")
public record WebProperties(@DefaultValue("16KB") DataSize maxRequestBody,
		@DefaultValue("5s") Duration requestBodyTimeout) {

	public WebProperties {
		if (maxRequestBody.toBytes() < 1) {
			throw new IllegalArgumentException("app.web.max-request-body must be positive");
		}
		if (requestBodyTimeout.toMillis() < 1) {
			throw new IllegalArgumentException("app.web.request-body-timeout must be positive");
		}
	}

}
