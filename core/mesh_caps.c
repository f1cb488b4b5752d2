/*
 * mesh_caps.c — a part against the caps of an open solid's holes
 * (mesh_caps.h).
 *
 * Against a mesh part, the holes' tree (mesh_holes.h) and the part's are
 * walked together in the holder's frame (the part's boxes mapped there),
 * pairs of nodes whose boxes do not overlap dropped; at two leaves, each
 * hole's ball, then each cap triangle's box, must meet a part triangle's
 * box before the exact test (tri_overlap.h) is asked, in the world.  Against a convex part the caller's test
 * takes each cap triangle whose hole's ball meets the part's box.  Most
 * holes are small beside the parts, so few pairs of leaves are reached.
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

/* Pairs waiting in the walk: each step takes one and adds at most two, so
 * the two trees' depths (each bounded by its build) bound it. */
#define CAPS_STACK 512
#define CAPS_CANCEL_EVERY 256

static int boxes_meet(const obox *x, const obox *y)
{
	for (int k = 0; k < 3; k++)
		if (fabs(x->c[k] - y->c[k]) > x->h[k] + y->h[k])
			return 0;
	return 1;
}

/* The box lo..hi as centre and half extents. */
static void box_of(const double *lo, const double *hi, obox *o)
{
	for (int k = 0; k < 3; k++) {
		o->c[k] = 0.5 * lo[k] + 0.5 * hi[k];
		o->h[k] = 0.5 * hi[k] - 0.5 * lo[k];
	}
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

static void tri_obox(const double *t, obox *o)
{
	double lo[3], hi[3];
	for (int k = 0; k < 3; k++) {
		lo[k] = fmin(t[k], fmin(t[3 + k], t[6 + k]));
		hi[k] = fmax(t[k], fmax(t[3 + k], t[6 + k]));
		o->c[k] = 0.5 * lo[k] + 0.5 * hi[k];
		o->h[k] = (0.5 * hi[k] - 0.5 * lo[k]) * (1.0 + 4 * DBL_EPSILON) +
		          4 * DBL_EPSILON * fabs(o->c[k]);
	}
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
		tri_obox(l->t + 9 * i, &l->box[i]);
		grow(&l->box[i]);
	}
}

static const double *part_world(const caps_walk *cw, const mesh_node *n, part_leaf *l,
                                 uint32_t i)
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

/* Does cap triangle cap (h's frame) meet a triangle of the leaf? */
static int cap_meets_leaf(const caps_walk *cw, const double *cap, const mesh_node *pn,
                          part_leaf *leaf, double *at)
{
	obox cb;
	tri_obox(cap, &cb);
	double w[9];
	int mapped = 0;
	for (uint32_t t = 0; t < leaf->count; t++) {
		if (!boxes_meet(&cb, &leaf->box[t]))
			continue;
		if (!mapped++)
			for (int c = 0; c < 3; c++)
				affine_apply(cw->fh, cap + 3 * c, w + 3 * c);
		const double *s = part_world(cw, pn, leaf, t);
		if (tri_overlap_point(w, w + 3, w + 6, s, s + 3, s + 6, at))
			return 1;
	}
	return 0;
}

/* Which of the holes of leaf hn (bit i: hole first + i), among `live`,
 * have balls that meet box pb (h's frame)? */
static unsigned balls_meeting(const clash_mesh *h, const hole_node *hn, unsigned live,
                              const obox *pb)
{
	unsigned out = 0;
	for (uint32_t i = 0; i < hn->count; i++) {
		if (!(live >> i & 1u))
			continue;
		const mesh_hole *hole = &h->holes[hn->first + i];
		int far = 0;
		for (int k = 0; k < 3; k++)
			far |= fabs(hole->c[k] - pb->c[k]) > hole->r + pb->h[k];
		out |= (unsigned)!far << i;
	}
	return out;
}

/* The holes `live` of leaf hn against the triangles of leaf pn. */
static int leaves_meet(const caps_walk *cw, const hole_node *hn, unsigned live,
                       const mesh_node *pn, double *at)
{
	part_leaf leaf;
	part_leaf_of(cw, pn, &leaf);
	for (uint32_t i = 0; i < hn->count; i++) {
		if (!(live >> i & 1u))
			continue;
		const mesh_hole *hole = &cw->h->holes[hn->first + i];
		for (uint32_t j = 0; j < hole->count; j++) {
			double cap[9];
			cap_tri(cw->h, hole, j, cap);
			if (cap_meets_leaf(cw, cap, pn, &leaf, at))
				return 1;
		}
	}
	return 0;
}

/* A pair waiting in the walk; below a leaf of holes, the holes whose
 * balls met every part node on the way down. */
typedef struct caps_pair {
	uint32_t hn, pn;
	unsigned live;
} caps_pair;

int mesh_caps_meet_mesh(const clash_mesh *h, const affine *fh, const clash_mesh *p,
                        const affine *fp, const volatile int *cancel, double at[3])
{
	if (!h->capped || !h->nholes)
		return 0;
	caps_walk cw = {h, p, fh, fp, {{0}, {0}, 0}};
	affine ih;
	affine_invert(fh, &ih);
	affine_compose(&ih, fp, &cw.ph);
	affine_mark_shift(&cw.ph);
	caps_pair stack[CAPS_STACK];
	int top = 0;
	unsigned visits = 0;
	stack[top++] = (caps_pair){0, 0, (1u << HOLES_LEAF) - 1};
	while (top > 0) {
		caps_pair e = stack[--top];
		if (cancel && ++visits % CAPS_CANCEL_EVERY == 0 && cancel_requested(cancel))
			return CLASH_ECANCELED;
		const hole_node *hn = &h->hole_nodes[e.hn];
		const mesh_node *pn = &p->nodes[e.pn];
		obox hb, pb;
		box_of(hn->lo, hn->hi, &hb);
		mesh_node_obox(p, pn, &cw.ph, &pb);
		grow(&pb);
		if (!boxes_meet(&hb, &pb))
			continue;
		if (hn->count && !(e.live = balls_meeting(h, hn, e.live, &pb)))
			continue;
		if (hn->count && pn->count) {
			if (leaves_meet(&cw, hn, e.live, pn, at))
				return 1;
			continue;
		}
		assert(top + 2 <= CAPS_STACK);
		/* Open the inner node, the larger one when both are. */
		const int open_hole = !hn->count && (pn->count || hb.h[0] + hb.h[1] + hb.h[2] >
		                                                          pb.h[0] + pb.h[1] + pb.h[2]);
		for (uint32_t k = 0; k < 2; k++)
			stack[top++] = open_hole ? (caps_pair){hn->first + k, e.pn, e.live}
			                         : (caps_pair){e.hn, pn->first + k, e.live};
	}
	return 0;
}

int mesh_caps_meet_box(const clash_mesh *h, const affine *fh, const obox *box, caps_tri_fn fn,
                       void *ctx, double at[3])
{
	if (!h->capped || !h->nholes)
		return 0;
	uint32_t stack[CAPS_STACK];
	int top = 0;
	stack[top++] = 0;
	while (top > 0) {
		const hole_node *hn = &h->hole_nodes[stack[--top]];
		int apart = 0;
		for (int k = 0; k < 3; k++)
			apart |= hn->lo[k] > box->c[k] + box->h[k] || hn->hi[k] < box->c[k] - box->h[k];
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
			for (uint32_t j = 0; !far && j < hole->count; j++) {
				double cap[9], w[9];
				cap_tri(h, hole, j, cap);
				for (int c = 0; c < 3; c++)
					affine_apply(fh, cap + 3 * c, w + 3 * c);
				const int c = fn(ctx, w, at);
				if (c)
					return c;
			}
		}
	}
	return 0;
}
