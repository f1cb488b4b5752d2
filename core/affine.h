/*
 * affine.h — 3-D affine maps of shapes' poses (internal to the core): a
 * shape's pose as a row-major map, applied, inverted and composed.  The
 * mesh code maps one side into the other's frame with these rather than
 * moving meshes (core/mesh_query.c, core/overlap.c).
 */
#ifndef CLASH_AFFINE_H
#define CLASH_AFFINE_H

#include "clash.h"

/* Row-major: x' = l x + t. */

typedef struct affine {
	double l[9], t[3];
	int shift; /* l is exactly the identity (set by affine_mark_shift) */
} affine;

static inline void affine_mark_shift(affine *f)
{
	f->shift = 1;
	for (int k = 0; k < 9; k++)
		f->shift = f->shift && f->l[k] == (double)(k % 4 == 0);
}

static inline void affine_of(const clash_shape *s, affine *f)
{
	f->shift = 0;
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++)
			f->l[3 * r + c] = s->posed ? s->linear[3 * c + r] : (double)(r == c);
		f->t[r] = s->posed ? s->translation[r] : 0.0;
	}
}

/* The determinant of a row-major 3x3 matrix (an affine's l, or three
 * points as rows): negative where the map turns space over. */
static inline double affine_det(const double *l)
{
	return l[0] * (l[4] * l[8] - l[5] * l[7]) - l[1] * (l[3] * l[8] - l[5] * l[6]) +
	       l[2] * (l[3] * l[7] - l[4] * l[6]);
}

static inline void affine_apply(const affine *f, const double *v, double *x)
{
	if (f->shift) {
		for (int r = 0; r < 3; r++)
			x[r] = v[r] + f->t[r];
		return;
	}
	for (int r = 0; r < 3; r++)
		x[r] = f->t[r] + f->l[3 * r] * v[0] + f->l[3 * r + 1] * v[1] +
		       f->l[3 * r + 2] * v[2];
}

/* The inverse of f (its linear part is non-singular: shape.c checks). */
static inline void affine_invert(const affine *f, affine *g)
{
	g->shift = 0;
	const double *m = f->l;
	int identity = 1;
	for (int k = 0; k < 9; k++)
		identity &= m[k] == (double)(k % 4 == 0);
	if (identity) { /* what the general case gives, without 9 divisions */
		for (int k = 0; k < 9; k++)
			g->l[k] = (double)(k % 4 == 0);
		for (int r = 0; r < 3; r++)
			g->t[r] = -f->t[r];
		return;
	}
	double c[9] = {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8],
	               m[1] * m[5] - m[2] * m[4], m[5] * m[6] - m[3] * m[8],
	               m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
	               m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7],
	               m[0] * m[4] - m[1] * m[3]};
	const double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
	for (int k = 0; k < 9; k++)
		g->l[k] = c[k] / det;
	for (int r = 0; r < 3; r++)
		g->t[r] = -(g->l[3 * r] * f->t[0] + g->l[3 * r + 1] * f->t[1] +
		            g->l[3 * r + 2] * f->t[2]);
}

/* h = f after g. */
static inline void affine_compose(const affine *f, const affine *g, affine *h)
{
	h->shift = 0;
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++)
			h->l[3 * r + c] = f->l[3 * r] * g->l[c] + f->l[3 * r + 1] * g->l[3 + c] +
			                  f->l[3 * r + 2] * g->l[6 + c];
		h->t[r] = f->t[r] + f->l[3 * r] * g->t[0] + f->l[3 * r + 1] * g->t[1] +
		          f->l[3 * r + 2] * g->t[2];
	}
}

#endif
