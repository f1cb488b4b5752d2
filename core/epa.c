/*
 * epa.c — penetration depth by the Expanding Polytope Algorithm (see epa.h).
 *
 * The starting simplex is GJK's final one (GJK88 section VI: when the hulls
 * intersect, the last Y_s holds the origin; eq. (32) bounds the depth from
 * it).  EPA itself is G. van den Bergen's Expanding Polytope Algorithm
 * ("Proximity Queries and Penetration Depth Computation on 3D Game
 * Objects", GDC 2001; "Collision Detection in Interactive 3D Environments",
 * 2003), which is beyond the project's seed papers; the recursive horizon
 * walk over face adjacency follows Bullet's btGjkEpa2 (zlib licence).
 *
 * It keeps a polytope P inside K = A - B that holds the origin, takes P's
 * nearest face, and stops when K's support point along that face's normal
 * shows the face on K's boundary; otherwise that point replaces the faces
 * it sees.  It is made robust where EPA implementations (libccd's, FCL's,
 * Bullet's) are known to fail: flat starting simplices, faces through the
 * origin, expansions that would break P, coplanar facets, small shapes far
 * from the origin.  How, and why it ends: docs/design.md, "core/epa.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "epa.h"
#include "lanes.h"
#include "vec.h"

/* The fixed block on the caller's stack: room for the vertices of
 * CLASH_EPA_FIXED_EXPANSIONS expansions (one each) and the starting
 * simplex, and for the faces (2V - 4 on a closed triangulated polytope of
 * V vertices). */
#define EPA_FIXED_VERTICES (CLASH_EPA_FIXED_EXPANSIONS + EPA_MAX_DIM + 2)

/* A point within this many ulps of the scale of K from a face's plane is
 * on it: rounding cannot tell which side it is on. */
#define EPA_PLANE_ULPS 64.0

/* A face (or edge) whose normal is this close to rounding noise relative to
 * its edges is degenerate. */
#define EPA_FLAT_ULPS 16.0

/* Past this many faces the nearest one is kept in a heap, and past this
 * many vertices the known ones in a hash set: below, one scan is quicker;
 * above, a scan per expansion makes a long search quadratic (identical
 * hulls of 16 000 vertices: half the time in these two scans).  Either
 * way the same face and verdict (build with -DEPA_HEAP_FROM=1
 * -DEPA_HASH_FROM=0 to compare). */
#ifndef EPA_HEAP_FROM
#define EPA_HEAP_FROM 256
#endif
#ifndef EPA_HASH_FROM
#define EPA_HASH_FROM 64
#endif

/* A 3-D search still going after EPA_PREPARE_AFTER expansions prepares
 * each shape of EPA_PREPARE_FROM vertices or more that came unprepared
 * (prepare_long): from then on its support points are found by hill
 * climbing, the same vertex as the scan's (prepared.h).  Preparing costs
 * about as many scans as EPA_PREPARE_AFTER; identical hulls of n
 * vertices take about 1.6 n expansions.  Build with
 * -DEPA_PREPARE_FROM=0x7fffffff to compare: the same bytes either way. */
#ifndef EPA_PREPARE_FROM
#define EPA_PREPARE_FROM 2048
#endif
#ifndef EPA_PREPARE_AFTER
#define EPA_PREPARE_AFTER 2048
#endif

/* The most expansions a search may take whatever the shapes (an int
 * with room to spare; 2^26 expansions would need some 23 GB). */
#define EPA_MOST_EXPANSIONS (1 << 26)

/* (k + 1) mod 3, without the division. */
static const int epa_next3[3] = {1, 2, 0};

/* A triangle of the 3-D polytope.  Seen from outside, v[0], v[1], v[2] run
 * counter-clockwise, so n = (v1 - v0) x (v2 - v0) / |..| points out. */
typedef struct epa_face {
	double n[3];
	double d; /* n . x on the face: the origin's distance to its plane */
	int v[3];
	int adj[3];                /* the face across edge k = (v[k], v[k+1]) */
	unsigned char adj_edge[3]; /* that edge's index in adj[k] */
	unsigned pass;             /* last expansion that found it visible */
} epa_face;

typedef double epa_vec2[2];

/* The polytope's arrays, for room for V vertices and 2V faces: type, name,
 * length.  They live in one block: the fixed one on the caller's stack,
 * or, once an expansion finds it full, each array on the heap (grow). */
/* clang-format off */
#define EPA_ARRAYS(X, V)                                                                  \
	X(epa_vertex, v, V) X(epa_face, f, 2 * (V)) X(double, fd, 2 * (V))                    \
	X(double, vc[0], V) X(double, vc[1], V) X(double, vc[2], V) X(epa_vec2, en, V)        \
	X(double, ed, V) X(int, freed, 2 * (V)) X(int, vis, 2 * (V)) X(int, hz_face, V)       \
	X(int, hz_s, V) X(int, hz_t, V) X(int, nfs, (V) + 3) X(int, walk_face, 4 * (V) + 3) \
	X(int, next, V) X(int, prev, V) X(unsigned, vmark, V) X(unsigned char, hz_edge, V)  \
	X(unsigned char, walk_edge, 4 * (V) + 3)
/* clang-format on */
#define EPA_ROUND8(b) (((b) + 7) & ~(size_t)7)
#define EPA_ARRAY_BYTES(T, name, n) +EPA_ROUND8(sizeof(T) * (size_t)(n))
#define EPA_BYTES(V) ((size_t)0 EPA_ARRAYS(EPA_ARRAY_BYTES, V))

/* A face in the heap: its distance when pushed, and its slot. */
typedef struct epa_hent {
	double d;
	int i;
} epa_hent;

typedef struct epa_poly {
	const support_frame *fa, *fb;
	int dim;
	double tol;   /* convergence tolerance (frame units) */
	double scale; /* the largest |y| seen: the size of K */
	double eps;   /* EPA_PLANE_ULPS ulps of scale */
	epa_vertex *v;
	int nv;
	int cap;     /* room for cap vertices (and 2 cap faces) */
	int need;    /* the most vertices the expansion cap can ask for */
	int on_heap; /* the arrays are each on the heap, not in the fixed block */
	const volatile int *cancel;
	int err;        /* CLASH_ENOMEM or CLASH_ECANCELED: no answer */
	int seed_as_is; /* p->v[0..dim] are the seed's points, none probed */
	/* The best upper bound h_K(u) over the directions u tried. */
	int have_best;
	double best_h;
	double best_n[EPA_MAX_DIM];
	epa_vertex best_w;

	/* 3-D: faces, the free slots, and the scratch of one expansion. */
	epa_face *f;
	/* f[i].d of the live faces, +inf for free slots: the nearest face
	 * by a scan of one array. */
	double *fd;
	int nf;
	int *freed;
	int nfreed;
	unsigned pass;
	int *vis;
	int nvis;
	/* Horizon edge i: edge hz_edge[i] of the unseen face hz_face[i], from
	 * vertex hz_t[i] to hz_s[i] (the new face on it runs s to t). */
	int *hz_face;
	unsigned char *hz_edge;
	int *hz_s, *hz_t;
	int nhz, hz_overflow;
	int *nfs;       /* an expansion's new faces */
	int *walk_face; /* walk's stack */
	unsigned char *walk_edge;
	unsigned *vmark;
	/* v[i].y by coordinate, vc[k][i] = v[i].y[k]: face_planes
	 * gathers its lanes by index. */
	double *vc[3];

	/* 2-D: the polygon as a ring, counter-clockwise; edge i runs from
	 * vertex i to next[i] with outward normal en[i] and distance ed[i]. */
	int *next, *prev;
	epa_vec2 *en;
	double *ed;
	int head;

	/* Large polytopes (malloc'd when first needed; NULL before, or when
	 * that failed: then the scans serve).  fh: a binary heap of the live
	 * faces by (d, slot), stale entries (a face gone, its slot reused
	 * with another d) dropped when they come to the top.  vh: open
	 * addressing over the vertices v[0 .. nhashed-1], -1 for empty. */
	epa_hent *fh;
	int nfh, fh_cap;
	int fh_on; /* 1: the heap serves; 0: not yet; -1: no room for it */
	int *vh;
	size_t vh_size;
	int nhashed;

	/* Shapes prepared by prepare_long: the frames as given with the
	 * preparation added (fa or fb then points here), their climbs'
	 * hints, and the preparations' storage (malloc'd, or NULL). */
	support_frame own[2];
	size_t own_hint[2];
	void *own_prep[2];
} epa_poly;

/* Point p's arrays into the block at base, of room for cap vertices. */
static void bind_arrays(epa_poly *p, unsigned char *base, int cap)
{
	size_t at = 0;
#define EPA_BIND(T, name, n)                \
	p->name = (T *)(void *)(base + at); \
	at += EPA_ROUND8(sizeof(T) * (size_t)(n));
	EPA_ARRAYS(EPA_BIND, cap)
#undef EPA_BIND
	p->cap = cap;
}

/* Twice the room (no more than p->need), every array on the heap: moved
 * out of the fixed block the first time, then grown by realloc, which for
 * a large array moves its pages instead of copying them (glibc), so a
 * long search holds about what its polytope needs rather than twice
 * that while it grows.  CLASH_ENOMEM in p->err when memory runs out (the
 * arrays then keep at least their old room). */
static int grow(epa_poly *p)
{
	const int cap = p->cap > p->need / 2 ? p->need : 2 * p->cap;
	assert(cap > p->nv);
	int c;
	if (!p->on_heap) {
		epa_poly old = *p;
		int ok = 1;
		c = cap;
#define EPA_ALLOC(T, name, n) ok = ok && (p->name = malloc(sizeof(T) * (size_t)(n))) != NULL;
		EPA_ARRAYS(EPA_ALLOC, c)
#undef EPA_ALLOC
		if (!ok) {
#define EPA_UNDO(T, name, n)     \
	if (p->name != old.name) \
		free(p->name);   \
	p->name = old.name;
			EPA_ARRAYS(EPA_UNDO, c)
#undef EPA_UNDO
			p->err = CLASH_ENOMEM;
			return 0;
		}
		c = p->cap;
#define EPA_MOVE(T, name, n) memcpy(p->name, old.name, sizeof(T) * (size_t)(n));
		EPA_ARRAYS(EPA_MOVE, c)
#undef EPA_MOVE
		p->on_heap = 1;
	} else {
		c = cap;
#define EPA_REALLOC(T, name, n)                                      \
	{                                                            \
		T *more = realloc(p->name, sizeof(T) * (size_t)(n)); \
		if (!more) {                                         \
			p->err = CLASH_ENOMEM;                       \
			return 0;                                    \
		}                                                    \
		p->name = more;                                      \
	}
		EPA_ARRAYS(EPA_REALLOC, c)
#undef EPA_REALLOC
	}
	p->cap = cap;
	return 1;
}

/* The arrays' heap storage, when they have moved there. */
static void free_arrays(epa_poly *p)
{
	if (!p->on_heap)
		return;
#define EPA_FREE(T, name, n) free(p->name);
	EPA_ARRAYS(EPA_FREE, 0)
#undef EPA_FREE
	p->on_heap = 0;
}

/* Lengths here are plain square roots of inner products, not vec_norm's
 * overflow-proof scaling (whose divisions dominated the cost of a face):
 * the query's frame scales the scene to about 1, so no square overflows,
 * and one that underflows belongs to a degenerate face, rejected as such. */
static double len(const double *x, int n)
{
	return sqrt(vec_dot(x, x, n));
}

static void grow_scale(epa_poly *p, const double *y)
{
	double s = len(y, p->dim);
	if (s > p->scale) {
		p->scale = s;
		p->eps = EPA_PLANE_ULPS * DBL_EPSILON * s;
	}
}

/* The support point of one shape in frame direction d, like support_eval
 * but with the vertices compared by (v - v0).e, v0 the first vertex and e
 * the direction in the vertices' own coordinates.  v.e carries the rounding
 * of the coordinates' magnitude: for a small shape given 1e5 away from the
 * origin that is ~1e-11, far above the tolerance, and the vertex it picks
 * may fall short of the true support by as much, which would let the
 * convergence test pass early.  The differences are exact to the shape's
 * own size, and cost one subtraction per coordinate.  1-D and 2-D here;
 * 3-D by support_eval_rel3 (support.h). */
static size_t shape_support(const support_frame *f, const double *d, double *x)
{
	const int n = f->dim;
	assert(n <= 2); /* 3-D: support_eval_rel3 */
	double e[EPA_MAX_DIM];
	for (int k = 0; k < n; k++)
		e[k] = f->posed ? vec_dot(f->lin + k * n, d, n) : d[k];
	const double *v = f->vertices;
	size_t best = 0;
	double bv = 0.0; /* vertex 0 scores 0; the first wins ties, as in support_eval */
	if (n == 2) {
		const double x0 = v[0], y0 = v[1], e0 = e[0], e1 = e[1];
		for (size_t i = 1; i < f->count; i++) {
			const double *q = v + 2 * i;
			double s = (q[0] - x0) * e0 + (q[1] - y0) * e1;
			if (s > bv) {
				bv = s;
				best = i;
			}
		}
	} else {
		for (size_t i = 1; i < f->count; i++) {
			double s = (v[i] - v[0]) * e[0];
			if (s > bv) {
				bv = s;
				best = i;
			}
		}
	}
	support_point(f, best, x);
	return best;
}

/* probe for dim 3: the points through locals (registers), each stored
 * once. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double
probe3(epa_poly *p, const double *d, epa_vertex *w)
{
	const double d0 = d[0], d1 = d[1], d2 = d[2];
	const double nd[3] = {-d0, -d1, -d2};
	double a[3], b[3];
	const size_t ia = support_eval_rel3(p->fa, d, a);
	const size_t ib = support_eval_rel3(p->fb, nd, b);
	const double y0 = a[0] - b[0], y1 = a[1] - b[1], y2 = a[2] - b[2];
	const double h = y0 * d0 + y1 * d1 + y2 * d2;
	w->ia = ia;
	w->ib = ib;
	w->y[0] = y0;
	w->y[1] = y1;
	w->y[2] = y2;
	w->a[0] = a[0];
	w->a[1] = a[1];
	w->a[2] = a[2];
	w->b[0] = b[0];
	w->b[1] = b[1];
	w->b[2] = b[2];
	if (!p->have_best || h < p->best_h) {
		p->have_best = 1;
		p->best_h = h;
		p->best_n[0] = d0;
		p->best_n[1] = d1;
		p->best_n[2] = d2;
		p->best_w = *w;
	}
	return h;
}

/* The support point of K in direction d (unit), remembered as an upper
 * bound on the depth when it is the best so far.  Returns h_K(d) = d.w. */
static double probe(epa_poly *p, const double *d, epa_vertex *w)
{
	const int n = p->dim;
	if (n == 3)
		return probe3(p, d, w);
	double nd[EPA_MAX_DIM] = {0};
	for (int k = 0; k < n; k++)
		nd[k] = -d[k];
	w->ia = shape_support(p->fa, d, w->a);
	w->ib = shape_support(p->fb, nd, w->b);
	vec_sub(w->y, w->a, w->b, n);
	double h = vec_dot(w->y, d, n);
	if (!p->have_best || h < p->best_h) {
		p->have_best = 1;
		p->best_h = h;
		vec_copy(p->best_n, d, n);
		p->best_w = *w;
	}
	return h;
}

/* Whether x and w are one vertex of P.  A primitive's support points all
 * have index 0: its points are told apart by their coordinates. */
static int same_vertex(const epa_vertex *x, const epa_vertex *w, int by_point)
{
	return x->ia == w->ia && x->ib == w->ib &&
	       (!by_point || (x->a[0] == w->a[0] && x->a[1] == w->a[1] && x->a[2] == w->a[2] &&
	                      x->b[0] == w->b[0] && x->b[1] == w->b[1] && x->b[2] == w->b[2]));
}

/* A hash of what same_vertex compares (-0 and +0 alike, as == has them). */
static size_t vertex_hash(const epa_vertex *w, int by_point)
{
	uint64_t h = (uint64_t)w->ia * 0x9e3779b97f4a7c15u ^ (uint64_t)w->ib * 0xc2b2ae3d27d4eb4fu;
	for (int k = 0; by_point && k < 3; k++) {
		double c[2] = {w->a[k] == 0.0 ? 0.0 : w->a[k], w->b[k] == 0.0 ? 0.0 : w->b[k]};
		uint64_t u[2];
		memcpy(u, c, sizeof u);
		h = (h ^ u[0]) * 0x100000001b3u;
		h = (h ^ u[1]) * 0x100000001b3u;
	}
	return (size_t)(h ^ h >> 29);
}

/* v[nhashed .. nv-1] into the hash set, made (again) twice as large as it
 * must be when it is missing or half full; 0 when there is no room. */
static int hash_vertices(epa_poly *p, int by_point)
{
	if (p->vh == NULL || 2 * (size_t)p->nv > p->vh_size) {
		size_t size = 64;
		while (size < 4 * (size_t)p->nv)
			size *= 2;
		int *vh = malloc(size * sizeof *vh);
		if (!vh)
			return 0;
		free(p->vh);
		p->vh = vh;
		p->vh_size = size;
		p->nhashed = 0;
		memset(vh, 0xff, size * sizeof *vh);
	}
	for (; p->nhashed < p->nv; p->nhashed++) {
		size_t k = vertex_hash(&p->v[p->nhashed], by_point) & (p->vh_size - 1);
		while (p->vh[k] >= 0)
			k = (k + 1) & (p->vh_size - 1);
		p->vh[k] = p->nhashed;
	}
	return 1;
}

static int has_vertex(epa_poly *p, const epa_vertex *w)
{
	const int by_point = p->fa->kind || p->fb->kind;
	if (p->nv >= EPA_HASH_FROM && hash_vertices(p, by_point)) {
		size_t k = vertex_hash(w, by_point) & (p->vh_size - 1);
		for (; p->vh[k] >= 0; k = (k + 1) & (p->vh_size - 1))
			if (same_vertex(&p->v[p->vh[k]], w, by_point))
				return 1;
		return 0;
	}
	for (int i = 0; i < p->nv; i++)
		if (same_vertex(&p->v[i], w, by_point))
			return 1;
	return 0;
}

/* ---- answers --------------------------------------------------------------- */

static double probe(epa_poly *p, const double *d, epa_vertex *w);

/* The fallback: the best direction tried.  Moving b by h_K(u) along u
 * parts the hulls whatever P looked like, so this is a sound upper bound.
 * A search that stopped before trying any (a seed simplex taken whole,
 * found flat by the polyhedron's first planes) tries the axes first. */
static void answer_best(epa_poly *p, epa_answer *out)
{
	const int n = p->dim;
	const int had_best = p->have_best;
	for (int k = 0; k < 2 * n && !had_best; k++) {
		double d[EPA_MAX_DIM] = {0};
		epa_vertex w;
		d[k / 2] = k % 2 ? -1.0 : 1.0;
		probe(p, d, &w); /* keeps the least h */
	}
	assert(p->have_best);
	out->converged = 0;
	out->depth = fmax(p->best_h, 0.0);
	vec_copy(out->normal, p->best_n, n);
	vec_copy(out->pa, p->best_w.a, n);
	for (int k = 0; k < n; k++)
		out->pb[k] = out->pa[k] - out->depth * out->normal[k];
}

/* The shapes touch: K has no room beyond the origin along d (h <= tol). */
static void answer_touch(const epa_poly *p, double h, const double *d, const double *ca,
                         const double *cb, epa_answer *out)
{
	const int n = p->dim;
	out->converged = 1;
	out->depth = fmax(h, 0.0);
	vec_copy(out->normal, d, n);
	vec_copy(out->pa, ca, n);
	vec_copy(out->pb, cb, n);
}

/* The converged answer on a face with vertex weights lambda (>= 0, sum 1):
 * the nearest point of the face is lambda . y, made of lambda . a on A's
 * surface and lambda . b on B's. */
static void answer_weights(const epa_poly *p, const int *vi, const double *lambda, int m,
                           const double *normal, double d, epa_answer *out)
{
	const int n = p->dim;
	out->converged = 1;
	out->depth = fmax(d, 0.0);
	vec_copy(out->normal, normal, n);
	vec_zero(out->pa, n);
	vec_zero(out->pb, n);
	for (int i = 0; i < m; i++) {
		vec_axpy(out->pa, lambda[i], p->v[vi[i]].a, n);
		vec_axpy(out->pb, lambda[i], p->v[vi[i]].b, n);
	}
}

/* ---- the starting simplex ------------------------------------------------------ */

/* Remove from u its components along the orthonormal q[0..m-1], twice
 * (Kahan-Parlett, as in simplex.c); returns what is left of |u|. */
static double orthogonalize(double *u, double q[][EPA_MAX_DIM], int m, int n)
{
	for (int pass = 0; pass < 2; pass++)
		for (int l = 0; l < m; l++)
			vec_axpy(u, -vec_dot(q[l], u, n), q[l], n);
	return len(u, n);
}

/* A unit vector orthogonal to q[0..m-1], m < n: the coordinate axis
 * farthest from their span, orthogonalized. */
static void complement(double q[][EPA_MAX_DIM], int m, int n, double *d)
{
	double best = -1.0;
	for (int k = 0; k < n; k++) {
		double u[EPA_MAX_DIM] = {0};
		u[k] = 1.0;
		double l = orthogonalize(u, q, m, n);
		if (l > best) {
			best = l;
			vec_copy(d, u, n);
		}
	}
	assert(best > 0.5 / EPA_MAX_DIM); /* some axis is that far off an (n-1)-space */
	vec_scale(d, 1.0 / best, n);
}

/* Put a full simplex of K's points around the origin into p->v[0..dim]:
 * GJK's points that are affinely independent, then, while the simplex is
 * flat, the support point on whichever side of it K reaches farther.
 * Returns 1 when that already answered (the hulls touch, or a degenerate
 * K), 0 when the simplex is ready. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
seed_simplex(epa_poly *p, const epa_vertex *in, int nin, const double *ca, const double *cb,
             epa_answer *out)
{
	const int n = p->dim;
	double q[EPA_MAX_DIM][EPA_MAX_DIM];
	int m = 0;
	for (int i = 0; i < nin; i++)
		grow_scale(p, in[i].y);
	if (n == 3 && nin == 4) {
		/* GJK's full simplex (every intersecting query's) passes the
		 * test below point by point when its volume is far above
		 * rounding: with e_i = y_i - y_0 (as rounded there too), the
		 * distances l_1 = |e_1|, l_2 of e_2 from e_1's line and l_3 of
		 * e_3 from their plane multiply to |det(e_1, e_2, e_3)|, and
		 * each is at most |e_i| <= 2 scale, so each is at least |det| /
		 * (4 scale^2).  |det| > 16 eps scale^2 (the rounding of the
		 * triple product, ~40 ulps of scale^3, counted in) makes every
		 * l_i exceed 3 eps, beyond the Gram-Schmidt's rounding (tens of
		 * ulps of scale against eps = 64), so the test would keep all
		 * four: keep them without it. */
		double e1[3], e2[3], e3[3], c[3];
		vec_sub(e1, in[1].y, in[0].y, 3);
		vec_sub(e2, in[2].y, in[0].y, 3);
		vec_sub(e3, in[3].y, in[0].y, 3);
		vec3_cross(c, e2, e3);
		if (fabs(vec_dot(e1, c, 3)) > 16.0 * p->eps * p->scale * p->scale) {
			for (int i = 0; i < 4; i++)
				p->v[i] = in[i];
			p->nv = 4;
			p->seed_as_is = 1;
			return 0;
		}
	}
	p->nv = 0;
	for (int i = 0; i < nin && p->nv <= n; i++) {
		if (p->nv > 0) {
			double u[EPA_MAX_DIM];
			vec_sub(u, in[i].y, p->v[0].y, n);
			double l = orthogonalize(u, q, m, n);
			if (!(l > p->eps))
				continue; /* dependent within rounding */
			vec_scale(u, 1.0 / l, n);
			vec_copy(q[m++], u, n);
		}
		p->v[p->nv++] = in[i];
	}
	p->seed_as_is = p->nv == n + 1;
	while (p->nv < n + 1) {
		double d[EPA_MAX_DIM], md[EPA_MAX_DIM];
		complement(q, m, n, d);
		for (int k = 0; k < n; k++)
			md[k] = -d[k];
		/* The origin is in K (within tol), so the depth lies in
		 * [0, min(hp, hm)]: no room along +d or -d means touching.
		 * When the shapes touch, K lies on one side of the simplex's
		 * plane, and any point of K off the plane tells which: take
		 * a0 - b0 (the first vertices'), and probe the other side
		 * first; when it has no room, that is the answer, without the
		 * second probe.  (Both sides within tol, a K flat to tol, may
		 * then answer either: each is a depth within tol.) */
		double a0[EPA_MAX_DIM] = {0}, b0[EPA_MAX_DIM] = {0};
		support_point(p->fa, 0, a0);
		support_point(p->fb, 0, b0);
		double side = vec_dot(a0, d, n) - vec_dot(b0, d, n) - vec_dot(p->v[0].y, d, n);
		int minus_first = side > 0.0;
		/* Probe k = 0 is along d, k = 1 along -d; the first probed is
		 * the side told above. */
		const double *dir[2] = {d, md};
		epa_vertex w2[2];
		double h2[2];
		for (int t = 0; t < 2; t++) {
			int k = t ^ minus_first;
			h2[k] = probe(p, dir[k], &w2[k]);
			grow_scale(p, w2[k].y);
			if (t == 0 && h2[k] <= fmax(p->tol, p->eps)) {
				answer_touch(p, h2[k], dir[k], ca, cb, out);
				return 1;
			}
		}
		const double hp = h2[0], hm = h2[1];
		const epa_vertex *wp = &w2[0], *wm = &w2[1];
		if (fmin(hp, hm) <= fmax(p->tol, p->eps)) {
			if (hp <= hm)
				answer_touch(p, hp, d, ca, cb, out);
			else
				answer_touch(p, hm, md, ca, cb, out);
			return 1;
		}
		/* The simplex's affine hull is c = v0.d along d; K reaches hp - c
		 * beyond it on one side and hm + c on the other. */
		double c = vec_dot(p->v[0].y, d, n);
		const epa_vertex *w = hp - c >= hm + c ? wp : wm;
		double u[EPA_MAX_DIM];
		vec_sub(u, w->y, p->v[0].y, n);
		double l = orthogonalize(u, q, m, n);
		if (!(l > p->eps)) {
			/* Both sides reach past tol yet neither leaves the hull:
			 * only rounding does that.  Say so. */
			answer_best(p, out);
			return 1;
		}
		vec_scale(u, 1.0 / l, n);
		vec_copy(q[m++], u, n);
		p->v[p->nv++] = *w;
	}
	return 0;
}

/* ---- 2-D: a polygon ---------------------------------------------------------- */

/* Outward normal and distance of the edge from vertex i to vertex j of a
 * counter-clockwise polygon; 0 if the edge is too short to have one. */
static int edge_plane(const epa_poly *p, int i, int j, double *nrm, double *d)
{
	const double *x = p->v[i].y, *y = p->v[j].y;
	double e[2] = {y[0] - x[0], y[1] - x[1]};
	double l = len(e, 2);
	if (!(l > p->eps))
		return 0;
	nrm[0] = e[1] / l;
	nrm[1] = -e[0] / l;
	*d = 0.5 * vec_dot(nrm, x, 2) + 0.5 * vec_dot(nrm, y, 2);
	return 1;
}

static int set_edge(epa_poly *p, int i, int j)
{
	double nrm[2], d;
	if (!edge_plane(p, i, j, nrm, &d) || d < -(p->tol + p->eps))
		return 0;
	p->next[i] = j;
	p->prev[j] = i;
	p->en[i][0] = nrm[0];
	p->en[i][1] = nrm[1];
	p->ed[i] = d;
	return 1;
}

static int init_polygon(epa_poly *p)
{
	double e1[2], e2[2];
	vec_sub(e1, p->v[1].y, p->v[0].y, 2);
	vec_sub(e2, p->v[2].y, p->v[0].y, 2);
	double area = e1[0] * e2[1] - e1[1] * e2[0];
	int b = area > 0.0 ? 1 : 2, c = 3 - b; /* counter-clockwise 0, b, c */
	p->head = 0;
	return set_edge(p, 0, b) && set_edge(p, b, c) && set_edge(p, c, 0);
}

static int visible_edge(const epa_poly *p, int i, const double *w)
{
	return vec_dot(p->en[i], w, 2) - p->ed[i] > -p->eps;
}

/* Replace the chain of edges that w sees, which includes edge i, by the two
 * edges to and from w.  Returns 0, changing nothing, if that would not
 * leave a proper polygon around the origin. */
static int expand_polygon(epa_poly *p, int i, const epa_vertex *w)
{
	int l = i, r = p->next[i];
	while (visible_edge(p, p->prev[l], w->y)) {
		l = p->prev[l];
		if (l == r)
			return 0; /* w sees every edge: the origin is not inside */
	}
	while (visible_edge(p, r, w->y)) {
		r = p->next[r];
		if (r == l)
			return 0;
	}
	if (p->nv >= p->cap)
		return 0;
	int wi = p->nv;
	p->v[wi] = *w;
	double n1[2], d1, n2[2], d2;
	if (!edge_plane(p, l, wi, n1, &d1) || !edge_plane(p, wi, r, n2, &d2) ||
	    d1 < -(p->tol + p->eps) || d2 < -(p->tol + p->eps))
		return 0;
	p->nv++;
	grow_scale(p, w->y);
	p->next[l] = wi;
	p->prev[wi] = l;
	p->next[wi] = r;
	p->prev[r] = wi;
	p->en[l][0] = n1[0];
	p->en[l][1] = n1[1];
	p->ed[l] = d1;
	p->en[wi][0] = n2[0];
	p->en[wi][1] = n2[1];
	p->ed[wi] = d2;
	p->head = l;
	return 1;
}

/* How far x lies beyond the ends of edge e (0 within it), and where along
 * it (t in [0, 1] within). */
static double edge_outside(const epa_poly *p, int e, const double *x, double *t)
{
	const double *y0 = p->v[e].y, *y1 = p->v[p->next[e]].y;
	double d[2], o[2];
	vec_sub(d, y1, y0, 2);
	vec_sub(o, x, y0, 2);
	double dd = vec_dot(d, d, 2);
	*t = dd > 0.0 ? vec_dot(o, d, 2) / dd : 0.5;
	return *t < 0.0 ? -*t * sqrt(dd) : *t > 1.0 ? (*t - 1.0) * sqrt(dd) : 0.0;
}

/* The converged answer on edge i: the projection x = d n of the origin,
 * found on a collinear neighbour edge when it falls beyond i's ends (K's
 * edge may be split at points of P, as its facets are in 3-D). */
static void answer_edge(const epa_poly *p, int i, epa_answer *out)
{
	double x[2], t;
	for (int k = 0; k < 2; k++)
		x[k] = p->ed[i] * p->en[i][k];
	int e = i;
	double out_e = edge_outside(p, e, x, &t);
	for (int steps = 0; steps <= p->nv && out_e > 0.0; steps++) {
		int nb = t < 0.0 ? p->prev[e] : p->next[e];
		double tn, out_n = edge_outside(p, nb, x, &tn);
		if (!(vec_dot(p->en[nb], x, 2) - p->ed[nb] >= -p->tol) || !(out_n < out_e))
			break; /* not a collinear neighbour holding x */
		e = nb;
		t = tn;
		out_e = out_n;
	}
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	int vi[2] = {e, p->next[e]};
	double lambda[2] = {1.0 - t, t};
	answer_weights(p, vi, lambda, 2, p->en[i], p->ed[i], out);
}

/* Before expansion it (not converged): stop at the caller's request, or
 * make room for the vertex to come.  0 with p->err set: no answer. */
static int go_on(epa_poly *p, int it, int max_iterations)
{
	if (cancel_requested(p->cancel)) {
		p->err = CLASH_ECANCELED;
		return 0;
	}
	return p->nv < p->cap || it >= max_iterations || grow(p);
}

static void run_polygon(epa_poly *p, int max_iterations, epa_answer *out)
{
	if (!init_polygon(p)) {
		answer_best(p, out);
		return;
	}
	for (int it = 1;; it++) {
		int best = p->head, i = p->next[p->head];
		while (i != p->head) {
			if (p->ed[i] < p->ed[best])
				best = i;
			i = p->next[i];
		}
		epa_vertex w;
		double h = probe(p, p->en[best], &w);
		out->iterations = it;
		if (h - p->ed[best] <= p->tol) {
			answer_edge(p, best, out);
			return;
		}
		if (!go_on(p, it, max_iterations))
			return;
		if (it >= max_iterations || has_vertex(p, &w) || !expand_polygon(p, best, &w)) {
			answer_best(p, out);
			return;
		}
	}
}

/* ---- 3-D: a triangulated polyhedron ----------------------------------------------- */

/* The planes of the faces fi[0..m-1] into n, d and fd (fi padded to a
 * multiple of 4 by repeating its last face): each the outward unit normal
 * of the cross product of its two shorter edges, 0 if one is too thin to
 * have one (lanes.h); 0 too when one lies beyond the origin by more than
 * -low.  w: the faces' common third vertex (p->v[f->v[2]].y), or NULL. */
_Static_assert(offsetof(epa_face, d) == 3 * sizeof(double), "n and d are one row of four");
_Static_assert(offsetof(epa_face, v) == LANES_FACE_V, "the vertices follow the plane");
static int face_planes(epa_poly *p, const int *fi, int m, double low, const double *w)
{
	return lanes_face_planes((const double *const *)p->vc, (char *)(void *)p->f,
	                         sizeof(epa_face), fi, m, EPA_FLAT_ULPS * DBL_EPSILON, low, w,
	                         p->fd);
}

/* Heap order: the nearer face first, the lower slot of equals (as
 * lanes_first_min picks them: -0 and +0 are equal). */
static int hent_before(const epa_hent *x, const epa_hent *y)
{
	return x->d < y->d || (x->d == y->d && x->i < y->i);
}

static void heap_down(epa_hent *h, int n, int k)
{
	for (;;) {
		int c = 2 * k + 1;
		if (c >= n)
			return;
		if (c + 1 < n && hent_before(&h[c + 1], &h[c]))
			c++;
		if (!hent_before(&h[c], &h[k]))
			return;
		epa_hent t = h[k];
		h[k] = h[c];
		h[c] = t;
		k = c;
	}
}

/* The heap made afresh from the live faces, with room for as many again;
 * when there is no room, the scan serves from here on (fh_on -1). */
static void heap_build(epa_poly *p)
{
	const int want = 4 * p->nf + 16;
	if (want > p->fh_cap) {
		epa_hent *h = realloc(p->fh, (size_t)want * sizeof *h);
		if (!h) {
			p->fh_on = -1;
			return;
		}
		p->fh = h;
		p->fh_cap = want;
	}
	p->nfh = 0;
	for (int i = 0; i < p->nf; i++)
		if (p->fd[i] < INFINITY)
			p->fh[p->nfh++] = (epa_hent){p->fd[i], i};
	for (int k = p->nfh / 2 - 1; k >= 0; k--)
		heap_down(p->fh, p->nfh, k);
	p->fh_on = 1;
}

/* Face i has its plane: into the heap, when there is one. */
static void heap_push(epa_poly *p, int i)
{
	if (p->fh_on != 1)
		return;
	if (p->nfh == p->fh_cap) {
		heap_build(p); /* face i included */
		return;
	}
	int k = p->nfh++;
	p->fh[k] = (epa_hent){p->fd[i], i};
	while (k > 0 && hent_before(&p->fh[k], &p->fh[(k - 1) / 2])) {
		epa_hent t = p->fh[k];
		p->fh[k] = p->fh[(k - 1) / 2];
		p->fh[(k - 1) / 2] = t;
		k = (k - 1) / 2;
	}
}

/* The live face nearest the origin: the least fd, the first of equals; by
 * a scan of fd, or on a large polytope by the heap (the same face). */
static int nearest_face(epa_poly *p)
{
	if (p->fh_on == 0 && p->nf >= EPA_HEAP_FROM)
		heap_build(p);
	if (p->fh_on != 1)
		return lanes_first_min(p->fd, p->nf);
	for (;;) {
		assert(p->nfh > 0);
		const epa_hent top = p->fh[0];
		if (p->fd[top.i] == top.d)
			return top.i;
		p->fh[0] = p->fh[--p->nfh];
		heap_down(p->fh, p->nfh, 0);
	}
}

static int new_face(epa_poly *p)
{
	if (p->nfreed > 0)
		return p->freed[--p->nfreed];
	assert(p->nf < 2 * p->cap);
	return p->nf++;
}

static int init_polyhedron(epa_poly *p)
{
	double e1[3], e2[3], e3[3], c[3];
	vec_sub(e1, p->v[1].y, p->v[0].y, 3);
	vec_sub(e2, p->v[2].y, p->v[0].y, 3);
	vec_sub(e3, p->v[3].y, p->v[0].y, 3);
	vec3_cross(c, e2, e3);
	double vol = vec_dot(e1, c, 3);
	if (vol == 0.0)
		return 0;
	/* With positive volume these faces wind outward (each normal points
	 * away from the opposite vertex); with negative, swap 1 and 2. */
	static const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
	int map[4] = {0, 1, 2, 3};
	if (vol < 0.0) {
		map[1] = 2;
		map[2] = 1;
	}
	p->nf = 4;
	p->nfreed = 0;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
			p->vc[k][i] = p->v[i].y[k];
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < 3; k++)
			p->f[i].v[k] = map[faces[i][k]];
		p->f[i].pass = 0;
	}
	static const int all[4] = {0, 1, 2, 3};
	if (!face_planes(p, all, 4, -(p->tol + p->eps), NULL))
		return 0;
	/* Each directed edge (a, b) of one face is (b, a) in another: the
	 * face across edge k of face i is adj[i][k], where it is edge
	 * adj_edge[i][k] (the same for either orientation of the map). */
	static const int adj[4][3] = {{3, 2, 1}, {0, 2, 3}, {0, 3, 1}, {1, 2, 0}};
	static const unsigned char adj_edge[4][3] = {{2, 0, 0}, {2, 2, 0}, {1, 1, 1}, {2, 1, 0}};
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++) {
			p->f[i].adj[k] = adj[i][k];
			p->f[i].adj_edge[k] = adj_edge[i][k];
		}
		/* The tables agree (the map relabels vertices, so checking them
	 * unmapped is enough).  Written out with constant indices, which the
	 * compiler folds away, so an assert-enabled build pays nothing per
	 * query for it (inside the loop above it would). */
#define EPA_ADJ_AGREE(i, k)                                                  \
	assert(faces[adj[i][k]][adj_edge[i][k]] == faces[i][epa_next3[k]] && \
	       faces[adj[i][k]][epa_next3[adj_edge[i][k]]] == faces[i][k])
#define EPA_ADJ_AGREE3(i)    \
	EPA_ADJ_AGREE(i, 0); \
	EPA_ADJ_AGREE(i, 1); \
	EPA_ADJ_AGREE(i, 2)
	EPA_ADJ_AGREE3(0);
	EPA_ADJ_AGREE3(1);
	EPA_ADJ_AGREE3(2);
	EPA_ADJ_AGREE3(3);
#undef EPA_ADJ_AGREE3
#undef EPA_ADJ_AGREE
	for (int i = 0; i < p->nv; i++)
		p->vmark[i] = 0;
	p->pass = 0;
	return 1;
}

/* Depth-first over the faces that w sees, from face f (seen); the edges
 * where a seen face meets an unseen one are the horizon, collected in order
 * around it (each face's edges are taken in winding order, so a disc of
 * seen faces yields its boundary loop in sequence).  A face w is within
 * rounding of counts as seen: that closes coplanar faces instead of adding
 * slivers beside them.  The walk is the recursion "enter face g by its edge
 * e; if seen, enter the faces across its next two edges in turn", run on an
 * explicit stack of (face, edge) to enter: the same order, without a call
 * per face.  Each seen face pushes two entries, so the stack holds at most
 * 2 (2 cap) + 3. */
static void walk(epa_poly *p, const epa_face *f, const double *w)
{
	int *restrict sface = p->walk_face;
	unsigned char *restrict sedge = p->walk_edge;
	int top = 0;
	for (int k = 2; k >= 0; k--) {
		sface[top] = f->adj[k];
		sedge[top] = f->adj_edge[k];
		top++;
	}
	const unsigned pass = p->pass;
	const double eps = p->eps;
	epa_face *const faces = p->f;
	int nvis = p->nvis, nhz = p->nhz;
	while (top > 0) {
		top--;
		const int gi = sface[top], e = sedge[top];
		epa_face *g = &faces[gi];
		if (g->pass == pass)
			continue;
		if (vec_dot(g->n, w, 3) - g->d > -eps) {
			g->pass = pass;
			p->vis[nvis++] = gi;
			/* Entered next: the face across edge e + 1, then (once
			 * all that is done) the one across e + 2. */
			const int e1 = epa_next3[e], e2 = epa_next3[e1];
			assert(top + 2 <= 4 * p->cap + 3);
			sface[top] = g->adj[e2];
			sedge[top] = g->adj_edge[e2];
			sface[top + 1] = g->adj[e1];
			sedge[top + 1] = g->adj_edge[e1];
			top += 2;
		} else if (nhz < p->cap) {
			p->hz_face[nhz] = gi;
			p->hz_edge[nhz] = (unsigned char)e;
			p->hz_s[nhz] = g->v[epa_next3[e]];
			p->hz_t[nhz] = g->v[e];
			nhz++;
		} else {
			p->hz_overflow = 1;
		}
	}
	p->nvis = nvis;
	p->nhz = nhz;
}

/* Expand P by w beyond face fi.  Returns 0 if the horizon is not one simple
 * loop or a new face is not a proper triangle with the origin inside; P is
 * then left half changed, which is harmless: a failed expansion ends the
 * search (answer_best reads only the best direction).  So the new faces are
 * built in place, in one pass over the horizon, rather than planned into
 * scratch and copied over after the checks. */
static int expand_polyhedron(epa_poly *p, int fi, const epa_vertex *w)
{
	if (p->nv >= p->cap)
		return 0;
	p->pass++;
	p->nvis = p->nhz = p->hz_overflow = 0;
	epa_face *f = &p->f[fi];
	f->pass = p->pass;
	p->vis[p->nvis++] = fi;
	walk(p, f, w->y);
	const int nh = p->nhz;
	if (p->hz_overflow || nh < 3)
		return 0;
	int avail = 2 * p->cap - p->nf + p->nfreed + p->nvis;
	if (nh > avail)
		return 0;

	const int wi = p->nv;
	p->v[wi] = *w;
	p->vmark[wi] = 0;
	p->vc[0][wi] = w->y[0];
	p->vc[1][wi] = w->y[1];
	p->vc[2][wi] = w->y[2];
	for (int i = 0; i < p->nvis; i++) {
		p->fd[p->vis[i]] = INFINITY;
		p->freed[p->nfreed++] = p->vis[i];
	}
	/* Horizon edge i is edge e of unseen face g, from g.v[e] to g.v[e+1];
	 * its new face runs the other way, (s_i, t_i, w) = (g.v[e+1], g.v[e],
	 * w), and t_i must be s_{i+1} for the loop to close.  The faces are
	 * linked first, their planes computed after, together. */
	int *const nfs = p->nfs;
	int first = -1, last = -1;
	for (int i = 0; i < nh; i++) {
		const int i1 = i + 1 < nh ? i + 1 : 0;
		const int gi = p->hz_face[i], e = p->hz_edge[i];
		epa_face *g = &p->f[gi];
		const int s = p->hz_s[i], t = p->hz_t[i];
		if (t != p->hz_s[i1] || p->vmark[s] == p->pass)
			return 0; /* not one simple loop */
		p->vmark[s] = p->pass;
		const int ni = new_face(p);
		nfs[i] = ni;
		epa_face *x = &p->f[ni];
		x->v[0] = s;
		x->v[1] = t;
		x->v[2] = wi;
		x->pass = 0;
		/* Edge 0 (s, t) faces g across its edge e. */
		x->adj[0] = gi;
		x->adj_edge[0] = (unsigned char)e;
		g->adj[e] = ni;
		g->adj_edge[e] = 0;
		/* Edge 2 (w, s) meets edge 1 (t', w) of the previous new face. */
		if (last >= 0) {
			x->adj[2] = last;
			x->adj_edge[2] = 1;
			p->f[last].adj[1] = ni;
			p->f[last].adj_edge[1] = 2;
		} else {
			first = ni;
		}
		last = ni;
	}
	p->f[last].adj[1] = first;
	p->f[last].adj_edge[1] = 2;
	p->f[first].adj[2] = last;
	p->f[first].adj_edge[2] = 1;
	for (int i = nh; i % 4; i++)
		nfs[i] = nfs[nh - 1];
	if (!face_planes(p, nfs, nh, -(p->tol + p->eps), p->v[wi].y))
		return 0;
	for (int i = 0; i < nh; i++)
		heap_push(p, nfs[i]);
	p->nv++;
	grow_scale(p, w->y);
	return 1;
}

/* Barycentric weights of the projection of x onto the plane of face f
 * (normal f->n), from the sub-triangles' signed areas; returns their sum. */
static double face_weights(const epa_poly *p, const epa_face *f, const double *x, double *lambda)
{
	double sum = 0.0;
	for (int i = 0; i < 3; i++) {
		double u[3], w[3], c[3];
		vec_sub(u, p->v[f->v[(i + 1) % 3]].y, x, 3);
		vec_sub(w, p->v[f->v[(i + 2) % 3]].y, x, 3);
		vec3_cross(c, u, w);
		lambda[i] = vec_dot(c, f->n, 3);
		sum += lambda[i];
	}
	return sum;
}

/* The converged answer on face f: the projection x = d n of the origin.
 * A facet of K is often split into several coplanar triangles of P, and x
 * may lie in another one than f: walk across the edge x is beyond, while
 * the face there still holds x on its plane (within tol), to the triangle
 * that contains it; its weights give the points.  Weights left a hair
 * negative by rounding are clamped. */
static void answer_face(const epa_poly *p, const epa_face *f, epa_answer *out)
{
	double x[3], lambda[3];
	for (int k = 0; k < 3; k++)
		x[k] = f->d * f->n[k];
	const epa_face *g = f;
	double sum = face_weights(p, g, x, lambda);
	for (int steps = 0; steps < p->nf; steps++) {
		int i = lambda[0] <= lambda[1] && lambda[0] <= lambda[2] ? 0
		        : lambda[1] <= lambda[2]                         ? 1
		                                                         : 2;
		if (lambda[i] >= 0.0)
			break;
		const epa_face *h = &p->f[g->adj[(i + 1) % 3]]; /* across the edge opposite v[i] */
		if (!(vec_dot(h->n, x, 3) - h->d >= -p->tol))
			break;
		double mu[3];
		double hs = face_weights(p, h, x, mu);
		double worst = fmin(mu[0], fmin(mu[1], mu[2]));
		if (!(hs > 0.0) || !(worst / hs > lambda[i] / sum))
			break; /* no better there: rounding, not a neighbour */
		g = h;
		sum = hs;
		vec_copy(lambda, mu, 3);
	}
	double total = 0.0;
	for (int i = 0; i < 3; i++) {
		lambda[i] = fmax(0.0, lambda[i]);
		total += lambda[i];
	}
	for (int i = 0; i < 3; i++)
		lambda[i] = total > 0.0 ? lambda[i] / total : 1.0 / 3.0;
	answer_weights(p, g->v, lambda, 3, f->n, f->d, out);
}

/* The frame f of a 3-D shape given by vertices, unprepared, with at
 * least EPA_PREPARE_FROM of them, prepared into p->own[side] (f itself
 * when that is not worth it or not possible: no memory, a flat hull). */
static const support_frame *prepare_long(epa_poly *p, const support_frame *f, int side)
{
	if (f->kind || f->prep || f->dim != 3 || f->count < EPA_PREPARE_FROM)
		return f;
	clash_shape s;
	if (clash_shape_init(&s, 3, f->vertices, f->count) != CLASH_OK)
		return f;
	const size_t size = clash_prepared_size(3, f->count);
	void *m = malloc(size);
	if (!m || clash_shape_prepare(&s, m, size) != CLASH_OK) {
		free(m);
		return f;
	}
	/* Keep the graph, not the builder's scratch (glibc shrinks a large
	 * block in place). */
	void *kept = realloc(m, clash_prepared_bytes(&s));
	if (kept) {
		m = kept;
		if (clash_shape_set_prepared(&s, m) != CLASH_OK) {
			free(m);
			return f;
		}
	}
	p->own_prep[side] = m;
	if (!prepared_climbs(s.prepared))
		return f;
	p->own[side] = *f;
	p->own[side].prep = s.prepared;
	p->own_hint[side] = SIZE_MAX;
	p->own[side].hint = &p->own_hint[side];
	return &p->own[side];
}

static void run_polyhedron(epa_poly *p, int max_iterations, epa_answer *out)
{
	if (!init_polyhedron(p)) {
		answer_best(p, out);
		return;
	}
	if (p->seed_as_is) {
		/* Compares, not fmin/fmax: those are library calls (no NaN
		 * here: the faces are checked). */
		double m = p->fd[0];
		for (int i = 1; i < 4; i++)
			m = p->fd[i] < m ? p->fd[i] : m;
		out->seed_bound = m > 0.0 ? m : 0.0;
	}
	/* The polyhedron's scans are relative ones: the copies of the
	 * vertices that GJK had the frames keep would subtract v_0 again in
	 * every scan, so they are turned into copies of v_i - v_0 in place,
	 * EPA having the last support point of the query. */
	support_frame_prefer_rel(p->fa);
	support_frame_prefer_rel(p->fb);
	for (int it = 1;; it++) {
		const int best = nearest_face(p);
		assert(p->fd[best] < INFINITY); /* a live face */
		epa_face *f = &p->f[best];
		epa_vertex w;
		double h = probe3(p, f->n, &w);
		out->iterations = it;
		if (h - f->d <= p->tol) {
			answer_face(p, f, out);
			return;
		}
		if (!go_on(p, it, max_iterations))
			return;
		if (it == EPA_PREPARE_AFTER) {
			p->fa = prepare_long(p, p->fa, 0);
			p->fb = prepare_long(p, p->fb, 1);
		}
		if (it >= max_iterations || has_vertex(p, &w) || !expand_polyhedron(p, best, &w)) {
			answer_best(p, out);
			return;
		}
	}
}

/* ---- entry ------------------------------------------------------------------------- */

/* The expansions a search of fa and fb may take: one per vertex of the
 * two shapes, at least CLASH_EPA_MAX_ITERATIONS (identical hulls of n
 * vertices take about 1.6 n; each expansion keeps about 350 bytes). */
static int most_expansions(const support_frame *fa, const support_frame *fb)
{
	const size_t n = fa->count + fb->count;
	if (n <= CLASH_EPA_MAX_ITERATIONS)
		return CLASH_EPA_MAX_ITERATIONS;
	return n < EPA_MOST_EXPANSIONS ? (int)n : EPA_MOST_EXPANSIONS;
}

int epa_penetration(const support_frame *fa, const support_frame *fb, int dim,
                    const epa_vertex *seed, int nseed, const double *common_a,
                    const double *common_b, double tol, int max_iterations,
                    const volatile int *cancel, epa_answer *out)
{
	assert(dim >= 1 && dim <= EPA_MAX_DIM);
	assert(nseed >= 1 && nseed <= dim + 1);
	union {
		max_align_t align;
		unsigned char bytes[EPA_BYTES(EPA_FIXED_VERTICES)];
	} fixed; /* large: only the parts in use are ever written */
	epa_poly p;
	p.fa = fa;
	p.fb = fb;
	p.dim = dim;
	p.tol = tol;
	p.scale = 0.0;
	p.eps = 0.0;
	p.nv = 0;
	p.have_best = 0;
	p.on_heap = 0;
	p.fh = NULL;
	p.nfh = p.fh_cap = p.fh_on = 0;
	p.vh = NULL;
	p.vh_size = 0;
	p.nhashed = 0;
	p.cancel = cancel;
	p.err = CLASH_OK;
	p.own_prep[0] = p.own_prep[1] = NULL;
	out->depth = 0.0;
	out->seed_bound = -1.0;
	out->converged = 0;
	out->iterations = 0;
	const int most = most_expansions(fa, fb);
	if (max_iterations < 1 || max_iterations > most)
		max_iterations = most;
	p.need = max_iterations + EPA_MAX_DIM + 2;
	bind_arrays(&p, fixed.bytes, EPA_FIXED_VERTICES);

	if (dim == 1) {
		/* K is an interval [-h(-1), h(+1)] around the origin. */
		double up = 1.0, down = -1.0;
		epa_vertex wu, wd;
		double hu = probe(&p, &up, &wu), hd = probe(&p, &down, &wd);
		const epa_vertex *w = hu <= hd ? &wu : &wd;
		out->converged = 1;
		out->depth = fmax(fmin(hu, hd), 0.0);
		out->normal[0] = hu <= hd ? up : down;
		out->pa[0] = w->a[0];
		out->pb[0] = w->b[0];
		return CLASH_OK;
	}
	if (seed_simplex(&p, seed, nseed, common_a, common_b, out))
		return CLASH_OK;
	if (dim == 2)
		run_polygon(&p, max_iterations, out);
	else
		run_polyhedron(&p, max_iterations, out);
	free_arrays(&p);
	free(p.fh);
	free(p.vh);
	free(p.own_prep[0]);
	free(p.own_prep[1]);
	return p.err;
}
