/**
 * Strict input: a request is read one way only or refused, naming what is wrong: the
 * path's spelling, the body's size, time and UTF-8, JSON types and repeated keys, query
 * parameters, canonical ids, storable text; and the advice that answers these and Spring
 * MVC's other errors as problems. With them, what the servlet chain and Spring MVC do per
 * request beyond that: the framework filters left out, the JSON answer's type set without
 * negotiating.
 */
package dev.highload.profiles.input;
