/** Cross-cutting HTTP concerns: request ids and RFC 9457 problem responses. */
package dev.highload.profiles.web;
