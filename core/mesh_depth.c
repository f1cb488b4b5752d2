/*
 * mesh_depth.c — the penetration depth of two solids with a mesh on either
 * side (clash_mesh_depth, clash.h): the least translation of b after which
 * the two touch or are apart.
 *
 * Two convex sides (a convex mesh: closed, one part, every vertex on one
 * side of every face's plane) take the convex answer, EPA on their hulls.
 * Otherwise (convex leaves taken as polytopes) the depth is searched over
 * directions u (Kim, Lin, Manocha 2002; Zhang, Kim, Varadhan, Manocha
 * 2007): the directional depth t(u), the least t at which b moved by t u
 * has left a, is exact for polyhedra.  While b moves along u, two
 * triangles meet for an interval of t, read off their projections along u;
 * the overlap is the union of those intervals and the stretches where one
 * lies inside the other (a verdict in each gap), and t(u) the end of its
 * part that holds t = 0, swept in order of t.  The depth is the least t(u)
 * over candidates (the hulls' EPA direction, the axes, normals of the
 * faces that cross, a Fibonacci sphere), refined in the contact space (Je
 * et al. 2012) and by a pattern search.  docs/shapes.md, "How deep two
 * meshes overlap", states what is certain.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "compound.h"
#include "mesh.h"
#include "mesh_convex.h"
#include "mesh_depth_parts.h"
#include "overlap_sphere.h"
#include "sphere_depth.h"
#include "support.h"
#include "trig.h"
#include "hull3.h"

/* Points of the polytope that holds a ball, and sides of the polygon
 * that holds a circle, when a curved or rounded leaf is made a mesh. */
#define DEPTH_BALL 64
#define DEPTH_ROUND 64
/* Triangle pairs a query may examine over all its directions (about
 * 0.1 us each): past them the search stops with the best found, not
 * converged, so that a deep overlap of fine meshes ends in seconds. */
#define DEPTH_MAX_WORK ((size_t)1 << 25)
/* Corners of each side found inside the other, whose rays bound t(u)
 * from below. */
#define DEPTH_PROBES 32
/* Directions of the Fibonacci sphere tried after the hulls' and the axes. */
#define DEPTH_FIBONACCI 128
/* Face normals of triangles crossing at the start taken as candidates. */
#define DEPTH_NORMALS 48
/* Directions evaluated at most, unless opt->max_iterations says fewer. */
#define DEPTH_MAX_EVALS 1200
/* Triangle pairs one direction may hold (24 bytes each), and pairs
 * waiting (32 bytes); past it the direction is given up and the answer
 * marked not converged. */
#define DEPTH_MAX_SPANS ((size_t)1 << 22)
/* Distinct contacts kept at the best direction's end (see project). */
#define DEPTH_CONSTRAINTS 24
/* Contacts within this much of the end (relative to the size) count. */
#define DEPTH_ACTIVE 1e-7
/* Proposals of the contact space in a row that may fail to improve
 * before the pattern search takes over. */
#define DEPTH_MISSES 12
#define DEPTH_CANCEL_EVERY 256
/* The first angle of the pattern search (radians), about the spacing of
 * the Fibonacci sphere. */
#define DEPTH_FIRST_STEP 0.3

/* ---- the two sides as world triangles ----------------------------------- */

typedef struct leaf {
	const clash_mesh *m;
	size_t tri0; /* its first triangle in the side's array */
	double *box; /* 6 per node (world lo, hi) */
	double sign; /* 1 when its triangles face out, -1 when in */
} leaf;

typedef struct side {
	leaf *leaves;
	size_t nleaves, ntri, nbox;
	double *tri; /* world corners, 9 a triangle */
	double *box;
	size_t others; /* leaves it cannot take: meshes with a radius */
	int solid;     /* every mesh leaf a solid */
	/* Convex leaves as meshes of the polytopes that hold them (made when
	 * `convert`, in the order of the leaves): their storage, to free. */
	int convert, approx; /* approx: one of them is larger than its leaf */
	void **made;
	size_t nmade;
	clash_mesh **built; /* the meshes made, one a convex leaf */
	size_t nbuilt, used;
} side;

static int convex_leaf(side *s, const clash_shape *l, clash_mesh **out);

static int count_leaf(const clash_shape *l, size_t top, void *ctx)
{
	(void)top;
	side *s = ctx;
	const clash_mesh *m = l->mesh;
	if (m && !clash_mesh_is_solid(m))
		s->solid = 0;
	if (m && l->radius != 0.0) {
		s->others++;
		return 0;
	}
	if (m == NULL && s->convert) {
		clash_mesh *made;
		int err = convex_leaf(s, l, &made);
		if (err)
			return err;
		m = made;
	}
	s->nleaves++;
	s->ntri += m ? m->ntriangles : 0;
	s->nbox += m ? 6 * m->nnodes : 0;
	return 0;
}

static void grow(double *lo, double *hi, const double *p)
{
	for (int k = 0; k < 3; k++) {
		lo[k] = fmin(lo[k], p[k]);
		hi[k] = fmax(hi[k], p[k]);
	}
}

static void cross3(const double *a, const double *b, double *c)
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* World boxes of node n and below, from the world triangles. */
static void node_boxes(const clash_mesh *m, const double *tri, double *box, uint32_t n)
{
	const mesh_node *nd = &m->nodes[n];
	double *b = box + 6 * (size_t)n;
	for (int k = 0; k < 3; k++) {
		b[k] = INFINITY;
		b[3 + k] = -INFINITY;
	}
	if (nd->count) {
		for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
			for (int c = 0; c < 3; c++)
				grow(b, b + 3, tri + 9 * (size_t)i + 3 * c);
		return;
	}
	for (uint32_t c = nd->first; c < nd->first + 2; c++) {
		node_boxes(m, tri, box, c);
		grow(b, b + 3, box + 6 * (size_t)c);
		grow(b, b + 3, box + 6 * (size_t)c + 3);
	}
}

static int fill_leaf(const clash_shape *leaf_shape, size_t top, void *ctx)
{
	(void)top;
	side *s = ctx;
	const clash_shape *l = leaf_shape;
	clash_shape made;
	if (l->mesh == NULL) { /* the polytope made for it (count_leaf) */
		clash_shape_init_mesh(&made, s->built[s->used++]);
		l = &made;
	}
	leaf *f = &s->leaves[s->nleaves++];
	const clash_mesh *m = l->mesh;
	f->m = m;
	f->tri0 = s->ntri;
	f->box = s->box + s->nbox;
	double *w = s->tri + 9 * s->ntri, vol = 0.0;
	for (size_t i = 0; i < m->ntriangles; i++) {
		double *t = w + 9 * i;
		for (int c = 0; c < 3; c++)
			support_pose_point(l, mesh_tri(m, i) + 3 * c, t + 3 * c);
		vol += affine_det(t);
	}
	f->sign = vol < 0 ? -1.0 : 1.0;
	node_boxes(m, w, f->box, 0);
	s->ntri += m->ntriangles;
	s->nbox += 6 * m->nnodes;
	return 0;
}

static void side_free(side *s)
{
	for (size_t i = 0; i < s->nmade; i++)
		free(s->made[i]);
	free(s->made);
	free(s->built);
	free(s->leaves);
	free(s->tri);
	free(s->box);
}

/* Census of s (leaves, solidity), then its mesh leaves in world triangles
 * when `load` and every leaf is a mesh of radius 0. */
static int side_load(side *s, const clash_shape *sh, int load)
{
	memset(s, 0, sizeof *s);
	s->solid = 1;
	s->convert = load;
	size_t nl;
	int err = compound_check(sh, 3, &nl);
	if (!err)
		err = compound_foreach_leaf(sh, count_leaf, s);
	if (err || !load || s->others)
		return err;
	s->leaves = malloc(s->nleaves * sizeof *s->leaves);
	s->tri = malloc(s->ntri * 9 * sizeof *s->tri);
	s->box = malloc(s->nbox * sizeof *s->box);
	if (!s->leaves || !s->tri || !s->box)
		return CLASH_ENOMEM;
	s->nleaves = s->ntri = s->nbox = 0;
	return compound_foreach_leaf(sh, fill_leaf, s);
}

/* ---- convex leaves as meshes ------------------------------------------------ */

/* The made storage of s grows by one block (freed with the side). */
static void *made_alloc(side *s, size_t bytes)
{
	void **n = realloc(s->made, (s->nmade + 1) * sizeof *n);
	if (!n)
		return NULL;
	s->made = n;
	void *p = malloc(bytes ? bytes : 1);
	if (p)
		s->made[s->nmade++] = p;
	return p;
}

/* The faces of the hull of n points (made storage): their number, 0 for
 * points that span no volume, or an error. */
static long hull_faces(side *s, const double *p, size_t n, uint32_t **tri)
{
	void *scratch = malloc(hull3_scratch_size(n));
	*tri = made_alloc(s, 6 * n * sizeof **tri);
	if (!scratch || !*tri) {
		free(scratch);
		return CLASH_ENOMEM;
	}
	size_t nf = hull3_faces(p, n, scratch, *tri);
	free(scratch);
	return (long)nf;
}

/* DEPTH_BALL points whose hull holds the unit ball: a Fibonacci sphere
 * pushed out by the least distance of its hull's faces from the centre. */
static int ball_points(side *s, double *p)
{
	const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
	for (int i = 0; i < DEPTH_BALL; i++) {
		double z = 1.0 - (2.0 * i + 1.0) / DEPTH_BALL, r = sqrt(1.0 - z * z);
		trig_sincos(golden * i, &p[3 * i + 1], &p[3 * i]);
		p[3 * i] *= r, p[3 * i + 1] *= r, p[3 * i + 2] = z;
	}
	uint32_t *tri;
	long nf = hull_faces(s, p, DEPTH_BALL, &tri);
	if (nf <= 0)
		return nf < 0 ? (int)nf : CLASH_ENOTSUP;
	double dmin = 1.0;
	for (long f = 0; f < nf; f++) {
		const double *a = p + 3 * tri[3 * f], *b = p + 3 * tri[3 * f + 1],
			     *c = p + 3 * tri[3 * f + 2];
		double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
		       e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3];
		cross3(e1, e2, n);
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		dmin = fmin(dmin, (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len);
	}
	for (int i = 0; i < 3 * DEPTH_BALL; i++)
		p[i] *= (1.0 + 1e-9) / dmin;
	return CLASH_OK;
}

/* The local points of a convex leaf's core (its vertices, a box's corners,
 * the polygons that hold a cylinder's or cone's circles, a capsule's
 * segment, a sphere's centre, an ellipsoid's ball mapped) and the radius
 * of the local ball around them: their number (room: count or 2
 * DEPTH_ROUND + DEPTH_BALL points). */
static size_t leaf_core(const clash_shape *l, const double *ball, double *p, double *rloc)
{
	const double *q = l->params, pi = 3.14159265358979323846;
	const double grow_ring = 1.0 / trig_cos(pi / DEPTH_ROUND) + 1e-9;
	size_t n = 0;
	*rloc = 0.0;
	switch (l->kind) {
	case CLASH_KIND_BOX:
		for (int i = 0; i < 8; i++, n++)
			for (int k = 0; k < 3; k++)
				p[3 * n + k] = (i >> k) & 1 ? q[k] : -q[k];
		return n;
	case CLASH_KIND_SPHERE:
	case CLASH_KIND_CAPSULE:
		*rloc = q[0];
		for (int e = 0; e < (l->kind == CLASH_KIND_SPHERE ? 1 : 2); e++, n++)
			p[3 * n] = 0,
			      p[3 * n + 1] = l->kind == CLASH_KIND_SPHERE ? 0 : (e ? q[1] : -q[1]),
			      p[3 * n + 2] = 0;
		return n;
	case CLASH_KIND_CYLINDER:
	case CLASH_KIND_CONE:
		for (int e = 0; e < 2; e++)
			for (int i = 0;
			     i < DEPTH_ROUND && (e == 0 || l->kind == CLASH_KIND_CYLINDER);
			     i++, n++) {
				double ca, sa;
				trig_sincos(2 * pi * i / DEPTH_ROUND, &sa, &ca);
				p[3 * n] = q[0] * grow_ring * ca, p[3 * n + 1] = e ? q[1] : -q[1];
				p[3 * n + 2] = q[0] * grow_ring * sa;
			}
		if (l->kind == CLASH_KIND_CONE)
			p[3 * n] = 0, p[3 * n + 1] = q[1], p[3 * n + 2] = 0, n++;
		return n;
	case CLASH_KIND_ELLIPSOID:
		for (; n < DEPTH_BALL; n++)
			for (int k = 0; k < 3; k++)
				p[3 * n + k] = q[k] * ball[3 * n + k];
		return n;
	default: memcpy(p, l->vertices, 3 * l->count * sizeof *p); return l->count;
	}
}

/* A convex leaf (hull, primitive, radius or not) as the mesh of a
 * polytope that holds it, in world coordinates: exactly it for a hull or
 * box of radius 0, a little larger (s->approx) for a curved or rounded
 * one: each circle held by a polygon of DEPTH_ROUND sides, each ball by a
 * polytope of DEPTH_BALL vertices. */
static int convex_leaf(side *s, const clash_shape *l, clash_mesh **out)
{
	double ball[3 * DEPTH_BALL], rloc;
	int err = ball_points(s, ball);
	if (err)
		return err;
	int balled = l->kind == CLASH_KIND_SPHERE || l->kind == CLASH_KIND_CAPSULE;
	size_t room = (l->kind ? 2 * DEPTH_ROUND + DEPTH_BALL : l->count) *
	              (balled ? DEPTH_BALL : 1) * (l->radius > 0 ? DEPTH_BALL : 1);
	double *core = malloc(3 * room * sizeof *core);
	double *pts = made_alloc(s, 3 * room * sizeof *pts);
	if (!core || !pts) {
		free(core);
		return CLASH_ENOMEM;
	}
	size_t n = leaf_core(l, ball, core, &rloc), m = 0;
	s->approx |= l->kind > CLASH_KIND_BOX || rloc > 0 || l->radius > 0;
	for (size_t i = 0; i < n; i++) /* the core, each point grown by the local ball, posed */
		for (int j = 0; j < (rloc > 0 ? DEPTH_BALL : 1); j++, m++) {
			double x[3];
			for (int k = 0; k < 3; k++)
				x[k] = core[3 * i + k] + (rloc > 0 ? rloc * ball[3 * j + k] : 0.0);
			support_pose_point(l, x, pts + 3 * m);
		}
	for (size_t i = m; l->radius > 0 && i-- > 0;) /* then grown by the world ball */
		for (int j = DEPTH_BALL; j-- > 0;)
			for (int k = 0; k < 3; k++)
				pts[3 * (i * DEPTH_BALL + j) + k] =
					pts[3 * i + k] + l->radius * ball[3 * j + k];
	m *= l->radius > 0 ? DEPTH_BALL : 1;
	free(core);
	uint32_t *tri;
	long nf = hull_faces(s, pts, m, &tri);
	if (nf <= 0)
		return nf < 0 ? (int)nf : CLASH_ENOTSUP;
	size_t bytes = clash_mesh_size(m, (size_t)nf);
	void *store = bytes ? made_alloc(s, bytes) : NULL;
	if (!store)
		return CLASH_ENOMEM;
	clash_mesh **list = realloc(s->built, (s->nbuilt + 1) * sizeof *list);
	if (!list)
		return CLASH_ENOMEM;
	s->built = list;
	err = clash_mesh_build(store, bytes, pts, m, tri, (size_t)nf, out);
	if (!err)
		s->built[s->nbuilt++] = *out;
	return err;
}

/* ---- the convex path ----------------------------------------------------- */

/* A side is convex: one leaf that is convex (a hull, a primitive, or a
 * convex mesh).  1, 0 or CLASH_ENOMEM. */
static int shape_is_convex(const clash_shape *s, const volatile int *cancel)
{
	if (s->nparts)
		return 0;
	return s->mesh ? mesh_is_convex(s->mesh, cancel) : 1;
}

/* The hull of s's vertices with its pose and radius: s without its mesh. */
static void hull_of(const clash_shape *s, clash_shape *h)
{
	*h = *s;
	h->mesh = NULL;
}

static int convex_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                        clash_result *r)
{
	clash_shape ha, hb;
	hull_of(a, &ha);
	hull_of(b, &hb);
	clash_options o = opt ? *opt : (clash_options){0};
	o.want = 0;
	clash_result h;
	int err = clash_gjk(&ha, &hb, &o, &h);
	if (err)
		return err;
	if (h.has & CLASH_HAS_DEPTH) {
		r->depth = h.depth;
		memcpy(r->depth_normal, h.depth_normal, sizeof h.depth_normal);
		memcpy(r->depth_a, h.depth_a, sizeof h.depth_a);
		memcpy(r->depth_b, h.depth_b, sizeof h.depth_b);
		r->converged = h.converged;
	} else { /* the hulls part within the tolerance: they touch */
		r->depth = 0.0;
		memcpy(r->depth_normal, h.normal, sizeof h.normal);
		memcpy(r->depth_a, r->near_a, sizeof r->near_a);
		memcpy(r->depth_b, r->near_a, sizeof r->near_a);
		r->converged = h.converged;
	}
	r->has |= CLASH_HAS_DEPTH;
	return CLASH_OK;
}

/* ---- the directional depth ------------------------------------------------ */

/* Points in the frame of u: (x, y) across it, h along it. */
typedef struct frame {
	double u[3], e1[3], e2[3];
} frame;

typedef struct pv {
	double x, y, h;
} pv;

static void frame_of(const double *u, frame *f)
{
	memcpy(f->u, u, sizeof f->u);
	int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0
	        : fabs(u[1]) <= fabs(u[2])                           ? 1
	                                                             : 2;
	double a[3] = {0, 0, 0};
	a[k] = 1.0;
	double c[3] = {u[1] * a[2] - u[2] * a[1], u[2] * a[0] - u[0] * a[2],
	               u[0] * a[1] - u[1] * a[0]};
	double n = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	for (int i = 0; i < 3; i++)
		f->e1[i] = c[i] / n;
	f->e2[0] = u[1] * f->e1[2] - u[2] * f->e1[1];
	f->e2[1] = u[2] * f->e1[0] - u[0] * f->e1[2];
	f->e2[2] = u[0] * f->e1[1] - u[1] * f->e1[0];
}

static pv project(const frame *f, const double *p)
{
	pv q = {p[0] * f->e1[0] + p[1] * f->e1[1] + p[2] * f->e1[2],
	        p[0] * f->e2[0] + p[1] * f->e2[1] + p[2] * f->e2[2],
	        p[0] * f->u[0] + p[1] * f->u[1] + p[2] * f->u[2]};
	return q;
}

/* fmin and fmax without their NaN rules (a call each, in the hot loops). */
static inline double lesser(double a, double b)
{
	return a < b ? a : b;
}

static inline double greater(double a, double b)
{
	return a > b ? a : b;
}

static double cross2(double ax, double ay, double bx, double by)
{
	return ax * by - ay * bx;
}

/* What a triangle pair's contact computation reports: where the contact
 * is last (the edge, of a's triangle when on_a, else of b's; its corner k,
 * the parameter s on it, and t) and, when `want`, the normals (in the
 * frame's coordinates, along u positive) of the contacts within eps of
 * `target`: a corner of an edge on the face, the face's normal; an edge
 * crossing an edge of the face, their cross product. */
typedef struct probe {
	double t, s;
	int on_a, k;
	int want, nm;
	double target, eps;
	double m[6][3];
} probe;

/* The normal of a contact of edge pq with triangle tr, on its side e (-1:
 * an end of the edge lies on the face), into w's list. */
static void probe_normal(probe *w, const pv *p, const pv *q, const pv *tr, int e)
{
	double d[3] = {q->x - p->x, q->y - p->y, q->h - p->h}, m[3];
	double f1[3] = {tr[1].x - tr[0].x, tr[1].y - tr[0].y, tr[1].h - tr[0].h};
	double f2[3] = {tr[2].x - tr[0].x, tr[2].y - tr[0].y, tr[2].h - tr[0].h};
	cross3(f1, f2, m);
	if (e >= 0) {
		const pv *a = &tr[e], *b = &tr[(e + 1) % 3];
		double g[3] = {b->x - a->x, b->y - a->y, b->h - a->h}, x[3];
		cross3(d, g, x);
		double lx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
		double lm = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
		if (lx > 1e-6 * lm)
			memcpy(m, x, sizeof m); /* not parallel: the edges' common normal */
	}
	double len = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
	if (!(len > 0) || fabs(m[2]) <= 1e-9 * len || w->nm == 6)
		return;
	double sg = m[2] > 0 ? 1.0 : -1.0;
	for (int k = 0; k < 3; k++)
		w->m[w->nm][k] = sg * m[k] / len;
	w->nm++;
}

/* The t at which edge pq (of a when on_a, else of b), lying over the
 * triangle tr (of the other side; twice its signed area D) in projection,
 * meets it: t = h_a - h_b, linear along the edge, so the extremes are at
 * the ends of the part of the edge over the triangle (each side of the
 * triangle let out by `slack`, a rounding margin).  Widens [*lo, *hi]. */
static void edge_over(const pv *p, const pv *q, const pv *tr, double D, int on_a, double slack,
                      double *lo, double *hi, probe *w, int k)
{
	double s0 = 0.0, s1 = 1.0, sg = D > 0 ? 1.0 : -1.0;
	int by0 = -1, by1 = -1; /* the side of the triangle that cut each end */
	for (int e = 0; e < 3 && s0 <= s1; e++) {
		const pv *a = &tr[e], *b = &tr[(e + 1) % 3];
		double ex = b->x - a->x, ey = b->y - a->y, len = sqrt(ex * ex + ey * ey);
		double f0 = sg * cross2(ex, ey, p->x - a->x, p->y - a->y) + slack * len;
		double f1 = sg * cross2(ex, ey, q->x - a->x, q->y - a->y) + slack * len;
		if (f0 < 0 && f1 < 0)
			return;
		if (f0 < 0 && f0 / (f0 - f1) > s0)
			s0 = f0 / (f0 - f1), by0 = e;
		else if (f1 < 0 && f0 / (f0 - f1) < s1)
			s1 = f0 / (f0 - f1), by1 = e;
	}
	if (s0 > s1)
		return;
	for (int end = 0; end < 2; end++) {
		double s = end ? s1 : s0;
		double x = p->x + s * (q->x - p->x), y = p->y + s * (q->y - p->y);
		double hs = p->h + s * (q->h - p->h), ht = 0.0;
		for (int c = 0; c < 3; c++) {
			const pv *m = &tr[(c + 1) % 3], *n = &tr[(c + 2) % 3];
			ht += tr[c].h * cross2(m->x - x, m->y - y, n->x - x, n->y - y) / D;
		}
		double t = on_a ? hs - ht : ht - hs;
		*lo = lesser(*lo, t);
		*hi = greater(*hi, t);
		if (w && t > w->t)
			w->t = t, w->s = s, w->on_a = on_a, w->k = k;
		if (w && w->want && fabs(t - w->target) <= w->eps)
			probe_normal(w, p, q, tr, end ? by1 : by0);
	}
}

/* Twice the signed area of a projected triangle, 0 when it is flat to
 * rounding (parallel to u: its contacts are its edges', found with the
 * faces next to it). */
static double area2(const pv *t)
{
	double D = cross2(t[1].x - t[0].x, t[1].y - t[0].y, t[2].x - t[0].x, t[2].y - t[0].y);
	double s = 0.0;
	for (int c = 0; c < 3; c++) {
		double dx = t[(c + 1) % 3].x - t[c].x, dy = t[(c + 1) % 3].y - t[c].y;
		s = fmax(s, dx * dx + dy * dy);
	}
	return fabs(D) > 64 * DBL_EPSILON * s ? D : 0.0;
}

/* The interval of t over which triangle ta of a and tb of b moved by t u
 * meet: [*lo, *hi], or 0 when they never do. */
static int tri_span(const frame *f, const double *ta, const double *tb, double slack, double *lo,
                    double *hi, probe *w)
{
	pv pa[3], pb[3];
	for (int c = 0; c < 3; c++) {
		pa[c] = project(f, ta + 3 * c);
		pb[c] = project(f, tb + 3 * c);
	}
	for (int axis = 0; axis < 2; axis++) {
		double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
		for (int c = 0; c < 3; c++) {
			double va = axis ? pa[c].y : pa[c].x, vb = axis ? pb[c].y : pb[c].x;
			amin = lesser(amin, va), amax = greater(amax, va);
			bmin = lesser(bmin, vb), bmax = greater(bmax, vb);
		}
		if (amin > bmax + slack || bmin > amax + slack)
			return 0;
	}
	*lo = INFINITY;
	*hi = -INFINITY;
	double Da = area2(pa), Db = area2(pb);
	for (int k = 0; k < 3; k++) {
		if (Da != 0.0)
			edge_over(&pb[k], &pb[(k + 1) % 3], pa, Da, 0, slack, lo, hi, w, k);
		if (Db != 0.0)
			edge_over(&pa[k], &pa[(k + 1) % 3], pb, Db, 1, slack, lo, hi, w, k);
	}
	return *lo <= *hi;
}

/* ---- one direction --------------------------------------------------------- */

typedef struct span {
	double lo, hi;
	uint32_t ia, ib; /* triangles of the sides' arrays */
} span;

typedef struct search {
	const clash_shape *a, *b;
	clash_options vopt; /* the verdict-only query of a gap */
	side sa, sb;
	double slack; /* rounding margin, world units */
	double merge; /* gaps this short are not looked into (the tolerance) */
	double size;
	span *spans;
	size_t nspans, cap;
	struct event *ev, *ready;
	size_t nev, evcap, nready, readycap;
	size_t visits;
	int evals, max_evals;
	int gave_up; /* a direction held too many pairs, or the work ran out */
	size_t work; /* triangle pairs examined */
	/* corners of b's triangles inside a (ia), of a's inside b (ib) */
	double probes[2][DEPTH_PROBES][3];
	int nprobes[2];
	int approx; /* a convex leaf was taken as a larger polytope */
	/* the best direction so far */
	double best, u[3], point[3];
	int have;
	/* face normals of triangles crossing at t = 0 (first direction) */
	double normals[DEPTH_NORMALS][3];
	int nnormals, want_normals;
	/* the contacts where the best direction's move ends: b stays clear of
	 * each while m . v >= c (m, c as 4 numbers) */
	double cons[DEPTH_CONSTRAINTS][4];
	int stamp[DEPTH_CONSTRAINTS]; /* the best (by count) where last active */
	int ncons, nbest, best_stamp;
} search;

static int cancelled(const search *s)
{
	return cancel_requested(s->vopt.cancel);
}

/* Room for one more in *arr (n used of *cap, elements of `size` bytes):
 * doubled when full, up to DEPTH_MAX_SPANS. */
static int room_for(void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return CLASH_OK;
	if (*cap >= DEPTH_MAX_SPANS)
		return CLASH_ELIMIT;
	size_t c = *cap ? 2 * *cap : 1024;
	void *grown = realloc(*(void **)arr, c * size);
	if (!grown)
		return CLASH_ENOMEM;
	*(void **)arr = grown;
	*cap = c;
	return CLASH_OK;
}

static int push_span(search *s, double lo, double hi, size_t ia, size_t ib)
{
	int err = room_for(&s->spans, s->nspans, &s->cap, sizeof *s->spans);
	if (!err)
		s->spans[s->nspans++] = (span){lo, hi, (uint32_t)ia, (uint32_t)ib};
	return err;
}

/* The extent of box x (lo, hi) along axis e: its centre's and half width. */
static void box_along(const double *x, const double *e, double *c, double *h)
{
	*c = 0.0;
	*h = 0.0;
	for (int k = 0; k < 3; k++) {
		*c += 0.5 * (x[k] + x[3 + k]) * e[k];
		*h += 0.5 * (x[3 + k] - x[k]) * fabs(e[k]);
	}
}

/* When box x of a and box y of b moved by t u may first meet: into *t0,
 * and 1 when they overlap across u (along e1, e2) and may meet for some
 * t >= 0. */
static int boxes_meet(const double *x, const double *y, const frame *f, double slack, double *t0)
{
	double cx, hx, cy, hy;
	box_along(x, f->e1, &cx, &hx);
	box_along(y, f->e1, &cy, &hy);
	if (fabs(cx - cy) > hx + hy + slack)
		return 0;
	box_along(x, f->e2, &cx, &hx);
	box_along(y, f->e2, &cy, &hy);
	if (fabs(cx - cy) > hx + hy + slack)
		return 0;
	box_along(x, f->u, &cx, &hx);
	box_along(y, f->u, &cy, &hy);
	/* y + t u meets x along u for t in [cx - cy - hx - hy, cx - cy + hx + hy] */
	*t0 = cx - cy - hx - hy - slack;
	return cx - cy + hx + hy >= -slack;
}

/* Do a and b moved by t u meet (the verdict of clash_gjk)?  1, 0 or an
 * error. */
static int meets_at(search *s, const double *u, double t)
{
	clash_shape m;
	double v[3] = {t * u[0], t * u[1], t * u[2]};
	mesh_depth_shifted(s->b, v, &m);
	clash_result r;
	int err = clash_gjk(s->a, &m, &s->vopt, &r);
	return err ? err : r.intersecting;
}

/* ---- one direction: the overlap swept in order of t ----------------------- */

/* What waits to be swept: a pair of tree nodes (kind 0: nodes a, b of
 * leaves pair = i * nb + j), from the first t they may meet; or a pair of
 * triangles (kind 1: a, b in the sides' arrays) meeting over [key, hi]. */
typedef struct event {
	double key, hi;
	uint32_t a, b, pair, kind;
} event;

static int ev_push(search *s, event e)
{
	int err = room_for(&s->ev, s->nev, &s->evcap, sizeof *s->ev);
	if (err)
		return err;
	size_t i = s->nev++;
	while (i > 0 && s->ev[(i - 1) / 2].key > e.key) {
		s->ev[i] = s->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->ev[i] = e;
	return CLASH_OK;
}

static event ev_pop(search *s)
{
	event top = s->ev[0], last = s->ev[--s->nev];
	size_t i = 0, n = s->nev;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && s->ev[c + 1].key < s->ev[c].key)
			c++;
		if (s->ev[c].key >= last.key)
			break;
		s->ev[i] = s->ev[c];
		i = c;
	}
	if (n)
		s->ev[i] = last;
	return top;
}

/* Work that may start within the part swept so far goes on a stack (in
 * any order: it is all taken before the part can end), the rest on the
 * heap by when it may start. */
static int defer(search *s, event e, double cur)
{
	if (e.key > cur + s->merge)
		return ev_push(s, e);
	int err = room_for(&s->ready, s->nready, &s->readycap, sizeof *s->ready);
	if (!err)
		s->ready[s->nready++] = e;
	return err;
}

static int push_nodes(search *s, const frame *f, uint32_t pair, uint32_t p, uint32_t q, double cur)
{
	const leaf *la = &s->sa.leaves[pair / s->sb.nleaves],
		   *lb = &s->sb.leaves[pair % s->sb.nleaves];
	double t0;
	if (!boxes_meet(la->box + 6 * (size_t)p, lb->box + 6 * (size_t)q, f, s->slack, &t0))
		return CLASH_OK;
	return defer(s, (event){t0, 0.0, p, q, pair, 0}, cur);
}

/* A node pair's turn: its children's pairs, or its triangles' spans. */
static int expand(search *s, const frame *f, const event *e, double cur)
{
	const leaf *la = &s->sa.leaves[e->pair / s->sb.nleaves];
	const leaf *lb = &s->sb.leaves[e->pair % s->sb.nleaves];
	const mesh_node *x = &la->m->nodes[e->a], *y = &lb->m->nodes[e->b];
	int err = CLASH_OK;
	if (x->count && y->count) {
		for (uint32_t i = x->first; i < x->first + x->count && !err; i++)
			for (uint32_t j = y->first; j < y->first + y->count && !err; j++) {
				size_t ia = la->tri0 + i, ib = lb->tri0 + j;
				double lo, hi;
				if (++s->work > DEPTH_MAX_WORK)
					return CLASH_ELIMIT;
				if (tri_span(f, s->sa.tri + 9 * ia, s->sb.tri + 9 * ib, s->slack,
				             &lo, &hi, NULL) &&
				    hi >= -s->slack)
					err = defer(s,
					            (event){lo, hi, (uint32_t)ia, (uint32_t)ib, 0,
					                    1},
					            cur);
			}
		return err;
	}
	const double *bx = la->box + 6 * (size_t)e->a, *by = lb->box + 6 * (size_t)e->b;
	double ex = 0, ey = 0;
	for (int k = 0; k < 3; k++)
		ex = fmax(ex, bx[3 + k] - bx[k]), ey = fmax(ey, by[3 + k] - by[k]);
	int split_a = y->count || (!x->count && ex >= ey);
	for (uint32_t c = 0; c < 2 && !err; c++)
		err = split_a ? push_nodes(s, f, e->pair, x->first + c, e->b, cur)
		              : push_nodes(s, f, e->pair, e->a, y->first + c, cur);
	return err;
}

enum {
	SWEEP_DONE = 0,
	SWEEP_ABOVE = 1
};

/* The end of the overlap's part that holds t = 0 along f->u: node pairs
 * and triangle pairs taken in order of the first t they may meet, each
 * triangle pair's span joining the part when it starts within it; where
 * nothing is left to start within it, a verdict at a point of the gap
 * says whether one lies inside the other across it.  *t and the span
 * that ends it (*last; last->hi < 0 for none); SWEEP_ABOVE as soon as it
 * passes limit.  The spans taken stay in s->spans. */
static int sweep(search *s, const frame *f, double limit, double *t, span *last)
{
	double cur = 0.0;
	int err = CLASH_OK;
	s->nev = s->nready = s->nspans = 0;
	last->hi = -1.0;
	for (size_t i = 0; i < s->sa.nleaves * s->sb.nleaves && !err; i++)
		err = push_nodes(s, f, (uint32_t)i, 0, 0, cur);
	while (!err) {
		if (++s->visits % DEPTH_CANCEL_EVERY == 0 && cancelled(s))
			return CLASH_ECANCELED;
		event e;
		if (s->nready)
			e = s->ready[--s->nready];
		else if (s->nev && s->ev[0].key <= cur + s->merge)
			e = ev_pop(s);
		else if (s->nev == 0) {
			break; /* nothing meets past cur: apart from there on */
		} else {
			double next = s->ev[0].key;
			int in = meets_at(s, f->u, 0.5 * (cur + fmin(next, limit + s->merge)));
			if (in < 0)
				return in;
			if (!in)
				break;
			if (next > limit)
				return SWEEP_ABOVE;
			cur = next; /* one inside the other across the gap */
			continue;
		}
		if (e.kind == 0) {
			err = expand(s, f, &e, cur);
			continue;
		}
		err = push_span(s, e.key, e.hi, e.a, e.b);
		if (!err && e.hi > cur) {
			cur = e.hi;
			*last = s->spans[s->nspans - 1];
			if (cur > limit)
				return SWEEP_ABOVE;
		}
	}
	*t = cur;
	return err;
}

/* How far b must move along u to clear a's box: past it, nothing meets. */
static double clear_along(const search *s, const double *u)
{
	double amax = -INFINITY, bmin = INFINITY;
	for (size_t i = 0; i < s->sa.nleaves; i++) {
		const double *x = s->sa.leaves[i].box;
		double c = 0;
		for (int k = 0; k < 3; k++)
			c += fmax(u[k] * x[k], u[k] * x[3 + k]);
		amax = fmax(amax, c);
	}
	for (size_t j = 0; j < s->sb.nleaves; j++) {
		const double *y = s->sb.leaves[j].box;
		double c = 0;
		for (int k = 0; k < 3; k++)
			c += fmin(u[k] * y[k], u[k] * y[3 + k]);
		bmin = fmin(bmin, c);
	}
	return fmax(amax - bmin, 0.0) + s->slack;
}

static const leaf *leaf_of(const side *sd, size_t tri)
{
	size_t lo = 0, hi = sd->nleaves;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sd->leaves[mid].tri0 <= tri)
			lo = mid;
		else
			hi = mid;
	}
	return &sd->leaves[lo];
}

/* The outward unit normal of triangle i of side sd, or 0 for a flat one. */
static int normal_of(const side *sd, size_t i, double *n)
{
	const double *t = sd->tri + 9 * i;
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++)
		e1[k] = t[3 + k] - t[k], e2[k] = t[6 + k] - t[k];
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) * leaf_of(sd, i)->sign;
	if (!(fabs(len) > 0))
		return 0;
	for (int k = 0; k < 3; k++)
		n[k] /= len;
	return 1;
}

/* Candidates from the triangles crossing at t = 0: a's outward normals
 * (b pushed out through that face) and b's inward ones. */
static void take_normals(search *s)
{
	size_t crossing = 0;
	for (size_t i = 0; i < s->nspans; i++)
		crossing += s->spans[i].lo <= 0.0 && s->spans[i].hi >= 0.0;
	size_t every = crossing / (DEPTH_NORMALS / 2) + 1, seen = 0;
	for (size_t i = 0; i < s->nspans && s->nnormals + 2 <= DEPTH_NORMALS; i++) {
		const span *p = &s->spans[i];
		if (!(p->lo <= 0.0 && p->hi >= 0.0) || seen++ % every)
			continue;
		if (normal_of(&s->sa, p->ia, s->normals[s->nnormals]))
			s->nnormals++;
		double *n = s->normals[s->nnormals];
		if (normal_of(&s->sb, p->ib, n)) {
			n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
			s->nnormals++;
		}
	}
}

/* The point where span `which` ends: on a's surface, where the two touch
 * once b has moved by its hi along u. */
static void witness_point(const search *s, const frame *f, const span *p, double *x)
{
	probe w = {.t = -INFINITY};
	double lo, hi;
	const double *ta = s->sa.tri + 9 * (size_t)p->ia, *tb = s->sb.tri + 9 * (size_t)p->ib;
	tri_span(f, ta, tb, s->slack, &lo, &hi, &w);
	const double *t = w.on_a ? ta : tb;
	const double *p0 = t + 3 * w.k, *p1 = t + 3 * ((w.k + 1) % 3);
	for (int k = 0; k < 3; k++)
		x[k] = p0[k] + w.s * (p1[k] - p0[k]) + (w.on_a ? 0.0 : p->hi * f->u[k]);
}

/* The contacts active where b, moved by t u, leaves a (the spans ending
 * at t), added to those of the earlier best directions (the oldest
 * dropped when they are too many).  An edge of b on a face of a stays clear while b moves along the
 * face's outward normal m, an edge of a on a face of b along minus b's
 * normal: m . v >= m . t u, exact while the contact stays on the face and
 * edge (Je, Tang, Lee, Lee, Kim 2012: the contact space, locally). */
static void add_contact(search *s, const double *m, double c)
{
	int at = -1, old = 0;
	for (int q = 0; q < s->ncons && at < 0; q++)
		if (fabs(s->cons[q][0] - m[0]) + fabs(s->cons[q][1] - m[1]) +
		            fabs(s->cons[q][2] - m[2]) + fabs(s->cons[q][3] - c) <
		    1e-9 * (1 + fabs(c)))
			at = q;
	for (int q = 1; q < s->ncons; q++)
		if (s->stamp[q] < s->stamp[old])
			old = q;
	if (at < 0)
		at = s->ncons < DEPTH_CONSTRAINTS ? s->ncons++ : old;
	memcpy(s->cons[at], m, 3 * sizeof *m);
	s->cons[at][3] = c;
	s->stamp[at] = s->nbest;
}

static void gather_contacts(search *s, const frame *f, double t)
{
	double eps = DEPTH_ACTIVE * s->size;
	s->nbest++;
	for (size_t i = 0; i < s->nspans; i++) {
		const span *p = &s->spans[i];
		if (p->lo > t + eps || fabs(p->hi - t) > eps)
			continue;
		probe w = {.t = -INFINITY, .want = 1, .target = t, .eps = eps};
		double lo, hi;
		tri_span(f, s->sa.tri + 9 * (size_t)p->ia, s->sb.tri + 9 * (size_t)p->ib, s->slack,
		         &lo, &hi, &w);
		for (int j = 0; j < w.nm; j++) {
			double m[3];
			for (int k = 0; k < 3; k++)
				m[k] = w.m[j][0] * f->e1[k] + w.m[j][1] * f->e2[k] +
				       w.m[j][2] * f->u[k];
			add_contact(s, m, w.m[j][2] * t);
		}
	}
}

/* ---- a lower bound on t(u) by rays ------------------------------------------ */

/* Corners of the triangles of side `from` that the shape `other` holds at
 * the start, spread over them, into s->probes[k]. */
static int find_probes(search *s, const side *from, const clash_shape *other, int k)
{
	size_t step = from->ntri / (4 * DEPTH_PROBES) + 1;
	for (size_t i = 0; i < from->ntri && s->nprobes[k] < DEPTH_PROBES; i += step) {
		const double *p = from->tri + 9 * i;
		clash_shape pt;
		clash_result r;
		clash_shape_init(&pt, 3, p, 1);
		int err = clash_gjk(other, &pt, &s->vopt, &r);
		if (err)
			return err;
		if (r.intersecting)
			memcpy(s->probes[k][s->nprobes[k]++], p, 3 * sizeof *p);
	}
	return CLASH_OK;
}

/* The ray p + t d meets triangle w (its edges let out a little, so that
 * a ray through a shared edge meets one of its triangles) for some t in
 * [0, tmax]? */
static int ray_meets(const double *p, const double *d, const double *w, double tmax)
{
	double e1[3], e2[3], q[3], h[3], sv[3];
	for (int k = 0; k < 3; k++)
		e1[k] = w[3 + k] - w[k], e2[k] = w[6 + k] - w[k], sv[k] = p[k] - w[k];
	cross3(d, e2, h);
	double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
	if (det == 0.0)
		return 0;
	double f = 1.0 / det, eps = 1e-9;
	double u = f * (sv[0] * h[0] + sv[1] * h[1] + sv[2] * h[2]);
	if (u < -eps || u > 1 + eps)
		return 0;
	cross3(sv, e1, q);
	double v = f * (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]);
	if (v < -eps || u + v > 1 + eps)
		return 0;
	double t = f * (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]);
	return t >= -eps && t <= tmax;
}

/* Does the ray p + t d, t in [0, tmax], meet a triangle of side sd? */
static int ray_hits(const side *sd, const double *p, const double *d, double tmax, double slack)
{
	for (size_t l = 0; l < sd->nleaves; l++) {
		const leaf *lf = &sd->leaves[l];
		uint32_t stack[128];
		int n = 0;
		stack[n++] = 0;
		while (n > 0) {
			uint32_t i = stack[--n];
			const double *b = lf->box + 6 * (size_t)i;
			double t0 = 0.0, t1 = tmax;
			for (int k = 0; k < 3 && t0 <= t1; k++) {
				double lo = b[k] - slack - p[k], hi = b[3 + k] + slack - p[k];
				if (d[k] == 0.0) {
					if (lo > 0 || hi < 0)
						t0 = INFINITY;
					continue;
				}
				double a = lo / d[k], c = hi / d[k];
				t0 = fmax(t0, fmin(a, c));
				t1 = fmin(t1, fmax(a, c));
			}
			if (t0 > t1)
				continue;
			const mesh_node *nd = &lf->m->nodes[i];
			if (nd->count) {
				for (uint32_t j = nd->first; j < nd->first + nd->count; j++)
					if (ray_meets(p, d, sd->tri + 9 * (lf->tri0 + j), tmax))
						return 1;
			} else if (n + 2 <= 128) {
				stack[n++] = nd->first;
				stack[n++] = nd->first + 1;
			} else {
				return 1; /* too deep to follow: no bound */
			}
		}
	}
	return 0;
}

/* t(u) is at least the best so far: a corner of b inside a must cross
 * a's surface before b has left a, and one of a inside b b's; a ray that
 * meets none within the best says so. */
static int beyond_best(const search *s, const double *u)
{
	double back[3] = {-u[0], -u[1], -u[2]};
	for (int i = 0; i < s->nprobes[0]; i++)
		if (!ray_hits(&s->sa, s->probes[0][i], u, s->best, s->slack))
			return 1;
	for (int i = 0; i < s->nprobes[1]; i++)
		if (!ray_hits(&s->sb, s->probes[1][i], back, s->best, s->slack))
			return 1;
	return 0;
}

/* t(u) into *t when it is below the best so far (which it then becomes),
 * else INFINITY; with `learn`, also up to twice the best, and the contacts
 * where it ends are kept either way. */
static int eval_dir(search *s, const double *u_in, int learn, double *t)
{
	double len = sqrt(u_in[0] * u_in[0] + u_in[1] * u_in[1] + u_in[2] * u_in[2]);
	double u[3] = {u_in[0] / len, u_in[1] / len, u_in[2] / len};
	frame f;
	frame_of(u, &f);
	*t = INFINITY;
	s->evals++;
	if (cancelled(s))
		return CLASH_ECANCELED;
	if (!learn && s->have && beyond_best(s, u))
		return CLASH_OK;
	double clear = clear_along(s, u), limit = fmin(learn ? 2 * s->best : s->best, clear);
	double found = 0.0;
	span last = {0, -1.0, 0, 0};
	int w = sweep(s, &f, limit, &found, &last);
	if (w == CLASH_ELIMIT) {
		s->gave_up = 1;
		return CLASH_OK;
	}
	if (w < 0)
		return w;
	if (s->want_normals) {
		take_normals(s);
		s->want_normals = 0;
	}
	if (w == SWEEP_ABOVE)
		return CLASH_OK;
	if (learn || found < s->best)
		gather_contacts(s, &f, found);
	if (found >= s->best && (s->have != 2 || found > s->best))
		return CLASH_OK;
	*t = s->best = found;
	s->best_stamp = s->nbest;
	memcpy(s->u, u, sizeof s->u);
	s->have = 1;
	if (last.hi >= 0)
		witness_point(s, &f, &last, s->point);
	else
		s->point[0] = NAN;
	return CLASH_OK;
}

/* ---- the search over directions ------------------------------------------ */

static int budget_left(const search *s)
{
	return s->evals < s->max_evals && s->work <= DEPTH_MAX_WORK;
}

/* The hulls' EPA direction (its depth bounds the answer: parting the hulls
 * parts the shapes), the axes, the normals of the crossing faces, and a
 * Fibonacci sphere. */
static int candidates(search *s)
{
	double t, u[3];
	clash_shape ha, hb;
	clash_result h;
	int err;
	if (!s->a->nparts && !s->b->nparts) {
		hull_of(s->a, &ha);
		hull_of(s->b, &hb);
		clash_options o = s->vopt;
		o.want = 0;
		err = clash_gjk(&ha, &hb, &o, &h);
		if (err)
			return err;
		if ((h.has & CLASH_HAS_DEPTH) && h.depth > 0) {
			/* a bound to start from, until a direction is swept */
			s->best = h.depth * (1 + 1e-9) + 2 * s->merge;
			memcpy(s->u, h.depth_normal, sizeof s->u);
			memcpy(s->point, h.depth_a, sizeof s->point);
			s->have = 2;
			s->want_normals = 1;
			if ((err = eval_dir(s, h.depth_normal, 0, &t)))
				return err;
		}
	}
	for (int k = 0; k < 6 && budget_left(s); k++) {
		u[0] = u[1] = u[2] = 0.0;
		u[k / 2] = k % 2 ? -1.0 : 1.0;
		s->want_normals = s->evals == 0;
		if ((err = eval_dir(s, u, 0, &t)))
			return err;
	}
	for (int i = 0; i < s->nnormals && budget_left(s); i++)
		if ((err = eval_dir(s, s->normals[i], 0, &t)))
			return err;
	const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
	for (int i = 0; i < DEPTH_FIBONACCI && budget_left(s); i++) {
		double z = 1.0 - (2.0 * i + 1.0) / DEPTH_FIBONACCI, r = sqrt(1.0 - z * z);
		trig_sincos(golden * i, &u[1], &u[0]);
		u[0] *= r, u[1] *= r, u[2] = z;
		if ((err = eval_dir(s, u, 0, &t)))
			return err;
	}
	return CLASH_OK;
}

/* Solve the k x k system g x = c (k <= 3) by Cramer's rule; 0 when g is
 * near singular. */
static int solve_small(int k, const double g[3][3], const double *c, double *x)
{
	if (k == 1) {
		x[0] = c[0] / g[0][0];
		return 1;
	}
	if (k == 2) {
		double d = g[0][0] * g[1][1] - g[0][1] * g[1][0];
		if (fabs(d) < 1e-12)
			return 0;
		x[0] = (c[0] * g[1][1] - g[0][1] * c[1]) / d;
		x[1] = (g[0][0] * c[1] - c[0] * g[1][0]) / d;
		return 1;
	}
	double d = g[0][0] * (g[1][1] * g[2][2] - g[1][2] * g[2][1]) -
	           g[0][1] * (g[1][0] * g[2][2] - g[1][2] * g[2][0]) +
	           g[0][2] * (g[1][0] * g[2][1] - g[1][1] * g[2][0]);
	if (fabs(d) < 1e-12)
		return 0;
	for (int i = 0; i < 3; i++) {
		double h[3][3];
		memcpy(h, g, sizeof h);
		for (int r = 0; r < 3; r++)
			h[r][i] = c[r];
		x[i] = (h[0][0] * (h[1][1] * h[2][2] - h[1][2] * h[2][1]) -
		        h[0][1] * (h[1][0] * h[2][2] - h[1][2] * h[2][0]) +
		        h[0][2] * (h[1][0] * h[2][1] - h[1][1] * h[2][0])) /
		       d;
	}
	return 1;
}

/* Whether contact q takes part in a projection: now, only those where the
 * best move ends; else those near the best move's end that it keeps
 * clear of (a contact it breaks was seen elsewhere: its plane says
 * nothing here). */
static int usable(const search *s, int q, int now)
{
	if (now)
		return s->stamp[q] == s->best_stamp;
	const double *c = s->cons[q];
	double gap = s->best * (c[0] * s->u[0] + c[1] * s->u[1] + c[2] * s->u[2]) - c[3];
	return gap >= -DEPTH_ACTIVE * s->size && gap <= 0.5 * s->best;
}

/* The least norm point of the planes of contacts id[0 .. m-1], when its
 * multipliers are nonnegative and it keeps clear of every contact: into
 * v when shorter than *best. */
static void try_subset(const search *s, const int *id, int m, int now, double *best, double *v)
{
	double g[3][3], c[3], lam[3], x[3] = {0, 0, 0}, tol = DEPTH_ACTIVE * s->size;
	for (int r = 0; r < m; r++) {
		c[r] = s->cons[id[r]][3];
		for (int q = 0; q < m; q++)
			g[r][q] = s->cons[id[r]][0] * s->cons[id[q]][0] +
			          s->cons[id[r]][1] * s->cons[id[q]][1] +
			          s->cons[id[r]][2] * s->cons[id[q]][2];
	}
	if (!solve_small(m, g, c, lam))
		return;
	for (int r = 0; r < m; r++) {
		if (lam[r] < 0)
			return;
		for (int k = 0; k < 3; k++)
			x[k] += lam[r] * s->cons[id[r]][k];
	}
	for (int q = 0; q < s->ncons; q++)
		if (usable(s, q, now) &&
		    s->cons[q][0] * x[0] + s->cons[q][1] * x[1] + s->cons[q][2] * x[2] <
		            s->cons[q][3] - tol)
			return;
	double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
	if (len < *best && len > 0) {
		*best = len;
		memcpy(v, x, sizeof x);
	}
}

/* The shortest v that keeps clear of the usable contacts: the least norm
 * point of their half-spaces, found among the subsets of up to three (in
 * 3-D the optimum has at most three active).  |v|, or INFINITY. */
static double contact_project(const search *s, int now, double *v)
{
	double best = INFINITY;
	int n = s->ncons;
	for (int i = 0; i < n; i++) {
		int id[3] = {i, 0, 0};
		if (!usable(s, i, now))
			continue;
		try_subset(s, id, 1, now, &best, v);
		for (id[1] = i + 1; id[1] < n; id[1]++) {
			if (!usable(s, id[1], now))
				continue;
			try_subset(s, id, 2, now, &best, v);
			for (id[2] = id[1] + 1; id[2] < n; id[2]++)
				if (usable(s, id[2], now))
					try_subset(s, id, 3, now, &best, v);
		}
	}
	return best;
}

/* Local refinement about the best direction.  First the contact space
 * (Je et al. 2012): the shortest move that clears the contacts where the
 * best move ends, its direction evaluated exactly; when none is shorter
 * by more than the tolerance, the best is a local optimum (*settled = 1).
 * Otherwise a pattern search on the sphere: the four neighbours at angle
 * theta (the frame turned by 45 degrees every other round), moving to one
 * that is shallower, else halving theta, until theta times the depth is
 * within the tolerance (*settled = 1) or the budget runs out. */
static int refine(search *s, int *settled)
{
	double theta = DEPTH_FIRST_STEP;
	int round = 0, seen = -1, misses = 0;
	*settled = 0;
	while (budget_left(s)) {
		double v[3], t, before = s->best;
		if (seen != s->best_stamp) {
			seen = s->best_stamp;
			misses = 0;
			if (contact_project(s, 1, v) >= s->best - s->merge) {
				*settled =
					1; /* no shorter move clears the contacts where it ends */
				return CLASH_OK;
			}
		}
		/* the contacts seen so far, those where proposals ended included */
		if (misses < DEPTH_MISSES && contact_project(s, 0, v) < s->best - s->merge) {
			int err = eval_dir(s, v, 1, &t);
			if (err)
				return err;
			misses += s->best >= before;
			continue;
		}
		if (theta * s->best <= s->merge || theta < 1e-15)
			return CLASH_OK; /* the pattern bottomed out: not a certificate */
		frame f;
		frame_of(s->u, &f);
		double c, sn, g = round++ % 2 ? sqrt(0.5) : 1.0;
		trig_sincos(theta, &sn, &c);
		double base[3];
		memcpy(base, s->u, sizeof base);
		for (int k = 0; k < 4 && s->best >= before; k++) {
			double a = k < 2 ? 1.0 : 0.0, b = k < 2 ? 0.0 : 1.0,
			       sg = k % 2 ? -1.0 : 1.0;
			double x = g == 1.0 ? a : g * (a - b), y = g == 1.0 ? b : g * (a + b), u[3];
			for (int i = 0; i < 3; i++)
				u[i] = c * base[i] + sg * sn * (x * f.e1[i] + y * f.e2[i]);
			int err = eval_dir(s, u, 0, &t);
			if (err)
				return err;
		}
		if (s->best >= before)
			theta *= 0.5;
	}
	return CLASH_OK;
}

static int search_run(search *s, clash_result *r)
{
	int settled = 0, err = find_probes(s, &s->sb, s->a, 0);
	if (!err)
		err = find_probes(s, &s->sa, s->b, 1);
	if (!err)
		err = candidates(s);
	if (!err && s->have)
		err = refine(s, &settled);
	if (err)
		return err;
	if (!s->have)
		return CLASH_ELIMIT;
	r->depth = s->best;
	memcpy(r->depth_normal, s->u, sizeof s->u);
	if (isnan(s->point[0]))
		memcpy(s->point, r->near_a, sizeof s->point);
	for (int k = 0; k < 3; k++) {
		r->depth_a[k] = s->point[k];
		r->depth_b[k] = s->point[k] - s->best * s->u[k];
	}
	/* the move must part them: checked once more by the verdict */
	int in = meets_at(s, s->u, s->best * (1 + 1e-9) + 2 * s->merge);
	if (in < 0)
		return in;
	r->converged = settled && !s->gave_up && !in && !s->approx;
	r->has |= CLASH_HAS_DEPTH;
	return CLASH_OK;
}

static int nonconvex_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                           clash_result *r)
{
	search s;
	memset(&s, 0, sizeof s);
	s.a = a;
	s.b = b;
	s.vopt = opt ? *opt : (clash_options){0};
	s.vopt.want = CLASH_WANT_VERDICT;
	s.vopt.warm_count = 0;
	s.max_evals = opt && opt->max_iterations > 0 ? opt->max_iterations : DEPTH_MAX_EVALS;
	s.best = INFINITY;
	int err = side_load(&s.sa, a, 1);
	if (!err)
		err = side_load(&s.sb, b, 1);
	if (!err && (s.sa.others || s.sb.others))
		err = CLASH_ENOTSUP;
	s.approx = s.sa.approx || s.sb.approx;
	if (!err) {
		double lo[3], hi[3];
		for (int k = 0; k < 3; k++)
			lo[k] = INFINITY, hi[k] = -INFINITY;
		for (size_t i = 0; i < s.sa.nleaves; i++)
			grow(lo, hi, s.sa.leaves[i].box), grow(lo, hi, s.sa.leaves[i].box + 3);
		for (size_t i = 0; i < s.sb.nleaves; i++)
			grow(lo, hi, s.sb.leaves[i].box), grow(lo, hi, s.sb.leaves[i].box + 3);
		for (int k = 0; k < 3; k++)
			s.size += (hi[k] - lo[k]) * (hi[k] - lo[k]);
		s.size = sqrt(s.size);
		s.slack = 64 * DBL_EPSILON *
		          (s.size + fmax(fabs(lo[0]), fmax(fabs(lo[1]), fabs(lo[2]))) +
		           fmax(fabs(hi[0]), fmax(fabs(hi[1]), fabs(hi[2]))));
		s.merge = opt && opt->tolerance > 0 ? opt->tolerance : 1e-12 * s.size;
		s.merge = fmax(s.merge, s.slack);
		err = search_run(&s, r);
	}
	free(s.spans);
	free(s.ev);
	free(s.ready);
	side_free(&s.sa);
	side_free(&s.sb);
	return err;
}

/* A closed mesh leaf against a ball: its exact directional depths
 * (sphere_depth.c).  1 with *err set when it applies. */
static int ball_against_mesh(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                             clash_result *r, int *err)
{
	double c[3], rad;
	for (int x = 0; x < 2; x++) {
		const clash_shape *m = x ? b : a, *ball = x ? a : b;
		if (m->mesh && m->radius == 0.0 && m->mesh->topo.closed &&
		    ov_ball_of(ball, c, &rad)) {
			*err = sphere_depth(m, c, rad, !x, opt, r);
			return 1;
		}
	}
	return 0;
}

int clash_mesh_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	if (a == NULL || b == NULL)
		return CLASH_EINVAL;
	if (a->dim != 3 || b->dim != 3)
		return CLASH_EDIM;
	int err = clash_gjk(a, b, opt, r);
	if (err)
		return err;
	side sa, sb;
	err = side_load(&sa, a, 0);
	if (!err)
		err = side_load(&sb, b, 0);
	if (err) {
		memset(r, 0, sizeof *r);
		return err;
	}
	r->has |= CLASH_HAS_MESH;
	r->solid_a = sa.solid;
	r->solid_b = sb.solid;
	if (!r->intersecting || !sa.solid || !sb.solid)
		return CLASH_OK;
	const volatile int *cancel = opt ? opt->cancel : NULL;
	int ca = shape_is_convex(a, cancel), cb = ca == 1 ? shape_is_convex(b, cancel) : 0;
	if (ca < 0 || cb < 0)
		err = ca < 0 ? ca : cb;
	else if (cancel_requested(cancel))
		err = CLASH_ECANCELED;
	else if (ca && cb)
		err = convex_depth(a, b, opt, r);
	else if (ball_against_mesh(a, b, opt, r, &err))
		;
	else if (!(a->nparts || b->nparts) || (err = mesh_depth_parts(a, b, opt, r)) == 0)
		err = nonconvex_depth(a, b, opt, r);
	else if (err == 1)
		err = CLASH_OK;
	if (err)
		memset(r, 0, sizeof *r);
	return err;
}
