/*
 * http_server.c — clashd's HTTP server: libmicrohttpd inside a libuv loop,
 * queries on libuv's worker pool; here its start, and libmicrohttpd's calls.
 *
 * One loop thread owns all network I/O (http_loop.c); decoding and queries
 * run on the pool (http_work.c, batches in chunks: http_batch.c; the end of
 * a query's work: http_finish.c).  A request's first handler call judges
 * its head (http_head.c; answers the loop gives itself: http_local.c) and
 * admits a query or not (http_admit.c); its body is stored (http_body.c),
 * its connection suspended and its work queued; the after-work callback
 * resumes the connection to send the answer (http_answer.c).  One sweep
 * timer keeps the deadlines (http_deadline.c); SIGTERM drains
 * (http_drain.c).  The records they share: http_internal.h.
 *
 * The design note (the loop, the order of the checks, why not MHD's own
 * threads, backpressure, deadlines, batches, drain): docs/design.md.
 */
#include "http_server.h"

#include <assert.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_admit.h"
#include "http_answer.h"
#include "http_body.h"
#include "http_deadline.h"
#include "http_head.h"
#include "http_internal.h"
#include "http_loop.h"
#include "http_request.h"
#include "http_strict.h"
#include "log.h"

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *data_size, void **con_cls)
{
	http_server *s = cls;
	http_request *r = *con_cls;

	if (!r) {
		r = http_request_new(s, conn, url, method);
		if (!r)
			return MHD_NO;
		*con_cls = r;
		http_strict_fault f;
		if (http_head_refused(r, url, version, &f))
			return http_head_malformed(r, &f);
		return http_head_begin(r, url, method);
	}
	if (*data_size) {
		size_t n = *data_size;
		*data_size = 0;
		if (r->expired && (r->state == REQ_RECEIVING || r->state == REQ_REPLIED)) {
			r->bytes_in += n;
			return http_deadline_expired(r);
		}
		if (r->state == REQ_RECEIVING) {
			http_body_receive(r, data, n);
		} else if (r->state == REQ_REPLIED) {
			/* The body of a request answered from its headers:
			 * dropped, up to the cap; past it, answer and close. */
			r->bytes_in += n;
			if (r->bytes_in > http_request_body_limit(r))
				return http_answer_reply(r);
		}
		return MHD_YES;
	}
	r->body_in = 1;
	switch (r->state) {
	case REQ_RECEIVING:
		if (r->expired)
			return http_deadline_expired(r);
		return http_body_submit(r);
	case REQ_REPLIED: return http_answer_reply(r);
	case REQ_WORKING: /* not called while suspended, but once answered overdue */
		if (r->overdue) {
			if (r->early.body == NULL)
				return http_answer_oom(r);
			return http_answer_now_reply(r, &r->early);
		}
		break;
	case REQ_RESPONDED: /* not called once a response is queued */ break;
	}
	return MHD_YES;
}

static const char *termination_name(enum MHD_RequestTerminationCode toe)
{
	switch (toe) {
	case MHD_REQUEST_TERMINATED_COMPLETED_OK: return NULL;
	case MHD_REQUEST_TERMINATED_WITH_ERROR: return "error";
	case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED: return "timeout";
	case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN: return "shutdown";
	case MHD_REQUEST_TERMINATED_READ_ERROR: return "read error";
	case MHD_REQUEST_TERMINATED_CLIENT_ABORT: return "client closed";
	}
	return "unknown";
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	http_server *s = cls;
	http_request *r = *con_cls;
	(void)conn;
	if (!r)
		return;
	/* A suspended connection cannot complete: we never stop the daemon
	 * with one, and MHD does not watch its socket.  One answered overdue
	 * was resumed, its worker still running. */
	assert(r->state != REQ_WORKING || r->overdue);

	double secs = (double)(uv_hrtime() - r->start_ns) / 1e9;
	size_t route = r->route ? http_route_index(r->route) : http_route_count();
	http_metrics_request(s->metrics, route, r->status, secs);
	const char *why = termination_name(toe);
	log_request(&(log_request_line){
		.level = why ? "warn" : "info",
		.request_id = r->id,
		.method = r->method,
		.path = r->path,
		.status = r->status,
		.duration_s = secs,
		.bytes_in = (long long)r->bytes_in,
		.bytes_out = (long long)r->bytes_out,
		.error = why,
		.rejected =
			r->rejected ? http_reject_name((enum http_reject)(r->rejected - 1)) : NULL,
		/* Answered overdue: r->call is its worker's, which may still run. */
		.iterations = r->overdue ? 0 : r->call.iterations,
		.queries = (long long)r->queries,
	});

	http_admit_release(r);
	if (r->hc) {
		r->hc->req = NULL;
		r->hc->served = 1;
		r->hc->phase_start = uv_now(s->loop); /* waiting for the next request */
	}
	if (r->prev)
		r->prev->next = r->next;
	else
		s->active = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->hc = NULL;
	r->conn = NULL;
	*con_cls = NULL;
	assert(s->requests > 0);
	s->requests--;
	if (r->overdue && !r->worker_gone)
		r->orphan = 1; /* its worker frees it (http_finish) */
	else
		http_request_free(r);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
	http_server *s = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		if (++s->connections >= s->cfg->max_connections)
			s->full = 1;
		http_conn *hc = calloc(1, sizeof *hc);
		*socket_context = hc;
		if (!hc)
			return; /* no deadlines for this one; MHD's idle timeout still holds */
		hc->conn = conn;
		hc->phase_start = uv_now(s->loop);
		hc->prev = s->conns_tail;
		if (s->conns_tail)
			s->conns_tail->next = hc;
		else
			s->conns = hc;
		s->conns_tail = hc;
	} else {
		assert(s->connections > 0);
		s->connections--;
		http_conn *hc = *socket_context;
		if (!hc)
			return;
		if (hc->req)
			hc->req->hc = NULL;
		if (hc->prev)
			hc->prev->next = hc->next;
		else
			s->conns = hc->next;
		if (hc->next)
			hc->next->prev = hc->prev;
		else
			s->conns_tail = hc->prev;
		free(hc);
		*socket_context = NULL;
	}
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char raw[512], text[512];
	vsnprintf(raw, sizeof raw, fmt, ap);
	size_t n = strlen(raw);
	while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == '\r'))
		raw[--n] = '\0';
	LOG_EMIT("warn", "libmicrohttpd", LOG_STR("detail", log_printable(text, sizeof text, raw)));
}

void http_server_watch_redis(http_server *s, store_redis *redis)
{
	s->redis = redis;
}

void http_server_set_tenants(http_server *s, const proto_context *const *ctx)
{
	s->tenant_ctx = ctx;
}

const char *http_server_address(const http_server *s)
{
	return s->address;
}

static void format_address(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
		port = ntohs(a->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
		port = ntohs(a->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	}
}

int http_server_start(http_server **out, uv_loop_t *loop, const server_config *cfg,
                      const proto_context *ctx, void (*on_closed)(void *arg), void *arg)
{
	http_server *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->loop = loop;
	s->cfg = cfg;
	s->ctx = ctx;
	s->on_closed = on_closed;
	s->arg = arg;
	s->on_sweep = http_deadline_sweep;
	s->metrics = http_metrics_new(http_route_count());
	if (!s->metrics) {
		free(s);
		return -ENOMEM;
	}
	request_id_init(&s->ids);

	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	uint16_t port;
	if (cfg->addr.ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		port = ntohs(((const struct sockaddr_in6 *)&cfg->addr)->sin6_port);
	} else {
		port = ntohs(((const struct sockaddr_in *)&cfg->addr)->sin_port);
	}
	if (cfg->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			log_emit("error", "TLS is not supported by this libmicrohttpd", NULL, 0);
			http_metrics_free(s->metrics);
			free(s);
			return -ENOTSUP;
		}
		flags |= MHD_USE_TLS;
	}
	/* MHD's idle timeout is in whole seconds. */
	unsigned idle_s = (cfg->idle_timeout_ms + 999) / 1000;
	struct MHD_OptionItem opts[] = {
		{MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, s},
		{MHD_OPTION_SOCK_ADDR, 0, (void *)&cfg->addr},
		{MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)idle_s, NULL},
		{MHD_OPTION_CONNECTION_LIMIT, (intptr_t)cfg->max_connections, NULL},
		{MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)cfg->max_connections_per_client,
	         NULL},
		{MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s},
		{MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, s},
		{MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1, NULL},
		{MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)http_head_unescape, NULL},
		{cfg->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, cfg->tls_cert},
		{cfg->tls_key ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, cfg->tls_key},
		{MHD_OPTION_END, 0, NULL},
	};
	s->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, s, MHD_OPTION_ARRAY, opts,
	                             MHD_OPTION_END);
	if (!s->daemon) {
		http_metrics_free(s->metrics);
		free(s);
		return -EADDRNOTAVAIL;
	}

	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_storage bound;
	socklen_t blen = sizeof bound;
	if (info && getsockname(info->listen_fd, (struct sockaddr *)&bound, &blen) == 0)
		format_address(&bound, s->address, sizeof s->address);
	else
		format_address(&cfg->addr, s->address, sizeof s->address);

	info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	int rc = info ? uv_poll_init(loop, &s->poll, info->epoll_fd) : UV_EINVAL;
	if (rc != 0) {
		MHD_stop_daemon(s->daemon);
		http_metrics_free(s->metrics);
		free(s);
		return rc;
	}
	uv_timer_init(loop, &s->timer);
	uv_idle_init(loop, &s->again);
	uv_timer_init(loop, &s->drain);
	uv_timer_init(loop, &s->sweep);
	s->poll.data = s->timer.data = s->again.data = s->drain.data = s->sweep.data = s;
	s->open_handles = 5;
	uv_poll_start(&s->poll, UV_READABLE, http_loop_on_poll);
	unsigned every = http_deadline_interval(cfg);
	uv_timer_start(&s->sweep, s->on_sweep, every, every);
	http_loop_pump(s);
	*out = s;
	return 0;
}
