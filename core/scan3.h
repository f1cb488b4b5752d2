/*
 * scan3.h — the 3-D support scans of one query over a copy of a small
 * shape's vertices laid out by coordinate (internal to the core; see
 * scan3.c).
 *
 * support.c scans the vertex array as it is given, x y z interleaved, and
 * transposes every four vertices into registers before it can form their
 * inner products.  A query that scans the same small shape many times (GJK
 * past its first iterations, then EPA; the LP's pricing) pays that once
 * instead: the vertices are copied into one array per coordinate, and each
 * scan reads four vertices to a load.  The scores are formed in the same
 * order from the same operands, and the lanes merged as support.c merges
 * them, so the vertex found is support.c's, bit for bit.  The copy lives
 * in the caller's storage (the query's stack): no allocation.  Only the
 * support frames drive it (support.h: a frame keeps a copy), and the
 * copy's state (empty, raw, relative) is scan3.c's.
 */
#ifndef CLASH_SCAN3_H
#define CLASH_SCAN3_H

#include <stddef.h>

/* Shapes of at most this many vertices get the copy. */
#define SCAN3_MAX 128

typedef struct scan3 {
	int state; /* scan3.c's (0: empty, 1: the vertices, as scan3_start sets) */
	double x[SCAN3_MAX], y[SCAN3_MAX], z[SCAN3_MAX];
} scan3;

/* Whether a shape of count 3-D vertices can have a copy: at most
 * SCAN3_MAX of them, and on x86-64 a processor with AVX (the scans use
 * it; decided at run time, the build targets plain x86-64).  Elsewhere
 * (WebAssembly: clients/js/local.js) the scans are lanes.h's references,
 * so that whatever rests on a copy being kept (gjk.c's portal refinement)
 * goes as on an x86-64 with AVX, and the answers with it.  Inline, as
 * lanes.h's lanes_have_avx (which scan3.c checks this against): it is
 * asked on every query's path. */
#if defined(__GNUC__) && defined(__x86_64__)
#define SCAN3_AVX 1
#endif
static inline int scan3_usable(size_t count)
{
#if defined(SCAN3_AVX)
	return count <= SCAN3_MAX && __builtin_cpu_supports("avx");
#else
	return count <= SCAN3_MAX;
#endif
}

/* Start s: empty, for the next scan to make the copy, or (filled) holding
 * the vertices v_i, just written to its arrays by the caller. */
static inline void scan3_start(scan3 *s, int filled)
{
	s->state = filled ? 1 : 0;
}

/* Whether s holds a copy that scan3_start(s, 1) began. */
static inline int scan3_filled(const scan3 *s)
{
	return s->state == 1;
}

/* Have the next relative scan turn a copy of the v_i into one of
 * v_i - v_0, what the relative scans score. */
void scan3_want_rel(scan3 *s);

/* The first vertex of the largest v.e among the count vertices v (x y z
 * interleaved) that s copies, made or not: support_max_dot(v, count, 3, e). */
size_t scan3_max_dot(scan3 *s, const double *v, size_t count, const double *e);

/* The same for the largest (v - v_0).e: support_max_dot_rel3(v, count, e). */
size_t scan3_max_dot_rel(scan3 *s, const double *v, size_t count, const double *e);

#endif
