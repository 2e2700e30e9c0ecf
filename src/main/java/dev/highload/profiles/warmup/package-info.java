/**
 * Ready means warm: the real request paths run, over HTTP on the service's own port,
 * until the JIT compiler has settled, before the service reports ready.
 */
package dev.highload.profiles.warmup;
