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

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clash.h"
#include "prepared.h"
#include "scan3.h"

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
	const prepared *prep; /* the shape's preparation, or NULL */
	/* Where the query keeps the last support point of a prepared shape,
	 * the next climb's start (see prepared_climb); NULL for none. */
	size_t *hint;
	/* An exact primitive (primitive.h): its kind (0: the vertices) and
	 * sizes; its support points come from support_primitive3. */
	int kind;
	double prm[3];
	/* The copy of the vertices by coordinate that f's 3-D scans read
	 * (scan3.h), in the caller's storage; NULL for none.  Set by
	 * support_frame_keep_copy, never by hand. */
	scan3 *copy;
} support_frame;

/* Room for one frame's copy of its vertices by coordinate (scan3.h): the
 * caller's storage, about 3 KB, needing no set-up. */
typedef scan3 support_copy;

/* The support point of primitive frame f (kind > 0, 3-D) in frame
 * direction d, written to x, by primitive_local_support; returns 0, a
 * primitive has no vertex indices. */
size_t support_primitive3(const support_frame *f, const double *d, double *x);

/* The checks every pairwise query (gjk, simplex, ipm) makes before any
 * work: two convex shapes (not compounds: compound.c splits those) of one
 * dimension 1..CLASH_MAX_DIM, non-empty, with vertices and finite radii
 * >= 0; options (may be NULL) with a finite tolerance >= 0, an iteration
 * cap >= 0, and warm-start indices within the shapes (each method checks
 * them, used or not: an option that is wrong is an error whichever method
 * reads it).  CLASH_OK or the error code.  Inline: it is on every
 * query's path. */
static inline int support_check_query(const clash_shape *a, const clash_shape *b,
                                      const clash_options *opt)
{
	if (a == NULL || b == NULL)
		return CLASH_EINVAL;
	if (a->dim < 1 || a->dim > CLASH_MAX_DIM || a->dim != b->dim)
		return CLASH_EDIM;
	assert(a->nparts == 0 && b->nparts == 0); /* compounds go to compound.c */
	if (a->count == 0 || b->count == 0)
		return CLASH_EEMPTY;
	if (a->vertices == NULL || b->vertices == NULL)
		return CLASH_EINVAL;
	if (!(a->radius >= 0.0) || !isfinite(a->radius) || !(b->radius >= 0.0) ||
	    !isfinite(b->radius))
		return CLASH_ERADIUS;
	if (opt == NULL)
		return CLASH_OK;
	if (!(opt->tolerance >= 0.0) || !isfinite(opt->tolerance) || opt->max_iterations < 0)
		return CLASH_EINVAL;
	if (opt->warm_count > 0) {
		if (opt->warm_count > (size_t)a->dim + 1 || !opt->warm_a || !opt->warm_b)
			return CLASH_EINVAL;
		for (size_t i = 0; i < opt->warm_count; i++)
			if (opt->warm_a[i] >= a->count || opt->warm_b[i] >= b->count)
				return CLASH_EWARM;
	}
	return CLASH_OK;
}

/* World coordinates x = L v + t of a point v given in s's local
 * coordinates (v itself for an unposed shape); the 3-D case written out,
 * in the same order of operations as the loop. */
static inline void support_pose_point(const clash_shape *s, const double *v, double *x)
{
	const int n = s->dim;
	if (!s->posed) {
		for (int k = 0; k < n; k++)
			x[k] = v[k];
		return;
	}
	const double *l = s->linear, *t = s->translation;
	if (n == 3) {
		x[0] = t[0] + l[0] * v[0] + l[3] * v[1] + l[6] * v[2];
		x[1] = t[1] + l[1] * v[0] + l[4] * v[1] + l[7] * v[2];
		x[2] = t[2] + l[2] * v[0] + l[5] * v[1] + l[8] * v[2];
		return;
	}
	for (int r = 0; r < n; r++) {
		double acc = t[r];
		for (int k = 0; k < n; k++)
			acc += l[k * n + r] * v[k];
		x[r] = acc;
	}
}

/* The working frame of an LP query on two shapes (lp_simplex.c, lp_ipm.c;
 * gjk.c sets up the same frame in its own fast 3-D code): each hull's
 * bounding ball (ca, ra and cb, rb; support_bounds), the shift to the
 * midpoint of the centres (GJK88 section VI's origin shift), dc = half the
 * centres' difference and half_gap = |dc|, and unit = 2^e, the power of two
 * at or above the scene's extent (half_gap + max(ra, rb)), inv = 1 / unit:
 * every frame coordinate is then at most 1 in magnitude. */
typedef struct support_pair_frame {
	double ca[CLASH_MAX_DIM], cb[CLASH_MAX_DIM], ra, rb;
	double shift[CLASH_MAX_DIM], dc[CLASH_MAX_DIM], half_gap;
	double unit, inv;
} support_pair_frame;

/* Fill *f for a and b; CLASH_ERANGE for non-finite data. */
int support_pair_frame_init(support_pair_frame *f, const clash_shape *a, const clash_shape *b);

/* The same, and in the same pass over the vertices (support_bounds_extreme)
 * the vertex of a extreme along world direction d (*ia) and of b along -d
 * (*ib). */
int support_pair_frame_init_extreme(support_pair_frame *f, const clash_shape *a,
                                    const clash_shape *b, const double *d, size_t *ia, size_t *ib);

/* support_pair_frame_init_extreme that also copies each shape's vertices
 * by coordinate into room_a and room_b (support_frame_keep_pair_copy) in
 * the same pass, when the pass is the AVX scan of the array; else the
 * first scan of a frame that keeps the room makes the copy. */
int support_pair_frame_init_copy(support_pair_frame *f, const clash_shape *a, const clash_shape *b,
                                 const double *d, size_t *ia, size_t *ib, support_copy *room_a,
                                 support_copy *room_b);

/* Tiny queries.  The frame's inv = 1 / unit overflows once the extent is
 * below 2^-1023 (subnormal coordinates), and a world tolerance of 1e-12
 * times the shapes' size is itself subnormal below about 2^-960, so such a
 * query is answered on the same shapes scaled by a power of two 2^k: a
 * copy of the vertices (the only allocation of a query of convex shapes,
 * and only of one this small) and the pose, radii, tolerance and a warm
 * plane's offset, all scaled exactly.  The answer is the scaled query's,
 * each length and point scaled back by 2^-k with one rounding (to the
 * subnormal grid of 2^-1074 when it lands there).  support_tiny(f) says
 * whether f, the frame of a and b, is that small (one compare on the
 * common path); support_tiny_scale gives k (> 0), or 0 when radii of
 * 2^1022 times the extent leave no room to scale (the query then goes on
 * as it is); support_query_scaled(a, b, opt, k, query, r) runs query (the
 * caller itself) on the scaled shapes: query's code, CLASH_ENOMEM, or
 * CLASH_ERANGE when a scaled pose or radius overflows. */
#define SUPPORT_TINY_UNIT 0x1p-960
static inline int support_tiny(const support_pair_frame *f)
{
	return f->unit < SUPPORT_TINY_UNIT;
}
int support_tiny_scale(const support_pair_frame *f, const clash_shape *a, const clash_shape *b);
typedef int (*support_query_fn)(const clash_shape *a, const clash_shape *b,
                                const clash_options *opt, clash_result *r);
int support_query_scaled(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                         int k, support_query_fn query, clash_result *r);

/* The mean of four vertices spread over the array (first, a quarter, half
 * way, last; repeats for small counts), posed, in world coordinates: a
 * cheap stand-in for the centroid, to point a first support evaluation
 * (gjk's first direction, the LP's start). */
static inline void support_sample_centre(const clash_shape *s, double *c)
{
	const int n = s->dim;
	const size_t m1 = s->count >> 2, m2 = s->count >> 1, m3 = s->count - 1;
	const double *v = s->vertices;
	double m[CLASH_MAX_DIM];
	if (n == 3) { /* written out, the same arithmetic */
		const double *p1 = v + 3 * m1, *p2 = v + 3 * m2, *p3 = v + 3 * m3;
		m[0] = 0.25 * v[0] + 0.25 * p1[0] + 0.25 * p2[0] + 0.25 * p3[0];
		m[1] = 0.25 * v[1] + 0.25 * p1[1] + 0.25 * p2[1] + 0.25 * p3[1];
		m[2] = 0.25 * v[2] + 0.25 * p1[2] + 0.25 * p2[2] + 0.25 * p3[2];
	} else {
		for (int k = 0; k < n; k++)
			m[k] = 0.25 * v[k] + 0.25 * v[m1 * (size_t)n + k] +
			       0.25 * v[m2 * (size_t)n + k] + 0.25 * v[m3 * (size_t)n + k];
	}
	support_pose_point(s, m, c);
}

/* 2^e exactly, by its bits where it is a normal number, and the e of
 * frexp(x, &e) (x = f 2^e, 1/2 <= f < 1) for finite x > 0, by the bits of
 * a normal x: ldexp and frexp are calls into libm, several on every
 * query's set-up (the frame's power-of-two unit). */
static inline double support_pow2(int e)
{
	if (e < -1022 || e > 1023)
		return ldexp(1.0, e);
	uint64_t bits = (uint64_t)(e + 1023) << 52;
	double x;
	memcpy(&x, &bits, sizeof x);
	return x;
}

static inline int support_exponent(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int biased = (int)(bits >> 52) & 0x7ff;
	if (biased == 0 || biased == 0x7ff) {
		int e;
		frexp(x, &e);
		return e;
	}
	return biased - 1022;
}

/* The first search direction from guesses sa, sb of the shapes' centres
 * (GJK88 section VI starts from the centroids' difference): d = (sb - sa)/2
 * brought into [1/2, 1] by a power of two (exact, no division before the
 * first scan), or e_0 where the guesses coincide or are not finite (NaN is
 * left to the first scan's input check).  gjk's d0 and the LP's round-0
 * pricing direction. */
static inline void support_centre_direction(const double *sa, const double *sb, double *d, int n)
{
	double big = 0.0;
	for (int k = 0; k < n; k++) {
		d[k] = 0.5 * sb[k] - 0.5 * sa[k]; /* no overflow */
		big = fabs(d[k]) > big ? fabs(d[k]) : big;
	}
	if (!(big > 0.0) || !isfinite(big)) {
		for (int k = 0; k < n; k++)
			d[k] = 0.0;
		d[0] = 1.0;
		return;
	}
	const double s = support_pow2(-support_exponent(big));
	for (int k = 0; k < n; k++)
		d[k] *= s;
}

/* Bounding ball of a shape's hull in world coordinates (radius excluded):
 * the transformed centre of the vertices' bounding box and a radius that
 * covers every vertex.  Returns CLASH_ERANGE for non-finite data. */
int support_bounds(const clash_shape *s, double *center, double *radius);

/* support_bounds and, in the same pass over the vertices, the index of the
 * vertex extreme along world direction d (the first of the largest inner
 * products, as support_eval). */
int support_bounds_extreme(const clash_shape *s, const double *d, double *center, double *radius,
                           size_t *extreme);

/* Set up the map of shape s into the frame x_frame = (x_world - shift) * scale. */
void support_frame_init(support_frame *f, const clash_shape *s, const double *shift, double scale);

/* Whether support_frame_keep_copy keeps a copy for f: a 3-D shape of
 * vertices (no primitive), small enough (scan3_usable). */
static inline int support_frame_can_copy(const support_frame *f)
{
	return f->dim == 3 && !f->kind && scan3_usable(f->count);
}

/* f will be scanned many times from here on: when it can (above), f keeps
 * a copy of its vertices by coordinate in room, made by its next scan,
 * and its 3-D scans read that (the same vertices, bit for bit, four to a
 * load).  room must outlive f's scans.  Returns whether f keeps it;
 * nothing changes when f keeps room already. */
static inline int support_frame_keep_copy(support_frame *f, support_copy *room)
{
	if (f->copy == room)
		return 1;
	if (!support_frame_can_copy(f))
		return 0;
	scan3_start(room, 0);
	f->copy = room;
	return 1;
}

/* The same for a room that support_pair_frame_init_copy filled (or not)
 * with f's shape's vertices: f keeps the copy made there. */
static inline int support_frame_keep_pair_copy(support_frame *f, support_copy *room)
{
	if (!scan3_filled(room) && !support_frame_can_copy(f))
		return 0;
	f->copy = room;
	return 1;
}

/* f's scans from here on are mostly relative (support_eval_rel3): a copy
 * that f keeps is turned into one of v_i - v_0 by the next, so that the
 * others need not subtract v_0. */
static inline void support_frame_prefer_rel(const support_frame *f)
{
	if (f->copy)
		scan3_want_rel(f->copy);
}

/* Index of the vertex with the largest inner product with e (the first one
 * on ties, so answers are deterministic). */
size_t support_max_dot(const double *vertices, size_t count, int dim, const double *e);

/* support_max_dot for dim 3 scored by (v - v_0).e: exact to the shape's own
 * size rather than to its coordinates' magnitude (see epa.c,
 * shape_support); vertex 0 scores 0, the first of equals wins. */
size_t support_max_dot_rel3(const double *vertices, size_t count, const double *e);

/* support_point and support_eval are forced inline (GCC otherwise calls
 * them): the caller then reads the point's coordinates from registers.
 * Through memory, the callee's scalar stores followed by the caller's
 * 16-byte load of the same coordinates (y = a - b, vectorized) defeat
 * store-to-load forwarding, a stall of 10 or more cycles per support
 * point. */
#if defined(__GNUC__)
#define SUPPORT_HOT static inline __attribute__((always_inline))
#else
#define SUPPORT_HOT static inline
#endif

/* Frame coordinates of a point v given in a 3-D frame's local
 * coordinates (a vertex, or a primitive's support point). */
SUPPORT_HOT void support_map3(const support_frame *f, const double *v, double *x)
{
	if (!f->posed) {
		const double sc = f->scale;
		const double x0 = (v[0] - f->shift[0]) * sc, x1 = (v[1] - f->shift[1]) * sc,
			     x2 = (v[2] - f->shift[2]) * sc;
		x[0] = x0;
		x[1] = x1;
		x[2] = x2;
		return;
	}
	/* Into locals first: a store to x may alias f's members as far as
	 * the compiler knows, which would reload them. */
	const double *l = f->lin;
	const double v0 = v[0], v1 = v[1], v2 = v[2];
	const double x0 = f->off[0] + l[0] * v0 + l[3] * v1 + l[6] * v2;
	const double x1 = f->off[1] + l[1] * v0 + l[4] * v1 + l[7] * v2;
	const double x2 = f->off[2] + l[2] * v0 + l[5] * v1 + l[8] * v2;
	x[0] = x0;
	x[1] = x1;
	x[2] = x2;
}

/* Frame coordinates of vertex i of a 3-D frame: every support evaluation
 * and every LP column of the common case goes through here.  Split from
 * support_point so that a caller that knows the dimension is 3 (and the
 * compiler, which cannot tie that to f->dim) sees all of x written. */
SUPPORT_HOT void support_point3(const support_frame *f, size_t i, double *x)
{
	support_map3(f, f->vertices + 3 * i, x);
}

/* Frame coordinates of vertex i, any dimension. */
SUPPORT_HOT void support_point(const support_frame *f, size_t i, double *x)
{
	const int n = f->dim;
	if (n == 3) {
		support_point3(f, i, x);
		return;
	}
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

/* The direction in the shape's own coordinates for frame direction d of
 * a 3-D frame: L^T d when posed (written to e), else d itself.  Which
 * vertex is extreme is decided there, by every 3-D support evaluation. */
SUPPORT_HOT const double *support_local_dir3(const support_frame *f, const double *d, double *e)
{
	if (!f->posed)
		return d;
	const double *l = f->lin;
	e[0] = l[0] * d[0] + l[1] * d[1] + l[2] * d[2];
	e[1] = l[3] * d[0] + l[4] * d[1] + l[5] * d[2];
	e[2] = l[6] * d[0] + l[7] * d[1] + l[8] * d[2];
	return e;
}

/* The support point of a 3-D frame in frame direction d, scored by v.e
 * or (rel) by (v - v_0).e (see support_max_dot_rel3), from what f has: a
 * primitive's formula, the copy it keeps, a prepared shape's climb, or a
 * scan of the vertex array.  Returns the vertex index (0 for a primitive)
 * and writes the point's frame coordinates to x. */
SUPPORT_HOT size_t support_scan3(const support_frame *f, const double *d, double *x, const int rel)
{
	double e[3];
	size_t i;
	if (f->copy) { /* first: the scans of the queries that scan most */
		const double *u = support_local_dir3(f, d, e);
		i = rel ? scan3_max_dot_rel(f->copy, f->vertices, f->count, u)
		        : scan3_max_dot(f->copy, f->vertices, f->count, u);
	} else if (f->kind) {
		return support_primitive3(f, d, x);
	} else {
		const double *u = support_local_dir3(f, d, e);
		i = prepared_climbs(f->prep) ? prepared_climb(f->prep, u, rel, f->hint)
		    : rel                    ? support_max_dot_rel3(f->vertices, f->count, u)
		                             : support_max_dot(f->vertices, f->count, 3, u);
	}
	support_point3(f, i, x);
	return i;
}

/* support_eval (below) for a frame known to be 3-D, so that the
 * dimension is a constant to the compiler: GJK's, MPR's and the LP's
 * support steps. */
SUPPORT_HOT size_t support_eval3(const support_frame *f, const double *d, double *x)
{
	return support_scan3(f, d, x, 0);
}

/* The relative scan: EPA's support steps (exact to the shape's own size
 * rather than to its coordinates' magnitude; see epa.c, shape_support). */
SUPPORT_HOT size_t support_eval_rel3(const support_frame *f, const double *d, double *x)
{
	return support_scan3(f, d, x, 1);
}

/* The support point of the shape in frame direction d: returns its vertex
 * index and writes its frame coordinates to x.  A pose x = L v + t turns d
 * into the local direction L^T d (a positive scale does not change which
 * vertex is extreme). */
SUPPORT_HOT size_t support_eval(const support_frame *f, const double *d, double *x)
{
	const int n = f->dim;
	if (n == 3)
		return support_eval3(f, d, x);
	size_t i;
	if (!f->posed) {
		i = prepared_climbs(f->prep) ? prepared_climb(f->prep, d, 0, f->hint)
		                             : support_max_dot(f->vertices, f->count, n, d);
	} else {
		double e[CLASH_MAX_DIM];
		for (int k = 0; k < n; k++) {
			double s = 0.0;
			for (int r = 0; r < n; r++)
				s += f->lin[k * n + r] * d[r]; /* (L^T d)_k = column k . d */
			e[k] = s;
		}
		i = support_max_dot(f->vertices, f->count, n, e);
	}
	support_point(f, i, x);
	return i;
}

#endif
