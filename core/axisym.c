/*
 * axisym.c — penetration depth of coaxial shapes in a meridian plane (see
 * axisym.h).
 *
 * Coaxial parts are everyday CAD (a shaft in a bearing, a pin in a
 * sleeve, a ball at a cylinder's centre) and EPA's worst case on curved
 * shapes: K = A - B is then a solid of revolution about a line through
 * the origin, its points nearest the origin often a whole circle, which
 * no polytope inside K matches to the tolerance (EPA stops unconverged,
 * some 1e-6 off).  By the symmetry h_K(u) is the same for every u on a
 * cone about the axis, so min h_K(u), the depth, is reached in any one
 * plane through the axis, where K's section is a convex region whose
 * support points are K's own.  There the search is EPA's in 2-D (see
 * epa.c): a convex polygon of support points around the origin, its
 * nearest edge pushed out by the support point along its normal until
 * that point lies on the edge within the tolerance.  A circle of nearest
 * points is one point of the section, which a few dozen rounds pin down.
 * How it fits: docs/design.md, "core/axisym.c".
 */
#include <math.h>
#include <stddef.h>

#include "axisym.h"
#include "cancel.h"
#include "primitive.h"
#include "vec.h"

/* A shape's symmetry: none, about the line through p along unit a, or
 * about every line through p (a point). */
enum {
	AXIS_NONE,
	AXIS_LINE,
	AXIS_POINT
};

typedef struct axis {
	int kind;
	double p[3], a[3];
} axis;

/* A support point of K in the meridian plane: (x, y) along (e, a), and
 * the points of A and B (frame coordinates) it is the difference of. */
typedef struct mpoint {
	double x, y;
	double pa[3], pb[3];
} mpoint;

typedef struct meridian {
	const support_frame *fa, *fb;
	double e[3], a[3]; /* the plane's axes: e across, a along the axis */
	mpoint pt[AXISYM_MAX_POINTS];
	int n; /* the polygon pt[0 .. n-1], counter-clockwise */
} meridian;

/* u scaled to unit length; 0 when it has none. */
static int unit3(double *u)
{
	const double l = vec_norm(u, 3);
	if (!(l > 0.0) || !isfinite(l))
		return 0;
	vec_scale(u, 1.0 / l, 3);
	return 1;
}

/* The local symmetry axis of primitive frame f (0, 1 or 2), -1 for every
 * one (a sphere), -2 for none. */
static int primitive_axis(const support_frame *f)
{
	const double *r = f->prm;
	switch (f->kind) {
	case CLASH_KIND_SPHERE: return -1;
	case CLASH_KIND_CAPSULE:
	case CLASH_KIND_CYLINDER:
	case CLASH_KIND_CONE: return 1;
	case CLASH_KIND_ELLIPSOID:
		if (r[0] == r[1] && r[1] == r[2])
			return -1;
		return r[0] == r[2] ? 1 : r[0] == r[1] ? 2 : r[1] == r[2] ? 0 : -2;
	default: return -2;
	}
}

/* The symmetry of frame f's shape. */
static void axis_of(const support_frame *f, axis *ax)
{
	ax->kind = AXIS_NONE;
	if (f->dim != 3)
		return;
	if (f->kind) {
		const int k = primitive_axis(f);
		if (k == -2 || (f->posed && primitive_similarity_scale(f->lin) == 0.0))
			return;
		const double o[3] = {0, 0, 0};
		double d[3] = {0, 0, 0}, q[3];
		support_map3(f, o, ax->p);
		if (k == -1) {
			ax->kind = AXIS_POINT;
			return;
		}
		d[k] = 1.0;
		support_map3(f, d, q);
		vec3_sub(ax->a, q, ax->p);
		ax->kind = unit3(ax->a) ? AXIS_LINE : AXIS_NONE;
		return;
	}
	if (f->count == 0 || f->count > 2)
		return;
	support_point3(f, 0, ax->p);
	ax->kind = AXIS_POINT;
	if (f->count == 2) {
		double q[3];
		support_point3(f, 1, q);
		vec3_sub(ax->a, q, ax->p);
		if (unit3(ax->a))
			ax->kind = AXIS_LINE;
	}
}

/* Distance from point q to the line through p along unit a. */
static double off_line(const double *q, const double *p, const double *a)
{
	double d[3], c[3];
	vec3_sub(d, q, p);
	vec3_cross(c, d, a);
	return vec_norm(c, 3);
}

/* The line both shapes are symmetric about, within slack: 0 if none. */
static int shared_axis(const axis *x, const axis *y, double slack, axis *out)
{
	if (x->kind == AXIS_NONE || y->kind == AXIS_NONE)
		return 0;
	if (x->kind == AXIS_POINT && y->kind == AXIS_POINT)
		return 0; /* two balls: exact already (points with radii) */
	if (x->kind == AXIS_POINT) {
		*out = *y;
		return off_line(x->p, y->p, y->a) <= slack;
	}
	*out = *x;
	if (y->kind == AXIS_POINT)
		return off_line(y->p, x->p, x->a) <= slack;
	double c[3];
	vec3_cross(c, x->a, y->a);
	return vec_norm(c, 3) <= slack && off_line(y->p, x->p, x->a) <= slack;
}

/* K's support point along the plane's direction (c, s), into *w. */
static void probe(const meridian *m, double c, double s, mpoint *w)
{
	double d[3], nd[3], y[3];
	for (int k = 0; k < 3; k++) {
		d[k] = c * m->e[k] + s * m->a[k];
		nd[k] = -d[k];
	}
	support_eval3(m->fa, d, w->pa);
	support_eval3(m->fb, nd, w->pb);
	vec3_sub(y, w->pa, w->pb);
	w->x = vec3_dot(y, m->e);
	w->y = vec3_dot(y, m->a);
}

/* Twice the signed area of (u, v, w): > 0 for a left turn. */
static double turn(const mpoint *u, const mpoint *v, const mpoint *w)
{
	return (v->x - u->x) * (w->y - v->y) - (v->y - u->y) * (w->x - v->x);
}

/* Remove polygon point i. */
static void drop(meridian *m, int i)
{
	for (int j = i; j < m->n - 1; j++)
		m->pt[j] = m->pt[j + 1];
	m->n--;
}

/* Insert w after polygon point i, then drop the points next to it that
 * are no longer corners (w sees past them). */
static void insert(meridian *m, int i, const mpoint *w)
{
	for (int j = m->n; j > i + 1; j--)
		m->pt[j] = m->pt[j - 1];
	m->pt[i + 1] = *w;
	m->n++;
	int at = i + 1;
	while (m->n > 3) {
		const int prev = (at + m->n - 1) % m->n, pprev = (at + m->n - 2) % m->n;
		if (turn(&m->pt[pprev], &m->pt[prev], &m->pt[at]) > 0.0)
			break;
		drop(m, prev);
		at = prev < at ? at - 1 : at;
	}
	while (m->n > 3) {
		const int next = (at + 1) % m->n, nnext = (at + 2) % m->n;
		if (turn(&m->pt[at], &m->pt[next], &m->pt[nnext]) > 0.0)
			break;
		drop(m, next);
		at = next < at ? at - 1 : at;
	}
}

/* The polygon's edge nearest the origin: its index, outward unit normal
 * (nx, ny) and distance; -1 when an edge is degenerate. */
static int nearest_edge(const meridian *m, double *nx, double *ny, double *dist)
{
	int best = -1;
	for (int i = 0; i < m->n; i++) {
		const mpoint *u = &m->pt[i], *v = &m->pt[(i + 1) % m->n];
		const double ex = v->x - u->x, ey = v->y - u->y, l = sqrt(ex * ex + ey * ey);
		if (!(l > 0.0))
			return -1;
		const double cx = ey / l, cy = -ex / l, d = cx * u->x + cy * u->y;
		if (best < 0 || d < *dist) {
			best = i;
			*nx = cx;
			*ny = cy;
			*dist = d;
		}
	}
	return best;
}

/* The answer from edge i, normal (nx, ny), distance d. */
static void answer(const meridian *m, int i, double nx, double ny, double d, epa_answer *out)
{
	const mpoint *u = &m->pt[i], *v = &m->pt[(i + 1) % m->n];
	const double ex = v->x - u->x, ey = v->y - u->y;
	double t = -(u->x * ex + u->y * ey) / (ex * ex + ey * ey);
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	out->depth = d > 0.0 ? d : 0.0;
	for (int k = 0; k < 3; k++) {
		out->normal[k] = nx * m->e[k] + ny * m->a[k];
		out->pa[k] = u->pa[k] + t * (v->pa[k] - u->pa[k]);
		out->pb[k] = u->pb[k] + t * (v->pb[k] - u->pb[k]);
	}
	out->seed_bound = -1.0;
	out->converged = 1;
}

/* The plane's axes: a along the shared axis, e across it. */
static void plane_axes(meridian *m, const double *a)
{
	int k = 0;
	for (int j = 1; j < 3; j++)
		k = fabs(a[j]) < fabs(a[k]) ? j : k;
	const double c[3] = {k == 0, k == 1, k == 2};
	vec_copy(m->a, a, 3);
	vec3_cross(m->e, m->a, c);
	unit3(m->e);
}

/* The starting polygon: K's support points along eight directions around
 * the plane (none along e or a, where a flat end answers its centre and
 * the rim's points its corners), as far as they are strict corners. */
static int start(meridian *m, double tol)
{
	static const double dir[8][2] = {{2, 1},   {1, 2},   {-1, 2}, {-2, 1},
	                                 {-2, -1}, {-1, -2}, {1, -2}, {2, -1}};
	const double s = 1.0 / sqrt(5.0);
	m->n = 0;
	for (int k = 0; k < 8; k++)
		probe(m, s * dir[k][0], s * dir[k][1], &m->pt[m->n++]);
	for (int i = 0; m->n >= 3 && i < m->n;) {
		const int prev = (i + m->n - 1) % m->n, next = (i + 1) % m->n;
		if (turn(&m->pt[prev], &m->pt[i], &m->pt[next]) > 0.0) {
			i++;
			continue;
		}
		drop(m, i);
		i = 0; /* its neighbours may have become flat: look again */
	}
	if (m->n < 3)
		return 0;
	double nx, ny, d;
	return nearest_edge(m, &nx, &ny, &d) >= 0 && d > -tol;
}

int axisym_penetration(const support_frame *fa, const support_frame *fb, double tol, int max_points,
                       const volatile int *cancel, epa_answer *out)
{
	axis x, y, shared;
	axis_of(fa, &x);
	axis_of(fb, &y);
	if (!shared_axis(&x, &y, tol / 8, &shared))
		return 0;
	meridian m; /* 16 KB */
	m.fa = fa;
	m.fb = fb;
	plane_axes(&m, shared.a);
	if (!start(&m, tol))
		return 0;
	if (max_points > AXISYM_MAX_POINTS)
		max_points = AXISYM_MAX_POINTS;
	for (int it = 1; it <= max_points; it++) {
		if (cancel_requested(cancel))
			return 0;
		double nx, ny, d;
		const int i = nearest_edge(&m, &nx, &ny, &d);
		if (i < 0)
			return 0;
		mpoint w;
		probe(&m, nx, ny, &w);
		if (nx * w.x + ny * w.y - d <= tol) {
			answer(&m, i, nx, ny, d, out);
			out->iterations = it;
			return 1;
		}
		if (m.n == AXISYM_MAX_POINTS)
			return 0;
		insert(&m, i, &w);
	}
	return 0;
}
