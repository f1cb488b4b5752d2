/*
 * vertex_table.h — the vertex arrays read beside a parsed request
 * (vertex_scan.c), each standing in the jansson tree as an empty array, its
 * "marker".  The decoder (query.c) and the limits (request_limits.c) are
 * handed the table and look an array up by its marker.
 */
#ifndef PROTO_VERTEX_TABLE_H
#define PROTO_VERTEX_TABLE_H

#include <stddef.h>

#include <jansson.h>

/* One vertex array read from the text: n points of d coordinates (a
 * "vertices" array), or n numbers, d = 1 and flat set (a "positions" array,
 * whose dimension is its shape's "dim", or a mesh's "indices"). */
typedef struct vertex_array {
	const json_t *marker; /* the empty array standing for it in the tree */
	size_t n, d;
	double *xyz; /* n * d, row-major */
	int flat;    /* 1: a flat "positions" or "indices" array */
} vertex_array;

typedef struct vertex_table vertex_table;

/* An empty table, or NULL when memory ran out. */
vertex_table *proto_vertex_table_new(void);

/* Add *a (its xyz is taken, freed with the table).  0, or -1 when memory
 * ran out (then a->xyz is the caller's still). */
int proto_vertex_table_add(vertex_table *t, const vertex_array *a);

/* Done adding: sorted by marker for proto_vertex_lookup. */
void proto_vertex_table_seal(vertex_table *t);

size_t proto_vertex_table_count(const vertex_table *t);

/* The array of sealed table `t` read for the tree's value `v`, or NULL (v
 * is an ordinary value, or t is NULL).  A binary search. */
const vertex_array *proto_vertex_lookup(const vertex_table *t, const json_t *v);

/* Free the table and its arrays (NULL is fine). */
void proto_vertex_table_free(vertex_table *t);

#endif /* PROTO_VERTEX_TABLE_H */
