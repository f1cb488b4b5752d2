/*
 * mesh_self.c — counting a mesh's self-crossings (mesh_self.h) by the
 * tree against itself: a node with itself is its two children each with
 * itself and the two against each other; two nodes whose boxes meet are
 * their children against the other, the larger opened first, down to
 * pairs of leaves, whose triangles whose boxes meet go to the exact test.
 *
 * Which corners two triangles share is read from their coordinates: after
 * the weld, corners of one welded vertex hold equal coordinates and
 * distinct vertices distinct ones (mesh_build.c).  For a pair sharing one
 * corner v (triangles v b c and v d e), their common part is more than v
 * exactly when segment b c meets v d e or segment d e meets v b c: the
 * common part is convex and holds v, and its point farthest from v lies
 * on b c or d e (or is b or d, on them too).  A pair sharing an edge a b
 * (third corners c, d) meets beyond it only when the four are coplanar and
 * c, d lie on the same side of a b.
 */
#include "mesh_self.h"
#include "predicates.h"
#include "tri_overlap.h"

/* Pairs waiting: at most two per level of the sum of the two depths
 * (both at most MESH_SAH_DEPTH + 31), and three more. */
#define SELF_STACK 512

typedef struct pair {
	uint32_t a, b; /* nodes; a == b: the node with itself */
} pair;

typedef struct walk {
	const clash_mesh *m;
	size_t work, budget, found;
} walk;

static int same(const double *a, const double *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static int sgn(double x)
{
	return (x > 0) - (x < 0);
}

/* A triangle of nonzero area: some projection on a coordinate plane is. */
static int proper(const double *t)
{
	for (int k = 0; k < 3; k++) {
		const int i = (k + 1) % 3, j = (k + 2) % 3;
		const double a[2] = {t[i], t[j]}, b[2] = {t[3 + i], t[3 + j]},
			     c[2] = {t[6 + i], t[6 + j]};
		if (pred_orient2d(a, b, c) != 0.0)
			return 1;
	}
	return 0;
}

/* Triangles p, q sharing the edge a b, third corners c (of p) and d:
 * they overlap beyond a b when coplanar with c, d on one side. */
static int edge_fold(const double *a, const double *b, const double *c, const double *d)
{
	if (pred_orient3d(a, b, c, d) != 0.0)
		return 0;
	for (int k = 0; k < 3; k++) {
		/* Coplanar: a projection that keeps a b c a triangle is one to
		 * one on their plane, so it keeps sides (up to one sign). */
		const int i = (k + 1) % 3, j = (k + 2) % 3;
		const double a2[2] = {a[i], a[j]}, b2[2] = {b[i], b[j]}, c2[2] = {c[i], c[j]},
			     d2[2] = {d[i], d[j]};
		const int sc = sgn(pred_orient2d(a2, b2, c2));
		if (sc != 0)
			return sc * sgn(pred_orient2d(a2, b2, d2)) > 0;
	}
	return 0;
}

/* The boxes of segment a b and triangle c d e meet (exact: compares). */
static int seg_tri_boxes_meet(const double *a, const double *b, const double *c, const double *d,
                              const double *e)
{
	for (int k = 0; k < 3; k++) {
		const double slo = a[k] < b[k] ? a[k] : b[k], shi = a[k] < b[k] ? b[k] : a[k];
		double tlo = c[k] < d[k] ? c[k] : d[k], thi = c[k] < d[k] ? d[k] : c[k];
		tlo = e[k] < tlo ? e[k] : tlo;
		thi = e[k] > thi ? e[k] : thi;
		if (shi < tlo || thi < slo)
			return 0;
	}
	return 1;
}

/* Segment a b meets the closed triangle c d e (tri_overlap.h: any
 * contact, degenerate or not). */
static int seg_meets_tri(const double *a, const double *b, const double *c, const double *d,
                         const double *e)
{
	return seg_tri_boxes_meet(a, b, c, d, e) && tri_segment_cross(a, b, c, d, e) != 0;
}

/* Triangles v b c and v d e sharing the corner v only. */
static int corner_fold(const double *v, const double *b, const double *c, const double *d,
                       const double *e)
{
	if (!seg_tri_boxes_meet(b, c, v, d, e) && !seg_tri_boxes_meet(d, e, v, b, c))
		return 0;
	/* d and e strictly on one side of the plane of v b c (or b, c of v d
	 * e's): the triangles meet in v alone. */
	const int sd = sgn(pred_orient3d(v, b, c, d)), se = sgn(pred_orient3d(v, b, c, e));
	if (sd * se > 0)
		return 0;
	const int sb = sgn(pred_orient3d(v, d, e, b)), sc = sgn(pred_orient3d(v, d, e, c));
	if (sb * sc > 0)
		return 0;
	return seg_meets_tri(b, c, v, d, e) || seg_meets_tri(d, e, v, b, c);
}

/* q's corners all strictly on one side of p's plane (p of nonzero
 * area): they cannot meet.  Cheaper than tri_overlap's own test, which
 * first works out what each triangle spans. */
static int apart(const double *p, const double *q)
{
	const int a = sgn(pred_orient3d(p, p + 3, p + 6, q));
	return a != 0 && a == sgn(pred_orient3d(p, p + 3, p + 6, q + 3)) &&
	       a == sgn(pred_orient3d(p, p + 3, p + 6, q + 6));
}

/* Triangles p and q (9 doubles each, distinct) cross (mesh_self.h). */
static int crossing(const double *p, const double *q)
{
	int share[3], n = 0; /* share[i]: the corner of q equal to p's i, or -1 */
	for (int i = 0; i < 3; i++) {
		const double *x = p + 3 * i;
		share[i] = same(x, q) ? 0 : same(x, q + 3) ? 1 : same(x, q + 6) ? 2 : -1;
		n += share[i] >= 0;
	}
	int hit;
	if (n == 0) {
		hit = !apart(p, q) && !apart(q, p) && tri_overlap(p, p + 3, p + 6, q, q + 3, q + 6);
	} else if (n == 1) {
		const int i = share[0] >= 0 ? 0 : share[1] >= 0 ? 1 : 2, j = share[i];
		hit = corner_fold(p + 3 * i, p + 3 * ((i + 1) % 3), p + 3 * ((i + 2) % 3),
		                  q + 3 * ((j + 1) % 3), q + 3 * ((j + 2) % 3));
	} else if (n == 2) {
		const int i = share[0] < 0 ? 0 : share[1] < 0 ? 1 : 2;     /* p's third */
		const int j = 3 - share[(i + 1) % 3] - share[(i + 2) % 3]; /* q's third */
		hit = j >= 0 && j < 3 &&
		      edge_fold(p + 3 * ((i + 1) % 3), p + 3 * ((i + 2) % 3), p + 3 * i, q + 3 * j);
	} else {
		hit = 0;
	}
	/* Zero area (and corners alike, which the tests above assume apart):
	 * no part; rare enough to check only on a hit. */
	return hit && proper(p) && proper(q);
}

/* The boxes of a leaf's triangles (at most MESH_LEAF_MAX). */
typedef struct tboxes {
	double lo[MESH_LEAF_MAX][3], hi[MESH_LEAF_MAX][3];
} tboxes;

static inline double lo2(double x, double y)
{
	return x < y ? x : y;
}

static inline double hi2(double x, double y)
{
	return x > y ? x : y;
}

static void leaf_boxes(const clash_mesh *m, const mesh_node *n, tboxes *b)
{
	for (uint32_t i = 0; i < n->count; i++) {
		const double *t = mesh_tri(m, n->first + i);
		for (int k = 0; k < 3; k++) {
			b->lo[i][k] = lo2(t[k], lo2(t[3 + k], t[6 + k]));
			b->hi[i][k] = hi2(t[k], hi2(t[3 + k], t[6 + k]));
		}
	}
}

static inline int boxes_meet(const tboxes *a, uint32_t i, const tboxes *b, uint32_t j)
{
	return !(a->hi[i][0] < b->lo[j][0] || b->hi[j][0] < a->lo[i][0] ||
	         a->hi[i][1] < b->lo[j][1] || b->hi[j][1] < a->lo[i][1] ||
	         a->hi[i][2] < b->lo[j][2] || b->hi[j][2] < a->lo[i][2]);
}

static void test(walk *w, size_t i, size_t j)
{
	w->work++;
	if (crossing(mesh_tri(w->m, i), mesh_tri(w->m, j)))
		w->found++;
}

static void leaves(walk *w, const mesh_node *a, const mesh_node *b)
{
	tboxes ba, bb;
	leaf_boxes(w->m, a, &ba);
	w->work += a->count;
	if (a == b) {
		for (uint32_t i = 0; i < a->count; i++)
			for (uint32_t j = i + 1; j < a->count; j++)
				if (boxes_meet(&ba, i, &ba, j))
					test(w, a->first + i, a->first + j);
		return;
	}
	leaf_boxes(w->m, b, &bb);
	w->work += b->count;
	for (uint32_t i = 0; i < a->count; i++)
		for (uint32_t j = 0; j < b->count; j++)
			if (boxes_meet(&ba, i, &bb, j))
				test(w, a->first + i, b->first + j);
}

static int nodes_meet(const mesh_node *a, const mesh_node *b)
{
	for (int k = 0; k < 3; k++)
		if (a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k])
			return 0;
	return 1;
}

static float extent(const mesh_node *n)
{
	float e = 0.0f;
	for (int k = 0; k < 3; k++)
		e = n->hi[k] - n->lo[k] > e ? n->hi[k] - n->lo[k] : e;
	return e;
}

size_t mesh_self_crossings(const clash_mesh *m, int *capped)
{
	walk w = {m, 0, MESH_SELF_WORK + MESH_SELF_WORK_PER * m->ntriangles, 0};
	pair stack[SELF_STACK];
	int top = 0;
	stack[top++] = (pair){0, 0};
	*capped = 0;
	while (top > 0) {
		if (w.work >= w.budget) {
			*capped = 1;
			break;
		}
		const pair p = stack[--top];
		const mesh_node *a = &m->nodes[p.a], *b = &m->nodes[p.b];
		w.work++;
		if (p.a == p.b) {
			if (a->count) {
				leaves(&w, a, a);
				continue;
			}
			stack[top++] = (pair){a->first, a->first + 1};
			stack[top++] = (pair){a->first + 1, a->first + 1};
			stack[top++] = (pair){a->first, a->first};
			continue;
		}
		if (!nodes_meet(a, b))
			continue;
		if (a->count && b->count) {
			leaves(&w, a, b);
			continue;
		}
		/* Open the inner one, the larger when both are. */
		if (a->count || (!b->count && extent(b) > extent(a))) {
			stack[top++] = (pair){p.a, b->first + 1};
			stack[top++] = (pair){p.a, b->first};
		} else {
			stack[top++] = (pair){a->first + 1, p.b};
			stack[top++] = (pair){a->first, p.b};
		}
	}
	return w.found;
}

size_t mesh_self_count(const clash_mesh *m, int *capped)
{
	/* The mesh is read-only to its users but for this cache. */
	_Atomic uint64_t *cache = (_Atomic uint64_t *)&m->self;
	uint64_t v = atomic_load_explicit(cache, memory_order_relaxed);
	if (v == 0) {
		int c;
		const size_t n = mesh_self_crossings(m, &c);
		v = (uint64_t)n << 2 | (uint64_t)c << 1 | 1u;
		atomic_store_explicit(cache, v, memory_order_relaxed);
	}
	*capped = (int)(v >> 1 & 1u);
	return (size_t)(v >> 2);
}
