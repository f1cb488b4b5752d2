/*
 * reply.c — one Query in, one reply out: parse, decode, run, encode
 * (proto.h's proto_query_reply and its kin).
 *
 * Parsing is strict JSON (RFC 8259) with jansson: duplicate member names and
 * anything after the top-level value are errors, any value may be the top
 * level (so "42" is valid JSON, but not a query: 422), and integers are read
 * as reals.  Failures to parse are 400 problems carrying where the parser
 * stopped (line, column, byte position) and the JSON Pointer of the value it
 * was in (proto_pointer_at), with one exception: a number outside the range
 * of a double is valid JSON that jansson cannot hold, so it is answered as
 * the decoder would have, 422 naming that number.  A Query's plain vertex
 * arrays (most of its bytes) are read without jansson (vertex_scan.c), with
 * exactly the same answers, several times faster.
 *
 * Nothing here is shared between calls: every reply is built from the
 * request alone, so any number of threads may call proto_query_reply().
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "call.h"
#include "decode.h"
#include "endpoint.h"
#include "request_cost.h"
#include "parse.h"
#include "request_limits.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "mesh_report.h"
#include "query.h"
#include "result.h"
#include "vertex_scan.h"

int proto_init(void)
{
	/* A seed from the OS (/dev/urandom or the time): hash flooding of
	 * objects with colliding member names stays impractical. */
	json_object_seed(0);
	return 0;
}

void proto_reply_free(proto_reply *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

/* The problem for a core error while answering (not while posing shapes:
 * the decoder maps those to the value that caused them). */
static int run_problem(int err, proto_request *rq, proto_problem *p)
{
	switch (err) {
	case CLASH_EWARM:
		proto_problem_set(p, 422, strdup("/warm"), "warm: %s", clash_strerror(err));
		break;
	case CLASH_ENOTSUP: /* e.g. a compound shape given to a method for convex ones, or
	                     * "simplex" on rounded shapes it cannot decide */
		proto_problem_set(p, 422, strdup("/method"),
		                  "this method does not answer this "
		                  "query: %s (methods \"simplex\" and "
		                  "\"ipm\" take no curved primitive: sphere, "
		                  "capsule, cylinder, cone or ellipsoid; "
		                  "method \"simplex\": rounded "
		                  "shapes whose hull distance is too close to "
		                  "the sum of their radii for its bounds; "
		                  "method \"gjk\" answers)",
		                  clash_strerror(err));
		break;
	default: return proto_core_problem(err, rq, "query", p);
	}
	return p->pointer ? 1 : -1;
}

/* A Query's tree decoded, run and encoded. */
static int answer(proto_request *rq, proto_reply *out, proto_problem *p)
{
	proto_call *call = rq->call;
	proto_query q;
	int r = proto_query_decode(rq->root, rq->vt, rq->ctx, &q, p);
	proto_request_drop(rq); /* the query holds copies of everything it needs */
	if (r)
		return r;
	q.opt.cancel = call->cancel;
	if (q.moving && strcmp(q.method->name, "gjk") != 0) {
		proto_problem_set(p, 422, strdup("/method"),
		                  "a query with pose_end (a motion) is "
		                  "answered by method \"gjk\" only");
		proto_query_release(&q);
		return p->pointer ? 1 : -1;
	}
	/* Parsing a large body is the slow part: a request whose deadline
	 * passed meanwhile is not worth running. */
	int err = CLASH_ECANCELED;
	clash_result res;
	clash_toi_result toi;
	proto_mesh_report rep = {0};
	if (!proto_cancel_requested(call->cancel)) {
		err = proto_mesh_report_run(&q, &proto_context_of(call)->overlap, &res, &rep);
		/* A motion ("pose_end"): also the time of impact (clash_toi). */
		if (!err && q.moving)
			err = clash_toi(&q.a, &q.motion[0], &q.b, &q.motion[1], 0.0, &q.opt, &toi);
		call->iterations = err ? 0 : res.iterations;
	}
	if (err)
		r = run_problem(err, rq, p);
	else
		r = proto_result_encode_more(&res, q.method->name,
		                             &(proto_result_more){q.moving ? &toi : NULL, &q.a,
		                                                  &q.b,
		                                                  proto_units_name(q.units.units),
		                                                  &rep},
		                             out, p);
	proto_mesh_report_free(&rep);
	proto_query_release(&q);
	return r;
}

/* POST /v1/query: plain vertex arrays are read without jansson
 * (vertex_scan.c): the same answer, faster. */
static const proto_endpoint query_endpoint = {"a query, a JSON object", PROTO_PARSE_QUERY, 0,
                                              answer, proto_cost_query};

int proto_query_reply(const char *body, size_t len, proto_reply *out)
{
	return proto_query_reply_ex(body, len, NULL, out);
}

int proto_query_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out)
{
	return proto_endpoint_reply(&query_endpoint, body, len, call, NULL, out);
}

int proto_query_answer(const char *body, size_t len, proto_call *call, proto_reply *out,
                       proto_problem *p)
{
	return proto_endpoint_answer(&query_endpoint, body, len, call, NULL, out, p);
}
