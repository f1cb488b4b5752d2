/*
 * check_hostile.c — suite "hostile": requests built to exhaust clashd,
 * answered within the memory a deployment gives it (issue #15).
 *
 *   memory   clashd with deploy/k8s's settings (--threads 2, 4 MiB bodies
 *            and replies, 16 admitted queries) under an address-space limit
 *            of the Deployment's 512 MiB, sent at once: the 36 MB-reply
 *            scene of 632 coincident points, scenes of long ids, a scene of
 *            100 000 objects, a containment of two 60 000-vertex hulls, a
 *            compound of 511 x 511 overlapping parts and a batch of 10 000
 *            queries.  Every answer is a 200, 413, 422 or 504 (never a
 *            kill, never a 500), the scenes list what fits and count the
 *            rest, and clashd then serves and exits 0.
 *
 * Under the sanitizer pass the address-space limit is left off (ASan
 * reserves terabytes of it); the requests still run there, so leaks and
 * overflows on these paths fail that pass.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "textbuf.h"

/* ---- request bodies ------------------------------------------------------- */

/* n objects, each the point (0, 0, 0), with ids of idlen characters: every
 * pair touches. */
static char *coincident_scene(size_t n, size_t idlen)
{
	textbuf t = {0};
	char head[64];
	textbuf_str(&t, "{\"objects\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(head, sizeof head, "%s{\"id\":\"", i ? "," : "");
		textbuf_str(&t, head);
		char num[32];
		int len = snprintf(num, sizeof num, "%zu", i);
		for (size_t k = (size_t)len; k < idlen; k++)
			textbuf_add(&t, "x", 1);
		textbuf_str(&t, num);
		textbuf_str(&t, "\",\"shape\":{\"vertices\":[[0,0,0]]}}");
	}
	textbuf_str(&t, "]}");
	return t.s;
}

/* n point objects on a grid of spacing 10: no pair is a candidate. */
static char *sparse_scene(size_t n)
{
	textbuf t = {0};
	char obj[160];
	textbuf_str(&t, "{\"objects\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(obj, sizeof obj, "%s{\"id\":\"%zu\",\"shape\":{\"vertices\":[[%zu,%zu,%zu]]}}",
		         i ? "," : "", i, 10 * (i % 50), 10 * (i / 50 % 50), 10 * (i / 2500));
		textbuf_str(&t, obj);
	}
	textbuf_str(&t, "]}");
	return t.s;
}

/* n points on a sphere of radius r (a Fibonacci lattice). */
static void sphere_points(textbuf *t, size_t n, double r)
{
	char p[96];
	textbuf_str(t, "[");
	for (size_t i = 0; i < n; i++) {
		double z = 1 - 2 * ((double)i + 0.5) / (double)n, rr = sqrt(1 - z * z);
		double a = 2.399963229728653 * (double)i;
		snprintf(p, sizeof p, "%s[%.6f,%.6f,%.6f]", i ? "," : "", r * rr * cos(a),
		         r * rr * sin(a), r * z);
		textbuf_str(t, p);
	}
	textbuf_str(t, "]");
}

static char *big_contains(size_t n)
{
	textbuf t = {0};
	textbuf_str(&t, "{\"inner\":{\"vertices\":");
	sphere_points(&t, n, 1);
	textbuf_str(&t, "},\"outer\":{\"vertices\":");
	sphere_points(&t, n, 2);
	textbuf_str(&t, "}}");
	return t.s;
}

/* Two compounds of n unit cubes each, all overlapping. */
static char *big_compound(size_t n)
{
	textbuf t = {0};
	char v[512];
	textbuf_str(&t, "{\"a\":{\"parts\":[");
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < n; i++) {
			double lo[3] = {0.001 * (double)i, 0.002 * (double)i, 0.0005 * (double)side};
			double hi[3] = {lo[0] + 1, lo[1] + 1, lo[2] + 1};
			textbuf_str(&t, i ? ",{\"vertices\":" : "{\"vertices\":");
			box_vertices(v, sizeof v, lo, hi);
			textbuf_str(&t, v);
			textbuf_str(&t, "}");
		}
		textbuf_str(&t, side ? "]}}" : "]},\"b\":{\"parts\":[");
	}
	return t.s;
}

/* n box queries in a batch. */
static char *big_batch(size_t n)
{
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	for (size_t i = 0; i < n; i++) {
		double alo[3] = {0, 0, 0}, ahi[3] = {1, 1, 1};
		double blo[3] = {0.5 + 0.001 * (double)i, 0, 0}, bhi[3] = {blo[0] + 1, 1, 1};
		char *q = box_query(alo, ahi, blo, bhi);
		if (i)
			textbuf_str(&t, ",");
		textbuf_str(&t, q);
		free(q);
	}
	textbuf_str(&t, "]}");
	return t.s;
}

/* ---- sending them at once ------------------------------------------------- */

typedef struct attack {
	const char *what, *path;
	char *body;
	int status;    /* of the answer; 0: none came */
	char *reply;   /* its body */
	size_t reply_len;
} attack;

static void *attack_run(void *arg)
{
	attack *a = arg;
	hconn c;
	if (hconn_open(&c, srv.port) != 0)
		return NULL;
	hconn_timeout(&c, 60);
	hresp r;
	if (hconn_request(&c, "POST", a->path, JSON_HEADERS, a->body, strlen(a->body)) == 0 &&
	    hconn_read(&c, &r, 0) == 0) {
		a->status = r.status;
		a->reply = r.body;
		a->reply_len = r.body_len;
		r.body = NULL;
		hresp_free(&r);
	}
	hconn_close(&c);
	return NULL;
}

/* The largest resident set clashd reached, in KiB (Linux's VmHWM). */
static long peak_rss_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

#define NATTACKS 11

START_TEST(memory)
{
	/* deploy/k8s/deployment.yaml's settings and memory limit. */
	static const char *const env[] = {"CLASHD_MAX_BODY=4M", "CLASHD_MAX_REPLY=4M",
	                                  "CLASHD_MAX_QUEUE=16", "CLASHD_MAX_QUEUE_PER_CLIENT=0",
	                                  NULL};
	static const char *const args[] = {"--request-timeout", "3s", NULL};
	if (!clashd_sanitized())
		server_as_limit = (size_t)512 << 20;
	server_start_with(args, env);

	attack at[NATTACKS] = {
		{"632 coincident points", "/v1/scene", coincident_scene(632, 8), 0, NULL, 0},
		{"632 coincident points", "/v1/scene", coincident_scene(632, 8), 0, NULL, 0},
		{"632 coincident points", "/v1/scene", coincident_scene(632, 8), 0, NULL, 0},
		{"632 long ids", "/v1/scene", coincident_scene(632, 3900), 0, NULL, 0},
		{"632 long ids", "/v1/scene", coincident_scene(632, 3900), 0, NULL, 0},
		{"632 long ids", "/v1/scene", coincident_scene(632, 3900), 0, NULL, 0},
		{"75 000 objects", "/v1/scene", sparse_scene(75000), 0, NULL, 0},
		{"60 000-vertex containment", "/v1/contains", big_contains(60000), 0, NULL, 0},
		{"511 x 511 parts", "/v1/query", big_compound(511), 0, NULL, 0},
		{"10 000 queries", "/v1/batch", big_batch(10000), 0, NULL, 0},
		{"10 000 queries", "/v1/batch", big_batch(10000), 0, NULL, 0},
	};
	pthread_t th[NATTACKS];
	for (int i = 0; i < NATTACKS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, attack_run, &at[i]), 0);
	for (int i = 0; i < NATTACKS; i++)
		pthread_join(th[i], NULL);
	long peak = peak_rss_kib(srv.pid);

	for (int i = 0; i < NATTACKS; i++) {
		attack *a = &at[i];
		fprintf(stderr, "hostile: %-26s %7zu bytes -> %d, %zu bytes\n", a->what,
		        strlen(a->body), a->status, a->reply_len);
		ck_assert_msg(a->status == 200 || a->status == 413 || a->status == 422 ||
		                      a->status == 504,
		              "%s: status %d (%.200s)", a->what, a->status, a->reply ? a->reply : "");
		ck_assert_uint_le(a->reply_len, (size_t)4 << 20);
		if (a->status == 200 && strcmp(a->path, "/v1/scene") == 0) {
			json_t *j = json_loadb(a->reply, a->reply_len, 0, NULL);
			ck_assert_msg(j != NULL, "%s: the answer is not JSON", a->what);
			json_t *counts = json_object_get(j, "counts");
			size_t total = (size_t)json_integer_value(json_object_get(counts, "touch")) +
			               (size_t)json_integer_value(json_object_get(counts, "clash")) +
			               (size_t)json_integer_value(json_object_get(counts, "clearance"));
			size_t listed = json_array_size(json_object_get(j, "clashes"));
			if (strstr(a->what, "coincident") || strstr(a->what, "long")) {
				ck_assert_uint_eq(total, 632 * 631 / 2);
				ck_assert(json_is_true(json_object_get(j, "truncated")));
				ck_assert_uint_gt(listed, 0);
			} else {
				ck_assert_uint_eq(total, 0);
			}
			json_decref(j);
		}
		free(a->body);
		free(a->reply);
	}
	fprintf(stderr, "hostile: clashd's peak resident set %ld KiB\n", peak);

	/* Still serving, and it exits cleanly. */
	hresp r;
	http_do("GET", "/livez", "", NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("memory");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, memory);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_SUITE(hostile_suite)
