/*
 * contains.c — the containment contract: POST /v1/contains and `clash
 * contains` (openapi.yaml, ContainsQuery and ContainsResult).
 *
 * A ContainsQuery {"inner": Shape, "outer": Shape, "tolerance": t} is
 * parsed like a Query (parse.h), its shapes decoded by the Query's own
 * Shape decoder (so every rule and JSON Pointer is the same, under /inner
 * and /outer), then clash_contains() answers.  Order of checks: unknown
 * members (document order), inner and outer present, inner, outer,
 * tolerance.  The answer's "converged" is clash_containment's: false when
 * some vertex could be placed neither inside nor outside.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clash.h"
#include "decode.h"
#include "endpoint.h"
#include "request_cost.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "query.h"
#include "refs.h"

/* The decoded request: the shapes in holder.a (inner) and holder.b
 * (outer), which owns their memory. */
typedef struct contains_query {
	proto_query holder;
	clash_options opt;
} contains_query;

static const char *const members[] = {"inner", "outer", "tolerance", NULL};

static int decode(const json_t *root, const proto_context *ctx, contains_query *q, proto_problem *p)
{
	if (!json_is_object(root))
		return proto_fail(p, NULL,
		                  "a containment query must be a JSON object {\"inner\": shape, "
		                  "\"outer\": shape}");
	int r = proto_known_members(root, NULL, members,
	                            "a containment query has inner, outer and tolerance", p);
	if (r)
		return r;
	const json_t *inner = json_object_get(root, "inner");
	const json_t *outer = json_object_get(root, "outer");
	if (!inner || !outer)
		return proto_fail(p, NULL,
		                  "%s is required: is the shape inner inside the shape outer?",
		                  inner ? "outer" : "inner");
	r = proto_shapes_decode(inner, "inner", outer, "outer", ctx, &q->holder, p);
	if (r == 1 && proto_refs_missing(root, ctx->store, p) != 0)
		r = -1;
	if (r)
		return r;
	const json_t *t = json_object_get(root, "tolerance");
	if (t) {
		proto_path tp = {NULL, "tolerance", 0};
		if (!json_is_number(t))
			return proto_fail(p, &tp, "tolerance must be a number");
		double x = json_number_value(t);
		if (!(x > 0) || !isfinite(x))
			return proto_fail(p, &tp, "tolerance must be a distance > 0, got %.17g", x);
		q->opt.tolerance = x;
	}
	return 0;
}

/* The problem for a core error while answering. */
static int run_problem(int err, const contains_query *q, proto_request *rq, proto_problem *p)
{
	switch (err) {
	case CLASH_ENOTSUP:
		if (q->holder.b.mesh) {
			proto_problem_set(
				p, 422, strdup("/outer"),
				"outer must be one convex shape: containment in a triangle "
				"mesh is not decided here (a query of the two answers whether "
				"inner lies inside it: contact \"a_inside_b\")");
		} else if (q->holder.b.kind != CLASH_KIND_POLYTOPE) {
			proto_problem_set(
				p, 422, strdup("/inner"),
				"inner is (or holds) a curved primitive and outer is a "
				"primitive: containment of a curved shape is decided against "
				"a polytope's facets only (outer as vertices or a box); a "
				"query of the two says whether they intersect");
		} else if (q->holder.b.nparts > 0) {
			proto_problem_set(
				p, 422, strdup("/outer"),
				"outer must be one convex shape: a compound (a union) is not "
				"convex, so containment in it is not decided here");
		} else {
			proto_problem_set(
				p, 422, strdup("/outer/vertices"),
				"inner's radius exceeds outer's, or inner holds a curved "
				"primitive: either needs outer's facets, which are enumerated "
				"from its vertices up to a budget, and this outer has too many "
				"vertices for its dimension");
		}
		break;
	default: return proto_core_problem(err, rq, "query", p);
	}
	return p->pointer ? 1 : -1;
}

static int encode(const clash_containment *c, int compound, const char *units, proto_reply *out)
{
	json_t *o = json_object();
	if (!o)
		return -1;
	int failed = json_object_set_new(o, "contained", json_boolean(c->contained)) != 0;
	json_t *v =
		c->has_outside_vertex ? json_integer((json_int_t)c->outside_vertex) : json_null();
	failed |= !v || json_object_set_new(o, "outside_vertex", v) != 0;
	if (c->has_outside_point && isfinite(c->outside_point[0]) &&
	    isfinite(c->outside_point[1]) && isfinite(c->outside_point[2])) {
		json_t *pt = json_pack("[f, f, f]", c->outside_point[0], c->outside_point[1],
		                       c->outside_point[2]);
		failed |= !pt || json_object_set_new(o, "outside_point", pt) != 0;
	}
	if (compound && (c->has_outside_vertex || c->has_outside_point)) {
		v = json_integer((json_int_t)c->outside_part);
		failed |= !v || json_object_set_new(o, "outside_part", v) != 0;
	}
	failed |= json_object_set_new(o, "converged", json_boolean(c->converged)) != 0;
	v = json_integer(c->iterations);
	failed |= !v || json_object_set_new(o, "iterations", v) != 0;
	if (units)
		failed |= json_object_set_new(o, "units", json_string(units)) != 0;
	char *body = failed ? NULL : json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return proto_reply_json(out, 200, body, body ? strlen(body) : 0);
}

/* A ContainsQuery's tree decoded, run and encoded. */
static int answer(proto_request *rq, proto_reply *out, proto_problem *p)
{
	contains_query q;
	memset(&q, 0, sizeof q);
	int r = decode(rq->root, rq->ctx, &q, p);
	proto_request_drop(rq);
	if (r == 0 && (r = proto_request_stopped(rq, "query", p)) == 0) {
		clash_containment c;
		const clash_shape *inner = &q.holder.a, *outer = &q.holder.b;
		/* A server's stop request (proto_call.cancel), as for queries. */
		q.opt.cancel = rq->call->cancel;
		int err = clash_contains(inner, outer, &q.opt, &c);
		if (err != CLASH_ECANCELED)
			rq->call->iterations = err ? 0 : c.iterations;
		r = err ? run_problem(err, &q, rq, p)
		        : encode(&c, inner->nparts > 0, proto_units_name(q.holder.units.units),
		                 out);
	}
	proto_query_release(&q.holder);
	return r;
}

static const proto_endpoint contains_endpoint = {"a JSON object", PROTO_PARSE_LIMITS, 0, answer,
                                                 proto_cost_contains};

int proto_contains_reply(const char *body, size_t len, proto_reply *out)
{
	return proto_contains_reply_ex(body, len, NULL, out);
}

int proto_contains_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out)
{
	return proto_endpoint_reply(&contains_endpoint, body, len, call, NULL, out);
}
