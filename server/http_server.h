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
