/*
 * duplicate.h — whether two shapes of a scene coincide within a tolerance
 * (CLASH_CLASS_DUPLICATE, clash.h), by comparison alone: never a depth
 * search (internal to the core; see duplicate.c).
 */
#ifndef CLASH_DUPLICATE_H
#define CLASH_DUPLICATE_H

#include "clash.h"

/* 1 when a and b (at rest, of one dimension, valid trees) coincide within
 * tol, 0 when not, CLASH_ENOMEM when the search's scratch could not be
 * had.  Convex shapes: radii within tol, and the same world point set
 * within tol in any order (every vertex of each within tol of a vertex of
 * the other); meshes: their positions in order and the same triangles;
 * primitives: primitive_same; compounds: the same poses, and their parts
 * coinciding one to one, in order or not.  Allocates for point sets and
 * part lists not in the same order (freed before it returns). */
int duplicate_same(const clash_shape *a, const clash_shape *b, double tol);

/* Whether two shapes whose world boxes are [alo, ahi] and [blo, bhi] (n
 * coordinates each) may coincide within tol: every side within 2 tol
 * (points and radii within tol move no side of a box further).  The cheap
 * test before duplicate_same. */
int duplicate_boxes_allow(const double *alo, const double *ahi, const double *blo,
                          const double *bhi, int n, double tol);

#endif /* CLASH_DUPLICATE_H */
