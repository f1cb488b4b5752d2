/*
 * check.h — how Check suites join the one test runner (tests/check_main.c).
 *
 * Each tests/check_*.c file defines a function returning its Suite and
 * registers it with CHECK_SUITE(fn); the runner collects every registered
 * suite, so adding a file adds its tests with no central list to edit.
 * Run one suite with CK_RUN_SUITE=name, one case with CK_RUN_CASE=name.
 * A suite adds each of its cases with one ck_case call naming its tests.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <check.h>

typedef Suite *(*check_suite_fn)(void);

void check_register(check_suite_fn fn);

#define CHECK_SUITE(fn)                                                    \
	static void __attribute__((constructor)) check_register_##fn(void) \
	{                                                                  \
		check_register(fn);                                        \
	}

/* A NULL-terminated list of tests (the names START_TEST defines). */
#define CK_TESTS(...) ((const TTest *const[]){__VA_ARGS__, NULL})

/* Adds to s the test case `name` holding `tests` (may be NULL) in order, with
 * a timeout of `timeout` seconds (0 keeps Check's default); returns it, for
 * a fixture or more tests. */
TCase *ck_case(Suite *s, const char *name, double timeout, const TTest *const tests[]);

/* Adds `tests` to tc in order, each run n times (_i from 0 to n - 1): a
 * loop test, or a plain one when n is 1. */
void ck_loops(TCase *tc, int n, const TTest *const tests[]);

/* |x - y| <= tol, with both values in the message (needs <math.h>). */
#define ck_near(x, y, tol)                                                                      \
	do {                                                                                    \
		double x_ = (x), y_ = (y), t_ = (tol);                                          \
		ck_assert_msg(fabs(x_ - y_) <= t_, "%s = %.17g, expected %.17g (+-%g)", #x, x_, \
		              y_, t_);                                                          \
	} while (0)

/* Directory of the built binaries (clashd, clash): $CLASH_BUILD or "build". */
const char *check_build_dir(void);

#endif
