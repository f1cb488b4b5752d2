/*
 * mesh_wire.h — a mesh import's result as bytes (mesh_wire.c): what the
 * import helper process (server/import_sandbox.c) writes on its pipe and
 * clashd reads back.  The helper runs libassimp on an untrusted file, so
 * its bytes are untrusted too: the reader bounds and checks everything
 * (the counts against the request's limits, every index, every coordinate,
 * every name) before a shape is accepted, and never trusts a length.
 *
 * Native byte order: both ends are the same binary on the same machine.
 */
#ifndef PROTO_MESH_WIRE_H
#define PROTO_MESH_WIRE_H

#include <stddef.h>

#include "mesh_import.h"
#include "problem.h"
#include "proto.h"
#include "text_buf.h"

/* Triangles of an import in all, per vertex of its limit: more is a 422.
 * A closed mesh has about two per vertex; this leaves room for duplicated
 * and inner faces while bounding what a helper can make clashd hold. */
#define PROTO_MESH_WIRE_TRIANGLES_PER_VERTEX 8

/* The most bytes a result within limits `l` can take (what a reader reads
 * at most before it gives up). */
size_t proto_mesh_wire_max(const proto_request_limits *l);

/* Append the result of proto_mesh_import() to *t: rc 0 with *set, or rc 1
 * with *p and `which`.  The buffer's own failure flag says whether it
 * fitted (text_buf.h). */
void proto_mesh_wire_put(proto_text *t, int rc, const proto_mesh_set *set, const proto_problem *p,
                         enum proto_limit which);

/*
 * Read a result from data[0, len) under limits `l`, as proto_mesh_import()
 * returns one: 0 with *out filled; 1 with a 422 problem in *p (the file's,
 * as the helper found it, or over `l`: *which says which limit); 2 when
 * the bytes are not a well-formed result (*p has a 422 saying so); -1 when
 * memory ran out.
 */
int proto_mesh_wire_get(const char *data, size_t len, const proto_request_limits *l,
                        proto_mesh_set *out, proto_problem *p, enum proto_limit *which);

#endif /* PROTO_MESH_WIRE_H */
