/*
 * fuzz_proto.c — libFuzzer target for the request decoder: every reply
 * function of the wire contract (proto.h) on arbitrary bytes.
 *
 * Each input is one request body, handed to every route's reply function
 * (a Query, a ContainsQuery, a Scene and a batch: the same bytes, since an
 * input that is a good query for one is a near miss for the others).  clashd calls the same
 * functions with the same limits (clashd's defaults, set once here), so a
 * crash, leak or sanitizer report here is one a client could cause.
 * Besides "no crash", every reply is checked against the contract:
 *   - the status is 200, 400 or 422 (a 500 means the core wrote a value
 *     that is not finite: a bug), and the media type goes with it;
 *   - the body is strict JSON whose "status" member (for a problem) is the
 *     status; a 422 about JSON that parses names a value of the document, or
 *     a missing member of an object in it (its JSON Pointer resolves, or its
 *     parent does);
 *   - a Result has the members the contract gives each verdict: distance
 *     >= 0 and 0 when intersecting, one common point when intersecting, a
 *     unit separating normal only when separated, penetration only when
 *     intersecting, the method asked for;
 *   - the reply is a pure function of the body: a second call gives the same
 *     bytes (what makes a query safe for a load balancer to retry), and so
 *     does a call with the parser's shortcut off (plain_parse in the context:
 *     jansson parses everything);
 *   - with the cancel flag already set, a query that decodes is answered 503
 *     with `cancelled`, one that does not gets the same problem as before;
 *   - under a cost bound (proto_call.max_cost) a request is deferred with no
 *     reply, or answered with the same bytes.
 * Any violation aborts, which libFuzzer reports with the input.
 *
 * Build and run: `make fuzz` (FUZZ_SECONDS per target), seeds in
 * tests/fuzz/corpus/proto/, dictionary tests/fuzz/proto.dict.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "vertex_scan.h"

typedef int (*reply_fn)(const char *, size_t, proto_call *, proto_reply *);

/* clashd's defaults (set once by LLVMFuzzerInitialize), and the same with
 * the parser's shortcut off. */
static proto_context server_ctx, plain_ctx;

static void fail(const char *route, const char *what, const proto_reply *r)
{
	fprintf(stderr, "fuzz_proto: %s: %s\n  status %d, body: %.2000s\n", route, what,
	        r ? r->status : 0, r && r->body ? r->body : "(none)");
	abort();
}

#define REQUIRE(cond, what)                       \
	do {                                      \
		if (!(cond))                      \
			fail(route, what, reply); \
	} while (0)

/* RFC 6901: resolve `ptr` in `doc`; NULL if it names nothing.  With
 * `parent` set, resolve all but the last reference token. */
static json_t *resolve(json_t *doc, const char *ptr, int parent)
{
	if (*ptr == '\0')
		return parent ? NULL : doc;
	if (*ptr != '/')
		return NULL;
	json_t *v = doc;
	const char *p = ptr;
	while (*p == '/') {
		const char *end = strchr(p + 1, '/');
		if (!end)
			end = p + strlen(p);
		if (parent && *end == '\0')
			return v;
		size_t n = (size_t)(end - p - 1);
		char *tok = malloc(n + 1);
		if (!tok)
			abort();
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			char c = p[1 + i];
			if (c == '~' && i + 1 < n && (p[2 + i] == '0' || p[2 + i] == '1')) {
				c = p[2 + i] == '0' ? '~' : '/';
				i++;
			}
			tok[k++] = c;
		}
		tok[k] = '\0';
		json_t *next = NULL;
		if (json_is_object(v)) {
			next = json_object_get(v, tok);
		} else if (json_is_array(v)) {
			char *e;
			unsigned long idx = strtoul(tok, &e, 10);
			if (k > 0 && *e == '\0' && (tok[0] != '0' || k == 1))
				next = json_array_get(v, idx);
		}
		free(tok);
		if (!next)
			return NULL;
		v = next;
		p = end;
	}
	return v;
}

static int is_unit(const json_t *a)
{
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > 8)
		return 0;
	double s = 0;
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *x = json_array_get(a, i);
		if (!json_is_number(x))
			return 0;
		s += json_number_value(x) * json_number_value(x);
	}
	return fabs(s - 1) <= 1e-9;
}

static int is_point(const json_t *a, size_t dim)
{
	if (!json_is_array(a) || json_array_size(a) != dim)
		return 0;
	for (size_t i = 0; i < dim; i++)
		if (!json_is_number(json_array_get(a, i)))
			return 0;
	return 1;
}

/* The members of a Result (openapi.yaml, Result) that follow from the
 * verdict. */
static void check_result(const char *route, const proto_reply *reply, json_t *res, json_t *req)
{
	REQUIRE(json_is_object(res), "a Result is not an object");
	json_t *inter = json_object_get(res, "intersecting");
	REQUIRE(json_is_boolean(inter), "no boolean \"intersecting\"");
	int hit = json_is_true(inter);
	REQUIRE(json_is_boolean(json_object_get(res, "converged")), "no boolean \"converged\"");
	json_t *it = json_object_get(res, "iterations");
	REQUIRE(json_is_integer(it) && json_integer_value(it) >= 0, "bad \"iterations\"");

	const char *asked = json_string_value(json_object_get(req, "method"));
	const char *method = json_string_value(json_object_get(res, "method"));
	REQUIRE(method, "no \"method\"");
	REQUIRE(strcmp(method, asked ? asked : "gjk") == 0, "not the method asked for");

	/* The dimension: of the near points, else of the first vertex. */
	json_t *dist = json_object_get(res, "distance");
	if (dist) {
		REQUIRE(json_is_number(dist) && json_number_value(dist) >= 0, "distance < 0");
		REQUIRE(!hit || json_number_value(dist) == 0, "intersecting, distance != 0");
	}
	json_t *lb = json_object_get(res, "distance_lower_bound");
	if (lb)
		REQUIRE(json_is_number(lb) && json_number_value(lb) >= 0 &&
		                (!hit || json_number_value(lb) == 0),
		        "bad distance_lower_bound");
	json_t *near = json_object_get(res, "near_points");
	size_t dim = 0;
	if (near) {
		json_t *a = json_object_get(near, "a"), *b = json_object_get(near, "b");
		dim = json_array_size(a);
		REQUIRE(dim >= 1 && dim <= 8 && is_point(a, dim) && is_point(b, dim),
		        "near_points are not two points of one dimension");
		REQUIRE(!hit || json_equal(a, b), "intersecting, but near_points differ");
	}
	json_t *plane = json_object_get(res, "separating_plane");
	if (plane) {
		REQUIRE(!hit, "a separating plane for intersecting shapes");
		json_t *n = json_object_get(plane, "normal");
		REQUIRE(is_unit(n), "the separating normal is not a unit vector");
		REQUIRE(!dim || json_array_size(n) == dim, "plane of another dimension");
		REQUIRE(json_is_number(json_object_get(plane, "offset")), "no plane offset");
	}
	json_t *pen = json_object_get(res, "penetration");
	if (pen) {
		REQUIRE(hit, "penetration for separated shapes");
		json_t *dlb = json_object_get(pen, "depth_lower_bound");
		REQUIRE(json_is_number(dlb) && json_number_value(dlb) >= 0,
		        "bad depth_lower_bound");
		json_t *depth = json_object_get(pen, "depth");
		if (depth) {
			REQUIRE(json_is_number(depth) && json_number_value(depth) >= 0,
			        "bad depth");
			REQUIRE(is_unit(json_object_get(pen, "normal")),
			        "depth normal not a unit vector");
			json_t *pts = json_object_get(pen, "points");
			json_t *pa = json_object_get(pts, "a");
			REQUIRE(is_point(pa, json_array_size(pa)) &&
			                is_point(json_object_get(pts, "b"), json_array_size(pa)),
			        "bad penetration points");
		}
	}
}

static void check_contains(const char *route, const proto_reply *reply, json_t *res)
{
	REQUIRE(json_is_object(res), "a ContainsResult is not an object");
	json_t *c = json_object_get(res, "contained");
	REQUIRE(json_is_boolean(c), "no boolean \"contained\"");
	json_t *v = json_object_get(res, "outside_vertex");
	REQUIRE(v, "no \"outside_vertex\"");
	REQUIRE(json_is_true(c) ? json_is_null(v) : (json_is_null(v) || json_integer_value(v) >= 0),
	        "outside_vertex does not go with contained");
	/* Sure: contained, or a vertex outside; unsure: neither claimed. */
	json_t *conv = json_object_get(res, "converged");
	REQUIRE(json_is_boolean(conv), "no boolean \"converged\"");
	REQUIRE(json_is_true(conv) ? (json_is_true(c) || json_is_integer(v))
	                           : (json_is_false(c) && json_is_null(v)),
	        "converged does not go with contained and outside_vertex");
	json_t *it = json_object_get(res, "iterations");
	REQUIRE(json_is_integer(it) && json_integer_value(it) >= 0, "bad \"iterations\"");
}

/* A scene answer: a list of clashes, each naming two different objects
 * and a known class. */
static void check_scene(const char *route, const proto_reply *reply, json_t *res)
{
	json_t *list = json_object_get(res, "clashes");
	REQUIRE(json_is_array(list), "no \"clashes\" array");
	size_t i;
	json_t *c;
	json_array_foreach(list, i, c) {
		const char *a = json_string_value(json_object_get(c, "a"));
		const char *b = json_string_value(json_object_get(c, "b"));
		const char *cls = json_string_value(json_object_get(c, "class"));
		REQUIRE(a && b && strcmp(a, b) != 0, "a clash without two different ids");
		REQUIRE(cls && (!strcmp(cls, "clash") || !strcmp(cls, "touch") ||
		                !strcmp(cls, "clearance")),
		        "a clash of no known class");
		REQUIRE(json_is_boolean(json_object_get(c, "intersecting")), "no \"intersecting\"");
	}
}

/* A batch answer: one item per query, each a Result (checked as one) or
 * a 400/422 problem whose pointer is under /queries/i. */
static void check_batch(const char *route, const proto_reply *reply, json_t *res, json_t *req)
{
	json_t *list = json_object_get(res, "results");
	json_t *queries = json_object_get(req, "queries");
	REQUIRE(json_is_array(list) && json_is_array(queries) &&
	                json_array_size(list) == json_array_size(queries),
	        "not one answer per query");
	size_t i;
	json_t *item;
	json_array_foreach(list, i, item) {
		const char *type = json_string_value(json_object_get(item, "type"));
		if (!type) {
			check_result(route, reply, item, json_array_get(queries, i));
			continue;
		}
		json_int_t st = json_integer_value(json_object_get(item, "status"));
		REQUIRE(st == 400 || st == 422, "a query's problem is not a 400 or 422");
		char prefix[48];
		int n = snprintf(prefix, sizeof prefix, "/queries/%zu", i);
		const char *ptr = json_string_value(json_object_get(item, "pointer"));
		REQUIRE(ptr && strncmp(ptr, prefix, (size_t)n) == 0 && (!ptr[n] || ptr[n] == '/'),
		        "a query's problem is not placed under /queries/i");
	}
}

/* jansson refused the body only for a number out of the range of a double
 * (valid JSON it cannot hold): a batch of such queries is still answered
 * 200, the number being its query's 422. */
static int body_overflow;

/* One route: three calls, every check.  `doc` is the body parsed by
 * jansson as the decoder parses it, or NULL. */
static void run(const char *route, reply_fn fn, const char *body, size_t len, json_t *doc)
{
	proto_reply first, again, stopped;
	proto_call call = {.ctx = &server_ctx};
	const proto_reply *reply = NULL;
	if (fn(body, len, &call, &first) != 0)
		fail(route, "out of memory", NULL); /* libFuzzer bounds RSS far above this */
	reply = &first;
	REQUIRE(first.body && strlen(first.body) == first.length, "body length");
	REQUIRE(first.status == 200 || first.status == 400 || first.status == 422,
	        "status is not 200, 400 or 422");
	REQUIRE(!call.cancelled, "cancelled without a cancel flag");
	REQUIRE(strcmp(first.content_type, first.status == 200 ? PROTO_JSON : PROTO_PROBLEM_JSON) ==
	                0,
	        "media type does not go with the status");

	json_error_t e;
	json_t *res = json_loadb(first.body, first.length, JSON_REJECT_DUPLICATES, &e);
	REQUIRE(res, "the reply is not JSON");
	if (first.status == 200) {
		REQUIRE(doc || (body_overflow && strcmp(route, "batch") == 0),
		        "200 for a body that is not JSON");
		if (!doc)
			;
		else if (strcmp(route, "query") == 0)
			check_result(route, reply, res, doc);
		else if (strcmp(route, "contains") == 0)
			check_contains(route, reply, res);
		else if (strcmp(route, "batch") == 0)
			check_batch(route, reply, res, doc);
		else
			check_scene(route, reply, res);
	} else {
		REQUIRE(json_integer_value(json_object_get(res, "status")) == first.status,
		        "problem status differs from the reply's");
		REQUIRE(json_is_string(json_object_get(res, "type")) &&
		                json_is_string(json_object_get(res, "title")) &&
		                json_is_string(json_object_get(res, "detail")),
		        "problem without type, title or detail");
		const char *ptr = json_string_value(json_object_get(res, "pointer"));
		if (first.status == 422 && doc && ptr)
			REQUIRE(resolve(doc, ptr, 0) || resolve(doc, ptr, 1),
			        "the problem's pointer names nothing in the request");
		if (first.status == 400 && json_object_get(res, "position"))
			REQUIRE(json_integer_value(json_object_get(res, "position")) <=
			                (json_int_t)len + 1,
			        "parse error position past the end");
	}
	json_decref(res);

	proto_call call2 = {.ctx = &server_ctx};
	if (fn(body, len, &call2, &again) != 0)
		fail(route, "out of memory", NULL);
	REQUIRE(again.status == first.status && again.length == first.length &&
	                memcmp(again.body, first.body, first.length) == 0,
	        "a second call gave another reply");
	proto_reply_free(&again);

	/* The parser's own tree builder (vertex_scan.c) must answer exactly
	 * as jansson's parse does: the same bytes with the shortcut off. */
	proto_call plain_call = {.ctx = &plain_ctx};
	int plain = fn(body, len, &plain_call, &again);
	if (plain != 0)
		fail(route, "out of memory", NULL);
	REQUIRE(again.status == first.status && again.length == first.length &&
	                memcmp(again.body, first.body, first.length) == 0,
	        "the reply differs with the vertex scan off");
	proto_reply_free(&again);

	/* Under a cost bound (clashd's heavy share) a request is answered as
	 * before, or deferred with no reply (the batch route answers its items
	 * under the bound in clashd, not through proto_batch_reply_ex). */
	if (strcmp(route, "batch") != 0) {
		proto_call bounded = {.ctx = &server_ctx, .max_cost = 1e-9};
		if (fn(body, len, &bounded, &again) != 0)
			fail(route, "out of memory", NULL);
		if (bounded.deferred)
			REQUIRE(!again.body && bounded.cost > bounded.max_cost,
			        "a deferred call has a reply or was within its bound");
		else
			REQUIRE(again.status == first.status && again.length == first.length &&
			                memcmp(again.body, first.body, first.length) == 0,
			        "the reply differs under a cost bound");
		proto_reply_free(&again);
	}

	volatile int stop = 1;
	proto_call cancel = {.ctx = &server_ctx, .cancel = &stop};
	if (fn(body, len, &cancel, &stopped) != 0)
		fail(route, "out of memory", NULL);
	if (first.status == 200)
		REQUIRE(stopped.status == 503 && cancel.cancelled,
		        "cancelled query not answered 503");
	else
		REQUIRE(stopped.status == first.status && !cancel.cancelled,
		        "a cancel flag changed a problem");
	proto_reply_free(&stopped);
	proto_reply_free(&first);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	proto_init();
	/* clashd's defaults, as `clashd` with no flags applies them. */
	server_ctx = (proto_context){.limits = PROTO_DEFAULT_LIMITS,
	                             .max_queries = PROTO_DEFAULT_MAX_QUERIES,
	                             .weld = PROTO_DEFAULT_WELD};
	plain_ctx = server_ctx;
	plain_ctx.plain_parse = 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The server hands the decoder a NUL-terminated copy of the body. */
	char *body = malloc(size + 1);
	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';
	json_error_t e;
	json_t *doc =
		json_loadb(body, size,
	                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
	body_overflow = !doc && json_error_code(&e) == json_error_numeric_overflow;
	run("query", proto_query_reply_ex, body, size, doc);
	run("contains", proto_contains_reply_ex, body, size, doc);
	run("scene", proto_scene_reply_ex, body, size, doc);
	run("batch", proto_batch_reply_ex, body, size, doc);
	json_decref(doc);
	free(body);
	return 0;
}
