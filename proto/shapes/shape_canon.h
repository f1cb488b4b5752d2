/*
 * shape_canon.h — a stored shape rebuilt from its canonical encoding
 * (shape_id.h), the form the shape store's second tier keeps
 * (shape_tier.h): the bytes come from another process, so they are read
 * as untrusted input, every count bounded by the bytes there are, every
 * number checked as an upload's would be.
 */
#ifndef PROTO_SHAPE_CANON_H
#define PROTO_SHAPE_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "stored_shape.h"

/* Decode `len` bytes into a stored shape owning all its blocks, not yet
 * prepared, its id computed from what was decoded (the caller compares
 * it with the id it asked for); meshes welded by their own weld (node
 * 0x05) or else by `weld`, the server's.  0 with *out; 1 when the bytes are not
 * one canonical encoding of a valid shape (nothing after it); -1 when
 * memory ran out. */
int proto_shape_canon_decode(const uint8_t *bytes, size_t len, double weld, stored_shape **out);

#endif /* PROTO_SHAPE_CANON_H */
