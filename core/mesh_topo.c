/*
 * mesh_topo.c — the edge census of a welded mesh (mesh_topo.h).
 *
 * Every directed edge between distinct welded vertices is filed under its
 * lesser vertex as (greater, runs downward, triangle), a counting sort;
 * each vertex's short list, sorted, holds each undirected edge's uses side
 * by side.  An edge used once is open (a boundary), by three triangles or
 * more not a manifold's; an edge used twice ties its two triangles: the
 * same way round, one of them must turn over, else neither.  The ties are
 * kept in a union-find over triangles whose links carry that parity, so
 * each edge-connected piece ends with one consistent orientation up to a
 * whole turn; the piece keeps the orientation of the greater part of its
 * area, so one flipped face of a box is turned back, not the other eleven.
 * A tie that contradicts the ones before (a Moebius band) is counted and
 * left.  Triangles whose corners weld into fewer than three take no part
 * (they enclose nothing).  Parts are unions over vertices (triangles that
 * share a corner), as the containment test needs.
 */
#include <math.h>
#include <string.h>

#include "mesh_topo.h"

#define PARITY 0x80000000u
#define INDEX 0x7fffffffu

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

size_t mesh_topo_scratch(size_t nu, size_t nt)
{
	return 3 * align8((nu + 1) * sizeof(uint32_t)) + 3 * nt * sizeof(uint64_t) +
	       align8(nt * sizeof(uint32_t)) + nt * sizeof(double);
}

static inline size_t vertex_of(const uint32_t *indices, size_t t, int c)
{
	return indices ? indices[3 * t + (size_t)c] : 3 * t + (size_t)c;
}

static void sift(uint64_t *a, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		uint64_t t = a[i];
		a[i] = a[c];
		a[c] = t;
	}
}

/* a[0..n) ascending: insertion sort when short (lists hold about six),
 * else heapsort (a vertex shared by very many triangles). */
static void sort_u64(uint64_t *a, size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			uint64_t x = a[i];
			size_t j = i;
			for (; j > 0 && a[j - 1] > x; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	for (size_t k = n / 2; k-- > 0;)
		sift(a, k, n);
	for (size_t end = n; end-- > 1;) {
		uint64_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end);
	}
}

/* The root of x; *par: x's parity to it.  Compresses the path. */
static uint32_t uf_find(uint32_t *up, uint32_t x, unsigned *par)
{
	unsigned p = 0;
	uint32_t r = x;
	while ((up[r] & INDEX) != r) {
		p ^= up[r] >> 31;
		r = up[r] & INDEX;
	}
	for (unsigned q = p; (up[x] & INDEX) != x;) {
		const uint32_t next = up[x] & INDEX;
		const unsigned px = up[x] >> 31;
		up[x] = r | (q ? PARITY : 0);
		q ^= px;
		x = next;
	}
	*par = p;
	return r;
}

/* Tie a and b: their turns differ by rel.  0, or 1 when that contradicts
 * the ties before. */
static int uf_tie(uint32_t *up, uint32_t a, uint32_t b, unsigned rel)
{
	unsigned pa, pb;
	const uint32_t ra = uf_find(up, a, &pa), rb = uf_find(up, b, &pb);
	if (ra == rb)
		return (pa ^ pb) != rel;
	up[rb] = ra | ((pa ^ pb ^ rel) ? PARITY : 0);
	return 0;
}

static void tri_canon(const mesh_topo_in *in, size_t t, uint32_t *v)
{
	for (int k = 0; k < 3; k++)
		v[k] = in->canon[vertex_of(in->indices, t, k)];
}

static int degenerate(const uint32_t *v)
{
	return v[0] == v[1] || v[1] == v[2] || v[2] == v[0];
}

/* File every directed edge under its lesser vertex: ent[start[v] ..
 * start[v + 1]) after the call.  Returns the edges filed. */
static size_t file_edges(const mesh_topo_in *in, uint32_t *start, uint32_t *at, uint64_t *ent)
{
	memset(start, 0, (in->nu + 1) * sizeof *start);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t t = 0; t < in->ntriangles; t++) {
			uint32_t v[3];
			tri_canon(in, t, v);
			if (degenerate(v))
				continue;
			for (int k = 0; k < 3; k++) {
				const uint32_t a = v[k], b = v[(k + 1) % 3];
				const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
				if (pass == 0)
					start[lo + 1]++;
				else
					ent[at[lo]++] = (uint64_t)hi << 32 | (a > b ? PARITY : 0) |
					                (uint32_t)t;
			}
		}
		if (pass == 0) {
			for (size_t v = 0; v < in->nu; v++)
				start[v + 1] += start[v];
			memcpy(at, start, (in->nu + 1) * sizeof *at);
		}
	}
	return start[in->nu];
}

/* Count the edges of each kind and tie the triangles of manifold ones. */
static void census(const mesh_topo_in *in, const uint32_t *start, uint64_t *ent, uint32_t *up,
                   mesh_topo *out)
{
	for (size_t v = 0; v < in->nu; v++) {
		uint64_t *e = ent + start[v];
		const size_t n = start[v + 1] - start[v];
		sort_u64(e, n);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && (e[j] >> 32) == (e[i] >> 32); j++)
				;
			if (j - i == 1) {
				out->boundary++;
			} else if (j - i > 2) {
				out->nonmanifold++;
			} else {
				const unsigned same =
					((uint32_t)e[i] >> 31) == ((uint32_t)e[i + 1] >> 31);
				out->conflicts += (size_t)uf_tie(up, (uint32_t)e[i] & INDEX,
				                                 (uint32_t)e[i + 1] & INDEX, same);
			}
		}
	}
}

static double tri_area2(const mesh_topo_in *in, size_t t)
{
	const double *a = in->positions + 3 * vertex_of(in->indices, t, 0);
	const double *b = in->positions + 3 * vertex_of(in->indices, t, 1);
	const double *c = in->positions + 3 * vertex_of(in->indices, t, 2);
	const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
	const double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
	const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
	                     u[0] * w[1] - u[1] * w[0]};
	return n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
}

/* Each piece keeps the orientation of the greater part of its area. */
static void choose_turns(const mesh_topo_in *in, uint32_t *up, double *acc, uint8_t *flip,
                         mesh_topo *out)
{
	const size_t nt = in->ntriangles;
	for (size_t t = 0; t < nt; t++)
		acc[t] = 0.0;
	for (size_t t = 0; t < nt; t++) {
		unsigned p;
		const uint32_t r = uf_find(up, (uint32_t)t, &p);
		const double a = sqrt(tri_area2(in, t));
		acc[r] += p ? -a : a;
	}
	memset(flip, 0, (nt + 7) / 8);
	for (size_t t = 0; t < nt; t++) {
		unsigned p;
		const uint32_t r = uf_find(up, (uint32_t)t, &p);
		if (p ^ (acc[r] < 0.0)) {
			flip[t >> 3] |= (uint8_t)(1u << (t & 7));
			out->flipped++;
		}
	}
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* The first triangle of each part (triangles joined through welded
 * vertices), in input order, into list; returns their count.  Scratch for
 * nu + nu numbers. */
static size_t parts(const mesh_topo_in *in, uint32_t *parent, uint32_t *seen, uint32_t *list)
{
	for (size_t v = 0; v < in->nu; v++) {
		parent[v] = (uint32_t)v;
		seen[v] = 0;
	}
	for (size_t t = 0; t < in->ntriangles; t++) {
		uint32_t v[3];
		tri_canon(in, t, v);
		const uint32_t v0 = find(parent, v[0]);
		for (int k = 1; k < 3; k++) {
			const uint32_t y = find(parent, v[k]);
			if (v0 != y)
				parent[y] = v0;
		}
	}
	size_t n = 0;
	for (size_t t = 0; t < in->ntriangles; t++) {
		const uint32_t root = find(parent, in->canon[vertex_of(in->indices, t, 0)]);
		if (!seen[root]) {
			seen[root] = 1;
			list[n++] = (uint32_t)t;
		}
	}
	return n;
}

/* ---- holes ----------------------------------------------------------------- */

/* The corner of triangle t whose welded vertex is v: its coordinates. */
static const double *corner_at(const mesh_topo_in *in, size_t t, uint32_t v)
{
	int k = 0;
	while (k < 2 && in->canon[vertex_of(in->indices, t, k)] != v)
		k++;
	return in->positions + 3 * vertex_of(in->indices, t, k);
}

/* Each undirected edge's uses, once turned, one way less the other: its
 * multiplicity in the boundary chain (0 for a shared edge).  For the
 * group e[0..n) of edge (lo, hi). */
static long net_of(const uint64_t *e, size_t n, const uint8_t *flip)
{
	long net = 0;
	for (size_t i = 0; i < n; i++) {
		const uint32_t t = (uint32_t)e[i] & INDEX;
		const unsigned down = ((uint32_t)e[i] >> 31) ^ ((flip[t >> 3] >> (t & 7)) & 1u);
		net += down ? -1 : 1;
	}
	return net;
}

/* Calls fn(ctx, lo, hi, t, net) for every boundary chain edge (net > 0:
 * it runs lo to hi). */
static void chain_edges(const mesh_topo_in *in, const uint32_t *start, const uint64_t *ent,
                        const uint8_t *flip, void (*fn)(void *, uint32_t, uint32_t, uint32_t, long),
                        void *ctx)
{
	for (size_t v = 0; v < in->nu; v++) {
		const uint64_t *e = ent + start[v];
		const size_t n = start[v + 1] - start[v];
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && (e[j] >> 32) == (e[i] >> 32); j++)
				;
			const long net = net_of(e + i, j - i, flip);
			if (net)
				fn(ctx, (uint32_t)v, (uint32_t)(e[i] >> 32), (uint32_t)e[i] & INDEX,
				   net);
		}
	}
}

typedef struct hole_walk {
	const mesh_topo_in *in;
	uint32_t *parent, *hole_of;
	mesh_hole *holes;
	size_t n, room; /* holes so far; bytes for holes and edges */
	size_t nedges;
	double (*hi)[3];       /* per hole while counting: its box's top */
	mesh_hole_edge *edges; /* while filling */
	int full;
} hole_walk;

static void join_edge(void *ctx, uint32_t lo, uint32_t hi, uint32_t t, long net)
{
	(void)t;
	(void)net;
	hole_walk *h = ctx;
	const uint32_t a = find(h->parent, lo), b = find(h->parent, hi);
	if (a != b)
		h->parent[b] = a;
}

/* Count: the holes (their boxes: c holds the bottom while counting) and
 * the edges of each. */
static void count_edge(void *ctx, uint32_t lo, uint32_t hi, uint32_t t, long net)
{
	hole_walk *h = ctx;
	if (h->full)
		return;
	const uint32_t root = find(h->parent, lo);
	if (h->hole_of[root] == UINT32_MAX) {
		if ((h->n + 1) * sizeof(mesh_hole) > h->room / 2) { /* the tops' half */
			h->full = 1;
			return;
		}
		h->hole_of[root] = (uint32_t)h->n;
		h->holes[h->n] = (mesh_hole){{INFINITY, INFINITY, INFINITY}, 0, 0, 0, 0};
		for (int k = 0; k < 3; k++)
			h->hi[h->n][k] = -INFINITY;
		h->n++;
	}
	mesh_hole *o = &h->holes[h->hole_of[root]];
	o->count++;
	o->edges += (double)(net < 0 ? -net : net);
	h->nedges++;
	/* Room for the holes and edges so far, the tops beside them. */
	if ((h->n + 1) * (sizeof(mesh_hole) + sizeof *h->hi) + h->nedges * sizeof(mesh_hole_edge) >
	    h->room) {
		h->full = 1;
		return;
	}
	const double *x[2] = {corner_at(h->in, t, lo), corner_at(h->in, t, hi)};
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 3; k++) {
			o->c[k] = fmin(o->c[k], x[c][k]);
			h->hi[h->hole_of[root]][k] = fmax(h->hi[h->hole_of[root]][k], x[c][k]);
		}
}

static void fill_edge(void *ctx, uint32_t lo, uint32_t hi, uint32_t t, long net)
{
	hole_walk *h = ctx;
	mesh_hole *o = &h->holes[h->hole_of[find(h->parent, lo)]];
	mesh_hole_edge *e = &h->edges[o->first + o->count++];
	const double *x = corner_at(h->in, t, lo), *y = corner_at(h->in, t, hi);
	memcpy(e->a, net > 0 ? x : y, sizeof e->a);
	memcpy(e->b, net > 0 ? y : x, sizeof e->b);
	e->k = (double)(net < 0 ? -net : net);
}

/* The holes: the boundary chain's connected pieces, each with the ball
 * about its box's centre through its corners (grown by rounding), then
 * their edges.  The holes' count, or SIZE_MAX past `room` bytes. */
static size_t find_holes(const mesh_topo_in *in, const uint32_t *start, const uint64_t *ent,
                         const uint8_t *flip, uint32_t *parent, uint32_t *hole_of, void *room,
                         size_t bytes, size_t *nedges)
{
	for (size_t v = 0; v < in->nu; v++) {
		parent[v] = (uint32_t)v;
		hole_of[v] = UINT32_MAX;
	}
	hole_walk h = {in, parent, hole_of, room, 0, bytes, 0, NULL, NULL, 0};
	/* The tops go at the end of the room while counting. */
	h.hi = (double(*)[3])(void *)((char *)room + (bytes / 2 & ~(size_t)7));
	chain_edges(in, start, ent, flip, join_edge, &h);
	chain_edges(in, start, ent, flip, count_edge, &h);
	if (h.full)
		return SIZE_MAX;
	uint32_t first = 0;
	for (size_t i = 0; i < h.n; i++) {
		mesh_hole *o = &h.holes[i];
		double r2 = 0.0, mag = 0.0;
		for (int k = 0; k < 3; k++) {
			const double lo = o->c[k], hi = h.hi[i][k];
			o->c[k] = 0.5 * lo + 0.5 * hi;
			r2 += (0.5 * hi - 0.5 * lo) * (0.5 * hi - 0.5 * lo);
			mag += fabs(lo) + fabs(hi);
		}
		o->r = sqrt(r2) * (1.0 + 0x1p-40) + 0x1p-40 * mag;
		o->first = first;
		first += o->count;
		o->count = 0;
	}
	h.edges = (mesh_hole_edge *)(h.holes + h.n);
	chain_edges(in, start, ent, flip, fill_edge, &h);
	*nedges = h.nedges;
	return h.n;
}

size_t mesh_topo_run(const mesh_topo_in *in, void *scratch, uint8_t *flip, uint32_t *list,
                     void *holes, size_t room, size_t *nedges, mesh_topo *out)
{
	const size_t nt = in->ntriangles, nu = in->nu;
	char *p = scratch;
	uint32_t *start = (uint32_t *)p;
	p += align8((nu + 1) * sizeof *start);
	uint32_t *at = (uint32_t *)p;
	p += align8((nu + 1) * sizeof *at);
	uint64_t *ent = (uint64_t *)p;
	p += 3 * nt * sizeof *ent;
	uint32_t *up = (uint32_t *)p;
	p += align8(nt * sizeof *up);
	double *acc = (double *)p;
	p += nt * sizeof *acc;
	uint32_t *hole_of = (uint32_t *)p;

	memset(out, 0, sizeof *out);
	for (size_t t = 0; t < nt; t++)
		up[t] = (uint32_t)t;
	const size_t edges = file_edges(in, start, at, ent);
	census(in, start, ent, up, out);
	choose_turns(in, up, acc, flip, out);
	out->closed = edges > 0 && !out->boundary && !out->nonmanifold && !out->conflicts;
	*nedges = 0;
	const size_t nholes =
		out->closed ? 0
			    : find_holes(in, start, ent, flip, at, hole_of, holes, room, nedges);
	out->parts = parts(in, start, at, list);
	return nholes;
}
