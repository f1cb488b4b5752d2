/*
 * json_gen.c — random JSON documents (json_gen.h).
 */
#include "json_gen.h"

#include <stdio.h>
#include <string.h>

static const char *const pieces[] = {"",     "[",  "]",     "{",         "}",         ",",
                                     "\"",   "\\", "\\\"[", "[\"",       "[{",        "x",
                                     "\\\\", "}]", "\n",    "\xc3\xa9[", "\xc3\xa9,]"};
#define NPIECES (sizeof pieces / sizeof pieces[0])

static json_t *value(prng *g, int depth, int max_depth, int nesting)
{
	int k = prng_int(g, 0, depth >= max_depth ? 3 : 3 + nesting);
	switch (k) {
	case 0:
		return json_real(prng_int(g, 0, 1) ? prng_int(g, 0, 999) / 7.0
		                                   : (double)(int64_t)prng_next(g) / 1e6);
	case 1: {
		char s[128] = "";
		for (int i = 0, n = prng_int(g, 0, 4); i < n; i++)
			strcat(s, pieces[prng_int(g, 0, (int)NPIECES - 1)]);
		return json_string(s);
	}
	case 2: {
		int lit = prng_int(g, 0, 2);
		return lit == 0 ? json_true() : lit == 1 ? json_false() : json_null();
	}
	case 3: return json_integer(prng_int(g, 0, 999));
	default: break;
	}
	int n = prng_int(g, 0, 3);
	if (k % 2 == 0) {
		json_t *a = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(a, value(g, depth + 1, max_depth, nesting));
		return a;
	}
	json_t *o = json_object();
	for (int i = 0; i < n; i++) {
		char key[32];
		snprintf(key, sizeof key, "%s%d", pieces[prng_int(g, 0, (int)NPIECES - 1)], i);
		json_object_set_new(o, key, value(g, depth + 1, max_depth, nesting));
	}
	return o;
}

json_t *json_gen(prng *g, int max_depth, int nesting)
{
	return value(g, 0, max_depth, nesting);
}
