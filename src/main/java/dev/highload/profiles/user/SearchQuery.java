package dev.highload.profiles.user;

import java.util.UUID;

/**
 * One page of a prefix search.
 *
 * @param firstNamePrefix the first name starts with this
 * @param lastNamePrefix the last name starts with this
 * @param after only users whose id is greater (keyset pagination), or null
 * @param limit page size
 */
record SearchQuery(String firstNamePrefix, String lastNamePrefix, UUID after, int limit) {

	/** Smaller than every version-7 id: the start of the first page. */
	static final UUID FIRST_PAGE = new UUID(0, 0);

}
