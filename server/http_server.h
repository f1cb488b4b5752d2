/*
 * http_server.h — clashd's HTTP server: libmicrohttpd driven by a libuv
 * loop, queries answered on the libuv worker pool.
 *
 * Lifetime: http_server_start() binds and starts serving on `loop`;
 * http_server_drain() (from a signal handler callback) stops accepting,
 * finishes every request in flight (within cfg->drain_timeout_ms), then
 * closes all of the server's handles and calls on_closed(arg) from the loop;
 * the server frees itself just before.  Everything runs on the loop thread.
 * `cfg` is borrowed and must outlive the server.
 */
#ifndef SERVER_HTTP_SERVER_H
#define SERVER_HTTP_SERVER_H

#include <uv.h>

#include "config.h"
#include "proto.h"

/* While draining: how long connections with no request under way (idle
 * keep-alive ones, or ones still sending headers) may stay before the
 * server closes them (at most the drain timeout). */
#define HTTP_DRAIN_GRACE_MS 2000

/* While draining: how long handshakes begun before SIGTERM get to complete
 * before the listener closes (http_listen.h). */
#define HTTP_DRAIN_HANDSHAKE_MS 100

/* While draining: how often to look for connections that can be let go. */
#define HTTP_DRAIN_TICK_MS 50

/* The deadline sweep runs every quarter of the shortest timeout, within
 * these bounds, so a deadline is noticed at most that late. */
#define HTTP_SWEEP_MIN_MS 25
#define HTTP_SWEEP_MAX_MS 100

/* A request past --read-timeout in the middle of its body is answered 408
 * at its next bytes; if none come within this, its connection is closed. */
#define HTTP_EXPIRE_GRACE_MS 1000

/* Connection pressure: past --max-connections minus 1/HTTP_CONN_RESERVE of
 * it (at least one slot), idle connections are closed, those that sent
 * nothing first, so the last slots stay free for clients that send a
 * request (http_server.c, relieve_pressure).  One accepted less than
 * HTTP_CONN_FRESH_MS ago is not yet taken for silent (its request may be
 * on the way); it goes only for a client waiting with every slot taken,
 * looked for every HTTP_CONN_FULL_POLL_MS meanwhile. */
#define HTTP_CONN_RESERVE 16
#define HTTP_CONN_FRESH_MS 250
#define HTTP_CONN_FULL_POLL_MS 10

/* A batch is answered in chunks of about this many bytes of its body
 * (about 1 ms of decoding), spread over the workers. */
#define HTTP_BATCH_CHUNK_BYTES 65536

/* Seconds a 503 asks the client to wait (Retry-After). */
#define HTTP_RETRY_AFTER_S "1"

typedef struct http_server http_server;

/* Bind cfg->addr and start serving, every request answered in `ctx`
 * (borrowed: it must outlive the server).  Returns 0 and *out, or a
 * negative errno-style code (libmicrohttpd logs the reason). */
int http_server_start(http_server **out, uv_loop_t *loop, const server_config *cfg,
                      const proto_context *ctx, void (*on_closed)(void *arg), void *arg);

/* The address actually bound, e.g. "127.0.0.1:40123" or "[::1]:8080". */
const char *http_server_address(const http_server *s);

/* Show the shape store's Redis tier's state in GET /metrics (borrowed). */
void http_server_watch_redis(http_server *s, store_redis *redis);

/* Tenants (borrowed): ctx[i] is the context of the calls made with token
 * i of cfg->auth_tokens, NULL for a token without a tenant (the server's
 * context). */
void http_server_set_tenants(http_server *s, const proto_context *const *ctx);

/* Begin the graceful shutdown (idempotent). */
void http_server_drain(http_server *s);

#endif
