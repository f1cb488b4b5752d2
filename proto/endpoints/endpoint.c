/*
 * endpoint.c — the endpoint skeleton (see endpoint.h): open, parse,
 * answer, close.  The parse modes are the request parsers of parse.h and
 * vertex_scan.h; a blank body is refused first, with the endpoint's words.
 */
#include "endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "clash.h"
#include "decode.h"
#include "parse.h"
#include "request_limits.h"
#include "vertex_scan.h"

static int parse(const proto_endpoint *e, proto_request *rq, proto_problem *p)
{
	const proto_request_limits *l = &rq->ctx->limits;
	proto_call *call = rq->call;
	int r;
	switch (e->parse) {
	case PROTO_PARSE_QUERY:
		return proto_parse_query_text(rq->body, rq->len, rq->ctx, &rq->root, p,
		                              &call->limit, &rq->vt);
	case PROTO_PARSE_LIMITS:
		return proto_parse_ex(rq->body, rq->len, l, &rq->root, p, &call->limit);
	case PROTO_PARSE_DEPTH:
		r = proto_limits_depth(rq->body, rq->len, l->max_depth, p);
		if (r == 1)
			call->limit = PROTO_LIMIT_DEPTH;
		return r ? r : proto_parse_text(rq->body, rq->len, &rq->root, p);
	case PROTO_PARSE_NONE: break;
	}
	return 0;
}

int proto_endpoint_answer(const proto_endpoint *e, const char *body, size_t len, proto_call *call,
                          void *self, proto_reply *out, proto_problem *p_out)
{
	proto_call none;
	call = proto_call_begin(call, &none, out);
	proto_request rq = {body, len, call, proto_context_of(call), self, NULL, NULL};
	proto_problem p = {0};
	int r = 0;
	if (e->needs_store && !rq.ctx->store) {
		proto_problem_set(&p, 503, NULL, "this server keeps no shape store");
		r = 1;
	} else if (e->parse != PROTO_PARSE_NONE && proto_is_blank(body, len)) {
		char detail[128];
		snprintf(detail, sizeof detail, "empty body: expected %s", e->expected);
		r = proto_blank_problem(body, len, detail, &p);
	}
	if (r == 0)
		r = parse(e, &rq, &p);
	if (r == 0 && call->max_cost > 0 && e->cost)
		call->cost = e->cost(&rq);
	if (r == 0 && call->cost > call->max_cost)
		call->deferred = PROTO_DEFERRED_HEAVY; /* called again when it may run long */
	else if (r == 0)
		r = e->answer(&rq, out, &p);
	proto_request_drop(&rq);
	if (r == 1)
		*p_out = p; /* taken over: the caller encodes and releases it */
	else
		proto_problem_release(&p);
	return r;
}

int proto_endpoint_reply(const proto_endpoint *e, const char *body, size_t len, proto_call *call,
                         void *self, proto_reply *out)
{
	proto_problem p = {0};
	int r = proto_endpoint_answer(e, body, len, call, self, out, &p);
	if (r == 1)
		r = proto_problem_encode(&p, out);
	proto_problem_release(&p);
	return r;
}

void proto_request_drop(proto_request *rq)
{
	proto_vertex_table_free(rq->vt);
	rq->vt = NULL;
	json_decref(rq->root);
	rq->root = NULL;
}

int proto_request_stopped(proto_request *rq, const char *what, proto_problem *p)
{
	if (!proto_cancel_requested(rq->call->cancel))
		return 0;
	return proto_core_problem(CLASH_ECANCELED, rq, what, p);
}

int proto_core_problem(int err, proto_request *rq, const char *what, proto_problem *p)
{
	switch (err) {
	case CLASH_ENOMEM: return -1;
	case CLASH_ECANCELED:
		rq->call->cancelled = 1;
		proto_problem_set(p, 503, NULL, "the %s was stopped before it finished", what);
		return 1;
	case CLASH_ERANGE:
		proto_problem_set(p, 422, strdup(""),
		                  "the answer is out of the range of a double: "
		                  "coordinates, radii or poses are too large");
		return p->pointer ? 1 : -1;
	default:
		proto_problem_set(p, 500, NULL, "the collision core failed: %s",
		                  clash_strerror(err));
		return 1;
	}
}

int proto_reply_json(proto_reply *out, int status, char *body, size_t len)
{
	if (!body)
		return -1;
	*out = (proto_reply){status, PROTO_JSON, body, len};
	return 0;
}
