/*
 * overlap.c — mesh clash reports (issue #24): where two shapes with a mesh
 * on either side cross and how much they overlap (clash_overlap_get).
 * Not implemented yet: every call answers CLASH_ENOTSUP after checking its
 * arguments.
 */
#include <stdlib.h>

#include "clash.h"

int clash_overlap_get(const clash_shape *a, const clash_shape *b,
                      const clash_overlap_options *opt, clash_overlap **out)
{
	(void)opt;
	if (out != NULL)
		*out = NULL;
	if (a == NULL || b == NULL || out == NULL)
		return CLASH_EINVAL;
	if (a->dim != 3 || b->dim != 3)
		return CLASH_EINVAL;
	return CLASH_ENOTSUP;
}

void clash_overlap_free(clash_overlap *o)
{
	free(o);
}
