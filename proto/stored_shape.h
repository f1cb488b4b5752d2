/*
 * stored_shape.h — a shape as the store keeps it (POST /v1/shapes): its
 * decoded geometry without pose, every array it borrows, and the
 * preparation (clash_shape_prepare) of each 3-D convex part, so a query
 * naming it by "ref" borrows all of it as it is.
 */
#ifndef PROTO_STORED_SHAPE_H
#define PROTO_STORED_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"
#include "shape_id.h"

typedef struct stored_shape {
	clash_shape shape;   /* identity pose; borrows the blocks */
	uint8_t id[PROTO_SHAPE_ID_BYTES];
	size_t vertices;     /* of every convex part */
	size_t leaves;       /* convex parts (1 for a convex shape) */
	int depth;           /* levels of parts (0: convex) */
	size_t hull;         /* a prepared 3-D convex shape's hull vertices (32
	                        vertices or more), else 0 */
	size_t bytes;        /* vertex and parts arrays and preparations */
	void **blocks;       /* malloc'd, each malloc'd */
	size_t nblocks;
} stored_shape;

/* Take shape `s` (decoded by proto_shape_decode_in without a pose) with
 * the *nblocks malloc'd blocks *blocks that its arrays live in (the decoding
 * owner's): its id computed, its 3-D convex parts prepared.  The blocks
 * pass to the stored shape: *blocks and *nblocks are left empty.  Returns 0
 * with *out, or -1 when memory ran out (the blocks still the caller's). */
int proto_stored_shape_build(const clash_shape *s, void ***blocks, size_t *nblocks,
                             stored_shape **out);

/* Free a stored shape (the store's free function: a void *). */
void proto_stored_shape_free(void *stored);

#endif /* PROTO_STORED_SHAPE_H */
