/** Which node serves a read: the policy, and the routing DataSource it keys; no HTTP. */
package dev.highload.profiles.routing;
