/*
 * lanes_avx.h — the two steps every AVX support scan of the core takes
 * (internal; support.c's scans over the vertex array, scan3.c's over its
 * by-coordinate copy).  Built for AVX by the callers' target("avx")
 * attribute: the build targets plain x86-64 and the scans are chosen at
 * run time where the processor has AVX.  Keeping them in one place keeps
 * the two scans' arithmetic the same, which is what lets scan3 promise
 * support.c's vertex bit for bit.
 */
#ifndef CLASH_LANES_AVX_H
#define CLASH_LANES_AVX_H

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* Four 3-D vertices at p, lane j vertex j: two 128-bit loads per pair of
 * coordinates, the second into the upper half, give (x0 y0 | x2 y2)
 * (z0 x1 | z2 x3) (y1 z1 | y3 z3); the shuffles of the SSE2 scan, done in
 * both halves, give (x0 x1 | x2 x3), (y0 y1 | y2 y3), (z0 z1 | z2 z3). */
__attribute__((target("avx"), always_inline)) static inline void
avx_load4(const double *p, __m256d *x, __m256d *y, __m256d *z)
{
	__m256d m0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_loadu_pd(p + 6),
	                                  1);
	__m256d m1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p + 2)),
	                                  _mm_loadu_pd(p + 8), 1);
	__m256d m2 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p + 4)),
	                                  _mm_loadu_pd(p + 10), 1);
	*x = _mm256_shuffle_pd(m0, m1, 0xa);
	*y = _mm256_shuffle_pd(m0, m2, 0x5);
	*z = _mm256_shuffle_pd(m1, m2, 0xa);
}

/* One round of the four lanes: the scores (x e0 + y e1) + z e2 (multiplies
 * and adds apart: no FMA in the target, the same bits as the SSE2 and
 * plain scans), each lane keeping the first of its maxima (compare-greater,
 * then a select of the index: branch-free), and the indices moved on by
 * four.  Returns the scores (box_extreme3_avx tests them for NaN). */
__attribute__((target("avx"), always_inline)) static inline __m256d
avx_lanes_step(__m256d x, __m256d y, __m256d z, __m256d e0, __m256d e1, __m256d e2,
               __m256d *best, __m256d *idx, __m256d *cur, __m256d four)
{
	__m256d d = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(x, e0), _mm256_mul_pd(y, e1)),
	                          _mm256_mul_pd(z, e2));
	__m256d up = _mm256_cmp_pd(d, *best, _CMP_GT_OQ);
	*best = _mm256_max_pd(d, *best);
	*idx = _mm256_or_pd(_mm256_and_pd(up, *cur), _mm256_andnot_pd(up, *idx));
	*cur = _mm256_add_pd(*cur, four);
	return d;
}
#endif

#endif
