/*
 * http_auth.c — the bearer-token check (see http_auth.h).
 *
 * "Authorization: Bearer <token>": the scheme is case-insensitive (RFC 9110
 * section 11.1), one or more spaces follow it, and the token runs to the
 * end of the value (trailing spaces ignored).  Anything else is treated as
 * no credentials at all, so the client is told which scheme to use.
 */
#include "http_auth.h"

#include <string.h>
#include <strings.h>

int http_auth_equal(const char *secret, const char *given)
{
	size_t n = strlen(secret), m = strlen(given);
	/* Every byte of the secret is compared, whatever the guess; the
	 * accumulator is volatile so the loop cannot end early. */
	volatile unsigned char diff = (unsigned char)(n != m);
	for (size_t i = 0; i < n; i++) {
		unsigned char g = i < m ? (unsigned char)given[i] : 0;
		diff |= (unsigned char)((unsigned char)secret[i] ^ g);
	}
	return diff == 0;
}

enum http_auth_result http_auth_check(char *const *tokens, size_t ntokens,
                                      const char *authorization, size_t *which)
{
	if (!authorization)
		return HTTP_AUTH_MISSING;
	const char *p = authorization;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
		return HTTP_AUTH_MISSING;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	char given[4200];
	size_t n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0)
		return HTTP_AUTH_MISSING;
	if (n >= sizeof given)
		return HTTP_AUTH_INVALID; /* longer than any token we accept */
	memcpy(given, p, n);
	given[n] = '\0';
	int found = 0;
	for (size_t i = 0; i < ntokens; i++)
		if (http_auth_equal(tokens[i], given) && !found) {
			found = 1;
			*which = i;
		}
	return found ? HTTP_AUTH_OK : HTTP_AUTH_INVALID;
}
