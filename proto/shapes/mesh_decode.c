/*
 * mesh_decode.c — a mesh's "indices" (mesh_decode.h).
 */
#include <math.h>
#include <stdlib.h>

#include "decode.h"
#include "mesh_decode.h"

int proto_mesh_indices(const json_t *v, const vertex_array *read, const proto_path *at,
                       size_t nvertices, uint32_t **out, size_t *ntriangles, proto_problem *p)
{
	if (read && !read->flat)
		read = NULL; /* "indices" written as points: the tree's empty array */
	if (!read && !json_is_array(v))
		return proto_fail(p, at,
		                  "indices must be an array of vertex indices, three a "
		                  "triangle, got %s",
		                  proto_kind_of(v));
	size_t n = read ? read->n : json_array_size(v);
	if (n == 0)
		return proto_fail(p, at,
		                  "indices must not be empty: a mesh has at least one "
		                  "triangle (leave indices out when consecutive triples of "
		                  "positions are the triangles)");
	if (n % 3)
		return proto_fail(p, at,
		                  "indices has %zu entries, not a multiple of 3 (three vertex "
		                  "indices a triangle)",
		                  n);
	uint32_t *idx = malloc(n * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const json_t *x = read ? NULL : json_array_get(v, i);
		int number = read || json_is_number(x);
		double d = read ? read->xyz[i] : number ? json_number_value(x) : -1;
		if (!number || d != floor(d) || d < 0 || d >= (double)nvertices) {
			proto_path el = {at, NULL, i};
			free(idx);
			if (!number)
				return proto_fail(p, &el,
				                  "a vertex index must be an integer, got %s",
				                  proto_kind_of(x));
			return proto_fail(p, &el,
			                  "a vertex index must be an integer from 0 to %zu (the "
			                  "mesh has %zu vertices), got %.17g",
			                  nvertices - 1, nvertices, d);
		}
		idx[i] = (uint32_t)d;
	}
	*out = idx;
	*ntriangles = n / 3;
	return 0;
}
