/*
 * winding.h — the generalized winding number of a built triangle mesh
 * (internal to the core; core/winding.c).
 *
 * The winding number of a closed, consistently oriented mesh is an
 * integer: 1 inside (0 outside) an outward shell, -1 inside an inward
 * one, their sum where shells nest or overlap.  Holes, unwelded seams and
 * flipped faces move it only near the defect, so |w| >= 1/2 stays a
 * sound inside test for a leaky solid (Jacobson, Kavan, Sorkine-Hornung
 * 2013, "Robust inside-outside segmentation using generalized winding
 * numbers").  The far field is kept per inner node of the mesh's tree in
 * caller storage (winding_far_size bytes), made once from the built mesh.
 */
#ifndef CLASH_WINDING_H
#define CLASH_WINDING_H

#include <stddef.h>

#include "mesh.h"

/* Bytes of far-field data for m (0 when m is not a mesh). */
size_t winding_far_size(const clash_mesh *m);
/* The most winding_far_size can be for a mesh of ntriangles. */
size_t winding_far_bound(size_t ntriangles);

/* The far-field data of m into storage (8-byte aligned, at least
 * winding_far_size(m) bytes).  CLASH_OK or CLASH_EINVAL. */
int winding_far_build(const clash_mesh *m, void *storage, size_t size);

/* The winding number of m about p (m's own coordinates), far clusters
 * approximated: each within `tau` (absolute), and *bound (when not NULL)
 * the sum of those clusters' error bounds, so that |result - exact| <=
 * *bound up to rounding.  tau = 0: every triangle summed exactly.  far:
 * from winding_far_build for this m. */
double winding_number(const clash_mesh *m, const void *far, const double *p, double tau,
                      double *bound);

/* As winding_number, adding to *work the nodes it reads and the
 * triangles it sums; NAN (and *work past limit) as soon as that sum
 * would pass limit, which bounds the time of a walk through a soup of
 * crossing triangles. */
double winding_number_within(const clash_mesh *m, const void *far, const double *p, double tau,
                             double *bound, size_t *work, size_t limit);

/* Is p inside m by its winding number: |w| >= 1/2, certified (the
 * evaluation is refined, down to the exact sum, until the bound no
 * longer reaches across 1/2).  1 or 0. */
int winding_inside(const clash_mesh *m, const void *far, const double *p);

#endif
