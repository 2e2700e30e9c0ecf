/**
 * Consistency tokens over HTTP: reading a request's token, answering the position a
 * handler returned, the keys that sign them and what the API document says of them.
 */
package dev.highload.profiles.consistency;
