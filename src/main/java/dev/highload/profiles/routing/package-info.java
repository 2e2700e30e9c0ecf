/**
 * Read/write routing: a primary pool, a replica pool and the lazy proxy choosing between
 * them.
 */
package dev.highload.profiles.routing;
