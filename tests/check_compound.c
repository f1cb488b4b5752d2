/*
 * check_compound.c — suite "compound": compound shapes (unions of convex
 * parts, GJK88 section II) through clash_gjk, the compound layer
 * (core/compound.h), the wire contract and `clash query`.
 *
 * What each answer is compared with:
 *  - closed forms worked out by hand: an L of two boxes and a box in its
 *    concave corner (where the convex hull would wrongly intersect),
 *    dumbbells of spheres and capsules, nested compounds, poses (angle,
 *    quaternion, scaling matrix) and radii on compounds, depth bounds of
 *    overlapping unions;
 *  - brute force on random nested compounds: clash_gjk on every pair of
 *    leaves, once with leaves the test places itself (its own matrix
 *    products applied to copied vertices: checks the layer's composition)
 *    and once with the layer's own leaves (compound_foreach_leaf: checks
 *    that pruning never changes the answer, to the bit);
 *  - the layer's pair count (compound_stats, and a counting leaf method) to
 *    show that pruning skips pairs, without timing anything;
 *  - stand-in leaf methods that answer like a verdict-only, a lower-bound
 *    and an exact-depth method, for the union semantics of the methods
 *    written in parallel;
 *  - the limits (depth, leaf count) and every decoder error, with pointers.
 */
#include <fcntl.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clash.h"
#include "compound.h"
#include "prng.h"
#include "proto.h"
#include "spawn.h"

/* ---- helpers ------------------------------------------------------------ */

static clash_shape convex(int dim, const double *v, size_t n)
{
	clash_shape s;
	ck_assert_int_eq(clash_shape_init(&s, dim, v, n), CLASH_OK);
	return s;
}

static clash_shape compound(int dim, const clash_shape *parts, size_t n)
{
	clash_shape s;
	ck_assert_int_eq(clash_shape_init_compound(&s, dim, parts, n), CLASH_OK);
	return s;
}

/* The 2^dim corners of the box [lo, hi] (dim <= 3), row-major. */
static size_t box(double *v, int dim, const double *lo, const double *hi)
{
	size_t n = (size_t)1 << dim;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
			v[i * dim + k] = (i >> k) & 1 ? hi[k] : lo[k];
	return n;
}

static clash_result gjk(const clash_shape *a, const clash_shape *b)
{
	clash_result r;
	int e = clash_gjk(a, b, NULL, &r);
	ck_assert_msg(e == CLASH_OK, "clash_gjk: %s", clash_strerror(e));
	return r;
}

static void ck_point(const double *p, const double *want, int dim, double tol)
{
	for (int k = 0; k < dim; k++)
		ck_assert_msg(fabs(p[k] - want[k]) <= tol, "coordinate %d: %.17g, expected %.17g",
		              k, p[k], want[k]);
}

static double dist(const double *p, const double *q, int dim)
{
	double s = 0;
	for (int k = 0; k < dim; k++)
		s += (p[k] - q[k]) * (p[k] - q[k]);
	return sqrt(s);
}

/* ---- closed forms ------------------------------------------------------- */

/* An L of two boxes, [0,3]x[0,1] and [0,1]x[0,3] (x [0,1] in 3-D), and the
 * box [1.4,2.4]x[1.7,2.7] in its concave corner: 0.7 from the foot, 0.4
 * from the upright.  The L's convex hull (bounded by x + y = 4) holds the
 * box's corner (1.4, 1.7), so a convex answer would say "intersecting". */
START_TEST(l_shape_and_box_in_its_corner)
{
	for (int dim = 2; dim <= 3; dim++) {
		double foot[24], up[24], corner[24];
		box(foot, dim, (double[]){0, 0, 0}, (double[]){3, 1, 1});
		box(up, dim, (double[]){0, 0, 0}, (double[]){1, 3, 1});
		size_t nc = box(corner, dim, (double[]){1.4, 1.7, 0}, (double[]){2.4, 2.7, 1});
		size_t nv = (size_t)1 << dim;
		clash_shape parts[2] = {convex(dim, foot, nv), convex(dim, up, nv)};
		clash_shape l = compound(dim, parts, 2), b = convex(dim, corner, nc);

		clash_result r = gjk(&l, &b);
		ck_assert(!r.intersecting);
		ck_assert(r.converged);
		ck_near(r.distance, 0.4, 1e-12);
		ck_assert(r.has & CLASH_HAS_PARTS);
		ck_assert_uint_eq(r.part_a, 1);
		ck_assert_uint_eq(r.part_b, 0);
		ck_near(r.near_a[0], 1.0, 1e-12);
		ck_near(r.near_b[0], 1.4, 1e-12);
		ck_near(dist(r.near_a, r.near_b, dim), 0.4, 1e-12);
		/* No plane separates an L from a box in its corner. */
		ck_assert(!(r.has & CLASH_HAS_PLANE));
		ck_assert(!(r.has & CLASH_HAS_WARM));
		ck_assert_uint_eq(r.warm_count, 0);

		/* Options reach the pairs: within a tolerance of 0.5 the box
		 * touches the L (at its upright); within 0.3 it does not. */
		clash_options opt = {.tolerance = 0.5};
		ck_assert_int_eq(clash_gjk(&l, &b, &opt, &r), CLASH_OK);
		ck_assert(r.intersecting);
		ck_assert_uint_eq(r.part_a, 1);
		opt.tolerance = 0.3;
		ck_assert_int_eq(clash_gjk(&l, &b, &opt, &r), CLASH_OK);
		ck_assert(!r.intersecting);
		ck_near(r.distance, 0.4, 0.3);

		/* The same with the roles swapped. */
		r = gjk(&b, &l);
		ck_near(r.distance, 0.4, 1e-12);
		ck_assert_uint_eq(r.part_a, 0);
		ck_assert_uint_eq(r.part_b, 1);

		/* What the convex hull of the L would wrongly say. */
		double all[48];
		memcpy(all, foot, nv * dim * sizeof *all);
		memcpy(all + nv * dim, up, nv * dim * sizeof *all);
		clash_shape hull = convex(dim, all, 2 * nv);
		ck_assert(gjk(&hull, &b).intersecting);
		/* A convex query carries no parts. */
		ck_assert(!(gjk(&hull, &b).has & CLASH_HAS_PARTS));
	}
}
END_TEST

/* Dumbbell a: spheres of radius 1 at (+-3,0,0) joined by a bar of radius
 * 0.25; dumbbell b: a sphere at (0,3,0), a bar up to (0,3,4), a sphere
 * there.  Nearest: a's bar and b's lower sphere, 3 - 0.25 - 1 = 1.75 (the
 * spheres are sqrt(18) - 2 = 2.24 apart, the bars 2.5). */
START_TEST(dumbbells)
{
	double a_left[] = {-3, 0, 0}, a_right[] = {3, 0, 0}, a_bar[] = {-3, 0, 0, 3, 0, 0};
	double b_low[] = {0, 3, 0}, b_bar[] = {0, 3, 0, 0, 3, 4}, b_high[] = {0, 3, 4};
	clash_shape pa[3] = {convex(3, a_left, 1), convex(3, a_right, 1), convex(3, a_bar, 2)};
	clash_shape pb[3] = {convex(3, b_low, 1), convex(3, b_bar, 2), convex(3, b_high, 1)};
	clash_shape_set_radius(&pa[0], 1);
	clash_shape_set_radius(&pa[1], 1);
	clash_shape_set_radius(&pa[2], 0.25);
	clash_shape_set_radius(&pb[0], 1);
	clash_shape_set_radius(&pb[1], 0.25);
	clash_shape_set_radius(&pb[2], 1);
	clash_shape a = compound(3, pa, 3), b = compound(3, pb, 3);

	clash_result r = gjk(&a, &b);
	ck_assert(!r.intersecting);
	ck_near(r.distance, 1.75, 1e-12);
	ck_assert_uint_eq(r.part_a, 2);
	ck_assert_uint_eq(r.part_b, 0);
	ck_point(r.near_a, (double[]){0, 0.25, 0}, 3, 1e-12);
	ck_point(r.near_b, (double[]){0, 2, 0}, 3, 1e-12);
	/* Here the near pair's plane y = 1.125 does separate the dumbbells. */
	ck_assert(r.has & CLASH_HAS_PLANE);
	ck_near(r.normal[1], 1.0, 1e-12);
	ck_near(r.offset, 1.125, 1e-12);

	/* A radius on a compound grows every part, in world units. */
	clash_shape_set_radius(&a, 0.1);
	r = gjk(&a, &b);
	ck_near(r.distance, 1.65, 1e-12);
	ck_point(r.near_a, (double[]){0, 0.35, 0}, 3, 1e-12);
	clash_shape_set_radius(&a, 0);

	/* Turn b a quarter about y: its bar now runs from (0,3,0) to (4,3,0),
	 * its upper sphere sits at (4,3,0), sqrt(10) - 2 from a's sphere at
	 * (3,0,0) -- nearer than anything else (1.75 before). */
	double s = sqrt(0.5);
	ck_assert_int_eq(clash_shape_set_quaternion(&b, (double[]){0, s, 0, s}), CLASH_OK);
	r = gjk(&a, &b);
	ck_near(r.distance, sqrt(10) - 2, 1e-12);
	ck_assert_uint_eq(r.part_a, 1);
	ck_assert_uint_eq(r.part_b, 2);
	double u = 1 / sqrt(10);
	ck_point(r.near_a, (double[]){3 + u, 3 * u, 0}, 3, 1e-12);
	ck_point(r.near_b, (double[]){4 - u, 3 - 3 * u, 0}, 3, 1e-12);
	/* ... then move it 1 up: the pose is the compound's, after the parts'. */
	ck_assert_int_eq(clash_shape_set_translation(&b, (double[]){0, 1, 0}), CLASH_OK);
	r = gjk(&a, &b);
	ck_near(r.distance, sqrt(17) - 2, 1e-12);
	ck_assert_uint_eq(r.part_b, 2);
}
END_TEST

/* Nesting in 2-D.  C1 = [unit square, unit square moved (2,0)] moved
 * (10,0); top = [C1, unit square moved (0,5)] turned a quarter (x, y) ->
 * (-y, x).  World squares: [-1,0]x[10,11] and [-1,0]x[12,13] (top part 0),
 * [-6,-5]x[0,1] (top part 1). */
START_TEST(nested_compounds)
{
	double sq[] = {0, 0, 1, 0, 0, 1, 1, 1};
	clash_shape inner[2] = {convex(2, sq, 4), convex(2, sq, 4)};
	clash_shape_set_translation(&inner[1], (double[]){2, 0});
	clash_shape top_parts[2];
	top_parts[0] = compound(2, inner, 2);
	clash_shape_set_translation(&top_parts[0], (double[]){10, 0});
	top_parts[1] = convex(2, sq, 4);
	clash_shape_set_translation(&top_parts[1], (double[]){0, 5});
	clash_shape top = compound(2, top_parts, 2);
	ck_assert_int_eq(clash_shape_set_angle(&top, M_PI / 2), CLASH_OK);

	double p[] = {-0.5, 11.8};
	clash_shape b = convex(2, p, 1);
	clash_result r = gjk(&top, &b);
	ck_near(r.distance, 0.2, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);
	ck_point(r.near_a, (double[]){-0.5, 12}, 2, 1e-12);

	p[0] = -5.5;
	p[1] = -0.5;
	r = gjk(&top, &b);
	ck_near(r.distance, 0.5, 1e-12);
	ck_assert_uint_eq(r.part_a, 1);
	ck_point(r.near_a, (double[]){-5.5, 0}, 2, 1e-12);

	/* A point between the two squares of C1 touches neither: 0.5 from
	 * both (the first found is reported, either is right). */
	p[0] = -0.5;
	p[1] = 11.5;
	r = gjk(&top, &b);
	ck_near(r.distance, 0.5, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);

	/* Radii along the path add up: 0.125 on the leaf, 0.25 on C1, 0.5 on
	 * top: (-5.5, -0.5) is 0.5 - 0.875 < 0 from the third square. */
	clash_shape_set_radius(&inner[0], 0.125);
	clash_shape_set_radius(&top_parts[0], 0.25);
	clash_shape_set_radius(&top, 0.5);
	p[0] = -0.5;
	p[1] = 9.0;
	r = gjk(&top, &b); /* 1.0 from [-1,0]x[10,11], which is grown by 0.875 */
	ck_near(r.distance, 1.0 - 0.875, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);
	p[0] = -6.5;
	p[1] = 0.5;
	r = gjk(&top, &b); /* 0.5 from the third square, grown by 0.5 only */
	ck_assert(r.intersecting);
	ck_assert_uint_eq(r.part_a, 1);
	ck_near(r.depth_lower_bound, 0.0, 1e-12);
}
END_TEST

/* 8 levels of one-part compounds, each moved (1, 0) and grown by 0.125,
 * around a point: a disc of radius 1 at (8, 0). */
START_TEST(deepest_nesting)
{
	double o[] = {0, 0};
	clash_shape levels[CLASH_COMPOUND_MAX_DEPTH + 2];
	levels[0] = convex(2, o, 1);
	for (int d = 1; d <= CLASH_COMPOUND_MAX_DEPTH + 1; d++) {
		levels[d] = compound(2, &levels[d - 1], 1);
		clash_shape_set_translation(&levels[d], (double[]){1, 0});
		clash_shape_set_radius(&levels[d], 0.125);
	}
	double q[] = {12, 0};
	clash_shape b = convex(2, q, 1);
	clash_result r = gjk(&levels[CLASH_COMPOUND_MAX_DEPTH], &b);
	ck_near(r.distance, 3.0, 1e-12);
	ck_point(r.near_a, (double[]){9, 0}, 2, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);
	ck_assert_int_eq(clash_gjk(&levels[CLASH_COMPOUND_MAX_DEPTH + 1], &b, NULL, &r),
	                 CLASH_ELIMIT);
	ck_assert_int_eq(clash_gjk(&b, &levels[CLASH_COMPOUND_MAX_DEPTH + 1], NULL, &r),
	                 CLASH_ELIMIT);
	ck_assert_uint_eq(r.dim, 0); /* zeroed on error */
}
END_TEST

/* A scaling pose scales a compound's parts (and their own poses) but not
 * radii: the point (0,0) moved (1,0) inside a compound scaled by 2 is at
 * (2,0), and its radius 1 stays 1. */
START_TEST(scaling_matrix_and_radius_in_world_units)
{
	double o[] = {0, 0};
	clash_shape part = convex(2, o, 1);
	clash_shape_set_translation(&part, (double[]){1, 0});
	clash_shape_set_radius(&part, 1);
	clash_shape a = compound(2, &part, 1);
	ck_assert_int_eq(clash_shape_set_matrix(&a, (double[]){2, 0, 0, 0, 2, 0, 0, 0, 1}),
	                 CLASH_OK);
	double q[] = {5, 0};
	clash_shape b = convex(2, q, 1);
	clash_result r = gjk(&a, &b);
	ck_near(r.distance, 2.0, 1e-12);
	ck_point(r.near_a, (double[]){3, 0}, 2, 1e-12);
	/* One part: the plane is the pair's, and it separates. */
	ck_assert(r.has & CLASH_HAS_PLANE);
	ck_near(r.offset, 4.0, 1e-12);
}
END_TEST

/* Overlapping unions: spheres of radius 1 at (0,0) and (5,0) against the
 * capsule (1.5,0)-(4.2,0) of radius 1: the pairs overlap by 0.5 and 1.2;
 * the union's depth is at least the larger. */
START_TEST(depth_bound_is_the_largest_over_pairs)
{
	double c0[] = {0, 0}, c1[] = {5, 0}, seg[] = {1.5, 0, 4.2, 0};
	clash_shape pa[2] = {convex(2, c0, 1), convex(2, c1, 1)};
	clash_shape_set_radius(&pa[0], 1);
	clash_shape_set_radius(&pa[1], 1);
	clash_shape a = compound(2, pa, 2), b = convex(2, seg, 2);
	clash_shape_set_radius(&b, 1);
	compound_stats st;
	clash_result r;
	ck_assert_int_eq(compound_query(&a, &b, NULL, clash_gjk, &r, &st), CLASH_OK);
	ck_assert(r.intersecting);
	ck_assert(r.has & CLASH_HAS_DEPTH_BOUND);
	ck_assert(!(r.has & CLASH_HAS_PLANE));
	ck_near(r.depth_lower_bound, 1.2, 1e-12);
	ck_assert_uint_eq(r.part_a, 1);
	ck_assert_uint_eq(r.distance, 0);
	/* The common point lies in both. */
	ck_assert_msg(dist(r.near_a, c1, 2) <= 1 + 1e-12, "near point outside a's part 1");
	ck_assert(fabs(r.near_a[1]) <= 1 + 1e-12 && r.near_a[0] <= 4.2 + 1 + 1e-12);
	/* The first pair's balls overlap by only 0.5: it cannot beat 1.2. */
	ck_assert_uint_eq(st.pairs_evaluated, 1);
	ck_assert_uint_eq(st.leaves_a, 2);
	ck_assert_uint_eq(st.leaves_b, 1);
	/* Same answer through clash_gjk. */
	clash_result r2 = gjk(&a, &b);
	ck_assert(memcmp(&r, &r2, sizeof r) == 0);

	/* A pair whose balls overlap most is not always the deepest: the unit
	 * disc against a long segment 0.5 from its centre (balls overlap by
	 * 5.5, depth 0.5) and a disc of radius 0.1 at (0.45, 0) (overlap and
	 * depth 0.65).  The first is looked at first; the second must still
	 * be, since its balls overlap by more than 0.5. */
	double seg2[] = {0.5, -5, 0.5, 5}, dot[] = {0.45, 0};
	clash_shape pb[2] = {convex(2, seg2, 2), convex(2, dot, 1)};
	clash_shape_set_radius(&pb[1], 0.1);
	clash_shape disc = convex(2, c0, 1), bb = compound(2, pb, 2);
	clash_shape_set_radius(&disc, 1);
	ck_assert_int_eq(compound_query(&disc, &bb, NULL, clash_gjk, &r, &st), CLASH_OK);
	ck_assert(r.intersecting);
	ck_near(r.depth_lower_bound, 0.65, 1e-12);
	ck_assert_uint_eq(r.part_b, 1);
	ck_assert_uint_eq(st.pairs_evaluated, 2);
	/* Move the small disc to (0.55, 0): depth 0.55, still deeper than 0.5. */
	dot[0] = 0.55;
	ck_assert_int_eq(compound_query(&disc, &bb, NULL, clash_gjk, &r, &st), CLASH_OK);
	ck_near(r.depth_lower_bound, 0.55, 1e-12);
	ck_assert_uint_eq(r.part_b, 1);
	/* ... and to (0.65, 0): depth 0.45, the segment's 0.5 is the answer. */
	dot[0] = 0.65;
	ck_assert_int_eq(compound_query(&disc, &bb, NULL, clash_gjk, &r, &st), CLASH_OK);
	ck_near(r.depth_lower_bound, 0.5, 1e-12);
	ck_assert_uint_eq(r.part_b, 0);
	ck_assert_uint_eq(st.pairs_evaluated, 1); /* its balls overlap by 0.45 only */
}
END_TEST

/* A plane that separates the near pair is kept only when it separates the
 * whole unions; when it does, every vertex of every part is on its side. */
START_TEST(plane_only_when_it_separates_the_unions)
{
	double sq[] = {0, 0, 1, 0, 0, 1, 1, 1};
	clash_shape pa[3], pb[2];
	for (int i = 0; i < 3; i++) {
		pa[i] = convex(2, sq, 4);
		clash_shape_set_translation(&pa[i], (double[]){-3.0 * i - 1, 2.0 * i});
	}
	for (int i = 0; i < 2; i++) {
		pb[i] = convex(2, sq, 4);
		clash_shape_set_translation(&pb[i], (double[]){2.0 + 2 * i, -1.0 * i});
	}
	clash_shape a = compound(2, pa, 3), b = compound(2, pb, 2);
	clash_result r = gjk(&a, &b);
	/* Nearest: a's part 0 [-1,0]x[0,1] and b's part 0 [2,3]x[0,1]. */
	ck_near(r.distance, 2.0, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);
	ck_assert_uint_eq(r.part_b, 0);
	ck_assert(r.has & CLASH_HAS_PLANE);
	for (int i = 0; i < 3; i++)
		for (int v = 0; v < 4; v++) {
			double x = sq[2 * v] + pa[i].translation[0],
			       y = sq[2 * v + 1] + pa[i].translation[1];
			ck_assert(r.normal[0] * x + r.normal[1] * y <= r.offset);
		}
	for (int i = 0; i < 2; i++)
		for (int v = 0; v < 4; v++) {
			double x = sq[2 * v] + pb[i].translation[0],
			       y = sq[2 * v + 1] + pb[i].translation[1];
			ck_assert(r.normal[0] * x + r.normal[1] * y >= r.offset);
		}
	/* Put a third part of b behind a: no plane can separate now, and the
	 * near pair is unchanged. */
	clash_shape pb3[3] = {pb[0], pb[1], convex(2, sq, 4)};
	clash_shape_set_translation(&pb3[2], (double[]){-12, 0});
	b = compound(2, pb3, 3);
	r = gjk(&a, &b);
	ck_near(r.distance, 2.0, 1e-12);
	ck_assert(!(r.has & CLASH_HAS_PLANE));
}
END_TEST

/* ---- random compounds against brute force -------------------------------- */

/* A random nested compound in storage the test owns, plus every leaf
 * placed by the test itself: world vertices from its own products of
 * homogeneous matrices, and the summed radius. */
typedef struct tree {
	int dim;
	clash_shape root;
	void *blocks[512];
	size_t nblocks;
	/* world leaves, placed independently of the core */
	clash_shape world[256];
	size_t top[256];
	size_t nworld;
} tree;

static void *tree_alloc(tree *t, size_t bytes)
{
	ck_assert(t->nblocks < sizeof t->blocks / sizeof t->blocks[0]);
	void *p = calloc(1, bytes);
	ck_assert_ptr_nonnull(p);
	return t->blocks[t->nblocks++] = p;
}

static void tree_free(tree *t)
{
	for (size_t i = 0; i < t->nblocks; i++)
		free(t->blocks[i]);
}

/* Row-major homogeneous (dim+1)^2 matrices: c = a b. */
static void mat_mul(double *c, const double *a, const double *b, int dim)
{
	int h = dim + 1;
	double t[81];
	for (int i = 0; i < h; i++)
		for (int j = 0; j < h; j++) {
			double s = 0;
			for (int k = 0; k < h; k++)
				s += a[i * h + k] * b[k * h + j];
			t[i * h + j] = s;
		}
	memcpy(c, t, (size_t)(h * h) * sizeof *t);
}

static void mat_identity(double *m, int dim)
{
	int h = dim + 1;
	for (int i = 0; i < h * h; i++)
		m[i] = (i / h == i % h);
}

/* A random pose for s (a rotation, a scale in [0.5, 2] sometimes, a
 * translation of size up to `spread`), set through clash_shape_set_matrix;
 * the same map is written row-major to m. */
static void random_pose(prng *g, clash_shape *s, int dim, double spread, double *m)
{
	int h = dim + 1;
	mat_identity(m, dim);
	if (prng_unit(g) < 0.3)
		return; /* identity: not posed */
	/* Gram-Schmidt of a random matrix: a rotation (or reflection). */
	double q[64];
	for (int c = 0; c < dim; c++) {
		double *col = q + c * dim;
		prng_direction(g, dim, col);
		for (int p = 0; p < c; p++) {
			double d = 0;
			for (int k = 0; k < dim; k++)
				d += col[k] * q[p * dim + k];
			for (int k = 0; k < dim; k++)
				col[k] -= d * q[p * dim + k];
		}
		double n = 0;
		for (int k = 0; k < dim; k++)
			n += col[k] * col[k];
		n = sqrt(n);
		ck_assert(n > 1e-6);
		for (int k = 0; k < dim; k++)
			col[k] /= n;
	}
	double scale = prng_unit(g) < 0.3 ? prng_range(g, 0.5, 2) : 1;
	for (int r = 0; r < dim; r++) {
		for (int c = 0; c < dim; c++)
			m[r * h + c] = q[c * dim + r] * scale;
		m[r * h + dim] = prng_range(g, -spread, spread);
	}
	double colmajor[81];
	for (int r = 0; r < h; r++)
		for (int c = 0; c < h; c++)
			colmajor[c * h + r] = m[r * h + c];
	ck_assert_int_eq(clash_shape_set_matrix(s, colmajor), CLASH_OK);
}

/* Fill *s as a random node at depth `depth` whose world map (of its
 * parent) is `parent` and radius so far `rad`; leaves are recorded in the
 * tree's world list under top-level part `top`. */
static void random_node(prng *g, tree *t, clash_shape *s, int depth, const double *parent,
                        double rad, size_t top, int max_leaves)
{
	int dim = t->dim;
	int leafy = depth >= 3 || prng_unit(g) < (depth == 0 ? 0.0 : 0.6) ||
	            t->nworld + 2 > (size_t)max_leaves;
	if (leafy) {
		size_t n = (size_t)prng_int(g, 1, 6);
		double *v = tree_alloc(t, n * dim * sizeof *v);
		double size = prng_log(g, 0.2, 2);
		for (size_t i = 0; i < n * (size_t)dim; i++)
			v[i] = prng_range(g, -size, size);
		*s = convex(dim, v, n);
	} else {
		size_t n = (size_t)prng_int(g, 1, 6);
		clash_shape *parts = tree_alloc(t, n * sizeof *parts);
		/* Parts first (their own poses are set below, with the map). */
		memset(s, 0, sizeof *s);
		s->dim = dim;
		s->parts = parts;
		s->nparts = n;
	}
	double m[81], world[81];
	random_pose(g, s, dim, depth == 0 ? prng_range(g, 2, 10) : 6, m);
	mat_mul(world, parent, m, dim);
	if (prng_unit(g) < 0.3)
		clash_shape_set_radius(s, prng_log(g, 0.01, 0.5));
	double r = rad + s->radius;
	if (leafy) {
		ck_assert(t->nworld < 256);
		double *w = tree_alloc(t, s->count * dim * sizeof *w);
		int h = dim + 1;
		for (size_t i = 0; i < s->count; i++)
			for (int row = 0; row < dim; row++) {
				double x = world[row * h + dim];
				for (int k = 0; k < dim; k++)
					x += world[row * h + k] * s->vertices[i * dim + k];
				w[i * dim + row] = x;
			}
		clash_shape *ws = &t->world[t->nworld];
		*ws = convex(dim, w, s->count);
		clash_shape_set_radius(ws, r);
		t->top[t->nworld++] = top;
		return;
	}
	clash_shape *parts = (clash_shape *)s->parts;
	for (size_t i = 0; i < s->nparts; i++)
		random_node(g, t, &parts[i], depth + 1, world, r, depth == 0 ? i : top, max_leaves);
	/* Now that the parts are built, check them as the API would. */
	clash_shape check;
	ck_assert_int_eq(clash_shape_init_compound(&check, dim, parts, s->nparts), CLASH_OK);
}

static void random_tree(prng *g, tree *t, int dim, int max_leaves)
{
	memset(t, 0, sizeof *t);
	t->dim = dim;
	double id[81];
	mat_identity(id, dim);
	if (prng_unit(g) < 0.15) { /* sometimes a convex shape */
		double *v = tree_alloc(t, 4 * dim * sizeof *v);
		for (int i = 0; i < 4 * dim; i++)
			v[i] = prng_range(g, -1, 1);
		t->root = convex(dim, v, 4);
		double m[81];
		random_pose(g, &t->root, dim, 5, m);
		t->world[0] = t->root; /* its pose is the test's own: same map */
		t->top[0] = 0;
		t->nworld = 1;
		return;
	}
	random_node(g, t, &t->root, 0, id, 0.0, 0, max_leaves);
}

/* The layer's own leaves (compound_foreach_leaf), copied out. */
typedef struct leaf_list {
	clash_shape s[256];
	size_t top[256];
	size_t n;
} leaf_list;

static int collect_leaf(const clash_shape *leaf, size_t top, void *ctx)
{
	leaf_list *l = ctx;
	ck_assert(l->n < 256);
	l->s[l->n] = *leaf;
	l->top[l->n++] = top;
	return 0;
}

START_TEST(random_compounds_against_brute_force)
{
	prng g = {UINT64_C(0xC0FFEE) + (uint64_t)_i};
	size_t evaluated = 0, pairs = 0, separated = 0, intersecting = 0;
	static tree ta, tb;
	static leaf_list la, lb;
	for (int rep = 0; rep < 100; rep++) {
		int dim = prng_int(&g, 2, 4);
		random_tree(&g, &ta, dim, 40);
		random_tree(&g, &tb, dim, 40);
		clash_result r;
		compound_stats st;
		ck_assert_int_eq(compound_query(&ta.root, &tb.root, NULL, clash_gjk, &r, &st),
		                 CLASH_OK);
		clash_result via_gjk = gjk(&ta.root, &tb.root);
		/* clash_gjk hands compounds to the layer (two convex shapes it
		 * answers itself, with a warm simplex and no parts). */
		if (ta.root.nparts || tb.root.nparts)
			ck_assert(memcmp(&r, &via_gjk, sizeof r) == 0);
		else
			ck_assert(r.distance == via_gjk.distance &&
			          !(via_gjk.has & CLASH_HAS_PARTS));
		ck_assert_uint_eq(st.leaves_a, ta.nworld);
		ck_assert_uint_eq(st.leaves_b, tb.nworld);
		evaluated += st.pairs_evaluated;
		pairs += ta.nworld * tb.nworld;

		/* 1. Independent placement: the distance, and the deepest pair's
		 * depth, agree to rounding. */
		double best = INFINITY, scale = 0, deepest = -1;
		for (size_t i = 0; i < ta.nworld; i++)
			for (size_t j = 0; j < tb.nworld; j++) {
				clash_result p = gjk(&ta.world[i], &tb.world[j]);
				best = fmin(best, p.intersecting ? 0.0 : p.distance);
				scale = fmax(scale, fabs(p.near_a[0]) + fabs(p.near_b[0]));
				if (p.intersecting && (p.has & CLASH_HAS_DEPTH))
					deepest = fmax(deepest, p.depth);
			}
		double tol = 1e-9 * (1 + scale);
		ck_assert_msg(fabs((r.intersecting ? 0.0 : r.distance) - best) <= tol,
		              "rep %d: union %.17g, brute force %.17g", rep, r.distance, best);
		if (r.has & CLASH_HAS_PAIR_DEPTH)
			ck_assert_msg(fabs(r.depth - deepest) <= tol,
			              "rep %d: pair depth %.17g, brute force %.17g", rep, r.depth,
			              deepest);

		/* 2. The layer's own leaves, every pair: pruning must not change
		 * the answer at all. */
		la.n = lb.n = 0;
		ck_assert_int_eq(compound_foreach_leaf(&ta.root, collect_leaf, &la), 0);
		ck_assert_int_eq(compound_foreach_leaf(&tb.root, collect_leaf, &lb), 0);
		ck_assert_uint_eq(la.n, ta.nworld);
		for (size_t i = 0; i < la.n; i++)
			ck_assert_uint_eq(la.top[i], ta.top[i]);
		double dmin = INFINITY, dmin2 = INFINITY, depth = -1, depth2 = -1;
		size_t bi = 0, bj = 0;
		int any = 0;
		clash_result deep = {0}; /* the deepest pair's answer */
		for (size_t i = 0; i < la.n; i++)
			for (size_t j = 0; j < lb.n; j++) {
				clash_result p = gjk(&la.s[i], &lb.s[j]);
				/* A pair's depth: EPA's where it has one, else the bound. */
				double pd =
					(p.has & CLASH_HAS_DEPTH) ? p.depth : p.depth_lower_bound;
				if (p.intersecting) {
					if (pd > depth) {
						depth2 = depth;
						depth = pd;
						bi = i;
						bj = j;
						deep = p;
					} else {
						depth2 = fmax(depth2, pd);
					}
					any = 1;
				} else if (p.distance < dmin) {
					dmin2 = dmin;
					dmin = p.distance;
					if (!any) {
						bi = i;
						bj = j;
					}
				} else {
					dmin2 = fmin(dmin2, p.distance);
				}
			}
		ck_assert_int_eq(r.intersecting, any);
		if (any) {
			intersecting++;
			ck_assert_msg(r.depth_lower_bound == depth,
			              "rep %d: depth %.17g, pairs %.17g", rep, r.depth_lower_bound,
			              depth);
			if (depth2 < depth)
				ck_assert(r.part_a == la.top[bi] && r.part_b == lb.top[bj]);
			/* In 1-D to 3-D the deepest pair's own depth, direction and
			 * points, to the bit; in 4-D only the bound. */
			ck_assert_int_eq(!!(r.has & CLASH_HAS_PAIR_DEPTH), dim <= 3);
			ck_assert(!(r.has & CLASH_HAS_DEPTH));
			if (dim <= 3) {
				ck_assert(r.depth == depth && r.depth_lower_bound == r.depth);
				if (depth2 < depth)
					ck_assert(memcmp(r.depth_normal, deep.depth_normal,
					                 sizeof r.depth_normal) == 0 &&
					          memcmp(r.depth_a, deep.depth_a,
					                 sizeof r.depth_a) == 0 &&
					          memcmp(r.depth_b, deep.depth_b,
					                 sizeof r.depth_b) == 0);
			}
		} else {
			separated++;
			ck_assert_msg(r.distance == dmin, "rep %d: %.17g, pairs %.17g", rep,
			              r.distance, dmin);
			if (dmin2 > dmin)
				ck_assert(r.part_a == la.top[bi] && r.part_b == lb.top[bj]);
			ck_near(dist(r.near_a, r.near_b, dim), r.distance, 1e-9 * (1 + r.distance));
		}
		tree_free(&ta);
		tree_free(&tb);
	}
	/* Both kinds of answer were exercised, and pruning skipped pairs. */
	ck_assert_uint_gt(separated, 10);
	ck_assert_uint_gt(intersecting, 5);
	ck_assert_msg(evaluated * 4 < pairs, "evaluated %zu of %zu pairs", evaluated, pairs);
}
END_TEST

/* A leaf method that counts its calls (fork mode: a fresh counter per test). */
static size_t leaf_calls;

static int counting_gjk(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                        clash_result *r)
{
	leaf_calls++;
	ck_assert(a->nparts == 0 && b->nparts == 0);
	return clash_gjk(a, b, opt, r);
}

/* Two rows of 64 unit balls, 3 apart, the rows 10 apart and slanted so one
 * pair is nearest: of 4096 pairs only the few whose balls come near the
 * best distance reach the method. */
START_TEST(pruning_skips_far_pairs)
{
	double o[] = {0, 0, 0};
	clash_shape pa[64], pb[64];
	for (int i = 0; i < 64; i++) {
		pa[i] = convex(3, o, 1);
		clash_shape_set_radius(&pa[i], 1);
		clash_shape_set_translation(&pa[i], (double[]){3.0 * i, 0, 0});
		pb[i] = convex(3, o, 1);
		clash_shape_set_radius(&pb[i], 1);
		clash_shape_set_translation(&pb[i], (double[]){3.0 * i, 10 + 0.25 * i, 0});
	}
	clash_shape a = compound(3, pa, 64), b = compound(3, pb, 64);
	clash_result r;
	compound_stats st;
	leaf_calls = 0;
	ck_assert_int_eq(compound_query(&a, &b, NULL, counting_gjk, &r, &st), CLASH_OK);
	ck_near(r.distance, 8.0, 1e-12);
	ck_assert_uint_eq(r.part_a, 0);
	ck_assert_uint_eq(r.part_b, 0);
	ck_assert_uint_eq(st.pairs_evaluated, leaf_calls);
	ck_assert_msg(leaf_calls <= 8, "%zu of 4096 pairs evaluated", leaf_calls);
	ck_assert_uint_ge(leaf_calls, 1);

	/* Overlapping rows: every pair near the deepest is looked at, far
	 * ones still not. */
	for (int i = 0; i < 64; i++)
		clash_shape_set_translation(&pb[i], (double[]){3.0 * i, 1.5 - 0.001 * i, 0});
	leaf_calls = 0;
	ck_assert_int_eq(compound_query(&a, &b, NULL, counting_gjk, &r, &st), CLASH_OK);
	ck_assert(r.intersecting);
	ck_near(r.depth_lower_bound, 2 - (1.5 - 0.063), 1e-12); /* the 64th pair overlaps most */
	ck_assert_uint_eq(r.part_a, 63);
	ck_assert_msg(leaf_calls < 4096 / 8, "%zu of 4096 pairs evaluated", leaf_calls);
}
END_TEST

/* ---- the union semantics for other kinds of method ----------------------- */

/* Stand-ins answering like the methods written in parallel. */
static int verdict_only(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                        clash_result *r)
{
	leaf_calls++;
	int e = clash_gjk(a, b, opt, r);
	int hit = r->intersecting;
	int dim = r->dim;
	memset(r, 0, sizeof *r);
	r->dim = dim;
	r->intersecting = hit;
	r->converged = 1;
	r->iterations = 1;
	return e;
}

static int lower_bound_only(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                            clash_result *r)
{
	int e = clash_gjk(a, b, opt, r);
	double d = r->distance;
	r->has = CLASH_HAS_DISTANCE_BOUND;
	r->distance = 0;
	r->distance_lower_bound = r->intersecting ? 0 : 0.5 * d;
	return e;
}

static int exact_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                       clash_result *r)
{
	int e = clash_gjk(a, b, opt, r);
	if (r->intersecting) {
		ck_assert(r->has & CLASH_HAS_DEPTH); /* EPA, in 2-D and 3-D */
		r->depth_lower_bound = 0;            /* the layer must take `depth` */
	}
	return e;
}

START_TEST(union_semantics_of_other_methods)
{
	prng g = {77};
	static tree ta, tb;
	int hits = 0, misses = 0;
	for (int rep = 0; rep < 40; rep++) {
		int dim = prng_int(&g, 2, 3);
		random_tree(&g, &ta, dim, 30);
		random_tree(&g, &tb, dim, 30);
		clash_result exact = gjk(&ta.root, &tb.root), r;

		/* A verdict: intersecting iff some pair is; the first hit ends it. */
		leaf_calls = 0;
		ck_assert_int_eq(compound_query(&ta.root, &tb.root, NULL, verdict_only, &r, NULL),
		                 CLASH_OK);
		ck_assert_int_eq(r.intersecting, exact.intersecting);
		ck_assert(r.has == CLASH_HAS_PARTS);
		if (r.intersecting) {
			hits++;
			/* The reported pair really intersects. */
			int found = 0;
			for (size_t i = 0; i < ta.nworld && !found; i++)
				for (size_t j = 0; j < tb.nworld && !found; j++)
					if (ta.top[i] == r.part_a && tb.top[j] == r.part_b)
						found = gjk(&ta.world[i], &tb.world[j])
						                .intersecting;
			ck_assert(found);
		} else {
			misses++;
		}

		/* A lower bound: still one for the union, and no worse than the
		 * least of the pairs' (here half their distance). */
		ck_assert_int_eq(compound_query(&ta.root, &tb.root, NULL, lower_bound_only, &r,
		                                NULL),
		                 CLASH_OK);
		ck_assert_int_eq(r.intersecting, exact.intersecting);
		if (!r.intersecting) {
			ck_assert(r.has & CLASH_HAS_DISTANCE_BOUND);
			ck_assert_msg(r.distance_lower_bound >= 0.5 * exact.distance &&
			                      r.distance_lower_bound <= exact.distance,
			              "%.17g vs distance %.17g", r.distance_lower_bound,
			              exact.distance);
		}

		/* An exact pair depth: the union gets it as a bound, never as its
		 * depth, and as the deepest pair's depth with its direction. */
		ck_assert_int_eq(compound_query(&ta.root, &tb.root, NULL, exact_depth, &r, NULL),
		                 CLASH_OK);
		ck_assert_int_eq(r.intersecting, exact.intersecting);
		ck_assert(!(r.has & CLASH_HAS_DEPTH));
		if (r.intersecting) {
			ck_assert(r.has & CLASH_HAS_DEPTH_BOUND);
			ck_assert(r.depth_lower_bound == exact.depth_lower_bound);
			ck_assert(r.has & CLASH_HAS_PAIR_DEPTH);
			ck_assert(r.depth == r.depth_lower_bound && r.depth == exact.depth);
			ck_assert(memcmp(r.depth_normal, exact.depth_normal,
			                 sizeof r.depth_normal) == 0);
		} else {
			ck_assert(!(r.has & CLASH_HAS_PAIR_DEPTH));
			ck_assert(r.depth == 0 && r.depth_normal[0] == 0);
		}
		/* A verdict-only pair cuts the search short: no deepest pair. */
		ck_assert_int_eq(compound_query(&ta.root, &tb.root, NULL, verdict_only, &r, NULL),
		                 CLASH_OK);
		ck_assert(!(r.has & CLASH_HAS_PAIR_DEPTH));
		tree_free(&ta);
		tree_free(&tb);
	}
	ck_assert_int_gt(hits, 3);
	ck_assert_int_gt(misses, 3);
}
END_TEST

/* ---- limits and bad arguments -------------------------------------------- */

START_TEST(leaf_limit)
{
	/* CLASH_COMPOUND_MAX_LEAVES points on a line, then one more. */
	size_t n = CLASH_COMPOUND_MAX_LEAVES + 1;
	double *pts = malloc(n * 2 * sizeof *pts);
	clash_shape *parts = malloc(n * sizeof *parts);
	for (size_t i = 0; i < n; i++) {
		pts[2 * i] = (double)i;
		pts[2 * i + 1] = 0;
		parts[i] = convex(2, pts + 2 * i, 1);
	}
	double q[] = {1000.25, 3};
	clash_shape b = convex(2, q, 1);
	clash_shape a = compound(2, parts, n - 1);
	compound_stats st;
	clash_result r;
	ck_assert_int_eq(compound_query(&a, &b, NULL, clash_gjk, &r, &st), CLASH_OK);
	ck_near(r.distance, hypot(0.25, 3), 1e-12);
	ck_assert_uint_eq(r.part_a, 1000);
	ck_assert_uint_eq(st.leaves_a, CLASH_COMPOUND_MAX_LEAVES);
	ck_assert_uint_lt(st.pairs_evaluated, 16);
	a = compound(2, parts, n);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_ELIMIT);
	ck_assert_int_eq(clash_gjk(&b, &a, NULL, &r), CLASH_ELIMIT);

	/* Nested: 64 compounds of 64 is the most; one more leaf beside them
	 * is too many. */
	clash_shape groups[65];
	for (int i = 0; i < 64; i++)
		groups[i] = compound(2, parts + 64 * i, 64);
	groups[64] = parts[4096];
	a = compound(2, groups, 64);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_assert_uint_eq(r.part_a, 1000 / 64);
	a = compound(2, groups, 65);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_ELIMIT);
	free(parts);
	free(pts);
}
END_TEST

START_TEST(bad_arguments)
{
	double v[] = {0, 0, 1, 1}, w3[] = {0, 0, 0};
	clash_shape p2 = convex(2, v, 2), p3 = convex(3, w3, 1), s, parts[2];
	ck_assert_int_eq(clash_shape_init_compound(NULL, 2, &p2, 1), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_init_compound(&s, 2, &p2, 0), CLASH_EEMPTY);
	ck_assert_int_eq(clash_shape_init_compound(&s, 2, NULL, 1), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_init_compound(&s, 0, &p2, 1), CLASH_EDIM);
	ck_assert_int_eq(clash_shape_init_compound(&s, 9, &p2, 1), CLASH_EDIM);
	ck_assert_int_eq(clash_shape_init_compound(&s, 3, &p2, 1), CLASH_EDIM);
	ck_assert_int_eq(clash_shape_init_compound(&s, 2, &p2, 1), CLASH_OK);
	ck_assert_uint_eq(s.count, 0);
	ck_assert_ptr_null(s.vertices);
	clash_result r;
	/* A part of the wrong dimension deep inside (built by hand). */
	parts[0] = p2;
	parts[1] = p3;
	clash_shape bad = s;
	bad.parts = parts;
	bad.nparts = 2;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_EDIM);
	ck_assert_int_eq(clash_gjk(&p3, &s, NULL, &r), CLASH_EDIM);
	/* An empty leaf, a bad radius, a missing parts array. */
	parts[1] = p2;
	parts[1].count = 0;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_EEMPTY);
	parts[1] = p2;
	parts[1].radius = -1;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_ERADIUS);
	parts[1] = p2;
	parts[1].vertices = NULL;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_EINVAL);
	bad.parts = NULL;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_EINVAL);
	ck_assert_int_eq(clash_gjk(&s, &p2, NULL, NULL), CLASH_EINVAL);
	ck_assert_int_eq(clash_gjk(&s, NULL, NULL, &r), CLASH_EINVAL);
	/* A non-finite vertex in a far part is refused, not pruned away. */
	double far_nan[] = {1e6, NAN};
	parts[0] = p2;
	parts[1] = convex(2, far_nan, 1);
	bad.parts = parts;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_ERANGE);
	/* Radii that overflow when added up. */
	parts[1] = p2;
	parts[1].radius = DBL_MAX;
	bad.radius = DBL_MAX;
	ck_assert_int_eq(clash_gjk(&bad, &p2, NULL, &r), CLASH_ERANGE);
	/* No warm simplex for compounds. */
	size_t wa[] = {0}, wb[] = {0};
	clash_options opt = {.warm_count = 1, .warm_a = wa, .warm_b = wb};
	ck_assert_int_eq(clash_gjk(&s, &p2, &opt, &r), CLASH_ENOTSUP);
	ck_assert_int_eq(clash_gjk(&p2, &s, &opt, &r), CLASH_ENOTSUP);
	/* Options still checked by the leaf method. */
	opt = (clash_options){.tolerance = -1};
	ck_assert_int_eq(clash_gjk(&s, &p2, &opt, &r), CLASH_EINVAL);
	ck_assert(strlen(clash_strerror(CLASH_ELIMIT)) > 0);
	ck_assert(strlen(clash_strerror(CLASH_ENOMEM)) > 0);
	ck_assert_str_ne(clash_strerror(CLASH_ENOMEM), clash_strerror(12345));
}
END_TEST

/* ---- the wire contract ---------------------------------------------------- */

/* Reply to a JSON text (double quotes written as single quotes). */
static json_t *reply(const char *single_quoted, int *status)
{
	char *t = strdup(single_quoted);
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	proto_reply out;
	ck_assert_int_eq(proto_query_reply(t, strlen(t), &out), 0);
	*status = out.status;
	json_t *j = json_loadb(out.body, out.length, 0, NULL);
	ck_assert_msg(j != NULL, "not JSON: %s", out.body);
	proto_reply_free(&out);
	free(t);
	return j;
}

static json_t *reply_json(json_t *query, int *status)
{
	char *t = json_dumps(query, JSON_COMPACT);
	proto_reply out;
	ck_assert_int_eq(proto_query_reply(t, strlen(t), &out), 0);
	*status = out.status;
	json_t *j = json_loadb(out.body, out.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	proto_reply_free(&out);
	free(t);
	return j;
}

static void expect_422(json_t *j, int status, const char *pointer, const char *word)
{
	char *dump = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(status == 422, "status %d: %s", status, dump);
	const char *p = json_string_value(json_object_get(j, "pointer"));
	ck_assert_msg(p && strcmp(p, pointer) == 0, "pointer %s, expected %s: %s", p, pointer,
	              dump);
	if (word)
		ck_assert_msg(strstr(json_string_value(json_object_get(j, "detail")), word),
		              "detail lacks %s: %s", word, dump);
	free(dump);
	json_decref(j);
}

static void problem_at(const char *q, const char *pointer, const char *word)
{
	int st;
	json_t *j = reply(q, &st);
	expect_422(j, st, pointer, word);
}

#define L_PARTS "[{'vertices':[[0,0],[3,0],[3,1],[0,1]]},{'vertices':[[0,0],[1,0],[1,3],[0,3]]}]"
#define CORNER "{'vertices':[[1.4,1.7],[2.4,1.7],[2.4,2.7],[1.4,2.7]]}"

START_TEST(proto_answers)
{
	proto_init();
	int st;
	json_t *j = reply("{'a':{'parts':" L_PARTS "},'b':" CORNER "}", &st);
	ck_assert_int_eq(st, 200);
	ck_near(json_number_value(json_object_get(j, "distance")), 0.4, 1e-12);
	json_t *np = json_object_get(j, "near_parts");
	ck_assert_int_eq(json_integer_value(json_object_get(np, "a")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(np, "b")), 0);
	ck_assert_ptr_null(json_object_get(j, "warm"));
	ck_assert_ptr_null(json_object_get(j, "separating_plane"));
	json_decref(j);

	/* Compound b, posed and rounded as a whole; parts posed themselves. */
	j = reply("{'a':" CORNER ",'b':{'parts':[{'vertices':[[0,0]],'pose':{'translation':[1,0]}},"
	          "{'vertices':[[0,0]],'radius':0.5}],'radius':0.25,"
	          "'pose':{'angle':1.5707963267948966,'translation':[10,2]}}}",
	          &st);
	/* b's parts: discs of radius 0.25 at (10,3) and 0.75 at (10,2). */
	ck_assert_int_eq(st, 200);
	ck_near(json_number_value(json_object_get(j, "distance")), 10 - 2.4 - 0.75, 1e-12);
	np = json_object_get(j, "near_parts");
	ck_assert_int_eq(json_integer_value(json_object_get(np, "a")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(np, "b")), 1);
	ck_assert_ptr_nonnull(json_object_get(j, "separating_plane"));
	json_decref(j);

	/* Convex answers are unchanged: warm, plane, no near_parts. */
	j = reply("{'a':" CORNER ",'b':" CORNER "}", &st);
	ck_assert_int_eq(st, 200);
	ck_assert_ptr_null(json_object_get(j, "near_parts"));
	ck_assert_ptr_nonnull(json_object_get(j, "warm"));
	json_decref(j);

	/* Intersecting compounds: penetration, the deepest pair. */
	j = reply(
		"{'a':{'parts':[{'vertices':[[0,0]],'radius':1},{'vertices':[[5,0]],'radius':1}]},"
		"'b':{'vertices':[[1.5,0],[4.2,0]],'radius':1}}",
		&st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_near(json_number_value(
			json_object_get(json_object_get(j, "penetration"), "depth_lower_bound")),
	        1.2, 1e-12);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "near_parts"), "a")),
	                 1);
	json_decref(j);
}
END_TEST

START_TEST(proto_errors)
{
	proto_init();
	problem_at("{'a':{'vertices':[[0,0]],'parts':" L_PARTS "},'b':" CORNER "}", "/a/parts",
	           "not both");
	problem_at("{'a':{'radius':1},'b':" CORNER "}", "/a", "vertices is required");
	problem_at("{'a':" CORNER ",'b':{'pose':{}}}", "/b", "parts");
	problem_at("{'a':{'parts':{}},'b':" CORNER "}", "/a/parts", "array");
	problem_at("{'a':{'parts':[]},'b':" CORNER "}", "/a/parts", "empty");
	problem_at("{'a':{'parts':[{'vertices':[[0,0]]},3]},'b':" CORNER "}", "/a/parts/1",
	           "object");
	problem_at("{'a':{'parts':[{'vertices':[[0,0]]},{}]},'b':" CORNER "}", "/a/parts/1",
	           "vertices is required");
	problem_at("{'a':{'parts':[{'vertices':[[0,0]]},{'vertices':[[0,0]]},"
	           "{'vertices':[[0,0],[1,0],[2,0],[3,0],[4,0],[5,'x']]}]},'b':" CORNER "}",
	           "/a/parts/2/vertices/5/1", "number");
	problem_at("{'a':{'parts':[{'parts':[{'vertices':[[0,0]]}]},{'vertices':[[0,0,0]]}]},"
	           "'b':" CORNER "}",
	           "/a/parts/1/vertices/0", "/a/parts/0/parts/0/vertices/0 has 2");
	problem_at("{'a':{'parts':" L_PARTS
	           "},'b':{'parts':[{'vertices':[[0,0],[1,1],[2,2],[3]]}]}}",
	           "/b/parts/0/vertices/3", "dimension");
	problem_at("{'a':{'parts':[{'vertices':[[0,0]],'radius':-1}]},'b':" CORNER "}",
	           "/a/parts/0/radius", ">= 0");
	problem_at("{'a':{'parts':[{'vertices':[[0,0,0]]},{'vertices':[[0,0,0]],"
	           "'pose':{'rotation':[0,0,0,2]}}]},'b':{'vertices':[[1,1,1]]}}",
	           "/a/parts/1/pose/rotation", "unit");
	problem_at("{'a':{'parts':[{'vertices':[[0,0]],'colour':1}]},'b':" CORNER "}",
	           "/a/parts/0/colour", "unknown");
	problem_at("{'a':{'parts':" L_PARTS ",'pose':{'translation':[1,2,3]}},'b':" CORNER "}",
	           "/a/pose/translation", "2");
	problem_at("{'a':{'parts':" L_PARTS ",'radius':-0.5},'b':" CORNER "}", "/a/radius", ">= 0");
	problem_at("{'a':{'parts':" L_PARTS "},'b':" CORNER ",'warm':{'a':[0],'b':[0]}}", "/warm",
	           "compound");
	problem_at("{'a':" CORNER ",'b':{'parts':" L_PARTS "},'warm':{'a':[0],'b':[0]}}", "/warm",
	           "compound");
}
END_TEST

/* {"parts": [ ... {"parts": [leaf]} ... ]} nested `levels` deep. */
static json_t *nested(int levels)
{
	json_t *s = json_pack("{s:[[f,f]]}", "vertices", 0.0, 0.0);
	for (int i = 0; i < levels; i++)
		s = json_pack("{s:[o]}", "parts", s);
	return s;
}

START_TEST(proto_limits)
{
	proto_init();
	int st;
	/* 8 levels deep is fine, 9 is not: the 9th parts is named. */
	json_t *q = json_pack("{s:o,s:{s:[[f,f]]}}", "a", nested(CLASH_COMPOUND_MAX_DEPTH), "b",
	                      "vertices", 3.0, 4.0);
	json_t *j = reply_json(q, &st);
	ck_assert_int_eq(st, 200);
	ck_near(json_number_value(json_object_get(j, "distance")), 5, 1e-12);
	json_decref(j);
	json_decref(q);
	q = json_pack("{s:o,s:o}", "a", json_pack("{s:[[f,f]]}", "vertices", 3.0, 4.0), "b",
	              nested(CLASH_COMPOUND_MAX_DEPTH + 1));
	char pointer[256] = "/b";
	for (int i = 0; i < CLASH_COMPOUND_MAX_DEPTH; i++)
		strcat(pointer, "/parts/0");
	strcat(pointer, "/parts");
	j = reply_json(q, &st);
	expect_422(j, st, pointer, "8 levels");
	json_decref(q);
	/* Hostile nesting far deeper is refused at the same place. */
	q = json_pack("{s:o,s:{s:[[f,f]]}}", "a", nested(1000), "b", "vertices", 3.0, 4.0);
	memcpy(pointer, "/a", 2);
	j = reply_json(q, &st);
	expect_422(j, st, pointer, "8 levels");
	json_decref(q);

	/* 4096 leaves are fine; the 4097th is named, flat or nested. */
	json_t *leaves = json_array();
	for (int i = 0; i < CLASH_COMPOUND_MAX_LEAVES; i++)
		json_array_append_new(leaves, json_pack("{s:[[f,f]]}", "vertices", (double)i, 0.0));
	q = json_pack("{s:{s:O},s:{s:[[f,f]]}}", "a", "parts", leaves, "b", "vertices", 2000.5,
	              1.0);
	j = reply_json(q, &st);
	ck_assert_int_eq(st, 200);
	ck_near(json_number_value(json_object_get(j, "distance")), hypot(0.5, 1), 1e-12);
	json_decref(j);
	json_array_append_new(leaves, json_pack("{s:[[f,f]]}", "vertices", 0.0, 0.0));
	j = reply_json(q, &st);
	expect_422(j, st, "/a/parts/4096", "4096");
	json_decref(q);
	/* 64 groups of 64, then one leaf more: the leaf. */
	json_t *groups = json_array();
	for (int g = 0; g < 64; g++) {
		json_t *grp = json_array();
		for (int i = 0; i < 64; i++)
			json_array_append(grp, json_array_get(leaves, (size_t)(64 * g + i)));
		json_array_append_new(groups, json_pack("{s:o}", "parts", grp));
	}
	json_array_append_new(groups, json_pack("{s:[[f,f]]}", "vertices", 0.0, 0.0));
	q = json_pack("{s:{s:[[f,f]]},s:{s:o}}", "a", "vertices", 2000.5, 1.0, "b", "parts",
	              groups);
	j = reply_json(q, &st);
	expect_422(j, st, "/b/parts/64", "4096");
	json_decref(q);
	/* A huge array is refused before anything is built for it. */
	for (int i = 0; i < 10000; i++)
		json_array_append_new(leaves, json_pack("{s:[[f,f]]}", "vertices", 0.0, 0.0));
	q = json_pack("{s:{s:o},s:{s:[[f,f]]}}", "a", "parts", leaves, "b", "vertices", 1.0, 1.0);
	j = reply_json(q, &st);
	expect_422(j, st, "/a/parts/4096", "4096");
	json_decref(q);
}
END_TEST

/* ---- `clash query` --------------------------------------------------------- */

START_TEST(clash_query_cli)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/clash", check_build_dir());
	ck_assert_msg(access(path, X_OK) == 0, "%s is not built", path);
	char in[] = "/tmp/check_compound_XXXXXX";
	int fd = mkstemp(in);
	ck_assert_int_ge(fd, 0);
	const char *text = "{\"a\":{\"parts\":[{\"vertices\":[[0,0],[3,0],[3,1],[0,1]]},"
			   "{\"vertices\":[[0,0],[1,0],[1,3],[0,3]]}]},"
			   "\"b\":{\"vertices\":[[1.4,1.7],[2.4,1.7],[2.4,2.7],[1.4,2.7]]}}\n"
			   "{\"a\":{\"parts\":[{\"vertices\":[[0,0]]},{\"vertices\":[[0,0],[1]]}]},"
			   "\"b\":{\"vertices\":[[5,5]]}}\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	FILE *out = tmpfile();
	ck_assert_ptr_nonnull(out);
	int i = open(in, O_RDONLY);
	ck_assert_int_ge(i, 0);
	spawn_opts o = {.argv = (const char *const[]){path, "query", NULL},
	                .in = i,
	                .out = fileno(out)};
	spawned c;
	ck_assert_int_eq(spawn(&o, &c), 0);
	close(i);
	int ws = spawn_wait(c.pid, -1);
	unlink(in);
	ck_assert(ws != -1 && WIFEXITED(ws));
	rewind(out);
	char line[4096];
	ck_assert_ptr_nonnull(fgets(line, sizeof line, out));
	json_t *j = json_loads(line, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_near(json_number_value(json_object_get(j, "distance")), 0.4, 1e-12);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "near_parts"), "a")),
	                 1);
	json_decref(j);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, out));
	j = json_loads(line, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 422);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/a/parts/1/vertices/1");
	json_decref(j);
	ck_assert_ptr_null(fgets(line, sizeof line, out));
	fclose(out);
}
END_TEST

static Suite *compound_suite(void)
{
	Suite *s = suite_create("compound");
	ck_case(s, "closed_form", 0,
	        CK_TESTS(l_shape_and_box_in_its_corner, dumbbells, nested_compounds,
	                 deepest_nesting, scaling_matrix_and_radius_in_world_units,
	                 depth_bound_is_the_largest_over_pairs,
	                 plane_only_when_it_separates_the_unions));
	TCase *tc = ck_case(s, "pruning", 60, NULL);
	ck_loops(tc, 3, CK_TESTS(random_compounds_against_brute_force));
	ck_loops(tc, 1, CK_TESTS(pruning_skips_far_pairs, union_semantics_of_other_methods));
	ck_case(s, "limits", 30, CK_TESTS(leaf_limit, bad_arguments));
	ck_case(s, "proto", 30,
	        CK_TESTS(proto_answers, proto_errors, proto_limits, clash_query_cli));
	return s;
}

CHECK_SUITE(compound_suite)
