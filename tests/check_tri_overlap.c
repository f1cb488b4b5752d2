/*
 * check_tri_overlap.c — suite "tri_overlap": core/tri_overlap.c against
 * answers known by construction, the core's GJK, and GMP.
 *
 * Constructed cases (dyadic coordinates, so every contact is exact): faces
 * crossing, a vertex on a face, on an edge, on a vertex, edges crossing,
 * a shared edge, coplanar overlap and touching, zero-area triangles
 * (segments and points); each also moved apart by one ulp.  Each is run
 * in every vertex order, with the triangles swapped, and scaled and moved
 * by powers of two (exact), and must keep its answer.  Random pairs are
 * compared with clash_gjk on the two 3-point polytopes where GJK is
 * decisive (distance or penetration depth well above rounding), coplanar
 * ones with clash_gjk on their 2-D projections.  Every overlap must equal
 * the union of its edge tests (the same function on zero-area triangles:
 * Guigue and Devillers' path against the segment path), and the point of
 * tri_overlap_point must lie on both triangles to rounding.
 * tri_segment_cross is compared with a brute force in GMP rationals (the
 * crossing point computed exactly, then located in the triangle).
 */
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "prng.h"
#include "tri_overlap.h"

typedef double tri[3][3];

/* The distance between two point sets (3 points each, or 1 for a point)
 * by the core's GJK; depth when they intersect. */
static void gjk_pair(const double *a, size_t na, const double *b, size_t nb, int dim, double *dist,
                     double *depth)
{
	clash_shape sa, sb;
	clash_result r;
	ck_assert_int_eq(clash_shape_init(&sa, dim, a, na), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&sb, dim, b, nb), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	*dist = r.intersecting ? 0.0 : r.distance;
	*depth = r.intersecting && (r.has & CLASH_HAS_DEPTH) ? r.depth : 0.0;
}

static double size_of(const tri p, const tri q)
{
	double s = 0;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			s = fmax(s, fmax(fabs(p[i][k]), fabs(q[i][k])));
	return fmax(s, 1e-300);
}

/* The overlap by edges: an edge of one (as a zero-area triangle) meets the
 * other. */
static int overlap_by_edges(const tri p, const tri q)
{
	for (int i = 0; i < 3; i++) {
		const double *a = p[i], *b = p[(i + 1) % 3];
		if (tri_overlap(a, b, b, q[0], q[1], q[2]))
			return 1;
		a = q[i];
		b = q[(i + 1) % 3];
		if (tri_overlap(a, b, b, p[0], p[1], p[2]))
			return 1;
	}
	return 0;
}

/* tri_overlap, with the checks every answer must pass: the edge path
 * agrees, and the point of tri_overlap_point lies on both to rounding. */
static int overlap_checked(const tri p, const tri q)
{
	const int got = tri_overlap(p[0], p[1], p[2], q[0], q[1], q[2]);
	ck_assert_msg(got == 0 || got == 1, "tri_overlap returned %d", got);
	ck_assert_msg(overlap_by_edges(p, q) == got, "edge path disagrees with tri_overlap (%d)",
	              got);
	double x[3] = {NAN, NAN, NAN};
	const int gp = tri_overlap_point(p[0], p[1], p[2], q[0], q[1], q[2], x);
	ck_assert_int_eq(gp, got);
	if (gp) {
		double dp, dq, unused;
		const double tol = 1e-12 * size_of(p, q);
		ck_assert(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
		gjk_pair(&p[0][0], 3, x, 1, 3, &dp, &unused);
		gjk_pair(&q[0][0], 3, x, 1, 3, &dq, &unused);
		ck_assert_msg(
			dp <= tol && dq <= tol,
			"common point %g %g %g is %g and %g away; p = %a %a %a, %a %a %a, %a %a %a;"
			" q = %a %a %a, %a %a %a, %a %a %a",
			x[0], x[1], x[2], dp, dq, p[0][0], p[0][1], p[0][2], p[1][0], p[1][1],
			p[1][2], p[2][0], p[2][1], p[2][2], q[0][0], q[0][1], q[0][2], q[1][0],
			q[1][1], q[1][2], q[2][0], q[2][1], q[2][2]);
	}
	return got;
}

/* Every vertex order of both, and swapped: one answer. */
static void expect_all_orders(const tri p, const tri q, int want, const char *what)
{
	static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
	                               {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			tri a, b;
			for (int k = 0; k < 3; k++) {
				memcpy(a[k], p[perm[i][k]], sizeof a[k]);
				memcpy(b[k], q[perm[j][k]], sizeof b[k]);
			}
			ck_assert_msg(overlap_checked(a, b) == want, "%s: order %d/%d: want %d",
			              what, i, j, want);
			ck_assert_msg(overlap_checked(b, a) == want,
			              "%s swapped: order %d/%d: want %d", what, i, j, want);
		}
}

/* Coordinates on the grid of 2^-20 below 2^20: moved by 1024 exactly. */
static int coarse(const tri p, const tri q)
{
	for (int i = 0; i < 9; i++)
		if (fmod((&p[0][0])[i], 0x1p-20) != 0.0 || fmod((&q[0][0])[i], 0x1p-20) != 0.0 ||
		    fabs((&p[0][0])[i]) >= 0x1p20 || fabs((&q[0][0])[i]) >= 0x1p20)
			return 0;
	return 1;
}

/* The case, and the same scaled by powers of two, and moved by 1024 when
 * that is exact. */
static void expect(const tri p, const tri q, int want, const char *what)
{
	static const double scale[4] = {1.0, 0x1p-20, 0x1p30, 1.0};
	static const double shift[4] = {0.0, 0.0, 0.0, 1024.0};
	for (int s = 0; s < 4; s++) {
		if (shift[s] != 0.0 && !coarse(p, q))
			continue;
		tri a, b;
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				a[i][k] = p[i][k] * scale[s] + shift[s] * (k + 1);
				b[i][k] = q[i][k] * scale[s] + shift[s] * (k + 1);
			}
		expect_all_orders(a, b, want, what);
	}
}

static double up(double x)
{
	return nextafter(x, INFINITY);
}

static double down(double x)
{
	return nextafter(x, -INFINITY);
}

/* P: the right triangle in the plane z = 1. */
static const tri P = {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}};

START_TEST(constructed_contacts)
{
	/* faces crossing: Q stands through P's interior */
	expect(P, (tri){{1, 1, 0}, {1, 1, 2}, {2, 1, 0}}, 1, "crossing");
	/* above, parallel and apart */
	expect(P, (tri){{0, 0, 2}, {4, 0, 2}, {0, 4, 2}}, 0, "parallel");
	/* a vertex on the face, then one ulp above */
	expect(P, (tri){{1, 1, 1}, {1, 2, 3}, {2, 1, 3}}, 1, "vertex on face");
	expect(P, (tri){{1, 1, up(1)}, {1, 2, 3}, {2, 1, 3}}, 0, "vertex one ulp above face");
	/* a vertex on an edge (y = 0), then one ulp off to the outside */
	expect(P, (tri){{1, 0, 1}, {1, -1, 3}, {2, -1, 3}}, 1, "vertex on edge");
	expect(P, (tri){{1, -0x1p-40, 1}, {1, -1, 3}, {2, -1, 3}}, 0, "vertex just off edge");
	/* vertex on vertex */
	expect(P, (tri){{4, 0, 1}, {5, 0, 3}, {5, 1, 3}}, 1, "vertex on vertex");
	expect(P, (tri){{up(4), 0, 1}, {5, 0, 3}, {5, 1, 3}}, 0, "vertex next to vertex");
	/* edges crossing at one point: Q's edge (2,-1,0)-(2,1,2) crosses P's
	 * edge y = 0 at (2, 0, 1), the rest of Q meets z = 1 at y < 0; then
	 * that edge moved by one ulp to pass outside */
	expect(P, (tri){{2, -1, 0}, {2, 1, 2}, {2.5, -2, 1}}, 1, "edge on edge");
	expect(P, (tri){{2, -1, 0}, {2, down(1), 2}, {2.5, -2, 1}}, 0, "edge by edge");
	/* Q's lower edge lies in z = 1, out of P, crossing nothing */
	expect(P, (tri){{5, -1, 1}, {5, 1, 1}, {6, 0, 0}}, 0, "edge in plane, outside");
	/* a shared edge, Q folded out of P's plane, and Q in P's plane */
	expect(P, (tri){{4, 0, 1}, {0, 4, 1}, {4, 4, 3}}, 1, "shared edge, folded");
	expect(P, (tri){{4, 0, 1}, {0, 4, 1}, {4, 4, 1}}, 1, "shared edge, coplanar");
	/* coplanar: overlapping, inside, touching at a vertex, one ulp apart */
	expect(P, (tri){{1, 1, 1}, {5, 1, 1}, {1, 5, 1}}, 1, "coplanar overlapping");
	expect(P, (tri){{0.5, 0.5, 1}, {1, 0.5, 1}, {0.5, 1, 1}}, 1, "coplanar inside");
	expect(P, (tri){{2, 2, 1}, {3, 3, 1}, {2, 4, 1}}, 1, "coplanar vertex on edge");
	expect(P, (tri){{up(2), 2, 1}, {3, 3, 1}, {2.5, 4, 1}}, 0, "coplanar vertex off edge");
	expect(P, (tri){{-1, -1, 1}, {5, -1, 1}, {-1, 5, 1}}, 1, "coplanar, P inside Q");
	expect(P, (tri){{4, 0, 1}, {6, 0, 1}, {6, 2, 1}}, 1, "coplanar vertex on vertex");
	expect(P, (tri){{2, 3, 1}, {3, 2, 1}, {3, 3, 1}}, 0, "coplanar apart across hypotenuse");
	/* coplanar, edges crossing (a star of David) */
	expect((tri){{0, 0, 1}, {4, 0, 1}, {2, 4, 1}}, (tri){{0, 3, 1}, {4, 3, 1}, {2, -1, 1}}, 1,
	       "coplanar star");
}
END_TEST

START_TEST(constructed_degenerate)
{
	/* segments (three collinear vertices, the extreme pair in any place) */
	expect(P, (tri){{1, 1, 0}, {1, 1, 2}, {1, 1, 0.5}}, 1, "segment through face");
	expect(P, (tri){{1, 1, 1.5}, {1, 1, 2}, {1, 1, 3}}, 0, "segment above face");
	expect(P, (tri){{1, 1, 1}, {1, 1, 2}, {1, 1, 3}}, 1, "segment ending on face");
	expect(P, (tri){{1, 1, up(1)}, {1, 1, 2}, {1, 1, 3}}, 0, "segment one ulp above");
	expect(P, (tri){{-1, 2, 1}, {5, 2, 1}, {1, 2, 1}}, 1, "segment in plane across");
	expect(P, (tri){{3, 3, 1}, {5, 1, 1}, {4, 2, 1}}, 0, "segment in plane outside");
	expect(P, (tri){{3, 1, 1}, {5, -1, 1}, {4, 0, 1}}, 1, "segment in plane touching edge");
	expect(P, (tri){{2, 0, 1}, {2, 0, 1}, {2, 0, 1}}, 1, "point on edge");
	expect(P, (tri){{2, 0, up(1)}, {2, 0, up(1)}, {2, 0, up(1)}}, 0, "point above edge");
	/* both degenerate */
	const tri S = {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}};
	expect(S, (tri){{0, 2, 0}, {2, 0, 2}, {2, 0, 2}}, 1, "segments crossing");
	expect(S, (tri){{0, 2, 0}, {2, 0, up(2)}, {2, 0, up(2)}}, 0, "segments skew");
	expect(S, (tri){{2, 2, 2}, {3, 3, 3}, {3, 3, 3}}, 1, "collinear segments touching");
	expect(S, (tri){{up(2), up(2), up(2)}, {3, 3, 3}, {3, 3, 3}}, 0, "collinear, apart");
	expect(S, (tri){{0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}}, 1, "point on segment");
	expect(S, (tri){{0.5, 0.5, up(0.5)}, {0.5, 0.5, up(0.5)}, {0.5, 0.5, up(0.5)}}, 0,
	       "point off segment");
	expect((tri){{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, (tri){{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, 1,
	       "same point");
	expect((tri){{1, 2, 3}, {1, 2, 3}, {1, 2, 3}},
	       (tri){{1, 2, up(3)}, {1, 2, up(3)}, {1, 2, up(3)}}, 0, "two points");
}
END_TEST

static void random_tri(prng *r, tri t, const double *c, double size)
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			t[i][k] = c[k] + size * prng_range(r, -1, 1);
}

/* Random pairs in general position, against GJK where it is decisive. */
START_TEST(random_against_gjk)
{
	prng r = {0x7217};
	int decided[2] = {0, 0}, open = 0;
	for (int i = 0; i < 20000; i++) {
		const double off = (i % 4 == 3) ? 1e6 : 0.0;
		const double c0[3] = {off, off, off};
		double c1[3];
		for (int k = 0; k < 3; k++)
			c1[k] = off + prng_range(&r, -0.8, 0.8);
		tri p, q;
		random_tri(&r, p, c0, 1.0);
		random_tri(&r, q, c1, prng_log(&r, 0.1, 1.5));
		const int got = overlap_checked(p, q);
		double dist, depth;
		gjk_pair(&p[0][0], 3, &q[0][0], 3, 3, &dist, &depth);
		const double margin = 1e-9 * (1.0 + off);
		if (dist > margin) {
			ck_assert_msg(got == 0, "case %d: gjk distance %g but overlap", i, dist);
			decided[0]++;
		} else if (dist == 0.0 && depth > margin) {
			ck_assert_msg(got == 1, "case %d: gjk depth %g but no overlap", i, depth);
			decided[1]++;
		} else {
			open++;
		}
	}
	printf("tri_overlap: random vs gjk: %d apart, %d overlapping, %d not decisive\n",
	       decided[0], decided[1], open);
	ck_assert_int_gt(decided[0], 5000);
	ck_assert_int_gt(decided[1], 1000);
}
END_TEST

/* Coplanar pairs in the plane z = c (and x = y, exact), against GJK on the
 * 2-D projections. */
START_TEST(random_coplanar_against_gjk)
{
	prng r = {0xc0f1a};
	int decided[2] = {0, 0};
	for (int i = 0; i < 6000; i++) {
		const double zc = prng_range(&r, -3, 3);
		double p2[3][2], q2[3][2];
		const double cq[2] = {prng_range(&r, -1.5, 1.5), prng_range(&r, -1.5, 1.5)};
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++) {
				p2[j][k] = prng_range(&r, -1, 1);
				q2[j][k] = cq[k] + prng_range(&r, -1, 1);
			}
		tri p, q;
		for (int j = 0; j < 3; j++) {
			if (i % 2) { /* z = c */
				p[j][0] = p2[j][0], p[j][1] = p2[j][1], p[j][2] = zc;
				q[j][0] = q2[j][0], q[j][1] = q2[j][1], q[j][2] = zc;
			} else { /* the plane x = y, the projection (x, z) */
				p[j][0] = p2[j][0], p[j][1] = p2[j][0], p[j][2] = p2[j][1];
				q[j][0] = q2[j][0], q[j][1] = q2[j][0], q[j][2] = q2[j][1];
			}
		}
		const int got = overlap_checked(p, q);
		double dist, depth;
		gjk_pair(&p2[0][0], 3, &q2[0][0], 3, 2, &dist, &depth);
		if (dist > 1e-9) {
			ck_assert_msg(got == 0, "coplanar case %d: 2-D distance %g but overlap", i,
			              dist);
			decided[0]++;
		} else if (dist == 0.0 && depth > 1e-9) {
			ck_assert_msg(got == 1, "coplanar case %d: 2-D depth %g but none", i,
			              depth);
			decided[1]++;
		}
	}
	printf("tri_overlap: coplanar vs gjk: %d apart, %d overlapping\n", decided[0], decided[1]);
	ck_assert_int_gt(decided[0], 1000);
	ck_assert_int_gt(decided[1], 1000);
}
END_TEST

/* Near-touching pairs, where GJK cannot decide: a vertex of Q placed on
 * P's plane by a rounded construction, or exactly on an edge, and nearly
 * coplanar pairs.  Only the consistency checks apply (edge path, common
 * point, symmetry). */
START_TEST(near_contacts_consistent)
{
	prng r = {0x4ea7};
	int hits = 0;
	for (int i = 0; i < 5000; i++) {
		const double c0[3] = {0, 0, 0};
		tri p, q;
		random_tri(&r, p, c0, 1.0);
		const double s = prng_range(&r, 0, 1), u = prng_range(&r, 0, 1 - s);
		double x[3];
		for (int k = 0; k < 3; k++) /* a point of P (to rounding) */
			x[k] = p[0][k] + s * (p[1][k] - p[0][k]) + u * (p[2][k] - p[0][k]);
		if (i % 3 == 0)
			for (int k = 0; k < 3; k++) /* exactly P's vertex 1 */
				x[k] = p[1][k];
		const double c1[3] = {x[0], x[1], x[2]};
		random_tri(&r, q, c1, 0.5);
		memcpy(q[0], x, sizeof x);
		if (i % 2) /* Q nearly in P's plane */
			for (int k = 0; k < 3; k++) {
				q[1][k] = x[k] + 0.5 * (p[1][k] - p[2][k]) +
				          1e-14 * prng_range(&r, -1, 1);
				q[2][k] = x[k] + 0.5 * (p[0][k] - p[1][k]);
			}
		const int a = overlap_checked(p, q);
		ck_assert_int_eq(overlap_checked(q, p), a);
		hits += a;
	}
	printf("tri_overlap: near contacts: %d of 5000 touching\n", hits);
}
END_TEST

/* ---- tri_segment_cross against GMP ---- */

/* The answer by exact rationals, or 2 for a segment in the plane (left to
 * the constructed cases). */
static int gmp_cross(const double *s0, const double *s1, const double *const t[3])
{
	mpq_t e1[3], e2[3], n[3], d0, d1, tmp, tmp2, x[3], w[3][3], c;
	int res;
	mpq_inits(d0, d1, tmp, tmp2, c, NULL);
	for (int k = 0; k < 3; k++) {
		mpq_inits(e1[k], e2[k], n[k], x[k], w[0][k], w[1][k], w[2][k], NULL);
		mpq_set_d(e1[k], t[1][k]);
		mpq_set_d(tmp, t[0][k]);
		mpq_sub(e1[k], e1[k], tmp);
		mpq_set_d(e2[k], t[2][k]);
		mpq_sub(e2[k], e2[k], tmp);
	}
	for (int k = 0; k < 3; k++) { /* n = e1 x e2 */
		const int i = (k + 1) % 3, j = (k + 2) % 3;
		mpq_mul(n[k], e1[i], e2[j]);
		mpq_mul(tmp, e1[j], e2[i]);
		mpq_sub(n[k], n[k], tmp);
	}
	const double *s[2] = {s0, s1};
	mpq_t *dd[2] = {&d0, &d1};
	for (int e = 0; e < 2; e++) /* d_e = n . (s_e - t0) */
		for (int k = 0; k < 3; k++) {
			mpq_set_d(tmp, s[e][k]);
			mpq_set_d(tmp2, t[0][k]);
			mpq_sub(tmp, tmp, tmp2);
			mpq_mul(tmp, tmp, n[k]);
			mpq_add(*dd[e], *dd[e], tmp);
		}
	const int a = mpq_sgn(d0), b = mpq_sgn(d1);
	if (a * b > 0) {
		res = 0;
	} else if (a == 0 && b == 0) {
		res = 2;
	} else {
		/* X = s0 + d0 / (d0 - d1) (s1 - s0) */
		mpq_sub(c, d0, d1);
		mpq_div(c, d0, c);
		for (int k = 0; k < 3; k++) {
			mpq_set_d(x[k], s0[k]);
			mpq_set_d(tmp, s1[k]);
			mpq_sub(tmp, tmp, x[k]);
			mpq_mul(tmp, tmp, c);
			mpq_add(x[k], x[k], tmp);
		}
		/* drop an axis where n is nonzero; signs of the sub-triangles */
		int ax = 0;
		while (mpq_sgn(n[ax]) == 0)
			ax++;
		const int i = (ax + 1) % 3, j = (ax + 2) % 3;
		int pos = 0, neg = 0;
		for (int v = 0; v < 3; v++) {
			const double *ta = t[v], *tb = t[(v + 1) % 3];
			mpq_t ua, ub, va, vb;
			mpq_inits(ua, ub, va, vb, NULL);
			mpq_set_d(ua, ta[i]);
			mpq_sub(ua, ua, x[i]);
			mpq_set_d(ub, ta[j]);
			mpq_sub(ub, ub, x[j]);
			mpq_set_d(va, tb[i]);
			mpq_sub(va, va, x[i]);
			mpq_set_d(vb, tb[j]);
			mpq_sub(vb, vb, x[j]);
			mpq_mul(ua, ua, vb);
			mpq_mul(ub, ub, va);
			mpq_sub(ua, ua, ub);
			pos += mpq_sgn(ua) > 0;
			neg += mpq_sgn(ua) < 0;
			mpq_clears(ua, ub, va, vb, NULL);
		}
		const int inside = pos == 0 || neg == 0, interior = pos == 3 || neg == 3;
		if (a == 0 || b == 0)
			res = inside ? -1 : 0;
		else
			res = interior ? 1 : inside ? -1 : 0;
	}
	for (int k = 0; k < 3; k++)
		mpq_clears(e1[k], e2[k], n[k], x[k], w[0][k], w[1][k], w[2][k], NULL);
	mpq_clears(d0, d1, tmp, tmp2, c, NULL);
	return res;
}

START_TEST(segment_cross_against_gmp)
{
	prng r = {0x5e9};
	int counts[3] = {0, 0, 0}, coplanar = 0;
	for (int i = 0; i < 20000; i++) {
		const double c0[3] = {0, 0, 0};
		tri t;
		random_tri(&r, t, c0, 1.0);
		double x[3], v[3], s0[3], s1[3];
		const int kind = i % 5;
		if (kind == 0) { /* through a vertex, exactly */
			memcpy(x, t[prng_int(&r, 0, 2)], sizeof x);
		} else if (kind == 1) { /* through the middle of an edge, exactly */
			const int e = prng_int(&r, 0, 2);
			for (int k = 0; k < 3; k++)
				x[k] = 0.5 * t[e][k] + 0.5 * t[(e + 1) % 3][k];
		} else if (kind == 2) { /* near an edge, rounded */
			const int e = prng_int(&r, 0, 2);
			const double u = prng_unit(&r);
			for (int k = 0; k < 3; k++)
				x[k] = t[e][k] + u * (t[(e + 1) % 3][k] - t[e][k]);
		} else { /* anywhere near the triangle */
			for (int k = 0; k < 3; k++)
				x[k] = prng_range(&r, -1, 1);
		}
		for (int k = 0; k < 3; k++)
			v[k] = 0x1p-4 * (double)prng_int(&r, -16, 16);
		const double reach = kind == 4 ? prng_range(&r, 0.2, 1.5) : 1.0;
		for (int k = 0; k < 3; k++) {
			s0[k] = x[k] + v[k];
			s1[k] = x[k] - reach * v[k];
		}
		if (i % 7 == 0) /* an endpoint exactly at x */
			memcpy(s1, x, sizeof x);
		const double *tv[3] = {t[0], t[1], t[2]};
		const int want = gmp_cross(s0, s1, tv);
		const int got = tri_segment_cross(s0, s1, t[0], t[1], t[2]);
		if (want == 2) {
			coplanar++;
			ck_assert(got == -1 || got == 0);
			continue;
		}
		ck_assert_msg(got == want, "case %d (kind %d): tri_segment_cross %d, exact %d", i,
		              kind, got, want);
		ck_assert_int_eq(tri_segment_cross(s1, s0, t[2], t[1], t[0]), want);
		counts[want + 1]++;
	}
	printf("tri_segment_cross: vs GMP: %d degenerate, %d apart, %d crossing (%d coplanar)\n",
	       counts[0], counts[1], counts[2], coplanar);
	ck_assert_int_gt(counts[0], 3000);
	ck_assert_int_gt(counts[1], 3000);
	ck_assert_int_gt(counts[2], 3000);
}
END_TEST

START_TEST(segment_cross_constructed)
{
#define CROSS(a, b, want)                                                              \
	do {                                                                           \
		const double s0_[3] = {a}, s1_[3] = {b};                               \
		ck_assert_int_eq(tri_segment_cross(s0_, s1_, P[0], P[1], P[2]), want); \
		ck_assert_int_eq(tri_segment_cross(s1_, s0_, P[2], P[0], P[1]), want); \
	} while (0)
#define V(x, y, z) x, y, z
	/* clang-format off */
	CROSS(V(1, 1, 0), V(1, 1, 2), 1);           /* through the interior */
	CROSS(V(5, 5, 0), V(5, 5, 2), 0);           /* beside */
	CROSS(V(1, 1, 1.5), V(1, 1, 2), 0);         /* above */
	CROSS(V(2, 0, 0), V(2, 0, 2), -1);          /* through an edge */
	CROSS(V(0, 0, 0), V(0, 0, 2), -1);          /* through a vertex */
	CROSS(V(1, 1, 1), V(1, 1, 2), -1);          /* ending on the face */
	CROSS(V(1, 1, 1), V(1, 1, 1), -1);          /* a point on the face */
	CROSS(V(1, 1, 2), V(1, 1, 2), 0);           /* a point off it */
	CROSS(V(-1, 1, 1), V(5, 1, 1), -1);         /* in the plane, across */
	CROSS(V(5, 5, 1), V(6, 5, 1), 0);           /* in the plane, apart */
	CROSS(V(4, 4, 0), V(4, 4, 2), 0);           /* beside the hypotenuse */
	CROSS(V(2, 2, 0), V(2, 2, 2), -1);          /* through the hypotenuse */
	CROSS(V(2, 2, 0), V(2, up(2), 2), 0);       /* just outside it */
	CROSS(V(2, 2, 0), V(2, down(2), 2), 1);     /* just inside it */
	/* clang-format on */
#undef CROSS
#undef V
	/* a zero-area triangle: any contact is degenerate */
	const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, m[3] = {1, 0, 0};
	const double s0[3] = {1, -1, 0}, s1[3] = {1, 1, 0}, s2[3] = {1, 1, 1};
	ck_assert_int_eq(tri_segment_cross(s0, s1, a, b, m), -1);
	ck_assert_int_eq(tri_segment_cross(s0, s2, a, b, m), 0);
}
END_TEST

static Suite *tri_overlap_suite(void)
{
	Suite *s = suite_create("tri_overlap");
	ck_case(s, "overlap", 120,
	        CK_TESTS(constructed_contacts, constructed_degenerate, random_against_gjk,
	                 random_coplanar_against_gjk, near_contacts_consistent));
	ck_case(s, "segment", 60, CK_TESTS(segment_cross_constructed, segment_cross_against_gmp));
	return s;
}

CHECK_SUITE(tri_overlap_suite)
