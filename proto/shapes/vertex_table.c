/*
 * vertex_table.c — the vertex arrays read beside a parsed request (see
 * vertex_table.h): a growable array, sorted by marker once built.
 */
#include "vertex_table.h"

#include <stdint.h>
#include <stdlib.h>

struct vertex_table {
	vertex_array *arrays;
	size_t n, cap;
};

vertex_table *proto_vertex_table_new(void)
{
	return calloc(1, sizeof(vertex_table));
}

int proto_vertex_table_add(vertex_table *t, const vertex_array *a)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4;
		vertex_array *g = realloc(t->arrays, cap * sizeof *g);
		if (!g)
			return -1;
		t->arrays = g;
		t->cap = cap;
	}
	t->arrays[t->n++] = *a;
	return 0;
}

static int by_marker(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)((const vertex_array *)x)->marker;
	uintptr_t b = (uintptr_t)((const vertex_array *)y)->marker;
	return (a > b) - (a < b);
}

void proto_vertex_table_seal(vertex_table *t)
{
	if (t->n > 1) /* none: a query naming its shapes by ref */
		qsort(t->arrays, t->n, sizeof *t->arrays, by_marker);
}

size_t proto_vertex_table_count(const vertex_table *t)
{
	return t ? t->n : 0;
}

const vertex_array *proto_vertex_lookup(const vertex_table *t, const json_t *v)
{
	if (!t || !v)
		return NULL;
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t m = (uintptr_t)t->arrays[mid].marker;
		if (m == (uintptr_t)v)
			return &t->arrays[mid];
		if (m < (uintptr_t)v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void proto_vertex_table_free(vertex_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->arrays[i].xyz);
	free(t->arrays);
	free(t);
}
