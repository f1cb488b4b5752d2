/*
 * http_cors.c — matching a request's Origin against --cors-origin.
 *
 * An origin is the RFC 6454 serialization: scheme "://" host [":" port], no
 * path; scheme and host compare case-insensitively.  A listed entry is "*"
 * (any origin, answered "*"), an origin, or a pattern with a wildcard in
 * one of two places: the port (`http://localhost:*`, any port or none) or
 * the first label of the host (`*.example.com` after the scheme: any name
 * below example.com, not example.com itself).  "null" (sandboxed frames, file:
 * pages) is matched by "*" only.
 */
#include "http_cors.h"

#include <string.h>
#include <strings.h>

/* An origin split in place: pointers into the text and lengths. */
typedef struct origin_parts {
	const char *scheme, *host, *port;
	size_t scheme_len, host_len, port_len; /* port_len 0: no port */
} origin_parts;

static int is_digits(const char *s, size_t n)
{
	if (n == 0 || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Split "scheme://host[:port]"; 0, or -1 when it is not of that form
 * (another scheme, a path, a space, an empty host or port).  Wildcards are
 * left for the caller to judge. */
static int split_origin(const char *o, origin_parts *p)
{
	if (strncasecmp(o, "http://", 7) == 0)
		p->scheme_len = 4;
	else if (strncasecmp(o, "https://", 8) == 0)
		p->scheme_len = 5;
	else
		return -1;
	p->scheme = o;
	p->host = o + p->scheme_len + 3;
	for (const char *c = p->host; *c; c++)
		if (*c <= ' ' || *c >= 0x7f || *c == '/' || *c == ',' || *c == '"' || *c == '\\')
			return -1;
	/* A bracketed IPv6 host holds colons; the port follows the ']'. */
	const char *end = p->host[0] == '[' ? strchr(p->host, ']') : p->host;
	if (!end)
		return -1;
	const char *colon = strchr(end, ':');
	p->host_len = colon ? (size_t)(colon - p->host) : strlen(p->host);
	p->port = colon ? colon + 1 : "";
	p->port_len = strlen(p->port);
	if (p->host_len == 0 || (colon && p->port_len == 0))
		return -1;
	return 0;
}

int http_cors_pattern_valid(const char *pattern)
{
	origin_parts p;
	if (strcmp(pattern, "*") == 0)
		return 1;
	if (split_origin(pattern, &p) != 0)
		return 0;
	const char *host = p.host;
	size_t host_len = p.host_len;
	if (host_len > 2 && host[0] == '*' && host[1] == '.') {
		host += 2;
		host_len -= 2;
	}
	if (memchr(host, '*', host_len))
		return 0;
	if (p.port_len && !(p.port_len == 1 && p.port[0] == '*') && !is_digits(p.port, p.port_len))
		return 0;
	return 1;
}

static int host_matches(const origin_parts *pat, const origin_parts *o)
{
	if (pat->host[0] != '*')
		return pat->host_len == o->host_len &&
		       strncasecmp(pat->host, o->host, o->host_len) == 0;
	/* "*.example.com": o's host ends with ".example.com", with a label
	 * before it. */
	size_t suffix = pat->host_len - 1; /* ".example.com" */
	return o->host_len > suffix &&
	       strncasecmp(o->host + (o->host_len - suffix), pat->host + 1, suffix) == 0;
}

static int origin_matches(const char *pattern, const char *origin)
{
	origin_parts pat, o;
	if (split_origin(pattern, &pat) != 0 || split_origin(origin, &o) != 0)
		return 0;
	if (pat.scheme_len != o.scheme_len || strncasecmp(pat.scheme, o.scheme, o.scheme_len) != 0)
		return 0;
	if (!host_matches(&pat, &o))
		return 0;
	if (pat.port_len == 1 && pat.port[0] == '*')
		return 1;
	return pat.port_len == o.port_len && strncmp(pat.port, o.port, o.port_len) == 0;
}

const char *http_cors_allow(char *const *origins, size_t n, const char *origin)
{
	if (!origin || !*origin)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(origins[i], "*") == 0)
			return "*";
		if (origin_matches(origins[i], origin))
			return origin;
	}
	return NULL;
}
