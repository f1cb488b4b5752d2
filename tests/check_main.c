/*
 * check_main.c — the Check runner: every suite registered by a
 * tests/check_*.c file, run in fork mode, one summary line at the end
 * ("100%: Checks: N, Failures: 0, Errors: 0").  Exit status 0 only when
 * every test passed.  Built with a sanitizer (build/check-san, check-tsan)
 * it multiplies every Check timeout by SAN_TIMEOUT_MULTIPLIER unless
 * CK_TIMEOUT_MULTIPLIER is set (docs/testing.md, "Timeouts").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_SUITES 64

/* AddressSanitizer and UBSan make the tests (and clashd-san) up to about
 * three times slower, ThreadSanitizer (build/check-tsan, clang's) up to
 * about eight; each TCase's timeout is set for the plain pass. */
#ifdef __SANITIZE_ADDRESS__
#define SAN_TIMEOUT_MULTIPLIER "4"
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SAN_TIMEOUT_MULTIPLIER "10"
#endif
#endif

static check_suite_fn suites[MAX_SUITES];
static int nsuites;
static int dropped; /* suites past MAX_SUITES: the run fails */

void check_register(check_suite_fn fn)
{
	if (nsuites < MAX_SUITES)
		suites[nsuites++] = fn;
	else
		dropped++;
}

const char *check_build_dir(void)
{
	const char *b = getenv("CLASH_BUILD");
	return b && *b ? b : "build";
}

TCase *ck_case(Suite *s, const char *name, double timeout, const TTest *const tests[])
{
	TCase *tc = tcase_create(name);
	if (timeout > 0)
		tcase_set_timeout(tc, timeout);
	if (tests)
		ck_loops(tc, 1, tests);
	suite_add_tcase(s, tc);
	return tc;
}

void ck_loops(TCase *tc, int n, const TTest *const tests[])
{
	for (const TTest *const *t = tests; *t; t++)
		tcase_add_loop_test(tc, *t, 0, n);
}

int main(void)
{
	if (dropped) {
		fprintf(stderr, "check: %d suites past MAX_SUITES (%d) would not run: raise it\n",
		        dropped, MAX_SUITES);
		return 1;
	}
	if (nsuites == 0) {
		fprintf(stderr, "check: no suites registered\n");
		return 1;
	}
#ifdef SAN_TIMEOUT_MULTIPLIER
	/* Read by each tcase_create and tcase_set_timeout, below. */
	if (setenv("CK_TIMEOUT_MULTIPLIER", SAN_TIMEOUT_MULTIPLIER, 0) != 0) {
		perror("check: setenv");
		return 1;
	}
#endif
	SRunner *sr = srunner_create(suites[0]());
	for (int i = 1; i < nsuites; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	int run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (run == 0) {
		fprintf(stderr, "check: no test ran\n");
		return 1;
	}
	return failed == 0 ? 0 : 1;
}
