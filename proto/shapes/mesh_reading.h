/*
 * mesh_reading.h — how a shape's meshes were read (MeshReading in
 * openapi.yaml): whether they are solids and closed, and what the build
 * found and repaired (vertices welded, triangles turned over, open and
 * non-manifold edges, pairs of triangles crossing each other, the leak),
 * written into query answers, scene entries and stored shapes' summaries,
 * so a user never takes a surface check for a solid one.
 */
#ifndef PROTO_MESH_READING_H
#define PROTO_MESH_READING_H

#include <jansson.h>

#include "clash.h"
#include "json_write.h"

/* s's reading as a JSON object, or null when s holds no mesh (also for
 * s NULL). */
void proto_mesh_reading_text(proto_text *t, const clash_shape *s);

/* The same as a jansson value (a new reference; NULL when memory ran
 * out). */
json_t *proto_mesh_reading_json(const clash_shape *s);

#endif /* PROTO_MESH_READING_H */
