/*
 * simplex3.c — the distance sub-algorithm of a GJK step in 3-D, by region
 * tests (see simplex.h, simplex3_step).
 *
 * Johnson's sub-algorithm (simplex.c) evaluates the cofactors of every
 * subset of Y and tests the conditions of GJK88 Theorem 3 subset by subset.
 * In a GJK step Y = Vbar + {w}, so the answer is a face of co Y that
 * contains the new support point w (GJK88 section VI: "put one face ... at
 * the head of the list").  In 3-D the conditions of Theorem 3 restricted to
 * those faces are a handful of inner and triple products (the
 * Voronoi-region tests of a segment, triangle and tetrahedron), which is all
 * this file computes to choose the face; v and its weights then come from a
 * projection onto it without square roots.  Everything degenerate goes back
 * to the caller (return 0), who runs the full Johnson table with its backup
 * procedure, so the fast path only ever answers where its decision is the
 * one Theorem 3 makes.
 *
 * Design notes (the projections, near touching, what is degenerate):
 * docs/design.md, "core/simplex3.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>

#include "lanes.h"
#include "simplex.h"
#include "vec.h"

/* Same threshold as simplex_project: an edge whose component off the span
 * of the previous ones is below this many ulps of the longest edge is
 * rounding, not geometry. */
#define DEPENDENT_ULPS 64.0

/* The projections without square roots (project_edge, project_triangle)
 * answer when |v| is at least sqrt(NEAR_TOUCH) of |y_i|; below, where the
 * shapes nearly touch and the descent check compares |v| to a few ulps of
 * its own size, the Gram-Schmidt projections of simplex_project
 * (project_edge_gs, project_triangle_gs) do, whose rounding the rest of
 * the step was tuned against (fuzz findings, crosscheck). */
#define NEAR_TOUCH 1e-6

/* A triple product whose magnitude is below this many ulps of the product
 * of its three vectors' lengths decides nothing: the side of the plane is
 * rounding.  */
#define SIDE_ULPS 16.0

/* lambda[0..n-1] = 0 for n <= 4, written out: a loop of n stores becomes
 * a call to memset, which costs more than the four stores. */
static inline void zero_weights(simplex_solution *sol, int n)
{
	assert(n <= 4);
	(void)n;
	sol->lambda[0] = sol->lambda[1] = sol->lambda[2] = sol->lambda[3] = 0.0;
}

/* sol->v = (x0, x1, x2) and sol->vv = vv, v[0] and v[1] stored as one
 * 16-byte store: the caller reads them back with one 16-byte load
 * (vectorized), which store forwarding serves only from a store of the
 * same 16 bytes, not from two 8-byte ones. */
static inline void set_v(simplex_solution *sol, double x0, double x1, double x2, double vv)
{
	lanes_store2(sol->v, x0, x1); /* packed in registers */
	sol->v[2] = x2;
	sol->vv = vv;
}

static void set_point(const double *const *y, int n, int i, simplex_solution *sol)
{
	zero_weights(sol, n);
	sol->lambda[i] = 1.0;
	sol->mask = 1u << i;
	set_v(sol, y[i][0], y[i][1], y[i][2], vec3_dot(y[i], y[i]));
}

/* v = v(aff {y_i, y_j}) by the projection of simplex_project (base y_i,
 * the lower index).  Returns 0 if the edge is rounding. */
static int project_edge_gs(const double *const *y, int n, int i, int j, simplex_solution *sol)
{
	if (i > j) {
		int t = i;
		i = j;
		j = t;
	}
	const double *p = y[i];
	double u[3];
	vec3_sub(u, y[j], p);
	double len = sqrt(vec3_dot(u, u));
	if (!(len > 0.0))
		return 0;
	double inv = 1.0 / len;
	u[0] *= inv;
	u[1] *= inv;
	u[2] *= inv;
	double v[3] = {p[0], p[1], p[2]}, coef = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		double c = vec3_dot(u, v);
		coef += c;
		v[0] -= c * u[0];
		v[1] -= c * u[1];
		v[2] -= c * u[2];
	}
	double t = -coef / len;
	zero_weights(sol, n);
	sol->lambda[j] = t;
	sol->lambda[i] = 1.0 - t;
	sol->mask = (1u << i) | (1u << j);
	set_v(sol, v[0], v[1], v[2], vec3_dot(v, v));
	return 1;
}

/* v = v(aff {y_i, y_j, y_k}), i < j < k, as simplex_project computes it.
 * Returns 0 if the triangle is thinner than rounding. */
static int project_triangle_gs(const double *const *y, int n, int i, int j, int k,
                               simplex_solution *sol)
{
	const double *p = y[i];
	double q0[3], q1[3];
	vec3_sub(q0, y[j], p);
	vec3_sub(q1, y[k], p);
	double l0 = sqrt(vec3_dot(q0, q0)), l1 = sqrt(vec3_dot(q1, q1));
	if (!(l0 > 0.0))
		return 0;
	double longest = l0 > l1 ? l0 : l1;
	double inv = 1.0 / l0;
	q0[0] *= inv;
	q0[1] *= inv;
	q0[2] *= inv;
	double r01 = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		double c = vec3_dot(q0, q1);
		r01 += c;
		q1[0] -= c * q0[0];
		q1[1] -= c * q0[1];
		q1[2] -= c * q0[2];
	}
	double l1o = sqrt(vec3_dot(q1, q1));
	if (!(l1o > DEPENDENT_ULPS * DBL_EPSILON * longest))
		return 0;
	inv = 1.0 / l1o;
	q1[0] *= inv;
	q1[1] *= inv;
	q1[2] *= inv;
	double v[3] = {p[0], p[1], p[2]}, c0 = 0.0, c1 = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		double c = vec3_dot(q0, v);
		c0 += c;
		v[0] -= c * q0[0];
		v[1] -= c * q0[1];
		v[2] -= c * q0[2];
		c = vec3_dot(q1, v);
		c1 += c;
		v[0] -= c * q1[0];
		v[1] -= c * q1[1];
		v[2] -= c * q1[2];
	}
	double x1 = -c1 / l1o;
	double x0 = (-c0 - r01 * x1) / l0;
	zero_weights(sol, n);
	sol->lambda[j] = x0;
	sol->lambda[k] = x1;
	sol->lambda[i] = 1.0 - x0 - x1;
	sol->mask = (1u << i) | (1u << j) | (1u << k);
	set_v(sol, v[0], v[1], v[2], vec3_dot(v, v));
	return 1;
}

/* v = v(aff {y_i, y_j}): the component of y_i orthogonal to the edge
 * q = y_j - y_i, by Gram-Schmidt done twice as in simplex_project (the
 * second pass restores orthogonality when |v| is far below |y_i|), with the
 * edge left unnormalized: one division, no square root, on the latency
 * path of every step.  Returns 0 if the edge is rounding. */
static int project_edge(const double *const *y, int n, int i, int j, simplex_solution *sol)
{
	if (i > j) {
		int t = i;
		i = j;
		j = t;
	}
	const double *p = y[i];
	double q[3];
	vec3_sub(q, y[j], p);
	double qq = vec3_dot(q, q);
	if (!(qq > 0.0))
		return 0;
	double inv = 1.0 / qq;
	double v[3] = {p[0], p[1], p[2]}, coef = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		double c = vec3_dot(q, v) * inv;
		coef += c;
		v[0] -= c * q[0];
		v[1] -= c * q[1];
		v[2] -= c * q[2];
	}
	double vv = vec3_dot(v, v);
	if (vv < NEAR_TOUCH * vec3_dot(p, p))
		return project_edge_gs(y, n, i, j, sol);
	double t = -coef;
	zero_weights(sol, n);
	sol->lambda[j] = t;
	sol->lambda[i] = 1.0 - t;
	sol->mask = (1u << i) | (1u << j);
	set_v(sol, v[0], v[1], v[2], vv);
	return 1;
}

/* v = v(aff {y_i, y_j, y_k}), i < j < k: along the face's normal
 * m = q0 x q1 (q0 = y_j - y_i, q1 = y_k - y_i), v = m (m.y_i) / |m|^2.
 * In 3-D that is the whole projection: v is parallel to m to working
 * precision whatever its length (what the Gram-Schmidt passes of
 * simplex_project achieve in n-D), its length exact to rounding of |y_i|,
 * and it costs one division.  The weights come from v = y_i + x0 q0 + x1
 * q1 crossed with q0 and q1 and dotted with m: x0 = ((q1 x y_i).m)/|m|^2,
 * x1 = ((y_i x q0).m)/|m|^2.  The triangle is too thin when |m| = |q0| h
 * (h the height of y_k over the edge q0) has h within DEPENDENT_ULPS of
 * rounding of the longer edge, the test of simplex_project.  Returns 0
 * then. */
static int project_triangle(const double *const *y, int n, int i, int j, int k,
                            simplex_solution *sol)
{
	const double *p = y[i];
	double q0[3], q1[3], m[3];
	vec3_sub(q0, y[j], p);
	vec3_sub(q1, y[k], p);
	vec3_cross(m, q0, q1);
	const double l00 = vec3_dot(q0, q0), l11 = vec3_dot(q1, q1), mm = vec3_dot(m, m);
	const double lim = DEPENDENT_ULPS * DBL_EPSILON;
	if (!(l00 > 0.0) || !(mm > lim * lim * l00 * (l00 > l11 ? l00 : l11)))
		return 0;
	const double mp = vec3_dot(m, p);
	if (mp * mp < NEAR_TOUCH * mm * vec3_dot(p, p))
		return project_triangle_gs(y, n, i, j, k, sol);
	const double inv = 1.0 / mm, s = mp * inv;
	double a[3], b[3];
	vec3_cross(a, q1, p);
	vec3_cross(b, p, q0);
	const double x0 = vec3_dot(a, m) * inv, x1 = vec3_dot(b, m) * inv;
	zero_weights(sol, n);
	sol->lambda[j] = x0;
	sol->lambda[k] = x1;
	sol->lambda[i] = 1.0 - x0 - x1;
	sol->mask = (1u << i) | (1u << j) | (1u << k);
	const double v0 = m[0] * s, v1 = m[1] * s, v2 = m[2] * s;
	set_v(sol, v0, v1, v2, v0 * v0 + v1 * v1 + v2 * v2);
	return 1;
}

/* The weights of a face's projection must be those of a point in its
 * relative interior (condition 2 of Theorem 3); a face chosen by the region
 * tests whose projection says otherwise was a rounding call. */
static int interior(const simplex_solution *sol, int n)
{
	for (int i = 0; i < n; i++)
		if ((sol->mask & (1u << i)) && !(sol->lambda[i] > 0.0))
			return 0;
	return 1;
}

/* Nearest point of the segment {y_a, y_w} (w the new point). */
static int segment(const double *const *y, int n, int a, int w, simplex_solution *sol)
{
	double e[3];
	vec3_sub(e, y[a], y[w]);
	/* The parameter from w towards a: t = -w.e / e.e, in (0, 1) inside. */
	double s = -vec3_dot(y[w], e);
	if (!(s > 0.0)) {
		set_point(y, n, w, sol);
		return 1;
	}
	if (!(s < vec3_dot(e, e)))
		return 0; /* beyond a: not a GJK step's answer */
	return project_edge(y, n, a, w, sol) && interior(sol, n);
}

/* Nearest point of the triangle {y_a, y_b, y_w} (w the new point), by the
 * region tests of Ericson's ClosestPtPointTriangle with the origin as the
 * query point. */
static int triangle(const double *const *y, int n, int a, int b, int w, simplex_solution *sol)
{
	const double *pw = y[w], *pa = y[a], *pb = y[b];
	double ab[3], ac[3];
	vec3_sub(ab, pa, pw);
	vec3_sub(ac, pb, pw);
	/* Vertex w. */
	double d1 = -vec3_dot(ab, pw), d2 = -vec3_dot(ac, pw);
	if (d1 <= 0.0 && d2 <= 0.0) {
		set_point(y, n, w, sol);
		return 1;
	}
	/* Vertex a. */
	double d3 = -vec3_dot(ab, pa), d4 = -vec3_dot(ac, pa);
	if (d3 >= 0.0 && d4 <= d3)
		return 0; /* not containing w: the old answer, not a step's */
	/* Edge w-a. */
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
		return project_edge(y, n, a, w, sol) && interior(sol, n);
	/* Vertex b. */
	double d5 = -vec3_dot(ab, pb), d6 = -vec3_dot(ac, pb);
	if (d6 >= 0.0 && d5 <= d6)
		return 0;
	/* Edge w-b. */
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
		return project_edge(y, n, b, w, sol) && interior(sol, n);
	/* Edge a-b: not containing w. */
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
		return 0;
	/* The face. */
	int i = a, j = b, k = w;
	/* sort the three slot indices, as the generic projection takes them */
	if (i > j) {
		int t = i;
		i = j;
		j = t;
	}
	if (j > k) {
		int t = j;
		j = k;
		k = t;
	}
	if (i > j) {
		int t = i;
		i = j;
		j = t;
	}
	return project_triangle(y, n, i, j, k, sol) && interior(sol, n);
}

int simplex3_step(const double *const *y, int n, simplex_solution *sol)
{
	const int w = n - 1;
	if (n == 1) {
		set_point(y, n, 0, sol);
		return 1;
	}
	if (n == 2)
		return segment(y, n, 0, w, sol);
	if (n == 3)
		return triangle(y, n, 0, 1, w, sol);

	/* The tetrahedron {0, 1, 2, w}: which faces through w have the origin
	 * on their far side from the opposite vertex? */
	static const int face[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}; /* i, j, opposite */
	const double *pw = y[w];
	double e[3][3];
	for (int i = 0; i < 3; i++)
		vec3_sub(e[i], y[i], pw);
	double sxs[3], sos[3];
	int outside = 0;
	/* A tetrahedron thinner than rounding decides nothing. */
	const double l0 = vec3_dot(e[0], e[0]), l1 = vec3_dot(e[1], e[1]),
		     l2 = vec3_dot(e[2], e[2]);
	const double thin = SIDE_ULPS * DBL_EPSILON * sqrt(l0 * l1 * l2);
	for (int f = 0; f < 3; f++) {
		double nrm[3];
		vec3_cross(nrm, e[face[f][0]], e[face[f][1]]);
		double sx = vec3_dot(nrm, e[face[f][2]]); /* opposite vertex */
		double so = -vec3_dot(nrm, pw);           /* origin */
		if (!(fabs(sx) > thin))
			return 0;
		sxs[face[f][2]] = sx;
		sos[face[f][2]] = so;
		if (so * sx < 0.0)
			outside |= 1 << f;
	}
	if (!outside) {
		/* The origin is inside: the whole tetrahedron, weights from the
		 * volumes (divided only here, off the path of the other case). */
		double ratio[3];
		for (int i = 0; i < 3; i++)
			ratio[i] = sos[i] / sxs[i]; /* barycentric weight of vertex i */
		double lw = 1.0 - ratio[0] - ratio[1] - ratio[2];
		if (!(lw >= 0.0))
			return 0;
		for (int i = 0; i < 3; i++)
			sol->lambda[i] = ratio[i];
		sol->lambda[w] = lw;
		sol->mask = 0xfu;
		set_v(sol, 0.0, 0.0, 0.0, 0.0);
		return 1;
	}
	int found = 0;
	for (int f = 0; f < 3; f++) {
		if (!(outside & (1 << f)))
			continue;
		/* The first face's answer goes straight to sol; a later one is
		 * copied there only if nearer (a copy of a solution just
		 * written is slow: store forwarding). */
		simplex_solution cand, *to = found ? &cand : sol;
		if (!triangle(y, n, face[f][0], face[f][1], w, to))
			return 0;
		if (found && cand.vv < sol->vv)
			*sol = cand;
		found = 1;
	}
	return found;
}

double simplex3_depth_bound(const double *const *y)
{
	/* Facet i is the triangle without y_i: the origin's distance to its
	 * plane is |n.p| / |n| for its normal n and any of its points p. */
	double best = INFINITY;
	for (int i = 0; i < 4; i++) {
		const double *p = y[(i + 1) & 3], *q = y[(i + 2) & 3], *r = y[(i + 3) & 3];
		double e1[3], e2[3], nrm[3];
		vec3_sub(e1, q, p);
		vec3_sub(e2, r, p);
		vec3_cross(nrm, e1, e2);
		double nn = vec3_dot(nrm, nrm), l1 = vec3_dot(e1, e1), l2 = vec3_dot(e2, e2);
		/* As simplex_project: a facet whose second edge is off the first
		 * by less than rounding of the longer has no plane. */
		double longest = l1 > l2 ? l1 : l2;
		double lim = DEPENDENT_ULPS * DBL_EPSILON;
		if (!(nn > lim * lim * longest * l1) || !(l1 > 0.0))
			return 0.0;
		double d = vec3_dot(nrm, p);
		double dist2 = d * d / nn;
		if (dist2 < best)
			best = dist2;
	}
	return sqrt(best);
}
