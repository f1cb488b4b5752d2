/*
 * mesh_convex.c — whether a mesh is convex (mesh_convex.h): closed, in one
 * part, and every vertex on one side of each face's plane.  The vertex
 * farthest past a face's plane is found by climbing the hull of the
 * positions (a prepared shape of them), so each face costs a walk, not a
 * scan (the scan when the hull cannot be climbed).  The penetration
 * depth takes the convex answer for such a
 * mesh (mesh_depth.c), and a compound's convex leaves as hulls
 * (mesh_depth_parts.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cancel.h"
#include "mesh.h"
#include "mesh_convex.h"
#include "prepared.h"
#include "support.h"

int mesh_is_convex(const clash_mesh *m, const volatile int *cancel)
{
	if (!m->topo.closed || m->topo.parts != 1)
		return 0;
	clash_shape h;
	if (clash_shape_init(&h, 3, m->positions, m->nvertices))
		return 0;
	size_t bytes = clash_prepared_size(3, m->nvertices);
	void *room = bytes ? malloc(bytes) : NULL;
	if (!room)
		return CLASH_ENOMEM;
	const prepared *p = NULL;
	int climb =
		!clash_shape_prepare(&h, room, bytes) && !prepared_of(&h, &p) && prepared_climbs(p);
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < m->nvertices; i++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], m->positions[3 * i + k]);
			hi[k] = fmax(hi[k], m->positions[3 * i + k]);
		}
	double eps =
		1e-12 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
	                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
	int convex = 1;
	size_t hint[2] = {SIZE_MAX, SIZE_MAX};
	for (size_t i = 0; i < m->ntriangles && convex; i++) {
		if ((i & 255) == 0 && cancel_requested(cancel))
			break;
		const double *t = mesh_tri(m, i);
		double e1[3], e2[3], n[3];
		for (int k = 0; k < 3; k++) {
			e1[k] = t[3 + k] - t[k];
			e2[k] = t[6 + k] - t[k];
		}
		n[0] = e1[1] * e2[2] - e1[2] * e2[1];
		n[1] = e1[2] * e2[0] - e1[0] * e2[2];
		n[2] = e1[0] * e2[1] - e1[1] * e2[0];
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (!(len > 0))
			continue;
		for (int way = 0; way < 2; way++) {
			double d[3] = {n[0] / len, n[1] / len, n[2] / len};
			if (way)
				d[0] = -d[0], d[1] = -d[1], d[2] = -d[2];
			size_t v = climb ? prepared_climb(p, d, 0, &hint[way])
			                 : support_max_dot(m->positions, m->nvertices, 3, d);
			const double *x = m->positions + 3 * v;
			double h2 =
				(x[0] - t[0]) * d[0] + (x[1] - t[1]) * d[1] + (x[2] - t[2]) * d[2];
			hint[way] = v;
			if (h2 > eps && way == 1)
				convex = 0;
			if (h2 <= eps)
				break; /* this face's plane supports the mesh on this side */
		}
	}
	free(room);
	return convex;
}
