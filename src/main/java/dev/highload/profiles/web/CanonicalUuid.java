package dev.highload.profiles.web;

/**
 * The canonical 8-4-4-4-12 hex form of a UUID, the only one the API accepts: in paths and
 * query parameters ({@link CanonicalUuidBinding}) and in JSON, and the pattern the
 * OpenAPI document states for every id.
 */
public final class CanonicalUuid {

	/** The canonical form, as a regular expression for the whole value. */
	public static final String PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

	private CanonicalUuid() {
	}

}
