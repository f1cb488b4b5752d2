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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The bounding box of count points of dimension n; returns 1 if some
 * coordinate is NaN.  Branch-free: min and max by selection, NaN through
 * the running sum of coordinate times 0 (0 for every finite coordinate,
 * NaN as soon as one is NaN or infinite; the box's own finiteness test
 * rejects infinities anyway).  In 3-D two vertices are taken at a time as
 * the three pairs of coordinates (x0 y0) (z0 x1) (y1 z1); with SSE2 (every
 * x86-64) each pair is one packed min, max and sum. */
static int box(const double *v, size_t count, int n, double *lo, double *hi)
{
	if (n == 3) {
		size_t i = 0;
		double l[3] = {v[0], v[1], v[2]}, h[3] = {v[0], v[1], v[2]}, bad = 0.0;
#if defined(__SSE2__)
		__m128d la = _mm_loadu_pd(v), lb = _mm_set_pd(v[0], v[2]), lc = _mm_loadu_pd(v + 1);
		__m128d ha = la, hb = lb, hc = lc, sum = _mm_setzero_pd(), zero = _mm_setzero_pd();
		for (; i + 2 <= count; i += 2) {
			const double *p = v + 3 * i;
			__m128d x = _mm_loadu_pd(p), y = _mm_loadu_pd(p + 2), z = _mm_loadu_pd(p + 4);
			la = _mm_min_pd(x, la);
			lb = _mm_min_pd(y, lb);
			lc = _mm_min_pd(z, lc);
			ha = _mm_max_pd(x, ha);
			hb = _mm_max_pd(y, hb);
			hc = _mm_max_pd(z, hc);
			sum = _mm_add_pd(sum, _mm_mul_pd(_mm_add_pd(_mm_add_pd(x, y), z), zero));
		}
		double a[2], b[2], c[2], s2[2];
		_mm_storeu_pd(a, la);
		_mm_storeu_pd(b, lb);
		_mm_storeu_pd(c, lc);
		l[0] = a[0] < b[1] ? a[0] : b[1];
		l[1] = a[1] < c[0] ? a[1] : c[0];
		l[2] = b[0] < c[1] ? b[0] : c[1];
		_mm_storeu_pd(a, ha);
		_mm_storeu_pd(b, hb);
		_mm_storeu_pd(c, hc);
		h[0] = a[0] > b[1] ? a[0] : b[1];
		h[1] = a[1] > c[0] ? a[1] : c[0];
		h[2] = b[0] > c[1] ? b[0] : c[1];
		_mm_storeu_pd(s2, sum);
		bad = s2[0] + s2[1];
#endif
		for (; i < count; i++) {
			const double *p = v + 3 * i;
			for (int k = 0; k < 3; k++) {
				double x = p[k];
				l[k] = x < l[k] ? x : l[k];
				h[k] = x > h[k] ? x : h[k];
				bad += x * 0.0;
			}
		}
		vec_copy(lo, l, 3);
		vec_copy(hi, h, 3);
		return bad != 0.0;
	}
	double bad = 0.0;
	vec_copy(lo, v, n);
	vec_copy(hi, v, n);
	for (size_t i = 0; i < count; i++) {
		const double *p = v + i * (size_t)n;
		for (int k = 0; k < n; k++) {
			double x = p[k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
			bad += x * 0.0;
		}
	}
	return bad != 0.0;
}

int support_bounds(const clash_shape *s, double *center, double *radius)
{
	int n = s->dim;
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	if (box(s->vertices, s->count, n, lo, hi))
		return CLASH_ERANGE;
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

/* The 3-D scan in four interleaved lanes: lane j takes the vertices
 * i = j mod 4 and keeps its own running maximum, so the four comparisons
 * of a round do not wait for one another (a single running maximum makes
 * every vertex wait for the previous one's compare).  Each lane keeps the
 * first of its equal maxima; the lanes are merged by value, then by index,
 * so the answer is the first vertex of largest inner product, exactly as a
 * plain scan gives it. */
/* Branch-free: which vertex wins is data, not control (a mispredicted
 * branch per new maximum costs more than the inner products of a small
 * polytope), so the index is selected with a mask. */
static size_t max_dot3(const double *v, size_t count, const double *e)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	double b0 = v[0] * e0 + v[1] * e1 + v[2] * e2, b1 = b0, b2 = b0, b3 = b0;
	size_t i0 = 0, i1 = 0, i2 = 0, i3 = 0, i = 1;
	for (; i + 4 <= count; i += 4) {
		const double *p = v + 3 * i;
		double d0 = p[0] * e0 + p[1] * e1 + p[2] * e2;
		double d1 = p[3] * e0 + p[4] * e1 + p[5] * e2;
		double d2 = p[6] * e0 + p[7] * e1 + p[8] * e2;
		double d3 = p[9] * e0 + p[10] * e1 + p[11] * e2;
		i0 ^= (i0 ^ i) & -(size_t)(d0 > b0);
		b0 = d0 > b0 ? d0 : b0;
		i1 ^= (i1 ^ (i + 1)) & -(size_t)(d1 > b1);
		b1 = d1 > b1 ? d1 : b1;
		i2 ^= (i2 ^ (i + 2)) & -(size_t)(d2 > b2);
		b2 = d2 > b2 ? d2 : b2;
		i3 ^= (i3 ^ (i + 3)) & -(size_t)(d3 > b3);
		b3 = d3 > b3 ? d3 : b3;
	}
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		double d = p[0] * e0 + p[1] * e1 + p[2] * e2;
		i0 ^= (i0 ^ i) & -(size_t)(d > b0);
		b0 = d > b0 ? d : b0;
	}
	/* Merge: the largest value, the lowest index among equals. */
	if (b1 > b0 || (b1 == b0 && i1 < i0)) {
		b0 = b1;
		i0 = i1;
	}
	if (b3 > b2 || (b3 == b2 && i3 < i2)) {
		b2 = b3;
		i2 = i3;
	}
	if (b2 > b0 || (b2 == b0 && i2 < i0))
		i0 = i2;
	return i0;
}

size_t support_max_dot(const double *v, size_t count, int dim, const double *e)
{
	assert(count > 0);
	size_t best = 0;
	double bestv;
	if (dim == 3)
		return max_dot3(v, count, e);
	if (dim == 2) {
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
