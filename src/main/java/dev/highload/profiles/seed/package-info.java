/** Deterministic bulk generation of realistic profiles, loaded with COPY. */
package dev.highload.profiles.seed;
