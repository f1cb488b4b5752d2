/*
 * http_loop.h — libmicrohttpd run from the libuv loop (http_loop.c), and
 * the connection records' cuts.  Loop thread only.
 */
#ifndef SERVER_HTTP_LOOP_H
#define SERVER_HTTP_LOOP_H

#include "http_internal.h"

/* Let MHD do all it can now, then sleep until its next deadline; shuts
 * the server down once drained. */
void http_loop_pump(http_server *s);

/* The uv_poll callback of MHD's epoll fd. */
void http_loop_on_poll(uv_poll_t *p, int status, int events);

/* Have the deadline sweep run by `due` (a uv_now() time) at the latest. */
void http_loop_sweep_by(http_server *s, uint64_t due);

/* The record of an MHD connection (NULL if it could not be made). */
http_conn *http_loop_conn(struct MHD_Connection *conn);

/* Shut a connection's socket down: MHD then closes it. */
void http_loop_conn_shut(http_conn *hc);

/* Whether the client has closed its end with nothing left to read. */
int http_loop_peer_closed(struct MHD_Connection *conn);

#endif
