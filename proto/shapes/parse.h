/*
 * parse.h — the strict JSON parse every request body goes through
 * (parse.c), for every decoder.
 */
#ifndef PROTO_PARSE_H
#define PROTO_PARSE_H

#include <jansson.h>
#include <stddef.h>

#include "problem.h"
#include "proto.h"

/* Parse `body` as proto_query_reply() does (strict RFC 8259, duplicate
 * names rejected, any top-level value, integers as reals).  Returns 0 with
 * the tree in *root (the caller decrefs it); 1 with a 400 problem (or 422
 * for a number out of the range of a double) in *p; -1 when memory ran
 * out. */
int proto_parse(const char *body, size_t len, json_t **root, proto_problem *p);

/* proto_parse() that also applies the request limits `l`: the nesting
 * depth before parsing (400), the counts after (422).  *which names the
 * limit broken, if any (PROTO_LIMIT_NONE otherwise). */
int proto_parse_ex(const char *body, size_t len, const proto_request_limits *l, json_t **root,
                   proto_problem *p, enum proto_limit *which);

/* The problem for text that json_loadb() refused with *e: a 400 located
 * where the parser stopped (line, column, position and the pointer of the
 * value it was in), or a 422 naming a number out of the range of a double.
 * Returns 1, or -1 when memory ran out. */
int proto_parse_problem(const char *body, size_t len, const json_error_t *e, proto_problem *p);

/* The strict parse alone, without the tree limits: for a decoder that
 * applies proto_limits_tree() itself to parts of its request (a Scene, to
 * each object's shape).  The nesting depth is the caller's to check first
 * (proto_limits_depth). */
int proto_parse_text(const char *body, size_t len, json_t **root, proto_problem *p);

#endif /* PROTO_PARSE_H */
