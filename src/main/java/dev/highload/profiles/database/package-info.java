/**
 * The connections to the cluster and what their failures mean: pools, the write path, no
 * HTTP.
 */
package dev.highload.profiles.database;
