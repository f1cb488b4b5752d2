/*
 * hull3.h — the convex hull of a 3-D point set as a vertex adjacency graph
 * (internal to the core; see hull3.c).
 *
 * A prepared shape (prepared.c) walks this graph to find support points by
 * hill climbing: on a convex polytope a vertex none of whose neighbours is
 * further along a direction is the furthest of all.  The builder works in
 * storage the caller provides (no allocation), sized by hull3_scratch_size.
 */
#ifndef CLASH_HULL3_H
#define CLASH_HULL3_H

#include <stddef.h>
#include <stdint.h>

/* The most points the builder takes (indices are 32-bit). */
#define HULL3_MAX_POINTS ((size_t)1 << 30)

/* Bytes of scratch hull3_build needs for count points. */
size_t hull3_scratch_size(size_t count);

/*
 * Build the hull of count points v (row-major x, y, z) and write its vertex
 * adjacency in compressed rows: the neighbours of point i (none for points
 * inside) are adj[adj_start[i] .. adj_start[i+1]-1].  adj_start has
 * count + 1 entries, adj room for 6 * count.  Points within a few ulps of
 * the hull's size of a face count as inside it; those of them within
 * rounding of a face's plane (a scan may still pick them) are attached:
 * each is a neighbour of its face's three vertices and they of it.
 * Returns the number of hull vertices, *attached (when not NULL) the
 * number attached, or 0 when the points span no volume (flat, collinear,
 * or a single point): then adj_start is all zeros.
 */
size_t hull3_build(const double *v, size_t count, void *scratch, uint32_t *adj_start, uint32_t *adj,
                   size_t *attached);

/* The faces of the hull of the same points, in the same scratch: their
 * corners' indices, three a face, counter-clockwise seen from outside,
 * into faces (room for 6 * count); every edge is used by two of them,
 * once each way.  Returns the number of faces, 0 when flat. */
size_t hull3_faces(const double *v, size_t count, void *scratch, uint32_t *faces);

#endif
