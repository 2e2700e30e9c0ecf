/**
 * What a handler may take of a request beyond Spring MVC's own bindings, so that none
 * takes the servlet request: the client's address, the query parameters as sent, and the
 * resolver a feature registers for a type of its own.
 */
package dev.highload.profiles.arguments;
