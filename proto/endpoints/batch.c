/*
 * batch.c — POST /v1/batch and `clash query`'s lines: many Queries, each
 * answered exactly as POST /v1/query would answer it alone (proto.h,
 * "Batches").
 *
 * A batch is a list of items, each a Query's text (a span of the body, or
 * one input line of clash) and, once answered, its reply body.  Answering
 * an item is proto_query_answer() (answer.h), the very code of /v1/query;
 * for an item of a batch body its problem is then placed in the body: the
 * pointer gets "/queries/N" in front (an item problem without a pointer,
 * such as an internal error, is given "/queries/N" itself), and a parser's
 * line, column and position are counted from the start of the body.  The
 * body is split by a byte scan (batch_split.c), not parsed; a body the scan
 * does not find plain, or an item that is not JSON, is parsed whole to say
 * what is wrong (docs/design.md, "proto/endpoints/batch.c, batch_split.c, scene.c").
 *
 * Threads: proto_batch_answer() on disjoint ranges touches disjoint items
 * only; everything else runs on one thread.
 */
#include <assert.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "call.h"
#include "decode.h"
#include "endpoint.h"
#include "json_scan.h"
#include "batch_split.h"
#include "parse.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "request_limits.h"
#include "text_buf.h"

/* The text is JSON once its numbers out of the range of a double are read
 * as 0 (jansson stops at the first of them, so whatever follows is
 * unchecked): 1; 0 when it is not, with jansson's error in *e; -1 out of
 * memory.  Numbers are maximal runs of number characters outside strings;
 * a run strtod does not read whole is left alone for jansson to refuse. */
static int json_but_overflow(const char *text, size_t len, json_error_t *e)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		char c = text[i];
		if (c == '"') {
			size_t j = json_scan_string_end(text, len, i);
			j = j < len ? j + 1 : len;
			memcpy(copy + o, text + i, j - i);
			o += j - i;
			i = j;
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9')) {
			size_t j = json_scan_number_end(text, len, i);
			char *num = malloc(j - i + 1);
			if (!num) {
				free(copy);
				return -1;
			}
			memcpy(num, text + i, j - i);
			num[j - i] = '\0';
			char *end;
			errno = 0;
			double x = strtod(num, &end);
			int out_of_range = end == num + (j - i) && errno == ERANGE &&
			                   (x == HUGE_VAL || x == -HUGE_VAL);
			free(num);
			if (out_of_range) {
				copy[o++] = '0';
			} else {
				memcpy(copy + o, text + i, j - i);
				o += j - i;
			}
			i = j;
			continue;
		}
		copy[o++] = c;
		i++;
	}
	json_t *v =
		json_loadb(copy, o,
	                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, e);
	free(copy);
	int ok = v != NULL;
	json_decref(v);
	return ok;
}

/* An item refused for its nesting depth (a scan of the raw text, before
 * any parse) may not be JSON at all: then the body is malformed, as the
 * whole-body parse will say.  1 when it is JSON (or so deep that jansson's
 * own depth limit stops it first: it stays the item's depth problem), 0
 * when not, -1 out of memory. */
static int deep_but_json(const char *text, size_t len)
{
	json_error_t e;
	int ok = json_but_overflow(text, len, &e);
	if (ok == 0 && json_error_code(&e) == json_error_stack_overflow)
		ok = 1;
	return ok;
}

#define MALFORMED_AFTER_OVERFLOW 2

enum item_state {
	ITEM_PENDING = 0,
	ITEM_ANSWERED
};

typedef struct batch_item {
	const char *text; /* the Query */
	size_t len;
	char *body; /* its reply body, once answered */
	size_t length;
	int status;
	int iterations;
	unsigned char state;
	unsigned char malformed; /* its text is not JSON: the whole body is a 400
	                            (MALFORMED_AFTER_OVERFLOW: seen only past a
	                            number out of range, which stopped its parse) */
} batch_item;

struct proto_batch {
	const char *text; /* the batch body, or NULL for independent texts */
	size_t len;
	batch_span *spans; /* where each item is in the body (text != NULL) */
	batch_item *items;
	size_t n;
};

/* /queries, for the envelope's problems. */
static const proto_path queries_at = {NULL, "queries", 0};

static int too_many(proto_problem *p, size_t max, proto_call *call)
{
	proto_path at = {&queries_at, NULL, max};
	call->limit = PROTO_LIMIT_QUERIES;
	return proto_fail(p, &at,
	                  "a batch may hold at most %zu queries: this is one more (split "
	                  "the batch)",
	                  max);
}

/* Why the whole body is not a batch, from a parse of all of it.  Returns 1
 * with the problem; 0 when it is a valid batch after all (the splitter
 * refused a body it should have taken: a bug); -1 out of memory. */
static int body_problem(const char *text, size_t len, proto_call *call, proto_problem *p)
{
	const proto_request_limits *l = &proto_context_of(call)->limits;
	size_t max_queries = proto_context_of(call)->max_queries;
	if (proto_is_blank(text, len))
		return proto_blank_problem(text, len,
		                           "empty body: expected a batch, a JSON object "
		                           "{\"queries\": [query, ...]}",
		                           p);
	int r = proto_limits_depth(text, len, l->max_depth ? l->max_depth + 2 : 0, p);
	if (r) {
		if (r == 1)
			call->limit = PROTO_LIMIT_DEPTH;
		return r;
	}
	json_t *root;
	if ((r = proto_parse_text(text, len, &root, p)) != 0)
		return r;
	static const char *const members[] = {"queries", NULL};
	const json_t *queries = json_object_get(root, "queries");
	if (!json_is_object(root))
		r = proto_fail(p, NULL,
		               "a batch must be a JSON object {\"queries\": [query, ...]}, "
		               "got %s",
		               proto_kind_of(root));
	else
		r = proto_known_members(root, NULL, members, "a batch has queries only", p);
	if (r == 0 && !queries)
		r = proto_fail(p, NULL,
		               "queries is required: a batch is {\"queries\": [query, ...]}");
	else if (r == 0 && !json_is_array(queries))
		r = proto_fail(p, &queries_at, "queries must be an array of queries, got %s",
		               proto_kind_of(queries));
	else if (r == 0 && max_queries && json_array_size(queries) > max_queries)
		r = too_many(p, max_queries, call);
	json_decref(root);
	return r;
}

static proto_batch *batch_new(size_t n)
{
	proto_batch *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->n = n;
	if (n && !(b->items = calloc(n, sizeof *b->items))) {
		free(b);
		return NULL;
	}
	return b;
}

/* A batch body split into its items (*rq->self, a proto_batch **), or the
 * problem of a body that is not a batch. */
static int open_batch(proto_request *rq, proto_reply *out, proto_problem *p)
{
	(void)out;
	proto_batch **batch = rq->self;
	batch_span *spans = NULL;
	size_t n = 0, max_queries = rq->ctx->max_queries;
	int r;
	switch (proto_batch_split(rq->body, rq->len, max_queries, &spans, &n)) {
	case BATCH_SPLIT_OK: break;
	case BATCH_SPLIT_TOO_MANY: return too_many(p, max_queries, rq->call);
	case BATCH_SPLIT_OTHER:
		r = body_problem(rq->body, rq->len, rq->call, p);
		if (r == 0) /* a bug of the splitter: say so rather than guess */
			proto_problem_set(p, 500, NULL,
			                  "the batch could not be split into its queries");
		return r < 0 ? -1 : 1;
	case BATCH_SPLIT_NOMEM: return -1;
	}
	proto_batch *b = batch_new(n);
	if (!b) {
		free(spans);
		return -1;
	}
	b->text = rq->body;
	b->len = rq->len;
	b->spans = spans;
	for (size_t i = 0; i < n; i++) {
		b->items[i].text = rq->body + spans[i].start;
		b->items[i].len = spans[i].len;
	}
	*batch = b;
	return 0;
}

/* The body is split, not parsed (batch_split.c); its blanks are the
 * splitter's to refuse, with the batch's words. */
static const proto_endpoint batch_endpoint = {NULL, PROTO_PARSE_NONE, 0, open_batch, NULL};

int proto_batch_open(const char *body, size_t len, proto_call *call, proto_batch **batch,
                     proto_reply *out)
{
	*batch = NULL;
	return proto_endpoint_reply(&batch_endpoint, body, len, call, batch, out);
}

proto_batch *proto_batch_of_texts(const char *const *texts, const size_t *lens, size_t n)
{
	proto_batch *b = batch_new(n);
	for (size_t i = 0; b && i < n; i++) {
		b->items[i].text = texts[i];
		b->items[i].len = lens[i];
	}
	return b;
}

size_t proto_batch_size(const proto_batch *b)
{
	return b->n;
}

/* Place item i's problem in the batch body.  0, or -1 out of memory. */
static int place(const proto_batch *b, size_t i, proto_problem *p)
{
	const batch_span *at = &b->spans[i];
	char prefix[48];
	int k = snprintf(prefix, sizeof prefix, "/queries/%zu", i);
	assert(k > 0 && (size_t)k < sizeof prefix);
	if (proto_problem_prefix(p, prefix, (size_t)k) != 0)
		return -1;
	if (p->located) {
		if (p->line == 1)
			p->column += (int)at->column;
		p->line += (int)at->line - 1;
		p->position += at->start;
	}
	return 0;
}

/* Answer item i; with call->max_cost, within *left of it (what the items
 * answered before in this call have not spent). */
static int answer_one(proto_batch *b, size_t i, proto_call *call, double *left)
{
	batch_item *it = &b->items[i];
	proto_call c = {.ctx = call->ctx, .cancel = call->cancel, .max_cost = *left};
	proto_problem p = {0};
	proto_reply out;
	int r = proto_query_answer(it->text, it->len, &c, &out, &p);
	*left -= c.cost;
	if (r == 0 && c.deferred) {
		call->deferred =
			c.cost > call->max_cost ? PROTO_DEFERRED_HEAVY : PROTO_DEFERRED_SPENT;
		return 0; /* left pending */
	}
	if (r == 1 && c.cancelled) {
		proto_problem_release(&p);
		call->cancelled = 1;
		return 0; /* left pending */
	}
	if (r == 1) {
		if (b->text) {
			/* A 400 is a parse error (the text is not JSON) or the depth
			 * limit (it is, nested too deep).  A number out of range stops
			 * the parse: is the rest JSON? */
			it->malformed = p.status == 400 && c.limit != PROTO_LIMIT_DEPTH;
			if (p.status == 400 && c.limit == PROTO_LIMIT_DEPTH) {
				int ok = deep_but_json(it->text, it->len);
				if (ok < 0)
					r = -1;
				it->malformed = ok == 0;
			} else if (p.overflow) {
				json_error_t e;
				int ok = json_but_overflow(it->text, it->len, &e);
				if (ok < 0)
					r = -1;
				else if (!ok)
					it->malformed = MALFORMED_AFTER_OVERFLOW;
			}
			if (r == 1 && place(b, i, &p) != 0)
				r = -1;
		}
		if (r == 1)
			r = proto_problem_encode(&p, &out);
		proto_problem_release(&p);
	}
	if (r != 0)
		return -1;
	it->body = out.body;
	it->length = out.length;
	it->status = out.status;
	it->iterations = c.iterations;
	it->state = ITEM_ANSWERED;
	if (c.iterations > 0)
		call->iterations = (call->iterations > 0 ? call->iterations : 0) + c.iterations;
	return 0;
}

int proto_batch_answer(proto_batch *b, size_t from, size_t to, proto_call *call)
{
	proto_call none;
	call = proto_call_begin(call, &none, NULL);
	assert(from <= to && to <= b->n);
	double left = call->max_cost;
	for (size_t i = from; i < to; i++) {
		if (b->items[i].state == ITEM_ANSWERED)
			continue;
		if (proto_cancel_requested(call->cancel)) {
			call->cancelled = 1;
			break;
		}
		if (call->max_cost > 0 && left <= 0) {
			call->deferred = PROTO_DEFERRED_SPENT;
			break;
		}
		if (answer_one(b, i, call, &left) != 0)
			return -1;
		if (call->cancelled || call->deferred)
			break;
	}
	return 0;
}

const char *proto_batch_item(const proto_batch *b, size_t i, size_t *len, int *status,
                             int *iterations)
{
	assert(i < b->n);
	const batch_item *it = &b->items[i];
	if (len)
		*len = it->length;
	if (status)
		*status = it->status;
	if (iterations)
		*iterations = it->iterations;
	return it->state == ITEM_ANSWERED ? it->body : NULL;
}

/* A copy of an item's reply as the whole reply. */
static int item_as_reply(const batch_item *it, proto_reply *out)
{
	char *body = malloc(it->length + 1);
	if (!body)
		return -1;
	memcpy(body, it->body, it->length + 1);
	*out = (proto_reply){it->status, PROTO_PROBLEM_JSON, body, it->length};
	return 0;
}

int proto_batch_reply(proto_batch *b, proto_call *call, proto_reply *out)
{
	memset(out, 0, sizeof *out);
	size_t total = 0, malformed = b->n;
	int pending = 0;
	for (size_t i = 0; i < b->n; i++) {
		const batch_item *it = &b->items[i];
		if (it->state != ITEM_ANSWERED)
			pending = 1;
		else if (it->malformed && malformed == b->n)
			malformed = i;
		total += it->length + 1;
	}
	if (pending && malformed == b->n) {
		if (call)
			call->cancelled = 1;
		return proto_problem_reply(503, "the batch was stopped before it finished", NULL,
		                           out);
	}
	if (malformed < b->n) {
		/* Not JSON: the parse of the whole body says where, as it would
		 * for /v1/query.  Should that parse stop first at a number out of
		 * range (an earlier item's 422), the item's own error stands. */
		proto_problem p = {0};
		proto_call c = {0};
		int r = body_problem(b->text, b->len, &c, &p);
		const batch_item *it = &b->items[malformed];
		if (r == 1 && p.status == 400) {
			r = proto_problem_encode(&p, out);
		} else if (r >= 0 && it->malformed == MALFORMED_AFTER_OVERFLOW) {
			/* jansson stops at the number: say what is wrong after it. */
			json_error_t e;
			char pointer[48];
			snprintf(pointer, sizeof pointer, "/queries/%zu", malformed);
			r = json_but_overflow(it->text, it->len, &e);
			if (r >= 0) {
				char *at = strdup(pointer);
				proto_problem_set(&p, 400, at,
				                  "query %zu is not JSON: %s (past a number "
				                  "out of the range of a double)",
				                  malformed, e.text);
				r = at ? proto_problem_encode(&p, out) : -1;
			}
		} else if (r >= 0) {
			r = item_as_reply(it, out);
		}
		proto_problem_release(&p);
		return r;
	}
	size_t len = sizeof "{\"results\":[]}" - 1 + total;
	size_t max_reply = proto_context_of(call)->limits.max_reply;
	size_t exact = len - (b->n ? 1 : 0); /* total counted a comma per item */
	if (max_reply && exact > max_reply) {
		char detail[256];
		snprintf(detail, sizeof detail,
		         "the %zu answers take %zu bytes, more than this "
		         "server's largest reply (%zu bytes, --max-reply): split the batch",
		         b->n, exact, max_reply);
		return proto_problem_reply(422, detail, "/queries", out);
	}
	proto_text t = {0};
	if (proto_text_reserve(&t, len) != 0)
		return -1;
	PROTO_TEXT_LIT(&t, "{\"results\":[");
	for (size_t i = 0; i < b->n; i++) {
		if (i)
			proto_text_putc(&t, ',');
		proto_text_put(&t, b->items[i].body, b->items[i].length);
	}
	PROTO_TEXT_LIT(&t, "]}");
	char *body = proto_text_finish(&t, &len);
	if (!body)
		return -1;
	*out = (proto_reply){200, PROTO_JSON, body, len};
	return 0;
}

void proto_batch_free(proto_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->items[i].body);
	free(b->items);
	free(b->spans);
	free(b);
}

/* The queries a stop left unanswered that are not JSON at all get their
 * 400 (a parse, no run), so that the reply of a stopped batch whose body
 * is malformed is still the body's 400.  0, or -1 out of memory. */
static int answer_malformed(proto_batch *b, const proto_context *ctx)
{
	for (size_t i = 0; i < b->n; i++) {
		batch_item *it = &b->items[i];
		if (it->state == ITEM_ANSWERED)
			continue;
		json_t *root = NULL;
		proto_problem p = {0};
		enum proto_limit which;
		int r = proto_parse_ex(it->text, it->len, &ctx->limits, &root, &p, &which);
		json_decref(root);
		int bad = r == 1 && p.status == 400 && which != PROTO_LIMIT_DEPTH;
		if (r == 1 && p.status == 400 && which == PROTO_LIMIT_DEPTH) {
			int ok = deep_but_json(it->text, it->len);
			if (ok < 0)
				r = -1;
			bad = ok == 0;
		} else if (r == 1 && p.overflow) {
			json_error_t e;
			int ok = json_but_overflow(it->text, it->len, &e);
			if (ok < 0)
				r = -1;
			bad = ok == 0;
		}
		proto_problem_release(&p);
		if (r < 0)
			return -1;
		proto_call none = {0};
		double unbounded = 0;
		if (bad && answer_one(b, i, &none, &unbounded) != 0)
			return -1;
	}
	return 0;
}

int proto_batch_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out)
{
	proto_call none = {0};
	if (!call)
		call = &none;
	proto_batch *b;
	int r = proto_batch_open(body, len, call, &b, out);
	if (r != 0 || !b)
		return r;
	if (proto_cancel_requested(call->cancel))
		call->cancelled = 1; /* as for one query: stopped once it opens, even empty */
	else
		r = proto_batch_answer(b, 0, b->n, call);
	int iterations = call->iterations;
	/* A stopped batch whose body is not JSON is still the body's 400. */
	if (r == 0 && call->cancelled)
		r = answer_malformed(b, proto_context_of(call));
	if (r == 0)
		r = proto_batch_reply(b, call, out);
	if (r == 0 && call->cancelled && out->status == 200) {
		proto_reply_free(out);
		r = proto_problem_reply(503, "the batch was stopped before it finished", NULL, out);
	}
	if (r == 0 && out->status != 503)
		call->cancelled = 0;
	call->iterations = iterations;
	proto_batch_free(b);
	return r;
}
