/*
 * mpr.c — the intersection verdict by Minkowski portal refinement (see
 * mpr.h for what it certifies and why gjk.c asks it first).
 *
 * The steps are Snethen's (XenoCollide, Game Programming Gems 7), as
 * libccd's mpr.c arranges them: portal discovery (a triangle of support
 * points whose cone from the interior point c holds the ray from c through
 * the origin) and portal refinement (replace a portal point by the support
 * point along the portal's outward normal until the portal holds the
 * origin on its inner side, or a support plane leaves it outside).  The
 * orientation tests that steer the search are plain floating point: a
 * wrong turn costs support points, never a wrong answer, because no answer
 * is taken from them.  Answers come only from tests whose rounding is
 * bounded (see mpr.h): a support plane beyond `reach`, a tetrahedron whose
 * barycentric signs are certain, a triangle within `reach` of the origin.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "mpr.h"
#include "vec.h"

/* A determinant whose square is below (DET_ULPS eps)^2 times the product
 * of its three rows' squared lengths has no certain sign: a.(b x c) in
 * floating point errs by at most about 9 ulps of |a||b||c|. */
#define DET_ULPS 64.0

/* (b - a) x (c - a): the normal of triangle a b c. */
static inline void normal3(double *n, const double *a, const double *b, const double *c)
{
	double ab[3], ac[3];
	vec3_sub(ab, b, a);
	vec3_sub(ac, c, a);
	vec3_cross(n, ab, ac);
}

/* det(a, b, c) = a.(b x c) and whether its sign is certain. */
static inline double det3(const double *a, const double *b, const double *c, int *sure)
{
	double bc[3];
	vec3_cross(bc, b, c);
	const double d = vec3_dot(a, bc);
	const double m = DET_ULPS * DBL_EPSILON;
	*sure = d * d > m * m * vec3_dot(a, a) * vec3_dot(b, b) * vec3_dot(c, c);
	return d;
}

/* Where the origin is with respect to the tetrahedron p[0..3]: its
 * barycentric coordinates are (-1)^i det(the other three) over their sum
 * (for four vectors of R^3, sum_i (-1)^i det_i p_i = 0).  Returns 1 when
 * all four have one strict, certain sign (inside), 0 when a certain one
 * has the other sign (outside) or the volume's sign is unsure, else -1
 * with *unsure the faces (bit i: the face without p[i]) on whose planes
 * rounding may have put it. */
static int tetra_side(const double *const *p, unsigned *unsure)
{
	double d[4];
	int sure[4];
	d[0] = det3(p[1], p[2], p[3], &sure[0]);
	d[1] = -det3(p[0], p[2], p[3], &sure[1]);
	d[2] = det3(p[0], p[1], p[3], &sure[2]);
	d[3] = -det3(p[0], p[1], p[2], &sure[3]);
	int pos = 0, neg = 0;
	*unsure = 0;
	for (int i = 0; i < 4; i++) {
		if (!sure[i])
			*unsure |= 1u << i;
		else if (d[i] > 0.0)
			pos++;
		else
			neg++;
	}
	if (pos == 4 || neg == 4)
		return 1;
	if ((pos && neg) || (!pos && !neg))
		return 0;
	return -1;
}

/* |a + t d|^2: the squared length of a point on the line a + t d. */
static inline double along2(const double *a, double t, const double *d)
{
	const double p[3] = {a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]};
	return vec3_dot(p, p);
}

/* The squared distance from the origin to triangle a b c (Ericson, Real-
 * Time Collision Detection 5.1.5, with p the origin); the face's interior
 * by the plane's distance, (n.a)^2 / |n|^2, which keeps a small distance
 * accurate where the barycentric point would lose it to cancellation. */
static double triangle_distance2(const double *a, const double *b, const double *c)
{
	double ab[3], ac[3];
	vec3_sub(ab, b, a);
	vec3_sub(ac, c, a);
	const double d1 = -vec3_dot(ab, a), d2 = -vec3_dot(ac, a);
	if (d1 <= 0.0 && d2 <= 0.0)
		return vec3_dot(a, a);
	const double d3 = -vec3_dot(ab, b), d4 = -vec3_dot(ac, b);
	if (d3 >= 0.0 && d4 <= d3)
		return vec3_dot(b, b);
	const double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
		return along2(a, d1 / (d1 - d3), ab);
	}
	const double d5 = -vec3_dot(ab, c), d6 = -vec3_dot(ac, c);
	if (d6 >= 0.0 && d5 <= d6)
		return vec3_dot(c, c);
	const double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
		return along2(a, d2 / (d2 - d6), ac);
	}
	const double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
		double bc[3];
		vec3_sub(bc, c, b);
		return along2(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
	}
	double n[3];
	vec3_cross(n, ab, ac);
	const double nn = vec3_dot(n, n), na = vec3_dot(n, a);
	return nn > 0.0 ? na * na / nn : vec3_dot(a, a);
}

/* The squared distance from the origin to segment a b. */
static double segment_distance2(const double *a, const double *b)
{
	double ab[3];
	vec3_sub(ab, b, a);
	const double l = vec3_dot(ab, ab);
	double t = l > 0.0 ? -vec3_dot(a, ab) / l : 0.0;
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	return along2(a, t, ab);
}

/* A support point's verdict along d: 1 certainly apart (d.w < 0 and all
 * of K beyond reach along d), -1 in front of the origin but not by
 * enough to tell, 0 the origin not beyond it. */
static int beyond(const double *d, const double *w, double reach2)
{
	const double dw = vec3_dot(d, w);
	if (dw >= 0.0)
		return 0;
	return dw * dw > reach2 * vec3_dot(d, d) ? 1 : -1;
}

typedef struct {
	const double *y;
	int slot;
} mpr_point;

/* A slot (1 .. 4) none of the three portal points holds. */
static int free_slot(const mpr_point *p1, const mpr_point *p2, const mpr_point *p3)
{
	unsigned used = 1u | 1u << p1->slot | 1u << p2->slot | 1u << p3->slot;
	return __builtin_ctz(~used);
}

static void answer(mpr_answer *ans, enum mpr_verdict v, const mpr_point *pts, int n)
{
	ans->verdict = v;
	ans->nslots = n;
	for (int i = 0; i < n; i++)
		ans->slots[i] = pts[i].slot;
}

static void apart(mpr_answer *ans, const double *d, int slot, const mpr_point *pts, int n)
{
	answer(ans, MPR_APART, pts, n);
	for (int k = 0; k < 3; k++)
		ans->dir[k] = d[k];
	ans->apart_slot = slot;
}

/* The support point w along n into a free slot; 1 when its plane leaves
 * the origin apart (then answered with the first np points of p). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
probe(mpr_support_fn support, void *ctx, const double *n, const mpr_point *p, int np, double reach2,
      mpr_answer *ans, mpr_point *w)
{
	w->slot = free_slot(&p[0], &p[1], &p[2]);
	w->y = support(ctx, n, w->slot);
	ans->supports++;
	if (beyond(n, w->y, reach2) > 0) {
		apart(ans, n, w->slot, p, np);
		return 1;
	}
	return 0;
}

/* The portal p's verdict when the origin is on its inner side: inside the
 * tetrahedron with c, or within reach of one of its faces, or undecided
 * (ans untouched). */
static void portal_inside(const double *c, const mpr_point *p, double reach2, mpr_answer *ans)
{
	const double *t[4] = {c, p[0].y, p[1].y, p[2].y};
	unsigned unsure;
	const int side = tetra_side(t, &unsure);
	if (side > 0) {
		answer(ans, MPR_INSIDE, p, 3);
		return;
	}
	/* On a face's plane within rounding and inside the others: that
	 * face, a triangle of K, is within reach, or nothing is told. */
	if (side < 0)
		unsure |= 1u; /* and the portal, the face without c */
	else
		unsure = 1u;
	for (int i = 0; i < 4; i++)
		if (unsure & (1u << i)) {
			const double *f[3];
			for (int j = 0, m = 0; j < 4; j++)
				if (j != i)
					f[m++] = t[j];
			if (triangle_distance2(f[0], f[1], f[2]) <= reach2) {
				answer(ans, MPR_WITHIN, p, 3);
				return;
			}
		}
}

void mpr_verdict3(const double *c, const double *y0, double reach, int max_iter,
                  mpr_support_fn support, void *ctx, mpr_answer *ans)
{
	const double reach2 = reach * reach;
	mpr_point p[3] = {{y0, 0}, {NULL, 5}, {NULL, 6}}; /* 5, 6: no slot yet */
	double n[3], t[3];
	ans->verdict = MPR_UNDECIDED;
	ans->nslots = 0;
	ans->supports = 0;
	if (vec3_dot(c, c) <= reach2) {
		answer(ans, MPR_WITHIN, p, 1); /* c is a point of K */
		return;
	}
	/* Discovery: p[0] = s_K(-c) (its plane may already separate); then
	 * a triangle p0 p1 p2 whose cone from c holds the ray from c through
	 * the origin.  A support plane with the origin in front of it, but
	 * not by enough to tell, is only a support point here. */
	for (int k = 0; k < 3; k++)
		n[k] = -c[k];
	if (beyond(n, y0, reach2) > 0) {
		apart(ans, n, 0, p, 1);
		return;
	}
	vec3_cross(n, c, y0);
	if (vec3_dot(n, n) <= 0x1p-100 * vec3_dot(c, c) * vec3_dot(y0, y0)) {
		/* The origin on (or by) the line through c and p[0]. */
		if (segment_distance2(c, y0) <= reach2)
			answer(ans, MPR_WITHIN, p, 1);
		return;
	}
	p[1].slot = 1;
	p[1].y = support(ctx, n, 1);
	ans->supports++;
	if (beyond(n, p[1].y, reach2) > 0) {
		apart(ans, n, 1, p, 2);
		return;
	}
	normal3(n, c, p[0].y, p[1].y);
	if (vec3_dot(n, c) > 0.0) { /* face the portal away from c's side */
		const mpr_point x = p[0];
		p[0] = p[1];
		p[1] = x;
		for (int k = 0; k < 3; k++)
			n[k] = -n[k];
	}
	for (;;) {
		if (vec3_dot(n, n) == 0.0 || ans->supports >= max_iter)
			return;
		mpr_point w;
		if (probe(support, ctx, n, p, 2, reach2, ans, &w))
			return;
		vec3_cross(t, p[0].y, w.y);
		if (vec3_dot(t, c) < 0.0) { /* the origin outside (p0, c, w): w for p1 */
			p[1] = w;
			normal3(n, c, p[0].y, p[1].y);
			continue;
		}
		vec3_cross(t, w.y, p[1].y);
		if (vec3_dot(t, c) < 0.0) { /* outside (w, c, p1): w for p0 */
			p[0] = w;
			normal3(n, c, p[0].y, p[1].y);
			continue;
		}
		p[2] = w;
		break;
	}
	/* Refinement: the portal p0 p1 p2, its normal n outward (from c). */
	for (;;) {
		normal3(n, p[0].y, p[1].y, p[2].y);
		const double nn = vec3_dot(n, n), np = vec3_dot(n, p[0].y);
		if (np >= 0.0) { /* the origin on the inner side */
			portal_inside(c, p, reach2, ans);
			return;
		}
		/* Outside, by no more than reach: the portal, a triangle of
		 * K, may be within reach, which needs no support point. */
		if (np * np <= reach2 * nn &&
		    triangle_distance2(p[0].y, p[1].y, p[2].y) <= reach2) {
			answer(ans, MPR_WITHIN, p, 3);
			return;
		}
		if (nn == 0.0 || ans->supports >= max_iter)
			return;
		mpr_point w;
		if (probe(support, ctx, n, p, 3, reach2, ans, &w))
			return;
		/* Nothing of K beyond the portal by more than reach: the
		 * portal lies on K's boundary, which leaves the origin
		 * outside it and not within reach of it to GJK. */
		const double nw = vec3_dot(n, w.y);
		if (nw - np <= 0.0 || (nw - np) * (nw - np) <= reach2 * nn)
			return;
		/* The new portal: w and the two points whose planes with c
		 * and w keep the ray from c through the origin (libccd's
		 * expandPortal). */
		vec3_cross(t, w.y, c);
		if (vec3_dot(p[0].y, t) > 0.0) {
			if (vec3_dot(p[1].y, t) > 0.0)
				p[0] = w;
			else
				p[2] = w;
		} else {
			if (vec3_dot(p[2].y, t) > 0.0)
				p[1] = w;
			else
				p[0] = w;
		}
	}
}
