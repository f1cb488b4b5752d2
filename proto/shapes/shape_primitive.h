/*
 * shape_primitive.h — decoding the exact primitives of a Shape:
 * {"sphere": {"radius": r}}, {"box": {"half_extents": [x, y, z]}},
 * {"capsule" | "cylinder" | "cone": {"radius": r, "half_height": h}},
 * {"ellipsoid": {"radii": [a, b, c]}}, every size finite and > 0 (else a
 * 422 at its pointer), unknown members refused.  The axis convention is
 * the core's (clash.h, "Exact primitives"; openapi.yaml, Shape).
 */
#ifndef PROTO_SHAPE_PRIMITIVE_H
#define PROTO_SHAPE_PRIMITIVE_H

#include <jansson.h>

#include "clash.h"
#include "pointer.h"
#include "problem.h"

/* The first primitive member of shape object v ("sphere" ...) in document
 * order, or NULL; when second is not NULL, *second = the next primitive
 * member after it, or NULL (a shape is one primitive: the decoder refuses
 * a second). */
const char *proto_primitive_key(const json_t *v, const char **second);

/* s = the primitive v[key] describes, identity pose, radius 0; at is the
 * shape's path.  Returns 0, or 1 / -1 as proto_fail. */
int proto_primitive(const json_t *v, const char *key, const proto_path *at, clash_shape *s,
                    proto_problem *p);

#endif
