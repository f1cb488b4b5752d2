/*
 * mesh_caps.c — a part against the caps of an open solid's holes
 * (mesh_caps.h).
 *
 * The holes' tree (mesh_holes.h) gives the holes whose balls meet the
 * part's box.  Against a mesh part, each such ball is carried into the
 * part's frame (one point mapped, the radius stretched by a bound on the
 * map), where the part's tree is walked with its boxes as stored; at a
 * leaf, each cap triangle's box must meet a part triangle's box (in the
 * holder's frame) before the exact test (tri_overlap.h) is asked, in the
 * world.  Against a convex part the caller's test takes each cap
 * triangle of those holes.  Most holes are small beside the parts, so
 * few holes pass and each walk goes down one narrow path.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "cancel.h"
#include "clash.h"
#include "mesh_caps.h"
#include "mesh_holes.h"
#include "tri_overlap.h"

/* Nodes waiting in a walk: each step takes one and adds at most two, so
 * the tree's depth (bounded by its build) bounds it. */
#define CAPS_STACK 512
#define CAPS_CANCEL_EVERY 256

static int boxes_meet(const obox *x, const obox *y)
{
	for (int k = 0; k < 3; k++)
		if (fabs(x->c[k] - y->c[k]) > x->h[k] + y->h[k])
			return 0;
	return 1;
}

/* Cap triangle j of hole in h's frame: the centre, then the edge
 * reversed (its orientation is not used here). */
static void cap_tri(const clash_mesh *h, const mesh_hole *hole, uint32_t j, double *t)
{
	const mesh_hole_edge *e = &h->hole_edges[hole->first + j];
	memcpy(t, hole->c, 3 * sizeof *t);
	memcpy(t + 3, e->b, 3 * sizeof *t);
	memcpy(t + 6, e->a, 3 * sizeof *t);
}

/* Grown by far more than the rounding of the map from the part's frame
 * to the holder's (the boxes there only prune; the test is exact in the
 * world). */
static void grow(obox *o)
{
	for (int k = 0; k < 3; k++)
		o->h[k] += 0x1p-30 * (fabs(o->c[k]) + o->h[k]);
}

/* The walk's state: the holder h, the part p, their poses and the map of
 * p's frame into h's, where the boxes are compared. */
typedef struct caps_walk {
	const clash_mesh *h, *p;
	const affine *fh, *fp;
	affine ph;
	caps_point_fn inside;
	void *ctx;
} caps_walk;

/* A part's leaf: its triangles in h's frame and their boxes there, and
 * (once asked for) in the world. */
typedef struct part_leaf {
	double t[9 * MESH_LEAF_MAX], w[9 * MESH_LEAF_MAX];
	obox box[MESH_LEAF_MAX];
	uint32_t count;
	int world;
} part_leaf;

static void part_leaf_of(const caps_walk *cw, const mesh_node *n, part_leaf *l)
{
	l->count = n->count;
	l->world = 0;
	for (uint32_t i = 0; i < n->count; i++) {
		const double *t = mesh_tri(cw->p, n->first + i);
		for (int c = 0; c < 3; c++)
			affine_apply(&cw->ph, t + 3 * c, l->t + 9 * i + 3 * c);
		mesh_tri_obox(l->t + 9 * i, &l->box[i]);
		grow(&l->box[i]);
	}
}

static const double *part_world(const caps_walk *cw, const mesh_node *n, part_leaf *l, uint32_t i)
{
	if (!l->world) {
		for (uint32_t j = 0; j < n->count; j++) {
			const double *t = mesh_tri(cw->p, n->first + j);
			for (int c = 0; c < 3; c++)
				affine_apply(cw->fp, t + 3 * c, l->w + 9 * j + 3 * c);
		}
		l->world = 1;
	}
	return l->w + 9 * i;
}

/* Does cap triangle cap (h's frame) meet a triangle of the leaf where
 * the holder holds the common point?  1 with it in at, 0, or an error. */
static int cap_meets_leaf(const caps_walk *cw, const double *cap, const mesh_node *pn,
                          part_leaf *leaf, double *at)
{
	obox cb;
	mesh_tri_obox(cap, &cb);
	double w[9];
	int mapped = 0;
	for (uint32_t t = 0; t < leaf->count; t++) {
		if (!boxes_meet(&cb, &leaf->box[t]))
			continue;
		if (!mapped++)
			for (int c = 0; c < 3; c++)
				affine_apply(cw->fh, cap + 3 * c, w + 3 * c);
		const double *s = part_world(cw, pn, leaf, t);
		if (!tri_overlap_point(w, w + 3, w + 6, s, s + 3, s + 6, at))
			continue;
		const int c = cw->inside(cw->ctx, at);
		if (c)
			return c;
	}
	return 0;
}

/* A corner of the leaf within the hole's ball that the holder holds?
 * There the caps' winding number may pass 1/2, so the corner's side of
 * the caps does not tell. */
static int corner_in_ball(const caps_walk *cw, const mesh_hole *hole, const mesh_node *pn,
                          part_leaf *leaf, double *at)
{
	for (uint32_t t = 0; t < leaf->count; t++)
		for (int c = 0; c < 3; c++) {
			const double *x = leaf->t + 9 * t + 3 * c;
			double d2 = 0.0;
			for (int k = 0; k < 3; k++)
				d2 += (x[k] - hole->c[k]) * (x[k] - hole->c[k]);
			if (d2 > hole->r * hole->r * (1.0 + 0x1p-20))
				continue;
			memcpy(at, part_world(cw, pn, leaf, t) + 3 * c, 3 * sizeof *at);
			const int in = cw->inside(cw->ctx, at);
			if (in)
				return in;
		}
	return 0;
}

/* The holes of h whose balls meet box (h's frame), each handed to fn
 * until it returns non-zero; that return, else 0. */
typedef int (*hole_fn)(void *ctx, const mesh_hole *hole, double at[3]);

static int holes_in_box(const clash_mesh *h, const obox *box, hole_fn fn, void *ctx, double at[3])
{
	uint32_t stack[CAPS_STACK];
	int top = 0;
	stack[top++] = 0;
	while (top > 0) {
		const hole_node *hn = &h->hole_nodes[stack[--top]];
		int apart = 0;
		for (int k = 0; k < 3; k++)
			apart |= hn->lo[k] > box->c[k] + box->h[k] ||
			         hn->hi[k] < box->c[k] - box->h[k];
		if (apart)
			continue;
		if (!hn->count) {
			assert(top + 2 <= CAPS_STACK);
			stack[top++] = hn->first + 1;
			stack[top++] = hn->first;
			continue;
		}
		for (uint32_t i = hn->first; i < hn->first + hn->count; i++) {
			const mesh_hole *hole = &h->holes[i];
			int far = 0;
			for (int k = 0; k < 3; k++)
				far |= fabs(hole->c[k] - box->c[k]) > hole->r + box->h[k];
			const int c = far ? 0 : fn(ctx, hole, at);
			if (c)
				return c;
		}
	}
	return 0;
}

/* The caps of one hole against the part's triangles in leaf pn, then
 * the leaf's corners in the hole's ball. */
static int hole_meets_leaf(const caps_walk *cw, const mesh_hole *hole, const mesh_node *pn,
                           double *at)
{
	part_leaf leaf;
	part_leaf_of(cw, pn, &leaf);
	for (uint32_t j = 0; j < hole->count; j++) {
		double cap[9];
		cap_tri(cw->h, hole, j, cap);
		const int c = cap_meets_leaf(cw, cap, pn, &leaf, at);
		if (c)
			return c;
	}
	return corner_in_ball(cw, hole, pn, &leaf, at);
}

/* The mesh part's side of the walk: the map of h's frame into p's and a
 * bound on how far it stretches lengths, to carry each hole's ball into
 * p's frame, where the part's boxes are read as stored. */
typedef struct caps_mesh {
	caps_walk cw;
	affine hp;
	double stretch;
	const volatile int *cancel;
	unsigned visits;
} caps_mesh;

/* A bound on the largest singular value of f's linear part: the square
 * root of a Gershgorin bound on the eigenvalues of its Gram matrix (1,
 * within rounding, for a rotation). */
static double stretch_of(const affine *f)
{
	const double *m = f->l;
	double worst = 0.0;
	for (int r = 0; r < 3; r++) {
		double row = 0.0;
		for (int c = 0; c < 3; c++)
			row += fabs(m[r] * m[c] + m[3 + r] * m[3 + c] + m[6 + r] * m[6 + c]);
		worst = fmax(worst, row);
	}
	return sqrt(worst) * (1.0 + 0x1p-30);
}

/* One hole's ball, carried into p's frame, against p's tree. */
static int hole_against_part(void *ctx, const mesh_hole *hole, double at[3])
{
	caps_mesh *cm = ctx;
	const clash_mesh *p = cm->cw.p;
	double c[3];
	affine_apply(&cm->hp, hole->c, c);
	double mag = 0.0;
	for (int k = 0; k < 3; k++) {
		c[k] -= p->origin[k]; /* node boxes are relative to it */
		mag += fabs(c[k]) + fabs(p->origin[k]) + fabs(hole->c[k]);
	}
	const double r = hole->r * cm->stretch + 0x1p-30 * (mag + hole->r);
	uint32_t stack[CAPS_STACK];
	int top = 0;
	stack[top++] = 0;
	while (top > 0) {
		if (cm->cancel && ++cm->visits % CAPS_CANCEL_EVERY == 0 &&
		    cancel_requested(cm->cancel))
			return CLASH_ECANCELED;
		const mesh_node *pn = &p->nodes[stack[--top]];
		double gap2 = 0.0;
		for (int k = 0; k < 3; k++) {
			/* Comparisons, not fmax: compilers call libm's for its NaN
			 * rule, and no term here is NaN. */
			const double below = (double)pn->lo[k] - c[k],
				     above = c[k] - (double)pn->hi[k];
			const double g = below > 0.0 ? below : above > 0.0 ? above : 0.0;
			gap2 += g * g;
		}
		if (gap2 > r * r)
			continue;
		if (pn->count) {
			const int found = hole_meets_leaf(&cm->cw, hole, pn, at);
			if (found)
				return found;
			continue;
		}
		assert(top + 2 <= CAPS_STACK);
		stack[top++] = pn->first + 1;
		stack[top++] = pn->first;
	}
	return 0;
}

int mesh_caps_meet_mesh(const clash_mesh *h, const affine *fh, const clash_mesh *p,
                        const affine *fp, const volatile int *cancel, caps_point_fn inside,
                        void *ctx, double at[3])
{
	if (!h->capped || !h->nholes)
		return 0;
	caps_mesh cm = {{h, p, fh, fp, {{0}, {0}, 0}, inside, ctx}, {{0}, {0}, 0}, 0.0, cancel, 0};
	affine ih;
	affine_invert(fh, &ih);
	affine_compose(&ih, fp, &cm.cw.ph);
	affine_mark_shift(&cm.cw.ph);
	affine_invert(&cm.cw.ph, &cm.hp);
	affine_mark_shift(&cm.hp);
	cm.stretch = cm.hp.shift ? 1.0 : stretch_of(&cm.hp);
	obox pb;
	mesh_node_obox(p, &p->nodes[0], &cm.cw.ph, &pb);
	grow(&pb);
	return holes_in_box(h, &pb, hole_against_part, &cm, at);
}

/* The convex part's side: each cap of a hole handed to the caller's
 * test. */
typedef struct caps_convex {
	const clash_mesh *h;
	const affine *fh;
	caps_tri_fn fn;
	void *ctx;
} caps_convex;

static int hole_against_convex(void *ctx, const mesh_hole *hole, double at[3])
{
	const caps_convex *cc = ctx;
	for (uint32_t j = 0; j < hole->count; j++) {
		double cap[9], w[9];
		cap_tri(cc->h, hole, j, cap);
		for (int c = 0; c < 3; c++)
			affine_apply(cc->fh, cap + 3 * c, w + 3 * c);
		const int c = cc->fn(cc->ctx, w, at);
		if (c)
			return c;
	}
	return 0;
}

int mesh_caps_meet_box(const clash_mesh *h, const affine *fh, const obox *box, caps_tri_fn fn,
                       void *ctx, double at[3])
{
	if (!h->capped || !h->nholes)
		return 0;
	caps_convex cc = {h, fh, fn, ctx};
	return holes_in_box(h, box, hole_against_convex, &cc, at);
}
