/*
 * gauss.h — the inverse of a small square matrix by Gauss-Jordan
 * elimination with partial pivoting, for the core's two users: a motion's
 * linear map (motion.c, column-major) and the revised simplex's basis
 * (rsimplex.c, row-major).  One routine for both layouts: entry (r, c) of
 * an n x n matrix is at r * rs + c * cs.  Static inline, so each caller's
 * strides fold into its loops.
 */
#ifndef CLASH_GAUSS_H
#define CLASH_GAUSS_H

#include <math.h>
#include <string.h>

/* inv = a^-1, a overwritten (reduced to the identity); both use strides rs
 * and cs.  Returns -1, inv unfinished, when a pivot is not larger than
 * 1e-14 of a's largest entry: a is singular to working precision. */
static inline int gauss_invert(double *a, double *inv, int n, int rs, int cs)
{
#define GJ(x, r, c) (x)[(r)*rs + (c)*cs]
	double big = 0.0;
	for (int r = 0; r < n; r++)
		for (int c = 0; c < n; c++) {
			big = fmax(big, fabs(GJ(a, r, c)));
			GJ(inv, r, c) = r == c ? 1.0 : 0.0;
		}
	for (int k = 0; k < n; k++) {
		int p = k;
		for (int r = k + 1; r < n; r++)
			if (fabs(GJ(a, r, k)) > fabs(GJ(a, p, k)))
				p = r;
		const double piv = GJ(a, p, k);
		if (!(fabs(piv) > 1e-14 * big))
			return -1;
		if (p != k)
			for (int c = 0; c < n; c++) {
				double t = GJ(a, k, c);
				GJ(a, k, c) = GJ(a, p, c);
				GJ(a, p, c) = t;
				t = GJ(inv, k, c);
				GJ(inv, k, c) = GJ(inv, p, c);
				GJ(inv, p, c) = t;
			}
		for (int c = 0; c < n; c++) {
			GJ(a, k, c) /= piv;
			GJ(inv, k, c) /= piv;
		}
		for (int r = 0; r < n; r++) {
			if (r == k)
				continue;
			const double f = GJ(a, r, k);
			if (f == 0.0)
				continue;
			for (int c = 0; c < n; c++) {
				GJ(a, r, c) -= f * GJ(a, k, c);
				GJ(inv, r, c) -= f * GJ(inv, k, c);
			}
		}
	}
#undef GJ
	return 0;
}

#endif /* CLASH_GAUSS_H */
