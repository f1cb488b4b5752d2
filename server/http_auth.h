/*
 * http_auth.h — bearer-token authentication (RFC 6750) for clashd.
 *
 * The tokens of --auth-token-file (each may name a tenant) guard every
 * route but the open ones (--auth-open).  The comparison takes a time that depends only on the
 * configured token's length, never on how much of a guess was right.
 */
#ifndef SERVER_HTTP_AUTH_H
#define SERVER_HTTP_AUTH_H

#include <stddef.h>

enum http_auth_result {
	HTTP_AUTH_OK = 0,
	HTTP_AUTH_MISSING, /* no Authorization header, or not a Bearer one */
	HTTP_AUTH_INVALID  /* a Bearer token, not the right one */
};

/* Judge an Authorization header value (NULL: absent) against the n
 * `tokens`; HTTP_AUTH_OK with *which the one it is.  Every token is
 * compared, each in time depending on its length only. */
enum http_auth_result http_auth_check(char *const *tokens, size_t n, const char *authorization,
                                      size_t *which);

/* Equal strings, in time depending on strlen(secret) only. */
int http_auth_equal(const char *secret, const char *given);

#endif
