/*
 * support.c — support mappings of posed polytopes (see support.h).
 *
 * The vertex scan is the only part of a query whose cost grows with the
 * vertex count (GJK88 section VII: time nearly linear in M1 + M2), so the
 * 3-D scan is branch-free and, with SSE2 (every x86-64; plain C elsewhere),
 * two vertices wide, four with AVX where the processor has it (chosen at
 * run time, the build stays plain x86-64), with arithmetic identical to the
 * scalar scan's, so every path answers the same vertex; the first scan of
 * each shape also gives its bounding box (support_bounds_extreme), so a
 * query reads every vertex once to set up.  A prepared
 * shape (prepared.c) keeps the box and climbs its hull instead of scanning.
 * A pose x = L v + t turns a direction d into the local direction L^T d:
 * max_v d.(L v + t) = max_v (L^T d).v + d.t, so vertices are never moved.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "primitive.h"
#include "scan3_copy.h"
#include "support.h"
#include "vec.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Some coordinate of the count points of dimension n is NaN (the exact
 * test, coordinate by coordinate: only run when the fast one fired). */
static int has_nan(const double *v, size_t count, int n)
{
	for (size_t j = 0; j < count * (size_t)n; j++)
		if (isnan(v[j]))
			return 1;
	return 0;
}

#if defined(__SSE2__)
/* The running box of a 3-D scan two vertices at a time (see box()): the
 * minima and maxima of the lanes (x y) (z x) (y z) of each pair, and the
 * NaN test's sum of coordinates times 0.  Shared by box() and
 * box_extreme(); inlined, it lives in registers. */
typedef struct box_lanes {
	__m128d l[3], h[3], sum;
} box_lanes;

static inline void box_lanes_start(box_lanes *bl, const double *v)
{
	bl->l[0] = bl->h[0] = _mm_loadu_pd(v);
	bl->l[1] = bl->h[1] = _mm_set_pd(v[0], v[2]);
	bl->l[2] = bl->h[2] = _mm_loadu_pd(v + 1);
	bl->sum = _mm_setzero_pd();
}

/* The pair of vertices loaded as x = (x0 y0), y = (z0 x1), z = (y1 z1). */
static inline void box_lanes_add(box_lanes *bl, __m128d x, __m128d y, __m128d z)
{
	bl->l[0] = _mm_min_pd(x, bl->l[0]);
	bl->l[1] = _mm_min_pd(y, bl->l[1]);
	bl->l[2] = _mm_min_pd(z, bl->l[2]);
	bl->h[0] = _mm_max_pd(x, bl->h[0]);
	bl->h[1] = _mm_max_pd(y, bl->h[1]);
	bl->h[2] = _mm_max_pd(z, bl->h[2]);
	bl->sum = _mm_add_pd(bl->sum, _mm_mul_pd(_mm_add_pd(_mm_add_pd(x, y), z), _mm_setzero_pd()));
}

/* The lanes merged into lo[3] and hi[3]; returns the NaN test's sum. */
static inline double box_lanes_end(const box_lanes *bl, double *lo, double *hi)
{
	double a[2], b[2], c[2];
	_mm_storeu_pd(a, bl->l[0]);
	_mm_storeu_pd(b, bl->l[1]);
	_mm_storeu_pd(c, bl->l[2]);
	lo[0] = a[0] < b[1] ? a[0] : b[1];
	lo[1] = a[1] < c[0] ? a[1] : c[0];
	lo[2] = b[0] < c[1] ? b[0] : c[1];
	_mm_storeu_pd(a, bl->h[0]);
	_mm_storeu_pd(b, bl->h[1]);
	_mm_storeu_pd(c, bl->h[2]);
	hi[0] = a[0] > b[1] ? a[0] : b[1];
	hi[1] = a[1] > c[0] ? a[1] : c[0];
	hi[2] = b[0] > c[1] ? b[0] : c[1];
	_mm_storeu_pd(a, bl->sum);
	return a[0] + a[1];
}
#endif

/* The bounding box of count points of dimension n; returns 1 if some
 * coordinate is NaN.  Branch-free: min and max by selection, NaN through
 * the running sum of coordinate times 0 (0 for every finite coordinate,
 * NaN as soon as one is NaN or infinite; the box's own finiteness test
 * rejects infinities anyway).  In 3-D two vertices are taken at a time as
 * the three pairs of coordinates (x0 y0) (z0 x1) (y1 z1); with SSE2 (every
 * x86-64) each pair is one packed min, max and sum.  The packed sum adds
 * the coordinates before the product with 0, which can overflow for huge
 * finite ones: a NaN there is only a suspicion, which has_nan settles. */
static int box(const double *v, size_t count, int n, double *lo, double *hi)
{
	if (n == 3) {
		size_t i = 0;
		double l[3] = {v[0], v[1], v[2]}, h[3] = {v[0], v[1], v[2]}, bad = 0.0;
#if defined(__SSE2__)
		box_lanes bl;
		box_lanes_start(&bl, v);
		for (; i + 2 <= count; i += 2) {
			const double *p = v + 3 * i;
			__m128d x = _mm_loadu_pd(p), y = _mm_loadu_pd(p + 2), z = _mm_loadu_pd(p + 4);
			box_lanes_add(&bl, x, y, z);
		}
		bad = box_lanes_end(&bl, l, h);
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
		return bad != 0.0 && has_nan(v, count, 3);
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

/* The rest of support_pair_frame_init once the balls are known. */
static inline __attribute__((always_inline)) int pair_frame_finish(support_pair_frame *f, int n)
{
	for (int k = 0; k < n; k++) {
		f->shift[k] = 0.5 * f->ca[k] + 0.5 * f->cb[k];
		f->dc[k] = 0.5 * f->cb[k] - 0.5 * f->ca[k];
	}
	f->half_gap = vec_norm(f->dc, n);
	/* A compare, not fmax (a call into libm); ra and rb are finite. */
	double extent = f->half_gap + (f->ra > f->rb ? f->ra : f->rb);
	if (!isfinite(extent))
		return CLASH_ERANGE;
	int e = 0;
	if (extent > 0.0)
		e = support_exponent(extent);
	f->unit = support_pow2(e);
	f->inv = support_pow2(-e);
	return CLASH_OK;
}

int support_pair_frame_init(support_pair_frame *f, const clash_shape *a, const clash_shape *b)
{
	int err;
	if ((err = support_bounds(a, f->ca, &f->ra)) || (err = support_bounds(b, f->cb, &f->rb)))
		return err;
	return pair_frame_finish(f, a->dim);
}

static int bounds_extreme(const clash_shape *s, const double *d, double *center,
                          double *radius, size_t *extreme, scan3 *copy);

int support_pair_frame_init_copy(support_pair_frame *f, const clash_shape *a,
                                 const clash_shape *b, const double *d, size_t *ia, size_t *ib,
                                 scan3 *copy_a, scan3 *copy_b)
{
	const int n = a->dim;
	double nd[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		nd[k] = -d[k];
	int err;
	if ((err = bounds_extreme(a, d, f->ca, &f->ra, ia, copy_a)) ||
	    (err = bounds_extreme(b, nd, f->cb, &f->rb, ib, copy_b)))
		return err;
	return pair_frame_finish(f, n);
}

int support_pair_frame_init_extreme(support_pair_frame *f, const clash_shape *a,
                                    const clash_shape *b, const double *d, size_t *ia,
                                    size_t *ib)
{
	return support_pair_frame_init_copy(f, a, b, d, ia, ib, NULL, NULL);
}

int support_tiny_scale(const support_pair_frame *f, const clash_shape *a, const clash_shape *b)
{
	double extent = f->half_gap + (f->ra > f->rb ? f->ra : f->rb);
	if (!(extent > 0.0)) /* both shapes one point (or one overflowed) */
		return 0;
	/* The scaled extent in [1/2, 1), as a frame's, unless the radii
	 * would pass 2^1022 (their sum, in the frame's scale, below 2^1023):
	 * a radius 2^1022 times the extent overflows the frame at any scale. */
	int k = -support_exponent(extent);
	double rmax = a->radius > b->radius ? a->radius : b->radius;
	if (rmax > 0.0 && k > 1022 - support_exponent(rmax))
		k = 1022 - support_exponent(rmax);
	return k > 0 ? k : 0;
}

/* s scaled by 2^k into *out, its vertices copied to v: world x = L v + t
 * becomes (2^(k-kv) L)(2^kv v) + 2^k t, with kv = k for a shape without a
 * pose and, for a posed one, as much of k as brings its largest vertex
 * coordinate to [1/2, 1) (the rest goes into L: the frame's linear part is
 * L over the extent, so tiny vertices must grow, not L).  Powers of two,
 * so exact unless something overflows: then CLASH_ERANGE. */
static int scale_shape(clash_shape *out, const clash_shape *s, int k, double *v)
{
	const int n = s->dim;
	const size_t m = s->count * (size_t)n;
	*out = *s;
	out->prepared = NULL; /* a preparation describes the original array */
	out->vertices = v;
	int kv = k;
	if (s->posed) {
		double big = 0.0;
		for (size_t i = 0; i < m; i++)
			big = fabs(s->vertices[i]) > big ? fabs(s->vertices[i]) : big;
		kv = big > 0.0 ? -support_exponent(big) : 0;
		kv = kv < 0 ? 0 : kv > k ? k : kv;
		for (int i = 0; i < n * n; i++)
			out->linear[i] = ldexp(s->linear[i], k - kv);
		for (int i = 0; i < n; i++)
			out->translation[i] = ldexp(s->translation[i], k);
	}
	for (size_t i = 0; i < m; i++)
		v[i] = ldexp(s->vertices[i], kv);
	out->radius = ldexp(s->radius, k);
	if (!vec_isfinite(out->linear, n * n) || !vec_isfinite(out->translation, n) ||
	    !isfinite(out->radius))
		return CLASH_ERANGE;
	for (size_t i = 0; i < m; i++)
		if (!isfinite(v[i]))
			return CLASH_ERANGE;
	return CLASH_OK;
}

static void scale_points(double *x, int n, double p)
{
	for (int k = 0; k < n; k++)
		x[k] *= p;
}

int support_query_scaled(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                         int k, support_query_fn query, clash_result *r)
{
	const int n = a->dim;
	memset(r, 0, sizeof *r);
	if (a->count > SIZE_MAX / sizeof(double) / (size_t)n - b->count)
		return CLASH_ENOMEM;
	double *v = malloc((a->count + b->count) * (size_t)n * sizeof *v);
	if (!v)
		return CLASH_ENOMEM;
	clash_shape sa, sb;
	int err;
	if ((err = scale_shape(&sa, a, k, v)) ||
	    (err = scale_shape(&sb, b, k, v + a->count * (size_t)n))) {
		free(v);
		return err;
	}
	clash_options o;
	double plane[CLASH_MAX_DIM + 1];
	if (opt) {
		o = *opt;
		if (o.tolerance > 0.0) {
			o.tolerance = ldexp(o.tolerance, k);
			if (!isfinite(o.tolerance))
				o.tolerance = DBL_MAX;
		}
		if (o.warm_plane) {
			memcpy(plane, o.warm_plane, (size_t)(n + 1) * sizeof *plane);
			plane[n] = ldexp(plane[n], k);
			if (!isfinite(plane[n]))
				plane[n] = plane[n] > 0.0 ? DBL_MAX : -DBL_MAX;
			o.warm_plane = plane;
		}
	}
	err = query(&sa, &sb, opt ? &o : NULL, r);
	free(v);
	if (err)
		return err;
	/* Lengths and points back to the inputs' scale, one rounding each
	 * (2^-k is a double: k <= 1074); unit normals, verdicts, counts and
	 * indices are the scaled answer's. */
	const double down = ldexp(1.0, -k);
	r->distance *= down;
	r->offset *= down;
	r->depth_lower_bound *= down;
	r->depth *= down;
	r->distance_lower_bound *= down;
	scale_points(r->near_a, n, down);
	scale_points(r->near_b, n, down);
	scale_points(r->depth_a, n, down);
	scale_points(r->depth_b, n, down);
	return CLASH_OK;
}

/* The ball of a shape's hull from its local box: see support_bounds. */
static inline __attribute__((always_inline)) int
ball_of_box(const clash_shape *s, const double *lo, const double *hi, double *center,
            double *radius)
{
	int n = s->dim;
	if (n == 3) {
		/* Written out (the same arithmetic as below): this is on the
		 * set-up path of every 3-D query, where the loops over n cost
		 * more than the arithmetic. */
		if (!vec_isfinite(lo, 3) || !vec_isfinite(hi, 3))
			return CLASH_ERANGE;
		const double c0 = 0.5 * hi[0] + 0.5 * lo[0], c1 = 0.5 * hi[1] + 0.5 * lo[1],
		             c2 = 0.5 * hi[2] + 0.5 * lo[2];
		double h[3] = {0.5 * hi[0] - 0.5 * lo[0], 0.5 * hi[1] - 0.5 * lo[1],
		               0.5 * hi[2] - 0.5 * lo[2]};
		if (!s->posed) {
			center[0] = c0;
			center[1] = c1;
			center[2] = c2;
			*radius = vec_norm(h, 3);
		} else {
			const double *l = s->linear, *t = s->translation;
			double hw[3];
			center[0] = t[0] + l[0] * c0 + l[3] * c1 + l[6] * c2;
			center[1] = t[1] + l[1] * c0 + l[4] * c1 + l[7] * c2;
			center[2] = t[2] + l[2] * c0 + l[5] * c1 + l[8] * c2;
			hw[0] = fabs(l[0]) * h[0] + fabs(l[3]) * h[1] + fabs(l[6]) * h[2];
			hw[1] = fabs(l[1]) * h[0] + fabs(l[4]) * h[1] + fabs(l[7]) * h[2];
			hw[2] = fabs(l[2]) * h[0] + fabs(l[5]) * h[1] + fabs(l[8]) * h[2];
			*radius = vec_norm(hw, 3);
		}
		if (!vec_isfinite(center, 3) || !isfinite(*radius))
			return CLASH_ERANGE;
		return CLASH_OK;
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
	} else if (n == 3) {
		const double *l = s->linear, *t = s->translation;
		double hw[3];
		for (int r = 0; r < 3; r++) {
			center[r] = t[r] + l[r] * c[0] + l[3 + r] * c[1] + l[6 + r] * c[2];
			hw[r] = fabs(l[r]) * h[0] + fabs(l[3 + r]) * h[1] + fabs(l[6 + r]) * h[2];
		}
		*radius = vec_norm(hw, 3);
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


size_t support_primitive3(const support_frame *f, const double *d, double *x)
{
	double e[3], p[3];
	const double *u = support_local_dir3(f, d, e);
	primitive_local_support(f->kind, f->prm, u, p);
	if (!f->posed) {
		for (int k = 0; k < 3; k++)
			x[k] = (p[k] - f->shift[k]) * f->scale;
		return 0;
	}
	const double *l = f->lin;
	const double x0 = f->off[0] + l[0] * p[0] + l[3] * p[1] + l[6] * p[2];
	const double x1 = f->off[1] + l[1] * p[0] + l[4] * p[1] + l[7] * p[2];
	const double x2 = f->off[2] + l[2] * p[0] + l[5] * p[1] + l[8] * p[2];
	x[0] = x0;
	x[1] = x1;
	x[2] = x2;
	return 0;
}

int support_bounds(const clash_shape *s, double *center, double *radius)
{
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	if (s->kind) { /* an exact primitive: its own box */
		primitive_local_box(s, lo, hi);
		return ball_of_box(s, lo, hi, center, radius);
	}
	const prepared *p;
	int err = prepared_of(s, &p);
	if (err)
		return err;
	if (p) /* the box is kept, and was checked for NaN */
		return ball_of_box(s, p->lo, p->hi, center, radius);
	if (box(s->vertices, s->count, s->dim, lo, hi))
		return CLASH_ERANGE;
	return ball_of_box(s, lo, hi, center, radius);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX__)
#include "lanes_avx.h"

/* The least of four lanes, the first of equals (-0 and +0 tie) as a loop
 * over lanes 0 to 3 keeping its minimum unless one is smaller takes it:
 * lanes paired (0 1) (2 3), then the pairs' minima. */
__attribute__((target("avx"), always_inline)) static inline double lanes_min(__m256d a)
{
	const __m256d t = _mm256_min_pd(_mm256_permute_pd(a, 0x5), a); /* a1 < a0 ? a1 : a0 */
	return _mm_cvtsd_f64(_mm_min_sd(_mm256_extractf128_pd(t, 1), _mm256_castpd256_pd128(t)));
}

/* The greatest, the same way. */
__attribute__((target("avx"), always_inline)) static inline double lanes_max(__m256d a)
{
	const __m256d t = _mm256_max_pd(_mm256_permute_pd(a, 0x5), a);
	return _mm_cvtsd_f64(_mm_max_sd(_mm256_extractf128_pd(t, 1), _mm256_castpd256_pd128(t)));
}

/* box_extreme in 3-D four vertices wide, with AVX (see max_dot3_avx_any
 * below for the lanes, the loads and why the result is the SSE2 scan's bit
 * for bit).  The box is the min and max of the lanes' x, y and z; the NaN
 * test is the inner product's unordered compare, confirmed by has_nan.  store:
 * also the by-coordinate copy (scan3.h). */
__attribute__((target("avx"), always_inline)) static inline int
box_extreme3_avx_any(const double *v, size_t count, const double *e, double *lo, double *hi,
                     size_t *extreme, scan3 *copy, const int store)
{
	if (store) { /* vertex 0, as scan3's first scan stores it */
		copy->x[0] = v[0];
		copy->y[0] = v[1];
		copy->z[0] = v[2];
	}
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	const double first = (v[0] * e0 + v[1] * e1) + v[2] * e2;
	double b[4], bi[4];
	int isbad;
	size_t i = 0;
	{
		const __m256d E0 = _mm256_set1_pd(e0), E1 = _mm256_set1_pd(e1), E2 = _mm256_set1_pd(e2);
		__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
		__m256d cur = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
		const __m256d four = _mm256_set1_pd(4.0);
		__m256d lx = _mm256_set1_pd(v[0]), ly = _mm256_set1_pd(v[1]), lz = _mm256_set1_pd(v[2]);
		__m256d hx = lx, hy = ly, hz = lz, nan = _mm256_setzero_pd();
		for (; i + 4 <= count; i += 4) {
			const double *p = v + 3 * i;
			__m256d x, y, z;
			avx_load4(p, &x, &y, &z);
			if (store) {
				_mm256_storeu_pd(copy->x + i, x);
				_mm256_storeu_pd(copy->y + i, y);
				_mm256_storeu_pd(copy->z + i, z);
			}
			lx = _mm256_min_pd(x, lx);
			ly = _mm256_min_pd(y, ly);
			lz = _mm256_min_pd(z, lz);
			hx = _mm256_max_pd(x, hx);
			hy = _mm256_max_pd(y, hy);
			hz = _mm256_max_pd(z, hz);
			const __m256d d =
			    avx_lanes_step(x, y, z, E0, E1, E2, &best, &idx, &cur, four);
			/* A NaN coordinate makes d NaN whatever e is, so d alone
			 * is the fast test (it also fires on inf * 0 and inf - inf,
			 * which the exact test then clears). */
			nan = _mm256_or_pd(nan, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
		}
		if (i < count) {
			/* The first maximum of the one to three vertices past
			 * the last round: one more round over the last four,
			 * which sees some again (see scan3.c's scan_any), not a
			 * compare per vertex that mispredicts.  Their box (and
			 * copy) below, vertex by vertex as before: a lane that
			 * saw -0 and +0 in another order could change which
			 * zero the box keeps. */
			const size_t j = count - 4;
			__m256d x, y, z;
			avx_load4(v + 3 * j, &x, &y, &z);
			cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1),
			                    (double)j);
			avx_lanes_step(x, y, z, E0, E1, E2, &best, &idx, &cur, four);
		}
		_mm256_storeu_pd(b, best);
		_mm256_storeu_pd(bi, idx);
		lo[0] = lanes_min(lx);
		lo[1] = lanes_min(ly);
		lo[2] = lanes_min(lz);
		hi[0] = lanes_max(hx);
		hi[1] = lanes_max(hy);
		hi[2] = lanes_max(hz);
		isbad = _mm256_movemask_pd(nan) != 0;
	}
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		if (store) {
			copy->x[i] = p[0];
			copy->y[i] = p[1];
			copy->z[i] = p[2];
		}
		for (int k = 0; k < 3; k++) {
			double x = p[k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
			isbad |= isnan(x);
		}
	}
	*extreme = support_lanes_merge(b, bi);
	return isbad && has_nan(v, count, 3); /* the fast test can fire on inf */
}

__attribute__((target("avx"))) static int box_extreme3_avx(const double *v, size_t count,
                                                           const double *e, double *lo,
                                                           double *hi, size_t *extreme)
{
	return box_extreme3_avx_any(v, count, e, lo, hi, extreme, NULL, 0);
}

/* The same, and a by-coordinate copy of the vertices into copy (scan3.h:
 * what its first raw scan would store). */
__attribute__((target("avx"))) static int box_extreme3_avx_copy(const double *v, size_t count,
                                                                const double *e, double *lo,
                                                                double *hi, size_t *extreme,
                                                                scan3 *copy)
{
	return box_extreme3_avx_any(v, count, e, lo, hi, extreme, copy, 1);
}
#endif

/* box() and support_max_dot() in one pass: the box of the vertices, the
 * NaN test, and the first vertex of largest inner product with e.  copy
 * (or NULL): a scan3 copy in state SCAN3_WANT_RAW, made here (then
 * SCAN3_RAW) when the AVX path takes the shape; else left as it is. */
static int box_extreme(const double *v, size_t count, int n, const double *e, double *lo,
                       double *hi, size_t *extreme, scan3 *copy)
{
	if (n != 3) {
		*extreme = support_max_dot(v, count, n, e);
		return box(v, count, n, lo, hi);
	}
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX__)
	if (count >= 8 && __builtin_cpu_supports("avx")) {
		if (copy && copy->state == SCAN3_WANT_RAW && count <= SCAN3_MAX) {
			copy->state = SCAN3_RAW;
			return box_extreme3_avx_copy(v, count, e, lo, hi, extreme, copy);
		}
		return box_extreme3_avx(v, count, e, lo, hi, extreme);
	}
#else
	(void)copy;
#endif
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	double l[3] = {v[0], v[1], v[2]}, h[3] = {v[0], v[1], v[2]}, bad = 0.0;
	double b[2], bi[2];
	b[0] = b[1] = (v[0] * e0 + v[1] * e1) + v[2] * e2;
	bi[0] = bi[1] = 0.0;
	size_t i = 0;
#if defined(__SSE2__)
	{
		box_lanes bl;
		box_lanes_start(&bl, v);
		const __m128d E0 = _mm_set1_pd(e0), E1 = _mm_set1_pd(e1), E2 = _mm_set1_pd(e2);
		const __m128d two = _mm_set1_pd(2.0);
		__m128d best = _mm_set1_pd(b[0]), idx = _mm_setzero_pd(), cur = _mm_set_pd(1.0, 0.0);
		for (; i + 2 <= count; i += 2) {
			const double *p = v + 3 * i;
			__m128d x = _mm_loadu_pd(p), y = _mm_loadu_pd(p + 2), z = _mm_loadu_pd(p + 4);
			box_lanes_add(&bl, x, y, z);
			__m128d X = _mm_shuffle_pd(x, y, 2), Y = _mm_shuffle_pd(x, z, 1);
			__m128d Z = _mm_shuffle_pd(y, z, 2);
			__m128d d = _mm_add_pd(_mm_add_pd(_mm_mul_pd(X, E0), _mm_mul_pd(Y, E1)),
			                       _mm_mul_pd(Z, E2));
			__m128d m = _mm_cmpgt_pd(d, best);
			best = _mm_max_pd(d, best);
			idx = _mm_or_pd(_mm_and_pd(m, cur), _mm_andnot_pd(m, idx));
			cur = _mm_add_pd(cur, two);
		}
		bad = box_lanes_end(&bl, l, h);
		_mm_storeu_pd(b, best);
		_mm_storeu_pd(bi, idx);
	}
#endif
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		for (int k = 0; k < 3; k++) {
			double x = p[k];
			l[k] = x < l[k] ? x : l[k];
			h[k] = x > h[k] ? x : h[k];
			bad += x * 0.0;
		}
		double d = (p[0] * e0 + p[1] * e1) + p[2] * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	vec_copy(lo, l, 3);
	vec_copy(hi, h, 3);
	*extreme = (size_t)(b[1] > b[0] || (b[1] == b[0] && bi[1] < bi[0]) ? bi[1] : bi[0]);
	return bad != 0.0 && has_nan(v, count, 3); /* see box() */
}

int support_bounds_extreme(const clash_shape *s, const double *d, double *center,
                           double *radius, size_t *extreme)
{
	return bounds_extreme(s, d, center, radius, extreme, NULL);
}

static int bounds_extreme(const clash_shape *s, const double *d, double *center,
                          double *radius, size_t *extreme, scan3 *copy)
{
	const int n = s->dim;
	double e[CLASH_MAX_DIM], lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	if (!s->posed) {
		vec_copy(e, d, n);
	} else if (n == 3) {
		const double *l = s->linear;
		e[0] = l[0] * d[0] + l[1] * d[1] + l[2] * d[2];
		e[1] = l[3] * d[0] + l[4] * d[1] + l[5] * d[2];
		e[2] = l[6] * d[0] + l[7] * d[1] + l[8] * d[2];
	} else {
		for (int k = 0; k < n; k++) {
			double x = 0.0;
			for (int r = 0; r < n; r++)
				x += s->linear[k * n + r] * d[r]; /* (L^T d)_k */
			e[k] = x;
		}
	}
	if (s->kind) { /* an exact primitive: no vertex is extreme */
		*extreme = 0;
		primitive_local_box(s, lo, hi);
		return ball_of_box(s, lo, hi, center, radius);
	}
	const prepared *p;
	int err = prepared_of(s, &p);
	if (err)
		return err;
	if (p) {
		*extreme = prepared_climbs(p) ? prepared_climb(p, e, 0, NULL)
		                              : support_max_dot(s->vertices, s->count, n, e);
		return ball_of_box(s, p->lo, p->hi, center, radius);
	}
	if (box_extreme(s->vertices, s->count, n, e, lo, hi, extreme, copy))
		return CLASH_ERANGE;
	return ball_of_box(s, lo, hi, center, radius);
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
	f->prep = NULL;
	f->hint = NULL;
	f->kind = s->kind;
	if (s->kind)
		memcpy(f->prm, s->params, sizeof f->prm);
	prepared_of(s, &f->prep); /* checked by support_bounds before any frame */
	vec_copy(f->shift, shift, n);
	if (s->posed && n == 3) {
		/* Written out, two entries to a register where SSE2 has them
		 * (the same products): GCC leaves the loop rolled at -O2. */
		const double *l = s->linear, *t = s->translation;
#if defined(__SSE2__)
		const __m128d sc = _mm_set1_pd(scale);
		_mm_storeu_pd(f->lin, _mm_mul_pd(_mm_loadu_pd(l), sc));
		_mm_storeu_pd(f->lin + 2, _mm_mul_pd(_mm_loadu_pd(l + 2), sc));
		_mm_storeu_pd(f->lin + 4, _mm_mul_pd(_mm_loadu_pd(l + 4), sc));
		_mm_storeu_pd(f->lin + 6, _mm_mul_pd(_mm_loadu_pd(l + 6), sc));
		f->lin[8] = l[8] * scale;
#else
		for (int i = 0; i < 9; i++)
			f->lin[i] = l[i] * scale;
#endif
		f->off[0] = (t[0] - shift[0]) * scale;
		f->off[1] = (t[1] - shift[1]) * scale;
		f->off[2] = (t[2] - shift[2]) * scale;
	} else if (s->posed) {
		const int nn = n * n;
		if (nn == 9)
			for (int i = 0; i < 9; i++)
				f->lin[i] = s->linear[i] * scale;
		else
			for (int i = 0; i < nn; i++)
				f->lin[i] = s->linear[i] * scale;
		/* (t - shift) first: for a shape far from the origin both are
		 * large and nearly equal, and their difference is what matters. */
		for (int r = 0; r < n; r++)
			f->off[r] = (s->translation[r] - shift[r]) * scale;
	}
}

/* The end of a four-lane scan (max_dot3_any, max_dot3_avx_any): vertices
 * i .. count-1 go to lane 0, which holds the lowest indices so far among
 * its equals (theirs are larger than all); then the lanes merge: the
 * largest value, the lowest index among equals.  Plain C, inlined into
 * either scan. */
static inline __attribute__((always_inline)) size_t
lanes_finish(const double *v, size_t i, size_t count, const double *e, double x0, double y0,
             double z0, double *b, double *bi)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		double d = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	return support_lanes_merge(b, bi);
}

/* The 3-D scan in four interleaved lanes: lane j takes the vertices
 * i = j mod 4 and keeps its own running maximum, so the four comparisons
 * of a round do not wait for one another (a single running maximum makes
 * every vertex wait for the previous one's compare).  Each lane keeps the
 * first of its equal maxima; the lanes are merged by value, then by index,
 * so the answer is the first vertex of largest inner product, exactly as a
 * plain scan gives it.  Branch-free: which vertex wins is data, not
 * control (a mispredicted branch per new maximum costs more than the inner
 * products of a small polytope).  With SSE2 (every x86-64) a lane pair is
 * one packed register: two vertices' coordinates are transposed into
 * (x0 x1) (y0 y1) (z0 z1) and their inner products formed exactly as the
 * scalar (x e0 + y e1) + z e2, so the arithmetic, and the answer, are the
 * same bit for bit. */
static inline size_t max_dot3_any(const double *v, size_t count, const double *e, const int rel)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	/* rel: score (v - v_0).e instead of v.e (see support_max_dot_rel3). */
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	if (count < 8) {
		/* Too few for the lanes to pay for their merge. */
		double bv = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
		size_t bi = 0;
		for (size_t i = 1; i < count; i++) {
			const double *p = v + 3 * i;
			double d = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
			bi ^= (bi ^ i) & -(size_t)(d > bv);
			bv = d > bv ? d : bv;
		}
		return bi;
	}
	double b[4], bi[4];
	size_t i = 1;
	b[0] = b[1] = b[2] = b[3] = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
	bi[0] = bi[1] = bi[2] = bi[3] = 0.0; /* indices, exact as doubles below 2^53 */
#if defined(__SSE2__)
	{
		const __m128d E0 = _mm_set1_pd(e0), E1 = _mm_set1_pd(e1), E2 = _mm_set1_pd(e2);
		const __m128d X0 = _mm_set1_pd(x0), Y0 = _mm_set1_pd(y0), Z0 = _mm_set1_pd(z0);
		__m128d best0 = _mm_set1_pd(b[0]), best1 = best0;
		__m128d idx0 = _mm_setzero_pd(), idx1 = idx0;
		__m128d cur0 = _mm_set_pd(2.0, 1.0), cur1 = _mm_set_pd(4.0, 3.0);
		const __m128d four = _mm_set1_pd(4.0);
		for (; i + 4 <= count; i += 4) {
			const double *p = v + 3 * i;
			__m128d a0 = _mm_loadu_pd(p), b0 = _mm_loadu_pd(p + 2), c0 = _mm_loadu_pd(p + 4);
			__m128d a1 = _mm_loadu_pd(p + 6), b1 = _mm_loadu_pd(p + 8), c1 = _mm_loadu_pd(p + 10);
			__m128d px = _mm_shuffle_pd(a0, b0, 2), py = _mm_shuffle_pd(a0, c0, 1);
			__m128d pz = _mm_shuffle_pd(b0, c0, 2);
			__m128d qx = _mm_shuffle_pd(a1, b1, 2), qy = _mm_shuffle_pd(a1, c1, 1);
			__m128d qz = _mm_shuffle_pd(b1, c1, 2);
			if (rel) {
				px = _mm_sub_pd(px, X0);
				py = _mm_sub_pd(py, Y0);
				pz = _mm_sub_pd(pz, Z0);
				qx = _mm_sub_pd(qx, X0);
				qy = _mm_sub_pd(qy, Y0);
				qz = _mm_sub_pd(qz, Z0);
			}
			__m128d d0 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(px, E0), _mm_mul_pd(py, E1)),
			                        _mm_mul_pd(pz, E2));
			__m128d d1 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(qx, E0), _mm_mul_pd(qy, E1)),
			                        _mm_mul_pd(qz, E2));
			__m128d m0 = _mm_cmpgt_pd(d0, best0), m1 = _mm_cmpgt_pd(d1, best1);
			best0 = _mm_max_pd(d0, best0);
			best1 = _mm_max_pd(d1, best1);
			idx0 = _mm_or_pd(_mm_and_pd(m0, cur0), _mm_andnot_pd(m0, idx0));
			idx1 = _mm_or_pd(_mm_and_pd(m1, cur1), _mm_andnot_pd(m1, idx1));
			cur0 = _mm_add_pd(cur0, four);
			cur1 = _mm_add_pd(cur1, four);
		}
		_mm_storeu_pd(b, best0);
		_mm_storeu_pd(b + 2, best1);
		_mm_storeu_pd(bi, idx0);
		_mm_storeu_pd(bi + 2, idx1);
	}
#else
	{
		size_t j0 = 0, j1 = 0, j2 = 0, j3 = 0;
		double c0 = b[0], c1 = b[0], c2 = b[0], c3 = b[0];
		for (; i + 4 <= count; i += 4) {
			const double *p = v + 3 * i;
			double d0 = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
			double d1 = ((p[3] - x0) * e0 + (p[4] - y0) * e1) + (p[5] - z0) * e2;
			double d2 = ((p[6] - x0) * e0 + (p[7] - y0) * e1) + (p[8] - z0) * e2;
			double d3 = ((p[9] - x0) * e0 + (p[10] - y0) * e1) + (p[11] - z0) * e2;
			j0 ^= (j0 ^ i) & -(size_t)(d0 > c0);
			c0 = d0 > c0 ? d0 : c0;
			j1 ^= (j1 ^ (i + 1)) & -(size_t)(d1 > c1);
			c1 = d1 > c1 ? d1 : c1;
			j2 ^= (j2 ^ (i + 2)) & -(size_t)(d2 > c2);
			c2 = d2 > c2 ? d2 : c2;
			j3 ^= (j3 ^ (i + 3)) & -(size_t)(d3 > c3);
			c3 = d3 > c3 ? d3 : c3;
		}
		b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
		bi[0] = (double)j0, bi[1] = (double)j1, bi[2] = (double)j2, bi[3] = (double)j3;
	}
#endif
	return lanes_finish(v, i, count, e, x0, y0, z0, b, bi);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX__)
#define SUPPORT_AVX_DISPATCH 1

/* One round of max_dot3_avx_any: vertices p[0..3], less o when rel. */
__attribute__((target("avx"), always_inline)) static inline void
max_dot3_round(const double *p, const int rel, const __m256d *o, const __m256d *e, __m256d *best,
               __m256d *idx, __m256d *cur, __m256d four)
{
	__m256d x, y, z;
	avx_load4(p, &x, &y, &z);
	if (rel) {
		x = _mm256_sub_pd(x, o[0]);
		y = _mm256_sub_pd(y, o[1]);
		z = _mm256_sub_pd(z, o[2]);
	}
	avx_lanes_step(x, y, z, e[0], e[1], e[2], best, idx, cur, four);
}

/* max_dot3_any four vertices wide, for processors with AVX (chosen at run
 * time: the build targets plain x86-64).  The same four lanes as the SSE2
 * scan, now one register: two 128-bit loads per pair of coordinates, the
 * second into the upper half, give (x0 y0 | x2 y2) (z0 x1 | z2 x3)
 * (y1 z1 | y3 z3), and the shuffles of the SSE2 scan, done in both halves,
 * give (x0 x1 | x2 x3) and so on: lane j holds vertex i + j.  Multiplies
 * and adds stay separate (no FMA in the target), in the scalar order, so
 * every inner product, and the answer, are the same bit for bit; each lane
 * keeps the first of its maxima, the tail goes to lane 0 and the lanes
 * merge by value, then by index, as in max_dot3_any.  The index update is
 * and/andnot/or: GCC 12 turns _mm256_blendv_pd here into a branch per lane. */
__attribute__((target("avx"), always_inline)) static inline size_t
max_dot3_avx_any(const double *v, size_t count, const double *e, const int rel)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	double b[4], bi[4];
	size_t i = 1;
	const double first = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
	{
		const __m256d E[3] = {_mm256_set1_pd(e0), _mm256_set1_pd(e1), _mm256_set1_pd(e2)};
		const __m256d O[3] = {_mm256_set1_pd(x0), _mm256_set1_pd(y0), _mm256_set1_pd(z0)};
		__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
		__m256d cur = _mm256_set_pd(4.0, 3.0, 2.0, 1.0);
		const __m256d four = _mm256_set1_pd(4.0);
		for (; i + 4 <= count; i += 4)
			max_dot3_round(v + 3 * i, rel, O, E, &best, &idx, &cur, four);
		if (i < count) {
			/* The tail as a last round over the last four vertices
			 * (count >= 8 here): see scan3.c's scan_any. */
			const size_t j = count - 4;
			cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1),
			                    (double)j);
			max_dot3_round(v + 3 * j, rel, O, E, &best, &idx, &cur, four);
			i = count;
		}
		_mm256_storeu_pd(b, best);
		_mm256_storeu_pd(bi, idx);
	}
	return lanes_finish(v, i, count, e, x0, y0, z0, b, bi);
}

/* One copy for each rel, each without the test in its loop. */
__attribute__((target("avx"))) static size_t max_dot3_avx(const double *v, size_t count,
                                                          const double *e)
{
	return max_dot3_avx_any(v, count, e, 0);
}

__attribute__((target("avx"))) static size_t max_dot3_avx_rel(const double *v, size_t count,
                                                              const double *e)
{
	return max_dot3_avx_any(v, count, e, 1);
}

/* Whether to take max_dot3_avx: the processor and the system support AVX
 * (__builtin_cpu_supports reads what libgcc found at start-up). */
static inline int use_avx(size_t count)
{
	return count >= 8 && __builtin_cpu_supports("avx");
}
#endif

static size_t max_dot3(const double *v, size_t count, const double *e)
{
#if defined(SUPPORT_AVX_DISPATCH)
	if (use_avx(count))
		return max_dot3_avx(v, count, e);
#endif
	return max_dot3_any(v, count, e, 0);
}

size_t support_max_dot_rel3(const double *v, size_t count, const double *e)
{
	assert(count > 0);
#if defined(SUPPORT_AVX_DISPATCH)
	if (use_avx(count))
		return max_dot3_avx_rel(v, count, e);
#endif
	return max_dot3_any(v, count, e, 1);
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
