/*
 * check_depth.c — suite "depth": the exact penetration depth of identical
 * and nearly identical convex hulls, where EPA (core/epa.c) needs far more
 * expansions than its fixed storage holds and A - B is full of coplanar
 * points.
 *
 * Fibonacci-sphere hulls of 20 to 2 000 vertices, b a copy of a: the same,
 * each coordinate scaled by 1 +- 1e-9 or 1e-6, moved or turned a little.
 * The reference is the qhull oracle on the Minkowski difference up to
 * 2 000 vertices (at 2 000, 4 million points, for three variants).  At
 * 2 000 the hulls are also made centrally symmetric (points and their negatives), so that A - A = 2A
 * and the depth is read off A's own facets from qhull: twice the nearest
 * facet's distance (A's minimum width), and for b moved by t the least
 * 2 h_f - u_f.t; a vertex scaling moves the depth by at most the vertices'
 * displacement.  Every answer is converged and within 1e-9 relative.
 * Symmetric hulls of 50 000 vertices take EPA past its fixed cap, and a
 * search that prepares its shapes midway answers the caller-prepared
 * bytes.  max_iterations in the query still caps EPA, and a cancel flag
 * stops it; identical hulls of 2 000 and 60 000 vertices through clashd,
 * and of 200 000 (the vertex limit) by ref, converge within its default
 * --request-timeout.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "check.h"
#include "clash.h"
#include "http_harness.h"
#include "oracle.h"
#include "prng.h"
#include "proto.h"

enum {
	MAX_N = 2000
};

/* n points of the Fibonacci lattice on the unit sphere; symmetric: n / 2
 * of them and their negatives. */
static void fibonacci(double *v, int n, int symmetric)
{
	const int m = symmetric ? n / 2 : n;
	const double g = M_PI * (3 - sqrt(5.0));
	for (int i = 0; i < m; i++) {
		double z = 1 - (2.0 * i + 1) / m, s = sqrt(1 - z * z);
		v[3 * i] = s * cos(g * i);
		v[3 * i + 1] = s * sin(g * i);
		v[3 * i + 2] = z;
		if (symmetric)
			for (int k = 0; k < 3; k++)
				v[3 * (m + i) + k] = -v[3 * i + k];
	}
}

/* How b differs from a. */
enum variant {
	SAME,
	SCALED_1E9,
	SCALED_1E6,
	MOVED,
	TURNED,
	NVARIANTS
};
static const char *const variant_name[NVARIANTS] = {"same", "scaled 1e-9", "scaled 1e-6", "moved",
                                                    "turned"};
static const double move_t[3] = {3e-7, -2e-7, 1e-7};

/* b's vertices (world) for variant v of a; *shift: how far they moved. */
static void make_b(const double *a, int n, enum variant v, double *b, double *shift)
{
	prng r = {(uint64_t)n * 31 + (uint64_t)v};
	/* Turned: 1e-6 rad about (1, 2, 2) / 3, by Rodrigues' formula. */
	const double th = 1e-6, ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
	*shift = 0;
	for (int i = 0; i < n; i++) {
		const double *x = a + 3 * i;
		double *y = b + 3 * i;
		switch (v) {
		case SAME: memcpy(y, x, 3 * sizeof *y); break;
		case SCALED_1E9:
		case SCALED_1E6:
			for (int k = 0; k < 3; k++)
				y[k] = x[k] * (1 + (v == SCALED_1E9 ? 1e-9 : 1e-6) *
				                           prng_range(&r, -1, 1));
			break;
		case MOVED:
			for (int k = 0; k < 3; k++)
				y[k] = x[k] + move_t[k];
			break;
		default: {
			double c[3] = {ax[1] * x[2] - ax[2] * x[1], ax[2] * x[0] - ax[0] * x[2],
			               ax[0] * x[1] - ax[1] * x[0]};
			double d = ax[0] * x[0] + ax[1] * x[1] + ax[2] * x[2];
			for (int k = 0; k < 3; k++)
				y[k] = x[k] * cos(th) + c[k] * sin(th) + ax[k] * d * (1 - cos(th));
		}
		}
		double dd = 0;
		for (int k = 0; k < 3; k++)
			dd += (y[k] - x[k]) * (y[k] - x[k]);
		*shift = fmax(*shift, sqrt(dd));
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* clash_gjk's depth of a and b (n vertices each), converged. */
static double core_depth(const double *a, const double *b, int n, const char *what)
{
	clash_shape sa, sb;
	ck_assert_int_eq(clash_shape_init(&sa, 3, a, (size_t)n), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&sb, 3, b, (size_t)n), CLASH_OK);
	clash_result r;
	double t0 = now();
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	double t = now() - t0;
	ck_assert_msg(r.intersecting && (r.has & CLASH_HAS_DEPTH), "%s: no depth", what);
	ck_assert_msg(r.converged, "%s: not converged (depth %.17g)", what, r.depth);
	ck_assert(isfinite(r.depth) && r.depth >= r.depth_lower_bound);
	if (getenv("CLASH_DEPTH_VERBOSE"))
		fprintf(stderr, "%-24s depth %.17g  %.1f ms\n", what, r.depth, 1e3 * t);
	return r.depth;
}

/* qhull's depth of the Minkowski difference a - b. */
static double oracle_depth(const double *a, const double *b, int n)
{
	oracle_answer o;
	int rc = oracle_query(3, a, (size_t)n, 0, b, (size_t)n, 0, &o);
	ck_assert_msg(rc == ORACLE_OK, "oracle: %s", oracle_strerror(rc));
	ck_assert(o.hull_overlap);
	return o.hull_depth;
}

static void ck_rel(double got, double want, double rel, const char *what)
{
	ck_assert_msg(fabs(got - want) <= rel * want, "%s: depth %.17g, oracle %.17g (rel %.3g)",
	              what, got, want, fabs(got - want) / want);
}

/* Identical and nearly identical hulls of n vertices against qhull on
 * their Minkowski difference. */
static void against_oracle(int n, int symmetric)
{
	static double a[3 * MAX_N], b[3 * MAX_N];
	fibonacci(a, n, symmetric);
	for (int v = 0; v < NVARIANTS; v++) {
		double shift;
		make_b(a, n, (enum variant)v, b, &shift);
		char what[64];
		snprintf(what, sizeof what, "%d %s%s", n, symmetric ? "sym " : "", variant_name[v]);
		ck_rel(core_depth(a, b, n, what), oracle_depth(a, b, n), 1e-9, what);
	}
}

START_TEST(fibonacci_20)
{
	against_oracle(20, 0);
}
END_TEST

START_TEST(fibonacci_50)
{
	against_oracle(50, 0);
}
END_TEST

START_TEST(fibonacci_200)
{
	against_oracle(200, 0);
}
END_TEST

START_TEST(fibonacci_500)
{
	against_oracle(500, 0);
}
END_TEST

START_TEST(fibonacci_1000)
{
	against_oracle(1000, 0);
}
END_TEST

/* 2 000 vertices, not symmetric: qhull on the 4 million points of A - B
 * (about a second each), so three of the variants. */
START_TEST(fibonacci_2000)
{
	enum {
		N = 2000
	};
	static double a[3 * N], b[3 * N];
	fibonacci(a, N, 0);
	const enum variant some[] = {SAME, SCALED_1E9, TURNED};
	for (size_t k = 0; k < sizeof some / sizeof some[0]; k++) {
		double shift;
		make_b(a, N, some[k], b, &shift);
		char what[64];
		snprintf(what, sizeof what, "%d %s", N, variant_name[some[k]]);
		ck_rel(core_depth(a, b, N, what), oracle_depth(a, b, N), 1e-9, what);
	}
}
END_TEST

/* For a centrally symmetric hull A of n vertices, from its facets (qhull):
 * the depth of A - A, twice the nearest facet's distance (A's minimum
 * width), and of A - (A + t), the least 2 h_f - u_f.t. */
static void symmetric_depths(const double *a, int n, const double *t, double *width, double *moved)
{
	double *pl;
	size_t np;
	int rc = oracle_hull_planes(3, a, (size_t)n, &pl, &np);
	ck_assert_msg(rc == ORACLE_OK, "oracle: %s", oracle_strerror(rc));
	*width = *moved = INFINITY;
	for (size_t f = 0; f < np; f++) {
		const double *u = pl + 4 * f;
		*width = fmin(*width, 2 * u[3]);
		*moved = fmin(*moved, 2 * u[3] - (u[0] * t[0] + u[1] * t[1] + u[2] * t[2]));
	}
	free(pl);
}

/* The planes of A's hull as reference (see the file header): here checked
 * against the oracle on A - A where both are affordable. */
static void against_planes(int n)
{
	double *a = malloc(3 * sizeof *a * (size_t)n), *b = malloc(3 * sizeof *b * (size_t)n);
	ck_assert(a && b);
	fibonacci(a, n, 1);
	double width, moved;
	symmetric_depths(a, n, move_t, &width, &moved);
	const int small = n <= 500; /* qhull on A - A too */
	for (int v = 0; v < NVARIANTS; v++) {
		double shift;
		make_b(a, n, (enum variant)v, b, &shift);
		char what[64];
		snprintf(what, sizeof what, "%d sym %s", n, variant_name[v]);
		double d = core_depth(a, b, n, what);
		if (v == SAME)
			ck_rel(d, width, 1e-9, what);
		else if (v == MOVED)
			ck_rel(d, moved, 1e-9, what);
		else /* |depth(A - B) - depth(A - A)| <= the vertices' displacement */
			ck_assert_msg(fabs(d - width) <= shift * (1 + 1e-6),
			              "%s: %.17g, width %.17g, shift %g", what, d, width, shift);
		if (small)
			ck_rel(d, oracle_depth(a, b, n), 1e-9, what);
	}
	free(a);
	free(b);
}

START_TEST(symmetric_200)
{
	against_planes(200);
}
END_TEST

START_TEST(symmetric_500)
{
	against_planes(500);
}
END_TEST

START_TEST(symmetric_2000)
{
	against_planes(2000);
}
END_TEST

/* Past EPA's fixed cap of 65 536 expansions (about 1.6 n for these):
 * the search prepares both shapes after 2 048 expansions and may take one
 * expansion per vertex of the two. */
START_TEST(symmetric_50000)
{
	against_planes(50000);
}
END_TEST

/* A search that prepares its shapes midway (core/epa.c, prepare_long)
 * answers the bytes of the same shapes prepared by the caller, whose
 * climbs serve GJK and EPA from the start. */
START_TEST(prepared_midway)
{
	enum {
		N = 20000
	};
	double *a = malloc(3 * sizeof *a * N), *b = malloc(3 * sizeof *b * N);
	ck_assert(a && b);
	fibonacci(a, N, 0);
	for (int v = 0; v < NVARIANTS; v++) {
		double shift;
		make_b(a, N, (enum variant)v, b, &shift);
		clash_shape sa, sb;
		ck_assert_int_eq(clash_shape_init(&sa, 3, a, N), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&sb, 3, b, N), CLASH_OK);
		clash_result plain, prep;
		ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &plain), CLASH_OK);
		const size_t size = clash_prepared_size(3, N);
		void *ma = malloc(size), *mb = malloc(size);
		ck_assert_int_eq(clash_shape_prepare(&sa, ma, size), CLASH_OK);
		ck_assert_int_eq(clash_shape_prepare(&sb, mb, size), CLASH_OK);
		ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &prep), CLASH_OK);
		free(ma);
		free(mb);
		ck_assert_msg(plain.converged && prep.converged, "%s: not converged",
		              variant_name[v]);
		ck_assert_msg(plain.depth == prep.depth &&
		                      !memcmp(plain.depth_normal, prep.depth_normal,
		                              sizeof plain.depth_normal),
		              "%s: depth %.17g, prepared %.17g", variant_name[v], plain.depth,
		              prep.depth);
		ck_assert(!memcmp(plain.depth_a, prep.depth_a, sizeof plain.depth_a));
		ck_assert(!memcmp(plain.depth_b, prep.depth_b, sizeof plain.depth_b));
	}
	free(a);
	free(b);
}
END_TEST

/* max_iterations given in the query caps EPA's expansions: a small one
 * stops it unconverged with an upper bound; a large one lets it finish. */
START_TEST(iteration_cap)
{
	enum {
		N = 200
	};
	static double a[3 * N];
	fibonacci(a, N, 0);
	clash_shape sa, sb;
	ck_assert_int_eq(clash_shape_init(&sa, 3, a, N), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&sb, 3, a, N), CLASH_OK);
	const double exact = oracle_depth(a, a, N);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	clash_result r;
	opt.max_iterations = 50;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert(!r.converged);
	ck_assert_msg(r.depth >= exact - 1e-12 && r.depth <= 2 * exact, "depth %.17g", r.depth);
	opt.max_iterations = 1000;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert(r.converged);
	ck_rel(r.depth, exact, 1e-9, "max_iterations 1000");
}
END_TEST

/* The same at the wire: the Query's max_iterations, and without it the
 * identical 200-vertex hulls converge. */
START_TEST(wire)
{
	enum {
		N = 200
	};
	static double a[3 * N];
	fibonacci(a, N, 0);
	const double exact = oracle_depth(a, a, N);
	json_t *vs = json_array();
	for (int i = 0; i < N; i++)
		json_array_append_new(vs, json_pack("[fff]", a[3 * i], a[3 * i + 1], a[3 * i + 2]));
	for (int cap = 0; cap <= 1; cap++) {
		json_t *q = json_pack("{s{sO}s{sO}}", "a", "vertices", vs, "b", "vertices", vs);
		if (cap)
			json_object_set_new(q, "max_iterations", json_integer(20));
		char *text = json_dumps(q, JSON_COMPACT);
		json_decref(q);
		proto_reply out;
		ck_assert_int_eq(proto_query_reply(text, strlen(text), &out), 0);
		free(text);
		ck_assert_int_eq(out.status, 200);
		json_error_t err;
		json_t *j = json_loads(out.body, 0, &err);
		proto_reply_free(&out);
		ck_assert_ptr_nonnull(j);
		double depth = json_number_value(
			json_object_get(json_object_get(j, "penetration"), "depth"));
		int converged = json_is_true(json_object_get(j, "converged"));
		if (cap) {
			ck_assert(!converged);
			ck_assert(depth >= exact - 1e-12);
		} else {
			ck_assert(converged);
			ck_rel(depth, exact, 1e-9, "wire");
		}
		json_decref(j);
	}
	json_decref(vs);
}
END_TEST

/* Identical hulls through clashd with its default --request-timeout
 * (10 s): answered (not a 504), converged, the core's depth; the time is
 * printed with CLASH_DEPTH_VERBOSE.  2 000 vertices, and 60 000 (a 7 MB
 * query, past EPA's fixed cap). */
static void through_clashd(int n)
{
	double *a = malloc(3 * sizeof *a * (size_t)n);
	ck_assert_ptr_nonnull(a);
	fibonacci(a, n, 0);
	clash_shape sa;
	ck_assert_int_eq(clash_shape_init(&sa, 3, a, (size_t)n), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&sa, &sa, NULL, &r), CLASH_OK);
	ck_assert(r.converged && (r.has & CLASH_HAS_DEPTH));
	json_t *vs = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(vs, json_pack("[fff]", a[3 * i], a[3 * i + 1], a[3 * i + 2]));
	json_t *q = json_pack("{s{sO}s{sO}}", "a", "vertices", vs, "b", "vertices", vs);
	char *text = json_dumps(q, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(q);
	json_decref(vs);
	server_start();
	hresp resp;
	double t0 = now();
	http_do("POST", "/v1/query", JSON_HEADERS, text, strlen(text), &resp);
	double t = now() - t0;
	free(text);
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status, resp.body);
	json_t *j = json_loads(resp.body, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert(json_is_true(json_object_get(j, "converged")));
	double depth =
		json_number_value(json_object_get(json_object_get(j, "penetration"), "depth"));
	ck_assert_msg(depth == r.depth, "clashd %.17g, core %.17g", depth, r.depth);
	if (getenv("CLASH_DEPTH_VERBOSE"))
		fprintf(stderr, "%6d same %17s depth %.17g  %.1f ms through clashd\n", n, "", depth,
		        1e3 * t);
	json_decref(j);
	hresp_free(&resp);
	assert_clean_exit(server_stop_within(15));
	free(srv.log);
	srv.log = NULL;
	free(a);
}

START_TEST(through_clashd_2000)
{
	through_clashd(2000);
}
END_TEST

START_TEST(through_clashd_60000)
{
	through_clashd(60000);
}
END_TEST

/* The vertex limit by ref: a centrally symmetric hull of 200 000 vertices
 * (clashd's default --max-vertices) stored once, queried against itself
 * and against itself moved by t: converged within the default
 * --request-timeout (under the sanitizers, which run it some five times
 * slower, with 60 s), the depths twice A's nearest facet and the least
 * 2 h_f - u_f.t over A's facets (qhull), as symmetric_* above. */
START_TEST(by_ref_200000)
{
	enum {
		N = 200000
	};
	double *a = malloc(3 * sizeof *a * N);
	char *text = malloc((size_t)N * 80 + 64), *o = text;
	ck_assert(a && text);
	fibonacci(a, N, 1);
	o += sprintf(o, "{\"positions\":[");
	for (int i = 0; i < 3 * N; i++)
		o += sprintf(o, "%s%.17g", i ? "," : "", a[i]);
	sprintf(o, "]}");
	const double t[3] = {1e-7, 2e-7, 0};
	double width, moved;
	symmetric_depths(a, N, t, &width, &moved);
	free(a);
	if (getenv("CLASH_CLASHD_SAN"))
		server_start_with((const char *const[]){"--request-timeout", "60s", NULL}, NULL);
	else
		server_start();
	hresp resp;
	http_do("POST", "/v1/shapes", JSON_HEADERS, text, strlen(text), &resp);
	free(text);
	ck_assert_msg(resp.status == 201, "upload: %d %s", resp.status, resp.body);
	json_t *j = json_loads(resp.body, 0, NULL);
	char q[512];
	const char *id = json_string_value(json_object_get(j, "id"));
	for (int m = 0; m < 2; m++) {
		snprintf(q, sizeof q, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\"%s}}", id, id,
		         m ? ",\"pose\":{\"translation\":[1e-7,2e-7,0]}" : "");
		hresp r;
		double t0 = now();
		http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
		double dt = now() - t0;
		ck_assert_msg(r.status == 200, "status %d: %s", r.status, r.body);
		json_t *ans = json_loads(r.body, 0, NULL);
		ck_assert(json_is_true(json_object_get(ans, "converged")));
		double depth = json_number_value(
			json_object_get(json_object_get(ans, "penetration"), "depth"));
		ck_rel(depth, m ? moved : width, 1e-9,
		       m ? "200000 by ref, moved" : "200000 by ref");
		if (getenv("CLASH_DEPTH_VERBOSE"))
			fprintf(stderr,
			        "%6d sym %-14s by ref depth %.17g  %.1f ms through clashd\n", N,
			        m ? "moved" : "same", depth, 1e3 * dt);
		json_decref(ans);
		hresp_free(&r);
	}
	json_decref(j);
	hresp_free(&resp);
	assert_clean_exit(server_stop_within(15));
	free(srv.log);
	srv.log = NULL;
}
END_TEST

/* A cancel flag already set stops the query; one set while EPA runs stops
 * it there (a query of EPA's length, cancelled a tenth of the way in:
 * GJK's two iterations are long done by then). */
typedef struct canceller {
	volatile int flag;
	double delay;
} canceller;

static void *cancel_later(void *arg)
{
	canceller *c = arg;
	struct timespec ts = {(time_t)c->delay, (long)(1e9 * (c->delay - floor(c->delay)))};
	nanosleep(&ts, NULL);
	c->flag = 1;
	return NULL;
}

START_TEST(cancel)
{
	enum {
		N = 2000
	};
	static double a[3 * N];
	fibonacci(a, N, 0);
	clash_shape sa, sb;
	ck_assert_int_eq(clash_shape_init(&sa, 3, a, N), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&sb, 3, a, N), CLASH_OK);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	clash_result r;
	canceller c = {1, 0};
	opt.cancel = &c.flag;
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_ECANCELED);

	c.flag = 0;
	double t0 = now();
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert(r.converged);
	c.delay = 0.1 * (now() - t0);
	opt.want = CLASH_WANT_DISTANCE; /* GJK alone */
	t0 = now();
	ck_assert_int_eq(clash_gjk(&sa, &sb, &opt, &r), CLASH_OK);
	ck_assert_msg(now() - t0 < 0.5 * c.delay, "GJK alone is not quick enough to tell");
	opt.want = 0;
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, cancel_later, &c), 0);
	int rc = clash_gjk(&sa, &sb, &opt, &r);
	pthread_join(th, NULL);
	ck_assert_int_eq(rc, CLASH_ECANCELED);
}
END_TEST

static Suite *depth_suite(void)
{
	Suite *s = suite_create("depth");
	ck_case(s, "oracle", 120,
	        CK_TESTS(fibonacci_20, fibonacci_50, fibonacci_200, fibonacci_500, fibonacci_1000,
	                 fibonacci_2000));
	ck_case(s, "symmetric", 120,
	        CK_TESTS(symmetric_200, symmetric_500, symmetric_2000, symmetric_50000,
	                 prepared_midway));
	ck_case(s, "limits", 60,
	        CK_TESTS(iteration_cap, wire, cancel, through_clashd_2000, through_clashd_60000,
	                 by_ref_200000));
	return s;
}

CHECK_SUITE(depth_suite)
