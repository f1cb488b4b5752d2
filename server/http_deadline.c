/*
 * http_deadline.c — the deadlines: one sweep timer over the connections.
 *
 * The sweep runs every quarter of the shortest timeout (within
 * HTTP_SWEEP_MIN_MS and HTTP_SWEEP_MAX_MS), sooner when a deadline falls
 * before its next tick (http_loop_sweep_by).  It stops queries past
 * --request-timeout (504), gives up on bodies past --read-timeout or
 * slower than --min-body-rate (408 at their next bytes), and cuts heads
 * past --header-timeout and clients gone mid-request.
 */
#include "http_deadline.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "http_admit.h"
#include "http_answer.h"
#include "http_loop.h"
#include "http_work.h"
#include "log.h"
#include "problem.h"

/* Write a problem straight to the socket, followed by the end of stream:
 * libmicrohttpd 0.9.75 refuses to queue a response in the middle of a
 * body.  Plain HTTP only (the bytes would break a TLS stream); small
 * enough for the socket's buffer, so it never blocks. */
static void send_problem_raw(http_request *r, int status, const char *detail)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	proto_reply p = {0};
	char head[256];
	if (r->srv->cfg->tls_cert || !ci || proto_problem_reply(status, detail, NULL, &p) != 0)
		return;
	int n = snprintf(head, sizeof head,
	                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	                 "X-Request-Id: %s\r\nConnection: close\r\n"
	                 "Content-Length: %zu\r\n\r\n",
	                 status, proto_problem_title(status), p.content_type, r->id, p.length);
	if (n > 0 && (size_t)n < sizeof head &&
	    send(ci->connect_fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n &&
	    send(ci->connect_fd, p.body, p.length, MSG_NOSIGNAL | MSG_DONTWAIT) ==
	            (ssize_t)p.length) {
		r->status = status;
		r->bytes_out = p.length;
	}
	shutdown(ci->connect_fd, SHUT_WR);
	proto_reply_free(&p);
}

/* Past --read-timeout, or slower than --min-body-rate, while its body
 * still comes: answer 408 and close. */
enum MHD_Result http_deadline_expired(http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	char detail[200];
	http_admit_release(r);
	proto_reply_free(&r->reply);
	if (r->expired_why == HTTP_REJECT_SLOW_BODY)
		snprintf(detail, sizeof detail,
		         "the request body came slower than the server's "
		         "minimum of %zu bytes/s after %u ms (--min-body-rate)",
		         cfg->min_body_rate, cfg->body_grace_ms);
	else
		snprintf(detail, sizeof detail,
		         "the request was not received within the server's "
		         "limit of %u ms (--read-timeout)",
		         cfg->read_timeout_ms);
	send_problem_raw(r, 408, detail);
	r->state = REQ_RESPONDED;
	return MHD_NO; /* MHD closes the connection */
}

/* Whether r's body comes slower than --min-body-rate: once past
 * --body-grace, at least rate x (time - grace) bytes must be in. */
static int body_too_slow(const http_request *r, const server_config *cfg, uint64_t now)
{
	if (!cfg->min_body_rate || !r->has_body || r->body_in || r->expired ||
	    (r->state != REQ_RECEIVING && r->state != REQ_REPLIED))
		return 0;
	uint64_t t = now - r->body_start;
	return t > cfg->body_grace_ms &&
	       r->bytes_in * 1000 < (uint64_t)cfg->min_body_rate * (t - cfg->body_grace_ms);
}

/* Give up on r's body: 408 at its next bytes (or the connection is shut
 * HTTP_EXPIRE_GRACE_MS later); its admission and body are let go now. */
static void request_expire(http_request *r, enum http_reject why, uint64_t now)
{
	r->expired = 1;
	r->expired_why = why;
	r->expired_at = now;
	http_answer_reject(r, why);
	http_admit_release(r);
	free(r->body);
	r->body = NULL;
	r->len = r->cap = 0;
}

/* The cuts besides --read-timeout: a client gone (whatever it began can
 * never complete), a head not in within --header-timeout, a body slower
 * than --min-body-rate.  Returns 1 when it cut. */
static int cut_slow_client(http_server *s, http_conn *hc, uint64_t now)
{
	const server_config *cfg = s->cfg;
	http_request *r = hc->req;
	if ((!r || r->state == REQ_RECEIVING) && http_loop_peer_closed(hc->conn)) {
		if (r)
			http_admit_release(r);
		http_loop_conn_shut(hc);
		return 1;
	}
	if (!r && now - hc->phase_start >= cfg->header_timeout_ms) {
		http_metrics_reject(s->metrics, HTTP_REJECT_HEADER_TIMEOUT);
		LOG_EMIT("warn", "header timeout",
		         LOG_INT("header_timeout_ms", cfg->header_timeout_ms));
		http_loop_conn_shut(hc);
		return 1;
	}
	if (r && body_too_slow(r, cfg, now)) {
		request_expire(r, HTTP_REJECT_SLOW_BODY, now);
		return 1;
	}
	return 0;
}

/* The deadlines (see the design note at the top). */
void http_deadline_sweep(uv_timer_t *t)
{
	http_server *s = t->data;
	const server_config *cfg = s->cfg;
	uint64_t now = uv_now(s->loop);
	for (http_conn *hc = s->conns; hc; hc = hc->next) {
		http_request *r = hc->req;
		if (r && r->state == REQ_WORKING) {
			if (now >= r->deadline)
				http_work_stop(r, STOP_DEADLINE);
			else
				http_loop_sweep_by(s, r->deadline);
			continue;
		}
		if (hc->shut || cut_slow_client(s, hc, now))
			continue;
		if (r && r->expired) {
			/* No bytes since to answer 408 with: close. */
			if (now - r->expired_at >= HTTP_EXPIRE_GRACE_MS)
				http_loop_conn_shut(hc);
			continue;
		}
		if (now - hc->phase_start < cfg->read_timeout_ms)
			continue;
		if (r && (r->state == REQ_RECEIVING || r->state == REQ_REPLIED)) {
			request_expire(r, HTTP_REJECT_READ_TIMEOUT, now);
			continue;
		}
		http_metrics_reject(s->metrics, HTTP_REJECT_READ_TIMEOUT);
		LOG_EMIT("warn", "read timeout", LOG_STR("request_id", r ? r->id : ""),
		         LOG_INT("read_timeout_ms", cfg->read_timeout_ms));
		http_loop_conn_shut(hc);
	}
	http_loop_pump(s);
}

unsigned http_deadline_interval(const server_config *cfg)
{
	unsigned shortest = cfg->request_timeout_ms < cfg->read_timeout_ms ? cfg->request_timeout_ms
	                                                                   : cfg->read_timeout_ms;
	if (cfg->header_timeout_ms < shortest)
		shortest = cfg->header_timeout_ms;
	unsigned ms = shortest / 4;
	if (ms < HTTP_SWEEP_MIN_MS)
		ms = HTTP_SWEEP_MIN_MS;
	if (ms > HTTP_SWEEP_MAX_MS)
		ms = HTTP_SWEEP_MAX_MS;
	return ms;
}
