/*
 * check_closed_forms.c — suite "closed_forms": the collision core against
 * closed-form answers.
 *
 * Every expected value here is worked out by hand (distances of boxes,
 * segments, points and simplices; touching and nested shapes; poses; radii),
 * so a wrong core cannot pass by agreeing with itself.  The degenerate inputs
 * the core must survive (duplicate, coplanar, collinear, single-point shapes; 1e-6 and
 * 1e6 coordinates; shapes far from the origin) and the failures other
 * libraries are known for (bench/README.md's peers) each have a test.
 * Randomized comparison with an independent oracle lives in
 * check_random_pairs.c.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "prng.h"
#include "clash.h"
#include "simplex.h" /* the sub-algorithm, for the fuzz findings */

/* ---- helpers ------------------------------------------------------------ */

/* 8 vertices of the box [c - h, c + h] in 3-D. */
static void box3(double *v, double cx, double cy, double cz, double hx, double hy, double hz)
{
	int k = 0;
	for (int i = 0; i < 8; i++) {
		v[k++] = cx + ((i & 1) ? hx : -hx);
		v[k++] = cy + ((i & 2) ? hy : -hy);
		v[k++] = cz + ((i & 4) ? hz : -hz);
	}
}

static clash_result query(int dim, const double *va, size_t na, const double *vb, size_t nb)
{
	clash_shape a, b;
	ck_assert_int_eq(clash_shape_init(&a, dim, va, na), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b, dim, vb, nb), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	return r;
}

static void ck_point(const double *p, double x, double y, double z, double tol)
{
	ck_near(p[0], x, tol);
	ck_near(p[1], y, tol);
	ck_near(p[2], z, tol);
}

/* Every vertex of a (radius ra) lies on the plane's a side, every vertex of b
 * on its b side: the plane really separates. */
static void ck_plane_separates(const clash_result *r, int dim, const double *va, size_t na,
                               double ra, const double *vb, size_t nb, double rb, double tol)
{
	double len = 0;
	for (int k = 0; k < dim; k++)
		len += r->normal[k] * r->normal[k];
	ck_near(sqrt(len), 1.0, 1e-12);
	for (size_t i = 0; i < na; i++) {
		double d = 0;
		for (int k = 0; k < dim; k++)
			d += r->normal[k] * va[i * dim + k];
		ck_assert_msg(d + ra <= r->offset + tol, "a vertex %zu beyond plane by %g", i,
		              d + ra - r->offset);
	}
	for (size_t i = 0; i < nb; i++) {
		double d = 0;
		for (int k = 0; k < dim; k++)
			d += r->normal[k] * vb[i * dim + k];
		ck_assert_msg(d - rb >= r->offset - tol, "b vertex %zu beyond plane by %g", i,
		              r->offset - (d - rb));
	}
}

static double dist(const double *p, const double *q, int dim)
{
	double s = 0;
	for (int k = 0; k < dim; k++)
		s += (p[k] - q[k]) * (p[k] - q[k]);
	return sqrt(s);
}

/* The stress tests' random source (prng.h). */
static prng rng = {0x9e3779b97f4a7c15ull};

/* ---- the acceptance example and boxes at known distances --------------- */

START_TEST(unit_cubes_two_apart)
{
	/* Two unit cubes two apart along x: [0,1]^3 and [3,4]x[0,1]^2. */
	double a[24], b[24];
	box3(a, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
	box3(b, 3.5, 0.5, 0.5, 0.5, 0.5, 0.5);
	clash_result r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 0);
	ck_assert(r.converged);
	ck_near(r.distance, 2.0, 1e-15);
	ck_near(r.near_a[0], 1.0, 1e-15);
	ck_near(r.near_b[0], 3.0, 1e-15);
	ck_near(dist(r.near_a, r.near_b, 3), 2.0, 1e-15);
	ck_point(r.normal, 1, 0, 0, 1e-15);
	ck_near(r.offset, 2.0, 1e-15);
	ck_plane_separates(&r, 3, a, 8, 0, b, 8, 0, 1e-12);
	ck_assert_uint_ge(r.warm_count, 1);
	ck_assert_uint_le(r.warm_count, 4);
}
END_TEST

START_TEST(boxes_edge_edge_and_vertex_vertex)
{
	double a[24], b[24];
	box3(a, 0, 0, 0, 1, 1, 1);
	/* Diagonal offset in x and y: the nearest features are parallel edges. */
	box3(b, 3, 3, 0, 1, 1, 1);
	clash_result r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, sqrt(2.0), 1e-14);
	ck_near(r.near_a[0], 1, 1e-14);
	ck_near(r.near_a[1], 1, 1e-14);
	ck_near(r.near_b[0], 2, 1e-14);
	ck_near(r.near_b[1], 2, 1e-14);
	ck_plane_separates(&r, 3, a, 8, 0, b, 8, 0, 1e-12);
	/* Offset along all three axes: corner to corner. */
	box3(b, 4, 4, 4, 1, 1, 1);
	r = query(3, a, 8, b, 8);
	ck_near(r.distance, sqrt(12.0), 1e-14);
	ck_point(r.near_a, 1, 1, 1, 1e-14);
	ck_point(r.near_b, 3, 3, 3, 1e-14);
	ck_plane_separates(&r, 3, a, 8, 0, b, 8, 0, 1e-12);
}
END_TEST

START_TEST(box_25x_larger)
{
	/* A 5 m box and a 0.2 m box: a size ratio at which contact code that
	 * mixes absolute and relative tolerances goes wrong. */
	double a[24], b[24];
	box3(a, 0, 0, 0, 2.5, 2.5, 2.5);
	box3(b, 0.7, -1.3, 2.5 + 0.1 + 0.05, 0.1, 0.1, 0.1); /* 0.05 above the top face */
	clash_result r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 0.05, 1e-14);
	ck_point(r.normal, 0, 0, 1, 1e-14);
	ck_near(r.near_a[2], 2.5, 1e-14);
	ck_near(r.near_b[2], 2.55, 1e-14);
	/* Resting on it exactly: touching. */
	box3(b, 0.7, -1.3, 2.6, 0.1, 0.1, 0.1);
	r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	/* Sunk 0.03 into it: the true depth is 0.03. */
	box3(b, 0.7, -1.3, 2.57, 0.1, 0.1, 0.1);
	r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.depth_lower_bound >= 0.0 && r.depth_lower_bound <= 0.03 + 1e-12);
}
END_TEST

/* ---- segments, points, simplices ---------------------------------------- */

START_TEST(segment_segment)
{
	/* Skew: x-axis segment and a y-parallel one 1 above its middle. */
	double s1[] = {0, 0, 0, 1, 0, 0};
	double s2[] = {0.5, -1, 1, 0.5, 1, 1};
	clash_result r = query(3, s1, 2, s2, 2);
	ck_near(r.distance, 1.0, 1e-15);
	ck_point(r.near_a, 0.5, 0, 0, 1e-15);
	ck_point(r.near_b, 0.5, 0, 1, 1e-15);
	/* Crossing: intersecting at (0.5, 0, 0), a point of both. */
	double s3[] = {0.5, -1, 0, 0.5, 1, 0};
	r = query(3, s1, 2, s3, 2);
	ck_assert_int_eq(r.intersecting, 1);
	ck_point(r.near_a, 0.5, 0, 0, 1e-15);
	ck_point(r.near_b, 0.5, 0, 0, 1e-15);
	ck_near(r.depth_lower_bound, 0.0, 0.0);
	/* Endpoint nearest: segment b beyond the end of a, skewed. */
	double s4[] = {3, 1, 0, 3, 1, 5};
	r = query(3, s1, 2, s4, 2);
	ck_near(r.distance, sqrt(5.0), 1e-14);
	ck_point(r.near_a, 1, 0, 0, 1e-15);
	ck_point(r.near_b, 3, 1, 0, 1e-15);
	/* Parallel, overlapping in x, 2 apart: near points not unique, distance is. */
	double s5[] = {0.25, 2, 0, 3, 2, 0};
	r = query(3, s1, 2, s5, 2);
	ck_near(r.distance, 2.0, 1e-15);
	ck_near(r.near_b[1] - r.near_a[1], 2.0, 1e-15);
	ck_assert(r.near_a[0] >= 0.25 - 1e-15 && r.near_a[0] <= 1 + 1e-15);
	/* Collinear and disjoint (the difference is 1-D). */
	double s6[] = {2.5, 0, 0, 4, 0, 0};
	r = query(3, s1, 2, s6, 2);
	ck_near(r.distance, 1.5, 1e-15);
	ck_point(r.normal, 1, 0, 0, 1e-15);
	/* Collinear and overlapping. */
	double s7[] = {0.5, 0, 0, 4, 0, 0};
	r = query(3, s1, 2, s7, 2);
	ck_assert_int_eq(r.intersecting, 1);
}
END_TEST

START_TEST(point_tetrahedron)
{
	double tet[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	/* Facing the slanted face x+y+z=1 from (1,1,1): distance 2/sqrt(3). */
	double p[] = {1, 1, 1};
	clash_result r = query(3, tet, 4, p, 1);
	ck_near(r.distance, 2.0 / sqrt(3.0), 1e-15);
	ck_point(r.near_a, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1e-15);
	ck_point(r.normal, 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0), 1e-15);
	/* Nearest to a vertex, an edge, and a coordinate face. */
	double pv[] = {-1, -2, -2};
	r = query(3, tet, 4, pv, 1);
	ck_near(r.distance, 3.0, 1e-15);
	ck_point(r.near_a, 0, 0, 0, 1e-15);
	double pe[] = {0.5, 0.5, -1};
	r = query(3, tet, 4, pe, 1);
	ck_near(r.distance, 1.0, 1e-15);
	ck_point(r.near_a, 0.5, 0.5, 0, 1e-15);
	double pf[] = {0.2, 0.3, -2};
	r = query(3, tet, 4, pf, 1);
	ck_near(r.distance, 2.0, 1e-15);
	ck_point(r.near_a, 0.2, 0.3, 0, 1e-15);
	/* Inside: intersecting; the true depth is the distance to the nearest
	 * face, and GJK88's bound (32) may not exceed it. */
	double pi[] = {0.1, 0.2, 0.3};
	r = query(3, tet, 4, pi, 1);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	ck_point(r.near_a, 0.1, 0.2, 0.3, 1e-15);
	ck_assert(r.depth_lower_bound <= 0.1 + 1e-15);
	/* A full simplex around the origin gives the exact bound for a point
	 * in a simplex: the difference K is the simplex itself. */
	ck_assert(r.depth_lower_bound >= 0.0);
}
END_TEST

START_TEST(depth_bound_for_simplex_is_exact)
{
	/* K = tet - {p} is a tetrahedron; when GJK ends on K's own four
	 * vertices around the origin, eq. (32) is the exact depth. */
	double tet[] = {-1, -1, -1, 5, -1, -1, -1, 5, -1, -1, -1, 5};
	double p[] = {0, 0, 0};
	clash_result r = query(3, tet, 4, p, 1);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_uint_eq(r.warm_count, 4);
	/* Nearest face planes are x=-1, y=-1, z=-1, distance 1 each; the slanted
	 * face x+y+z=3 is sqrt(3) away. */
	ck_near(r.depth_lower_bound, 1.0, 1e-14);
}
END_TEST

/* ---- touching and nested ------------------------------------------------ */

START_TEST(touching_face_edge_vertex)
{
	double a[24], b[24];
	box3(a, 0, 0, 0, 1, 1, 1);
	/* Stacked boxes, face on face (libccd: depth 0 and a NaN direction). */
	box3(b, 0.3, -0.2, 2, 1, 1, 1);
	clash_result r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	ck_near(r.near_a[2], 1.0, 1e-15);
	ck_near(r.depth_lower_bound, 0.0, 1e-15);
	/* Edge on edge: b rotated 45 degrees about x, resting its edge on a's top. */
	double c = sqrt(0.5);
	double q[] = {sin(M_PI / 8), 0, 0, cos(M_PI / 8)};
	clash_shape sa, sb;
	clash_shape_init(&sa, 3, a, 8);
	clash_shape_init(&sb, 3, a, 8); /* same unit-half box */
	ck_assert_int_eq(clash_shape_set_quaternion(&sb, q), CLASH_OK);
	double t[] = {0, 0, 1 + 2 * c};
	ck_assert_int_eq(clash_shape_set_translation(&sb, t), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_near(r.near_a[2], 1.0, 1e-14);
	/* Raised by 1e-3: separated by exactly that. */
	t[2] += 1e-3;
	clash_shape_set_translation(&sb, t);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 1e-3, 1e-14);
	/* Vertex on face: a tetrahedron standing on its apex on a's top. */
	double tet[] = {0.2, 0.1, 1, -1, -1, 3, 1, -1, 3, 0, 1, 3};
	r = query(3, a, 8, tet, 4);
	ck_assert_int_eq(r.intersecting, 1);
	ck_point(r.near_a, 0.2, 0.1, 1, 1e-15);
}
END_TEST

START_TEST(nested_shapes)
{
	double big[24], small[24];
	box3(big, 0, 0, 0, 1, 1, 1);
	box3(small, 0.1, 0.2, 0.3, 0.1, 0.1, 0.1);
	clash_result r = query(3, big, 8, small, 8);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	/* The true depth is the least push that frees small: 1 - 0.3 + 0.1 = 0.8. */
	ck_assert(r.depth_lower_bound >= 0.0 && r.depth_lower_bound <= 0.8 + 1e-12);
	/* The common point lies in both. */
	for (int k = 0; k < 3; k++)
		ck_assert(fabs(r.near_a[k] - (k + 1) * 0.1) <= 0.1 + 1e-12);
	/* Swapped roles. */
	r = query(3, small, 8, big, 8);
	ck_assert_int_eq(r.intersecting, 1);
}
END_TEST

START_TEST(origin_on_simplex_face)
{
	/* MuJoCo dropped a contact when the origin lay exactly on a face of the
	 * final tetrahedron.  Two boxes overlapping by exactly their half-width,
	 * aligned so K's inner points are on coordinate planes through 0. */
	double a[24], b[24];
	box3(a, 0, 0, 0, 1, 1, 1);
	box3(b, 1, 0, 0, 1, 1, 1);
	clash_result r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.depth_lower_bound <= 1.0 + 1e-12);
	box3(b, 1, 1, 1, 1, 1, 1);
	r = query(3, a, 8, b, 8);
	ck_assert_int_eq(r.intersecting, 1);
	/* A triangle through the origin vs a point at the origin. */
	double tri[] = {-1, -1, 0, 1, -1, 0, 0, 1, 0};
	double o[] = {0, 0, 0};
	r = query(3, tri, 3, o, 1);
	ck_assert_int_eq(r.intersecting, 1);
}
END_TEST

/* ---- degenerate inputs --------------------------------------------------- */

START_TEST(duplicate_points)
{
	double a[24 * 5], b[24];
	double box[24];
	box3(box, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
	for (int rep = 0; rep < 5; rep++)
		memcpy(a + 24 * rep, box, sizeof box);
	box3(b, 3.5, 0.5, 0.5, 0.5, 0.5, 0.5);
	clash_result r = query(3, a, 40, b, 8);
	ck_near(r.distance, 2.0, 1e-15);
	/* A shape that is one point given eight times. */
	double p8[24];
	for (int i = 0; i < 8; i++) {
		p8[3 * i] = 5;
		p8[3 * i + 1] = 0.5;
		p8[3 * i + 2] = 0.5;
	}
	r = query(3, box, 8, p8, 8);
	ck_near(r.distance, 4.0, 1e-15);
}
END_TEST

START_TEST(coplanar_shapes)
{
	/* Two squares in the plane z = 0 (K is flat: never a full simplex). */
	double s1[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
	double s2[] = {2, 0.5, 0, 3, 0.5, 0, 3, 1.5, 0, 2, 1.5, 0};
	clash_result r = query(3, s1, 4, s2, 4);
	ck_near(r.distance, 1.0, 1e-15);
	ck_point(r.normal, 1, 0, 0, 1e-15);
	double s3[] = {0.5, 0.5, 0, 3, 0.5, 0, 3, 1.5, 0, 0.5, 1.5, 0};
	r = query(3, s1, 4, s3, 4);
	ck_assert_int_eq(r.intersecting, 1);
	/* Parallel squares one above the other. */
	double s4[] = {0.2, 0.2, 2, 0.8, 0.2, 2, 0.8, 0.8, 2, 0.2, 0.8, 2};
	r = query(3, s1, 4, s4, 4);
	ck_near(r.distance, 2.0, 1e-15);
	ck_point(r.normal, 0, 0, 1, 1e-15);
}
END_TEST

START_TEST(single_points)
{
	double p[] = {1, 2, 3}, q[] = {4, 6, 3};
	clash_result r = query(3, p, 1, q, 1);
	ck_near(r.distance, 5.0, 1e-15);
	ck_point(r.near_a, 1, 2, 3, 0);
	ck_point(r.near_b, 4, 6, 3, 0);
	r = query(3, p, 1, p, 1);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	ck_point(r.near_a, 1, 2, 3, 0);
}
END_TEST

/* ---- scale and position --------------------------------------------------- */

START_TEST(tiny_and_huge_coordinates)
{
	for (int s = -6; s <= 6; s += 3) {
		double f = pow(10.0, s);
		double a[24], b[24];
		box3(a, 0.5 * f, 0.5 * f, 0.5 * f, 0.5 * f, 0.5 * f, 0.5 * f);
		box3(b, 3.5 * f, 0.5 * f, 0.5 * f, 0.5 * f, 0.5 * f, 0.5 * f);
		clash_result r = query(3, a, 8, b, 8);
		ck_assert_int_eq(r.intersecting, 0);
		ck_near(r.distance, 2.0 * f, 2.0 * f * 1e-15);
		ck_near(r.near_a[0], f, f * 1e-15);
		ck_plane_separates(&r, 3, a, 8, 0, b, 8, 0, f * 1e-12);
	}
}
END_TEST

START_TEST(far_from_origin)
{
	/* Unit cubes 1e-3 apart at 1e6 and at -3e7: the gap survives. */
	const double where[] = {1e6, -3e7, 123456.789};
	for (int i = 0; i < 3; i++) {
		double o = where[i];
		double a[24], b[24];
		box3(a, o, o, o, 0.5, 0.5, 0.5);
		box3(b, o + 1.001, o + 0.3, o - 0.2, 0.5, 0.5, 0.5);
		clash_result r = query(3, a, 8, b, 8);
		ck_assert_int_eq(r.intersecting, 0);
		/* The inputs carry ulp(3e7) ~ 4e-9 of rounding: no answer can
		 * be closer than that. */
		ck_near(r.distance, 1e-3, 4 * 8 * DBL_EPSILON * fabs(o));
		ck_plane_separates(&r, 3, a, 8, 0, b, 8, 0, 1e-12 * fabs(o));
	}
	/* Posed: the translation carries the far offset, vertices stay small. */
	double unit[24];
	box3(unit, 0, 0, 0, 0.5, 0.5, 0.5);
	clash_shape sa, sb;
	clash_shape_init(&sa, 3, unit, 8);
	clash_shape_init(&sb, 3, unit, 8);
	double ta[] = {1e9, 1e9, 1e9}, tb[] = {1e9 + 1.25, 1e9, 1e9};
	clash_shape_set_translation(&sa, ta);
	clash_shape_set_translation(&sb, tb);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_near(r.distance, 0.25, 1e-15);
}
END_TEST

/* ---- poses ----------------------------------------------------------------- */

START_TEST(quaternion_pose)
{
	/* A unit-half cube turned 45 degrees about z reaches sqrt(2) along x. */
	double cube[24];
	box3(cube, 0, 0, 0, 1, 1, 1);
	double wall[] = {3, -5, -5, 3, 5, -5, 3, 5, 5, 3, -5, 5};
	clash_shape a, b;
	clash_shape_init(&a, 3, cube, 8);
	clash_shape_init(&b, 3, wall, 4);
	double q[] = {0, 0, sin(M_PI / 8), cos(M_PI / 8)};
	ck_assert_int_eq(clash_shape_set_quaternion(&a, q), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 3 - sqrt(2.0), 1e-14);
	ck_point(r.near_a, sqrt(2.0), 0, r.near_a[2], 1e-14);
	/* Translate it 0.5 towards the wall. */
	double t[] = {0.5, 0, 0};
	clash_shape_set_translation(&a, t);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 2.5 - sqrt(2.0), 1e-14);
	/* The warm indices name vertices of the input arrays. */
	for (size_t i = 0; i < r.warm_count; i++) {
		ck_assert_uint_lt(r.warm_a[i], 8);
		ck_assert_uint_lt(r.warm_b[i], 4);
	}
	/* A float32-ish quaternion is normalized; a vector is rejected. */
	double q32[] = {0, 0, 0.38268343, 0.92387953};
	ck_assert_int_eq(clash_shape_set_quaternion(&a, q32), CLASH_OK);
	double bad[] = {0, 0, 1, 1};
	ck_assert_int_eq(clash_shape_set_quaternion(&a, bad), CLASH_EQUAT);
}
END_TEST

START_TEST(matrix_pose)
{
	/* The same 45-degree turn and translation as a column-major Matrix4. */
	double cube[24];
	box3(cube, 0, 0, 0, 1, 1, 1);
	double wall[] = {3, -5, -5, 3, 5, -5, 3, 5, 5, 3, -5, 5};
	double c = cos(M_PI / 4), s = sin(M_PI / 4);
	double m[16] = {c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1};
	clash_shape a, b;
	clash_shape_init(&a, 3, cube, 8);
	clash_shape_init(&b, 3, wall, 4);
	ck_assert_int_eq(clash_shape_set_matrix(&a, m), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 2.5 - sqrt(2.0), 1e-14);
	/* Non-uniform scale: x stretched by 2 reaches 2 (then 0.5 more). */
	double sc[16] = {2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&a, sc), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 0.5, 1e-15);
	/* Singular and projective matrices are refused. */
	double sing[16] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&a, sing), CLASH_ESINGULAR);
	double proj[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.5, 0, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&a, proj), CLASH_ESINGULAR);
	/* 2-D: a homogeneous 3x3 and an angle agree. */
	double sq[] = {-1, -1, 1, -1, 1, 1, -1, 1};
	double pt[] = {5, 0};
	clash_shape p2, q2;
	clash_shape_init(&p2, 2, sq, 4);
	clash_shape_init(&q2, 2, pt, 1);
	ck_assert_int_eq(clash_shape_set_angle(&p2, M_PI / 4), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&p2, &q2, NULL, &r), CLASH_OK);
	ck_near(r.distance, 5 - sqrt(2.0), 1e-14);
	double m3[9] = {c, s, 0, -s, c, 0, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&p2, m3), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&p2, &q2, NULL, &r), CLASH_OK);
	ck_near(r.distance, 5 - sqrt(2.0), 1e-14);
}
END_TEST

/* ---- radii ------------------------------------------------------------------ */

START_TEST(spheres_capsules_rounded_boxes)
{
	/* Spheres: points with radii. */
	double c1[] = {0, 0, 0}, c2[] = {3, 4, 0};
	clash_shape a, b;
	clash_shape_init(&a, 3, c1, 1);
	clash_shape_init(&b, 3, c2, 1);
	clash_shape_set_radius(&a, 1.5);
	clash_shape_set_radius(&b, 0.5);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 3.0, 1e-15);
	ck_point(r.near_a, 0.9, 1.2, 0, 1e-15);
	ck_point(r.near_b, 2.7, 3.6, 0, 1e-15);
	ck_plane_separates(&r, 3, c1, 1, 1.5, c2, 1, 0.5, 1e-12);
	/* Overlapping spheres: depth r1 + r2 - d exactly, common point between. */
	clash_shape_set_radius(&b, 4);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_near(r.depth_lower_bound, 0.5, 1e-15);
	ck_assert(dist(r.near_a, c1, 3) <= 1.5 + 1e-15 && dist(r.near_a, c2, 3) <= 4 + 1e-15);
	/* Capsules: segment + radius, crossing 1 apart. */
	double s1[] = {-1, 0, 0, 1, 0, 0}, s2[] = {0, -1, 1, 0, 1, 1};
	clash_shape_init(&a, 3, s1, 2);
	clash_shape_init(&b, 3, s2, 2);
	clash_shape_set_radius(&a, 0.25);
	clash_shape_set_radius(&b, 0.25);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_near(r.distance, 0.5, 1e-15);
	ck_point(r.near_a, 0, 0, 0.25, 1e-15);
	ck_point(r.near_b, 0, 0, 0.75, 1e-15);
	/* Rounded boxes just touching: 2 apart, radii 1 each. */
	double bx1[24], bx2[24];
	box3(bx1, 0, 0, 0, 1, 1, 1);
	box3(bx2, 4, 0, 0, 1, 1, 1);
	clash_shape_init(&a, 3, bx1, 8);
	clash_shape_init(&b, 3, bx2, 8);
	clash_shape_set_radius(&a, 1);
	clash_shape_set_radius(&b, 1);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.distance == 0.0);
	ck_near(r.near_a[0], 2.0, 1e-15);
	ck_assert_int_eq(clash_shape_set_radius(&a, -1), CLASH_ERADIUS);
	ck_assert_int_eq(clash_shape_set_radius(&a, NAN), CLASH_ERADIUS);
}
END_TEST

/* ---- other dimensions ------------------------------------------------------- */

START_TEST(two_d_polygons)
{
	double sq[] = {0, 0, 1, 0, 1, 1, 0, 1};
	double tri[] = {3, 0.5, 4, 0, 4, 1};
	clash_result r = query(2, sq, 4, tri, 3);
	ck_near(r.distance, 2.0, 1e-15);
	ck_near(r.near_a[0], 1.0, 1e-15);
	ck_near(r.near_a[1], 0.5, 1e-15);
	double tri2[] = {0.5, 0.5, 4, 0, 4, 1};
	r = query(2, sq, 4, tri2, 3);
	ck_assert_int_eq(r.intersecting, 1);
	/* A point inside the square: eq. (32) on the full 2-D simplex. */
	double p[] = {0.25, 0.5};
	r = query(2, sq, 4, p, 1);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert(r.depth_lower_bound <= 0.25 + 1e-15);
}
END_TEST

START_TEST(higher_dimensions)
{
	/* Unit hypercubes 2 apart along the first axis, in 1-D to 8-D. */
	static double a[256 * 8], b[256 * 8];
	for (int dim = 1; dim <= CLASH_MAX_DIM; dim++) {
		size_t n = (size_t)1 << dim;
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < dim; k++) {
				a[i * dim + k] = (double)((i >> k) & 1);
				b[i * dim + k] = a[i * dim + k] + (k == 0 ? 3.0 : 0.25);
			}
		clash_result r = query(dim, a, n, b, n);
		ck_assert_int_eq(r.intersecting, 0);
		ck_near(r.distance, 2.0, 1e-14);
		ck_near(r.normal[0], 1.0, 1e-14);
		ck_assert(r.converged);
		ck_plane_separates(&r, dim, a, n, 0, b, n, 0, 1e-12);
	}
}
END_TEST

/* ---- warm start, options, errors ---------------------------------------------- */

START_TEST(warm_start)
{
	double a[24], b[24];
	box3(a, 0, 0, 0, 1, 0.5, 0.25);
	clash_shape sa, sb;
	clash_shape_init(&sa, 3, a, 8);
	box3(b, 0, 0, 0, 0.5, 0.5, 0.5);
	clash_shape_init(&sb, 3, b, 8);
	clash_result r, cold;
	clash_options opt = {0};
	double t[3];
	/* A slow path; each step starts from the previous simplex and must
	 * agree with a cold start. */
	for (int step = 0; step < 50; step++) {
		double s = step / 50.0;
		t[0] = 3 - 2 * s;
		t[1] = 0.4 * s;
		t[2] = 1.5 - s;
		double qz[] = {0, 0, sin(0.3 * s), cos(0.3 * s)};
		clash_shape_set_translation(&sb, t);
		clash_shape_set_quaternion(&sb, qz);
		ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &cold), CLASH_OK);
		ck_assert_int_eq(clash_gjk(&sa, &sb, step ? &opt : NULL, &r), CLASH_OK);
		ck_assert_int_eq(r.intersecting, cold.intersecting);
		ck_near(r.distance, cold.distance, 1e-13);
		opt.warm_count = r.warm_count;
		opt.warm_a = r.warm_a;
		opt.warm_b = r.warm_b;
		static size_t wa[CLASH_MAX_DIM + 1], wb[CLASH_MAX_DIM + 1];
		memcpy(wa, r.warm_a, sizeof wa);
		memcpy(wb, r.warm_b, sizeof wb);
		opt.warm_a = wa;
		opt.warm_b = wb;
	}
	size_t bad = 8, ok = 0;
	opt.warm_count = 1;
	opt.warm_a = &bad;
	opt.warm_b = &ok;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_EWARM);
}
END_TEST

START_TEST(tolerance_and_cap)
{
	double a[24], b[24];
	box3(a, 0, 0, 0, 1, 1, 1);
	box3(b, 2.5e-6 + 2, 0, 0, 1, 1, 1); /* 2.5e-6 apart */
	clash_shape sa, sb;
	clash_shape_init(&sa, 3, a, 8);
	clash_shape_init(&sb, 3, b, 8);
	clash_options opt = {0};
	clash_result r;
	opt.tolerance = 1e-5; /* coarser than the gap: touching */
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	opt.tolerance = 1e-9;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 2.5e-6, 1e-9);
	/* One iteration cannot finish a rotated pair: converged says so, and the
	 * distance is still an upper bound. */
	double q[] = {0.1, 0.2, 0.3, sqrt(1 - 0.14)};
	clash_shape_set_quaternion(&sb, q);
	opt.tolerance = 0;
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	double exact = r.distance;
	ck_assert(r.iterations > 1);
	opt.max_iterations = 1;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert_int_eq(r.iterations, 1);
	ck_assert_int_eq(r.converged, 0);
	ck_assert(r.distance >= exact - 1e-15);
	opt.tolerance = -1;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_EINVAL);
}
END_TEST

START_TEST(bad_arguments)
{
	double v[] = {0, 0, 0, 1, 1, 1}, w[] = {0, 0, 1, 1};
	clash_shape a, b;
	clash_result r;
	ck_assert_int_eq(clash_shape_init(&a, 0, v, 2), CLASH_EDIM);
	ck_assert_int_eq(clash_shape_init(&a, CLASH_MAX_DIM + 1, v, 2), CLASH_EDIM);
	ck_assert_int_eq(clash_shape_init(&a, 3, v, 0), CLASH_EEMPTY);
	ck_assert_int_eq(clash_shape_init(&a, 3, NULL, 2), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_init(&a, 3, v, 2), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b, 2, w, 2), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_EDIM);
	ck_assert_int_eq(clash_gjk(NULL, &b, NULL, &r), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_set_quaternion(&b, (double[]){0, 0, 0, 1}), CLASH_EQUAT);
	ck_assert_int_eq(clash_shape_set_angle(&a, 1.0), CLASH_EDIM);
	double nan_v[] = {0, NAN, 0};
	clash_shape_init(&b, 3, nan_v, 1);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_ERANGE);
	double inf_v[] = {0, INFINITY, 0};
	clash_shape_init(&b, 3, inf_v, 1);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_ERANGE);
	/* The most extreme finite inputs: a distance beyond DBL_MAX is refused,
	 * one just inside is answered exactly. */
	double big1[] = {-DBL_MAX, 0, 0}, big2[] = {DBL_MAX, 0, 0};
	clash_shape_init(&a, 3, big1, 1);
	clash_shape_init(&b, 3, big2, 1);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_ERANGE);
	double big3[] = {DBL_MAX / 4, 0, 0};
	clash_shape_init(&a, 3, big3, 1);
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_assert(r.distance == DBL_MAX - DBL_MAX / 4);
	for (int e = CLASH_ENOTSUP; e <= CLASH_OK; e++)
		ck_assert(strlen(clash_strerror(e)) > 0);
}
END_TEST

/* ---- stress: degenerate random shapes never yield NaN or hang ---------------- */

START_TEST(degenerate_stress)
{
	static double a[64 * 3], b[64 * 3];
	int done = 0;
	for (int trial = 0; trial < 3000; trial++) {
		int na = 1 + (int)(prng_unit(&rng) * 40), nb = 1 + (int)(prng_unit(&rng) * 40);
		int kind = trial % 5;
		double base[3], dir[3], dir2[3];
		for (int k = 0; k < 3; k++) {
			base[k] = prng_unit(&rng) * 2 - 1;
			dir[k] = prng_unit(&rng) * 2 - 1;
			dir2[k] = prng_unit(&rng) * 2 - 1;
		}
		double f = pow(10.0, (double)((trial / 5) % 13) - 6.0);
		for (int i = 0; i < na + nb; i++) {
			double *p = i < na ? a + 3 * i : b + 3 * (i - na);
			double s = prng_unit(&rng) * 2 - 1, t = prng_unit(&rng) * 2 - 1;
			/* 0 collinear, 1 coplanar, 2 duplicates, 3 snapped to a coarse
			 * grid (touching features), 4 general */
			for (int k = 0; k < 3; k++) {
				double x;
				switch (kind) {
				case 0: x = base[k] + s * dir[k]; break;
				case 1: x = base[k] + s * dir[k] + t * dir2[k]; break;
				case 2: x = (i % 3) ? base[k] : base[k] + dir[k]; break;
				case 3: x = round((prng_unit(&rng) * 2 - 1) * 2) / 2; break;
				default: x = prng_unit(&rng) * 2 - 1; break;
				}
				p[k] = x * f +
				       (i < na ? 0 : f * (prng_unit(&rng) < 0.5 ? 0.0 : 1.0));
			}
		}
		clash_shape sa, sb;
		clash_shape_init(&sa, 3, a, (size_t)na);
		clash_shape_init(&sb, 3, b, (size_t)nb);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
		ck_assert(isfinite(r.distance) && r.distance >= 0);
		ck_assert(isfinite(r.depth_lower_bound) && r.depth_lower_bound >= 0);
		ck_assert_int_le(r.iterations, CLASH_GJK_MAX_ITERATIONS);
		for (int k = 0; k < 3; k++)
			ck_assert(isfinite(r.near_a[k]) && isfinite(r.near_b[k]) &&
			          isfinite(r.normal[k]));
		if (!r.intersecting) {
			ck_near(dist(r.near_a, r.near_b, 3), r.distance, 1e-12 * f);
			ck_plane_separates(&r, 3, a, (size_t)na, 0, b, (size_t)nb, 0, 1e-12 * f);
		}
		done++;
	}
	ck_assert_int_eq(done, 3000);
}
END_TEST

/* ---- findings of make fuzz (tests/fuzz/findings/core/) ------------------ *
 * The shapes decoded from each finding (FUZZ_CORE_PRINT lists them), with
 * the answers they must get: worked out by hand (a vertex of a hull is at
 * distance 0 from it) or in exact rational arithmetic (the 7-D distance,
 * the weights of the flat simplices below, by enumerating the subsets of
 * the points as Theorem 3 does, with fractions). */

/* contains-self-4d.bin: a hull of 11 points 2.4e-4 across, with points
 * 1.5e-8 and 3.8e-6 around the vertex at the origin (three copies of it). */
/* clang-format off */
static const double flat4[] = {
	0.00024424493312835693, 0, 1.4901161193847656e-08, 0,
	0, -3.814697265625e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
	3.7997961044311523e-06, 0, 0, 0,
	0, 0, 0, 0,
	-0.00016021728515625, -0.00015708804130554199, 3.1888484954833984e-06, -6.2584877014160156e-07,
	-1.4901161193847656e-08, -1.4901161193847656e-08, 0, 0,
	0, 0, -1.4901161193847656e-08, -1.4901161193847656e-08,
	-1.4901161193847656e-08, -1.4901161193847656e-08, -0.00015641748905181885, -0.0001570284366607666,
	-0.0001570284366607666, 0.00024424493312835693, 0, 1.4901161193847656e-08,
	0, 0, 0, 0,
	0, 0, 0, 0,
};
/* clang-format on */

/* contains-self-5d.bin: the same kind in 5-D. */
static const double flat5[] = {
	7.62939453125e-06,
	7.62939453125e-05,
	1.0430812835693359e-07,
	0,
	0.000164031982421875,
	9.6857547760009766e-07,
	0,
	1.1920928955078125e-07,
	7.0035457611083984e-07,
	3.814697265625e-06,
	0.000484466552734375,
	-0.00043873488903045654,
	-0.0001872330904006958,
	-6.5565109252929688e-07,
	-1.4901161193847656e-08,
	0,
	0,
	0,
	0,
	-3.7997961044311523e-06,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	0.00018002092838287354,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	2.9802322387695312e-08,
	0,
	-0.0004882514476776123,
	3.7997961044311523e-06,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
};

/* contains-self-5d-offset.bin: 12 points 6e-4 across, translated 2.7e8
 * from the origin. */
static const double flat5_far[] = {
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	3.7997961044311523e-06,
	0,
	-0.00024403631687164307,
	0,
	0,
	8.9406967163085938e-08,
	0,
	0,
	-0.00024403631687164307,
	0,
	0,
	0,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-8.7752938270568848e-05,
	5.3450465202331543e-05,
	1.0430812835693359e-07,
	0,
	0,
	0,
	0,
	0.000244140625,
	0.000244140625,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	-1.4901161193847656e-08,
	0.00032806396484375,
	0.00032895803451538086,
	0.0003293454647064209,
	0.0003293454647064209,
	0.0003293454647064209,
	9.5367431640625e-07,
	9.5367431640625e-07,
	9.5367431640625e-07,
	9.5367431640625e-07,
	0,
	-0.00024403631687164307,
	0,
	0,
	4.4703483581542969e-08,
	1.4901161193847656e-08,
	0,
	9.5367431640625e-07,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
};
static const double flat5_far_t[] = {0, 22873, 269893632, 0, 0};

/* contains-self-5d-rounded.bin: 9 points 8e-4 across, 1.5e-8 around two
 * of them. */
/* clang-format off */
static const double flat5_b[] = {
	1.1473894119262695e-05, -1.4901161193847656e-08, -1.4901161193847656e-08, 0, 7.62939453125e-05,
	-3.7848949432373047e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
	-1.4901161193847656e-08, -0.00048448145389556885,
	0, -0.000244140625, 6.8545341491699219e-07, -0.00047488510608673096, 5.9604644775390625e-08,
	6.7055225372314453e-07, 0, 0, 0, 0.00031094253063201904,
	-0.00047488510608673096, 1.952052116394043e-06, 0, 1.4901161193847656e-08, 7.9274177551269531e-06,
	0, 0, -2.956390380859375e-05, -0.00047303736209869385, 0,
	-0.00047488510608673096, 5.9604644775390625e-08, 0, 0, -0.000476837158203125,
	1.4901161193847656e-08, 0, 0, 0, 2.5331974029541016e-07,
	2.86102294921875e-06, 0, 1.9073486328125e-06, 9.5367431640625e-07, 2.4586915969848633e-06,
};
/* clang-format on */

/* Each vertex of the hull, as a point posed like it, touches the hull:
 * GJK must find distance 0, and say it is sure.  Stopping short of the
 * vertex on a flat simplex (separated, a rounding away, not converged)
 * would make clash_contains(b, b) answer "not contained". */
static void ck_vertices_touch(int dim, const double *v, size_t count, const double *t)
{
	clash_shape hull, pt;
	ck_assert_int_eq(clash_shape_init(&hull, dim, v, count), CLASH_OK);
	if (t)
		ck_assert_int_eq(clash_shape_set_translation(&hull, t), CLASH_OK);
	for (size_t i = 0; i < count; i++) {
		pt = hull;
		pt.vertices = v + i * (size_t)dim;
		pt.count = 1;
		clash_result r;
		ck_assert_int_eq(clash_gjk(&pt, &hull, NULL, &r), CLASH_OK);
		ck_assert_msg(r.intersecting && r.converged && r.distance == 0.0,
		              "%d-D vertex %zu: intersecting %d converged %d distance %g", dim, i,
		              r.intersecting, r.converged, r.distance);
	}
}

START_TEST(flat_hull_vertices)
{
	ck_vertices_touch(4, flat4, 11, NULL);
	ck_vertices_touch(5, flat5, 8, NULL);
	ck_vertices_touch(5, flat5_far, 12, flat5_far_t);
	ck_vertices_touch(5, flat5_b, 9, NULL);
}
END_TEST

/* The sub-algorithm's view of it: in the 4-D query above (the point at the
 * origin against flat4, in GJK's frame) the simplex reached five points
 * whose hull holds the origin, with weights (exact, by fractions)
 * 6.181110912884635e-05 (three times), 0.9973222457939358 and
 * 0.00249232087867764.  Johnson's cofactors of the five lose every digit
 * (their computed sum is negative: they are products of heights of 1e-5
 * and less), so condition 3 keeps the old face and its v; the new point
 * was already in the simplex and the run stopped there.  The backup
 * procedure, judging each subset by its projection, must find the whole
 * simplex around the origin.  And in the 5-D query, six points whose
 * nearest point lies on the face {0, 1, 2, 4, 5} at |v|^2 =
 * 1.2876855987068736e-14, where the cofactors chose a face without the new
 * point at 2.49e-14. */
START_TEST(backup_on_flat_simplices)
{
	static simplex_table t; /* 512 subsets: not on the stack */
	static const double y4[5][4] = {
		{-0.500213623046875, 0, -3.0517578125e-05, 0},
		{0.32159423828125, -0.500213623046875, 0, -3.0517578125e-05},
		{0, 0.0078125, 3.0517578125e-05, 3.0517578125e-05},
		{3.0517578125e-05, 3.0517578125e-05, 0, 0},
		{-0.007781982421875, 0, 0, 0},
	};
	const double *y[6];
	for (int i = 0; i < 5; i++)
		y[i] = y4[i];
	simplex_cofactors(&t, y, 5, 4);
	simplex_solution sol;
	simplex_backup(&t, 5, &sol);
	ck_assert_uint_eq(sol.mask, 0x1f);
	const double w4[5] = {6.181110912884635e-05, 6.181110912884635e-05, 6.181110912884635e-05,
	                      0.9973222457939358, 0.00249232087867764};
	for (int i = 0; i < 5; i++)
		ck_near(sol.lambda[i], w4[i], 1e-9 * w4[i]);
	ck_assert(sol.vv < 1e-30);

	static const double y5[6][5] = {
		{-0.0078125, -0.078125, -0.0001068115234375, 0, -0.1718597412109375},
		{1.52587890625e-05, 1.52587890625e-05, -3.0517578125e-05, 0, 0.4960784912109375},
		{0, 0, 0, 0, -0.0038909912109375},
		{-0.49609375, 0.4492645263671875, 0.1917266845703125, 0.00067138671875,
	         -0.003875732421875},
		{1.52587890625e-05, 1.52587890625e-05, 1.52587890625e-05, 1.52587890625e-05,
	         -0.188232421875},
		{-0.0009918212890625, 0, -0.0001220703125, -0.0007171630859375,
	         -0.0077972412109375},
	};
	for (int i = 0; i < 6; i++)
		y[i] = y5[i];
	simplex_cofactors(&t, y, 6, 5);
	simplex_backup(&t, 6, &sol);
	ck_assert_uint_eq(sol.mask, 0x37);
	ck_near(sol.vv, 1.2876855987068736e-14, 1e-9 * 1.2876855987068736e-14);
}
END_TEST

/* Separated by `exact` (worked out in rational arithmetic): GJK must be
 * sure, within its default tolerance (1e-12 of the size, below 1e-15
 * here) of it, with a plane that separates every vertex and a gap along
 * its normal that is the distance. */
static void ck_distance(int dim, const double *a, size_t na, const double *b, size_t nb,
                        double exact)
{
	clash_result r = query(dim, a, na, b, nb);
	ck_assert_msg(!r.intersecting && r.converged, "%d-D: intersecting %d converged %d", dim,
	              r.intersecting, r.converged);
	ck_near(r.distance, exact, 1e-15);
	ck_near(dist(r.near_a, r.near_b, dim), r.distance, 1e-15);
	ck_plane_separates(&r, dim, a, na, 0, b, nb, 0, 1e-15);
	double ha = -INFINITY, lb = INFINITY;
	for (size_t i = 0; i < na; i++) {
		double d = 0;
		for (int k = 0; k < dim; k++)
			d += r.normal[k] * a[i * (size_t)dim + k];
		ha = fmax(ha, d);
	}
	for (size_t i = 0; i < nb; i++) {
		double d = 0;
		for (int k = 0; k < dim; k++)
			d += r.normal[k] * b[i * (size_t)dim + k];
		lb = fmin(lb, d);
	}
	ck_near(lb - ha, exact, 1e-15);
}

/* gjk-7d-normal-gap.bin: 7-D, 1.75e-7 apart at a size of 3e-3.  GJK
 * stopped unconverged at 1.818e-7 with a "plane" 8e-4 on the wrong side
 * of some vertices; the distance is 1.7498009285415156e-07 (exact GJK in
 * fractions over the 28 vertices of a - b). */
START_TEST(gap_7d)
{
	static const double a[] = {
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-0.0018922090530395508,
		-0.0018996000289916992,
		-0.0019186735153198242,
		-7.5101852416992188e-06,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-0.0021753311157226562,
		-0.0021753311157226562,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-8.3446502685546875e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		0,
		2.384185791015625e-07,
		0,
		0.00048828125,
	};
	static const double b[] = {
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0029103755950927734,
		-0.0028493404388427734,
		-0.0020864009857177734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		-0.0028493404388427734,
		0.0028482675552368164,
		-0.00070202350616455078,
		-3.0159950256347656e-05,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-1.1920928955078125e-07,
		-0.0021753311157226562,
		-0.0021448135375976562,
		-2.956390380859375e-05,
		8.3446502685546875e-07,
		0,
		7.62939453125e-06,
		5.1259994506835938e-06,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
	};
	ck_distance(7, a, 4, b, 7, 1.7498009285415156e-07);
}
END_TEST

/* gjk-8d-normal-gap.bin and gjk-8d-near-touching.bin: 8-D, 1.24e-7 and
 * 3.1e-13 apart at a size of 5e-4 (exact: fractions, over the 55 vertices
 * of a - b).  GJK stopped on a face without its new support point, a gap
 * 3e-9 off (and 1.5e-13 for 1.3e-9); then, in the second, took a face
 * whose cofactors all had the right sign for one holding the origin,
 * while its projection's weights were (..., -1.0001, ..., 1.0001): the
 * origin lies 1e-16 from its affine hull but outside it, so "intersecting"
 * was wrong by 300 times the tolerance. */
START_TEST(gap_8d)
{
	/* clang-format off */
	static const double a1[] = {
		3.814697265625e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -3.814697265625e-06,
		-1.4901161193847656e-08, -1.4901161193847656e-08,
		0.00013349950313568115, -3.3080577850341797e-06, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -4.9173831939697266e-07, 7.6279044151306152e-05,
		-3.814697265625e-06, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, 0, 2.7120113372802734e-06, 1.3411045074462891e-07,
		-3.7997961044311523e-06,
		0.00044630467891693115, -1.4901161193847656e-08, 0.00012969970703125,
		0.00013020634651184082, 0.00013020634651184082, -3.3080577850341797e-06,
		-1.4901161193847656e-08, 0.00035093724727630615,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00012969970703125, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
	};
	static const double b1[11 * 8] = { /* the last 7 at the origin */
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082, 0.00013017654418945312,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
		-1.4901161193847656e-08, 0.00013349950313568115, 0.00013071298599243164,
		-0.000316619873046875, 3.814697265625e-06, -3.4332275390625e-05,
		-1.4901161193847656e-08, 3.7997961044311523e-06,
		7.6889991760253906e-06, 2.9802322387695312e-08, 0, 0, 0, 0, 0, 0,
	};
	ck_distance(8, a1, 5, b1, 11, 1.241458366221308e-07);
	static const double a2[] = {
		3.814697265625e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, 0, 0, -1.7583370208740234e-06,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08,
		-0.00046922266483306885, 0, -3.814697265625e-06, -1.4901161193847656e-08,
		3.7997961044311523e-06, -3.814697265625e-06, -3.6656856536865234e-06, 0,
		-3.7997961044311523e-06, -1.4901161193847656e-08, 3.7997961044311523e-06,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
		0.00013105571269989014, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
	};
	static const double b2[11 * 8] = { /* the last 7 at the origin */
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082, -1.4901161193847656e-08,
		0.00018452107906341553, 0, 7.0944428443908691e-05, -0.00013022124767303467,
		0.0001328885555267334,
		-1.4901161193847656e-08, 0.00013349950313568115, -1.4901161193847656e-08,
		0.00012969970703125, 0.00013020634651184082, 0.00013020634651184082,
		0.00013020634651184082, 0.00013020634651184082,
		7.6889991760253906e-06, 2.9802322387695312e-08, 0, 0, 0, 0, 0, 0,
	};
	ck_distance(8, a2, 5, b2, 11, 3.1465339717931444e-13);
}
END_TEST

/* gjk-8d-shared-vertex-separated.bin: a and b share the vertex 0 (seven
 * times in b): distance 0, which GJK once answered as 4.9e-9 apart,
 * "converged". */
START_TEST(shared_vertex_8d)
{
	static const double a[] = {
		2.288818359375e-05, 2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05,
		0.00015667080879211426, 0, 0, 0,
		2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05,
		8.9406967163085938e-08, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 2.288818359375e-05, 2.2977590560913086e-05, 2.2977590560913086e-05,
		2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05,
		2.2977590560913086e-05, 2.2977590560913086e-05, 2.2977590560913086e-05, 8.9406967163085938e-08,
		0, 0, -0.00039446353912353516, -0.00039446353912353516, -0.00039446353912353516,
		-0.00039446353912353516, -0.00039592385292053223, -0.00039446353912353516,
		-0.00039446353912353516, -0.00039446353912353516, -0.00039446353912353516,
		-0.00039446353912353516, -0.00039446353912353516, -0.00039446353912353516,
		-0.00039446353912353516, -0.00039446353912353516,
	};
	static const double b[] = {
		-0.00039446353912353516, -0.00039446353912353516, 2.2649765014648438e-06, 0, 0,
		1.1920928955078125e-07, 0, 0.000244140625,
		0.000244140625, 0.000244140625, 0.000244140625, 0.000244140625, 0.000244140625,
		-2.9802322387695312e-07, 3.7997961044311523e-06, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* clang-format on */
	clash_result r = query(8, a, 7, b, 9);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.converged, 1);
	ck_assert(r.distance == 0.0);
}
END_TEST

static Suite *closed_forms_suite(void)
{
	Suite *s = suite_create("closed_forms");
	ck_case(s, "closed_form", 0,
	        CK_TESTS(unit_cubes_two_apart, boxes_edge_edge_and_vertex_vertex, box_25x_larger,
	                 segment_segment, point_tetrahedron, depth_bound_for_simplex_is_exact,
	                 touching_face_edge_vertex, nested_shapes, origin_on_simplex_face));
	ck_case(s, "degenerate", 60,
	        CK_TESTS(duplicate_points, coplanar_shapes, single_points,
	                 tiny_and_huge_coordinates, far_from_origin, degenerate_stress));
	ck_case(s, "pose_radius_dim", 0,
	        CK_TESTS(quaternion_pose, matrix_pose, spheres_capsules_rounded_boxes,
	                 two_d_polygons, higher_dimensions));
	ck_case(s, "options", 0, CK_TESTS(warm_start, tolerance_and_cap, bad_arguments));
	ck_case(s, "fuzz_findings", 0,
	        CK_TESTS(flat_hull_vertices, backup_on_flat_simplices, gap_7d, gap_8d,
	                 shared_vertex_8d));
	return s;
}

CHECK_SUITE(closed_forms_suite)
