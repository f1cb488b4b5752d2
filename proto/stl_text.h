/*
 * stl_text.h — the vertex coordinates of an ASCII STL file as a JavaScript
 * reader gets them (stl_text.c).  A browser's STL reader (three.js's
 * STLLoader) takes each number of a "vertex" line with parseFloat, then
 * stores it in a Float32Array: the decimal rounded to a double, that double
 * to a float.  libassimp rounds the decimal by a faster method that is
 * often one float step off, so the same part sent as a file and as the
 * client's JSON would get two ids.  mesh_import.c puts these values in
 * place of assimp's.
 */
#ifndef PROTO_STL_TEXT_H
#define PROTO_STL_TEXT_H

#include <stddef.h>

/*
 * The vertices of the ASCII STL file data[0, len), walked as libassimp
 * 5.2.5 walks it (its solids one after another, a facet's fourth and later
 * vertices skipped), each number as (float)strtod(text): the first `most`
 * vertices' coordinates in out[0, 3 x most).  Returns how many vertices the
 * file has (possibly more than `most`); 0 when assimp reads it as a binary
 * STL or it does not start with "solid"; -1 when a vertex's number is not
 * a plain decimal ([+-] digits [. digits] [e [+-] digits], at most 127
 * characters, ending at a space or a line's end), which assimp reads by
 * rules of its own.
 */
long proto_stl_text_vertices(const char *data, size_t len, float *out, size_t most);

#endif /* PROTO_STL_TEXT_H */
