/*
 * gjk.c — the GJK distance algorithm between two posed, rounded polytopes,
 * after the Numerical Algorithm of GJK 1988 (Gilbert, Johnson, Keerthi, "A
 * fast procedure for computing the distance between complex objects in
 * three-dimensional space"), section VI.
 *
 * K = A - B is never built: its support point s_A(eta) - s_B(-eta) (eq.
 * (21)) comes from support.c.  Each iteration finds the point of co V_k
 * nearest the origin by Johnson's sub-algorithm with its backup procedure
 * (simplex.c; in 3-D first by region tests, simplex3.c) and stops on the
 * convergence test (35), on v_k = 0 or at a hard cap, all in a frame between
 * the shapes scaled by a power of two.  When the final simplex holds the
 * origin, eq. (32) bounds the depth, and in 1-D to 3-D epa.c grows it into
 * the exact depth; a verdict-only query on small 3-D shapes searches by
 * portal refinement (mpr.c).  Radii are the spherical extensions of section II (eq. (6));
 * unions (eqs. (2)-(8)) go to compound.c, which calls back here with pairs
 * of convex leaves.  Design notes (stopping on round-off, the frame, what
 * each `want` skips): docs/design.md, "core/gjk.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "axisym.h"
#include "cancel.h"
#include "clash.h"
#include "epa.h"
#include "mpr.h"
#include "pair.h"
#include "simplex.h"
#include "support.h"
#include "vec.h"

/* Default tolerance, relative to the size of the shapes. */
#define GJK_DEFAULT_RELATIVE_TOLERANCE 1e-12

/* The penetration-depth expansions of a pair with a curved side when the
 * query sets no cap (see epa_depth below). */
#ifndef GJK_CURVED_EPA_CAP
#define GJK_CURVED_EPA_CAP 1024
#endif
/* ... and the most a query's own cap may ask for: past it a curved
 * polytope grows slower per expansion (faces on a flat end are re-fanned
 * from every new rim point: near-coaxial cylinders took 1.1 s for 10 000
 * expansions, 34 s for 100 000), and a query of a few hundred bytes
 * would hold a worker for seconds. */
#define GJK_CURVED_EPA_MAX 4096

/* The default for a pair with a curved side (an exact primitive, see
 * primitive.h): GJK converges on a curved K only in the limit, its
 * support points clustering ever closer, and the projections onto such
 * flat simplices lose digits; near 1e-12 of the size rounding can stall the
 * descent (then the answer says converged = 0), at 1e-10 it does not. */
#define GJK_CURVED_RELATIVE_TOLERANCE 1e-10

/* No tolerance below this many ulps of the scene size is meaningful: the
 * support points themselves carry that much rounding. */
#define GJK_ROUNDOFF_ULPS 8.0

/* The vertex index of a simplex point that is no support point (the
 * verdict's centre point c; see clash_gjk). */
#define GJK_NOT_VERTEX SIZE_MAX

/* The support points a verdict's portal refinement may take before GJK
 * takes over (mpr.c). */
#define MPR_MAX_SUPPORTS 24

/* One point of the simplex: y = a - b with its two vertex indices. */
typedef struct gjk_point {
	double y[CLASH_MAX_DIM];
	double a[CLASH_MAX_DIM];
	double b[CLASH_MAX_DIM];
	size_t ia, ib;
} gjk_point;

typedef struct gjk_query {
	support_frame fa, fb;
	int dim;
	/* The points live in slots and never move: pts lists the current
	 * ones in order, w is the free slot the next support point goes to. */
	gjk_point slot[SIMPLEX_MAX_POINTS + 1];
	gjk_point *pts[SIMPLEX_MAX_POINTS];
	int npts;
	gjk_point *w;
	/* pts is Vbar + {w} with w = pts[npts-1] just added: a 3-D query may
	 * take the fast sub-algorithm (simplex3_step). */
	int fresh;
	/* table holds the cofactors of pts (the fast path does not fill it;
	 * the backup procedure and the depth bound build it on demand). */
	int table_ok;
	/* v.w of the last examine: the lower bound v.w/|v| on the distance. */
	double vw;
	size_t hint_a, hint_b; /* prepared shapes: the last support points */
	int curved;            /* a side is an exact primitive (its support points have index 0) */
	simplex_table table;
	/* Room for the frames' copies of the vertices by coordinate, kept
	 * when the iterations go on (see iterate): GJK's later support
	 * points and EPA's scan them. */
	support_copy copy_a, copy_b;
} gjk_query;

static void build_table(gjk_query *q)
{
	const double *y[SIMPLEX_MAX_POINTS];
	for (int i = 0; i < q->npts; i++)
		y[i] = q->pts[i]->y;
	simplex_cofactors(&q->table, y, q->npts, q->dim);
	q->table_ok = 1;
}

/* The support point of K = A - B in frame direction d: s_A(d) - s_B(-d). */
static void support_k(gjk_query *q, const double *d, gjk_point *p)
{
	double nd[CLASH_MAX_DIM];
	int n = q->dim;
	if (n == 3) {
		nd[0] = -d[0];
		nd[1] = -d[1];
		nd[2] = -d[2];
		p->ia = support_eval3(&q->fa, d, p->a);
		p->ib = support_eval3(&q->fb, nd, p->b);
		p->y[0] = p->a[0] - p->b[0];
		p->y[1] = p->a[1] - p->b[1];
		p->y[2] = p->a[2] - p->b[2];
		return;
	}
	for (int k = 0; k < n; k++)
		nd[k] = -d[k];
	p->ia = support_eval(&q->fa, d, p->a);
	p->ib = support_eval(&q->fb, nd, p->b);
	vec_sub(p->y, p->a, p->b, n);
}

static void point_from_indices(const gjk_query *q, size_t ia, size_t ib, gjk_point *p)
{
	p->ia = ia;
	p->ib = ib;
	if (q->dim == 3) {
		/* Through locals, which stay in registers: y read back from
		 * p->a and p->b right after their scalar stores would be a
		 * 16-byte load the stores cannot forward to (a stall of 10 or
		 * more cycles on the set-up path of every query). */
		double a[3], b[3];
		support_point3(&q->fa, ia, a);
		support_point3(&q->fb, ib, b);
		for (int k = 0; k < 3; k++) {
			p->a[k] = a[k];
			p->b[k] = b[k];
			p->y[k] = a[k] - b[k];
		}
		return;
	}
	support_point(&q->fa, ia, p->a);
	support_point(&q->fb, ib, p->b);
	vec_sub(p->y, p->a, p->b, q->dim);
}

/* The backup procedure over subsets of at most max_points points: the
 * subset whose projection has all weights positive and the least |v|
 * (simplex_backup, eq. (38) judged by projections rather than by the signs
 * of cofactors, which are what rounding defeated).  Returns how many
 * backups were needed. */
static int fallback(gjk_query *q, simplex_solution *sol, int max_points)
{
	if (!q->table_ok)
		build_table(q);
	simplex_backup(&q->table, max_points, sol);
	return 1;
}

/* Step 2: v_k = v(co V_k).  Johnson's sub-algorithm chooses the face Y_s
 * (GJK88 Theorem 3); the point on it comes from simplex_project, whose v
 * stays orthogonal to the face when |v| is tiny, so that near-touching
 * shapes still get a normal that separates.  Returns the backups used. */
static int solve(gjk_query *q, simplex_solution *sol)
{
	if (q->dim == 3 && q->fresh) {
		const double *y[4];
		for (int i = 0; i < q->npts; i++)
			y[i] = q->pts[i]->y;
		q->table_ok = 0;
		if (simplex3_step(y, q->npts, sol))
			return 0;
	}
	build_table(q);
	/* Johnson's choice rests on the signs of cofactors, which on a flat
	 * simplex lose every digit (products of heights of 1e-5 and less);
	 * the projection's weights are what v is made of.  Believe the choice
	 * only when they agree, every weight positive (condition 2 of Theorem
	 * 3; for a full simplex, "the origin is inside"): a face whose weights
	 * say the origin projects outside it, or that is too thin to project,
	 * is not the answer, and the backup procedure, judging every subset
	 * by its projection, finds the one that is. */
	if (simplex_johnson(&q->table, sol) && simplex_project(&q->table, sol) &&
	    simplex_weights_positive(sol, q->npts))
		return 0;
	return fallback(q, sol, q->npts);
}

/* Whether p is already a point of the simplex.  For polytopes the index
 * pairs are compared without a branch per comparison: whether a new
 * support point repeats one of a or of b varies from step to step, and
 * the short-circuit form mispredicted on it. */
static int has_point(const gjk_query *q, const gjk_point *p)
{
	if (q->curved) {
		for (int i = 0; i < q->npts; i++)
			if (q->pts[i]->ia == p->ia && q->pts[i]->ib == p->ib &&
			    memcmp(q->pts[i]->y, p->y, 3 * sizeof p->y[0]) == 0)
				return 1;
		return 0;
	}
	unsigned hit = 0;
	for (int i = 0; i < q->npts; i++)
		hit |= (unsigned)(q->pts[i]->ia == p->ia) & (unsigned)(q->pts[i]->ib == p->ib);
	return hit != 0;
}

/* A slot no current point occupies: the next support point's. */
static void free_slot(gjk_query *q)
{
	unsigned used = 0;
	for (int i = 0; i < q->npts; i++)
		used |= 1u << (q->pts[i] - q->slot);
	q->w = &q->slot[__builtin_ctz(~used)];
}

/* V_{k+1} = Vbar_k + {w}: keep the points that carry v_k, then add w. */
static void advance(gjk_query *q, const simplex_solution *sol)
{
	int n = 0;
	unsigned used = 1u << (q->w - q->slot);
	for (int i = 0; i < q->npts; i++)
		if (sol->mask & (1u << i)) {
			used |= 1u << (q->pts[i] - q->slot);
			q->pts[n++] = q->pts[i];
		}
	assert(n < SIMPLEX_MAX_POINTS);
	q->pts[n++] = q->w;
	q->npts = n;
	q->fresh = 1;
	q->table_ok = 0;
	q->w = &q->slot[__builtin_ctz(~used)]; /* as free_slot, from the same loop */
}

enum gjk_step {
	GJK_CONTINUE,
	GJK_ADVANCE,
	GJK_INTERSECT,
	GJK_CONVERGED,
	GJK_STALLED,
	GJK_REPEAT, /* w is already in V_k, yet the convergence test fails */
	GJK_APART,  /* verdict only: a separating direction beyond the radii */
	GJK_WITHIN  /* verdict only: v within the radii (and tolerance) */
};

/* Step 3 of the Numerical Algorithm for the current v = sol->v: intersect
 * when v = 0 (within tolerance; a full simplex is only returned around the
 * origin), converged when the convergence test holds or the new support
 * point w = s_K(-v) (written to q->w) is already in the simplex, otherwise
 * continue with w.  Lengths are compared squared, which needs no square
 * root: frame coordinates are at most a few units, so nothing overflows,
 * and a square that underflows belongs to a gap far below any
 * tolerance. */
static enum gjk_step examine(gjk_query *q, const simplex_solution *sol, double tol_f)
{
	const int n = q->dim;
	const double vv = sol->vv;
	if (simplex_popcount(sol->mask) == n + 1 || vv <= tol_f * tol_f)
		return GJK_INTERSECT;
	double d[CLASH_MAX_DIM], vw, ww;
	gjk_point *w = q->w;
	if (n == 3) {
		d[0] = -sol->v[0];
		d[1] = -sol->v[1];
		d[2] = -sol->v[2];
		support_k(q, d, w);
		vw = sol->v[0] * w->y[0] + sol->v[1] * w->y[1] + sol->v[2] * w->y[2];
		ww = w->y[0] * w->y[0] + w->y[1] * w->y[1] + w->y[2] * w->y[2];
	} else {
		for (int i = 0; i < n; i++)
			d[i] = -sol->v[i];
		support_k(q, d, w);
		vw = vec_dot(sol->v, w->y, n);
		ww = vec_dot(w->y, w->y, n);
	}
	/* Eq. (35) in the form that bounds the distance: g_K(v)/|v| =
	 * |v| - v.w/|v| is the gap between the upper bound |v| and the lower
	 * bound v.w/|v|; stop when it is within tolerance (g <= tol |v|), or
	 * within the rounding of the inner products themselves
	 * (g <= 8 eps |v| max(|w|, |v|)). */
	q->vw = vw;
	double g = vv - vw;
	const double ro = GJK_ROUNDOFF_ULPS * DBL_EPSILON;
	if (g <= 0.0 || g * g <= tol_f * tol_f * vv || g * g <= ro * ro * vv * (ww > vv ? ww : vv))
		return GJK_CONVERGED;
	/* w in V_k stops GJK in exact arithmetic (Theorem 2) because then
	 * v_k = v(co V_k) has v.w >= |v|^2: the test above would have held.
	 * Failing it, v_k is not (to working precision) the nearest point of
	 * its own simplex: rounding in the sub-algorithm (Johnson's cofactors
	 * on a flat simplex kept a face without w), or in v itself when |v|
	 * is far below the simplex's size.  Neither is convergence: the
	 * distance may be anywhere between v.w/|v| and |v|. */
	if (has_point(q, w))
		return GJK_REPEAT;
	return GJK_CONTINUE;
}

/* Frame to world: x * unit + shift. */
static void to_world(double *out, const double *x, double unit, const double *shift, int n)
{
	for (int k = 0; k < n; k++)
		out[k] = x[k] * unit + shift[k];
}

/* The penetration depth when the hulls overlap (within tolerance): EPA from
 * the final face Y_s (the points carrying v), whose hull holds the origin.
 * pa, pb are the hulls' common point in the frame.  Radii are added the way
 * eq. (6) adds them to a distance: the rounded shapes reach ra and rb
 * further along the normal.  *converged: whether EPA converged.  Returns
 * CLASH_OK, or EPA's CLASH_ENOMEM or CLASH_ECANCELED (no answer). */
static int penetration(gjk_query *q, const simplex_solution *sol, const double *pa,
                       const double *pb, double tol_f, const clash_options *opt, double unit,
                       const double *shift, const clash_shape *a, const clash_shape *b,
                       clash_result *r, double *seed_bound, int *converged)
{
	const int n = q->dim;
	epa_vertex seed[EPA_MAX_DIM + 1];
	int nseed = 0;
	for (int i = 0; i < q->npts; i++) {
		if (!(sol->mask & (1u << i)))
			continue;
		epa_vertex *v = &seed[nseed++];
		vec_copy(v->y, q->pts[i]->y, n);
		vec_copy(v->a, q->pts[i]->a, n);
		vec_copy(v->b, q->pts[i]->b, n);
		v->ia = q->pts[i]->ia;
		v->ib = q->pts[i]->ib;
	}
	epa_answer e;
	/* A curved pair's polytope only approaches its Minkowski difference:
	 * without a cap of the query's own, it stops at GJK_CURVED_EPA_CAP
	 * expansions (each costs more as the polytope grows), and at most at
	 * GJK_CURVED_EPA_MAX. */
	int cap = opt ? opt->max_iterations : 0;
	if (q->curved)
		cap = cap == 0                   ? GJK_CURVED_EPA_CAP
		      : cap > GJK_CURVED_EPA_MAX ? GJK_CURVED_EPA_MAX
		                                 : cap;
	const volatile int *cancel = opt ? opt->cancel : NULL;
	/* Coaxial curved shapes: in a meridian plane (axisym.c), where EPA's
	 * polytope would never match their circle of nearest points. */
	if (!(q->curved && n == 3 && axisym_penetration(&q->fa, &q->fb, tol_f, cap, cancel, &e))) {
		int err = epa_penetration(&q->fa, &q->fb, n, seed, nseed, pa, pb, tol_f, cap,
		                          cancel, &e);
		if (err != CLASH_OK)
			return err;
	}
	double xa[EPA_MAX_DIM], xb[EPA_MAX_DIM];
	to_world(xa, e.pa, unit, shift, n);
	to_world(xb, e.pb, unit, shift, n);
	r->depth = e.depth * unit + a->radius + b->radius;
	for (int k = 0; k < n; k++) {
		double nk = e.normal[k] + 0.0;
		r->depth_normal[k] = nk;
		r->depth_a[k] = xa[k] + a->radius * nk;
		r->depth_b[k] = xb[k] - b->radius * nk;
	}
	r->has |= CLASH_HAS_DEPTH;
	*seed_bound = e.seed_bound;
	*converged = e.converged;
	return CLASH_OK;
}

/* A verdict's warm simplex: the points of mask that are support points
 * (not the centre point c).  Never empty, as a Query's warm must not be:
 * when only c is left (the origin within tolerance of it), the last
 * support point of a, b the query's hints hold. */
static void verdict_warm(const gjk_query *q, unsigned mask, clash_result *r)
{
	r->warm_count = 0;
	for (int i = 0; i < q->npts; i++)
		if ((mask & (1u << i)) && q->pts[i]->ia != GJK_NOT_VERTEX) {
			r->warm_a[r->warm_count] = q->pts[i]->ia;
			r->warm_b[r->warm_count] = q->pts[i]->ib;
			r->warm_count++;
		}
	if (r->warm_count == 0) {
		r->warm_a[0] = *q->fa.hint;
		r->warm_b[0] = *q->fb.hint;
		r->warm_count = 1;
	}
}

/* The answer to a verdict-only query (CLASH_WANT_VERDICT alone) that found
 * the shapes apart: the unit normal dir (frame, from a towards b), the
 * lower bound `lower` (frame units) on the hull distance along it, and the
 * support point w whose a and b touch the slab: the plane in the middle of
 * the gap, as the full answer places it, and distance_lower_bound.  The
 * simplex so far for a warm start. */
static int verdict_apart(const gjk_query *q, const double *dir, double lower, const gjk_point *w,
                         double unit, const double *shift, const clash_shape *a,
                         const clash_shape *b, clash_result *r)
{
	const int n = q->dim;
	const double rsum = a->radius + b->radius;
	for (int k = 0; k < n; k++)
		r->normal[k] = dir[k] + 0.0;
	double ha = vec_dot(r->normal, w->a, n), hb = vec_dot(r->normal, w->b, n);
	r->offset = pair_plane_offset(r->normal, ha, hb, unit, shift, a, b);
	r->distance_lower_bound = fmax(0.0, lower * unit - rsum);
	r->intersecting = 0;
	r->has |= CLASH_HAS_PLANE | CLASH_HAS_DISTANCE_BOUND;
	r->converged = (hb - ha) * unit - rsum > 0.0;
	if (!(r->has & CLASH_HAS_WARM)) {
		r->has |= CLASH_HAS_WARM;
		verdict_warm(q, ~0u, r);
	}
	if (!isfinite(r->offset) || !vec_isfinite(r->normal, n) ||
	    !isfinite(r->distance_lower_bound)) {
		memset(r, 0, sizeof *r);
		return CLASH_ERANGE;
	}
	return CLASH_OK;
}

/* The answer to a verdict-only query after the iterations: apart when
 * stopped on a separating direction, or (ran to the end) by the full
 * answer's rule, the hull distance |v| less the radii above the
 * tolerance; otherwise intersecting, and nothing more.  Either way the
 * final simplex, for a warm start. */
static int verdict(const gjk_query *q, const simplex_solution *sol, enum gjk_step st, double vnorm,
                   double unit, const double *shift, double tol, const clash_shape *a,
                   const clash_shape *b, clash_result *r)
{
	const int n = q->dim;
	const double rsum = a->radius + b->radius;
	verdict_warm(q, sol->mask, r);
	r->has = CLASH_HAS_WARM;
	r->converged = st != GJK_STALLED;
	int apart = st == GJK_APART ||
	            ((st == GJK_CONVERGED || st == GJK_STALLED) && vnorm * unit - rsum > tol);
	if (!apart) {
		/* 0 is a lower bound on the distance of shapes that touch. */
		r->intersecting = 1;
		r->has |= CLASH_HAS_DISTANCE_BOUND;
		r->distance_lower_bound = 0.0;
		return CLASH_OK;
	}
	double dir[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		dir[k] = -sol->v[k] / vnorm;
	int converged = r->converged;
	int rc = verdict_apart(q, dir, q->vw > 0.0 ? q->vw / vnorm : 0.0, q->w, unit, shift, a, b,
	                       r);
	if (rc == CLASH_OK && !converged)
		r->converged = 0;
	return rc;
}

/* MPR's support mapping (mpr.h): its slot s >= 1 is the query's slot
 * s + 1, past w0 (slot 0) and the centre point c (slot 1), which GJK
 * starts from should MPR not decide. */
static const double *mpr_support(void *ctx, const double *d, int slot)
{
	gjk_query *q = ctx;
	gjk_point *p = &q->slot[slot + 1];
	support_k(q, d, p);
	return p->y;
}

static gjk_point *mpr_point(gjk_query *q, int slot)
{
	return slot == 0 ? &q->slot[0] : &q->slot[slot + 1];
}

/* A 3-D verdict-only query's search by portal refinement, from V_0 =
 * {c, w0} (q->pts).  Answers as verdict() and verdict_apart() would and
 * returns 1 when MPR decided; else 0, q untouched but for free slots, and
 * *taken the support points spent. */
static int verdict_mpr(gjk_query *q, double reach_f, double unit, const double *shift, double tol,
                       const clash_shape *a, const clash_shape *b, clash_result *r, int *taken,
                       int *rc)
{
	gjk_point *c = q->pts[0], *w0 = q->pts[1];
	mpr_answer m;
	mpr_verdict3(c->y, w0->y, reach_f, MPR_MAX_SUPPORTS, mpr_support, q, &m);
	*taken = m.supports;
	if (m.verdict == MPR_UNDECIDED)
		return 0;
	r->iterations = 1 + m.supports;
	/* The simplex for the warm start: MPR's points, and c with them
	 * when the origin is in their hull (verdict_warm leaves c out). */
	q->npts = 0;
	if (m.verdict != MPR_APART)
		q->pts[q->npts++] = c;
	for (int i = 0; i < m.nslots; i++)
		q->pts[q->npts++] = mpr_point(q, m.slots[i]);
	if (m.verdict == MPR_APART) {
		const gjk_point *w = mpr_point(q, m.apart_slot);
		const double len = sqrt(vec3_dot(m.dir, m.dir));
		const double dir[3] = {m.dir[0] / len, m.dir[1] / len, m.dir[2] / len};
		*rc = verdict_apart(q, dir, -vec3_dot(dir, w->y), w, unit, shift, a, b, r);
		return 1;
	}
	simplex_solution sol;
	sol.mask = (1u << q->npts) - 1;
	*rc = verdict(q, &sol, GJK_INTERSECT, 0.0, unit, shift, tol, a, b, r);
	return 1;
}

static int gjk_convex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                      clash_result *r);
static int gjk_leaf(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                    clash_result *r);

/* Unions of convex parts through the compound layer, triangle meshes
 * through their own search (mesh_query.c), exact primitives as polytopes
 * where they are ones, else curved. */
static const pair_method gjk_method = {clash_gjk, gjk_convex, gjk_leaf, 1};

/* A convex pair (polytopes and primitives): what the mesh layer asks of
 * each triangle against a convex side. */
static int gjk_leaf(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                    clash_result *r)
{
	return pair_leaf(a, b, opt, &gjk_method, r);
}

int clash_gjk(const clash_shape *a, const clash_shape *b, const clash_options *opt, clash_result *r)
{
	return pair_query(a, b, opt, &gjk_method, r);
}

/* What the first pass over the vertices found (see first_direction). */
typedef struct gjk_start {
	support_pair_frame fr;
	int warm;                 /* the query brings a warm simplex */
	double d0[CLASH_MAX_DIM]; /* the initial direction (not when warm) */
	double sa[CLASH_MAX_DIM]; /* the sampled centres of a and b, world */
	double sb[CLASH_MAX_DIM];
	size_t ia0, ib0; /* the support points in direction d0 */
} gjk_start;

/* What the query asks and how closely, and the frame's map to the world. */
typedef struct gjk_params {
	double unit, inv; /* frame to world and back (support.h) */
	const double *shift;
	double tol, tol_f; /* the tolerance, in world and frame units */
	double rsum;       /* the radii added up (eq. (6)) */
	double reach_f;    /* the verdict's threshold on the hull distance, frame */
	int max_iter;
	int verdict_only, depth_wanted;
} gjk_params;

/* Set-up, the initial direction (GJK88 section VI uses the centroids'):
 * the difference of the means of a few vertices of each shape.  The first
 * pass over each shape's vertices (pair_frame) then finds its support
 * point in that direction together with its bounding ball (the shift
 * point, the frame's unit and D(K) of (37)) and the test for NaN, so a
 * query reads every vertex once before it iterates.  A warm start needs
 * no first direction: *pass asks for the balls alone. */
static void first_direction(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                            gjk_start *s, pair_start *pass)
{
	s->warm = opt && opt->warm_count > 0;
	s->ia0 = s->ib0 = 0;
	*pass = (pair_start){NULL, &s->ia0, &s->ib0, NULL};
	if (s->warm)
		return;
	support_sample_centre(a, s->sa);
	support_sample_centre(b, s->sb);
	support_centre_direction(s->sa, s->sb, s->d0, a->dim);
	pass->d = s->d0;
}

/* Set-up, the query: both shapes in the frame (the origin shift of GJK88
 * section VI, scaled by a power of two), the tolerance (relative to the
 * shapes' size, never below the rounding of their support points), the
 * iteration cap and what is wanted. */
static void query_init(gjk_query *q, gjk_params *p, const clash_shape *a, const clash_shape *b,
                       const clash_options *opt, const gjk_start *s)
{
	const support_pair_frame *fr = &s->fr;
	p->unit = fr->unit;
	p->inv = fr->inv;
	p->shift = fr->shift;
	q->dim = a->dim;
	q->table_ok = 0;
	q->npts = 0;
	support_frame_init(&q->fa, a, fr->shift, fr->inv);
	support_frame_init(&q->fb, b, fr->shift, fr->inv);
	q->curved = q->fa.kind || q->fb.kind;
	q->hint_a = s->warm ? opt->warm_a[0] : s->ia0;
	q->hint_b = s->warm ? opt->warm_b[0] : s->ib0;
	q->fa.hint = &q->hint_a;
	q->fb.hint = &q->hint_b;

	double size = fr->ra + fr->rb + a->radius + b->radius;
	double tol = (opt && opt->tolerance > 0.0) ? opt->tolerance
	             : q->curved                   ? GJK_CURVED_RELATIVE_TOLERANCE * size
	                                           : GJK_DEFAULT_RELATIVE_TOLERANCE * size;
	double floor_tol = GJK_ROUNDOFF_ULPS * DBL_EPSILON * (fr->ra + fr->rb + 2.0 * fr->half_gap);
	if (tol < floor_tol)
		tol = floor_tol;
	p->tol = tol;
	p->tol_f = tol * fr->inv; /* in frame units */
	p->max_iter =
		(opt && opt->max_iterations > 0) ? opt->max_iterations : CLASH_GJK_MAX_ITERATIONS;
	const unsigned want = opt ? opt->want : 0;
	p->verdict_only = want && !(want & (CLASH_WANT_DISTANCE | CLASH_WANT_DEPTH));
	p->depth_wanted = !want || (want & CLASH_WANT_DEPTH);
	p->rsum = a->radius + b->radius;
	/* The verdict's threshold on the hull distance: the radii and the
	 * tolerance, in frame units (as the full answer decides it). */
	p->reach_f = p->rsum * fr->inv + p->tol_f;
}

/* V_0 from a warm start (GJK88 section VIII): the previous answer's
 * points, each once.  The fast sub-algorithm takes the last warm point for
 * the new one; where the answer does not contain it (or it fails
 * otherwise) the full table decides. */
static void warm_simplex(gjk_query *q, const clash_options *opt)
{
	for (size_t i = 0; i < opt->warm_count; i++) {
		gjk_point *p = &q->slot[q->npts];
		point_from_indices(q, opt->warm_a[i], opt->warm_b[i], p);
		if (!has_point(q, p)) {
			q->pts[q->npts] = p;
			q->npts++;
		}
	}
	q->fresh = 1;
}

/* A verdict-only query's start from V_0 = {w0}, w0 = s_K(d0).  The verdict
 * may already be in: w0 maximizes d0.y over K, so d0.w0 < 0 puts all of K
 * on one side of a plane through the origin, -d0.w0/|d0| from it.  Else
 * V_0 becomes {c, w0}, and a small 3-D pair is searched by portal
 * refinement.  Returns 1 when answered (*rc the return), else 0 with
 * *extra the support points MPR spent. */
static int verdict_start(gjk_query *q, const gjk_params *p, const gjk_start *s,
                         const clash_shape *a, const clash_shape *b, clash_result *r, int *extra,
                         int *rc)
{
	const int n = q->dim;
	const double *d0 = s->d0, *shift = p->shift;
	const double reach_f = p->reach_f, inv = p->inv;
	double dw = vec_dot(d0, q->pts[0]->y, n), dd = vec_dot(d0, d0, n);
	if (dw < 0.0 && dw * dw > reach_f * reach_f * dd) {
		double len = sqrt(dd), dir[CLASH_MAX_DIM];
		for (int k = 0; k < n; k++)
			dir[k] = d0[k] / len;
		r->iterations = 1;
		*rc = verdict_apart(q, dir, -dw / len, q->pts[0], p->unit, shift, a, b, r);
		return 1;
	}
	/* V_0 = {c, w0} with c = sa - sb, a point of K that is no support
	 * point (GJK88 section V lets V_0 be any points of K): w0 = s_K(d0) is
	 * the step from V = {c}, d0 being -c.  The centres lie inside the
	 * shapes, so where they overlap c is near the origin, and a
	 * tetrahedron on c (as MPR's portal on its interior point) encloses
	 * the origin one support point sooner than one of support points
	 * only.  Only the verdict takes it: c has no vertex indices
	 * (GJK_NOT_VERTEX: left out of the warm simplex), and EPA, which grows
	 * its polytope from the final simplex, wants support points. */
	gjk_point *c = &q->slot[1];
	for (int k = 0; k < n; k++) {
		c->a[k] = (s->sa[k] - shift[k]) * inv;
		c->b[k] = (s->sb[k] - shift[k]) * inv;
		c->y[k] = c->a[k] - c->b[k];
	}
	c->ia = c->ib = GJK_NOT_VERTEX;
	q->pts[1] = q->pts[0];
	q->pts[0] = c;
	q->npts = 2;
	if (n == 3 && (support_frame_can_copy(&q->fa) || q->fa.kind) &&
	    (support_frame_can_copy(&q->fb) || q->fb.kind)) {
		/* Portal refinement takes about as many support points as GJK,
		 * a few more on separated and touching pairs, and no Johnson
		 * step: a gain while a support point is a scan of a small copy.
		 * On a large shape, scanned or climbed, the support points are
		 * the cost, and on a rounded one (a sphere of 50 000 points) MPR
		 * needs many more: there GJK stays (the figures:
		 * bench/results/history.md).  The first of the support points
		 * copies the vertices by coordinate for the others. */
		support_frame_keep_copy(&q->fa, &q->copy_a);
		support_frame_keep_copy(&q->fb, &q->copy_b);
		if (verdict_mpr(q, reach_f, p->unit, shift, p->tol, a, b, r, extra, rc))
			return 1;
	}
	return 0;
}

/* Step 1 of the Numerical Algorithm (GJK88 section VI; section V lets
 * V_0 be any points of K): the warm simplex, or the single point s_K(d0) from the
 * first pass, from which a verdict-only query starts on its own (see
 * verdict_start).  Returns 1 when the query is answered already. */
static int initial_simplex(gjk_query *q, const gjk_params *p, const gjk_start *s,
                           const clash_shape *a, const clash_shape *b, const clash_options *opt,
                           clash_result *r, int *extra, int *rc)
{
	if (s->warm) {
		warm_simplex(q, opt);
		return 0;
	}
	q->pts[0] = &q->slot[0];
	if (q->curved) /* no index names a primitive's point */
		support_k(q, s->d0, q->pts[0]);
	else
		point_from_indices(q, s->ia0, s->ib0, q->pts[0]);
	q->npts = 1;
	q->fresh = 1;
	return p->verdict_only && verdict_start(q, p, s, a, b, r, extra, rc);
}

/* Steps 3 to 6 of the Numerical Algorithm for v_k = sol->v (k the
 * iteration, prev = |v_{k-1}|^2, backup whether step 2 needed the backup
 * procedure): stop (intersecting, converged, or for a verdict a decisive
 * bound), advance to V_{k+1} when |v| descends (step 4), or, when it does
 * not or w is already in V_k (a numerical inconsistency, steps 5-6),
 * retry with the backup procedure once and then stop unconverged. */
static enum gjk_step judge(gjk_query *q, const gjk_params *p, simplex_solution *sol, int k,
                           double prev, int backup, clash_result *r)
{
	for (;;) {
		enum gjk_step st = examine(q, sol, p->tol_f); /* step 3 */
		if (p->verdict_only &&
		    (st == GJK_CONTINUE || st == GJK_CONVERGED || st == GJK_REPEAT)) {
			/* The bounds v.w/|v| <= d <= |v| on the hull distance
			 * d already decide the verdict? */
			if (q->vw > 0.0 && q->vw * q->vw > p->reach_f * p->reach_f * sol->vv)
				return GJK_APART;
			if (p->rsum > 0.0 && sol->vv <= p->reach_f * p->reach_f)
				return GJK_WITHIN;
		}
		if (st != GJK_CONTINUE && st != GJK_REPEAT)
			return st;
		if (st == GJK_CONTINUE && (k == 0 || sol->vv < prev)) /* step 4: descending */
			return GJK_ADVANCE;
		if (backup)
			return GJK_STALLED;
		backup = fallback(q, sol, q->npts);
		r->backups += backup;
	}
}

/* The iteration of the Numerical Algorithm from V_0 (q->pts): step 2
 * (v_k = v(co V_k), solve), steps 3-6 (judge), V_{k+1} = Vbar_k + {w}
 * (advance), until a step stops it or the hard cap does.  *st says how it
 * stopped, sol holds the last v_k.  Returns CLASH_OK, or CLASH_ECANCELED
 * (r zeroed). */
static int iterate(gjk_query *q, const gjk_params *p, const clash_options *opt, int extra,
                   simplex_solution *sol, enum gjk_step *stop, clash_result *r)
{
	free_slot(q);
	double prev = INFINITY;
	enum gjk_step st;
	for (int k = 0;; k++) {
		/* The caller's stop request (clash_options.cancel): checked
		 * before each iteration, so a cancelled query costs at most one
		 * more pair of support scans. */
		if (opt && cancel_requested(opt->cancel)) {
			memset(r, 0, sizeof *r);
			return CLASH_ECANCELED;
		}
		r->iterations = k + 1 + extra;
		if (k == 0 && q->dim == 3 && !p->verdict_only) {
			/* The search will likely take a few support points,
			 * and EPA, if it follows, many: the first scan here
			 * copies the shapes' vertices by coordinate for the
			 * later ones (three stores per four vertices; a
			 * verdict, which stops at the first decisive point,
			 * keeps scanning the array). */
			support_frame_keep_copy(&q->fa, &q->copy_a);
			support_frame_keep_copy(&q->fb, &q->copy_b);
		}
		int backup = solve(q, sol); /* step 2 */
		r->backups += backup;
		st = judge(q, p, sol, k, prev, backup, r);
		if (st == GJK_ADVANCE && k + 1 >= p->max_iter)
			st = GJK_STALLED; /* the hard cap: answer with the best so far */
		if (st != GJK_ADVANCE)
			break;
		prev = sol->vv;
		advance(q, sol);
	}
	*stop = st;
	return CLASH_OK;
}

/* The answer of intersecting hulls: the penetration depth by EPA when
 * wanted (1-D to 3-D), the lower bound of eq. (32) from the final simplex
 * when it is full, and a common point.  *converged is cleared when EPA did
 * not converge.  Returns CLASH_OK, or EPA's error (r zeroed). */
static int answer_intersecting(gjk_query *q, const gjk_params *p, const simplex_solution *sol,
                               const double *pa, const double *pb, const double *xa,
                               const double *xb, const clash_shape *a, const clash_shape *b,
                               const clash_options *opt, clash_result *r, int *converged)
{
	const int n = q->dim;
	/* EPA first: in 3-D its first polytope is the final simplex, whose
	 * facets' planes then give eq. (32)'s bound as well. */
	double seed_bound = -1.0;
	int epa_converged = 1;
	if (n <= EPA_MAX_DIM && p->depth_wanted) {
		int e = penetration(q, sol, pa, pb, p->tol_f, opt, p->unit, p->shift, a, b, r,
		                    &seed_bound, &epa_converged);
		if (e != CLASH_OK) {
			memset(r, 0, sizeof *r);
			return e;
		}
	}
	if (!epa_converged)
		*converged = 0;
	double depth = 0.0;
	if (simplex_popcount(sol->mask) == n + 1 && n == 3) {
		const double *y[4] = {q->pts[0]->y, q->pts[1]->y, q->pts[2]->y, q->pts[3]->y};
		depth = (seed_bound >= 0.0 ? seed_bound : simplex3_depth_bound(y)) * p->unit;
	} else if (simplex_popcount(sol->mask) == n + 1) {
		if (!q->table_ok)
			build_table(q);
		depth = simplex_depth_bound(&q->table) * p->unit;
	}
	r->intersecting = 1;
	r->has |= CLASH_HAS_DEPTH_BOUND;
	r->depth_lower_bound = depth + p->rsum;
	for (int k = 0; k < n; k++)
		r->near_a[k] = r->near_b[k] = 0.5 * xa[k] + 0.5 * xb[k];
	return CLASH_OK;
}

/* The answer of hulls apart by hull <= rsum + tol: the rounded shapes
 * touch or overlap.  The point dividing the near segment in the ratio of
 * the radii lies within both extensions (eq. (6)). */
static void answer_within_radii(const gjk_params *p, const simplex_solution *sol, double vnorm,
                                double hull, const double *xa, const double *xb,
                                const clash_shape *a, const clash_shape *b, int n, clash_result *r)
{
	const double rsum = p->rsum;
	r->intersecting = 1;
	r->has |= CLASH_HAS_DEPTH_BOUND;
	r->depth_lower_bound = fmax(0.0, rsum - hull);
	double t = rsum > 0.0 ? a->radius / rsum : 0.5;
	for (int k = 0; k < n; k++)
		r->near_a[k] = r->near_b[k] = xa[k] + t * (xb[k] - xa[k]);
	/* The rounded shapes overlap by rsum - hull along the near points'
	 * direction n = -v/|v|: moving b that far along n leaves the hulls
	 * rsum apart.  The deepest points are the near points pushed out by
	 * the radii. */
	if (n <= EPA_MAX_DIM && p->depth_wanted) {
		r->has |= CLASH_HAS_DEPTH;
		r->depth = r->depth_lower_bound;
		for (int k = 0; k < n; k++) {
			double nk = -sol->v[k] / vnorm + 0.0;
			r->depth_normal[k] = nk;
			r->depth_a[k] = xa[k] + a->radius * nk;
			r->depth_b[k] = xb[k] - b->radius * nk;
		}
	}
}

/* The answer of separated shapes: the distance (eq. (6)), the near points
 * pushed out by the radii along the unit normal n = -v/|v| (from a to b),
 * and the separating plane.  *converged is cleared when rounding left no
 * gap. */
static void answer_separated(const gjk_query *q, const gjk_params *p, const simplex_solution *sol,
                             double vnorm, double hull, const double *xa, const double *xb,
                             const clash_shape *a, const clash_shape *b, clash_result *r,
                             int *converged)
{
	const int n = q->dim;
	const double rsum = p->rsum, unit = p->unit;
	const gjk_point *w = q->w; /* the last support point */
	r->has |= CLASH_HAS_PLANE;
	r->distance = hull - rsum;
	for (int k = 0; k < n; k++) {
		/* + 0.0 turns -0 into +0: clients compare normals as text. */
		double nk = -sol->v[k] / vnorm + 0.0;
		r->normal[k] = nk;
		r->near_a[k] = xa[k] + a->radius * nk;
		r->near_b[k] = xb[k] - b->radius * nk;
	}
	/* The plane comes from the last support points, w = s_A(n) - s_B(-n):
	 * n.w_a = h_A(n) and n.w_b = -h_B(-n) bound the two shapes along n
	 * whatever rounding did to v, so the plane sits in the middle of the
	 * gap that really is there (the lower bound of eq. (35)).  The gap is
	 * judged in the frame, where it is exact to rounding of the shapes'
	 * size; the world offset can only be as exact as a number of its
	 * magnitude.  No gap left means rounding ate the separation, and the
	 * answer says it is not certain. */
	double ha = vec_dot(r->normal, w->a, n), hb = vec_dot(r->normal, w->b, n);
	double gap = (hb - ha) * unit - rsum;
	r->offset = pair_plane_offset(r->normal, ha, hb, unit, p->shift, a, b);
	if (!(gap > 0.0))
		*converged = 0;
}

/* No NaN or infinity leaves the core. */
static int answer_finite(clash_result *r, int n)
{
	if (!isfinite(r->distance) || !isfinite(r->offset) || !isfinite(r->depth_lower_bound) ||
	    !vec_isfinite(r->near_a, n) || !vec_isfinite(r->near_b, n) ||
	    !vec_isfinite(r->normal, n) || !isfinite(r->depth) ||
	    !vec_isfinite(r->depth_normal, n) || !vec_isfinite(r->depth_a, n) ||
	    !vec_isfinite(r->depth_b, n)) {
		memset(r, 0, sizeof *r);
		return CLASH_ERANGE;
	}
	return CLASH_OK;
}

/* The full answer from the final simplex (st: how the iteration stopped):
 * the near points of the hulls by eqs. (23)-(24) with the final weights,
 * the final simplex for a warm start, then by the hull distance |v| and
 * the radii intersecting, within the radii, or separated. */
static int answer(gjk_query *q, const gjk_params *p, const simplex_solution *sol, enum gjk_step st,
                  const clash_shape *a, const clash_shape *b, const clash_options *opt,
                  clash_result *r)
{
	const int n = q->dim;
	const int intersect = st == GJK_INTERSECT;
	const double vnorm = sqrt(sol->vv);
	int converged = st != GJK_STALLED;
	double pa[CLASH_MAX_DIM], pb[CLASH_MAX_DIM], xa[CLASH_MAX_DIM], xb[CLASH_MAX_DIM];
	vec_zero(pa, n);
	vec_zero(pb, n);
	r->warm_count = 0;
	for (int i = 0; i < q->npts; i++) {
		if (!(sol->mask & (1u << i)))
			continue;
		vec_axpy(pa, sol->lambda[i], q->pts[i]->a, n);
		vec_axpy(pb, sol->lambda[i], q->pts[i]->b, n);
		r->warm_a[r->warm_count] = q->pts[i]->ia;
		r->warm_b[r->warm_count] = q->pts[i]->ib;
		r->warm_count++;
	}
	to_world(xa, pa, p->unit, p->shift, n);
	to_world(xb, pb, p->unit, p->shift, n);

	r->has = CLASH_HAS_DISTANCE | CLASH_HAS_WARM;
	const double hull = intersect ? 0.0 : vnorm * p->unit;
	if (intersect) {
		int e = answer_intersecting(q, p, sol, pa, pb, xa, xb, a, b, opt, r, &converged);
		if (e != CLASH_OK)
			return e;
	} else if (hull - p->rsum <= p->tol)
		answer_within_radii(p, sol, vnorm, hull, xa, xb, a, b, n, r);
	else
		answer_separated(q, p, sol, vnorm, hull, xa, xb, a, b, r, &converged);
	r->converged = converged;
	return answer_finite(r, n);
}

/* clash_gjk for two convex shapes, primitives lowered: GJK88's Numerical
 * Algorithm (section VI) as set-up (first_direction, pair_frame,
 * query_init), step 1 (initial_simplex), steps 2-6 repeated (iterate) and
 * the answer (answer, or verdict for a verdict-only query). */
static int gjk_convex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                      clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	pair_clear(r);
	int err = support_check_query(a, b, opt);
	if (err)
		return err;
	r->dim = a->dim;
	gjk_start s;
	pair_start pass;
	first_direction(a, b, opt, &s, &pass);
	if (pair_frame(&s.fr, &pass, a, b, opt, gjk_convex, r, &err))
		return err;
	gjk_query q;
	gjk_params p;
	query_init(&q, &p, a, b, opt, &s);
	int extra = 0; /* support points a verdict's MPR took before GJK */
	int rc;
	if (initial_simplex(&q, &p, &s, a, b, opt, r, &extra, &rc))
		return rc;
	simplex_solution sol;
	enum gjk_step st;
	if ((err = iterate(&q, &p, opt, extra, &sol, &st, r)))
		return err;
	if (p.verdict_only)
		return verdict(&q, &sol, st, sqrt(sol.vv), p.unit, p.shift, p.tol, a, b, r);
	return answer(&q, &p, &sol, st, a, b, opt, r);
}
