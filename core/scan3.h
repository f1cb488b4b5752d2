/*
 * scan3.h — the 3-D support scans of one query over a copy of a shape's
 * vertices laid out by coordinate (internal to the core; see scan3.c).
 *
 * support.c scans the vertex array as it is given, x y z interleaved, and
 * transposes every four vertices into registers before it can form their
 * inner products.  A query that scans the same small shape many times (GJK
 * past its first iterations, then EPA) pays that once instead: the
 * vertices are copied into one array per coordinate, and each scan reads
 * four vertices to a load.  The scores are formed in the same order from
 * the same operands, and the lanes merged as support.c merges them, so the
 * vertex found is support.c's, bit for bit.  The copy lives in the
 * caller's storage (the query's stack): no allocation.
 */
#ifndef CLASH_SCAN3_H
#define CLASH_SCAN3_H

#include <stddef.h>

#include "scan3_copy.h"
#include "support.h"

/* Whether f's scans can take a copy: 3-D vertices, at most SCAN3_MAX of
 * them, and a processor with AVX (the scans use it; decided at run time,
 * the build targets plain x86-64).  If so, the caller may set a state
 * SCAN3_WANT_* (or, for a SCAN3_RAW copy, SCAN3_RAW_WANT_REL).  Prepared
 * or not: a prepared shape this small scans its copy like the same shape
 * unprepared (its climb would answer the same vertex, no faster), so the
 * algorithms chosen on this (gjk's portal refinement) are the same. */
int scan3_usable(const support_frame *f);

/* support_max_dot(f->vertices, f->count, 3, e) by a copy s in state
 * SCAN3_WANT_RAW or SCAN3_RAW (then SCAN3_RAW): the first vertex of the
 * largest v.e. */
size_t scan3_max_dot(scan3 *s, const support_frame *f, const double *e);

/* support_max_dot_rel3(f->vertices, f->count, e) by a copy s in any state
 * but SCAN3_NONE (then SCAN3_RAW or SCAN3_REL): the first vertex of the
 * largest (v - v_0).e. */
size_t scan3_max_dot_rel(scan3 *s, const support_frame *f, const double *e);

/* support_eval3(f, d, x) over the copy s when it is wanted or built (the
 * same direction L^T d, the same vertex), else over the vertex array.
 * Inlined into the callers' support steps, where a call costs as much as
 * the arithmetic around the scan. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t scan3_eval3(const support_frame *f, scan3 *s, const double *d, double *x)
{
	if (s->state == SCAN3_NONE)
		return support_eval3(f, d, x);
	double e[3];
	const size_t i = scan3_max_dot(s, f, support_local_dir3(f, d, e));
	support_point3(f, i, x);
	return i;
}

#endif
