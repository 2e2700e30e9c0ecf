/**
 * What the OpenAPI document says beyond what springdoc reads from the controllers: the
 * problem responses an endpoint declares, their schema, and the code-point bounds of
 * input.
 */
package dev.highload.profiles.openapi;
