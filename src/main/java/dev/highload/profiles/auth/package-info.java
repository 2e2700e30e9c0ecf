/** Login, bearer tokens and password hashing on a bounded pool. */
package dev.highload.profiles.auth;
