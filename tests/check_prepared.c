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
 * the same shapes unprepared (the pairs of the random_pairs suite, and
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

enum {
	SPHERE,
	BALL,
	LATTICE,
	RINGS,
	FAR_SMALL,
	SNAPPED,
	COPLANAR,
	COLLINEAR,
	SAME,
	KINDS
};

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
		case COLLINEAR: p[0] = p[1] = p[2] = d[0]; break;
		default: p[0] = 1.0, p[1] = 2.0, p[2] = 3.0; break;
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
				size_t a = prepared_climb(p, e, 0, NULL),
				       b = support_max_dot(v, n, 3, e);
				double va = 0.0, vb = 0.0;
				for (int k = 0; k < 3; k++) {
					va += (v[3 * a + k] - v[k]) * e[k];
					vb += (v[3 * b + k] - v[k]) * e[k];
				}
				ck_assert_msg(va >= vb - 1e-12 * scale,
				              "kind %d, %zu points: the climb stops %.3g short",
				              kind, n, vb - va);
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
	ck_assert_msg(fabs(r.distance - s.distance) <= tol,
	              "%s: distance %.17g prepared, %.17g not", what, s.distance, r.distance);
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

/* ---- byte identity: prepared answers equal plain ones ---- */

enum {
	B_STORE,
	B_BOXGRID,
	B_PRISM,
	B_FIB,
	B_OCTGRID,
	B_KINDS
};

/* n >= 32 points of kind k (the shapes of the store suite, and shapes
 * with many exactly equal scores along axis and face directions). */
static void tie_points(int k, size_t n, double *v, prng *r)
{
	for (size_t i = 0; i < n; i++) {
		double *p = v + 3 * i;
		switch (k) {
		case B_STORE: /* as check_store.c's random_shape */
			for (int c = 0; c < 3; c++) {
				p[c] = 2.0 * prng_unit(r) - 1.0;
				if (prng_int(r, 0, 4) == 0)
					p[c] = (double)prng_int(r, -1, 1);
				if (p[c] == 0.0 && prng_int(r, 0, 1))
					p[c] = -0.0;
			}
			break;
		case B_BOXGRID: { /* corners, then points on the faces' grid */
			if (i < 8) {
				for (int c = 0; c < 3; c++)
					p[c] = (i >> c) & 1 ? 1.0 : -1.0;
				break;
			}
			int a = prng_int(r, 0, 2);
			for (int c = 0; c < 3; c++)
				p[c] = (double)prng_int(r, -4, 4) / 4.0;
			p[a] = prng_int(r, 0, 1) ? 1.0 : -1.0;
			break;
		}
		case B_PRISM: { /* a regular polygon twice, and points on its sides */
			size_t m = n / 3;
			double t = 6.283185307179586 * (double)(i % m) / (double)m;
			p[0] = cos(t);
			p[1] = sin(t);
			p[2] = i < m ? -1.0 : i < 2 * m ? 1.0 : (double)prng_int(r, -3, 3) / 4.0;
			break;
		}
		case B_FIB: { /* a Fibonacci sphere */
			double z = 1.0 - (2.0 * (double)i + 1.0) / (double)n;
			double rho = sqrt(1.0 - z * z), t = 2.399963229728653 * (double)i;
			p[0] = rho * cos(t);
			p[1] = rho * sin(t);
			p[2] = z;
			break;
		}
		default: /* an octahedron's faces on a grid */
			for (;;) {
				int a = prng_int(r, -4, 4), b = prng_int(r, -4, 4);
				int c = 4 - abs(a) - abs(b);
				if (c < 0)
					continue;
				p[0] = a / 4.0;
				p[1] = b / 4.0;
				p[2] = (prng_int(r, 0, 1) ? c : -c) / 4.0;
				break;
			}
			break;
		}
	}
}

/* Bitwise equality of n doubles (0 and -0 differ). */
static int same_bits(const double *x, const double *y, int n)
{
	return memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

/* The answers' members, all of them, bit for bit. */
static int same_result(const clash_result *x, const clash_result *y)
{
	if (x->dim != y->dim || x->has != y->has || x->intersecting != y->intersecting ||
	    x->iterations != y->iterations || x->converged != y->converged ||
	    x->backups != y->backups || x->warm_count != y->warm_count || x->part_a != y->part_a ||
	    x->part_b != y->part_b)
		return 0;
	for (size_t i = 0; i < x->warm_count; i++)
		if (x->warm_a[i] != y->warm_a[i] || x->warm_b[i] != y->warm_b[i])
			return 0;
	const int n = CLASH_MAX_DIM;
	return same_bits(&x->distance, &y->distance, 1) && same_bits(x->near_a, y->near_a, n) &&
	       same_bits(x->near_b, y->near_b, n) && same_bits(x->normal, y->normal, n) &&
	       same_bits(&x->offset, &y->offset, 1) &&
	       same_bits(&x->depth_lower_bound, &y->depth_lower_bound, 1) &&
	       same_bits(&x->depth, &y->depth, 1) &&
	       same_bits(x->depth_normal, y->depth_normal, n) &&
	       same_bits(x->depth_a, y->depth_a, n) && same_bits(x->depth_b, y->depth_b, n) &&
	       same_bits(&x->distance_lower_bound, &y->distance_lower_bound, 1);
}

/* One side of a pair: a convex shape or a compound of 1..3 parts, each
 * part of 32..80 points (one in ten of 100..600, more than the scans'
 * copies take), prepared (so climbed) and plain. */
typedef struct tie_side {
	double *v[3];
	void *st[3];
	clash_shape plain[3], prep[3], cp, cq; /* cp, cq: the compounds */
	size_t nparts;
	int compound;
} tie_side;

static void tie_side_make(tie_side *t, prng *r, double cx)
{
	memset(t, 0, sizeof *t);
	t->compound = prng_int(r, 0, 2) > 0;
	t->nparts = t->compound ? (size_t)prng_int(r, 1, 3) : 1;
	for (size_t i = 0; i < t->nparts; i++) {
		size_t n =
			(size_t)(prng_int(r, 0, 9) ? prng_int(r, 32, 80) : prng_int(r, 100, 600));
		int k = prng_int(r, 0, 3) ? B_STORE : prng_int(r, 1, B_KINDS - 1);
		t->v[i] = malloc(3 * n * sizeof(double));
		tie_points(k, n, t->v[i], r);
		for (size_t j = 0; j < n; j++)
			t->v[i][3 * j] += cx + (double)i;
		ck_assert_int_eq(clash_shape_init(&t->plain[i], 3, t->v[i], n), CLASH_OK);
		if (prng_int(r, 0, 1))
			clash_shape_set_radius(&t->plain[i], 0.25);
		t->prep[i] = t->plain[i];
		size_t size;
		t->st[i] = storage_for(3, n, &size);
		ck_assert_int_eq(clash_shape_prepare(&t->prep[i], t->st[i], size), CLASH_OK);
	}
	if (t->compound) {
		ck_assert_int_eq(clash_shape_init_compound(&t->cp, 3, t->plain, t->nparts),
		                 CLASH_OK);
		ck_assert_int_eq(clash_shape_init_compound(&t->cq, 3, t->prep, t->nparts),
		                 CLASH_OK);
	} else {
		t->cp = t->plain[0];
		t->cq = t->prep[0];
	}
}

static void tie_side_free(tie_side *t)
{
	for (size_t i = 0; i < t->nparts; i++) {
		free(t->v[i]);
		free(t->st[i]);
	}
}

/* Pose both forms of a side alike. */
static void tie_pose(tie_side *t, const double *q, const double *tr)
{
	clash_shape *s[2] = {&t->cp, &t->cq};
	for (int j = 0; j < 2; j++) {
		if (q)
			ck_assert_int_eq(clash_shape_set_quaternion(s[j], q), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(s[j], tr), CLASH_OK);
	}
}

/* Every method's answers, plain and prepared; counts the pairs where some
 * answer differs (printing the first few), and the queries made. */
static int tie_compare(const tie_side *a, const tie_side *b, const char *what, int *queries)
{
	static const unsigned wants[] = {0, CLASH_WANT_VERDICT, CLASH_WANT_DISTANCE,
	                                 CLASH_WANT_VERDICT | CLASH_WANT_DEPTH};
	int bad = 0;
	for (int m = 0; m < 7; m++) {
		clash_result x, y;
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		clash_options o = {0};
		int ex, ey;
		const char *name;
		if (m < 4) {
			o.want = wants[m];
			ex = clash_gjk(&a->cp, &b->cp, &o, &x);
			ey = clash_gjk(&a->cq, &b->cq, &o, &y);
			name = "gjk";
		} else if (m == 4) {
			ex = clash_lp_simplex(&a->cp, &b->cp, NULL, &x);
			ey = clash_lp_simplex(&a->cq, &b->cq, NULL, &y);
			name = "simplex";
		} else if (m == 5) {
			ex = clash_lp_ipm(&a->cp, &b->cp, NULL, &x);
			ey = clash_lp_ipm(&a->cq, &b->cq, NULL, &y);
			name = "ipm";
		} else {
			clash_containment u, w;
			memset(&u, 0, sizeof u);
			memset(&w, 0, sizeof w);
			ex = clash_contains(&b->cp, &a->cp, NULL, &u);
			ey = clash_contains(&b->cq, &a->cq, NULL, &w);
			(*queries)++;
			if (ex != ey || memcmp(&u, &w, sizeof u) != 0) {
				if (bad++ < 1)
					fprintf(stderr,
					        "%s: contains differs (%d %d): %d %d, %d %d, %zu %zu, %d %d, %d %d\n",
					        what, ex, ey, u.contained, w.contained,
					        u.has_outside_vertex, w.has_outside_vertex,
					        u.outside_vertex, w.outside_vertex, u.iterations,
					        w.iterations, u.converged, w.converged);
			}
			continue;
		}
		(*queries)++;
		if (ex != ey || (ex == CLASH_OK && !same_result(&x, &y))) {
			if (bad++ < 1)
				fprintf(stderr,
				        "%s: %s want %u differs (%d %d): depth %.17g %.17g "
				        "distance %.17g %.17g\n",
				        what, name, o.want, ex, ey, x.depth, y.depth, x.distance,
				        y.distance);
		}
	}
	return bad;
}

START_TEST(bytes_same)
{
	prng r = {UINT64_C(0x746965)};
	const double q45[4] = {0, 0, 0.38268343236508984, 0.9238795325112867};
	const double ta[3] = {0.5, 0.25, 0};
	const double tb[3][3] = {{1.5, 0, 0}, {0.2, 0.1, 0}, {4, 0.5, 0}};
	int pairs = 0, bad = 0, queries = 0;
	for (int i = 0; i < 400; i++) {
		tie_side a, b;
		tie_side_make(&a, &r, 0.0);
		tie_side_make(&b, &r, 0.5);
		double q[4];
		prng_rotation(&r, q);
		tie_pose(&a, NULL, ta);
		tie_pose(&b, i % 4 == 3 ? q : i % 3 == 1 ? q45 : NULL, tb[i % 3]);
		char what[64];
		snprintf(what, sizeof what, "pair %d", i);
		int d = tie_compare(&a, &b, what, &queries);
		bad += d > 0;
		pairs++;
		tie_side_free(&a);
		tie_side_free(&b);
	}
	fprintf(stderr, "bytes_same: %d of %d pairs differ (%d queries)\n", bad, pairs, queries);
	ck_assert_int_eq(bad, 0);
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
	ck_case(s, "prepared", 120,
	        CK_TESTS(climb_matches_scan, pairs_agree, big_spheres, compact_copy, api,
	                 bytes_same, contains_prepared_inner));
	return s;
}

CHECK_SUITE(prepared_suite)
