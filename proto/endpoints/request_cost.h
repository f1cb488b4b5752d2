/*
 * request_cost.h — what a parsed request will cost to answer, judged
 * before it is decoded (request_cost.c): each endpoint's cost function
 * (proto_endpoint.cost), which the skeleton compares with the call's
 * max_cost (proto_call).
 *
 * A cost is about the microseconds one thread of a current x86 server
 * takes in the worst case: every shape the request names counted by its
 * points and triangles (stored ones by what the store knows of them), its
 * pairs of convex parts, each pair with a curved side by the depth search
 * it may run, a containment by its inner points against the outer ones, a
 * scene by its pairs of objects.  An estimate, to tell a request of
 * milliseconds from one of seconds, never a limit on an answer.
 */
#ifndef PROTO_REQUEST_COST_H
#define PROTO_REQUEST_COST_H

#include "endpoint.h"

/* A Query ({"a", "b", "max_iterations", ...}): POST /v1/query, a batch item. */
double proto_cost_query(const proto_request *rq);

/* A ContainsQuery ({"inner", "outer"}). */
double proto_cost_contains(const proto_request *rq);

/* A Scene ({"objects": [{"shape"}, ...]}). */
double proto_cost_scene(const proto_request *rq);

/* A StoredShape upload (the body is the shape). */
double proto_cost_upload(const proto_request *rq);

#endif /* PROTO_REQUEST_COST_H */
