/**
 * User profiles: registration at most once per Idempotency-Key, point reads with
 * read-your-writes, prefix search.
 */
package dev.highload.profiles.user;
