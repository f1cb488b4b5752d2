/*
 * shapes.h — storing one StoredShape (shapes.c), shared by the upload of
 * POST /v1/shapes and the import of a mesh file (shape_import.c), so that
 * both store a shape through the very same decoding.
 */
#ifndef PROTO_SHAPES_H
#define PROTO_SHAPES_H

#include <stdint.h>

#include <jansson.h>

#include "problem.h"
#include "store.h"
#include "stored_shape.h"
#include "vertex_table.h"

/* Decode the parsed StoredShape `root` (its vertex arrays read beside it,
 * `vt`, or NULL; meshes welded by ctx->weld unless they say their own)
 * and put it in ctx->store for `client` (its address,
 * PROTO_STORE_CLIENT bytes, or NULL: no client's share applies).  Returns 0 with its entry held in
 * *held (release it) and *created 1 when it is new, 0 when it was there;
 * 1 with a 422 problem (a pointer in `root`) or a 413 (larger than the
 * whole store) in *p; -1 when memory ran out. */
int proto_shape_store(const json_t *root, const vertex_table *vt, const proto_context *ctx,
                      const uint8_t *client, proto_store_entry **held, int *created,
                      proto_problem *p);

/* The ShapeSummary of a stored shape, {"id", "dim", "vertices",
 * "hull_vertices", "parts", "bytes"}; NULL when memory ran out. */
json_t *proto_shape_summary(const stored_shape *st);

#endif /* PROTO_SHAPES_H */
