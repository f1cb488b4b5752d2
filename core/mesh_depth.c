/*
 * mesh_depth.c — the penetration depth of two solids with a mesh on either
 * side (clash_mesh_depth, clash.h).
 */
#include <string.h>

#include "clash.h"

int clash_mesh_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r)
{
	(void)a;
	(void)b;
	(void)opt;
	if (r)
		memset(r, 0, sizeof *r);
	return CLASH_ENOTSUP;
}
