/*
 * tri_overlap.c — triangle-triangle and segment-triangle contact by exact
 * orientation predicates, after P. Guigue and O. Devillers, "Fast and robust
 * triangle-triangle overlap test using orientation predicates", Journal of
 * Graphics Tools 8(1), 2003.
 *
 * Each triangle is first reduced to what it spans: a triangle of nonzero area,
 * a segment or a point (a zero-area triangle is the segment between its two
 * extreme vertices).  Two proper triangles go through Guigue and Devillers'
 * test (section 3): reject when one lies strictly on one side of the other's
 * plane; otherwise order both so that one vertex of each lies alone on its
 * side of the other's plane, and decide with two orientation tests whether the
 * two intervals the triangles cut from the line where the planes meet overlap.
 * Coplanar triangles (section 4) are projected on the coordinate plane where
 * the normal is largest, with the 2-D orientation test: closed triangles there
 * meet exactly when a vertex of one lies in the other or two edges meet.  The
 * lower-dimensional cases reduce to the same predicates.  No loop depends on
 * the input beyond these fixed cases, and nothing is divided but to place the
 * common point (by a nonzero number): no hang, no NaN.
 */
#include <string.h>

#include "predicates.h"
#include "tri_overlap.h"

static int sgn(double x)
{
	return (x > 0) - (x < 0);
}

/* +1 when x is on the side of the plane through a, b, c that (b-a) x (c-a)
 * points to, -1 on the other, 0 on the plane (predicates.h: orient3d is
 * positive below). */
static int side(const double *a, const double *b, const double *c, const double *x)
{
	return -sgn(pred_orient3d(a, b, c, x));
}

/* ---- what a triangle spans ---- */

/* n = 3: a triangle of nonzero area, v in the caller's order; n = 2: the
 * segment v[0] v[1], distinct ends; n = 1: the point v[0]. */
typedef struct simplex {
	const double *v[3];
	int n;
} simplex;

/* (b-a) x (c-a) with exact signs: component k is the 2-D orientation of the
 * projection on the axes k+1, k+2 (cyclic). */
static void normal(const double *a, const double *b, const double *c, double n[3])
{
	for (int k = 0; k < 3; k++) {
		const int i = (k + 1) % 3, j = (k + 2) % 3;
		const double pa[2] = {a[i], a[j]}, pb[2] = {b[i], b[j]}, pc[2] = {c[i], c[j]};
		n[k] = pred_orient2d(pa, pb, pc);
	}
}

/* The axis along which n is largest (dropping it projects the plane one to
 * one when n[k] != 0), or -1 when n is zero. */
static int dominant_axis(const double n[3])
{
	int k = -1;
	double best = 0.0;
	for (int i = 0; i < 3; i++)
		if ((n[i] > 0 ? n[i] : -n[i]) > best) {
			best = n[i] > 0 ? n[i] : -n[i];
			k = i;
		}
	return k;
}

static simplex reduce(const double *p0, const double *p1, const double *p2)
{
	simplex s = {{p0, p1, p2}, 3};
	double n[3];
	normal(p0, p1, p2, n);
	if (dominant_axis(n) >= 0)
		return s;
	/* Collinear: the extremes along an axis on which the points differ are
	 * the extremes along their line. */
	for (int k = 0; k < 3; k++) {
		int lo = 0, hi = 0;
		for (int i = 1; i < 3; i++) {
			if (s.v[i][k] < s.v[lo][k])
				lo = i;
			if (s.v[i][k] > s.v[hi][k])
				hi = i;
		}
		if (s.v[lo][k] < s.v[hi][k]) {
			const double *a = s.v[lo], *b = s.v[hi];
			s.v[0] = a;
			s.v[1] = b;
			s.n = 2;
			return s;
		}
	}
	s.n = 1;
	return s;
}

/* ---- 2-D tests in the projection dropping axis k ---- */

static void project(const double *p, int k, double out[2])
{
	out[0] = p[(k + 1) % 3];
	out[1] = p[(k + 2) % 3];
}

static int o2(const double *a, const double *b, const double *c)
{
	return sgn(pred_orient2d(a, b, c));
}

/* x within the box of a and b on every axis of dim: for points on one line,
 * x lies on the closed segment ab. */
static int in_box(const double *x, const double *a, const double *b, int dim)
{
	for (int k = 0; k < dim; k++) {
		const double lo = a[k] < b[k] ? a[k] : b[k], hi = a[k] < b[k] ? b[k] : a[k];
		if (x[k] < lo || x[k] > hi)
			return 0;
	}
	return 1;
}

/* The closed segments ab and cd of the plane share a point (either may be a
 * single point). */
static int seg_seg_2d(const double *a, const double *b, const double *c, const double *d)
{
	const int s1 = o2(a, b, c), s2 = o2(a, b, d), s3 = o2(c, d, a), s4 = o2(c, d, b);
	if (s1 == 0 && s2 == 0 && s3 == 0 && s4 == 0) /* all on one line */
		return in_box(a, c, d, 2) || in_box(b, c, d, 2) || in_box(c, a, b, 2) ||
		       in_box(d, a, b, 2);
	return s1 * s2 <= 0 && s3 * s4 <= 0;
}

/* x in the closed triangle t (nonzero area, either orientation). */
static int point_in_tri_2d(const double *x, const double t[3][2])
{
	const int s = o2(t[0], t[1], t[2]);
	return s * o2(t[0], t[1], x) >= 0 && s * o2(t[1], t[2], x) >= 0 &&
	       s * o2(t[2], t[0], x) >= 0;
}

/* ---- the cases of two simplices ---- */

static int same_point(const double *a, const double *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static int point_segment(const double *x, const double *a, const double *b)
{
	double n[3];
	normal(a, b, x, n);
	return dominant_axis(n) < 0 && in_box(x, a, b, 3);
}

/* The projection axis of the plane holding the segments ab, cd (a != b,
 * the four coplanar), or -1 when the four are collinear. */
static int plane_axis(const double *a, const double *b, const double *c, const double *d)
{
	double n[3];
	normal(a, b, c, n);
	int k = dominant_axis(n);
	if (k < 0) {
		normal(a, b, d, n);
		k = dominant_axis(n);
	}
	return k;
}

static int segment_segment(const double *a, const double *b, const double *c, const double *d)
{
	if (pred_orient3d(a, b, c, d) != 0.0)
		return 0;
	const int k = plane_axis(a, b, c, d);
	if (k < 0)
		return in_box(a, c, d, 3) || in_box(b, c, d, 3) || in_box(c, a, b, 3) ||
		       in_box(d, a, b, 3);
	double a2[2], b2[2], c2[2], d2[2];
	project(a, k, a2);
	project(b, k, b2);
	project(c, k, c2);
	project(d, k, d2);
	return seg_seg_2d(a2, b2, c2, d2);
}

/* The projection axis of a proper triangle's plane, and the triangle there. */
static int tri_project(const double *const t[3], double t2[3][2])
{
	double n[3];
	normal(t[0], t[1], t[2], n);
	const int k = dominant_axis(n);
	for (int i = 0; i < 3; i++)
		project(t[i], k, t2[i]);
	return k;
}

static int point_triangle(const double *x, const double *const t[3])
{
	if (side(t[0], t[1], t[2], x) != 0)
		return 0;
	double t2[3][2], x2[2];
	project(x, tri_project(t, t2), x2);
	return point_in_tri_2d(x2, t2);
}

/* The segment ab (a != b) lies in the plane of the proper triangle t. */
static int segment_triangle_coplanar(const double *a, const double *b, const double *const t[3])
{
	double t2[3][2], a2[2], b2[2];
	const int k = tri_project(t, t2);
	project(a, k, a2);
	project(b, k, b2);
	if (point_in_tri_2d(a2, t2) || point_in_tri_2d(b2, t2))
		return 1;
	for (int i = 0; i < 3; i++)
		if (seg_seg_2d(a2, b2, t2[i], t2[(i + 1) % 3]))
			return 1;
	return 0;
}

/* The signs of orient3d(a, b, t_i, t_i+1): the line ab passes through the
 * closed triangle t (where it crosses its plane) exactly when none is of
 * the other sign than another. */
static void edge_signs(const double *a, const double *b, const double *const t[3], int e[3])
{
	for (int i = 0; i < 3; i++)
		e[i] = sgn(pred_orient3d(a, b, t[i], t[(i + 1) % 3]));
}

static int segment_triangle(const double *a, const double *b, const double *const t[3])
{
	const int sa = side(t[0], t[1], t[2], a), sb = side(t[0], t[1], t[2], b);
	if (sa * sb > 0)
		return 0;
	if (sa == 0 && sb == 0)
		return segment_triangle_coplanar(a, b, t);
	int e[3];
	edge_signs(a, b, t, e);
	return (e[0] >= 0 && e[1] >= 0 && e[2] >= 0) || (e[0] <= 0 && e[1] <= 0 && e[2] <= 0);
}

/* Coplanar proper triangles (Guigue and Devillers, section 4): projected,
 * they meet when a vertex of one is in the other or two edges meet. */
static int triangles_coplanar(const double *const p[3], const double *const q[3])
{
	double p2[3][2], q2[3][2];
	const int k = tri_project(p, p2);
	for (int i = 0; i < 3; i++)
		project(q[i], k, q2[i]);
	for (int i = 0; i < 3; i++)
		if (point_in_tri_2d(p2[i], q2) || point_in_tri_2d(q2[i], p2))
			return 1;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (seg_seg_2d(p2[i], p2[(i + 1) % 3], q2[j], q2[(j + 1) % 3]))
				return 1;
	return 0;
}

/*
 * The vertex of a triangle alone on its side of the other's plane, from
 * the three sides s: returns its index in *first and the sign f such that
 * f s[first] >= 0 and f s[other] <= 0 for both others, never with two of
 * the three on the plane and the lone one among them (so that each edge
 * from the lone vertex crosses the plane in one point).  s is neither all
 * zero nor all of one strict sign.
 */
static int lone_vertex(const int s[3], int *first)
{
	for (int k = 0; k < 3; k++)
		if (s[k] != 0 && s[(k + 1) % 3] != s[k] && s[(k + 2) % 3] != s[k]) {
			*first = k;
			return s[k];
		}
	/* Left: one vertex on the plane, the other two strictly on one side. */
	for (int k = 0; k < 3; k++)
		if (s[k] == 0) {
			*first = k;
			return -s[(k + 1) % 3];
		}
	*first = 0; /* not reached for valid s */
	return 1;
}

/*
 * Guigue and Devillers, section 3, for two proper triangles.  After the
 * rotations and swaps below, p[0] lies on the nonnegative side of q's plane
 * and p[1], p[2] on the nonpositive one, likewise q[0] against p's plane
 * (sides as in side()).  The planes then meet in a line L that p cuts in
 * [j, i] (i on edge p0p1, j on p0p2) and q in [k, l] (k on q0q1, l on q0q2),
 * ordered along (p's normal) x (q's normal); the triangles meet iff
 * k <= i and j <= l.  orient3d(p0, p1, q0, q1) vanishes exactly when the
 * lines p0p1 and q0q1 meet, i.e. i = k, and is positive when k < i;
 * likewise orient3d(p0, p2, q2, q0) >= 0 iff j <= l.
 */
static int triangles(const double *const p_in[3], const double *const q_in[3])
{
	int sp[3], sq[3];
	for (int i = 0; i < 3; i++)
		sp[i] = side(q_in[0], q_in[1], q_in[2], p_in[i]);
	if (sp[0] == sp[1] && sp[1] == sp[2]) {
		if (sp[0] != 0)
			return 0;
		return triangles_coplanar(p_in, q_in);
	}
	for (int i = 0; i < 3; i++)
		sq[i] = side(p_in[0], p_in[1], p_in[2], q_in[i]);
	if (sq[0] == sq[1] && sq[1] == sq[2]) {
		if (sq[0] != 0)
			return 0;
		return triangles_coplanar(p_in, q_in); /* not reached: exact signs agree */
	}
	int kp, kq;
	const int fp = lone_vertex(sp, &kp), fq = lone_vertex(sq, &kq);
	const double *p[3] = {p_in[kp], p_in[(kp + 1) % 3], p_in[(kp + 2) % 3]};
	const double *q[3] = {q_in[kq], q_in[(kq + 1) % 3], q_in[(kq + 2) % 3]};
	const double *t;
	if (fp < 0) { /* turn q's plane over: p[0] to its nonnegative side */
		t = q[1];
		q[1] = q[2];
		q[2] = t;
	}
	if (fq < 0) {
		t = p[1];
		p[1] = p[2];
		p[2] = t;
	}
	return pred_orient3d(p[0], p[1], q[0], q[1]) >= 0.0 &&
	       pred_orient3d(p[0], p[2], q[2], q[0]) >= 0.0;
}

static int simplices(simplex a, simplex b)
{
	if (a.n < b.n) {
		const simplex t = a;
		a = b;
		b = t;
	}
	switch (a.n * 4 + b.n) {
	case 3 * 4 + 3: return triangles(a.v, b.v);
	case 3 * 4 + 2: return segment_triangle(b.v[0], b.v[1], a.v);
	case 3 * 4 + 1: return point_triangle(b.v[0], a.v);
	case 2 * 4 + 2: return segment_segment(a.v[0], a.v[1], b.v[0], b.v[1]);
	case 2 * 4 + 1: return point_segment(b.v[0], a.v[0], a.v[1]);
	default: return same_point(a.v[0], b.v[0]);
	}
}

int tri_overlap(const double p0[3], const double p1[3], const double p2[3], const double q0[3],
                const double q1[3], const double q2[3])
{
	return simplices(reduce(p0, p1, p2), reduce(q0, q1, q2));
}

int tri_segment_cross(const double s0[3], const double s1[3], const double t0[3],
                      const double t1[3], const double t2[3])
{
	const simplex t = reduce(t0, t1, t2);
	if (t.n < 3 || same_point(s0, s1)) {
		const simplex s = {{s0, s1, s1}, same_point(s0, s1) ? 1 : 2};
		return simplices(s, t) ? -1 : 0;
	}
	const int sa = side(t0, t1, t2, s0), sb = side(t0, t1, t2, s1);
	if (sa * sb > 0)
		return 0;
	if (sa == 0 || sb == 0) /* an endpoint on the plane, or the segment in it */
		return segment_triangle(s0, s1, t.v) ? -1 : 0;
	int e[3];
	edge_signs(s0, s1, t.v, e);
	if ((e[0] > 0 && e[1] > 0 && e[2] > 0) || (e[0] < 0 && e[1] < 0 && e[2] < 0))
		return 1;
	if ((e[0] > 0 || e[1] > 0 || e[2] > 0) && (e[0] < 0 || e[1] < 0 || e[2] < 0))
		return 0;
	return -1; /* through an edge or a vertex */
}

/* ---- a common point ---- */

/* The side of x against a plane (the proper triangle t) or, projected by
 * dropping axis k, against the line through c and d. */
typedef struct cut {
	const double *const *t;
	int k;
	double c[2], d[2];
} cut;

static int cut_side(const cut *h, const double *x)
{
	if (h->t)
		return side(h->t[0], h->t[1], h->t[2], x);
	double x2[2];
	project(x, h->k, x2);
	return o2(h->c, h->d, x2);
}

static void lerp(const double *a, const double *b, double t, double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = a[k] + t * (b[k] - a[k]);
}

/*
 * Where the segment ab crosses the cut, a and b strictly on opposite
 * sides: a + (da / (da - db)) (b - a), with da, db the determinants to a
 * few ulps (pred_orient3d_value).  The sign-exact values would not do:
 * near zero their magnitude may be far off, and where ab is nearly
 * parallel to the cut that moves the point along ab, off the other
 * triangle.  t is in [0, 1] and da - db is not 0: no NaN.
 */
static void crossing(const double *a, const double *b, const cut *h, double out[3])
{
	double da, db;
	if (h->t) {
		da = pred_orient3d_value(h->t[0], h->t[1], h->t[2], a);
		db = pred_orient3d_value(h->t[0], h->t[1], h->t[2], b);
	} else {
		double a2[2], b2[2];
		project(a, h->k, a2);
		project(b, h->k, b2);
		da = pred_orient2d_value(h->c, h->d, a2);
		db = pred_orient2d_value(h->c, h->d, b2);
	}
	lerp(a, b, da / (da - db), out);
}

/* A point common to the segments ab and cd (a != b, c != d), which are
 * known to meet, in the plane projected one to one by dropping axis k
 * (k < 0: the four are collinear). */
static void segment_segment_point(const double *a, const double *b, const double *c,
                                  const double *d, int k, double out[3])
{
	if (k >= 0) {
		cut h = {NULL, k, {0, 0}, {0, 0}};
		project(c, k, h.c);
		project(d, k, h.d);
		const int sa = cut_side(&h, a), sb = cut_side(&h, b);
		if (sa != 0 || sb != 0) {
			/* ab is not on the line cd: it meets it at one point. */
			if (sa == 0 || sb == 0)
				memcpy(out, sa == 0 ? a : b, 3 * sizeof *out);
			else
				crossing(a, b, &h, out);
			return;
		}
	}
	/* On one line: an end of one segment lies on the other. */
	const double *cand[4] = {a, b, c, d};
	for (int i = 0; i < 4; i++)
		if (in_box(cand[i], i < 2 ? c : a, i < 2 ? d : b, 3)) {
			memcpy(out, cand[i], 3 * sizeof *out);
			return;
		}
	memcpy(out, a, 3 * sizeof *out); /* not reached when they meet */
}

/* A point common to the segment ab (a != b) and the proper triangle t,
 * which are known to meet. */
static void segment_triangle_point(const double *a, const double *b, const double *const t[3],
                                   double out[3])
{
	const cut h = {t, -1, {0, 0}, {0, 0}};
	const int sa = cut_side(&h, a), sb = cut_side(&h, b);
	if (sa != 0 || sb != 0) {
		if (sa == 0 || sb == 0)
			memcpy(out, sa == 0 ? a : b, 3 * sizeof *out);
		else
			crossing(a, b, &h, out);
		return;
	}
	double t2[3][2], a2[2], b2[2];
	const int k = tri_project(t, t2);
	project(a, k, a2);
	project(b, k, b2);
	if (point_in_tri_2d(a2, t2) || point_in_tri_2d(b2, t2)) {
		memcpy(out, point_in_tri_2d(a2, t2) ? a : b, 3 * sizeof *out);
		return;
	}
	for (int i = 0; i < 3; i++)
		if (seg_seg_2d(a2, b2, t2[i], t2[(i + 1) % 3])) {
			segment_segment_point(a, b, t[i], t[(i + 1) % 3], k, out);
			return;
		}
	memcpy(out, a, 3 * sizeof *out); /* not reached when they meet */
}

/* When the point or segment e meets the simplex s, a common point in out. */
static int edge_point(simplex e, simplex s, double out[3])
{
	if (!simplices(e, s))
		return 0;
	if (e.n == 1 || s.n == 1) {
		memcpy(out, e.n == 1 ? e.v[0] : s.v[0], 3 * sizeof *out);
	} else if (s.n == 3) {
		segment_triangle_point(e.v[0], e.v[1], s.v, out);
	} else {
		segment_segment_point(e.v[0], e.v[1], s.v[0], s.v[1],
		                      plane_axis(e.v[0], e.v[1], s.v[0], s.v[1]), out);
	}
	return 1;
}

/* Where two closed triangles meet, an edge (or the point or segment a
 * degenerate one spans) of one meets the other: the set they share is
 * convex, and each of its extreme points lies on the boundary of one of
 * them. */
int tri_overlap_point(const double p0[3], const double p1[3], const double p2[3],
                      const double q0[3], const double q1[3], const double q2[3], double out[3])
{
	const simplex p = reduce(p0, p1, p2), q = reduce(q0, q1, q2);
	if (!simplices(p, q))
		return 0;
	for (int side_ = 0; side_ < 2; side_++) {
		const simplex a = side_ ? q : p, b = side_ ? p : q;
		if (a.n < 3) {
			if (edge_point(a, b, out))
				return 1;
			continue;
		}
		for (int i = 0; i < 3; i++) {
			const simplex e = {{a.v[i], a.v[(i + 1) % 3], a.v[i]}, 2};
			if (edge_point(e, b, out))
				return 1;
		}
	}
	memcpy(out, p.v[0], 3 * sizeof *out); /* not reached */
	return 1;
}
