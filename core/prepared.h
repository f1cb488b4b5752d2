/*
 * prepared.h — prepared shapes (internal to the core; see prepared.c and
 * clash_shape_prepare in clash.h).
 *
 * What a prepared shape keeps, in its caller's storage: the vertices' local
 * bounding box (so a query sets up without reading a vertex) and, in 3-D,
 * the adjacency of their convex hull (hull3.c) with a table of starting
 * vertices by direction, so that support points are found by hill climbing.
 */
#ifndef CLASH_PREPARED_H
#define CLASH_PREPARED_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"

/* The start table: a cube map of directions, side x side cells on each of
 * the six faces (side grows with the vertex count, up to PREPARED_SIDE_MAX),
 * each holding the hull vertex extreme along its cell's central direction. */
#define PREPARED_SIDE_MAX 32
#define PREPARED_CELLS_MAX (6 * PREPARED_SIDE_MAX * PREPARED_SIDE_MAX)

/* Below this many vertices a linear scan of the vertices is cheaper than
 * the climb (the crossover make bench measures: bench/core/experiments.c,
 * exp_crossover), so smaller prepared shapes keep scanning. */
#define PREPARED_CLIMB_MIN 32

/* Scores within this many ulps of reach |e|_1 of the climb's best are
 * near-ties (prepared_climb); a patch of more than PREPARED_PLATEAU_MAX
 * such nodes is settled by a scan instead. */
#define PREPARED_TIE_ULPS 256.0
#define PREPARED_PLATEAU_MAX 64

typedef struct prepared {
	uint32_t magic;
	int dim;
	size_t count;
	const double *vertices; /* the array prepared: a shape must still borrow it */
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	double reach; /* the largest coordinate's magnitude */
	size_t hull;  /* hull vertices; 0: no graph (not 3-D, or flat) */
	size_t nodes; /* of the graph, H: the hull vertices and the
	                         * points attached to its faces (hull3.h) */
	int side;     /* of the start table's cube map */
	size_t bytes; /* of the preparation, from its start (the rest was scratch) */
	/* The graph, with its nodes renumbered 0 .. H-1 in an order
	 * that keeps neighbours near in memory, at offsets from the start of
	 * the preparation (so that it may be copied, clash_shape_set_prepared):
	 * rank (count: a vertex's number in the graph, or UINT32_MAX off it),
	 * vid (H: the vertex of each number), adj_start (H + 1) and adj (the
	 * neighbours' numbers), start (the cube map's numbers) and xyz (3 H
	 * doubles: the hull vertices' coordinates in that order). */
	size_t at_rank, at_vid, at_adj_start, at_adj, at_start, at_xyz;
} prepared;

static inline const uint32_t *prepared_array(const prepared *p, size_t at)
{
	return (const uint32_t *)(const void *)((const char *)p + at);
}

static inline const double *prepared_xyz(const prepared *p)
{
	return (const double *)(const void *)((const char *)p + p->at_xyz);
}

/* The preparation of s, checked against it: *out is NULL for a shape not
 * prepared.  CLASH_EINVAL when s->prepared is not a preparation of s's
 * vertices (another array or count, or not prepared storage at all). */
int prepared_of(const clash_shape *s, const prepared **out);

/* The vertex extreme along local direction e (3-D) by hill climbing: the
 * last vertex on the climb none of whose neighbours scores higher.  rel:
 * score (v - v_0).e, else v.e (as support_max_dot_rel3 and
 * support_max_dot score).  hint: when not NULL, a vertex to start from if
 * it scores higher than the table's start (the previous support point of
 * the same query, SIZE_MAX for none), and where the answer is stored. */
size_t prepared_climb(const prepared *p, const double *e, int rel, size_t *hint);

/* Whether support points of p are best found by climbing. */
static inline int prepared_climbs(const prepared *p)
{
	return p != NULL && p->hull > 0 && p->count >= PREPARED_CLIMB_MIN;
}

#endif
