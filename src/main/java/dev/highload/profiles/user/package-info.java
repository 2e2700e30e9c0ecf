/** User profiles: registration, point reads with read-your-writes, prefix search. */
package dev.highload.profiles.user;
