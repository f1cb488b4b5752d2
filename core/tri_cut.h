/*
 * tri_cut.h — where two triangles of different solids cross (internal to
 * the core; see tri_cut.c).
 *
 * The overlap reports (core/overlap.c) build the curve where two surfaces
 * cross from the segments in which their triangles cross.  Each end of a
 * segment is where an edge of one triangle passes through the other, and
 * it is found, with its direction, from signs of core/predicates.h alone,
 * so two triangles that share an edge agree exactly on where it is cut.
 * The triangles' corners are taken in their outward order (counter-
 * clockwise seen from outside the solid).
 */
#ifndef CLASH_TRI_CUT_H
#define CLASH_TRI_CUT_H

/* One end of a cut: edge `edge` (corner edge .. edge + 1 mod 3) of
 * triangle `side` (0: t, 1: s) passes through the other triangle, going
 * into the other solid (entry 1) or out of it (entry 0) along the edge. */
typedef struct tri_cut_end {
	int side, edge, entry;
} tri_cut_end;

/*
 * The closed triangles t and s (3 corners each): 0 when they do not meet;
 * 1 when they cross, with the segment's ends in end[0], end[1] in the
 * order that runs along n_t x n_s (the boundary of the part of t inside
 * s's solid, counter-clockwise about n_t); -1 when they meet in a
 * degenerate way (touching at an edge or corner, coplanar, a corner on
 * the other triangle, zero area), which the caller removes by moving one
 * side.
 */
int tri_cut(const double *const t[3], const double *const s[3], tri_cut_end end[2]);

/* Where edge p->q passes through the plane of triangle s: the parameter
 * along p->q, from the accurate determinants (within a few ulps). */
double tri_cut_param(const double *p, const double *q, const double *const s[3]);

#endif
