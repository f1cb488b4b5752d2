/*
 * answer.h — one Query's text to its answer, the problem left unencoded
 * (reply.c).
 *
 * POST /v1/query encodes the problem as it is; a batch item (batch.c) first
 * places it in the batch body (pointer under /queries/N, parser position
 * counted from the start of the body).  Both go through this one call, so a
 * batch item is answered exactly as the same query sent alone.
 */
#ifndef PROTO_ANSWER_H
#define PROTO_ANSWER_H

#include <stddef.h>

#include "problem.h"
#include "proto.h"

/* Parse, decode, run and encode one Query, as proto_query_reply_ex().
 * Returns 0 (*out holds the 200 reply); 1 (the problem is in *p, which
 * must be empty on entry; the caller encodes and releases it; *out is
 * empty); or -1 when memory ran out. */
int proto_query_answer(const char *body, size_t len, proto_call *call, proto_reply *out,
                       proto_problem *p);

#endif /* PROTO_ANSWER_H */
