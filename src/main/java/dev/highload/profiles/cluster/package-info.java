/**
 * The embedded local PostgreSQL cluster: one primary and two synchronous replicas, no
 * Docker needed.
 */
package dev.highload.profiles.cluster;
