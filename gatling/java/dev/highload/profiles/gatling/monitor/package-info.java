/**
 * The simulations' CPU monitor: samples the machine, the service, the PostgreSQL nodes
 * (or, when the service runs in Docker, every container of its Compose project) and
 * Gatling once a second, and writes the CSV, chart and summary of a run.
 */
package dev.highload.profiles.gatling.monitor;
