/*
 * http_server.h — clashd's HTTP server: libmicrohttpd driven by a libuv
 * loop, queries answered on the libuv worker pool.
 *
 * Lifetime: http_server_start() binds and starts serving on `loop`;
 * http_server_drain() (from a signal handler callback) stops accepting,
 * finishes every request in flight, then closes all of the server's handles
 * and calls on_closed(arg) from the loop; the server frees itself just
 * before.  Everything runs on the loop thread.
 */
#ifndef SERVER_HTTP_SERVER_H
#define SERVER_HTTP_SERVER_H

#include <uv.h>

#include "config.h"

/* The largest request body accepted (bytes); larger ones get 413. */
#define HTTP_MAX_BODY ((size_t)16 << 20)

/* Seconds a connection may stay silent before it is closed.  libmicrohttpd
 * has no timeout by default, and 0.9.75 may notice a peer's close only at
 * the timeout in epoll mode. */
#define HTTP_CONNECTION_TIMEOUT_S 30

/* While draining: how long connections with no request under way (idle
 * keep-alive ones, or ones still sending headers) may stay before the
 * server closes them. */
#define HTTP_DRAIN_GRACE_MS 2000

/* While draining: how often to look for connections that can be let go. */
#define HTTP_DRAIN_TICK_MS 250

typedef struct http_server http_server;

/* Bind cfg->addr and start serving.  Returns 0 and *out, or a negative
 * errno-style code (libmicrohttpd logs the reason). */
int http_server_start(http_server **out, uv_loop_t *loop, const server_config *cfg,
                      void (*on_closed)(void *arg), void *arg);

/* The address actually bound, e.g. "127.0.0.1:40123" or "[::1]:8080". */
const char *http_server_address(const http_server *s);

/* Begin the graceful shutdown (idempotent). */
void http_server_drain(http_server *s);

#endif
