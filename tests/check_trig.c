/*
 * check_trig.c — suite "trig": the core's own sin, cos, atan2 and acos
 * (core/trig.c) against the C library's (glibc: within an ulp of the true
 * value, and an independent implementation).
 *
 * Millions of random arguments over the ranges the core meets and beyond,
 * the hard cases of the reduction (doubles next to multiples of pi/2, where
 * the reduced argument cancels), and special values: errors measured in
 * ulps of libm's answer and bounded; exact zeros, signs and symmetries
 * bit for bit; sin^2 + cos^2 close to 1; atan2's quadrants, signed zeros
 * and infinities as C99 Annex F says (glibc follows it, bit for bit).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "prng.h"
#include "trig.h"

/* |got - want| in ulps of want (of the smallest normal for a tiny want). */
static double ulps(double got, double want)
{
	if (got == want)
		return 0.0;
	double a = fmax(fabs(want), DBL_MIN);
	return fabs(got - want) / (nextafter(a, INFINITY) - a);
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

typedef struct worst {
	double ulps, at, at2;
} worst;

static void note(worst *w, double got, double want, double x, double y)
{
	double u = ulps(got, want);
	if (!(u <= w->ulps))
		*w = (worst){u, x, y};
}

/* sin and cos of n random x in [lo, hi): the worst ulps of each. */
static void sincos_range(uint64_t seed, double lo, double hi, int n, double bound)
{
	prng r = {seed};
	worst ws = {0}, wc = {0};
	for (int i = 0; i < n; i++) {
		double x = prng_range(&r, lo, hi), s, c;
		trig_sincos(x, &s, &c);
		note(&ws, s, sin(x), x, 0);
		note(&wc, c, cos(x), x, 0);
	}
	printf("trig: sin on [%g, %g): %.3f ulp at %a; cos %.3f ulp at %a\n", lo, hi, ws.ulps,
	       ws.at, wc.ulps, wc.at);
	ck_assert_msg(ws.ulps <= bound, "sin %.17g: %.3f ulps", ws.at, ws.ulps);
	ck_assert_msg(wc.ulps <= bound, "cos %.17g: %.3f ulps", wc.at, wc.ulps);
}

START_TEST(sin_cos_random)
{
	sincos_range(1, -M_PI / 4, M_PI / 4, 1000000, 1.0);
	sincos_range(2, -2 * M_PI, 2 * M_PI, 1000000, 1.0);
	sincos_range(3, -1e3, 1e3, 500000, 1.0);
	sincos_range(4, -8e8, 8e8, 500000, 1.0);
	sincos_range(5, -1e-6, 1e-6, 200000, 1.0);
}
END_TEST

/* Beyond the exact reduction: within about 2^-53 while the pieces of pi/2
 * cover the cancellation (to 2^80), and always within [-1, 1]. */
START_TEST(sin_cos_large)
{
	prng r = {6};
	double near = 0.0;
	for (int i = 0; i < 200000; i++) {
		double x = ldexp(1.0 + prng_unit(&r), prng_int(&r, 29, 1023)), s, c;
		trig_sincos(x, &s, &c);
		ck_assert_msg(fabs(s) <= 1.0 && fabs(c) <= 1.0, "%a: sin %a cos %a", x, s, c);
		ck_assert_msg(fabs(s * s + c * c - 1.0) <= 4 * DBL_EPSILON, "%a: sin %a cos %a", x,
		              s, c);
		if (x < 0x1p80)
			near = fmax(near, fmax(fabs(s - sin(x)), fabs(c - cos(x))));
	}
	printf("trig: sin, cos of x in [2^29, 2^80): within %g\n", near);
	ck_assert_msg(near <= 2 * DBL_EPSILON, "off by %g", near);
}
END_TEST

/* Next to k pi/2 the reduced argument is what is left after cancelling
 * most bits: sin or cos is tiny there, and must still be accurate. */
START_TEST(sin_cos_near_multiples_of_half_pi)
{
	prng r = {7};
	worst w = {0};
	for (int i = 0; i < 300000; i++) {
		double k = (double)prng_int(&r, 1, 1 << 28);
		if (i < 1000)
			k = i + 1;
		double x = k * M_PI_2;
		for (int d = -2; d <= 2; d++) {
			double y = x, s, c;
			for (int j = 0; j < (d < 0 ? -d : d); j++)
				y = nextafter(y, d < 0 ? 0.0 : INFINITY);
			trig_sincos(y, &s, &c);
			note(&w, s, sin(y), y, 0);
			note(&w, c, cos(y), y, 0);
		}
	}
	printf("trig: next to k pi/2: %.3f ulp at %a\n", w.ulps, w.at);
	ck_assert_msg(w.ulps <= 1.0, "%a: %.3f ulps", w.at, w.ulps);
}
END_TEST

START_TEST(sin_cos_special)
{
	double s, c;
	trig_sincos(0.0, &s, &c);
	ck_assert(same_bits(s, 0.0) && same_bits(c, 1.0));
	trig_sincos(-0.0, &s, &c);
	ck_assert(same_bits(s, -0.0) && same_bits(c, 1.0));
	const double bad[] = {INFINITY, -INFINITY, NAN};
	for (int i = 0; i < 3; i++) {
		ck_assert(isnan(trig_sin(bad[i])) && isnan(trig_cos(bad[i])));
		trig_sincos(bad[i], &s, &c);
		ck_assert(isnan(s) && isnan(c));
	}
	/* Tiny and subnormal x: sin x = x, cos x = 1, as libm. */
	const double tiny[] = {DBL_MIN, 0x1p-1074, 1e-300, 0x1p-27, 1e-9};
	for (int i = 0; i < 5; i++)
		for (int g = -1; g <= 1; g += 2) {
			double x = g * tiny[i];
			ck_assert_msg(same_bits(trig_sin(x), sin(x)), "sin %a", x);
			ck_assert_msg(same_bits(trig_cos(x), cos(x)), "cos %a", x);
		}
	const double some[] = {M_PI_4,       M_PI_2,     M_PI, 1.0,
	                       3.0 * M_PI_2, 2.0 * M_PI, 1e6,  0x1.921fb4p+28};
	for (int i = 0; i < 8; i++) {
		ck_assert_msg(ulps(trig_sin(some[i]), sin(some[i])) <= 1.0, "sin %a", some[i]);
		ck_assert_msg(ulps(trig_cos(some[i]), cos(some[i])) <= 1.0, "cos %a", some[i]);
	}
	trig_sincos(DBL_MAX, &s, &c);
	ck_assert(fabs(s) <= 1.0 && fabs(c) <= 1.0);
}
END_TEST

/* Odd and even bit for bit; the Pythagorean identity; sincos = sin, cos. */
START_TEST(sin_cos_symmetry)
{
	prng r = {8};
	double pyth = 0.0;
	for (int i = 0; i < 1000000; i++) {
		double x = prng_range(&r, -100.0, 100.0), s, c;
		trig_sincos(x, &s, &c);
		ck_assert(same_bits(trig_sin(-x), -s) && same_bits(trig_cos(-x), c));
		ck_assert(same_bits(trig_sin(x), s) && same_bits(trig_cos(x), c));
		pyth = fmax(pyth, fabs(s * s + c * c - 1.0));
	}
	printf("trig: |sin^2 + cos^2 - 1| <= %g\n", pyth);
	ck_assert_msg(pyth <= 4 * DBL_EPSILON, "%g", pyth);
}
END_TEST

START_TEST(atan2_random)
{
	prng r = {9};
	worst w = {0};
	for (int i = 0; i < 2000000; i++) {
		double y, x;
		if (i % 2) { /* any direction, magnitudes alike */
			y = prng_range(&r, -1.0, 1.0), x = prng_range(&r, -1.0, 1.0);
		} else { /* mixed magnitudes, every quadrant */
			y = ldexp(prng_range(&r, -1.0, 1.0), prng_int(&r, -60, 60));
			x = ldexp(prng_range(&r, -1.0, 1.0), prng_int(&r, -60, 60));
		}
		note(&w, trig_atan2(y, x), atan2(y, x), y, x);
		ck_assert(same_bits(trig_atan2(-y, x), -trig_atan2(y, x)));
	}
	printf("trig: atan2: %.3f ulp at (%a, %a)\n", w.ulps, w.at, w.at2);
	ck_assert_msg(w.ulps <= 1.5, "atan2(%a, %a): %.3f ulps", w.at, w.at2, w.ulps);
	/* Exact ratios at the breakpoints j / 8 and across them. */
	for (int j = 0; j <= 64; j++) {
		double x = 64.0, y = j;
		for (int d = -1; d <= 1; d++) {
			double yy = d ? nextafter(y, d * INFINITY) : y;
			ck_assert_msg(ulps(trig_atan2(yy, x), atan2(yy, x)) <= 1.0, "%a", yy);
			ck_assert_msg(ulps(trig_atan2(x, yy), atan2(x, yy)) <= 1.0, "%a", yy);
			ck_assert_msg(ulps(trig_atan2(yy, -x), atan2(yy, -x)) <= 1.0, "%a", yy);
		}
	}
}
END_TEST

/* Annex F: every pair of these, bit for bit as glibc (which follows it). */
START_TEST(atan2_special)
{
	const double v[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074, DBL_MIN,  1.0,       -1.0,
	                    3.5, -2.0, DBL_MAX,   -DBL_MAX,   INFINITY, -INFINITY, NAN};
	const int n = (int)(sizeof v / sizeof v[0]);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double got = trig_atan2(v[i], v[j]), want = atan2(v[i], v[j]);
			ck_assert_msg(same_bits(got, want), "atan2(%a, %a) = %a, libm %a", v[i],
			              v[j], got, want);
		}
	ck_assert(same_bits(trig_atan2(0.0, -0.0), M_PI) &&
	          same_bits(trig_atan2(-0.0, -0.0), -M_PI));
	ck_assert(same_bits(trig_atan2(-0.0, 0.0), -0.0));
	ck_assert(same_bits(trig_atan2(INFINITY, -INFINITY), 3 * M_PI_4));
}
END_TEST

START_TEST(acos_random)
{
	prng r = {10};
	worst w = {0};
	for (int i = 0; i < 1000000; i++) {
		double x = i % 4 ? prng_range(&r, -1.0, 1.0)
		                 : 1.0 - ldexp(prng_unit(&r), -prng_int(&r, 1, 50));
		note(&w, trig_acos(x), acos(x), x, 0);
	}
	printf("trig: acos: %.3f ulp at %a\n", w.ulps, w.at);
	ck_assert_msg(w.ulps <= 2.0, "acos %a: %.3f ulps", w.at, w.ulps);
	ck_assert(same_bits(trig_acos(1.0), 0.0) && same_bits(trig_acos(-1.0), M_PI));
	ck_assert(same_bits(trig_acos(0.0), M_PI_2) && same_bits(trig_acos(-0.0), M_PI_2));
	ck_assert(isnan(trig_acos(1.0 + DBL_EPSILON)) && isnan(trig_acos(-INFINITY)) &&
	          isnan(trig_acos(NAN)));
}
END_TEST

static Suite *trig_suite(void)
{
	Suite *s = suite_create("trig");
	ck_case(s, "sin_cos", 120,
	        CK_TESTS(sin_cos_random, sin_cos_large, sin_cos_near_multiples_of_half_pi,
	                 sin_cos_special, sin_cos_symmetry));
	ck_case(s, "atan2", 120, CK_TESTS(atan2_random, atan2_special, acos_random));
	return s;
}

CHECK_SUITE(trig_suite)
