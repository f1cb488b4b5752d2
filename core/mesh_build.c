/*
 * mesh_build.c — building a triangle mesh's tree and topology in caller
 * storage (clash_mesh_size, clash_mesh_build; layout in mesh.h).
 *
 * The tree: binned SAH after Wald 2007, "On fast construction of SAH-based
 * bounding volume hierarchies", section 3: at each node the triangles'
 * box centres are put in up to 16 bins along the axis of their widest
 * spread, the surface area heuristic is evaluated at the bin borders
 * (section 3.2, bins' boxes and counts gathered in one pass), and the range
 * is partitioned in place.  Triangle boxes are floats rounded outward, so
 * node boxes (their unions) hold every corner.  Below MESH_SAH_DEPTH levels
 * ranges are halved by position, which bounds the depth for any input.
 *
 * The topology: vertices of equal coordinates, or within the weld's
 * tolerance (weld.h), are one, whose corners take the coordinates of its
 * first vertex; then the edge census and the turns (mesh_topo.h), and,
 * once the tree and the far field of the winding number are built, the
 * solid rule (mesh_solid.h).  Memory: the topology's scratch and then the tree's triangle
 * records live where the corner coordinates go last (see mesh_layout).
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "mesh.h"
#include "mesh_holes.h"
#include "mesh_self.h"
#include "mesh_solid.h"
#include "mesh_topo.h"
#include "winding.h"
#include "weld.h"

#define BINS 16
#define MESH_SAH_DEPTH 48
/* The SAH's cost of opening a node, a triangle's being 1: 1.5 (not 1)
 * makes leaves of 2 and 3 triangles where 1 + 1 would be barely cheaper,
 * and queries open fewer pairs of nodes (docs/meshes.md). */
#define MESH_NODE_COST 1.5
/* Ranges waiting on the build's stack: at most the depth, which is at most
 * MESH_SAH_DEPTH levels of SAH and then 31 of halving. */
#define MESH_TASKS 96
/* Largest mesh: node and vertex numbers fit uint32_t with room. */
#define MESH_MAX_TRIANGLES ((size_t)1 << 30)
#define MESH_MAX_VERTICES (((size_t)1 << 31) - 1)
/* Largest extent along an axis: node boxes are floats (mesh.h). */
#define MESH_MAX_EXTENT 1e30
/* A record's id with these bits: the triangle stands for its part; it is
 * turned over (its corners placed 0, 2, 1). */
#define REP_BIT 0x80000000u
#define FLIP_BIT 0x40000000u
/* Room for the holes, their edges and their tree: HOLE_ROOM bytes a
 * triangle and HOLE_ROOM_MIN besides, so that a small mesh is capped even
 * when every triangle is on the boundary (a dozen loose triangles).  A
 * larger mesh whose boundary takes more (a soup) is left without caps
 * (mesh_query.c). */
#define HOLE_ROOM 48
#define HOLE_ROOM_MIN 4096

static size_t hole_room(size_t nt)
{
	return nt * HOLE_ROOM + HOLE_ROOM_MIN;
}

/* A box in floats relative to the mesh's origin (lane 3 unused, 0): a
 * triangle's record while building, a bin, a node's box. */
typedef struct fbox {
	_Alignas(16) float lo[4];
	float hi[4];
} fbox;

/* A range waiting to be built into node `node`: its box and its centres'
 * box (lo + hi, unhalved). */
typedef struct task {
	uint32_t start, end, node;
	int depth;
	fbox b, c;
} task;

/* min and max without fmin's NaN rules (coordinates are finite): inline
 * compares, where fmin and fmax are library calls. */
static inline double lo2(double x, double y)
{
	return x < y ? x : y;
}

static inline double hi2(double x, double y)
{
	return x > y ? x : y;
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

static size_t align64(size_t x)
{
	return (x + 63) & ~(size_t)63;
}

static size_t hash_slots(size_t nv)
{
	size_t s = 16;
	while (s < 2 * nv)
		s *= 2;
	return s;
}

/* Byte offsets from the header (on a 64-byte boundary).  The topology's
 * scratch starts at `tri` and may run past the node reserve (huge unindexed
 * meshes); the list of parts it leaves for the tree goes after both, then
 * the welded coordinates the tree is built from (`placed`: scratch, read
 * until the corners are placed). */
typedef struct layout {
	size_t tri, nodes, list, flip, placed, holes, total;
} layout;

static size_t topo_bytes(size_t nv, size_t nt)
{
	const size_t weld = align8((nv + 1) * sizeof(uint32_t)) + 2 * align8(nv * sizeof(uint32_t));
	const size_t census = mesh_topo_scratch(nv, nt);
	return align8(hash_slots(nv) * sizeof(uint32_t)) + align8(nv * sizeof(uint32_t)) +
	       (weld > census ? weld : census);
}

static layout mesh_layout(size_t nv, size_t nt)
{
	layout l;
	l.tri = align64(sizeof(clash_mesh));
	l.nodes = align64(l.tri + 9 * nt * sizeof(double));
	/* 2 nt nodes at most (a pad and nt leaves), then the parts, then the
	 * input index of each triangle: the parts' list in input order is
	 * read before the tree is built, which then writes both in tree
	 * order after its nodes, over the list. */
	l.list = l.nodes + 2 * nt * sizeof(mesh_node) + align8(nt * sizeof(uint32_t));
	if (l.list < align8(l.tri + topo_bytes(nv, nt)))
		l.list = align8(l.tri + topo_bytes(nv, nt));
	/* The turns' bitmap after the list, then the welded coordinates; the
	 * far field (winding.h) goes after the parts in tree order once the
	 * turns and coordinates are read, over all three. */
	l.flip = l.list + align8(nt * sizeof(uint32_t));
	l.placed = align8(l.flip + (nt + 7) / 8);
	/* The holes and their edges the census finds (mesh_topo.h), in up to
	 * hole_room bytes, moved after the parts once the corners are
	 * placed. */
	l.holes = align8(l.placed + 3 * nv * sizeof(double));
	l.total = l.holes + hole_room(nt);
	const size_t far_end = align64(l.flip + hole_room(nt)) + winding_far_bound(nt);
	if (l.total < far_end)
		l.total = far_end;
	/* The oriented boxes last, one per node (at most 2 nt). */
	l.total = align64(l.total) + 2 * nt * sizeof(mesh_obb);
	return l;
}

size_t clash_mesh_size(size_t nvertices, size_t ntriangles)
{
	if (ntriangles == 0 || ntriangles > MESH_MAX_TRIANGLES || nvertices > MESH_MAX_VERTICES)
		return 0;
	/* 56: the header moved up to a 64-byte boundary. */
	return 56 + mesh_layout(nvertices, ntriangles).total;
}

/* ---- tree ---------------------------------------------------------------- */

/* Plain loops over the four lanes: compilers make them single SSE
 * instructions (min and max of four floats). */
static inline void fbox_empty(fbox *b)
{
	for (int k = 0; k < 4; k++) {
		b->lo[k] = INFINITY;
		b->hi[k] = -INFINITY;
	}
}

static inline void fbox_grow(fbox *b, const fbox *r)
{
	for (int k = 0; k < 4; k++) {
		b->lo[k] = r->lo[k] < b->lo[k] ? r->lo[k] : b->lo[k];
		b->hi[k] = r->hi[k] > b->hi[k] ? r->hi[k] : b->hi[k];
	}
}

/* c grown by the centre (lo + hi) of r. */
static inline void fbox_grow_centre(fbox *c, const fbox *r)
{
	for (int k = 0; k < 4; k++) {
		float m = r->lo[k] + r->hi[k];
		c->lo[k] = m < c->lo[k] ? m : c->lo[k];
		c->hi[k] = m > c->hi[k] ? m : c->hi[k];
	}
}

static double fbox_area(const fbox *b)
{
	double x = (double)b->hi[0] - b->lo[0], y = (double)b->hi[1] - b->lo[1],
	       z = (double)b->hi[2] - b->lo[2];
	return x * y + y * z + z * x;
}

/* Boxes of r[s..e) and of their centres. */
static void bounds(const fbox *r, size_t s, size_t e, fbox *b, fbox *c)
{
	fbox_empty(b);
	fbox_empty(c);
	for (size_t i = s; i < e; i++) {
		fbox_grow(b, &r[i]);
		fbox_grow_centre(c, &r[i]);
	}
}

/* Binning along one axis: bin = (centre - lo) * f, clamped (in double:
 * f stays finite for the least float extent). */
typedef struct binning {
	int axis, n;
	double lo, f;
} binning;

static inline int bin_of(const binning *g, const fbox *r)
{
	double m = (double)(r->lo[g->axis] + r->hi[g->axis]);
	int b = (int)((m - g->lo) * g->f);
	return b < 0 ? 0 : b >= g->n ? g->n - 1 : b;
}

/* The border (1 .. n-1) of least SAH cost over the bins, or -1; *cost. */
static int best_border(const fbox *bb, const size_t *cnt, int n, double *cost)
{
	double right_area[BINS];
	size_t right_cnt[BINS], c = 0;
	fbox acc;
	fbox_empty(&acc);
	for (int i = n - 1; i > 0; i--) {
		fbox_grow(&acc, &bb[i]);
		c += cnt[i];
		right_area[i] = c ? fbox_area(&acc) : 0.0;
		right_cnt[i] = c;
	}
	fbox_empty(&acc);
	c = 0;
	*cost = INFINITY;
	int best = -1;
	for (int i = 1; i < n; i++) {
		fbox_grow(&acc, &bb[i - 1]);
		c += cnt[i - 1];
		if (c == 0 || right_cnt[i] == 0)
			continue;
		double x = fbox_area(&acc) * (double)c + right_area[i] * (double)right_cnt[i];
		if (x < *cost) {
			*cost = x;
			best = i;
		}
	}
	return best;
}

/* Records r[s..e) (with their ids) moved so that those of bins below
 * `border` come first; returns the first of the others.  bins: each
 * record's bin (bin_all), kept in step for the records not yet passed. */
static size_t partition(fbox *r, uint32_t *ids, uint8_t *bins, size_t s, size_t e, int border)
{
	size_t i = s, j = e;
	while (i < j) {
		if (bins[i] < border) {
			i++;
			continue;
		}
		j--;
		fbox t = r[i];
		r[i] = r[j];
		r[j] = t;
		uint32_t u = ids[i];
		ids[i] = ids[j];
		ids[j] = u;
		bins[i] = bins[j];
	}
	return i;
}

/* Halving by position: the sides' boxes; returns the middle, or s for a
 * leaf. */
static size_t halve(const fbox *r, size_t s, size_t e, fbox *lb, fbox *lc, fbox *rb, fbox *rc)
{
	if (e - s <= MESH_LEAF_MAX)
		return s;
	size_t mid = s + (e - s) / 2;
	bounds(r, s, mid, lb, lc);
	bounds(r, mid, e, rb, rc);
	return mid;
}

/* The records r[s..e) into the bins: their boxes, centres' boxes and
 * counts, and each record's bin into bins (for the partition).  Neighbouring records mostly fall in the same bin, so a run of
 * them is gathered in locals (registers) and added to its bin once: the
 * bins in memory would chain each record's update to the last one's
 * store. */
static void bin_all(const fbox *r, uint8_t *bins, size_t s, size_t e, const binning *g, fbox *bb,
                    fbox *bc, size_t *cnt)
{
	int cur = bin_of(g, &r[s]);
	fbox ab, ac;
	fbox_empty(&ab);
	fbox_empty(&ac);
	size_t run = 0;
	for (size_t i = s; i < e; i++) {
		const int bi = bin_of(g, &r[i]);
		bins[i] = (uint8_t)bi;
		if (bi != cur) {
			fbox_grow(&bb[cur], &ab);
			fbox_grow(&bc[cur], &ac);
			cnt[cur] += run;
			fbox_empty(&ab);
			fbox_empty(&ac);
			run = 0;
			cur = bi;
		}
		fbox_grow(&ab, &r[i]);
		fbox_grow_centre(&ac, &r[i]);
		run++;
	}
	fbox_grow(&bb[cur], &ab);
	fbox_grow(&bc[cur], &ac);
	cnt[cur] += run;
}

/* The split of r[s..e) by binned SAH: returns the first record of the
 * right side (s < mid < e), or s when a leaf is cheaper (only when e - s
 * <= MESH_LEAF_MAX).  lb, lc, rb, rc: the sides' boxes and centres' boxes. */
static size_t split(fbox *r, uint32_t *ids, uint8_t *bins, size_t s, size_t e, const fbox *nb,
                    const fbox *nc, fbox *lb, fbox *lc, fbox *rb, fbox *rc)
{
	const size_t n = e - s;
	binning g = {0, 0, 0.0, 0.0};
	for (int k = 1; k < 3; k++)
		if ((double)nc->hi[k] - nc->lo[k] > (double)nc->hi[g.axis] - nc->lo[g.axis])
			g.axis = k;
	const double ext = (double)nc->hi[g.axis] - nc->lo[g.axis];
	if (!(ext > 0.0)) /* every centre alike */
		return halve(r, s, e, lb, lc, rb, rc);
	/* Fewer bins for small ranges: the bins' fixed cost (emptying,
	 * two sweeps) then no longer outweighs binning the triangles. */
	g.n = n >= 64 ? BINS : n >= 12 ? BINS / 2 : n >= 6 ? BINS / 4 : 2;
	g.lo = nc->lo[g.axis];
	g.f = g.n * (1.0 - 1e-9) / ext;
	fbox bb[BINS], bc[BINS];
	size_t cnt[BINS] = {0};
	for (int i = 0; i < g.n; i++) {
		fbox_empty(&bb[i]);
		fbox_empty(&bc[i]);
	}
	bin_all(r, bins, s, e, &g, bb, bc, cnt);
	double cost;
	int border = best_border(bb, cnt, g.n, &cost);
	if (border < 0) /* cannot happen with ext > 0; be safe */
		return halve(r, s, e, lb, lc, rb, rc);
	/* A leaf when small and no dearer: traversal cost MESH_NODE_COST per
	 * node, one per triangle, areas relative to the node's. */
	double area = fbox_area(nb);
	if (n <= MESH_LEAF_MAX && (!(area > 0.0) || MESH_NODE_COST + cost / area >= (double)n))
		return s;
	size_t mid = partition(r, ids, bins, s, e, border);
	fbox_empty(lb);
	fbox_empty(lc);
	fbox_empty(rb);
	fbox_empty(rc);
	for (int k = 0; k < g.n; k++) {
		fbox_grow(k < border ? lb : rb, &bb[k]);
		fbox_grow(k < border ? lc : rc, &bc[k]);
	}
	return mid;
}

static void store_box(mesh_node *nd, const fbox *b)
{
	for (int k = 0; k < 3; k++) {
		nd->lo[k] = b->lo[k];
		nd->hi[k] = b->hi[k];
	}
}

/* The tree over records r (ids alongside), depth first: a node split
 * gets the next free pair of nodes for its children. */
static void build_tree(clash_mesh *m, fbox *r, uint32_t *ids, uint8_t *bins, const fbox *root_b,
                       const fbox *root_c)
{
	task stack[MESH_TASKS];
	int top = 0, depth_max = 0;
	size_t nnodes = 2;
	memset(&m->nodes[1], 0, sizeof m->nodes[1]); /* the pad beside the root */
	stack[top++] = (task){0, (uint32_t)m->ntriangles, 0, 1, *root_b, *root_c};
	while (top > 0) {
		task t = stack[--top];
		mesh_node *nd = &m->nodes[t.node];
		store_box(nd, &t.b);
		depth_max = t.depth > depth_max ? t.depth : depth_max;
		fbox lb, lc, rb, rc;
		size_t mid = t.depth >= MESH_SAH_DEPTH
		                     ? halve(r, t.start, t.end, &lb, &lc, &rb, &rc)
		                     : split(r, ids, bins, t.start, t.end, &t.b, &t.c, &lb, &lc,
		                             &rb, &rc);
		if (mid == t.start) {
			nd->first = t.start;
			nd->count = t.end - t.start;
			continue;
		}
		const uint32_t p = (uint32_t)nnodes;
		nnodes += 2;
		nd->first = p;
		nd->count = 0;
		/* Right pushed first: the left child is built next. */
		stack[top++] = (task){(uint32_t)mid, t.end, p + 1, t.depth + 1, rb, rc};
		stack[top++] = (task){t.start, (uint32_t)mid, p, t.depth + 1, lb, lc};
	}
	m->nnodes = nnodes;
	m->depth = depth_max;
}

/* A double bound relative to the origin as a float rounded outward: the
 * nearest float moved out by 2^-22 of itself (at least two float steps:
 * covers both roundings) and by FLT_MIN (near 0). */
static inline float out_lo(double x)
{
	float f = (float)x;
	return f - (fabsf(f) * 0x1p-22f + FLT_MIN);
}

static inline float out_hi(double x)
{
	float f = (float)x;
	return f + (fabsf(f) * 0x1p-22f + FLT_MIN);
}

static inline size_t vertex_of(const uint32_t *indices, size_t t, int c)
{
	return indices ? indices[3 * t + (size_t)c] : 3 * t + (size_t)c;
}

/* The box of triangle t in doubles. */
static inline void tri_bounds(const double *p, const uint32_t *indices, size_t t, double *lo,
                              double *hi)
{
	const double *v = p + 3 * vertex_of(indices, t, 0);
	for (int k = 0; k < 3; k++)
		lo[k] = hi[k] = v[k];
	for (int c = 1; c < 3; c++) {
		v = p + 3 * vertex_of(indices, t, c);
		for (int k = 0; k < 3; k++) {
			lo[k] = lo2(lo[k], v[k]);
			hi[k] = hi2(hi[k], v[k]);
		}
	}
}

/* m->origin: the centre of the box of the triangles' corners. */
static void set_origin(clash_mesh *m)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t t = 0; t < m->ntriangles; t++) {
		double a[3], b[3];
		tri_bounds(m->positions, m->indices, t, a, b);
		for (int k = 0; k < 3; k++) {
			lo[k] = lo2(lo[k], a[k]);
			hi[k] = hi2(hi[k], b[k]);
		}
	}
	for (int k = 0; k < 3; k++)
		m->origin[k] = 0.5 * lo[k] + 0.5 * hi[k];
}

/* Each triangle's record (float box about the origin) and id; the root's
 * boxes. */
static void records(const clash_mesh *m, fbox *r, uint32_t *ids, fbox *b, fbox *c)
{
	fbox_empty(b);
	fbox_empty(c);
	for (size_t t = 0; t < m->ntriangles; t++) {
		double lo[3], hi[3];
		tri_bounds(m->positions, m->indices, t, lo, hi);
		for (int k = 0; k < 3; k++) {
			r[t].lo[k] = out_lo(lo[k] - m->origin[k]);
			r[t].hi[k] = out_hi(hi[k] - m->origin[k]);
		}
		r[t].lo[3] = r[t].hi[3] = 0.0f;
		ids[t] = (uint32_t)t;
		fbox_grow(b, &r[t]);
		fbox_grow_centre(c, &r[t]);
	}
}

/* ---- topology ------------------------------------------------------------ */

/* The weld (weld.h: vertices within tol are one; when some moved, every
 * vertex's welded coordinates go to placed, 3 per vertex, and *moved
 * counts them), then the edge census (mesh_topo.c) into *t, the turns
 * into the bitmap flip and the parts' first triangles into list.  -1:
 * too dense to weld. */
static int topology(const clash_mesh *m, void *scratch, double tol, double *placed, size_t *moved,
                    uint8_t *flip, uint32_t *list, void *holes, size_t *nholes, size_t *nedges,
                    mesh_topo *t)
{
	const size_t nv = m->nvertices, nslots = hash_slots(nv);
	char *p = scratch;
	uint32_t *slots = (uint32_t *)p;
	p += align8(nslots * sizeof *slots);
	uint32_t *canon = (uint32_t *)p;
	p += align8(nv * sizeof *canon);
	uint32_t *seen = (uint32_t *)p;
	uint32_t *first = (uint32_t *)(p + align8((nv + 1) * sizeof *seen));
	uint32_t *parent = first + align8(nv * sizeof *first) / sizeof *first;
	const weld_scratch ws = {slots, nslots, first, seen, parent};
	const size_t nu = weld_join(m->positions, nv, tol, &ws, canon);
	if (nu == WELD_DENSE)
		return -1;
	*moved = tol > 0.0 ? weld_place(m->positions, nv, canon, first, placed) : 0;
	/* The weld's scratch after canon is free again: the census's. */
	const mesh_topo_in in = {*moved ? placed : m->positions, m->indices, canon, nu,
	                         m->ntriangles};
	*nholes = mesh_topo_run(&in, p, flip, list, holes, hole_room(m->ntriangles), nedges, t);
	return 0;
}

/* ---- the build ------------------------------------------------------------ */

static int check_input(const double *positions, size_t nvertices, const uint32_t *indices,
                       size_t ntriangles)
{
	if (indices == NULL && nvertices != 3 * ntriangles)
		return CLASH_EINVAL;
	if (indices)
		for (size_t i = 0; i < 3 * ntriangles; i++)
			if (indices[i] >= nvertices)
				return CLASH_EINVAL;
	/* Node boxes are floats about the mesh's centre (mesh.h). */
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t v = 0; v < nvertices; v++)
		for (int k = 0; k < 3; k++) {
			const double x = positions[3 * v + k];
			if (!isfinite(x))
				return CLASH_ERANGE;
			lo[k] = lo2(lo[k], x);
			hi[k] = hi2(hi[k], x);
		}
	for (int k = 0; k < 3; k++)
		if (!(hi[k] - lo[k] <= MESH_MAX_EXTENT))
			return CLASH_ERANGE;
	return CLASH_OK;
}

/* Signed volume of the placed triangles, about the origin for accuracy. */
static double signed_volume(const clash_mesh *m)
{
	double v = 0.0;
	for (size_t i = 0; i < m->ntriangles; i++) {
		double p[3][3];
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 3; k++)
				p[c][k] = m->tri[9 * i + 3 * c + k] - m->origin[k];
		v += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
		     p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
		     p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
	}
	return v / 6.0;
}

/* The corners in tree order over the ids (which they overwrite from the
 * end: id i is read before corner block i, at 18 times its offset, is
 * written), and the parts' triangles in tree order into m->reps. */
static void place_triangles(clash_mesh *m, const uint32_t *ids, size_t nreps)
{
	size_t k = nreps;
	for (size_t i = m->ntriangles; i-- > 0;) {
		const uint32_t id = ids[i], t = id & ~(REP_BIT | FLIP_BIT);
		if (id & REP_BIT)
			m->reps[--k] = (uint32_t)i;
		m->input[i] = t;
		for (int c = 0; c < 3; c++) {
			const int from = (id & FLIP_BIT) && c ? 3 - c : c;
			memcpy(m->tri + 9 * i + 3 * c,
			       m->positions + 3 * vertex_of(m->indices, t, from),
			       3 * sizeof(double));
		}
	}
	m->nreps = nreps;
}

/* Room for the oriented boxes after everything else: fitted by the
 * first query that needs them (mesh_fit_get). */
static void place_obbs(clash_mesh *m, char *base)
{
	mesh_obb *o = (mesh_obb *)(base + align64(m->bytes));
	m->obbs = o;
	atomic_init(&m->fit, MESH_FIT_NONE);
	m->bytes = (size_t)((char *)(o + m->nnodes) - base);
}

int clash_mesh_build_welded(void *storage, size_t size, const double *positions, size_t nvertices,
                            const uint32_t *indices, size_t ntriangles, double weld,
                            clash_mesh **out)
{
	if (out)
		*out = NULL;
	if (storage == NULL || positions == NULL || out == NULL || ((uintptr_t)storage & 7) ||
	    !(weld >= 0.0 && weld <= DBL_MAX))
		return CLASH_EINVAL;
	if (ntriangles == 0)
		return CLASH_EEMPTY;
	const size_t need = clash_mesh_size(nvertices, ntriangles);
	if (need == 0 || size < need)
		return CLASH_EINVAL;
	int err = check_input(positions, nvertices, indices, ntriangles);
	if (err)
		return err;

	const layout l = mesh_layout(nvertices, ntriangles);
	char *base = (char *)storage + ((64 - ((uintptr_t)storage & 63)) & 63);
	clash_mesh *m = (clash_mesh *)base;
	memset(m, 0, sizeof *m);
	m->positions = positions;
	m->indices = indices;
	m->nvertices = nvertices;
	m->ntriangles = ntriangles;
	m->tri = (double *)(base + l.tri);
	m->nodes = (mesh_node *)(base + l.nodes);
	/* The topology first, its scratch where the corners go last. */
	uint32_t *list = (uint32_t *)(base + l.list);
	const uint8_t *flip = (const uint8_t *)(base + l.flip);
	/* Vertices welded: the tree and corners are built from their new
	 * coordinates, the caller's positions put back at the end. */
	const double tol = weld > 0.0 ? weld * weld_diagonal(positions, nvertices) : 0.0;
	double *placed = (double *)(base + l.placed);
	void *holes = base + l.holes;
	size_t nholes, nedges;
	if (topology(m, base + l.tri, tol, placed, &m->welded, (uint8_t *)(base + l.flip), list,
	             holes, &nholes, &nedges, &m->topo) < 0)
		return CLASH_ELIMIT;
	if (m->welded)
		m->positions = placed;
	const size_t nreps = m->topo.parts;
	/* Then the records there: ids first (place_triangles relies on it),
	 * the float boxes 16-byte aligned after them, then a byte each for
	 * its bin: 37 of the 72 bytes a triangle's corners take. */
	uint32_t *ids = (uint32_t *)(base + l.tri);
	fbox *r = (fbox *)(base + l.tri + ((ntriangles * sizeof(uint32_t) + 15) & ~(size_t)15));
	uint8_t *bins = (uint8_t *)(r + ntriangles);
	fbox rb, rc;
	set_origin(m);
	records(m, r, ids, &rb, &rc);
	for (size_t i = 0; i < nreps; i++)
		ids[list[i]] |= REP_BIT;
	for (size_t t = 0; t < ntriangles; t++)
		if (flip[t >> 3] & (1u << (t & 7)))
			ids[t] |= FLIP_BIT;
	build_tree(m, r, ids, bins, &rb, &rc);
	m->reps = (uint32_t *)(m->nodes + m->nnodes);
	m->input = m->reps + nreps;
	place_triangles(m, ids, nreps);
	m->volume = signed_volume(m);
	m->positions = positions;
	m->magic = MESH_MAGIC;
	m->bytes = (size_t)((char *)(m->input + ntriangles) - base);
	m->capped = !m->topo.closed && nholes != SIZE_MAX;
	const size_t hole_bytes =
		m->capped ? nholes * sizeof(mesh_hole) + nedges * sizeof(mesh_hole_edge) : 0;
	if (m->capped &&
	    hole_bytes + holes_tree_nodes(nholes) * sizeof(hole_node) > hole_room(ntriangles))
		m->capped = 0;
	if (m->capped && nholes) {
		/* The holes, their edges and their tree after the parts: the turns
		 * and coordinates are read. */
		mesh_hole *to = (mesh_hole *)(base + align8(m->bytes));
		memmove(to, holes, hole_bytes);
		hole_node *nodes = (hole_node *)((char *)to + hole_bytes);
		const size_t nn = holes_tree_build(to, nholes, nodes);
		assert(nn <= holes_tree_nodes(nholes));
		m->holes = to;
		m->nholes = nholes;
		m->hole_edges = (const mesh_hole_edge *)(to + nholes);
		m->hole_nodes = nodes;
		m->bytes = (size_t)((char *)(nodes + nn) - base);
	}
	if (m->topo.closed) {
		/* A ray decides inside a closed mesh (mesh_query.c): no far
		 * field, no leak. */
		m->solid = mesh_solid_rule(m);
		place_obbs(m, base);
		*out = m;
		return CLASH_OK;
	}
	/* The far field over the list, the turns and the coordinates, read
	 * by now. */
	char *far = base + align64(m->bytes);
	m->far = far;
	err = winding_far_build(m, far, winding_far_size(m));
	assert(err == CLASH_OK);
	m->bytes = (size_t)(far - base) + winding_far_size(m);
	m->leak = mesh_leak(m);
	m->solid = mesh_solid_rule(m);
	place_obbs(m, base);
	*out = m;
	return CLASH_OK;
}

int clash_mesh_build(void *storage, size_t size, const double *positions, size_t nvertices,
                     const uint32_t *indices, size_t ntriangles, clash_mesh **out)
{
	return clash_mesh_build_welded(storage, size, positions, nvertices, indices, ntriangles,
	                               0.0, out);
}

size_t clash_mesh_welded(const clash_mesh *m)
{
	return mesh_valid(m) ? m->welded : 0;
}

int clash_mesh_is_solid(const clash_mesh *m)
{
	return mesh_valid(m) ? m->solid : 0;
}

int clash_mesh_info_get(const clash_mesh *m, clash_mesh_info *out)
{
	if (!mesh_valid(m) || out == NULL)
		return CLASH_EINVAL;
	int capped;
	const size_t crossings = mesh_self_count(m, &capped);
	*out = (clash_mesh_info){
		.solid = m->solid,
		.closed = m->topo.closed,
		.triangles = m->ntriangles,
		.parts = m->topo.parts,
		.boundary_edges = m->topo.boundary,
		.nonmanifold_edges = m->topo.nonmanifold,
		.flipped = m->topo.flipped,
		.welded = m->welded,
		.leak = m->leak,
		.self_intersections = crossings,
		.self_intersections_capped = capped,
	};
	return CLASH_OK;
}

static void add_info(clash_mesh_info *sum, const clash_mesh_info *i, int first)
{
	sum->solid = first ? i->solid : sum->solid && i->solid;
	sum->closed = first ? i->closed : sum->closed && i->closed;
	sum->triangles += i->triangles;
	sum->parts += i->parts;
	sum->boundary_edges += i->boundary_edges;
	sum->nonmanifold_edges += i->nonmanifold_edges;
	sum->flipped += i->flipped;
	sum->welded += i->welded;
	sum->leak = i->leak > sum->leak ? i->leak : sum->leak;
	sum->self_intersections += i->self_intersections;
	sum->self_intersections_capped |= i->self_intersections_capped;
}

static size_t shape_info(const clash_shape *s, clash_mesh_info *sum, size_t n)
{
	clash_mesh_info i;
	if (s->nparts) {
		for (size_t k = 0; k < s->nparts; k++)
			n = shape_info(&s->parts[k], sum, n);
	} else if (s->mesh && clash_mesh_info_get(s->mesh, &i) == CLASH_OK) {
		add_info(sum, &i, n == 0);
		n++;
	}
	return n;
}

size_t clash_shape_mesh_solid(const clash_shape *s, int *solid)
{
	size_t n = 0;
	if (s && s->nparts) {
		for (size_t k = 0; k < s->nparts; k++) {
			int part;
			if (clash_shape_mesh_solid(&s->parts[k], &part)) {
				*solid = n ? *solid && part : part;
				n++;
			}
		}
	} else if (s && mesh_valid(s->mesh)) {
		*solid = s->mesh->solid;
		n = 1;
	}
	return n;
}

size_t clash_shape_mesh_info(const clash_shape *s, clash_mesh_info *out)
{
	if (out == NULL)
		return 0;
	memset(out, 0, sizeof *out);
	return s ? shape_info(s, out, 0) : 0;
}

size_t clash_mesh_triangles(const clash_mesh *m)
{
	return mesh_valid(m) ? m->ntriangles : 0;
}

const uint32_t *clash_mesh_indices(const clash_mesh *m)
{
	return mesh_valid(m) ? m->indices : NULL;
}

size_t clash_mesh_bytes(const clash_mesh *m)
{
	return mesh_valid(m) ? m->bytes : 0;
}

int clash_mesh_move(void *dst, const clash_mesh *m, clash_mesh **out)
{
	if (dst == NULL || out == NULL || !mesh_valid(m) || ((uintptr_t)dst & 7u) != 0)
		return CLASH_EINVAL;
	/* Boxes fitted before the copy are copied fitted; any others are
	 * fitted again in the copy, by its first query. */
	const int fit = atomic_load_explicit((_Atomic int *)&m->fit, memory_order_acquire);
	memcpy(dst, m, m->bytes);
	clash_mesh *c = dst;
	/* Every array lies in the block after the header: the same offsets. */
	const char *from = (const char *)m;
	char *to = (char *)c;
	c->nodes = (mesh_node *)(to + ((const char *)m->nodes - from));
	c->tri = (double *)(to + ((const char *)m->tri - from));
	c->reps = (uint32_t *)(to + ((const char *)m->reps - from));
	c->input = (uint32_t *)(to + ((const char *)m->input - from));
	c->far = m->far ? to + ((const char *)m->far - from) : NULL;
	c->obbs = (const mesh_obb *)(to + ((const char *)m->obbs - from));
	atomic_init(&c->fit, fit == MESH_FIT_DONE ? MESH_FIT_DONE : MESH_FIT_NONE);
	c->holes = m->holes ? (const mesh_hole *)(to + ((const char *)m->holes - from)) : NULL;
	c->hole_nodes = m->hole_nodes
	                        ? (const hole_node *)(to + ((const char *)m->hole_nodes - from))
	                        : NULL;
	c->hole_edges =
		m->hole_edges ? (const mesh_hole_edge *)(to + ((const char *)m->hole_edges - from))
			      : NULL;
	*out = c;
	return CLASH_OK;
}

int clash_shape_init_mesh(clash_shape *s, const clash_mesh *m)
{
	if (s == NULL)
		return CLASH_EINVAL;
	memset(s, 0, sizeof *s);
	if (!mesh_valid(m))
		return CLASH_EINVAL;
	s->dim = 3;
	s->count = m->nvertices;
	s->vertices = m->positions;
	s->linear[0] = s->linear[4] = s->linear[8] = 1.0;
	s->mesh = m;
	return CLASH_OK;
}
