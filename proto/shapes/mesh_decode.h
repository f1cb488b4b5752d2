/*
 * mesh_decode.h — the "indices" of a mesh Shape ({"mesh": {"positions":
 * [...], "indices": [...]}}, glTF and three.js BufferGeometry layout):
 * three vertex indices a triangle, each checked against the vertex count,
 * with a 422 at the first one that is not an index (query.c decodes the
 * rest of the shape and builds the core's mesh).
 */
#ifndef PROTO_MESH_DECODE_H
#define PROTO_MESH_DECODE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "pointer.h"
#include "problem.h"
#include "vertex_table.h"

/* The triangles of `v` (at `at`), an array of 3k integers in [0,
 * nvertices), into *out (malloc'd, 3k entries) and *ntriangles = k; when
 * `read` is not NULL, v's numbers are its (v stands for the flat array
 * read beside the tree, vertex_table.h).  Returns 0, 1 (a 422 in *p: not
 * an array, empty, a length not a multiple of 3, an element not an
 * integer or out of range) or -1 (memory). */
int proto_mesh_indices(const json_t *v, const vertex_array *read, const proto_path *at,
                       size_t nvertices, uint32_t **out, size_t *ntriangles, proto_problem *p);

#endif
