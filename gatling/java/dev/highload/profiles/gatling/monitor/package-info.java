/**
 * The simulations' CPU monitor: samples the machine, the service, the PostgreSQL nodes
 * and Gatling once a second, and writes the CSV, chart and summary of a run.
 */
package dev.highload.profiles.gatling.monitor;
