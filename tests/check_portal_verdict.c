/*
 * check_portal_verdict.c — suite "portal_verdict": the verdict's portal
 * refinement (core/mpr.c).
 *
 * mpr_verdict3 is driven here with a support mapping over an explicit
 * point set K (a box, an octahedron, random points), so every answer can
 * be checked against the set itself: MPR_APART's direction has every
 * point of K beyond reach on the far side, MPR_INSIDE's tetrahedron of
 * c and three points of K holds the origin (its barycentric coordinates,
 * solved independently, all positive), MPR_WITHIN's portal has a point
 * within reach.  Undecided runs (the support cap) must leave the verdict
 * to GJK and say so.  The shapes-level agreement with GJK is in the
 * "want" suite (every GJK88 example and random pair); here are the
 * configurations that steer MPR into its corner cases: the origin on a
 * face, an edge or a vertex of K, on a side face of the tetrahedron, at c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "mpr.h"
#include "prng.h"

#define MAX_K 400

typedef struct {
	double y[MAX_K][3];
	int n;
	double slot[5][3];
	int calls;
} kset;

static const double *support_k(void *ctx, const double *d, int slot)
{
	kset *k = ctx;
	ck_assert(slot >= 1 && slot <= 4);
	int best = 0;
	double bv = -INFINITY;
	for (int i = 0; i < k->n; i++) {
		double v = d[0] * k->y[i][0] + d[1] * k->y[i][1] + d[2] * k->y[i][2];
		if (v > bv) {
			bv = v;
			best = i;
		}
	}
	memcpy(k->slot[slot], k->y[best], sizeof k->slot[slot]);
	k->calls++;
	return k->slot[slot];
}

/* The box [lo, hi]^3 shifted by t, as K. */
static void box(kset *k, const double *lo, const double *hi, const double *t)
{
	k->n = 0;
	for (int i = 0; i < 8; i++) {
		k->y[k->n][0] = (i & 1 ? hi[0] : lo[0]) + t[0];
		k->y[k->n][1] = (i & 2 ? hi[1] : lo[1]) + t[1];
		k->y[k->n][2] = (i & 4 ? hi[2] : lo[2]) + t[2];
		k->n++;
	}
}

static void mean(const kset *k, double *c)
{
	c[0] = c[1] = c[2] = 0.0;
	for (int i = 0; i < k->n; i++)
		for (int j = 0; j < 3; j++)
			c[j] += k->y[i][j] / k->n;
}

/* s_K(-c) into slot 0. */
static const double *first(kset *k, const double *c)
{
	double d[3] = {-c[0], -c[1], -c[2]};
	support_k(k, d, 1);
	memcpy(k->slot[0], k->slot[1], sizeof k->slot[0]);
	return k->slot[0];
}

static double det3(const double *a, const double *b, const double *c)
{
	return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
	       a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* The answer checked against K itself; returns the verdict. */
static enum mpr_verdict run(kset *k, const double *c, double reach, int cap)
{
	mpr_answer m;
	k->calls = 0;
	const double *y0 = first(k, c);
	k->calls = 0;
	mpr_verdict3(c, y0, reach, cap, support_k, k, &m);
	ck_assert_int_eq(m.supports, k->calls);
	ck_assert(m.supports <= cap);
	switch (m.verdict) {
	case MPR_APART: {
		const double *d = m.dir;
		double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		ck_assert(len > 0.0);
		for (int i = 0; i < k->n; i++) {
			double v =
				(d[0] * k->y[i][0] + d[1] * k->y[i][1] + d[2] * k->y[i][2]) / len;
			ck_assert_msg(v < -reach, "point %d at %.3g along the separating direction",
			              i, v);
		}
		break;
	}
	case MPR_INSIDE: {
		ck_assert_int_eq(m.nslots, 3);
		const double *p[4] = {c, k->slot[m.slots[0]], k->slot[m.slots[1]],
		                      k->slot[m.slots[2]]};
		/* Barycentric coordinates of the origin by Cramer's rule on
		 * the edge vectors from p0: all four positive. */
		double e1[3], e2[3], e3[3], r[3];
		for (int j = 0; j < 3; j++) {
			e1[j] = p[1][j] - p[0][j];
			e2[j] = p[2][j] - p[0][j];
			e3[j] = p[3][j] - p[0][j];
			r[j] = -p[0][j];
		}
		double v = det3(e1, e2, e3);
		ck_assert(v != 0.0);
		double l1 = det3(r, e2, e3) / v, l2 = det3(e1, r, e3) / v, l3 = det3(e1, e2, r) / v;
		ck_assert_msg(l1 > 0 && l2 > 0 && l3 > 0 && 1 - l1 - l2 - l3 > 0,
		              "origin at %.3g %.3g %.3g %.3g", 1 - l1 - l2 - l3, l1, l2, l3);
		break;
	}
	case MPR_WITHIN: {
		/* Some point of c and the portal's triangle (or c alone) is
		 * within reach: the nearest point of the portal, found by a
		 * fine sampling, is an upper bound on that distance. */
		double best = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
		if (m.nslots == 1) { /* the segment from c to the point */
			const double *a = k->slot[m.slots[0]];
			for (int u = 0; u <= 20000; u++) {
				double x[3], s = u / 20000.0;
				for (int j = 0; j < 3; j++)
					x[j] = c[j] + s * (a[j] - c[j]);
				best = fmin(best, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
			}
		}
		if (m.nslots == 3) {
			const double *a = k->slot[m.slots[0]], *b = k->slot[m.slots[1]],
				     *e = k->slot[m.slots[2]];
			const double *t[4] = {c, a, b, e};
			/* The four faces of the tetrahedron with c, sampled. */
			for (int f = 0; f < 4; f++) {
				const double *q[3];
				for (int j = 0, m2 = 0; j < 4; j++)
					if (j != f)
						q[m2++] = t[j];
				for (int u = 0; u <= 200; u++)
					for (int w = 0; u + w <= 200; w++) {
						double x[3], s = u / 200.0, g = w / 200.0;
						for (int j = 0; j < 3; j++)
							x[j] = q[0][j] + s * (q[1][j] - q[0][j]) +
							       g * (q[2][j] - q[0][j]);
						best = fmin(best, sqrt(x[0] * x[0] + x[1] * x[1] +
						                       x[2] * x[2]));
					}
			}
		}
		ck_assert_msg(best <= reach + 0.03, "nearest sampled point %.3g, reach %.3g", best,
		              reach);
		break;
	}
	case MPR_UNDECIDED: break;
	}
	return m.verdict;
}

START_TEST(boxes)
{
	kset *k = malloc(sizeof *k);
	ck_assert_ptr_nonnull(k);
	const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
	double c[3];
	/* Deep: the origin well inside. */
	box(k, lo, hi, (double[]){0.3, -0.2, 0.1});
	mean(k, c);
	ck_assert_int_eq(run(k, c, 1e-12, 24), MPR_INSIDE);
	/* Apart along x, along a diagonal. */
	box(k, lo, hi, (double[]){3, 0.2, 0.1});
	mean(k, c);
	ck_assert_int_eq(run(k, c, 1e-12, 24), MPR_APART);
	box(k, lo, hi, (double[]){2.5, 2.5, -2.5});
	mean(k, c);
	ck_assert_int_eq(run(k, c, 1e-12, 24), MPR_APART);
	/* Apart by less than reach: not apart. */
	box(k, lo, hi, (double[]){1 + 1e-3, 0.2, 0.1});
	mean(k, c);
	ck_assert_int_ne(run(k, c, 1e-2, 24), MPR_APART);
	/* The origin on a face, on an edge, at a vertex: touching, which
	 * MPR must not call apart. */
	const double t[][3] = {{1, 0.2, 0.1}, {1, 1, 0.3}, {1, 1, 1}, {-1, 0.5, -1}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		box(k, lo, hi, t[i]);
		mean(k, c);
		enum mpr_verdict v = run(k, c, 1e-12, 24);
		ck_assert_msg(v == MPR_WITHIN || v == MPR_INSIDE || v == MPR_UNDECIDED,
		              "touching box %zu: verdict %d", i, v);
	}
	/* c at the origin, and c within reach of it. */
	box(k, lo, hi, (double[]){0, 0, 0});
	ck_assert_int_eq(run(k, (double[]){0, 0, 0}, 1e-12, 24), MPR_WITHIN);
	ck_assert_int_eq(run(k, (double[]){1e-13, 0, 0}, 1e-12, 24), MPR_WITHIN);
	/* The support cap: undecided, within the cap. */
	box(k, lo, hi, (double[]){0.3, -0.2, 0.1});
	mean(k, c);
	ck_assert_int_eq(run(k, c, 1e-12, 1), MPR_UNDECIDED);
	free(k);
}
END_TEST

/* The origin on the plane through c and two points of K (the tetrahedron's
 * side face), which made MPR give up before it tested that face's
 * triangle: K symmetric about the plane x = 0 with c on it. */
START_TEST(side_face)
{
	kset *k = malloc(sizeof *k);
	ck_assert_ptr_nonnull(k);
	static const double oct[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
	                                 {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
	int inside = 0;
	for (int s = 0; s < 50; s++) {
		double off[3] = {0.0, 0.02 * s - 0.5, 0.3 - 0.01 * s};
		k->n = 6;
		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 3; j++)
				k->y[i][j] = oct[i][j] + off[j];
		double c[3];
		mean(k, c);
		enum mpr_verdict v = run(k, c, 1e-12, 24);
		ck_assert_msg(v == MPR_INSIDE || v == MPR_WITHIN, "offset %d: verdict %d", s, v);
		inside++;
	}
	ck_assert_int_eq(inside, 50);
	free(k);
}
END_TEST

/* Random point sets around random offsets, the origin inside, outside and
 * near the boundary: every answer checked against the set as run() does. */
START_TEST(random_sets)
{
	kset *k = malloc(sizeof *k);
	ck_assert_ptr_nonnull(k);
	prng g = {12345};
	int decided = 0;
	for (int it = 0; it < 400; it++) {
		k->n = 8 + (int)prng_below(&g, 60);
		double off[3];
		for (int j = 0; j < 3; j++)
			off[j] = 2.4 * prng_unit(&g) - 1.2;
		for (int i = 0; i < k->n; i++)
			for (int j = 0; j < 3; j++)
				k->y[i][j] = 2.0 * prng_unit(&g) - 1.0 + off[j];
		double c[3];
		mean(k, c);
		enum mpr_verdict v = run(k, c, 1e-12, 24);
		decided += v != MPR_UNDECIDED;
	}
	/* Almost every random set is decided without GJK. */
	ck_assert_msg(decided >= 390, "%d of 400 decided", decided);
	free(k);
}
END_TEST

static Suite *portal_verdict_suite(void)
{
	Suite *s = suite_create("portal_verdict");
	ck_case(s, "mpr", 60, CK_TESTS(boxes, side_face, random_sets));
	return s;
}

CHECK_SUITE(portal_verdict_suite)
