/*
 * check_oracle_proof.c — suite "oracle_proof": proves the qhull oracle
 * (tests/oracle.c) before anything else trusts it, with no help from the
 * collision core.
 *
 * Three kinds of evidence:
 *   - closed forms: boxes at known gaps (face-face g, edge-edge sqrt(2)·g,
 *     vertex-vertex sqrt(3)·g), box overlaps (the difference of two
 *     axis-aligned boxes is a box, so distance and depth have formulas),
 *     a tetrahedron and a 2-D triangle against points in every Voronoi
 *     region, radii;
 *   - brute force on random small point sets: the distance as a minimum over
 *     all feature pairs (point-triangle, segment-segment), the verdict and
 *     penetration depth from the separating axis theorem over every
 *     candidate axis (face normals of A and B, cross products of edge pairs);
 *   - the failure modes: flat differences and bad arguments give errors.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "oracle.h"
#include "prng.h"

/* ---- closed forms ------------------------------------------------------- */

/* The 2^dim corners of the box [lo, hi]. */
static size_t box_corners(int dim, const double *lo, const double *hi, double *out)
{
	size_t n = (size_t)1 << dim;
	for (size_t c = 0; c < n; c++)
		for (int k = 0; k < dim; k++)
			out[c * (size_t)dim + k] = (c >> k) & 1 ? hi[k] : lo[k];
	return n;
}

static void query_ok(int dim, const double *a, size_t na, double ra, const double *b, size_t nb,
                     double rb, oracle_answer *ans)
{
	int rc = oracle_query(dim, a, na, ra, b, nb, rb, ans);
	ck_assert_msg(rc == ORACLE_OK, "oracle_query: %s", oracle_strerror(rc));
}

static double norm(int dim, const double *v)
{
	double s = 0;
	for (int i = 0; i < dim; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

START_TEST(box_gaps)
{
	/* Unit cube against a unit cube moved by 1+g along one, two or three
	 * axes: the gap is g, sqrt(2)·g, sqrt(3)·g. */
	static const double gaps[] = {1e-9, 1e-6, 1e-3, 0.25, 1, 7.5};
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, a[24], b[24];
	box_corners(3, lo, hi, a);
	for (size_t gi = 0; gi < sizeof gaps / sizeof gaps[0]; gi++) {
		double g = gaps[gi];
		for (int axes = 1; axes <= 3; axes++) {
			double blo[3], bhi[3];
			for (int k = 0; k < 3; k++) {
				blo[k] = k < axes ? 1 + g : 0;
				bhi[k] = blo[k] + 1;
			}
			box_corners(3, blo, bhi, b);
			oracle_answer ans;
			query_ok(3, a, 8, 0, b, 8, 0, &ans);
			double want = sqrt((double)axes) * g;
			ck_assert_msg(!ans.hull_overlap && !ans.intersecting,
			              "gap %g axes %d: reported overlapping", g, axes);
			ck_assert_msg(fabs(ans.distance - want) <= 1e-15 + 1e-13 * want,
			              "gap %g axes %d: distance %.17g, want %.17g", g, axes,
			              ans.distance, want);
			ck_assert_double_eq(ans.depth, 0);
			ck_assert_msg(fabs(norm(3, ans.near) - ans.distance) <= 1e-15,
			              "near point not at the distance");
			/* The near point of A - B: (-g, 0, 0) / (-g, -g, 0) / (-g,-g,-g). */
			for (int k = 0; k < 3; k++)
				ck_assert_msg(fabs(ans.near[k] - (k < axes ? -g : 0)) <= 1e-13,
				              "gap %g axes %d: near[%d] = %.17g", g, axes, k,
				              ans.near[k]);
		}
	}
}
END_TEST

/* Distance, verdict and depth for axis-aligned boxes [alo, ahi] and
 * [blo, bhi]: their difference is the box [alo - bhi, ahi - blo]. */
static void box_closed_form(int dim, const double *alo, const double *ahi, const double *blo,
                            const double *bhi, int *overlap, double *dist, double *depth)
{
	double d2 = 0, dep = INFINITY;
	*overlap = 1;
	for (int k = 0; k < dim; k++) {
		double lo = alo[k] - bhi[k], hi = ahi[k] - blo[k];
		if (lo > 0) {
			d2 += lo * lo;
			*overlap = 0;
		} else if (hi < 0) {
			d2 += hi * hi;
			*overlap = 0;
		}
		dep = fmin(dep, fmin(-lo, hi));
	}
	*dist = sqrt(d2);
	*depth = *overlap ? dep : 0;
}

START_TEST(box_random)
{
	/* Random axis-aligned boxes (corners plus interior points, so qhull
	 * has to discard points) at scales 1e-3..1e3 and offsets up to 1e5. */
	prng r = {UINT64_C(0x0BADC0FFEE)};
	double worst = 0;
	int overlaps = 0, apart = 0;
	for (int it = 0; it < 600; it++) {
		int dim = it % 2 ? 3 : 2;
		double s = prng_log(&r, 1e-3, 1e3);
		double off = it % 5 == 0 ? prng_range(&r, -1e5, 1e5) : 0;
		double alo[3], ahi[3], blo[3], bhi[3], a[11 * 3], b[11 * 3];
		for (int k = 0; k < dim; k++) {
			alo[k] = off + s * prng_range(&r, -1, 1);
			ahi[k] = alo[k] + s * prng_range(&r, 0.1, 1);
			blo[k] = alo[k] + s * prng_range(&r, -0.9, 0.9);
			bhi[k] = blo[k] + s * prng_range(&r, 0.1, 1);
		}
		size_t na = box_corners(dim, alo, ahi, a), nb = box_corners(dim, blo, bhi, b);
		/* Interior points must change nothing. */
		for (int extra = 0; extra < 3; extra++, na++, nb++)
			for (int k = 0; k < dim; k++) {
				a[na * (size_t)dim + k] =
					alo[k] + (ahi[k] - alo[k]) * prng_unit(&r);
				b[nb * (size_t)dim + k] =
					blo[k] + (bhi[k] - blo[k]) * prng_unit(&r);
			}
		int overlap;
		double dist, depth;
		box_closed_form(dim, alo, ahi, blo, bhi, &overlap, &dist, &depth);
		oracle_answer ans;
		query_ok(dim, a, na, 0, b, nb, 0, &ans);
		/* qhull's rounding is relative to the largest difference
		 * coordinate, about 2·s here. */
		double tol = 1e-13 * s;
		if (fmax(dist, depth) > tol)
			ck_assert_msg(ans.hull_overlap == overlap,
			              "it %d: overlap %d, closed form %d", it, ans.hull_overlap,
			              overlap);
		double err = fmax(fabs(ans.hull_distance - dist), fabs(ans.hull_depth - depth));
		ck_assert_msg(err <= tol, "it %d dim %d: distance %.17g/%.17g depth %.17g/%.17g",
		              it, dim, ans.hull_distance, dist, ans.hull_depth, depth);
		worst = fmax(worst, err / s);
		overlaps += overlap;
		apart += !overlap;
	}
	ck_assert_int_gt(overlaps, 100);
	ck_assert_int_gt(apart, 100);
	printf("oracle box_random: %d overlapping, %d apart, worst error %.3g x size\n", overlaps,
	       apart, worst);
}
END_TEST

START_TEST(tetra_points)
{
	/* Standard tetrahedron against single points in each Voronoi region:
	 * B = {p} makes A - B a translate of A, so it is full-dimensional. */
	static const double t[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	const double r3 = sqrt(3.0);
	/* clang-format off */
	const struct {
		double p[3];
		double dist, depth;
	} cases[] = {
		{{1, 1, 1}, 2 / r3, 0},            /* face x+y+z=1 */
		{{2, -1, -1}, r3, 0},              /* vertex (1,0,0) */
		{{0.5, 0.5, -1}, 1, 0},            /* face z=0, projection on its edge */
		{{1, 1, -1}, sqrt(1.5), 0},        /* edge (1,0,0)-(0,1,0) */
		{{-1, -1, -1}, r3, 0},             /* vertex at the origin */
		{{0.2, 0.2, -0.5}, 0.5, 0},        /* face z=0, interior projection */
		{{-1, 0.25, 0.25}, 1, 0},          /* face x=0 */
		{{-1, -1, 0.5}, sqrt(2.0), 0},     /* edge on the z axis */
		{{0.1, 0.1, 0.1}, 0, 0.1},         /* inside: nearest faces x,y,z=0 */
		{{0.3, 0.3, 0.3}, 0, 0.1 / r3},    /* inside: nearest x+y+z=1 */
		{{0.1, 0.2, 0.3}, 0, 0.1},         /* inside: nearest x=0 */
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		oracle_answer ans;
		query_ok(3, t, 4, 0, cases[i].p, 1, 0, &ans);
		double wd = cases[i].dist;
		ck_assert_msg(fabs(ans.distance - wd) <= 1e-15,
		              "case %zu: distance %.17g, want %.17g", i, ans.distance, wd);
		ck_assert_msg(fabs(ans.depth - cases[i].depth) <= 1e-15,
		              "case %zu: depth %.17g, want %.17g", i, ans.depth, cases[i].depth);
		ck_assert_int_eq(ans.hull_overlap, wd == 0);
		double pd;
		ck_assert_int_eq(oracle_point_distance(3, t, 4, cases[i].p, &pd), ORACLE_OK);
		ck_assert_double_eq(pd, ans.hull_distance);
	}
}
END_TEST

START_TEST(planar)
{
	/* 2-D: right triangle (0,0) (4,0) (0,3), hypotenuse 3x + 4y = 12. */
	static const double tri[6] = {0, 0, 4, 0, 0, 3};
	static const struct {
		double p[2];
		double dist, depth;
	} cases[] = {
		{{4, 3}, 2.4, 0},                 /* hypotenuse: (12+12-12)/5 */
		{{5, -1}, 1.4142135623730951, 0}, /* vertex (4,0) */
		{{2, -2}, 2, 0},                  /* edge y=0 */
		{{-3, 7}, 5, 0},                  /* vertex (0,3) */
		{{0.5, 1}, 0, 0.5},               /* inside, nearest edge x=0 */
		{{1.5, 1.2}, 0, 0.54},            /* inside: hypotenuse (12-4.5-4.8)/5 < 1.2 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		oracle_answer ans;
		query_ok(2, tri, 3, 0, cases[i].p, 1, 0, &ans);
		double wdep = cases[i].depth;
		ck_assert_msg(fabs(ans.distance - cases[i].dist) <= 1e-15 &&
		                      fabs(ans.depth - wdep) <= 1e-15,
		              "case %zu: distance %.17g depth %.17g", i, ans.distance, ans.depth);
	}
	/* Squares: unit square against one moved by (1+g, 1+g): sqrt(2)·g. */
	double lo[2] = {0, 0}, hi[2] = {1, 1}, blo[2] = {1.5, 1.5}, bhi[2] = {2.5, 2.5};
	double a[8], b[8];
	box_corners(2, lo, hi, a);
	box_corners(2, blo, bhi, b);
	oracle_answer ans;
	query_ok(2, a, 4, 0, b, 4, 0, &ans);
	ck_assert_msg(fabs(ans.distance - sqrt(0.5)) <= 1e-15, "%.17g", ans.distance);
	/* Overlap by 0.25 along x and 0.6 along y: depth 0.25. */
	double clo[2] = {0.75, 0.4}, chi[2] = {1.75, 1.4};
	box_corners(2, clo, chi, b);
	query_ok(2, a, 4, 0, b, 4, 0, &ans);
	ck_assert(ans.hull_overlap && ans.intersecting);
	ck_assert_msg(fabs(ans.depth - 0.25) <= 1e-15, "%.17g", ans.depth);
}
END_TEST

START_TEST(radii)
{
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, a[24], b[24];
	box_corners(3, lo, hi, a);
	double blo[3] = {2, 0, 0}, bhi[3] = {3, 1, 1}; /* gap 1 */
	box_corners(3, blo, bhi, b);
	oracle_answer ans;
	query_ok(3, a, 8, 0.3, b, 8, 0.2, &ans); /* still apart by 0.5 */
	ck_assert(!ans.intersecting);
	ck_assert_msg(fabs(ans.distance - 0.5) <= 1e-15 && ans.depth == 0, "%.17g", ans.distance);
	ck_assert_double_eq(ans.hull_distance, 1);
	query_ok(3, a, 8, 1.0, b, 8, 0.5, &ans); /* radii overlap by 0.5 */
	ck_assert(ans.intersecting && !ans.hull_overlap);
	ck_assert_msg(ans.distance == 0 && fabs(ans.depth - 0.5) <= 1e-15, "%.17g", ans.depth);
	query_ok(3, a, 8, 0.5, b, 8, 0.5, &ans); /* exactly touching */
	ck_assert(ans.intersecting);
	ck_assert_double_eq(ans.distance, 0);
	ck_assert_double_eq(ans.depth, 0);
	double olo[3] = {0.9, 0.5, 0.5}, ohi[3] = {1.9, 1.5, 1.5}; /* overlap 0.1 */
	box_corners(3, olo, ohi, b);
	query_ok(3, a, 8, 0.25, b, 8, 0.5, &ans);
	ck_assert(ans.intersecting && ans.hull_overlap);
	ck_assert_msg(fabs(ans.hull_depth - 0.1) <= 1e-15, "%.17g", ans.hull_depth);
	ck_assert_msg(fabs(ans.depth - 0.85) <= 1e-15, "%.17g", ans.depth);
}
END_TEST

START_TEST(errors)
{
	/* Coplanar squares in 3-D and collinear points in 2-D: flat. */
	static const double sq[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
	static const double sq2[12] = {3, 0, 0, 4, 0, 0, 3, 1, 0, 4, 1, 0};
	static const double line[6] = {0, 0, 1, 1, 2, 2};
	static const double pt[3] = {5, 5, 5};
	oracle_answer ans;
	ans.distance = 42;
	ck_assert_int_eq(oracle_query(3, sq, 4, 0, sq2, 4, 0, &ans), ORACLE_EFLAT);
	ck_assert_double_eq(ans.distance, 0); /* zeroed on error */
	ck_assert_int_eq(oracle_query(2, line, 3, 0, pt, 1, 0, &ans), ORACLE_EFLAT);
	ck_assert_int_eq(oracle_query(3, pt, 1, 0, pt, 1, 0, &ans), ORACLE_EFLAT);
	ck_assert_int_eq(oracle_query(4, sq, 3, 0, sq2, 3, 0, &ans), ORACLE_EINVAL);
	ck_assert_int_eq(oracle_query(3, sq, 0, 0, sq2, 4, 0, &ans), ORACLE_EINVAL);
	ck_assert_int_eq(oracle_query(3, NULL, 4, 0, sq2, 4, 0, &ans), ORACLE_EINVAL);
	ck_assert_int_eq(oracle_query(3, sq, 4, -1, sq2, 4, 0, &ans), ORACLE_EINVAL);
	ck_assert_int_eq(oracle_query(3, sq, 4, 0, sq2, 4, NAN, &ans), ORACLE_EINVAL);
	ck_assert_int_eq(oracle_query(3, sq, 4, 0, sq2, 4, 0, NULL), ORACLE_EINVAL);
	double inf[3] = {INFINITY, 0, 0};
	ck_assert_int_eq(oracle_query(3, sq, 4, 0, inf, 1, 0, &ans), ORACLE_EINVAL);
	ck_assert_str_eq(oracle_strerror(ORACLE_EFLAT),
	                 "Minkowski difference is not full-dimensional");
}
END_TEST

/* ---- brute force -------------------------------------------------------- */

static double dotn(int dim, const double *u, const double *v)
{
	double s = 0;
	for (int i = 0; i < dim; i++)
		s += u[i] * v[i];
	return s;
}

/* Squared distance from p to segment [a, b] (any dimension). */
static double pt_seg2(int dim, const double *p, const double *a, const double *b)
{
	double ab[3], ap[3], q[3];
	for (int i = 0; i < dim; i++) {
		ab[i] = b[i] - a[i];
		ap[i] = p[i] - a[i];
	}
	double l2 = dotn(dim, ab, ab), t = 0;
	if (l2 > 0)
		t = fmax(0, fmin(1, dotn(dim, ap, ab) / l2));
	for (int i = 0; i < dim; i++)
		q[i] = p[i] - (a[i] + t * ab[i]);
	return dotn(dim, q, q);
}

/* Squared distance between segments [p1, q1] and [p2, q2]: the nearest pair
 * has an endpoint, or is interior to both and then solves the 2x2 normal
 * equations of the two lines. */
static double seg_seg2(int dim, const double *p1, const double *q1, const double *p2,
                       const double *q2)
{
	double best = fmin(fmin(pt_seg2(dim, p1, p2, q2), pt_seg2(dim, q1, p2, q2)),
	                   fmin(pt_seg2(dim, p2, p1, q1), pt_seg2(dim, q2, p1, q1)));
	double d1[3], d2[3], r[3];
	for (int i = 0; i < dim; i++) {
		d1[i] = q1[i] - p1[i];
		d2[i] = q2[i] - p2[i];
		r[i] = p1[i] - p2[i];
	}
	double a = dotn(dim, d1, d1), e = dotn(dim, d2, d2), b = dotn(dim, d1, d2);
	double c = dotn(dim, d1, r), f = dotn(dim, d2, r);
	double den = a * e - b * b;
	if (den > 1e-14 * a * e) {
		double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
		if (s > 0 && s < 1 && t > 0 && t < 1) {
			double w[3];
			for (int i = 0; i < dim; i++)
				w[i] = r[i] + s * d1[i] - t * d2[i];
			best = fmin(best, dotn(dim, w, w));
		}
	}
	return best;
}

/* Squared distance from p to triangle abc in 3-D, by Voronoi regions
 * (Ericson, Real-Time Collision Detection, 5.1.5). */
static double pt_tri2(const double *p, const double *a, const double *b, const double *c)
{
	double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
	for (int i = 0; i < 3; i++) {
		ab[i] = b[i] - a[i];
		ac[i] = c[i] - a[i];
		ap[i] = p[i] - a[i];
		bp[i] = p[i] - b[i];
		cp[i] = p[i] - c[i];
	}
	double d1 = dotn(3, ab, ap), d2 = dotn(3, ac, ap);
	double d3 = dotn(3, ab, bp), d4 = dotn(3, ac, bp);
	double d5 = dotn(3, ab, cp), d6 = dotn(3, ac, cp);
	double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
	if ((d1 <= 0 && d2 <= 0) || (d3 >= 0 && d4 <= d3) || (d6 >= 0 && d5 <= d6) ||
	    (vc <= 0 && d1 >= 0 && d3 <= 0) || (vb <= 0 && d2 >= 0 && d6 <= 0) ||
	    (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) || !(va + vb + vc > 0))
		/* A vertex or edge region: the nearest point is on an edge. */
		return fmin(pt_seg2(3, p, a, b), fmin(pt_seg2(3, p, b, c), pt_seg2(3, p, c, a)));
	double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
	for (int i = 0; i < 3; i++)
		q[i] = p[i] - (a[i] + v * ab[i] + w * ac[i]);
	return dotn(3, q, q);
}

/* Distance between the hulls of disjoint sets: the minimum over feature
 * pairs that can carry the nearest points. */
static double brute_distance(int dim, const double *a, int na, const double *b, int nb)
{
	double best = INFINITY;
	for (int i = 0; i < na; i++)
		for (int j = i; j < na; j++)
			for (int k = 0; k < nb; k++)
				for (int l = k; l < nb; l++)
					best = fmin(best, seg_seg2(dim, a + i * dim, a + j * dim,
					                           b + k * dim, b + l * dim));
	if (dim == 3) {
		for (int s = 0; s < 2; s++) {
			const double *p = s ? b : a, *t = s ? a : b;
			int np = s ? nb : na, nt = s ? na : nb;
			for (int i = 0; i < np; i++)
				for (int j = 0; j < nt; j++)
					for (int k = j + 1; k < nt; k++)
						for (int l = k + 1; l < nt; l++)
							best = fmin(best,
							            pt_tri2(p + i * 3, t + j * 3,
							                    t + k * 3, t + l * 3));
		}
	}
	return sqrt(best);
}

/* h(n) = max over A - B of n·x for unit n. */
static double support_diff(int dim, const double *n, const double *a, int na, const double *b,
                           int nb)
{
	double ha = -INFINITY, lb = INFINITY;
	for (int i = 0; i < na; i++)
		ha = fmax(ha, dotn(dim, n, a + i * dim));
	for (int i = 0; i < nb; i++)
		lb = fmin(lb, dotn(dim, n, b + i * dim));
	return ha - lb;
}

static void consider_axis(int dim, double *n, const double *a, int na, const double *b, int nb,
                          double scale2, double *hmin)
{
	double l = sqrt(dotn(dim, n, n));
	if (!(l > 1e-9 * scale2))
		return;
	for (int i = 0; i < dim; i++)
		n[i] /= l;
	*hmin = fmin(*hmin, support_diff(dim, n, a, na, b, nb));
	for (int i = 0; i < dim; i++)
		n[i] = -n[i];
	*hmin = fmin(*hmin, support_diff(dim, n, a, na, b, nb));
}

/* Separating axis theorem over every facet normal A - B can have (face
 * normals of A and B, cross products of edge pairs in 3-D).  Returns the
 * minimum of the support function of A - B over those axes: negative means
 * separated; otherwise it is the penetration depth, since every unit axis
 * bounds the depth from above and a facet normal attains it. */
static double brute_sat(int dim, const double *a, int na, const double *b, int nb, double scale)
{
	double hmin = INFINITY, n[3];
	double s2 = scale * scale;
	if (dim == 2) {
		for (int s = 0; s < 2; s++) {
			const double *p = s ? b : a;
			int np = s ? nb : na;
			for (int i = 0; i < np; i++)
				for (int j = i + 1; j < np; j++) {
					n[0] = -(p[j * 2 + 1] - p[i * 2 + 1]);
					n[1] = p[j * 2] - p[i * 2];
					consider_axis(2, n, a, na, b, nb, scale, &hmin);
				}
		}
		return hmin;
	}
	for (int s = 0; s < 2; s++) {
		const double *p = s ? b : a;
		int np = s ? nb : na;
		for (int i = 0; i < np; i++)
			for (int j = i + 1; j < np; j++)
				for (int k = j + 1; k < np; k++) {
					double u[3], v[3];
					for (int c = 0; c < 3; c++) {
						u[c] = p[j * 3 + c] - p[i * 3 + c];
						v[c] = p[k * 3 + c] - p[i * 3 + c];
					}
					n[0] = u[1] * v[2] - u[2] * v[1];
					n[1] = u[2] * v[0] - u[0] * v[2];
					n[2] = u[0] * v[1] - u[1] * v[0];
					consider_axis(3, n, a, na, b, nb, s2, &hmin);
				}
	}
	for (int i = 0; i < na; i++)
		for (int j = i + 1; j < na; j++)
			for (int k = 0; k < nb; k++)
				for (int l = k + 1; l < nb; l++) {
					double u[3], v[3];
					for (int c = 0; c < 3; c++) {
						u[c] = a[j * 3 + c] - a[i * 3 + c];
						v[c] = b[l * 3 + c] - b[k * 3 + c];
					}
					n[0] = u[1] * v[2] - u[2] * v[1];
					n[1] = u[2] * v[0] - u[0] * v[2];
					n[2] = u[0] * v[1] - u[1] * v[0];
					consider_axis(3, n, a, na, b, nb, s2, &hmin);
				}
	return hmin;
}

static void brute_run(int dim, uint64_t seed, int pairs)
{
	prng r = {seed};
	int apart = 0, overlap = 0;
	double worst_d = 0, worst_depth = 0;
	for (int it = 0; it < pairs; it++) {
		double a[8 * 3], b[8 * 3], c[3];
		int na = prng_int(&r, dim + 1, 8), nb = prng_int(&r, 1, 8);
		double s = prng_log(&r, 1e-2, 1e2);
		double off = it % 4 == 0 ? prng_range(&r, -1e3, 1e3) : 0;
		prng_direction(&r, dim, c);
		double sep = s * prng_range(&r, 0, 3);
		for (int i = 0; i < na * dim; i++)
			a[i] = off + s * prng_range(&r, -1, 1);
		for (int i = 0; i < nb; i++)
			for (int k = 0; k < dim; k++)
				b[i * dim + k] = off + sep * c[k] + s * prng_range(&r, -0.7, 0.7);
		oracle_answer ans;
		int rc = oracle_query(dim, a, (size_t)na, 0, b, (size_t)nb, 0, &ans);
		ck_assert_msg(rc == ORACLE_OK, "seed %#llx it %d: %s", (unsigned long long)seed, it,
		              oracle_strerror(rc));
		double hmin = brute_sat(dim, a, na, b, nb, s);
		/* Rounding is relative to the coordinates, here up to ~|off|+4s. */
		double tol = 1e-12 * (4 * s + fabs(off));
		if (fabs(hmin) > tol)
			ck_assert_msg(ans.hull_overlap == (hmin >= 0),
			              "seed %#llx it %d dim %d: oracle overlap %d, SAT min %.17g",
			              (unsigned long long)seed, it, dim, ans.hull_overlap, hmin);
		if (ans.hull_overlap) {
			double err = fabs(ans.hull_depth - hmin);
			ck_assert_msg(err <= tol, "seed %#llx it %d dim %d: depth %.17g, SAT %.17g",
			              (unsigned long long)seed, it, dim, ans.hull_depth, hmin);
			worst_depth = fmax(worst_depth, err / (4 * s + fabs(off)));
			overlap++;
		} else {
			double bd = brute_distance(dim, a, na, b, nb);
			double err = fabs(ans.hull_distance - bd);
			ck_assert_msg(err <= tol,
			              "seed %#llx it %d dim %d: distance %.17g, brute %.17g",
			              (unsigned long long)seed, it, dim, ans.hull_distance, bd);
			worst_d = fmax(worst_d, err / (4 * s + fabs(off)));
			/* The near point is at the distance and supports A - B:
			 * no difference point lies closer along its direction. */
			double dn = norm(dim, ans.near);
			ck_assert_msg(fabs(dn - ans.hull_distance) <= tol, "near point off");
			double u[3];
			for (int k = 0; k < dim; k++)
				u[k] = -ans.near[k] / dn;
			ck_assert_msg(support_diff(dim, u, a, na, b, nb) <= -dn + tol,
			              "seed %#llx it %d: near point does not support A - B",
			              (unsigned long long)seed, it);
			apart++;
		}
	}
	ck_assert_int_gt(apart, pairs / 10);
	ck_assert_int_gt(overlap, pairs / 10);
	printf("oracle brute %dD: %d apart, %d overlapping; worst distance error %.3g, "
	       "depth error %.3g (x coordinate size)\n",
	       dim, apart, overlap, worst_d, worst_depth);
}

START_TEST(brute_3d)
{
	brute_run(3, UINT64_C(0x5EED0003), 400);
}
END_TEST

START_TEST(brute_2d)
{
	brute_run(2, UINT64_C(0x5EED0002), 600);
}
END_TEST

static Suite *oracle_proof_suite(void)
{
	Suite *s = suite_create("oracle_proof");
	ck_case(s, "closed_forms", 30,
	        CK_TESTS(box_gaps, box_random, tetra_points, planar, radii, errors));
	ck_case(s, "brute_force", 60, CK_TESTS(brute_3d, brute_2d));
	return s;
}

CHECK_SUITE(oracle_proof_suite)
