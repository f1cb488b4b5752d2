/*
 * compound.h — compound shapes (unions of convex parts) as a layer over the
 * per-pair methods (internal to the core; see compound.c for the design).
 *
 * A method that answers for two convex shapes (clash_gjk, clash_lp_simplex,
 * clash_lp_ipm ...) answers for compound shapes by handing them, and itself,
 * to compound_query() (pair.h's dispatch does, for those three):
 *
 *     if (a->nparts || b->nparts)
 *             return compound_query(a, b, opt, clash_gjk, r, NULL);
 *
 * The layer calls the method back only with convex leaves, whose pose and
 * radius already include every enclosing compound's, so the method needs no
 * other knowledge of compounds.  What the union's answer is, from the leaf
 * answers, is read off the leaf results' `has` bits (compound.c, "Union
 * semantics").  Methods with other answers (containment) walk the leaves
 * with compound_foreach_leaf().
 */
#ifndef CLASH_COMPOUND_H
#define CLASH_COMPOUND_H

#include <stddef.h>

#include "clash.h"

/* A method for two convex shapes (the signature of clash_gjk). */
typedef int (*compound_pair_fn)(const clash_shape *a, const clash_shape *b,
                                const clash_options *opt, clash_result *r);

/* What a compound query did, for tests and measurements. */
typedef struct compound_stats {
	size_t leaves_a, leaves_b; /* convex leaves of each shape */
	size_t pairs_evaluated;    /* leaf pairs handed to the method */
} compound_stats;

/* Validate shape s as a tree of dimension dim: every node of that dim with a
 * valid radius, every compound node with parts, every leaf with vertices,
 * within CLASH_COMPOUND_MAX_DEPTH and CLASH_COMPOUND_MAX_LEAVES.  A convex
 * shape is a tree of one leaf.  Writes the number of leaves to *leaves.
 * Returns CLASH_OK, CLASH_EDIM, CLASH_ERADIUS, CLASH_EEMPTY, CLASH_EINVAL or
 * CLASH_ELIMIT. */
int compound_check(const clash_shape *s, int dim, size_t *leaves);

/* Call fn for every convex leaf of s (s itself if it is convex), in order,
 * with a shape on the stack that borrows the leaf's vertices and carries its
 * world pose and total radius, and the index of its top-level part (0 for a
 * convex s).  Stops at, and returns, the first non-zero return of fn;
 * CLASH_ERANGE if a composed pose or radius overflows.  s must have passed
 * compound_check. */
typedef int (*compound_leaf_fn)(const clash_shape *leaf, size_t top, void *ctx);
int compound_foreach_leaf(const clash_shape *s, compound_leaf_fn fn, void *ctx);

/* Answer the query of a and b (either or both compound) with `pair` on pairs
 * of leaves, skipping pairs whose bounding balls show they cannot change the
 * answer.  `stats` may be NULL.  Returns CLASH_OK or a CLASH_E* code (then
 * *r is zeroed), including CLASH_ENOTSUP for a warm simplex. */
int compound_query(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                   compound_pair_fn pair, clash_result *r, compound_stats *stats);

#endif /* CLASH_COMPOUND_H */
