/**
 * The embedded local PostgreSQL cluster: one primary and two synchronous replicas, no
 * Docker needed, and its failover command.
 */
package dev.highload.profiles.cluster;
