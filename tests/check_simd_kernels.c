/*
 * check_simd_kernels.c — suite "simd_kernels": every SIMD kernel of
 * core/lanes.h against its scalar reference, bit for bit.
 *
 * Each kernel (SSE2, and AVX where the processor has it) runs beside its
 * reference on the same inputs: counts 1 to 70 and a few larger, starts
 * at every offset of a 32-byte line (unaligned loads), and values drawn
 * from a small lattice (exact ties, where the first index must win), the
 * general position, and a mix of specials (-0 and +0, infinities, NaN,
 * huge numbers whose products overflow).  Results are compared as bits:
 * every index, every stored double, -0 against +0 too; a NaN need only
 * meet a NaN (C lets the compiler swap a product's operands, and x86
 * passes on the first operand's NaN, so no reference can pin its sign).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "lanes.h"
#include "prng.h"

#define MAX_COUNT 300
#define ROUNDS 60

/* The same bits, or both NaN. */
static int same(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static int same_n(const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!same(a[i], b[i]))
			return 0;
	return 1;
}

/* A value of the kind: 0 a small lattice (ties), 1 general, 2 specials. */
static double value(prng *r, int kind)
{
	if (kind == 0)
		return (double)prng_int(r, -2, 3);
	if (kind == 1 || prng_int(r, 0, 2) != 0)
		return prng_range(r, -3.0, 3.0);
	static const double special[] = {0.0, -0.0,  1.0,    -1.0,      INFINITY, -INFINITY,
	                                 NAN, 1e308, -1e308, 0x1p-1074, 2.0};
	return special[prng_int(r, 0, (int)(sizeof special / sizeof *special) - 1)];
}

static void fill(double *v, size_t m, int kind, prng *r)
{
	for (size_t i = 0; i < m; i++)
		v[i] = value(r, kind);
}

static size_t count_of(int t)
{
	return t < 70 ? (size_t)t + 1 : (size_t)(70 + (t - 70) * 23);
}

/* The kind of round k: specials only when `specials`. */
static int kind_of(int k, int specials)
{
	return specials ? k % 3 : k % 2;
}

/* A direction: axis-aligned on the lattice (ties everywhere), else as
 * the values. */
static void direction(prng *r, int kind, double *e)
{
	for (int k = 0; k < 3; k++)
		e[k] = kind == 0 ? (double)prng_int(r, -1, 2) : value(r, kind);
}

START_TEST(merge4)
{
	prng r = {0x3e61};
	for (int k = 0; k < 20000; k++) {
		double b[4], bi[4];
		const int kind = k % 3;
		for (int l = 0; l < 4; l++) {
			b[l] = kind == 2 && (k & 4) ? (l & 1 ? -0.0 : 0.0)
			                            : value(&r, kind == 2 ? 0 : kind);
			bi[l] = (double)prng_int(&r, 0, 1000);
		}
		if (k % 97 == 0)
			b[0] = b[1] = b[2] = b[3] = NAN; /* NaN only all together */
		ck_assert_uint_eq(lanes_merge4(b, bi), lanes_merge4_ref(b, bi));
	}
}
END_TEST

START_TEST(max_dot3)
{
	static double buf[3 * MAX_COUNT + 4];
	prng r = {0x3d07};
	const int avx = lanes_have_avx();
	for (int t = 0; t < 80; t++) {
		const size_t n = count_of(t);
		for (int k = 0; k < ROUNDS; k++) {
			const int kind = kind_of(k, 1);
			double *v = buf + k % 4;
			fill(v, 3 * n, kind, &r);
			double e[3];
			direction(&r, kind, e);
			for (int rel = 0; rel < 2; rel++) {
				const size_t want = lanes_max_dot3_ref(v, n, e, rel);
				ck_assert_msg(lanes_max_dot3_sse2(v, n, e, rel) == want,
				              "sse2 n %zu rel %d kind %d", n, rel, kind);
				ck_assert_uint_eq(lanes_max_dot3(v, n, e, rel), want);
#if defined(LANES_AVX)
				if (avx && n >= 8) {
					const size_t got = rel ? lanes_max_dot3_avx_rel(v, n, e)
					                       : lanes_max_dot3_avx(v, n, e);
					ck_assert_msg(got == want,
					              "avx n %zu rel %d kind %d: %zu, not %zu", n,
					              rel, kind, got, want);
				}
#endif
			}
		}
	}
	(void)avx;
}
END_TEST

/* lo, hi and the flag of a box kernel against a reference. */
static void check_box(const double *lo, const double *hi, int flag, const double *wlo,
                      const double *whi, int wflag, const char *what, size_t n)
{
	ck_assert_msg(flag == wflag, "%s n %zu: NaN flag %d, not %d", what, n, flag, wflag);
	if (wflag)
		return; /* refused: the box is not used */
	ck_assert_msg(same_n(lo, wlo, 3) && same_n(hi, whi, 3), "%s n %zu: box differs", what, n);
}

START_TEST(box3)
{
	static double buf[3 * MAX_COUNT + 4], cx[MAX_COUNT + 4], cy[MAX_COUNT + 4],
		cz[MAX_COUNT + 4];
	prng r = {0xb033};
	const int avx = lanes_have_avx();
	for (int t = 0; t < 80; t++) {
		const size_t n = count_of(t);
		for (int k = 0; k < ROUNDS; k++) {
			const int kind = kind_of(k, 1);
			double *v = buf + k % 4;
			fill(v, 3 * n, kind, &r);
			if (kind == 2 && (k & 8)) /* signed zeros, no NaN: the box's choice */
				for (size_t i = 0; i < 3 * n; i++)
					v[i] = (k + i) & 1 ? -0.0 : (isnan(v[i]) ? 0.0 : v[i]);
			double e[3], lo[3], hi[3], wlo[3], whi[3];
			direction(&r, kind, e);
			const size_t wx = lanes_max_dot3_ref(v, n, e, 0);
			const int wflag = lanes_box3_ref2(v, n, wlo, whi);
			check_box(lo, hi, lanes_box3(v, n, lo, hi), wlo, whi, wflag, "box3", n);
			size_t x = (size_t)-1;
			int flag = lanes_box_max_dot3_sse2(v, n, e, lo, hi, &x);
			check_box(lo, hi, flag, wlo, whi, wflag, "box_max_dot3_sse2", n);
			if (!wflag)
				ck_assert_uint_eq(x, wx);
#if defined(LANES_AVX)
			if (avx && n >= 8) {
				double w4lo[3], w4hi[3];
				const int w4 = lanes_box3_ref4(v, n, w4lo, w4hi);
				flag = lanes_box_max_dot3_avx(v, n, e, lo, hi, &x);
				check_box(lo, hi, flag, w4lo, w4hi, w4, "box_max_dot3_avx", n);
				if (!w4)
					ck_assert_uint_eq(x, wx);
				double *c[3] = {cx + k % 4, cy + (k + 1) % 4, cz + (k + 2) % 4};
				flag = lanes_box_max_dot3_avx_copy(v, n, e, lo, hi, &x, c[0], c[1],
				                                   c[2]);
				check_box(lo, hi, flag, w4lo, w4hi, w4, "box_max_dot3_avx_copy", n);
				for (size_t i = 0; i < n; i++)
					for (int j = 0; j < 3; j++)
						ck_assert(same(c[j][i], v[3 * i + j]));
			}
#endif
		}
	}
	(void)avx;
	(void)cx;
	(void)cy;
	(void)cz;
}
END_TEST

#if defined(LANES_AVX)
typedef size_t (*soa_fn)(double *, double *, double *, const double *, size_t, const double *);

START_TEST(soa_scans)
{
	if (!lanes_have_avx())
		return; /* the copies are only ever scanned with AVX */
	static double buf[3 * MAX_COUNT + 4];
	static double c[2][3][MAX_COUNT + 4];
	static const soa_fn fn[] = {lanes_soa_max_dot_raw,     lanes_soa_max_dot_raw_rel,
	                            lanes_soa_max_dot_rel,     lanes_soa_max_dot_to_rel,
	                            lanes_soa_max_dot_aos_raw, lanes_soa_max_dot_aos_rel};
	prng r = {0x50a5};
	for (int t = 0; t < 80; t++) {
		const size_t n = count_of(t);
		for (int k = 0; k < ROUNDS; k++) {
			const int kind = kind_of(k, 1);
			double *v = buf + k % 4;
			fill(v, 3 * n, kind, &r);
			double e[3];
			direction(&r, kind, e);
			for (int from = 0; from < 6; from++) {
				/* Both copies hold the vertices raw (or garbage the
				 * array scans overwrite), at the same offsets. */
				const size_t off = (size_t)(k + from) % 4;
				for (int s = 0; s < 2; s++)
					for (int j = 0; j < 3; j++)
						for (size_t i = 0; i < n; i++)
							c[s][j][off + i] = from >= LANES_SOA_AOS_RAW
							                           ? 7.0
							                           : v[3 * i + j];
				const size_t want =
					lanes_soa_max_dot_ref(c[0][0] + off, c[0][1] + off,
				                              c[0][2] + off, v, n, e, from);
				const size_t got = fn[from](c[1][0] + off, c[1][1] + off,
				                            c[1][2] + off, v, n, e);
				ck_assert_msg(got == want,
				              "soa from %d n %zu kind %d: %zu, not %zu", from, n,
				              kind, got, want);
				for (int j = 0; j < 3; j++)
					ck_assert_msg(same_n(c[0][j] + off, c[1][j] + off, n),
					              "soa from %d n %zu: copy differs", from, n);
			}
		}
	}
}
END_TEST
#endif

/* A face record laid out as epa.c's: plane, then vertex indices. */
typedef struct face {
	double n[3];
	double d;
	int v[3];
	int pad[3];
} face;
_Static_assert(offsetof(face, v) == LANES_FACE_V, "face layout");

START_TEST(face_planes)
{
	enum {
		NV = 24,
		NF = 16
	};
	static double c[3][NV];
	static face fa[NF], fr[NF];
	static double fda[NF], fdr[NF];
	prng r = {0xfa7e};
	const double flat = 16.0 * 0x1p-52;
	int agreed = 0;
	for (int k = 0; k < 20000; k++) {
		const int kind = k % 4 == 3 ? 2 : k % 2;
		for (int j = 0; j < 3; j++)
			for (int i = 0; i < NV; i++)
				c[j][i] = value(&r, kind);
		if (k % 5 == 0) /* a thin or collinear triangle now and then */
			for (int j = 0; j < 3; j++)
				c[j][2] = c[j][0] + 1e-9 * (c[j][1] - c[j][0]);
		const int m = 4 * prng_int(&r, 1, 4);
		int fi[NF];
		for (int g = 0; g < m; g++) {
			fi[g] = g;
			for (int j = 0; j < 3; j++)
				fa[g].v[j] = prng_int(&r, 0, NV - 1);
		}
		if (k & 1) /* padded: the last face repeated */
			for (int g = m - prng_int(&r, 0, 3); g < m; g++)
				fi[g] = fi[m - 4 > 0 ? m - 4 : 0];
		const double w[3] = {value(&r, kind), value(&r, kind), value(&r, kind)};
		const double *wp = k & 2 ? w : NULL;
		const double low = k % 3 ? -INFINITY : -0.5;
		const double *const cc[3] = {c[0], c[1], c[2]};
		/* The reference face by face; the kernels' verdict is "all". */
		int want = 1;
		for (int g = 0; g < m; g++) {
			face *f = &fr[fi[g]];
			f->v[0] = fa[fi[g]].v[0], f->v[1] = fa[fi[g]].v[1],
			f->v[2] = fa[fi[g]].v[2];
			const double x0[3] = {c[0][f->v[0]], c[1][f->v[0]], c[2][f->v[0]]};
			const double x1[3] = {c[0][f->v[1]], c[1][f->v[1]], c[2][f->v[1]]};
			const double x2[3] = {c[0][f->v[2]], c[1][f->v[2]], c[2][f->v[2]]};
			if (!lanes_face_plane_ref(x0, x1, wp ? wp : x2, flat, f->n, &f->d) ||
			    f->d < low)
				want = 0;
			fdr[fi[g]] = f->d;
		}
		const int got =
			lanes_face_planes(cc, (char *)fa, sizeof(face), fi, m, flat, low, wp, fda);
		ck_assert_msg(got == want, "face planes %d: %d, not %d", k, got, want);
		if (!want)
			continue;
		agreed++;
		for (int g = 0; g < m; g++) {
			ck_assert(same_n(fa[fi[g]].n, fr[fi[g]].n, 3));
			ck_assert(same(fa[fi[g]].d, fr[fi[g]].d));
			ck_assert(same(fda[fi[g]], fdr[fi[g]]));
		}
	}
	ck_assert_int_gt(agreed, 1000); /* not every round refused */
}
END_TEST

START_TEST(first_min)
{
	static double buf[MAX_COUNT + 4];
	prng r = {0xf125};
	for (int t = 0; t < 80; t++) {
		const int n = (int)count_of(t);
		for (int k = 0; k < ROUNDS; k++) {
			const int kind = kind_of(k, 1);
			double *fd = buf + k % 4;
			fill(fd, (size_t)n, kind, &r);
			if (k % 5 == 0) /* free slots */
				for (int i = 0; i < n; i += 3)
					fd[i] = INFINITY;
			ck_assert_int_eq(lanes_first_min(fd, n), lanes_first_min_ref(fd, n));
		}
	}
}
END_TEST

START_TEST(first_above)
{
	static double buf[3 * MAX_COUNT + 4];
	prng r = {0xab0e};
	for (int t = 0; t < 80; t++) {
		const size_t n = count_of(t);
		for (int k = 0; k < ROUNDS; k++) {
			const int kind = kind_of(k, 1);
			double *v = buf + k % 4;
			fill(v, 3 * n, kind, &r);
			double g[3];
			direction(&r, kind, g);
			const double thr = k % 4 == 0 ? 0.0 : value(&r, kind);
			const size_t from = (size_t)prng_int(&r, 0, (int)n);
			ck_assert_uint_eq(lanes_first_above3(v, from, n, g, thr),
			                  lanes_first_above3_ref(v, from, n, g, thr));
		}
	}
}
END_TEST

START_TEST(pivot5)
{
	prng r = {0x9175};
	for (int k = 0; k < 20000; k++) {
		const int kind = kind_of(k, 1);
		double inv[2][25], x[2][5], y[2][5], alpha[5];
		fill(inv[0], 25, kind, &r);
		fill(x[0], 5, kind, &r);
		fill(y[0], 5, kind, &r);
		fill(alpha, 5, kind, &r);
		if (k & 1)
			alpha[prng_int(&r, 0, 4)] = 0.0; /* a row left alone */
		const int row = prng_int(&r, 0, 4);
		if (alpha[row] == 0.0)
			alpha[row] = 0.5;
		const double theta = value(&r, kind), dq = value(&r, kind);
		memcpy(inv[1], inv[0], sizeof inv[0]);
		memcpy(x[1], x[0], sizeof x[0]);
		memcpy(y[1], y[0], sizeof y[0]);
		lanes_pivot5(inv[0], row, alpha, theta, dq, x[0], y[0]);
		lanes_pivot5_ref(inv[1], row, alpha, theta, dq, x[1], y[1]);
		for (int q = 0; q < 25; q++)
			ck_assert_msg(same(inv[0][q], inv[1][q]),
			              "pivot %d kind %d row %d: inv[%d] %a, not %a", k, kind, row,
			              q, inv[0][q], inv[1][q]);
		ck_assert(same_n(x[0], x[1], 5));
		ck_assert(same_n(y[0], y[1], 5));
	}
}
END_TEST

START_TEST(small_moves)
{
	prng r = {0x5a11};
	for (int k = 0; k < 2000; k++) {
		double a[12], b[12], src[10];
		fill(src, 10, 2, &r);
		memset(a, 0, sizeof a);
		memset(b, 0, sizeof b);
		const int off = k % 3;
		lanes_store2(a + off, src[0], src[1]);
		lanes_store2_ref(b + off, src[0], src[1]);
		ck_assert(same_n(a, b, 12));
		lanes_scale9(a + off, src + off % 2, src[9]);
		lanes_scale9_ref(b + off, src + off % 2, src[9]);
		ck_assert(same_n(a, b, 12));
	}
}
END_TEST

static Suite *simd_kernels_suite(void)
{
	Suite *s = suite_create("simd_kernels");
	TCase *tc = ck_case(s, "kernels", 60, CK_TESTS(merge4, max_dot3, box3));
#if defined(LANES_AVX)
	ck_loops(tc, 1, CK_TESTS(soa_scans));
#endif
	ck_loops(tc, 1, CK_TESTS(face_planes, first_min, first_above, pivot5, small_moves));
	return s;
}

CHECK_SUITE(simd_kernels_suite)
