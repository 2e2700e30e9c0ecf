/**
 * Read/write routing: a primary pool, a replica pool and the lazy proxy that chooses.
 */
package dev.highload.profiles.routing;
