/*
 * trig.c — sin, cos and atan2 in plain IEEE double arithmetic (trig.h says
 * why the core has its own).
 *
 * sin and cos: x is reduced to r = x - n pi/2 with |r| <= about pi/4 (Cody
 * and Waite): pi/2 is split into five pieces of 24 bits and a rounded sixth,
 * so that n P_k is exact while n < 2^29 and r is kept as a double-double
 * (hi + lo) while the pieces are taken away.  Beyond 2^29 pi/2 the same
 * steps run on the leading 29 bits of the quotient, repeatedly, until x is
 * in range: exact products still, but the 173 bits of pi/2 only cover the
 * cancellation until |x| is about 2^80; beyond, the error grows with |x|
 * and means nothing past about 2^125 (this is a fallback: there is no
 * Payne-Hanek table).  The result stays deterministic and within [-1, 1].  On |r| <= pi/4 the
 * Taylor series through r^17 (sin) and r^18 (cos) leave a truncation error
 * below 2^-60; the coefficients are 1/k! rounded to double.
 *
 * atan2: the ratio t = min/max of |y| and |x| is in [0, 1]; below 1/8 the
 * Taylor series of atan through t^21, above it atan t = atan c + atan u with
 * c = j/8 the nearest eighth, u = (t - c) / (1 + t c) (|u| <= 1/16; t - c
 * is exact) and atan c as a double-double.  The octant is restored in
 * double-double (pi/2 - a, pi - a) and rounded once.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "trig.h"

/* pi/2 = P1 + ... + P5 (24 bits each) + P6 (rounded). */
static const double P1 = 0x1.921fb4p+0, P2 = 0x1.4442d0p-24, P3 = 0x1.846988p-48,
		    P4 = 0x1.8cc516p-72, P5 = 0x1.01b838p-96, P6 = 0x1.a252049c1114dp-120;
static const double INV_PIO2 = 0x1.45f306dc9c883p-1;
static const double PIO4 = 0x1.921fb54442d18p-1;
/* Beyond this n reaches 2^29 and n P_k would round. */
static const double REDUCE_MAX = 0x1.921fb4p+28;
static const double ROUNDER = 0x1.8p+52;

/* s + e = a + b exactly (Knuth's two-sum). */
static double two_sum(double a, double b, double *e)
{
	double s = a + b, bb = s - a;
	*e = (a - (s - bb)) + (b - bb);
	return s;
}

/* hi = x - n pi/2 to double-double precision with the error added to *lo;
 * n >= 0 an integer of at most 29 significant bits, so that each n P_k
 * is exact and x - n P1 too (Sterbenz: x / (n P1) is within [1/2, 2]). */
static double reduce_step(double x, double n, double *lo)
{
	double e, hi = x - n * P1;
	const double piece[4] = {P2, P3, P4, P5};
	for (int k = 0; k < 4; k++) {
		hi = two_sum(hi, -(n * piece[k]), &e);
		*lo += e;
	}
	*lo -= n * P6;
	return hi;
}

/* n mod 4 of an integer-valued n >= 0 of at most 29 significant bits. */
static unsigned quadrant_of(double n)
{
	return n < 0x1p62 ? (unsigned)((uint64_t)n & 3u) : 0u;
}

/* ax = hi + lo + q pi/2 (mod 2 pi), |hi| <= about pi/4, |lo| <= ulp(hi)/2,
 * for a finite ax >= 0; returns q in 0..3. */
static unsigned reduce(double ax, double *hi, double *lo)
{
	unsigned q = 0;
	double e, h = ax, l = 0.0;
	while (h >= REDUCE_MAX) {
		/* The quotient's leading 29 bits (truncated): a step that
		 * takes off all but a few 2^-29 of h. */
		double n = h * INV_PIO2;
		uint64_t bits;
		memcpy(&bits, &n, sizeof bits);
		bits &= ~((UINT64_C(1) << 24) - 1);
		memcpy(&n, &bits, sizeof n);
		q += quadrant_of(n);
		h = reduce_step(h, n, &l);
		h = two_sum(h, l, &l);
	}
	if (h > PIO4) {
		/* Round to nearest: 0 <= h INV_PIO2 < 2^29, far below 2^51. */
		double n = (h * INV_PIO2 + ROUNDER) - ROUNDER;
		q += quadrant_of(n);
		h = reduce_step(h, n, &l);
	}
	*hi = two_sum(h, l, &e);
	*lo = e;
	return q & 3u;
}

/* c[0] + w (c[1] + w (... + w c[n-1])), Horner's order. */
static double horner(double w, const double *c, int n)
{
	double p = c[n - 1];
	for (int k = n - 2; k >= 0; k--)
		p = c[k] + w * p;
	return p;
}

/* -1/3!, 1/5!, ..., 1/17! and 1/4!, -1/6!, ..., -1/18!. */
static const double SIN_C[8] = {
	-0x1.5555555555555p-3,  0x1.1111111111111p-7,   -0x1.a01a01a01a01ap-13,
	0x1.71de3a556c734p-19,  -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
	-0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49,
};
static const double COS_C[8] = {
	0x1.5555555555555p-5,   -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16,
	-0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29,  -0x1.93974a8c07c9dp-37,
	0x1.ae7f3e733b81fp-45,  -0x1.6827863b97d97p-53,
};

/* sin(hi + lo) and cos(hi + lo) for |hi| <= about pi/4, |lo| tiny:
 * sin(hi) + lo cos(hi) and cos(hi) - lo sin(hi), to first order in lo. */
static double kernel_sin(double x, double lo)
{
	const double w = x * x;
	return x + (x * w * horner(w, SIN_C, 8) + lo * (1.0 - 0.5 * w));
}

static double kernel_cos(double x, double lo)
{
	const double w = x * x, hz = 0.5 * w, a = 1.0 - hz;
	/* (1 - a) - hz: the rounding error of a, exactly (hz <= 0.31). */
	return a + (((1.0 - a) - hz) + (w * w * horner(w, COS_C, 8) - x * lo));
}

void trig_sincos(double x, double *s, double *c)
{
	const double ax = fabs(x);
	if (!(ax < INFINITY)) {
		*s = *c = x - x;
		return;
	}
	double hi, lo;
	const unsigned q = reduce(ax, &hi, &lo);
	const double ks = kernel_sin(hi, lo), kc = kernel_cos(hi, lo);
	double sv, cv;
	switch (q) {
	case 0: sv = ks, cv = kc; break;
	case 1: sv = kc, cv = -ks; break;
	case 2: sv = -ks, cv = -kc; break;
	default: sv = -kc, cv = ks; break;
	}
	*s = signbit(x) ? -sv : sv;
	*c = cv;
}

double trig_sin(double x)
{
	double s, c;
	trig_sincos(x, &s, &c);
	return s;
}

double trig_cos(double x)
{
	double s, c;
	trig_sincos(x, &s, &c);
	return c;
}

/* atan(j / 8) = ATAN_HI[j] + ATAN_LO[j]. */
static const double ATAN_HI[9] = {
	0.0,
	0x1.fd5ba9aac2f6ep-4,
	0x1.f5b75f92c80ddp-3,
	0x1.6f61941e4def1p-2,
	0x1.dac670561bb4fp-2,
	0x1.1e00babdefeb4p-1,
	0x1.4978fa3269ee1p-1,
	0x1.700a7c5784634p-1,
	0x1.921fb54442d18p-1,
};
static const double ATAN_LO[9] = {
	0.0,
	-0x1.cd37686760c17p-59,
	0x1.8ab6e3cf7afbdp-57,
	-0x1.c63aae6f6e918p-56,
	0x1.a2b7f222f65e2p-56,
	-0x1.928df287a668fp-58,
	0x1.2419a87f2a458p-56,
	-0x1.8c34d25aadef6p-56,
	0x1.1a62633145c07p-55,
};
static const double PIO2_HI = 0x1.921fb54442d18p+0, PIO2_LO = 0x1.1a62633145c07p-54;
static const double PI_HI = 0x1.921fb54442d18p+1, PI_LO = 0x1.1a62633145c07p-53;

/* -1/3, 1/5, ..., -1/19, 1/21. */
static const double ATAN_C[10] = {
	-0x1.5555555555555p-2, 0x1.999999999999ap-3, -0x1.2492492492492p-3, 0x1.c71c71c71c71cp-4,
	-0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4, -0x1.1111111111111p-4, 0x1.e1e1e1e1e1e1ep-5,
	-0x1.af286bca1af28p-5, 0x1.8618618618618p-5,
};

/* atan u for |u| <= 1/8: u - u^3/3 + ... - u^19/19 + u^21/21. */
static double atan_series(double u)
{
	const double w = u * u;
	return u + u * w * horner(w, ATAN_C, 10);
}

/* atan t = hi + *lo for 0 <= t <= 1. */
static double atan_dd(double t, double *lo)
{
	if (t < 0.125) {
		*lo = 0.0;
		return atan_series(t);
	}
	const int j = (int)(t * 8.0 + 0.5);
	const double c = j * 0.125;
	const double u = (t - c) / (1.0 + t * c);
	double e, hi = two_sum(ATAN_HI[j], atan_series(u), &e);
	*lo = e + ATAN_LO[j];
	return hi;
}

/* (ahi + alo) - (hi + lo), as a double-double. */
static double dd_sub(double ahi, double alo, double hi, double lo, double *out_lo)
{
	double e, s = two_sum(ahi, -hi, &e);
	e += alo - lo;
	return two_sum(s, e, out_lo);
}

double trig_atan2(double y, double x)
{
	if (isnan(x) || isnan(y))
		return x + y;
	const double ax = fabs(x), ay = fabs(y);
	double hi, lo;
	if (ax == INFINITY && ay == INFINITY) {
		/* pi/4 or 3 pi/4, as the general case would round them. */
		hi = ATAN_HI[8], lo = ATAN_LO[8];
		if (signbit(x))
			hi = dd_sub(PI_HI, PI_LO, hi, lo, &lo);
	} else if (ax == 0.0 && ay == 0.0) {
		hi = signbit(x) ? PI_HI : 0.0, lo = 0.0;
	} else {
		const int swap = ay > ax;
		hi = atan_dd(swap ? ax / ay : ay / ax, &lo);
		if (swap)
			hi = dd_sub(PIO2_HI, PIO2_LO, hi, lo, &lo);
		if (signbit(x))
			hi = dd_sub(PI_HI, PI_LO, hi, lo, &lo);
	}
	const double r = hi + lo;
	return signbit(y) ? -r : r;
}

double trig_acos(double x)
{
	/* (1 - x)(1 + x) rather than 1 - x^2: no cancellation near |x| = 1. */
	return trig_atan2(sqrt((1.0 - x) * (1.0 + x)), x);
}
