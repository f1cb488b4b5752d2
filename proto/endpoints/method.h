/*
 * method.h — the query methods a client may name in "method".
 *
 * A method is one table entry in method.c: its wire name and the core call
 * that answers it.  The decoder looks names up here, the encoder writes the
 * name back, and the problem for an unknown name lists the table, so adding a
 * method (gjk, simplex and ipm are entries alike) touches nothing else.
 */
#ifndef PROTO_METHOD_H
#define PROTO_METHOD_H

#include <stddef.h>

#include "clash.h"

typedef int (*proto_method_fn)(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                               clash_result *r);

typedef struct proto_method {
	const char *name; /* as on the wire */
	proto_method_fn run;
} proto_method;

/* The method used when a query names none. */
const proto_method *proto_method_default(void);

/* The method called `name` (n bytes, not NUL-terminated), or NULL. */
const proto_method *proto_method_find(const char *name, size_t n);

/* The table, for listing: method i for i < proto_method_count(). */
size_t proto_method_count(void);
const proto_method *proto_method_at(size_t i);

#endif /* PROTO_METHOD_H */
