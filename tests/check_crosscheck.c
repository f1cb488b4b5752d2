/*
 * check_crosscheck.c — suite "crosscheck": the three methods (gjk, simplex,
 * ipm) on the same random pairs, each against the qhull oracle and so
 * against each other: no disagreement outside the touching band.
 *
 * The pairs are those of the "random_pairs" suite (tests/pairgen.c: every
 * shape kind, pose kind, scale, far offsets, radii, and placements from deep
 * overlap to touching within 1e-13 of the size).  A pair is in the touching
 * band when the oracle's distance and depth are both within 1e-9 of its
 * size (plus the rounding of coordinates far from the origin); there any
 * verdict is right.  Outside it every method must give the
 * oracle's verdict.  "simplex" may decline a rounded pair it cannot decide
 * (CLASH_ENOTSUP, a 422 on the wire): that is counted and printed, never a
 * disagreement.
 *
 * make test runs CLASH_CROSSCHECK_PAIRS pairs (default 5000: the smoke run);
 * `make crosscheck` runs 100 000.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "clash.h"
#include "oracle.h"
#include "pairgen.h"

#define CROSSCHECK_SEED UINT64_C(0xc505c4ec)

static const struct {
	const char *name;
	int (*run)(const clash_shape *, const clash_shape *, const clash_options *, clash_result *);
} methods[] = {
	{"gjk", clash_gjk},
	{"simplex", clash_lp_simplex},
	{"ipm", clash_lp_ipm},
};
#define NMETHODS (sizeof methods / sizeof methods[0])

START_TEST(three_methods)
{
	const char *env = getenv("CLASH_CROSSCHECK_PAIRS");
	long n = env && *env ? strtol(env, NULL, 10) : 5000;
	/* CLASH_CROSSCHECK_VERBOSE=1: list unconverged answers, and report
	 * disagreements without stopping at the first. */
	int verbose = getenv("CLASH_CROSSCHECK_VERBOSE") != NULL;
	ck_assert_msg(n > 0, "CLASH_CROSSCHECK_PAIRS must be a positive count");
	long separated = 0, intersecting = 0, band = 0, flat = 0;
	long declined[NMETHODS] = {0}, unconverged[NMETHODS] = {0}, iterations[NMETHODS] = {0};
	for (long i = 0; i < n; i++) {
		uint64_t seed = pair_seed(CROSSCHECK_SEED, (int)i);
		int dim = (i % 4 == 3) ? 2 : 3;
		pair p;
		clash_shape a, b;
		oracle_answer o;
		if (pair_make(&p, seed, dim, &a, &b, &o) < 0) {
			flat++;
			continue;
		}
		/* The band: 1e-9 of the size, widened by the rounding of the
		 * pair's placement far from the origin (the core is given O + t,
		 * a double of the magnitude of O; the oracle works relative to O,
		 * exactly), as check_random_pairs.c allows for positions. */
		double size = p.a.extent + p.b.extent + p.a.radius + p.b.radius;
		double coord = 0;
		for (int k = 0; k < dim; k++)
			coord = fmax(coord, fabs(p.O[k]) + size + fabs(p.a.t[k]) + fabs(p.b.t[k]));
		double bandw = 1e-9 * size + 8 * DBL_EPSILON * coord;
		int truth = -1; /* -1: touching band */
		if (o.distance > bandw)
			truth = 0;
		else if (o.depth > bandw)
			truth = 1;
		separated += truth == 0;
		intersecting += truth == 1;
		band += truth < 0;
		for (size_t m = 0; m < NMETHODS; m++) {
			clash_result r;
			int rc = methods[m].run(&a, &b, NULL, &r);
			if (rc == CLASH_ENOTSUP && m == 1 && (p.a.radius > 0 || p.b.radius > 0)) {
				declined[m]++;
				continue;
			}
			ck_assert_msg(rc == CLASH_OK, "seed %#llx dim %d: %s: %s",
			              (unsigned long long)seed, dim, methods[m].name,
			              clash_strerror(rc));
			iterations[m] += r.iterations;
			unconverged[m] += !r.converged;
			if (verbose && !r.converged && truth >= 0)
				printf("crosscheck: unconverged %s seed %#llx dim %d: oracle %s, answer %s; "
				       "distance %.3g depth %.3g size %.3g\n",
				       methods[m].name, (unsigned long long)seed, dim,
				       truth ? "intersecting" : "separated",
				       r.intersecting ? "intersecting" : "separated", o.distance,
				       o.depth, size);
			if (truth >= 0 && r.intersecting != truth && !verbose) {
				pair_dump(&p);
				ck_abort_msg(
					"seed %#llx dim %d: %s says %s; oracle distance %.17g depth %.17g",
					(unsigned long long)seed, dim, methods[m].name,
					r.intersecting ? "intersecting" : "separated", o.distance,
					o.depth);
			}
		}
	}
	printf("crosscheck: %ld pairs (%ld skipped as flat): %ld separated, %ld intersecting, "
	       "%ld in the touching band; no disagreement outside the band\n",
	       n, flat, separated, intersecting, band);
	for (size_t m = 0; m < NMETHODS; m++)
		printf("crosscheck %-7s: mean iterations %.2f, %ld unconverged, %ld declined\n",
		       methods[m].name, (double)iterations[m] / (double)(n - flat), unconverged[m],
		       declined[m]);
	ck_assert_int_gt(separated, 0);
	ck_assert_int_gt(intersecting, 0);
}
END_TEST

static Suite *crosscheck_suite(void)
{
	Suite *s = suite_create("crosscheck");
	/* make crosscheck's 100 000 pairs take minutes; the smoke run seconds. */
	ck_case(s, "methods", 3600, CK_TESTS(three_methods));
	return s;
}

CHECK_SUITE(crosscheck_suite)
