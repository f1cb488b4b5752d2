/*
 * support.c — support mappings of posed polytopes (see support.h).
 *
 * The vertex scan is the only part of a query whose cost grows with the
 * vertex count (GJK88 section VII: time nearly linear in M1 + M2), so the
 * 3-D scan is a SIMD kernel (lanes.h: branch-free, the plain scan's vertex
 * bit for bit); the first scan of each shape also gives its bounding box
 * (support_bounds_extreme), so a query reads every vertex once to set
 * up.  A prepared
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
#include "scan3.h"
#include "support.h"
#include "lanes.h"
#include "vec.h"

/* The bounding box of count points of dimension n; returns 1 if some
 * coordinate is NaN.  Branch-free: min and max by selection, NaN through
 * the running sum of coordinate times 0 (0 for every finite coordinate,
 * NaN as soon as one is NaN or infinite; the box's own finiteness test
 * rejects infinities anyway); in 3-D by lanes_box3. */
static int box(const double *v, size_t count, int n, double *lo, double *hi)
{
	if (n == 3)
		return lanes_box3(v, count, lo, hi);
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

static int bounds_extreme(const clash_shape *s, const double *d, double *center, double *radius,
                          size_t *extreme, scan3 *copy);

/* support_pair_frame_init_copy, inlined into both entries so that the
 * one without copies tests none. */
static inline __attribute__((always_inline)) int pair_frame_extremes(
	support_pair_frame *f, const clash_shape *a, const clash_shape *b, const double *d,
	size_t *ia, size_t *ib, scan3 *copy_a, scan3 *copy_b)
{
	const int n = a->dim;
	double nd[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		nd[k] = -d[k];
	if (copy_a) /* for bounds_extreme to fill, when it can */
		scan3_start(copy_a, 0);
	if (copy_b)
		scan3_start(copy_b, 0);
	int err;
	if ((err = bounds_extreme(a, d, f->ca, &f->ra, ia, copy_a)) ||
	    (err = bounds_extreme(b, nd, f->cb, &f->rb, ib, copy_b)))
		return err;
	return pair_frame_finish(f, n);
}

int support_pair_frame_init_copy(support_pair_frame *f, const clash_shape *a, const clash_shape *b,
                                 const double *d, size_t *ia, size_t *ib, support_copy *room_a,
                                 support_copy *room_b)
{
	return pair_frame_extremes(f, a, b, d, ia, ib, room_a, room_b);
}

int support_pair_frame_init_extreme(support_pair_frame *f, const clash_shape *a,
                                    const clash_shape *b, const double *d, size_t *ia, size_t *ib)
{
	return pair_frame_extremes(f, a, b, d, ia, ib, NULL, NULL);
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
static inline __attribute__((always_inline)) int ball_of_box(const clash_shape *s, const double *lo,
                                                             const double *hi, double *center,
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
	support_map3(f, p, x);
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

/* box() and support_max_dot() in one pass: the box of the vertices, the
 * NaN test, and the first vertex of largest inner product with e.  copy
 * (or NULL): a room for the copy by coordinate, filled here when the
 * kernel that can takes the shape, else left empty. */
static int box_extreme(const double *v, size_t count, int n, const double *e, double *lo,
                       double *hi, size_t *extreme, scan3 *copy)
{
	if (n != 3) {
		*extreme = support_max_dot(v, count, n, e);
		return box(v, count, n, lo, hi);
	}
	if (copy && count <= SCAN3_MAX && lanes_box_max_dot3_copies(count)) {
		scan3_start(copy, 1);
		return lanes_box_max_dot3(v, count, e, lo, hi, extreme, copy->x, copy->y, copy->z);
	}
	return lanes_box_max_dot3(v, count, e, lo, hi, extreme, NULL, NULL, NULL);
}

int support_bounds_extreme(const clash_shape *s, const double *d, double *center, double *radius,
                           size_t *extreme)
{
	return bounds_extreme(s, d, center, radius, extreme, NULL);
}

static int bounds_extreme(const clash_shape *s, const double *d, double *center, double *radius,
                          size_t *extreme, scan3 *copy)
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

void support_frame_init(support_frame *f, const clash_shape *s, const double *shift, double scale)
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
	f->copy = NULL;
	if (s->kind)
		memcpy(f->prm, s->params, sizeof f->prm);
	prepared_of(s, &f->prep); /* checked by support_bounds before any frame */
	vec_copy(f->shift, shift, n);
	if (s->posed && n == 3) {
		/* Written out (the same products): GCC leaves the loop
		 * rolled at -O2. */
		const double *l = s->linear, *t = s->translation;
		lanes_scale9(f->lin, l, scale);
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

size_t support_max_dot_rel3(const double *v, size_t count, const double *e)
{
	assert(count > 0);
	return lanes_max_dot3(v, count, e, 1);
}

size_t support_max_dot(const double *v, size_t count, int dim, const double *e)
{
	assert(count > 0);
	size_t best = 0;
	double bestv;
	if (dim == 3)
		return lanes_max_dot3(v, count, e, 0);
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
