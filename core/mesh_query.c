/*
 * mesh_query.c — queries with a triangle mesh on either side: distance,
 * near points and intersection (surfaces within the tolerance, or one
 * shape inside a solid other).  No penetration depth.
 *
 * Meshes are never transformed: the other side is mapped into the mesh's
 * frame for the tree's boxes, triangle distances are in world coordinates.
 * Three passes: surfaces within the threshold (touching decided exactly by
 * tri_overlap.h), else containment (one point of each connected part:
 * the winding number, by a ray's signed crossings with exact orientation
 * predicates on a closed mesh, by the tree on another), else the distance by
 * branch and bound (Larsen, Gottschalk, Lin, Manocha 1999, "Fast
 * proximity queries with swept sphere volumes", section 4, with boxes for
 * swept spheres).  Design notes, cavities and speed history:
 * docs/meshes.md.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "affine.h"
#include "cancel.h"
#include "mesh.h"
#include "mesh_caps.h"
#include "mesh_fit.h"
#include "mesh_holes.h"
#include "mesh_query.h"
#include "predicates.h"
#include "primitive.h"
#include "support.h"
#include "tri_dist.h"
#include "tri_overlap.h"
#include "trig.h"
#include "vec.h"
#include "winding.h"

/* Default tolerance relative to the shapes' size, as clash_gjk's. */
#define MESH_DEFAULT_RELATIVE_TOLERANCE 1e-12
/* Rounding floor of the tolerance, in ulps of the scene's extent. */
#define MESH_ROUNDOFF_ULPS 64.0
/* Stack entries of a depth-first walk: each level pushes at most two
 * pairs, and a tree is at most this deep (mesh_build.c bounds it). */
#define MESH_STACK 512
/* Pairs a best-first search keeps waiting (16 bytes each, 64 KiB of
 * stack): past it a pair is searched depth first at once, which at large
 * gaps opens many pairs a best-first order would leave. */
#define MESH_HEAP 4096
/* The cancel flag is read every this many node visits. */
#define MESH_CANCEL_EVERY 256
/* Ray directions tried before a point is given up as undecided. */
#define MESH_RAY_TRIES 64

/* A lower bound on the least singular value of f's linear part: |l x| >=
 * it |x|.  1 (rounded down) for rotations, s for similarities; else the
 * least eigenvalue of l^T l in closed form (the trigonometric solution of
 * the characteristic cubic), rounded down generously. */
static double sigma_min(const affine *f)
{
	const double *m = f->l;
	double g[9];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			g[3 * r + c] = m[r] * m[c] + m[3 + r] * m[3 + c] + m[6 + r] * m[6 + c];
	const double off = g[1] * g[1] + g[2] * g[2] + g[5] * g[5];
	const double q = (g[0] + g[4] + g[8]) / 3.0;
	const double dev =
		(g[0] - q) * (g[0] - q) + (g[4] - q) * (g[4] - q) + (g[8] - q) * (g[8] - q);
	if (off + dev <= 1e-28 * q * q) /* a similarity */
		return sqrt(fmin(g[0], fmin(g[4], g[8]))) * (1.0 - 1e-12);
	const double p = sqrt((dev + 2.0 * off) / 6.0);
	double b[9];
	for (int k = 0; k < 9; k++)
		b[k] = (g[k] - (k % 4 == 0 ? q : 0.0)) / p;
	double det = affine_det(b);
	double hr = fmax(-1.0, fmin(1.0, 0.5 * det));
	double lmin =
		q + 2.0 * p * trig_cos(trig_acos(hr) / 3.0 + 2.0943951023931957 /* 2 pi / 3 */);
	lmin -= 1e-9 * (q + 2.0 * p);
	return lmin > 0.0 ? sqrt(lmin) : 0.0;
}

/* ---- boxes --------------------------------------------------------------- */

/* Squared distance between two boxes. */
static double box_gap2(const obox *x, const obox *y)
{
	double s = 0.0;
	for (int k = 0; k < 3; k++) {
		double g = fabs(x->c[k] - y->c[k]) - x->h[k] - y->h[k];
		if (g > 0.0)
			s += g * g;
	}
	return s;
}

/* ---- the query's common state -------------------------------------------- */

typedef struct query {
	const clash_shape *a, *b;  /* a is a mesh */
	const clash_mesh *ma, *mb; /* mb: NULL when b is convex */
	affine fa, fb;             /* local to world */
	affine ia;                 /* world to a's frame */
	affine ba;                 /* b's frame to a's frame */
	double sig, sig2;          /* world distance >= sig * distance in a's frame */
	double rsum, tol, thr;     /* radii, tolerance, thr = rsum + tol */
	int verdict_only;
	const volatile int *cancel;
	unsigned visits;
	/* The best pair: hull distance (radii not taken off) and points. */
	double best;
	double pa[3], pb[3];
	int found;
	size_t pairs;
	clash_options sub;       /* for the convex query on triangles */
	compound_pair_fn convex; /* that query: clash_gjk's leaf method */
	int converged;
} query;

static int cancelled(query *q)
{
	return (++q->visits % MESH_CANCEL_EVERY) == 0 && cancel_requested(q->cancel);
}

/* Can nothing with lower bound lb matter?  A verdict needs pairs within
 * the threshold; a distance, pairs nearer than the best so far. */
static int pruned(const query *q, double lb)
{
	return q->verdict_only ? !(lb <= q->thr) : (q->found && !(lb < q->best));
}

/* pruned on squared bounds (mesh against mesh: no square roots per
 * node), with the tolerance: a pair that could come nearer than the best
 * by less than tol is not opened.  Ties (parallel faces: many pairs at
 * the least distance) are so left after the first, and the answer stays
 * within the tolerance of the least distance. */
static int pruned2(const query *q, double lb2)
{
	if (q->verdict_only)
		return !(lb2 <= q->thr * q->thr);
	const double cut = q->best - q->tol;
	return q->found && !(lb2 < (cut > 0.0 ? cut * cut : 0.0));
}

/* ---- mesh against mesh --------------------------------------------------- */

static void leaf_world(const clash_mesh *m, const mesh_node *n, const affine *f, double *w)
{
	for (uint32_t i = 0; i < n->count; i++) {
		const double *t = mesh_tri(m, n->first + i);
		for (int c = 0; c < 3; c++)
			affine_apply(f, t + 3 * c, w + 9 * i + 3 * c);
	}
}

/* The boxes of n triangles w (9 coordinates each): lo and hi, 6 each. */
static void tri_boxes(const double *w, uint32_t n, double *b)
{
	for (uint32_t i = 0; i < n; i++, w += 9, b += 6)
		for (int k = 0; k < 3; k++) {
			double lo = w[k], hi = w[k];
			for (int c = 1; c < 3; c++) {
				lo = w[3 * c + k] < lo ? w[3 * c + k] : lo;
				hi = w[3 * c + k] > hi ? w[3 * c + k] : hi;
			}
			b[k] = lo;
			b[3 + k] = hi;
		}
}

/* The squared gap between two triangles' boxes (tri_boxes): a lower
 * bound on their squared distance, up to rounding far below the
 * tolerance. */
static double box6_gap2(const double *s, const double *t)
{
	double g2 = 0.0;
	for (int k = 0; k < 3; k++) {
		double g = s[k] > t[3 + k]   ? s[k] - t[3 + k]
		           : t[k] > s[3 + k] ? t[k] - s[3 + k]
		                             : 0.0;
		g2 += g * g;
	}
	return g2;
}

/* Triangles s and t: their distance and points; 0 and the common point
 * when they meet within the threshold exactly (touching and coplanar
 * contact decided by the orientation predicates, not by rounded
 * distances). */
static double tri_pair(const query *q, const double *s, const double *t, double *pa, double *pb)
{
	double d = sqrt(tri_dist2(s, t, pa, pb));
	if (d <= q->thr && tri_overlap_point(s, s + 3, s + 6, t, t + 3, t + 6, pa)) {
		memcpy(pb, pa, 3 * sizeof *pb);
		return 0.0;
	}
	return d;
}

static void leaf_pair(query *q, const mesh_node *x, const mesh_node *y)
{
	double wa[9 * MESH_LEAF_MAX], wb[9 * MESH_LEAF_MAX], pa[3], pb[3];
	double ba[6 * MESH_LEAF_MAX], bb[6 * MESH_LEAF_MAX];
	leaf_world(q->ma, x, &q->fa, wa);
	leaf_world(q->mb, y, &q->fb, wb);
	tri_boxes(wa, x->count, ba);
	tri_boxes(wb, y->count, bb);
	for (uint32_t i = 0; i < x->count; i++)
		for (uint32_t j = 0; j < y->count; j++) {
			/* Two cheap lower bounds first: the triangles' boxes (from
			 * the corners tri_pair reads: rounded within a few ulps),
			 * then their planes as separating axes. */
			const double *s = wa + 9 * i, *t = wb + 9 * j;
			if (pruned2(q, box6_gap2(ba + 6 * i, bb + 6 * j) * (1.0 - 1e-14)) ||
			    pruned2(q, tri_plane_gap2(s, t) * (1.0 - 1e-9)))
				continue;
			q->pairs++;
			double d = tri_pair(q, s, t, pa, pb);
			if (!q->found || d < q->best) {
				q->found = 1;
				q->best = d;
				memcpy(q->pa, pa, sizeof pa);
				memcpy(q->pb, pb, sizeof pb);
				if (d <= q->thr)
					return;
			}
		}
}

/* Mesh against mesh: pairs of nodes by the lower bound of their squared
 * world distance.  When b's frame is a's moved by a translation (the
 * rotation parts equal, e.g. both unrotated) node boxes compare in their
 * float form, b's shifted by d = b's origin + t - a's origin, with no box
 * to map per node (slack covers the rounding of d and of the sums).
 * Otherwise b's boxes are mapped into a's frame (pair_gap2). */
typedef struct pair_entry {
	uint32_t na, nb;
	double lb2;
} pair_entry;

typedef struct pair_ctx {
	const mesh_node *na, *nb;
	int shift;
	double d[3], slack;
	/* A rigid pose: node pairs bounded by the oriented boxes
	 * (obb_gap2); with shift, by the larger of that and shift_gap2. */
	int obb;
	const mesh_obb *oa, *ob; /* each mesh's boxes when obb */
} pair_ctx;

static double shift_gap2(const query *q, const pair_ctx *x, const mesh_node *p, const mesh_node *r)
{
	double s = 0.0;
	for (int k = 0; k < 3; k++) {
		const double g1 = (x->d[k] + (double)r->lo[k]) - (double)p->hi[k];
		const double g2 = (double)p->lo[k] - (x->d[k] + (double)r->hi[k]);
		const double g = (g1 > g2 ? g1 : g2) - x->slack;
		if (g > 0.0)
			s += g * g;
	}
	return s * q->sig2;
}

/* The general pose: a's box against b's mapped into a's frame (the
 * faces of a's box as separating axes), then the line of the centres as
 * the axis, b's box projected as the parallelepiped it maps to (a's
 * frame, where world lengths shrink by at most sig). */
static double box_pair_gap2(const query *q, const pair_ctx *x, const obox *pa, const obox *ra,
                            const mesh_node *r)
{
	double g2 = box_gap2(pa, ra);
	const double *l = q->ba.l;
	double u[3], u2 = 0.0, sa = 0.0, sb = 0.0;
	for (int k = 0; k < 3; k++) {
		u[k] = ra->c[k] - pa->c[k];
		u2 += u[k] * u[k];
	}
	for (int k = 0; k < 3; k++) {
		sa += pa->h[k] * fabs(u[k]);
		sb += 0.5 * ((double)r->hi[k] - (double)r->lo[k]) *
		      fabs(u[0] * l[k] + u[1] * l[3 + k] + u[2] * l[6 + k]);
	}
	const double num = u2 - sa - sb;
	if (num > 0.0) {
		/* Rounding: of the sums (relative) and of the centres (slack). */
		const double g = (num - 16 * DBL_EPSILON * (u2 + sa + sb)) / sqrt(u2) - x->slack;
		if (g > 0.0 && g * g > g2)
			g2 = g * g;
	}
	return g2 * q->sig2;
}

/* An oriented box in a's frame, in doubles: axes (rows), centre, half
 * extents. */
typedef struct obb_w {
	double a[9], c[3], h[3];
} obb_w;

/* Node k's box of mesh a, in a's frame. */
static void obb_of_a(const query *q, const pair_ctx *x, uint32_t k, obb_w *w)
{
	const mesh_obb *o = &x->oa[k];
	for (int i = 0; i < 9; i++)
		w->a[i] = o->a[i];
	for (int i = 0; i < 3; i++) {
		w->c[i] = q->ma->origin[i] + (double)o->c[i];
		w->h[i] = o->h[i];
	}
}

/* Node k's box of mesh b, mapped into a's frame (a rigid map: the axes
 * stay orthonormal, the extents as they are). */
static void obb_of_b(const query *q, const pair_ctx *x, uint32_t k, obb_w *w)
{
	const mesh_obb *o = &x->ob[k];
	const double *l = q->ba.l;
	double c[3];
	for (int i = 0; i < 3; i++) {
		c[i] = q->mb->origin[i] + (double)o->c[i];
		w->h[i] = o->h[i];
	}
	for (int r = 0; r < 3; r++) {
		w->c[r] = q->ba.t[r] + l[3 * r] * c[0] + l[3 * r + 1] * c[1] + l[3 * r + 2] * c[2];
		for (int i = 0; i < 3; i++)
			w->a[3 * i + r] = l[3 * r] * o->a[3 * i] + l[3 * r + 1] * o->a[3 * i + 1] +
			                  l[3 * r + 2] * o->a[3 * i + 2];
	}
}

/* The squared gap of two oriented boxes by the separating axis test
 * (Gottschalk, Lin, Manocha 1996, "OBBTree", section 5), each axis giving
 * a lower bound on the distance (the gap of the projections over the
 * axis's length): the faces' axes of each box together (the gap to the
 * other's box of that frame), the line of the centres, and for a verdict
 * the nine cross products of edges.  It returns as soon as its bound
 * prunes the pair.  The identities of orthonormal
 * frames hold to about 1e-6 for axes rounded to floats: the slack takes
 * 1e-5 of the sizes and the centres' offset off every gap, and a cross
 * axis's length is taken as its upper bound. */
static double obb_gap2(const query *q, const pair_ctx *x, const obb_w *A, const obb_w *B)
{
	double R[9], F[9], T[3], d[3];
	for (int k = 0; k < 3; k++)
		d[k] = B->c[k] - A->c[k];
	for (int i = 0; i < 3; i++) {
		const double *ai = A->a + 3 * i;
		T[i] = ai[0] * d[0] + ai[1] * d[1] + ai[2] * d[2];
		for (int j = 0; j < 3; j++) {
			const double *bj = B->a + 3 * j;
			R[3 * i + j] = ai[0] * bj[0] + ai[1] * bj[1] + ai[2] * bj[2];
			F[3 * i + j] = fabs(R[3 * i + j]);
		}
	}
	const double slack = x->slack + 1e-5 * (A->h[0] + A->h[1] + A->h[2] + B->h[0] + B->h[1] +
	                                        B->h[2] + fabs(T[0]) + fabs(T[1]) + fabs(T[2]));
	double ga = 0.0, gb = 0.0;
	for (int i = 0; i < 3; i++) {
		const double g =
			fabs(T[i]) - A->h[i] -
			(B->h[0] * F[3 * i] + B->h[1] * F[3 * i + 1] + B->h[2] * F[3 * i + 2]) -
			slack;
		if (g > 0.0)
			ga += g * g;
	}
	if (pruned2(q, ga * q->sig2))
		return ga * q->sig2;
	for (int j = 0; j < 3; j++) {
		const double t = T[0] * R[j] + T[1] * R[3 + j] + T[2] * R[6 + j];
		const double g = fabs(t) - B->h[j] -
		                 (A->h[0] * F[j] + A->h[1] * F[3 + j] + A->h[2] * F[6 + j]) - slack;
		if (g > 0.0)
			gb += g * g;
	}
	double best = ga > gb ? ga : gb;
	if (pruned2(q, best * q->sig2))
		return best * q->sig2; /* pruned already: the rest cannot matter */
	/* The line of the centres: the best axis for boxes far apart. */
	double tb[3], d2 = 0.0, ra = 0.0;
	for (int j = 0; j < 3; j++) {
		tb[j] = T[0] * R[j] + T[1] * R[3 + j] + T[2] * R[6 + j];
		d2 += d[j] * d[j];
		ra += A->h[j] * fabs(T[j]) + B->h[j] * fabs(tb[j]);
	}
	const double num = d2 - ra - 16 * DBL_EPSILON * (d2 + ra);
	if (num > 0.0) {
		const double g = num / sqrt(d2) - slack;
		if (g > 0.0 && g * g > best)
			best = g * g;
	}
	/* The edges' cross products: for a verdict (touching boxes told
	 * apart), not for a distance, where they cost more than they prune. */
	if (!q->verdict_only)
		return best * q->sig2;
	for (int i = 0; i < 3; i++) {
		const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		for (int j = 0; j < 3; j++) {
			const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			const double u2 = 1.0 - R[3 * i + j] * R[3 * i + j];
			if (u2 < 1e-4)
				continue; /* near parallel: the faces' axes bound it */
			const double t = T[i2] * R[3 * i1 + j] - T[i1] * R[3 * i2 + j];
			const double g = fabs(t) - A->h[i1] * F[3 * i2 + j] -
			                 A->h[i2] * F[3 * i1 + j] - B->h[j1] * F[3 * i + j2] -
			                 B->h[j2] * F[3 * i + j1] - slack;
			if (g > 0.0 && g * g > best * (u2 + 1e-5))
				best = g * g / (u2 + 1e-5);
		}
	}
	return best * q->sig2;
}

static double pair_gap2(const query *q, const pair_ctx *x, const mesh_node *p, const mesh_node *r)
{
	if (x->obb) {
		obb_w A, B;
		obb_of_a(q, x, (uint32_t)(p - x->na), &A);
		obb_of_b(q, x, (uint32_t)(r - x->nb), &B);
		if (!x->shift)
			return obb_gap2(q, x, &A, &B);
		const double g = shift_gap2(q, x, p, r);
		return pruned2(q, g) ? g : fmax(g, obb_gap2(q, x, &A, &B));
	}
	if (x->shift)
		return shift_gap2(q, x, p, r);
	obox pa, ra;
	mesh_node_obox(q->ma, p, NULL, &pa);
	mesh_node_obox(q->mb, r, &q->ba, &ra);
	return box_pair_gap2(q, x, &pa, &ra, r);
}

static double node_extent(const mesh_node *n)
{
	return ((double)n->hi[0] - n->lo[0]) + ((double)n->hi[1] - n->lo[1]) +
	       ((double)n->hi[2] - n->lo[2]);
}

/* Open pair cur: a leaf pair is searched (returns 0), else its two
 * children go to c (returns 2), the larger box split. */
static int pair_open(query *q, const pair_ctx *x, const pair_entry *cur, pair_entry *c)
{
	const mesh_node *p = &x->na[cur->na], *r = &x->nb[cur->nb];
	if (p->count && r->count) {
		leaf_pair(q, p, r);
		return 0;
	}
	const int split_a = r->count || (!p->count && node_extent(p) >= node_extent(r));
	if (x->obb) {
		/* The side not split: its box once for both children. */
		obb_w A, B;
		if (split_a)
			obb_of_b(q, x, cur->nb, &B);
		else
			obb_of_a(q, x, cur->na, &A);
		for (int i = 0; i < 2; i++) {
			const uint32_t ka = split_a ? p->first + (uint32_t)i : cur->na;
			const uint32_t kb = split_a ? cur->nb : r->first + (uint32_t)i;
			if (split_a)
				obb_of_a(q, x, ka, &A);
			else
				obb_of_b(q, x, kb, &B);
			/* A pure translation: the float boxes' gap first, the
			 * oriented boxes' only when that leaves the pair open. */
			const double g = x->shift ? shift_gap2(q, x, &x->na[ka], &x->nb[kb]) : 0.0;
			c[i] = (pair_entry){ka, kb, g};
			if (!pruned2(q, g))
				c[i].lb2 = fmax(g, obb_gap2(q, x, &A, &B));
		}
		return 2;
	}
	if (x->shift) {
		for (int i = 0; i < 2; i++) {
			const uint32_t ka = split_a ? p->first + (uint32_t)i : cur->na;
			const uint32_t kb = split_a ? cur->nb : r->first + (uint32_t)i;
			c[i] = (pair_entry){ka, kb, shift_gap2(q, x, &x->na[ka], &x->nb[kb])};
		}
		return 2;
	}
	/* The side not split: its box once for both children. */
	obox pa, ra;
	if (split_a)
		mesh_node_obox(q->mb, r, &q->ba, &ra);
	else
		mesh_node_obox(q->ma, p, NULL, &pa);
	for (int i = 0; i < 2; i++) {
		const mesh_node *pc = split_a ? &x->na[p->first + i] : p;
		const mesh_node *rc = split_a ? r : &x->nb[r->first + i];
		if (split_a)
			mesh_node_obox(q->ma, pc, NULL, &pa);
		else
			mesh_node_obox(q->mb, rc, &q->ba, &ra);
		c[i].na = split_a ? p->first + (uint32_t)i : cur->na;
		c[i].nb = split_a ? cur->nb : r->first + (uint32_t)i;
		c[i].lb2 = box_pair_gap2(q, x, &pa, &ra, rc);
	}
	return 2;
}

static int touching_now(const query *q)
{
	return q->found && q->best <= q->thr;
}

/* Depth first from pair cur, the nearer child first (a verdict: any pair
 * within the threshold ends it). */
static int pair_depth_first(query *q, const pair_ctx *x, pair_entry cur)
{
	pair_entry stack[MESH_STACK];
	int top = 0;
	for (;;) {
		if (pruned2(q, cur.lb2))
			goto pop;
		if (cancelled(q))
			return CLASH_ECANCELED;
		pair_entry c[2];
		if (pair_open(q, x, &cur, c) == 0) {
			if (touching_now(q))
				return CLASH_OK;
			goto pop;
		}
		const int near = c[1].lb2 < c[0].lb2;
		if (!pruned2(q, c[1 - near].lb2))
			stack[top++] = c[1 - near];
		cur = c[near];
		continue;
	pop:
		if (top == 0)
			break;
		cur = stack[--top];
	}
	return CLASH_OK;
}

/* A binary min-heap of pairs by lower bound. */
static void heap_push(pair_entry *h, int *n, pair_entry e)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2].lb2 > e.lb2) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static pair_entry heap_pop(pair_entry *h, int *n)
{
	pair_entry top = h[0], last = h[--*n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].lb2 < h[c].lb2)
			c++;
		if (!(h[c].lb2 < last.lb2))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

/* A pair kept for later: into the heap, or, when it is full, searched
 * depth first at once.  1 when that made the answer (touching), an error,
 * or 0. */
static int pair_keep(query *q, const pair_ctx *x, pair_entry *heap, int *n, pair_entry e)
{
	if (pruned2(q, e.lb2))
		return 0;
	if (*n < MESH_HEAP) {
		heap_push(heap, n, e);
		return 0;
	}
	int err = pair_depth_first(q, x, e);
	return err ? err : touching_now(q);
}

/* Best first (the distance): always open the pair of least lower bound,
 * so no pair is opened whose bound exceeds the answer.  The nearer child
 * of an opened pair is opened next without a trip through the heap when
 * no waiting pair has a lower bound (a dive); the farther one waits. */
static int pair_best_first(query *q, const pair_ctx *x, pair_entry root)
{
	pair_entry heap[MESH_HEAP], e = root;
	int n = 0;
	for (;;) {
		/* e's bound is the least: when it is pruned, all are. */
		if (pruned2(q, e.lb2))
			break;
		if (cancelled(q))
			return CLASH_ECANCELED;
		pair_entry c[2];
		if (pair_open(q, x, &e, c) == 0) {
			if (touching_now(q))
				return CLASH_OK;
		} else {
			const int near = c[1].lb2 < c[0].lb2;
			int st = pair_keep(q, x, heap, &n, c[1 - near]);
			if (st)
				return st < 0 ? st : CLASH_OK;
			if (!pruned2(q, c[near].lb2) && (n == 0 || c[near].lb2 <= heap[0].lb2)) {
				e = c[near];
				continue;
			}
			if ((st = pair_keep(q, x, heap, &n, c[near])))
				return st < 0 ? st : CLASH_OK;
		}
		if (n == 0)
			break;
		e = heap_pop(heap, &n);
	}
	return CLASH_OK;
}

/* The verdict in a turned pose: depth first, each pair carrying its two
 * boxes (b's mapped into a's frame) so that a split maps only the
 * children's. */
typedef struct box_entry {
	uint32_t na, nb;
	double lb2;
	obox ax, bx;
} box_entry;

static double box_size(const obox *x)
{
	return x->h[0] + x->h[1] + x->h[2];
}

static int turned_depth_first(query *q, const pair_ctx *x)
{
	const mesh_node *na = x->na, *nb = x->nb;
	box_entry stack[MESH_STACK], cur;
	int top = 0;
	mesh_node_obox(q->ma, &na[0], NULL, &cur.ax);
	mesh_node_obox(q->mb, &nb[0], &q->ba, &cur.bx);
	cur.na = cur.nb = 0;
	cur.lb2 = box_pair_gap2(q, x, &cur.ax, &cur.bx, &nb[0]);
	for (;;) {
		if (pruned2(q, cur.lb2))
			goto pop;
		if (cancelled(q))
			return CLASH_ECANCELED;
		const mesh_node *p = &na[cur.na], *r = &nb[cur.nb];
		if (p->count && r->count) {
			leaf_pair(q, p, r);
			if (touching_now(q))
				return CLASH_OK;
			goto pop;
		}
		box_entry c[2];
		const int split_a =
			r->count || (!p->count && box_size(&cur.ax) >= box_size(&cur.bx));
		for (int i = 0; i < 2; i++) {
			c[i] = cur;
			if (split_a) {
				c[i].na = p->first + (uint32_t)i;
				mesh_node_obox(q->ma, &na[c[i].na], NULL, &c[i].ax);
			} else {
				c[i].nb = r->first + (uint32_t)i;
				mesh_node_obox(q->mb, &nb[c[i].nb], &q->ba, &c[i].bx);
			}
			c[i].lb2 = box_pair_gap2(q, x, &c[i].ax, &c[i].bx, &nb[c[i].nb]);
		}
		const int near = c[1].lb2 < c[0].lb2;
		if (!pruned2(q, c[1 - near].lb2))
			stack[top++] = c[1 - near];
		cur = c[near];
		continue;
	pop:
		if (top == 0)
			break;
		cur = stack[--top];
	}
	return CLASH_OK;
}

/* Is f's linear part a rotation (or a reflection), to far better than
 * the oriented boxes' slack? */
static int rigid(const affine *f)
{
	const double *l = f->l;
	for (int r = 0; r < 3; r++)
		for (int c = r; c < 3; c++) {
			const double g = l[r] * l[c] + l[3 + r] * l[3 + c] + l[6 + r] * l[6 + c];
			if (!(fabs(g - (double)(r == c)) <= 1e-9))
				return 0;
		}
	return 1;
}

/* Triangles of each mesh from which a translated distance uses the
 * oriented boxes too (below that, they cost more than they save). */
#define MESH_OBB_SHIFT_MIN 65536

static int mesh_mesh(query *q)
{
	pair_ctx x = {q->ma->nodes, q->mb->nodes, q->ba.shift, {0, 0, 0}, 0, 0, NULL, NULL};
	/* The oriented boxes under a rotation, fitted by the first such
	 * query (mesh_fit_get; NULL while another thread fits them: the
	 * axis-aligned boxes then).  Translated only, the float boxes alone
	 * for a verdict (exact there, and cheapest) and for a distance
	 * between smaller meshes, whose float boxes are tight enough that
	 * the oriented boxes' test costs more than it prunes; between two
	 * large meshes a distance takes the larger of both bounds. */
	const int big =
		q->ma->ntriangles >= MESH_OBB_SHIFT_MIN && q->mb->ntriangles >= MESH_OBB_SHIFT_MIN;
	if (rigid(&q->ba) && (!x.shift || (big && !q->verdict_only))) {
		x.oa = mesh_fit_get(q->ma);
		x.ob = x.oa ? mesh_fit_get(q->mb) : NULL;
		x.obb = x.ob != NULL;
	}
	double mag = node_extent(&x.na[0]) + node_extent(&x.nb[0]);
	for (int k = 0; k < 3; k++) {
		x.d[k] = (q->mb->origin[k] + q->ba.t[k]) - q->ma->origin[k];
		mag += fabs(q->mb->origin[k]) + fabs(q->ba.t[k]) + fabs(q->ma->origin[k]);
	}
	if (!x.shift)
		for (int k = 0; k < 9; k++)
			mag += fabs(q->ba.l[k]) *
			       (node_extent(&x.nb[0]) + fabs(q->mb->origin[k / 3]));
	x.slack = 16 * DBL_EPSILON * mag;
	if (q->verdict_only && !x.shift && !x.obb)
		return turned_depth_first(q, &x);
	pair_entry root = {0, 0, pair_gap2(q, &x, &x.na[0], &x.nb[0])};
	return q->verdict_only ? pair_depth_first(q, &x, root) : pair_best_first(q, &x, root);
}

/* ---- mesh against a convex shape ------------------------------------------ */

typedef struct node_entry {
	uint32_t n;
	double lb;
} node_entry;

static int tri_convex(query *q, const double *w, clash_shape *tri)
{
	memcpy((double *)tri->vertices, w, 9 * sizeof *w);
	clash_result r;
	int err = q->convex(tri, q->b, &q->sub, &r);
	if (err)
		return err;
	q->pairs++;
	q->converged = q->converged && r.converged;
	if (r.intersecting) {
		/* A common point: clash_gjk's own (near_a == near_b); -1 marks
		 * it as that rather than a pair of hull points.  A verdict
		 * gives none: asked again with the distance. */
		if (q->sub.want == CLASH_WANT_VERDICT) {
			clash_options o = q->sub;
			o.want = CLASH_WANT_DISTANCE;
			if ((err = q->convex(tri, q->b, &o, &r)))
				return err;
		}
		q->found = 1;
		q->best = -1.0;
		memcpy(q->pa, r.near_a, sizeof q->pa);
		memcpy(q->pb, r.near_b, sizeof q->pb);
		return CLASH_OK;
	}
	if (q->sub.want == CLASH_WANT_VERDICT)
		return CLASH_OK; /* apart: a verdict carries no distance */
	/* Back to the hull distance and points, radii not taken off. */
	const double d = r.distance + q->rsum;
	if (!q->found || d < q->best) {
		double n[3] = {0.0, 0.0, 0.0}, len = 0.0;
		for (int k = 0; k < 3; k++) {
			n[k] = r.near_b[k] - r.near_a[k];
			len += n[k] * n[k];
		}
		len = sqrt(len);
		if (r.has & CLASH_HAS_PLANE)
			memcpy(n, r.normal, sizeof n);
		else
			for (int k = 0; k < 3; k++)
				n[k] = len > 0.0 ? n[k] / len : 0.0;
		q->found = 1;
		q->best = d;
		for (int k = 0; k < 3; k++) {
			q->pa[k] = r.near_a[k] - tri->radius * n[k];
			q->pb[k] = r.near_b[k] + q->b->radius * n[k];
		}
	}
	return CLASH_OK;
}

static int mesh_convex(query *q, const obox *cb, clash_shape *tri)
{
	const mesh_node *nodes = q->ma->nodes;
	node_entry stack[MESH_STACK];
	int top = 0;
	obox x;
	mesh_node_obox(q->ma, &nodes[0], NULL, &x);
	stack[top++] = (node_entry){0, sqrt(box_gap2(&x, cb)) * q->sig};
	while (top > 0) {
		node_entry e = stack[--top];
		if (pruned(q, e.lb))
			continue;
		if (cancelled(q))
			return CLASH_ECANCELED;
		const mesh_node *nd = &nodes[e.n];
		if (nd->count) {
			for (uint32_t i = 0; i < nd->count; i++) {
				double w[9];
				const double *t = mesh_tri(q->ma, nd->first + i);
				/* The triangle's own box first. */
				obox tb;
				mesh_tri_obox(t, &tb);
				if (pruned(q, sqrt(box_gap2(&tb, cb)) * q->sig))
					continue;
				for (int c = 0; c < 3; c++)
					affine_apply(&q->fa, t + 3 * c, w + 3 * c);
				int err = tri_convex(q, w, tri);
				if (err)
					return err;
				if (q->best <= q->thr)
					return CLASH_OK;
			}
			continue;
		}
		node_entry c[2];
		uint32_t k[2] = {nd->first, nd->first + 1};
		for (int i = 0; i < 2; i++) {
			mesh_node_obox(q->ma, &nodes[k[i]], NULL, &x);
			c[i] = (node_entry){k[i], sqrt(box_gap2(&x, cb)) * q->sig};
		}
		int near = c[1].lb < c[0].lb;
		if (!pruned(q, c[1 - near].lb))
			stack[top++] = c[1 - near];
		if (!pruned(q, c[near].lb))
			stack[top++] = c[near];
	}
	return CLASH_OK;
}

/* The box in a's frame of the convex shape b (its hull, radius left out;
 * a primitive's by the corners of its own box: its vertex array is only
 * its centre). */
static void convex_box(const query *q, obox *o)
{
	affine f;
	affine_compose(&q->ia, &q->fb, &f);
	const clash_shape *b = q->b;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	double mag = 0.0, corners[24], plo[3], phi[3];
	const double *pts = b->vertices;
	size_t npts = b->count;
	if (b->kind != CLASH_KIND_POLYTOPE) {
		primitive_local_box(b, plo, phi);
		for (int i = 0; i < 8; i++)
			for (int k = 0; k < 3; k++)
				corners[3 * i + k] = (i >> k) & 1 ? phi[k] : plo[k];
		pts = corners;
		npts = 8;
	}
	for (size_t i = 0; i < npts; i++) {
		double x[3];
		affine_apply(&f, pts + 3 * i, x);
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], x[k]);
			hi[k] = fmax(hi[k], x[k]);
			mag = fmax(mag, fabs(x[k]));
		}
	}
	double lm = 0.0;
	for (int k = 0; k < 9; k++)
		lm = fmax(lm, fabs(f.l[k]));
	for (int k = 0; k < 3; k++)
		lm = fmax(lm, fabs(f.t[k]));
	for (int k = 0; k < 3; k++) {
		o->c[k] = 0.5 * lo[k] + 0.5 * hi[k];
		o->h[k] = (0.5 * hi[k] - 0.5 * lo[k]) + 16 * DBL_EPSILON * (mag + lm);
	}
}

/* ---- points in solids ------------------------------------------------------ */

/* The exact sign of orient3d(a, b, c, d) (predicates.h: Shewchuk 1997,
 * "Adaptive precision floating-point arithmetic and fast robust geometric
 * predicates", section 4.3). */
static int orient_sign(const double *a, const double *b, const double *c, const double *d)
{
	const double det = pred_orient3d(a, b, c, d);
	return det > 0.0 ? 1 : det < 0.0 ? -1 : 0;
}

/* Segment s0 s1 and triangle t0 t1 t2, exactly: +1 or -1 when it crosses
 * the triangle's interior (+1 when s0 is behind it: orient3d positive, the
 * segment leaving through its front), 0 when it misses it, GRAZE when it
 * touches an edge or a vertex or runs in its plane: then another ray. */
#define GRAZE 2
static int segment_cross(const double *s0, const double *s1, const double *t0, const double *t1,
                         const double *t2)
{
	const int p = orient_sign(t0, t1, t2, s0), q = orient_sign(t0, t1, t2, s1);
	if (p != 0 && p == q)
		return 0;
	const int e1 = orient_sign(s0, s1, t0, t1), e2 = orient_sign(s0, s1, t1, t2),
		  e3 = orient_sign(s0, s1, t2, t0);
	if ((e1 > 0 || e2 > 0 || e3 > 0) && (e1 < 0 || e2 < 0 || e3 < 0))
		return 0; /* the line passes outside an edge */
	if (p == 0 || q == 0 || e1 == 0 || e2 == 0 || e3 == 0)
		return GRAZE;
	return p;
}

/* A segment s0 + t d, t in [0, 1], in a mesh's float box frame: o = s0 -
 * origin, inv = 1 / d (0 where d is 0), slack covering the rounding of o,
 * inv and the slab products (tiny beside the boxes' growth by 1e-9 of
 * their size). */
typedef struct seg_frame {
	double o[3], d[3], inv[3], slack;
} seg_frame;

static void seg_frame_of(const clash_mesh *m, const double *s0, const double *d, seg_frame *f)
{
	const mesh_node *root = &m->nodes[0];
	double mag = 0.0;
	for (int k = 0; k < 3; k++) {
		f->o[k] = s0[k] - m->origin[k];
		f->d[k] = d[k];
		f->inv[k] = d[k] != 0.0 ? 1.0 / d[k] : 0.0;
		mag += fabs(s0[k]) + fabs(m->origin[k]) + fabs(d[k]) + fabs((double)root->lo[k]) +
		       fabs((double)root->hi[k]);
	}
	f->slack = 32 * DBL_EPSILON * mag;
}

/* Does the segment meet box n (grown by 1e-9 of its size and the slack)?
 * The slab test (Kay and Kajiya 1986, "Ray tracing complex scenes"). */
static int segment_meets(const seg_frame *f, const mesh_node *n)
{
	double t0 = 0.0, t1 = 1.0;
	for (int k = 0; k < 3; k++) {
		const double nlo = n->lo[k], nhi = n->hi[k];
		const double pad = 1e-9 * (nhi - nlo) + f->slack;
		const double lo = nlo - pad - f->o[k], hi = nhi + pad - f->o[k];
		if (f->d[k] == 0.0) {
			if (lo > 0.0 || hi < 0.0)
				return 0;
			continue;
		}
		double u = lo * f->inv[k], v = hi * f->inv[k];
		if (u > v) {
			double w = u;
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

/* Crossings of segment s0 s1 with m's triangles but triangle skip (tree
 * order; SIZE_MAX: none), signed (segment_cross) and summed into *w: 0,
 * GRAZE when the segment meets an edge or a vertex (or runs in a plane),
 * or CLASH_ECANCELED. */
static int ray_crossings(const clash_mesh *m, const double *s0, const double *s1, size_t skip,
                         const volatile int *cancel, int *w)
{
	double d[3] = {s1[0] - s0[0], s1[1] - s0[1], s1[2] - s0[2]};
	seg_frame f;
	seg_frame_of(m, s0, d, &f);
	uint32_t stack[MESH_STACK];
	int top = 0, sum = 0;
	unsigned visits = 0;
	stack[top++] = 0;
	while (top > 0) {
		const mesh_node *n = &m->nodes[stack[--top]];
		if (cancel && (++visits % MESH_CANCEL_EVERY) == 0 && cancel_requested(cancel))
			return CLASH_ECANCELED;
		if (!segment_meets(&f, n))
			continue;
		if (n->count) {
			for (uint32_t i = 0; i < n->count; i++) {
				if (n->first + i == skip)
					continue;
				const double *t = mesh_tri(m, n->first + i);
				int c = segment_cross(s0, s1, t, t + 3, t + 6);
				if (c == GRAZE)
					return GRAZE;
				sum += c;
			}
			continue;
		}
		stack[top++] = n->first + 1;
		stack[top++] = n->first;
	}
	*w = sum;
	return 0;
}

/* The far end of the i-th ray from p: directions on a golden-angle
 * spiral, none along an axis, each ray long enough to leave m's box
 * wherever p is. */
static void ray_end(const clash_mesh *m, const double *p, int i, double *s1)
{
	double lo[3], hi[3], reach = 0.0;
	mesh_node_box(m, &m->nodes[0], lo, hi);
	for (int k = 0; k < 3; k++)
		reach += (hi[k] - lo[k]) + fabs(hi[k]) + fabs(lo[k]) + fabs(p[k]);
	const double z = 1.0 - (2.0 * i + 1.0) / MESH_RAY_TRIES * 0.999;
	const double rr = sqrt(fmax(0.0, 1.0 - z * z)), phi = 2.399963229728653 * i + 0.3;
	double dir[3] = {0.0, 0.0, z};
	trig_sincos(phi, &dir[1], &dir[0]);
	dir[0] *= rr, dir[1] *= rr;
	for (int k = 0; k < 3; k++)
		s1[k] = p[k] + 2.0 * reach * dir[k];
}

/* Off a closed surface the winding number is the signed count of the
 * crossings of any ray (the surface separates; each crossing changes the
 * number by one, by its side): exact, with exact crossings. */
int mesh_point_inside(const clash_mesh *m, const double *p, const volatile int *cancel)
{
	double lo[3], hi[3];
	mesh_node_box(m, &m->nodes[0], lo, hi);
	for (int k = 0; k < 3; k++)
		if (p[k] < lo[k] || p[k] > hi[k])
			return 0;
	for (int i = 0; i < MESH_RAY_TRIES; i++) {
		double s1[3];
		ray_end(m, p, i, s1);
		int w = 0, c = ray_crossings(m, p, s1, SIZE_MAX, cancel, &w);
		if (c == CLASH_ECANCELED)
			return c;
		if (c == 0)
			return w != 0;
	}
	return CLASH_ERANGE; /* every ray grazed: cannot happen off the surface */
}

/* Just beside the interior of triangle t the winding number is the
 * signed count of a ray's crossings from t's centroid leaving on that
 * side, t itself left out: the centroid's rounding off t's plane does not
 * matter once t is skipped, and no other triangle holds the centroid
 * unless the mesh crosses itself. */
int mesh_winding_beside(const clash_mesh *m, size_t t, int side, const volatile int *cancel, int *w)
{
	const double *v = mesh_tri(m, t);
	double c[3], n[3], u[3], e[3];
	vec3_sub(u, v + 3, v);
	vec3_sub(e, v + 6, v);
	vec3_cross(n, u, e);
	for (int k = 0; k < 3; k++)
		c[k] = (v[k] + v[3 + k] + v[6 + k]) / 3.0;
	const double nn = vec3_dot(n, n);
	if (!(nn > 0.0))
		return CLASH_ERANGE;
	for (int i = 0; i < MESH_RAY_TRIES; i++) {
		double s1[3], d[3], dn = 0.0, dd = 0.0;
		ray_end(m, c, i, s1);
		for (int k = 0; k < 3; k++) {
			d[k] = s1[k] - c[k];
			dn += d[k] * n[k];
			dd += d[k] * d[k];
		}
		/* Well to t's side (not grazing its plane), turned over if need be. */
		if (dn * dn < 1e-4 * dd * nn)
			continue;
		if ((dn > 0.0) != (side > 0))
			for (int k = 0; k < 3; k++)
				s1[k] = c[k] - d[k];
		int sum = 0, r = ray_crossings(m, c, s1, t, cancel, &sum);
		if (r == CLASH_ECANCELED)
			return r;
		if (r == 0) {
			*w = sum;
			return CLASH_OK;
		}
	}
	return CLASH_ERANGE;
}

/* The signed crossings of a segment with the caps of m's holes (the cone
 * from each hole's centre over its edges, reversed), summed into w. */
typedef struct cap_walk {
	const clash_mesh *m;
	const double *s0, *s1;
	int w;
} cap_walk;

static int cap_crossings(void *ctx, const mesh_hole *h)
{
	cap_walk *cw = ctx;
	for (uint32_t j = 0; j < h->count; j++) {
		const mesh_hole_edge *e = &cw->m->hole_edges[h->first + j];
		const int c = segment_cross(cw->s0, cw->s1, h->c, e->b, e->a);
		if (c == GRAZE)
			return GRAZE;
		cw->w += c * (int)e->k;
	}
	return 0;
}

/* Point p inside the open mesh m, by a ray over m capped at its holes
 * (mesh_topo.h): capped, the surface is closed, so its winding number is
 * the ray's signed count over m and the caps; m's own differs from that
 * by the caps' winding number, which mesh_holes.h bounds: under 1/2, the
 * count decides.  1 inside, 0 outside, -1 undecided (p near a hole: the
 * tree's winding number decides), CLASH_ECANCELED. */
int mesh_point_inside_open(const clash_mesh *m, const double *p, const volatile int *cancel)
{
	if (!m->capped)
		return -1;
	if (m->nholes && !(holes_bound(m->hole_nodes, m->holes, p, 0.5) * (1.0 + 0x1p-30) < 0.5))
		return -1;
	for (int i = 0; i < MESH_RAY_TRIES; i++) {
		double s1[3];
		ray_end(m, p, i, s1);
		int w = 0, c = ray_crossings(m, p, s1, SIZE_MAX, cancel, &w);
		if (c == CLASH_ECANCELED)
			return c;
		if (c != 0)
			continue;
		cap_walk cw = {m, p, s1, w};
		if (!m->nholes ||
		    holes_on_segment(m->hole_nodes, m->holes, p, s1, cap_crossings, &cw) == 0)
			return cw.w != 0;
	}
	return -1;
}

/* ---- the answer ------------------------------------------------------------ */

/* The half diagonal of m's box in the world; *far: that plus the
 * distance of its centre from the origin. */
static double mesh_size(const clash_mesh *m, const affine *f, double *far)
{
	obox o;
	mesh_node_obox(m, &m->nodes[0], f, &o);
	double h = sqrt(o.h[0] * o.h[0] + o.h[1] * o.h[1] + o.h[2] * o.h[2]);
	*far = h + sqrt(o.c[0] * o.c[0] + o.c[1] * o.c[1] + o.c[2] * o.c[2]);
	return h;
}

static void common_point(const query *q, double *x)
{
	double u = q->rsum > 0.0 ? q->a->radius / q->rsum : 0.5;
	for (int k = 0; k < 3; k++)
		x[k] = q->pa[k] + u * (q->pb[k] - q->pa[k]);
}

/* A point of each part of the mesh side m (frame f) inside `other`?
 * inside_fn answers for one world point. */
typedef int (*inside_fn)(query *q, const double *world, int other_is_b);

static int in_mesh(query *q, const double *world, int other_is_b)
{
	const clash_mesh *m = other_is_b ? q->mb : q->ma;
	affine inv;
	affine_invert(other_is_b ? &q->fb : &q->fa, &inv);
	double p[3];
	affine_apply(&inv, world, p);
	/* Closed: the winding number is the rays' signed count, exactly and
	 * as fast as their parity; else the generalized one, by the tree. */
	if (!m->topo.closed) {
		/* Open: the capped ray (away from the holes), else the winding
		 * number by the tree. */
		int c = mesh_point_inside_open(m, p, q->cancel);
		return c >= 0 || c == CLASH_ECANCELED ? c : winding_inside(m, m->far, p);
	}
	int c = mesh_point_inside(m, p, q->cancel);
	if (c == CLASH_ERANGE) {
		q->converged = 0;
		return 0;
	}
	return c;
}

static int in_convex(query *q, const double *world, int other_is_b)
{
	(void)other_is_b;
	clash_shape pt;
	clash_shape_init(&pt, 3, world, 1);
	pt.radius = q->a->radius;
	clash_options o = q->sub;
	o.want = CLASH_WANT_VERDICT;
	clash_result r;
	int err = q->convex(&pt, q->b, &o, &r);
	return err ? err : r.intersecting;
}

/* Is some part of mesh m (posed by f) inside the other side?  *at: the
 * point. */
static int parts_inside(query *q, const clash_mesh *m, const affine *f, inside_fn fn,
                        int other_is_b, double *at)
{
	for (size_t i = 0; i < m->nreps; i++) {
		double w[3];
		affine_apply(f, mesh_tri(m, m->reps[i]), w);
		int c = fn(q, w, other_is_b);
		if (c < 0)
			return c;
		if (c) {
			memcpy(at, w, sizeof w);
			return 1;
		}
	}
	return 0;
}

/* The holder of an inside test: the mesh on side other_is_b. */
static const clash_mesh *holder(const query *q, int other_is_b)
{
	return other_is_b ? q->mb : q->ma;
}

/* Is one of the n points pts (posed by f) inside the open solid on side
 * other_is_b?  A solid that is not closed holds what its winding number
 * says, which changes across its holes as well as across its surface:
 * a part can reach in through a hole with its surfaces apart from the
 * holder's, so one point a part does not decide.  Only points within the
 * holder's box can be held (outside it the surface lies in a half space
 * and |w| < 1/2), and only those are tested.  Where the holes are listed
 * the caps find a part reaching in, at a fraction of the sweep's cost
 * (mesh_caps.h); this sweep then only picks the point to show. */
static int points_inside_open(query *q, const double *pts, size_t n, const affine *f, inside_fn fn,
                              int other_is_b, double *at)
{
	const clash_mesh *h = holder(q, other_is_b);
	obox box;
	mesh_node_obox(h, &h->nodes[0], other_is_b ? &q->fb : &q->fa, &box);
	for (size_t i = 0; i < n; i++) {
		double w[3];
		if (f)
			affine_apply(f, pts + 3 * i, w);
		else
			memcpy(w, pts + 3 * i, sizeof w);
		int within = 1;
		for (int k = 0; k < 3; k++)
			within &= fabs(w[k] - box.c[k]) <= box.h[k];
		if (!within)
			continue;
		int c = fn(q, w, other_is_b);
		if (c) {
			if (c > 0)
				memcpy(at, w, sizeof w);
			return c;
		}
	}
	return 0;
}

static int check_shape(const clash_shape *s)
{
	if (s->dim != 3)
		return CLASH_EDIM;
	if (s->mesh && !mesh_valid(s->mesh))
		return CLASH_EINVAL;
	if (s->count == 0)
		return CLASH_EEMPTY;
	if (s->vertices == NULL)
		return CLASH_EINVAL;
	if (!(s->radius >= 0.0) || !isfinite(s->radius))
		return CLASH_ERADIUS;
	return CLASH_OK;
}

/* The tolerance of a query: the caller's, else 1e-12 of the pair's size,
 * never under the rounding of coordinates as far out as far. */
static double query_tolerance(const clash_options *opt, double size, double far)
{
	const double tol = opt && opt->tolerance > 0.0 ? opt->tolerance
	                                               : MESH_DEFAULT_RELATIVE_TOLERANCE * size;
	return fmax(tol, MESH_ROUNDOFF_ULPS * DBL_EPSILON * far);
}

/* The query's set-up: the shapes' maps, then the size and tolerance
 * (clash_gjk's rule, with boxes for balls); cb: a convex b's box. */
static int query_init(query *q, const clash_shape *a, const clash_shape *b,
                      const clash_options *opt, compound_pair_fn convex, obox *cb)
{
	memset(q, 0, sizeof *q);
	q->convex = convex;
	q->a = a;
	q->b = b;
	q->ma = a->mesh;
	q->mb = b->mesh;
	q->converged = 1;
	q->cancel = opt ? opt->cancel : NULL;
	affine_of(a, &q->fa);
	affine_of(b, &q->fb);
	affine_invert(&q->fa, &q->ia);
	affine_compose(&q->ia, &q->fb, &q->ba);
	affine_mark_shift(&q->fa);
	affine_mark_shift(&q->fb);
	affine_mark_shift(&q->ba);
	q->sig = sigma_min(&q->fa);
	q->sig2 = q->sig * q->sig;

	q->rsum = a->radius + b->radius;
	const unsigned want = opt ? opt->want : 0;
	q->verdict_only = want && !(want & (CLASH_WANT_DISTANCE | CLASH_WANT_DEPTH));

	double far_a, far_b;
	double size = mesh_size(q->ma, &q->fa, &far_a) + q->rsum;
	if (q->mb) {
		size += mesh_size(q->mb, &q->fb, &far_b);
	} else {
		double centre[3], reach;
		int err = support_bounds(b, centre, &reach);
		if (err)
			return err;
		size += reach;
		far_b = reach +
		        sqrt(centre[0] * centre[0] + centre[1] * centre[1] + centre[2] * centre[2]);
		convex_box(q, cb);
	}
	const double tol = query_tolerance(opt, size, far_a + far_b + q->rsum);
	if (!isfinite(tol))
		return CLASH_ERANGE;
	q->tol = tol;
	q->thr = q->rsum + tol;
	q->best = INFINITY;
	q->sub = opt ? *opt : (clash_options){0};
	q->sub.warm_count = 0;
	q->sub.warm_a = q->sub.warm_b = NULL;
	q->sub.warm_plane = NULL;
	q->sub.tolerance = tol;
	q->sub.want = q->verdict_only ? CLASH_WANT_VERDICT : CLASH_WANT_DISTANCE;
	return CLASH_OK;
}

/* One pass over the pairs of triangles (or of triangles and the convex
 * b), as q->verdict_only and q->sub ask. */
static int surfaces(query *q, const obox *cb, clash_shape *tri)
{
	return !q->mb ? mesh_convex(q, cb, tri) : mesh_mesh(q);
}

/* The answer of surfaces within the threshold: touching, at clash_gjk's
 * common point (q->best < 0) or the point between the near points. */
static void answer_touching(query *q, clash_result *r)
{
	double x[3];
	if (q->best < 0.0) /* clash_gjk's common point */
		memcpy(x, q->pa, sizeof x);
	else
		common_point(q, x);
	r->intersecting = 1;
	r->contact = CLASH_CONTACT_SURFACES;
	memcpy(r->near_a, x, sizeof x);
	memcpy(r->near_b, x, sizeof x);
}

/* Does the caps' walk stand for the corner sweep on side other_is_b:
 * no mesh there (a convex side holds by its surface), a closed one, or
 * an open one with its holes listed? */
static int holes_listed(const query *q, int other_is_b)
{
	const clash_mesh *h = holder(q, other_is_b);
	return !h || h->topo.closed || h->capped;
}

/* Is a vertex of the other side inside the open solid on side
 * other_is_b? */
static int vertex_inside(query *q, const clash_shape *b, int other_is_b, double *at)
{
	const clash_mesh *h = holder(q, other_is_b);
	if (!h || h->topo.closed)
		return 0;
	/* A mesh's corners as its triangles hold them: its vertex array may
	 * list points no triangle uses, which are not part of the shape. */
	if (other_is_b)
		return points_inside_open(q, mesh_tri(q->ma, 0), 3 * q->ma->ntriangles, &q->fa,
		                          in_mesh, 1, at);
	return q->mb ? points_inside_open(q, mesh_tri(q->mb, 0), 3 * q->mb->ntriangles, &q->fb,
	                                  in_mesh, 0, at)
	             : points_inside_open(q, b->vertices, b->count, &q->fb, in_mesh, 0, at);
}

/* The film's test of a point the caps lead to (mesh_caps.h). */
typedef struct film_ctx {
	query *q;
	const clash_shape *b;
	int other_is_b, swept;
} film_ctx;

/* Is the point at (on the part) inside the holder, by its winding
 * number?  A cap is not where that passes 1/2 (only near it: on it for a
 * flat hole in an otherwise closed surface), so a part crossing a cap
 * may stay outside there and reach in elsewhere: the part's corners are
 * then tested too, once a query (one found moves at). */
static int film_point(void *ctx, double at[3])
{
	film_ctx *f = ctx;
	int c = in_mesh(f->q, at, f->other_is_b);
	if (c || f->swept)
		return c;
	f->swept = 1;
	return vertex_inside(f->q, f->b, f->other_is_b, at);
}

/* A cap triangle against the convex b: do they meet where a holds the
 * common point (film_point; the point in at)? */
static int cap_convex(void *ctx, const double tri[9], double at[3])
{
	film_ctx *f = ctx;
	query *q = f->q;
	clash_shape t;
	clash_shape_init(&t, 3, tri, 3);
	clash_options o = q->sub;
	o.want = CLASH_WANT_VERDICT;
	clash_result r;
	int err = q->convex(&t, q->b, &o, &r);
	if (err || !r.intersecting)
		return err;
	o.want = CLASH_WANT_DISTANCE;
	if ((err = q->convex(&t, q->b, &o, &r)))
		return err;
	memcpy(at, r.near_a, 3 * sizeof *at);
	return film_point(f, at);
}

/* Does the other side reach into the open solid on side other_is_b
 * through a listed hole: a point of it the caps lead to, inside
 * (mesh_caps.h, film_point)?  cb: a convex b's box.  *swept: whether the
 * part's corners were tested on the way (then at is the first corner
 * inside, if there is one). */
static int crosses_film(query *q, const clash_shape *b, const obox *cb, int other_is_b, double *at,
                        int *swept)
{
	const clash_mesh *h = holder(q, other_is_b);
	*swept = 0;
	if (!h || h->topo.closed || !h->capped)
		return 0; /* a convex holder has no holes */
	film_ctx f = {q, b, other_is_b, 0};
	int c;
	if (other_is_b) {
		c = mesh_caps_meet_mesh(q->mb, &q->fb, q->ma, &q->fa, q->cancel, film_point, &f,
		                        at);
	} else if (q->mb) {
		c = mesh_caps_meet_mesh(q->ma, &q->fa, q->mb, &q->fb, q->cancel, film_point, &f,
		                        at);
	} else {
		/* cb leaves the radii out: grown by them (and the tolerance)
		 * in a's frame, where world lengths shrink by at most sig. */
		obox grown = *cb;
		const double g = q->sig > 0.0 ? (q->thr / q->sig) * (1.0 + 1e-9) : INFINITY;
		for (int k = 0; k < 3; k++)
			grown.h[k] += g;
		c = mesh_caps_meet_box(q->ma, &q->fa, &grown, cap_convex, &f, at);
	}
	*swept = f.swept;
	return c;
}

/* Is a part of a wholly inside the solid b (other_is_b) or of b inside a?
 * One of its points tells. */
static int part_inside(query *q, const clash_shape *b, int other_is_b, double *at)
{
	if (other_is_b)
		return q->mb ? parts_inside(q, q->ma, &q->fa, in_mesh, 1, at)
		             : parts_inside(q, q->ma, &q->fa, in_convex, 1, at);
	if (q->mb)
		return parts_inside(q, q->mb, &q->fb, in_mesh, 0, at);
	/* b is convex: connected, one point decides. */
	double v[3];
	affine_apply(&q->fb, b->vertices, v);
	int c = in_mesh(q, v, 0);
	if (c > 0)
		memcpy(at, v, sizeof v);
	return c;
}

/* Surfaces apart: is the other side in the solid on side other_is_b?
 * 1 with r's contact set, 0, or an error.  A part wholly inside is told
 * by one of its points.  One reaching into an open solid has a point
 * inside near a hole or beyond its cap: found from the caps where the
 * holes are listed, else by the part's corners. */
static int held_by(query *q, const clash_shape *b, const obox *cb, int other_is_b, clash_result *r,
                   double *at)
{
	int c = part_inside(q, b, other_is_b, at);
	int swept = 0;
	if (!c && (c = crosses_film(q, b, cb, other_is_b, at, &swept)) > 0 && !swept) {
		/* The point shown: a vertex of the part inside, where one is
		 * (else the crossing, on the film); the film's test may have
		 * looked for it already. */
		double v[3];
		if (vertex_inside(q, b, other_is_b, v) > 0)
			memcpy(at, v, sizeof v);
	}
	if (!c && !holes_listed(q, other_is_b))
		c = vertex_inside(q, b, other_is_b, at);
	if (c > 0)
		r->contact = other_is_b ? CLASH_CONTACT_A_IN_B : CLASH_CONTACT_B_IN_A;
	return c;
}

/* Surfaces apart: is a part of one inside the other (a solid)?  Returns 1
 * with r's contact and common point set, 0, or an error. */
static int containment(query *q, const clash_shape *b, const obox *cb, clash_result *r)
{
	double at[3];
	int c = 0;
	if (r->solid_b)
		c = held_by(q, b, cb, 1, r, at);
	if (!c && r->solid_a)
		c = held_by(q, b, cb, 0, r, at);
	if (c < 0)
		return c;
	if (c) {
		r->intersecting = 1;
		memcpy(r->near_a, at, sizeof at);
		memcpy(r->near_b, at, sizeof at);
	}
	return c;
}

/* Apart, neither inside the other: the distance, pruned at the best so
 * far, and the near points pushed out by the radii. */
static int distance_pass(query *q, const obox *cb, clash_shape *tri, clash_result *r)
{
	q->verdict_only = 0;
	q->sub.want = CLASH_WANT_DISTANCE;
	q->found = 0;
	q->best = INFINITY;
	int err = surfaces(q, cb, tri);
	if (err)
		return err;
	if (q->found && q->best <= q->thr) {
		/* The first pass found the surfaces apart, this one (other
		 * pruning; for a convex side clash_gjk asked for the distance,
		 * not the verdict: another start and stopping rule) within the
		 * threshold: rounding at touching.  They touch (was: a negative
		 * distance, -1 for clash_gjk's common point). */
		answer_touching(q, r);
		return CLASH_OK;
	}
	double d = q->best, dir[3];
	for (int k = 0; k < 3; k++)
		dir[k] = d > 0.0 ? (q->pb[k] - q->pa[k]) / d : 0.0;
	r->distance = d - q->rsum;
	for (int k = 0; k < 3; k++) {
		r->near_a[k] = q->pa[k] + q->a->radius * dir[k];
		r->near_b[k] = q->pb[k] - q->b->radius * dir[k];
	}
	return CLASH_OK;
}

/* A verdict on two meshes whose root boxes, mapped to the world, are
 * apart by more than any threshold the set-up could take (radii plus
 * twice the largest tolerance its rule gives, from the boxes' L1 sizes,
 * which bound the half diagonals it uses): apart, with no set-up.  No
 * part of one can then be inside the other (a part's point would lie in
 * the holder's box), and every triangle pair would be pruned by its
 * boxes, so the full query's answer is this one, its count of pairs (0)
 * included.  1 when it answered r. */
static int apart_at_roots(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                          clash_result *r)
{
	if (!b->mesh || opt == NULL || !opt->want ||
	    (opt->want & (CLASH_WANT_DISTANCE | CLASH_WANT_DEPTH)))
		return 0;
	affine fa, fb;
	affine_of(a, &fa);
	affine_of(b, &fb);
	affine_mark_shift(&fa);
	affine_mark_shift(&fb);
	obox oa, ob;
	mesh_node_obox(a->mesh, &a->mesh->nodes[0], &fa, &oa);
	mesh_node_obox(b->mesh, &b->mesh->nodes[0], &fb, &ob);
	const double rsum = a->radius + b->radius;
	double size = rsum, far = rsum;
	for (int k = 0; k < 3; k++) {
		size += oa.h[k] + ob.h[k];
		far += oa.h[k] + ob.h[k] + fabs(oa.c[k]) + fabs(ob.c[k]);
	}
	const double tol = query_tolerance(opt, size, far);
	const double thr = (rsum + 2.0 * tol) * (1.0 + 1e-9);
	const double g2 = box_gap2(&oa, &ob);
	if (!(isfinite(thr) && isfinite(far) && g2 > thr * thr))
		return 0;
	r->dim = 3;
	r->has = CLASH_HAS_MESH;
	r->solid_a = a->mesh->solid;
	r->solid_b = b->mesh->solid;
	r->converged = 1;
	return 1;
}

/* The query proper: set-up, then up to three passes, each only when the
 * one before leaves the answer open: do the surfaces come within the
 * threshold (pruned at it, so cheap)?  Else is a part of one inside the
 * other?  Else the distance, pruned at the best so far. */
static int run(const clash_shape *a, const clash_shape *b, const clash_options *opt,
               compound_pair_fn convex, clash_result *r)
{
	if (apart_at_roots(a, b, opt, r))
		return CLASH_OK;
	query q;
	obox cb;
	int err = query_init(&q, a, b, opt, convex, &cb);
	if (err)
		return err;
	double tw[9] = {0};
	clash_shape tri;
	clash_shape_init(&tri, 3, tw, 3);
	tri.radius = a->radius;
	const int verdict_only = q.verdict_only;
	q.verdict_only = 1;
	q.sub.want = CLASH_WANT_VERDICT;
	if ((err = surfaces(&q, &cb, &tri)))
		return err;
	const int touching = q.found && q.best <= q.thr;
	r->dim = 3;
	r->has = CLASH_HAS_MESH;
	r->solid_a = q.ma->solid;
	r->solid_b = q.mb ? q.mb->solid : 1;
	if (touching) {
		answer_touching(&q, r);
	} else {
		int c = containment(&q, b, &cb, r);
		if (c < 0)
			return c;
		if (!c && !verdict_only && (err = distance_pass(&q, &cb, &tri, r)))
			return err;
	}
	if (!verdict_only || r->intersecting)
		r->has |= CLASH_HAS_DISTANCE;
	r->converged = q.converged;
	r->iterations = (int)(q.pairs > INT32_MAX ? INT32_MAX : q.pairs);
	return CLASH_OK;
}

/* Swap the sides of an answer. */
static void swap_result(clash_result *r)
{
	for (int k = 0; k < 3; k++) {
		double t = r->near_a[k];
		r->near_a[k] = r->near_b[k];
		r->near_b[k] = t;
	}
	int s = r->solid_a;
	r->solid_a = r->solid_b;
	r->solid_b = s;
	if (r->contact == CLASH_CONTACT_A_IN_B)
		r->contact = CLASH_CONTACT_B_IN_A;
	else if (r->contact == CLASH_CONTACT_B_IN_A)
		r->contact = CLASH_CONTACT_A_IN_B;
}

int mesh_query(const clash_shape *a, const clash_shape *b, const clash_options *opt,
               compound_pair_fn convex, clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	if (a == NULL || b == NULL)
		return CLASH_EINVAL;
	int err = check_shape(a);
	if (!err)
		err = check_shape(b);
	if (err)
		return err;
	if (opt) {
		if (!(opt->tolerance >= 0.0) || !isfinite(opt->tolerance) ||
		    opt->max_iterations < 0)
			return CLASH_EINVAL;
		if (opt->warm_count > 0)
			return CLASH_ENOTSUP;
	}
	if (a->mesh)
		err = run(a, b, opt, convex, r);
	else {
		err = run(b, a, opt, convex, r);
		if (!err)
			swap_result(r);
	}
	if (err)
		memset(r, 0, sizeof *r);
	return err;
}
