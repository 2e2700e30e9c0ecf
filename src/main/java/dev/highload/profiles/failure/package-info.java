/** The HTTP answer to every failure the features and the database report. */
package dev.highload.profiles.failure;
