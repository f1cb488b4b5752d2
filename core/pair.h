/*
 * pair.h — a query of two shapes as each method sees it (internal to the
 * core; see pair.c).
 *
 * clash_gjk, clash_lp_simplex and clash_lp_ipm take the same shapes and
 * differ only in how they answer two convex ones.  As libccd's algorithms
 * see every shape through one support callback, each method here is
 * handed one convex pair:
 * pair_query sends unions of convex parts to the compound layer, which
 * calls the method back with leaves (compound.h), triangle meshes to the
 * mesh layer (mesh_query.h) or, for the LP methods, away (a mesh is no
 * convex hull of its vertices), and exact primitives lowered (primitive.h)
 * to the method's convex core.  That core starts with pair_frame (the
 * working frame, and a pair too small for it answered scaled) and places a
 * separating plane with pair_plane_offset.  The common path is inline: a
 * method's own table makes its calls direct.
 */
#ifndef CLASH_PAIR_H
#define CLASH_PAIR_H

#include <stddef.h>
#include <string.h>

#include "clash.h"
#include "compound.h"
#include "mesh_query.h"
#include "support.h"

/* A method, as pair_query dispatches to it. */
typedef struct pair_method {
	compound_pair_fn query;  /* the method itself: compound leaves come back to it */
	compound_pair_fn convex; /* its core: two convex shapes, primitives lowered */
	compound_pair_fn mesh;   /* a triangle against a convex side, for the mesh
	                          * layer (pair_leaf of this method); NULL: meshes
	                          * are CLASH_ENOTSUP */
	int curved;              /* convex takes curved primitives; else a box alone,
	                          * as its corners (CLASH_ENOTSUP for the others) */
} pair_method;

/* *r zeroed through the C library's memset.  Called directly, GCC expands
 * it inline as `rep stosq` (the result is about 85 words), whose start-up
 * costs more than the library's vector stores, a sizeable part of a quick
 * verdict.  The volatile pointer keeps the call a call. */
static inline void pair_clear(clash_result *r)
{
	void *(*volatile library_memset)(void *, int, size_t) = memset;
	library_memset(r, 0, sizeof *r);
}

/* A pair with a primitive side (pair_leaf): each lowered, then m->convex,
 * a warm start dropped while a side stays curved (its support points have
 * no vertex indices).  A pair with a mesh the method does not take
 * (pair_query): CLASH_ENOTSUP.  Both zero *r first (CLASH_EINVAL without
 * r, as every query answers). */
int pair_lowered(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                 const pair_method *m, clash_result *r);
int pair_no_mesh(clash_result *r);

/* m's answer for a and b, neither compound nor mesh: primitives lowered,
 * then m->convex. */
static inline int pair_leaf(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                            const pair_method *m, clash_result *r)
{
	if (a->kind || b->kind)
		return pair_lowered(a, b, opt, m, r);
	return m->convex(a, b, opt, r);
}

/* m's answer for a and b of any kind, decided in this order: either a
 * compound, either a mesh, either a primitive, else two convex shapes
 * (m->convex checks them, and answers a NULL side). */
static inline int pair_query(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                             const pair_method *m, clash_result *r)
{
	if (a == NULL || b == NULL)
		return m->convex(a, b, opt, r);
	if (a->nparts || b->nparts)
		return compound_query(a, b, opt, m->query, r, NULL);
	if (a->mesh || b->mesh)
		return m->mesh ? mesh_query(a, b, opt, m->mesh, r) : pair_no_mesh(r);
	return pair_leaf(a, b, opt, m, r);
}

/* How a method's first pass over the vertices goes (support.h): the
 * shapes' bounding balls alone (d NULL), or with them a's vertex extreme
 * along world direction d (into *ia) and b's along -d (*ib), copying each
 * shape's vertices by coordinate into copy[0] and copy[1] on the way when
 * copy is not NULL (support_pair_frame_init_copy). */
typedef struct pair_start {
	const double *d;
	size_t *ia, *ib;
	support_copy *copy;
} pair_start;

/* For a and b whose frame fr is too small to work in (support_tiny;
 * support.h, "Tiny queries"): the answer of `convex` on them scaled by a
 * power of two, 1 with its code in *rc; 0 when their radii leave no room
 * to scale (the query goes on as it is). */
int pair_scaled(const support_pair_frame *fr, const clash_shape *a, const clash_shape *b,
                const clash_options *opt, compound_pair_fn convex, clash_result *r, int *rc);

/* The prologue of the convex core `convex`, once it has checked a and b:
 * their working frame *fr by the first pass st asks for, then a pair too
 * small for it answered scaled.  1 when that answered or the pass failed
 * (*rc: the code), else 0: the query goes on in *fr. */
static inline int pair_frame(support_pair_frame *fr, const pair_start *st, const clash_shape *a,
                             const clash_shape *b, const clash_options *opt,
                             compound_pair_fn convex, clash_result *r, int *rc)
{
	if (st->d == NULL)
		*rc = support_pair_frame_init(fr, a, b);
	else if (st->copy == NULL)
		*rc = support_pair_frame_init_extreme(fr, a, b, st->d, st->ia, st->ib);
	else
		*rc = support_pair_frame_init_copy(fr, a, b, st->d, st->ia, st->ib, &st->copy[0],
		                                   &st->copy[1]);
	if (*rc)
		return 1;
	return support_tiny(fr) && pair_scaled(fr, a, b, opt, convex, r, rc);
}

/* The offset of the separating plane normal.x = offset (world) in the
 * middle of the gap between a and b along the unit normal (from a towards
 * b): ha and hb are the heights (frame) along it of the support points of
 * a and b that face each other, unit and shift the frame's map to the
 * world, and each radius moves its side's height. */
static inline double pair_plane_offset(const double *normal, double ha, double hb, double unit,
                                       const double *shift, const clash_shape *a,
                                       const clash_shape *b)
{
	double ns = 0.0;
	for (int k = 0; k < a->dim; k++)
		ns += normal[k] * shift[k];
	return (0.5 * ha + 0.5 * hb) * unit + ns + 0.5 * (a->radius - b->radius);
}

#endif /* CLASH_PAIR_H */
