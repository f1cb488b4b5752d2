/*
 * support.h — support mappings of posed polytopes in a query's working frame
 * (internal to the core).
 *
 * GJK needs only s_K(eta), the point of K = A - B farthest along eta, and by
 * GJK88 eq. (17) and (21) that is s_A(eta) - s_B(-eta), each found by scanning
 * the vertices for the largest inner product.  A query works in its own frame:
 * world coordinates shifted by a point between the shapes (the origin shift of
 * GJK88 section VI, which keeps the inner products and differences small) and
 * scaled by a power of two (exact; keeps every intermediate in range for any
 * finite input).  support_frame holds one shape's map into that frame.
 */
#ifndef CLASH_SUPPORT_H
#define CLASH_SUPPORT_H

#include <stddef.h>

#include "clash.h"

typedef struct support_frame {
	const double *vertices;
	size_t count;
	int dim;
	int posed;
	/* posed:   x = lin * v + off   (lin column-major, already scaled)
	 * unposed: x = (v - shift) * scale */
	double lin[CLASH_MAX_DIM * CLASH_MAX_DIM];
	double off[CLASH_MAX_DIM];
	double shift[CLASH_MAX_DIM];
	double scale;
} support_frame;

/* Bounding ball of a shape's hull in world coordinates (radius excluded):
 * the transformed centre of the vertices' bounding box and a radius that
 * covers every vertex.  Returns CLASH_ERANGE for non-finite data. */
int support_bounds(const clash_shape *s, double *center, double *radius);

/* Set up the map of shape s into the frame x_frame = (x_world - shift) * scale. */
void support_frame_init(support_frame *f, const clash_shape *s,
                        const double *shift, double scale);

/* Index of the vertex with the largest inner product with e (the first one
 * on ties, so answers are deterministic). */
size_t support_max_dot(const double *vertices, size_t count, int dim, const double *e);

/* Frame coordinates of vertex i. */
void support_point(const support_frame *f, size_t i, double *x);

/* The support point of the shape in frame direction d: returns its vertex
 * index and writes its frame coordinates to x. */
size_t support_eval(const support_frame *f, const double *d, double *x);

#endif
