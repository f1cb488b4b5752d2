/*
 * check_batch.c — suite "batch": POST /v1/batch and `clash query`'s
 * blocks of lines (proto_batch, proto/endpoints/batch.c, batch_split.c), and the
 * reply dumper they rely on (proto/json/json_write.c, json_dump.c).
 *
 *   items      each item is what POST /v1/query answers for that query
 *              alone (proto_query_reply, the reference): Results byte for
 *              byte, problems with the pointer under /queries/N and the
 *              parser's line, column and position counted from the start
 *              of the body — checked against a brute-force count over the
 *              body, across lines and multi-byte characters; order kept;
 *              one bad item never fails the batch;
 *   body       what the whole body gets: a malformed body exactly the 400
 *              jansson's parse of the whole text gives (the /v1/query
 *              answer to the same text), a body that is not a batch a 422
 *              at the right member; --max-batch; per-query limits (vertices,
 *              nesting depth counted from the query);
 *   split      on random valid documents the splitter's items are exactly
 *              jansson's array elements; on random corruptions of them the
 *              answer is a 400 equal to jansson's, or a valid batch —
 *              never the splitter's 500;
 *   threads    a large batch answered in ranges on several threads equals
 *              the sequential answer byte for byte;
 *   dump       proto_real_json (the replies' precision, 17, and the log's,
 *              6) and proto_json_dump against jansson's json_dumps on
 *              random doubles (every %g form, ties, powers of ten and their
 *              neighbours) and random trees;
 *   http       clashd: the chunked /v1/batch equals the in-process answer
 *              byte for byte (a 4000-pair batch over 2 workers), metrics;
 *              --max-batch and its variable; a batch is one admitted query
 *              (--max-queue); a batch past --request-timeout is a 504 and
 *              frees the workers; `clash query` (several threads) writes
 *              the bytes of the HTTP path.
 *
 * No timing assertions: the deadline test's batch takes several times the
 * deadline to decode (noted there).
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "json_gen.h"
#include "prng.h"
#include "spawn.h"
#include "json_dump.h"
#include "proto.h"
#include "textbuf.h"
#include "vertex_scan.h"

/* ---- helpers ------------------------------------------------------------ */

/* The random source of the generated batches (prng.h); each test seeds it. */
static prng rng = {1};

/* A random small pair, 2-D or 3-D, with 17-digit coordinates and now and
 * then a radius, a pose or a method. */
static char *random_pair(void)
{
	textbuf b = {0};
	int dim = 2 + (int)prng_below(&rng, 2);
	textbuf_str(&b, "{");
	for (int s = 0; s < 2; s++) {
		textbuf_str(&b, s ? ",\"b\":{\"vertices\":[" : "\"a\":{\"vertices\":[");
		size_t n = 1 + prng_below(&rng, 10);
		for (size_t i = 0; i < n; i++) {
			char num[64];
			textbuf_str(&b, i ? ",[" : "[");
			for (int k = 0; k < dim; k++) {
				snprintf(num, sizeof num, "%s%.17g", k ? "," : "",
				         (s && k == 0 ? 1.5 : 0) + 2 * prng_unit(&rng) - 1);
				textbuf_str(&b, num);
			}
			textbuf_str(&b, "]");
		}
		textbuf_str(&b, "]");
		if (prng_below(&rng, 4) == 0) {
			char r[48];
			snprintf(r, sizeof r, ",\"radius\":%.17g", 0.25 * prng_unit(&rng));
			textbuf_str(&b, r);
		}
		if (prng_below(&rng, 4) == 0)
			textbuf_str(&b, dim == 3 ? ",\"pose\":{\"translation\":[0.5,0,0]}"
			                         : ",\"pose\":{\"angle\":0.25}");
		textbuf_str(&b, "}");
	}
	static const char *const methods[] = {"", ",\"method\":\"simplex\"", ",\"method\":\"ipm\""};
	textbuf_str(&b, prng_below(&rng, 5) == 0 ? methods[1 + prng_below(&rng, 2)] : methods[0]);
	textbuf_str(&b, "}");
	return b.s;
}

/* The batch body of `n` texts, separated by `sep[i % nsep]`; the offset
 * of each item is stored in off[i]. */
static char *batch_of(const char *const *items, size_t n, const char *const *sep, size_t nsep,
                      size_t *off, size_t *len)
{
	textbuf b = {0};
	textbuf_str(&b, "{\"queries\" : [");
	for (size_t i = 0; i < n; i++) {
		if (i)
			textbuf_str(&b, ",");
		textbuf_str(&b, sep[i % nsep]);
		off[i] = b.len;
		textbuf_str(&b, items[i]);
	}
	textbuf_str(&b, "\n] }\n");
	*len = b.len;
	return b.s;
}

/* Line (1-based) and characters before `off` on its line, counted by brute
 * force the way jansson counts them (UTF-8 lead bytes). */
static void place_of(const char *s, size_t off, int *line, int *column)
{
	*line = 1;
	*column = 0;
	for (size_t i = 0; i < off; i++) {
		if (s[i] == '\n') {
			(*line)++;
			*column = 0;
		} else if (((unsigned char)s[i] & 0xC0) != 0x80) {
			(*column)++;
		}
	}
}

/* What item i of a batch must be: the /v1/query answer to the item alone,
 * placed in the body.  Malloc'd text. */
/* The context every call of these tests answers in (each test is its own
 * process): limits a test sets apply to its later calls. */
static proto_context test_ctx;

/* What POST /v1/query answers for `text` alone, in test_ctx. */
static int alone_reply(const char *text, size_t len, proto_reply *out)
{
	proto_call call = {.ctx = &test_ctx};
	return proto_query_reply_ex(text, len, &call, out);
}

static char *expected_item(const char *item, const char *body, size_t off, size_t i)
{
	proto_reply alone;
	ck_assert_int_eq(alone_reply(item, strlen(item), &alone), 0);
	if (alone.status == 200)
		return alone.body;
	json_t *p = json_loads(alone.body, 0, NULL);
	ck_assert_ptr_nonnull(p);
	const char *ptr = json_string_value(json_object_get(p, "pointer"));
	char placed[4096];
	snprintf(placed, sizeof placed, "/queries/%zu%s", i, ptr ? ptr : "");
	json_object_set_new(p, "pointer", json_string(placed));
	if (json_object_get(p, "line")) {
		int line, column;
		place_of(body, off, &line, &column);
		json_int_t l = json_integer_value(json_object_get(p, "line"));
		json_int_t c = json_integer_value(json_object_get(p, "column"));
		json_int_t pos = json_integer_value(json_object_get(p, "position"));
		/* Re-insert in the encoder's order: line, column, position. */
		json_object_del(p, "line");
		json_object_del(p, "column");
		json_object_del(p, "position");
		json_object_set_new(p, "line", json_integer(line + l - 1));
		json_object_set_new(p, "column", json_integer(l == 1 ? column + c : c));
		json_object_set_new(p, "position", json_integer(pos + (json_int_t)off));
	}
	char *text = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	proto_reply_free(&alone);
	return text;
}

/* {"results": [expected items]} */
static char *expected_reply(const char *const *items, size_t n, const char *body, const size_t *off)
{
	textbuf b = {0};
	textbuf_str(&b, "{\"results\":[");
	for (size_t i = 0; i < n; i++) {
		char *e = expected_item(items[i], body, off[i], i);
		if (i)
			textbuf_str(&b, ",");
		textbuf_str(&b, e);
		free(e);
	}
	textbuf_str(&b, "]}");
	return b.s;
}

static void reply_of(const char *body, size_t len, proto_reply *out, proto_call *call)
{
	proto_call none = {0};
	if (!call)
		call = &none;
	call->ctx = &test_ctx;
	ck_assert_int_eq(proto_batch_reply_ex(body, len, call, out), 0);
}

/* The problem members of a reply. */
static json_t *problem_of(const proto_reply *r, int status)
{
	ck_assert_msg(r->status == status, "status %d, expected %d: %s", r->status, status,
	              r->body);
	ck_assert_str_eq(r->content_type, PROTO_PROBLEM_JSON);
	json_t *p = json_loads(r->body, 0, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "status")), status);
	return p;
}

static void assert_pointer(const proto_reply *r, int status, const char *pointer)
{
	json_t *p = problem_of(r, status);
	const char *got = json_string_value(json_object_get(p, "pointer"));
	ck_assert_msg(got && strcmp(got, pointer) == 0, "pointer %s, expected %s: %s",
	              got ? got : "(none)", pointer, r->body);
	json_decref(p);
}

/* ---- items --------------------------------------------------------------- */

/* Good and bad queries, each answered alone by /v1/query. */
static const char *const mixed[] = {
	"{\"a\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]},\"b\":{\"vertices\":[[3,0,0],[4,0,0]]}}",
	"{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":[[1,\"x\",0]]}}",
	"{\"a\":{\"vertices\":[[0,0]]},\"b\":{\"vertices\":[[1,1,1]]}}",
	"42",
	"{\"a\":{\"vertices\":[[0]]}}",
	"{\"a\":{\"vertices\":[[0]]},\"b\":{\"vertices\":[[1e999]]}}",
	"{\"a\":{\"vertices\":[[0,0]]},\"b\":{\"vertices\":[[2,0]]},\"colour\":\"réd\"}",
	"[\"a string with ] and , and \\\" and [ inside\", {\"x\": \"}\"}]",
	"{\"a\":{\"vertices\":[[0,0]],\"radius\":-1},\"b\":{\"vertices\":[[2,0]]}}",
	"{\"a\":{\"parts\":[{\"vertices\":[[0,0],[1,0]]},{\"vertices\":[[0,1]]}]},"
	"\"b\":{\"vertices\":[[3,3]]}}",
	"{\"a\":{\"vertices\":[[0,0]]},\"b\":{\"vertices\":[[2,0]]},\"method\":\"nope\"}",
	"null",
	"{\"a\":{\"vertices\":[[0,0,0],[1,1,1]]},\"b\":{\"vertices\":[[0.5,0.5,0.5]]},"
	"\"method\":\"ipm\"}",
};
#define NMIXED (sizeof mixed / sizeof mixed[0])

START_TEST(test_items_as_alone)
{
	proto_init();
	/* Separators across lines and after multi-byte characters, so the
	 * placed line and column are tested. */
	static const char *const good_seps[] = {"", " ", "\n", "\r\n  \t"};
	size_t off[NMIXED], len;
	char *body = batch_of(mixed, NMIXED, good_seps, 4, off, &len);
	proto_reply r;
	proto_call call = {0};
	reply_of(body, len, &r, &call);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, PROTO_JSON);
	char *want = expected_reply(mixed, NMIXED, body, off);
	ck_assert_str_eq(r.body, want);
	ck_assert_int_eq(r.length, strlen(want));
	ck_assert_int_gt(call.iterations, 0);
	/* Spot checks by hand, independent of the reference. */
	json_t *doc = json_loads(r.body, 0, NULL);
	json_t *res = json_object_get(doc, "results");
	ck_assert_int_eq(json_array_size(res), NMIXED);
	ck_assert(json_is_false(json_object_get(json_array_get(res, 0), "intersecting")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 1), "pointer")),
	                 "/queries/1/b/vertices/0/1");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 3), "pointer")),
	                 "/queries/3");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 5), "pointer")),
	                 "/queries/5/b/vertices/0/0");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 6), "pointer")),
	                 "/queries/6/colour");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(res, 5), "status")),
	                 422);
	json_decref(doc);
	free(want);
	proto_reply_free(&r);
	free(body);

	/* Order: the same items shuffled give the shuffled answers. */
	const char *shuffled[NMIXED];
	for (size_t i = 0; i < NMIXED; i++)
		shuffled[i] = mixed[(i * 5 + 3) % NMIXED];
	body = batch_of(shuffled, NMIXED, good_seps, 1, off, &len);
	reply_of(body, len, &r, NULL);
	want = expected_reply(shuffled, NMIXED, body, off);
	ck_assert_str_eq(r.body, want);
	free(want);
	proto_reply_free(&r);
	free(body);
}
END_TEST

START_TEST(test_located_items)
{
	/* Problems with a parser position inside an item: the depth limit (the
	 * item is valid JSON, nested deeper than allowed). */
	proto_init();
	proto_request_limits l = test_ctx.limits;
	l.max_depth = 6;
	test_ctx.limits = l;
	static const char *const items[] = {
		"{\"a\":{\"vertices\":[[0,0]]},\"b\":{\"vertices\":[[2,0]]}}",
		"{\"a\":{\"vertices\":[[[[[[0]]]]]]},\"b\":1}",
		"{\"ü\":\"ß\",\n \"a\":[[[[[[[1]]]]]]]}",
		"[[[[[[[]]]]]]]",
	};
	textbuf b = {0};
	textbuf_str(&b, "{\"queries\":\n[\"é\",\n  \"ééé\", ");
	/* The strings are items too: answered alone as well. */
	const char *all[6] = {"\"é\"", "\"ééé\"", items[0], items[1], items[2], items[3]};
	size_t offs[6];
	offs[0] = (size_t)(strstr(b.s, all[0]) - b.s);
	offs[1] = (size_t)(strstr(b.s, all[1]) - b.s);
	for (int i = 0; i < 4; i++) {
		if (i)
			textbuf_str(&b, i == 2 ? ",\n\t" : ", ");
		offs[2 + i] = b.len;
		textbuf_str(&b, items[i]);
	}
	textbuf_str(&b, "]}");
	proto_reply r;
	reply_of(b.s, b.len, &r, NULL);
	ck_assert_int_eq(r.status, 200);
	char *want = expected_reply(all, 6, b.s, offs);
	ck_assert_str_eq(r.body, want);
	/* By hand: the depth problem of the third query is a 400 of its own. */
	json_t *doc = json_loads(r.body, 0, NULL);
	json_t *third = json_array_get(json_object_get(doc, "results"), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(third, "status")), 400);
	ck_assert_str_eq(json_string_value(json_object_get(third, "pointer")),
	                 "/queries/3/a/vertices/0/0/0/0");
	ck_assert_int_eq(json_integer_value(json_object_get(third, "line")), 3);
	json_decref(doc);
	free(want);
	proto_reply_free(&r);
	/* The body itself may nest two levels deeper than a query. */
	reply_of("{\"queries\":[[[[[[[]]]]]]]}", 26, &r, NULL);
	ck_assert_int_eq(r.status, 200);
	proto_reply_free(&r);
	free(b.s);
}
END_TEST

/* ---- body ---------------------------------------------------------------- */

START_TEST(test_malformed_body)
{
	proto_init();
	const char *good = mixed[0];
	char *cases[16];
	int n = 0;
	/* clang-format off */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,%s", good, good) > 0);          /* truncated */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s %s]}", good, good) > 0);        /* no comma */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,%s]} x", good, good) > 0);      /* junk after */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,[1,]]}", good) > 0);             /* bad item */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,1 2]}", good) > 0);              /* two values */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,\"open]}", good) > 0);           /* string */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s]]}", good) > 0);                 /* extra ] */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[%s,,%s]}", good, good) > 0);       /* empty */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[],\"queries\":[]}") > 0);          /* duplicate */
	ck_assert(asprintf(&cases[n++], "{\"queries\":[{\"a\":1,\"a\":2}]}") > 0);        /* dup inside */
	ck_assert(asprintf(&cases[n++], "  \n ") > 0);                                   /* blank */
	/* clang-format on */
	for (int i = 0; i < n; i++) {
		proto_reply r, alone;
		reply_of(cases[i], strlen(cases[i]), &r, NULL);
		/* Exactly what the same text gets as a query: jansson's verdict on
		 * the whole body (the blank body says "a batch" rather than "a
		 * query"). */
		ck_assert_int_eq(alone_reply(cases[i], strlen(cases[i]), &alone), 0);
		json_t *p = problem_of(&r, 400);
		if (i != n - 1)
			ck_assert_msg(strcmp(r.body, alone.body) == 0, "case %d: %s\n  vs %s", i,
			              r.body, alone.body);
		json_decref(p);
		proto_reply_free(&r);
		proto_reply_free(&alone);
		free(cases[i]);
	}
	/* A number out of range stops jansson's parse (of the item, and of the
	 * whole body): the body is still malformed when the query goes on with
	 * a syntax error, and its 400 names the query; without one, the number
	 * is that query's 422. */
	char *both;
	ck_assert(asprintf(&both, "{\"queries\":[%s,{\"a\":1e999, }]}", good) > 0);
	proto_reply r;
	reply_of(both, strlen(both), &r, NULL);
	assert_pointer(&r, 400, "/queries/1");
	proto_reply_free(&r);
	free(both);
	ck_assert(asprintf(&both, "{\"queries\":[%s,{\"a\":[\"1e999\", -1e999]}]}", good) > 0);
	reply_of(both, strlen(both), &r, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_nonnull(strstr(r.body, "\"pointer\":\"/queries/1/a/1\""));
	proto_reply_free(&r);
	free(both);
	/* The depth limit scans the raw text before any parse: an item nested
	 * too deep that is not JSON either makes the body malformed (a fuzz
	 * finding: it was answered 200 with the item's depth problem); one
	 * that is JSON is that item's 400. */
	proto_request_limits l = test_ctx.limits;
	l.max_depth = 6;
	test_ctx.limits = l;
	const char *deep[2] = {"{\"queries\":[[[[[[[[[[[\"\x87\", 1 2]]]]]]]]]]]}",
	                       "{\"queries\":[[[[[[[[[[[]]]]]]]]]]]}"};
	reply_of(deep[0], strlen(deep[0]), &r, NULL);
	ck_assert_msg(r.status == 400 && !strstr(r.body, "results"), "%s", r.body);
	proto_reply_free(&r);
	reply_of(deep[1], strlen(deep[1]), &r, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_nonnull(strstr(r.body, "\"status\":400"));
	ck_assert_ptr_nonnull(strstr(r.body, "\"pointer\":\"/queries/0"));
	proto_reply_free(&r);
}
END_TEST

START_TEST(test_not_a_batch)
{
	proto_init();
	static const struct {
		const char *body, *pointer;
	} cases[] = {
		{"[]", ""},
		{"42", ""},
		{"{}", ""},
		{"{\"query\":[]}", "/query"},
		{"{\"queries\":[], \"x\":1}", "/x"},
		{"{\"x\":1, \"queries\":[]}", "/x"},
		{"{\"queries\":{}}", "/queries"},
		{"{\"queries\":\"[]\"}", "/queries"},
		{"{\"queries\":null}", "/queries"},
		{"{\"a/b\":1}", "/a~1b"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		proto_reply r;
		reply_of(cases[i].body, strlen(cases[i].body), &r, NULL);
		assert_pointer(&r, 422, cases[i].pointer);
		proto_reply_free(&r);
	}
	/* The member name written with escapes, and spaces everywhere. */
	static const char *const fine[] = {
		"{\"\\u0071ueries\":[]}",
		" \r\n{ \"queries\" \t: [ ] } \n",
		"{\"queries\":[1]}",
	};
	for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
		proto_reply r;
		reply_of(fine[i], strlen(fine[i]), &r, NULL);
		ck_assert_msg(r.status == 200, "%s -> %s", fine[i], r.body);
		proto_reply_free(&r);
	}
}
END_TEST

START_TEST(test_limits)
{
	proto_init();
	const char *items[5] = {mixed[0], mixed[0], mixed[0], mixed[0], mixed[0]};
	static const char *const sep[] = {""};
	size_t off[5], len;
	test_ctx.max_queries = 4;
	char *body = batch_of(items, 4, sep, 1, off, &len);
	proto_reply r;
	proto_call call = {0};
	reply_of(body, len, &r, &call);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(call.limit, PROTO_LIMIT_NONE);
	proto_reply_free(&r);
	free(body);
	body = batch_of(items, 5, sep, 1, off, &len);
	reply_of(body, len, &r, &call);
	assert_pointer(&r, 422, "/queries/4");
	ck_assert_int_eq(call.limit, PROTO_LIMIT_QUERIES);
	proto_reply_free(&r);
	/* Also when the body is not in the plain form (an escaped name). */
	body[3] = 'q';
	memmove(body + 8, body + 7, len - 7);
	memcpy(body + 2, "\\u0071", 6);
	reply_of(body, len + 5 - 0, &r, &call);
	ck_assert_msg(r.status == 422 || r.status == 400, "%s", r.body);
	proto_reply_free(&r);
	free(body);
	test_ctx.max_queries = 0;

	/* Per-query limits apply to each query as if alone. */
	proto_request_limits l = test_ctx.limits;
	l.max_vertices = 3;
	test_ctx.limits = l;
	const char *two[2] = {mixed[0], mixed[12]};
	body = batch_of(two, 2, sep, 1, off, &len);
	reply_of(body, len, &r, &call);
	ck_assert_int_eq(r.status, 200);
	json_t *doc = json_loads(r.body, 0, NULL);
	json_t *first = json_array_get(json_object_get(doc, "results"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(first, "pointer")),
	                 "/queries/0/a/vertices");
	ck_assert(
		json_is_boolean(json_object_get(json_array_get(json_object_get(doc, "results"), 1),
	                                        "intersecting")));
	json_decref(doc);
	proto_reply_free(&r);
	free(body);

	/* The answers together within the reply limit: exactly at it is a 200,
	 * a byte less a 422 naming the queries, none answered. */
	l = (proto_request_limits){0};
	test_ctx.limits = l;
	body = batch_of(items, 4, sep, 1, off, &len);
	reply_of(body, len, &r, &call);
	ck_assert_int_eq(r.status, 200);
	size_t whole = r.length;
	proto_reply_free(&r);
	l.max_reply = whole;
	test_ctx.limits = l;
	reply_of(body, len, &r, &call);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, whole);
	proto_reply_free(&r);
	l.max_reply = whole - 1;
	test_ctx.limits = l;
	reply_of(body, len, &r, &call);
	assert_pointer(&r, 422, "/queries");
	proto_reply_free(&r);
	free(body);
	test_ctx.limits = (proto_request_limits){0};
}
END_TEST

/* ---- split ---------------------------------------------------------------- */

START_TEST(test_split_random)
{
	proto_init();
	rng.s = 20261122;
	int corrupted_valid = 0, corrupted_400 = 0;
	for (int round = 0; round < 400; round++) {
		json_t *queries = json_array();
		size_t n = prng_below(&rng, 8);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(queries, json_gen(&rng, 4, 3));
		json_t *doc = json_pack("{s:o}", "queries", queries);
		char *text = json_dumps(doc, round % 2 ? JSON_INDENT((int)prng_below(&rng, 3))
		                                       : JSON_COMPACT);
		size_t len = strlen(text);
		proto_batch *b;
		proto_reply r;
		ck_assert_int_eq(proto_batch_open(text, len, NULL, &b, &r), 0);
		ck_assert_msg(b != NULL, "%s -> %s", text, r.body);
		ck_assert_int_eq(proto_batch_size(b), n);
		/* Each item's text is its element: parse the item alone. */
		ck_assert_int_eq(proto_batch_answer(b, 0, n, NULL), 0);
		proto_reply whole;
		ck_assert_int_eq(proto_batch_reply(b, NULL, &whole), 0);
		ck_assert_int_eq(whole.status, 200);
		proto_reply_free(&whole);
		proto_batch_free(b);

		/* The spans themselves: walk the elements' dumps. */
		for (size_t i = 0; i < n; i++) {
			char *el = json_dumps(json_array_get(queries, i),
			                      JSON_ENCODE_ANY | JSON_COMPACT);
			json_t *back = json_loads(el, JSON_DECODE_ANY, NULL);
			ck_assert(json_equal(back, json_array_get(queries, i)));
			json_decref(back);
			free(el);
		}

		/* Corruptions: drop, duplicate or replace one byte. */
		for (int c = 0; c < 6; c++) {
			char *bad = malloc(len + 2);
			size_t at = prng_below(&rng, len);
			size_t blen = len;
			memcpy(bad, text, len + 1);
			switch (c % 3) {
			case 0:
				memmove(bad + at, bad + at + 1, len - at);
				blen--;
				break;
			case 1:
				memmove(bad + at + 1, bad + at, len - at + 1);
				blen++;
				break;
			default: bad[at] = "[]{},\":\\ x1"[prng_below(&rng, 12)]; break;
			}
			proto_reply out, alone;
			ck_assert_int_eq(proto_batch_reply_ex(bad, blen, NULL, &out), 0);
			ck_assert_msg(out.status != 500, "%s -> %s", bad, out.body);
			json_error_t e;
			json_t *parsed = json_loadb(bad, blen,
			                            JSON_REJECT_DUPLICATES | JSON_DECODE_ANY |
			                                    JSON_DECODE_INT_AS_REAL,
			                            &e);
			if (!parsed) {
				/* Not JSON: exactly jansson's 400 (or, for a number out
				 * of range, the 422 /v1/query gives the text). */
				ck_assert_int_eq(alone_reply(bad, blen, &alone), 0);
				if (alone.status == 400) {
					ck_assert_msg(strcmp(out.body, alone.body) == 0,
					              "%s\n-> %s\n vs %s", bad, out.body,
					              alone.body);
					corrupted_400++;
				}
				proto_reply_free(&alone);
			} else {
				json_t *q = json_object_get(parsed, "queries");
				int batch = json_is_object(parsed) &&
				            json_object_size(parsed) == 1 && json_is_array(q);
				ck_assert_msg(batch ? out.status == 200 : out.status == 422,
				              "%s -> %s", bad, out.body);
				if (batch) {
					json_t *res = json_loads(out.body, 0, NULL);
					ck_assert_int_eq(json_array_size(
								 json_object_get(res, "results")),
					                 json_array_size(q));
					json_decref(res);
					corrupted_valid++;
				}
				json_decref(parsed);
			}
			proto_reply_free(&out);
			free(bad);
		}
		json_decref(doc);
		free(text);
	}
	ck_assert_int_gt(corrupted_400, 100);
	ck_assert_int_gt(corrupted_valid, 10);
}
END_TEST

/* ---- threads ------------------------------------------------------------- */

typedef struct range_job {
	pthread_t t;
	proto_batch *b;
	size_t from, to;
} range_job;

static void *answer_range(void *arg)
{
	range_job *j = arg;
	/* Small ranges in reverse, so the threads interleave. */
	for (size_t end = j->to; end > j->from;) {
		size_t start = end > j->from + 7 ? end - 7 : j->from;
		ck_assert_int_eq(proto_batch_answer(j->b, start, end, NULL), 0);
		end = start;
	}
	return NULL;
}

static char **random_pairs(size_t n, unsigned seed)
{
	rng.s = seed;
	char **items = malloc(n * sizeof *items);
	for (size_t i = 0; i < n; i++)
		items[i] = i % 97 == 5 ? strdup(mixed[i % NMIXED]) : random_pair();
	return items;
}

START_TEST(test_threads_equal_sequential)
{
	proto_init();
	enum {
		N = 3000,
		T = 4
	};
	char **items = random_pairs(N, 77);
	static const char *const sep[] = {"", "\n"};
	size_t *off = malloc(N * sizeof *off), len;
	char *body = batch_of((const char *const *)items, N, sep, 2, off, &len);
	proto_reply seq;
	reply_of(body, len, &seq, NULL);
	ck_assert_int_eq(seq.status, 200);

	proto_batch *b;
	proto_reply r;
	ck_assert_int_eq(proto_batch_open(body, len, NULL, &b, &r), 0);
	ck_assert_ptr_nonnull(b);
	range_job jobs[T];
	for (int k = 0; k < T; k++) {
		jobs[k] = (range_job){.b = b,
		                      .from = (size_t)k * N / T,
		                      .to = (size_t)(k + 1) * N / T};
		ck_assert_int_eq(pthread_create(&jobs[k].t, NULL, answer_range, &jobs[k]), 0);
	}
	for (int k = 0; k < T; k++)
		pthread_join(jobs[k].t, NULL);
	proto_reply par;
	ck_assert_int_eq(proto_batch_reply(b, NULL, &par), 0);
	ck_assert_int_eq(par.length, seq.length);
	ck_assert(memcmp(par.body, seq.body, seq.length) == 0);
	/* ... and both are the items answered alone. */
	char *want = expected_reply((const char *const *)items, N, body, off);
	ck_assert_str_eq(seq.body, want);
	free(want);
	proto_reply_free(&par);
	proto_reply_free(&seq);
	proto_batch_free(b);

	/* A stopped range leaves the batch unanswered: 503, cancelled. */
	ck_assert_int_eq(proto_batch_open(body, len, NULL, &b, &r), 0);
	volatile int stop = 1;
	proto_call call = {.cancel = &stop};
	ck_assert_int_eq(proto_batch_answer(b, 0, N, &call), 0);
	ck_assert_int_eq(call.cancelled, 1);
	proto_call rc = {0};
	ck_assert_int_eq(proto_batch_reply(b, &rc, &par), 0);
	ck_assert_int_eq(par.status, 503);
	ck_assert_int_eq(rc.cancelled, 1);
	proto_reply_free(&par);
	proto_batch_free(b);

	for (size_t i = 0; i < N; i++)
		free(items[i]);
	free(items);
	free(off);
	free(body);
}
END_TEST

/* ---- dump ---------------------------------------------------------------- */

START_TEST(test_real_text)
{
	rng.s = 99;
	long checked = 0;
	for (long i = 0; i < 600000; i++) {
		double x;
		uint64_t bits = prng_next(&rng);
		switch (i % 7) {
		case 0:
			memcpy(&x, &bits, sizeof x);
			if (!isfinite(x))
				continue;
			break;
		case 1: x = prng_unit(&rng); break;
		case 2: x = (prng_unit(&rng) - 0.5) * pow(10, (int)(bits % 50) - 25); break;
		case 3: x = (double)(int64_t)(bits % 2000001) - 1000000; break;
		case 4: x = (double)(int64_t)(bits % 200001) / 1000.0; break;
		case 5: {
			double p = pow(10, (int)(bits % 80) - 40);
			x = (bits & 1) ? nextafter(p, 0) : (bits & 2) ? nextafter(p, 1e300) : p;
			break;
		}
		default:
			/* Exact ties at the 17th digit: integers of 18 digits
			 * ending in 5 (exact in a double when small enough). */
			x = (double)(100000000000000005ULL + 10 * (bits % 1000)) /
			    (bits & 1 ? 1 : 8);
			break;
		}
		json_t *v = json_real(x);
		/* The replies' precision, and the log's. */
		static const int precision[] = {17, 6};
		for (int k = 0; k < 2; k++) {
			char *j =
				json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(precision[k]));
			char mine[PROTO_REAL_MAX];
			size_t n = proto_real_json(x, precision[k], mine);
			ck_assert_msg(strcmp(j, mine) == 0,
			              "%a at %d: jansson %s, proto_real_json %s", x, precision[k],
			              j, mine);
			ck_assert_int_eq(n, strlen(mine));
			free(j);
		}
		json_decref(v);
		checked++;
	}
	ck_assert_int_gt(checked, 500000);
	static const double fixed[] = {0.0,
	                               -0.0,
	                               1,
	                               -1,
	                               0.1,
	                               1e-5,
	                               1e-4,
	                               1e16,
	                               1e17,
	                               123456789012345678.0,
	                               5e-324,
	                               2.2250738585072014e-308,
	                               1.7976931348623157e308};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		json_t *v = json_real(fixed[i]);
		char *j = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		char mine[PROTO_REAL_MAX];
		proto_real_json(fixed[i], 17, mine);
		ck_assert_msg(strcmp(j, mine) == 0, "%a: jansson %s, mine %s", fixed[i], j, mine);
		free(j);
		json_decref(v);
	}
}
END_TEST

START_TEST(test_json_dump)
{
	rng.s = 4242;
	for (int i = 0; i < 3000; i++) {
		json_t *v = json_gen(&rng, 4, 3);
		if (i % 3 == 0) {
			/* Every control character, escapes, UTF-8. */
			char s[64];
			int k = 0;
			for (int c = 1; c < 32 && k < 60; c += 1 + (int)prng_below(&rng, 3))
				s[k++] = (char)c;
			s[k] = '\0';
			json_t *o = json_object();
			json_object_set_new(o, s, json_stringn("\"\\/\xc3\xa9\x7f", 6));
			json_object_set_new(o, "v", v);
			json_object_set_new(o, "e", json_array());
			json_object_set_new(o, "o", json_object());
			json_object_set_new(o, "n", json_integer(-9223372036854775807LL - 1));
			v = o;
		}
		char *want =
			json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
		size_t len = 0;
		char *got = proto_json_dump(v, &len);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(strcmp(want, got) == 0, "jansson %s\nproto   %s", want, got);
		ck_assert_int_eq(len, strlen(want));
		free(want);
		free(got);
		json_decref(v);
	}
}
END_TEST

/* ---- the vertex shortcut -------------------------------------------------- */

/* A number's text in one of many forms. */
static void number_text(char *out, size_t cap)
{
	double x = (prng_unit(&rng) - 0.5) * pow(10, (int)prng_below(&rng, 12) - 6);
	switch (prng_below(&rng, 12)) {
	case 0: snprintf(out, cap, "%d", (int)prng_below(&rng, 2000) - 1000); break;
	case 1: snprintf(out, cap, "%.17g", x); break;
	case 2: snprintf(out, cap, "%.3f", x); break;
	case 3: snprintf(out, cap, "%.6e", x); break;
	case 4: snprintf(out, cap, "%.15g", x); break;
	case 5: snprintf(out, cap, "%.20f", x); break;
	case 6: snprintf(out, cap, "%.6fE+%d", x, (int)prng_below(&rng, 30)); break;
	case 7: snprintf(out, cap, "-0"); break;
	case 8:
		snprintf(out, cap, "%.9fe-%d", x, 300 + (int)prng_below(&rng, 30));
		break; /* underflow */
	case 9: snprintf(out, cap, "123456789012345678901234567890.5"); break;
	case 10: snprintf(out, cap, "0.%0130d1", 0); break; /* longer than the shortcut reads */
	default: snprintf(out, cap, "%.1f", x); break;
	}
}

/* A query text with plain and not-so-plain vertex arrays, spacing, and now
 * and then a fault. */
static char *shortcut_query(void)
{
	textbuf b = {0};
	static const char *const ws[] = {"", " ", "\n", "\t", "\r\n "};
	int dim = 1 + (int)prng_below(&rng, 4);
	textbuf_str(&b, "{");
	for (int s = 0; s < 2; s++) {
		textbuf_str(&b, s ? "," : "");
		textbuf_str(&b, ws[prng_below(&rng, 5)]);
		textbuf_str(&b, s ? "\"b\"" : "\"a\"");
		textbuf_str(&b, ":{");
		int parts = prng_below(&rng, 6) == 0;
		if (parts)
			textbuf_str(&b, "\"parts\":[{");
		textbuf_str(&b, prng_below(&rng, 40) == 0 ? "\"vertic\\u0065s\"" : "\"vertices\"");
		textbuf_str(&b, ws[prng_below(&rng, 5)]);
		textbuf_str(&b, ":");
		textbuf_str(&b, ws[prng_below(&rng, 5)]);
		textbuf_str(&b, "[");
		size_t n = prng_below(&rng, 30) == 0 ? 0 : 1 + prng_below(&rng, 12);
		for (size_t i = 0; i < n; i++) {
			textbuf_str(&b, i ? "," : "");
			textbuf_str(&b, ws[prng_below(&rng, 5)]);
			textbuf_str(&b, "[");
			int d = prng_below(&rng, 300) == 0 ? dim + 1 : dim;
			for (int k = 0; k < d; k++) {
				char num[200];
				number_text(num, sizeof num);
				if (prng_below(&rng, 400) == 0)
					snprintf(num, sizeof num, "%s",
					         (const char *[]){"01", "1.", "\"1\"", "[1]",
					                          "1e999", "+1", ".5", "null", "1e",
					                          "-"}[prng_below(&rng, 10)]);
				textbuf_str(&b, k ? "," : "");
				textbuf_str(&b, ws[prng_below(&rng, 5)]);
				textbuf_str(&b, num);
				textbuf_str(&b, ws[prng_below(&rng, 5)]);
			}
			textbuf_str(&b, "]");
		}
		textbuf_str(&b, ws[prng_below(&rng, 5)]);
		textbuf_str(&b, "]");
		if (parts)
			textbuf_str(&b, "},{\"vertices\":[[0.5]]}]");
		if (prng_below(&rng, 8) == 0)
			textbuf_str(&b, ",\"radius\":0.125");
		if (prng_below(&rng, 30) == 0)
			textbuf_str(&b, ",\"vertices\":[[1]]"); /* a duplicate */
		textbuf_str(&b, "}");
	}
	if (prng_below(&rng, 10) == 0)
		textbuf_str(&b, ",\"colour\":{\"vertices\":[[1,2],[3,4]]}");
	textbuf_str(&b, ws[prng_below(&rng, 5)]);
	textbuf_str(&b, prng_below(&rng, 60) == 0 ? "" : "}");
	return b.s;
}

START_TEST(test_vertex_shortcut)
{
	/* Every answer with the shortcut is the answer without it, byte for
	 * byte: Results and every problem (type, pointer, position). */
	proto_init();
	rng.s = 31337;
	proto_request_limits l = test_ctx.limits;
	int differ = 0, problems = 0;
	for (int i = 0; i < 6000; i++) {
		l.max_vertices =
			i % 3 == 0 ? 10 : 0; /* the limit, read from the shortcut's count */
		l.max_depth = i % 5 == 0 ? 4 : 0;
		test_ctx.limits = l;
		char *q = shortcut_query();
		proto_reply fast, usual;
		proto_context plain = {.limits = l, .plain_parse = 1};
		proto_call call_f = {.ctx = &test_ctx}, call_u = {.ctx = &plain};
		ck_assert_int_eq(proto_query_reply_ex(q, strlen(q), &call_f, &fast), 0);
		ck_assert_int_eq(proto_query_reply_ex(q, strlen(q), &call_u, &usual), 0);
		differ += strcmp(fast.body, usual.body) != 0;
		ck_assert_msg(fast.status == usual.status && strcmp(fast.body, usual.body) == 0,
		              "%s\nshortcut: %s\nusual:    %s", q, fast.body, usual.body);
		problems += fast.status != 200;
		proto_reply_free(&fast);
		proto_reply_free(&usual);
		free(q);
	}
	test_ctx.limits = (proto_request_limits){0};
	ck_assert_int_eq(differ, 0);
	ck_assert_int_gt(problems, 300); /* faults were exercised */
	ck_assert_int_gt(6000 - problems, 1500);

	/* Numbers: the shortcut's reading is strtod's, bit for bit. */
	for (int i = 0; i < 200000; i++) {
		char num[200];
		number_text(num, sizeof num);
		double mine, ref;
		if (proto_read_number(num, strlen(num), &mine) != 0)
			continue;
		ref = strtod(num, NULL);
		ck_assert_msg(memcmp(&mine, &ref, sizeof mine) == 0, "%s: %a, strtod %a", num, mine,
		              ref);
	}
	static const char *const bad[] = {"01",   "1.",    ".5",     "+1",       "1e",
	                                  "1e+",  "-",     "",       "1x",       "--1",
	                                  "0x10", "1e999", "-1e400", "Infinity", "NaN"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double x;
		ck_assert_msg(proto_read_number(bad[i], strlen(bad[i]), &x) != 0, "%s read",
		              bad[i]);
	}
}
END_TEST

/* A number of 16 to 19 significant digits for the integer path of
 * proto_read_number: doubles printed with 16 to 19 digits, random digit
 * strings scaled by 10^-30 to 10^21 (the path's edges and past them),
 * midpoints between neighbouring doubles (ties when printed exactly), and
 * integers around 2^53 and 2^64. */
static void long_number_text(char *out, size_t cap)
{
	double x = ldexp((double)(prng_next(&rng) >> 11), -(int)prng_below(&rng, 130)) *
	           (prng_below(&rng, 2) ? 1 : -1);
	switch (prng_below(&rng, 6)) {
	case 0: snprintf(out, cap, "%.*g", 16 + (int)prng_below(&rng, 4), x); break;
	case 1: {
		uint64_t m = prng_next(&rng) % 10000000000000000000ull;
		snprintf(out, cap, "%" PRIu64 "e%d", m, (int)prng_below(&rng, 52) - 30);
		break;
	}
	case 2: {
		uint64_t m = prng_next(&rng) % 10000000000000000ull;
		int frac = 1 + (int)prng_below(&rng, 18);
		snprintf(out, cap, "%" PRIu64 ".%0*" PRIu64 "e-%d", m % 1000, frac,
		         (uint64_t)(m % 1000000000000000ull), (int)prng_below(&rng, 20));
		break;
	}
	case 3: { /* exactly halfway between x and the next double, when short */
		double y = fabs(x) + DBL_MIN, z = nextafter(y, INFINITY);
		snprintf(out, cap, "%.*Lg", 16 + (int)prng_below(&rng, 4),
		         ((long double)y + z) / 2);
		break;
	}
	case 4:
		snprintf(out, cap, "%" PRIu64,
		         ((uint64_t)1 << 53) + prng_below(&rng, 64) * (1 + prng_below(&rng, 1000)));
		break;
	default: snprintf(out, cap, "%" PRIu64, UINT64_MAX - prng_below(&rng, 1000) - 1); break;
	}
}

START_TEST(test_long_numbers)
{
	/* 16 to 19 digits are read by 128-bit integers, not strtod: the same
	 * double, bit for bit, on a million texts and the known hard cases. */
	rng.s = 4242;
	int read = 0;
	for (int i = 0; i < 1000000; i++) {
		char num[200];
		long_number_text(num, sizeof num);
		double mine, ref = strtod(num, NULL);
		if (proto_read_number(num, strlen(num), &mine) != 0)
			continue;
		read++;
		ck_assert_msg(memcmp(&mine, &ref, sizeof mine) == 0, "%s: %a, strtod %a", num, mine,
		              ref);
	}
	ck_assert_int_gt(read, 990000);
	/* clang-format off */
	static const char *const hard[] = {
		"9007199254740993", "9007199254740995", "4503599627370496.5", "4503599627370497.5",
		"1e23", "7.2057594037927933e+16", "7.3177701707893310e+15", "0.30000000000000004",
		"8.8486503332291244e-5", "1.0000000000000000000", "0e-50", "-0.000e-40",
		"123456789012345678e-27", "18446744073709551615", "9999999999999999999e19",
		"1e-27", "1.2345678901234567e-12", "2.2250738585072014e-308", "1.7976931348623157e308",
		"4.9406564584124654e-324", "0.1000000000000000055511151231257827",
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
		double mine, ref = strtod(hard[i], NULL);
		ck_assert_msg(proto_read_number(hard[i], strlen(hard[i]), &mine) == 0, "%s",
		              hard[i]);
		ck_assert_msg(memcmp(&mine, &ref, sizeof mine) == 0, "%s: %a, strtod %a", hard[i],
		              mine, ref);
	}
}
END_TEST

/* ---- http ---------------------------------------------------------------- */

static void teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(20));
	free(srv.log);
	srv.log = NULL;
}

/* POST /v1/batch.  The harness reads bodies of up to 64 KiB; this reads
 * any size: "Connection: close", everything to the end, then the head and
 * the Content-Length body are taken apart. */
static void post_batch(const char *body, size_t len, hresp *r)
{
	hconn *c = malloc(sizeof *c);
	ck_assert_int_eq(hconn_open(c, srv.port), 0);
	ck_assert_int_eq(hconn_request(c, "POST", "/v1/batch", JSON_HEADERS "Connection: close\r\n",
	                               body, len),
	                 0);
	textbuf all = {0};
	for (;;) {
		char chunk[65536];
		ssize_t n = recv(c->fd, chunk, sizeof chunk, 0);
		if (n < 0 && errno == EINTR)
			continue;
		ck_assert_msg(n >= 0, "reading the answer: %s", strerror(errno));
		if (n == 0)
			break;
		textbuf_add(&all, chunk, (size_t)n);
	}
	hconn_close(c);
	free(c);
	ck_assert_ptr_nonnull(all.s);
	memset(r, 0, sizeof *r);
	char *end = strstr(all.s, "\r\n\r\n");
	ck_assert_ptr_nonnull(end);
	size_t hlen = (size_t)(end - all.s) + 2;
	ck_assert_uint_lt(hlen, sizeof r->head);
	memcpy(r->head, all.s, hlen);
	r->head[hlen] = '\0';
	ck_assert_int_eq(sscanf(r->head, "HTTP/1.1 %d", &r->status), 1);
	char v[64];
	ck_assert_ptr_nonnull(hresp_header(r, "Content-Length", v, sizeof v));
	size_t want = strtoul(v, NULL, 10);
	ck_assert_uint_eq(all.len - (hlen + 2), want);
	r->body = malloc(want + 1);
	memcpy(r->body, end + 4, want);
	r->body[want] = '\0';
	r->body_len = want;
	free(all.s);
}

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

static double metric_now(const char *series)
{
	hresp r;
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	double v = metric(r.body, series);
	hresp_free(&r);
	return v;
}

START_TEST(test_http_equals_in_process)
{
	server_start();
	proto_init();
	enum {
		N = 4000
	};
	char **items = random_pairs(N, 2026);
	static const char *const sep[] = {"", "\n", " "};
	size_t *off = malloc(N * sizeof *off), len;
	char *body = batch_of((const char *const *)items, N, sep, 3, off, &len);
	proto_reply want;
	reply_of(body, len, &want, NULL);
	ck_assert_int_eq(want.status, 200);
	hresp r;
	post_batch(body, len, &r);
	ck_assert_int_eq(r.status, 200);
	char v[128];
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "application/json");
	ck_assert_int_eq(r.body_len, want.length);
	ck_assert(memcmp(r.body, want.body, want.length) == 0);
	hresp_free(&r);

	/* The iterations of every answered query are in the histogram, and
	 * the log line counts the queries. */
	json_t *doc = json_loads(want.body, 0, NULL);
	size_t answered = 0;
	for (size_t i = 0; i < N; i++) {
		json_t *it = json_object_get(json_array_get(json_object_get(doc, "results"), i),
		                             "iterations");
		answered += json_integer_value(it) > 0;
	}
	json_decref(doc);
	ck_assert(metric_now("clashd_query_iterations_count") == (double)answered);
	ck_assert(metric_now("clashd_http_requests_total{route=\"/v1/batch\",status=\"200\"}") ==
	          1);
	json_t *line = log_wait(&srv, "\"path\":\"/v1/batch\"", 5);
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(json_integer_value(json_object_get(line, "queries")), N);
	json_decref(line);

	/* A malformed body and a non-batch over HTTP. */
	post_batch("{\"queries\":[1,]}", 16, &r);
	json_decref(assert_problem(&r, 400));
	hresp_free(&r);
	post_batch("{\"queries\":1}", 13, &r);
	json_decref(assert_problem(&r, 422));
	hresp_free(&r);
	post_batch("{\"queries\":[]}", 14, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"results\":[]}");
	hresp_free(&r);
	assert_still_serving();

	proto_reply_free(&want);
	for (size_t i = 0; i < N; i++)
		free(items[i]);
	free(items);
	free(off);
	free(body);
}
END_TEST

START_TEST(test_http_max_batch)
{
	const char *items[4] = {mixed[0], mixed[0], mixed[0], mixed[0]};
	static const char *const sep[] = {""};
	size_t off[4], len;
	char *body = batch_of(items, 4, sep, 1, off, &len);
	/* From the environment, then the flag over it. */
	server_start_with(NULL, (const char *const[]){"CLASHD_MAX_BATCH=3", NULL});
	json_t *l = log_wait(&srv, "\"msg\":\"listening\"", 5);
	ck_assert_int_eq(json_integer_value(json_object_get(l, "max_batch")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(l, "max_batch_source")), "env");
	json_decref(l);
	hresp r;
	post_batch(body, len, &r);
	json_t *p = assert_problem(&r, 422);
	ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "/queries/3");
	json_decref(p);
	hresp_free(&r);
	ck_assert(metric_now("clashd_rejections_total{reason=\"too_many_queries\"}") == 1);
	teardown();

	server_start_with((const char *const[]){"--max-batch", "4", NULL},
	                  (const char *const[]){"CLASHD_MAX_BATCH=3", NULL});
	post_batch(body, len, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	teardown();

	/* The default, in the start-up line. */
	json_t *d = listening_line((const char *const[]){"--listen", "127.0.0.1:0", NULL}, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "max_batch")),
	                 PROTO_DEFAULT_MAX_QUERIES);
	ck_assert_str_eq(json_string_value(json_object_get(d, "max_batch_source")), "default");
	json_decref(d);
	char err[512];
	ck_assert_int_eq(run_clashd((const char *const[]){"--max-batch", "0", NULL}, NULL, err,
	                            sizeof err),
	                 2);
	ck_assert_ptr_nonnull(strstr(err, "--max-batch"));
	free(body);
}
END_TEST

START_TEST(test_http_admission)
{
	/* A batch holds one slot of --max-queue while it is received: with a
	 * limit of 1, a query arriving meanwhile is refused 503. */
	server_start_with((const char *const[]){"--threads", "1", "--max-queue", "1", NULL}, NULL);
	const char *items[3] = {mixed[0], mixed[1], mixed[0]};
	static const char *const sep[] = {""};
	size_t off[3], len;
	char *body = batch_of(items, 3, sep, 1, off, &len);
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c,
	                             "POST /v1/batch HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                             "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
	                             len),
	                 0);
	hresp r;
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 100);
	hresp_free(&r);
	ck_assert_int_eq(hconn_send(&c, body, len - 1), 0);
	char *q = cubes_query(0);
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	json_decref(assert_problem(&r, 503));
	hresp_free(&r);
	ck_assert(metric_now("clashd_queries_admitted") == 1);
	/* The batch completes; the slot is free again. */
	ck_assert_int_eq(hconn_send(&c, body + len - 1, 1), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	proto_init();
	proto_reply want;
	reply_of(body, len, &want, NULL);
	ck_assert_str_eq(r.body, want.body);
	proto_reply_free(&want);
	hresp_free(&r);
	hconn_close(&c);
	ck_assert(metric_now("clashd_queries_admitted") == 0);
	assert_still_serving();
	free(q);
	free(body);
}
END_TEST

/* Queries whose decoding is slow: the deadline test's batch.  36 queries of
 * 2 x 10 000 vertices, about 14 MB, made by slow_cubes_query so that they
 * take jansson's parse (the vertex shortcut reads them several times faster):
 * some 250 ms of CPU (about 55 MB/s), 125 ms on 2 workers, against a 40 ms
 * deadline noticed within the 25 ms sweep — a margin of about two even on
 * an idle machine, more on a busy one. */
#define SLOW_ITEMS 36
#define SLOW_VERTICES 10000

START_TEST(test_http_deadline)
{
	server_start_with((const char *const[]){"--request-timeout", "40ms", NULL}, NULL);
	char *big = slow_cubes_query(SLOW_VERTICES, 3);
	const char *items[SLOW_ITEMS];
	for (int i = 0; i < SLOW_ITEMS; i++)
		items[i] = big;
	static const char *const sep[] = {""};
	size_t off[SLOW_ITEMS], len;
	char *body = batch_of(items, SLOW_ITEMS, sep, 1, off, &len);
	ck_assert_uint_lt(len, MAX_BODY);
	hresp r;
	post_batch(body, len, &r);
	json_t *p = assert_problem(&r, 504);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(p, "detail")), "--request-timeout"));
	json_decref(p);
	hresp_free(&r);
	/* Stopped: no chunk left on the pool, the workers serve again. */
	double deadline = now_s() + 10;
	while (metric_now("clashd_workers_busy") != 0 || metric_now("clashd_queue_depth") != 0)
		ck_assert_msg(now_s() < deadline, "the workers stayed busy");
	ck_assert(metric_now("clashd_rejections_total{reason=\"deadline\"}") == 1);
	assert_still_serving();
	/* A small batch still goes through. */
	size_t off2[2];
	char *small = batch_of(mixed, 2, sep, 1, off2, &len);
	post_batch(small, len, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	free(small);
	free(body);
	free(big);
}
END_TEST

/* Run `clash query ARGS` on a file; its stdout, malloc'd. */
static char *clash_query(const char *const *args, const char *input, int *status)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/clash", check_build_dir());
	const char *argv[16] = {path, "query"};
	int k = 2;
	for (; args && *args && k < 14; args++)
		argv[k++] = *args;
	argv[k++] = input;
	argv[k] = NULL;
	spawn_opts o = {.argv = argv};
	char *text;
	int st = spawn_capture(&o, &text, NULL, NULL);
	ck_assert(st != -1 && text);
	*status = spawn_exit_code(st);
	return text;
}

START_TEST(test_cli_equals_http)
{
	server_start();
	proto_init();
	enum {
		N = 2500
	};
	char **items = random_pairs(N, 555);
	/* Lines: the queries, blank lines between some, CRLF on some. */
	char in[64] = "/tmp/clash-batch-in-XXXXXX";
	int fd = mkstemp(in);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	long long *line_no = malloc(N * sizeof *line_no), *line_at = malloc(N * sizeof *line_at);
	for (size_t i = 0; i < N; i++) {
		line_no[i] = i ? line_no[i - 1] + 1 + (i % 29 == 1 ? 2 : 0) : 1;
		line_at[i] = ftell(f);
		fprintf(f, "%s%s%s", items[i], i % 13 == 0 ? "\r\n" : "\n",
		        i % 29 == 0 ? "\n \n" : "");
	}
	fclose(f);
	int status;
	char *out = clash_query((const char *const[]){"--threads", "3", NULL}, in, &status);
	ck_assert_int_eq(status, 1); /* some items are problems */

	/* The same queries as one batch over HTTP. */
	static const char *const sep[] = {"", "\n"};
	size_t *off = malloc(N * sizeof *off), len;
	char *body = batch_of((const char *const *)items, N, sep, 2, off, &len);
	hresp r;
	post_batch(body, len, &r);
	ck_assert_int_eq(r.status, 200);

	/* Line i is the item of the HTTP reply: a Result byte for byte, a
	 * problem once placed in the batch body; the HTTP reply is exactly the
	 * lines joined so. */
	textbuf joined = {0};
	textbuf_str(&joined, "{\"results\":[");
	const char *line = out;
	for (size_t i = 0; i < N; i++) {
		const char *nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		char *text = strndup(line, (size_t)(nl - line));
		/* The line is what /v1/query answers (the same function), a
		 * problem placed in the input. */
		proto_reply alone;
		ck_assert_int_eq(alone_reply(items[i], strlen(items[i]), &alone), 0);
		if (alone.status == 200) {
			ck_assert_str_eq(text, alone.body);
		} else {
			char *in_input = problem_placed_in_input(alone.body, alone.length,
			                                         line_no[i], line_at[i]);
			ck_assert_str_eq(text, in_input);
			free(in_input);
		}
		proto_reply_free(&alone);
		char *placed = expected_item(items[i], body, off[i], i);
		if (strstr(text, "\"urn:clashd:problem:") == NULL)
			ck_assert_str_eq(placed, text);
		if (i)
			textbuf_str(&joined, ",");
		textbuf_str(&joined, placed);
		free(placed);
		free(text);
		line = nl + 1;
	}
	ck_assert_str_eq(line, "");
	textbuf_str(&joined, "]}");
	ck_assert_int_eq(r.body_len, joined.len);
	ck_assert(memcmp(r.body, joined.s, joined.len) == 0);
	/* A few of the lines over /v1/query itself, byte for byte (the
	 * results; the problems are placed in the input above). */
	line = out;
	for (size_t i = 0; i < 40; i++) {
		const char *nl = strchr(line, '\n');
		hresp q;
		http_do("POST", "/v1/query", JSON_HEADERS, items[i], strlen(items[i]), &q);
		if (q.status == 200) {
			ck_assert_int_eq(q.body_len, (size_t)(nl - line));
			ck_assert(memcmp(q.body, line, q.body_len) == 0);
		}
		hresp_free(&q);
		line = nl + 1;
	}
	/* One thread writes the same bytes. */
	char *one = clash_query((const char *const[]){"-j", "1", NULL}, in, &status);
	ck_assert_int_eq(status, 1);
	ck_assert_str_eq(one, out);
	free(one);
	/* A bad --threads value. */
	free(clash_query((const char *const[]){"--threads", "0", NULL}, in, &status));
	ck_assert_int_eq(status, 2);

	hresp_free(&r);
	free(joined.s);
	unlink(in);
	free(out);
	for (size_t i = 0; i < N; i++)
		free(items[i]);
	free(items);
	free(off);
	free(body);
	free(line_no);
	free(line_at);
}
END_TEST

static Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	ck_case(s, "items", 0, CK_TESTS(test_items_as_alone, test_located_items));
	ck_case(s, "body", 0, CK_TESTS(test_malformed_body, test_not_a_batch, test_limits));
	ck_case(s, "split", 60, CK_TESTS(test_split_random));
	ck_case(s, "threads", 60, CK_TESTS(test_threads_equal_sequential));
	ck_case(s, "shortcut", 60, CK_TESTS(test_vertex_shortcut, test_long_numbers));
	ck_case(s, "dump", 60, CK_TESTS(test_real_text, test_json_dump));
	TCase *tc =
		ck_case(s, "http", 90,
	                CK_TESTS(test_http_equals_in_process, test_http_max_batch,
	                         test_http_admission, test_http_deadline, test_cli_equals_http));
	tcase_add_checked_fixture(tc, NULL, teardown);
	return s;
}

CHECK_SUITE(batch_suite)
