/*
 * predicates.h — sign-exact orientation tests of points given as doubles
 * (internal to the core; see predicates.c).
 *
 * After J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and
 * Fast Robust Geometric Predicates" (1997): the determinant is first
 * evaluated in plain floating point and trusted when a static error bound
 * says its sign is certain; only near-degenerate inputs pay for exact
 * arithmetic.  The mesh code (triangle-triangle overlap, ray crossings) decides
 * with these signs, so its answers are the exact answers for the double
 * coordinates it is given.
 *
 * Inputs must be finite, and no product of coordinate differences may
 * underflow or overflow (Shewchuk, section 2): coordinates that are 0 or
 * within about 1e-50 .. 1e50 in magnitude are safe.  Both functions are pure
 * (no state, no initialization) and so reentrant.
 */
#ifndef CLASH_PREDICATES_H
#define CLASH_PREDICATES_H

/*
 * det[a-d; b-d; c-d] (rows), with the correct sign: > 0 when d lies below
 * the plane through a, b, c, "below" meaning the side from which a, b, c do
 * not appear counter-clockwise (d is opposite to (b-a) x (c-a)); < 0 above;
 * exactly 0 when the four points are coplanar.  The magnitude approximates
 * six times the signed volume of the tetrahedron (Shewchuk's convention).
 */
double pred_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);

/*
 * det[a-c; b-c] (rows), with the correct sign: > 0 when a, b, c turn
 * counter-clockwise, < 0 clockwise, exactly 0 when collinear.  The
 * magnitude approximates twice the signed area of the triangle.
 */
double pred_orient2d(const double a[2], const double b[2], const double c[2]);

/*
 * The same determinants to within a few ulps, always by exact arithmetic
 * (slower): for constructions whose accuracy depends on the magnitude, such
 * as where a segment crosses a plane, t = da / (da - db).  The functions
 * above are exact in sign only: near zero their magnitude may be off by
 * nearly 100%.
 */
double pred_orient3d_value(const double a[3], const double b[3], const double c[3],
                           const double d[3]);
double pred_orient2d_value(const double a[2], const double b[2], const double c[2]);

#endif
