/**
 * Cross-cutting HTTP concerns: request ids, the input rules and the shape of RFC 9457
 * problem responses; no feature.
 */
package dev.highload.profiles.web;
