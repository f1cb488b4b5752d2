/*
 * http_cors.h — CORS (the Fetch standard's cross-origin checks) for browser
 * clients of clashd.
 *
 * A browser sends "Origin" with cross-origin requests, and before a POST of
 * application/json it asks first with a preflight (OPTIONS carrying
 * Access-Control-Request-Method).  clashd answers a preflight from an
 * allowed origin with 204 and the grant headers, and puts
 * Access-Control-Allow-Origin on every other response to that origin,
 * errors included (else the browser hides the problem from the page).
 */
#ifndef SERVER_HTTP_CORS_H
#define SERVER_HTTP_CORS_H

#include <stddef.h>

/* How long a browser may cache a preflight answer (seconds). */
#define HTTP_CORS_MAX_AGE "600"

/* Request headers a page may send (X-Clashd-Shape: the routing header a
 * load balancer may hash on, openapi.yaml RouteShape). */
#define HTTP_CORS_ALLOW_HEADERS "Content-Type, Authorization, X-Request-Id, X-Clashd-Shape"

/* Response headers a page may read (beyond the always-safe ones). */
#define HTTP_CORS_EXPOSE_HEADERS "X-Request-Id, Retry-After, WWW-Authenticate"

/* Whether a --cors-origin entry is "*", an origin (http or https, a host
 * name or IP literal, an optional port of digits, no path) or a pattern
 * with "*" as the port
 * (http://localhost:*) or as the first label of the host ("*.example.com"
 * after the scheme).  1 or 0. */
int http_cors_pattern_valid(const char *pattern);

/* The Access-Control-Allow-Origin value for a request's Origin header: the
 * origin itself when an entry of the list matches it, "*" when the list has
 * "*", NULL when the origin is not allowed or absent. */
const char *http_cors_allow(char *const *origins, size_t n, const char *origin);

#endif
