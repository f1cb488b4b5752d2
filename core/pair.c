/*
 * pair.c — the cold paths of a query of two shapes (see pair.h): a pair
 * with a primitive side lowered, a mesh a method does not take, and a pair
 * too small for its frame.  The common path is pair.h's inline dispatch.
 */
#include <string.h>

#include "pair.h"
#include "primitive.h"

int pair_lowered(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                 const pair_method *m, clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	pair_clear(r);
	clash_shape la, lb;
	const clash_shape *pa, *pb;
	int err;
	if ((err = primitive_lower(a, &la, &pa, !m->curved)) ||
	    (err = primitive_lower(b, &lb, &pb, !m->curved)))
		return err;
	if (opt && opt->warm_count > 0 && (pa->kind || pb->kind)) {
		clash_options o = *opt;
		o.warm_count = 0;
		return m->convex(pa, pb, &o, r);
	}
	return m->convex(pa, pb, opt, r);
}

int pair_no_mesh(clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	return CLASH_ENOTSUP;
}

int pair_scaled(const support_pair_frame *fr, const clash_shape *a, const clash_shape *b,
                const clash_options *opt, compound_pair_fn convex, clash_result *r, int *rc)
{
	int k = support_tiny_scale(fr, a, b);
	if (k <= 0)
		return 0;
	*rc = support_query_scaled(a, b, opt, k, convex, r);
	return 1;
}
