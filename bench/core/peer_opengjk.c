/*
 * peer_opengjk.c — openGJK (github.com/MattiaMontanari/openGJK, scalar
 * C version, GPL-3.0) as a benchmark method: compute_minimum_distance,
 * the GJK of Montanari, Petrinic and Barbieri, "Improving the GJK
 * algorithm for faster and more reliable distance queries between convex
 * objects" (ACM TOG 36(3), 2017), distance on separated and touching
 * pairs.
 *
 * Optional: built only when the Makefile is given OPENGJK_DIR, a checkout
 * of openGJK outside this repository; it compiles that checkout's
 * scalar/openGJK.c and defines BENCH_OPENGJK here (bench/README.md).
 * Without it the table below is empty and main.c lists no such peer.
 *
 * openGJK takes each body as world coordinates behind an array of
 * pointers; it has no pose.  prepare poses the vertices (bench_world) and
 * builds that array, untimed, so the timed query is one call on points
 * already posed, whereas ours and the other peers turn directions into
 * each shape's frame inside the query.  Its settings are its own
 * (relative tolerance 1e4 machine epsilons, 25 iterations at most).
 */
#include <math.h>
#include <stdlib.h>

#include "bench.h"

#ifdef BENCH_OPENGJK

#include <openGJK/openGJK.h>

/* openGJK prints diagnostics ("UNEXPECTED VALUES", the iteration cap) to
 * stdout, where the report goes; the Makefile compiles it with printf
 * renamed to this, which drops them. */
int bench_opengjk_printf(const char *fmt, ...);
int bench_opengjk_printf(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

typedef struct opengjk_pair {
	gkPolytope a, b;
	double *world;   /* both bodies' posed vertices */
	double **points; /* the pointers into world that gkPolytope wants */
} opengjk_pair;

static void release(void *h)
{
	opengjk_pair *p = h;
	if (!p)
		return;
	free(p->world);
	free(p->points);
	free(p);
}

static void *prep(const bench_case *c)
{
	size_t n = c->a.m + c->b.m;
	opengjk_pair *p = calloc(1, sizeof *p);
	if (!p || n > (size_t)INT32_MAX)
		goto fail;
	p->world = malloc(3 * n * sizeof *p->world);
	p->points = malloc(n * sizeof *p->points);
	if (!p->world || !p->points)
		goto fail;
	bench_world(&c->a, p->world);
	bench_world(&c->b, p->world + 3 * c->a.m);
	for (size_t i = 0; i < n; i++)
		p->points[i] = p->world + 3 * i;
	p->a.numpoints = (int)c->a.m;
	p->a.coord = p->points;
	p->b.numpoints = (int)c->b.m;
	p->b.coord = p->points + c->a.m;
	return p;
fail:
	release(p);
	return NULL;
}

/* The verdict: openGJK answers a distance only; a full simplex (the
 * origin enclosed) or a distance of exactly 0 reads as touching or
 * intersecting. */
static void query(void *h, bench_answer *out)
{
	opengjk_pair *p = h;
	gkSimplex s;
	s.nvrtx = 0;
	double d = compute_minimum_distance(p->a, p->b, &s);
	out->intersecting = s.nvrtx == 4 || d == 0.0;
	out->distance = d;
	out->depth = NAN;
}

#define SEP (1u << BENCH_SEPARATED)
#define TOUCH (1u << BENCH_TOUCHING)

const bench_method bench_opengjk[] = {{"compute_minimum_distance", "openGJK", BENCH_DISTANCE,
                                       SEP | TOUCH, 0, 0, prep, query, release},
                                      {NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

#else

const bench_method bench_opengjk[] = {{NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

#endif
