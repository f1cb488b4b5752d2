/*
 * mesh_text.h — the vertex coordinates of a text mesh file (ASCII STL,
 * OBJ, ASCII PLY) as a JavaScript reader gets them (mesh_text.c).  The
 * browser's readers (three.js's STLLoader, OBJLoader and PLYLoader) take
 * each number with parseFloat, then store it in a Float32Array: the
 * decimal rounded to a double, that double to a float.  libassimp rounds
 * the decimal by a faster method that is often one float step off, so the
 * same part sent as a file and as the client's JSON would get two ids.
 * mesh_import.c puts these values in place of assimp's.
 *
 * Each function returns how many vertices the file has (possibly more than
 * `most`; the first `most` written to out[0, 3 x most), each number as
 * (float)strtod(text)); 0 when the file is not of that kind as assimp
 * reads it; -1 when a vertex's number is not a plain decimal ([+-] digits
 * [. digits] [e [+-] digits], at most 127 characters, ending at a space or
 * a line's end), which assimp reads by rules of its own.
 */
#ifndef PROTO_MESH_TEXT_H
#define PROTO_MESH_TEXT_H

#include <stddef.h>

/* An ASCII STL's vertices, walked as libassimp 5.2.5 walks the file (its
 * solids one after another, a facet's fourth and later vertices skipped),
 * so that the n-th found is the n-th assimp made. */
long proto_mesh_text_stl(const char *data, size_t len, float *out, size_t most);

/* An OBJ's "v" lines, their first three numbers, in the file's order. */
long proto_mesh_text_obj(const char *data, size_t len, float *out, size_t most);

/* An ASCII PLY's vertex element (the first element, of scalar properties
 * only), its x, y and z, in the file's order; 0 for another layout. */
long proto_mesh_text_ply(const char *data, size_t len, float *out, size_t most);

#endif /* PROTO_MESH_TEXT_H */
