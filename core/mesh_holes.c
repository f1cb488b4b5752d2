/*
 * mesh_holes.c — the tree over an open mesh's holes (mesh_holes.h).
 *
 * The bound: a cap lies in its ball (centre c, radius r), so seen from p
 * at d = |p - c| > r it covers at most wind times the ball's cone, whose
 * share of the sphere of directions is (1 - cos a) / 2 = (r^2 / d^2) /
 * (2 (1 + cos a)), sin a = r / d; as cos a = sqrt(1 - r^2 / d^2) >= 1 -
 * r^2 / d^2, that is at most r^2 / (4 d^2 - 2 r^2) (over it by a factor
 * under 1 + r^2 / (2 d^2)), with no square root.  Under a node whose box of balls
 * is at D > rmax (its largest r) from p, every d is over D and every r at
 * most rmax, so the node adds at most s / (4 D^2 - 2 rmax^2), s its sum
 * of wind r^2: taken whole when that is small beside what is left below
 * the limit (HOLES_TAKE_SHARE), else the node is opened.  Leaves are
 * summed hole by hole.  A ray meets a cap only through its ball: the
 * caps of the holes whose balls it passes by are left out.
 */
#include <math.h>
#include <string.h>

#include "mesh_holes.h"

#define HOLES_STACK 128
/* A node's bound is taken whole when at most this share of what is left
 * below the limit: the far holes in few steps, the limit kept for the
 * near ones. */
#define HOLES_TAKE_SHARE 8.0

double holes_wind(const mesh_hole *h)
{
	return h->edges > 3.0 ? floor((h->edges - 1.0) / 2.0) : 1.0;
}

/* Up to HOLES_LEAF holes is a leaf alone; more are halved, so every
 * leaf then holds two at least: n / 2 leaves, 2 (n / 2) - 1 nodes. */
size_t holes_tree_nodes(size_t n)
{
	return n <= HOLES_LEAF ? 1 : n;
}

static void swap(mesh_hole *a, mesh_hole *b)
{
	mesh_hole t = *a;
	*a = *b;
	*b = t;
}

static void sift(mesh_hole *h, size_t i, size_t n, int k)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && h[c + 1].c[k] > h[c].c[k])
			c++;
		if (h[i].c[k] >= h[c].c[k])
			return;
		swap(&h[i], &h[c]);
	}
}

/* h[0..n) sorted along axis k (heapsort: any n, no recursion). */
static void sort_axis(mesh_hole *h, size_t n, int k)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(h, i, n, k);
	for (size_t end = n; end-- > 1;) {
		swap(&h[0], &h[end]);
		sift(h, 0, end, k);
	}
}

static void node_of(const mesh_hole *h, size_t first, size_t count, hole_node *nd)
{
	for (int k = 0; k < 3; k++) {
		nd->lo[k] = INFINITY;
		nd->hi[k] = -INFINITY;
	}
	nd->s = nd->rmax = 0.0;
	for (size_t i = first; i < first + count; i++) {
		nd->rmax = fmax(nd->rmax, h[i].r);
		for (int k = 0; k < 3; k++) {
			nd->lo[k] = fmin(nd->lo[k], h[i].c[k] - h[i].r);
			nd->hi[k] = fmax(nd->hi[k], h[i].c[k] + h[i].r);
		}
		nd->s += holes_wind(&h[i]) * h[i].r * h[i].r;
	}
}

typedef struct range {
	size_t first, count, node;
} range;

size_t holes_tree_build(mesh_hole *holes, size_t n, hole_node *nodes)
{
	range stack[HOLES_STACK];
	int top = 0;
	size_t used = 1;
	stack[top++] = (range){0, n, 0};
	while (top > 0) {
		const size_t first = stack[top - 1].first, count = stack[top - 1].count,
			     at = stack[top - 1].node;
		top--;
		hole_node *nd = &nodes[at];
		node_of(holes, first, count, nd);
		if (count <= HOLES_LEAF || top + 2 > HOLES_STACK) {
			nd->first = (uint32_t)first;
			nd->count = (uint32_t)count;
			continue;
		}
		int k = 0;
		for (int j = 1; j < 3; j++)
			if (nd->hi[j] - nd->lo[j] > nd->hi[k] - nd->lo[k])
				k = j;
		const size_t mid = first + count / 2;
		sort_axis(holes + first, count, k);
		nd->first = (uint32_t)used;
		nd->count = 0;
		stack[top++] = (range){mid, first + count - mid, used + 1};
		stack[top++] = (range){first, mid - first, used};
		used += 2;
	}
	return used;
}

static double box_dist2(const hole_node *nd, const double *p)
{
	double d2 = 0.0;
	for (int k = 0; k < 3; k++) {
		const double e = p[k] < nd->lo[k]   ? nd->lo[k] - p[k]
		                 : p[k] > nd->hi[k] ? p[k] - nd->hi[k]
		                                    : 0.0;
		d2 += e * e;
	}
	return d2;
}

/* The exact cone's share for one hole, or INFINITY with p in its ball. */
static double hole_share(const mesh_hole *h, const double *p)
{
	const double d2 = (p[0] - h->c[0]) * (p[0] - h->c[0]) +
	                  (p[1] - h->c[1]) * (p[1] - h->c[1]) + (p[2] - h->c[2]) * (p[2] - h->c[2]);
	const double r2 = h->r * h->r;
	if (!(d2 > r2 * (1.0 + 0x1p-30)))
		return INFINITY;
	return holes_wind(h) * r2 / (4.0 * d2 - 2.0 * r2);
}

double holes_bound(const hole_node *nodes, const mesh_hole *holes, const double *p, double limit)
{
	uint32_t stack[HOLES_STACK];
	int top = 0;
	double total = 0.0;
	stack[top++] = 0;
	while (top > 0) {
		const hole_node *nd = &nodes[stack[--top]];
		const double d2 = box_dist2(nd, p);
		/* Every d below is over D (> rmax): 1 + cos a >= 1 + cos of the
		 * widest. */
		const double r2 = nd->rmax * nd->rmax;
		const double ub = d2 > r2 ? nd->s / (4.0 * d2 - 2.0 * r2) : INFINITY;
		if (ub <= (limit - total) / HOLES_TAKE_SHARE) {
			total += ub * (1.0 + 0x1p-40);
		} else if (nd->count) {
			for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
				total += hole_share(&holes[i], p) * (1.0 + 0x1p-40);
		} else if (top + 2 > HOLES_STACK) {
			return INFINITY; /* cannot happen: the tree is balanced */
		} else {
			stack[top++] = nd->first + 1;
			stack[top++] = nd->first;
		}
		if (!(total < limit))
			return INFINITY;
	}
	return total;
}

/* Does segment s0 + t d, t in [0, 1], meet box nd (grown by slack)?
 * inv: 1 / d (0 where d is 0); its rounding is far inside the slack. */
static int segment_meets_box(const hole_node *nd, const double *s0, const double *d,
                             const double *inv, double slack)
{
	double t0 = 0.0, t1 = 1.0;
	for (int k = 0; k < 3; k++) {
		const double lo = nd->lo[k] - slack - s0[k], hi = nd->hi[k] + slack - s0[k];
		if (d[k] == 0.0) {
			if (lo > 0.0 || hi < 0.0)
				return 0;
			continue;
		}
		double u = lo * inv[k], v = hi * inv[k];
		if (u > v) {
			const double w = u;
			u = v;
			v = w;
		}
		t0 = u > t0 ? u : t0;
		t1 = v < t1 ? v : t1;
		if (t0 > t1)
			return 0;
	}
	return 1;
}

/* Does segment s0 + t d, t in [0, 1], pass within h's radius (grown by
 * slack) of its centre?  dd: |d|^2 (> 0). */
static int segment_meets_ball(const mesh_hole *h, const double *s0, const double *d, double dd,
                              double slack)
{
	double e[3], t = 0.0;
	for (int k = 0; k < 3; k++) {
		e[k] = h->c[k] - s0[k];
		t += e[k] * d[k];
	}
	t = t <= 0.0 ? 0.0 : t >= dd ? 1.0 : t / dd;
	double d2 = 0.0;
	for (int k = 0; k < 3; k++) {
		const double x = e[k] - t * d[k];
		d2 += x * x;
	}
	const double reach = h->r + slack;
	return d2 <= reach * reach;
}

int holes_on_segment(const hole_node *nodes, const mesh_hole *holes, const double *s0,
                     const double *s1, int (*fn)(void *ctx, const mesh_hole *h), void *ctx)
{
	double d[3], inv[3], mag = 0.0;
	for (int k = 0; k < 3; k++) {
		d[k] = s1[k] - s0[k];
		inv[k] = d[k] != 0.0 ? 1.0 / d[k] : 0.0;
		mag += fabs(s0[k]) + fabs(s1[k]);
	}
	const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	const double slack = 0x1p-40 * mag;
	uint32_t stack[HOLES_STACK];
	int top = 0;
	stack[top++] = 0;
	while (top > 0) {
		const hole_node *nd = &nodes[stack[--top]];
		if (!segment_meets_box(nd, s0, d, inv, slack))
			continue;
		if (nd->count) {
			for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
				if (dd > 0.0 && !segment_meets_ball(&holes[i], s0, d, dd, slack))
					continue;
				const int r = fn(ctx, &holes[i]);
				if (r)
					return r;
			}
			continue;
		}
		if (top + 2 > HOLES_STACK)
			return -1; /* cannot happen: the tree is balanced */
		stack[top++] = nd->first + 1;
		stack[top++] = nd->first;
	}
	return 0;
}
