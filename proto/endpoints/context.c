/*
 * context.c — the context of a call that brings none (proto.h): no
 * limits, pieces in turn, the default weld, no store.  Its own file so
 * that the decoders and endpoints that fall back to it need not reach
 * the Query's reply.
 */
#include "proto.h"

const proto_context proto_context_none = {.weld = PROTO_DEFAULT_WELD};
