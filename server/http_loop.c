/*
 * http_loop.c — libmicrohttpd run from the libuv loop, and connection
 * pressure.
 *
 * libmicrohttpd runs in "external epoll" mode: a uv_poll watches its
 * epoll fd, and http_loop_pump() runs it after every poll, timer and
 * after-work callback, then sleeps until its next deadline.  After each
 * run, near --max-connections, idle connections are closed so the last
 * slots stay for clients that send a request (relieve_pressure); once
 * drained, the server's handles close and it frees itself.
 */
#include "http_loop.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "http_listen.h"
#include "http_peer.h"
#include "log.h"

static void on_handle_closed(uv_handle_t *h)
{
	http_server *s = h->data;
	if (--s->open_handles > 0)
		return;
	void (*on_closed)(void *) = s->on_closed;
	void *arg = s->arg;
	http_metrics_free(s->metrics);
	free(s);
	if (on_closed)
		on_closed(arg);
}

/* Drained: no request left, so no connection is suspended. */
static void shut(http_server *s)
{
	assert(s->requests == 0 && s->working == 0);
	s->closing = 1;
	LOG_EMIT("info", "stopped", LOG_INT("connections_dropped", s->connections));
	/* Stop watching the epoll fd before MHD closes it. */
	uv_close((uv_handle_t *)&s->poll, on_handle_closed);
	uv_close((uv_handle_t *)&s->timer, on_handle_closed);
	uv_close((uv_handle_t *)&s->again, on_handle_closed);
	uv_close((uv_handle_t *)&s->drain, on_handle_closed);
	uv_close((uv_handle_t *)&s->sweep, on_handle_closed);
	MHD_stop_daemon(s->daemon); /* closes the remaining connections (records freed) */
	s->daemon = NULL;
}

static void on_timer(uv_timer_t *t)
{
	http_loop_pump(t->data);
}

/* Once per loop pass while MHD asks to be run at once: the pass polls
 * every other handle (without blocking) in between. */
static void on_again(uv_idle_t *h)
{
	uv_idle_stop(h);
	http_loop_pump(h->data);
}

void http_loop_on_poll(uv_poll_t *p, int status, int events)
{
	(void)status; /* an error on the epoll fd: MHD_run will report it */
	(void)events;
	http_loop_pump(p->data);
}

http_conn *http_loop_conn(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* Cut a connection: shut its socket down, which MHD notices (end of
 * stream) and closes it. */
void http_loop_conn_shut(http_conn *hc)
{
	if (hc->shut)
		return;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(hc->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci)
		shutdown(ci->connect_fd, SHUT_RDWR);
	/* In case MHD 0.9.75 misses the end of stream (see
	 * expire_gone_uploads): nothing can move on this connection any more,
	 * so a short idle timeout closes it too. */
	MHD_set_connection_option(hc->conn, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned int)1);
	hc->shut = 1;
}

/* Whether the client has closed its end with nothing left to read, so
 * that what it sent can never be completed.  libmicrohttpd 0.9.75 in epoll
 * mode may notice it only at --idle-timeout. */
int http_loop_peer_closed(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	char b;
	if (!ci)
		return 0;
	ssize_t n = recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* Have the sweep run by `due` (a uv_now() time) at the latest: a deadline
 * falls before its next tick, so it fires when due, not up to a period
 * late. */
void http_loop_sweep_by(http_server *s, uint64_t due)
{
	uint64_t now = uv_now(s->loop), in = due > now ? due - now : 0;
	if (in < uv_timer_get_due_in(&s->sweep))
		uv_timer_start(&s->sweep, s->on_sweep, in, uv_timer_get_repeat(&s->sweep));
}

/* How many connections may be open before idle ones are closed: all of
 * --max-connections but a reserve (see HTTP_CONN_RESERVE). */
static unsigned pressure_mark(unsigned max_connections)
{
	unsigned reserve = max_connections / HTTP_CONN_RESERVE;
	if (reserve == 0 && max_connections > 1)
		reserve = 1;
	return max_connections - reserve;
}

/* The order in which idle connections are closed under pressure, lowest
 * first; -1: never (shut already, or a request under way).  Ranks up to
 * PRESSURE_IDLE go to keep the reserve free; PRESSURE_FRESH ones only for a
 * client waiting in the backlog with every slot taken. */
enum {
	PRESSURE_SILENT, /* nothing received since the accept */
	PRESSURE_KEPT,   /* keep-alive, between requests */
	PRESSURE_IDLE = PRESSURE_KEPT,
	PRESSURE_HEAD, /* a first head begun, not complete (or TLS) */
	PRESSURE_FRESH /* accepted too recently to tell */
};

static int pressure_rank(const http_conn *hc, uint64_t now)
{
	if (hc->shut || hc->req)
		return -1;
	if (hc->served)
		return PRESSURE_KEPT;
	if (now - hc->phase_start < HTTP_CONN_FRESH_MS)
		return PRESSURE_FRESH;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(hc->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	return ci && http_peer_received(ci->connect_fd) == 0 ? PRESSURE_SILENT : PRESSURE_HEAD;
}

/* Close the connection of lowest rank (at most `upto`), idle the longest
 * first (phase_start: the accept, or the end of its last request).
 * Returns 0 when there was none. */
static int evict_first(http_server *s, int upto, uint64_t now)
{
	http_conn *first = NULL;
	int first_rank = 0;
	for (http_conn *hc = s->conns; hc; hc = hc->next) {
		int rank = pressure_rank(hc, now);
		if (rank >= 0 && rank <= upto &&
		    (!first || rank < first_rank ||
		     (rank == first_rank && hc->phase_start < first->phase_start))) {
			first = hc;
			first_rank = rank;
		}
	}
	if (!first)
		return 0;
	http_metrics_reject(s->metrics, HTTP_REJECT_CONNECTION_PRESSURE);
	http_loop_conn_shut(first);
	return 1;
}

/* Near --max-connections, close idle connections until the reserve is
 * free again, so connections that hold a slot without asking anything
 * cannot keep out clients that do: silent ones first, then keep-alive ones
 * between requests, then incomplete heads (pressure_rank).  A request
 * under way (receiving, working, answering) is never cut.  With every slot
 * taken and clients waiting in the backlog, the oldest fresh connections
 * go too, one per waiting client; meanwhile the sweep looks again every
 * HTTP_CONN_FULL_POLL_MS, as MHD does not watch its listener then.  Shut
 * connections count with MHD until it has closed them, so only the live
 * ones are weighed. */
static void relieve_pressure(http_server *s)
{
	unsigned max = s->cfg->max_connections, mark = pressure_mark(max), live = 0;
	if (s->connections <= mark || s->draining)
		return;
	for (http_conn *hc = s->conns; hc; hc = hc->next)
		live += !hc->shut;
	uint64_t now = uv_now(s->loop);
	while (live > mark && evict_first(s, PRESSURE_HEAD, now))
		live--;
	if (live < max)
		return;
	http_loop_sweep_by(s, now + HTTP_CONN_FULL_POLL_MS);
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	int waiting = info ? http_listen_queued(info->listen_fd) : -1;
	while (waiting-- > 0 && evict_first(s, PRESSURE_FRESH, now))
		;
}

/* Let MHD do all it can now, then sleep until its next deadline. */
void http_loop_pump(http_server *s)
{
	if (s->closing)
		return;
	MHD_run(s->daemon);
	/* At --max-connections MHD takes its listener out of its epoll set and
	 * puts it back only at the start of its next run: run again once a
	 * slot is free, or a client in the backlog would wait for an unrelated
	 * event.  Bounded: each run may fill the slots again. */
	for (int i = 0; i < 4 && s->full && s->connections < s->cfg->max_connections; i++) {
		s->full = 0;
		MHD_run(s->daemon);
	}
	relieve_pressure(s);
	if (s->draining && s->listener_closed && s->requests == 0 && s->working == 0 &&
	    (s->connections == 0 || s->grace_over)) {
		shut(s);
		return;
	}
	MHD_UNSIGNED_LONG_LONG ms;
	int has = MHD_get_timeout(s->daemon, &ms) == MHD_YES;
	if (has && ms == 0) {
		uv_timer_stop(&s->timer);
		uv_idle_start(&s->again, on_again);
		return;
	}
	uv_idle_stop(&s->again);
	if (has)
		uv_timer_start(&s->timer, on_timer, ms > INT_MAX ? INT_MAX : ms, 0);
	else
		uv_timer_stop(&s->timer);
}
