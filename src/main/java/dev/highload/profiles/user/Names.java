package dev.highload.profiles.user;

/**
 * What a person's name may look like, shared by registration and the seed data.
 */
public final class Names {

	/**
	 * Letters (with combining marks), joined by single spaces, hyphens or apostrophes.
	 */
	public static final String NAME_PATTERN = "\\p{L}\\p{M}*(?:[ '’-]?\\p{L}\\p{M}*)*";

	private Names() {
	}

}
