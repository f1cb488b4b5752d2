/*
 * call.h — how every call begins (the endpoint skeleton, endpoint.c, and
 * a batch's proto_batch_answer): its reply emptied, and the caller's
 * proto_call, or a local one when it passed none, with its outputs reset;
 * and how a call reads its cancel flag.
 */
#ifndef PROTO_CALL_H
#define PROTO_CALL_H

#include <string.h>

#include "proto.h"

/* The call to use: `call`, or `none` (the caller's storage) when NULL.
 * `out` may be NULL (a call that fills no reply yet). */
static inline proto_call *proto_call_begin(proto_call *call, proto_call *none, proto_reply *out)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (!call) {
		*none = (proto_call){0};
		call = none;
	}
	call->deferred = PROTO_DEFERRED_NONE;
	call->cost = 0;
	call->cancelled = 0;
	call->limit = PROTO_LIMIT_NONE;
	call->iterations = -1;
	return call;
}

/* Whether the call's cancel flag (NULL: none) is set.  Another thread sets
 * it (the server's deadline or drain) while the call runs: an atomic load,
 * relaxed, as the core's own reads (core/cancel.h). */
static inline int proto_cancel_requested(const volatile int *cancel)
{
	return cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED);
}

#endif /* PROTO_CALL_H */
