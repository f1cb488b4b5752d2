/*
 * ours.c — the clash core's methods as benchmark methods (see bench.h).
 *
 * Each query builds nothing: the shapes (borrowed local vertices, posed by
 * quaternion and translation, as a client's Query gives them) are set up in
 * prepare, and the query is one call into the core, as the server makes it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clash.h"

typedef struct ours {
	clash_shape a, b;
	clash_options opt;
	int (*fn)(const clash_shape *, const clash_shape *, const clash_options *, clash_result *);
} ours;

/* Prepared shapes, once per vertex array: prepared in a scratch buffer,
 * kept as a compact copy (clash_prepared_bytes), as a long-lived scene
 * would keep them.  Freed by bench_ours_forget(). */
static struct {
	const double *v;
	void *prep;
} cache[4096];
static int ncache;

static const void *preparation(const clash_shape *s)
{
	for (int i = 0; i < ncache; i++)
		if (cache[i].v == s->vertices)
			return cache[i].prep;
	if (ncache == (int)(sizeof cache / sizeof cache[0]))
		return NULL;
	clash_shape t = *s;
	size_t size = clash_prepared_size(t.dim, t.count);
	void *scratch = malloc(size);
	if (!scratch || clash_shape_prepare(&t, scratch, size) != CLASH_OK) {
		free(scratch);
		return NULL;
	}
	size_t kept = clash_prepared_bytes(&t);
	void *prep = malloc(kept);
	memcpy(prep, scratch, kept);
	free(scratch);
	cache[ncache].v = s->vertices;
	cache[ncache].prep = prep;
	return cache[ncache++].prep;
}

void bench_ours_forget(void)
{
	for (int i = 0; i < ncache; i++)
		free(cache[i].prep);
	ncache = 0;
}

static int posed(clash_shape *s, const bench_shape *b)
{
	return clash_shape_init(s, 3, b->v, b->m) || clash_shape_set_quaternion(s, b->q) ||
	       clash_shape_set_translation(s, b->t);
}

static ours *make(const bench_case *c)
{
	ours *h = calloc(1, sizeof *h);
	if (!h || posed(&h->a, &c->a) || posed(&h->b, &c->b)) {
		free(h);
		return NULL;
	}
	return h;
}

static void answer(const clash_result *r, int rc, bench_answer *out)
{
	out->intersecting = rc == CLASH_OK ? r->intersecting : -1;
	out->distance = rc == CLASH_OK && (r->has & CLASH_HAS_DISTANCE) ? r->distance : NAN;
	out->depth = rc == CLASH_OK && (r->has & CLASH_HAS_DEPTH) ? r->depth : NAN;
	if (rc == CLASH_OK && r->intersecting && !(r->has & CLASH_HAS_DEPTH) &&
	    (r->has & CLASH_HAS_DISTANCE))
		out->depth = NAN;
}

static void *prep_gjk(const bench_case *c)
{
	ours *h = make(c);
	if (h)
		h->fn = clash_gjk;
	return h;
}

/* Distance only (no penetration depth): what the peers' distance queries
 * answer. */
static void *prep_distance(const bench_case *c)
{
	ours *h = make(c);
	if (h) {
		h->fn = clash_gjk;
		h->opt.want = CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE;
	}
	return h;
}

/* The verdict only: stops at the first separating direction or enclosing
 * simplex. */
static void *prep_verdict(const bench_case *c)
{
	ours *h = make(c);
	if (h) {
		h->fn = clash_gjk;
		h->opt.want = CLASH_WANT_VERDICT;
	}
	return h;
}

static ours *make_prepared(const bench_case *c, unsigned want)
{
	ours *h = make(c);
	if (!h)
		return NULL;
	const void *pa = preparation(&h->a), *pb = preparation(&h->b);
	if (!pa || !pb || clash_shape_set_prepared(&h->a, pa) ||
	    clash_shape_set_prepared(&h->b, pb)) {
		free(h);
		return NULL;
	}
	h->fn = clash_gjk;
	h->opt.want = want;
	return h;
}

static void *prep_distance_p(const bench_case *c)
{
	return make_prepared(c, CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE);
}

static void *prep_verdict_p(const bench_case *c)
{
	return make_prepared(c, CLASH_WANT_VERDICT);
}

static void *prep_gjk_p(const bench_case *c)
{
	return make_prepared(c, 0);
}

static void *prep_simplex(const bench_case *c)
{
	ours *h = make(c);
	if (h)
		h->fn = clash_lp_simplex;
	return h;
}

static void *prep_ipm(const bench_case *c)
{
	ours *h = make(c);
	if (h)
		h->fn = clash_lp_ipm;
	return h;
}

static void query(void *p, bench_answer *out)
{
	ours *h = p;
	clash_result r;
	int rc = h->fn(&h->a, &h->b, &h->opt, &r);
	answer(&r, rc, out);
}

static void release(void *p)
{
	free(p);
}

#define SEP (1u << BENCH_SEPARATED)
#define TOUCH (1u << BENCH_TOUCHING)
#define INTER (1u << BENCH_INTERSECTING)

/* clang-format off */
const bench_method bench_ours[] = {
	{"clash_gjk want distance", "clash", BENCH_DISTANCE, SEP | TOUCH, 1, 0, prep_distance, query,
	 release},
	{"clash_gjk (all: + EPA depth)", "clash", BENCH_DISTANCE, SEP | TOUCH, 0, 0, prep_gjk, query,
	 release},
	{"clash_gjk want intersecting", "clash", BENCH_VERDICT, SEP | TOUCH | INTER, 1, 0,
	 prep_verdict, query, release},
	{"clash_gjk (EPA)", "clash", BENCH_DEPTH, TOUCH | INTER, 1, 0, prep_gjk, query, release},
	{"clash_gjk want distance, prepared", "clash", BENCH_DISTANCE, SEP | TOUCH, 0, 0, prep_distance_p,
	 query, release},
	{"clash_gjk want intersecting, prepared", "clash", BENCH_VERDICT, SEP | TOUCH | INTER, 0, 0,
	 prep_verdict_p, query, release},
	{"clash_gjk (EPA), prepared", "clash", BENCH_DEPTH, TOUCH | INTER, 0, 0, prep_gjk_p, query,
	 release},
	{"clash_lp_simplex", "clash", BENCH_LP, SEP | TOUCH | INTER, 1, 20000, prep_simplex, query,
	 release},
	{"clash_lp_ipm", "clash", BENCH_LP, SEP | TOUCH | INTER, 0, 20000, prep_ipm, query, release},
	{NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL}};
/* clang-format on */
