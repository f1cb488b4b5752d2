/*
 * predicates.c — adaptive exact orient2d and orient3d after J. R. Shewchuk,
 * "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
 * Predicates", Discrete & Computational Geometry 18 (1997).
 *
 * A number is carried, where one double is not enough, as an expansion:
 * doubles of increasing magnitude whose exact sum is the value, pairwise
 * nonoverlapping (section 2.2).  Each determinant goes through the stages
 * of section 4.2-4.3: A, plain floating point with a static error bound on
 * the permanent; B, the exact determinant of the rounded coordinate
 * differences; C, B plus the first-order effect of those differences'
 * roundoff; D, the exact value.  Each stage stops when its error bound
 * makes the sign certain.
 *
 * Every operation must round to double, to nearest with ties to even, one
 * at a time: the #errors below refuse x87 excess precision and -ffast-math,
 * and the Makefile compiles this file with -ffp-contract=off.  Why, how
 * stage D differs from the paper's, and why Dekker's split rather than
 * fma(): docs/design.md, "core/predicates.c".
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "predicates.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "predicates.c needs each double operation rounded to double (SSE2, not x87)"
#endif
#if FLT_RADIX != 2 || DBL_MANT_DIG != 53
#error "predicates.c needs IEEE 754 binary64 doubles"
#endif
#ifdef __FAST_MATH__
#error "predicates.c must not be compiled with -ffast-math"
#endif

/* Section 2.1: epsilon is half an ulp of 1 (2^-53), the largest relative
 * rounding error; the splitter 2^ceil(p/2) + 1 = 2^27 + 1 cuts a double
 * into two halves of at most 26 significant bits each (Theorem 17). */
#define EPS (DBL_EPSILON / 2.0)
#define SPLITTER ((double)(1L << ((DBL_MANT_DIG + 1) / 2)) + 1.0)

/* The static error bounds of section 4.2 (orient2d "ccw", orient3d "o3d"),
 * each a multiple of the permanent (the determinant with every term made
 * positive); RESULT_ERRBOUND bounds the rounding of stage B's estimate. */
#define RESULT_ERRBOUND ((3.0 + 8.0 * EPS) * EPS)
#define CCW_ERRBOUND_A ((3.0 + 16.0 * EPS) * EPS)
#define CCW_ERRBOUND_B ((2.0 + 12.0 * EPS) * EPS)
#define CCW_ERRBOUND_C ((9.0 + 64.0 * EPS) * EPS * EPS)
#define O3D_ERRBOUND_A ((7.0 + 56.0 * EPS) * EPS)
#define O3D_ERRBOUND_B ((3.0 + 28.0 * EPS) * EPS)
#define O3D_ERRBOUND_C ((26.0 + 288.0 * EPS) * EPS * EPS)

/* ---- exact sums and products of two doubles (section 2.3, 2.5) ---- */

/* Theorem 6 (Dekker's Fast-Two-Sum): x + y = a + b exactly, x = fl(a + b),
 * provided |a| >= |b|. */
static inline void fast_two_sum(double a, double b, double *x, double *y)
{
	const double s = a + b;
	*y = b - (s - a);
	*x = s;
}

/* Theorem 7 (Knuth's Two-Sum): x + y = a + b exactly, for any a, b. */
static inline void two_sum(double a, double b, double *x, double *y)
{
	const double s = a + b;
	const double b_virtual = s - a;
	const double a_virtual = s - b_virtual;
	*y = (a - a_virtual) + (b - b_virtual);
	*x = s;
}

/* The roundoff of x = fl(a - b): a - b = x + the result, exactly. */
static inline double two_diff_tail(double a, double b, double x)
{
	const double b_virtual = a - x;
	const double a_virtual = x + b_virtual;
	return (a - a_virtual) + (b_virtual - b);
}

/* Theorem 17 (Dekker): a = hi + lo, each with at most 26 significant bits. */
static inline void split(double a, double *hi, double *lo)
{
	const double c = SPLITTER * a;
	const double big = c - a;
	*hi = c - big;
	*lo = a - *hi;
}

/* Theorem 18 (Two-Product): x + y = a * b exactly, x = fl(a * b).  The four
 * half-products are exact, so the roundoff is found by subtracting them
 * from x in turn. */
static inline void two_product(double a, double b, double *x, double *y)
{
	double ahi, alo, bhi, blo;
	const double p = a * b;
	split(a, &ahi, &alo);
	split(b, &bhi, &blo);
	double err = p - ahi * bhi;
	err -= alo * bhi;
	err -= ahi * blo;
	*y = alo * blo - err;
	*x = p;
}

/* ---- expansions (section 2.2-2.6), smallest component first ----
 * Every expansion below has at least one component; zero components are
 * dropped ("zero elimination"), a zero value being the one component 0. */

/* The expansion lo + hi of a pair from two_sum or two_product. */
static int pair(double lo, double hi, double *e)
{
	int n = 0;
	if (lo != 0.0)
		e[n++] = lo;
	e[n++] = hi;
	return n;
}

/* a - b exactly, as one or two components. */
static int difference(double a, double b, double *e)
{
	const double x = a - b;
	return pair(two_diff_tail(a, b, x), x, e);
}

static void negate(int n, double *e)
{
	for (int i = 0; i < n; i++)
		e[i] = -e[i];
}

/* The next component of e or f, smaller magnitude first (the merge of
 * Fast-Expansion-Sum). */
static double merge_next(const double *e, int elen, int *i, const double *f, int flen, int *j)
{
	if (*j >= flen || (*i < elen && fabs(e[*i]) <= fabs(f[*j])))
		return e[(*i)++];
	return f[(*j)++];
}

/* Theorem 13 (Fast-Expansion-Sum) with zero elimination: h = e + f, at most
 * elen + flen components.  Needs round-to-even and strongly nonoverlapping
 * e and f, which every expansion built here is (Theorems 13 and 19). */
static int expansion_sum(int elen, const double *e, int flen, const double *f, double *h)
{
	int i = 0, j = 0, n = 0;
	double q = merge_next(e, elen, &i, f, flen, &j);
	double g = merge_next(e, elen, &i, f, flen, &j);
	double x, y;
	fast_two_sum(g, q, &x, &y);
	q = x;
	if (y != 0.0)
		h[n++] = y;
	for (int k = 2; k < elen + flen; k++) {
		g = merge_next(e, elen, &i, f, flen, &j);
		two_sum(q, g, &x, &y);
		q = x;
		if (y != 0.0)
			h[n++] = y;
	}
	if (q != 0.0 || n == 0)
		h[n++] = q;
	return n;
}

/* Theorem 19 (Scale-Expansion) with zero elimination: h = b * e, at most
 * 2 elen components. */
static int scale_expansion(int elen, const double *e, double b, double *h)
{
	int n = 0;
	double q, y, t_hi, t_lo, s;
	two_product(e[0], b, &q, &y);
	if (y != 0.0)
		h[n++] = y;
	for (int i = 1; i < elen; i++) {
		two_product(e[i], b, &t_hi, &t_lo);
		two_sum(q, t_lo, &s, &y);
		if (y != 0.0)
			h[n++] = y;
		fast_two_sum(t_hi, s, &q, &y);
		if (y != 0.0)
			h[n++] = y;
	}
	if (q != 0.0 || n == 0)
		h[n++] = q;
	return n;
}

/* The largest product expansion_product forms (2 elen flen components). */
#define PRODUCT_MAX 64

/* h = e * f exactly, by scaling e by each component of f and summing
 * (section 2.7); 2 elen flen must not exceed PRODUCT_MAX. */
static int expansion_product(int elen, const double *e, int flen, const double *f, double *h)
{
	double part[PRODUCT_MAX], sum[PRODUCT_MAX];
	int n = scale_expansion(elen, e, f[0], h);
	for (int j = 1; j < flen; j++) {
		const int m = scale_expansion(elen, e, f[j], part);
		n = expansion_sum(n, h, m, part, sum);
		memcpy(h, sum, (size_t)n * sizeof *h);
	}
	return n;
}

/* An approximation of the value of e (section 2.8): the components summed,
 * smallest first.  Its sign is trusted only behind an error bound. */
static double estimate(int n, const double *e)
{
	double s = e[0];
	for (int i = 1; i < n; i++)
		s += e[i];
	return s;
}

/* The value of e (m components) to within about an ulp: Shewchuk's
 * Compress (section 2.8, Theorem 23) renormalizes e from the top down and
 * back up, after which its largest component approximates the sum with a
 * relative error below 2 epsilon; only that component is kept.  g: room
 * for m doubles. */
static double approximate(int m, const double *e, double *g)
{
	double q = e[m - 1], s, r;
	int bottom = m - 1;
	for (int i = m - 2; i >= 0; i--) {
		fast_two_sum(q, e[i], &s, &r);
		if (r != 0.0) {
			g[bottom--] = s;
			q = r;
		} else {
			q = s;
		}
	}
	for (int i = bottom + 1; i < m; i++) {
		fast_two_sum(g[i], q, &s, &r);
		q = s;
	}
	return q;
}

/* a*b - c*d exactly (at most four components): a 2 x 2 minor. */
static int minor2(double a, double b, double c, double d, double *h)
{
	double x, y, l[2], r[2];
	two_product(a, b, &x, &y);
	const int ln = pair(y, x, l);
	two_product(c, d, &x, &y);
	const int rn = pair(y, x, r);
	negate(rn, r);
	return expansion_sum(ln, l, rn, r, h);
}

/* ---- orient2d (section 4.3) ---- */

/* det[a-c; b-c] exactly into det (at most 16 components), the differences
 * as two-term expansions. */
static int orient2d_expansion(const double a[2], const double b[2], const double c[2],
                              double det[16])
{
	double acx[2], acy[2], bcx[2], bcy[2], l[8], r[8];
	const int nacx = difference(a[0], c[0], acx), nacy = difference(a[1], c[1], acy);
	const int nbcx = difference(b[0], c[0], bcx), nbcy = difference(b[1], c[1], bcy);
	const int nl = expansion_product(nacx, acx, nbcy, bcy, l);
	const int nr = expansion_product(nacy, acy, nbcx, bcx, r);
	negate(nr, r);
	return expansion_sum(nl, l, nr, r, det);
}

/* Stage D: the largest component of the exact nonoverlapping expansion has
 * its sign. */
static double orient2d_exact(const double a[2], const double b[2], const double c[2])
{
	double det[16];
	const int n = orient2d_expansion(a, b, c, det);
	return det[n - 1];
}

double pred_orient2d_value(const double a[2], const double b[2], const double c[2])
{
	double det[16], g[16];
	const int n = orient2d_expansion(a, b, c, det);
	return approximate(n, det, g);
}

/* Stages B and C, then D; detsum is the permanent of stage A. */
static double orient2d_adapt(const double a[2], const double b[2], const double c[2], double detsum)
{
	const double acx = a[0] - c[0], bcx = b[0] - c[0];
	const double acy = a[1] - c[1], bcy = b[1] - c[1];
	double bdet[4];
	const int n = minor2(acx, bcy, acy, bcx, bdet);
	double det = estimate(n, bdet);
	if (fabs(det) >= CCW_ERRBOUND_B * detsum)
		return det;

	const double acxt = two_diff_tail(a[0], c[0], acx), bcxt = two_diff_tail(b[0], c[0], bcx);
	const double acyt = two_diff_tail(a[1], c[1], acy), bcyt = two_diff_tail(b[1], c[1], bcy);
	if (acxt == 0.0 && acyt == 0.0 && bcxt == 0.0 && bcyt == 0.0)
		return det; /* the differences were exact: B is the determinant */

	const double errbound = CCW_ERRBOUND_C * detsum + RESULT_ERRBOUND * fabs(det);
	det += (acx * bcyt + bcy * acxt) - (acy * bcxt + bcx * acyt);
	if (fabs(det) >= errbound)
		return det;
	return orient2d_exact(a, b, c);
}

double pred_orient2d(const double a[2], const double b[2], const double c[2])
{
	const double detleft = (a[0] - c[0]) * (b[1] - c[1]);
	const double detright = (a[1] - c[1]) * (b[0] - c[0]);
	const double det = detleft - detright;
	double detsum;
	/* Terms of opposite sign (or a zero term) cannot cancel: the rounded
	 * difference has the exact sign. */
	if (detleft > 0.0) {
		if (detright <= 0.0)
			return det;
		detsum = detleft + detright;
	} else if (detleft < 0.0) {
		if (detright >= 0.0)
			return det;
		detsum = -detleft - detright;
	} else {
		return det;
	}
	if (fabs(det) >= CCW_ERRBOUND_A * detsum)
		return det;
	return orient2d_adapt(a, b, c, detsum);
}

/* ---- orient3d (section 4.3) ---- */

/* det[a-d; b-d; c-d] exactly into det, expanded along the z column as
 * sum over (i, j, k) cyclic of z_i (x_j y_k - x_k y_j), every difference
 * a two-term expansion: at most 3 * 64 components. */
static int orient3d_expansion(const double a[3], const double b[3], const double c[3],
                              const double d[3], double det[192])
{
	const double *p[3] = {a, b, c};
	double x[3][2], y[3][2], z[3][2], acc[192];
	int nx[3], ny[3], nz[3], n = 0;
	for (int i = 0; i < 3; i++) {
		nx[i] = difference(p[i][0], d[0], x[i]);
		ny[i] = difference(p[i][1], d[1], y[i]);
		nz[i] = difference(p[i][2], d[2], z[i]);
	}
	for (int i = 0; i < 3; i++) {
		const int j = (i + 1) % 3, k = (i + 2) % 3;
		double l[8], r[8], m[16], term[64];
		const int nl = expansion_product(nx[j], x[j], ny[k], y[k], l);
		const int nr = expansion_product(nx[k], x[k], ny[j], y[j], r);
		negate(nr, r);
		const int nm = expansion_sum(nl, l, nr, r, m);
		const int nt = expansion_product(nm, m, nz[i], z[i], term);
		if (i == 0) {
			memcpy(det, term, (size_t)nt * sizeof *det);
			n = nt;
		} else {
			n = expansion_sum(n, det, nt, term, acc);
			memcpy(det, acc, (size_t)n * sizeof *det);
		}
	}
	return n;
}

/* Stage D: the largest component has the sign. */
static double orient3d_exact(const double a[3], const double b[3], const double c[3],
                             const double d[3])
{
	double det[192];
	const int n = orient3d_expansion(a, b, c, d, det);
	return det[n - 1];
}

double pred_orient3d_value(const double a[3], const double b[3], const double c[3],
                           const double d[3])
{
	double det[192], g[192];
	const int n = orient3d_expansion(a, b, c, d, det);
	return approximate(n, det, g);
}

/* Stages B and C, then D; permanent is stage A's. */
static double orient3d_adapt(const double a[3], const double b[3], const double c[3],
                             const double d[3], double permanent)
{
	const double adx = a[0] - d[0], bdx = b[0] - d[0], cdx = c[0] - d[0];
	const double ady = a[1] - d[1], bdy = b[1] - d[1], cdy = c[1] - d[1];
	const double adz = a[2] - d[2], bdz = b[2] - d[2], cdz = c[2] - d[2];

	/* Stage B: the exact determinant of the rounded differences. */
	double m[4], adet[8], bdet[8], cdet[8], ab[16], fin[24];
	int nm = minor2(bdx, cdy, cdx, bdy, m);
	const int na = scale_expansion(nm, m, adz, adet);
	nm = minor2(cdx, ady, adx, cdy, m);
	const int nb = scale_expansion(nm, m, bdz, bdet);
	nm = minor2(adx, bdy, bdx, ady, m);
	const int nc = scale_expansion(nm, m, cdz, cdet);
	const int nab = expansion_sum(na, adet, nb, bdet, ab);
	const int n = expansion_sum(nab, ab, nc, cdet, fin);
	double det = estimate(n, fin);
	if (fabs(det) >= O3D_ERRBOUND_B * permanent)
		return det;

	const double adxt = two_diff_tail(a[0], d[0], adx), bdxt = two_diff_tail(b[0], d[0], bdx);
	const double cdxt = two_diff_tail(c[0], d[0], cdx), adyt = two_diff_tail(a[1], d[1], ady);
	const double bdyt = two_diff_tail(b[1], d[1], bdy), cdyt = two_diff_tail(c[1], d[1], cdy);
	const double adzt = two_diff_tail(a[2], d[2], adz), bdzt = two_diff_tail(b[2], d[2], bdz);
	const double cdzt = two_diff_tail(c[2], d[2], cdz);
	if (adxt == 0.0 && bdxt == 0.0 && cdxt == 0.0 && adyt == 0.0 && bdyt == 0.0 &&
	    cdyt == 0.0 && adzt == 0.0 && bdzt == 0.0 && cdzt == 0.0)
		return det; /* the differences were exact: B is the determinant */

	/* Stage C: add the terms first-order in the differences' roundoff. */
	const double errbound = O3D_ERRBOUND_C * permanent + RESULT_ERRBOUND * fabs(det);
	det += (adz * ((bdx * cdyt + cdy * bdxt) - (bdy * cdxt + cdx * bdyt)) +
	        adzt * (bdx * cdy - bdy * cdx)) +
	       (bdz * ((cdx * adyt + ady * cdxt) - (cdy * adxt + adx * cdyt)) +
	        bdzt * (cdx * ady - cdy * adx)) +
	       (cdz * ((adx * bdyt + bdy * adxt) - (ady * bdxt + bdx * adyt)) +
	        cdzt * (adx * bdy - ady * bdx));
	if (fabs(det) >= errbound)
		return det;
	return orient3d_exact(a, b, c, d);
}

double pred_orient3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
	const double adx = a[0] - d[0], bdx = b[0] - d[0], cdx = c[0] - d[0];
	const double ady = a[1] - d[1], bdy = b[1] - d[1], cdy = c[1] - d[1];
	const double adz = a[2] - d[2], bdz = b[2] - d[2], cdz = c[2] - d[2];
	const double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy;
	const double cdxady = cdx * ady, adxcdy = adx * cdy;
	const double adxbdy = adx * bdy, bdxady = bdx * ady;

	/* Stage A: plain floating point, trusted beyond the static bound. */
	const double det =
		adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
	const double permanent = (fabs(bdxcdy) + fabs(cdxbdy)) * fabs(adz) +
	                         (fabs(cdxady) + fabs(adxcdy)) * fabs(bdz) +
	                         (fabs(adxbdy) + fabs(bdxady)) * fabs(cdz);
	const double errbound = O3D_ERRBOUND_A * permanent;
	if (det > errbound || -det > errbound)
		return det;
	return orient3d_adapt(a, b, c, d, permanent);
}
