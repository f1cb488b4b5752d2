/*
 * check_method_simplex.c — suite "method_simplex": method "simplex"
 * (clash_lp_simplex, Kreuzer 2016) and its revised simplex engine
 * (core/rsimplex.c).
 *
 * Judges, all independent of the LP code:
 *   - closed forms: boxes, intervals, points and segments whose distance
 *     is known, touching and overlapping placements;
 *   - degenerate inputs: repeated, coplanar and collinear vertices, single
 *     points, a point on a face;
 *   - Beale's degenerate LP (1955), on which Dantzig's rule cycles: the
 *     engine with Bland's rule reaches the optimum -1, with Dantzig's it
 *     comes back to a basis it has seen, the objective stuck at 0;
 *   - random 2-D and 3-D pairs (shapes and placements as in
 *     check_random_pairs.c:
 *     the hull gap set exactly from the qhull oracle's near point, radii,
 *     every kind of pose): the verdict against the oracle and clash_gjk
 *     outside the touching band, 0 <= distance_lower_bound <= the oracle
 *     distance always;
 *   - random polytopes in 1-D to 8-D against the exact GLPK oracle
 *     (tests/oracle_lp.c): the verdict (separated pairs must be apart by
 *     more than the band, intersecting ones must hold a cross-polytope of
 *     that radius, checked by the oracle too), and the bound between the
 *     article's d1 / sqrt(n) and GJK's distance;
 *   - the wire: "method": "simplex" answers intersecting,
 *     distance_lower_bound, iterations and converged only.
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
#include "prng.h"
#include "proto.h"
#include "rsimplex.h"

#define MAXV 40

static void run_both(const clash_shape *a, const clash_shape *b, clash_result *s, clash_result *g)
{
	ck_assert_int_eq(clash_lp_simplex(a, b, NULL, s), CLASH_OK);
	ck_assert_int_eq(clash_gjk(a, b, NULL, g), CLASH_OK);
	ck_assert_int_eq(s->has, CLASH_HAS_DISTANCE_BOUND);
	ck_assert_int_eq(s->intersecting, g->intersecting);
	ck_assert(s->converged);
	if (s->intersecting)
		ck_assert(s->distance_lower_bound == 0.0);
	else
		ck_assert_msg(s->distance_lower_bound > 0 &&
		                      s->distance_lower_bound <= g->distance * (1 + 1e-12) + 1e-15,
		              "bound %.17g, distance %.17g", s->distance_lower_bound, g->distance);
}

/* ---- closed forms ---------------------------------------------------------- */

static const double cube[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1};

static void cube_pair(const double *t, double ra, double rb, clash_result *s, clash_result *g)
{
	clash_shape a, b;
	ck_assert_int_eq(clash_shape_init(&a, 3, cube, 8), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b, 3, cube, 8), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&b, t), CLASH_OK);
	clash_shape_set_radius(&a, ra);
	clash_shape_set_radius(&b, rb);
	run_both(&a, &b, s, g);
}

START_TEST(closed_forms)
{
	clash_result s, g;
	/* Apart along an axis: the slab along x is the exact distance. */
	cube_pair((double[]){3, 0, 0}, 0, 0, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 2.0, 1e-12);
	/* Apart diagonally: gaps 2, 1, 0; the 2-norm distance is sqrt(5), the
	 * 1-norm distance 3, and the bound lies between 3/sqrt(3) and sqrt(5). */
	cube_pair((double[]){3, 2, 1}, 0, 0, &s, &g);
	ck_assert(!s.intersecting);
	ck_assert(s.distance_lower_bound >= 3.0 / sqrt(3.0) - 1e-12);
	ck_assert(s.distance_lower_bound <= sqrt(5.0) + 1e-12);
	/* Overlapping, touching on a face, an edge and a corner. */
	double touch[][3] = {{0.5, 0.5, 0.5}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {0, -1, 0.3}};
	for (size_t i = 0; i < sizeof touch / sizeof touch[0]; i++) {
		cube_pair(touch[i], 0, 0, &s, &g);
		ck_assert_msg(s.intersecting, "case %zu", i);
	}
	/* Rounded: gap 2 along x, radii 0.75 + 0.5 leave 0.75. */
	cube_pair((double[]){3, 0, 0}, 0.75, 0.5, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 0.75, 1e-12);
	cube_pair((double[]){3, 0, 0}, 1.5, 0.5, &s, &g);
	ck_assert(s.intersecting);
	/* Diagonal gap sqrt(5) against radii summing to 2.2 and 2.3: the
	 * first LP cannot tell, the rotated rounds do. */
	cube_pair((double[]){3, 2, 1}, 1.2, 1.0, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, sqrt(5.0) - 2.2, 1e-9);
	cube_pair((double[]){3, 2, 1}, 1.3, 1.0, &s, &g);
	ck_assert(s.intersecting);
	/* The pivot cap: at most that many pivots, and an answer that says
	 * whether it is certain. */
	{
		clash_shape a, b;
		clash_shape_init(&a, 3, cube, 8);
		clash_shape_init(&b, 3, cube, 8);
		clash_shape_set_translation(&b, (double[]){0.9, 0.8, 0.7});
		clash_options o = {.max_iterations = 1};
		ck_assert_int_eq(clash_lp_simplex(&a, &b, &o, &s), CLASH_OK);
		ck_assert_int_le(s.iterations, 1);
		ck_assert(s.intersecting || !s.converged);
		o.max_iterations = 1000;
		ck_assert_int_eq(clash_lp_simplex(&a, &b, &o, &s), CLASH_OK);
		ck_assert(s.intersecting && s.converged);
		o.tolerance = -1;
		ck_assert_int_eq(clash_lp_simplex(&a, &b, &o, &s), CLASH_EINVAL);
	}

	/* 1-D: intervals [0, 1] and [2.5, 5] (a vertex inside is fine). */
	double ia[] = {0, 1, 0.5}, ib[] = {5, 2.5};
	clash_shape a, b;
	clash_shape_init(&a, 1, ia, 3);
	clash_shape_init(&b, 1, ib, 2);
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 1.5, 1e-12);
	ib[1] = 1;
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);

	/* 2-D: a triangle and a rotated square whose corner is 0.25 away. */
	double tri[] = {0, 0, 1, 0, 0, 1};
	double sq[] = {-0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5};
	clash_shape_init(&a, 2, tri, 3);
	clash_shape_init(&b, 2, sq, 4);
	clash_shape_set_angle(&b, M_PI / 2); /* a corner still points at the triangle */
	/* Centre (x, x): the corner (x - 0.5, x - 0.5) is (2x - 2)/sqrt(2)
	 * from the edge x + y = 1; make that 0.25. */
	double x = 1 + 0.125 * M_SQRT2;
	clash_shape_set_translation(&b, (double[]){x, x});
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(g.distance, 0.25, 1e-12);
}
END_TEST

/* ---- degenerate inputs ------------------------------------------------------ */

START_TEST(degenerate)
{
	clash_result s, g;
	clash_shape a, b;
	/* Single points: equal, apart (the bound is then the distance). */
	double p[] = {1, 2, 3}, q[] = {1, 2, 3}, r[] = {2, 4, 5};
	clash_shape_init(&a, 3, p, 1);
	clash_shape_init(&b, 3, q, 1);
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);
	clash_shape_init(&b, 3, r, 1);
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 3.0, 1e-12);
	/* Points with radii never need more than one LP: p, q is exact. */
	clash_shape_set_radius(&a, 1.0);
	clash_shape_set_radius(&b, 2.0 - 1e-9);
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	clash_shape_set_radius(&b, 2.0);
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);

	/* Every vertex three times. */
	double rep[8 * 3 * 3];
	for (int i = 0; i < 24; i++)
		memcpy(rep + 3 * i, cube + 3 * (i % 8), 3 * sizeof(double));
	clash_shape_init(&a, 3, rep, 24);
	clash_shape_init(&b, 3, rep, 24);
	clash_shape_set_translation(&b, (double[]){0, 3, 0});
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 2.0, 1e-12);
	clash_shape_set_translation(&b, (double[]){0, 1, 0});
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);

	/* Coplanar squares: overlapping in z = 0; in parallel planes 1 apart. */
	double sq[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
	clash_shape_init(&a, 3, sq, 4);
	clash_shape_init(&b, 3, sq, 4);
	clash_shape_set_translation(&b, (double[]){0.5, 0.5, 0});
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);
	clash_shape_set_translation(&b, (double[]){0.5, 0.5, 1});
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 1.0, 1e-12);

	/* Collinear: crossing segments, then skew ones h apart. */
	double sa[] = {-1, 0, 0, 0.25, 0, 0, 1, 0, 0}, sb[] = {0, -1, 0, 0, 1, 0};
	clash_shape_init(&a, 3, sa, 3);
	clash_shape_init(&b, 3, sb, 2);
	run_both(&a, &b, &s, &g);
	ck_assert(s.intersecting);
	clash_shape_set_translation(&b, (double[]){0.3, 0, 0.125});
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 0.125, 1e-12);

	/* A point on a face, on an edge, at a corner, just off the face. */
	double onf[][3] = {{0.5, 0.5, 1}, {1, 0.5, 1}, {1, 1, 1}};
	clash_shape_init(&a, 3, cube, 8);
	for (int i = 0; i < 3; i++) {
		clash_shape_init(&b, 3, onf[i], 1);
		run_both(&a, &b, &s, &g);
		ck_assert_msg(s.intersecting, "case %d", i);
	}
	double off[] = {0.5, 0.5, 1 + 1e-6};
	clash_shape_init(&b, 3, off, 1);
	run_both(&a, &b, &s, &g);
	ck_assert(!s.intersecting);
	ck_near(s.distance_lower_bound, 1e-6, 1e-13);

	/* Bad input. */
	ck_assert_int_eq(clash_lp_simplex(NULL, &b, NULL, &s), CLASH_EINVAL);
	double two[] = {0, 0};
	clash_shape c2;
	clash_shape_init(&c2, 2, two, 1);
	ck_assert_int_eq(clash_lp_simplex(&a, &c2, NULL, &s), CLASH_EDIM);
	double nan_pt[] = {NAN, 0, 0};
	clash_shape_init(&b, 3, nan_pt, 1);
	ck_assert_int_eq(clash_lp_simplex(&a, &b, NULL, &s), CLASH_ERANGE);
	clash_shape parts[1] = {a};
	clash_shape comp = a;
	comp.parts = parts;
	comp.nparts = 1;
	/* A compound goes through the compound layer: a union of one part
	 * answers as that part. */
	clash_shape_init(&b, 3, off, 1);
	ck_assert_int_eq(clash_lp_simplex(&comp, &b, NULL, &s), CLASH_OK);
	ck_assert_int_eq(clash_lp_simplex(&a, &b, NULL, &g), CLASH_OK);
	ck_assert_int_eq(s.intersecting, g.intersecting);
	ck_assert(s.has & CLASH_HAS_PARTS);
	/* Coordinates near the top of the range: no overflow, no NaN. */
	double huge[] = {1e307, 1e307, 1e307, -1e307, -1e307, -1e307};
	clash_shape_init(&a, 3, huge, 2);
	clash_shape_init(&b, 3, huge + 3, 1);
	ck_assert_int_eq(clash_lp_simplex(&a, &b, NULL, &s), CLASH_OK);
	ck_assert(s.intersecting);
}
END_TEST

/* ---- Bland's rule on a cycling LP ------------------------------------------ */

/* Beale's example (1955) in the form of Chvatal, Linear Programming (1983),
 * p. 31, as a minimization:
 *   min -10 x1 + 57 x2 + 9 x3 + 24 x4
 *   0.5 x1 - 5.5 x2 - 2.5 x3 + 9 x4 + x5      = 0
 *   0.5 x1 - 1.5 x2 - 0.5 x3 +   x4      + x6 = 0
 *       x1                          + x7      = 1
 * from the slack basis {x5, x6, x7}.  With the largest-coefficient
 * entering rule and the smallest-subscript leaving rule it cycles through
 * six degenerate bases; the optimum is -1 (x1 = x3 = 1, x5 = 2). */
static const double beale_a[3][7] = {{0.5, -5.5, -2.5, 9, 1, 0, 0},
                                     {0.5, -1.5, -0.5, 1, 0, 1, 0},
                                     {1, 0, 0, 0, 0, 0, 1}};
static const double beale_c[7] = {-10, 57, 9, 24, 0, 0, 0};

static double beale_column(const void *ctx, size_t j, double *a)
{
	(void)ctx;
	for (int i = 0; i < 3; i++)
		a[i] = beale_a[i][j];
	return beale_c[j];
}

START_TEST(bland_does_not_cycle)
{
	rsimplex_lp lp = {.m = 3,
	                  .n = 7,
	                  .b = {0, 0, 1},
	                  .column = beale_column,
	                  .tol_cost = 1e-12};
	size_t start[3] = {4, 5, 6};
	rsimplex s;
	/* Dantzig's rule: degenerate pivots only, the objective stuck at 0,
	 * and after a cycle the very same basis again. */
	ck_assert_int_eq(rsimplex_start(&s, &lp, start), RSIMPLEX_OPTIMAL);
	size_t seen[64][3];
	int repeat = -1;
	for (int k = 0; k < 64 && repeat < 0; k++) {
		memcpy(seen[k], s.basis, sizeof seen[k]);
		ck_assert_int_eq(rsimplex_run(&s, &lp, RSIMPLEX_DANTZIG, 1), RSIMPLEX_CAPPED);
		ck_assert(s.objective == 0.0);
		for (int i = 0; i <= k; i++)
			if (memcmp(seen[i], s.basis, sizeof seen[i]) == 0)
				repeat = k + 1 - i;
	}
	ck_assert_msg(repeat > 1, "Dantzig's rule did not cycle");
	printf("simplex: Beale's LP cycles under Dantzig's rule with period %d\n", repeat);

	/* Bland's rule: the optimum. */
	ck_assert_int_eq(rsimplex_start(&s, &lp, start), RSIMPLEX_OPTIMAL);
	ck_assert_int_eq(rsimplex_run(&s, &lp, RSIMPLEX_BLAND, 100), RSIMPLEX_OPTIMAL);
	ck_near(s.objective, -1.0, 1e-14);
	ck_near(rsimplex_value(&s, 0), 1.0, 1e-14);
	ck_near(rsimplex_value(&s, 2), 1.0, 1e-14);
	printf("simplex: Bland's rule reaches -1 in %d pivots\n", s.iterations);
}
END_TEST

/* Dantzig's least reduced cost over Beale's columns, as a caller's
 * rsimplex_lp.dantzig finds it (here by pricing each column). */
static size_t beale_dantzig(const void *ctx, const double *y, double *a, double *c, double *d)
{
	size_t best = 0;
	double bd = INFINITY;
	for (size_t j = 0; j < 7; j++) {
		double col[3], cj = beale_column(ctx, j, col);
		double dj = cj - (y[0] * col[0] + y[1] * col[1] + y[2] * col[2]);
		if (dj < bd) {
			bd = dj;
			best = j;
		}
	}
	*c = beale_column(ctx, best, a);
	*d = bd;
	return best;
}

/* Dantzig's rule until a pivot fails to lower the objective, then Bland's
 * (RSIMPLEX_DANTZIG_BLAND, the LP method's pricing): on Beale's LP, where
 * Dantzig's rule alone cycles from the first pivot on, it reaches the
 * optimum, priced column by column and through the caller's search. */
START_TEST(dantzig_then_bland)
{
	size_t start[3] = {4, 5, 6};
	for (int via = 0; via < 2; via++) {
		rsimplex_lp lp = {.m = 3,
		                  .n = 7,
		                  .b = {0, 0, 1},
		                  .column = beale_column,
		                  .tol_cost = 1e-12,
		                  .dantzig = via ? beale_dantzig : NULL};
		rsimplex s;
		ck_assert_int_eq(rsimplex_start(&s, &lp, start), RSIMPLEX_OPTIMAL);
		ck_assert_int_eq(rsimplex_run(&s, &lp, RSIMPLEX_DANTZIG_BLAND, 100),
		                 RSIMPLEX_OPTIMAL);
		ck_assert(s.degenerate); /* the first pivot is degenerate */
		ck_near(s.objective, -1.0, 1e-14);
		ck_near(rsimplex_value(&s, 0), 1.0, 1e-14);
		ck_near(rsimplex_value(&s, 2), 1.0, 1e-14);
	}
}
END_TEST

/* The engine's early stop (lp.has_target: Kreuzer's first stopping rule)
 * and its start from a caller's inverse, on Beale's LP: stopping at the
 * target leaves a feasible basis whose objective is at most the target
 * (checked from the columns, not from the engine's running sum); resuming
 * without the target reaches the optimum.  A start from B^-1 given in
 * closed form (the slack basis: the identity) equals the factored start. */
START_TEST(target_and_start_inverse)
{
	rsimplex_lp lp = {.m = 3,
	                  .n = 7,
	                  .b = {0, 0, 1},
	                  .column = beale_column,
	                  .tol_cost = 1e-12};
	size_t start[3] = {4, 5, 6};
	rsimplex s, t;
	double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, cb[3] = {0, 0, 0};
	ck_assert_int_eq(rsimplex_start(&s, &lp, start), RSIMPLEX_OPTIMAL);
	ck_assert_int_eq(rsimplex_start_inverse(&t, &lp, start, eye, cb), RSIMPLEX_OPTIMAL);
	ck_assert(memcmp(s.binv, t.binv, sizeof(double) * 9) == 0);
	ck_assert(memcmp(s.x, t.x, sizeof(double) * 3) == 0);
	ck_assert(memcmp(s.y, t.y, sizeof(double) * 3) == 0);
	ck_assert(s.objective == t.objective);

	lp.has_target = 1;
	lp.target = -0.5;
	ck_assert_int_eq(rsimplex_run(&t, &lp, RSIMPLEX_BLAND, 100), RSIMPLEX_TARGET);
	/* Feasible, and the objective from the columns is <= the target. */
	double ax[3] = {0, 0, 0}, obj = 0.0, col[3];
	for (int i = 0; i < 3; i++) {
		ck_assert(t.x[i] >= 0.0);
		double c = beale_column(NULL, t.basis[i], col);
		obj += c * t.x[i];
		for (int k = 0; k < 3; k++)
			ax[k] += col[k] * t.x[i];
	}
	for (int k = 0; k < 3; k++)
		ck_near(ax[k], lp.b[k], 1e-14);
	ck_assert_msg(obj <= -0.5 + 1e-14, "objective %.17g", obj);
	ck_near(obj, t.objective, 1e-14);
	/* Bland's rule from there: the optimum -1. */
	lp.has_target = 0;
	ck_assert_int_eq(rsimplex_run(&t, &lp, RSIMPLEX_BLAND, 100), RSIMPLEX_OPTIMAL);
	ck_near(t.objective, -1.0, 1e-14);
	/* A target already met stops before any pivot. */
	lp.has_target = 1;
	lp.target = 0.0;
	ck_assert_int_eq(rsimplex_start(&s, &lp, start), RSIMPLEX_OPTIMAL);
	ck_assert_int_eq(rsimplex_run(&s, &lp, RSIMPLEX_BLAND, 100), RSIMPLEX_TARGET);
	ck_assert_int_eq(s.iterations, 0);
}
END_TEST

/* ---- random pairs in 2-D and 3-D against the qhull oracle ------------------- */

typedef struct rshape {
	int dim;
	size_t count;
	double local[MAXV * CLASH_MAX_DIM];
	double lin[CLASH_MAX_DIM * CLASH_MAX_DIM]; /* column-major */
	double t[CLASH_MAX_DIM];
	double world[MAXV * CLASH_MAX_DIM];
	double radius;
	int posed;
} rshape;

/* Random vertices: on a sphere, in a ball, box corners plus points, or an
 * elongated ellipsoid; 1..MAXV of them around an off-centre origin. */
static void random_local(prng *r, rshape *s, int dim, double scale)
{
	memset(s, 0, sizeof *s);
	s->dim = dim;
	int kind = prng_int(r, 0, 3);
	double c[CLASH_MAX_DIM], u[CLASH_MAX_DIM], ax[CLASH_MAX_DIM];
	for (int k = 0; k < dim; k++) {
		c[k] = scale * prng_range(r, -0.3, 0.3);
		ax[k] = kind == 3 ? (k == 0 ? prng_range(r, 3, 10) : prng_range(r, 0.1, 1)) : 1;
	}
	s->count = (size_t)prng_int(r, 1, MAXV);
	if (prng_unit(r) < 0.7 && s->count < (size_t)dim + 1)
		s->count = (size_t)dim + 1;
	for (size_t i = 0; i < s->count; i++) {
		prng_direction(r, dim, u);
		double rad = kind == 1 ? pow(prng_unit(r), 1.0 / dim) : 1;
		for (int k = 0; k < dim; k++) {
			double v = kind == 2 ? (i < ((size_t)1 << dim) ? ((i >> k) & 1 ? 1 : -1)
			                                               : prng_range(r, -1, 1))
			                     : rad * ax[k] * u[k];
			s->local[i * (size_t)dim + k] = c[k] + scale * v;
		}
	}
	for (int k = 0; k < dim; k++)
		s->lin[k * dim + k] = 1;
}

/* A random pose: none, a rotation (random orthogonal by Gram-Schmidt) or
 * rotation · shear · scale. */
static void random_pose(prng *r, rshape *s)
{
	int dim = s->dim, kind = prng_int(r, 0, 2);
	if (kind == 0)
		return;
	s->posed = 1;
	double m[CLASH_MAX_DIM * CLASH_MAX_DIM];
	for (int c = 0; c < dim; c++) {
		double *col = m + c * dim;
		for (;;) {
			for (int k = 0; k < dim; k++)
				col[k] = prng_normal(r);
			for (int p = 0; p < c; p++) {
				double d = 0;
				for (int k = 0; k < dim; k++)
					d += col[k] * m[p * dim + k];
				for (int k = 0; k < dim; k++)
					col[k] -= d * m[p * dim + k];
			}
			double n = 0;
			for (int k = 0; k < dim; k++)
				n += col[k] * col[k];
			if (n > 1e-6) {
				for (int k = 0; k < dim; k++)
					col[k] /= sqrt(n);
				break;
			}
		}
	}
	if (kind == 2)
		for (int c = 0; c < dim; c++) {
			double sc = prng_log(r, 0.3, 3);
			for (int k = 0; k < dim; k++)
				m[c * dim + k] = m[c * dim + k] * sc +
				                 (k != c ? 0.2 * prng_range(r, -1, 1) : 0);
		}
	memcpy(s->lin, m, sizeof(double) * (size_t)(dim * dim));
}

/* World points, and the core's shape (posed by matrix, or given as world
 * points when unposed). */
static void build(rshape *s, clash_shape *cs)
{
	int dim = s->dim;
	for (size_t i = 0; i < s->count; i++)
		for (int rr = 0; rr < dim; rr++) {
			double acc = s->t[rr];
			for (int k = 0; k < dim; k++)
				acc += s->lin[k * dim + rr] * s->local[i * (size_t)dim + k];
			s->world[i * (size_t)dim + rr] = acc;
		}
	if (!s->posed) {
		ck_assert_int_eq(clash_shape_init(cs, dim, s->world, s->count), CLASH_OK);
	} else {
		ck_assert_int_eq(clash_shape_init(cs, dim, s->local, s->count), CLASH_OK);
		double h[(CLASH_MAX_DIM + 1) * (CLASH_MAX_DIM + 1)];
		int h1 = dim + 1;
		memset(h, 0, sizeof h);
		for (int c = 0; c < dim; c++)
			for (int rr = 0; rr < dim; rr++)
				h[c * h1 + rr] = s->lin[c * dim + rr];
		for (int rr = 0; rr < dim; rr++)
			h[dim * h1 + rr] = s->t[rr];
		h[dim * h1 + dim] = 1;
		/* The pose must be what we computed with: the matrix path keeps
		 * it bit for bit. */
		ck_assert_int_eq(clash_shape_set_matrix(cs, h), CLASH_OK);
	}
	ck_assert_int_eq(clash_shape_set_radius(cs, s->radius), CLASH_OK);
}

static double extent(const rshape *s)
{
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM], e = 0;
	for (int k = 0; k < s->dim; k++)
		lo[k] = hi[k] = s->world[k];
	for (size_t i = 1; i < s->count; i++)
		for (int k = 0; k < s->dim; k++) {
			lo[k] = fmin(lo[k], s->world[i * (size_t)s->dim + k]);
			hi[k] = fmax(hi[k], s->world[i * (size_t)s->dim + k]);
		}
	for (int k = 0; k < s->dim; k++)
		e += (hi[k] - lo[k]) * (hi[k] - lo[k]);
	return 0.5 * sqrt(e);
}

typedef struct tally {
	int pairs, skipped, separated, intersecting, band, notsup, notsup_outside;
	long pivots;
	int max_pivots;
	double worst_bound; /* (bound - distance) / size, > 0 is a failure */
	double ratio_sum;   /* sum of bound / distance over separated pairs */
	int ratio_n;
} tally;

/* One 2-D/3-D pair placed with an exact gap; judged against qhull and GJK. */
static void random_pair_3(uint64_t seed, int dim, tally *t)
{
	prng r = {seed};
	rshape A, B;
	clash_shape ca, cb;
	double s = prng_log(&r, 1e-3, 1e3), sb = s * prng_log(&r, 0.1, 10);
	random_local(&r, &A, dim, s);
	random_local(&r, &B, dim, sb);
	random_pose(&r, &A);
	random_pose(&r, &B);
	int rounded = prng_unit(&r) < 0.3;
	A.radius = rounded ? s * prng_range(&r, 0, 0.5) : 0;
	B.radius = rounded ? sb * prng_range(&r, 0, 0.5) : 0;
	double u[CLASH_MAX_DIM];
	prng_direction(&r, dim, u);
	build(&A, &ca);
	build(&B, &cb);
	double far = 4 * (extent(&A) + extent(&B) + fabs(A.local[0]) + fabs(B.local[0]) + s + sb);
	for (int k = 0; k < dim; k++)
		B.t[k] = far * u[k];
	build(&B, &cb);
	oracle_answer o;
	if (oracle_query(dim, A.world, A.count, 0, B.world, B.count, 0, &o) != ORACLE_OK) {
		t->skipped++;
		return;
	}
	double size = extent(&A) + extent(&B) + A.radius + B.radius;
	double rsum = A.radius + B.radius, x = prng_unit(&r), gap;
	if (x < 0.35)
		gap = rsum + size * prng_log(&r, 1e-4, 2);
	else if (x < 0.65)
		gap = rsum +
		      (prng_unit(&r) < 0.5 ? -1 : 1) * size *
		              (double[]){0, 1e-13, 1e-11, 1e-9, 1e-7, 1e-4}[prng_int(&r, 0, 5)];
	else
		gap = rsum - size * prng_range(&r, 0.01, 0.5);
	double f = 1 - gap / o.hull_distance;
	for (int k = 0; k < dim; k++)
		B.t[k] += f * o.near[k];
	build(&B, &cb);
	if (oracle_query(dim, A.world, A.count, A.radius, B.world, B.count, B.radius, &o) !=
	    ORACLE_OK) {
		t->skipped++;
		return;
	}
	t->pairs++;
	double band = 1e-9 * size;
	clash_result res, gj;
	int rc = clash_lp_simplex(&ca, &cb, NULL, &res);
	ck_assert_int_eq(clash_gjk(&ca, &cb, NULL, &gj), CLASH_OK);
	if (rc == CLASH_ENOTSUP) {
		t->notsup++;
		/* Only rounded shapes, and only when ra + rb lies between the
		 * bounds the LP has: within a factor sqrt(n) of the distance. */
		ck_assert_msg(rsum > 0, "seed %#llx: ENOTSUP without radii",
		              (unsigned long long)seed);
		ck_assert_msg(rsum >= o.hull_distance / sqrt(dim) - 1e-12 * size &&
		                      rsum <= o.hull_distance * sqrt(dim) + 1e-12 * size,
		              "seed %#llx: ENOTSUP for hull distance %.17g, radii %.17g",
		              (unsigned long long)seed, o.hull_distance, rsum);
		if (fabs(o.hull_distance - rsum) > 1e-6 * size)
			t->notsup_outside++;
		return;
	}
	ck_assert_msg(rc == CLASH_OK, "seed %#llx: %s", (unsigned long long)seed,
	              clash_strerror(rc));
	ck_assert(res.converged);
	t->pivots += res.iterations;
	if (res.iterations > t->max_pivots)
		t->max_pivots = res.iterations;
	if (o.distance > band) {
		t->separated++;
		ck_assert_msg(!res.intersecting && !gj.intersecting,
		              "seed %#llx dim %d: oracle distance %.17g, simplex %d, gjk %d",
		              (unsigned long long)seed, dim, o.distance, res.intersecting,
		              gj.intersecting);
		t->ratio_sum += res.distance_lower_bound / o.distance;
		t->ratio_n++;
	} else if (o.depth > band) {
		t->intersecting++;
		ck_assert_msg(res.intersecting && gj.intersecting,
		              "seed %#llx dim %d: oracle depth %.17g, simplex %d, gjk %d",
		              (unsigned long long)seed, dim, o.depth, res.intersecting,
		              gj.intersecting);
	} else {
		t->band++;
	}
	double over = (res.distance_lower_bound - o.distance) / size;
	t->worst_bound = fmax(t->worst_bound, over);
	ck_assert_msg(res.distance_lower_bound >= 0 && over <= 1e-13,
	              "seed %#llx dim %d: bound %.17g above the distance %.17g",
	              (unsigned long long)seed, dim, res.distance_lower_bound, o.distance);
	if (res.intersecting)
		ck_assert(res.distance_lower_bound == 0);
}

static void tally_print(const char *what, const tally *t)
{
	printf("%s: %d pairs (%d skipped): %d separated, %d intersecting, %d in the band; "
	       "%d ENOTSUP (%d outside 1e-6 of touching); pivots mean %.2f max %d; "
	       "worst (bound - distance)/size %.3g; mean bound/distance %.3f\n",
	       what, t->pairs, t->skipped, t->separated, t->intersecting, t->band, t->notsup,
	       t->notsup_outside, t->pairs ? (double)t->pivots / t->pairs : 0.0, t->max_pivots,
	       t->worst_bound, t->ratio_n ? t->ratio_sum / t->ratio_n : 0.0);
	fflush(stdout);
}

START_TEST(random_pairs)
{
	int dim = 2 + _i;
	tally t = {0};
	const char *one = getenv("SIMPLEX_SEED");
	if (one && *one) {
		random_pair_3(strtoull(one, NULL, 0), dim, &t);
		tally_print("one", &t);
		return;
	}
	for (int i = 0; i < 1500; i++) {
		prng r = {UINT64_C(0x51A9000) + (uint64_t)dim * 1000003 + (uint64_t)i};
		random_pair_3(prng_next(&r), dim, &t);
	}
	char what[64];
	snprintf(what, sizeof what, "simplex random %d-D", dim);
	tally_print(what, &t);
	ck_assert_int_gt(t.separated, 300);
	ck_assert_int_gt(t.intersecting, 300);
}
END_TEST

/* ---- n-D against GLPK ---------------------------------------------------- */

/* Whether the hulls still meet with b moved by +-delta along every axis:
 * then the origin is deep enough in co(a) - co(b) for any answer within
 * the band to be "intersecting". */
static int robustly_intersecting(int dim, const double *a, size_t na, const double *b, size_t nb,
                                 double delta)
{
	double *moved = malloc(nb * (size_t)dim * sizeof *moved);
	ck_assert_ptr_nonnull(moved);
	int all = 1;
	for (int k = 0; k < dim && all; k++)
		for (int sg = -1; sg <= 1 && all; sg += 2) {
			memcpy(moved, b, nb * (size_t)dim * sizeof *moved);
			for (size_t j = 0; j < nb; j++)
				moved[j * (size_t)dim + k] += sg * delta;
			double d1;
			int in;
			ck_assert_int_eq(oracle_lp_distance1(dim, a, na, moved, nb, &d1, &in, NULL,
			                                     NULL),
			                 ORACLE_LP_OK);
			all = in;
		}
	free(moved);
	return all;
}

static void nd_pair(uint64_t seed, int dim, tally *t)
{
	prng r = {seed};
	rshape A, B;
	clash_shape ca, cb;
	double s = prng_log(&r, 1e-2, 1e2);
	random_local(&r, &A, dim, s);
	random_local(&r, &B, dim, s * prng_log(&r, 0.3, 3));
	random_pose(&r, &A);
	random_pose(&r, &B);
	build(&A, &ca);
	build(&B, &cb);
	/* Centroids d apart, d up to about twice the sizes over dim (hulls
	 * of a few dozen points on a sphere get thin as dim grows). */
	double u[CLASH_MAX_DIM], ga[CLASH_MAX_DIM] = {0}, gb[CLASH_MAX_DIM] = {0};
	for (size_t i = 0; i < A.count; i++)
		for (int k = 0; k < dim; k++)
			ga[k] += A.world[i * (size_t)dim + k] / (double)A.count;
	for (size_t i = 0; i < B.count; i++)
		for (int k = 0; k < dim; k++)
			gb[k] += B.world[i * (size_t)dim + k] / (double)B.count;
	prng_direction(&r, dim, u);
	double d = (extent(&A) + extent(&B)) * prng_range(&r, 0, 2.0 / dim);
	for (int k = 0; k < dim; k++)
		B.t[k] += ga[k] - gb[k] + d * u[k];
	build(&B, &cb);
	double size = extent(&A) + extent(&B);
	double band = 1e-9 * size;
	double d1, p[CLASH_MAX_DIM], q[CLASH_MAX_DIM];
	int in;
	ck_assert_int_eq(oracle_lp_distance1(dim, A.world, A.count, B.world, B.count, &d1, &in, p,
	                                     q),
	                 ORACLE_LP_OK);
	clash_result res, gj;
	ck_assert_int_eq(clash_lp_simplex(&ca, &cb, NULL, &res), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&ca, &cb, NULL, &gj), CLASH_OK);
	t->pairs++;
	/* Two single points, both posed: equal in the oracle's arithmetic,
	 * an ulp apart in the core's; nothing to judge at size 0. */
	if (size == 0) {
		t->band++;
		return;
	}
	ck_assert_msg(res.converged,
	              "seed %#llx %d-D: not converged (oracle d1 %.17g, gjk %.17g, "
	              "size %.3g)",
	              (unsigned long long)seed, dim, d1, gj.distance, size);
	t->pivots += res.iterations;
	if (res.iterations > t->max_pivots)
		t->max_pivots = res.iterations;
	if (d1 / sqrt(dim) > band) {
		t->separated++;
		ck_assert_msg(!res.intersecting,
		              "seed %#llx %d-D: oracle d1 %.17g, simplex intersects",
		              (unsigned long long)seed, dim, d1);
		ck_assert(!gj.intersecting);
		/* The article's floor d1/sqrt(n) <= bound <= distance (GJK's,
		 * within its tolerance; and |p - q| of the oracle's pair). */
		double pq = 0;
		for (int k = 0; k < dim; k++)
			pq += (p[k] - q[k]) * (p[k] - q[k]);
		pq = sqrt(pq);
		ck_assert_msg(res.distance_lower_bound >=
		                      d1 / sqrt(dim) * (1 - 1e-9) - 1e-12 * size,
		              "seed %#llx %d-D: bound %.17g below d1/sqrt(n) = %.17g",
		              (unsigned long long)seed, dim, res.distance_lower_bound,
		              d1 / sqrt(dim));
		ck_assert_msg(res.distance_lower_bound <= gj.distance + 2e-12 * size &&
		                      res.distance_lower_bound <= pq * (1 + 1e-12) + 1e-13 * size,
		              "seed %#llx %d-D: bound %.17g, gjk %.17g, |p - q| %.17g",
		              (unsigned long long)seed, dim, res.distance_lower_bound, gj.distance,
		              pq);
		t->ratio_sum += res.distance_lower_bound / gj.distance;
		t->ratio_n++;
	} else if (in && robustly_intersecting(dim, A.world, A.count, B.world, B.count, band)) {
		t->intersecting++;
		ck_assert_msg(res.intersecting, "seed %#llx %d-D: oracle intersects, simplex not",
		              (unsigned long long)seed, dim);
		ck_assert(gj.intersecting);
		ck_assert(res.distance_lower_bound == 0);
	} else {
		t->band++;
	}
}

START_TEST(nd_against_glpk)
{
	static const int dims[] = {1, 2, 4, 6, 8};
	static const int counts[] = {100, 150, 200, 200, 60};
	int dim = dims[_i];
	tally t = {0};
	const char *one = getenv("SIMPLEX_SEED");
	if (one && *one) {
		nd_pair(strtoull(one, NULL, 0), dim, &t);
		return;
	}
	for (int i = 0; i < counts[_i]; i++) {
		prng r = {UINT64_C(0x9D000000) + (uint64_t)dim * 7919 + (uint64_t)i};
		nd_pair(prng_next(&r), dim, &t);
	}
	oracle_lp_release();
	char what[64];
	snprintf(what, sizeof what, "simplex vs GLPK %d-D", dim);
	tally_print(what, &t);
	ck_assert_int_gt(t.separated, counts[_i] / 5);
	ck_assert_int_gt(t.intersecting, counts[_i] / 10);
}
END_TEST

/* ---- the wire ------------------------------------------------------------ */

static json_t *reply(const char *text, int *status)
{
	proto_reply rep;
	ck_assert_int_eq(proto_query_reply(text, strlen(text), &rep), 0);
	*status = rep.status;
	json_t *j = json_loads(rep.body, 0, NULL);
	ck_assert_ptr_nonnull(j);
	proto_reply_free(&rep);
	return j;
}

START_TEST(wire)
{
	proto_init();
	int st;
	json_t *j = reply("{\"a\":{\"vertices\":[[0,0],[1,0],[0,1]]},\"b\":{\"vertices\":[[3,0]]},"
	                  "\"method\":\"simplex\"}",
	                  &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_near(json_number_value(json_object_get(j, "distance_lower_bound")), 2.0, 1e-12);
	ck_assert_str_eq(json_string_value(json_object_get(j, "method")), "simplex");
	ck_assert(json_is_integer(json_object_get(j, "iterations")));
	ck_assert(json_is_true(json_object_get(j, "converged")));
	/* Nothing the method did not compute. */
	const char *absent[] = {"distance", "near_points", "separating_plane", "penetration",
	                        "warm"};
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		ck_assert_msg(!json_object_get(j, absent[i]), "%s present", absent[i]);
	ck_assert_uint_eq(json_object_size(j), 5);
	json_decref(j);

	j = reply("{\"a\":{\"vertices\":[[0,0],[1,0],[0,1]]},\"b\":{\"vertices\":[[0.2,0.2]]},"
	          "\"method\":\"simplex\"}",
	          &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert(json_number_value(json_object_get(j, "distance_lower_bound")) == 0);
	json_decref(j);

	/* gjk still answers everything. */
	j = reply("{\"a\":{\"vertices\":[[0,0],[1,0],[0,1]]},\"b\":{\"vertices\":[[3,0]]}}", &st);
	ck_assert(json_object_get(j, "near_points") && json_object_get(j, "warm") &&
	          json_object_get(j, "separating_plane") &&
	          !json_object_get(j, "distance_lower_bound"));
	json_decref(j);
}
END_TEST

static Suite *method_simplex_suite(void)
{
	Suite *s = suite_create("method_simplex");
	ck_case(s, "closed", 0,
	        CK_TESTS(closed_forms, degenerate, bland_does_not_cycle, dantzig_then_bland,
	                 target_and_start_inverse, wire));
	TCase *tc = ck_case(s, "random", 120, NULL);
	ck_loops(tc, 2, CK_TESTS(random_pairs));
	ck_loops(tc, 5, CK_TESTS(nd_against_glpk));
	return s;
}

CHECK_SUITE(method_simplex_suite)
