/*
 * scan3.c — support scans over a by-coordinate copy of the vertices (see
 * scan3.h).
 *
 * The copy's states decide which scan of lanes.h runs: from the vertex
 * array, making the copy (raw or less v_0) on the way, or from the copy,
 * scoring it raw, less v_0, or turning it into v - v_0 in place.  Each
 * answers "the first vertex of largest score" with each score computed as
 * support.c's scans compute it, so the vertex is the same, bit for bit.
 */
#include <assert.h>

#include "lanes.h"
#include "scan3.h"

int scan3_usable(const support_frame *f)
{
#if defined(LANES_AVX)
	return f->dim == 3 && !f->kind && f->count <= SCAN3_MAX && lanes_have_avx();
#else
	(void)f;
	return 0;
#endif
}

#if defined(LANES_AVX)
size_t scan3_max_dot(scan3 *s, const support_frame *f, const double *e)
{
	if (s->state == SCAN3_RAW)
		return lanes_soa_max_dot_raw(s->x, s->y, s->z, NULL, f->count, e);
	assert(s->state == SCAN3_WANT_RAW);
	s->state = SCAN3_RAW;
	return lanes_soa_max_dot_aos_raw(s->x, s->y, s->z, f->vertices, f->count, e);
}

size_t scan3_max_dot_rel(scan3 *s, const support_frame *f, const double *e)
{
	switch (s->state) {
	case SCAN3_REL:
		return lanes_soa_max_dot_rel(s->x, s->y, s->z, NULL, f->count, e);
	case SCAN3_RAW:
		return lanes_soa_max_dot_raw_rel(s->x, s->y, s->z, NULL, f->count, e);
	case SCAN3_RAW_WANT_REL:
		s->state = SCAN3_REL;
		return lanes_soa_max_dot_to_rel(s->x, s->y, s->z, NULL, f->count, e);
	default:
		assert(s->state == SCAN3_WANT_RAW || s->state == SCAN3_WANT_REL);
		s->state = SCAN3_REL;
		return lanes_soa_max_dot_aos_rel(s->x, s->y, s->z, f->vertices, f->count, e);
	}
}
#else
/* Never called: scan3_usable says no, so no copy is ever wanted. */
size_t scan3_max_dot(scan3 *s, const support_frame *f, const double *e)
{
	(void)s;
	(void)f;
	(void)e;
	assert(0);
	return 0;
}

size_t scan3_max_dot_rel(scan3 *s, const support_frame *f, const double *e)
{
	return scan3_max_dot(s, f, e);
}
#endif
