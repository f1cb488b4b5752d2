/*
 * cells.c — the boundary of a union of grid cells (cells.h).
 */
#include "cells.h"

int cells_at(const cells *c, int i, int j, int k)
{
	if (i < 0 || j < 0 || k < 0 || i >= c->n[0] || j >= c->n[1] || k >= c->n[2])
		return 0;
	return c->occ[(k * c->n[1] + j) * c->n[0] + i] != 0;
}

/* The face of cell at[] on side s (0 low, 1 high) of axis a, outward. */
static void face(const cells *c, const int *at, int a, int s, double (*q)[3])
{
	static const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	const int u = (a + 1) % 3, w = (a + 2) % 3;
	for (int p = 0; p < 4; p++) {
		const int pu = s ? uv[p][0] : uv[p][1], pw = s ? uv[p][1] : uv[p][0];
		q[p][a] = c->g[a][at[a] + s];
		q[p][u] = c->g[u][at[u] + pu];
		q[p][w] = c->g[w][at[w] + pw];
	}
}

void cells_boundary(const cells *c, void (*fn)(void *ctx, const double (*q)[3]), void *ctx)
{
	for (int k = 0; k < c->n[2]; k++)
		for (int j = 0; j < c->n[1]; j++)
			for (int i = 0; i < c->n[0]; i++) {
				if (!cells_at(c, i, j, k))
					continue;
				const int at[3] = {i, j, k};
				for (int a = 0; a < 3; a++)
					for (int s = 0; s < 2; s++) {
						int d[3] = {i, j, k};
						d[a] += s ? 1 : -1;
						if (cells_at(c, d[0], d[1], d[2]))
							continue;
						double q[4][3];
						face(c, at, a, s, q);
						fn(ctx, (const double(*)[3])q);
					}
			}
}
