/*
 * http_cors.c — matching a request's Origin against --cors-origin.
 *
 * Origins are compared exactly (RFC 6454 serialization: scheme, host and
 * port, no path), except that the scheme and host are case-insensitive.
 * "null" (sandboxed frames, file: pages) is never matched by a listed
 * origin, only by "*".
 */
#include "http_cors.h"

#include <string.h>
#include <strings.h>

const char *http_cors_allow(char *const *origins, size_t n, const char *origin)
{
	if (!origin || !*origin)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(origins[i], "*") == 0)
			return "*";
		if (strcasecmp(origins[i], origin) == 0)
			return origin;
	}
	return NULL;
}
