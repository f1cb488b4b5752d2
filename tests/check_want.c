/*
 * check_want.c — suite "want": clash_options.want and the Query member
 * "want" (core/gjk.c, proto/endpoints/query.c).
 *
 * A query that wants less must not answer differently: the verdict of
 * CLASH_WANT_VERDICT is the full query's on every GJK88 example and on the
 * pairs of the random_pairs suite (rounded ones too, 2-D and 3-D), its
 * separating plane separates the vertices and its distance_lower_bound is
 * at most the full query's distance; without CLASH_WANT_DEPTH the distance
 * and near points are the full query's and no depth is computed.  The wire
 * member is checked for its 422s and pointers.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "gjk88.h"
#include "oracle.h"
#include "pairgen.h"
#include "proto.h"

/* Every vertex of s, posed, on its side of the plane n.x = c (within tol):
 * side -1 for n.x <= c, +1 for n.x >= c. */
static void on_side(const clash_shape *s, const double *n, double c, int side, double tol)
{
	const int d = s->dim;
	for (size_t i = 0; i < s->count; i++) {
		const double *v = s->vertices + i * (size_t)d;
		double x = 0.0;
		for (int r = 0; r < d; r++) {
			double w = v[r];
			if (s->posed) {
				w = s->translation[r];
				for (int k = 0; k < d; k++)
					w += s->linear[k * d + r] * v[k];
			}
			x += n[r] * w;
		}
		double off = side < 0 ? x - c : c - x;
		ck_assert_msg(off <= tol + s->radius,
		              "vertex %zu is %.3g on the wrong side of the plane", i, off);
	}
}

/* Iterations of the verdict-only and of the full queries compare() made,
 * and how many pairs took more for the verdict: wanting less must cost
 * less over a set of pairs.  Pair by pair it may not: the verdict starts
 * from the shapes' centre point (core/gjk.c), the full query from a
 * support point, so the two take different paths. */
static long iter_verdict, iter_full, iter_worse;

static void iterations_start(void)
{
	iter_verdict = iter_full = iter_worse = 0;
}

static void iterations_check(const char *set)
{
	printf("want: %s: %ld verdict iterations against %ld full, %ld pairs took more\n", set,
	       iter_verdict, iter_full, iter_worse);
	ck_assert(iter_verdict <= iter_full);
}

/* The verdict-only and distance-only answers of one pair against the full
 * one. */
static void compare(const clash_shape *a, const clash_shape *b, const char *what)
{
	clash_result full, v, d;
	clash_options ov = {0}, od = {0};
	ov.want = CLASH_WANT_VERDICT;
	od.want = CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE;
	ck_assert_int_eq(clash_gjk(a, b, NULL, &full), CLASH_OK);
	ck_assert_int_eq(clash_gjk(a, b, &ov, &v), CLASH_OK);
	ck_assert_int_eq(clash_gjk(a, b, &od, &d), CLASH_OK);
	ck_assert_msg(v.intersecting == full.intersecting, "%s: verdict-only says %d, full %d",
	              what, v.intersecting, full.intersecting);
	iter_verdict += v.iterations;
	iter_full += full.iterations;
	iter_worse += v.iterations > full.iterations;
	ck_assert(!(v.has & (CLASH_HAS_DISTANCE | CLASH_HAS_DEPTH | CLASH_HAS_DEPTH_BOUND)));
	ck_assert(v.has & CLASH_HAS_DISTANCE_BOUND);
	double size = 0;
	for (int k = 0; k < a->dim; k++)
		size = fmax(size, fabs(full.near_a[k]) + fabs(full.near_b[k]));
	double tol = 1e-9 * (1.0 + size + full.distance);
	if (v.intersecting) {
		ck_assert(v.distance_lower_bound == 0.0);
	} else {
		ck_assert(v.has & CLASH_HAS_PLANE);
		ck_assert_msg(v.distance_lower_bound <= full.distance * (1 + 1e-9) + 1e-12 * size,
		              "%s: lower bound %.17g above the distance %.17g", what,
		              v.distance_lower_bound, full.distance);
		on_side(a, v.normal, v.offset, -1, tol);
		on_side(b, v.normal, v.offset, +1, tol);
	}
	/* Distance without depth: the same numbers, no EPA. */
	ck_assert_int_eq(d.intersecting, full.intersecting);
	ck_assert(d.distance == full.distance);
	for (int k = 0; k < a->dim; k++) {
		ck_assert(d.near_a[k] == full.near_a[k]);
		ck_assert(d.near_b[k] == full.near_b[k]);
	}
	ck_assert(!(d.has & CLASH_HAS_DEPTH));
	ck_assert_int_eq(d.has | CLASH_HAS_DEPTH, full.has | CLASH_HAS_DEPTH);
}

START_TEST(gjk88_verdicts)
{
	gjk88_set *set = malloc(sizeof *set);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(gjk88_build(set), 0);
	int early = 0;
	iterations_start();
	for (int i = 0; i < GJK88_CASES; i++) {
		const gjk88_case *k = &set->cases[i];
		clash_shape a, b;
		ck_assert_int_eq(clash_shape_init(&a, 3, k->a->v, (size_t)k->a->m), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_quaternion(&a, k->qa), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(&a, k->ta), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&b, 3, k->b->v, (size_t)k->b->m), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_quaternion(&b, k->qb), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(&b, k->tb), CLASH_OK);
		char what[64];
		snprintf(what, sizeof what, "gjk88 case %d", i);
		compare(&a, &b, what);
		clash_options ov = {0};
		ov.want = CLASH_WANT_VERDICT;
		clash_result r;
		clash_gjk(&a, &b, &ov, &r);
		early += r.iterations == 1;
	}
	iterations_check("GJK88");
	/* Most separated examples are decided by the first support point. */
	printf("want: %d of %d GJK88 verdicts after one iteration\n", early, GJK88_CASES);
	ck_assert(early > GJK88_CASES / 6);
	free(set);
}
END_TEST

START_TEST(random_pairs)
{
	iterations_start();
	for (int dim = 2; dim <= 3; dim++)
		for (int i = 0; i < 1500; i++) {
			pair p;
			clash_shape a, b;
			oracle_answer o;
			uint64_t seed = pair_seed(UINT64_C(0x77616e74) + (uint64_t)dim, i);
			if (pair_make(&p, seed, dim, &a, &b, &o) != 0)
				continue;
			char what[64];
			snprintf(what, sizeof what, "pair seed %llu dim %d",
			         (unsigned long long)seed, dim);
			compare(&a, &b, what);
		}
	iterations_check("random pairs");
}
END_TEST

START_TEST(higher_dimensions)
{
	/* Cross-polytopes in 4-D and 8-D, apart, touching and overlapping,
	 * with and without radii. */
	for (int n = 4; n <= CLASH_MAX_DIM; n += 4) {
		static double va[2 * CLASH_MAX_DIM * CLASH_MAX_DIM],
			vb[2 * CLASH_MAX_DIM * CLASH_MAX_DIM];
		for (int i = 0; i < 2 * n; i++)
			for (int k = 0; k < n; k++) {
				va[i * n + k] = (k == i / 2) ? (i & 1 ? -1.0 : 1.0) : 0.0;
				vb[i * n + k] = va[i * n + k];
			}
		const double gaps[] = {0.5, 0.0, -0.3};
		for (int g = 0; g < 3; g++)
			for (int rad = 0; rad < 2; rad++) {
				clash_shape a, b;
				ck_assert_int_eq(clash_shape_init(&a, n, va, (size_t)(2 * n)),
				                 CLASH_OK);
				ck_assert_int_eq(clash_shape_init(&b, n, vb, (size_t)(2 * n)),
				                 CLASH_OK);
				double t[CLASH_MAX_DIM] = {0};
				t[0] = 2.0 + gaps[g];
				t[1] = 0.25;
				ck_assert_int_eq(clash_shape_set_translation(&b, t), CLASH_OK);
				if (rad)
					ck_assert_int_eq(clash_shape_set_radius(&a, 0.2), CLASH_OK);
				char what[64];
				snprintf(what, sizeof what, "%d-D gap %g radius %d", n, gaps[g],
				         rad);
				compare(&a, &b, what);
			}
	}
}
END_TEST

/* Unions of convex parts: the verdict-only answer is the full one's. */
START_TEST(compounds)
{
	static const double box[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0,
	                             0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
	for (int i = 0; i < 200; i++) {
		clash_shape pa[2], pb[2], a, b;
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(clash_shape_init(&pa[k], 3, box, 8), CLASH_OK);
			ck_assert_int_eq(clash_shape_init(&pb[k], 3, box, 8), CLASH_OK);
		}
		ck_assert_int_eq(clash_shape_set_translation(&pa[1], (double[]){1, 0, 0}),
		                 CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(&pb[1], (double[]){0, 1, 0}),
		                 CLASH_OK);
		ck_assert_int_eq(clash_shape_init_compound(&a, 3, pa, 2), CLASH_OK);
		ck_assert_int_eq(clash_shape_init_compound(&b, 3, pb, 2), CLASH_OK);
		double t = 0.01 * i - 0.5;
		ck_assert_int_eq(clash_shape_set_translation(&b,
		                                             (double[]){2 + t, 0.3, 0.2 - 0.3 * t}),
		                 CLASH_OK);
		clash_result full, v;
		clash_options ov = {0};
		ov.want = CLASH_WANT_VERDICT;
		ck_assert_int_eq(clash_gjk(&a, &b, NULL, &full), CLASH_OK);
		ck_assert_int_eq(clash_gjk(&a, &b, &ov, &v), CLASH_OK);
		if (fabs(full.distance) > 1e-9 || full.depth_lower_bound > 1e-9)
			ck_assert_msg(v.intersecting == full.intersecting, "offset %g: %d, full %d",
			              t, v.intersecting, full.intersecting);
		if (!v.intersecting)
			ck_assert(v.distance_lower_bound <= full.distance + 1e-12);
	}
}
END_TEST

/* The time of impact needs distances: a caller's want must not change it. */
START_TEST(toi_ignores_want)
{
	double cube[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
	clash_shape a, b;
	ck_assert_int_eq(clash_shape_init(&a, 3, cube, 8), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b, 3, cube, 8), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&b, (double[]){4, 0.2, 0.1}), CLASH_OK);
	clash_motion mb = {{-6, 0, 0}, {0, 0, 0.5}};
	clash_toi_result full, verdict;
	clash_options ov = {0};
	ov.want = CLASH_WANT_VERDICT;
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.0, NULL, &full), CLASH_OK);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.0, &ov, &verdict), CLASH_OK);
	ck_assert_int_eq(full.contact, 1);
	ck_assert_int_eq(verdict.contact, full.contact);
	ck_assert(verdict.toi == full.toi && full.toi > 0.3 && full.toi < 0.7);
}
END_TEST

/* The reply to a query text: status and, for a problem, its pointer. */
static int reply(const char *text, char *pointer, size_t cap, json_t **body)
{
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(text, strlen(text), &r), 0);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	int status = r.status;
	pointer[0] = 0;
	const json_t *p = json_object_get(j, "pointer");
	if (p)
		snprintf(pointer, cap, "%s", json_string_value(p));
	proto_reply_free(&r);
	if (body)
		*body = j;
	else
		json_decref(j);
	return status;
}

#define SHAPES                                                    \
	"\"a\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}," \
	"\"b\":{\"vertices\":[[3,0,0],[4,0,0],[3,1,0],[3,0,1]]}"

START_TEST(wire)
{
	char ptr[64];
	json_t *j;
	ck_assert_int_eq(reply("{" SHAPES ",\"want\":[\"intersecting\"]}", ptr, sizeof ptr, &j),
	                 200);
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_assert_ptr_null(json_object_get(j, "distance"));
	ck_assert_ptr_nonnull(json_object_get(j, "separating_plane"));
	ck_assert(json_real_value(json_object_get(j, "distance_lower_bound")) > 1.9);
	json_decref(j);
	ck_assert_int_eq(reply("{" SHAPES ",\"want\":[\"distance\"]}", ptr, sizeof ptr, &j), 200);
	ck_assert(fabs(json_real_value(json_object_get(j, "distance")) - 2.0) < 1e-12);
	json_decref(j);
	ck_assert_int_eq(reply("{" SHAPES ",\"want\":[\"depth\",\"intersecting\",\"distance\"]}",
	                       ptr, sizeof ptr, NULL),
	                 200);
	static const struct {
		const char *want, *pointer;
	} bad[] = {{"\"intersecting\"", "/want"},
	           {"[]", "/want"},
	           {"{}", "/want"},
	           {"[\"intersecting\", 1]", "/want/1"},
	           {"[\"intersecting\", \"Distance\"]", "/want/1"},
	           {"[\"nearest\"]", "/want/0"},
	           {"[\"intersecting\", null]", "/want/1"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "{" SHAPES ",\"want\":%s}", bad[i].want);
		ck_assert_int_eq(reply(text, ptr, sizeof ptr, NULL), 422);
		ck_assert_str_eq(ptr, bad[i].pointer);
	}
	/* want is checked after the shapes, like the other options. */
	ck_assert_int_eq(reply("{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0]]},\"want\":[]}",
	                       ptr, sizeof ptr, NULL),
	                 422);
	ck_assert_str_eq(ptr, "/a/vertices");
}
END_TEST

static Suite *want_suite(void)
{
	Suite *s = suite_create("want");
	ck_case(s, "want", 240,
	        CK_TESTS(gjk88_verdicts, random_pairs, higher_dimensions, compounds,
	                 toi_ignores_want, wire));
	return s;
}

CHECK_SUITE(want_suite)
