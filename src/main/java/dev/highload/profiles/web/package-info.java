/** Cross-cutting HTTP: request ids, the input rules, the shape of problem answers. */
package dev.highload.profiles.web;
