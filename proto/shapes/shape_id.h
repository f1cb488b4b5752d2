/*
 * shape_id.h — a stored shape's id: the SHA-256 of its canonical encoding
 * (proto/openapi.yaml, components/schemas/ShapeId), and its text form
 * "sha256:" followed by 64 lowercase hex digits.
 *
 * The canonical encoding is a byte string built from the decoded geometry
 * alone, so the id does not depend on how the JSON was written:
 *   "clashd-shape-v1" (15 ASCII bytes), the dimension (1 byte), node(shape)
 *   node(convex)   = 0x01, n (uint64), the n points' coordinates in input
 *                    order (n x dim binary64), radius (binary64)
 *   node(compound) = 0x02, k (uint64), node(part 0) .. node(part k-1),
 *                    radius (binary64)
 * and for meshes and primitives as proto/openapi.yaml says (0x03 to 0x05),
 * every integer and binary64 little-endian, -0.0 written as +0.0, an
 * absent radius as 0.
 */
#ifndef PROTO_SHAPE_ID_H
#define PROTO_SHAPE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"
#include "problem.h"

#define PROTO_SHAPE_ID_BYTES 32
/* "sha256:" + 64 hex digits, without the NUL. */
#define PROTO_SHAPE_ID_TEXT 71

/* A mesh's "weld" as its request wrote it: the id covers what the client
 * sent, not the server's default (a mesh without one is node 0x03). */
/* The node that carries a shape's units (after its dimension). */
#define PROTO_SHAPE_UNITS_NODE 0x10

typedef struct proto_mesh_weld {
	const clash_mesh *mesh;
	double weld;
} proto_mesh_weld;

/* The id of a decoded shape without pose (nested parts included); the
 * meshes that had a "weld" listed in welds (n of them): each is node
 * 0x05, its weld (binary64), then the rest of node 0x03.  A shape that
 * named its units (units.h; 0: none) has them after the dimension, as
 * the byte 0x10 and the unit's number, so that ids of shapes without
 * units stay what they were. */
void proto_shape_id(const clash_shape *s, const proto_mesh_weld *welds, size_t n, int units,
                    uint8_t id[PROTO_SHAPE_ID_BYTES]);

/* The canonical encoding itself, whole (its SHA-256 is the id): 0 with
 * *bytes (malloc'd) and *len, or -1 when memory ran out. */
int proto_shape_canon(const clash_shape *s, const proto_mesh_weld *welds, size_t n, int units,
                      uint8_t **bytes, size_t *len);

/* The text form, NUL-terminated (PROTO_PROBLEM_ID_SIZE bytes). */
void proto_shape_id_format(const uint8_t id[PROTO_SHAPE_ID_BYTES],
                           char text[PROTO_PROBLEM_ID_SIZE]);

/* Read the text form (exactly: lowercase hex, no spaces): 0, or -1. */
int proto_shape_id_parse(const char *text, size_t len, uint8_t id[PROTO_SHAPE_ID_BYTES]);

#endif /* PROTO_SHAPE_ID_H */
