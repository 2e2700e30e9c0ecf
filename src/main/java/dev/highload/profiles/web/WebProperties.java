package dev.highload.profiles.web;

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
 */
@ConfigurationProperties("app.web")
public record WebProperties(@DefaultValue("16KB") DataSize maxRequestBody) {

	public WebProperties {
		if (maxRequestBody.toBytes() < 1) {
			throw new IllegalArgumentException("app.web.max-request-body must be positive");
		}
	}

}
