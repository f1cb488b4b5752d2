/*
 * check_hostile.c — suite "hostile": requests built to exhaust clashd,
 * answered within the memory a deployment gives it.
 *
 *   memory   clashd with deploy/k8s's settings (--threads 2, 4 MiB bodies
 *            and replies, 16 admitted queries, a 32 MiB shape store) under
 *            an address-space limit of the Deployment's 512 MiB: the store
 *            filled first (to evicting) with meshes of one-digit indices,
 *            the kind that weighs most for its text; then sent at once:
 *            mesh uploads that evict, a mesh query, queries naming stored
 *            meshes (one deleted meanwhile: held, or a 422), the 36 MB-reply
 *            scene of 632 coincident points, scenes of long ids, a scene of
 *            75 000 objects, a compound of 511 x 511 overlapping parts and
 *            batches of 10 000 queries (the heavy ones one at a time, as the
 *            fair-workers lane runs them).  Every answer is a 200, 201, 413,
 *            422 or 504 (never a kill, never a 500), the scenes list what
 *            fits and count the rest, the store ends within its size, the
 *            peak resident set within the formula's share for clashd
 *            (docs/operations.md), and clashd then serves and exits 0.
 *
 *   fair     four heavy requests (60 000-vertex containments running into
 *            the deadline, 511 x 511 compound parts) on a 2-thread clashd:
 *            small queries from another client are still answered at once
 *            (the clashd of 331619b made them wait 3.9 s);
 *            eight connections streaming chunked bodies as fast as the
 *            socket takes them: small queries answered and SIGTERM acted on
 *            promptly; a batch past its deadline answered 504 when due.
 *
 *   fair_cost requests of a few hundred bytes, light by their text, heavy
 *            by what they name: a containment and a query by
 *            ref to a stored 60 000-vertex part and a stored mesh, batches
 *            naming the mesh, scenes of cylinders with escaped member
 *            names; batches of many queries light alone, heavy together;
 *            small queries beside them keep a worker (rather than
 *            wait seconds behind them).  make attack: full
 *            sizes (200 000 vertices, 1.3 M triangles, 10 s deadlines).
 *
 * Under the sanitizer pass the address-space limit is left off (ASan
 * reserves terabytes of it); the requests still run there, so leaks and
 * overflows on these paths fail that pass.
 */
#include <math.h>
#include <signal.h>
#include <unistd.h>
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
		snprintf(obj, sizeof obj,
		         "%s{\"id\":\"%zu\",\"shape\":{\"vertices\":[[%zu,%zu,%zu]]}}",
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

/* Two sphere point sets of n points, radii ra and rb, as members ka and
 * kb of a query. */
static char *two_spheres(const char *ka, double ra, const char *kb, double rb, size_t n)
{
	textbuf t = {0};
	textbuf_str(&t, "{\"");
	textbuf_str(&t, ka);
	textbuf_str(&t, "\":{\"vertices\":");
	sphere_points(&t, n, ra);
	textbuf_str(&t, "},\"");
	textbuf_str(&t, kb);
	textbuf_str(&t, "\":{\"vertices\":");
	sphere_points(&t, n, rb);
	textbuf_str(&t, "}}");
	return t.s;
}

static char *big_contains(size_t n)
{
	return two_spheres("inner", 1, "outer", 2, n);
}

/* Two identical hulls of n points on the unit sphere: EPA's longest
 * search for its size (about 1.6 n expansions; the shapes prepared
 * midway, the polytope growing on the heap). */
static char *identical_hulls(size_t n)
{
	return two_spheres("a", 1, "b", 1, n);
}

/* A query that runs for half a minute unless stopped, heavy by its 201
 * shapes (an 18 KB body): 200 cylinders 1e-7 off the axis of another,
 * with max_iterations 4096.  Each pair's depth search is EPA on a curved
 * Minkowski difference whose nearest points nearly form a ring, which a
 * polytope does not match within its 4096 expansions (a pair in some
 * 0.15 s).  (Identical hulls served here until EPA learned to prepare
 * large shapes, then coinciding cylinders until coaxial shapes were
 * searched in a plane: both answer in a blink now.) */
static void endless_query(textbuf *t)
{
	const char *cyl = "{\"cylinder\":{\"radius\":1,\"half_height\":2}";
	textbuf_str(t, "{\"a\":{\"parts\":[");
	for (int i = 0; i < 200; i++) {
		textbuf_str(t, i ? "," : "");
		textbuf_str(t, cyl);
		textbuf_str(t, ",\"pose\":{\"translation\":[1e-7,0,0]}}");
	}
	textbuf_str(t, "]},\"b\":");
	textbuf_str(t, cyl);
	textbuf_str(t, "},\"max_iterations\":4096}");
}

/* Two compounds of n unit cubes each, all overlapping. */
static char *big_compound(size_t n)
{
	textbuf t = {0};
	char v[512];
	textbuf_str(&t, "{\"a\":{\"parts\":[");
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < n; i++) {
			double lo[3] = {0.001 * (double)i, 0.002 * (double)i,
			                0.0005 * (double)side};
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

/* A mesh of 10 points (offset by `seed`) and `ntri` triangles written with
 * one-digit indices: 6 bytes of text a triangle, about 140 stored (its
 * tree and indices), the text that weighs most in memory
 * (docs/operations.md, Limits). */
static char *dense_mesh(unsigned seed, size_t ntri)
{
	textbuf t = {0};
	char v[96];
	textbuf_str(&t, "{\"mesh\":{\"positions\":[");
	for (int i = 0; i < 10; i++) {
		snprintf(v, sizeof v, "%s%u,%d,%d", i ? "," : "", seed + (unsigned)(i % 3),
		         i / 3 % 3, i * 7 % 5);
		textbuf_str(&t, v);
	}
	textbuf_str(&t, "],\"indices\":[");
	size_t k = 0;
	for (int a = 0; a < 10 && k < ntri; a = (a + 1) % 10)
		for (int b = 0; b < 10 && k < ntri; b++)
			for (int c = 0; c < 10 && k < ntri; c++) {
				if (a == b || b == c || a == c)
					continue;
				snprintf(v, sizeof v, "%s%d,%d,%d", k ? "," : "", a, b, c);
				textbuf_str(&t, v);
				k++;
			}
	textbuf_str(&t, "]}}");
	return t.s;
}

/* A query naming stored shape `id` beside a point. */
static char *ref_query(const char *id)
{
	char *q = malloc(256);
	snprintf(q, 256, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"vertices\":[[0.5,0.5,0.5]]}}", id);
	return q;
}

/* Upload `body`: its status, its id into id (72 bytes). */
static int upload_shape(const char *body, char *id)
{
	hresp r;
	http_do("POST", "/v1/shapes", JSON_HEADERS, body, strlen(body), &r);
	int st = r.status;
	if (st == 201 || st == 200) {
		json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
		snprintf(id, 72, "%s", json_string_value(json_object_get(j, "id")));
		json_decref(j);
	}
	hresp_free(&r);
	return st;
}

/* Fill the store with distinct dense meshes until it evicts: full. */
static void fill_store(size_t budget, char ids[][72], int *nids, int max_ids)
{
	unsigned seed = 100;
	while (server_metric("clashd_shape_store_evictions_total") == 0) {
		char *m = dense_mesh(seed++, 50000); /* 0.3 MB, about 6 MB stored */
		char id[72];
		ck_assert_int_eq(upload_shape(m, id), 201);
		free(m);
		if (*nids < max_ids)
			snprintf(ids[(*nids)++], 72, "%s", id);
		ck_assert_uint_lt(seed, 200);
	}
	long long bytes = server_metric("clashd_shape_store_bytes");
	fprintf(stderr, "hostile: the store full: %lld bytes of %zu after %u uploads\n", bytes,
	        budget, seed - 100);
	ck_assert_int_ge(bytes, (long long)budget * 2 / 3);
	ck_assert_int_le(bytes, (long long)budget);
}

static void *delete_run(void *arg)
{
	const char *id = arg;
	char path[128];
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	usleep(20000); /* while the queries naming it run, or about to */
	hresp r;
	http_do("DELETE", path, NULL, NULL, 0, &r);
	hresp_free(&r);
	return NULL;
}

/* ---- sending them at once ------------------------------------------------- */

typedef struct attack {
	const char *what, *path;
	char *body;
	int status;  /* of the answer; 0: none came */
	char *reply; /* its body */
	size_t reply_len;
	double sent, answered; /* now_s() when its body was out, its answer in */
	const char *type;      /* its Content-Type; NULL: JSON */
	size_t len;            /* its body's length; 0: strlen(body) */
} attack;

static void *attack_run(void *arg)
{
	attack *a = arg;
	hconn c;
	if (hconn_open(&c, srv.port) != 0)
		return NULL;
	hconn_timeout(&c, 60);
	hresp r;
	char headers[96];
	snprintf(headers, sizeof headers, "Content-Type: %s\r\n",
	         a->type ? a->type : "application/json");
	int out = hconn_request(&c, "POST", a->path, headers, a->body,
	                        a->len ? a->len : strlen(a->body));
	a->sent = now_s();
	if (out == 0 && hconn_read(&c, &r, 0) == 0) {
		a->answered = now_s();
		a->status = r.status;
		a->reply = r.body;
		a->reply_len = r.body_len;
		r.body = NULL;
		hresp_free(&r);
	}
	hconn_close(&c);
	return NULL;
}

#define NATTACKS 16 /* --max-queue: every one admitted */

START_TEST(memory)
{
	/* deploy/k8s/deployment.yaml's settings and memory limit. */
	static const char *const env[] = {"CLASHD_MAX_BODY=4M",
	                                  "CLASHD_MAX_REPLY=4M",
	                                  "CLASHD_MAX_QUEUE=16",
	                                  "CLASHD_MAX_QUEUE_PER_CLIENT=12",
	                                  "CLASHD_SHAPE_STORE=32M",
	                                  "CLASHD_STORE_PER_CLIENT=0",
	                                  "CLASHD_IMPORT_MEMORY=128M",
	                                  "CLASHD_MAX_IMPORT_BODY=24M",
	                                  "CLASHD_MAX_IMPORTS=1",
	                                  "MALLOC_ARENA_MAX=2",
	                                  NULL};
	/* Every attack comes from 127.0.0.1 here: k8s's share per client (12
	 * of 16) would only admit fewer at once, so it is lifted to admit all
	 * 16, the worst case the memory formula bounds. */
	static const char *const args[] = {"--request-timeout",
	                                   "20s",
	                                   "--max-queue-per-client",
	                                   "0",
	                                   "--store-delete",
	                                   "1",
	                                   NULL};
	const size_t store = (size_t)32 << 20;
	if (!clashd_sanitized())
		server_as_limit = (size_t)512 << 20;
	server_start_with(args, env);
	char ids[8][72];
	int nids = 0;
	fill_store(store, ids, &nids, 8);
	ck_assert_int_ge(nids, 3);
	const char *newest = ids[nids - 1], *older = ids[nids - 2];

	attack at[NATTACKS] = {
		/* The 22x kind at half of --max-body: a whole 4 MB one beside
		 * the rest breaks the address-space limit (which counts what
		 * malloc's arenas reserve), not the resident budget. */
		{"a 3 MB mesh upload", "/v1/shapes", dense_mesh(7, 500000), 0, NULL, 0, 0, 0, NULL,
	         0},
		{"a 2 MB mesh upload", "/v1/shapes", dense_mesh(8, 330000), 0, NULL, 0, 0, 0, NULL,
	         0},
		{"a 2 MB mesh query", "/v1/query", NULL, 0, NULL, 0, 0, 0, NULL, 0},
		{"a stored mesh by ref", "/v1/query", ref_query(newest), 0, NULL, 0, 0, 0, NULL, 0},
		{"a stored mesh by ref", "/v1/query", ref_query(newest), 0, NULL, 0, 0, 0, NULL, 0},
		{"a deleted mesh by ref", "/v1/query", ref_query(older), 0, NULL, 0, 0, 0, NULL, 0},
		{"632 coincident points", "/v1/scene", coincident_scene(632, 8), 0, NULL, 0, 0, 0,
	         NULL, 0},
		{"632 coincident points", "/v1/scene", coincident_scene(632, 8), 0, NULL, 0, 0, 0,
	         NULL, 0},
		{"632 long ids", "/v1/scene", coincident_scene(632, 3900), 0, NULL, 0, 0, 0, NULL,
	         0},
		{"632 long ids", "/v1/scene", coincident_scene(632, 3900), 0, NULL, 0, 0, 0, NULL,
	         0},
		/* Read in the import helper, within --import-memory: the formula's
		 * sandbox term, outside clashd's own address space. */
		{"a 2 MB STL import", "/v1/shapes", NULL, 0, NULL, 0, 0, 0, "model/stl", 0},
		{"75 000 objects", "/v1/scene", sparse_scene(75000), 0, NULL, 0, 0, 0, NULL, 0},
		{"511 x 511 parts", "/v1/query", big_compound(511), 0, NULL, 0, 0, 0, NULL, 0},
		{"10 000 queries", "/v1/batch", big_batch(10000), 0, NULL, 0, 0, 0, NULL, 0},
		{"10 000 queries", "/v1/batch", big_batch(10000), 0, NULL, 0, 0, 0, NULL, 0},
		{"identical 60 000-point hulls", "/v1/query", identical_hulls(60000), 0, NULL, 0, 0,
	         0, NULL, 0},
	};
	{
		textbuf q = {0};
		char *m = dense_mesh(9, 330000);
		textbuf_str(&q, "{\"a\":");
		textbuf_str(&q, m);
		textbuf_str(&q, ",\"b\":{\"vertices\":[[50,0,0]]}}");
		free(m);
		at[2].body = q.s;
	}
	for (int i = 0; i < NATTACKS; i++)
		if (!at[i].body)
			at[i].body = random_stl(40000, &at[i].len); /* 120 000 vertices */
	pthread_t th[NATTACKS], del;
	for (int i = 0; i < NATTACKS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, attack_run, &at[i]), 0);
	ck_assert_int_eq(pthread_create(&del, NULL, delete_run, (void *)older), 0);
	for (int i = 0; i < NATTACKS; i++)
		pthread_join(th[i], NULL);
	pthread_join(del, NULL);
	long peak = process_peak_rss_kib(srv.pid);
	long long stored = server_metric("clashd_shape_store_bytes");
	fprintf(stderr,
	        "hostile: the store after the mix: %lld bytes of %zu, %lld held after "
	        "removal\n",
	        stored, store, server_metric("clashd_shape_store_held_removed_bytes"));
	ck_assert_int_le(stored, (long long)store);

	for (int i = 0; i < NATTACKS; i++) {
		attack *a = &at[i];
		fprintf(stderr, "hostile: %-28s %7zu bytes -> %d, %zu bytes\n", a->what,
		        a->len ? a->len : strlen(a->body), a->status, a->reply_len);
		/* A deleted shape named by ref is a 422 (unknown) when the
		 * deletion came first. */
		ck_assert_msg(a->status == 200 || a->status == 201 || a->status == 413 ||
		                      a->status == 422 || a->status == 504,
		              "%s: status %d (%.200s)", a->what, a->status,
		              a->reply ? a->reply : "");
		/* The uploads beside it may evict it first: then it is unknown,
		 * and the client uploads it again. */
		if (strstr(a->what, "stored mesh"))
			ck_assert_msg(a->status == 200 || (a->status == 422 &&
			                                   strstr(a->reply, "unknown-shape")),
			              "%s: status %d", a->what, a->status);
		ck_assert_uint_le(a->reply_len, (size_t)4 << 20);
		if (a->status == 200 && strcmp(a->path, "/v1/scene") == 0) {
			json_t *j = json_loadb(a->reply, a->reply_len, 0, NULL);
			ck_assert_msg(j != NULL, "%s: the answer is not JSON", a->what);
			json_t *counts = json_object_get(j, "counts");
			size_t total =
				(size_t)json_integer_value(json_object_get(counts, "touch")) +
				(size_t)json_integer_value(json_object_get(counts, "clash")) +
				(size_t)json_integer_value(json_object_get(counts, "clearance")) +
				(size_t)json_integer_value(json_object_get(counts, "duplicate"));
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
		if (strstr(a->what, "identical")) { /* answered in full */
			ck_assert_int_eq(a->status, 200);
			ck_assert_ptr_nonnull(strstr(a->reply, "\"converged\":true"));
		}
		free(a->body);
		free(a->reply);
	}
	fprintf(stderr, "hostile: clashd's peak resident set %ld KiB\n", peak);
	/* docs/operations.md's formula for deploy/k8s leaves clashd itself
	 * 512 MiB less one import sandbox of 128 MiB. */
	if (!clashd_sanitized())
		ck_assert_int_le(peak, 384 * 1024);

	/* Still serving, and it exits cleanly. */
	hresp r;
	http_do("GET", "/livez", "", NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* ---- fair workers ----------------------------------------------------------- */

/* The latencies of n small queries, one after another, sorted; after
 * `budget` seconds (0: none) those not sent count as never answered. */
static void small_queries_within(double *lat, int n, int *answered, double budget)
{
	double alo[3] = {0, 0, 0}, ahi[3] = {1, 1, 1}, blo[3] = {2, 0, 0}, bhi[3] = {3, 1, 1};
	char *q = box_query(alo, ahi, blo, bhi);
	double t0 = now_s();
	*answered = 0;
	for (int i = 0; i < n; i++) {
		if (budget > 0 && now_s() - t0 > budget) {
			lat[i] = INFINITY;
			continue;
		}
		double s0 = now_s();
		hresp r;
		http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
		lat[i] = now_s() - s0;
		*answered += r.status == 200;
		hresp_free(&r);
	}
	free(q);
	qsort(lat, (size_t)n, sizeof lat[0], cmp_double);
}

static void small_queries(double *lat, int n, int *answered)
{
	small_queries_within(lat, n, answered, 0);
}

#define NHEAVY 6
#define NSMALL 100

/* Two heavy requests must not take both workers while a small query
 * waits for one of them (seconds, or its 504).  With six
 * heavy ones running (containments of 60 000-vertex hulls that run into
 * the deadline, 511 x 511 compound parts, and endless queries: heavy by
 * their 201 primitives, in an 18 KB body), small queries from another
 * client are answered promptly. */
START_TEST(fair_workers)
{
	static const char *const args[] = {"--request-timeout", "4s", NULL};
	server_start_with(args, NULL);
	attack at[NHEAVY];
	pthread_t th[NHEAVY];
	for (int i = 0; i < NHEAVY; i++) {
		textbuf endless = {0};
		if (i % 3 == 2)
			endless_query(&endless);
		at[i] = (attack){i % 3 == 0   ? "60 000-vertex containment"
		                 : i % 3 == 1 ? "511 x 511 parts"
		                              : "endless query",
		                 i % 3 ? "/v1/query" : "/v1/contains",
		                 i % 3 == 0   ? big_contains(60000)
		                 : i % 3 == 1 ? big_compound(511)
		                              : endless.s,
		                 0,
		                 NULL,
		                 0,
		                 0,
		                 0,
		                 NULL,
		                 0};
		ck_assert_int_eq(pthread_create(&th[i], NULL, attack_run, &at[i]), 0);
	}
	usleep(300000); /* their bodies are in, their work has begun */
	double lat[NSMALL];
	int answered;
	small_queries(lat, NSMALL, &answered);
	for (int i = 0; i < NHEAVY; i++) {
		pthread_join(th[i], NULL);
		fprintf(stderr, "hostile: heavy %-26s -> %d\n", at[i].what, at[i].status);
		ck_assert(at[i].status == 200 || at[i].status == 504);
		free(at[i].body);
		free(at[i].reply);
	}
	double p99 = lat[NSMALL * 99 / 100];
	fprintf(stderr,
	        "hostile: %d heavy requests running: %d small queries, p50 %.1f ms, "
	        "p99 %.1f ms, max %.1f ms\n",
	        NHEAVY, answered, 1e3 * lat[NSMALL / 2], 1e3 * p99, 1e3 * lat[NSMALL - 1]);
	ck_assert_int_eq(answered, NSMALL);
	/* The target is 50 ms (held under make attack); make test's bound is
	 * wide for a loaded machine, and far below the seconds a small query
	 * waited behind heavy ones. */
	ck_assert_msg(p99 < attack_bound(1.0, 0.050), "p99 %.3f s beside heavy requests", p99);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* ---- fair by cost ----------------------------------------------------------- */

/* Upload a shape (its JSON text) to the store: its id ("sha256:..."). */
static void store_shape(const char *shape, char id[80])
{
	hresp r;
	http_do("POST", "/v1/shapes", JSON_HEADERS, shape, strlen(shape), &r);
	ck_assert_msg(r.status == 201 || r.status == 200, "upload: %d %.200s", r.status, r.body);
	json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
	ck_assert_ptr_nonnull(j);
	snprintf(id, 80, "%s", json_string_value(json_object_get(j, "id")));
	ck_assert_int_eq((int)strlen(id), 71);
	json_decref(j);
	hresp_free(&r);
}

/* A stored part of n points on the unit sphere. */
static void store_sphere_part(size_t n, char id[80])
{
	textbuf t = {0};
	textbuf_str(&t, "{\"vertices\":");
	sphere_points(&t, n, 1);
	textbuf_str(&t, "}");
	store_shape(t.s, id);
	free(t.s);
}

/* A stored triangle soup of `layers` x `per_layer` triangles: layer i the
 * triangle cutting the corner of the positive octant at x + y + z = 1 +
 * i / layers, repeated.  Every triangle's bounding box spans the same
 * cube, so no tree of boxes prunes a pair: the distance between the soup
 * and a copy moved half a layer along (1, 1, 1) looks at every pair of
 * triangles (a query between two refs to a stored mesh that runs for
 * seconds). */
static void store_soup(size_t layers, size_t per_layer, char id[80])
{
	textbuf t = {0};
	char num[160];
	textbuf_str(&t, "{\"mesh\":{\"positions\":[");
	for (size_t i = 0; i < layers; i++) {
		double c = 1 + (double)i / (double)layers;
		snprintf(num, sizeof num, "%s%.9g,0,0,0,%.9g,0,0,0,%.9g", i ? "," : "", c, c, c);
		textbuf_str(&t, num);
	}
	textbuf_str(&t, "],\"indices\":[");
	for (size_t i = 0; i < layers; i++)
		for (size_t k = 0; k < per_layer; k++) {
			snprintf(num, sizeof num, "%s%zu,%zu,%zu", i || k ? "," : "", 3 * i,
			         3 * i + 1, 3 * i + 2);
			textbuf_str(&t, num);
		}
	textbuf_str(&t, "]}}");
	store_shape(t.s, id);
	free(t.s);
}

/* A query between the soup `id` (of `layers` layers) and its copy half a
 * layer further on. */
static char *soup_query(const char *id, size_t layers)
{
	char *q = malloc(400);
	ck_assert_ptr_nonnull(q);
	double d = 0.5 / (double)layers / 3;
	snprintf(q, 400,
	         "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\",\"pose\":{\"translation\":"
	         "[%.17g,%.17g,%.17g]}}}",
	         id, id, d, d, d);
	return q;
}

/* n cylinders 1e-7 apart along x, every member name spelled with escapes
 * ("\u0063ylinder"): each pair's depth search runs to its cap. */
static char *escaped_cylinders(size_t n)
{
	textbuf t = {0};
	char obj[400];
	textbuf_str(&t, "{\"\\u006fbjects\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(obj, sizeof obj,
		         "%s{\"\\u0069d\":\"c%zu\",\"\\u0073hape\":{\"\\u0063ylinder\":"
		         "{\"\\u0072adius\":1,\"\\u0068alf_height\":2},\"\\u0070ose\":"
		         "{\"\\u0074ranslation\":[%.17g,0,0]}}}",
		         i ? "," : "", i, 1e-7 * (double)i);
		textbuf_str(&t, obj);
	}
	textbuf_str(&t, "]}");
	return t.s;
}

/* A client sending one request over and over until told to stop. */
typedef struct repeater {
	const char *what, *path, *body;
	volatile int *stop;
	int answered, bad; /* 200 or 504; anything else (status in `status`) */
	int status;
	int stopped; /* of the answered, 504s */
} repeater;

static void *repeat_run(void *arg)
{
	repeater *a = arg;
	while (!__atomic_load_n(a->stop, __ATOMIC_RELAXED)) {
		hconn c;
		if (hconn_open(&c, srv.port) != 0)
			break;
		hconn_timeout(&c, 60);
		hresp r;
		if (hconn_request(&c, "POST", a->path, JSON_HEADERS, a->body, strlen(a->body)) ==
		            0 &&
		    hconn_read(&c, &r, 0) == 0) {
			if (r.status == 200 || r.status == 504) {
				a->answered++;
				a->stopped += r.status == 504;
			} else {
				a->bad++;
				a->status = r.status;
			}
			hresp_free(&r);
		}
		hconn_close(&c);
	}
	return NULL;
}

/* Two clients sending `a` and `b` (requests light by their look, heavy by
 * what they name) while another sends small queries: the small ones keep
 * a worker of their own, all answered, p99 within the bound. */
static void small_beside(const char *what, const char *path_a, const char *a, const char *path_b,
                         const char *b)
{
	volatile int stop = 0;
	repeater rep[2] = {{what, path_a, a, &stop, 0, 0, 0, 0},
	                   {what, path_b, b, &stop, 0, 0, 0, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, repeat_run, &rep[i]), 0);
	usleep(300000); /* their bodies are in, their work has begun */
	double lat[NSMALL];
	int answered;
	/* 20 s: a hundredfold the probe's time when it is fair. */
	small_queries_within(lat, NSMALL, &answered, 20);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED); /* read atomically by the clients */
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(rep[i].bad == 0, "%s: status %d", what, rep[i].status);
		ck_assert_int_gt(rep[i].answered, 0);
	}
	double p99 = lat[NSMALL * 99 / 100];
	fprintf(stderr,
	        "hostile: beside %s (%zu and %zu bytes; %d and %d answered, %d and %d of "
	        "them 504): %d small queries, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
	        what, strlen(a), strlen(b), rep[0].answered, rep[1].answered, rep[0].stopped,
	        rep[1].stopped, answered, 1e3 * lat[NSMALL / 2], 1e3 * p99, 1e3 * lat[NSMALL - 1]);
	/* The target is 100 ms (held under make attack); make test's bound is
	 * wide for a loaded machine, and far below the seconds to the
	 * deadline that small queries waited when these were light. */
	ck_assert_msg(p99 < attack_bound(1.0, 0.100), "p99 %.3f s beside %s", p99, what);
	ck_assert_int_eq(answered, NSMALL);
}

/* The attacks' sizes under make attack; make test's are smaller, so the
 * suite stays quick, yet each still runs into its deadline. */
#define FULL_PART_VERTICES 200000
#define PART_VERTICES 60000
#define FULL_SOUP_LAYERS 65000 /* x 20: 1.3 M triangles over 195 000 vertices */
#define FULL_SOUP_REPEAT 20
#define SOUP_LAYERS 8000
#define FULL_CYLINDERS 200
#define CYLINDERS 60

/* The clashd of fair_cost: 10 s deadlines under make attack (the default),
 * 4 s under make test; there a body as large as the
 * full soup's upload, and no per-client share of the store (the soup
 * takes 141 MiB of its 256). */
static void cost_server_start(void)
{
	static const char *const full[] = {"--request-timeout",  "10s", "--max-body", "64M",
	                                   "--store-per-client", "0",   NULL};
	static const char *const scaled[] = {"--request-timeout", "4s", NULL};
	server_start_with(attack_full() ? full : scaled, NULL);
}

/* A small /v1/contains naming a stored 60 000-vertex
 * part (200 000 under make attack), and a query of a few hundred bytes
 * between two refs to a stored mesh whose triangles no tree prunes (1.3 M
 * under make attack), light by their text, would each hold a worker until
 * their deadline, small queries waiting for seconds.  Heavy by what they
 * name, they take turns on one worker, and small queries keep the other. */
START_TEST(fair_cost_refs)
{
	cost_server_start();
	int full = attack_full();
	char part[80], soup[80];
	store_sphere_part(full ? FULL_PART_VERTICES : PART_VERTICES, part);
	size_t layers = full ? FULL_SOUP_LAYERS : SOUP_LAYERS;
	store_soup(layers, full ? FULL_SOUP_REPEAT : 1, soup);
	char contains[300];
	snprintf(contains, sizeof contains,
	         "{\"inner\":{\"ref\":\"%s\"},\"outer\":{\"ref\":\"%s\"}}", part, part);
	char *query = soup_query(soup, layers);
	small_beside("contains by ref, query by refs", "/v1/contains", contains, "/v1/query",
	             query);
	free(query);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* The same with batches of a few queries naming the stored mesh: their
 * heavy items take turns in the heavy share. */
START_TEST(fair_cost_batch)
{
	cost_server_start();
	int full = attack_full();
	char soup[80];
	size_t layers = full ? FULL_SOUP_LAYERS : SOUP_LAYERS;
	store_soup(layers, full ? FULL_SOUP_REPEAT : 1, soup);
	char *query = soup_query(soup, layers);
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	for (int i = 0; i < 3; i++) {
		textbuf_str(&t, i ? "," : "");
		textbuf_str(&t, query);
	}
	textbuf_str(&t, "]}");
	small_beside("batches naming a stored mesh", "/v1/batch", t.s, "/v1/batch", t.s);
	free(query);
	free(t.s);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* The same with batches of 1000 queries each light (a pair of
 * near-coaxial cylinders searched to 800 expansions, some 6 ms) but heavy
 * together: chunks of 125 of them held both workers for most of a second
 * each; bounded in all, a chunk stops once its items cost its share of the
 * bound, and the batch's rest takes turns in the heavy share. */
START_TEST(fair_cost_spread)
{
	cost_server_start();
	const char *cyl = "{\"cylinder\":{\"radius\":1,\"half_height\":2}";
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	for (int i = 0; i < 1000; i++) {
		textbuf_str(&t, i ? ",{\"a\":" : "{\"a\":");
		textbuf_str(&t, cyl);
		textbuf_str(&t, "},\"b\":");
		textbuf_str(&t, cyl);
		textbuf_str(&t, ",\"pose\":{\"translation\":[1e-7,0,0]}},\"max_iterations\":800}");
	}
	textbuf_str(&t, "]}");
	small_beside("batches of many light queries", "/v1/batch", t.s, "/v1/batch", t.s);
	free(t.s);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* The same with scenes of 60 near-coaxial cylinders (200 under make
 * attack) whose member names are spelled with escapes: a scan of the text
 * for "cylinder" finds none; jansson's tree has them all. */
START_TEST(fair_cost_escaped)
{
	cost_server_start();
	char *scene = escaped_cylinders(attack_full() ? FULL_CYLINDERS : CYLINDERS);
	small_beside("escaped-key scenes", "/v1/scene", scene, "/v1/scene", scene);
	free(scene);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* ---- the loop while bodies stream in ----------------------------------- */

typedef struct streamer {
	int port;
	double until; /* stop sending then */
	volatile int *stop;
	size_t sent;
} streamer;

/* A chunked body of one-byte chunks as fast as the socket takes them (MHD
 * has the most to do per byte), ended at `until`; the answer is not read. */
static void *stream_run(void *arg)
{
	streamer *st = arg;
	hconn c;
	if (hconn_open(&c, st->port) != 0)
		return NULL;
	char chunks[60000]; /* each stream's own: they run at once */
	for (size_t i = 0; i + 6 <= sizeof chunks; i += 6)
		memcpy(chunks + i, "1\r\n \r\n", 6);
	if (hconn_sendf(&c,
	                "POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	                "Transfer-Encoding: chunked\r\n\r\n") == 0)
		while (!__atomic_load_n(st->stop, __ATOMIC_RELAXED) && now_s() < st->until &&
		       st->sent < ((size_t)64 << 20) && hconn_send(&c, chunks, sizeof chunks) == 0)
			st->sent += sizeof chunks;
	hconn_close(&c);
	return NULL;
}

#define NSTREAMS 8
#define NPROBES 200

/* MHD asks to be run again at once (timeout 0) while
 * data streams in; re-armed as a zero-timeout timer from the timer's own
 * callback, libuv 1.44 runs it again in the same pass, and nothing else the
 * loop does (accepting, finished queries, deadlines, signals) happens
 * until the streams stop.  With 8 streams, small queries on fresh
 * connections must still be answered promptly, and SIGTERM acted on.  (On
 * two cores the clients may not keep MHD's zero timeout up; the test
 * guards the loop all the same.) */
START_TEST(streaming)
{
	/* --request-timeout 1s: two heavy requests run into it meanwhile. */
	server_start_with((const char *const[]){"--request-timeout", "1s", NULL}, NULL);
	/* Deadlines while the streams go on: one heavy query running into
	 * its deadline, one waiting behind it in the heavy lane; each 504
	 * must come when due, not when the streams stop.  Endless queries,
	 * sent before the streams begin, so that the server has them whole
	 * when the client's clock starts (sent while the streams compete, a
	 * body may sit in the socket buffers for up to 100 ms and its
	 * deadline start that much later than `sent` says); their deadlines,
	 * a second on, fall while the streams go on. */
	attack late[2];
	pthread_t lt[2];
	for (int i = 0; i < 2; i++) {
		textbuf q = {0};
		endless_query(&q);
		late[i] = (attack){"endless query", "/v1/query", q.s, 0, NULL, 0, 0, 0, NULL, 0};
		ck_assert_int_eq(pthread_create(&lt[i], NULL, attack_run, &late[i]), 0);
	}
	usleep(300000);
	volatile int stop = 0;
	streamer st[NSTREAMS];
	pthread_t th[NSTREAMS];
	double t0 = now_s();
	for (int i = 0; i < NSTREAMS; i++) {
		st[i] = (streamer){srv.port, t0 + 30, &stop, 0};
		ck_assert_int_eq(pthread_create(&th[i], NULL, stream_run, &st[i]), 0);
	}
	usleep(200000);
	double lat[NPROBES];
	int answered;
	small_queries(lat, NPROBES, &answered);
	double worst_late = 0;
	for (int i = 0; i < 2; i++) {
		pthread_join(lt[i], NULL);
		ck_assert_int_eq(late[i].status, 504);
		double overdue = late[i].answered - late[i].sent - 1.0;
		fprintf(stderr, "hostile: a 504 due 1 s after its body came %.1f ms after that\n",
		        1e3 * overdue);
		if (overdue > worst_late)
			worst_late = overdue;
		free(late[i].body);
		free(late[i].reply);
	}
	size_t sent = 0;
	for (int i = 0; i < NSTREAMS; i++)
		sent += st[i].sent;
	/* SIGTERM while the streams go on: the drain starts (its log line). */
	double k0 = now_s();
	kill(srv.pid, SIGTERM);
	json_t *line = log_wait(&srv, "\"msg\":\"draining\"", 20);
	double sigterm = now_s() - k0;
	ck_assert_ptr_nonnull(line);
	json_decref(line);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED); /* read atomically by the clients */
	for (int i = 0; i < NSTREAMS; i++)
		pthread_join(th[i], NULL);
	double p50 = lat[NPROBES / 2], p99 = lat[NPROBES * 99 / 100];
	fprintf(stderr,
	        "hostile: %d streams (%.0f MB sent meanwhile): %d small queries, p50 %.1f ms, "
	        "p99 %.1f ms, max %.1f ms; SIGTERM acted on in %.1f ms\n",
	        NSTREAMS, (double)sent / 1e6, answered, 1e3 * p50, 1e3 * p99,
	        1e3 * lat[NPROBES - 1], 1e3 * sigterm);
	ck_assert_int_eq(answered, NPROBES);
	/* The targets are 50 ms and 100 ms (held under make attack); make
	 * test's bounds are wide, for a loaded machine, and far below the
	 * seconds of the spin. */
	ck_assert_msg(p99 < attack_bound(1.0, 0.050), "p99 %.3f s while bodies stream in", p99);
	ck_assert_msg(sigterm < attack_bound(1.0, 0.100), "SIGTERM acted on after %.3f s", sigterm);
	/* The sweep runs every 100 ms at most; the running one stops at the
	 * core's next look at its cancel flag.  The target is 100 ms (held
	 * under make attack), make test's bound wide. */
	ck_assert_msg(worst_late < attack_bound(1.0, 0.100), "a deadline fired %.3f s late",
	              worst_late);
	assert_clean_exit(server_wait_exit(30));
}
END_TEST

/* A batch past its deadline is answered 504 when due as well: its chunks
 * on the pool see the cancel flag at the core's next look. */
START_TEST(batch_deadline)
{
	server_start_with((const char *const[]){"--request-timeout", "1s", NULL}, NULL);
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	for (int i = 0; i < 2; i++) {
		textbuf_str(&t, i ? "," : "");
		endless_query(&t);
	}
	textbuf_str(&t, "]}");
	attack a = {"batch of endless queries", "/v1/batch", t.s, 0, NULL, 0, 0, 0, NULL, 0};
	attack_run(&a);
	ck_assert_int_eq(a.status, 504);
	double overdue = a.answered - a.sent - 1.0;
	fprintf(stderr, "hostile: a batch's 504 due 1 s after its body came %.1f ms after that\n",
	        1e3 * overdue);
	ck_assert_msg(overdue < attack_bound(1.0, 0.100), "a batch's deadline fired %.3f s late",
	              overdue);
	free(a.body);
	free(a.reply);
	assert_still_serving();
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	ck_case(s, "memory", 120, CK_TESTS(memory));
	ck_case(s, "fair", 120, CK_TESTS(fair_workers, streaming, batch_deadline));
	ck_case(s, "fair_cost", 180,
	        CK_TESTS(fair_cost_refs, fair_cost_batch, fair_cost_spread, fair_cost_escaped));
	return s;
}

CHECK_SUITE(hostile_suite)
