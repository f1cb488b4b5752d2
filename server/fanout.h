/*
 * fanout.h — a small fixed set of threads that run the pieces of one
 * request at once (the narrow phase of a scene), as a proto_context's parallel.
 * See fanout.c for the design and why one large request cannot starve the
 * others.
 *
 * Lifetime: fanout_start() before the server takes requests; fanout_run()
 * from any thread (a libuv worker); fanout_stop() once no request is in
 * flight (after the loop has ended): it joins the threads and frees.
 */
#ifndef SERVER_FANOUT_H
#define SERVER_FANOUT_H

#include <stddef.h>

#include "proto.h"

typedef struct fanout fanout;

/* Start `threads` threads (0: none; fanout_run then runs every piece on
 * its caller).  Returns 0, or a negative errno-style code. */
int fanout_start(fanout **out, unsigned threads);

/* proto_parallel.run: piece(ctx, i) for every i in [0, n), on the fanout's
 * threads and the calling one, which also takes pieces; returns when every
 * piece has returned.  `self` is the fanout. */
void fanout_run(void *self, proto_piece_fn piece, void *ctx, size_t n);

/* Stop and join the threads, free the fanout.  No fanout_run may be under
 * way. */
void fanout_stop(fanout *f);

#endif
