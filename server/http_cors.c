/*
 * http_cors.c — matching a request's Origin against --cors-origin.
 *
 * An origin is the RFC 6454 serialization: scheme "://" host [":" port], no
 * path; scheme and host compare case-insensitively.  A listed entry is "*"
 * (any origin, answered "*"), an origin, or a pattern with a wildcard in
 * one of two places: the port (`http://localhost:*`, any port or none) or
 * the first label of the host (`*.example.com` after the scheme: any name
 * below example.com, not example.com itself).  "null" (sandboxed frames, file:
 * pages) is matched by "*" only.  A request's Origin must be a whole,
 * well-formed origin (a host name or IP literal, a port of digits) before
 * it is compared: a wildcard stands for a port or a label, never for text
 * such as "1@evil.net" or "evil.com?".
 */
#include "http_cors.h"

#include <string.h>
#include <strings.h>

/* An origin split in place: pointers into the text and lengths. */
typedef struct origin_parts {
	const char *scheme, *host, *port;
	size_t scheme_len, host_len, port_len; /* port_len 0: no port */
} origin_parts;

/* A port: 1 to 5 digits, at most 65535. */
static int is_port(const char *s, size_t n)
{
	if (n == 0 || n > 5)
		return 0;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	return v <= 65535;
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A host name (RFC 1123: dot-separated labels of 1 to 63 letters, digits
 * and hyphens, no hyphen first or last; a dotted IPv4 address is one) or
 * a bracketed IPv6 literal ("[::1]": hex digits, colons, dots).  What a
 * browser serializes; anything else (an "@", a "?", an empty label) is no
 * origin's host. */
static int is_host(const char *h, size_t n)
{
	if (n > 0 && h[0] == '[') {
		if (n < 4 || h[n - 1] != ']' || !memchr(h, ':', n))
			return 0;
		for (size_t i = 1; i + 1 < n; i++)
			if (!strchr("0123456789abcdefABCDEF:.", h[i]))
				return 0;
		return 1;
	}
	if (n == 0 || n > 253)
		return 0;
	size_t label = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (label == 0 || label > 63 || h[i - 1] == '-')
				return 0;
			label = 0;
		} else if (is_alnum(h[i]) || (h[i] == '-' && label > 0)) {
			label++;
		} else {
			return 0;
		}
	}
	return 1;
}

/* Split "scheme://host[:port]" and check its parts: 0, or -1 when it is
 * not of that form (another scheme, a path, an empty or malformed host or
 * port).  A `pattern` may also have "*" as its port or as its host's first
 * label ("*.example.com"). */
static int split_origin(const char *o, int pattern, origin_parts *p)
{
	if (strncasecmp(o, "http://", 7) == 0)
		p->scheme_len = 4;
	else if (strncasecmp(o, "https://", 8) == 0)
		p->scheme_len = 5;
	else
		return -1;
	p->scheme = o;
	p->host = o + p->scheme_len + 3;
	/* A bracketed IPv6 host holds colons; the port follows the ']'. */
	const char *end = p->host[0] == '[' ? strchr(p->host, ']') : p->host;
	if (!end)
		return -1;
	const char *colon = strchr(end, ':');
	p->host_len = colon ? (size_t)(colon - p->host) : strlen(p->host);
	p->port = colon ? colon + 1 : "";
	p->port_len = strlen(p->port);
	const char *host = p->host;
	size_t host_len = p->host_len;
	if (pattern && host_len > 2 && host[0] == '*' && host[1] == '.' && host[2] != '[') {
		host += 2;
		host_len -= 2;
	}
	if (!is_host(host, host_len))
		return -1;
	if (colon && !is_port(p->port, p->port_len) &&
	    !(pattern && p->port_len == 1 && p->port[0] == '*'))
		return -1;
	return 0;
}

int http_cors_pattern_valid(const char *pattern)
{
	origin_parts p;
	return strcmp(pattern, "*") == 0 || split_origin(pattern, 1, &p) == 0;
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
	if (split_origin(pattern, 1, &pat) != 0 || split_origin(origin, 0, &o) != 0)
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
