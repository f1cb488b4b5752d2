/*
 * hull3.c — the convex hull of 3-D points by Quickhull, for the vertex
 * adjacency a prepared shape climbs (see hull3.h).
 *
 * Quickhull (Barber, Dobkin, Huhdanpaa 1996): start from a tetrahedron of
 * extreme points; give every other point to a face it lies above (its
 * conflict list); repeatedly take the furthest point p of some face, find
 * the faces p sees (depth-first from that face across edges), and replace
 * them by the cone from p to their boundary, the horizon; the points of
 * the removed faces go to the new faces they lie above, or are inside.
 * Each face keeps its neighbour across each edge, so the horizon is found
 * and the cone is stitched in without searching.  Points within rounding
 * of a face (HULL3_EPS_ULPS of the hull's size) count as inside; those on
 * the surface to rounding are then attached to their face's vertices, so
 * the graph holds every point a scan may answer (docs/design.md,
 * "core/prepared.c, hull3.c").
 *
 * Storage: everything lives in the caller's scratch (hull3_scratch_size),
 * faces in a pool with a free list (at most 2 count live faces), so nothing
 * is allocated.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "hull3.h"
#include "vec.h"
#ifdef HULL3_DEBUG
#include <stdio.h>
#endif

/* Plane distances within this many ulps of the hull's size are rounding. */
#define HULL3_EPS_ULPS 64.0

/* Points left out within this many ulps of the largest coordinate (and
 * twice eps) of a face are attached to it (see attach). */
#define HULL3_ATTACH_ULPS 32.0

#define NONE UINT32_MAX
#define ON_HULL (UINT32_MAX - 1) /* attach's mark of a hull vertex */

typedef struct hface {
	double n[3], d;  /* outward unit normal, n.x = d on the face (centred coordinates) */
	double far_d;    /* distance of the furthest conflict point */
	uint32_t v[3];   /* counter-clockwise seen from outside */
	uint32_t adj[3]; /* face across edge k = (v[k], v[k+1]) */
	uint32_t head;   /* conflict list: first point */
	uint32_t far;    /* the furthest conflict point */
	uint32_t mark;   /* visible in insertion number `mark` */
	unsigned char adj_edge[3]; /* that edge's index in adj[k] */
	unsigned char alive;
	unsigned char queued; /* the slot is on the work stack */
} hface;

typedef struct hbuild {
	const double *v;
	size_t count;
	double c[3];
	double eps;
	hface *f;
	uint32_t nf, cap;
	uint32_t *freed, nfreed;
	uint32_t *work, nwork; /* faces that may have conflict points */
	uint32_t *next;        /* per point: the next point of its conflict list */
	int32_t *vnext;        /* per point: the horizon edge starting there, or -1 */
	uint32_t *vis;         /* the visible faces of one insertion */
	uint32_t *hz_face;     /* horizon edge i: edge hz_edge[i] of face hz_face[i] */
	unsigned char *hz_edge;
	uint32_t *order;               /* the horizon edges in loop order */
	uint32_t *deferred, ndeferred; /* points whose insertion was refused */
	double tau;                    /* points this near the surface are attached */
	double o[3];                   /* a point inside the hull: the seed's centroid */
	uint32_t pass;
} hbuild;

static size_t face_cap(size_t count)
{
	return 2 * count + 8;
}

size_t hull3_scratch_size(size_t count)
{
	size_t cap = face_cap(count);
	return cap * sizeof(hface) + 8 + (3 * cap + 3 * count) * sizeof(uint32_t) +
	       count * sizeof(int32_t) + cap * (sizeof(uint32_t) * 2 + 1) + 64;
}

static void point(const hbuild *b, uint32_t i, double *x)
{
	const double *p = b->v + 3 * (size_t)i;
	x[0] = p[0] - b->c[0];
	x[1] = p[1] - b->c[1];
	x[2] = p[2] - b->c[2];
}

/* The plane of triangle (a, b, c); 0 when it is thinner than rounding. */
static int plane(const hbuild *b, uint32_t ia, uint32_t ib, uint32_t ic, double *n, double *d)
{
	double pa[3], pb[3], pc[3], e1[3], e2[3];
	point(b, ia, pa);
	point(b, ib, pb);
	point(b, ic, pc);
	for (int k = 0; k < 3; k++) {
		e1[k] = pb[k] - pa[k];
		e2[k] = pc[k] - pa[k];
	}
	vec3_cross(n, e1, e2);
	double nn = vec3_dot(n, n), l1 = vec3_dot(e1, e1), l2 = vec3_dot(e2, e2);
	double lim = HULL3_EPS_ULPS * DBL_EPSILON;
	if (!(nn > lim * lim * l1 * l2) || !(nn > 0.0))
		return 0;
	double inv = 1.0 / sqrt(nn);
	n[0] *= inv;
	n[1] *= inv;
	n[2] *= inv;
	*d = (vec3_dot(n, pa) + vec3_dot(n, pb) + vec3_dot(n, pc)) / 3.0;
	return 1;
}

static double dist(const hbuild *b, const hface *f, uint32_t i)
{
	double x[3];
	point(b, i, x);
	return vec3_dot(f->n, x) - f->d;
}

/* A face slot: a freed one (which may still be on the work stack: its
 * flag says so and stays) or a fresh one. */
static uint32_t new_face(hbuild *b)
{
	uint32_t i;
	unsigned char queued = 0;
	if (b->nfreed) {
		i = b->freed[--b->nfreed];
		queued = b->f[i].queued;
	} else {
		i = b->nf++;
	}
	assert(i < b->cap);
	hface *f = &b->f[i];
	memset(f, 0, sizeof *f);
	f->queued = queued;
	f->head = f->far = NONE;
	f->alive = 1;
	return i;
}

static void add_conflict(hbuild *b, uint32_t fi, uint32_t p, double d)
{
	hface *f = &b->f[fi];
	b->next[p] = f->head;
	f->head = p;
	if (f->far == NONE || d > f->far_d) {
		f->far = p;
		f->far_d = d;
	}
	if (!f->queued) {
		f->queued = 1;
		b->work[b->nwork++] = fi;
	}
}

/* Give point p to the face among faces[0..n-1] it lies furthest above
 * (beyond eps), or drop it as inside. */
static void assign(hbuild *b, uint32_t p, const uint32_t *faces, uint32_t n)
{
	uint32_t best = NONE;
	double bd = b->eps;
	for (uint32_t k = 0; k < n; k++) {
		double d = dist(b, &b->f[faces[k]], p);
		if (d > bd) {
			bd = d;
			best = faces[k];
		}
	}
	if (best != NONE)
		add_conflict(b, best, p, bd);
}

/* Take p out of face fi's conflict list (a refused insertion). */
static void drop_conflict(hbuild *b, uint32_t fi, uint32_t p)
{
	hface *f = &b->f[fi];
	uint32_t *link = &f->head;
	while (*link != NONE && *link != p)
		link = &b->next[*link];
	if (*link == p)
		*link = b->next[p];
	f->far = NONE;
	f->far_d = 0.0;
	for (uint32_t q = f->head; q != NONE; q = b->next[q]) {
		double d = dist(b, f, q);
		if (f->far == NONE || d > f->far_d) {
			f->far = q;
			f->far_d = d;
		}
	}
}

/* Insert p, the furthest point above face f0.  Returns 0 when refused.
 * Long because the visible region's search, the horizon's new faces and
 * the hand-over of the old faces' conflict points are one walk, marked by
 * b->pass, that must not be left half done. */
static int insert(hbuild *b, uint32_t p, uint32_t f0)
{
	uint32_t pass = ++b->pass;
	uint32_t nv = 0, nh = 0;
	int overflow = 0;
	b->f[f0].mark = pass;
	b->vis[nv++] = f0;
	for (uint32_t i = 0; i < nv; i++) {
		const hface *g = &b->f[b->vis[i]];
		for (int k = 0; k < 3; k++) {
			uint32_t h = g->adj[k];
			hface *fh = &b->f[h];
			if (fh->mark == pass)
				continue;
			if (dist(b, fh, p) > -b->eps) {
				fh->mark = pass;
				b->vis[nv++] = h;
			} else if (nh < b->cap) {
				b->hz_face[nh] = h;
				b->hz_edge[nh] = g->adj_edge[k];
				nh++;
			} else {
				overflow = 1;
			}
		}
	}
	/* Chain the horizon: edge i runs s_i -> t_i in the new face's winding,
	 * s_i = h.v[e+1], t_i = h.v[e]; the next edge starts at t_i. */
	int ok = nh >= 3 && !overflow;
	uint32_t set = 0;
	for (; set < nh && ok; set++) {
		const hface *h = &b->f[b->hz_face[set]];
		uint32_t s = h->v[(b->hz_edge[set] + 1) % 3];
		if (b->vnext[s] != -1)
			ok = 0; /* a vertex twice on the horizon: not a simple loop */
		else
			b->vnext[s] = (int32_t)set;
	}
	uint32_t cur = 0;
	for (uint32_t j = 0; j < nh && ok; j++) {
		b->order[j] = cur;
		const hface *h = &b->f[b->hz_face[cur]];
		int32_t nx = b->vnext[h->v[b->hz_edge[cur]]];
		if (nx < 0 || (j + 1 < nh && nx == 0)) {
			ok = 0;
			break;
		}
		cur = (uint32_t)nx;
	}
	if (ok && cur != 0)
		ok = 0; /* the loop does not close after nh edges */
	/* Every face of the cone must have a plane. */
	for (uint32_t j = 0; j < nh && ok; j++) {
		const hface *h = &b->f[b->hz_face[j]];
		int e = b->hz_edge[j];
		double n[3], d;
		ok = plane(b, h->v[(e + 1) % 3], h->v[e], p, n, &d);
	}
	for (uint32_t i = 0; i < set; i++) {
		const hface *h = &b->f[b->hz_face[i]];
		b->vnext[h->v[(b->hz_edge[i] + 1) % 3]] = -1;
	}
	if (!ok)
		return 0;

	/* Commit: gather the visible faces' points, free the faces, build the
	 * cone, redistribute. */
	uint32_t list = NONE;
	for (uint32_t i = 0; i < nv; i++) {
		hface *g = &b->f[b->vis[i]];
		for (uint32_t q = g->head; q != NONE;) {
			uint32_t nq = b->next[q];
			if (q != p) {
				b->next[q] = list;
				list = q;
			}
			q = nq;
		}
		g->head = g->far = NONE;
		g->alive = 0;
		b->freed[b->nfreed++] = b->vis[i];
	}
	uint32_t first = NONE, prev = NONE;
	uint32_t *made = b->vis; /* the visible list is spent: reuse it */
	for (uint32_t j = 0; j < nh; j++) {
		uint32_t i = b->order[j];
		uint32_t hi = b->hz_face[i];
		int e = b->hz_edge[i];
		uint32_t ni = new_face(b);
		hface *x = &b->f[ni], *h = &b->f[hi];
		x->v[0] = h->v[(e + 1) % 3];
		x->v[1] = h->v[e];
		x->v[2] = p;
		int planar = plane(b, x->v[0], x->v[1], x->v[2], x->n, &x->d);
		assert(planar);
		(void)planar;
		x->adj[0] = hi;
		x->adj_edge[0] = (unsigned char)e;
		h->adj[e] = ni;
		h->adj_edge[e] = 0;
		if (prev != NONE) {
			/* edge 1 (t, p) of the previous face meets edge 2 (p, s)
			 * of this one */
			b->f[prev].adj[1] = ni;
			b->f[prev].adj_edge[1] = 2;
			x->adj[2] = prev;
			x->adj_edge[2] = 1;
		} else {
			first = ni;
		}
		prev = ni;
		made[j] = ni;
	}
	b->f[prev].adj[1] = first;
	b->f[prev].adj_edge[1] = 2;
	b->f[first].adj[2] = prev;
	b->f[first].adj_edge[2] = 1;
	for (uint32_t q = list; q != NONE;) {
		uint32_t nq = b->next[q];
		assign(b, q, made, nh);
		q = nq;
	}
	return 1;
}

/* The tetrahedron to start from: extreme points along the box's longest
 * axis, the point furthest from their line, the point furthest from the
 * plane of the three.  0 when the points span no volume. */
static int seed(hbuild *b, uint32_t s[4])
{
	const size_t n = b->count;
	double lo[3], hi[3];
	for (int k = 0; k < 3; k++)
		lo[k] = hi[k] = b->v[k];
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			double x = b->v[3 * i + k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
		}
	double size = 0.0;
	int axis = 0;
	for (int k = 0; k < 3; k++) {
		b->c[k] = 0.5 * lo[k] + 0.5 * hi[k];
		if (hi[k] - lo[k] > size) {
			size = hi[k] - lo[k];
			axis = k;
		}
	}
	b->eps = HULL3_EPS_ULPS * DBL_EPSILON * size;
	double reach = 0.0;
	for (int k = 0; k < 3; k++)
		reach = fmax(reach, fmax(fabs(lo[k]), fabs(hi[k])));
	b->tau = 2.0 * b->eps + HULL3_ATTACH_ULPS * DBL_EPSILON * reach;
	if (!(size > 0.0))
		return 0;
	uint32_t i0 = 0, i1 = 0;
	for (size_t i = 0; i < n; i++) {
		if (b->v[3 * i + axis] < b->v[3 * i0 + axis])
			i0 = (uint32_t)i;
		if (b->v[3 * i + axis] > b->v[3 * i1 + axis])
			i1 = (uint32_t)i;
	}
	double p0[3], p1[3], dir[3], x[3], c[3];
	point(b, i0, p0);
	point(b, i1, p1);
	for (int k = 0; k < 3; k++)
		dir[k] = p1[k] - p0[k];
	uint32_t i2 = NONE;
	double best = 0.0;
	for (size_t i = 0; i < n; i++) {
		point(b, (uint32_t)i, x);
		for (int k = 0; k < 3; k++)
			x[k] -= p0[k];
		vec3_cross(c, dir, x);
		double d = vec3_dot(c, c);
		if (d > best) {
			best = d;
			i2 = (uint32_t)i;
		}
	}
	/* |dir x x| / |dir| is the distance from the line. */
	if (i2 == NONE || !(sqrt(best / vec3_dot(dir, dir)) > b->eps))
		return 0;
	double p2[3], e2[3], nrm[3];
	point(b, i2, p2);
	for (int k = 0; k < 3; k++)
		e2[k] = p2[k] - p0[k];
	vec3_cross(nrm, dir, e2);
	double inv = 1.0 / sqrt(vec3_dot(nrm, nrm));
	for (int k = 0; k < 3; k++)
		nrm[k] *= inv;
	uint32_t i3 = NONE;
	best = 0.0;
	for (size_t i = 0; i < n; i++) {
		point(b, (uint32_t)i, x);
		double d = fabs(vec3_dot(nrm, x) - vec3_dot(nrm, p0));
		if (d > best) {
			best = d;
			i3 = (uint32_t)i;
		}
	}
	if (i3 == NONE || !(best > b->eps))
		return 0;
	s[0] = i0;
	s[1] = i1;
	s[2] = i2;
	s[3] = i3;
	return 1;
}

/* The face through which the ray from o (inside the hull) along q
 * leaves the hull, by a walk over the faces from face f: across the edge
 * whose plane through o has q furthest outside it, until q lies inside all
 * three (on a convex hull the faces' cones from o tile space).  A walk
 * that cycles (it may, on skewed faces) gives NONE. */
static uint32_t exit_face(const hbuild *b, uint32_t f, const double *q)
{
	for (uint32_t step = 0; step < b->nf; step++) {
		const hface *x = &b->f[f];
		double worst = 0.0;
		int out = -1;
		for (int k = 0; k < 3; k++) {
			double s[3], t[3], m[3];
			point(b, x->v[k], s);
			point(b, x->v[(k + 1) % 3], t);
			for (int j = 0; j < 3; j++) {
				s[j] -= b->o[j];
				t[j] -= b->o[j];
			}
			vec3_cross(m, s, t);
			double len = sqrt(vec3_dot(m, m));
			double side = len > 0.0 ? vec3_dot(m, q) / len : 0.0;
			if (side < worst) {
				worst = side;
				out = k;
			}
		}
		if (out < 0)
			return f;
		f = x->adj[out];
	}
	return NONE;
}

/* The cube map of directions from o that attach starts its walks from:
 * ATTACH_SIDE^2 cells on each of six faces. */
#define ATTACH_SIDE 8
#define ATTACH_CELLS (6 * ATTACH_SIDE * ATTACH_SIDE)

static unsigned attach_cell(const double *q)
{
	double ax = fabs(q[0]), ay = fabs(q[1]), az = fabs(q[2]);
	int a = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
	double m = fabs(q[a]);
	if (!(m > 0.0))
		return 0;
	double u = q[(a + 1) % 3] / m, w = q[(a + 2) % 3] / m;
	int i = (int)((u + 1.0) * (0.5 * ATTACH_SIDE)), j = (int)((w + 1.0) * (0.5 * ATTACH_SIDE));
	i = i < 0 ? 0 : i >= ATTACH_SIDE ? ATTACH_SIDE - 1 : i;
	j = j < 0 ? 0 : j >= ATTACH_SIDE ? ATTACH_SIDE - 1 : j;
	return (unsigned)(((2 * a + (q[a] < 0.0)) * ATTACH_SIDE + i) * ATTACH_SIDE + j);
}

/* Points within rounding of the hull's surface may be left out of it (the
 * builder counts them as inside) and yet be a scan's support point, equal
 * in score to a hull vertex or, to rounding, above it: each one within
 * tau of the face it lies over as seen from o (tau covers the scores'
 * rounding; see prepared.c) is attached to that face's three vertices, face_of[i] its face (NONE
 * for the others).  Returns how many. */
static size_t attach(hbuild *b, uint32_t *face_of)
{
	uint32_t any = NONE;
	double inner = INFINITY; /* the ball about o inside every face's plane */
	for (uint32_t i = 0; i < b->nf; i++)
		if (b->f[i].alive) {
			any = any == NONE ? i : any;
			double d = b->f[i].d - vec3_dot(b->f[i].n, b->o);
			inner = d < inner ? d : inner;
		}
	inner -= 2.0 * b->tau;
	for (size_t i = 0; i < b->count; i++)
		face_of[i] = NONE;
	/* Hull vertices are marked as taken (not attached). */
	for (uint32_t i = 0; i < b->nf; i++)
		if (b->f[i].alive)
			for (int k = 0; k < 3; k++)
				face_of[b->f[i].v[k]] = ON_HULL;
	/* The start of the walks by direction: each cell's central
	 * direction walked from the previous cell's face. */
	uint32_t start[ATTACH_CELLS], at = any;
	for (unsigned c = 0; c < ATTACH_CELLS; c++) {
		unsigned face = c / (ATTACH_SIDE * ATTACH_SIDE),
			 i = (c / ATTACH_SIDE) % ATTACH_SIDE;
		int a = (int)face / 2;
		double d[3];
		d[a] = face % 2 ? -1.0 : 1.0;
		d[(a + 1) % 3] = ((i + 0.5) / ATTACH_SIDE) * 2.0 - 1.0;
		d[(a + 2) % 3] = ((c % ATTACH_SIDE + 0.5) / ATTACH_SIDE) * 2.0 - 1.0;
		uint32_t f = exit_face(b, at, d);
		at = f == NONE ? any : f;
		start[c] = at;
	}
	size_t n = 0;
	for (size_t i = 0; i < b->count; i++) {
		if (face_of[i] == ON_HULL)
			continue;
		double q[3];
		point(b, (uint32_t)i, q);
		for (int k = 0; k < 3; k++)
			q[k] -= b->o[k];
		if (inner > 0.0 && vec3_dot(q, q) < inner * inner)
			continue; /* deep inside: no face within tau */
		uint32_t f = exit_face(b, start[attach_cell(q)], q);
		if (f == NONE) { /* the walk cycled: the face it lies least below */
			double best = -INFINITY;
			for (uint32_t j = 0; j < b->nf; j++)
				if (b->f[j].alive) {
					double d = dist(b, &b->f[j], (uint32_t)i);
					if (d > best) {
						best = d;
						f = j;
					}
				}
		}
		/* Near an edge the ray may leave by the face beside the one
		 * the point is nearest: the largest dist of the two. */
		double g = dist(b, &b->f[f], (uint32_t)i);
		for (int k = 0; k < 3; k++) {
			double d = dist(b, &b->f[b->f[f].adj[k]], (uint32_t)i);
			g = d > g ? d : g;
		}
		if (g >= -b->tau) {
			face_of[i] = f;
			n++;
		}
	}
	for (size_t i = 0; i < b->count; i++)
		if (face_of[i] == ON_HULL)
			face_of[i] = NONE;
	return n;
}

/* The scratch block (hull3_scratch_size) carved into b's arrays. */
static void carve(hbuild *b, void *scratch, size_t count)
{
	char *m = scratch;
	m += (8 - (uintptr_t)m % 8) % 8;
	b->f = (hface *)(void *)m;
	m += b->cap * sizeof(hface);
	b->freed = (uint32_t *)(void *)m;
	m += b->cap * sizeof(uint32_t);
	b->work = (uint32_t *)(void *)m;
	m += b->cap * sizeof(uint32_t);
	b->vis = (uint32_t *)(void *)m;
	m += b->cap * sizeof(uint32_t);
	b->next = (uint32_t *)(void *)m;
	m += count * sizeof(uint32_t);
	b->vnext = (int32_t *)(void *)m;
	m += count * sizeof(int32_t);
	b->hz_face = (uint32_t *)(void *)m;
	m += b->cap * sizeof(uint32_t);
	b->order = (uint32_t *)(void *)m;
	m += b->cap * sizeof(uint32_t);
	b->deferred = (uint32_t *)(void *)m;
	m += count * sizeof(uint32_t);
	b->hz_edge = (unsigned char *)m;
	m += b->cap;
	assert((size_t)(m - (char *)scratch) <= hull3_scratch_size(count));
	for (size_t i = 0; i < count; i++)
		b->vnext[i] = -1;
}

/* The seed tetrahedron, its faces wound outward, and every other point
 * assigned to a face it lies above; 0 when the points span no volume. */
static int tetrahedron(hbuild *b)
{
	uint32_t s[4];
	if (!seed(b, s))
		return 0;
	/* Orient the tetrahedron: with positive volume these faces wind
	 * outward (as in epa.c). */
	double p0[3], p1[3], p2[3], p3[3], e1[3], e2[3], e3[3], c[3];
	point(b, s[0], p0);
	point(b, s[1], p1);
	point(b, s[2], p2);
	point(b, s[3], p3);
	for (int k = 0; k < 3; k++) {
		e1[k] = p1[k] - p0[k];
		e2[k] = p2[k] - p0[k];
		e3[k] = p3[k] - p0[k];
	}
	vec3_cross(c, e2, e3);
	if (vec3_dot(e1, c) < 0.0) {
		uint32_t t = s[1];
		s[1] = s[2];
		s[2] = t;
	}
	static const int tet[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
	static const int tadj[4][3] = {{3, 2, 1}, {0, 2, 3}, {0, 3, 1}, {1, 2, 0}};
	static const unsigned char tedge[4][3] = {{2, 0, 0}, {2, 2, 0}, {1, 1, 1}, {2, 1, 0}};
	uint32_t faces[4];
	for (int i = 0; i < 4; i++) {
		faces[i] = new_face(b);
		hface *f = &b->f[faces[i]];
		for (int k = 0; k < 3; k++) {
			f->v[k] = s[tet[i][k]];
			f->adj[k] = (uint32_t)tadj[i][k];
			f->adj_edge[k] = tedge[i][k];
		}
		if (!plane(b, f->v[0], f->v[1], f->v[2], f->n, &f->d))
			return 0;
	}
	for (int k = 0; k < 3; k++)
		b->o[k] = 0.25 * (p0[k] + p1[k] + p2[k] + p3[k]);
	for (size_t i = 0; i < b->count; i++)
		if (i != s[0] && i != s[1] && i != s[2] && i != s[3])
			assign(b, (uint32_t)i, faces, 4);
	return 1;
}

/* Points inserted, each the furthest above its face, until no face has
 * one above it; those put off inserted at the end if still outside. */
static void grow(hbuild *b)
{
	while (b->nwork > 0) {
		uint32_t fi = b->work[--b->nwork];
		hface *f = &b->f[fi];
		f->queued = 0;
		if (!f->alive || f->head == NONE)
			continue;
		uint32_t p = f->far;
		if (!insert(b, p, fi)) {
#ifdef HULL3_DEBUG
			fprintf(stderr, "hull3: insertion of %u refused (%g above)\n", p, f->far_d);
#endif
			b->deferred[b->ndeferred++] = p;
			drop_conflict(b, fi, p);
			if (f->head != NONE) {
				f->queued = 1;
				b->work[b->nwork++] = fi;
			}
		}
	}

	/* The points put off: inserted if still outside the hull (rare: each
	 * costs a pass over the faces). */
	for (uint32_t k = 0; k < b->ndeferred; k++) {
		uint32_t p = b->deferred[k];
		for (uint32_t i = 0; i < b->nf; i++)
			if (b->f[i].alive && dist(b, &b->f[i], p) > b->eps) {
				insert(b, p, i);
				break;
			}
	}
}

#ifdef HULL3_DEBUG
/* Every point below every live face, and the adjacency symmetric. */
static void debug_check(const hbuild *b)
{
	int nbad = 0;
	for (uint32_t i = 0; i < b->nf; i++) {
		if (!b->f[i].alive)
			continue;
		for (size_t j = 0; j < b->count; j++) {
			double d = dist(b, &b->f[i], (uint32_t)j);
			if (d > 10 * b->eps && nbad++ < 10)
				fprintf(stderr,
				        "face %u (%u %u %u): point %zu above by %g (eps %g)\n", i,
				        b->f[i].v[0], b->f[i].v[1], b->f[i].v[2], j, d, b->eps);
		}
		for (int k = 0; k < 3; k++) {
			const hface *g = &b->f[b->f[i].adj[k]];
			if (!g->alive || g->adj[b->f[i].adj_edge[k]] != i)
				fprintf(stderr, "face %u edge %d: bad adjacency\n", i, k);
		}
	}
	fprintf(stderr, "hull3 debug: %d violations\n", nbad);
}
#endif

/* The adjacency (hull3.h) of the live faces and of the points attached
 * to them (face_of); returns the number of hull vertices. */
static size_t adjacency(hbuild *b, const uint32_t *face_of, uint32_t *adj_start, uint32_t *adj)
{
	const size_t count = b->count;
	/* The adjacency: each live face's directed edge (a, b) makes b a
	 * neighbour of a; the other face on that edge gives (b, a); an
	 * attached point and the vertices of its face are neighbours. */
	uint32_t *deg = (uint32_t *)b->vnext; /* spent: reuse as counters */
	memset(deg, 0, count * sizeof *deg);
	size_t hull = 0;
	for (uint32_t i = 0; i < b->nf; i++)
		if (b->f[i].alive)
			for (int k = 0; k < 3; k++)
				deg[b->f[i].v[k]]++;
	for (size_t i = 0; i < count; i++)
		hull += deg[i] > 0;
	for (size_t i = 0; i < count; i++)
		if (face_of[i] != NONE) {
			deg[i] += 3;
			for (int k = 0; k < 3; k++)
				deg[b->f[face_of[i]].v[k]]++;
		}
	uint32_t at = 0;
	for (size_t i = 0; i < count; i++) {
		adj_start[i] = at;
		at += deg[i];
		deg[i] = adj_start[i]; /* now the fill cursor */
	}
	adj_start[count] = at;
	assert(at <= 6 * count);
	for (uint32_t i = 0; i < b->nf; i++)
		if (b->f[i].alive)
			for (int k = 0; k < 3; k++)
				adj[deg[b->f[i].v[k]]++] = b->f[i].v[(k + 1) % 3];
	for (size_t i = 0; i < count; i++)
		if (face_of[i] != NONE)
			for (int k = 0; k < 3; k++) {
				uint32_t w = b->f[face_of[i]].v[k];
				adj[deg[i]++] = w;
				adj[deg[w]++] = (uint32_t)i;
			}
	return hull;
}

/* The hull's faces in b (in scratch); 0 when the points span no volume. */
static int run(hbuild *b, const double *v, size_t count, void *scratch)
{
	if (count < 4 || count > HULL3_MAX_POINTS)
		return 0;
	memset(b, 0, sizeof *b);
	b->v = v;
	b->count = count;
	b->cap = (uint32_t)face_cap(count);
	carve(b, scratch, count);
	if (!tetrahedron(b))
		return 0;
	grow(b);
	return 1;
}

size_t hull3_build(const double *v, size_t count, void *scratch, uint32_t *adj_start, uint32_t *adj,
                   size_t *attached)
{
	if (attached)
		*attached = 0;
	memset(adj_start, 0, (count + 1) * sizeof *adj_start);
	hbuild b;
	if (!run(&b, v, count, scratch))
		return 0;
#ifdef HULL3_DEBUG
	debug_check(&b);
#endif
	/* The points left out near the surface (see attach). */
	uint32_t *face_of = b.deferred; /* spent: reuse */
	size_t nattached = attach(&b, face_of);
	if (attached)
		*attached = nattached;
	return adjacency(&b, face_of, adj_start, adj);
}

size_t hull3_faces(const double *v, size_t count, void *scratch, uint32_t *faces)
{
	hbuild b;
	if (!run(&b, v, count, scratch))
		return 0;
	size_t n = 0;
	for (uint32_t i = 0; i < b.nf; i++)
		if (b.f[i].alive) {
			memcpy(faces + 3 * n, b.f[i].v, 3 * sizeof *faces);
			n++;
		}
	return n;
}
