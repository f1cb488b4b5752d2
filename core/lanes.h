/*
 * lanes.h — every SIMD kernel of the core, each beside its scalar
 * reference (internal).  The algorithms call these by what they compute
 * (the vertex of largest inner product, the box of a vertex array, the
 * planes of four faces, the nearest face, a pivot's row updates) and never
 * touch a register themselves.
 *
 * SSE2 kernels serve every x86-64 build; AVX ones are compiled with the
 * target("avx") attribute and chosen at run time (lanes_have_avx), the
 * build itself targets plain x86-64.  Each kernel does its reference's
 * arithmetic lane by lane, in the same order, multiplies and adds apart
 * (no FMA in either target), so each gives its reference's bits;
 * where the lane layout can decide between -0 and +0 (a box's minimum) or
 * between NaNs, the reference is written in the same layout.  Suite
 * "simd_kernels" holds every pair to that on random and degenerate inputs.
 * Everything is static inline: a kernel compiles into its caller as a loop
 * written there would, and the AVX entry points (static, not inlined into
 * plain callers) are compiled into the units that use them.  Why the lanes
 * are laid out as they are: docs/design.md, "core/lanes.h".
 */
#ifndef CLASH_LANES_H
#define CLASH_LANES_H

#include <math.h>
#include <stddef.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define LANES_AVX 1 /* AVX kernels built, taken where the processor has AVX */
#if !defined(__AVX__)
#define LANES_AVX_DISPATCH 1 /* the vertex-array scans choose at run time */
#endif
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__)
#define LANES_INLINE static inline __attribute__((always_inline))
#else
#define LANES_INLINE static inline
#endif
#if defined(LANES_AVX)
#define LANES_AVX_INLINE static inline __attribute__((target("avx"), always_inline))
#define LANES_AVX_ENTRY static inline __attribute__((target("avx")))
#endif

/* Whether the AVX kernels may run: built, and the processor and the
 * system support AVX (__builtin_cpu_supports reads what libgcc found at
 * start-up). */
LANES_INLINE int lanes_have_avx(void)
{
#if defined(LANES_AVX)
	return __builtin_cpu_supports("avx");
#else
	return 0;
#endif
}

/* Some of the m numbers at v is NaN. */
static inline int lanes_has_nan(const double *v, size_t m)
{
	for (size_t j = 0; j < m; j++)
		if (isnan(v[j]))
			return 1;
	return 0;
}

/* ---- The merge of four lanes of a scan for the first maximum ----------
 * Lane l holds its largest score b[l] and the lowest index bi[l] among its
 * equal maxima; the answer is the largest score and, among equals (under
 * ==: -0 and +0 alike), the lowest index, so that any lane layout gives a
 * plain scan's first maximum. */
LANES_INLINE size_t lanes_merge4_ref(const double *b, const double *bi)
{
	double bv = b[0], bx = bi[0];
	for (int l = 1; l < 4; l++)
		if (b[l] > bv || (b[l] == bv && bi[l] < bx)) {
			bv = b[l];
			bx = bi[l];
		}
	return (size_t)bx;
}

/* Packed, without a branch per lane: the largest score m, then the least
 * index among the lanes whose score == m.  Scores are NaN only all
 * together (a NaN first score; a lane never takes a NaN later), and any
 * NaN goes to the reference. */
LANES_INLINE size_t lanes_merge4(const double *b, const double *bi)
{
#if defined(__SSE2__)
	const __m128d b01 = _mm_loadu_pd(b), b23 = _mm_loadu_pd(b + 2);
	if (!_mm_movemask_pd(_mm_cmpunord_pd(b01, b23))) {
		__m128d m = _mm_max_pd(b01, b23);
		m = _mm_max_pd(m, _mm_shuffle_pd(m, m, 1));
		const __m128d none = _mm_set1_pd(INFINITY);
		const __m128d e01 = _mm_cmpeq_pd(b01, m), e23 = _mm_cmpeq_pd(b23, m);
		const __m128d j01 =
			_mm_or_pd(_mm_and_pd(e01, _mm_loadu_pd(bi)), _mm_andnot_pd(e01, none));
		const __m128d j23 =
			_mm_or_pd(_mm_and_pd(e23, _mm_loadu_pd(bi + 2)), _mm_andnot_pd(e23, none));
		__m128d j = _mm_min_pd(j01, j23);
		j = _mm_min_pd(j, _mm_shuffle_pd(j, j, 1));
		return (size_t)_mm_cvtsd_f64(j);
	}
#endif
	return lanes_merge4_ref(b, bi);
}

/* ---- The vertex of largest inner product, 3-D, x y z interleaved ------
 * The first vertex of largest (x e0 + y e1) + z e2, or with rel of
 * ((x - x0) e0 + (y - y0) e1) + (z - z0) e2 (vertex 0 scoring 0 exactly):
 * the reference is the plain loop.  The kernels keep four interleaved
 * lanes, each its own running maximum and the first of its equals, merged
 * by lanes_merge4: the same vertex, whatever the layout (a score NaN is
 * never taken, as the loop's compare never takes it). */
LANES_INLINE size_t lanes_max_dot3_ref(const double *v, size_t count, const double *e,
                                       const int rel)
{
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	double bv = rel ? 0.0 : (v[0] * e[0] + v[1] * e[1]) + v[2] * e[2];
	size_t best = 0;
	for (size_t i = 1; i < count; i++) {
		const double *p = v + 3 * i;
		const double d = ((p[0] - x0) * e[0] + (p[1] - y0) * e[1]) + (p[2] - z0) * e[2];
		if (d > bv) {
			bv = d;
			best = i;
		}
	}
	return best;
}

/* The end of a four-lane scan: vertices i .. count-1 go to lane 0, which
 * holds the lowest indices so far among its equals (theirs are larger than
 * all); then the lanes merge. */
LANES_INLINE size_t lanes_max_dot3_finish(const double *v, size_t i, size_t count, const double *e,
                                          double x0, double y0, double z0, double *b, double *bi)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		double d = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	return lanes_merge4(b, bi);
}

/* Two vertices to an SSE2 register (plain C in four scalar lanes
 * elsewhere): lane j takes the vertices i = j + 1 mod 4.  Branch-free:
 * which vertex wins is data, not control (a mispredicted branch per new
 * maximum costs more than the inner products of a small polytope).  Below
 * 8 vertices a single branch-free lane: the lanes would not pay for their
 * merge. */
static inline size_t lanes_max_dot3_sse2(const double *v, size_t count, const double *e,
                                         const int rel)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	if (count < 8) {
		double bv = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
		size_t bi = 0;
		for (size_t i = 1; i < count; i++) {
			const double *p = v + 3 * i;
			double d = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
			bi ^= (bi ^ i) & -(size_t)(d > bv);
			bv = d > bv ? d : bv;
		}
		return bi;
	}
	double b[4], bi[4];
	size_t i = 1;
	b[0] = b[1] = b[2] = b[3] = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
	bi[0] = bi[1] = bi[2] = bi[3] = 0.0; /* indices, exact as doubles below 2^53 */
#if defined(__SSE2__)
	{
		const __m128d E0 = _mm_set1_pd(e0), E1 = _mm_set1_pd(e1), E2 = _mm_set1_pd(e2);
		const __m128d X0 = _mm_set1_pd(x0), Y0 = _mm_set1_pd(y0), Z0 = _mm_set1_pd(z0);
		__m128d best0 = _mm_set1_pd(b[0]), best1 = best0;
		__m128d idx0 = _mm_setzero_pd(), idx1 = idx0;
		__m128d cur0 = _mm_set_pd(2.0, 1.0), cur1 = _mm_set_pd(4.0, 3.0);
		const __m128d four = _mm_set1_pd(4.0);
		for (; i + 4 <= count; i += 4) {
			/* Two vertices' coordinates transposed into (x0 x1)
			 * (y0 y1) (z0 z1). */
			const double *p = v + 3 * i;
			__m128d a0 = _mm_loadu_pd(p), b0 = _mm_loadu_pd(p + 2),
				c0 = _mm_loadu_pd(p + 4);
			__m128d a1 = _mm_loadu_pd(p + 6), b1 = _mm_loadu_pd(p + 8),
				c1 = _mm_loadu_pd(p + 10);
			__m128d px = _mm_shuffle_pd(a0, b0, 2), py = _mm_shuffle_pd(a0, c0, 1);
			__m128d pz = _mm_shuffle_pd(b0, c0, 2);
			__m128d qx = _mm_shuffle_pd(a1, b1, 2), qy = _mm_shuffle_pd(a1, c1, 1);
			__m128d qz = _mm_shuffle_pd(b1, c1, 2);
			if (rel) {
				px = _mm_sub_pd(px, X0);
				py = _mm_sub_pd(py, Y0);
				pz = _mm_sub_pd(pz, Z0);
				qx = _mm_sub_pd(qx, X0);
				qy = _mm_sub_pd(qy, Y0);
				qz = _mm_sub_pd(qz, Z0);
			}
			__m128d d0 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(px, E0), _mm_mul_pd(py, E1)),
			                        _mm_mul_pd(pz, E2));
			__m128d d1 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(qx, E0), _mm_mul_pd(qy, E1)),
			                        _mm_mul_pd(qz, E2));
			__m128d m0 = _mm_cmpgt_pd(d0, best0), m1 = _mm_cmpgt_pd(d1, best1);
			best0 = _mm_max_pd(d0, best0);
			best1 = _mm_max_pd(d1, best1);
			idx0 = _mm_or_pd(_mm_and_pd(m0, cur0), _mm_andnot_pd(m0, idx0));
			idx1 = _mm_or_pd(_mm_and_pd(m1, cur1), _mm_andnot_pd(m1, idx1));
			cur0 = _mm_add_pd(cur0, four);
			cur1 = _mm_add_pd(cur1, four);
		}
		_mm_storeu_pd(b, best0);
		_mm_storeu_pd(b + 2, best1);
		_mm_storeu_pd(bi, idx0);
		_mm_storeu_pd(bi + 2, idx1);
	}
#else
	{
		size_t j0 = 0, j1 = 0, j2 = 0, j3 = 0;
		double c0 = b[0], c1 = b[0], c2 = b[0], c3 = b[0];
		for (; i + 4 <= count; i += 4) {
			const double *p = v + 3 * i;
			double d0 = ((p[0] - x0) * e0 + (p[1] - y0) * e1) + (p[2] - z0) * e2;
			double d1 = ((p[3] - x0) * e0 + (p[4] - y0) * e1) + (p[5] - z0) * e2;
			double d2 = ((p[6] - x0) * e0 + (p[7] - y0) * e1) + (p[8] - z0) * e2;
			double d3 = ((p[9] - x0) * e0 + (p[10] - y0) * e1) + (p[11] - z0) * e2;
			j0 ^= (j0 ^ i) & -(size_t)(d0 > c0);
			c0 = d0 > c0 ? d0 : c0;
			j1 ^= (j1 ^ (i + 1)) & -(size_t)(d1 > c1);
			c1 = d1 > c1 ? d1 : c1;
			j2 ^= (j2 ^ (i + 2)) & -(size_t)(d2 > c2);
			c2 = d2 > c2 ? d2 : c2;
			j3 ^= (j3 ^ (i + 3)) & -(size_t)(d3 > c3);
			c3 = d3 > c3 ? d3 : c3;
		}
		b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
		bi[0] = (double)j0, bi[1] = (double)j1, bi[2] = (double)j2, bi[3] = (double)j3;
	}
#endif
	return lanes_max_dot3_finish(v, i, count, e, x0, y0, z0, b, bi);
}

#if defined(LANES_AVX)
/* Four 3-D vertices at p, lane j vertex j: two 128-bit loads per pair of
 * coordinates, the second into the upper half, give (x0 y0 | x2 y2)
 * (z0 x1 | z2 x3) (y1 z1 | y3 z3); the shuffles of the SSE2 scan, done in
 * both halves, give (x0 x1 | x2 x3), (y0 y1 | y2 y3), (z0 z1 | z2 z3). */
LANES_AVX_INLINE void lanes_avx_load4(const double *p, __m256d *x, __m256d *y, __m256d *z)
{
	__m256d m0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)),
	                                  _mm_loadu_pd(p + 6), 1);
	__m256d m1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p + 2)),
	                                  _mm_loadu_pd(p + 8), 1);
	__m256d m2 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p + 4)),
	                                  _mm_loadu_pd(p + 10), 1);
	*x = _mm256_shuffle_pd(m0, m1, 0xa);
	*y = _mm256_shuffle_pd(m0, m2, 0x5);
	*z = _mm256_shuffle_pd(m1, m2, 0xa);
}

/* One round of the four lanes: the scores (x e0 + y e1) + z e2, each lane
 * keeping the first of its maxima (compare-greater, then an
 * and/andnot/or select of the index: GCC 12 turns _mm256_blendv_pd into a
 * branch per lane), and the indices moved on by four.  Returns the
 * scores. */
LANES_AVX_INLINE __m256d lanes_avx_step(__m256d x, __m256d y, __m256d z, __m256d e0, __m256d e1,
                                        __m256d e2, __m256d *best, __m256d *idx, __m256d *cur,
                                        __m256d four)
{
	__m256d d = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(x, e0), _mm256_mul_pd(y, e1)),
	                          _mm256_mul_pd(z, e2));
	__m256d up = _mm256_cmp_pd(d, *best, _CMP_GT_OQ);
	*best = _mm256_max_pd(d, *best);
	*idx = _mm256_or_pd(_mm256_and_pd(up, *cur), _mm256_andnot_pd(up, *idx));
	*cur = _mm256_add_pd(*cur, four);
	return d;
}

/* One round of lanes_max_dot3_avx_any: vertices p[0..3], less o when rel. */
LANES_AVX_INLINE void lanes_max_dot3_round(const double *p, const int rel, const __m256d *o,
                                           const __m256d *e, __m256d *best, __m256d *idx,
                                           __m256d *cur, __m256d four)
{
	__m256d x, y, z;
	lanes_avx_load4(p, &x, &y, &z);
	if (rel) {
		x = _mm256_sub_pd(x, o[0]);
		y = _mm256_sub_pd(y, o[1]);
		z = _mm256_sub_pd(z, o[2]);
	}
	lanes_avx_step(x, y, z, e[0], e[1], e[2], best, idx, cur, four);
}

/* lanes_max_dot3_sse2's lanes as one AVX register, lane j vertex i + j
 * (count >= 8).  The one to three vertices past the last round are one
 * more round over the last four, which the lanes see again (a vertex seen
 * twice changes no merged answer: its first sighting already stands in
 * some lane with its own index), not a scalar tail whose compare
 * mispredicts. */
LANES_AVX_INLINE size_t lanes_max_dot3_avx_any(const double *v, size_t count, const double *e,
                                               const int rel)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	const double x0 = rel ? v[0] : 0.0, y0 = rel ? v[1] : 0.0, z0 = rel ? v[2] : 0.0;
	double b[4], bi[4];
	size_t i = 1;
	const double first = rel ? 0.0 : (v[0] * e0 + v[1] * e1) + v[2] * e2;
	{
		const __m256d E[3] = {_mm256_set1_pd(e0), _mm256_set1_pd(e1), _mm256_set1_pd(e2)};
		const __m256d O[3] = {_mm256_set1_pd(x0), _mm256_set1_pd(y0), _mm256_set1_pd(z0)};
		__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
		__m256d cur = _mm256_set_pd(4.0, 3.0, 2.0, 1.0);
		const __m256d four = _mm256_set1_pd(4.0);
		for (; i + 4 <= count; i += 4)
			lanes_max_dot3_round(v + 3 * i, rel, O, E, &best, &idx, &cur, four);
		if (i < count) {
			const size_t j = count - 4;
			cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1),
			                    (double)j);
			lanes_max_dot3_round(v + 3 * j, rel, O, E, &best, &idx, &cur, four);
			i = count;
		}
		_mm256_storeu_pd(b, best);
		_mm256_storeu_pd(bi, idx);
	}
	return lanes_max_dot3_finish(v, i, count, e, x0, y0, z0, b, bi);
}

/* One copy for each rel, each without the test in its loop. */
LANES_AVX_ENTRY size_t lanes_max_dot3_avx(const double *v, size_t count, const double *e)
{
	return lanes_max_dot3_avx_any(v, count, e, 0);
}

LANES_AVX_ENTRY size_t lanes_max_dot3_avx_rel(const double *v, size_t count, const double *e)
{
	return lanes_max_dot3_avx_any(v, count, e, 1);
}
#endif

/* The vertex of largest inner product (rel: of v - v_0) by the widest
 * kernel the processor runs. */
LANES_INLINE size_t lanes_max_dot3(const double *v, size_t count, const double *e, const int rel)
{
#if defined(LANES_AVX_DISPATCH)
	if (count >= 8 && lanes_have_avx())
		return rel ? lanes_max_dot3_avx_rel(v, count, e) : lanes_max_dot3_avx(v, count, e);
#endif
	return lanes_max_dot3_sse2(v, count, e, rel);
}

/* ---- The box of a 3-D vertex array (and its vertex of largest v.e) ----
 * lo and hi, by x < lo ? x : lo and x > hi ? x : hi from vertex 0 on, and
 * whether some coordinate is NaN.  The kernels split the vertices among
 * lanes, each starting from vertex 0, merged as below; the references
 * take the same lanes, as a lane that saw -0 and +0 in another order could
 * keep the other zero.  The vertex of largest v.e comes with them,
 * lanes_max_dot3_ref's. */

/* x into a running minimum and maximum. */
LANES_INLINE void lanes_minmax_ref(double x, double *l, double *h)
{
	*l = x < *l ? x : *l;
	*h = x > *h ? x : *h;
}

/* The box by two lanes per coordinate, SSE2's layout: a pair of vertices
 * loaded as (x0 y0) (z0 x1) (y1 z1), so for each coordinate an even lane
 * (vertices 0, 2, 4 ...) and an odd one, merged odd-first on ties
 * (e < o ? e : o), then the vertices past the last pair in order. */
LANES_INLINE int lanes_box3_ref2(const double *v, size_t count, double *lo, double *hi)
{
	double el[3], eh[3], ol[3], oh[3];
	for (int k = 0; k < 3; k++)
		el[k] = eh[k] = ol[k] = oh[k] = v[k];
	size_t i = 0;
	for (; i + 2 <= count; i += 2)
		for (int k = 0; k < 3; k++) {
			lanes_minmax_ref(v[3 * i + k], &el[k], &eh[k]);
			lanes_minmax_ref(v[3 * i + 3 + k], &ol[k], &oh[k]);
		}
	for (int k = 0; k < 3; k++) {
		lo[k] = el[k] < ol[k] ? el[k] : ol[k];
		hi[k] = eh[k] > oh[k] ? eh[k] : oh[k];
	}
	for (; i < count; i++)
		for (int k = 0; k < 3; k++)
			lanes_minmax_ref(v[3 * i + k], &lo[k], &hi[k]);
	return lanes_has_nan(v, 3 * count);
}

/* The box by four lanes per coordinate, AVX's layout: lane j takes the
 * vertices j mod 4 of the full rounds, lanes merged as (0 1) (2 3), each
 * pair odd-first on ties, then the pairs (2 3)-first; then the rest in
 * order. */
LANES_INLINE int lanes_box3_ref4(const double *v, size_t count, double *lo, double *hi)
{
	double l[4][3], h[4][3];
	for (int j = 0; j < 4; j++)
		for (int k = 0; k < 3; k++)
			l[j][k] = h[j][k] = v[k];
	size_t i = 0;
	for (; i + 4 <= count; i += 4)
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 3; k++)
				lanes_minmax_ref(v[3 * (i + j) + k], &l[j][k], &h[j][k]);
	for (int k = 0; k < 3; k++) {
		const double l01 = l[1][k] < l[0][k] ? l[1][k] : l[0][k];
		const double l23 = l[3][k] < l[2][k] ? l[3][k] : l[2][k];
		const double h01 = h[1][k] > h[0][k] ? h[1][k] : h[0][k];
		const double h23 = h[3][k] > h[2][k] ? h[3][k] : h[2][k];
		lo[k] = l23 < l01 ? l23 : l01;
		hi[k] = h23 > h01 ? h23 : h01;
	}
	for (; i < count; i++)
		for (int k = 0; k < 3; k++)
			lanes_minmax_ref(v[3 * i + k], &lo[k], &hi[k]);
	return lanes_has_nan(v, 3 * count);
}

#if defined(__SSE2__)
/* The running box of a 3-D scan two vertices at a time: the minima and
 * maxima of the lanes (x y) (z x) (y z) of each pair, and the NaN test's
 * sum of coordinates times 0.  Inlined, it lives in registers. */
typedef struct lanes_box2 {
	__m128d l[3], h[3], sum;
} lanes_box2;

LANES_INLINE void lanes_box2_start(lanes_box2 *bl, const double *v)
{
	bl->l[0] = bl->h[0] = _mm_loadu_pd(v);
	bl->l[1] = bl->h[1] = _mm_set_pd(v[0], v[2]);
	bl->l[2] = bl->h[2] = _mm_loadu_pd(v + 1);
	bl->sum = _mm_setzero_pd();
}

/* The pair of vertices loaded as x = (x0 y0), y = (z0 x1), z = (y1 z1). */
LANES_INLINE void lanes_box2_add(lanes_box2 *bl, __m128d x, __m128d y, __m128d z)
{
	bl->l[0] = _mm_min_pd(x, bl->l[0]);
	bl->l[1] = _mm_min_pd(y, bl->l[1]);
	bl->l[2] = _mm_min_pd(z, bl->l[2]);
	bl->h[0] = _mm_max_pd(x, bl->h[0]);
	bl->h[1] = _mm_max_pd(y, bl->h[1]);
	bl->h[2] = _mm_max_pd(z, bl->h[2]);
	bl->sum =
		_mm_add_pd(bl->sum, _mm_mul_pd(_mm_add_pd(_mm_add_pd(x, y), z), _mm_setzero_pd()));
}

/* The lanes merged into lo[3] and hi[3]; returns the NaN test's sum. */
LANES_INLINE double lanes_box2_end(const lanes_box2 *bl, double *lo, double *hi)
{
	double a[2], b[2], c[2];
	_mm_storeu_pd(a, bl->l[0]);
	_mm_storeu_pd(b, bl->l[1]);
	_mm_storeu_pd(c, bl->l[2]);
	lo[0] = a[0] < b[1] ? a[0] : b[1];
	lo[1] = a[1] < c[0] ? a[1] : c[0];
	lo[2] = b[0] < c[1] ? b[0] : c[1];
	_mm_storeu_pd(a, bl->h[0]);
	_mm_storeu_pd(b, bl->h[1]);
	_mm_storeu_pd(c, bl->h[2]);
	hi[0] = a[0] > b[1] ? a[0] : b[1];
	hi[1] = a[1] > c[0] ? a[1] : c[0];
	hi[2] = b[0] > c[1] ? b[0] : c[1];
	_mm_storeu_pd(a, bl->sum);
	return a[0] + a[1];
}
#endif

/* The vertices past the last pair of the two-lane box, in order, and the
 * running NaN sum. */
LANES_INLINE void lanes_box3_tail(const double *v, size_t i, size_t count, double *l, double *h,
                                  double *bad)
{
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		for (int k = 0; k < 3; k++) {
			double x = p[k];
			l[k] = x < l[k] ? x : l[k];
			h[k] = x > h[k] ? x : h[k];
			*bad += x * 0.0;
		}
	}
}

/* lanes_box3_ref2 two vertices to a register.  NaN through the running sum
 * of coordinates times 0 (0 for every finite coordinate); the packed sum
 * adds the coordinates before the product with 0, which can overflow for
 * huge finite ones: a NaN there is only a suspicion, which lanes_has_nan
 * settles. */
LANES_INLINE int lanes_box3(const double *v, size_t count, double *lo, double *hi)
{
	size_t i = 0;
	double l[3] = {v[0], v[1], v[2]}, h[3] = {v[0], v[1], v[2]}, bad = 0.0;
#if defined(__SSE2__)
	lanes_box2 bl;
	lanes_box2_start(&bl, v);
	for (; i + 2 <= count; i += 2) {
		const double *p = v + 3 * i;
		__m128d x = _mm_loadu_pd(p), y = _mm_loadu_pd(p + 2), z = _mm_loadu_pd(p + 4);
		lanes_box2_add(&bl, x, y, z);
	}
	bad = lanes_box2_end(&bl, l, h);
#endif
	lanes_box3_tail(v, i, count, l, h, &bad);
	for (int k = 0; k < 3; k++) {
		lo[k] = l[k];
		hi[k] = h[k];
	}
	return bad != 0.0 && lanes_has_nan(v, 3 * count);
}

/* lanes_box3 and, in the same pass, the first vertex of largest v.e
 * (*extreme), SSE2's two lanes: even vertices and the tail in lane 0, odd
 * ones in lane 1. */
LANES_INLINE int lanes_box_max_dot3_sse2(const double *v, size_t count, const double *e, double *lo,
                                         double *hi, size_t *extreme)
{
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	double l[3] = {v[0], v[1], v[2]}, h[3] = {v[0], v[1], v[2]}, bad = 0.0;
	double b[2], bi[2];
	b[0] = b[1] = (v[0] * e0 + v[1] * e1) + v[2] * e2;
	bi[0] = bi[1] = 0.0;
	size_t i = 0;
#if defined(__SSE2__)
	{
		lanes_box2 bl;
		lanes_box2_start(&bl, v);
		const __m128d E0 = _mm_set1_pd(e0), E1 = _mm_set1_pd(e1), E2 = _mm_set1_pd(e2);
		const __m128d two = _mm_set1_pd(2.0);
		__m128d best = _mm_set1_pd(b[0]), idx = _mm_setzero_pd(),
			cur = _mm_set_pd(1.0, 0.0);
		for (; i + 2 <= count; i += 2) {
			const double *p = v + 3 * i;
			__m128d x = _mm_loadu_pd(p), y = _mm_loadu_pd(p + 2),
				z = _mm_loadu_pd(p + 4);
			lanes_box2_add(&bl, x, y, z);
			__m128d X = _mm_shuffle_pd(x, y, 2), Y = _mm_shuffle_pd(x, z, 1);
			__m128d Z = _mm_shuffle_pd(y, z, 2);
			__m128d d = _mm_add_pd(_mm_add_pd(_mm_mul_pd(X, E0), _mm_mul_pd(Y, E1)),
			                       _mm_mul_pd(Z, E2));
			__m128d m = _mm_cmpgt_pd(d, best);
			best = _mm_max_pd(d, best);
			idx = _mm_or_pd(_mm_and_pd(m, cur), _mm_andnot_pd(m, idx));
			cur = _mm_add_pd(cur, two);
		}
		bad = lanes_box2_end(&bl, l, h);
		_mm_storeu_pd(b, best);
		_mm_storeu_pd(bi, idx);
	}
#endif
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		for (int k = 0; k < 3; k++) {
			double x = p[k];
			l[k] = x < l[k] ? x : l[k];
			h[k] = x > h[k] ? x : h[k];
			bad += x * 0.0;
		}
		double d = (p[0] * e0 + p[1] * e1) + p[2] * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	for (int k = 0; k < 3; k++) {
		lo[k] = l[k];
		hi[k] = h[k];
	}
	*extreme = (size_t)(b[1] > b[0] || (b[1] == b[0] && bi[1] < bi[0]) ? bi[1] : bi[0]);
	return bad != 0.0 && lanes_has_nan(v, 3 * count);
}

#if defined(LANES_AVX)
/* The least of four lanes, the first of equals (-0 and +0 tie) as a loop
 * over lanes 0 to 3 keeping its minimum unless one is smaller takes it:
 * lanes paired (0 1) (2 3), then the pairs' minima. */
LANES_AVX_INLINE double lanes_avx_min(__m256d a)
{
	const __m256d t = _mm256_min_pd(_mm256_permute_pd(a, 0x5), a); /* a1 < a0 ? a1 : a0 */
	return _mm_cvtsd_f64(_mm_min_sd(_mm256_extractf128_pd(t, 1), _mm256_castpd256_pd128(t)));
}

/* The greatest, the same way. */
LANES_AVX_INLINE double lanes_avx_max(__m256d a)
{
	const __m256d t = _mm256_max_pd(_mm256_permute_pd(a, 0x5), a);
	return _mm_cvtsd_f64(_mm_max_sd(_mm256_extractf128_pd(t, 1), _mm256_castpd256_pd128(t)));
}

/* lanes_box_max_dot3_sse2 four vertices wide (count >= 8): the box is
 * lanes_box3_ref4's, the NaN test the inner product's unordered compare
 * (confirmed by lanes_has_nan).  store: also the by-coordinate copy of the
 * vertices into cx, cy, cz. */
LANES_AVX_INLINE int lanes_box_max_dot3_avx_any(const double *v, size_t count, const double *e,
                                                double *lo, double *hi, size_t *extreme, double *cx,
                                                double *cy, double *cz, const int store)
{
	if (store) { /* vertex 0 */
		cx[0] = v[0];
		cy[0] = v[1];
		cz[0] = v[2];
	}
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	const double first = (v[0] * e0 + v[1] * e1) + v[2] * e2;
	double b[4], bi[4];
	int isbad;
	size_t i = 0;
	{
		const __m256d E0 = _mm256_set1_pd(e0), E1 = _mm256_set1_pd(e1),
			      E2 = _mm256_set1_pd(e2);
		__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
		__m256d cur = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
		const __m256d four = _mm256_set1_pd(4.0);
		__m256d lx = _mm256_set1_pd(v[0]), ly = _mm256_set1_pd(v[1]),
			lz = _mm256_set1_pd(v[2]);
		__m256d hx = lx, hy = ly, hz = lz, nan = _mm256_setzero_pd();
		for (; i + 4 <= count; i += 4) {
			const double *p = v + 3 * i;
			__m256d x, y, z;
			lanes_avx_load4(p, &x, &y, &z);
			if (store) {
				_mm256_storeu_pd(cx + i, x);
				_mm256_storeu_pd(cy + i, y);
				_mm256_storeu_pd(cz + i, z);
			}
			lx = _mm256_min_pd(x, lx);
			ly = _mm256_min_pd(y, ly);
			lz = _mm256_min_pd(z, lz);
			hx = _mm256_max_pd(x, hx);
			hy = _mm256_max_pd(y, hy);
			hz = _mm256_max_pd(z, hz);
			const __m256d d =
				lanes_avx_step(x, y, z, E0, E1, E2, &best, &idx, &cur, four);
			/* A NaN coordinate makes d NaN whatever e is, so d alone
			 * is the fast test (it also fires on inf * 0 and inf - inf,
			 * which the exact test then clears). */
			nan = _mm256_or_pd(nan, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
		}
		if (i < count) {
			/* The extreme among the one to three vertices past the
			 * last round: one more round over the last four (as in
			 * lanes_max_dot3_avx_any).  Their box and copy below,
			 * vertex by vertex. */
			const size_t j = count - 4;
			__m256d x, y, z;
			lanes_avx_load4(v + 3 * j, &x, &y, &z);
			cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1),
			                    (double)j);
			lanes_avx_step(x, y, z, E0, E1, E2, &best, &idx, &cur, four);
		}
		_mm256_storeu_pd(b, best);
		_mm256_storeu_pd(bi, idx);
		lo[0] = lanes_avx_min(lx);
		lo[1] = lanes_avx_min(ly);
		lo[2] = lanes_avx_min(lz);
		hi[0] = lanes_avx_max(hx);
		hi[1] = lanes_avx_max(hy);
		hi[2] = lanes_avx_max(hz);
		isbad = _mm256_movemask_pd(nan) != 0;
	}
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		if (store) {
			cx[i] = p[0];
			cy[i] = p[1];
			cz[i] = p[2];
		}
		for (int k = 0; k < 3; k++) {
			double x = p[k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
			isbad |= isnan(x);
		}
	}
	*extreme = lanes_merge4(b, bi);
	return isbad && lanes_has_nan(v, 3 * count); /* the fast test can fire on inf */
}

LANES_AVX_ENTRY int lanes_box_max_dot3_avx(const double *v, size_t count, const double *e,
                                           double *lo, double *hi, size_t *extreme)
{
	return lanes_box_max_dot3_avx_any(v, count, e, lo, hi, extreme, NULL, NULL, NULL, 0);
}

LANES_AVX_ENTRY int lanes_box_max_dot3_avx_copy(const double *v, size_t count, const double *e,
                                                double *lo, double *hi, size_t *extreme, double *cx,
                                                double *cy, double *cz)
{
	return lanes_box_max_dot3_avx_any(v, count, e, lo, hi, extreme, cx, cy, cz, 1);
}
#endif

/* Whether lanes_box_max_dot3 takes the AVX kernel, the one that can make
 * the by-coordinate copy on the way. */
LANES_INLINE int lanes_box_max_dot3_copies(size_t count)
{
#if defined(LANES_AVX_DISPATCH)
	return count >= 8 && lanes_have_avx();
#else
	(void)count;
	return 0;
#endif
}

/* The box, the NaN test and the first vertex of largest v.e in one pass;
 * cx (or NULL, with cy and cz), where lanes_box_max_dot3_copies(count),
 * receives the vertices by coordinate. */
LANES_INLINE int lanes_box_max_dot3(const double *v, size_t count, const double *e, double *lo,
                                    double *hi, size_t *extreme, double *cx, double *cy, double *cz)
{
#if defined(LANES_AVX_DISPATCH)
	if (lanes_box_max_dot3_copies(count)) {
		if (cx)
			return lanes_box_max_dot3_avx_copy(v, count, e, lo, hi, extreme, cx, cy,
			                                   cz);
		return lanes_box_max_dot3_avx(v, count, e, lo, hi, extreme);
	}
#endif
	(void)cx;
	(void)cy;
	(void)cz;
	return lanes_box_max_dot3_sse2(v, count, e, lo, hi, extreme);
}

/* ---- The vertex of largest inner product over a by-coordinate copy ----
 * x[i], y[i], z[i] hold vertex i (or v_i - v_0).  One scan reads the
 * copy, or the vertex array v (x y z interleaved) and writes the copy on
 * the way; it scores v.e or (v - v_0).e: */
enum lanes_soa_from {
	LANES_SOA_RAW,     /* the copy of v_i; score v.e */
	LANES_SOA_RAW_REL, /* the copy of v_i; score (v - v_0).e */
	LANES_SOA_REL,     /* the copy of v_i - v_0; score it as stored */
	LANES_SOA_TO_REL,  /* the copy of v_i, turned into v_i - v_0; score that */
	LANES_SOA_AOS_RAW, /* the array, copied as v_i; score v.e */
	LANES_SOA_AOS_REL  /* the array, copied as v_i - v_0; score that */
};

/* The reference: what the copy holds after the scan, and the plain loop's
 * first maximum of (x e0 + y e1) + z e2 over what it scores (vertex 0
 * scoring 0 exactly when relative). */
static inline size_t lanes_soa_max_dot_ref(double *cx, double *cy, double *cz, const double *v,
                                           size_t count, const double *e, int from)
{
	const int aos = from == LANES_SOA_AOS_RAW || from == LANES_SOA_AOS_REL;
	const int rel = from != LANES_SOA_RAW && from != LANES_SOA_AOS_RAW;
	const int sub =
		from == LANES_SOA_RAW_REL || from == LANES_SOA_TO_REL || from == LANES_SOA_AOS_REL;
	const int store = from == LANES_SOA_TO_REL || aos;
	const double x0 = sub ? (aos ? v[0] : cx[0]) : 0.0, y0 = sub ? (aos ? v[1] : cy[0]) : 0.0,
		     z0 = sub ? (aos ? v[2] : cz[0]) : 0.0;
	double bv = 0.0;
	size_t best = 0;
	for (size_t i = 0; i < count; i++) {
		double x = aos ? v[3 * i] : cx[i], y = aos ? v[3 * i + 1] : cy[i],
		       z = aos ? v[3 * i + 2] : cz[i];
		if (sub) {
			x = x - x0;
			y = y - y0;
			z = z - z0;
		}
		if (store) {
			cx[i] = x;
			cy[i] = y;
			cz[i] = z;
		}
		const double d = (x * e[0] + y * e[1]) + z * e[2];
		if (i == 0)
			bv = rel ? 0.0 : d;
		else if (d > bv) {
			bv = d;
			best = i;
		}
	}
	return best;
}

#if defined(LANES_AVX)
/* One round of lanes_soa_max_dot_any over vertices j .. j+3. */
LANES_AVX_INLINE void lanes_soa_round(double *cx, double *cy, double *cz, const double *v, size_t j,
                                      const int from, const __m256d *o, const __m256d *e,
                                      __m256d *best, __m256d *idx, __m256d *cur, __m256d four)
{
	const int aos = from == LANES_SOA_AOS_RAW || from == LANES_SOA_AOS_REL;
	const int sub =
		from == LANES_SOA_RAW_REL || from == LANES_SOA_TO_REL || from == LANES_SOA_AOS_REL;
	const int store = from == LANES_SOA_TO_REL || aos;
	__m256d x, y, z;
	if (aos) {
		lanes_avx_load4(v + 3 * j, &x, &y, &z);
	} else {
		x = _mm256_loadu_pd(cx + j);
		y = _mm256_loadu_pd(cy + j);
		z = _mm256_loadu_pd(cz + j);
	}
	if (sub) {
		x = _mm256_sub_pd(x, o[0]);
		y = _mm256_sub_pd(y, o[1]);
		z = _mm256_sub_pd(z, o[2]);
	}
	if (store) {
		_mm256_storeu_pd(cx + j, x);
		_mm256_storeu_pd(cy + j, y);
		_mm256_storeu_pd(cz + j, z);
	}
	lanes_avx_step(x, y, z, e[0], e[1], e[2], best, idx, cur, four);
}

/* The reference's scan in lanes_max_dot3_avx_any's lanes, four vertices
 * to a load; from (a constant) as above.  A copy is written in the same
 * pass (three stores per four vertices).  The last one to three vertices
 * are one more round over the last four, except for TO_REL, which
 * rewrites the copy in place: the overlap would subtract v_0 twice. */
LANES_AVX_INLINE size_t lanes_soa_max_dot_any(double *cx, double *cy, double *cz, const double *v,
                                              size_t count, const double *e, const int from)
{
	const int aos = from == LANES_SOA_AOS_RAW || from == LANES_SOA_AOS_REL;
	const int rel = from != LANES_SOA_RAW && from != LANES_SOA_AOS_RAW;
	const int sub =
		from == LANES_SOA_RAW_REL || from == LANES_SOA_TO_REL || from == LANES_SOA_AOS_REL;
	const int store = from == LANES_SOA_TO_REL || aos;
	const double e0 = e[0], e1 = e[1], e2 = e[2];
	double x0 = 0.0, y0 = 0.0, z0 = 0.0;
	if (sub) {
		x0 = aos ? v[0] : cx[0];
		y0 = aos ? v[1] : cy[0];
		z0 = aos ? v[2] : cz[0];
	}
	const double vx = aos ? v[0] : cx[0], vy = aos ? v[1] : cy[0], vz = aos ? v[2] : cz[0];
	const double first = rel ? 0.0 : (vx * e0 + vy * e1) + vz * e2;
	if (store) { /* vertex 0 (the scan starts at 1) */
		cx[0] = vx - x0;
		cy[0] = vy - y0;
		cz[0] = vz - z0;
	}
	const __m256d E[3] = {_mm256_set1_pd(e0), _mm256_set1_pd(e1), _mm256_set1_pd(e2)};
	const __m256d O[3] = {_mm256_set1_pd(x0), _mm256_set1_pd(y0), _mm256_set1_pd(z0)};
	__m256d best = _mm256_set1_pd(first), idx = _mm256_setzero_pd();
	__m256d cur = _mm256_set_pd(4.0, 3.0, 2.0, 1.0);
	const __m256d four = _mm256_set1_pd(4.0);
	size_t i = 1;
	for (; i + 4 <= count; i += 4)
		lanes_soa_round(cx, cy, cz, v, i, from, O, E, &best, &idx, &cur, four);
	if (i < count && count >= 5 && from != LANES_SOA_TO_REL) {
		const size_t j = count - 4;
		cur = _mm256_set_pd((double)(j + 3), (double)(j + 2), (double)(j + 1), (double)j);
		lanes_soa_round(cx, cy, cz, v, j, from, O, E, &best, &idx, &cur, four);
		i = count;
	}
	double b[4], bi[4];
	_mm256_storeu_pd(b, best);
	_mm256_storeu_pd(bi, idx);
	for (; i < count; i++) {
		double x = aos ? v[3 * i] : cx[i], y = aos ? v[3 * i + 1] : cy[i],
		       z = aos ? v[3 * i + 2] : cz[i];
		if (sub) {
			x = x - x0;
			y = y - y0;
			z = z - z0;
		}
		if (store) {
			cx[i] = x;
			cy[i] = y;
			cz[i] = z;
		}
		double d = (x * e0 + y * e1) + z * e2;
		if (d > b[0]) {
			b[0] = d;
			bi[0] = (double)i;
		}
	}
	return lanes_merge4(b, bi);
}

/* One entry point per from, each without the tests in its loop. */
#define LANES_SOA_ONE(name, from)                                                        \
	LANES_AVX_ENTRY size_t name(double *cx, double *cy, double *cz, const double *v, \
	                            size_t count, const double *e)                       \
	{                                                                                \
		return lanes_soa_max_dot_any(cx, cy, cz, v, count, e, from);             \
	}
LANES_SOA_ONE(lanes_soa_max_dot_raw, LANES_SOA_RAW)
LANES_SOA_ONE(lanes_soa_max_dot_raw_rel, LANES_SOA_RAW_REL)
LANES_SOA_ONE(lanes_soa_max_dot_rel, LANES_SOA_REL)
LANES_SOA_ONE(lanes_soa_max_dot_to_rel, LANES_SOA_TO_REL)
LANES_SOA_ONE(lanes_soa_max_dot_aos_raw, LANES_SOA_AOS_RAW)
LANES_SOA_ONE(lanes_soa_max_dot_aos_rel, LANES_SOA_AOS_REL)
#undef LANES_SOA_ONE
#endif

/* ---- The planes of EPA's faces ----------------------------------------
 * A face record (epa.c's) starts with its plane, double n[3] and d, then
 * its vertex indices, int v[3], at LANES_FACE_V bytes; the faces fi[j] are
 * at faces + fi[j] * stride.  A vertex's coordinates are c[0][i], c[1][i],
 * c[2][i]. */
#define LANES_FACE_V (4 * sizeof(double))

/* The reference, one triangle x0 x1 x2: the outward unit normal n and the
 * distance d = mean of n.x_k, from the cross product of its two shorter
 * edges (the most accurate pair: e0 x e1 = e1 x e2 = e2 x e0 with
 * e_k = x_{k+1} - x_k); 0 if the triangle is too thin to have a normal
 * (|c|^2 <= flat^2 la lb, la and lb the pair's squared lengths). */
LANES_INLINE int lanes_face_plane_ref(const double *x0, const double *x1, const double *x2,
                                      double flat, double *nrm, double *d)
{
	const double e0[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
	const double e1[3] = {x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]};
	const double e2[3] = {x0[0] - x2[0], x0[1] - x2[1], x0[2] - x2[2]};
	const double l0 = e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2];
	const double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
	const double l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
	const double *u, *w;
	double la, lb;
	if (l0 >= l1 && l0 >= l2) {
		u = e1, w = e2, la = l1, lb = l2;
	} else if (l1 >= l2) {
		u = e2, w = e0, la = l2, lb = l0;
	} else {
		u = e0, w = e1, la = l0, lb = l1;
	}
	const double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
	                     u[0] * w[1] - u[1] * w[0]};
	const double c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
	if (!(c2 > flat * flat * la * lb) || !(c2 > 0.0))
		return 0;
	const double inv = 1.0 / sqrt(c2);
	for (int j = 0; j < 3; j++)
		nrm[j] = c[j] * inv;
	*d = ((nrm[0] * x0[0] + nrm[1] * x0[1] + nrm[2] * x0[2]) +
	      (nrm[0] * x1[0] + nrm[1] * x1[1] + nrm[2] * x1[2]) +
	      (nrm[0] * x2[0] + nrm[1] * x2[1] + nrm[2] * x2[2])) /
	     3.0;
	return 1;
}

#if defined(LANES_AVX)
/* One of a, b, c by the exclusive masks ma, mb, mc (and, or: GCC widens a
 * blendv's mask lane by lane through general registers). */
LANES_AVX_INLINE __m256d lanes_avx_sel(__m256d ma, __m256d a, __m256d mb, __m256d b, __m256d mc,
                                       __m256d c)
{
	return _mm256_or_pd(_mm256_or_pd(_mm256_and_pd(ma, a), _mm256_and_pd(mb, b)),
	                    _mm256_and_pd(mc, c));
}

LANES_AVX_INLINE __m256d lanes_avx_dot(__m256d a0, __m256d a1, __m256d a2, __m256d b0, __m256d b1,
                                       __m256d b2)
{
	return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a0, b0), _mm256_mul_pd(a1, b1)),
	                     _mm256_mul_pd(a2, b2));
}

/* lanes_face_planes four faces at a time, lane j face fi[g + j]: the
 * reference's arithmetic in its order, the pair without the longest edge
 * chosen by selects instead of branches; w: the faces' common third
 * vertex, broadcast instead of gathered. */
LANES_AVX_INLINE int lanes_face_planes_avx_any(const double *const *c, char *faces, size_t stride,
                                               const int *fi, int m, double flat, double low,
                                               const double *w, double *fd)
{
	const __m256d w0 = w ? _mm256_set1_pd(w[0]) : _mm256_setzero_pd(),
		      w1 = w ? _mm256_set1_pd(w[1]) : _mm256_setzero_pd(),
		      w2 = w ? _mm256_set1_pd(w[2]) : _mm256_setzero_pd();
	for (int g = 0; g < m; g += 4) {
		char *const f[4] = {faces + (size_t)fi[g] * stride,
		                    faces + (size_t)fi[g + 1] * stride,
		                    faces + (size_t)fi[g + 2] * stride,
		                    faces + (size_t)fi[g + 3] * stride};
		const int *const fv[4] = {(const int *)(const void *)(f[0] + LANES_FACE_V),
		                          (const int *)(const void *)(f[1] + LANES_FACE_V),
		                          (const int *)(const void *)(f[2] + LANES_FACE_V),
		                          (const int *)(const void *)(f[3] + LANES_FACE_V)};
		const int a0 = fv[0][0], a1 = fv[1][0], a2 = fv[2][0], a3 = fv[3][0];
		const int b0 = fv[0][1], b1 = fv[1][1], b2 = fv[2][1], b3 = fv[3][1];
		const double *const cx = c[0], *const cy = c[1], *const cz = c[2];
#define LANES_LD4(c, i0, i1, i2, i3) _mm256_set_pd(c[i3], c[i2], c[i1], c[i0])
		const __m256d p00 = LANES_LD4(cx, a0, a1, a2, a3),
			      p01 = LANES_LD4(cy, a0, a1, a2, a3),
			      p02 = LANES_LD4(cz, a0, a1, a2, a3);
		const __m256d p10 = LANES_LD4(cx, b0, b1, b2, b3),
			      p11 = LANES_LD4(cy, b0, b1, b2, b3),
			      p12 = LANES_LD4(cz, b0, b1, b2, b3);
		__m256d p20, p21, p22;
		if (w) {
			p20 = w0;
			p21 = w1;
			p22 = w2;
		} else {
			const int c0 = fv[0][2], c1 = fv[1][2], c2 = fv[2][2], c3 = fv[3][2];
			p20 = LANES_LD4(cx, c0, c1, c2, c3);
			p21 = LANES_LD4(cy, c0, c1, c2, c3);
			p22 = LANES_LD4(cz, c0, c1, c2, c3);
		}
#undef LANES_LD4
		const __m256d e00 = _mm256_sub_pd(p10, p00), e01 = _mm256_sub_pd(p11, p01),
			      e02 = _mm256_sub_pd(p12, p02);
		const __m256d e10 = _mm256_sub_pd(p20, p10), e11 = _mm256_sub_pd(p21, p11),
			      e12 = _mm256_sub_pd(p22, p12);
		const __m256d e20 = _mm256_sub_pd(p00, p20), e21 = _mm256_sub_pd(p01, p21),
			      e22 = _mm256_sub_pd(p02, p22);
		const __m256d l0 = lanes_avx_dot(e00, e01, e02, e00, e01, e02);
		const __m256d l1 = lanes_avx_dot(e10, e11, e12, e10, e11, e12);
		const __m256d l2 = lanes_avx_dot(e20, e21, e22, e20, e21, e22);
		/* m0: l0 the longest (e1 x e2); m1: else l1 (e2 x e0); else
		 * e0 x e1 (m2), as the reference branches. */
		const __m256d m0 = _mm256_and_pd(_mm256_cmp_pd(l0, l1, _CMP_GE_OQ),
		                                 _mm256_cmp_pd(l0, l2, _CMP_GE_OQ));
		const __m256d m1 = _mm256_andnot_pd(m0, _mm256_cmp_pd(l1, l2, _CMP_GE_OQ));
		const __m256d m2 = _mm256_andnot_pd(m0, _mm256_cmp_pd(l1, l2, _CMP_NGE_UQ));
		const __m256d u0 = lanes_avx_sel(m0, e10, m1, e20, m2, e00),
			      v0 = lanes_avx_sel(m0, e20, m1, e00, m2, e10);
		const __m256d u1 = lanes_avx_sel(m0, e11, m1, e21, m2, e01),
			      v1 = lanes_avx_sel(m0, e21, m1, e01, m2, e11);
		const __m256d u2 = lanes_avx_sel(m0, e12, m1, e22, m2, e02),
			      v2 = lanes_avx_sel(m0, e22, m1, e02, m2, e12);
		const __m256d la = lanes_avx_sel(m0, l1, m1, l2, m2, l0),
			      lb = lanes_avx_sel(m0, l2, m1, l0, m2, l1);
		const __m256d c0 = _mm256_sub_pd(_mm256_mul_pd(u1, v2), _mm256_mul_pd(u2, v1));
		const __m256d c1 = _mm256_sub_pd(_mm256_mul_pd(u2, v0), _mm256_mul_pd(u0, v2));
		const __m256d c2 = _mm256_sub_pd(_mm256_mul_pd(u0, v1), _mm256_mul_pd(u1, v0));
		const __m256d cc = lanes_avx_dot(c0, c1, c2, c0, c1, c2);
		const __m256d least =
			_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(flat * flat), la), lb);
		const __m256d ok =
			_mm256_and_pd(_mm256_cmp_pd(cc, least, _CMP_GT_OQ),
		                      _mm256_cmp_pd(cc, _mm256_setzero_pd(), _CMP_GT_OQ));
		/* A failed lane's root may be NaN; its plane is not used. */
		const __m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(cc));
		const __m256d n0 = _mm256_mul_pd(c0, inv), n1 = _mm256_mul_pd(c1, inv),
			      n2 = _mm256_mul_pd(c2, inv);
		const __m256d d0 = lanes_avx_dot(n0, n1, n2, p00, p01, p02),
			      d1 = lanes_avx_dot(n0, n1, n2, p10, p11, p12),
			      d2 = lanes_avx_dot(n0, n1, n2, p20, p21, p22);
		const __m256d d = _mm256_div_pd(_mm256_add_pd(_mm256_add_pd(d0, d1), d2),
		                                _mm256_set1_pd(3.0));
		if (_mm256_movemask_pd(ok) != 15 ||
		    _mm256_movemask_pd(_mm256_cmp_pd(d, _mm256_set1_pd(low), _CMP_LT_OQ)) != 0)
			return 0;
		/* Rows n0, n1, n2, d to one (n, d) row per face. */
		const __m256d t0 = _mm256_unpacklo_pd(n0, n1), t1 = _mm256_unpackhi_pd(n0, n1);
		const __m256d t2 = _mm256_unpacklo_pd(n2, d), t3 = _mm256_unpackhi_pd(n2, d);
		_mm256_storeu_pd((double *)(void *)f[3], _mm256_permute2f128_pd(t1, t3, 0x31));
		_mm256_storeu_pd((double *)(void *)f[2], _mm256_permute2f128_pd(t0, t2, 0x31));
		_mm256_storeu_pd((double *)(void *)f[1], _mm256_permute2f128_pd(t1, t3, 0x20));
		_mm256_storeu_pd((double *)(void *)f[0], _mm256_permute2f128_pd(t0, t2, 0x20));
		/* Padding lanes repeat a face: the same value again. */
		const __m128d dlo = _mm256_castpd256_pd128(d), dhi = _mm256_extractf128_pd(d, 1);
		_mm_storel_pd(fd + fi[g], dlo);
		_mm_storeh_pd(fd + fi[g + 1], dlo);
		_mm_storel_pd(fd + fi[g + 2], dhi);
		_mm_storeh_pd(fd + fi[g + 3], dhi);
	}
	return 1;
}

static __attribute__((target("avx"), noinline, unused)) int lanes_face_planes_avx(
	const double *const *c, char *faces, size_t stride, const int *fi, int m, double flat,
	double low, double *fd)
{
	return lanes_face_planes_avx_any(c, faces, stride, fi, m, flat, low, NULL, fd);
}

static __attribute__((target("avx"), noinline, nonnull, unused)) int lanes_face_planes_avx_w(
	const double *const *c, char *faces, size_t stride, const int *fi, int m, double flat,
	double low, const double *w, double *fd)
{
	return lanes_face_planes_avx_any(c, faces, stride, fi, m, flat, low, w, fd);
}
#endif

/* The planes of the faces fi[0..m-1] (fi padded to a multiple of 4 by
 * repeating its last face) into their records and fd[fi[j]]; 0 when one
 * has none or lies beyond the origin by more than -low (d < low), some
 * planes then written.  w: the faces' common third vertex, or NULL. */
LANES_INLINE int lanes_face_planes(const double *const *c, char *faces, size_t stride,
                                   const int *fi, int m, double flat, double low, const double *w,
                                   double *fd)
{
#if defined(LANES_AVX)
	if (lanes_have_avx())
		return w ? lanes_face_planes_avx_w(c, faces, stride, fi, m, flat, low, w, fd)
		         : lanes_face_planes_avx(c, faces, stride, fi, m, flat, low, fd);
#endif
	for (int j = 0; j < m; j++) {
		char *f = faces + (size_t)fi[j] * stride;
		const int *fv = (const int *)(const void *)(f + LANES_FACE_V);
		double *nd = (double *)(void *)f;
		const double x0[3] = {c[0][fv[0]], c[1][fv[0]], c[2][fv[0]]};
		const double x1[3] = {c[0][fv[1]], c[1][fv[1]], c[2][fv[1]]};
		const double x2[3] = {c[0][fv[2]], c[1][fv[2]], c[2][fv[2]]};
		if (!lanes_face_plane_ref(x0, x1, w ? w : x2, flat, nd, nd + 3) || nd[3] < low)
			return 0;
		fd[fi[j]] = nd[3];
	}
	return 1;
}

/* ---- The first least entry --------------------------------------------
 * The least of fd[0..n-1] (from +inf, a < m ? a : m), then the first
 * index holding it (==, -0 and +0 alike).  The reference takes the
 * kernel's lanes: four running minima (entries i mod 4 of the full rounds),
 * merged (0 2) (1 3) and then the pair, the rest in order; the index by
 * pairs, then one by one, stopping at n - 1. */
static inline int lanes_first_min_ref(const double *fd, int n)
{
	double m[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
	int i = 0;
	for (; i + 4 <= n; i += 4)
		for (int j = 0; j < 4; j++)
			m[j] = m[j] < fd[i + j] ? m[j] : fd[i + j];
	const double m0 = m[0] < m[2] ? m[0] : m[2], m1 = m[1] < m[3] ? m[1] : m[3];
	double bd = m0 < m1 ? m0 : m1;
	for (; i < n; i++)
		bd = fd[i] < bd ? fd[i] : bd;
	int best = 0;
	for (; best + 2 <= n; best += 2) {
		if (fd[best] == bd)
			return best;
		if (fd[best + 1] == bd)
			return best + 1;
	}
	while (best < n - 1 && !(fd[best] == bd))
		best++;
	return best;
}

/* Packed minima in two independent chains (a scalar compare-and-select
 * loop is one serial chain through every entry). */
LANES_INLINE int lanes_first_min(const double *fd, int n)
{
#if defined(__SSE2__)
	int i = 0;
	__m128d m0 = _mm_set1_pd(INFINITY), m1 = m0;
	for (; i + 4 <= n; i += 4) {
		m0 = _mm_min_pd(m0, _mm_loadu_pd(fd + i));
		m1 = _mm_min_pd(m1, _mm_loadu_pd(fd + i + 2));
	}
	m0 = _mm_min_pd(m0, m1);
	m0 = _mm_min_sd(m0, _mm_unpackhi_pd(m0, m0));
	double bd = _mm_cvtsd_f64(m0);
	for (; i < n; i++)
		bd = fd[i] < bd ? fd[i] : bd;
	int best = 0;
	const __m128d b = _mm_set1_pd(bd);
	for (; best + 2 <= n; best += 2) {
		int m = _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(fd + best), b));
		if (m)
			return best + 1 - (m & 1);
	}
	while (best < n - 1 && !(fd[best] == bd))
		best++;
	return best;
#else
	return lanes_first_min_ref(fd, n);
#endif
}

/* ---- The first vertex past a threshold, 3-D ---------------------------
 * The first i >= from with (x g0 + y g1) + z g2 > thr, or count. */
LANES_INLINE size_t lanes_first_above3_ref(const double *v, size_t from, size_t count,
                                           const double *g, double thr)
{
	for (size_t i = from; i < count; i++) {
		const double *p = v + 3 * i;
		if ((p[0] * g[0] + p[1] * g[1]) + p[2] * g[2] > thr)
			return i;
	}
	return count;
}

/* Two vertices per step. */
LANES_INLINE size_t lanes_first_above3(const double *v, size_t from, size_t count, const double *g,
                                       double thr)
{
	const double g0 = g[0], g1 = g[1], g2 = g[2];
	size_t i = from;
#if defined(__SSE2__)
	const __m128d G0 = _mm_set1_pd(g0), G1 = _mm_set1_pd(g1), G2 = _mm_set1_pd(g2);
	const __m128d T = _mm_set1_pd(thr);
	for (; i + 2 <= count; i += 2) {
		const double *p = v + 3 * i;
		__m128d a = _mm_loadu_pd(p);         /* x0 y0 */
		__m128d b = _mm_loadu_pd(p + 2);     /* z0 x1 */
		__m128d c = _mm_loadu_pd(p + 4);     /* y1 z1 */
		__m128d x = _mm_shuffle_pd(a, b, 2); /* x0 x1 */
		__m128d y = _mm_shuffle_pd(a, c, 1); /* y0 y1 */
		__m128d z = _mm_shuffle_pd(b, c, 2); /* z0 z1 */
		__m128d d = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x, G0), _mm_mul_pd(y, G1)),
		                       _mm_mul_pd(z, G2));
		int hit = _mm_movemask_pd(_mm_cmpgt_pd(d, T));
		if (hit)
			return i + ((hit & 1) ? 0 : 1);
	}
#endif
	for (; i < count; i++) {
		const double *p = v + 3 * i;
		if ((p[0] * g0 + p[1] * g1) + p[2] * g2 > thr)
			return i;
	}
	return count;
}

/* ---- A simplex pivot's updates on five rows ---------------------------
 * The dense inverse inv (5 x 5, row-major) by the product form for pivot
 * row r of the entering column's image alpha: row r divided by alpha[r],
 * every other row i with alpha[i] != 0 less alpha[i] times it; the values
 * x_i - theta alpha_i clamped at 0 (v > 0 ? v : 0: 0 on NaN and on -0),
 * row r's too (its caller overwrites it); the duals y += dq row r. */
LANES_INLINE void lanes_pivot5_ref(double *inv, int r, const double *alpha, double theta, double dq,
                                   double *x, double *y)
{
	const double ar = alpha[r];
	for (int c = 0; c < 5; c++)
		inv[r * 5 + c] /= ar;
	for (int i = 0; i < 5; i++) {
		const double f = alpha[i];
		if (i != r && f != 0.0)
			for (int c = 0; c < 5; c++)
				inv[i * 5 + c] -= f * inv[r * 5 + c];
	}
	for (int i = 0; i < 5; i++) {
		const double v = x[i] - theta * alpha[i];
		x[i] = v > 0.0 ? v : 0.0;
	}
	for (int k = 0; k < 5; k++)
		y[k] += dq * inv[r * 5 + k];
}

/* Two columns to a register. */
LANES_INLINE void lanes_pivot5(double *inv, int r, const double *alpha, double theta, double dq,
                               double *x, double *y)
{
#if defined(__SSE2__)
	const double ar = alpha[r];
	double *pr = inv + 5 * r;
	const __m128d A = _mm_set1_pd(ar);
	const __m128d r01 = _mm_div_pd(_mm_loadu_pd(pr), A);
	const __m128d r23 = _mm_div_pd(_mm_loadu_pd(pr + 2), A);
	const double r4 = pr[4] / ar;
	_mm_storeu_pd(pr, r01);
	_mm_storeu_pd(pr + 2, r23);
	pr[4] = r4;
	for (int i = 0; i < 5; i++) {
		if (i == r)
			continue;
		const double f = alpha[i];
		if (f != 0.0) {
			double *pi = inv + 5 * i;
			const __m128d F = _mm_set1_pd(f);
			_mm_storeu_pd(pi, _mm_sub_pd(_mm_loadu_pd(pi), _mm_mul_pd(F, r01)));
			_mm_storeu_pd(pi + 2, _mm_sub_pd(_mm_loadu_pd(pi + 2), _mm_mul_pd(F, r23)));
			pi[4] -= f * r4;
		}
	}
	/* max(v, 0) is v > 0 ? v : 0. */
	const __m128d T = _mm_set1_pd(theta), Z = _mm_setzero_pd();
	_mm_storeu_pd(x, _mm_max_pd(_mm_sub_pd(_mm_loadu_pd(x), _mm_mul_pd(T, _mm_loadu_pd(alpha))),
	                            Z));
	_mm_storeu_pd(x + 2, _mm_max_pd(_mm_sub_pd(_mm_loadu_pd(x + 2),
	                                           _mm_mul_pd(T, _mm_loadu_pd(alpha + 2))),
	                                Z));
	const double v4 = x[4] - theta * alpha[4];
	x[4] = v4 > 0.0 ? v4 : 0.0;
	const __m128d D = _mm_set1_pd(dq);
	_mm_storeu_pd(y, _mm_add_pd(_mm_loadu_pd(y), _mm_mul_pd(D, r01)));
	_mm_storeu_pd(y + 2, _mm_add_pd(_mm_loadu_pd(y + 2), _mm_mul_pd(D, r23)));
	y[4] += dq * r4;
#else
	lanes_pivot5_ref(inv, r, alpha, theta, dq, x, y);
#endif
}

/* ---- Small moves ------------------------------------------------------
 * p[0] = a and p[1] = b as one 16-byte store: a caller that reads them
 * back with one 16-byte load is served by store forwarding only from a
 * store of the same 16 bytes, not from two 8-byte ones. */
LANES_INLINE void lanes_store2_ref(double *p, double a, double b)
{
	p[0] = a;
	p[1] = b;
}

LANES_INLINE void lanes_store2(double *p, double a, double b)
{
#if defined(__SSE2__)
	_mm_storeu_pd(p, _mm_set_pd(b, a));
#else
	lanes_store2_ref(p, a, b);
#endif
}

/* dst[i] = src[i] * s for nine entries (a 3 x 3 matrix), two to a
 * register (GCC leaves the loop rolled at -O2). */
LANES_INLINE void lanes_scale9_ref(double *dst, const double *src, double s)
{
	for (int i = 0; i < 9; i++)
		dst[i] = src[i] * s;
}

LANES_INLINE void lanes_scale9(double *dst, const double *src, double s)
{
#if defined(__SSE2__)
	const __m128d sc = _mm_set1_pd(s);
	_mm_storeu_pd(dst, _mm_mul_pd(_mm_loadu_pd(src), sc));
	_mm_storeu_pd(dst + 2, _mm_mul_pd(_mm_loadu_pd(src + 2), sc));
	_mm_storeu_pd(dst + 4, _mm_mul_pd(_mm_loadu_pd(src + 4), sc));
	_mm_storeu_pd(dst + 6, _mm_mul_pd(_mm_loadu_pd(src + 6), sc));
	dst[8] = src[8] * s;
#else
	lanes_scale9_ref(dst, src, s);
#endif
}

#endif
