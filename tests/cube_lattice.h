/*
 * cube_lattice.h — the surface of a cube cut n x n a face, for tests: its
 * lattice points (i, j, k), each 0..n, placed by the caller (a box, a
 * sphere, moved off its seam), and two triangles a cell, turned outward
 * (counter-clockwise seen from outside).  A point on several faces is one
 * vertex, unless `apart`: then each face has its own.
 */
#ifndef TESTS_CUBE_LATTICE_H
#define TESTS_CUBE_LATTICE_H

#include <stdint.h>
#include <string.h>

/* The vertex for lattice point ijk of face `face` (0..5: the axis face % 3,
 * at n when face >= 3); its number. */
typedef uint32_t (*lattice_vertex_fn)(void *ctx, const int ijk[3], int face);
typedef void (*lattice_tri_fn)(void *ctx, uint32_t a, uint32_t b, uint32_t c);

/* map: room for (n + 1)^3 numbers, the caller's. */
static inline void cube_lattice(int n, int apart, uint32_t *map, void *ctx,
                                lattice_vertex_fn vertex, lattice_tri_fn tri)
{
	const int side = n + 1;
	const size_t points = (size_t)side * side * side;
	for (int face = 0; face < 6; face++) {
		if (face == 0 || apart)
			memset(map, 0xff, points * sizeof *map);
		const int a = face % 3, hi = face >= 3, b = (a + 1) % 3, c = (a + 2) % 3;
		for (int u = 0; u < n; u++)
			for (int t = 0; t < n; t++) {
				uint32_t v[4];
				for (int q = 0; q < 4; q++) {
					int ijk[3];
					ijk[a] = hi ? n : 0;
					ijk[b] = u + (q == 1 || q == 2);
					ijk[c] = t + (q >= 2);
					uint32_t *slot =
						&map[(ijk[0] * side + ijk[1]) * side + ijk[2]];
					if (*slot == UINT32_MAX)
						*slot = vertex(ctx, ijk, face);
					v[q] = *slot;
				}
				/* (u, t) (u+1, t) (u+1, t+1) turns about +a. */
				if (hi) {
					tri(ctx, v[0], v[1], v[2]);
					tri(ctx, v[0], v[2], v[3]);
				} else {
					tri(ctx, v[0], v[2], v[1]);
					tri(ctx, v[0], v[3], v[2]);
				}
			}
	}
}

#endif
