/*
 * scan3.c — support scans over a by-coordinate copy of the vertices (see
 * scan3.h).
 *
 * The scans are those of support.c's AVX path (max_dot3_avx_any), read
 * from three arrays instead of one interleaved one: four lanes, lane j
 * taking the vertices i = j + 1 mod 4 and keeping the first of its maxima
 * (compare-greater, then an and/andnot/or select of the index), the
 * vertices past the last full round going to lane 0, and the lanes merged
 * by value, then by index.  That answer is "the first vertex of largest
 * score", whatever the lanes, and each score is computed as support.c
 * computes it: (x e0 + y e1) + z e2, or with x - x0 etc. for the relative
 * scan, multiplies and adds kept apart (no FMA in the target).  So the
 * vertex is the same, bit for bit.  A copy is made by the first scan that
 * wants it, in the same pass (three stores per four vertices), not by a
 * pass of its own.
 */
#include <assert.h>

#include "scan3.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include "lanes_avx.h"
#define SCAN3_AVX 1
#endif

int scan3_usable(const support_frame *f)
{
#if defined(SCAN3_AVX)
	return f->dim == 3 && !f->kind && f->count <= SCAN3_MAX && __builtin_cpu_supports("avx");
#else
	(void)f;
	return 0;
#endif
}

#if defined(SCAN3_AVX)
/* Where a scan reads the vertices and what it scores. */
enum {
	FROM_RAW,      /* SCAN3_RAW copy; score v.e */
	FROM_RAW_REL,  /* SCAN3_RAW copy; score (v - v_0).e */
	FROM_REL,      /* SCAN3_REL copy; score it as stored */
	TO_REL,        /* SCAN3_RAW copy, turned into SCAN3_REL; score (v - v_0).e */
	AOS_TO_RAW,    /* the vertex array, copied raw; score v.e */
	AOS_TO_REL     /* the vertex array, copied less v_0; score (v - v_0).e */
};

/* One round of scan_any over vertices j .. j+3 (see below for from). */
__attribute__((target("avx"), always_inline)) static inline void
scan_round(scan3 *s, const double *v, size_t j, const int from, const __m256d *o,
           const __m256d *e, __m256d *best, __m256d *idx, __m256d *cur, __m256d four)
{
	const int aos = from == AOS_TO_RAW || from == AOS_TO_REL;
	const int sub = from == FROM_RAW_REL || from == TO_REL || from == AOS_TO_REL;
	const int store = from == TO_REL || aos;
	__m256d x, y, z;
	if (aos) {
		/* Four vertices (x y z) each, transposed as support.c's
		 * scans do it (lanes_avx.h). */
		avx_load4(v + 3 * j, &x, &y, &z);
	} else {
		x = _mm256_loadu_pd(s->x + j);
		y = _mm256_loadu_pd(s->y + j);
		z = _mm256_loadu_pd(s->z + j);
	}
	if (sub) {
		x = _mm256_sub_pd(x, o[0]);
		y = _mm256_sub_pd(y, o[1]);
		z = _mm256_sub_pd(z, o[2]);
	}
	if (store) {
		_mm256_storeu_pd(s->x + j, x);
		_mm256_storeu_pd(s->y + j, y);
		_mm256_storeu_pd(s->z + j, z);
	}
	avx_lanes_step(x, y, z, e[0], e[1], e[2], best, idx, cur, four);
}

/* One scan; from (a constant) as above. */
__attribute__((target("avx"), always_inline)) static inline size_t
scan_any(scan3 *s, const double *v, size_t count, const double *e, const int from)
{
	const int aos = from == AOS_TO_RAW || from == AOS_TO_REL;
	const int rel = from != FROM_RAW && from != AOS_TO_RAW;
	/* Whether x - x0 is formed here (else the copy holds it, or plain). */
	const int sub = from == FROM_RAW_REL || from == TO_REL || from == AOS_TO_REL;
	const int store = from == TO_REL || aos;
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	double x0 = 0.0, y0 = 0.0, z0 = 0.0;
	if (sub) {
		x0 = aos ? v[0] : s->x[0];
		y0 = aos ? v[1] : s->y[0];
		z0 = aos ? v[2] : s->z[0];
	}
	const double vx = aos ? v[0] : s->x[0], vy = aos ? v[1] : s->y[0], vz = aos ? v[2] : s->z[0];
	const double first = rel ? 0.0 : (vx * e0 + vy * e1) + vz * e2;
	if (store) { /* vertex 0 (the scan starts at 1) */
		s->x[0] = vx - x0;
		s->y[0] = vy - y0;
		s->z[0] = vz - z0;
	}
	const __m256d E[3] = {_mm256_set1_pd(e0), _mm256_set1_pd(e1), _mm256_set1_pd(e2)};
	const __m256d O[3] = {_mm256_set1_pd(x0), _mm256_set1_pd(y0), _mm256_set1_pd(z0)};
	__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
	__m256d cur = _mm256_set_pd(4.0, 3.0, 2.0, 1.0);
	const __m256d four = _mm256_set1_pd(4.0);
	size_t i = 1;
	for (; i + 4 <= count; i += 4)
		scan_round(s, v, i, from, O, E, &best, &idx, &cur, four);
	if (i < count && count >= 5 && from != TO_REL) {
		/* The last one to three vertices as one more round of the last
		 * four, which the lanes see again (a vertex seen twice changes
		 * no merged answer: its first sighting already stands in some
		 * lane, with its own index) instead of a scalar tail whose
		 * compare mispredicts.  Not for TO_REL: it rewrites the copy
		 * in place, and the overlap would subtract v_0 twice. */
		const size_t j = count - 4;
		cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1), (double)j);
		scan_round(s, v, j, from, O, E, &best, &idx, &cur, four);
		i = count;
	}
	double b[4], bi[4];
	_mm256_storeu_pd(b, best);
	_mm256_storeu_pd(bi, idx);
	for (; i < count; i++) {
		double x = aos ? v[3 * i] : s->x[i], y = aos ? v[3 * i + 1] : s->y[i],
		       z = aos ? v[3 * i + 2] : s->z[i];
		if (sub) {
			x = x - x0;
			y = y - y0;
			z = z - z0;
		}
		if (store) {
			s->x[i] = x;
			s->y[i] = y;
			s->z[i] = z;
		}
		double d = (x * e0 + y * e1) + z * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	return support_lanes_merge(b, bi);
}

#define SCAN3_ONE(name, from)                                                               \
	__attribute__((target("avx"))) static size_t name(scan3 *s, const double *v,          \
	                                                   size_t count, const double *e)     \
	{                                                                                    \
		return scan_any(s, v, count, e, from);                                        \
	}
SCAN3_ONE(scan_raw, FROM_RAW)
SCAN3_ONE(scan_raw_rel, FROM_RAW_REL)
SCAN3_ONE(scan_rel, FROM_REL)
SCAN3_ONE(scan_to_rel, TO_REL)
SCAN3_ONE(scan_aos_raw, AOS_TO_RAW)
SCAN3_ONE(scan_aos_rel, AOS_TO_REL)
#undef SCAN3_ONE

size_t scan3_max_dot(scan3 *s, const support_frame *f, const double *e)
{
	if (s->state == SCAN3_RAW)
		return scan_raw(s, NULL, f->count, e);
	assert(s->state == SCAN3_WANT_RAW);
	s->state = SCAN3_RAW;
	return scan_aos_raw(s, f->vertices, f->count, e);
}

size_t scan3_max_dot_rel(scan3 *s, const support_frame *f, const double *e)
{
	switch (s->state) {
	case SCAN3_REL:
		return scan_rel(s, NULL, f->count, e);
	case SCAN3_RAW:
		return scan_raw_rel(s, NULL, f->count, e);
	case SCAN3_RAW_WANT_REL:
		s->state = SCAN3_REL;
		return scan_to_rel(s, NULL, f->count, e);
	default:
		assert(s->state == SCAN3_WANT_RAW || s->state == SCAN3_WANT_REL);
		s->state = SCAN3_REL;
		return scan_aos_rel(s, f->vertices, f->count, e);
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
