/** Which node runs each statement, and what a database failure means; no HTTP. */
package dev.highload.profiles.routing;
