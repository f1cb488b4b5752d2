/*
 * http_drain.c — the graceful shutdown (SIGTERM: http_server_drain).
 *
 * New handshakes are refused at once (http_listen.h) and the listener
 * closes once those under way had HTTP_DRAIN_HANDSHAKE_MS; /readyz says
 * 503 and every answer closes its connection.  A tick every
 * HTTP_DRAIN_TICK_MS lets idle connections go after HTTP_DRAIN_GRACE_MS
 * and, past --drain-timeout, stops what is left (503); the loop shuts the
 * server down once no request is left (http_loop_pump).
 */
#include "http_server.h"

#include <unistd.h>

#include "http_internal.h"
#include "http_listen.h"
#include "http_loop.h"
#include "http_work.h"
#include "log.h"

/* libmicrohttpd 0.9.75 does not notice a client that closes in the middle
 * of its body until the connection times out (--idle-timeout), which would
 * hold the drain that long.  Such a request cannot be answered anyway: find
 * them (end of stream with nothing left to read) and give their connections
 * a 1 s timeout, which MHD then enforces. */
static void expire_gone_uploads(http_server *s)
{
	for (http_request *r = s->active; r; r = r->next) {
		if (r->state != REQ_RECEIVING || r->peer_gone)
			continue;
		if (http_loop_peer_closed(r->conn)) {
			r->peer_gone = 1;
			MHD_set_connection_option(r->conn, MHD_CONNECTION_OPTION_TIMEOUT,
			                          (unsigned int)1);
		}
	}
}

/* Take in every connection already queued on the listener, then close it. */
static void close_listener(http_server *s)
{
	if (s->listener_closed)
		return;
	MHD_run(s->daemon); /* whatever MHD takes by itself */
	MHD_socket fd = MHD_quiesce_daemon(s->daemon);
	int taken = 0;
	if (fd != MHD_INVALID_SOCKET) {
		struct sockaddr_storage addr;
		socklen_t len;
		int c;
		while ((c = http_listen_accept(fd, &addr, &len)) >= 0) {
			/* MHD closes the socket itself if it cannot take it. */
			if (MHD_add_connection(s->daemon, c, (const struct sockaddr *)&addr, len) ==
			    MHD_YES)
				taken++;
		}
		close(fd); /* external polling: the listener is ours to close */
	}
	s->listener_closed = 1;
	LOG_EMIT("info", "listener closed", LOG_INT("accepted_at_close", taken),
	         LOG_INT("connections", s->connections));
}

/* --drain-timeout has passed: stop what is left. */
static void drain_expire(http_server *s)
{
	for (http_conn *hc = s->conns; hc; hc = hc->next) {
		if (hc->req && hc->req->state == REQ_WORKING)
			http_work_stop(hc->req, STOP_SHUTDOWN);
		else
			http_loop_conn_shut(hc);
	}
}

static void on_drain_tick(uv_timer_t *t)
{
	http_server *s = t->data;
	uint64_t elapsed = uv_now(s->loop) - s->drain_start;
	if (!s->listener_closed && elapsed >= HTTP_DRAIN_HANDSHAKE_MS) {
		/* Connections queued while at --max-connections are taken in as
		 * slots free up; close only when none is left (or time is up). */
		const union MHD_DaemonInfo *info =
			MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
		int queued = info ? http_listen_queued(info->listen_fd) : -1;
		if (queued <= 0 || elapsed >= s->cfg->drain_timeout_ms)
			close_listener(s);
	}
	if (elapsed >= HTTP_DRAIN_GRACE_MS || elapsed >= s->cfg->drain_timeout_ms)
		s->grace_over = 1;
	if (elapsed >= s->cfg->drain_timeout_ms) {
		if (!s->drain_expired)
			LOG_EMIT("warn", "drain timeout", LOG_INT("requests", s->requests),
			         LOG_INT("working", s->working));
		s->drain_expired = 1;
		drain_expire(s); /* again each tick: answers of stopped queries close too */
	}
	expire_gone_uploads(s);
	http_loop_pump(s);
}

void http_server_drain(http_server *s)
{
	if (s->draining || s->closing)
		return;
	s->draining = 1;
	s->drain_start = uv_now(s->loop);
	/* No new handshakes from now on; those under way get
	 * HTTP_DRAIN_HANDSHAKE_MS to complete, then the listener closes. */
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	int rc = info ? http_listen_refuse_new(info->listen_fd) : -EBADF;
	if (rc != 0)
		close_listener(
			s); /* no filter: close now, as a last-instant connect may be reset */
	LOG_EMIT("info", "draining", LOG_INT("requests", s->requests),
	         LOG_INT("connections", s->connections), LOG_BOOL("syn_filter", rc == 0));
	uv_timer_start(&s->drain, on_drain_tick, HTTP_DRAIN_TICK_MS, HTTP_DRAIN_TICK_MS);
	http_loop_pump(s);
}
