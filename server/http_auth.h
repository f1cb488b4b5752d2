/*
 * http_auth.h — bearer-token authentication (RFC 6750) for clashd.
 *
 * One static token (--auth-token-file) guards every route but the open ones
 * (--auth-open).  The comparison takes a time that depends only on the
 * configured token's length, never on how much of a guess was right.
 */
#ifndef SERVER_HTTP_AUTH_H
#define SERVER_HTTP_AUTH_H

enum http_auth_result {
	HTTP_AUTH_OK = 0,
	HTTP_AUTH_MISSING,  /* no Authorization header, or not a Bearer one */
	HTTP_AUTH_INVALID   /* a Bearer token, not the right one */
};

/* Judge an Authorization header value (NULL: absent) against `token`. */
enum http_auth_result http_auth_check(const char *token, const char *authorization);

/* Equal strings, in time depending on strlen(secret) only. */
int http_auth_equal(const char *secret, const char *given);

#endif
