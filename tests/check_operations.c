/*
 * check_operations.c — suite "operations": clashd as an operated service.
 *
 *   limits     each request limit answered with its problem and pointer
 *              (body size, JSON depth, vertices, shapes, compound nesting),
 *              the connection limit, and the proto limits against an
 *              independent depth count on random documents;
 *   load       backpressure: held slots make every further query a 503 at
 *              once; 4x overload from 16 clients: every request answered
 *              (200 or 503), none lost, memory bounded;
 *   deadlines  --request-timeout stops running and queued queries (504) and
 *              the core's cancel hook; --read-timeout cuts slow clients;
 *              --drain-timeout bounds the exit;
 *   drain      SIGTERM under load: every request answered in full or
 *              refused at connect, never reset after being accepted;
 *   observe    /metrics in the Prometheus text format, checked line by line
 *              and against the requests made; request ids; the served
 *              contract equal to proto/openapi.yaml and valid OpenAPI 3.1
 *              (npm's @seriousme/openapi-schema-validator, installed by make
 *              test, with a negative control);
 *   security   bearer token, CORS, TLS (a certificate made by openssl in
 *              the test, talked to with curl);
 *   config     every new flag and variable: precedence, sources, bad
 *              values, --help, --healthcheck.
 *
 * No assertion is on time: tests assert counts and completion.  Where an
 * outcome depends on one thing taking longer than another (a 15 MB parse
 * against a 100 ms deadline), the margin is wide and noted.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/filter.h>
#include <netinet/in.h>

#include <jansson.h>

#include "check.h"
#include "contract_doc.h"
#include "clash.h"
#include "http_harness.h"
#include "json_gen.h"
#include "prng.h"
#include "proto.h"
#include "spawn.h"

/* ---- helpers ------------------------------------------------------------- */

static void teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(20));
	free(srv.log);
	srv.log = NULL;
}

/* POST a query on a fresh connection. */
static void post(const char *extra_headers, const char *body, hresp *r)
{
	char headers[1024];
	snprintf(headers, sizeof headers, JSON_HEADERS "%s", extra_headers ? extra_headers : "");
	http_do("POST", "/v1/query", headers, body, strlen(body), r);
}

/* The problem's pointer (asserting the status). */
static void assert_pointer(const hresp *r, int status, const char *pointer)
{
	json_t *p = assert_problem(r, status);
	const char *got = json_string_value(json_object_get(p, "pointer"));
	ck_assert_msg(got && strcmp(got, pointer) == 0, "pointer %s, expected %s: %s",
	              got ? got : "(none)", pointer, r->body);
	json_decref(p);
}

/* One sample of /metrics: the value of the line that starts with `series`
 * followed by a space ("name{labels}" exactly as rendered); -1 if absent. */
static double metric(const char *text, const char *series)
{
	size_t n = strlen(series);
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		if (strncmp(line, series, n) == 0 && line[n] == ' ')
			return strtod(line + n + 1, NULL);
		line = end ? end + 1 : NULL;
	}
	return -1;
}

static char *get_metrics(void)
{
	hresp r;
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	char *text = r.body;
	r.body = NULL;
	return text;
}

static double metric_now(const char *series)
{
	char *text = get_metrics();
	double v = metric(text, series);
	free(text);
	return v;
}

/* A query whose shape a has the given JSON (b: one point far away). */
static char *query_with_a(const char *a)
{
	char *q = NULL;
	ck_assert_int_ge(asprintf(&q, "{\"a\":%s,\"b\":{\"vertices\":[[9,9,9]]}}", a), 0);
	return q;
}

/* A temporary directory for files a test makes; removed by rm_tree. */
static char *temp_dir(void)
{
	char *d = strdup("/tmp/clashd-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void write_file(const char *dir, const char *name, const char *text, char *path,
                       size_t pathlen)
{
	snprintf(path, pathlen, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Run a command (argv), stdout into out (may be NULL); returns its exit
 * status, or -1 when it could not run. */
static int run(const char *const *argv, char *out, size_t outlen)
{
	spawn_opts o = {.argv = argv, .search = 1, .out = SPAWN_PIPE, .err = SPAWN_NULL};
	int status = spawn_run(&o, out, outlen);
	ck_assert_int_ne(status, -1);
	return spawn_exit_code(status);
}

/* ---- limits -------------------------------------------------------------- */

START_TEST(test_limit_body)
{
	server_start_with((const char *const[]){"--max-body", "1K", NULL}, NULL);
	char *q = cubes_query(0);
	ck_assert_uint_lt(strlen(q), 1024);
	hresp r;
	post(NULL, q, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);

	/* Announced over the limit: answered from the headers. */
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Content-Length: 1025\r\n\r\n"),
	                 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_t *p = assert_problem(&r, 413);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "detail")), "1024"));
	json_decref(p);
	hresp_free(&r);
	hconn_close(&c);

	/* Chunked over the limit: read to its end, then 413, connection kept. */
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Transfer-Encoding: chunked\r\n\r\n"),
	                 0);
	char chunk[600];
	memset(chunk, ' ', sizeof chunk);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(hconn_sendf(&c, "%zx\r\n", sizeof chunk), 0);
		ck_assert_int_eq(hconn_send(&c, chunk, sizeof chunk), 0);
		ck_assert_int_eq(hconn_send(&c, "\r\n", 2), 0);
	}
	ck_assert_int_eq(hconn_send(&c, "0\r\n\r\n", 5), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	ck_assert(!r.closed);
	hresp_free(&r);
	ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	hconn_close(&c);
	free(q);
	ck_assert(metric_now("clashd_rejections_total{reason=\"body_too_large\"}") == 2);
}
END_TEST

START_TEST(test_limit_vertices)
{
	server_start_with((const char *const[]){"--max-vertices", "8", NULL}, NULL);
	char *q = cubes_query(0); /* 8 vertices each */
	hresp r;
	post(NULL, q, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	free(q);
	q = big_cubes_query(9, 3);
	post(NULL, q, &r);
	assert_pointer(&r, 422, "/a/vertices");
	hresp_free(&r);
	free(q);
	/* b over, a within: b is named. */
	q = strdup("{\"a\":{\"vertices\":[[0,0,0]]},"
	           "\"b\":{\"vertices\":[[1,0,0],[2,0,0],[3,0,0],[4,0,0],[5,0,0],[6,0,0],"
	           "[7,0,0],[8,0,0],[9,0,0]]}}");
	post(NULL, q, &r);
	assert_pointer(&r, 422, "/b/vertices");
	hresp_free(&r);
	free(q);
	/* Every route that takes shapes has the limit: /v1/contains too. */
	const char *c =
		"{\"inner\":{\"vertices\":[[0,0,0]]},\"outer\":{\"vertices\":"
		"[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1],[2,2,2]]}}";
	http_do("POST", "/v1/contains", JSON_HEADERS, c, strlen(c), &r);
	assert_pointer(&r, 422, "/outer/vertices");
	hresp_free(&r);
	/* A mesh's positions count too, and the problem does not advise
	 * dropping interior points (a mesh has none to drop). */
	c = "{\"a\":{\"mesh\":{\"positions\":[0,0,0,1,0,0,0,1,0,0,0,1,1,1,1,2,2,2,3,3,3,4,4,4,"
	    "5,5,5],\"indices\":[0,1,2,0,1,3,0,2,3,1,2,3]}},\"b\":{\"vertices\":[[9,9,9]]}}";
	post(NULL, c, &r);
	assert_pointer(&r, 422, "/a/mesh/positions");
	json_t *p = assert_problem(&r, 422);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "detail")),
	                             "a mesh may have at most 8 vertices, this one has 9"));
	json_decref(p);
	hresp_free(&r);
	ck_assert(metric_now("clashd_rejections_total{reason=\"too_many_vertices\"}") == 4);
}
END_TEST

START_TEST(test_limit_shapes_and_parts)
{
	/* Compound shapes ("parts") count part by part, whether or not this
	 * build's decoder accepts them yet: the limits come first. */
	server_start_with((const char *const[]){"--max-shapes", "3", "--max-part-depth", "1", NULL},
	                  NULL);
	hresp r;
	char *q = query_with_a("{\"parts\":[{\"vertices\":[[0,0,0]]},{\"vertices\":[[1,0,0]]}]}");
	post(NULL, q, &r); /* a, a/parts/0, a/parts/1: 3; b is the 4th */
	assert_pointer(&r, 422, "/b");
	hresp_free(&r);
	free(q);
	q = query_with_a("{\"parts\":[{\"vertices\":[[0,0,0]]},{\"vertices\":[[1,0,0]]},"
	                 "{\"vertices\":[[2,0,0]]}]}");
	post(NULL, q, &r);
	assert_pointer(&r, 422, "/a/parts/2");
	hresp_free(&r);
	free(q);
	q = query_with_a("{\"parts\":[{\"parts\":[{\"vertices\":[[0,0,0]]}]}]}");
	post(NULL, q, &r); /* a part of a part: level 2 > 1 */
	assert_pointer(&r, 422, "/a/parts/0/parts/0");
	hresp_free(&r);
	free(q);
	char *m = get_metrics();
	ck_assert(metric(m, "clashd_rejections_total{reason=\"too_many_shapes\"}") == 2);
	ck_assert(metric(m, "clashd_rejections_total{reason=\"parts_too_deep\"}") == 1);
	free(m);
	assert_still_serving();
}
END_TEST

START_TEST(test_limit_depth)
{
	server_start_with((const char *const[]){"--max-depth", "6", NULL}, NULL);
	hresp r;
	/* Depth 6 is allowed: the decoder answers (a point of arrays). */
	char *q = query_with_a("{\"vertices\":[[[[0]]]]}");
	post(NULL, q, &r);
	assert_pointer(&r, 422, "/a/vertices/0/0");
	hresp_free(&r);
	free(q);
	/* Depth 7 (object, object, vertices, then four arrays): 400 at the
	 * first container past the limit, located. */
	q = query_with_a("{\"vertices\":[[[[[0]]]]]}");
	post(NULL, q, &r);
	json_t *p = assert_problem(&r, 400);
	ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "/a/vertices/0/0/0/0");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "line")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "position")),
	                 (json_int_t)(strstr(q, "[[[[[") - q) + 5);
	json_decref(p);
	hresp_free(&r);
	free(q);
	post(NULL, "[[[[[[[[[[[[[[[[[[[[[[[[", &r);
	assert_pointer(&r, 400, "/0/0/0/0/0/0");
	hresp_free(&r);
	/* Brackets inside strings are text, escaped quotes included. */
	post(NULL,
	     "{\"a\":{\"vertices\":[[0]]},\"b\":{\"vertices\":[[1]]},"
	     "\"method\":\"\\\"[[[[[[[[[[\"}",
	     &r);
	assert_pointer(&r, 422, "/method");
	hresp_free(&r);
	ck_assert(metric_now("clashd_rejections_total{reason=\"too_deep\"}") == 2);
}
END_TEST

/* The depth of a jansson value: 0 for a scalar, 1 + the deepest member for
 * a container. */
static size_t true_depth(const json_t *v)
{
	size_t d = 0;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			size_t k = true_depth(json_array_get(v, i));
			if (k > d)
				d = k;
		}
		return d + 1;
	}
	if (json_is_object(v)) {
		const char *key;
		json_t *m;
		json_object_foreach((json_t *)v, key, m) {
			size_t k = true_depth(m);
			if (k > d)
				d = k;
		}
		return d + 1;
	}
	return 0;
}

START_TEST(test_limits_in_proto)
{
	/* proto's depth scan against the true depth of random documents whose
	 * strings hold brackets and escaped quotes: a document is refused as
	 * too deep exactly when it is. */
	proto_init();
	prng g = {12345};
	int refused = 0, passed = 0;
	for (int i = 0; i < 3000; i++) {
		json_t *doc = json_gen(&g, 10, 6);
		char *text =
			json_dumps(doc, JSON_ENCODE_ANY | (i % 2 ? JSON_INDENT(1) : JSON_COMPACT));
		size_t depth = true_depth(doc);
		size_t limit = 1 + prng_below(&g, 8);
		proto_context ctx = {.limits = {.max_depth = limit}};
		proto_reply out;
		proto_call call = {.ctx = &ctx};
		ck_assert_int_eq(proto_query_reply_ex(text, strlen(text), &call, &out), 0);
		int too_deep = call.limit == PROTO_LIMIT_DEPTH;
		ck_assert_msg(too_deep == (depth > limit), "depth %zu, limit %zu, refused %d: %s",
		              depth, limit, too_deep, text);
		if (too_deep) {
			ck_assert_int_eq(out.status, 400);
			refused++;
		} else {
			passed++;
		}
		proto_reply_free(&out);
		free(text);
		json_decref(doc);
	}
	ck_assert_int_gt(refused, 100);
	ck_assert_int_gt(passed, 100);

	/* No limits (the default, and the CLI's): nothing of this is checked. */
	proto_reply out;
	proto_call call = {0};
	const char *many =
		"{\"a\":{\"parts\":[{\"vertices\":[[0,0]]}]},\"b\":{\"vertices\":[[1,1]]}}";
	ck_assert_int_eq(proto_query_reply_ex(many, strlen(many), &call, &out), 0);
	ck_assert_int_eq(call.limit, PROTO_LIMIT_NONE);
	proto_reply_free(&out);
}
END_TEST

START_TEST(test_cancel_hook)
{
	/* The core stops when told, and proto says it was stopped. */
	double va[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	double vb[] = {3, 0, 0, 4, 0, 0, 3, 1, 0, 3, 0, 1};
	clash_shape a, b;
	ck_assert_int_eq(clash_shape_init(&a, 3, va, 4), 0);
	ck_assert_int_eq(clash_shape_init(&b, 3, vb, 4), 0);
	volatile int stop = 0;
	clash_options opt = {0};
	opt.cancel = &stop;
	clash_result res;
	ck_assert_int_eq(clash_gjk(&a, &b, &opt, &res), CLASH_OK);
	ck_near(res.distance, 2, 1e-12);
	stop = 1;
	ck_assert_int_eq(clash_gjk(&a, &b, &opt, &res), CLASH_ECANCELED);
	ck_assert_int_eq(res.iterations, 0);
	ck_assert(strlen(clash_strerror(CLASH_ECANCELED)) > 0);
	/* Every method and containment honour it too. */
	ck_assert_int_eq(clash_lp_simplex(&a, &b, &opt, &res), CLASH_ECANCELED);
	clash_containment cont; /* a in a: every vertex needs a point query */
	ck_assert_int_eq(clash_contains(&a, &a, &opt, &cont), CLASH_ECANCELED);
	stop = 0;
	ck_assert_int_eq(clash_lp_simplex(&a, &b, &opt, &res), CLASH_OK);
	ck_assert_int_eq(res.intersecting, 0);
	ck_assert_int_eq(clash_contains(&a, &a, &opt, &cont), CLASH_OK);
	ck_assert_int_eq(cont.contained, 1);
	stop = 1;

	proto_init();
	char *q = cubes_query(0);
	proto_reply out;
	proto_call call = {.cancel = &stop};
	ck_assert_int_eq(proto_query_reply_ex(q, strlen(q), &call, &out), 0);
	ck_assert_int_eq(call.cancelled, 1);
	ck_assert_int_eq(call.iterations, -1);
	ck_assert_int_eq(out.status, 503);
	proto_reply_free(&out);
	stop = 0;
	ck_assert_int_eq(proto_query_reply_ex(q, strlen(q), &call, &out), 0);
	ck_assert_int_eq(call.cancelled, 0);
	ck_assert_int_ge(call.iterations, 1);
	ck_assert_ptr_null(cubes_answer_wrong(out.body, 2));
	proto_reply_free(&out);
	free(q);
}
END_TEST

/* ---- load ---------------------------------------------------------------- */

/* A client that sends a query's headers and all but its last byte, after
 * the server has admitted it (100 Continue), and holds it. */
typedef struct held {
	hconn c;
	char *q;
	size_t len;
} held;

static void hold_query(held *h, const char *q)
{
	h->q = strdup(q);
	h->len = strlen(q);
	ck_assert_int_eq(hconn_open(&h->c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&h->c,
	                             "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                             "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
	                             h->len),
	                 0);
	hresp r;
	ck_assert_int_eq(hconn_read(&h->c, &r, 0), 0);
	ck_assert_int_eq(r.status, 100);
	hresp_free(&r);
	ck_assert_int_eq(hconn_send(&h->c, h->q, h->len - 1), 0);
}

/* Send the last byte; return the answer. */
static void release_query(held *h, hresp *r)
{
	ck_assert_int_eq(hconn_send(&h->c, h->q + h->len - 1, 1), 0);
	ck_assert_int_eq(hconn_read(&h->c, r, 0), 0);
	hconn_close(&h->c);
	free(h->q);
}

/* clashd with --max-connections 2, both slots holding a query under way
 * (q), and c connected behind them, in the backlog. */
static void fill_two_slots(const char *q, held h[2], hconn *c)
{
	server_start_with((const char *const[]){"--max-connections", "2", NULL}, NULL);
	hold_query(&h[0], q);
	hold_query(&h[1], q);
	ck_assert_int_eq(hconn_open(c, srv.port), 0);
}

START_TEST(test_connection_limit)
{
	/* Past --max-connections a connection waits in the kernel's backlog
	 * while every slot holds a request under way (never cut to make
	 * room; idle ones are, see suite slow): it is served once one
	 * closes, never refused or reset. */
	char *q = cubes_query(0);
	held h[2];
	hconn c;
	hresp r;
	fill_two_slots(q, h, &c);
	ck_assert_int_eq(hconn_request(&c, "GET", "/metrics", NULL, NULL, 0), 0);
	/* Not served while both slots are taken ... */
	hconn_timeout(&c, 1);
	ck_assert_int_ne(hconn_read(&c, &r, 0), 0);
	/* ... and served as soon as one is free. */
	release_query(&h[0], &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	hconn_timeout(&c, 10);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_double_le(metric(r.body, "clashd_connections"), 2);
	hresp_free(&r);
	release_query(&h[1], &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(cubes_answer_wrong(r.body, 2));
	hresp_free(&r);
	hconn_close(&c);
	free(q);
}
END_TEST

START_TEST(test_backpressure)
{
	/* Every client here is 127.0.0.1: no per-client share (suite slow). */
	server_start_with((const char *const[]){"--threads", "1", "--max-queue", "2",
	                                        "--max-queue-per-client", "0", NULL},
	                  NULL);
	char *q = cubes_query(0);
	held h[2];
	hold_query(&h[0], q);
	hold_query(&h[1], q);

	/* Both slots taken: every further query is refused at once, with
	 * Retry-After, without its body being waited for ... */
	enum {
		EXTRA = 6
	};
	for (int i = 0; i < EXTRA; i++) {
		hresp r;
		hconn c;
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		if (i % 2) {
			/* ... whether the client waits for 100 Continue ... */
			ck_assert_int_eq(
				hconn_sendf(&c,
			                    "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
			                    "Expect: 100-continue\r\n"
			                    "Content-Length: %zu\r\n\r\n",
			                    strlen(q)),
				0);
		} else {
			/* ... or sends everything. */
			ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, q,
			                               strlen(q)),
			                 0);
		}
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 503));
		char v[64];
		ck_assert_ptr_nonnull(hresp_header(&r, "Retry-After", v, sizeof v));
		ck_assert_str_eq(v, "1");
		hresp_free(&r);
		hconn_close(&c);
	}
	/* The probes still answer; /readyz says why it is not ready. */
	hresp r;
	http_do("GET", "/readyz", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 503);
	ck_assert_str_eq(r.body, "{\"status\":\"overloaded\"}");
	hresp_free(&r);
	http_do("GET", "/livez", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	char *m = get_metrics();
	ck_assert(metric(m, "clashd_rejections_total{reason=\"overload\"}") == EXTRA);
	ck_assert(metric(m, "clashd_queries_admitted") == 2);
	ck_assert(metric(m, "clashd_queries_admitted_limit") == 2);
	free(m);

	/* The held queries complete, and the slots are free again. */
	for (int i = 0; i < 2; i++) {
		release_query(&h[i], &r);
		ck_assert_int_eq(r.status, 200);
		ck_assert_ptr_null(cubes_answer_wrong(r.body, 2));
		hresp_free(&r);
	}
	http_do("GET", "/readyz", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_still_serving();
	ck_assert(metric_now("clashd_queries_admitted") == 0);
	free(q);
}
END_TEST

#define LOAD_CLIENTS 16
#define LOAD_REQUESTS 25
#define LOAD_VERTICES 3000

typedef struct load_job {
	int port;
	const char *query;
	int ok, refused;    /* 200 (right answer), 503 (problem + Retry-After) */
	double max_latency; /* of the 200s, seconds */
	char error[256];
} load_job;

static void *load_client(void *arg)
{
	load_job *j = arg;
	hconn *c = malloc(sizeof *c);
	int open = 0;
	size_t len = strlen(j->query);
	for (int i = 0; i < LOAD_REQUESTS && !j->error[0]; i++) {
		if (!open && hconn_open(c, j->port) != 0) {
			snprintf(j->error, sizeof j->error, "request %d: cannot connect", i);
			break;
		}
		open = 1;
		double t0 = now_s();
		hresp r;
		if (hconn_request(c, "POST", "/v1/query", JSON_HEADERS, j->query, len) != 0 ||
		    hconn_read(c, &r, 0) != 0) {
			snprintf(j->error, sizeof j->error, "request %d: no complete answer", i);
			break;
		}
		double dt = now_s() - t0;
		char v[64];
		if (r.status == 200 && !cubes_answer_wrong(r.body, 2)) {
			j->ok++;
			if (dt > j->max_latency)
				j->max_latency = dt;
		} else if (r.status == 503 && hresp_header(&r, "Retry-After", v, sizeof v) &&
		           strstr(r.body, "urn:clashd:problem:unavailable")) {
			j->refused++;
		} else {
			snprintf(j->error, sizeof j->error, "request %d: status %d: %.100s", i,
			         r.status, r.body);
		}
		if (r.closed) {
			hconn_close(c);
			open = 0;
		}
		hresp_free(&r);
	}
	if (open)
		hconn_close(c);
	free(c);
	return NULL;
}

START_TEST(test_overload)
{
	/* 16 clients, each with one query always outstanding, against a server
	 * that admits 4: 4x overload.  Every request gets a complete answer,
	 * the right one or a 503, the counts add up, the server's own counts
	 * agree, and its memory stays small. */
	server_start_with((const char *const[]){"--threads", "1", "--max-queue", "4",
	                                        "--max-queue-per-client", "0", NULL},
	                  NULL);
	char *q = big_cubes_query(LOAD_VERTICES, 11);
	pthread_t t[LOAD_CLIENTS];
	load_job jobs[LOAD_CLIENTS];
	double t0 = now_s();
	for (int i = 0; i < LOAD_CLIENTS; i++) {
		jobs[i] = (load_job){.port = srv.port, .query = q};
		ck_assert_int_eq(pthread_create(&t[i], NULL, load_client, &jobs[i]), 0);
	}
	int ok = 0, refused = 0;
	double max_latency = 0;
	for (int i = 0; i < LOAD_CLIENTS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(!jobs[i].error[0], "client %d: %s", i, jobs[i].error);
		ok += jobs[i].ok;
		refused += jobs[i].refused;
		if (jobs[i].max_latency > max_latency)
			max_latency = jobs[i].max_latency;
	}
	double elapsed = now_s() - t0;
	ck_assert_int_eq(ok + refused, LOAD_CLIENTS * LOAD_REQUESTS);
	ck_assert_int_gt(ok, 0);

	char *m = get_metrics();
	ck_assert(metric(m, "clashd_http_requests_total{route=\"/v1/query\",status=\"200\"}") ==
	          ok);
	if (refused)
		ck_assert(
			metric(m,
		               "clashd_http_requests_total{route=\"/v1/query\",status=\"503\"}") ==
			refused);
	ck_assert(metric(m, "clashd_rejections_total{reason=\"overload\"}") == refused);
	ck_assert(metric(m, "clashd_queries_admitted") == 0);
	ck_assert(metric(m, "clashd_query_iterations_count") == ok);
	free(m);
	long rss = process_peak_rss_kib(srv.pid);
	/* Four admitted queries of ~140 KB and one parse tree at a time:
	 * tens of MiB at most.  (AddressSanitizer keeps freed memory in a
	 * 256 MiB quarantine: no bound on clashd-san.) */
	ck_assert_msg(rss > 0 && (clashd_sanitized() || rss < 256 * 1024),
	              "clashd peak RSS %ld KiB", rss);
	fprintf(stderr,
	        "service: overload %dx%d (%zu-byte queries, --threads 1 --max-queue 4): "
	        "%d answered, %d refused 503, 0 lost; slowest answer %.1f ms; %.2f s; "
	        "clashd peak RSS %.1f MiB\n",
	        LOAD_CLIENTS, LOAD_REQUESTS, strlen(q), ok, refused, max_latency * 1e3, elapsed,
	        rss / 1024.0);
	free(q);
}
END_TEST

/* ---- deadlines ----------------------------------------------------------- */

/* Wait until a /metrics gauge reaches `want` (bounded). */
static void wait_metric(const char *series, double want)
{
	double deadline = now_s() + 10;
	while (metric_now(series) != want) {
		ck_assert_msg(now_s() < deadline, "%s never reached %g", series, want);
		usleep(2000);
	}
}

typedef struct async_post {
	pthread_t t;
	const char *q;
	int status;
	char body[1024];
	double sent, answered; /* now_s() when the body was out, the answer in */
} async_post;

static void *async_post_run(void *arg)
{
	async_post *a = arg;
	hconn *c = malloc(sizeof *c);
	hresp r;
	a->status = -1;
	if (c && hconn_open(c, srv.port) == 0) {
		int out = hconn_request(c, "POST", "/v1/query", JSON_HEADERS, a->q, strlen(a->q));
		a->sent = now_s();
		if (out == 0 && hconn_read(c, &r, 0) == 0) {
			a->answered = now_s();
			a->status = r.status;
			snprintf(a->body, sizeof a->body, "%s", r.body);
			hresp_free(&r);
		}
		hconn_close(c);
	}
	free(c);
	return NULL;
}

/* Vertices for a query of about 15 MB (slow_cubes_query: parsed by jansson,
 * not the vertex shortcut): its parse alone takes hundreds of
 * milliseconds (about 0.3 s here), several times the 100 ms deadline plus
 * the 25 ms sweep below. */
#define SLOW_VERTICES 370000

START_TEST(test_request_timeout)
{
	server_start_with((const char *const[]){"--threads", "1", "--request-timeout", "100ms",
	                                        NULL},
	                  NULL);
	char *slow = slow_cubes_query(SLOW_VERTICES, 5);
	ck_assert_uint_lt(strlen(slow), MAX_BODY);
	char *fast = cubes_query(0);
	async_post a = {.q = slow}, b = {.q = fast};
	ck_assert_int_eq(pthread_create(&a.t, NULL, async_post_run, &a), 0);
	/* The slow one is on the only worker: the fast one queues behind it. */
	wait_metric("clashd_workers_busy", 1);
	ck_assert_int_eq(pthread_create(&b.t, NULL, async_post_run, &b), 0);
	pthread_join(a.t, NULL);
	pthread_join(b.t, NULL);
	/* Both answered at their deadline: the running one while its worker
	 * still parses (it stops at its next check), the queued one before it
	 * started. */
	ck_assert_msg(a.status == 504, "running: %d %s", a.status, a.body);
	ck_assert_msg(b.status == 504, "queued: %d %s", b.status, b.body);
	ck_assert_ptr_nonnull(strstr(a.body, "urn:clashd:problem:timeout"));
	/* Due 100 ms after its body was in: answered then, not when the parse
	 * (about 0.3 s) reaches its check.  The bound is wide for a loaded
	 * machine; the figure is printed (the target: 100 ms). */
	double late = a.answered - a.sent - 0.100;
	fprintf(stderr, "service: a running query's 504 came %.1f ms after its deadline\n",
	        1e3 * late);
	ck_assert_msg(late < 0.25, "the 504 came %.3f s after the deadline", late);
	ck_assert_ptr_nonnull(strstr(b.body, "--request-timeout"));
	/* The worker is free again (once the parse reaches its check) and
	 * serves the next query. */
	wait_metric("clashd_workers_busy", 0);
	char *m = get_metrics();
	ck_assert(metric(m, "clashd_rejections_total{reason=\"deadline\"}") == 2);
	ck_assert(metric(m, "clashd_queue_depth") == 0);
	free(m);
	assert_still_serving();
	free(slow);
	free(fast);
}
END_TEST

START_TEST(test_read_timeout)
{
	/* Slow clients: one trickles its headers, one its body, a byte every
	 * 50 ms, which keeps --idle-timeout from ever firing.  --read-timeout
	 * cuts both; others are served meanwhile. */
	server_start_with((const char *const[]){"--read-timeout", "400ms", "--idle-timeout", "10s",
	                                        NULL},
	                  NULL);
	hconn h, b;
	ck_assert_int_eq(hconn_open(&h, srv.port), 0);
	ck_assert_int_eq(hconn_open(&b, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&b, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Content-Length: 100000\r\n\r\n{"),
	                 0);
	const char *head = "GET /livez HTTP/1.1\r\nHost: x\r\nX-Slow: ";
	int h_cut = 0, b_cut = 0, b_status = 0;
	double deadline = now_s() + 15;
	for (int i = 0; (!h_cut || !b_cut) && now_s() < deadline; i++) {
		if (!h_cut &&
		    send(h.fd, i < (int)strlen(head) ? head + i : "a", 1, MSG_NOSIGNAL) != 1)
			h_cut = 1;
		if (!b_cut && send(b.fd, " ", 1, MSG_NOSIGNAL) != 1)
			b_cut = 1;
		usleep(50000);
		char x;
		/* Cut: end of stream or a reset.  The header phase gets no
		 * answer; the body phase may get its 408 first. */
		if (!h_cut) {
			ssize_t n = recv(h.fd, &x, 1, MSG_DONTWAIT | MSG_PEEK);
			if (n == 0 || (n < 0 && errno != EAGAIN))
				h_cut = 1;
		}
		if (!b_cut) {
			ssize_t n = recv(b.fd, &x, 1, MSG_DONTWAIT | MSG_PEEK);
			if (n > 0) {
				hresp r;
				hconn_timeout(&b, 5);
				if (hconn_read(&b, &r, 0) == 0) {
					b_status = r.status;
					hresp_free(&r);
				}
			}
			if (n >= 0 || errno != EAGAIN)
				b_cut = 1;
		}
		if (i % 4 == 0)
			assert_still_serving();
	}
	ck_assert_msg(h_cut, "a client trickling its headers was never cut");
	ck_assert_msg(b_cut, "a client trickling its body was never cut");
	/* The body's client is told why when it can be: 408. */
	ck_assert_msg(b_status == 0 || b_status == 408, "status %d", b_status);
	hconn_close(&h);
	hconn_close(&b);
	ck_assert_double_ge(metric_now("clashd_rejections_total{reason=\"read_timeout\"}"), 2);
	json_t *line = log_wait(&srv, "\"msg\":\"read timeout\"", 5);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
}
END_TEST

/* Whether this process may attach a socket filter to a TCP listener, as
 * clashd (its child, with its privileges) does to refuse new connections
 * while it drains.  Some kernels (Linux 6.18) refuse it without
 * CAP_NET_ADMIN: clashd then closes its listener at once, and a
 * connection queued in that instant may be reset (operations.md, Drain). */
static int syn_filter_allowed(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sock_filter keep = BPF_STMT(BPF_RET | BPF_K, 0xffffffffu);
	struct sock_fprog prog = {1, &keep};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
	         setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

START_TEST(test_drain_timeout)
{
	/* At --drain-timeout whatever is left is stopped: a query held half
	 * sent forever, and an idle connection, do not keep the process. */
	server_start_with((const char *const[]){"--drain-timeout", "300ms", NULL}, NULL);
	char *q = cubes_query(0);
	held h;
	hold_query(&h, q);
	hconn idle;
	ck_assert_int_eq(hconn_open(&idle, srv.port), 0);
	kill(srv.pid, SIGTERM);
	assert_clean_exit(server_wait_exit(15));
	json_t *line = log_wait(&srv, "\"msg\":\"drain timeout\"", 0);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
	/* Both connections were closed by the server. */
	char x;
	ck_assert_int_le(recv(idle.fd, &x, 1, 0), 0);
	hresp r;
	ck_assert_int_ne(hconn_read(&h.c, &r, 0), 0);
	hconn_close(&h.c);
	hconn_close(&idle);
	free(h.q);
	free(q);
}
END_TEST

START_TEST(test_drain_backlog)
{
	/* At --max-connections a new connection waits in the listen backlog.
	 * SIGTERM then must not reset it: the listener stays open (new SYNs
	 * dropped) until the queued connection is taken in, once a slot frees,
	 * and it is answered.  Where the kernel refuses clashd the filter, the
	 * listener closes at once instead, and the queued connection may be
	 * reset; the requests in flight are answered all the same. */
	const int filter = syn_filter_allowed();
	char *q = cubes_query(0);
	held h[2];
	hconn c;
	fill_two_slots(q, h, &c);
	ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)), 0);
	kill(srv.pid, SIGTERM);
	json_t *line = log_wait(&srv, "\"msg\":\"draining\"", 10);
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(json_is_true(json_object_get(line, "syn_filter")), filter);
	json_decref(line);
	/* Well past the 100 ms handshake window: the listener is still open
	 * because of the queued connection (closed at once without the filter). */
	usleep(300000);
	line = log_wait(&srv, "\"msg\":\"listener closed\"", 0);
	ck_assert(filter ? line == NULL : line != NULL);
	json_decref(line);
	hresp r;
	for (int i = 0; i < 2; i++) {
		release_query(&h[i], &r);
		ck_assert_int_eq(r.status, 200);
		ck_assert(r.closed);
		hresp_free(&r);
	}
	int rc = hconn_read(&c, &r, 0);
	if (filter || rc == 0) {
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(r.status, 200);
		ck_assert_ptr_null(cubes_answer_wrong(r.body, 2));
		hresp_free(&r);
	}
	hconn_close(&c);
	assert_clean_exit(server_wait_exit(15));
	free(q);
}
END_TEST

/* ---- drain under load ---------------------------------------------------- */

#define DRAIN_CLIENTS 16

typedef struct drain_load {
	int port;
	int keep_alive;
	const char *query;
	volatile int *answered; /* all clients' 200s, for the main thread */
	pthread_mutex_t *mu;
	int reset_allowed; /* no SYN filter: a connection may be reset at the close */
	int ok, refused, attempts, reset;
	char error[256];
} drain_load;

static void *drain_load_client(void *arg)
{
	drain_load *j = arg;
	hconn *c = malloc(sizeof *c);
	int open = 0;
	size_t len = strlen(j->query);
	/* Until refused at connect (the listener closed), bounded. */
	for (int i = 0; i < 100000 && !j->error[0]; i++) {
		if (!open) {
			int rc = hconn_open(c, j->port);
			if (rc == -ECONNREFUSED) {
				j->refused = 1;
				break;
			}
			if (rc != 0) {
				snprintf(j->error, sizeof j->error, "connect: %s", strerror(-rc));
				break;
			}
			open = 1;
		}
		j->attempts++;
		hresp r;
		if (hconn_request(c, "POST", "/v1/query", JSON_HEADERS, j->query, len) != 0 ||
		    hconn_read(c, &r, 0) != 0) {
			if (j->reset_allowed) {
				j->reset = j->refused = 1; /* queued at the close, then reset */
				break;
			}
			snprintf(j->error, sizeof j->error,
			         "request %d: accepted, then no complete answer (%s)", i,
			         errno ? strerror(errno) : "end of stream");
			break;
		}
		if (r.status != 200 || cubes_answer_wrong(r.body, 2)) {
			snprintf(j->error, sizeof j->error, "request %d: status %d: %.100s", i,
			         r.status, r.body);
		} else {
			j->ok++;
			pthread_mutex_lock(j->mu);
			(*j->answered)++;
			pthread_mutex_unlock(j->mu);
		}
		if (r.closed || !j->keep_alive) {
			hconn_close(c);
			open = 0;
		}
		hresp_free(&r);
	}
	if (open)
		hconn_close(c);
	free(c);
	return NULL;
}

START_TEST(test_drain_under_load)
{
	/* Many clients (half on keep-alive connections, half connecting for
	 * each request) keep querying while SIGTERM arrives.  Each ends when
	 * a connect is refused.  Every request that reached the server got a
	 * complete, right answer: none was reset or cut after its connection
	 * was accepted (where the kernel refuses clashd its SYN filter, one
	 * queued at the instant the listener closes may be reset). */
	const int filter = syn_filter_allowed();
	server_start_with((const char *const[]){"--threads", "2", NULL}, NULL);
	char *q = big_cubes_query(200, 9);
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	volatile int answered = 0;
	pthread_t t[DRAIN_CLIENTS];
	drain_load jobs[DRAIN_CLIENTS];
	for (int i = 0; i < DRAIN_CLIENTS; i++) {
		jobs[i] = (drain_load){.port = srv.port,
		                       .keep_alive = i % 2,
		                       .query = q,
		                       .answered = &answered,
		                       .mu = &mu,
		                       .reset_allowed = !filter};
		ck_assert_int_eq(pthread_create(&t[i], NULL, drain_load_client, &jobs[i]), 0);
	}
	/* SIGTERM in the middle of the load. */
	double deadline = now_s() + 20;
	for (;;) {
		pthread_mutex_lock(&mu);
		int n = answered;
		pthread_mutex_unlock(&mu);
		if (n >= 2000 || now_s() > deadline)
			break;
		usleep(1000);
	}
	kill(srv.pid, SIGTERM);
	int ok = 0, refused = 0, attempts = 0, reset = 0;
	for (int i = 0; i < DRAIN_CLIENTS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(!jobs[i].error[0], "client %d (%s): %s", i,
		              jobs[i].keep_alive ? "keep-alive" : "one per connection",
		              jobs[i].error);
		ok += jobs[i].ok;
		refused += jobs[i].refused;
		attempts += jobs[i].attempts;
		reset += jobs[i].reset;
	}
	ck_assert_int_eq(ok + reset, attempts);
	ck_assert_int_eq(refused, DRAIN_CLIENTS);
	assert_clean_exit(server_wait_exit(20));
	json_t *line = log_wait(&srv, "\"msg\":\"listener closed\"", 0);
	ck_assert_ptr_nonnull(line);
	int at_close = (int)json_integer_value(json_object_get(line, "accepted_at_close"));
	json_decref(line);
	line = log_wait(&srv, "\"msg\":\"draining\"", 0);
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(json_is_true(json_object_get(line, "syn_filter")), filter);
	json_decref(line);
	fprintf(stderr,
	        "service: drain under load: %d clients, %d requests answered, "
	        "%d reset (SYN filter %s), %d connections taken from the backlog at close\n",
	        DRAIN_CLIENTS, ok, reset, filter ? "on: none allowed" : "refused: allowed",
	        at_close);
	free(q);
}
END_TEST

/* ---- observability ------------------------------------------------------- */

/* Check the Prometheus text format 0.0.4, line by line: comments are HELP
 * or TYPE; every sample belongs to a family declared before it; names and
 * labels are well formed; counters end in _total; histogram buckets are
 * cumulative, end with +Inf and match _count. */
static void check_exposition(const char *text)
{
	char family[128] = "", type[64] = "";
	double last_bucket = -1;
	char last_series[256] = "";
	int samples = 0;
	char *copy = strdup(text), *save = NULL;
	ck_assert(text[strlen(text) - 1] == '\n');
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			char kind[8], name[128], rest[64];
			ck_assert_msg(sscanf(line, "# %7s %127s %63s", kind, name, rest) == 3, "%s",
			              line);
			if (strcmp(kind, "TYPE") == 0) {
				ck_assert_str_eq(name, family);
				snprintf(type, sizeof type, "%s", rest);
				ck_assert_msg(strcmp(type, "counter") == 0 ||
				                      strcmp(type, "gauge") == 0 ||
				                      strcmp(type, "histogram") == 0,
				              "%s", line);
				if (strcmp(type, "counter") == 0)
					ck_assert_msg(strlen(name) > 6 &&
					                      strcmp(name + strlen(name) - 6,
					                             "_total") == 0,
					              "counter %s", name);
			} else {
				ck_assert_str_eq(kind, "HELP");
				snprintf(family, sizeof family, "%s", name);
				type[0] = '\0';
			}
			continue;
		}
		samples++;
		/* name{labels} value */
		size_t n =
			strspn(line,
		               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
		ck_assert_msg(n > 0, "%s", line);
		ck_assert_msg(type[0], "sample before its TYPE: %s", line);
		ck_assert_msg(strncmp(line, family, strlen(family)) == 0, "%s is not in %s", line,
		              family);
		const char *suffix = line + strlen(family);
		const char *after = line + n;
		if (*after == '{') {
			const char *close = strchr(after, '}');
			ck_assert_ptr_nonnull(close);
			/* label="value" pairs separated by commas */
			for (const char *p = after + 1; p < close;) {
				size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
				ck_assert_msg(k > 0 && p[k] == '=' && p[k + 1] == '"', "%s", line);
				const char *endq = strchr(p + k + 2, '"');
				ck_assert_ptr_nonnull(endq);
				p = endq + 1;
				ck_assert_msg(*p == ',' || p == close, "%s", line);
				if (*p == ',')
					p++;
			}
			after = close + 1;
		}
		ck_assert_msg(*after == ' ', "%s", line);
		char *end;
		double v = strtod(after + 1, &end);
		ck_assert_msg(*end == '\0' && v >= 0, "%s", line);
		if (strcmp(type, "histogram") == 0) {
			ck_assert_msg(strncmp(suffix, "_bucket", 7) == 0 ||
			                      strncmp(suffix, "_sum", 4) == 0 ||
			                      strncmp(suffix, "_count", 6) == 0,
			              "%s", line);
			/* The series without le: buckets of one series in a row. */
			char series[256];
			snprintf(series, sizeof series, "%.*s",
			         (int)(strstr(line, "le=") ? strstr(line, "le=") - line : 0), line);
			if (strncmp(suffix, "_bucket", 7) == 0) {
				if (strcmp(series, last_series) != 0)
					last_bucket = -1;
				ck_assert_msg(v >= last_bucket, "buckets not cumulative: %s", line);
				last_bucket = v;
				snprintf(last_series, sizeof last_series, "%s", series);
			} else if (strncmp(suffix, "_count", 6) == 0) {
				ck_assert_msg(v == last_bucket, "_count differs from +Inf: %s",
				              line);
			}
		} else {
			ck_assert_msg(*suffix == '{' || *suffix == ' ', "%s", line);
		}
	}
	free(copy);
	ck_assert_int_gt(samples, 20);
}

START_TEST(test_metrics)
{
	server_start();
	char *q = cubes_query(0);
	hresp r;
	for (int i = 0; i < 3; i++) {
		post(NULL, q, &r);
		hresp_free(&r);
	}
	post(NULL, "{", &r);
	hresp_free(&r);
	post(NULL, "{\"a\":1}", &r);
	hresp_free(&r);
	http_do("GET", "/nowhere", NULL, NULL, 0, &r);
	hresp_free(&r);
	http_do("GET", "/livez", NULL, NULL, 0, &r);
	hresp_free(&r);
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	char v[128];
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v),
	                 "text/plain; version=0.0.4; charset=utf-8");
	check_exposition(r.body);
	const char *m = r.body;
	ck_assert(metric(m, "clashd_http_requests_total{route=\"/v1/query\",status=\"200\"}") == 3);
	ck_assert(metric(m, "clashd_http_requests_total{route=\"/v1/query\",status=\"400\"}") == 1);
	ck_assert(metric(m, "clashd_http_requests_total{route=\"/v1/query\",status=\"422\"}") == 1);
	ck_assert(metric(m, "clashd_http_requests_total{route=\"other\",status=\"404\"}") == 1);
	ck_assert(metric(m, "clashd_http_requests_total{route=\"/livez\",status=\"200\"}") == 1);
	ck_assert(metric(m, "clashd_http_request_duration_seconds_count{route=\"/v1/query\"}") ==
	          5);
	ck_assert(metric(m, "clashd_http_request_duration_seconds_bucket{route=\"/v1/query\","
	                    "le=\"+Inf\"}") == 5);
	ck_assert(metric(m, "clashd_http_request_duration_seconds_sum{route=\"/v1/query\"}") > 0);
	/* Three answered queries; the cubes take one iteration each (the
	 * README's example answer says "iterations":1). */
	ck_assert(metric(m, "clashd_query_iterations_count") == 3);
	ck_assert(metric(m, "clashd_query_iterations_bucket{le=\"1\"}") == 3);
	ck_assert(metric(m, "clashd_queue_depth") == 0);
	ck_assert(metric(m, "clashd_workers_busy") == 0);
	ck_assert(metric(m, "clashd_draining") == 0);
	ck_assert(metric(m, "clashd_log_lines_dropped_total") == 0);
	ck_assert(metric(m, "clashd_rejections_total{reason=\"overload\"}") == 0);
	/* This request is in flight while it is answered. */
	ck_assert(metric(m, "clashd_http_requests_in_flight") == 1);
	ck_assert(metric(m, "process_resident_memory_bytes") > 1e6);
	hresp_free(&r);
	free(q);
}
END_TEST

/* One exchange on a kept-alive connection (opened again when the server
 * closes it); returns the seconds it took. */
static double exchange(hconn *c, const char *method, const char *path, const char *headers,
                       const char *body, hresp *r)
{
	double t = now_s();
	ck_assert_int_eq(hconn_request(c, method, path, headers, body, body ? strlen(body) : 0), 0);
	ck_assert_msg(hconn_read(c, r, 0) == 0, "no answer to %s %s", method, path);
	t = now_s() - t;
	if (r->closed) {
		hconn_close(c);
		ck_assert_int_eq(hconn_open(c, srv.port), 0);
		hconn_timeout(c, 5);
	}
	return t;
}

/* The sum of "dropped" over the log's "log lines dropped" lines. */
static long long dropped_told(void)
{
	static const char key[] = "\"msg\":\"log lines dropped\",\"dropped\":";
	long long sum = 0;
	pthread_mutex_lock(&srv.mu); /* the log grows on the reader thread */
	for (const char *p = srv.log; p && (p = strstr(p, key)); p += sizeof key - 1)
		sum += strtoll(p + sizeof key - 1, NULL, 10);
	pthread_mutex_unlock(&srv.mu);
	return sum;
}

/* Logging never blocks serving.  With clashd's stdout a pipe nobody reads,
 * every request is still answered at once while log lines are dropped and
 * counted; once the pipe is read again the log goes on (after a line saying
 * how many were lost) and clashd drains, writes its last lines, exits 0. */
START_TEST(test_log_stuck_stdout)
{
	server_start();
	server_log_pause(1);
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	hconn_timeout(&c, 5); /* a server stuck on its log fails the test here */
	/* The longest request id: long lines fill the 1 MiB buffer sooner. */
	char id[129], livez_h[200], post_h[256];
	memset(id, 'L', 128);
	id[128] = '\0';
	snprintf(livez_h, sizeof livez_h, "X-Request-Id: %s\r\n", id);
	snprintf(post_h, sizeof post_h, JSON_HEADERS "X-Request-Id: %s\r\n", id);
	char *q = cubes_query(0);
	hresp r;
	/* /livez, and every tenth a query, until /metrics (every 500) counts
	 * dropped lines, then 1000 more: all on a stuck stdout. */
	int answered = 0, first_drop = -1;
	double worst = 0, dropped = 0, t0 = now_s();
	while (answered < 40000 && now_s() - t0 < 20) {
		double t;
		if (answered % 10 == 9) {
			t = exchange(&c, "POST", "/v1/query", post_h, q, &r);
			ck_assert_int_eq(r.status, 200);
			const char *wrong = cubes_answer_wrong(r.body, 2);
			ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
		} else {
			t = exchange(&c, "GET", "/livez", livez_h, NULL, &r);
			ck_assert_int_eq(r.status, 200);
		}
		hresp_free(&r);
		answered++;
		worst = t > worst ? t : worst;
		if (first_drop < 0 && answered % 500 == 0) {
			exchange(&c, "GET", "/metrics", NULL, NULL, &r);
			dropped = metric(r.body, "clashd_log_lines_dropped_total");
			hresp_free(&r);
			ck_assert(dropped >= 0);
			if (dropped > 0)
				first_drop = answered;
		}
		if (first_drop >= 0 && answered == first_drop + 1000)
			break;
	}
	double took = now_s() - t0;
	ck_assert_msg(first_drop >= 0, "no log line dropped after %d requests (%.1f s)", answered,
	              took);
	ck_assert_int_eq(answered, first_drop + 1000);
	ck_assert_msg(worst < 1.0, "the slowest of %d answers took %.3f s", answered, worst);
	exchange(&c, "GET", "/metrics", NULL, NULL, &r);
	double dropped_more = metric(r.body, "clashd_log_lines_dropped_total");
	hresp_free(&r);
	ck_assert_msg(dropped_more >= dropped + 900, "%.0f lines dropped, then %.0f", dropped,
	              dropped_more);
	printf("log_stuck_stdout: %d answered in %.2f s on a stuck stdout (slowest %.1f ms), "
	       "first drop counted after %d, %.0f lines dropped\n",
	       answered, took, worst * 1e3, first_drop, dropped_more);

	/* Read the pipe again: once the buffer has room a line says how many
	 * were lost (nothing else is logged meanwhile), and the log goes on. */
	server_log_pause(0);
	json_t *gap = log_wait(&srv, "\"msg\":\"log lines dropped\"", 5);
	ck_assert_msg(gap != NULL, "no \"log lines dropped\" line once the pipe was read");
	ck_assert_str_eq(json_string_value(json_object_get(gap, "level")), "warn");
	json_decref(gap);
	exchange(&c, "GET", "/livez", "X-Request-Id: after-the-gap\r\n", NULL, &r);
	hresp_free(&r);
	json_t *line = log_wait(&srv, "after-the-gap", 5);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
	/* Every line lost is told in the log (before the one above) and
	 * counted in /metrics. */
	exchange(&c, "GET", "/metrics", NULL, NULL, &r);
	double dropped_all = metric(r.body, "clashd_log_lines_dropped_total");
	hresp_free(&r);
	ck_assert(dropped_all >= dropped_more);
	ck_assert_msg(dropped_told() == (long long)dropped_all,
	              "the log tells %lld dropped, "
	              "/metrics %.0f",
	              dropped_told(), dropped_all);
	hconn_close(&c);
	assert_still_serving();
	free(q);

	/* The drain's lines, "exit" the last, are written before clashd ends. */
	assert_clean_exit(server_stop_within(20));
	line = log_wait(&srv, "\"msg\":\"exit\"", 0);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
}
END_TEST

static int is_hex32(const char *s)
{
	return strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

START_TEST(test_request_id)
{
	server_start();
	char id128[129], id129[130];
	memset(id128, 'x', 128);
	id128[128] = '\0';
	memset(id129, 'y', 129);
	id129[129] = '\0';
	/* clang-format off */
	struct {
		const char *sent; /* NULL: no header */
		int kept;
	} cases[] = {
		{NULL, 0},
		{"abc-123_X.y", 1},
		{id128, 1},
		{id129, 0},
		{"bad id", 0},
		{"semi;colon", 0},
		{"\xc3\xa9t\xc3\xa9", 0},
	};
	/* clang-format on */
	char previous[200] = "";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char headers[512] = "";
		if (cases[i].sent)
			snprintf(headers, sizeof headers, "X-Request-Id: %s\r\n", cases[i].sent);
		hresp r;
		http_do("GET", "/livez", headers, NULL, 0, &r);
		char id[200];
		ck_assert_ptr_nonnull(hresp_header(&r, "X-Request-Id", id, sizeof id));
		if (cases[i].kept)
			ck_assert_str_eq(id, cases[i].sent);
		else
			ck_assert_msg(is_hex32(id), "case %zu: id %s", i, id);
		ck_assert_str_ne(id, previous);
		snprintf(previous, sizeof previous, "%s", id);
		/* The log line of the request carries it. */
		char needle[256];
		snprintf(needle, sizeof needle, "\"request_id\":\"%s\"", id);
		json_t *line = log_wait(&srv, needle, 5);
		ck_assert_msg(line != NULL, "no log line with %s", needle);
		ck_assert_str_eq(json_string_value(json_object_get(line, "path")), "/livez");
		json_decref(line);
		hresp_free(&r);
	}
	/* Errors carry it too. */
	hresp r;
	post("X-Request-Id: trace-42\r\n", "{", &r);
	char id[64];
	ck_assert_str_eq(hresp_header(&r, "X-Request-Id", id, sizeof id), "trace-42");
	hresp_free(&r);
}
END_TEST

/* The validator of make test; fails the test with how to get it. */
static void validator_path(char *out, size_t len)
{
	snprintf(out, len,
	         "%s/npm/node_modules/@seriousme/openapi-schema-validator/bin/"
	         "validate-api-cli.js",
	         check_build_dir());
	ck_assert_msg(access(out, R_OK) == 0,
	              "%s is missing: make test installs it (npm install --prefix build/npm "
	              "@seriousme/openapi-schema-validator)",
	              out);
}

START_TEST(test_openapi)
{
	server_start();
	hresp r;
	http_do("GET", "/v1/openapi.json", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	char v[128];
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "application/json");
	json_error_t err;
	json_t *served = json_loads(r.body, JSON_REJECT_DUPLICATES, &err);
	ck_assert_msg(served != NULL, "not JSON: %s", err.text);
	/* The same document as proto/openapi.yaml. */
	json_t *yaml = contract_doc_read("proto/openapi.yaml", 0);
	ck_assert_msg(json_equal(served, yaml), "the served contract differs from openapi.yaml");
	ck_assert_str_eq(json_string_value(json_object_get(served, "openapi")), "3.1.0");
	/* Every route of the server is in it. */
	const char *paths[] = {"/v1/query", "/v1/contains", "/v1/scene",       "/livez",
	                       "/readyz",   "/metrics",     "/v1/openapi.json"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		ck_assert_msg(json_object_get(json_object_get(served, "paths"), paths[i]),
		              "%s is not documented", paths[i]);
	json_decref(yaml);

	/* Valid against the OpenAPI 3.1 schema ... */
	char validator[4096];
	validator_path(validator, sizeof validator);
	char *dir = temp_dir();
	char good[4200], bad[4200], out[4096];
	write_file(dir, "openapi.json", r.body, good, sizeof good);
	int rc = run((const char *const[]){"node", validator, good, NULL}, out, sizeof out);
	ck_assert_msg(rc == 0 && strstr(out, "\"valid\": true"), "validator (%d): %s", rc, out);
	/* ... which would have said so otherwise: a response without its
	 * required description, and an unknown top-level member. */
	json_object_del(
		json_object_get(
			json_object_get(json_object_get(json_object_get(json_object_get(served,
	                                                                                "paths"),
	                                                                "/livez"),
	                                                "get"),
	                                "responses"),
			"200"),
		"description");
	char *broken = json_dumps(served, JSON_COMPACT);
	write_file(dir, "broken.json", broken, bad, sizeof bad);
	rc = run((const char *const[]){"node", validator, bad, NULL}, out, sizeof out);
	ck_assert_msg(rc != 0 && strstr(out, "\"valid\": false"), "validator accepted: %s", out);
	free(broken);
	unlink(good);
	unlink(bad);
	rmdir(dir);
	free(dir);
	json_decref(served);
	hresp_free(&r);
}
END_TEST

/* ---- security ------------------------------------------------------------ */

#define TOKEN "s3cr3t-Token_v.1~+/=="

START_TEST(test_auth)
{
	char *dir = temp_dir();
	char path[4200];
	write_file(dir, "token", TOKEN "\n", path, sizeof path);
	server_start_with((const char *const[]){"--auth-token-file", path, NULL}, NULL);
	hresp r;
	char v[256];
	/* Open by default: the probes and /metrics. */
	const char *open[] = {"/livez", "/readyz", "/metrics"};
	for (size_t i = 0; i < 3; i++) {
		http_do("GET", open[i], NULL, NULL, 0, &r);
		ck_assert_msg(r.status == 200, "%s: %d", open[i], r.status);
		hresp_free(&r);
	}
	char *q = cubes_query(0);
	/* No token, or no Bearer one: told the scheme. */
	const char *missing[] = {NULL, "Authorization: Basic dXNlcjpwYXNz\r\n",
	                         "Authorization: Bearer\r\n", "Authorization: " TOKEN "\r\n"};
	for (size_t i = 0; i < 4; i++) {
		post(missing[i], q, &r);
		json_decref(assert_problem(&r, 401));
		ck_assert_str_eq(hresp_header(&r, "WWW-Authenticate", v, sizeof v),
		                 "Bearer realm=\"clashd\"");
		hresp_free(&r);
	}
	/* A wrong token, however close: invalid_token. */
	const char *wrong[] = {"Authorization: Bearer s3cr3t-Token_v.1~+/=\r\n",
	                       "Authorization: Bearer " TOKEN "x\r\n",
	                       "Authorization: Bearer S3cr3t-Token_v.1~+/==\r\n",
	                       "Authorization: Bearer x\r\n"};
	for (size_t i = 0; i < 4; i++) {
		post(wrong[i], q, &r);
		json_decref(assert_problem(&r, 401));
		ck_assert_str_eq(hresp_header(&r, "WWW-Authenticate", v, sizeof v),
		                 "Bearer realm=\"clashd\", error=\"invalid_token\"");
		hresp_free(&r);
	}
	/* The right one, the scheme in any case. */
	const char *right[] = {"Authorization: Bearer " TOKEN "\r\n",
	                       "Authorization: bearer  " TOKEN " \r\n"};
	for (size_t i = 0; i < 2; i++) {
		post(right[i], q, &r);
		ck_assert_int_eq(r.status, 200);
		ck_assert_ptr_null(cubes_answer_wrong(r.body, 2));
		hresp_free(&r);
	}
	/* Everything else is protected: the contract, and unknown methods
	 * (401 comes before 405). */
	http_do("GET", "/v1/openapi.json", NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 401));
	hresp_free(&r);
	http_do("GET", "/v1/query", NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 401));
	hresp_free(&r);
	http_do("GET", "/v1/openapi.json", "Authorization: Bearer " TOKEN "\r\n", NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	ck_assert(metric_now("clashd_rejections_total{reason=\"unauthorized\"}") == 10);
	json_t *line = log_wait(&srv, "\"msg\":\"listening\"", 0);
	ck_assert_str_eq(json_string_value(json_object_get(line, "auth")), "bearer");
	pthread_mutex_lock(&srv.mu); /* the log grows on the reader thread */
	int logged = srv.log && strstr(srv.log, "s3cr3t") != NULL;
	pthread_mutex_unlock(&srv.mu);
	ck_assert_msg(!logged, "the token is in the log");
	json_decref(line);
	assert_clean_exit(server_stop_within(15));

	/* --auth-open chooses the open paths; empty or "none": none. */
	server_start_with((const char *const[]){"--auth-token-file", path, "--auth-open=", NULL},
	                  NULL);
	http_do("GET", "/livez", NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 401));
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
	server_start_with((const char *const[]){"--auth-token-file", path, NULL},
	                  (const char *const[]){"CLASHD_AUTH_OPEN=none", NULL});
	http_do("GET", "/readyz", NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 401));
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
	server_start_with((const char *const[]){"--auth-open", "/v1/openapi.json, /livez", NULL},
	                  (const char *const[]){NULL});
	/* (no token: nothing is protected) */
	post(NULL, q, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
	char env[4300];
	snprintf(env, sizeof env, "CLASHD_AUTH_TOKEN_FILE=%s", path);
	server_start_with((const char *const[]){"--auth-open", "/v1/openapi.json", NULL},
	                  (const char *const[]){env, NULL});
	http_do("GET", "/v1/openapi.json", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 401);
	hresp_free(&r);
	free(q);
	unlink(path);
	rmdir(dir);
	free(dir);
}
END_TEST

/* clashd with the origins the CORS tests are about, and a bearer token. */
static char cors_dir[4096], cors_token[4200];

static void cors_start(void)
{
	char *dir = temp_dir();
	snprintf(cors_dir, sizeof cors_dir, "%s", dir);
	free(dir);
	write_file(cors_dir, "token", TOKEN, cors_token, sizeof cors_token);
	server_start_with((const char *const[]){"--cors-origin",
	                                        "https://app.example, http://localhost:3000, "
	                                        "http://127.0.0.1:*, https://*.corp.example, "
	                                        "http://[::1]:*",
	                                        "--auth-token-file", cors_token, NULL},
	                  NULL);
}

static void cors_stop(void)
{
	assert_clean_exit(server_stop_within(15));
	unlink(cors_token);
	rmdir(cors_dir);
}

/* A browser's preflight of a POST with the headers the client sends. */
#define CORS_PREFLIGHT                                                           \
	"Origin: https://app.example\r\nAccess-Control-Request-Method: POST\r\n" \
	"Access-Control-Request-Headers: content-type, authorization, x-clashd-shape\r\n"

/* The log line of a refused preflight names the origin, why, and the flag. */
static void assert_preflight_refused_logged(const char *origin, const char *reason)
{
	json_t *line = log_wait(&srv, "cors preflight refused", 5);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(json_string_value(json_object_get(line, "origin")), origin);
	ck_assert_str_eq(json_string_value(json_object_get(line, "reason")), reason);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(line, "hint")), "--cors-origin"));
	json_decref(line);
}

START_TEST(test_cors_preflight_granted)
{
	/* A preflight from an allowed origin: 204 and the grant, no token
	 * needed (browsers never send one on a preflight). */
	cors_start();
	hresp r;
	char v[256];
	http_do("OPTIONS", "/v1/query", CORS_PREFLIGHT, NULL, 0, &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v),
	                 "https://app.example");
	ck_assert_str_eq(hresp_header(&r, "Vary", v, sizeof v), "Origin");
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Methods", v, sizeof v), "POST");
	ck_assert_ptr_nonnull(hresp_header(&r, "Access-Control-Allow-Headers", v, sizeof v));
	ck_assert_ptr_nonnull(strcasestr(v, "content-type"));
	ck_assert_ptr_nonnull(strcasestr(v, "authorization"));
	/* The routing header of deploy/haproxy (clients/js routeBy). */
	ck_assert_ptr_nonnull(strcasestr(v, "x-clashd-shape"));
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Max-Age", v, sizeof v), "600");
	ck_assert_uint_eq(r.body_len, 0);
	hresp_free(&r);
	cors_stop();
}
END_TEST

START_TEST(test_cors_preflight_refused)
{
	/* From another origin: no grant (the browser then blocks the call),
	 * and a log line that says which flag would allow it. */
	cors_start();
	hresp r;
	char v[256];
	http_do("OPTIONS", "/v1/query",
	        "Origin: https://evil.example\r\nAccess-Control-Request-Method: POST\r\n", NULL, 0,
	        &r);
	ck_assert_ptr_null(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
	ck_assert_str_eq(hresp_header(&r, "Vary", v, sizeof v), "Origin");
	hresp_free(&r);
	assert_preflight_refused_logged("https://evil.example",
	                                "the origin is not in --cors-origin");
	cors_stop();
}
END_TEST

START_TEST(test_cors_preflight_any_path)
{
	/* A preflight to a path that does not exist is granted, so the page
	 * reads the 404 problem of the real request (not "Failed to fetch");
	 * a method the route does not take is granted for the same reason. */
	cors_start();
	hresp r;
	char v[256];
	const char *pre_get =
		"Origin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n";
	http_do("OPTIONS", "/v1/qeury", pre_get, NULL, 0, &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v),
	                 "https://app.example");
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Methods", v, sizeof v), "GET");
	hresp_free(&r);
	http_do("OPTIONS", "/v1/query", pre_get, NULL, 0, &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Methods", v, sizeof v), "GET");
	hresp_free(&r);
	cors_stop();
}
END_TEST

START_TEST(test_cors_origin_patterns)
{
	/* Patterns: any port of 127.0.0.1 (and none), any name below
	 * corp.example; not corp.example itself, not another scheme, not a
	 * name that only ends alike. */
	cors_start();
	hresp r;
	char v[256];
	/* clang-format off */
	struct {
		const char *origin;
		int allowed;
	} pat[] = {
		{"http://127.0.0.1:5173", 1}, {"http://127.0.0.1", 1},
		{"https://127.0.0.1:5173", 0}, {"http://127.0.0.10:80", 0},
		{"https://cad.corp.example", 1}, {"https://a.b.CORP.example", 1},
		{"https://corp.example", 0}, {"https://evilcorp.example", 0},
		{"http://cad.corp.example", 0}, {"https://cad.corp.example:8443", 0},
		{"http://localhost:3001", 0},
		/* A wildcard stands for a port or a label of a well-formed
		 * origin, never for other text. */
		{"http://127.0.0.1:1@evil.net", 0}, {"http://127.0.0.1:abc", 0},
		{"http://127.0.0.1:80/x", 0}, {"http://127.0.0.1:", 0},
		{"http://127.0.0.1:99999", 0}, {"http://127.0.0.1:65535", 1},
		{"https://evil.net?.corp.example", 0}, {"https://evil.net#.corp.example", 0},
		{"https://a@b.corp.example", 0}, {"https://.corp.example", 0},
		{"https://a..corp.example", 0}, {"https://-a.corp.example", 0},
		{"https://a-.corp.example", 0}, {"https://evil.net/.corp.example", 0},
		{"https://x-1.corp.example", 1}, {"http://[::1]:8080", 1}, {"http://[::1]", 1},
		{"http://[::1]x:8080", 0}, {"http://[::1]:8080@evil.net", 0},
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof pat / sizeof pat[0]; i++) {
		char h[256];
		snprintf(h, sizeof h, "Origin: %s\r\nAccess-Control-Request-Method: POST\r\n",
		         pat[i].origin);
		http_do("OPTIONS", "/v1/query", h, NULL, 0, &r);
		ck_assert_int_eq(r.status, 204);
		const char *got = hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v);
		ck_assert_msg(pat[i].allowed ? got && strcmp(got, pat[i].origin) == 0 : !got,
		              "%s: granted %s", pat[i].origin, got ? got : "nothing");
		hresp_free(&r);
	}
	cors_stop();
}
END_TEST

START_TEST(test_cors_options_not_preflight)
{
	/* An OPTIONS that is no preflight is still a 405 (after the token). */
	cors_start();
	hresp r;
	http_do("OPTIONS", "/v1/query", "Authorization: Bearer " TOKEN "\r\n", NULL, 0, &r);
	json_decref(assert_problem(&r, 405));
	hresp_free(&r);
	cors_stop();
}
END_TEST

START_TEST(test_cors_actual_requests)
{
	/* Actual requests: the grant and the exposed headers on answers and
	 * on errors alike (401, 404, 422). */
	cors_start();
	hresp r;
	char v[256];
	char *q = cubes_query(0);
	struct {
		const char *headers, *method, *path, *body;
		int status;
	} cases[] = {
		{"Origin: http://localhost:3000\r\nAuthorization: Bearer " TOKEN "\r\n", "POST",
	         "/v1/query", q, 200},
		{"Origin: http://localhost:3000\r\n", "POST", "/v1/query", q, 401},
		{"Origin: https://app.example\r\n", "GET", "/nowhere", NULL, 404},
		{"Origin: https://APP.example\r\nAuthorization: Bearer " TOKEN "\r\n", "POST",
	         "/v1/query", "{\"a\":1}", 422},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char headers[512];
		snprintf(headers, sizeof headers, "%s%s", cases[i].headers,
		         cases[i].body ? JSON_HEADERS : "");
		http_do(cases[i].method, cases[i].path, headers, cases[i].body,
		        cases[i].body ? strlen(cases[i].body) : 0, &r);
		ck_assert_msg(r.status == cases[i].status, "case %zu: %d", i, r.status);
		ck_assert_ptr_nonnull(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
		ck_assert_ptr_nonnull(strstr(cases[i].headers, v));
		ck_assert_ptr_nonnull(
			hresp_header(&r, "Access-Control-Expose-Headers", v, sizeof v));
		ck_assert_ptr_nonnull(strstr(v, "X-Request-Id"));
		ck_assert_ptr_nonnull(strstr(v, "Retry-After"));
		ck_assert_str_eq(hresp_header(&r, "Vary", v, sizeof v), "Origin");
		hresp_free(&r);
	}
	free(q);
	cors_stop();
}
END_TEST

START_TEST(test_cors_no_origin)
{
	/* No Origin (not a browser): no CORS headers but Vary. */
	cors_start();
	hresp r;
	char v[256];
	char *q = cubes_query(0);
	post("Authorization: Bearer " TOKEN "\r\n", q, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
	ck_assert_str_eq(hresp_header(&r, "Vary", v, sizeof v), "Origin");
	hresp_free(&r);
	free(q);
	cors_stop();
}
END_TEST

START_TEST(test_cors_any_origin)
{
	/* "*": any origin, answered "*". */
	server_start_with((const char *const[]){"--cors-origin", "*", NULL}, NULL);
	hresp r;
	char v[256];
	http_do("OPTIONS", "/readyz", "Origin: null\r\nAccess-Control-Request-Method: GET\r\n",
	        NULL, 0, &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v), "*");
	ck_assert_str_eq(hresp_header(&r, "Access-Control-Allow-Methods", v, sizeof v),
	                 "GET, HEAD");
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
}
END_TEST

START_TEST(test_cors_off)
{
	/* Without --cors-origin there is no CORS at all: OPTIONS is a 405,
	 * and the log says how to turn CORS on. */
	server_start();
	hresp r;
	char v[256];
	http_do("OPTIONS", "/v1/query", CORS_PREFLIGHT, NULL, 0, &r);
	json_decref(assert_problem(&r, 405));
	ck_assert_ptr_null(hresp_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
	hresp_free(&r);
	assert_preflight_refused_logged("https://app.example",
	                                "no --cors-origin is set: CORS is off");
	assert_clean_exit(server_stop_within(15));
}
END_TEST

START_TEST(test_tls)
{
	/* A self-signed certificate for 127.0.0.1, made here. */
	char *dir = temp_dir();
	char key[4200], cert[4200], url[256], out[8192];
	snprintf(key, sizeof key, "%s/key.pem", dir);
	snprintf(cert, sizeof cert, "%s/cert.pem", dir);
	int rc = run((const char *const[]){"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
	                                   "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
	                                   "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
	                                   "-addext", "subjectAltName=IP:127.0.0.1", NULL},
	             NULL, 0);
	ck_assert_msg(rc == 0, "openssl req failed (%d): is the openssl package installed?", rc);

	server_start_with((const char *const[]){"--tls-cert", cert, "--tls-key", key, NULL}, NULL);
	json_t *line = log_wait(&srv, "\"msg\":\"listening\"", 0);
	ck_assert(json_is_true(json_object_get(line, "tls")));
	json_decref(line);
	/* curl, verifying the certificate, gets the right answers. */
	char *q = cubes_query(0);
	snprintf(url, sizeof url, "https://127.0.0.1:%d/v1/query", srv.port);
	rc = run((const char *const[]){"curl", "-sS", "--max-time", "10", "--cacert", cert, "-H",
	                               "Content-Type: application/json", "--data-binary", q, url,
	                               NULL},
	         out, sizeof out);
	ck_assert_msg(rc == 0, "curl exited %d", rc);
	ck_assert_msg(!cubes_answer_wrong(out, 2), "%s", out);
	snprintf(url, sizeof url, "https://127.0.0.1:%d/livez", srv.port);
	rc = run((const char *const[]){"curl", "-sS", "--max-time", "10", "--cacert", cert, url,
	                               NULL},
	         out, sizeof out);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "{\"status\":\"ok\"}");
	/* The built-in probe speaks TLS too (without verifying). */
	const char *self = clashd_path();
	ck_assert_int_eq(run((const char *const[]){self, "--healthcheck", url, NULL}, out,
	                     sizeof out),
	                 0);
	ck_assert_ptr_nonnull(strstr(out, "status 200"));
	snprintf(url, sizeof url, "http://127.0.0.1:%d/livez", srv.port);
	ck_assert_int_eq(run((const char *const[]){self, "--healthcheck", url, NULL}, NULL, 0), 1);
	/* Plain HTTP to the TLS port gets no HTTP answer. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
	hconn_timeout(&c, 5);
	if (hconn_read(&c, &r, 0) == 0) {
		ck_assert_int_ne(r.status, 200);
		hresp_free(&r);
	}
	hconn_close(&c);
	assert_clean_exit(server_stop_within(15));

	/* The same from the environment. */
	char env_cert[4300], env_key[4300];
	snprintf(env_cert, sizeof env_cert, "CLASHD_TLS_CERT=%s", cert);
	snprintf(env_key, sizeof env_key, "CLASHD_TLS_KEY=%s", key);
	server_start_with(NULL, (const char *const[]){env_cert, env_key, NULL});
	line = log_wait(&srv, "\"msg\":\"listening\"", 0);
	ck_assert(json_is_true(json_object_get(line, "tls")));
	ck_assert_str_eq(json_string_value(json_object_get(line, "tls_cert_source")), "env");
	ck_assert_str_eq(json_string_value(json_object_get(line, "tls_key")), key);
	json_decref(line);
	snprintf(url, sizeof url, "https://127.0.0.1:%d/readyz", srv.port);
	rc = run((const char *const[]){"curl", "-sS", "--max-time", "10", "--cacert", cert, url,
	                               NULL},
	         out, sizeof out);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "{\"status\":\"ready\"}");
	assert_clean_exit(server_stop_within(15));

	/* A key that does not go with the certificate: the server does not
	 * start (exit 1), and says so. */
	char other[4200];
	snprintf(other, sizeof other, "%s/other.pem", dir);
	rc = run((const char *const[]){"openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
	                               "ec_paramgen_curve:P-256", "-out", other, NULL},
	         NULL, 0);
	ck_assert_int_eq(rc, 0);
	char err[1024];
	ck_assert_int_eq(run_clashd((const char *const[]){"--listen", "127.0.0.1:0", "--tls-cert",
	                                                  cert, "--tls-key", other, NULL},
	                            NULL, err, sizeof err),
	                 1);
	free(q);
	unlink(key);
	unlink(cert);
	unlink(other);
	rmdir(dir);
	free(dir);
}
END_TEST

/* ---- configuration ------------------------------------------------------- */

START_TEST(test_flags_and_environment)
{
	/* Each new setting: from the environment, then a flag over it; the
	 * start-up line shows the value and where it came from. */
	static const struct {
		const char *flag, *env, *key;
		const char *env_value;
		long long env_want;
		const char *flag_value;
		long long flag_want;
		long long def;
	} cases[] = {
		{"--max-body", "CLASHD_MAX_BODY", "max_body_bytes", "2M", 2 << 20, "3K", 3072,
	         16 << 20},
		{"--max-vertices", "CLASHD_MAX_VERTICES", "max_vertices", "500", 500, "70", 70,
	         200000},
		{"--max-shapes", "CLASHD_MAX_SHAPES", "max_shapes", "9", 9, "2", 2, 1024},
		{"--max-depth", "CLASHD_MAX_DEPTH", "max_depth", "10", 10, "2048", 2048, 64},
		{"--max-part-depth", "CLASHD_MAX_PART_DEPTH", "max_part_depth", "3", 3, "1", 1, 8},
		{"--max-connections", "CLASHD_MAX_CONNECTIONS", "max_connections", "50", 50, "7", 7,
	         1000},
		{"--max-queue", "CLASHD_MAX_QUEUE", "max_queue", "5", 5, "6", 6, 32},
		{"--idle-timeout", "CLASHD_IDLE_TIMEOUT", "idle_timeout_ms", "2s", 2000, "3", 3000,
	         30000},
		{"--read-timeout", "CLASHD_READ_TIMEOUT", "read_timeout_ms", "1m", 60000, "750ms",
	         750, 60000},
		{"--request-timeout", "CLASHD_REQUEST_TIMEOUT", "request_timeout_ms", "5s", 5000,
	         "250ms", 250, 10000},
		{"--drain-timeout", "CLASHD_DRAIN_TIMEOUT", "drain_timeout_ms", "0", 0, "2s", 2000,
	         20000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char env[128], key[128];
		snprintf(env, sizeof env, "%s=%s", cases[i].env, cases[i].env_value);
		snprintf(key, sizeof key, "%s_source", cases[i].key);
		/* --threads 2 makes the default queue bound 32. */
		const char *base[] = {"--listen", "127.0.0.1:0", "--threads", "2", NULL};
		json_t *j = listening_line(base, NULL);
		ck_assert_ptr_nonnull(j);
		ck_assert_msg(json_integer_value(json_object_get(j, cases[i].key)) == cases[i].def,
		              "%s default", cases[i].key);
		ck_assert_str_eq(json_string_value(json_object_get(j, key)), "default");
		json_decref(j);
		j = listening_line(base, (const char *const[]){env, NULL});
		ck_assert_ptr_nonnull(j);
		ck_assert_msg(json_integer_value(json_object_get(j, cases[i].key)) ==
		                      cases[i].env_want,
		              "%s from %s", cases[i].key, env);
		ck_assert_str_eq(json_string_value(json_object_get(j, key)), "env");
		json_decref(j);
		const char *args[] = {"--listen",    "127.0.0.1:0",       "--threads", "2",
		                      cases[i].flag, cases[i].flag_value, NULL};
		j = listening_line(args, (const char *const[]){env, NULL});
		ck_assert_ptr_nonnull(j);
		ck_assert_msg(json_integer_value(json_object_get(j, cases[i].key)) ==
		                      cases[i].flag_want,
		              "%s from %s", cases[i].key, cases[i].flag);
		ck_assert_str_eq(json_string_value(json_object_get(j, key)), "flag");
		json_decref(j);
	}
	/* Lists: CORS origins and open paths. */
	const char *base[] = {"--listen", "127.0.0.1:0", NULL};
	json_t *j =
		listening_line(base, (const char *const[]){"CLASHD_CORS_ORIGIN=https://a.example,"
	                                                   "https://b.example:8443",
	                                                   "CLASHD_AUTH_OPEN=/livez", NULL});
	ck_assert_int_eq(json_array_size(json_object_get(j, "cors_origin")), 2);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "cors_origin"), 1)),
	                 "https://b.example:8443");
	ck_assert_str_eq(json_string_value(json_object_get(j, "cors_origin_source")), "env");
	ck_assert_int_eq(json_array_size(json_object_get(j, "auth_open")), 1);
	json_decref(j);
}
END_TEST

START_TEST(test_bad_values)
{
	char *dir = temp_dir();
	char empty[4200], spaced[4200], pem[4200];
	write_file(dir, "empty", "\n", empty, sizeof empty);
	write_file(dir, "spaced", "two words\n", spaced, sizeof spaced);
	write_file(dir, "notpem", "hello\n", pem, sizeof pem);
	struct {
		const char *args[5];
		const char *env;
		const char *mention;
	} cases[] = {
		{{"--max-body", "1X"}, NULL, "--max-body"},
		{{"--max-body", "10"}, NULL, "--max-body"},
		{{"--max-body", "2G"}, NULL, "--max-body"},
		{{"--max-vertices", "0"}, NULL, "--max-vertices"},
		{{"--max-shapes", "1"}, NULL, "--max-shapes"},
		{{"--max-depth", "3"}, NULL, "--max-depth"},
		{{"--max-depth", "4096"}, NULL, "--max-depth"},
		{{"--max-part-depth", "-1"}, NULL, "--max-part-depth"},
		{{"--max-connections", "1e3"}, NULL, "--max-connections"},
		{{"--max-queue", "0"}, NULL, "--max-queue"},
		{{"--idle-timeout", "500ms"}, NULL, "--idle-timeout"},
		{{"--read-timeout", "5h"}, NULL, "--read-timeout"},
		{{"--request-timeout", "0"}, NULL, "--request-timeout"},
		{{"--request-timeout", "1.5s"}, NULL, "--request-timeout"},
		{{"--drain-timeout", "s"}, NULL, "--drain-timeout"},
		{{"--cors-origin", "ftp://x.example"}, NULL, "--cors-origin"},
		{{"--cors-origin", "https://a.example/path"}, NULL, "--cors-origin"},
		{{"--auth-open", "/nope"}, NULL, "--auth-open"},
		{{"--auth-token-file", "/nonexistent/token"}, NULL, "--auth-token-file"},
		{{"--auth-token-file", empty}, NULL, "--auth-token-file"},
		{{"--auth-token-file", spaced}, NULL, "--auth-token-file"},
		{{"--tls-cert", pem, "--tls-key", pem}, NULL, "--tls-cert"},
		{{"--tls-key", "/nonexistent"}, NULL, "--tls-key"},
		{{"--max-queue"}, NULL, "--max-queue"},
		{{NULL}, "CLASHD_MAX_QUEUE=0", "CLASHD_MAX_QUEUE"},
		{{NULL}, "CLASHD_IDLE_TIMEOUT=abc", "CLASHD_IDLE_TIMEOUT"},
		{{NULL}, "CLASHD_MAX_BODY=-1", "CLASHD_MAX_BODY"},
		{{NULL}, "CLASHD_CORS_ORIGIN=*.example", "CLASHD_CORS_ORIGIN"},
		{{"--cors-origin", "http://local*:3000"}, NULL, "--cors-origin"},
		{{"--cors-origin", "https://a.*.example"}, NULL, "--cors-origin"},
		{{"--cors-origin", "http://localhost:3*"}, NULL, "--cors-origin"},
		{{"--cors-origin", "http://localhost:"}, NULL, "--cors-origin"},
		{{"--cors-origin", "https://*."}, NULL, "--cors-origin"},
		{{"--cors-origin", "http://localhost:1@evil.net"}, NULL, "--cors-origin"},
		{{"--cors-origin", "https://a?b.example"}, NULL, "--cors-origin"},
		{{"--cors-origin", "https://*.a..example"}, NULL, "--cors-origin"},
		{{"--cors-origin", "http://[::1:*"}, NULL, "--cors-origin"},
		{{"--cors-origin", "http://localhost:70000"}, NULL, "--cors-origin"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[1024];
		const char *env[] = {cases[i].env, NULL};
		int rc = run_clashd(cases[i].args, env, err, sizeof err);
		ck_assert_msg(rc == 2, "case %zu exited %d (%s)", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].mention),
		              "case %zu: stderr \"%s\" does not name %s", i, err, cases[i].mention);
	}
	/* A certificate without a key (and the reverse) is refused. */
	char err[1024];
	char cert[4200];
	write_file(dir, "cert", "-----BEGIN CERTIFICATE-----\n", cert, sizeof cert);
	ck_assert_int_eq(run_clashd((const char *const[]){"--tls-cert", cert, NULL}, NULL, err,
	                            sizeof err),
	                 2);
	ck_assert_ptr_nonnull(strstr(err, "--tls-key"));
	unlink(cert);
	unlink(empty);
	unlink(spaced);
	unlink(pem);
	rmdir(dir);
	free(dir);
}
END_TEST

START_TEST(test_help)
{
	char out[16384];
	const char *path = clashd_path();
	ck_assert_int_eq(run((const char *const[]){path, "--help", NULL}, out, sizeof out), 0);
	const char *names[] = {"--listen",         "--threads",         "--max-body",
	                       "--max-vertices",   "--max-shapes",      "--max-depth",
	                       "--max-part-depth", "--max-connections", "--max-queue",
	                       "--idle-timeout",   "--read-timeout",    "--request-timeout",
	                       "--drain-timeout",  "--auth-token-file", "--auth-open",
	                       "--cors-origin",    "--tls-cert",        "--tls-key",
	                       "--healthcheck"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		ck_assert_msg(strstr(out, names[i]), "--help does not mention %s", names[i]);
		if (strcmp(names[i], "--healthcheck") == 0)
			continue;
		/* ... and its variable: --max-body -> CLASHD_MAX_BODY */
		char env[64] = "CLASHD_";
		size_t k = 7;
		for (const char *p = names[i] + 2; *p && k + 1 < sizeof env; p++)
			env[k++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
		env[k] = '\0';
		ck_assert_msg(strstr(out, env), "--help does not mention %s", env);
	}
	/* Lines fit a terminal. */
	for (const char *line = out; *line;) {
		size_t n = strcspn(line, "\n");
		ck_assert_msg(n <= 80, "--help line of %zu characters: %.*s", n, (int)n, line);
		line += n + (line[n] == '\n');
	}
}
END_TEST

START_TEST(test_healthcheck)
{
	server_start();
	char url[128];
	const char *path = clashd_path();
	snprintf(url, sizeof url, "http://127.0.0.1:%d/livez", srv.port);
	ck_assert_int_eq(run((const char *const[]){path, "--healthcheck", url, NULL}, NULL, 0), 0);
	snprintf(url, sizeof url, "http://localhost:%d/readyz", srv.port);
	ck_assert_int_eq(run((const char *const[]){path, "--healthcheck", url, NULL}, NULL, 0), 0);
	/* A 404, a closed port, https, nonsense: unhealthy. */
	snprintf(url, sizeof url, "http://127.0.0.1:%d/nowhere", srv.port);
	ck_assert_int_eq(run((const char *const[]){path, "--healthcheck", url, NULL}, NULL, 0), 1);
	const char *bad[] = {"http://127.0.0.1:1/livez", "https://127.0.0.1:1/livez", "localhost",
	                     "http://[::1/livez", "ftp://127.0.0.1/"};
	/* TLS against a plain-HTTP server: the handshake fails. */
	snprintf(url, sizeof url, "https://127.0.0.1:%d/livez", srv.port);
	ck_assert_int_eq(run((const char *const[]){path, "--healthcheck", url, NULL}, NULL, 0), 1);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(run((const char *const[]){path, "--healthcheck", bad[i], NULL}, NULL,
		                  0) == 1,
		              "%s", bad[i]);
	/* Draining: once the listener is closed the probe fails. */
	held h;
	char *q = cubes_query(0);
	hold_query(&h, q);
	kill(srv.pid, SIGTERM);
	json_t *line = log_wait(&srv, "\"msg\":\"listener closed\"", 10);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
	/* (the listener is closed: probe through the held connection instead) */
	hresp r;
	ck_assert_int_eq(hconn_send(&h.c, h.q + h.len - 1, 1), 0);
	ck_assert_int_eq(hconn_read(&h.c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(r.closed);
	hresp_free(&r);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/livez", srv.port);
	ck_assert_int_eq(run((const char *const[]){path, "--healthcheck", url, NULL}, NULL, 0), 1);
	hconn_close(&h.c);
	free(h.q);
	free(q);
	assert_clean_exit(server_wait_exit(15));
}
END_TEST

static Suite *operations_suite(void)
{
	Suite *s = suite_create("operations");
	TCase *tc =
		ck_case(s, "limits", 30,
	                CK_TESTS(test_limit_body, test_limit_vertices, test_limit_shapes_and_parts,
	                         test_limit_depth, test_connection_limit, test_limits_in_proto,
	                         test_cancel_hook));
	tcase_add_checked_fixture(tc, NULL, teardown);
	tc = ck_case(s, "load", 60, CK_TESTS(test_backpressure, test_overload));
	tcase_add_checked_fixture(tc, NULL, teardown);
	tc = ck_case(s, "deadlines", 60,
	             CK_TESTS(test_request_timeout, test_read_timeout, test_drain_timeout,
	                      test_drain_backlog, test_drain_under_load));
	tcase_add_checked_fixture(tc, NULL, teardown);
	tc = ck_case(s, "observe", 30,
	             CK_TESTS(test_metrics, test_request_id, test_openapi, test_log_stuck_stdout));
	tcase_add_checked_fixture(tc, NULL, teardown);
	tc = ck_case(s, "security", 60,
	             CK_TESTS(test_auth, test_cors_preflight_granted, test_cors_preflight_refused,
	                      test_cors_preflight_any_path, test_cors_origin_patterns,
	                      test_cors_options_not_preflight, test_cors_actual_requests,
	                      test_cors_no_origin, test_cors_any_origin, test_cors_off, test_tls));
	tcase_add_checked_fixture(tc, NULL, teardown);
	tc = ck_case(s, "config", 60,
	             CK_TESTS(test_flags_and_environment, test_bad_values, test_help,
	                      test_healthcheck));
	tcase_add_checked_fixture(tc, NULL, teardown);
	return s;
}

CHECK_SUITE(operations_suite)
