/*
 * mesh_rounding.h — a text mesh file's coordinates as JavaScript reads
 * them, put in the scene libassimp read from it (mesh_rounding.c), so that
 * a part uploaded as a file and the same file read in a browser (three.js's
 * STLLoader, OBJLoader, PLYLoader: parseFloat, then a Float32Array) and
 * sent as the client's JSON get one id.
 */
#ifndef PROTO_MESH_ROUNDING_H
#define PROTO_MESH_ROUNDING_H

#include <stddef.h>

#include "mesh_format.h"

struct aiScene;

/* The vertices of `scene`, read by assimp from data[0, len) of format f,
 * each replaced by the file's own number rounded as JavaScript rounds it
 * where that is known for sure (ASCII STL, OBJ, ASCII PLY; other formats
 * carry floats).  0, or -1 when memory ran out. */
int proto_mesh_rounding(const struct aiScene *scene, proto_mesh_format f, const char *data,
                        size_t len);

#endif /* PROTO_MESH_ROUNDING_H */
