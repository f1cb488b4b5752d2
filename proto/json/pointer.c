/*
 * pointer.c — rendering decoder paths as JSON Pointers (RFC 6901).
 *
 * The decoder (query.c) threads a proto_path chain through its recursion, one
 * stack-allocated step per level, so keeping track of where it is costs
 * nothing.  Only a problem needs the text form: it is built here, measured
 * first and then filled from the innermost step outwards.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "pointer.h"

size_t proto_pointer_escape(char *dst, const char *name, size_t n)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (c == '~' || c == '/') {
			if (dst) {
				dst[out] = '~';
				dst[out + 1] = c == '~' ? '0' : '1';
			}
			out += 2;
		} else {
			if (dst)
				dst[out] = c;
			out++;
		}
	}
	return out;
}

/* Length of the reference token of one step, "/" included; when `dst` is
 * not NULL the token is written there. */
static size_t step_token(const proto_path *p, char *dst)
{
	if (p->key) {
		if (dst)
			dst[0] = '/';
		return 1 + proto_pointer_escape(dst ? dst + 1 : NULL, p->key, strlen(p->key));
	}
	/* "/%zu", without printf: the decoder renders the pointer of a
	 * query's first point on every query (an index is far below 2^63). */
	char num[1 + PROTO_INT_MAX] = "/";
	size_t n = 1 + proto_int_text((long long)p->index, num + 1);
	if (dst)
		memcpy(dst, num, n);
	return n;
}

char *proto_path_render(const proto_path *path)
{
	size_t len = 0;
	for (const proto_path *p = path; p; p = p->up)
		len += step_token(p, NULL);
	char *s = malloc(len + 1);
	if (!s)
		return NULL;
	s[len] = '\0';
	/* The chain runs from the innermost step out: fill from the end. */
	size_t end = len;
	for (const proto_path *p = path; p; p = p->up) {
		size_t n = step_token(p, NULL);
		end -= n;
		step_token(p, s + end);
	}
	assert(end == 0);
	return s;
}
