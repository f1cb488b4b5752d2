/*
 * mesh_depth_parts.c — the penetration depth of two unions of convex
 * leaves (compounds of hulls, primitives and convex meshes) when one pair
 * of leaves decides it (mesh_depth_parts.h).
 *
 * Every translation of b that parts the unions parts each pair of their
 * leaves, so the depth of the deepest pair, D (EPA on two convex leaves:
 * exact within its tolerance, a curved primitive by its own support
 * mapping), bounds the unions' depth from below.  When b moved along that
 * pair's normal by D (and a hair) is clear of the whole of a, the move
 * also bounds it from above: D is the depth, certified.  The deepest pair
 * is the one clash_gjk's compound layer reports (compound.c); the clear
 * move is one verdict.  When another leaf stops the move (a peg between
 * two walls) the search over directions answers instead (mesh_depth.c),
 * which takes a curved leaf as a polytope around it and so bounds a
 * sphere's depth only from above: this is why a sphere in one part of a
 * compound gets its exact depth here.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "compound.h"
#include "mesh_convex.h"
#include "mesh_depth_parts.h"
#include "support.h"

void mesh_depth_shifted(const clash_shape *b, const double *v, clash_shape *out)
{
	*out = *b;
	if (!out->posed) {
		memset(out->linear, 0, sizeof out->linear);
		for (int k = 0; k < 3; k++)
			out->linear[4 * k] = 1.0, out->translation[k] = 0.0;
		out->posed = 1;
	}
	for (int k = 0; k < 3; k++)
		out->translation[k] += v[k];
}

/* The leaves of one side, each convex mesh taken as the hull of its
 * vertices (the same solid). */
typedef struct flat {
	clash_shape *leaves;
	size_t n;
	int convex; /* 0 once a leaf is a mesh that is not convex */
	const volatile int *cancel;
	double lo[3], hi[3]; /* the world box of the leaves' balls */
} flat;

static int take_leaf(const clash_shape *l, size_t top, void *ctx)
{
	(void)top;
	flat *f = ctx;
	if (l->mesh) {
		int c = mesh_is_convex(l->mesh, f->cancel);
		if (c <= 0) {
			f->convex = 0;
			return c < 0 ? c : 1; /* 1: stop the walk, not an error */
		}
	}
	double c[3], reach;
	int err = support_bounds(l, c, &reach);
	if (err)
		return err;
	reach += l->radius;
	for (int k = 0; k < 3; k++) {
		f->lo[k] = fmin(f->lo[k], c[k] - reach);
		f->hi[k] = fmax(f->hi[k], c[k] + reach);
	}
	clash_shape *s = &f->leaves[f->n++];
	*s = *l;
	s->mesh = NULL;
	return CLASH_OK;
}

/* sh as the union of its leaves in *out (the one leaf itself, or a
 * compound of them): 1, 0 when a leaf is not convex, or an error. */
static int flatten(const clash_shape *sh, flat *f, clash_shape *out)
{
	size_t n;
	int err = compound_check(sh, 3, &n);
	if (err)
		return err;
	f->leaves = malloc(n * sizeof *f->leaves);
	if (!f->leaves)
		return CLASH_ENOMEM;
	f->convex = 1;
	for (int k = 0; k < 3; k++)
		f->lo[k] = INFINITY, f->hi[k] = -INFINITY;
	err = compound_foreach_leaf(sh, take_leaf, f);
	if (err < 0)
		return err;
	if (!f->convex)
		return 0;
	if (f->n == 1) {
		*out = f->leaves[0];
		return 1;
	}
	err = clash_shape_init_compound(out, 3, f->leaves, f->n);
	return err ? err : 1;
}

/* How far past D the move is checked: the search's own margin
 * (mesh_depth.c, search_run), from the tolerance or the size. */
static double past(const flat *fa, const flat *fb, const clash_options *opt, double D)
{
	double size = 0.0, far = 0.0;
	for (int k = 0; k < 3; k++) {
		double lo = fmin(fa->lo[k], fb->lo[k]), hi = fmax(fa->hi[k], fb->hi[k]);
		size += (hi - lo) * (hi - lo);
		far = fmax(far, fmax(fabs(lo), fabs(hi)));
	}
	size = sqrt(size);
	double merge = opt && opt->tolerance > 0 ? opt->tolerance : 1e-12 * size;
	merge = fmax(merge, 64 * DBL_EPSILON * (size + 2 * far));
	return D * (1 + 1e-9) + 2 * merge;
}

static int certify(const clash_shape *ua, const clash_shape *ub, const flat *fa, const flat *fb,
                   const clash_options *opt, clash_result *r)
{
	clash_options o = opt ? *opt : (clash_options){0};
	o.want = 0;
	o.warm_count = 0;
	o.warm_a = o.warm_b = NULL;
	o.warm_plane = NULL;
	clash_result h;
	int err = clash_gjk(ua, ub, &o, &h);
	if (err)
		return err;
	/* The deepest pair's own depth, every pair's converged: else the
	 * bound is not known to be the deepest pair's. */
	const unsigned depth = CLASH_HAS_DEPTH | CLASH_HAS_PAIR_DEPTH;
	if (!h.intersecting || !h.converged || !(h.has & depth) || !(h.depth >= 0.0) ||
	    !isfinite(h.depth))
		return 0;
	double v[3];
	const double t = past(fa, fb, opt, h.depth);
	for (int k = 0; k < 3; k++)
		v[k] = t * h.depth_normal[k];
	clash_shape moved;
	mesh_depth_shifted(ub, v, &moved);
	o.want = CLASH_WANT_VERDICT;
	clash_result clear;
	err = clash_gjk(ua, &moved, &o, &clear);
	if (err)
		return err;
	if (clear.intersecting)
		return 0;
	r->depth = h.depth;
	memcpy(r->depth_normal, h.depth_normal, sizeof h.depth_normal);
	memcpy(r->depth_a, h.depth_a, sizeof h.depth_a);
	memcpy(r->depth_b, h.depth_b, sizeof h.depth_b);
	r->converged = 1;
	r->has |= CLASH_HAS_DEPTH;
	return 1;
}

int mesh_depth_parts(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r)
{
	const volatile int *cancel = opt ? opt->cancel : NULL;
	flat fa = {.cancel = cancel}, fb = {.cancel = cancel};
	clash_shape ua, ub;
	int ok = flatten(a, &fa, &ua);
	if (ok == 1)
		ok = flatten(b, &fb, &ub);
	if (ok == 1 && cancel_requested(cancel))
		ok = CLASH_ECANCELED;
	if (ok == 1)
		ok = certify(&ua, &ub, &fa, &fb, opt, r);
	free(fa.leaves);
	free(fb.leaves);
	return ok;
}
