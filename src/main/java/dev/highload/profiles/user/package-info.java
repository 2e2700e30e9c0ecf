/** User profiles: idempotent registration, point reads with read-your-writes, search. */
package dev.highload.profiles.user;
