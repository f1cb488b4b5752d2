/*
 * mesh_build.c — building a triangle mesh's tree and topology in caller
 * storage (clash_mesh_size, clash_mesh_build; layout in mesh.h).
 *
 * The tree: binned SAH after Wald 2007, "On fast construction of SAH-based
 * bounding volume hierarchies", section 3: at each node the triangles'
 * box centres are put in 16 bins along the axis of their widest spread, the
 * surface area heuristic is evaluated at the 15 bin borders (section 3.2,
 * with the bins' boxes and counts gathered in one pass), and the range is
 * partitioned in place.  Children's boxes come from the bins, so each level
 * reads each triangle's record once to bin it and once to partition.
 * Below MESH_SAH_DEPTH levels ranges are halved by position, which bounds
 * the depth for any input (queries keep fixed stacks).
 *
 * The topology: vertices of exactly equal coordinates are one (a hash of
 * their bits), so seams and unindexed triples weld; then every directed edge
 * between distinct welded vertices is keyed by its undirected edge and its
 * direction, radix sorted, and the mesh is a solid when every undirected
 * edge appears exactly twice, once each way.
 */
#include <math.h>
#include <string.h>

#include "mesh.h"

#define BINS 16
#define MESH_SAH_DEPTH 48
/* Largest mesh: node and vertex numbers fit uint32_t with room. */
#define MESH_MAX_TRIANGLES ((size_t)1 << 30)
#define MESH_MAX_VERTICES (((size_t)1 << 31) - 1)
/* Largest extent along an axis: node boxes are floats (mesh.h). */
#define MESH_MAX_EXTENT 1e30

/* A triangle's box while building: lo, hi and its number. */
typedef struct rec {
	double lo[3], hi[3];
	uint32_t id;
} rec;

typedef struct box {
	double lo[3], hi[3];
} box;

/* A range waiting to be built: node to patch with its index (as the
 * right child of `parent`), its box and its centres' box. */
typedef struct task {
	size_t start, end;
	size_t parent; /* SIZE_MAX: the left child, or the root */
	int depth;
	box b, c;
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

/* Bytes of the kept part: header, nodes, coordinates, numbers. */
static size_t kept_bytes(size_t nt, size_t nnodes)
{
	return align8(sizeof(clash_mesh)) + 32 + nnodes * sizeof(mesh_node) + 9 * nt * sizeof(double) +
	       align8(nt * sizeof(uint32_t)) + align8(nt * sizeof(uint32_t));
}

static size_t hash_slots(size_t nv)
{
	size_t s = 16;
	while (s < 2 * nv)
		s *= 2;
	return s;
}

static size_t scratch_bytes(size_t nv, size_t nt)
{
	size_t build = nt * sizeof(rec) + nt * sizeof(task);
	size_t topo = align8(hash_slots(nv) * sizeof(uint32_t)) + 2 * align8(nv * sizeof(uint32_t)) +
	              2 * 3 * nt * sizeof(uint64_t) + 2048 * sizeof(size_t);
	return build > topo ? build : topo;
}

size_t clash_mesh_size(size_t nvertices, size_t ntriangles)
{
	if (ntriangles == 0 || ntriangles > MESH_MAX_TRIANGLES || nvertices > MESH_MAX_VERTICES)
		return 0;
	return kept_bytes(ntriangles, 2 * ntriangles - 1) + scratch_bytes(nvertices, ntriangles);
}

/* ---- tree ---------------------------------------------------------------- */

static void box_empty(box *b)
{
	for (int k = 0; k < 3; k++) {
		b->lo[k] = INFINITY;
		b->hi[k] = -INFINITY;
	}
}

static double box_area(const box *b)
{
	double x = b->hi[0] - b->lo[0], y = b->hi[1] - b->lo[1], z = b->hi[2] - b->lo[2];
	return x * y + y * z + z * x;
}

/* Boxes of recs[s..e) and of their centres (lo + hi, unhalved). */
static void bounds(const rec *r, size_t s, size_t e, box *b, box *c)
{
	box_empty(b);
	box_empty(c);
	for (size_t i = s; i < e; i++)
		for (int k = 0; k < 3; k++) {
			double m = r[i].lo[k] + r[i].hi[k];
			b->lo[k] = lo2(b->lo[k], r[i].lo[k]);
			b->hi[k] = hi2(b->hi[k], r[i].hi[k]);
			c->lo[k] = lo2(c->lo[k], m);
			c->hi[k] = hi2(c->hi[k], m);
		}
}

/* The split of recs[s..e) by binned SAH: returns the position of the
 * first rec of the right side (s < mid < e), or s when a leaf is cheaper
 * (only when e - s <= MESH_LEAF_MAX).  lb, lc, rb, rc: the sides' boxes
 * and centres' boxes. */
static size_t split(rec *r, size_t s, size_t e, const box *nb, const box *nc, box *lb, box *lc,
                    box *rb, box *rc)
{
	const size_t n = e - s;
	int axis = 0;
	for (int k = 1; k < 3; k++)
		if (nc->hi[k] - nc->lo[k] > nc->hi[axis] - nc->lo[axis])
			axis = k;
	const double lo = nc->lo[axis], ext = nc->hi[axis] - nc->lo[axis];
	if (!(ext > 0.0)) {
		/* Every centre alike: halve by position. */
		if (n <= MESH_LEAF_MAX)
			return s;
		size_t mid = s + n / 2;
		bounds(r, s, mid, lb, lc);
		bounds(r, mid, e, rb, rc);
		return mid;
	}
	/* Fewer bins for small ranges: the bins' fixed cost (emptying,
	 * two sweeps) then no longer outweighs binning the triangles. */
	const int nbins = n >= 64 ? BINS : n >= 12 ? BINS / 2 : n >= 6 ? BINS / 4 : 2;
	const double f = nbins * (1.0 - 1e-9) / ext;
	box bb[BINS], bc[BINS];
	size_t cnt[BINS] = {0};
	for (int i = 0; i < nbins; i++) {
		box_empty(&bb[i]);
		box_empty(&bc[i]);
	}
	for (size_t i = s; i < e; i++) {
		const rec *q = &r[i];
		double m = q->lo[axis] + q->hi[axis];
		int bi = (int)((m - lo) * f);
		bi = bi < 0 ? 0 : bi >= nbins ? nbins - 1 : bi;
		cnt[bi]++;
		box *x = &bb[bi], *y = &bc[bi];
		for (int k = 0; k < 3; k++) {
			double c = q->lo[k] + q->hi[k];
			x->lo[k] = lo2(x->lo[k], q->lo[k]);
			x->hi[k] = hi2(x->hi[k], q->hi[k]);
			y->lo[k] = lo2(y->lo[k], c);
			y->hi[k] = hi2(y->hi[k], c);
		}
	}
	/* Sweep from the right for the right sides' areas, then from the
	 * left for the cost at each border (SAH, section 2.1). */
	double right_area[BINS];
	size_t right_cnt[BINS];
	box acc;
	box_empty(&acc);
	size_t c = 0;
	for (int i = nbins - 1; i > 0; i--) {
		for (int k = 0; k < 3; k++) {
			acc.lo[k] = lo2(acc.lo[k], bb[i].lo[k]);
			acc.hi[k] = hi2(acc.hi[k], bb[i].hi[k]);
		}
		c += cnt[i];
		right_area[i] = c ? box_area(&acc) : 0.0;
		right_cnt[i] = c;
	}
	box_empty(&acc);
	c = 0;
	double best = INFINITY;
	int best_i = -1;
	for (int i = 1; i < nbins; i++) {
		for (int k = 0; k < 3; k++) {
			acc.lo[k] = lo2(acc.lo[k], bb[i - 1].lo[k]);
			acc.hi[k] = hi2(acc.hi[k], bb[i - 1].hi[k]);
		}
		c += cnt[i - 1];
		if (c == 0 || right_cnt[i] == 0)
			continue;
		double cost = box_area(&acc) * (double)c + right_area[i] * (double)right_cnt[i];
		if (cost < best) {
			best = cost;
			best_i = i;
		}
	}
	if (best_i < 0) /* cannot happen with ext > 0; be safe */
		return n <= MESH_LEAF_MAX ? s : s + n / 2;
	/* A leaf when small and no dearer: traversal cost 1 per node, one per
	 * triangle, areas relative to the node's. */
	double area = box_area(nb);
	if (n <= MESH_LEAF_MAX && (!(area > 0.0) || 1.0 + best / area >= (double)n))
		return s;
	/* Partition in place by bin. */
	size_t i = s, j = e;
	while (i < j) {
		double m = r[i].lo[axis] + r[i].hi[axis];
		int bi = (int)((m - lo) * f);
		bi = bi < 0 ? 0 : bi >= nbins ? nbins - 1 : bi;
		if (bi < best_i) {
			i++;
		} else {
			rec t = r[i];
			r[i] = r[--j];
			r[j] = t;
		}
	}
	box_empty(lb);
	box_empty(lc);
	box_empty(rb);
	box_empty(rc);
	for (int k = 0; k < nbins; k++) {
		box *x = k < best_i ? lb : rb, *y = k < best_i ? lc : rc;
		for (int a = 0; a < 3; a++) {
			x->lo[a] = lo2(x->lo[a], bb[k].lo[a]);
			x->hi[a] = hi2(x->hi[a], bb[k].hi[a]);
			y->lo[a] = lo2(y->lo[a], bc[k].lo[a]);
			y->hi[a] = hi2(y->hi[a], bc[k].hi[a]);
		}
	}
	return i;
}

/* A double bound relative to the origin as a float, rounded outward by
 * one more float step than needed, which covers the rounding of the
 * subtraction (at most half a double ulp of the difference). */
static float float_down(double x)
{
	float f = (float)x;
	if ((double)f > x)
		f = nextafterf(f, -INFINITY);
	return nextafterf(f, -INFINITY);
}

static float float_up(double x)
{
	float f = (float)x;
	if ((double)f < x)
		f = nextafterf(f, INFINITY);
	return nextafterf(f, INFINITY);
}

static void store_box(const clash_mesh *m, mesh_node *nd, const box *b)
{
	for (int k = 0; k < 3; k++) {
		nd->lo[k] = float_down(b->lo[k] - m->origin[k]);
		nd->hi[k] = float_up(b->hi[k] - m->origin[k]);
	}
}

static void build_tree(clash_mesh *m, rec *r, task *stack)
{
	const size_t nt = m->ntriangles;
	size_t top = 0, nnodes = 0;
	int depth_max = 0;
	stack[top].start = 0;
	stack[top].end = nt;
	stack[top].parent = SIZE_MAX;
	stack[top].depth = 1;
	bounds(r, 0, nt, &stack[top].b, &stack[top].c);
	for (int k = 0; k < 3; k++)
		m->origin[k] = 0.5 * stack[top].b.lo[k] + 0.5 * stack[top].b.hi[k];
	top++;
	while (top > 0) {
		task t = stack[--top];
		size_t id = nnodes++;
		mesh_node *nd = &m->nodes[id];
		if (t.parent != SIZE_MAX)
			m->nodes[t.parent].first = (uint32_t)id;
		store_box(m, nd, &t.b);
		if (t.depth > depth_max)
			depth_max = t.depth;
		box lb, lc, rb, rc;
		size_t mid;
		if (t.depth >= MESH_SAH_DEPTH) {
			mid = t.end - t.start <= MESH_LEAF_MAX ? t.start : t.start + (t.end - t.start) / 2;
			if (mid != t.start) {
				bounds(r, t.start, mid, &lb, &lc);
				bounds(r, mid, t.end, &rb, &rc);
			}
		} else {
			mid = split(r, t.start, t.end, &t.b, &t.c, &lb, &lc, &rb, &rc);
		}
		if (mid == t.start) {
			nd->first = (uint32_t)t.start;
			nd->count = (uint32_t)(t.end - t.start);
			continue;
		}
		nd->count = 0;
		/* Right pushed first: the left child is built next, at id + 1. */
		stack[top++] = (task){mid, t.end, id, t.depth + 1, rb, rc};
		stack[top++] = (task){t.start, mid, SIZE_MAX, t.depth + 1, lb, lc};
	}
	m->nnodes = nnodes;
	m->depth = depth_max;
}

/* ---- topology ------------------------------------------------------------ */

static uint64_t bits_of(double x)
{
	uint64_t u;
	x += 0.0; /* -0 as +0 */
	memcpy(&u, &x, sizeof u);
	return u;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* canon[v]: a number 0..nu-1 shared by vertices of equal coordinates. */
static size_t weld(const double *p, size_t nv, uint32_t *slots, size_t nslots, uint32_t *canon)
{
	memset(slots, 0, nslots * sizeof *slots);
	size_t nu = 0;
	for (size_t v = 0; v < nv; v++) {
		const double *x = p + 3 * v;
		uint64_t h = mix(bits_of(x[0]) ^ mix(bits_of(x[1]) ^ mix(bits_of(x[2]))));
		size_t s = (size_t)h & (nslots - 1);
		for (;;) {
			uint32_t o = slots[s];
			if (o == 0) {
				slots[s] = (uint32_t)(v + 1);
				canon[v] = (uint32_t)nu++;
				break;
			}
			const double *y = p + 3 * (size_t)(o - 1);
			if (x[0] == y[0] && x[1] == y[1] && x[2] == y[2]) {
				canon[v] = canon[o - 1];
				break;
			}
			s = (s + 1) & (nslots - 1);
		}
	}
	return nu;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* m->reps: the first triangle (tree order) of each part, from the welded
 * vertex numbers canon; scratch for nu + nu numbers. */
static void parts(clash_mesh *m, const uint32_t *indices, const uint32_t *canon, size_t nu,
                  uint32_t *parent, uint32_t *seen)
{
	for (size_t v = 0; v < nu; v++) {
		parent[v] = (uint32_t)v;
		seen[v] = 0;
	}
	for (size_t t = 0; t < m->ntriangles; t++) {
		uint32_t v[3];
		for (int k = 0; k < 3; k++)
			v[k] = find(parent, canon[indices ? indices[3 * t + k] : 3 * t + (size_t)k]);
		for (int k = 1; k < 3; k++) {
			uint32_t x = find(parent, v[0]), y = find(parent, v[k]);
			if (x != y)
				parent[y] = x;
		}
	}
	m->nreps = 0;
	for (size_t i = 0; i < m->ntriangles; i++) {
		size_t t = m->orig[i];
		uint32_t root = find(parent, canon[indices ? indices[3 * t] : 3 * t]);
		if (!seen[root]) {
			seen[root] = 1;
			m->reps[m->nreps++] = (uint32_t)i;
		}
	}
}

/* Whether m is closed and consistently oriented; also its parts. */
static int topology(clash_mesh *m, const uint32_t *indices, void *scratch)
{
	const size_t nv = m->nvertices, nt = m->ntriangles, nslots = hash_slots(nv);
	char *p = scratch;
	uint32_t *slots = (uint32_t *)p;
	p += align8(nslots * sizeof *slots);
	uint32_t *canon = (uint32_t *)p;
	p += align8(nv * sizeof *canon);
	uint32_t *seen = (uint32_t *)p;
	p += align8(nv * sizeof *seen);
	uint64_t *keys = (uint64_t *)p, *tmp = keys + 3 * nt;
	size_t *count = (size_t *)(tmp + 3 * nt);
	const uint64_t nu = weld(m->positions, nv, slots, nslots, canon);
	size_t ne = 0;
	for (size_t t = 0; t < nt; t++) {
		uint32_t v[3];
		for (int k = 0; k < 3; k++)
			v[k] = canon[indices ? indices[3 * t + k] : 3 * t + (size_t)k];
		for (int k = 0; k < 3; k++) {
			uint64_t a = v[k], b = v[(k + 1) % 3];
			if (a == b)
				continue;
			keys[ne++] = a < b ? ((a * nu + b) << 1) : ((b * nu + a) << 1) | 1;
		}
	}
	/* LSD radix sort, 11 bits a pass, over the bits the keys use. */
	uint64_t kmax = (nu * nu) << 1;
	for (int shift = 0; shift < 64 && (kmax >> shift) != 0; shift += 11) {
		memset(count, 0, 2048 * sizeof *count);
		for (size_t i = 0; i < ne; i++)
			count[(keys[i] >> shift) & 2047]++;
		size_t sum = 0;
		for (int d = 0; d < 2048; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < ne; i++)
			tmp[count[(keys[i] >> shift) & 2047]++] = keys[i];
		uint64_t *sw = keys;
		keys = tmp;
		tmp = sw;
	}
	int solid = ne > 0;
	for (size_t i = 0; i < ne && solid; i += 2) {
		if (i + 1 >= ne || (keys[i] >> 1) != (keys[i + 1] >> 1) || (keys[i] & 1) ||
		    !(keys[i + 1] & 1))
			solid = 0;
		else if (i + 2 < ne && (keys[i + 2] >> 1) == (keys[i] >> 1))
			solid = 0;
	}
	/* The slots are free again. */
	parts(m, indices, canon, (size_t)nu, slots, seen);
	return solid;
}

/* ---- the build ------------------------------------------------------------ */

int clash_mesh_build(void *storage, size_t size, const double *positions, size_t nvertices,
                     const uint32_t *indices, size_t ntriangles, clash_mesh **out)
{
	if (out)
		*out = NULL;
	if (storage == NULL || positions == NULL || out == NULL || ((uintptr_t)storage & 7))
		return CLASH_EINVAL;
	if (ntriangles == 0)
		return CLASH_EEMPTY;
	const size_t need = clash_mesh_size(nvertices, ntriangles);
	if (need == 0 || size < need)
		return CLASH_EINVAL;
	if (indices == NULL && nvertices != 3 * ntriangles)
		return CLASH_EINVAL;
	if (indices)
		for (size_t i = 0; i < 3 * ntriangles; i++)
			if (indices[i] >= nvertices)
				return CLASH_EINVAL;
	for (size_t i = 0; i < 3 * nvertices; i++)
		if (!isfinite(positions[i]))
			return CLASH_ERANGE;
	/* Node boxes are floats about the mesh's centre (mesh.h). */
	for (int k = 0; k < 3; k++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t v = 0; v < nvertices; v++) {
			lo = lo2(lo, positions[3 * v + k]);
			hi = hi2(hi, positions[3 * v + k]);
		}
		if (!(hi - lo <= MESH_MAX_EXTENT))
			return CLASH_ERANGE;
	}

	char *base = storage;
	clash_mesh *m = storage;
	memset(m, 0, sizeof *m);
	m->positions = positions;
	m->indices = indices;
	m->nvertices = nvertices;
	m->ntriangles = ntriangles;
	/* Nodes on 32-byte boundaries: one node, one half of a cache line. */
	uintptr_t at = (uintptr_t)(base + align8(sizeof *m));
	m->nodes = (mesh_node *)(base + align8(sizeof *m) + ((32 - (at & 31)) & 31));
	m->tri = (double *)(m->nodes + (2 * ntriangles - 1));
	m->orig = (uint32_t *)(m->tri + 9 * ntriangles);
	m->reps = m->orig + ntriangles + (ntriangles & 1);
	void *scratch = base + kept_bytes(ntriangles, 2 * ntriangles - 1);

	rec *r = scratch;
	task *stack = (task *)(r + ntriangles);
	for (size_t t = 0; t < ntriangles; t++) {
		rec *q = &r[t];
		for (int k = 0; k < 3; k++) {
			q->lo[k] = INFINITY;
			q->hi[k] = -INFINITY;
		}
		for (int c = 0; c < 3; c++) {
			size_t v = indices ? indices[3 * t + c] : 3 * t + (size_t)c;
			for (int k = 0; k < 3; k++) {
				q->lo[k] = lo2(q->lo[k], positions[3 * v + k]);
				q->hi[k] = hi2(q->hi[k], positions[3 * v + k]);
			}
		}
		q->id = (uint32_t)t;
	}
	build_tree(m, r, stack);
	for (size_t i = 0; i < ntriangles; i++) {
		size_t t = r[i].id;
		m->orig[i] = (uint32_t)t;
		for (int c = 0; c < 3; c++) {
			size_t v = indices ? indices[3 * t + c] : 3 * t + (size_t)c;
			memcpy(m->tri + 9 * i + 3 * c, positions + 3 * v, 3 * sizeof(double));
		}
	}
	m->solid = topology(m, indices, scratch);
	m->bytes = (size_t)((char *)(m->reps + m->nreps) - base);
	m->magic = MESH_MAGIC;
	*out = m;
	return CLASH_OK;
}

int clash_mesh_is_solid(const clash_mesh *m)
{
	return mesh_valid(m) ? m->solid : 0;
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
	memcpy(dst, m, m->bytes);
	clash_mesh *c = dst;
	/* Every array lies in the block after the header: the same offsets. */
	const char *from = (const char *)m;
	char *to = (char *)c;
	c->nodes = (mesh_node *)(to + ((const char *)m->nodes - from));
	c->tri = (double *)(to + ((const char *)m->tri - from));
	c->orig = (uint32_t *)(to + ((const char *)m->orig - from));
	c->reps = (uint32_t *)(to + ((const char *)m->reps - from));
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
