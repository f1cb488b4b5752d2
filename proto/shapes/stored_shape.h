/*
 * stored_shape.h — a shape as the store keeps it (POST /v1/shapes): its
 * decoded geometry without pose, every array it borrows, and the
 * preparation (clash_shape_prepare) of each 3-D convex part, so a query
 * naming it by "ref" borrows all of it as it is.
 *
 * The preparations are made on first use, not at upload: building a
 * large part's hull is most of an upload's time (a 50 000-vertex part:
 * about 80 ms of 100), and the upload is answered as soon as the id is
 * known.  The first query naming the shape prepares it
 * (proto_stored_shape_ready), once, under the shape's own lock, and
 * tells what it added so the store counts it (proto_store_charge); or,
 * for a part read back from the second tier, another thread does while
 * queries scan (proto_stored_shape_defer).  A
 * stored shape weighs what malloc gave it: every block's usable size and
 * header, not a figure from the text (200 000 copies of one point weigh
 * their 4.8 MB of coordinates, and the preparation of one point).
 */
#ifndef PROTO_STORED_SHAPE_H
#define PROTO_STORED_SHAPE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clash.h"
#include "shape_id.h"

typedef struct stored_shape {
	clash_shape shape; /* identity pose; borrows the blocks */
	uint8_t id[PROTO_SHAPE_ID_BYTES];
	size_t vertices;     /* of every convex part */
	size_t leaves;       /* convex parts (1 for a convex shape) */
	int depth;           /* levels of parts (0: convex) */
	size_t meshes;       /* parts that are triangle meshes */
	size_t triangles;    /* their triangles */
	size_t solid_meshes; /* of them, the solids (clash_mesh_is_solid) */
	size_t curved;       /* parts that are curved primitives (not a box) */
	/* The meshes whose request gave them a "weld" (one of the blocks):
	 * part of the id, and of the canonical form the second tier keeps. */
	proto_mesh_weld *welds;
	size_t nwelds;
	int units;           /* the units it was uploaded with (units.h), or 0 */
	atomic_size_t bytes; /* the blocks below (arrays, trees and
	                        preparations made so far) and itself */
	/* Guarded by `lock` until `ready`, then read-only: */
	size_t hull;   /* a prepared 3-D convex shape's hull vertices (32
	                        vertices or more), else 0 */
	void **blocks; /* malloc'd, each malloc'd */
	size_t nblocks;
	pthread_mutex_t lock;
	atomic_int ready; /* 1 once prepared (release; read with acquire) */
	/* Set before the shape is shared (proto_stored_shape_defer): it is
	 * prepared by another thread, and until then queries borrow `plain`,
	 * the shape without preparation, never read while written. */
	int deferred;
	clash_shape plain;
} stored_shape;

/* Take shape `s` (decoded by proto_shape_decode_in without a pose) with
 * the *nblocks malloc'd blocks *blocks that its arrays live in (the decoding
 * owner's): its id computed (its meshes' "weld" members in welds), its
 * parts counted and weighed, not yet prepared.  The blocks pass to the stored shape: *blocks and *nblocks are
 * left empty.  Returns 0 with *out, or -1 when memory ran out (the blocks
 * still the caller's). */
int proto_stored_shape_build(const clash_shape *s, void ***blocks, size_t *nblocks,
                             const proto_mesh_weld *welds, size_t nwelds, int units,
                             stored_shape **out);

/* Prepare st's 3-D convex parts if that is not done yet (the first call
 * does it, the others wait for it or find it done): afterwards st->shape
 * may be borrowed by any thread.  *grown: the bytes this call added to
 * st->bytes (0 but for the call that prepared it).  0, or -1 when memory
 * ran out (then nothing is marked ready: a later call tries again). */
int proto_stored_shape_ready(stored_shape *st, size_t *grown);

/* Let a single convex part be prepared by another thread, later
 * (proto_stored_shape_ready there), queries meanwhile scanning its
 * vertices (the same answers, bit for bit: clash.h): a part read back
 * from the second tier answers its first query without waiting for its
 * hull.  Call before st is shared; 1 when it is deferred, 0 when it is
 * not a single convex part (it is then prepared on first use). */
int proto_stored_shape_defer(stored_shape *st);

/* What a query borrows: st->shape once prepared, else for a deferred
 * shape its plain copy; NULL when the caller must prepare it first
 * (proto_stored_shape_ready). */
const clash_shape *proto_stored_shape_borrow(stored_shape *st);

/* The bytes malloc gave for block p (its usable size and its header);
 * 0 for NULL. */
size_t proto_block_bytes(const void *p);

/* st's hull vertex count (stored_shape.hull) if it is prepared; -1 while
 * it is not. */
long long proto_stored_shape_hull(const stored_shape *st);

/* Free a stored shape (the store's free function: a void *). */
void proto_stored_shape_free(void *stored);

#endif /* PROTO_STORED_SHAPE_H */
