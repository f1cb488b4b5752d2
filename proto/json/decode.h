/*
 * decode.h — the small pieces every request decoder shares (query.c,
 * contains.c, scene.c, batch.c, reply.c): a 422 at a JSON Pointer, the name
 * of a JSON value's kind for messages, the unknown-member check, the blank
 * body test.
 */
#ifndef PROTO_DECODE_H
#define PROTO_DECODE_H

#include <jansson.h>
#include <stddef.h>

#include "pointer.h"
#include "problem.h"

/* A 422 problem at `at` with a printf detail.  Returns 1, or -1 when even
 * the pointer cannot be allocated. */
int proto_fail(proto_problem *p, const proto_path *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "an object", "a string" ...: for "expected X, got Y" details. */
const char *proto_kind_of(const json_t *v);

/* Every member of `obj` must be in the NULL-terminated `allowed` list; the
 * first one that is not gets a 422 at its pointer, "unknown member: what".
 * Returns 0, 1 or -1 as proto_fail. */
int proto_known_members(const json_t *obj, const proto_path *at, const char *const *allowed,
                        const char *what, proto_problem *p);

/* Only JSON white space (or nothing). */
int proto_is_blank(const char *s, size_t n);

/* The 400 for a blank body (proto_is_blank): `detail`, pointer "" and,
 * like every other parse error, where the parser stopped: the end of the
 * text, at the line and column of its last character as jansson counts
 * them, the column at least 1 (an empty body: line 1, column 1, position
 * 0).  Returns 1, or -1 when memory ran out. */
int proto_blank_problem(const char *s, size_t n, const char *detail, proto_problem *p);

#endif
