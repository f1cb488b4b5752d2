/*
 * check_predicates.c — suite "predicates": the adaptive orientation tests of
 * core/predicates.c against GMP's exact rationals.
 *
 * Every double is a rational, so mpq_set_d gives the coordinates exactly and
 * the determinant det[a-d; b-d; c-d] (or det[a-c; b-c]) is evaluated with no
 * rounding at all: its sign is the truth each predicate must return.  The
 * inputs are where floating point fails: points made exactly coplanar
 * (collinear) by construction with dyadic coefficients, then moved by one
 * ulp either way; nearly coplanar points made by a rounded construction;
 * the same far from the origin (1e6 + small); coordinates of mixed
 * magnitudes, whose differences are themselves inexact (the predicates'
 * stages C and D); the grid of points one ulp apart of Kettner et al.'s
 * "Classroom examples of robustness problems".  Each set also counts how
 * often the plain double determinant gets the sign wrong, and requires it
 * to be wrong sometimes: a set the naive formula passes tests nothing.
 */
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "predicates.h"
#include "prng.h"

static int sgn(double x)
{
	return (x > 0) - (x < 0);
}

/* ---- the oracle ---- */

static void gmp_det3(const double *a, const double *b, const double *c, const double *d, mpq_t det)
{
	const double *p[3] = {a, b, c};
	mpq_t m[9], t, u;
	for (int i = 0; i < 9; i++) {
		mpq_init(m[i]);
		mpq_set_d(m[i], p[i / 3][i % 3]);
		mpq_init(t);
		mpq_set_d(t, d[i % 3]);
		mpq_sub(m[i], m[i], t);
		mpq_clear(t);
	}
	mpq_inits(t, u, NULL);
	mpq_set_ui(det, 0, 1);
	/* det = r0 . (r1 x r2) with rows r_i = m[3i .. 3i+2] */
	for (int k = 0; k < 3; k++) {
		const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
		mpq_mul(t, m[3 + k1], m[6 + k2]);
		mpq_mul(u, m[3 + k2], m[6 + k1]);
		mpq_sub(t, t, u);
		mpq_mul(t, t, m[k]);
		mpq_add(det, det, t);
	}
	mpq_clears(t, u, NULL);
	for (int i = 0; i < 9; i++)
		mpq_clear(m[i]);
}

static int gmp_orient3d(const double *a, const double *b, const double *c, const double *d)
{
	mpq_t det;
	mpq_init(det);
	gmp_det3(a, b, c, d, det);
	const int s = mpq_sgn(det);
	mpq_clear(det);
	return s;
}

/* |value - exact| <= 4 epsilon |exact|. */
static int accurate(double value, const mpq_t exact)
{
	mpq_t v, bound;
	mpq_inits(v, bound, NULL);
	mpq_set_d(v, value);
	mpq_sub(v, v, exact);
	mpq_abs(v, v);
	mpq_abs(bound, exact);
	mpq_t f;
	mpq_init(f);
	mpq_set_d(f, 4 * DBL_EPSILON / 2);
	mpq_mul(bound, bound, f);
	const int ok = mpq_cmp(v, bound) <= 0;
	mpq_clears(v, bound, f, NULL);
	return ok;
}

static int gmp_orient2d(const double *a, const double *b, const double *c)
{
	mpq_t m[4], t, u;
	const double *p[2] = {a, b};
	for (int i = 0; i < 4; i++) {
		mpq_init(m[i]);
		mpq_set_d(m[i], p[i / 2][i % 2]);
		mpq_init(t);
		mpq_set_d(t, c[i % 2]);
		mpq_sub(m[i], m[i], t);
		mpq_clear(t);
	}
	mpq_inits(t, u, NULL);
	mpq_mul(t, m[0], m[3]);
	mpq_mul(u, m[1], m[2]);
	mpq_sub(t, t, u);
	const int s = mpq_sgn(t);
	mpq_clears(t, u, NULL);
	for (int i = 0; i < 4; i++)
		mpq_clear(m[i]);
	return s;
}

/* The plain double determinants: what the predicates must improve on. */
static double naive_orient3d(const double *a, const double *b, const double *c, const double *d)
{
	const double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
	const double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
	const double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
	return adx * (bdy * cdz - bdz * cdy) - ady * (bdx * cdz - bdz * cdx) +
	       adz * (bdx * cdy - bdy * cdx);
}

static double naive_orient2d(const double *a, const double *b, const double *c)
{
	return (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
}

/* Tallies of one set of cases. */
typedef struct tally {
	int cases, zeros, naive_wrong;
} tally;

static void check3(const double *a, const double *b, const double *c, const double *d, tally *t)
{
	const int want = gmp_orient3d(a, b, c, d);
	const double got = pred_orient3d(a, b, c, d);
	ck_assert_msg(
		sgn(got) == want && !isnan(got),
		"orient3d((%a,%a,%a), (%a,%a,%a), (%a,%a,%a), (%a,%a,%a)) = %g, exact sign %d",
		a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2], got, want);
	t->cases++;
	t->zeros += want == 0;
	t->naive_wrong += sgn(naive_orient3d(a, b, c, d)) != want;
}

static void check2(const double *a, const double *b, const double *c, tally *t)
{
	const int want = gmp_orient2d(a, b, c);
	const double got = pred_orient2d(a, b, c);
	ck_assert_msg(sgn(got) == want && !isnan(got),
	              "orient2d((%a,%a), (%a,%a), (%a,%a)) = %g, exact sign %d", a[0], a[1], b[0],
	              b[1], c[0], c[1], got, want);
	t->cases++;
	t->zeros += want == 0;
	t->naive_wrong += sgn(naive_orient2d(a, b, c)) != want;
}

static void report(const char *what, const tally *t)
{
	printf("predicates: %s: %d cases (%d exactly degenerate), naive sign wrong in %d\n", what,
	       t->cases, t->zeros, t->naive_wrong);
}

/* ---- orient3d ---- */

START_TEST(orient3d_convention)
{
	/* a, b, c counter-clockwise seen from +z; d below the plane: > 0. */
	const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
	const double below[3] = {0, 0, -1}, above[3] = {0.25, 0.25, 2}, on[3] = {5, -7, 0};
	ck_assert(pred_orient3d(a, b, c, below) == 1.0);
	ck_assert(pred_orient3d(a, b, c, above) == -2.0);
	ck_assert(pred_orient3d(a, b, c, on) == 0.0);
	ck_assert(pred_orient3d(b, a, c, below) == -1.0);
	const double a2[2] = {0, 0}, b2[2] = {1, 0}, c2[2] = {0, 1}, d2[2] = {3, 3};
	ck_assert(pred_orient2d(a2, b2, c2) == 1.0);
	ck_assert(pred_orient2d(a2, c2, b2) == -1.0);
	ck_assert(pred_orient2d(a2, d2, (double[2]){1, 1}) == 0.0);
}
END_TEST

START_TEST(orient3d_random)
{
	prng r = {0x0113d};
	tally t = {0};
	for (int i = 0; i < 20000; i++) {
		double p[4][3];
		const double scale = i % 2 ? 1.0 : prng_log(&r, 1e-30, 1e30);
		for (int k = 0; k < 12; k++)
			p[k / 3][k % 3] = scale * prng_range(&r, -1, 1);
		check3(p[0], p[1], p[2], p[3], &t);
	}
	report("orient3d random", &t);
}
END_TEST

/* One ulp up or down of x. */
static double ulp_step(double x, int dir)
{
	return nextafter(x, dir > 0 ? INFINITY : -INFINITY);
}

/*
 * Exactly coplanar d = a + s (b - a) + t (c - a): a, b, c have coordinates
 * offset + k 2^-20 (|k| < 2^20), s and t are j / 2^10 (|j| <= 2^11), so
 * every step is exact in doubles for offsets up to 2^21.  Then d, and in
 * turn a, moved by one ulp along each axis both ways.
 */
START_TEST(orient3d_coplanar_and_one_ulp_off)
{
	static const double offsets[] = {0.0, 1.0, 1024.0, 1e6, -1e6};
	prng r = {0xc0f1a7};
	tally t = {0};
	for (int i = 0; i < 1500; i++) {
		const double off = offsets[i % 5];
		double p[3][3], d[3];
		for (int k = 0; k < 9; k++)
			p[k / 3][k % 3] = off + (double)prng_int(&r, -(1 << 20), 1 << 20) * 0x1p-20;
		const double s = (double)prng_int(&r, -2048, 2048) * 0x1p-10;
		const double u = (double)prng_int(&r, -2048, 2048) * 0x1p-10;
		for (int k = 0; k < 3; k++)
			d[k] = p[0][k] + s * (p[1][k] - p[0][k]) + u * (p[2][k] - p[0][k]);
		ck_assert_int_eq(gmp_orient3d(p[0], p[1], p[2], d), 0);
		ck_assert(pred_orient3d(p[0], p[1], p[2], d) == 0.0);
		check3(p[0], p[1], p[2], d, &t);
		for (int k = 0; k < 3; k++)
			for (int dir = -1; dir <= 1; dir += 2) {
				double e[3] = {d[0], d[1], d[2]},
				       a[3] = {p[0][0], p[0][1], p[0][2]};
				e[k] = ulp_step(e[k], dir);
				check3(p[0], p[1], p[2], e, &t);
				a[k] = ulp_step(a[k], dir);
				check3(a, p[1], p[2], d, &t);
			}
	}
	report("orient3d coplanar, one ulp off", &t);
	ck_assert_int_gt(t.zeros, 1000);
	ck_assert_int_gt(t.naive_wrong, 0);
}
END_TEST

/*
 * Nearly coplanar by a rounded construction: d = a + s (b - a) + t (c - a)
 * with real s, t, at offsets up to 1e9 and with triangles from 1e-6 to 1 in
 * size.  Then the same with mixed magnitudes (one coordinate near 0, the
 * others large), where the coordinate differences are inexact.
 */
static void near_coplanar(prng *r, double p[4][3], int mixed)
{
	const double off = mixed ? 0.0 : (double[]){0.0, 1.0, 1e3, 1e6, 1e9}[prng_int(r, 0, 4)];
	const double size = prng_log(r, 1e-6, 1.0);
	for (int k = 0; k < 9; k++) {
		double base = off;
		if (mixed)
			base = (k % 3 == 0) ? 0.0 : prng_range(r, -1e7, 1e7);
		p[k / 3][k % 3] = base + size * prng_range(r, -1, 1);
	}
	const double s = prng_range(r, -2, 2), u = prng_range(r, -2, 2);
	for (int k = 0; k < 3; k++)
		p[3][k] = p[0][k] + s * (p[1][k] - p[0][k]) + u * (p[2][k] - p[0][k]);
}

START_TEST(orient3d_near_coplanar)
{
	prng r = {0x4ea2c0};
	tally t = {0}, tm = {0};
	for (int i = 0; i < 5000; i++) {
		double p[4][3];
		near_coplanar(&r, p, 0);
		check3(p[0], p[1], p[2], p[3], &t);
		near_coplanar(&r, p, 1);
		check3(p[0], p[1], p[2], p[3], &tm);
	}
	report("orient3d near coplanar", &t);
	report("orient3d near coplanar, mixed magnitudes", &tm);
	ck_assert_int_gt(t.naive_wrong, 0);
	ck_assert_int_gt(tm.naive_wrong, 0);
}
END_TEST

/* A coordinate of any magnitude from 1e-12 to 1e12, either sign. */
static double any_magnitude(prng *r)
{
	return (prng_unit(r) < 0.5 ? -1 : 1) * prng_log(r, 1e-12, 1e12);
}

/*
 * Exactly coplanar points whose coordinate differences are inexact (so the
 * exact stage D must decide): every point on the plane w = m v for two axes
 * v, w and m in {1, -1, 2, -0.5} (m v is exact), the third coordinate and v
 * of any magnitude; then one ulp off along each axis.
 */
START_TEST(orient3d_coplanar_inexact_differences)
{
	static const double mult[4] = {1.0, -1.0, 2.0, -0.5};
	prng r = {0xd1ff};
	tally t = {0};
	for (int i = 0; i < 1500; i++) {
		const int v = prng_int(&r, 0, 2), w = (v + prng_int(&r, 1, 2)) % 3, z = 3 - v - w;
		const double m = mult[prng_int(&r, 0, 3)];
		double p[4][3];
		for (int j = 0; j < 4; j++) {
			p[j][v] = any_magnitude(&r);
			p[j][w] = m * p[j][v];
			p[j][z] = any_magnitude(&r);
		}
		ck_assert(pred_orient3d(p[0], p[1], p[2], p[3]) == 0.0);
		check3(p[0], p[1], p[2], p[3], &t);
		for (int k = 0; k < 3; k++)
			for (int dir = -1; dir <= 1; dir += 2) {
				double e[3] = {p[3][0], p[3][1], p[3][2]};
				e[k] = ulp_step(e[k], dir);
				check3(p[0], p[1], p[2], e, &t);
			}
	}
	report("orient3d coplanar, inexact differences", &t);
	ck_assert_int_ge(t.zeros, 1500);
}
END_TEST

/* The same for orient2d: points on the line y = m x. */
START_TEST(orient2d_collinear_inexact_differences)
{
	static const double mult[4] = {1.0, -1.0, 2.0, -0.5};
	prng r = {0xd1ff2};
	tally t = {0};
	for (int i = 0; i < 1500; i++) {
		const double m = mult[prng_int(&r, 0, 3)];
		const int v = prng_int(&r, 0, 1);
		double p[3][2];
		for (int j = 0; j < 3; j++) {
			p[j][v] = any_magnitude(&r);
			p[j][1 - v] = m * p[j][v];
		}
		ck_assert(pred_orient2d(p[0], p[1], p[2]) == 0.0);
		check2(p[0], p[1], p[2], &t);
		for (int k = 0; k < 2; k++)
			for (int dir = -1; dir <= 1; dir += 2) {
				double e[2] = {p[2][0], p[2][1]};
				e[k] = ulp_step(e[k], dir);
				check2(p[0], p[1], e, &t);
			}
	}
	report("orient2d collinear, inexact differences", &t);
	ck_assert_int_ge(t.zeros, 1500);
}
END_TEST

/* pred_orient3d_value: within 4 epsilon of the exact determinant, on the
 * nearly coplanar sets where the sign-exact value may be far off. */
START_TEST(orient3d_value_accurate)
{
	prng r = {0xacc};
	mpq_t exact;
	mpq_init(exact);
	int far = 0;
	for (int i = 0; i < 4000; i++) {
		double p[4][3];
		near_coplanar(&r, p, i % 2);
		gmp_det3(p[0], p[1], p[2], p[3], exact);
		const double v = pred_orient3d_value(p[0], p[1], p[2], p[3]);
		ck_assert_msg(accurate(v, exact), "case %d: value %g not within 4 eps", i, v);
		far += !accurate(pred_orient3d(p[0], p[1], p[2], p[3]), exact);
		const double q[3][2] = {{p[0][0], p[0][1]}, {p[1][0], p[1][1]}, {p[2][0], p[2][1]}};
		const double v2 = pred_orient2d_value(q[0], q[1], q[2]);
		const double pad[3] = {0, 0, 1}, a3[3] = {q[0][0], q[0][1], 0},
			     b3[3] = {q[1][0], q[1][1], 0}, c3[3] = {q[2][0], q[2][1], 0};
		/* det[a-c; b-c] in 2-D is orient3d(a, b, pad, c) with a, b, c in z = 0 */
		gmp_det3(a3, b3, pad, c3, exact);
		ck_assert_msg(accurate(v2, exact), "case %d: 2-D value %g not within 4 eps", i, v2);
	}
	mpq_clear(exact);
	printf("predicates: orient3d value: sign-exact value off by more than 4 eps in %d of 4000\n",
	       far);
}
END_TEST

/* The sign is a property of the four points: an odd permutation of the
 * arguments negates it exactly, also where the determinant is tiny. */
START_TEST(orient3d_permutations)
{
	static const int perm[24][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1},
	                                {0, 3, 1, 2}, {0, 3, 2, 1}, {1, 0, 2, 3}, {1, 0, 3, 2},
	                                {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
	                                {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0},
	                                {2, 3, 0, 1}, {2, 3, 1, 0}, {3, 0, 1, 2}, {3, 0, 2, 1},
	                                {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
	prng r = {0x9e2};
	for (int i = 0; i < 1000; i++) {
		double p[4][3];
		near_coplanar(&r, p, i % 2);
		const int s = sgn(pred_orient3d(p[0], p[1], p[2], p[3]));
		for (int k = 0; k < 24; k++) {
			const int *q = perm[k];
			int inv = 0;
			for (int x = 0; x < 4; x++)
				for (int y = x + 1; y < 4; y++)
					inv += q[x] > q[y];
			const int want = inv % 2 ? -s : s;
			ck_assert_int_eq(sgn(pred_orient3d(p[q[0]], p[q[1]], p[q[2]], p[q[3]])),
			                 want);
		}
	}
}
END_TEST

/* ---- orient2d ---- */

START_TEST(orient2d_random)
{
	prng r = {0x2d};
	tally t = {0};
	for (int i = 0; i < 20000; i++) {
		double p[3][2];
		const double scale = i % 2 ? 1.0 : prng_log(&r, 1e-30, 1e30);
		for (int k = 0; k < 6; k++)
			p[k / 2][k % 2] = scale * prng_range(&r, -1, 1);
		check2(p[0], p[1], p[2], &t);
	}
	report("orient2d random", &t);
}
END_TEST

START_TEST(orient2d_collinear_and_near)
{
	static const double offsets[] = {0.0, 1.0, 1e6, -1e6, 1e9};
	prng r = {0xc011};
	tally t = {0}, tn = {0};
	for (int i = 0; i < 3000; i++) {
		/* Exactly collinear (dyadic, as in the 3-D case), then one ulp off. */
		const double off = offsets[i % 5] < 2e6 ? offsets[i % 5] : 1e6;
		double a[2], b[2], c[2];
		for (int k = 0; k < 2; k++) {
			a[k] = off + (double)prng_int(&r, -(1 << 20), 1 << 20) * 0x1p-20;
			b[k] = off + (double)prng_int(&r, -(1 << 20), 1 << 20) * 0x1p-20;
		}
		const double s = (double)prng_int(&r, -4096, 4096) * 0x1p-10;
		for (int k = 0; k < 2; k++)
			c[k] = a[k] + s * (b[k] - a[k]);
		ck_assert(pred_orient2d(a, b, c) == 0.0);
		check2(a, b, c, &t);
		for (int k = 0; k < 2; k++)
			for (int dir = -1; dir <= 1; dir += 2) {
				double e[2] = {c[0], c[1]};
				e[k] = ulp_step(e[k], dir);
				check2(a, b, e, &t);
			}
		/* Nearly collinear by a rounded construction, any offset. */
		const double o2 = offsets[i % 5], size = prng_log(&r, 1e-6, 1.0);
		for (int k = 0; k < 2; k++) {
			a[k] = o2 + size * prng_range(&r, -1, 1);
			b[k] = o2 + size * prng_range(&r, -1, 1);
		}
		const double u = prng_range(&r, -3, 3);
		for (int k = 0; k < 2; k++)
			c[k] = a[k] + u * (b[k] - a[k]);
		check2(a, b, c, &tn);
	}
	report("orient2d collinear, one ulp off", &t);
	report("orient2d near collinear", &tn);
	ck_assert_int_gt(t.zeros, 2000);
	ck_assert_int_gt(t.naive_wrong, 0);
	ck_assert_int_gt(tn.naive_wrong, 0);
}
END_TEST

/* Kettner, Mehlhorn, Pion, Schirra, Yap, "Classroom examples of robustness
 * problems in geometric computations" (2008), section 3: p = (0.5 + x u,
 * 0.5 + y u) for a grid of x, y (u the ulp of 0.5), against the line
 * through (12, 12) and (24, 24). */
START_TEST(orient2d_ulp_grid)
{
	const double u = 0x1p-53, q[2] = {12, 12}, s[2] = {24, 24};
	tally t = {0};
	for (int x = 0; x < 96; x++)
		for (int y = 0; y < 96; y++) {
			const double p[2] = {0.5 + x * u, 0.5 + y * u};
			check2(p, q, s, &t);
			check2(q, s, p, &t);
		}
	report("orient2d ulp grid", &t);
	ck_assert_int_gt(t.naive_wrong, 0);
}
END_TEST

static Suite *predicates_suite(void)
{
	Suite *s = suite_create("predicates");
	ck_case(s, "orient3d", 60,
	        CK_TESTS(orient3d_convention, orient3d_random, orient3d_coplanar_and_one_ulp_off,
	                 orient3d_near_coplanar, orient3d_coplanar_inexact_differences,
	                 orient3d_permutations, orient3d_value_accurate));
	ck_case(s, "orient2d", 60,
	        CK_TESTS(orient2d_random, orient2d_collinear_and_near, orient2d_ulp_grid,
	                 orient2d_collinear_inexact_differences));
	return s;
}

CHECK_SUITE(predicates_suite)
