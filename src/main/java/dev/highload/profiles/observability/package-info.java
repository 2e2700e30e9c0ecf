/**
 * What finds a request again: its id (echoed, in the logging context and in every
 * problem) and its timer, {@code http.server.requests}.
 */
package dev.highload.profiles.observability;
