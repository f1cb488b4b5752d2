/*
 * mesh_precheck.h — what a mesh file must pass before libassimp reads it
 * (mesh_precheck.c).  Debian's assimp 5.2.5 trusts the counts and lengths a
 * file declares and expands whatever a file asks it to: each check here
 * refuses, in time linear in the file, a file that would make it take
 * memory or time out of proportion to its size (or read past its buffer,
 * hang or abort), with a 422 that says what is allowed.  clashd reads files
 * in a bounded helper process as well (server/import_sandbox.h); these
 * checks make the common attacks a quick, clear answer there and in
 * `clash import`.
 */
#ifndef PROTO_MESH_PRECHECK_H
#define PROTO_MESH_PRECHECK_H

#include <stddef.h>

#include "mesh_format.h"
#include "problem.h"

/* Polygons of more than three corners are triangulated by assimp in time
 * that grows with the square of their corners: a file's squares may add up
 * to this much at most (about half a second of assimp's time here). */
#define PROTO_MESH_POLYGON_BUDGET ((size_t)1 << 26)

/* Nodes nested deeper than this are a 422 (assimp and the walk recurse). */
#define PROTO_MESH_MAX_NODE_DEPTH 256

/* The file data[0, len) of format f may go to assimp: 0.  Else 1 with a 422
 * problem (pointer ""), or -1 when memory ran out. */
int proto_mesh_precheck(const char *data, size_t len, proto_mesh_format f, proto_problem *p);

#endif /* PROTO_MESH_PRECHECK_H */
