/**
 * Where each statement runs (the write pool behind a lazy proxy for transactions, a read
 * pool per node and {@link dev.highload.profiles.routing.ReadRouter} for reads), and what
 * a database failure means; no HTTP.
 */
package dev.highload.profiles.routing;
