/*
 * support.c — support mappings of posed polytopes (see support.h).
 *
 * The vertex scan is the only part of a query whose cost grows with the
 * vertex count (GJK88 section VII: time nearly linear in M1 + M2), so it has
 * straight-line variants for 2-D and 3-D that the compiler can vectorize.
 * A pose x = L v + t turns a direction d into the local direction L^T d:
 * max_v d.(L v + t) = max_v (L^T d).v + d.t, so vertices are never moved.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "vec.h"

int support_bounds(const clash_shape *s, double *center, double *radius)
{
	int n = s->dim;
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	vec_copy(lo, s->vertices, n);
	vec_copy(hi, s->vertices, n);
	for (size_t i = 1; i < s->count; i++) {
		const double *v = s->vertices + i * (size_t)n;
		for (int k = 0; k < n; k++) {
			/* NaN fails both comparisons; caught by the finiteness test
			 * below only if it sits in lo/hi, so test each value. */
			if (v[k] < lo[k])
				lo[k] = v[k];
			else if (v[k] > hi[k])
				hi[k] = v[k];
			else if (v[k] != v[k])
				return CLASH_ERANGE;
		}
	}
	if (!vec_isfinite(lo, n) || !vec_isfinite(hi, n))
		return CLASH_ERANGE;
	/* Halves first: (hi + lo) could overflow, hi/2 + lo/2 cannot. */
	double c[CLASH_MAX_DIM], h[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		c[k] = 0.5 * hi[k] + 0.5 * lo[k];
		h[k] = 0.5 * hi[k] - 0.5 * lo[k];
	}
	if (!s->posed) {
		vec_copy(center, c, n);
		*radius = vec_norm(h, n);
	} else {
		/* Centre maps exactly; the box's half-extents map into the box
		 * of half-extents |L| h, whose half-diagonal bounds the hull. */
		double hw[CLASH_MAX_DIM];
		for (int r = 0; r < n; r++) {
			double x = s->translation[r], e = 0.0;
			for (int k = 0; k < n; k++) {
				x += s->linear[k * n + r] * c[k];
				e += fabs(s->linear[k * n + r]) * h[k];
			}
			center[r] = x;
			hw[r] = e;
		}
		*radius = vec_norm(hw, n);
	}
	if (!vec_isfinite(center, n) || !isfinite(*radius))
		return CLASH_ERANGE;
	return CLASH_OK;
}

void support_frame_init(support_frame *f, const clash_shape *s,
                        const double *shift, double scale)
{
	int n = s->dim;
	f->vertices = s->vertices;
	f->count = s->count;
	f->dim = n;
	f->posed = s->posed;
	f->scale = scale;
	vec_copy(f->shift, shift, n);
	if (s->posed) {
		for (int i = 0; i < n * n; i++)
			f->lin[i] = s->linear[i] * scale;
		/* (t - shift) first: for a shape far from the origin both are
		 * large and nearly equal, and their difference is what matters. */
		for (int r = 0; r < n; r++)
			f->off[r] = (s->translation[r] - shift[r]) * scale;
	}
}

size_t support_max_dot(const double *v, size_t count, int dim, const double *e)
{
	assert(count > 0);
	size_t best = 0;
	double bestv;
	if (dim == 3) {
		double e0 = e[0], e1 = e[1], e2 = e[2];
		bestv = v[0] * e0 + v[1] * e1 + v[2] * e2;
		for (size_t i = 1; i < count; i++) {
			const double *p = v + 3 * i;
			double d = p[0] * e0 + p[1] * e1 + p[2] * e2;
			if (d > bestv) {
				bestv = d;
				best = i;
			}
		}
	} else if (dim == 2) {
		double e0 = e[0], e1 = e[1];
		bestv = v[0] * e0 + v[1] * e1;
		for (size_t i = 1; i < count; i++) {
			const double *p = v + 2 * i;
			double d = p[0] * e0 + p[1] * e1;
			if (d > bestv) {
				bestv = d;
				best = i;
			}
		}
	} else {
		bestv = vec_dot(v, e, dim);
		for (size_t i = 1; i < count; i++) {
			double d = vec_dot(v + (size_t)dim * i, e, dim);
			if (d > bestv) {
				bestv = d;
				best = i;
			}
		}
	}
	return best;
}

void support_point(const support_frame *f, size_t i, double *x)
{
	int n = f->dim;
	const double *v = f->vertices + i * (size_t)n;
	if (!f->posed) {
		for (int k = 0; k < n; k++)
			x[k] = (v[k] - f->shift[k]) * f->scale;
		return;
	}
	for (int r = 0; r < n; r++) {
		double s = f->off[r];
		for (int k = 0; k < n; k++)
			s += f->lin[k * n + r] * v[k];
		x[r] = s;
	}
}

size_t support_eval(const support_frame *f, const double *d, double *x)
{
	int n = f->dim;
	size_t i;
	if (!f->posed) {
		/* A positive scale does not change which vertex is extreme. */
		i = support_max_dot(f->vertices, f->count, n, d);
	} else {
		double e[CLASH_MAX_DIM];
		for (int k = 0; k < n; k++)
			e[k] = vec_dot(f->lin + k * n, d, n); /* (L^T d)_k = column k . d */
		i = support_max_dot(f->vertices, f->count, n, e);
	}
	support_point(f, i, x);
	return i;
}
