/*
 * check_prepared.c — suite "prepared": clash_shape_prepare and the hill
 * climbing over the convex hull it builds (core/prepared.c, core/hull3.c).
 *
 * The judge is the linear scan: for point sets made to be hard for a hull
 * builder (thousands of points on a sphere, most of a ball's points inside,
 * lattices full of coplanar and collinear points, duplicates, coplanar
 * circles, a small shape 1e5 from the origin) the climb's support point
 * must be as far along every direction tried as the scan's, to rounding.
 * Then whole queries: gjk, simplex and ipm on prepared shapes answer as on
 * the same shapes unprepared (the random pairs of the pairs suite, and
 * spheres of up to 20 000 points), and the API refuses what it must.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "pairgen.h"
#include "prepared.h"
#include "prng.h"
#include "support.h"

enum { SPHERE, BALL, LATTICE, RINGS, FAR_SMALL, SNAPPED, COPLANAR, COLLINEAR, SAME, KINDS };

static void points(int kind, size_t n, double *v, prng *r)
{
	int g = (int)ceil(cbrt((double)n));
	for (size_t i = 0; i < n; i++) {
		double d[3], *p = v + 3 * i;
		prng_direction(r, 3, d);
		switch (kind) {
		case SPHERE:
			for (int k = 0; k < 3; k++)
				p[k] = 2.0 * d[k];
			break;
		case BALL: {
			double u = cbrt(prng_unit(r));
			for (int k = 0; k < 3; k++)
				p[k] = u * d[k];
			break;
		}
		case LATTICE: {
			size_t j = i;
			for (int k = 0; k < 3; k++) {
				p[k] = (double)(j % (size_t)g);
				j /= (size_t)g;
			}
			break;
		}
		case RINGS: {
			double t = prng_range(r, 0, 6.283185307179586);
			p[0] = cos(t);
			p[1] = sin(t);
			p[2] = 0.25 * (double)(i % 5);
			break;
		}
		case FAR_SMALL:
			p[0] = 1e5 + 3e-3 * d[0];
			p[1] = -2e5 + 1e-3 * d[1];
			p[2] = 7e4 + 1e-3 * d[2];
			break;
		case SNAPPED:
			for (int k = 0; k < 3; k++)
				p[k] = round(4.0 * d[k]) / 4.0;
			break;
		case COPLANAR:
			p[0] = d[0];
			p[1] = d[1];
			p[2] = 0.5;
			break;
		case COLLINEAR:
			p[0] = p[1] = p[2] = d[0];
			break;
		default:
			p[0] = 1.0, p[1] = 2.0, p[2] = 3.0;
			break;
		}
	}
}

/* Points in the first layer of the lattice of n points. */
static size_t lattice_layer(size_t n)
{
	size_t g = (size_t)ceil(cbrt((double)n));
	return g * g;
}

static void *storage_for(int dim, size_t n, size_t *size)
{
	*size = clash_prepared_size(dim, n);
	ck_assert(*size > 0);
	void *st = malloc(*size);
	ck_assert_ptr_nonnull(st);
	return st;
}

START_TEST(climb_matches_scan)
{
	static const size_t sizes[] = {4, 5, 9, 31, 32, 50, 200, 2000, 20000};
	prng r = {UINT64_C(0x68756c6c)};
	for (int kind = 0; kind < KINDS; kind++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			size_t n = sizes[s];
			double *v = malloc(3 * n * sizeof *v);
			points(kind, n, v, &r);
			clash_shape sh;
			ck_assert_int_eq(clash_shape_init(&sh, 3, v, n), CLASH_OK);
			size_t size;
			void *st = storage_for(3, n, &size);
			ck_assert_int_eq(clash_shape_prepare(&sh, st, size), CLASH_OK);
			const prepared *p;
			ck_assert_int_eq(prepared_of(&sh, &p), CLASH_OK);
			ck_assert_ptr_nonnull(p);
			/* Flat sets have no graph (and keep scanning). */
			if (kind >= COPLANAR)
				ck_assert_uint_eq(p->hull, 0);
			else if (kind != LATTICE || n > lattice_layer(n)) /* one layer is flat */
				ck_assert_msg(p->hull > 3, "kind %d, %zu points: no hull", kind, n);
			double scale = 0.0;
			for (size_t i = 0; i < 3 * n; i++)
				scale = fmax(scale, fabs(v[i] - v[i % 3]));
			for (int t = 0; p->hull > 0 && t < 3000; t++) {
				double e[3];
				prng_direction(&r, 3, e);
				size_t a = prepared_climb(p, e, 0, NULL), b = support_max_dot(v, n, 3, e);
				double va = 0.0, vb = 0.0;
				for (int k = 0; k < 3; k++) {
					va += (v[3 * a + k] - v[k]) * e[k];
					vb += (v[3 * b + k] - v[k]) * e[k];
				}
				ck_assert_msg(va >= vb - 1e-12 * scale,
				              "kind %d, %zu points: the climb stops %.3g short", kind, n,
				              vb - va);
			}
			free(st);
			free(v);
		}
}
END_TEST

/* Prepared and unprepared answers of one pair agree. */
static void agree(const clash_shape *a, const clash_shape *b, const clash_shape *pa,
                  const clash_shape *pb, double size, const char *what)
{
	clash_result r, s;
	ck_assert_int_eq(clash_gjk(a, b, NULL, &r), CLASH_OK);
	ck_assert_int_eq(clash_gjk(pa, pb, NULL, &s), CLASH_OK);
	double tol = 1e-9 * r.distance + 1e-11 * size;
	ck_assert_msg(fabs(r.distance - s.distance) <= tol, "%s: distance %.17g prepared, %.17g not",
	              what, s.distance, r.distance);
	if (r.intersecting && s.intersecting && (r.has & s.has & CLASH_HAS_DEPTH) && r.converged &&
	    s.converged)
		ck_assert_msg(fabs(r.depth - s.depth) <= 1e-9 * r.depth + 1e-11 * size,
		              "%s: depth %.17g prepared, %.17g not", what, s.depth, r.depth);
	/* Verdicts agree unless the pair is within rounding of touching. */
	if (r.distance > 1e-10 * size || (r.intersecting && r.depth > 1e-10 * size)) {
		ck_assert_int_eq(r.intersecting, s.intersecting);
		/* simplex declines rounded pairs its bounds cannot decide */
		int rc = clash_lp_simplex(pa, pb, NULL, &s);
		ck_assert(rc == CLASH_OK || rc == CLASH_ENOTSUP);
		if (rc == CLASH_OK)
			ck_assert_int_eq(s.intersecting, r.intersecting);
		ck_assert_int_eq(clash_lp_ipm(pa, pb, NULL, &s), CLASH_OK);
		ck_assert_int_eq(s.intersecting, r.intersecting);
	}
}

START_TEST(pairs_agree)
{
	for (int i = 0; i < 3000; i++) {
		pair p;
		clash_shape a, b;
		oracle_answer o;
		uint64_t seed = pair_seed(UINT64_C(0x70726570), i);
		if (pair_make(&p, seed, 3, &a, &b, &o) != 0)
			continue;
		clash_shape pa = a, pb = b;
		size_t sa, sb;
		void *ma = storage_for(3, a.count, &sa), *mb = storage_for(3, b.count, &sb);
		ck_assert_int_eq(clash_shape_prepare(&pa, ma, sa), CLASH_OK);
		ck_assert_int_eq(clash_shape_prepare(&pb, mb, sb), CLASH_OK);
		char what[64];
		snprintf(what, sizeof what, "pair seed %llu", (unsigned long long)seed);
		agree(&a, &b, &pa, &pb, p.a.extent + p.b.extent, what);
		free(ma);
		free(mb);
	}
}
END_TEST

START_TEST(big_spheres)
{
	prng r = {42};
	for (size_t n = 200; n <= 20000; n *= 10) {
		double *va = malloc(3 * n * sizeof *va), *vb = malloc(3 * n * sizeof *vb);
		points(SPHERE, n, va, &r);
		points(BALL, n, vb, &r);
		for (int t = 0; t < 30; t++) {
			clash_shape a, b;
			clash_shape_init(&a, 3, va, n);
			clash_shape_init(&b, 3, vb, n);
			double q[4], d[3], tr[3];
			prng_direction(&r, 4, q);
			prng_direction(&r, 3, d);
			double len = t % 3 == 0 ? 3.5 : t % 3 == 1 ? 2.9 : 1.5;
			for (int k = 0; k < 3; k++)
				tr[k] = len * d[k];
			ck_assert_int_eq(clash_shape_set_quaternion(&b, q), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_translation(&b, tr), CLASH_OK);
			clash_shape pa = a, pb = b;
			size_t sa, sb;
			void *ma = storage_for(3, n, &sa), *mb = storage_for(3, n, &sb);
			ck_assert_int_eq(clash_shape_prepare(&pa, ma, sa), CLASH_OK);
			ck_assert_int_eq(clash_shape_prepare(&pb, mb, sb), CLASH_OK);
			char what[64];
			snprintf(what, sizeof what, "spheres of %zu points, try %d", n, t);
			agree(&a, &b, &pa, &pb, 3.0, what);
			free(ma);
			free(mb);
		}
		free(va);
		free(vb);
	}
}
END_TEST

/* A preparation copied out of its scratch works like the original. */
START_TEST(compact_copy)
{
	prng r = {99};
	size_t n = 5000;
	double *v = malloc(3 * n * sizeof *v), w[] = {4, 0, 0, 5, 0, 0, 4, 1, 0, 4, 0, 1};
	points(SPHERE, n, v, &r);
	clash_shape s, t, other;
	ck_assert_int_eq(clash_shape_init(&s, 3, v, n), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&other, 3, w, 4), CLASH_OK);
	ck_assert_uint_eq(clash_prepared_bytes(&s), 0);
	size_t size;
	void *st = storage_for(3, n, &size);
	ck_assert_int_eq(clash_shape_prepare(&s, st, size), CLASH_OK);
	size_t kept = clash_prepared_bytes(&s);
	ck_assert(kept > 0 && kept < size / 4);
	void *copy = malloc(kept);
	memcpy(copy, st, kept);
	clash_result r1, r2;
	ck_assert_int_eq(clash_gjk(&s, &other, NULL, &r1), CLASH_OK);
	free(st);
	/* the copy on a fresh shape borrowing the same array */
	ck_assert_int_eq(clash_shape_init(&t, 3, v, n), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_prepared(&t, copy), CLASH_OK);
	ck_assert_uint_eq(clash_prepared_bytes(&t), kept);
	ck_assert_int_eq(clash_gjk(&t, &other, NULL, &r2), CLASH_OK);
	ck_assert(r1.distance == r2.distance && r2.distance > 1.9);
	/* not a preparation of other's vertices */
	ck_assert_int_eq(clash_shape_set_prepared(&other, copy), CLASH_EINVAL);
	ck_assert_ptr_null(other.prepared);
	ck_assert_int_eq(clash_shape_set_prepared(&t, (char *)copy + 1), CLASH_EINVAL);
	ck_assert_ptr_eq(t.prepared, copy);
	free(copy);
	free(v);
}
END_TEST

START_TEST(api)
{
	double v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
	double w[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
	clash_shape s;
	ck_assert_uint_eq(clash_prepared_size(0, 5), 0);
	ck_assert_uint_eq(clash_prepared_size(3, 0), 0);
	ck_assert_uint_gt(clash_prepared_size(2, 5), 0);
	size_t size;
	double *st = storage_for(3, 5, &size);
	ck_assert_int_eq(clash_shape_init(&s, 3, v, 5), CLASH_OK);
	ck_assert_int_eq(clash_shape_prepare(NULL, st, size), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_prepare(&s, NULL, size), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_prepare(&s, st, size - 1), CLASH_EINVAL);
	ck_assert_int_eq(clash_shape_prepare(&s, (char *)st + 4, size - 8), CLASH_EINVAL);
	ck_assert_ptr_null(s.prepared);
	ck_assert_int_eq(clash_shape_prepare(&s, st, size), CLASH_OK);
	ck_assert_ptr_nonnull(s.prepared);
	/* Poses change freely; a prepared and a plain copy agree. */
	clash_shape plain, other;
	ck_assert_int_eq(clash_shape_init(&plain, 3, v, 5), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&other, 3, w, 5), CLASH_OK);
	double q[4] = {0.1, 0.2, 0.3, sqrt(0.86)}, t[3] = {2.5, 0.5, 0.25};
	ck_assert_int_eq(clash_shape_set_quaternion(&other, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&other, t), CLASH_OK);
	clash_result r1, r2;
	ck_assert_int_eq(clash_gjk(&s, &other, NULL, &r1), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&plain, &other, NULL, &r2), CLASH_OK);
	ck_assert(fabs(r1.distance - r2.distance) <= 1e-12);
	/* A preparation that no longer matches its shape is refused. */
	clash_shape bad = s;
	bad.vertices = w;
	ck_assert_int_eq(clash_gjk(&bad, &other, NULL, &r1), CLASH_EINVAL);
	bad = s;
	bad.count = 4;
	ck_assert_int_eq(clash_gjk(&bad, &other, NULL, &r1), CLASH_EINVAL);
	ck_assert_int_eq(clash_lp_simplex(&bad, &other, NULL, &r1), CLASH_EINVAL);
	bad = s;
	double junk[64] = {0};
	bad.prepared = junk;
	ck_assert_int_eq(clash_gjk(&bad, &other, NULL, &r1), CLASH_EINVAL);
	/* clash_shape_init forgets it. */
	ck_assert_int_eq(clash_shape_init(&s, 3, v, 5), CLASH_OK);
	ck_assert_ptr_null(s.prepared);
	/* Non-finite vertices are refused when preparing. */
	double nan_v[] = {0, 0, 0, NAN, 0, 0};
	ck_assert_int_eq(clash_shape_init(&s, 3, nan_v, 2), CLASH_OK);
	ck_assert_int_eq(clash_shape_prepare(&s, st, size), CLASH_ERANGE);
	ck_assert_ptr_null(s.prepared);
	/* Compound shapes are not prepared; prepared parts are fine. */
	clash_shape parts[2], comp;
	ck_assert_int_eq(clash_shape_init(&parts[0], 3, v, 5), CLASH_OK);
	ck_assert_int_eq(clash_shape_prepare(&parts[0], st, size), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&parts[1], 3, w, 5), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&parts[1], (double[]){5, 0, 0}), CLASH_OK);
	ck_assert_int_eq(clash_shape_init_compound(&comp, 3, parts, 2), CLASH_OK);
	ck_assert_int_eq(clash_shape_prepare(&comp, st, size), CLASH_EINVAL);
	ck_assert_int_eq(clash_gjk(&comp, &other, NULL, &r1), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&parts[0], &other, NULL, &r2), CLASH_OK);
	ck_assert(fabs(r1.distance - r2.distance) <= 1e-12);
	free(st);
	/* Other dimensions keep the box only, and answer as before. */
	double sq[] = {0, 0, 1, 0, 1, 1, 0, 1}, tri[] = {3, 0, 4, 0, 3, 1};
	clash_shape a2, b2, c2;
	ck_assert_int_eq(clash_shape_init(&a2, 2, sq, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b2, 2, tri, 3), CLASH_OK);
	st = storage_for(2, 4, &size);
	c2 = a2;
	ck_assert_int_eq(clash_shape_prepare(&c2, st, size), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&c2, &b2, NULL, &r1), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&a2, &b2, NULL, &r2), CLASH_OK);
	ck_assert(r1.distance == r2.distance && r1.distance == 2.0);
	free(st);
}
END_TEST

/* A prepared inner shape in clash_contains: its vertices are taken one by
 * one (each a shape of one point, which the preparation does not
 * describe), as for the same shape unprepared. */
START_TEST(contains_prepared_inner)
{
	prng r = {7};
	size_t n = 40;
	double *vi = malloc(3 * n * sizeof *vi), *vo = malloc(3 * n * sizeof *vo);
	points(SPHERE, n, vi, &r); /* radius 2 */
	points(SPHERE, n, vo, &r);
	for (size_t i = 0; i < 3 * n; i++) {
		vi[i] *= 0.25;
		vo[i] *= 2.0;
	}
	clash_shape inner, outer, plain;
	ck_assert_int_eq(clash_shape_init(&inner, 3, vi, n), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&outer, 3, vo, n), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&outer, 0.5), CLASH_OK);
	plain = inner;
	size_t size;
	void *st = storage_for(3, n, &size);
	ck_assert_int_eq(clash_shape_prepare(&inner, st, size), CLASH_OK);
	clash_containment x, y;
	ck_assert_int_eq(clash_contains(&plain, &outer, NULL, &x), CLASH_OK);
	ck_assert_int_eq(clash_contains(&inner, &outer, NULL, &y), CLASH_OK);
	ck_assert_int_eq(x.contained, 1);
	ck_assert_int_eq(y.contained, 1);
	ck_assert_int_eq(x.iterations, y.iterations);
	free(st);
	free(vi);
	free(vo);
}
END_TEST

static Suite *prepared_suite(void)
{
	Suite *s = suite_create("prepared");
	TCase *tc = tcase_create("prepared");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, climb_matches_scan);
	tcase_add_test(tc, pairs_agree);
	tcase_add_test(tc, big_spheres);
	tcase_add_test(tc, compact_copy);
	tcase_add_test(tc, api);
	tcase_add_test(tc, contains_prepared_inner);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_SUITE(prepared_suite)
