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
int proto_limits_tree(const json_t *root, const vertex_table *vt,
                      const proto_request_limits *l, proto_problem *p, enum proto_limit *which);

#endif /* PROTO_REQUEST_LIMITS_H */
