/*
 * mesh_topo.h — a mesh's edges after the weld: which are open, which are
 * shared by more than two triangles, which triangles must turn over so
 * that every part is consistently oriented, and the connected parts
 * (internal to the core; core/mesh_topo.c, called by mesh_build.c).
 */
#ifndef CLASH_MESH_TOPO_H
#define CLASH_MESH_TOPO_H

#include <stddef.h>
#include <stdint.h>

/* What the census found. */
typedef struct mesh_topo {
	size_t boundary;    /* edges used by one triangle */
	size_t nonmanifold; /* edges used by three triangles or more */
	size_t conflicts;   /* edges no choice of turns can orient (a Moebius band) */
	size_t flipped;     /* triangles turned over */
	size_t parts;       /* connected parts (triangles joined through vertices) */
	/* Every edge used exactly twice, once each way, once turned: the mesh
	 * is closed (watertight and orientable). */
	int closed;
} mesh_topo;

/* A hole: a connected piece of the boundary (the edges the triangles,
 * once turned, do not use as often one way as the other, as a chain).
 * The cone from c over its edges, reversed, caps it: with every cap the
 * surface is closed.  Each cap lies within the ball of radius r about c;
 * its edges are entries first .. first + count - 1 of the edge array
 * after the holes, `edges` their number with multiplicity. */
typedef struct mesh_hole {
	double c[3], r;
	double edges;
	uint32_t first, count;
} mesh_hole;

/* A chain edge: from a to b, k times. */
typedef struct mesh_hole_edge {
	double a[3], b[3];
	double k;
} mesh_hole_edge;

/* The input to the census: ntriangles triangles over welded vertex numbers
 * (canon[vertex] in 0..nu-1), their corners at positions (vertex numbers
 * before the weld, as indices give them: NULL for consecutive triples). */
typedef struct mesh_topo_in {
	const double *positions;
	const uint32_t *indices;
	const uint32_t *canon;
	size_t nu, ntriangles;
} mesh_topo_in;

/* Bytes of scratch mesh_topo_run needs. */
size_t mesh_topo_scratch(size_t nu, size_t ntriangles);

/* The census of in, in scratch (8-byte aligned, mesh_topo_scratch bytes):
 * flip, a bitmap of ntriangles bits (input order, set: turn it over), and
 * the first triangle of each part in input order into list; the holes,
 * then their edges, into `holes` (8-byte aligned, room bytes): their
 * number (*nedges the edges'), or SIZE_MAX when they take more room.
 * *out. */
size_t mesh_topo_run(const mesh_topo_in *in, void *scratch, uint8_t *flip, uint32_t *list,
                     void *holes, size_t room, size_t *nedges, mesh_topo *out);

#endif
