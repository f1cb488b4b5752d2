/*
 * check_cost.c — suite "cost": requests judged heavy by what they will
 * cost once parsed (proto/endpoints/request_cost.h, proto_call.max_cost), as clashd
 * bounds the requests that may not hold its last worker.
 *
 * A request over the bound comes back unanswered (deferred, empty reply)
 * and, asked again without it, gets exactly the answer of a call that had
 * none; a request under it is answered at once.  Heavy is what a request
 * names, not how it is spelled: stored shapes by their size in the store,
 * member names written with escapes as plainly.  A batch stops at its
 * first heavy item, or once its items have cost the bound in all, and
 * finishes, answered again, as if never stopped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proto.h"
#include "store.h"
#include "textbuf.h"

/* clashd's bound (server/http_admit.c, HTTP_HEAVY_COST). */
#define BOUND 25000.0

typedef int (*reply_fn)(const char *body, size_t len, proto_call *call, proto_reply *out);

static proto_store *store;
static proto_context ctx;

static void setup(void)
{
	store = proto_store_new((size_t)64 << 20, 0);
	ck_assert_ptr_nonnull(store);
	ctx = (proto_context){.limits = PROTO_DEFAULT_LIMITS, .store = store};
}

static void teardown(void)
{
	proto_store_free(store);
}

/* Store `shape`: its id. */
static void put(const char *shape, char id[80])
{
	proto_call call = {.ctx = &ctx};
	proto_reply out;
	ck_assert_int_eq(proto_shape_put_reply(shape, strlen(shape), &call, &out), 0);
	ck_assert_msg(out.status == 201 || out.status == 200, "%s", out.body);
	const char *at = strstr(out.body, "\"id\":\"");
	ck_assert_ptr_nonnull(at);
	snprintf(id, 80, "%.71s", at + 6);
	proto_reply_free(&out);
}

/* n points on a sphere, as a "vertices" array. */
static void sphere(textbuf *t, size_t n)
{
	char p[96];
	textbuf_str(t, "[");
	for (size_t i = 0; i < n; i++) {
		double z = 1 - 2 * ((double)i + 0.5) / (double)n, r = sqrt(1 - z * z);
		double a = 2.399963229728653 * (double)i;
		snprintf(p, sizeof p, "%s[%.6f,%.6f,%.6f]", i ? "," : "", r * cos(a), r * sin(a),
		         z);
		textbuf_str(t, p);
	}
	textbuf_str(t, "]");
}

static void put_sphere(size_t n, char id[80])
{
	textbuf t = {0};
	textbuf_str(&t, "{\"vertices\":");
	sphere(&t, n);
	textbuf_str(&t, "}");
	put(t.s, id);
	free(t.s);
}

/* Answer `body` under the bound: 1 when it was deferred (its reply then
 * empty), 0 when answered (its reply in *out). */
static int bounded(reply_fn fn, const char *body, proto_reply *out)
{
	proto_call call = {.ctx = &ctx, .max_cost = BOUND};
	ck_assert_int_eq(fn(body, strlen(body), &call, out), 0);
	if (call.deferred) {
		ck_assert_ptr_null(out->body);
		ck_assert_int_eq(out->status, 0);
	} else {
		ck_assert_ptr_nonnull(out->body);
	}
	return call.deferred;
}

static void unbounded(reply_fn fn, const char *body, proto_reply *out)
{
	proto_call call = {.ctx = &ctx};
	ck_assert_int_eq(fn(body, strlen(body), &call, out), 0);
	ck_assert_int_eq(call.deferred, 0);
	ck_assert_ptr_nonnull(out->body);
}

/* `body` is deferred under the bound, and its answer without the bound
 * is the same as `other`'s (another spelling of it, or itself). */
static void heavy_same_as(reply_fn fn, const char *body, const char *other)
{
	proto_reply a, b;
	ck_assert_msg(bounded(fn, body, &a) == 1, "not deferred: %.300s", body);
	unbounded(fn, body, &a);
	unbounded(fn, other, &b);
	ck_assert_int_eq(a.status, b.status);
	ck_assert_str_eq(a.body, b.body);
	proto_reply_free(&a);
	proto_reply_free(&b);
}

static void light(reply_fn fn, const char *body, int status)
{
	proto_reply out;
	ck_assert_msg(bounded(fn, body, &out) == 0, "deferred: %.300s", body);
	ck_assert_int_eq(out.status, status);
	proto_reply_free(&out);
}

/* n cylinders 1e-3 apart along x in a scene, member names spelled plainly
 * or with escapes. */
static char *cylinders(size_t n, int escaped)
{
	textbuf t = {0};
	char obj[400];
	textbuf_str(&t, escaped ? "{\"\\u006fbjects\":[" : "{\"objects\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(
			obj, sizeof obj,
			escaped ? "%s{\"\\u0069d\":\"c%zu\",\"\\u0073hape\":{\"\\u0063ylinder\":"
				  "{\"radius\":1,\"half_height\":2},\"pose\":{\"translation\":[%g,0,0]}}}"
				: "%s{\"id\":\"c%zu\",\"shape\":{\"cylinder\":"
				  "{\"radius\":1,\"half_height\":2},\"pose\":{\"translation\":[%g,0,0]}}}",
			i ? "," : "", i, 1e-3 * (double)i);
		textbuf_str(&t, obj);
	}
	textbuf_str(&t, "]}");
	return t.s;
}

START_TEST(test_heavy_by_what_it_names)
{
	char part[80], small[80];
	put_sphere(3000, part);
	put("{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}", small);
	char body[512], other[512];

	/* A few hundred bytes naming a stored part: heavy by its 3000 points
	 * (a containment tests each against the other 3000). */
	snprintf(body, sizeof body, "{\"inner\":{\"ref\":\"%s\"},\"outer\":{\"ref\":\"%s\"}}", part,
	         part);
	heavy_same_as(proto_contains_reply_ex, body, body);
	/* The same request naming a stored tetrahedron is light. */
	snprintf(body, sizeof body, "{\"inner\":{\"ref\":\"%s\"},\"outer\":{\"ref\":\"%s\"}}",
	         small, small);
	light(proto_contains_reply_ex, body, 200);
	/* Two refs to it in a query (a depth search over both hulls). */
	snprintf(body, sizeof body, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\"}}", part, part);
	heavy_same_as(proto_query_reply_ex, body, body);
	/* Escaped member names are the names jansson reads. */
	snprintf(other, sizeof other,
	         "{\"\\u0061\":{\"\\u0072ef\":\"%s\"},\"b\":{\"r\\u0065f\":\"%s\"}}", part, part);
	heavy_same_as(proto_query_reply_ex, other, body);
	/* A ref the store lacks costs nothing: its 422 at once. */
	light(proto_query_reply_ex,
	      "{\"a\":{\"ref\":\"sha256:1111111111111111111111111111111111111111111111111111111111111111\"},"
	      "\"b\":{\"vertices\":[[0,0,0]]}}",
	      422);

	/* Small queries stay light, a pair of cylinders included. */
	light(proto_query_reply_ex,
	      "{\"a\":{\"box\":{\"half_extents\":[1,1,1]}},\"b\":{\"vertices\":[[3,0,0],[4,0,0]]}}",
	      200);
	light(proto_query_reply_ex,
	      "{\"a\":{\"cylinder\":{\"radius\":1,\"half_height\":2}},"
	      "\"b\":{\"cylinder\":{\"radius\":1,\"half_height\":2},\"pose\":{\"translation\":[1,0,0]}}}",
	      200);
	/* ... but not one asking for EPA's largest cap on them. */
	snprintf(body, sizeof body,
	         "{\"a\":{\"\\u0063ylinder\":{\"radius\":1,\"half_height\":2}},"
	         "\"b\":{\"cylinder\":{\"radius\":1,\"half_height\":2},\"pose\":"
	         "{\"translation\":[1e-7,0,0]}},\"max_iterations\":4096}");
	snprintf(other, sizeof other,
	         "{\"a\":{\"cylinder\":{\"radius\":1,\"half_height\":2}},"
	         "\"b\":{\"cylinder\":{\"radius\":1,\"half_height\":2},\"pose\":"
	         "{\"translation\":[1e-7,0,0]}},\"max_iterations\":4096}");
	heavy_same_as(proto_query_reply_ex, body, other);

	/* A scene of four cylinders (six pairs with a curved side), however
	 * its names are spelled; two are light. */
	char *esc = cylinders(4, 1), *plain = cylinders(4, 0), *two = cylinders(2, 1);
	heavy_same_as(proto_scene_reply_ex, esc, plain);
	light(proto_scene_reply_ex, two, 200);
	free(esc);
	free(plain);
	free(two);
}
END_TEST

/* The reply of batch b, every item answered, is the one of its body
 * (`t`) answered whole with no bound; b and t are freed. */
static void same_as_whole(proto_batch *b, textbuf *t)
{
	proto_call call = {.ctx = &ctx};
	proto_reply out, whole;
	ck_assert_int_eq(proto_batch_reply(b, &call, &out), 0);
	proto_batch_free(b);
	ck_assert_int_eq(proto_batch_reply_ex(t->s, t->len, &call, &whole), 0);
	ck_assert_int_eq(out.status, 200);
	ck_assert_int_eq(whole.status, 200);
	ck_assert_str_eq(out.body, whole.body);
	proto_reply_free(&out);
	proto_reply_free(&whole);
	free(t->s);
}

/* A batch under the bound answers up to its first heavy item; answered
 * again without it, the rest: the reply is the one of a batch answered in
 * one go. */
START_TEST(test_batch_heavy_items_wait)
{
	char part[80];
	put_sphere(3000, part);
	char heavy[300];
	snprintf(heavy, sizeof heavy, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\"}}", part,
	         part);
	const char *box =
		"{\"a\":{\"box\":{\"half_extents\":[1,1,1]}},\"b\":{\"vertices\":[[3,0,0]]}}";
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	textbuf_str(&t, box);
	textbuf_str(&t, ",");
	textbuf_str(&t, heavy);
	textbuf_str(&t, ",");
	textbuf_str(&t, box);
	textbuf_str(&t, "]}");

	proto_call call = {.ctx = &ctx};
	proto_reply out;
	proto_batch *b;
	ck_assert_int_eq(proto_batch_open(t.s, t.len, &call, &b, &out), 0);
	ck_assert_ptr_nonnull(b);
	call.max_cost = BOUND;
	ck_assert_int_eq(proto_batch_answer(b, 0, 3, &call), 0);
	ck_assert_int_eq(call.deferred, PROTO_DEFERRED_HEAVY);
	ck_assert_int_eq(call.cancelled, 0);
	ck_assert_ptr_nonnull(proto_batch_item(b, 0, NULL, NULL, NULL));
	ck_assert_ptr_null(proto_batch_item(b, 1, NULL, NULL, NULL));
	ck_assert_ptr_null(proto_batch_item(b, 2, NULL, NULL, NULL));
	call.max_cost = 0;
	ck_assert_int_eq(proto_batch_answer(b, 0, 3, &call), 0);
	ck_assert_int_eq(call.deferred, 0);
	same_as_whole(b, &t);
}
END_TEST

/* Items each light but together over the bound: every bounded call
 * answers one and stops (its bound spent), and the reply once all are
 * answered is the one of the batch answered in one go. */
START_TEST(test_batch_spends_its_bound)
{
	/* Two pairs with a curved side at the default cap: 20 000 each. */
	const char *item = "{\"a\":{\"parts\":[{\"cylinder\":{\"radius\":1,\"half_height\":2}},"
			   "{\"cone\":{\"radius\":1,\"half_height\":2}}]},"
			   "\"b\":{\"sphere\":{\"radius\":1},\"pose\":{\"translation\":[5,0,0]}}}";
	proto_reply out;
	ck_assert_int_eq(bounded(proto_query_reply_ex, item, &out), 0);
	proto_reply_free(&out);
	enum {
		N = 5
	};
	textbuf t = {0};
	textbuf_str(&t, "{\"queries\":[");
	for (int i = 0; i < N; i++) {
		textbuf_str(&t, i ? "," : "");
		textbuf_str(&t, item);
	}
	textbuf_str(&t, "]}");

	proto_call call = {.ctx = &ctx};
	proto_batch *b;
	ck_assert_int_eq(proto_batch_open(t.s, t.len, &call, &b, &out), 0);
	ck_assert_ptr_nonnull(b);
	for (int k = 1; k <= N; k++) {
		call.max_cost = BOUND;
		ck_assert_int_eq(proto_batch_answer(b, 0, N, &call), 0);
		ck_assert_int_eq(call.deferred, k < N ? PROTO_DEFERRED_SPENT : PROTO_DEFERRED_NONE);
		for (int i = 0; i < N; i++)
			ck_assert_int_eq(proto_batch_item(b, (size_t)i, NULL, NULL, NULL) != NULL,
			                 i < k);
	}
	same_as_whole(b, &t);
}
END_TEST

static Suite *cost_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = ck_case(s, "cost", 60,
	                    CK_TESTS(test_heavy_by_what_it_names, test_batch_heavy_items_wait,
	                             test_batch_spends_its_bound));
	tcase_add_checked_fixture(tc, setup, teardown);
	return s;
}

CHECK_SUITE(cost_suite)
