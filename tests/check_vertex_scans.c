/*
 * check_vertex_scans.c — suite "vertex_scans": the vertex scans of
 * core/support.c against a plain scalar scan.
 *
 * The scans are vectorized and interleaved (support.c), but their answer is
 * defined by the plain loop: the first vertex of largest inner product,
 * with the inner product rounded as (x e0 + y e1) + z e2 (or of v - v_0
 * for the relative scan).  Here every count from 1 to 70 and a few larger
 * ones, with coordinates on a small integer lattice (so that many vertices
 * tie exactly, and the first must win) and in general position, and the
 * one-pass box and extreme (support_bounds_extreme) against the box of
 * the vertices and the plain scan; a NaN anywhere is refused.  The scans
 * of a frame that keeps a by-coordinate copy (core/scan3.c) in each of
 * its states (the copy made by a scan or by the set-up pass, read, turned
 * into v - v_0) against the same plain scan.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "clash.h"
#include "prng.h"
#include "support.h"

#define MAX_COUNT 300

static size_t plain_scan(const double *v, size_t n, const double *e, int rel)
{
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	size_t best = 0;
	double bv = ((v[0] - x0) * e[0] + (v[1] - y0) * e[1]) + (v[2] - z0) * e[2];
	for (size_t i = 1; i < n; i++) {
		const double *p = v + 3 * i;
		double d = ((p[0] - x0) * e[0] + (p[1] - y0) * e[1]) + (p[2] - z0) * e[2];
		if (d > bv) {
			bv = d;
			best = i;
		}
	}
	return best;
}

static void fill(double *v, size_t n, int lattice, prng *r)
{
	for (size_t i = 0; i < 3 * n; i++)
		v[i] = lattice ? (double)(int)prng_range(r, -2.0, 3.0) : prng_range(r, -3.0, 3.0);
}

static size_t count_of(int t)
{
	return t < 70 ? (size_t)t + 1 : (size_t)(70 + (t - 70) * 23);
}

START_TEST(scan_is_the_plain_scan)
{
	static double v[3 * MAX_COUNT];
	prng r = {0x5ca2};
	for (int t = 0; t < 80; t++) {
		size_t n = count_of(t);
		ck_assert(n <= MAX_COUNT);
		for (int trial = 0; trial < 200; trial++) {
			int lattice = trial & 1;
			fill(v, n, lattice, &r);
			double e[3];
			if (lattice && (trial & 2)) /* axis directions: ties everywhere */
				for (int k = 0; k < 3; k++)
					e[k] = (double)(int)prng_range(&r, -1.0, 2.0);
			else
				prng_direction(&r, 3, e);
			size_t a = support_max_dot(v, n, 3, e), b = plain_scan(v, n, e, 0);
			ck_assert_msg(a == b, "%zu vertices: scan %zu, plain %zu", n, a, b);
			a = support_max_dot_rel3(v, n, e);
			b = plain_scan(v, n, e, 1);
			ck_assert_msg(a == b, "%zu vertices: relative scan %zu, plain %zu", n, a,
			              b);
		}
	}
}
END_TEST

/* support_eval3 (rel: support_eval_rel3) of frame f along e: the vertex
 * index, checked against the point it writes (f maps v to itself). */
static size_t frame_scan(const support_frame *f, const double *e, int rel)
{
	double x[3];
	size_t i = rel ? support_eval_rel3(f, e, x) : support_eval3(f, e, x);
	for (int k = 0; k < 3; k++)
		ck_assert(x[k] == f->vertices[3 * i + k]);
	return i;
}

START_TEST(copy_scans_are_the_plain_scan)
{
	static double v[3 * (SCAN3_MAX + 1)];
	static support_copy room, other;
	const double zero[3] = {0.0, 0.0, 0.0};
	prng r = {0x5ca3};
	for (size_t n = 1; n <= SCAN3_MAX; n++) {
		clash_shape sh;
		ck_assert_int_eq(clash_shape_init(&sh, 3, v, n), CLASH_OK);
		support_frame f;
		support_frame_init(&f, &sh, zero, 1.0);
		if (!support_frame_keep_copy(&f, &room))
			return; /* no AVX: the copies are never made */
		for (int trial = 0; trial < 40; trial++) {
			int lattice = trial & 1;
			fill(v, n, lattice, &r);
			double e[4][3];
			for (int j = 0; j < 4; j++) {
				if (lattice && (trial & 2))
					for (int k = 0; k < 3; k++)
						e[j][k] = (double)(int)prng_range(&r, -1.0, 2.0);
				else
					prng_direction(&r, 3, e[j]);
			}
			/* Made raw by a scan, read, read relative, turned
			 * relative, read relative, read raw (from the array). */
			support_frame_init(&f, &sh, zero, 1.0);
			ck_assert(support_frame_keep_copy(&f, &room));
			ck_assert_uint_eq(frame_scan(&f, e[0], 0), plain_scan(v, n, e[0], 0));
			ck_assert(support_frame_keep_copy(&f, &room)); /* kept as it is */
			ck_assert_uint_eq(frame_scan(&f, e[1], 0), plain_scan(v, n, e[1], 0));
			ck_assert_uint_eq(frame_scan(&f, e[2], 1), plain_scan(v, n, e[2], 1));
			support_frame_prefer_rel(&f);
			ck_assert_uint_eq(frame_scan(&f, e[3], 1), plain_scan(v, n, e[3], 1));
			ck_assert_uint_eq(frame_scan(&f, e[0], 1), plain_scan(v, n, e[0], 1));
			ck_assert_uint_eq(frame_scan(&f, e[1], 0), plain_scan(v, n, e[1], 0));
			/* Made relative by a relative scan, read. */
			support_frame_init(&f, &sh, zero, 1.0);
			ck_assert(support_frame_keep_copy(&f, &room));
			ck_assert_uint_eq(frame_scan(&f, e[1], 1), plain_scan(v, n, e[1], 1));
			ck_assert_uint_eq(frame_scan(&f, e[2], 1), plain_scan(v, n, e[2], 1));
			/* Made by the pass that sets up the frame (or, below 8
			 * vertices, by the first scan), read raw and relative. */
			support_pair_frame fr;
			size_t ia, ib;
			double ne[3] = {-e[0][0], -e[0][1], -e[0][2]};
			ck_assert_int_eq(support_pair_frame_init_copy(&fr, &sh, &sh, e[0], &ia, &ib,
			                                              &room, &other),
			                 CLASH_OK);
			ck_assert_uint_eq(ia, plain_scan(v, n, e[0], 0));
			ck_assert_uint_eq(ib, plain_scan(v, n, ne, 0));
			support_frame_init(&f, &sh, zero, 1.0);
			ck_assert(support_frame_keep_pair_copy(&f, &room));
			ck_assert_uint_eq(frame_scan(&f, e[1], 0), plain_scan(v, n, e[1], 0));
			ck_assert_uint_eq(frame_scan(&f, e[2], 1), plain_scan(v, n, e[2], 1));
			support_frame_init(&f, &sh, zero, 1.0);
			ck_assert(support_frame_keep_pair_copy(&f, &other));
			ck_assert_uint_eq(frame_scan(&f, e[3], 1), plain_scan(v, n, e[3], 1));
		}
	}
	/* Past SCAN3_MAX vertices, or in 2-D, a frame keeps no copy. */
	clash_shape big;
	ck_assert_int_eq(clash_shape_init(&big, 3, v, SCAN3_MAX + 1), CLASH_OK);
	support_frame f;
	support_frame_init(&f, &big, zero, 1.0);
	ck_assert(!support_frame_keep_copy(&f, &room));
	ck_assert_ptr_null(f.copy);
	ck_assert_int_eq(clash_shape_init(&big, 2, v, 10), CLASH_OK);
	support_frame_init(&f, &big, zero, 1.0);
	ck_assert(!support_frame_keep_copy(&f, &room));
}
END_TEST

START_TEST(bounds_and_extreme)
{
	static double v[3 * MAX_COUNT];
	prng r = {0xb0c5};
	for (int t = 0; t < 80; t++) {
		size_t n = count_of(t);
		for (int trial = 0; trial < 50; trial++) {
			fill(v, n, trial & 1, &r);
			clash_shape s;
			ck_assert_int_eq(clash_shape_init(&s, 3, v, n), CLASH_OK);
			double e[3], c1[3], c2[3], r1, r2;
			prng_direction(&r, 3, e);
			size_t x;
			ck_assert_int_eq(support_bounds_extreme(&s, e, c1, &r1, &x), CLASH_OK);
			ck_assert_int_eq(support_bounds(&s, c2, &r2), CLASH_OK);
			ck_assert_uint_eq(x, plain_scan(v, n, e, 0));
			for (int k = 0; k < 3; k++) {
				double lo = v[k], hi = v[k];
				for (size_t i = 1; i < n; i++) {
					lo = fmin(lo, v[3 * i + k]);
					hi = fmax(hi, v[3 * i + k]);
				}
				ck_assert(c1[k] == 0.5 * hi + 0.5 * lo);
				ck_assert(c2[k] == c1[k]);
			}
			ck_assert(r1 == r2);
			/* A NaN or an infinity anywhere is refused. */
			size_t at = (size_t)prng_range(&r, 0.0, (double)(3 * n));
			if (at >= 3 * n)
				at = 3 * n - 1;
			double keep = v[at];
			v[at] = (trial & 2) ? NAN : -INFINITY;
			ck_assert_int_eq(support_bounds_extreme(&s, e, c1, &r1, &x), CLASH_ERANGE);
			ck_assert_int_eq(support_bounds(&s, c2, &r2), CLASH_ERANGE);
			v[at] = keep;
		}
	}
}
END_TEST

/* Huge finite coordinates (whose inner products overflow) are not NaN. */
START_TEST(huge_is_not_nan)
{
	static double v[3 * 40];
	for (int i = 0; i < 40; i++) {
		v[3 * i] = (i & 1) ? 1e308 : -1e308;
		v[3 * i + 1] = (i & 2) ? 1e308 : -1e308;
		v[3 * i + 2] = 0.5 * i;
	}
	clash_shape s;
	ck_assert_int_eq(clash_shape_init(&s, 3, v, 40), CLASH_OK);
	double e[3] = {1.0, -1.0, 0.0}, c[3], rad;
	size_t x;
	ck_assert_int_eq(support_bounds_extreme(&s, e, c, &rad, &x), CLASH_OK);
	ck_assert(isfinite(rad));
}
END_TEST

static Suite *vertex_scans_suite(void)
{
	Suite *s = suite_create("vertex_scans");
	ck_case(s, "scan", 30,
	        CK_TESTS(scan_is_the_plain_scan, copy_scans_are_the_plain_scan, bounds_and_extreme,
	                 huge_is_not_nan));
	return s;
}

CHECK_SUITE(vertex_scans_suite)
