/**
 * Admission control: how many API requests run at once, found from their latency, and the
 * quick 503 for the ones over it, before any database work.
 */
package dev.highload.profiles.admission;
