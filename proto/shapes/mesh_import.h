/*
 * mesh_import.h — mesh files (STL, OBJ, glTF, PLY) read with libassimp into
 * mesh Shapes: for each place a node of the file puts one of its meshes, the
 * mesh's triangles (positions and indices, vertices joined) and the node's
 * transform (mesh_import.c).  The import document they make, and the text of
 * one shape's geometry, are mesh_doc.h's.
 */
#ifndef PROTO_MESH_IMPORT_H
#define PROTO_MESH_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mesh_format.h"
#include "problem.h"
#include "proto.h"

/* The format a Content-Type names (any case, parameters allowed), or NONE. */
proto_mesh_format proto_mesh_format_of_media(const char *content_type);

/* The format a name or file extension names ("stl", "obj", "glb", "gltf",
 * "ply", any case), or NONE. */
proto_mesh_format proto_mesh_format_of_name(const char *name);

/* One shape of a file: a mesh where a node puts it. */
typedef struct proto_mesh_shape {
	char *name;        /* valid UTF-8, never empty (malloc'd) */
	double *positions; /* 3 n coordinates, x0 y0 z0 x1 ... (malloc'd) */
	size_t n;
	uint32_t *indices; /* 3 t vertex indices, a triangle each (malloc'd) */
	size_t t;
	double matrix[16]; /* the node's transform to the file's root,
	                       column-major */
} proto_mesh_shape;

typedef struct proto_mesh_set {
	proto_mesh_shape *shapes;
	size_t n;
} proto_mesh_set;

/*
 * Read the file data[0, len) of format f.  Limits `l` (NULL: none; zero
 * members: none): max_vertices bounds the vertices of all shapes together,
 * max_shapes their number.  Returns 0 with *out filled (at least one
 * shape); 1 with a 422 problem (pointer "") in *p: a file assimp cannot
 * read (its message), one with no triangle, or over a limit (*which says
 * which, else PROTO_LIMIT_NONE); -1 when memory ran out.
 */
int proto_mesh_import(const char *data, size_t len, proto_mesh_format f,
                      const proto_request_limits *l, proto_mesh_set *out, proto_problem *p,
                      enum proto_limit *which);

/* Free what proto_mesh_import() filled (a zeroed set is fine). */
void proto_mesh_set_free(proto_mesh_set *set);

#endif /* PROTO_MESH_IMPORT_H */
