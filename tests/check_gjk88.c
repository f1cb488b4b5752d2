/*
 * check_gjk88.c — suite "gjk88": the 6000 examples of GJK88 section VII
 * (tests/gjk88.c) through every method, against the qhull oracle.
 *
 * For each example: the verdicts of gjk, simplex and ipm must match the
 * oracle's unless the pair is within the touching band (the just-touching
 * class sits there by construction); GJK's distance and EPA's depth must
 * match the oracle's; the lower bound of eq. (32) may never exceed it.  The counts per class are
 * printed, as the paper tabulates them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash.h"
#include "gjk88.h"
#include "oracle.h"

/* Pairs closer than this fraction of their size count as touching: either
 * verdict is right there. */
#define TOUCH_BAND 1e-9

static gjk88_set *set;

static void setup(void)
{
	set = malloc(sizeof *set);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(gjk88_build(set), 0);
}

static void teardown(void)
{
	free(set);
	set = NULL;
}

static void posed(clash_shape *s, const gjk88_polytope *p, const double *q, const double *t)
{
	ck_assert_int_eq(clash_shape_init(s, 3, p->v, (size_t)p->m), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_quaternion(s, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(s, t), CLASH_OK);
}

START_TEST(family_and_pairs)
{
	/* The family as the paper lists it. */
	static const int m[GJK88_FAMILY] = {2, 3, 8, 12, 16, 20, 20, 40, 50, 60, 100, 100};
	for (int i = 0; i < GJK88_FAMILY; i++) {
		ck_assert_int_eq(set->family[i].m, m[i]);
		ck_assert(set->family[i].radius >= 1.0 - 1e-12 && set->family[i].radius <= 4.0);
	}
	int count[GJK88_CLASSES] = {0};
	for (int i = 0; i < GJK88_CASES; i++) {
		ck_assert_int_eq(set->cases[i].index, i);
		count[set->cases[i].cls]++;
	}
	for (int c = 0; c < GJK88_CLASSES; c++)
		ck_assert_int_eq(count[c], GJK88_CASES / 3);
}
END_TEST

/* The verdict-only methods on one case: both must match the oracle outside
 * the touching band.  Returns how many of the two agreed. */
static int lp_methods(const gjk88_case *k, const clash_shape *a, const clash_shape *b,
                      const oracle_answer *o, int banded, long *iters)
{
	static const struct {
		const char *name;
		int (*run)(const clash_shape *, const clash_shape *, const clash_options *,
		           clash_result *);
	} methods[] = {{"simplex", clash_lp_simplex}, {"ipm", clash_lp_ipm}};
	int agree = 0;
	for (int m = 0; m < 2; m++) {
		clash_result r;
		int rc = methods[m].run(a, b, NULL, &r);
		ck_assert_msg(rc == CLASH_OK, "case %d: %s: %s", k->index, methods[m].name,
		              clash_strerror(rc));
		iters[m] += r.iterations;
		if (banded)
			continue;
		ck_assert_msg(
			r.intersecting == o->hull_overlap,
			"case %d (%s, pair %d): %s says %s, oracle distance %.17g depth %.17g",
			k->index, gjk88_class_name(k->cls), k->pair, methods[m].name,
			r.intersecting ? "intersecting" : "separated", o->hull_distance,
			o->hull_depth);
		agree++;
	}
	return agree;
}

START_TEST(gjk_against_oracle)
{
	long lp_iters[GJK88_CLASSES][2] = {{0}};
	int lp_agree[GJK88_CLASSES] = {0};
	static double wa[GJK88_MAX_VERTICES * 3], wb[GJK88_MAX_VERTICES * 3];
	int agree[GJK88_CLASSES] = {0}, band[GJK88_CLASSES] = {0}, inter[GJK88_CLASSES] = {0};
	long iters[GJK88_CLASSES] = {0};
	double worst = 0, worst_bound_ratio = 0, worst_depth = 0;
	int depths = 0;
	int flat = 0;
	for (int i = 0; i < GJK88_CASES; i++) {
		const gjk88_case *k = &set->cases[i];
		gjk88_world(k->a, k->qa, k->ta, wa);
		gjk88_world(k->b, k->qb, k->tb, wb);
		oracle_answer o;
		int rc = oracle_query(3, wa, (size_t)k->a->m, 0, wb, (size_t)k->b->m, 0, &o);
		if (rc == ORACLE_EFLAT) {
			flat++;
			continue;
		}
		ck_assert_msg(rc == ORACLE_OK, "case %d: oracle: %s", i, oracle_strerror(rc));
		clash_shape a, b;
		posed(&a, k->a, k->qa, k->ta);
		posed(&b, k->b, k->qb, k->tb);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
		double size = k->a->radius + k->b->radius;
		iters[k->cls] += r.iterations;
		inter[k->cls] += r.intersecting;
		double d = o.hull_distance;
		/* Signed clearance: distance apart, or depth of overlap. */
		double clearance = o.hull_overlap ? o.hull_depth : d;
		int banded = clearance <= TOUCH_BAND * size;
		lp_agree[k->cls] += lp_methods(k, &a, &b, &o, banded, lp_iters[k->cls]);
		if (banded) {
			band[k->cls]++;
		} else {
			ck_assert_msg(r.intersecting == o.hull_overlap,
			              "case %d (%s, pair %d): gjk says %s, oracle distance %.17g",
			              i, gjk88_class_name(k->cls), k->pair,
			              r.intersecting ? "intersecting" : "separated", d);
			agree[k->cls]++;
		}
		double err = fabs(r.distance - d);
		ck_assert_msg(err <= 1e-9 * d + 2e-12 * size,
		              "case %d: distance %.17g, oracle %.17g", i, r.distance, d);
		if (clearance > TOUCH_BAND * size && d > 0 && err / d > worst)
			worst = err / d;
		if (r.intersecting && o.hull_overlap) {
			ck_assert_msg(r.depth_lower_bound <=
			                      o.hull_depth * (1 + 1e-9) + 1e-12 * size,
			              "case %d: depth bound %.17g above the depth %.17g", i,
			              r.depth_lower_bound, o.hull_depth);
			/* EPA's exact depth against the oracle's. */
			ck_assert_msg(r.has & CLASH_HAS_DEPTH, "case %d: no depth", i);
			double derr = fabs(r.depth - o.hull_depth);
			ck_assert_msg(
				r.converged && derr <= 1e-9 * o.hull_depth + 2e-12 * size,
				"case %d (%s, pair %d): depth %.17g, oracle %.17g (converged %d)",
				i, gjk88_class_name(k->cls), k->pair, r.depth, o.hull_depth,
				r.converged);
			if (o.hull_depth > TOUCH_BAND * size)
				worst_depth = fmax(worst_depth, derr / o.hull_depth);
			depths++;
			if (o.hull_depth > TOUCH_BAND * size)
				worst_bound_ratio =
					fmax(worst_bound_ratio, r.depth_lower_bound / o.hull_depth);
		}
	}
	for (int c = 0; c < GJK88_CLASSES; c++)
		printf("gjk88 %-12s: %d cases, %d in the touching band; gjk verdict agrees on %d "
		       "(%d intersecting, mean iterations %.2f); simplex and ipm agree on %d of %d "
		       "(mean iterations %.2f, %.2f)\n",
		       gjk88_class_name((enum gjk88_class)c), GJK88_CASES / 3, band[c], agree[c],
		       inter[c], (double)iters[c] / (GJK88_CASES / 3), lp_agree[c], 2 * agree[c],
		       (double)lp_iters[c][0] / (GJK88_CASES / 3),
		       (double)lp_iters[c][1] / (GJK88_CASES / 3));
	printf("gjk88: worst relative distance error %.3g; EPA depth on %d intersecting cases, "
	       "worst relative error %.3g; eq. (32) bound up to %.3g of the depth; %d skipped as "
	       "flat\n",
	       worst, depths, worst_depth, worst_bound_ratio, flat);
	/* The separated and intersecting classes are clear of the band, and
	 * the classes are what they say. */
	ck_assert_int_eq(inter[GJK88_SEPARATED], 0);
	ck_assert_int_eq(inter[GJK88_INTERSECTING], GJK88_CASES / 3);
	ck_assert_int_eq(band[GJK88_SEPARATED], 0);
	ck_assert_int_eq(band[GJK88_INTERSECTING], 0);
	ck_assert_int_eq(agree[GJK88_SEPARATED] + agree[GJK88_INTERSECTING] + flat,
	                 2 * GJK88_CASES / 3);
	for (int c = 0; c < GJK88_CLASSES; c++)
		ck_assert_int_eq(lp_agree[c], 2 * agree[c]);
}
END_TEST

static Suite *gjk88_suite(void)
{
	Suite *s = suite_create("gjk88");
	TCase *tc = ck_case(s, "section_vii", 300, CK_TESTS(family_and_pairs, gjk_against_oracle));
	tcase_add_unchecked_fixture(tc, setup, teardown);
	return s;
}

CHECK_SUITE(gjk88_suite)
