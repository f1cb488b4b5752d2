/*
 * check_http_api.c — suite "http_api": clashd end to end, over real HTTP:
 * the contract's routes, errors, hostile clients, keep-alive, concurrency,
 * drain, flags.
 *
 * Each test starts build/clashd on 127.0.0.1:0 with 2 worker threads and
 * talks HTTP/1.1 to it (tests/http_harness.c).  Answers are checked against
 * closed forms: boxes whose distance, near points and separating plane are
 * known exactly.  The operational features (limits, backpressure,
 * deadlines, metrics, security) are suite "operations" (check_operations.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <zlib.h>

#include "check.h"
#include "http_harness.h"

/* Checked fixture: every test gets a fresh server and must leave it able to
 * shut down cleanly. */
static void setup(void)
{
	server_start();
}

static void teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(15));
	free(srv.log);
	srv.log = NULL;
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(test_acceptance_query)
{
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	ck_assert_int_eq(r.status, 200);
	char v[256];
	ck_assert_ptr_nonnull(hresp_header(&r, "Content-Type", v, sizeof v));
	ck_assert_str_eq(v, "application/json");
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);

	/* The request was logged: method, path, status, sizes, duration. */
	json_t *line = log_wait(&srv, "\"path\":\"/v1/query\"", 5);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(json_string_value(json_object_get(line, "method")), "POST");
	ck_assert_int_eq(json_integer_value(json_object_get(line, "status")), 200);
	ck_assert_int_eq(json_integer_value(json_object_get(line, "bytes_in")),
	                 (json_int_t)strlen(q));
	ck_assert_int_eq(json_integer_value(json_object_get(line, "bytes_out")),
	                 (json_int_t)r.body_len);
	ck_assert(json_number_value(json_object_get(line, "duration_s")) >= 0);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(line, "ts")));
	json_decref(line);
	hresp_free(&r);
	free(q);
}
END_TEST

START_TEST(test_media_type_parameters)
{
	/* Parameters and +json suffixes are JSON too. */
	static const char *const types[] = {
		"Content-Type: application/json; charset=utf-8\r\n",
		"Content-Type: Application/JSON\r\n",
		"Content-Type: application/vnd.clash.query+json\r\n",
	};
	char *q = cubes_query(1);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", types[i], q, strlen(q), &r);
		ck_assert_msg(r.status == 200, "%s -> %d", types[i], r.status);
		const char *wrong = cubes_answer_wrong(r.body, 3);
		ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
		hresp_free(&r);
	}
	free(q);
}
END_TEST

START_TEST(test_probes)
{
	hresp r;
	char v[256];
	http_do("GET", "/livez", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "application/json");
	ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
	hresp_free(&r);

	http_do("GET", "/readyz", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ready\"}");
	hresp_free(&r);

	/* A query string does not change the route. */
	http_do("GET", "/readyz?verbose=1", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);

	/* HEAD: same status and length, no body. */
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "HEAD", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 1), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hresp_header(&r, "Content-Length", v, sizeof v), "15");
	hresp_free(&r);
	/* ... and the connection carries on with the next request right
	 * after the head, which proves no body bytes were sent. */
	ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
	hresp_free(&r);
	hconn_close(&c);
}
END_TEST

START_TEST(test_not_found)
{
	/* (A path decoding to a control character, "%00", is a 400:
	 * test_strict_framing.) */
	static const char *const paths[] = {"/",         "/v1",      "/v1/query/",
	                                    "/v2/query", "/livez/x", "/%ff%fe"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		hresp r;
		http_do("GET", paths[i], NULL, NULL, 0, &r);
		json_decref(assert_problem(&r, 404));
		hresp_free(&r);
	}
	/* With a body it never reads. */
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/queries", JSON_HEADERS, q, strlen(q), &r);
	json_decref(assert_problem(&r, 404));
	hresp_free(&r);
	free(q);
	assert_still_serving();
}
END_TEST

/* The demo page (--web DIR): / redirects to /web/, files from memory with
 * their types, those of a subdirectory (gen/, where the page loads its
 * wasm core from) too but none deeper, nothing else of the directory
 * (hidden files, paths out of it), GET and HEAD only, open when a token
 * guards the API. */
START_TEST(test_web_page)
{
	char dir[] = "/tmp/clashd-web-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	static const char *const files[][2] = {
		{"index.html", "<!doctype html><title>demo</title>"},
		{"demo.js", "console.log(1)"},
		{".secret", "no"},
		{"gen/core.wasm", "asm"},
		{"gen/deep/x.js", "console.log(2)"},
	};
	static const char *const subdirs[] = {"gen", "gen/deep"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, subdirs[i]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	char token[256];
	snprintf(token, sizeof token, "%s/.secret", dir);
	server_start_with((const char *const[]){"--web", dir, "--auth-token-file", token, NULL},
	                  NULL);
	hresp r;
	char v[128];
	http_do("GET", "/", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 308);
	ck_assert_str_eq(hresp_header(&r, "Location", v, sizeof v), "/web/");
	hresp_free(&r);
	http_do("GET", "/web/", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, files[0][1]);
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "text/html; charset=utf-8");
	hresp_free(&r);
	http_do("GET", "/web/demo.js", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, files[1][1]);
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v),
	                 "text/javascript; charset=utf-8");
	ck_assert_str_eq(hresp_header(&r, "X-Content-Type-Options", v, sizeof v), "nosniff");
	hresp_free(&r);
	http_do("GET", "/web/gen/core.wasm", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, files[3][1]);
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "application/wasm");
	hresp_free(&r);
	static const char *const missing[] =
		{"/web/.secret", "/web/../index.html",  "/web/x.js",          "/webdemo.js",
	         "/web",         "/web/demo.js/",       "/web/gen/deep/x.js", "/web/gen",
	         "/web/gen/",    "/web/gen/../demo.js", "/web/deep/x.js"};
	for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
		http_do("GET", missing[i], NULL, NULL, 0, &r);
		json_decref(assert_problem(&r, 404));
		hresp_free(&r);
	}
	http_do("POST", "/web/demo.js", JSON_HEADERS, "{}", 2, &r);
	json_decref(assert_problem(&r, 405));
	hresp_free(&r);
	/* The API still wants the token. */
	char *q = cubes_query(0);
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	json_decref(assert_problem(&r, 401));
	hresp_free(&r);
	free(q);
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
		unlink(path);
	}
	for (size_t i = 2; i-- > 0;) {
		snprintf(path, sizeof path, "%s/%s", dir, subdirs[i]);
		rmdir(path);
	}
	rmdir(dir);
}
END_TEST

START_TEST(test_method_not_allowed)
{
	/* clang-format off */
	struct {
		const char *method, *path, *allow;
	} cases[] = {
		{"GET", "/v1/query", "POST"},
		{"PUT", "/v1/query", "POST"},
		{"DELETE", "/v1/query", "POST"},
		{"POST", "/livez", "GET, HEAD"},
		{"POST", "/readyz", "GET, HEAD"},
		{"OPTIONS", "/readyz", "GET, HEAD"},
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hresp r;
		char v[256];
		const char *body = strcmp(cases[i].method, "POST") == 0 ? "{}" : NULL;
		http_do(cases[i].method, cases[i].path, body ? JSON_HEADERS : NULL, body,
		        body ? 2 : 0, &r);
		json_t *p = assert_problem(&r, 405);
		ck_assert_msg(hresp_header(&r, "Allow", v, sizeof v) != NULL, "%s %s: no Allow",
		              cases[i].method, cases[i].path);
		ck_assert_str_eq(v, cases[i].allow);
		/* The detail names the method. */
		ck_assert_ptr_nonnull(
			strstr(json_string_value(json_object_get(p, "detail")), cases[i].method));
		json_decref(p);
		hresp_free(&r);
	}
	assert_still_serving();
}
END_TEST

START_TEST(test_unsupported_media_type)
{
	static const char *const headers[] = {
		"", /* no Content-Type */
		"Content-Type: text/plain\r\n",
		"Content-Type: application/x-www-form-urlencoded\r\n",
		"Content-Type: application/jsonx\r\n",
		"Content-Type: application/+json\r\n",
		"Content-Type: text/json+xml\r\n",
		"Content-Type: application/json x\r\n",
	};
	char *q = cubes_query(0);
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", headers[i], q, strlen(q), &r);
		ck_assert_msg(r.status == 415, "%s -> %d", headers[i], r.status);
		json_decref(assert_problem(&r, 415));
		hresp_free(&r);
	}
	free(q);

	/* A body sent whole before the client reads: the answer arrives and
	 * the connection stays open (the body is read and dropped, not left
	 * unread under a close, which would reset the connection). */
	size_t big = 300 * 1000;
	char *junk = malloc(big);
	ck_assert_ptr_nonnull(junk);
	memset(junk, 'x', big);
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query",
		                               "Content-Type: text/csv\r\n", junk, big),
		                 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 415));
		ck_assert(!r.closed);
		hresp_free(&r);
		ck_assert_int_eq(hconn_request(&c, "POST", "/elsewhere", JSON_HEADERS, junk, big),
		                 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 404));
		ck_assert(!r.closed);
		hresp_free(&r);
	}
	hconn_close(&c);
	free(junk);

	/* With Expect: 100-continue the answer comes instead of the 100. */
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n"
	                                 "Content-Type: text/plain\r\nExpect: 100-continue\r\n"
	                                 "Content-Length: 5000000\r\n\r\n"),
	                 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 415));
	hresp_free(&r);
	hconn_close(&c);
	assert_still_serving();
}
END_TEST

START_TEST(test_hostile_clients)
{
	/* Things a broken or hostile client does; none may hurt the server. */
	static const char *const raw[] = {
		"GARBAGE\r\n\r\n",
		"GET / HTTP/9.9\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", /* a TLS hello */
		"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n",
		("POST /v1/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
	         "Content-Type: application/json\r\n\r\nzz\r\n"),
		"GET /livez HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		hconn c;
		hresp r;
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_send(&c, raw[i], strlen(raw[i])), 0);
		shutdown(c.fd, SHUT_WR);
		/* Any answer (MHD's own 400 ...), a close, or silence (MHD
		 * 0.9.75 waits for its timeout on a half-closed partial
		 * request line) is fine. */
		hconn_timeout(&c, 1);
		if (hconn_read(&c, &r, 0) == 0) {
			ck_assert_msg((r.status >= 400 && r.status < 500) || r.status == 505,
			              "case %zu: status %d", i, r.status);
			hresp_free(&r);
		}
		hconn_close(&c);
	}

	/* Headers larger than the connection's memory: 431 or a close. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "GET /livez HTTP/1.1\r\nHost: x\r\n"), 0);
	char hdr[1100];
	memset(hdr, 'a', sizeof hdr);
	memcpy(hdr, "X-Pad: ", 7);
	memcpy(hdr + sizeof hdr - 2, "\r\n", 2);
	int sent_all = 1;
	for (int i = 0; i < 64 && sent_all; i++)
		sent_all = hconn_send(&c, hdr, sizeof hdr) == 0;
	if (sent_all)
		hconn_send(&c, "\r\n", 2);
	if (hconn_read(&c, &r, 0) == 0) {
		ck_assert_int_ge(r.status, 400);
		hresp_free(&r);
	}
	hconn_close(&c);

	/* Gone mid-body, and gone while the query runs. */
	char *q = cubes_query(0);
	size_t len = strlen(q);
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_sendf(&c,
		                             "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
		                             "Content-Length: %zu\r\n\r\n",
		                             len),
		                 0);
		ck_assert_int_eq(hconn_send(&c, q, i % 2 ? len : len / 2), 0);
		hconn_close(&c);
	}
	free(q);
	char *bigq = big_cubes_query(20000, 7);
	ck_assert_ptr_nonnull(bigq);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, bigq,
		                               strlen(bigq)),
		                 0);
		hconn_close(&c);
	}
	free(bigq);
	assert_still_serving();
	/* The teardown then checks that it still shuts down cleanly. */
}
END_TEST

/* `text` gzip-compressed; *len in and out. */
static char *gzip_of(const char *text, size_t *len)
{
	return gzip_repeated(text, *len, 1, len);
}

#define GZIP_HEADERS JSON_HEADERS "Content-Encoding: gzip\r\n"

/* Content-Encoding: gzip bodies: the same answer as the plain
 * body; inflated within --max-body (a bomb is a 413, the connection kept);
 * a stream cut short, not gzip, or followed by more bytes a 400; another
 * coding a 415 that says gzip is taken. */
START_TEST(test_gzip_bodies)
{
	server_start_with((const char *const[]){"--max-body", "1M", NULL}, NULL);
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, blo[3] = {0.5, 2, 0}, bhi[3] = {1.5, 3, 1};
	char *q = box_query(lo, hi, blo, bhi);
	size_t qlen = strlen(q), zlen = qlen;
	char *z = gzip_of(q, &zlen);
	hresp plain, zipped;
	http_do("POST", "/v1/query", JSON_HEADERS, q, qlen, &plain);
	ck_assert_int_eq(plain.status, 200);
	http_do("POST", "/v1/query", GZIP_HEADERS, z, zlen, &zipped);
	ck_assert_int_eq(zipped.status, 200);
	ck_assert_str_eq(zipped.body, plain.body);
	hresp_free(&zipped);
	http_do("POST", "/v1/query", JSON_HEADERS "Content-Encoding: identity\r\n", q, qlen,
	        &zipped);
	ck_assert_str_eq(zipped.body, plain.body);
	hresp_free(&zipped);

	/* A stream cut short, bytes that are not gzip, bytes after the end. */
	hresp r;
	http_do("POST", "/v1/query", GZIP_HEADERS, z, zlen / 2, &r);
	ck_assert_int_eq(r.status, 400);
	ck_assert_ptr_nonnull(strstr(r.body, "malformed-request"));
	hresp_free(&r);
	http_do("POST", "/v1/query", GZIP_HEADERS, q, qlen, &r);
	ck_assert_int_eq(r.status, 400);
	hresp_free(&r);
	char *twice = malloc(2 * zlen);
	memcpy(twice, z, zlen);
	memcpy(twice + zlen, z, zlen);
	http_do("POST", "/v1/query", GZIP_HEADERS, twice, 2 * zlen, &r);
	ck_assert_int_eq(r.status, 400);
	hresp_free(&r);
	free(twice);

	/* 64 MiB of spaces in about 64 KiB: refused at the bound of what it
	 * inflates to, and the connection still serves. */
	size_t big = (size_t)64 << 20, blen = big;
	char *spaces = malloc(big);
	memset(spaces, ' ', big);
	char *bomb = gzip_of(spaces, &blen);
	free(spaces);
	ck_assert_uint_lt(blen, (size_t)1 << 20);
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", GZIP_HEADERS, bomb, blen), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 413);
	ck_assert_ptr_nonnull(strstr(r.body, "once inflated"));
	hresp_free(&r);
	ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", GZIP_HEADERS, z, zlen), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, plain.body);
	hresp_free(&r);
	hconn_close(&c);
	free(bomb);

	/* Another coding: 415, naming the one taken. */
	http_do("POST", "/v1/query", JSON_HEADERS "Content-Encoding: br\r\n", q, qlen, &r);
	ck_assert_int_eq(r.status, 415);
	char v[64];
	ck_assert_str_eq(hresp_header(&r, "Accept-Encoding", v, sizeof v), "gzip");
	ck_assert_ptr_nonnull(strstr(r.body, "gzip"));
	hresp_free(&r);
	hresp_free(&plain);
	free(z);
	free(q);
	assert_clean_exit(server_stop_within(10));
}
END_TEST

START_TEST(test_bad_request)
{
	static const char *const bodies[] = {
		"", "{", "{\"a\":", "[1,2", "not json", "{\"a\":1} trailing", "\xff\xfe",
	};
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", JSON_HEADERS, bodies[i], strlen(bodies[i]), &r);
		ck_assert_msg(r.status == 400, "body \"%s\" -> %d", bodies[i], r.status);
		json_decref(assert_problem(&r, 400));
		hresp_free(&r);
	}
	/* A NUL byte inside the body is input like any other. */
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, "{\"a\"\0:1}", 8, &r);
	json_decref(assert_problem(&r, 400));
	hresp_free(&r);
	/* An empty body (Content-Length: 0) is located like every other parse
	 * error, on every endpoint that takes a body: line 1, column 1,
	 * position 0, pointer "". */
	static const char *const paths[] = {"/v1/query", "/v1/scene", "/v1/contains", "/v1/batch"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		http_do("POST", paths[i], JSON_HEADERS, "", 0, &r);
		ck_assert_msg(r.status == 400, "%s, empty body -> %d", paths[i], r.status);
		json_t *j = assert_problem(&r, 400);
		ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "");
		ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), 1);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "column")), 1);
		ck_assert_msg(json_is_integer(json_object_get(j, "position")) &&
		                      json_integer_value(json_object_get(j, "position")) == 0,
		              "%s: %s", paths[i], r.body);
		json_decref(j);
		hresp_free(&r);
	}
	assert_still_serving();
}
END_TEST

/* One malformed head, sent raw on a fresh connection. */
typedef struct strict_case {
	const char *raw;
	int status; /* 400 (type malformed-request) or 501 */
	int closes; /* its framing is unsound: the connection must close */
} strict_case;

#define STRICT_BODY "{\"a\":1}"
#define STRICT_LEN "7"

static const strict_case strict_cases[] = {
	/* Content-Length with Transfer-Encoding, and a request smuggled after
	 * the chunked body: never answered (RFC 9112 section 6.3). */
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Content-Length: 4\r\n"
         "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Content-Length: " STRICT_LEN
         "\r\nContent-Length: 3\r\n\r\n" STRICT_BODY,
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Content-Length: " STRICT_LEN
         "\r\nContent-Length: " STRICT_LEN "\r\n\r\n" STRICT_BODY,
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
         "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
         501, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
         "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
         "Transfer-Encoding: identity\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
         "Transfer-Encoding: \xff\xfe\x01\r\n\r\n0\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Transfer-Encoding: chunked\r\n"
         "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.0\r\n" JSON_HEADERS "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         400, 1},
	/* A space before the colon: a field name that is not a token. */
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type : application/json\r\n"
         "Content-Length: " STRICT_LEN "\r\n\r\n" STRICT_BODY,
         400, 1},
	/* A field line folded onto the next (obs-fold, RFC 9112 section 5.2):
	 * a proxy may read the folded Transfer-Encoding libmicrohttpd drops
	 * (it joins the line onto the name). */
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Transfer-Encoding:\r\n chunked\r\n"
         "\r\n0\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n",
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Content-Length: " STRICT_LEN
         "\r\nTransfer-Encoding:\r\n\tchunked\r\n\r\n" STRICT_BODY,
         400, 1},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "X-Note: a\r\n b\r\n"
         "Content-Length: " STRICT_LEN "\r\n\r\n" STRICT_BODY,
         400, 1},
	{"GET /livez HTTP/1.1\r\nX-Note: a\r\n \t \r\nHost: x\r\n\r\n", 400, 1},
	{"GET /livez HTTP/1.0\r\nX-Note: a\r\n b\r\n\r\n", 400, 1},
	/* Sound framing: answered after the body, the connection kept. */
	{"GET /livez HTTP/1.1\r\n\r\n", 400, 0},
	{"GET /livez HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, 0},
	{"GET /livez HTTP/1.1\r\nHost: a b\r\n\r\n", 400, 0},
	{"GET /livez HTTP/1.1\r\nHost: x\r\nX-A: a\x01z\r\n\r\n", 400, 0},
	{"POST /v1/query%00 HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS "Content-Length: " STRICT_LEN
         "\r\n\r\n" STRICT_BODY,
         400, 0},
	{"GET /livez%0a HTTP/1.1\r\nHost: x\r\n\r\n", 400, 0},
	{"GET /livez?a=%00 HTTP/1.1\r\nHost: x\r\n\r\n", 400, 0},
	{"GET /livez HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
         "Authorization: Bearer b\r\n\r\n",
         400, 0},
	{"POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS JSON_HEADERS
         "Content-Length: " STRICT_LEN "\r\n\r\n" STRICT_BODY,
         400, 0},
};

/* Read the answer to strict_cases[i] on c: its status and problem, then
 * either the end of the connection or, on the same connection, a working
 * GET /livez.  Each read waits at most 2 s. */
static void check_strict_answer(hconn *c, size_t i)
{
	const strict_case *k = &strict_cases[i];
	hresp r;
	hconn_timeout(c, 2);
	ck_assert_msg(hconn_read(c, &r, 0) == 0, "case %zu: no answer within 2 s", i);
	ck_assert_msg(r.status == k->status, "case %zu: status %d, not %d: %s", i, r.status,
	              k->status, r.body);
	json_t *p = json_loads(r.body, 0, NULL);
	ck_assert_msg(p != NULL, "case %zu: not JSON: %s", i, r.body);
	ck_assert_str_eq(json_string_value(json_object_get(p, "type")),
	                 k->status == 400 ? "urn:clashd:problem:malformed-request"
	                                  : "urn:clashd:problem:not-implemented");
	json_decref(p);
	ck_assert_msg(r.closed == k->closes, "case %zu: Connection: close %s", i,
	              r.closed ? "sent" : "missing");
	hresp_free(&r);
	if (k->closes) {
		ck_assert_msg(c->len == 0, "case %zu: more after the answer: %.*s", i, (int)c->len,
		              c->buf);
		ck_assert_msg(hconn_fill(c) == 0, "case %zu: the connection stayed open", i);
		return;
	}
	ck_assert_int_eq(hconn_sendf(c, "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
	ck_assert_msg(hconn_read(c, &r, 0) == 0 && r.status == 200,
	              "case %zu: the connection is not usable after the answer", i);
	hresp_free(&r);
}

START_TEST(test_strict_framing)
{
	size_t n = sizeof strict_cases / sizeof strict_cases[0];
	size_t closing = 0;
	for (size_t i = 0; i < n; i++) {
		hconn c;
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_send(&c, strict_cases[i].raw, strlen(strict_cases[i].raw)),
		                 0);
		check_strict_answer(&c, i);
		hconn_close(&c);
		closing += (size_t)strict_cases[i].closes;
	}
	/* A fold in the second request of a connection. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c,
	                             "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"
	                             "GET /livez HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\n\r\n"),
	                 0);
	hconn_timeout(&c, 2);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 400);
	ck_assert_msg(strstr(r.body, "urn:clashd:problem:malformed-request"), "%s", r.body);
	ck_assert(r.closed);
	hresp_free(&r);
	hconn_close(&c);
	/* The fold is seen by where libmicrohttpd keeps a field: a head of
	 * many fields, over its first read buffer, is no fold. */
	char *big = malloc(20000), *o = big;
	ck_assert_ptr_nonnull(big);
	o += sprintf(o, "GET /livez HTTP/1.1\r\nHost: x\r\n");
	for (int i = 0; i < 80; i++)
		o += sprintf(o, "X-Field-%d: %0200d\r\n", i, i);
	sprintf(o, "\r\n");
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_send(&c, big, strlen(big)), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	hconn_close(&c);
	free(big);
	/* Counted by reason (the fold above one more closing). */
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	char want[128];
	snprintf(want, sizeof want, "clashd_rejections_total{reason=\"bad_framing\"} %zu\n",
	         closing + 1);
	ck_assert_msg(strstr(r.body, want), "no \"%s\" in /metrics", want);
	snprintf(want, sizeof want, "clashd_rejections_total{reason=\"malformed_request\"} %zu\n",
	         n - closing);
	ck_assert_msg(strstr(r.body, want), "no \"%s\" in /metrics", want);
	hresp_free(&r);
	assert_still_serving();
}
END_TEST

START_TEST(test_unprocessable)
{
	/* Valid JSON, invalid query: the problem points at the value. */
	struct {
		const char *body, *pointer_prefix;
	} cases[] = {
		{"{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}", "/a"},
		{"{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":\"x\"}}", "/b"},
		{"{\"a\":{\"vertices\":[[0,0,0]]}}", "/"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", JSON_HEADERS, cases[i].body, strlen(cases[i].body),
		        &r);
		json_t *p = assert_problem(&r, 422);
		const char *ptr = json_string_value(json_object_get(p, "pointer"));
		ck_assert_msg(ptr != NULL, "no pointer in %s", r.body);
		ck_assert_msg(strncmp(ptr, cases[i].pointer_prefix,
		                      strlen(cases[i].pointer_prefix)) == 0 ||
		                      (strcmp(cases[i].pointer_prefix, "/") == 0 && ptr[0] == '\0'),
		              "pointer %s for %s", ptr, cases[i].body);
		json_decref(p);
		hresp_free(&r);
	}
	assert_still_serving();
}
END_TEST

START_TEST(test_too_large_by_length)
{
	/* Announce one byte over the cap and send nothing: the answer must
	 * come from the headers alone. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c,
	                             "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                             "Content-Length: %zu\r\n\r\n",
	                             MAX_BODY + 1),
	                 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	hresp_free(&r);
	hconn_close(&c);

	/* Same with Expect: 100-continue (curl's way): no 100 comes first. */
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Expect: 100-continue\r\n"
	                                 "Content-Length: 99999999999\r\n\r\n"),
	                 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	hresp_free(&r);
	hconn_close(&c);
	assert_still_serving();
}
END_TEST

START_TEST(test_too_large_chunked)
{
	/* A chunked body over the cap is read to its end and answered 413;
	 * the connection stays usable. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Transfer-Encoding: chunked\r\n\r\n"),
	                 0);
	size_t chunk = 1 << 20;
	char *spaces = malloc(chunk);
	ck_assert_ptr_nonnull(spaces);
	memset(spaces, ' ', chunk);
	for (size_t sent = 0; sent <= MAX_BODY; sent += chunk) {
		ck_assert_int_eq(hconn_sendf(&c, "%zx\r\n", chunk), 0);
		ck_assert_int_eq(hconn_send(&c, spaces, chunk), 0);
		ck_assert_int_eq(hconn_send(&c, "\r\n", 2), 0);
	}
	free(spaces);
	ck_assert_int_eq(hconn_send(&c, "0\r\n\r\n", 5), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	ck_assert(!r.closed);
	hresp_free(&r);

	/* Same connection: a chunked query under the cap is answered. */
	char *q = cubes_query(0);
	size_t half = strlen(q) / 2;
	ck_assert_int_eq(hconn_sendf(&c,
	                             "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                             "Transfer-Encoding: chunked\r\n\r\n%zx\r\n",
	                             half),
	                 0);
	ck_assert_int_eq(hconn_send(&c, q, half), 0);
	ck_assert_int_eq(hconn_sendf(&c, "\r\n%zx\r\n", strlen(q) - half), 0);
	ck_assert_int_eq(hconn_send(&c, q + half, strlen(q) - half), 0);
	ck_assert_int_eq(hconn_send(&c, "\r\n0\r\n\r\n", 7), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
	hresp_free(&r);
	free(q);
	hconn_close(&c);
}
END_TEST

START_TEST(test_keep_alive)
{
	/* One connection, many requests, every kind of answer: it stays open
	 * and every answer is the right one. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	for (int i = 0; i < 10; i++) {
		char *q = cubes_query(i);
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)),
		                 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		ck_assert_int_eq(r.status, 200);
		ck_assert(!r.closed);
		const char *wrong = cubes_answer_wrong(r.body, 2 + i);
		ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
		hresp_free(&r);
		free(q);

		ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		ck_assert_int_eq(r.status, 200);
		hresp_free(&r);

		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, "{", 1), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 400));
		ck_assert(!r.closed);
		hresp_free(&r);

		ck_assert_int_eq(hconn_request(&c, "GET", "/nowhere", NULL, NULL, 0), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 404));
		hresp_free(&r);
	}
	/* Pipelined: three requests in one write, three answers in order. */
	char *q1 = cubes_query(1), *q5 = cubes_query(5);
	char *batch = NULL;
	ck_assert_int_ge(asprintf(&batch,
	                          "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                          "Content-Length: %zu\r\n\r\n%s"
	                          "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
	                          "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                          "Content-Length: %zu\r\n\r\n%s",
	                          strlen(q1), q1, strlen(q5), q5),
	                 0);
	ck_assert_int_eq(hconn_send(&c, batch, strlen(batch)), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(cubes_answer_wrong(r.body, 3));
	hresp_free(&r);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ready\"}");
	hresp_free(&r);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(cubes_answer_wrong(r.body, 7));
	hresp_free(&r);
	free(batch);
	free(q1);
	free(q5);
	hconn_close(&c);
}
END_TEST

/* ---- concurrency -------------------------------------------------------- */

#define CLIENTS 32
#define REQUESTS_PER_CLIENT 20

typedef struct client_job {
	int id;
	int port;
	int ok;          /* answers that were right */
	char error[256]; /* the first thing that went wrong */
} client_job;

static void *client_run(void *arg)
{
	client_job *j = arg;
	hconn *c = malloc(sizeof *c);
	if (!c || hconn_open(c, j->port) != 0) {
		snprintf(j->error, sizeof j->error, "client %d: cannot connect", j->id);
		free(c);
		return NULL;
	}
	for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
		/* Every answer differs, so a reply sent to the wrong request
		 * would be caught. */
		double shift = j->id * REQUESTS_PER_CLIENT + i;
		char *q = cubes_query(shift * 0.25);
		hresp r;
		if (!q || hconn_request(c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)) != 0 ||
		    hconn_read(c, &r, 0) != 0) {
			snprintf(j->error, sizeof j->error, "client %d request %d: no answer",
			         j->id, i);
			free(q);
			break;
		}
		const char *wrong = r.status == 200 ? cubes_answer_wrong(r.body, 2 + shift * 0.25)
		                                    : "status is not 200";
		if (wrong) {
			snprintf(j->error, sizeof j->error, "client %d request %d: %s", j->id, i,
			         wrong);
			hresp_free(&r);
			free(q);
			break;
		}
		j->ok++;
		int closed = r.closed;
		hresp_free(&r);
		free(q);
		if (closed) {
			hconn_close(c);
			if (hconn_open(c, j->port) != 0)
				break;
		}
	}
	hconn_close(c);
	free(c);
	return NULL;
}

START_TEST(test_concurrent_clients)
{
	/* CLIENTS from one address: more than its default share of
	 * --max-queue (half), which the suite "slow" tests. */
	assert_clean_exit(server_stop_within(20));
	server_start_with((const char *const[]){"--max-queue-per-client", "0", NULL}, NULL);
	pthread_t t[CLIENTS];
	client_job jobs[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		jobs[i] = (client_job){.id = i, .port = srv.port};
		ck_assert_int_eq(pthread_create(&t[i], NULL, client_run, &jobs[i]), 0);
	}
	int ok = 0;
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(jobs[i].error[0] == '\0', "%s", jobs[i].error);
		ok += jobs[i].ok;
	}
	ck_assert_int_eq(ok, CLIENTS * REQUESTS_PER_CLIENT);
}
END_TEST

/* ---- drain -------------------------------------------------------------- */

typedef struct drain_job {
	int port;
	const char *query;
	size_t len;
	int hold; /* keep the last byte until `go` */
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
	int *ready; /* jobs that are in flight */
	int *go;
	int status;
	char body[4096];
	char error[256];
} drain_job;

static void *drain_client(void *arg)
{
	drain_job *j = arg;
	hconn *c = malloc(sizeof *c);
	hresp r;
	size_t first = j->hold ? j->len - 1 : j->len;
	if (!c || hconn_open(c, j->port) != 0) {
		snprintf(j->error, sizeof j->error, "cannot connect");
		goto signal_ready;
	}
	/* Expect: 100-continue makes "the server has begun this request"
	 * observable: the 100 comes once the handler has seen the headers. */
	if (hconn_sendf(c,
	                "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
	                j->len) != 0 ||
	    hconn_read(c, &r, 0) != 0) {
		snprintf(j->error, sizeof j->error, "no 100 Continue");
		goto signal_ready;
	}
	hresp_free(&r);
	if (r.status != 100) {
		snprintf(j->error, sizeof j->error, "status %d instead of 100", r.status);
		goto signal_ready;
	}
	if (hconn_send(c, j->query, first) != 0) {
		snprintf(j->error, sizeof j->error, "cannot send the body");
		goto signal_ready;
	}
signal_ready:
	pthread_mutex_lock(j->mu);
	(*j->ready)++;
	pthread_cond_broadcast(j->cv);
	while (!*j->go)
		pthread_cond_wait(j->cv, j->mu);
	pthread_mutex_unlock(j->mu);
	if (!j->error[0]) {
		if (first < j->len && hconn_send(c, j->query + first, j->len - first) != 0)
			snprintf(j->error, sizeof j->error, "cannot send the last byte");
		else if (hconn_read(c, &r, 0) != 0)
			snprintf(j->error, sizeof j->error, "no answer");
		else {
			j->status = r.status;
			snprintf(j->body, sizeof j->body, "%s", r.body);
			hresp_free(&r);
		}
	}
	if (c)
		hconn_close(c);
	free(c);
	return NULL;
}

#define DRAIN_HELD 3    /* requests that cannot finish before SIGTERM */
#define DRAIN_RUNNING 3 /* requests sent whole, running when it comes */
#define DRAIN_VERTICES 200000

START_TEST(test_drain_on_sigterm)
{
	enum {
		N = DRAIN_HELD + DRAIN_RUNNING
	};
	char *q = big_cubes_query(DRAIN_VERTICES, 1);
	ck_assert_ptr_nonnull(q);
	size_t qlen = strlen(q);
	ck_assert_uint_lt(qlen, MAX_BODY);

	/* A keep-alive connection that asks /readyz before and after. */
	hconn probe;
	hresp r;
	ck_assert_int_eq(hconn_open(&probe, srv.port), 0);
	ck_assert_int_eq(hconn_request(&probe, "GET", "/readyz", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&probe, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(!r.closed);
	hresp_free(&r);

	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	int ready = 0, go = 0;
	pthread_t t[N];
	drain_job jobs[N];
	for (int i = 0; i < N; i++) {
		jobs[i] = (drain_job){.port = srv.port,
		                      .query = q,
		                      .len = qlen,
		                      .hold = i < DRAIN_HELD,
		                      .mu = &mu,
		                      .cv = &cv,
		                      .ready = &ready,
		                      .go = &go};
		ck_assert_int_eq(pthread_create(&t[i], NULL, drain_client, &jobs[i]), 0);
	}
	/* Every request has been taken up by the server (100 Continue seen)
	 * and sent; the held ones miss their last byte. */
	pthread_mutex_lock(&mu);
	while (ready < N)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	kill(srv.pid, SIGTERM);
	json_t *line = log_wait(&srv, "\"msg\":\"draining\"", 10);
	ck_assert_msg(line != NULL, "no \"draining\" log line after SIGTERM");
	/* At least the held requests were in flight. */
	ck_assert_int_ge(json_integer_value(json_object_get(line, "requests")), DRAIN_HELD);
	json_decref(line);

	/* The listener is closed ... */
	hconn late;
	ck_assert_int_eq(hconn_open(&late, srv.port), -ECONNREFUSED);
	/* ... and an open connection hears that the server is draining. */
	ck_assert_int_eq(hconn_request(&probe, "GET", "/readyz", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&probe, &r, 0), 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert_str_eq(r.body, "{\"status\":\"draining\"}");
	ck_assert(r.closed);
	hresp_free(&r);
	hconn_close(&probe);

	/* Let the held requests finish: all of them are answered in full. */
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(jobs[i].error[0] == '\0', "request %d: %s", i, jobs[i].error);
		ck_assert_msg(jobs[i].status == 200, "request %d: status %d: %s", i, jobs[i].status,
		              jobs[i].body);
		const char *wrong = cubes_answer_wrong(jobs[i].body, 2);
		ck_assert_msg(!wrong, "request %d: %s: %s", i, wrong, jobs[i].body);
	}
	free(q);

	assert_clean_exit(server_wait_exit(20));
	line = log_wait(&srv, "\"msg\":\"stopped\"", 0);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
}
END_TEST

START_TEST(test_drain_idle)
{
	/* No request in flight: SIGTERM ends the process at once, and an idle
	 * keep-alive connection does not hold it beyond the grace period. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
	/* The idle connection was closed by the server. */
	char b;
	ck_assert_int_le(recv(c.fd, &b, 1, 0), 0);
	hconn_close(&c);
}
END_TEST

/* ---- flags -------------------------------------------------------------- */

START_TEST(test_bad_flags)
{
	struct {
		const char *args[4];
		const char *env;
		const char *mention;
	} cases[] = {
		{{"--threads", "0"}, NULL, "--threads"},
		{{"--threads", "2x"}, NULL, "--threads"},
		{{"--threads", "-1"}, NULL, "--threads"},
		{{"--threads", "100000"}, NULL, "--threads"},
		{{"--threads"}, NULL, "--threads"},
		{{"--listen", "127.0.0.1"}, NULL, "--listen"},
		{{"--listen", "127.0.0.1:65536"}, NULL, "--listen"},
		{{"--listen", "127.0.0.1:http"}, NULL, "--listen"},
		{{"--listen", "::1:80"}, NULL, "--listen"},
		{{"--listen", "[::1:80"}, NULL, "--listen"},
		{{"--bogus"}, NULL, "--bogus"},
		{{"extra"}, NULL, "extra"},
		{{NULL}, "CLASHD_THREADS=many", "CLASHD_THREADS"},
		{{NULL}, "CLASHD_LISTEN=nowhere", "CLASHD_LISTEN"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[1024];
		const char *env[] = {cases[i].env, NULL};
		int rc = run_clashd(cases[i].args, env, err, sizeof err);
		ck_assert_msg(rc == 2, "case %zu exited %d (%s)", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].mention),
		              "case %zu: stderr \"%s\" does not name %s", i, err, cases[i].mention);
	}
	/* --help goes to stdout and exits 0. */
	const char *help[] = {"--help", NULL};
	char err[1024];
	ck_assert_int_eq(run_clashd(help, NULL, err, sizeof err), 0);
}
END_TEST

START_TEST(test_flag_precedence)
{
	/* Environment when there is no flag ... */
	const char *none[] = {"--listen", "127.0.0.1:0", NULL};
	json_t *j = listening_line(none, (const char *const[]){"CLASHD_THREADS=3", NULL});
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "threads")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "env");
	json_decref(j);
	/* ... the flag over the environment ... */
	const char *flag[] = {"--listen=127.0.0.1:0", "--threads=5", NULL};
	j = listening_line(flag, (const char *const[]){"CLASHD_THREADS=3", NULL});
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "threads")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "flag");
	json_decref(j);
	/* ... the environment for the address too, and a default count. */
	const char *noargs[] = {NULL};
	j = listening_line(noargs, (const char *const[]){"CLASHD_LISTEN=127.0.0.1:0", NULL});
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(j, "listen_source")), "env");
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "default");
	ck_assert_int_ge(json_integer_value(json_object_get(j, "threads")), 1);
	json_decref(j);
}
END_TEST

static Suite *http_api_suite(void)
{
	Suite *s = suite_create("http_api");
	TCase *tc =
		ck_case(s, "http", 30,
	                CK_TESTS(test_acceptance_query, test_media_type_parameters, test_probes,
	                         test_not_found, test_web_page, test_method_not_allowed,
	                         test_unsupported_media_type, test_bad_request,
	                         test_hostile_clients, test_strict_framing, test_gzip_bodies,
	                         test_unprocessable, test_too_large_by_length,
	                         test_too_large_chunked, test_keep_alive, test_concurrent_clients));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = ck_case(s, "drain", 60, CK_TESTS(test_drain_on_sigterm, test_drain_idle));
	tcase_add_checked_fixture(tc, setup, teardown);
	ck_case(s, "config", 30, CK_TESTS(test_bad_flags, test_flag_precedence));
	return s;
}

CHECK_SUITE(http_api_suite)
