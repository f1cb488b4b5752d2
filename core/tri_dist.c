/*
 * tri_dist.c — closest points of two triangles in closed form.
 *
 * As Larsen, Gottschalk, Lin and Manocha 1999, "Fast proximity queries
 * with swept sphere volumes", section 5 (the triangle distance of PQP)
 * argues: when two triangles are apart, their closest pair is realized
 * either by a pair of edges (9 segment-segment problems) or by a vertex and
 * the other triangle's face (6 vertex-triangle problems); when they cross,
 * an edge of one pierces the other.  This takes the least of the 15 closed
 * forms, and tests the piercing only when each triangle straddles the
 * other's plane (else they cannot cross).  Segments are closest-pointed by
 * clamping the line parameters (the derivation in Ericson 2005, "Real-Time
 * Collision Detection", section 5.1.9); a point and a triangle by the
 * point's Voronoi region of the triangle (section 5.1.5).  Degenerate
 * triangles fall to their edges and vertices.
 */
#include <math.h>

#include "tri_dist.h"
#include "vec.h"

static inline void lerp3(double *r, const double *a, const double *d, double t)
{
	r[0] = a[0] + t * d[0];
	r[1] = a[1] + t * d[1];
	r[2] = a[2] + t * d[2];
}

static inline double clamp01(double x)
{
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* Closest points of segments p + s d1 and q + t d2, s, t in [0, 1]. */
static double seg_seg(const double *p, const double *p1, const double *q, const double *q1,
                      double *cp, double *cq)
{
	double d1[3], d2[3], r[3];
	vec3_sub(d1, p1, p);
	vec3_sub(d2, q1, q);
	vec3_sub(r, p, q);
	const double a = vec3_dot(d1, d1), e = vec3_dot(d2, d2), f = vec3_dot(d2, r);
	double s, t;
	if (a <= 0.0 && e <= 0.0) {
		s = t = 0.0;
	} else if (a <= 0.0) {
		s = 0.0;
		t = clamp01(f / e);
	} else {
		const double c = vec3_dot(d1, r);
		if (e <= 0.0) {
			t = 0.0;
			s = clamp01(-c / a);
		} else {
			const double b = vec3_dot(d1, d2), den = a * e - b * b;
			s = den > 0.0 ? clamp01((b * f - c * e) / den) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0) {
				t = 0.0;
				s = clamp01(-c / a);
			} else if (t > 1.0) {
				t = 1.0;
				s = clamp01((b - c) / a);
			}
		}
	}
	lerp3(cp, p, d1, s);
	lerp3(cq, q, d2, t);
	double d[3];
	vec3_sub(d, cp, cq);
	return vec3_dot(d, d);
}

double tri_point_dist2(const double *p, const double *t, double *q)
{
	const double *a = t, *b = t + 3, *c = t + 6;
	double ab[3], ac[3], ap[3], d[3];
	vec3_sub(ab, b, a);
	vec3_sub(ac, c, a);
	vec3_sub(ap, p, a);
	const double d1 = vec3_dot(ab, ap), d2 = vec3_dot(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0) {
		q[0] = a[0], q[1] = a[1], q[2] = a[2];
		goto done;
	}
	double bp[3];
	vec3_sub(bp, p, b);
	const double d3 = vec3_dot(ab, bp), d4 = vec3_dot(ac, bp);
	if (d3 >= 0.0 && d4 <= d3) {
		q[0] = b[0], q[1] = b[1], q[2] = b[2];
		goto done;
	}
	const double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
		lerp3(q, a, ab, d1 / (d1 - d3));
		goto done;
	}
	double cp[3];
	vec3_sub(cp, p, c);
	const double d5 = vec3_dot(ab, cp), d6 = vec3_dot(ac, cp);
	if (d6 >= 0.0 && d5 <= d6) {
		q[0] = c[0], q[1] = c[1], q[2] = c[2];
		goto done;
	}
	const double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
		lerp3(q, a, ac, d2 / (d2 - d6));
		goto done;
	}
	const double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
		double bc[3];
		vec3_sub(bc, c, b);
		lerp3(q, b, bc, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
		goto done;
	}
	const double den = va + vb + vc;
	if (den > 0.0 && va >= 0.0 && vb >= 0.0 && vc >= 0.0) {
		const double v = vb / den, w = vc / den;
		for (int k = 0; k < 3; k++)
			q[k] = a[k] + ab[k] * v + ac[k] * w;
		goto done;
	}
	/* Degenerate (or rounding left no region): the nearest edge. */
	{
		double best = INFINITY, x[3], y[3];
		const double *e[3][2] = {{a, b}, {b, c}, {c, a}};
		for (int i = 0; i < 3; i++) {
			double d2e = seg_seg(p, p, e[i][0], e[i][1], x, y);
			if (d2e < best) {
				best = d2e;
				q[0] = y[0], q[1] = y[1], q[2] = y[2];
			}
		}
	}
done:
	vec3_sub(d, p, q);
	return vec3_dot(d, d);
}

/* Where segment p0 p1 crosses triangle t (whose plane has normal n and
 * offset c = n.t0), if it does: 1 and the point.  The signs sd0, sd1 are
 * the ends' n.p - c, of opposite signs (or zero). */
static int pierce(const double *p0, const double *p1, double sd0, double sd1, const double *t,
                  const double *n, double *x)
{
	if (sd0 == sd1)
		return 0;
	const double u = sd0 / (sd0 - sd1);
	double d[3];
	vec3_sub(d, p1, p0);
	lerp3(x, p0, d, u);
	/* Inside: on the inner side of each edge, within the plane. */
	for (int i = 0; i < 3; i++) {
		const double *a = t + 3 * i, *b = t + 3 * ((i + 1) % 3);
		double e[3], ax[3], c[3];
		vec3_sub(e, b, a);
		vec3_sub(ax, x, a);
		vec3_cross(c, e, ax);
		if (vec3_dot(c, n) < 0.0)
			return 0;
	}
	return 1;
}

/* Do some edges of s pierce t?  ds: s's corners' signed plane offsets
 * from t's plane (normal nt). */
static int edges_pierce(const double *s, const double *ds, const double *t, const double *nt,
                        double *x)
{
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3;
		if ((ds[i] <= 0.0 && ds[j] >= 0.0) || (ds[i] >= 0.0 && ds[j] <= 0.0))
			if (pierce(s + 3 * i, s + 3 * j, ds[i], ds[j], t, nt, x))
				return 1;
	}
	return 0;
}

/* Signed offsets of t's corners from s's plane (normal n). */
static int straddles(const double *s, const double *t, double *n, double *dt)
{
	double e1[3], e2[3];
	vec3_sub(e1, s + 3, s);
	vec3_sub(e2, s + 6, s);
	vec3_cross(n, e1, e2);
	if (!(vec3_dot(n, n) > 0.0))
		return 0; /* degenerate: its edges answer */
	const double c = vec3_dot(n, s);
	int pos = 0, neg = 0;
	for (int i = 0; i < 3; i++) {
		dt[i] = vec3_dot(n, t + 3 * i) - c;
		pos |= dt[i] >= 0.0;
		neg |= dt[i] <= 0.0;
	}
	return pos && neg;
}

/* The squared gap between t and the plane of s when t lies wholly on one
 * side of it, else 0: a lower bound on their squared distance (the plane's
 * normal as a separating axis). */
static double plane_gap2(const double *s, const double *t)
{
	double e1[3], e2[3], n[3];
	vec3_sub(e1, s + 3, s);
	vec3_sub(e2, s + 6, s);
	vec3_cross(n, e1, e2);
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < 3; i++) {
		double r[3];
		vec3_sub(r, t + 3 * i, s); /* differences first: no cancellation far out */
		const double d = vec3_dot(n, r);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	const double g = lo > 0.0 ? lo : hi < 0.0 ? -hi : 0.0;
	const double nn = vec3_dot(n, n);
	return g > 0.0 && nn > 0.0 ? g * g / nn : 0.0;
}

/* The squared gap between s and t along the line through their
 * centroids (a separating axis when they are apart along it), else 0. */
static double centre_gap2(const double *s, const double *t)
{
	double n[3];
	for (int k = 0; k < 3; k++)
		n[k] = (t[k] + t[3 + k] + t[6 + k]) - (s[k] + s[3 + k] + s[6 + k]);
	double smax = -INFINITY, tmin = INFINITY;
	for (int i = 0; i < 3; i++) {
		double rs[3], rt[3];
		vec3_sub(rs, s + 3 * i, s);
		vec3_sub(rt, t + 3 * i, s);
		const double a = vec3_dot(n, rs), b = vec3_dot(n, rt);
		smax = a > smax ? a : smax;
		tmin = b < tmin ? b : tmin;
	}
	const double g = tmin - smax, nn = vec3_dot(n, n);
	return g > 0.0 && nn > 0.0 ? g * g / nn : 0.0;
}

double tri_plane_gap2(const double *s, const double *t)
{
	const double a = plane_gap2(s, t), b = plane_gap2(t, s), c = centre_gap2(s, t);
	const double ab = a > b ? a : b;
	return ab > c ? ab : c;
}

double tri_dist2(const double *s, const double *t, double *ps, double *pt)
{
	double best = INFINITY, x[3], y[3];
	/* Crossing: each must straddle the other's plane; a degenerate one
	 * (a segment or a point, no plane) crosses when it pierces the other
	 * (its edges and corners below miss a segment through the inside). */
	double ns[3], nt[3], dts[3], dst[3];
	const int sx = straddles(s, t, ns, dts), tx = straddles(t, s, nt, dst);
	const int sflat = !(vec3_dot(ns, ns) > 0.0), tflat = !(vec3_dot(nt, nt) > 0.0);
	if ((sx && tx && (edges_pierce(t, dts, s, ns, x) || edges_pierce(s, dst, t, nt, x))) ||
	    (sflat && tx && edges_pierce(s, dst, t, nt, x)) ||
	    (tflat && sx && edges_pierce(t, dts, s, ns, x))) {
		for (int k = 0; k < 3; k++)
			ps[k] = pt[k] = x[k];
		return 0.0;
	}
	for (int i = 0; i < 3; i++) {
		const double *a0 = s + 3 * i, *a1 = s + 3 * ((i + 1) % 3);
		for (int j = 0; j < 3; j++) {
			const double *b0 = t + 3 * j, *b1 = t + 3 * ((j + 1) % 3);
			double d2 = seg_seg(a0, a1, b0, b1, x, y);
			if (d2 < best) {
				best = d2;
				for (int k = 0; k < 3; k++) {
					ps[k] = x[k];
					pt[k] = y[k];
				}
			}
		}
	}
	for (int i = 0; i < 3; i++) {
		double d2 = tri_point_dist2(s + 3 * i, t, y);
		if (d2 < best) {
			best = d2;
			for (int k = 0; k < 3; k++) {
				ps[k] = s[3 * i + k];
				pt[k] = y[k];
			}
		}
		d2 = tri_point_dist2(t + 3 * i, s, x);
		if (d2 < best) {
			best = d2;
			for (int k = 0; k < 3; k++) {
				ps[k] = x[k];
				pt[k] = t[3 * i + k];
			}
		}
	}
	return best;
}
