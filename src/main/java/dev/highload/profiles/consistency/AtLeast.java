package dev.highload.profiles.consistency;

import dev.highload.profiles.routing.WalPosition;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The position a {@link ConsistentRead} request requires: the later of its
 * {@value ConsistencyTokens#HEADER} header and {@value ConsistencyTokens#COOKIE} cookie,
 * {@link WalPosition#NONE} without either. A handler takes it as a parameter
 * ({@link AtLeastResolver}).
 * <p>
 * The token is judged when the handler asks for the position, not when Spring MVC binds
 * the parameter: a request with another fault (a missing bearer token, a parameter that
 * fails validation) gets the answer to that fault first, as when handlers read the token
 * themselves.
 */
public final class AtLeast {

	/** A request without a token: every node will do. */
	static final AtLeast NONE = new AtLeast(null, null, null);

	private final ConsistencyTokens tokens;

	private final HttpServletRequest request;

	private final HttpServletResponse response;

	AtLeast(ConsistencyTokens tokens, HttpServletRequest request, HttpServletResponse response) {
		this.tokens = tokens;
		this.request = request;
		this.response = response;
	}

	/**
	 * @return the position the read must see
	 * @throws dev.highload.profiles.input.InvalidParameterException 400 if the header or
	 * the cookie is not a token this service made (a cookie is then cleared)
	 */
	public WalPosition position() {
		if (this.tokens == null) {
			return WalPosition.NONE;
		}
		long required = this.tokens.required(this.request, this.response);
		return (required == 0) ? WalPosition.NONE : new WalPosition(required);
	}

}
