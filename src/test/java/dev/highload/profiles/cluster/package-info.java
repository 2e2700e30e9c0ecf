/**
 * The embedded local PostgreSQL cluster: one primary and two synchronous replicas, no
 * Docker needed, and its failover command. Development tooling in src/test, outside the
 * production jar: the integration tests and {@code LocalProfilesApplication} run it.
 */
package dev.highload.profiles.cluster;
