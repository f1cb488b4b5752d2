/*
 * request_limits.h — the limits of proto_request_limits (proto.h), checked
 * before the decoder sees a request.
 *
 * Two passes, both independent of the Query schema so that every route and
 * every shape kind (compound shapes with "parts" included) is bounded the
 * same way:
 *  - proto_limits_depth() scans the raw text for nesting depth before it is
 *    parsed (jansson would recurse up to its own 2048 levels first);
 *  - proto_limits_tree() walks the parsed tree for the counts: a "shape" is
 *    any object with a "vertices", "positions" or "parts" member, wherever
 *    it is.
 * The decoder still checks everything else; a request within the limits but
 * malformed is its business.
 */
#ifndef PROTO_REQUEST_LIMITS_H
#define PROTO_REQUEST_LIMITS_H

#include <stddef.h>

#include <jansson.h>

#include "problem.h"
#include "vertex_table.h"
#include "proto.h"

/* The text nests arrays and objects at most max_depth deep: 0.  Deeper: 1
 * and a 400 problem at the first container past the limit (its pointer,
 * line, column and position); -1 when memory ran out. */
int proto_limits_depth(const char *text, size_t len, size_t max_depth, proto_problem *p);

/* The parsed request (with the vertex arrays read beside it, `vt`, or
 * NULL) is within l's counts: 0.  Else 1 with a 422 problem at the
 * offending value and *which set; -1 when memory ran out. */
int proto_limits_tree(const json_t *root, const vertex_table *vt, const proto_request_limits *l,
                      proto_problem *p, enum proto_limit *which);

/* The points of shape object v's "vertices" (or, when it has none, of its
 * flat "positions": numbers over "dim", 3 when absent, rounded up; 1 when
 * dim is not 1 to 8, which the decoder refuses later), and the member
 * that holds them; 0 and NULL when neither is an array.  Arrays read
 * beside the tree are found in `vt` (may be NULL). */
size_t proto_limits_points(const json_t *v, const vertex_table *vt, const char **member);

#endif /* PROTO_REQUEST_LIMITS_H */
