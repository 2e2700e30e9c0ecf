/**
 * The load simulations: requests defined once, feeders and open-model injection profiles,
 * each simulation asserting its percentiles and error rate.
 */
package dev.highload.profiles.gatling;
