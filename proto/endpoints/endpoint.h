/*
 * endpoint.h — the one skeleton of every endpoint that answers a body
 * (endpoint.c): query and batch items (reply.c), contains, scene, batch
 * and shape uploads.  The skeleton opens the call (its reply emptied, its
 * outputs reset), parses the body as the endpoint says under the
 * context's limits, hands the tree to the endpoint's answer (decode, run,
 * encode) and closes: the answer, or its problem encoded.  An endpoint
 * writes only what is its own.
 */
#ifndef PROTO_ENDPOINT_H
#define PROTO_ENDPOINT_H

#include <stddef.h>

#include <jansson.h>

#include "problem.h"
#include "proto.h"
#include "vertex_table.h"

/* One request while it is answered. */
typedef struct proto_request {
	const char *body;
	size_t len;
	proto_call *call;         /* never NULL: the caller's, or a local one */
	const proto_context *ctx; /* proto_context_of(call) */
	void *self;               /* the endpoint's own, as passed in */
	json_t *root;             /* the parsed body (NULL for PROTO_PARSE_NONE) */
	vertex_table *vt;         /* PROTO_PARSE_QUERY: the arrays read beside
	                             the tree (vertex_scan.h), or NULL */
} proto_request;

enum proto_parse_how {
	PROTO_PARSE_QUERY,  /* the limits, plain vertex arrays read beside the tree */
	PROTO_PARSE_LIMITS, /* the limits: nesting depth, then counts on the tree */
	PROTO_PARSE_DEPTH,  /* the nesting depth only: the answer counts parts itself */
	PROTO_PARSE_NONE    /* no parse: the answer reads rq->body itself */
};

typedef struct proto_endpoint {
	/* A blank body's 400 says "empty body: expected <expected>" (not for
	 * PROTO_PARSE_NONE). */
	const char *expected;
	enum proto_parse_how parse;
	int needs_store; /* no store in the context: a 503 before any parse */
	/* Decode, run and encode rq: 0 with *out the answer, 1 with the
	 * problem in *p, -1 out of memory.  It may drop the tree early
	 * (proto_request_drop); the skeleton drops it otherwise. */
	int (*answer)(proto_request *rq, proto_reply *out, proto_problem *p);
	/* What the parsed request will cost (request_cost.h), or NULL: never
	 * deferred.  Over the call's max_cost, the answer is not called. */
	double (*cost)(const proto_request *rq);
} proto_endpoint;

/* `body` answered through e: 0 with *out the answer or the encoded
 * problem, -1 out of memory (*out empty).  `call` may be NULL. */
int proto_endpoint_reply(const proto_endpoint *e, const char *body, size_t len, proto_call *call,
                         void *self, proto_reply *out);

/* The same with the problem left unencoded: 1 with it in *p (empty on
 * entry; the caller encodes and releases it), *out empty. */
int proto_endpoint_answer(const proto_endpoint *e, const char *body, size_t len, proto_call *call,
                          void *self, proto_reply *out, proto_problem *p);

/* The tree and the vertex table released (the answer holds copies). */
void proto_request_drop(proto_request *rq);

/* The call's cancel flag is up: the call is marked cancelled and *p is
 * the 503 "the <what> was stopped before it finished": 1.  Else 0. */
int proto_request_stopped(proto_request *rq, const char *what, proto_problem *p);

/* The problem for a core error while answering that every endpoint
 * answers alike: CLASH_ECANCELED (as proto_request_stopped), CLASH_ERANGE
 * (422 at ""), CLASH_ENOMEM (-1), any other a 500.  1, or -1. */
int proto_core_problem(int err, proto_request *rq, const char *what, proto_problem *p);

/* *out as a JSON answer of `status`, the body (malloc'd, `len` bytes)
 * taken over: 0; -1 (*out untouched) when body is NULL, so that an
 * encoder can end with return proto_reply_json(out, 200, text, n). */
int proto_reply_json(proto_reply *out, int status, char *body, size_t len);

#endif /* PROTO_ENDPOINT_H */
