/*
 * check_method_ipm.c — suite "method_ipm": method "ipm", clash_lp_ipm
 * (core/lp_ipm.c, the 2005 interframe paper's LP solved by a primal-dual
 * interior-point method).
 *
 * What is independent of the method under test:
 *   - closed forms: boxes apart, overlapping and touching in every
 *     dimension 1..8 (the verdict, the plane's normal and offset), spheres
 *     and a capsule-like segment whose gap is known, in and out of reach of
 *     their radii;
 *   - brute force: every separated answer's plane is checked against every
 *     vertex, radii included (each vertex of a on one side grown by ra, of b
 *     on the other grown by rb), and every intersecting answer's common
 *     point against both shapes;
 *   - the qhull oracle (tests/oracle.c) on the random 2-D and 3-D pairs of
 *     the "random_pairs" suite (tests/pairgen.c), outside the touching band;
 *   - clash_gjk, a different algorithm, on random 4-D, 6-D and 8-D
 *     polytopes and on 10 000-vertex point clouds, outside the touching
 *     band; and on the d-D polytopes the exact LP oracle (tests/oracle_lp.c,
 *     GLPK in rational arithmetic) where its hull verdict decides.
 * The warm plane of section 4.1 is checked to answer after 0 iterations
 * while it separates, and to be ignored (correctly) once it does not.  The
 * "proto" case runs the contract: method "ipm", the Result's warm plane fed
 * back, and every bad warm plane answered with its JSON Pointer.
 *
 * Pairs are built from printed seeds, so a failure names what to replay.
 */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "oracle.h"
#include "oracle_lp.h"
#include "pairgen.h"
#include "prng.h"
#include "proto.h"

/* Largest shape the d-D generator makes. */
#define IPM_MAXV 64

/* Replay of one random pair: CLASH_IPM_SEED=0x... CLASH_IPM_DIM=d makes the
 * random test cases of dimension d run that seed alone. */
static int replay_seed(int dim, uint64_t *seed)
{
	const char *s = getenv("CLASH_IPM_SEED"), *d = getenv("CLASH_IPM_DIM");
	if (!s || !*s)
		return 0;
	*seed = strtoull(s, NULL, 0);
	return (d && *d ? atoi(d) : 3) == dim ? 1 : -1;
}

/* ---- checking one answer ------------------------------------------------- */

/* World point i of a shape (its pose applied). */
static void world_point(const clash_shape *s, size_t i, double *x)
{
	int n = s->dim;
	const double *v = s->vertices + i * (size_t)n;
	for (int r = 0; r < n; r++) {
		double acc = s->posed ? s->translation[r] : 0.0;
		for (int k = 0; k < n; k++)
			acc += (s->posed ? s->linear[k * n + r] : (r == k)) * v[k];
		x[r] = acc;
	}
}

/* The largest violation of the plane n.x = c by the shapes grown by their
 * radii: a must lie in n.x <= c, b in n.x >= c.  *gap_a and *gap_b get the
 * clearances on each side (the smallest c - (n.x + ra) and (n.x - rb) - c). */
static double plane_violation(const clash_shape *a, const clash_shape *b, const double *normal,
                              double offset, double *gap_a, double *gap_b)
{
	int n = a->dim;
	double ga = INFINITY, gb = INFINITY, x[CLASH_MAX_DIM];
	for (size_t i = 0; i < a->count; i++) {
		world_point(a, i, x);
		double h = 0;
		for (int k = 0; k < n; k++)
			h += normal[k] * x[k];
		ga = fmin(ga, offset - (h + a->radius));
	}
	for (size_t i = 0; i < b->count; i++) {
		world_point(b, i, x);
		double h = 0;
		for (int k = 0; k < n; k++)
			h += normal[k] * x[k];
		gb = fmin(gb, (h - b->radius) - offset);
	}
	if (gap_a)
		*gap_a = ga;
	if (gap_b)
		*gap_b = gb;
	return fmax(0.0, -fmin(ga, gb));
}

/* clash_lp_ipm with the invariants every answer must keep: success, the
 * dimension, the has-bits, no NaN, a unit normal when separated, and a
 * verdict that is certified whenever it says so. */
static clash_result run_ipm(const clash_shape *a, const clash_shape *b, const clash_options *opt)
{
	clash_result r;
	int rc = clash_lp_ipm(a, b, opt, &r);
	ck_assert_msg(rc == CLASH_OK, "clash_lp_ipm: %s", clash_strerror(rc));
	int n = a->dim;
	ck_assert_int_eq(r.dim, n);
	ck_assert_int_ge(r.iterations, 0);
	ck_assert(r.warm_count == 0);
	if (!r.intersecting) {
		/* Always with a plane (the callers check it on every vertex); when
		 * unconverged, one whose gap beats the radii by less than the
		 * tolerance (lp_ipm.c: unsettled answers). */
		ck_assert_msg(r.has == CLASH_HAS_PLANE, "has %#x", r.has);
		double nn = 0;
		for (int k = 0; k < n; k++) {
			ck_assert(isfinite(r.normal[k]));
			nn += r.normal[k] * r.normal[k];
		}
		ck_near(sqrt(nn), 1.0, 1e-14);
		ck_assert(isfinite(r.offset));
	} else {
		ck_assert_msg(r.has == (r.converged ? CLASH_HAS_DISTANCE : 0u),
		              "has %#x converged %d", r.has, r.converged);
		ck_assert(r.distance == 0);
		for (int k = 0; k < n; k++) {
			ck_assert(isfinite(r.near_a[k]));
			ck_assert(r.near_a[k] == r.near_b[k]);
		}
	}
	return r;
}

/* Size of a shape pair: the sum of their vertex spans plus the radii. */
static double pair_size(const clash_shape *a, const clash_shape *b)
{
	double s = a->radius + b->radius, x[CLASH_MAX_DIM], y[CLASH_MAX_DIM];
	int n = a->dim;
	for (int w = 0; w < 2; w++) {
		const clash_shape *sh = w ? b : a;
		world_point(sh, 0, y);
		double m = 0;
		for (size_t i = 1; i < sh->count; i++) {
			world_point(sh, i, x);
			double d = 0;
			for (int k = 0; k < n; k++)
				d += (x[k] - y[k]) * (x[k] - y[k]);
			m = fmax(m, sqrt(d));
		}
		s += m;
	}
	return s;
}

/* The separated answer's plane must hold for every vertex (radii grown),
 * up to rounding of the world coordinates. */
static void check_plane(const clash_shape *a, const clash_shape *b, const clash_result *r,
                        double tol, const char *what)
{
	double ga, gb;
	double v = plane_violation(a, b, r->normal, r->offset, &ga, &gb);
	ck_assert_msg(v <= tol,
	              "%s: the plane is violated by %.3g (tolerance %.3g): clearance "
	              "a %.3g, b %.3g",
	              what, v, tol, ga, gb);
}

/* The intersecting answer's common point lies in both rounded shapes: its
 * distance to each (by clash_gjk against the point alone) is within the
 * radius plus tol. */
static void check_common_point(const clash_shape *a, const clash_shape *b, const clash_result *r,
                               double tol, const char *what)
{
	clash_shape pt;
	ck_assert_int_eq(clash_shape_init(&pt, a->dim, r->near_a, 1), CLASH_OK);
	for (int w = 0; w < 2; w++) {
		const clash_shape *s = w ? b : a;
		clash_shape hull = *s;
		hull.radius = 0;
		clash_result g;
		ck_assert_int_eq(clash_gjk(&pt, &hull, NULL, &g), CLASH_OK);
		if (!g.converged) /* gjk stalled: no judge for this point */
			continue;
		ck_assert_msg(g.distance <= s->radius + tol,
		              "%s: the common point is %.3g from %c, "
		              "radius %.3g (gjk converged %d after %d iterations)",
		              what, g.distance, w ? 'b' : 'a', s->radius, g.converged,
		              g.iterations);
	}
}

/* ---- closed forms -------------------------------------------------------- */

/* The corners of the box [lo, lo + 1]^dim. */
static size_t unit_box(int dim, const double *lo, double *v)
{
	size_t n = (size_t)1 << dim;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
			v[i * (size_t)dim + k] = lo[k] + ((i >> k) & 1);
	return n;
}

START_TEST(boxes_apart)
{
	static const double gaps[] = {0.5, 1e-3, 1e-6, 1e-9, 3.0};
	for (int dim = 1; dim <= CLASH_MAX_DIM; dim++) {
		for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
			for (int axis = 0; axis < dim; axis++) {
				for (int sign = -1; sign <= 1; sign += 2) {
					double va[256 * 8], vb[256 * 8], lo[8] = {0};
					lo[axis] = sign * (1 + gaps[g]);
					clash_shape a, b;
					clash_shape_init(&a, dim, va,
					                 unit_box(dim, (double[8]){0}, va));
					clash_shape_init(&b, dim, vb, unit_box(dim, lo, vb));
					clash_result r = run_ipm(&a, &b, NULL);
					ck_assert_msg(!r.intersecting,
					              "dim %d gap %g axis %d: intersecting", dim,
					              gaps[g], axis);
					/* The plane may stop short of the optimal normal
					 * +-e_axis (any separating plane is a certificate),
					 * but it separates, halfway across its gap, which is
					 * at most the distance. */
					ck_assert(r.normal[axis] * sign > 0);
					double ga, gb;
					ck_assert(plane_violation(&a, &b, r.normal, r.offset, &ga,
					                          &gb) == 0);
					ck_near(ga, gb, 1e-12);
					ck_assert(ga + gb <= gaps[g] * (1 + 1e-12) + 1e-15);
					if (dim == 1)
						ck_near(r.offset,
						        sign > 0 ? 1 + gaps[g] / 2 : gaps[g] / 2,
						        1e-15);
				}
			}
		}
	}
}
END_TEST

START_TEST(boxes_overlapping_and_touching)
{
	for (int dim = 1; dim <= CLASH_MAX_DIM; dim++) {
		double va[256 * 8], vb[256 * 8], lo[8];
		clash_shape a, b;
		clash_shape_init(&a, dim, va, unit_box(dim, (double[8]){0}, va));
		/* Overlapping by half in every coordinate; then touching along a
		 * facet, an edge ... down to a corner; then nearly touching, within
		 * the tolerance either way. */
		static const double shifts[] = {0.5, 1.0, 1.0 + 1e-14, 1.0 - 1e-14, 0.999};
		for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
			for (int m = 1; m <= dim; m++) {
				for (int k = 0; k < dim; k++)
					lo[k] = k < m ? shifts[s] : 0.25;
				clash_shape_init(&b, dim, vb, unit_box(dim, lo, vb));
				clash_result r = run_ipm(&a, &b, NULL);
				ck_assert_msg(
					r.intersecting && r.converged,
					"dim %d shift %.17g in %d coordinates: intersecting %d converged %d",
					dim, shifts[s], m, r.intersecting, r.converged);
				/* The common point is in both boxes. */
				for (int k = 0; k < dim; k++) {
					ck_assert(r.near_a[k] >= -1e-12 &&
					          r.near_a[k] <= 1 + 1e-12);
					ck_assert(r.near_a[k] >= lo[k] - 1e-12 &&
					          r.near_a[k] <= lo[k] + 1 + 1e-12);
				}
			}
		}
		/* Apart along the diagonal: only the corner pair matters. */
		for (int k = 0; k < dim; k++)
			lo[k] = 1 + 1e-6;
		clash_shape_init(&b, dim, vb, unit_box(dim, lo, vb));
		clash_result r = run_ipm(&a, &b, NULL);
		ck_assert(!r.intersecting);
		check_plane(&a, &b, &r, 1e-12, "boxes apart along the diagonal");
	}
}
END_TEST

/* Two balls (single vertices with radii) at distance 3, in every dimension
 * and a random direction: apart when the radii sum below 3. */
START_TEST(spheres)
{
	prng g = {0x5FE5};
	static const double rb[] = {1.5, 1.99, 2.0, 2.0 - 1e-13, 2.5};
	for (int dim = 1; dim <= CLASH_MAX_DIM; dim++) {
		for (size_t i = 0; i < sizeof rb / sizeof rb[0]; i++) {
			double u[8], ca[8], cb[8];
			prng_direction(&g, dim, u);
			for (int k = 0; k < dim; k++) {
				ca[k] = prng_range(&g, -10, 10);
				cb[k] = ca[k] + 3 * u[k];
			}
			clash_shape a, b;
			clash_shape_init(&a, dim, ca, 1);
			clash_shape_init(&b, dim, cb, 1);
			clash_shape_set_radius(&a, 1.0);
			clash_shape_set_radius(&b, rb[i]);
			clash_result r = run_ipm(&a, &b, NULL);
			double gap = 3 - 1 - rb[i];
			if (gap > 1e-12) {
				ck_assert_msg(!r.intersecting, "dim %d rb %g", dim, rb[i]);
				/* Two balls have one separating direction with the
				 * whole gap; the certificate may tilt by as much as the
				 * slack between its gap and the radii allows. */
				double cosang = 0;
				for (int k = 0; k < dim; k++)
					cosang += r.normal[k] * u[k];
				ck_assert(cosang > 1 - gap);
				check_plane(&a, &b, &r, 1e-12, "spheres");
			} else {
				ck_assert_msg(r.intersecting && r.converged, "dim %d rb %.17g", dim,
				              rb[i]);
				check_common_point(&a, &b, &r, 1e-12, "spheres");
			}
		}
	}
}
END_TEST

/* A segment of length 10 and a point at distance 3 from its end, beside it:
 * the LP's dual plane (where the ray between the centroids leaves B - A) is
 * not the widest gap, so radii between its gap and 3 need the margin phase. */
START_TEST(segment_and_point)
{
	static const double rsum[] = {0.5, 2.5, 2.9, 2.999999, 3.0, 3.000001, 3.1};
	for (int dim = 2; dim <= CLASH_MAX_DIM; dim++) {
		for (size_t i = 0; i < sizeof rsum / sizeof rsum[0]; i++) {
			double va[16] = {0}, vb[8] = {0};
			va[dim + 1] = 10; /* (0, 10, 0 ...) */
			vb[0] = 3;
			vb[1] = 10; /* (3, 10, 0 ...) */
			clash_shape a, b;
			clash_shape_init(&a, dim, va, 2);
			clash_shape_init(&b, dim, vb, 1);
			clash_shape_set_radius(&a, 0.25 * rsum[i]);
			clash_shape_set_radius(&b, 0.75 * rsum[i]);
			clash_result r = run_ipm(&a, &b, NULL);
			if (rsum[i] < 3) {
				ck_assert_msg(!r.intersecting, "dim %d radii %.17g", dim, rsum[i]);
				check_plane(&a, &b, &r, 1e-12, "segment and point");
			} else {
				ck_assert_msg(r.intersecting && r.converged,
				              "dim %d radii %.17g: %d %d", dim, rsum[i],
				              r.intersecting, r.converged);
				check_common_point(&a, &b, &r, 1e-11, "segment and point");
			}
		}
	}
}
END_TEST

/* Dimension 1, flat and degenerate shapes, far from the origin, tiny. */
START_TEST(degenerate)
{
	/* Intervals. */
	double i1[] = {0, 1}, i2[] = {2, 3}, i3[] = {1, 2}, i4[] = {-3, -2};
	clash_shape a, b;
	clash_shape_init(&a, 1, i1, 2);
	clash_shape_init(&b, 1, i2, 2);
	clash_result r = run_ipm(&a, &b, NULL);
	ck_assert(!r.intersecting && r.normal[0] == 1);
	ck_near(r.offset, 1.5, 1e-15);
	clash_shape_init(&b, 1, i4, 2);
	r = run_ipm(&a, &b, NULL);
	ck_assert(!r.intersecting && r.normal[0] == -1);
	ck_near(r.offset, 1.0, 1e-15);
	clash_shape_init(&b, 1, i3, 2);
	r = run_ipm(&a, &b, NULL);
	ck_assert(r.intersecting);
	ck_near(r.near_a[0], 1.0, 1e-12);

	/* The same point twice; a vertex repeated 50 times. */
	double p[3] = {1, 2, 3}, rep[150];
	clash_shape_init(&a, 3, p, 1);
	clash_shape_init(&b, 3, p, 1);
	r = run_ipm(&a, &b, NULL);
	ck_assert(r.intersecting && r.converged);
	for (int i = 0; i < 50; i++)
		memcpy(rep + 3 * i, (double[3]){1, 2, 3.5}, sizeof p);
	clash_shape_init(&b, 3, rep, 50);
	r = run_ipm(&a, &b, NULL);
	ck_assert(!r.intersecting && r.normal[2] > 0.99);
	check_plane(&a, &b, &r, 1e-15, "points");

	/* Coplanar triangles in 3-D: every z is 0, the LP's z row is zero. */
	double t1[] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, t2[] = {0.2, 0.2, 0, 2, 0, 0, 0, 2, 0};
	double t3[] = {1, 1, 0, 2, 1, 0, 1, 2, 0};
	clash_shape_init(&a, 3, t1, 3);
	clash_shape_init(&b, 3, t2, 3);
	r = run_ipm(&a, &b, NULL);
	ck_assert(r.intersecting && r.converged);
	clash_shape_init(&b, 3, t3, 3);
	r = run_ipm(&a, &b, NULL);
	ck_assert(!r.intersecting);
	check_plane(&a, &b, &r, 1e-12, "coplanar triangles");

	/* Far from the origin and tiny: boxes at 1e5 with a gap of 1e-6; boxes
	 * of size 1e-6 with a gap of 1e-12; and overlapping versions. */
	static const struct {
		double at, size, gap;
	} cases[] = {
		{1e5, 1, 1e-6},   {1e5, 1, -1e-3},   {0, 1e-6, 1e-12},
		{0, 1e-6, -1e-9}, {-3e7, 1e3, 1e-4},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double va[24], vb[24], lo[3];
		for (int k = 0; k < 3; k++)
			lo[k] = cases[c].at;
		unit_box(3, lo, va);
		lo[0] += 1;
		unit_box(3, lo, vb);
		for (int i = 0; i < 24; i++) {
			va[i] = cases[c].at + (va[i] - cases[c].at) * cases[c].size;
			vb[i] = cases[c].at + (vb[i] - cases[c].at) * cases[c].size;
		}
		for (int i = 0; i < 8; i++)
			vb[3 * i] += cases[c].gap;
		clash_shape_init(&a, 3, va, 8);
		clash_shape_init(&b, 3, vb, 8);
		r = run_ipm(&a, &b, NULL);
		ck_assert_msg(r.intersecting == (cases[c].gap < 0), "case %zu", c);
		if (!r.intersecting)
			check_plane(&a, &b, &r,
			            8 * DBL_EPSILON * (fabs(cases[c].at) + cases[c].size),
			            "far or tiny boxes");
	}
}
END_TEST

/* A posed shape gives the answer of its world coordinates. */
START_TEST(posed)
{
	prng g = {0x905ED};
	for (int t = 0; t < 200; t++) {
		int dim = prng_int(&g, 2, CLASH_MAX_DIM);
		size_t n = (size_t)prng_int(&g, 1, 12);
		double local[12 * 8], world[12 * 8], m[81], va[9 * 8] = {0};
		int m1 = dim + 1;
		memset(m, 0, sizeof m);
		for (int c = 0; c < dim; c++)
			for (int r = 0; r < dim; r++)
				m[c * m1 + r] = (r == c ? 1.5 : 0) + prng_range(&g, -0.5, 0.5);
		for (int r = 0; r < dim; r++)
			m[dim * m1 + r] = prng_range(&g, -3, 3);
		m[dim * m1 + dim] = 1;
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < dim; k++)
				local[i * (size_t)dim + k] = prng_range(&g, -1, 1);
		/* a: the unit simplex; b: random points under a random affine pose,
		 * and the same points mapped to the world by hand. */
		clash_shape a, b, bw;
		for (int k = 0; k < dim; k++)
			va[(k + 1) * dim + k] = 1;
		clash_shape_init(&a, dim, va, (size_t)dim + 1);
		clash_shape_init(&b, dim, local, n);
		ck_assert_int_eq(clash_shape_set_matrix(&b, m), CLASH_OK);
		for (size_t i = 0; i < n; i++)
			world_point(&b, i, world + i * (size_t)dim);
		clash_shape_init(&bw, dim, world, n);
		clash_result r1 = run_ipm(&a, &b, NULL), r2 = run_ipm(&a, &bw, NULL);
		clash_result gj;
		ck_assert_int_eq(clash_gjk(&a, &bw, NULL, &gj), CLASH_OK);
		double band = 1e-9 * pair_size(&a, &bw);
		if (gj.intersecting ? gj.depth_lower_bound > band : gj.distance > band) {
			ck_assert_int_eq(r1.intersecting, gj.intersecting);
			ck_assert_int_eq(r2.intersecting, gj.intersecting);
		}
		if (!r1.intersecting)
			check_plane(&a, &bw, &r1, 1e-12, "posed");
	}
}
END_TEST

START_TEST(errors)
{
	double v[] = {0, 0, 0, 1, 1, 1};
	clash_shape a, b, b2;
	clash_shape_init(&a, 3, v, 2);
	clash_shape_init(&b, 3, v + 3, 1);
	clash_shape_init(&b2, 2, v, 3);
	clash_result r;
	memset(&r, 0xFF, sizeof r);
	ck_assert_int_eq(clash_lp_ipm(NULL, &b, NULL, &r), CLASH_EINVAL);
	ck_assert_int_eq(r.dim, 0); /* zeroed on error */
	ck_assert_int_eq(clash_lp_ipm(&a, &b, NULL, NULL), CLASH_EINVAL);
	ck_assert_int_eq(clash_lp_ipm(&a, &b2, NULL, &r), CLASH_EDIM);
	clash_shape e = a;
	e.count = 0;
	ck_assert_int_eq(clash_lp_ipm(&a, &e, NULL, &r), CLASH_EEMPTY);
	e = a;
	e.radius = -1;
	ck_assert_int_eq(clash_lp_ipm(&e, &b, NULL, &r), CLASH_ERADIUS);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	double zero[4] = {0, 0, 0, 1}, nan[4] = {1, NAN, 0, 1}, inf[4] = {1, 0, 0, INFINITY};
	opt.warm_plane = zero;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_EINVAL);
	opt.warm_plane = nan;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_EINVAL);
	opt.warm_plane = inf;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_EINVAL);
	opt.warm_plane = NULL;
	size_t wa = 2, wb = 0;
	opt.warm_count = 1;
	opt.warm_a = &wa;
	opt.warm_b = &wb;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_EWARM);
	/* Coordinates too large for any answer: an error, never a NaN. */
	double big[] = {-1e308, 0, 0, 1e308, 0, 0}, big2[] = {0, 1e308, 0};
	clash_shape_init(&a, 3, big, 2);
	clash_shape_init(&b, 3, big2, 1);
	int rc = clash_lp_ipm(&a, &b, NULL, &r);
	ck_assert(rc == CLASH_ERANGE || rc == CLASH_OK);
	if (rc == CLASH_OK)
		ck_assert(isfinite(r.offset) && isfinite(r.near_a[0]));
}
END_TEST

/* Compound shapes go through the compound layer: an L of two boxes and a
 * triangle in its concave corner, inside the L's hull but 0.5 from the L;
 * then moved onto the L. */
START_TEST(compound)
{
	double p0[] = {0, 0, 4, 0, 4, 1, 0, 1}, p1[] = {0, 1, 1, 1, 1, 4, 0, 4};
	double tri[] = {2, 1.5, 3, 3, 3.5, 2};
	clash_shape parts[2], l, t;
	ck_assert_int_eq(clash_shape_init(&parts[0], 2, p0, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&parts[1], 2, p1, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init_compound(&l, 2, parts, 2), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&t, 2, tri, 3), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_lp_ipm(&l, &t, NULL, &r), CLASH_OK);
	ck_assert(!r.intersecting && r.converged && (r.has & CLASH_HAS_PARTS));
	if (r.has & CLASH_HAS_PLANE) /* only if it separates every part */
		ck_assert(plane_violation(&parts[0], &t, r.normal, r.offset, NULL, NULL) == 0 &&
		          plane_violation(&parts[1], &t, r.normal, r.offset, NULL, NULL) == 0);
	/* Rounded by 0.6, the L reaches the triangle. */
	clash_shape_set_radius(&l, 0.6);
	ck_assert_int_eq(clash_lp_ipm(&l, &t, NULL, &r), CLASH_OK);
	ck_assert(r.intersecting && r.converged);
	clash_shape_set_radius(&l, 0.4);
	ck_assert_int_eq(clash_lp_ipm(&l, &t, NULL, &r), CLASH_OK);
	ck_assert(!r.intersecting);
	clash_shape_set_radius(&l, 0);
	clash_shape_set_translation(&t, (double[2]){-1.5, -0.25});
	ck_assert_int_eq(clash_lp_ipm(&l, &t, NULL, &r), CLASH_OK);
	ck_assert(r.intersecting && r.converged);
	ck_assert_uint_eq(r.part_a, 1); /* the vertex (0.5, 1.25) is in the upright box */
}
END_TEST

/* An iteration cap too low for a verdict: the answer says so. */
START_TEST(iteration_cap)
{
	prng g = {0xCA9};
	int capped = 0;
	for (int t = 0; t < 100; t++) {
		double va[30 * 3], vb[30 * 3], u[3];
		for (int i = 0; i < 30; i++) {
			prng_direction(&g, 3, u);
			for (int k = 0; k < 3; k++) {
				va[3 * i + k] = u[k];
				vb[3 * i + k] =
					u[k] + (k == 0 ? 2.0 + prng_range(&g, -0.01, 0.01) : 0);
			}
		}
		clash_shape a, b;
		clash_shape_init(&a, 3, va, 30);
		clash_shape_init(&b, 3, vb, 30);
		clash_options opt;
		memset(&opt, 0, sizeof opt);
		opt.max_iterations = 1;
		clash_result r = run_ipm(&a, &b, &opt);
		ck_assert_int_le(r.iterations, 1);
		capped += !r.converged;
		if (!r.intersecting)
			check_plane(&a, &b, &r, 1e-12, "capped");
	}
	ck_assert_int_gt(capped, 0); /* the cap did bite, and said so */
}
END_TEST

/* clash_options.cancel: read before each interior-point step.  Set before
 * the query, it stops the query with CLASH_ECANCELED and a zeroed result;
 * cleared, the same query answers (an intersecting pair: no warm plane can
 * decide it before the steps). */
START_TEST(cancel)
{
	double va[] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2};
	double vb[] = {0.5, 0.5, 0.5, 3, 0, 0, 0, 3, 0, 0, 0, 3};
	clash_shape a, b;
	clash_shape_init(&a, 3, va, 4);
	clash_shape_init(&b, 3, vb, 4);
	volatile int stop = 1;
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	opt.cancel = &stop;
	clash_result r;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_ECANCELED);
	ck_assert_int_eq(r.has, 0);
	ck_assert_int_eq(r.iterations, 0);
	stop = 0;
	ck_assert_int_eq(clash_lp_ipm(&a, &b, &opt, &r), CLASH_OK);
	ck_assert(r.intersecting);
}
END_TEST

/* Unsettled answers say what the bounds prove: with a tolerance of 0.2 and
 * caps of 1 to 3 iterations, the pairs of iteration_cap 0.001 to 0.2 apart
 * often end with a plane whose gap is positive but below the tolerance.
 * Such an answer is "separated", unconverged, and its plane holds on every
 * vertex; the other unsettled answers are "intersecting" with nothing
 * claimed (run_ipm checks has 0). */
START_TEST(unsettled)
{
	prng g = {0xFA11};
	int apart_unsettled = 0, settled = 0;
	for (int t = 0; t < 300; t++) {
		double va[30 * 3], vb[30 * 3], u[3], gap = prng_range(&g, 0.001, 0.2);
		for (int i = 0; i < 30; i++) {
			prng_direction(&g, 3, u);
			for (int k = 0; k < 3; k++) {
				va[3 * i + k] = u[k];
				vb[3 * i + k] = u[k] + (k == 0 ? 2.0 + gap : 0);
			}
		}
		clash_shape a, b;
		clash_shape_init(&a, 3, va, 30);
		clash_shape_init(&b, 3, vb, 30);
		clash_options opt;
		memset(&opt, 0, sizeof opt);
		opt.max_iterations = 1 + t % 3;
		opt.tolerance = 0.2;
		clash_result r = run_ipm(&a, &b, &opt);
		ck_assert_int_le(r.iterations, opt.max_iterations);
		settled += r.converged;
		if (!r.intersecting) {
			double ga, gb;
			check_plane(&a, &b, &r, 1e-12, "unsettled");
			plane_violation(&a, &b, r.normal, r.offset, &ga, &gb);
			ck_assert(ga + gb > 0); /* a real gap, not a touching plane */
			apart_unsettled += !r.converged;
		}
	}
	ck_assert_int_gt(apart_unsettled, 0);
	ck_assert_int_gt(settled, 0);
}
END_TEST

/* A small simplex whose apex is at (d, .., d, g) against the box
 * [0, L]^(n-1) x [-L, 0], for n = 2..8: the hulls are g apart when g > 0
 * (the apex's nearest point (d, .., d, 0) lies on the box's top facet, near
 * its corner 0), and overlap by at least min(-g, d) when g < 0.  With g and
 * d from 1e-10 to 1e-6 of L the optimum is nearly degenerate: the LP's w,
 * the plane's gap and the weights of the facet's far corners are all tiny.
 * The normal-equations solver of the first version got 21 of these 420
 * wrong (intersecting, unconverged, for pairs up to 5e-9 L apart). */
START_TEST(near_corner)
{
	prng gen = {0xC0512};
	for (int n = 2; n <= CLASH_MAX_DIM; n++) {
		for (int t = 0; t < 60; t++) {
			static double vb[256 * 8], va[9 * 8];
			double L = prng_log(&gen, 1e-3, 1e5);
			size_t nb = (size_t)1 << n;
			for (size_t i = 0; i < nb; i++)
				for (int k = 0; k < n; k++)
					vb[i * (size_t)n + k] =
						((i >> k) & 1) ? (k == n - 1 ? -L : L) : 0;
			double g = (t % 2 ? 1 : -1) * prng_log(&gen, 1e-10, 1e-6) * L;
			double d = prng_log(&gen, 1e-10, 1e-3) * L, r = prng_log(&gen, 1e-3, 1) * L;
			for (int k = 0; k < n; k++)
				va[k] = k == n - 1 ? g : d;
			for (int i = 1; i <= n; i++) {
				double u[8];
				prng_direction(&gen, n, u);
				for (int k = 0; k < n; k++)
					va[i * n + k] =
						va[k] + r * (k == n - 1 ? fabs(u[k]) + 0.1 : u[k]);
			}
			clash_shape a, b;
			clash_shape_init(&a, n, va, (size_t)n + 1);
			clash_shape_init(&b, n, vb, nb);
			clash_result res = run_ipm(&a, &b, NULL);
			char what[96];
			snprintf(what, sizeof what, "near corner n %d L %.3g g %.3g d %.3g", n, L,
			         g, d);
			ck_assert_msg(res.intersecting == (g < 0) && res.converged,
			              "%s: intersecting %d converged %d after %d iterations", what,
			              res.intersecting, res.converged, res.iterations);
			double size = pair_size(&a, &b);
			if (g > 0)
				check_plane(&a, &b, &res, 2e-12 * size, what);
			else
				check_common_point(&a, &b, &res, 2e-12 * size, what);
		}
	}
}
END_TEST

/* Pairs of `make crosscheck` that the normal-equations solver answered
 * "intersecting", unconverged, though they are apart by far more than the
 * touching band (1e-9 of the size): 1.9e-8 and 1.4e-9 of the size, a
 * vertex against a sheared face; and one 2.5e-9 deep it left unconverged.
 * Each must get the oracle's verdict, converged, with its certificate. */
START_TEST(crosscheck_seeds)
{
	static const uint64_t seeds[] = {
		UINT64_C(0xa405bc761007f035), /* 8.8e-4 apart at size 4.6e4 */
		UINT64_C(0xf3f2e2b11f5f26a),  /* 1.74e-11 apart at size 0.0123 */
		UINT64_C(0x6d89c3233ec4e459), /* 2.8e-9 deep at size 1.12 */
	};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		unsigned long long sd = (unsigned long long)seeds[i];
		ck_assert_int_eq(pair_make(&p, seeds[i], 3, &ca, &cb, &o), 0);
		double size = p.a.extent + p.b.extent + p.a.radius + p.b.radius, coord = 0;
		for (int k = 0; k < 3; k++)
			coord = fmax(coord, fabs(p.O[k]) + size + fabs(p.a.t[k]) + fabs(p.b.t[k]));
		double band = 1e-9 * size + 8 * DBL_EPSILON * coord;
		ck_assert_msg(o.distance > band || o.depth > band, "seed %#llx: in the band", sd);
		clash_result r = run_ipm(&ca, &cb, NULL);
		ck_assert_msg(r.intersecting == o.intersecting && r.converged,
		              "seed %#llx: ipm intersecting %d converged %d after %d iterations; "
		              "oracle distance %.3g depth %.3g",
		              sd, r.intersecting, r.converged, r.iterations, o.distance, o.depth);
		char what[48];
		snprintf(what, sizeof what, "seed %#llx", sd);
		double tol = 2e-12 * size + 8 * DBL_EPSILON * coord;
		if (!r.intersecting)
			check_plane(&ca, &cb, &r, tol, what);
		else
			check_common_point(&ca, &cb, &r, tol, what);
	}
}
END_TEST

/* ---- the warm plane (section 4.1) ---------------------------------------- */

START_TEST(warm_plane)
{
	double va[8 * 3], vb[8 * 3], lo[3] = {0, 0, 0};
	unit_box(3, lo, va);
	clash_shape a, b;
	clash_shape_init(&a, 3, va, 8);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	double plane[4];

	/* Cold, then warm with the answer's own plane: 0 iterations. */
	lo[0] = 2;
	unit_box(3, lo, vb);
	clash_shape_init(&b, 3, vb, 8);
	clash_result r = run_ipm(&a, &b, NULL);
	ck_assert(!r.intersecting && r.iterations > 0);
	memcpy(plane, r.normal, 3 * sizeof(double));
	plane[3] = r.offset;
	opt.warm_plane = plane;
	clash_result w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations == 0 && w.converged);
	ck_assert(memcmp(w.normal, r.normal, sizeof r.normal) == 0);
	ck_near(w.offset, r.offset, 1e-15);

	/* B moves on, the plane still separates: 0 iterations, the plane
	 * re-centred in the new gap. */
	clash_shape_set_translation(&b, (double[3]){0.5, 3, -2});
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations == 0);
	ck_near(w.offset, 1.75, 1e-15);
	check_plane(&a, &b, &w, 1e-15, "warm, moved");

	/* Any length of normal will do. */
	double scaled[4] = {7 * plane[0], 7 * plane[1], 7 * plane[2], 7 * plane[3]};
	opt.warm_plane = scaled;
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations == 0);
	/* Normals at the ends of the range of a double. */
	double huge[4] = {1e308, 1e307 * plane[1], 1e307 * plane[2], 0};
	double tiny[4] = {5e-324, 0, 0, 1e300};
	opt.warm_plane = huge;
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting);
	opt.warm_plane = tiny;
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations == 0 && w.normal[0] == 1);
	opt.warm_plane = plane;

	/* B goes round to the other side: the plane no longer separates, the
	 * LP runs and finds the new one. */
	clash_shape_set_translation(&b, (double[3]){-4, 0, 0});
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations > 0);
	ck_near(w.normal[0], -1, 1e-9);
	check_plane(&a, &b, &w, 1e-12, "warm, other side");

	/* B moves into A: intersecting, found by iterating. */
	clash_shape_set_translation(&b, (double[3]){-2.5, 0.3, 0});
	w = run_ipm(&a, &b, &opt);
	ck_assert(w.intersecting && w.converged && w.iterations > 0);

	/* Radii: the plane separates the hulls but the rounded shapes touch
	 * across it: not a certificate. */
	clash_shape_set_translation(&b, (double[3]){0, 0, 0});
	clash_shape_set_radius(&a, 0.3);
	clash_shape_set_radius(&b, 0.7);
	w = run_ipm(&a, &b, &opt);
	ck_assert(w.intersecting && w.converged && w.iterations > 0);
	clash_shape_set_radius(&b, 0.69);
	w = run_ipm(&a, &b, &opt);
	ck_assert(!w.intersecting && w.iterations == 0);
	check_plane(&a, &b, &w, 1e-15, "warm, radii");
}
END_TEST

/* The paper's use: frames of a motion, each query warmed by the previous
 * answer's plane.  Most frames while apart cost no iteration, and every
 * verdict is gjk's. */
START_TEST(warm_frames)
{
	prng g = {0xF4A3E5};
	double va[40 * 3], vb[40 * 3], u[3];
	for (int i = 0; i < 40; i++) {
		prng_direction(&g, 3, u);
		for (int k = 0; k < 3; k++) {
			va[3 * i + k] = u[k] * (k == 0 ? 2 : 1);
			prng_direction(&g, 3, u);
			vb[3 * i + k] = 0.7 * u[k];
		}
	}
	clash_shape a, b;
	clash_shape_init(&a, 3, va, 40);
	clash_shape_init(&b, 3, vb, 40);
	double plane[4];
	int have = 0, free_frames = 0, frames = 0, apart = 0;
	for (int f = 0; f <= 300; f++) {
		double t = f / 300.0, ang = 4 * t;
		double q[4] = {0, 0, sin(ang / 2), cos(ang / 2)};
		clash_shape_set_quaternion(&b, q);
		clash_shape_set_translation(&b, (double[3]){6 - 5.5 * t, 1.5 * sin(7 * t), 0.2});
		clash_options opt;
		memset(&opt, 0, sizeof opt);
		opt.warm_plane = have ? plane : NULL;
		clash_result r = run_ipm(&a, &b, &opt), gj;
		ck_assert_int_eq(clash_gjk(&a, &b, NULL, &gj), CLASH_OK);
		double band = 1e-9 * pair_size(&a, &b);
		if (gj.intersecting ? gj.depth_lower_bound > band : gj.distance > band)
			ck_assert_msg(r.intersecting == gj.intersecting, "frame %d", f);
		frames++;
		if (!r.intersecting) {
			apart++;
			free_frames += r.iterations == 0;
			check_plane(&a, &b, &r, 1e-12, "frames");
			memcpy(plane, r.normal, sizeof plane - sizeof(double));
			plane[3] = r.offset;
			have = 1;
		}
	}
	printf("ipm warm frames: %d frames, %d apart, %d of them answered by the previous plane\n",
	       frames, apart, free_frames);
	ck_assert_int_gt(apart, 100);
	ck_assert_int_gt(free_frames, apart / 2);
}
END_TEST

/* ---- random d-D polytopes against clash_gjk ------------------------------- */

typedef struct dshape {
	size_t count;
	double v[IPM_MAXV * CLASH_MAX_DIM];
} dshape;

/* A random polytope of dimension dim around c: points on a sphere, in a
 * ball, box corners (up to 64) plus extra points, or a stretched cloud. */
static void random_dshape(prng *g, int dim, double scale, const double *c, dshape *s)
{
	int kind = prng_int(g, 0, 3);
	double u[CLASH_MAX_DIM], ax[CLASH_MAX_DIM];
	for (int k = 0; k < dim; k++)
		ax[k] = kind == 3 ? prng_log(g, 0.05, 5) : 1;
	if (kind == 2) {
		int cd = dim < 6 ? dim : 6;
		size_t corners = (size_t)1 << cd;
		s->count = corners;
		for (size_t i = 0; i < corners; i++)
			for (int k = 0; k < dim; k++)
				s->v[i * (size_t)dim + k] =
					c[k] + scale * (k < cd ? ((i >> k) & 1 ? 1 : -1)
				                               : prng_range(g, -1, 1));
		return;
	}
	s->count = (size_t)prng_int(g, 1, IPM_MAXV);
	for (size_t i = 0; i < s->count; i++) {
		prng_direction(g, dim, u);
		double rad = kind == 1 ? pow(prng_unit(g), 1.0 / dim) : 1;
		for (int k = 0; k < dim; k++)
			s->v[i * (size_t)dim + k] = c[k] + scale * rad * ax[k] * u[k];
	}
}

typedef struct agree_stats {
	int pairs, separated, intersecting, band, unconverged, max_iterations, gjk_unconverged;
	int glpk; /* verdicts the exact LP oracle judged */
	long iterations;
} agree_stats;

/* The exact LP oracle (GLPK, exact rational arithmetic) on the hulls: when
 * they meet the shapes intersect, and when their 1-norm distance d1 is above
 * the band times sqrt(dim) (the Euclidean distance is at least d1 /
 * sqrt(dim)) unrounded shapes are apart. */
static void agree_with_glpk(const clash_shape *a, const clash_shape *b, const clash_result *r,
                            double band, unsigned long long seed, agree_stats *st)
{
	static double wa[IPM_MAXV * CLASH_MAX_DIM], wb[IPM_MAXV * CLASH_MAX_DIM];
	int n = a->dim;
	for (size_t i = 0; i < a->count; i++)
		world_point(a, i, wa + i * (size_t)n);
	for (size_t i = 0; i < b->count; i++)
		world_point(b, i, wb + i * (size_t)n);
	double d1;
	int in;
	ck_assert_int_eq(oracle_lp_distance1(n, wa, a->count, wb, b->count, &d1, &in, NULL, NULL),
	                 ORACLE_LP_OK);
	if (in) {
		ck_assert_msg(r->intersecting,
		              "seed %#llx (%d-D): the hulls meet (GLPK), ipm says "
		              "separated",
		              seed, n);
		st->glpk++;
	} else if (a->radius + b->radius == 0 && d1 > band * sqrt(n)) {
		ck_assert_msg(!r->intersecting,
		              "seed %#llx (%d-D): the hulls are %.3g apart in the "
		              "1-norm (GLPK), ipm says intersecting",
		              seed, n, d1);
		st->glpk++;
	}
}

/* Place b at hull gap `gap` from a along gjk's near direction (exact up to
 * gjk's own accuracy, which the band absorbs), then compare with gjk, and
 * with the exact LP oracle when `glpk` is set. */
static void agree_with_gjk(clash_shape *a, clash_shape *b, double *t, double gap,
                           unsigned long long seed, int glpk, agree_stats *st)
{
	int n = a->dim;
	clash_shape ha = *a, hb = *b;
	ha.radius = hb.radius = 0;
	clash_result g0;
	ck_assert_int_eq(clash_gjk(&ha, &hb, NULL, &g0), CLASH_OK);
	ck_assert(!g0.intersecting && g0.distance > 0);
	double f = 1 - gap / g0.distance;
	for (int k = 0; k < n; k++)
		t[k] += f * (g0.near_a[k] - g0.near_b[k]);
	clash_shape_set_translation(b, t);

	clash_result r = run_ipm(a, b, NULL), g;
	ck_assert_int_eq(clash_gjk(a, b, NULL, &g), CLASH_OK);
	double size = pair_size(a, b), band = 1e-9 * size;
	st->pairs++;
	st->iterations += r.iterations;
	if (r.iterations > st->max_iterations)
		st->max_iterations = r.iterations;
	st->unconverged += !r.converged;
	if (!g.converged) {
		st->gjk_unconverged++; /* then gjk's distance is only an upper bound */
	} else if (g.intersecting ? g.depth_lower_bound > band : g.distance > band) {
		ck_assert_msg(
			r.intersecting == g.intersecting,
			"seed %#llx dim %d: ipm intersecting %d (converged %d, %d iterations), "
			"gjk %d at distance %.3g depth bound %.3g (converged %d)",
			seed, n, r.intersecting, r.converged, r.iterations, g.intersecting,
			g.distance, g.depth_lower_bound, g.converged);
		ck_assert_msg(r.converged, "seed %#llx: unconverged outside the band", seed);
		if (g.intersecting)
			st->intersecting++;
		else
			st->separated++;
	} else {
		st->band++;
	}
	if (glpk)
		agree_with_glpk(a, b, &r, band, seed, st);
	char what[64];
	snprintf(what, sizeof what, "seed %#llx (%d-D)", seed, n);
	if (!r.intersecting)
		check_plane(a, b, &r, 2e-12 * size, what);
	else if (r.converged)
		check_common_point(a, b, &r, 2e-12 * size, what);
}

static void dims_run(int dim, int count, uint64_t base)
{
	agree_stats st;
	memset(&st, 0, sizeof st);
	uint64_t one;
	int replay = replay_seed(dim, &one);
	if (replay)
		count = replay > 0;
	for (int i = 0; i < count; i++) {
		uint64_t seed = replay ? one : pair_seed(base, i);
		prng g = {seed};
		static dshape da, db;
		double zero[CLASH_MAX_DIM] = {0}, t[CLASH_MAX_DIM], u[CLASH_MAX_DIM];
		double sa = prng_log(&g, 1e-2, 1e2), sb = sa * prng_log(&g, 0.1, 10);
		random_dshape(&g, dim, sa, zero, &da);
		random_dshape(&g, dim, sb, zero, &db);
		clash_shape a, b;
		clash_shape_init(&a, dim, da.v, da.count);
		clash_shape_init(&b, dim, db.v, db.count);
		int rounded = prng_unit(&g) < 0.3;
		if (rounded) {
			clash_shape_set_radius(&a, sa * prng_range(&g, 0, 0.5));
			clash_shape_set_radius(&b, sb * prng_range(&g, 0, 0.5));
		}
		prng_direction(&g, dim, u);
		for (int k = 0; k < dim; k++)
			t[k] = 3 * (sa + sb) * u[k];
		clash_shape_set_translation(&b, t);
		double size = 2 * (sa + sb), rsum = a.radius + b.radius, gap;
		double x = prng_unit(&g);
		if (x < 0.35)
			gap = rsum + size * prng_log(&g, 1e-4, 1);
		else if (x < 0.6)
			gap = rsum +
			      (prng_unit(&g) < 0.5 ? -1 : 1) * size * prng_log(&g, 1e-8, 1e-4);
		else
			gap = rsum - size * prng_range(&g, 0.01, 0.5);
		agree_with_gjk(&a, &b, t, gap, (unsigned long long)seed, 1, &st);
	}
	oracle_lp_release();
	printf("ipm vs gjk %d-D: %d pairs: %d separated, %d intersecting, %d in the touching band, "
	       "%d that gjk could not judge; %d verdicts also judged by GLPK; iterations mean %.2f "
	       "max %d; %d unconverged\n",
	       dim, st.pairs, st.separated, st.intersecting, st.band, st.gjk_unconverged, st.glpk,
	       (double)st.iterations / (st.pairs + !st.pairs), st.max_iterations, st.unconverged);
	if (replay)
		return;
	ck_assert_int_gt(st.separated, count / 5);
	ck_assert_int_gt(st.intersecting, count / 5);
	ck_assert_int_lt(st.gjk_unconverged, count / 20);
	ck_assert_int_gt(st.glpk, count / 2);
}

START_TEST(dims_4)
{
	dims_run(4, 400, UINT64_C(0x4D1B0000));
}
END_TEST
START_TEST(dims_6)
{
	dims_run(6, 400, UINT64_C(0x6D1B0000));
}
END_TEST
START_TEST(dims_8)
{
	dims_run(8, 200, UINT64_C(0x8D1B0000));
}
END_TEST

/* 10 000 points on spheres (and an elongated cloud): the LP sees about 20
 * vertices per shape at a time; the re-check of every vertex must bring in
 * the ones that matter. */
START_TEST(large_clouds)
{
	enum {
		N = 10000
	};
	static double va[N * 6], vb[N * 6];
	agree_stats st;
	memset(&st, 0, sizeof st);
	prng g = {0x10000};
	static const double gaps[] = {0.5, 1e-3, 1e-6, -1e-6, -1e-3, -0.5};
	for (int dim = 3; dim <= 6; dim += 3) {
		for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++) {
			for (int stretched = 0; stretched < 2; stretched++) {
				double u[6], t[6];
				for (int j = 0; j < N; j++) {
					prng_direction(&g, dim, u);
					for (int k = 0; k < dim; k++) {
						va[j * dim + k] =
							u[k] * (stretched && k == 0 ? 8 : 1);
						prng_direction(&g, dim, u);
						vb[j * dim + k] = 0.5 * u[k];
					}
				}
				clash_shape a, b;
				clash_shape_init(&a, dim, va, N);
				clash_shape_init(&b, dim, vb, N);
				/* Start far off the long axis, so that the centres'
				 * direction points at the wrong vertices. */
				prng_direction(&g, dim, u);
				for (int k = 0; k < dim; k++)
					t[k] = 20 * u[k];
				clash_shape_set_translation(&b, t);
				agree_with_gjk(&a, &b, t, gaps[i], 0x10000 + i, 0, &st);
			}
		}
	}
	printf("ipm large clouds: %d pairs of 10000-vertex shapes: %d separated, %d "
	       "intersecting, %d in the band; iterations mean %.2f max %d\n",
	       st.pairs, st.separated, st.intersecting, st.band, (double)st.iterations / st.pairs,
	       st.max_iterations);
	ck_assert_int_eq(st.unconverged, 0);
}
END_TEST

/* ---- the pairs of the "random_pairs" suite, against the oracle ------------ */

static void pairs_run(int dim, int count, uint64_t base)
{
	agree_stats st;
	memset(&st, 0, sizeof st);
	int warm_free = 0, skipped = 0, apart = 0;
	uint64_t one;
	int replay = replay_seed(dim, &one);
	if (replay)
		count = replay > 0;
	for (int i = 0; i < count; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		uint64_t seed = replay ? one : pair_seed(base, i);
		if (replay) {
			pair_make(&p, seed, dim, &ca, &cb, &o);
			pair_dump(&p);
		}
		if (pair_make(&p, seed, dim, &ca, &cb, &o) < 0) {
			skipped++;
			continue;
		}
		unsigned long long sd = (unsigned long long)seed;
		clash_result r = run_ipm(&ca, &cb, NULL), gj;
		ck_assert_int_eq(clash_gjk(&ca, &cb, NULL, &gj), CLASH_OK);
		double size = p.a.extent + p.b.extent + p.a.radius + p.b.radius;
		double band = 1e-9 * size, coord = 0;
		for (int k = 0; k < dim; k++)
			coord = fmax(coord, fabs(p.O[k]) + size + fabs(p.a.t[k]) + fabs(p.b.t[k]));
		double tol = 2e-12 * size + 8 * DBL_EPSILON * coord;
		st.pairs++;
		st.iterations += r.iterations;
		if (r.iterations > st.max_iterations)
			st.max_iterations = r.iterations;
		st.unconverged += !r.converged;
		if (o.distance > band || o.depth > band) {
			if (!(r.intersecting == o.intersecting && r.converged))
				pair_dump(&p);
			ck_assert_msg(
				r.intersecting == o.intersecting,
				"seed %#llx (%d-D %s): ipm intersecting %d after %d iterations, "
				"oracle distance %.3g depth %.3g",
				sd, dim, p.placement, r.intersecting, r.iterations, o.distance,
				o.depth);
			ck_assert_msg(r.converged, "seed %#llx: unconverged outside the band", sd);
			ck_assert_msg(r.intersecting == gj.intersecting,
			              "seed %#llx: gjk disagrees", sd);
			if (r.intersecting)
				st.intersecting++;
			else
				st.separated++;
		} else {
			st.band++;
		}
		if (!r.intersecting) {
			check_plane(&ca, &cb, &r, tol, "pair");
			/* Fed back, the plane answers alone. */
			double plane[4];
			memcpy(plane, r.normal, sizeof plane);
			plane[dim] = r.offset;
			clash_options opt;
			memset(&opt, 0, sizeof opt);
			opt.warm_plane = plane;
			clash_result w = run_ipm(&ca, &cb, &opt);
			ck_assert_msg(!w.intersecting && w.iterations == 0,
			              "seed %#llx: its own plane did not answer alone", sd);
			ck_assert_msg(memcmp(w.normal, r.normal, sizeof w.normal) == 0 &&
			                      w.offset == r.offset,
			              "seed %#llx: its own plane came back moved", sd);
			apart++;
			warm_free += w.iterations == 0;
		} else if (r.converged) {
			/* The common point is in both rounded shapes (oracle). */
			for (int s = 0; s < 2; s++) {
				const pshape *sh = s ? &p.b : &p.a;
				double x[3], d;
				for (int k = 0; k < dim; k++)
					x[k] = r.near_a[k] - p.O[k];
				int rc = oracle_point_distance(dim, sh->world, sh->count, x, &d);
				if (rc == ORACLE_EFLAT)
					continue;
				ck_assert_int_eq(rc, ORACLE_OK);
				ck_assert_msg(d <= sh->radius + tol,
				              "seed %#llx: the common point is %.3g "
				              "from hull %c (radius %.3g)",
				              sd, d, s ? 'b' : 'a', sh->radius);
			}
		}
	}
	printf("ipm pairs %d-D: %d pairs (%d skipped): %d separated, %d intersecting, %d in the "
	       "touching band; iterations mean %.2f max %d; %d unconverged; %d of %d separated "
	       "answers re-answered by their plane alone\n",
	       dim, st.pairs, skipped, st.separated, st.intersecting, st.band,
	       (double)st.iterations / (st.pairs + !st.pairs), st.max_iterations, st.unconverged,
	       warm_free, apart);
	if (replay)
		return;
	ck_assert_int_gt(st.separated, count / 5);
	ck_assert_int_gt(st.intersecting, count / 5);
}

START_TEST(pairs_3d)
{
	pairs_run(3, 1000, UINT64_C(0x1B3D000000) + (uint64_t)_i * 1000000);
}
END_TEST
START_TEST(pairs_2d)
{
	pairs_run(2, 600, UINT64_C(0x1B2D000000));
}
END_TEST

/* ---- the contract --------------------------------------------------------- */

#define CUBE "[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]"

/* The reply to a query (single quotes for double), parsed. */
static json_t *reply(const char *single_quoted, int *status)
{
	char *t = strdup(single_quoted);
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(t, strlen(t), &r), 0);
	json_t *j = json_loads(r.body, 0, NULL);
	ck_assert_msg(j != NULL, "not JSON: %s", r.body);
	*status = r.status;
	proto_reply_free(&r);
	free(t);
	return j;
}

static void expect_pointer(const char *warm, const char *pointer, const char *word)
{
	char q[1024];
	snprintf(q, sizeof q,
	         "{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	         ",'pose':{'translation':[3,0,0]}},'method':'ipm','warm':%s}",
	         warm);
	int st;
	json_t *j = reply(q, &st);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	const char *detail = json_string_value(json_object_get(j, "detail"));
	ck_assert_msg(st == 422 && ptr && strcmp(ptr, pointer) == 0,
	              "warm %s: status %d pointer %s (want %s)", warm, st, ptr ? ptr : "(none)",
	              pointer);
	ck_assert_msg(detail && strstr(detail, word), "warm %s: detail \"%s\" lacks \"%s\"", warm,
	              detail ? detail : "", word);
	json_decref(j);
}

START_TEST(contract)
{
	proto_init();
	int st;
	/* Separated: a plane, the same plane as warm, no distance. */
	json_t *j = reply("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	                  ",'pose':{'translation':[2.5,0.5,0]}},'method':'ipm'}",
	                  &st);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(json_string_value(json_object_get(j, "method")), "ipm");
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_assert_ptr_null(json_object_get(j, "distance"));
	ck_assert_ptr_null(json_object_get(j, "near_points"));
	ck_assert_ptr_null(json_object_get(j, "penetration"));
	json_t *plane = json_object_get(j, "separating_plane");
	json_t *warm = json_object_get(j, "warm");
	ck_assert(json_equal(plane, json_object_get(warm, "plane")));
	ck_assert_int_eq(json_object_size(warm), 1);
	ck_assert_int_gt(json_integer_value(json_object_get(j, "iterations")), 0);

	/* Fed back: answered by the plane alone. */
	char *w = json_dumps(warm, JSON_COMPACT);
	char q[1024];
	snprintf(q, sizeof q,
	         "{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE
	         ",\"pose\":{\"translation\":[2.5,0.7,0]}},\"method\":\"ipm\",\"warm\":%s}",
	         w);
	free(w);
	json_t *j2 = reply(q, &st);
	ck_assert_int_eq(st, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j2, "iterations")), 0);
	ck_assert(json_is_false(json_object_get(j2, "intersecting")));
	json_decref(j2);
	json_decref(j);

	/* Intersecting: distance 0 and a common point, no plane, no warm. */
	j = reply("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	          ",'pose':{'translation':[0.5,0.5,0]}},'method':'ipm'}",
	          &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert(json_number_value(json_object_get(j, "distance")) == 0);
	ck_assert(json_equal(json_object_get(json_object_get(j, "near_points"), "a"),
	                     json_object_get(json_object_get(j, "near_points"), "b")));
	ck_assert_ptr_null(json_object_get(j, "separating_plane"));
	ck_assert_ptr_null(json_object_get(j, "warm"));
	json_decref(j);

	/* gjk takes a warm with a plane too (and ignores it); ipm takes one
	 * with indices (and ignores them). */
	j = reply("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	          ",'pose':{'translation':[3,0,0]}},'warm':{'a':[1],'b':[0],"
	          "'plane':{'normal':[1,0,0],'offset':2}}}",
	          &st);
	ck_assert_int_eq(st, 200);
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(j, "warm"), "a")), 1);
	json_decref(j);
	j = reply("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	          ",'pose':{'translation':[3,0,0]}},'method':'ipm','warm':{'a':[1],'b':[0]}}",
	          &st);
	ck_assert_int_eq(st, 200);
	json_decref(j);

	/* Every bad warm plane, at its pointer. */
	expect_pointer("{'plane':[1,0,0]}", "/warm/plane", "object");
	expect_pointer("{'plane':{'normal':[1,0,0]}}", "/warm/plane", "offset");
	expect_pointer("{'plane':{'offset':1}}", "/warm/plane", "normal");
	expect_pointer("{'plane':{'normal':[1,0,0],'offset':1,'up':[0,0,1]}}", "/warm/plane/up",
	               "unknown member");
	expect_pointer("{'plane':{'normal':[1,0],'offset':1}}", "/warm/plane/normal", "3");
	expect_pointer("{'plane':{'normal':{'x':1},'offset':1}}", "/warm/plane/normal", "array");
	expect_pointer("{'plane':{'normal':[1,'0',0],'offset':1}}", "/warm/plane/normal/1",
	               "number");
	expect_pointer("{'plane':{'normal':[0,0,0],'offset':1}}", "/warm/plane/normal", "zero");
	expect_pointer("{'plane':{'normal':[1,0,0],'offset':'1'}}", "/warm/plane/offset", "number");
	expect_pointer("{'plane':{'normal':[1,0,0],'offset':1e400}}", "/warm/plane/offset",
	               "range");
	expect_pointer("{'a':[0],'plane':{'normal':[1,0,0],'offset':1}}", "/warm", "both");
	expect_pointer("{}", "/warm", "plane");
	expect_pointer("{'plane':null}", "/warm/plane", "object");
}
END_TEST

static Suite *method_ipm_suite(void)
{
	Suite *s = suite_create("method_ipm");
	ck_case(s, "closed", 30,
	        CK_TESTS(boxes_apart, boxes_overlapping_and_touching, spheres, segment_and_point,
	                 degenerate, posed, errors, compound, iteration_cap, cancel, unsettled,
	                 near_corner, crosscheck_seeds));
	ck_case(s, "warm", 30, CK_TESTS(warm_plane, warm_frames));
	TCase *tc = ck_case(s, "random", 120, CK_TESTS(dims_4, dims_6, dims_8, large_clouds));
	ck_loops(tc, 2, CK_TESTS(pairs_3d));
	ck_loops(tc, 1, CK_TESTS(pairs_2d));
	ck_case(s, "proto", 0, CK_TESTS(contract));
	return s;
}

CHECK_SUITE(method_ipm_suite)
