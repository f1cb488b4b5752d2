/*
 * vec.h — the tiny vector module of the core: dense vectors of run-time
 * dimension (1..CLASH_MAX_DIM) stored as plain double arrays.
 *
 * Everything is static inline so the compiler can unroll for the small fixed
 * trip counts the callers have; 3-D, by far the most common dimension, is
 * written out (one predictable branch instead of a loop of three trips).
 * No function here allocates or fails.
 */
#ifndef CLASH_VEC_H
#define CLASH_VEC_H

#include <math.h>

#include "clash.h"

static inline double vec_dot(const double *a, const double *b, int n)
{
	if (n == 3)
		return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

static inline void vec_copy(double *dst, const double *src, int n)
{
	if (n == 3) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst[2] = src[2];
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] = src[i];
}

static inline void vec_zero(double *dst, int n)
{
	if (n == 3) {
		dst[0] = dst[1] = dst[2] = 0.0;
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] = 0.0;
}

/* dst = a - b */
static inline void vec_sub(double *dst, const double *a, const double *b, int n)
{
	if (n == 3) {
		dst[0] = a[0] - b[0];
		dst[1] = a[1] - b[1];
		dst[2] = a[2] - b[2];
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] = a[i] - b[i];
}

/* dst += s * a */
static inline void vec_axpy(double *dst, double s, const double *a, int n)
{
	if (n == 3) {
		dst[0] += s * a[0];
		dst[1] += s * a[1];
		dst[2] += s * a[2];
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] += s * a[i];
}

static inline void vec_scale(double *dst, double s, int n)
{
	if (n == 3) {
		dst[0] *= s;
		dst[1] *= s;
		dst[2] *= s;
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] *= s;
}

/* Euclidean norm without overflow or underflow for any finite input:
 * the sum of squares is taken after scaling by the largest magnitude. */
static inline double vec_norm(const double *a, int n)
{
	if (n == 3) {
		/* In the wide middle range the plain sum of squares neither
		 * overflows nor loses digits to underflow. */
		double s = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
		if (s >= 0x1p-900 && s <= 0x1p900)
			return sqrt(s);
	}
	double m = 0.0;
	for (int i = 0; i < n; i++)
		if (fabs(a[i]) > m)
			m = fabs(a[i]);
	if (m == 0.0 || !isfinite(m))
		return m;
	double s = 0.0;
	for (int i = 0; i < n; i++) {
		double q = a[i] / m;
		s += q * q;
	}
	return m * sqrt(s);
}

static inline int vec_isfinite(const double *a, int n)
{
	if (n == 3) /* finite iff a - a is 0 (NaN for NaN and infinities) */
		return (a[0] - a[0]) + (a[1] - a[1]) + (a[2] - a[2]) == 0.0;
	for (int i = 0; i < n; i++)
		if (!isfinite(a[i]))
			return 0;
	return 1;
}

/* Fixed 3-D forms, for code that is 3-D only (simplex3.c, mpr.c): no
 * dimension to branch on. */
static inline double vec3_dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void vec3_sub(double *d, const double *a, const double *b)
{
	d[0] = a[0] - b[0];
	d[1] = a[1] - b[1];
	d[2] = a[2] - b[2];
}

static inline void vec3_cross(double *c, const double *a, const double *b)
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

#endif /* CLASH_VEC_H */
