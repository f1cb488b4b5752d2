/*
 * scan3.c — support scans over a by-coordinate copy of the vertices (see
 * scan3.h).
 *
 * The copy's state decides which scan of lanes.h runs: from the vertex
 * array, making the copy (raw or less v_0) on the way, or from the copy,
 * scoring it raw, less v_0, or turning it into v - v_0 in place.  Each
 * answers "the first vertex of largest score" with each score computed as
 * support.c's scans compute it, so the vertex is the same, bit for bit.
 */
#include <assert.h>

#include "lanes.h"
#include "scan3.h"

/* The first two are also scan3.h's (scan3_start, scan3_filled). */
enum scan3_state {
	SCAN3_EMPTY = 0,    /* the next scan makes the copy (of v_i or v_i - v_0) */
	SCAN3_RAW = 1,      /* a copy of the vertices v_i */
	SCAN3_RAW_WANT_REL, /* that, to be turned into v_i - v_0 by the next relative scan */
	SCAN3_REL           /* a copy of v_i - v_0 (what the relative scan scores) */
};

void scan3_want_rel(scan3 *s)
{
	if (s->state == SCAN3_RAW)
		s->state = SCAN3_RAW_WANT_REL;
}

/* scan3_usable asks for AVX where lanes.h builds its kernels. */
#if defined(SCAN3_AVX) != defined(LANES_AVX)
#error "scan3.h and lanes.h disagree on where the AVX kernels are built"
#endif

/* One scan of the copy: the AVX kernel where lanes.h builds them, else
 * its reference (the same vertex, bit for bit). */
#if defined(LANES_AVX)
#define SCAN(kernel, from, s, v, count, e) kernel((s)->x, (s)->y, (s)->z, v, count, e)
#else
#define SCAN(kernel, from, s, v, count, e) \
	lanes_soa_max_dot_ref((s)->x, (s)->y, (s)->z, v, count, e, from)
#endif

/* A raw scan of a copy turned relative: the vertex array's (never on a
 * query's path: EPA, which turns the copies, is the last to scan). */
static __attribute__((noinline, cold)) size_t array_max_dot(const double *v, size_t count,
                                                            const double *e)
{
	return lanes_max_dot3(v, count, e, 0);
}

size_t scan3_max_dot(scan3 *s, const double *v, size_t count, const double *e)
{
	if (s->state == SCAN3_RAW)
		return SCAN(lanes_soa_max_dot_raw, LANES_SOA_RAW, s, NULL, count, e);
	if (s->state == SCAN3_EMPTY) {
		s->state = SCAN3_RAW;
		return SCAN(lanes_soa_max_dot_aos_raw, LANES_SOA_AOS_RAW, s, v, count, e);
	}
	if (s->state == SCAN3_RAW_WANT_REL)
		return SCAN(lanes_soa_max_dot_raw, LANES_SOA_RAW, s, NULL, count, e);
	assert(s->state == SCAN3_REL);
	return array_max_dot(v, count, e);
}

size_t scan3_max_dot_rel(scan3 *s, const double *v, size_t count, const double *e)
{
	switch (s->state) {
	case SCAN3_REL: return SCAN(lanes_soa_max_dot_rel, LANES_SOA_REL, s, NULL, count, e);
	case SCAN3_RAW:
		return SCAN(lanes_soa_max_dot_raw_rel, LANES_SOA_RAW_REL, s, NULL, count, e);
	case SCAN3_RAW_WANT_REL:
		s->state = SCAN3_REL;
		return SCAN(lanes_soa_max_dot_to_rel, LANES_SOA_TO_REL, s, NULL, count, e);
	default:
		assert(s->state == SCAN3_EMPTY);
		s->state = SCAN3_REL;
		return SCAN(lanes_soa_max_dot_aos_rel, LANES_SOA_AOS_REL, s, v, count, e);
	}
}
