/*
 * cells.h — solids made of box cells on a rectilinear grid, for tests
 * (tests/cells.c): which cells are filled, and the boundary of their union
 * as quads facing outward, which the suites build into meshes whose
 * volumes, overlaps and distances they know in closed form.
 */
#ifndef CLASH_TESTS_CELLS_H
#define CLASH_TESTS_CELLS_H

/* n[k] cells along axis k, bounded by the n[k] + 1 coordinates g[k]; occ
 * holds one byte per cell, i fastest, then j, then k (nonzero: filled). */
typedef struct cells {
	int n[3];
	const double *g[3];
	const unsigned char *occ;
} cells;

/* Whether cell (i, j, k) is filled: 0 outside the grid. */
int cells_at(const cells *c, int i, int j, int k);

/* Each face between a filled cell and an empty one (or the outside) to
 * fn, its four corners counter-clockwise seen from outside. */
void cells_boundary(const cells *c, void (*fn)(void *ctx, const double (*q)[3]), void *ctx);

#endif
