/*
 * mesh_shells.c — whether a closed mesh bounds its solid once
 * (mesh_shells.h).
 *
 * One closed shell that does not cross itself separates space into an
 * inside and an outside (the Jordan-Brouwer separation theorem), so its
 * winding number is 0 or +-1.  Shells that do not cross each other each
 * lie wholly on one side of every other, so the winding number is
 * constant just in front of a shell and just behind it, and steps by one
 * across it: it is 0 or s everywhere (s the sign of the mesh's volume)
 * exactly when, for every shell, one of those two sides is at 0 and the
 * other at s.  A shell nested in another facing the same way (winding
 * number 2 within the inner) fails it; a cavity, facing the other way,
 * passes.  Shells that cross (clash_mesh_info.self_intersections, exact)
 * fail outright.  Each side is read from one triangle of the shell
 * (mesh->reps) by a ray's exact crossings (mesh_winding_beside).
 */
#include "mesh_shells.h"
#include "mesh_query.h"

int mesh_shells_once(const clash_mesh *m, const volatile int *cancel)
{
	if (!m->topo.closed)
		return 0;
	clash_mesh_info info;
	int err = clash_mesh_info_get(m, &info);
	if (err)
		return err;
	if (info.self_intersections || info.self_intersections_capped)
		return 0;
	if (m->nreps <= 1)
		return 1;
	const int s = m->volume < 0.0 ? -1 : 1;
	for (size_t i = 0; i < m->nreps; i++) {
		int front = 0, back = 0;
		err = mesh_winding_beside(m, m->reps[i], 1, cancel, &front);
		if (!err)
			err = mesh_winding_beside(m, m->reps[i], -1, cancel, &back);
		if (err == CLASH_ERANGE)
			return 0;
		if (err)
			return err;
		if (!((front == 0 && back == s) || (front == s && back == 0)))
			return 0;
	}
	return 1;
}
