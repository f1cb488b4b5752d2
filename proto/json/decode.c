/*
 * decode.c — pieces shared by the request decoders (see decode.h).
 */
#include "decode.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"

int proto_fail(proto_problem *p, const proto_path *at, const char *fmt, ...)
{
	char *pointer = proto_path_render(at);
	if (!pointer)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	proto_problem_setv(p, 422, pointer, fmt, ap);
	va_end(ap);
	return 1;
}

const char *proto_kind_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "a value";
}

int proto_known_members(const json_t *obj, const proto_path *at, const char *const *allowed,
                        const char *what, proto_problem *p)
{
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)obj, key, value) {
		int ok = 0;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, key) == 0;
		if (!ok) {
			proto_path m = {at, key, 0};
			return proto_fail(p, &m, "unknown member: %s", what);
		}
	}
	return 0;
}

int proto_blank_problem(const char *s, size_t n, const char *detail, proto_problem *p)
{
	char *pointer = strdup("");
	if (!pointer)
		return -1;
	proto_problem_set(p, 400, pointer, "%s", detail);
	int line = 1, column = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			line++;
			column = 0;
		} else {
			column++;
		}
	}
	p->located = 1;
	p->line = line;
	p->column = column > 0 ? column : 1;
	p->position = n;
	return 1;
}

int proto_is_blank(const char *s, size_t n)
{
	return json_scan_skip_ws(s, n, 0) == n;
}
