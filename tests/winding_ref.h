/*
 * winding_ref.h — the generalized winding number by brute force, for
 * tests only: every triangle's solid angle (Van Oosterom and Strackee
 * 1983, "The solid angle of a plane triangle") summed over 4 pi, no tree
 * and no approximation.  The independent reference of the mesh and
 * winding_number suites and of the fuzz_core target.
 */
#ifndef TESTS_WINDING_REF_H
#define TESTS_WINDING_REF_H

#include <math.h>
#include <stddef.h>

/* Triangle i of w (9 doubles each) seen from p: tan(omega / 2) = det /
 * den; *scale = la lb lc, the product of the corners' distances. */
static inline void winding_ref_terms(const double *w, size_t i, const double *p, double *det,
                                     double *den, double *scale)
{
	double a[3], b[3], c[3];
	for (int k = 0; k < 3; k++) {
		a[k] = w[9 * i + k] - p[k];
		b[k] = w[9 * i + 3 + k] - p[k];
		c[k] = w[9 * i + 6 + k] - p[k];
	}
	double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	double lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	*det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
	       a[2] * (b[0] * c[1] - b[1] * c[0]);
	double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	double ac = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
	double bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
	*den = la * lb * lc + ab * lc + ac * lb + bc * la;
	*scale = la * lb * lc;
}

/* Winding number of triangles w (9 doubles each) around p. */
static inline double winding_ref(const double *w, size_t n, const double *p)
{
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		double det, den, scale;
		winding_ref_terms(w, i, p, &det, &den, &scale);
		sum += 2.0 * atan2(det, den);
	}
	return sum / (4 * M_PI);
}

/* Is p on one of triangles w, within rounding: in a triangle's plane
 * (|det| <= 1e-9 la lb lc) where it subtends about a hemisphere (den
 * about 0 or below)?  There the winding number jumps by 1, and neither
 * side's value is the answer. */
static inline int winding_ref_on_surface(const double *w, size_t n, const double *p)
{
	for (size_t i = 0; i < n; i++) {
		double det, den, scale;
		winding_ref_terms(w, i, p, &det, &den, &scale);
		if (fabs(det) <= 1e-9 * scale && den <= 1e-9 * scale)
			return 1;
	}
	return 0;
}

#endif
