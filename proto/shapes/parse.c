/*
 * parse.c — the strict JSON parse every request body goes through
 * (parse.h): jansson's parser with duplicate names refused and every
 * number read as a double, the request limits before (nesting) and after
 * (counts) it, and its refusals turned into located problems.
 */
#include <jansson.h>
#include <stddef.h>

#include "decode.h"
#include "parse.h"
#include "pointer.h"
#include "problem.h"
#include "request_limits.h"

/* No limits (proto_context_none's). */
static const proto_request_limits no_limits;

int proto_parse_problem(const char *body, size_t len, const json_error_t *e, proto_problem *p)
{
	enum json_error_code code = json_error_code(e);
	if (code == json_error_out_of_memory)
		return -1;
	size_t pos = e->position > 0 ? (size_t)e->position : 0;
	/* Out of input: the value being read is the one left open at the end,
	 * not the last complete token (which also ends at the error position). */
	if (code == json_error_premature_end_of_input)
		pos = len + 1;
	char *pointer = proto_pointer_at(body, len, pos);
	if (!pointer)
		return -1;
	if (code == json_error_numeric_overflow) {
		proto_problem_set(p, 422, pointer,
		                  "number out of the range of a double "
		                  "(magnitude above 1.8e308)");
		p->overflow = 1;
		return 1;
	}
	proto_problem_set(p, 400, pointer, "%s", e->text);
	p->located = 1;
	p->line = e->line;
	p->column = e->column;
	p->position = (size_t)e->position;
	return 1;
}

int proto_parse_ex(const char *body, size_t len, const proto_request_limits *limits, json_t **root,
                   proto_problem *p, enum proto_limit *which)
{
	*root = NULL;
	*which = PROTO_LIMIT_NONE;
	if (proto_is_blank(body, len))
		return proto_blank_problem(body, len, "empty body: expected a JSON object", p);
	int r = proto_limits_depth(body, len, limits->max_depth, p);
	if (r) {
		if (r == 1)
			*which = PROTO_LIMIT_DEPTH;
		return r;
	}
	json_error_t e;
	*root = json_loadb(body, len,
	                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
	if (!*root)
		return proto_parse_problem(body, len, &e, p);
	r = proto_limits_tree(*root, NULL, limits, p, which);
	if (r) {
		json_decref(*root);
		*root = NULL;
	}
	return r;
}

int proto_parse(const char *body, size_t len, json_t **root, proto_problem *p)
{
	enum proto_limit which;
	return proto_parse_ex(body, len, &no_limits, root, p, &which);
}

int proto_parse_text(const char *body, size_t len, json_t **root, proto_problem *p)
{
	*root = NULL;
	if (proto_is_blank(body, len))
		return proto_blank_problem(body, len, "empty body: expected a JSON object", p);
	json_error_t e;
	*root = json_loadb(body, len,
	                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
	return *root ? 0 : proto_parse_problem(body, len, &e, p);
}
