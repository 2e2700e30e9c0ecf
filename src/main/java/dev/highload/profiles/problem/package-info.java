/**
 * RFC 9457 problem answers: what every one carries (the request id, the path and, on a
 * 5xx, the OTUS API's members), and the answers to errors no handler sees, raised by a
 * filter, the servlet container or Tomcat before any servlet.
 */
package dev.highload.profiles.problem;
