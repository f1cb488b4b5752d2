/*
 * http_server.c — libmicrohttpd inside a libuv loop, queries on libuv's pool.
 *
 * Design.  One loop thread owns all network I/O; decoding and queries run on
 * the libuv worker pool (uv_queue_work, size = --threads), so a slow query
 * never holds up other connections and the loop never parses JSON.
 *
 *   - libmicrohttpd runs in "external epoll" mode (MHD_USE_EPOLL without an
 *     internal thread).  Its epoll fd is a single readable fd: a uv_poll
 *     watches it, and after every poll, timer and after-work callback we call
 *     MHD_run() and re-arm a uv_timer with MHD_get_timeout() (which may be 0:
 *     MHD's epoll is edge-triggered and handles at most 128 events per run,
 *     so a 0 timeout must be honoured or connections stall).
 *   - A request's handler calls arrive on the loop thread.  The first one
 *     (headers read) checks path, method, Content-Type and Content-Length;
 *     a request it can answer from these (probes, 404, 405, 415, 413 by
 *     Content-Length) keeps its answer for the final call, its body (if
 *     any) dropped meanwhile, so the connection stays usable (see
 *     answer_early for when it goes out at once).  For a query the next
 *     calls copy body pieces (capped at HTTP_MAX_BODY; a chunked body over
 *     the cap is read and dropped to its end, then answered 413); the final
 *     one (*upload_data_size == 0) suspends the connection and queues the
 *     work.  The worker only touches its own http_request; MHD cannot close
 *     a suspended connection, so the request outlives the work.  The
 *     after-work callback (loop thread again) resumes the connection and
 *     runs MHD, which calls the handler once more: that call queues the
 *     response.
 *   - Why not MHD's own threads: MHD's thread pool would run queries on its
 *     I/O threads (a slow query blocks every connection of that thread), and
 *     thread-per-connection has poor tail latency under CPU load; the
 *     loop+pool split measured as fast as MHD's epoll pool on 2 cores.
 *
 * Drain (SIGTERM): stop accepting (MHD_quiesce_daemon, close the listener),
 * /readyz says 503, responses carry "Connection: close".  Every request whose
 * handler has been called is finished and answered; connections with no
 * request get HTTP_DRAIN_GRACE_MS to send one, and uploads whose client has
 * gone are let go (expire_gone_uploads).  Then, with no connection suspended
 * (MHD_stop_daemon with suspended connections is an API violation), the
 * daemon is stopped and every handle closed.
 */
#include "http_server.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http_route.h"
#include "log.h"
#include "proto.h"

struct http_server {
	uv_loop_t *loop;
	struct MHD_Daemon *daemon;
	uv_poll_t poll;      /* MHD's epoll fd */
	uv_timer_t timer;    /* MHD_get_timeout() */
	uv_timer_t drain;    /* ticks while draining */
	int open_handles;    /* of the three above, not yet closed */
	int draining;        /* SIGTERM seen: no accepting, /readyz 503 */
	int grace_over;      /* idle connections may now be dropped */
	uint64_t drain_start; /* uv_now() at SIGTERM */
	int closing;         /* daemon stopped, handles closing */
	unsigned connections; /* open TCP connections */
	unsigned requests;   /* requests begun and not completed */
	unsigned working;    /* requests queued or running on the pool */
	struct http_request *active; /* the `requests` ones, linked */
	char address[INET6_ADDRSTRLEN + 16];
	void (*on_closed)(void *arg);
	void *arg;
};

enum request_state {
	REQ_RECEIVING, /* reading the body */
	REQ_WORKING,   /* suspended, on the worker pool */
	REQ_REPLIED,   /* reply ready: from the worker, or from the headers
	                  (then any body is being dropped) */
	REQ_RESPONDED  /* response queued */
};

typedef struct http_request {
	http_server *srv;
	struct http_request *prev, *next; /* in srv->active */
	struct MHD_Connection *conn;
	const http_route *route;
	enum request_state state;
	uint64_t start_ns;
	int head;          /* HEAD: no body goes out */
	int has_body;      /* Content-Length > 0 or Transfer-Encoding */
	int expect_continue; /* the client waits for "100 Continue" */
	unsigned long long declared; /* Content-Length; 0 if none, chunked */
	const char *allow; /* the Allow header of a 405 (static) */
	char method[16];   /* printable copies, for the log */
	char path[256];
	char *body;        /* the upload, NUL-terminated for the decoder */
	size_t len, cap;
	uint64_t bytes_in; /* body bytes received, discarded ones included */
	int too_large;     /* the body went over HTTP_MAX_BODY */
	int peer_gone;     /* drain found its client gone mid-body */
	int no_memory;     /* the body could not be stored */
	uv_work_t work;
	int reply_rc;      /* proto_query_reply()'s result */
	proto_reply reply;
	int status;        /* sent, for the log; 0 if none */
	size_t bytes_out;
} http_request;

static void pump(http_server *s);

/* ---- responses ---------------------------------------------------------- */

/* Sent when even building a problem fails (out of memory); the same
 * members proto_problem_reply(500, ...) would give. */
static const char oom_body[] =
	"{\"type\":\"urn:clashd:problem:internal\",\"title\":\"Internal error\","
	"\"status\":500,\"detail\":\"out of memory\"}";

static enum MHD_Result respond(http_request *r, unsigned status, const char *type,
                               const char *body, size_t len, const char *allow)
{
	/* MUST_COPY: the response may outlive the reply (MHD keeps it until the
	 * last byte is sent) and replies are tiny next to their queries. */
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO; /* MHD closes the connection */
	int ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type) == MHD_YES;
	if (allow)
		ok &= MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES;
	if (r->srv->draining)
		ok &= MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
	enum MHD_Result ret = ok ? MHD_queue_response(r->conn, status, resp) : MHD_NO;
	MHD_destroy_response(resp);
	r->state = REQ_RESPONDED;
	if (ret == MHD_YES) {
		r->status = (int)status;
		r->bytes_out = r->head ? 0 : len;
	}
	return ret;
}

/* An answer decided from the headers alone (`p` is taken; NULL when it could
 * not be built).
 *
 * MHD closes a connection whose response is queued before the request has
 * been read to its end, and closing with unread bytes makes the kernel reset
 * the connection, which can destroy the answer before the client reads it.
 * So the answer normally waits for the final handler call, the body (if any)
 * read and dropped meanwhile, and the connection stays open.  It goes out at
 * once when the client holds the body back until told to go on (Expect:
 * 100-continue: the client then learns the answer without sending the body)
 * or announced more than HTTP_MAX_BODY (not worth reading). */
static enum MHD_Result answer_early(http_request *r, proto_reply *p, const char *allow)
{
	if (r->has_body && (r->expect_continue || r->declared > HTTP_MAX_BODY)) {
		if (!p)
			return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1, NULL);
		enum MHD_Result ret =
			respond(r, (unsigned)p->status, p->content_type, p->body, p->length, allow);
		proto_reply_free(p);
		return ret;
	}
	if (p)
		r->reply = *p;
	r->reply_rc = p ? 0 : -1;
	r->allow = allow;
	r->state = REQ_REPLIED;
	return MHD_YES;
}

/* Send a problem now. */
static enum MHD_Result respond_problem(http_request *r, int status, const char *detail)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1, NULL);
	enum MHD_Result ret = respond(r, (unsigned)p.status, p.content_type, p.body, p.length, NULL);
	proto_reply_free(&p);
	return ret;
}

static enum MHD_Result answer_problem(http_request *r, int status, const char *detail,
                                      const char *allow)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return answer_early(r, NULL, allow);
	return answer_early(r, &p, allow);
}

static enum MHD_Result answer_json(http_request *r, int status, const char *json)
{
	proto_reply p = {status, PROTO_JSON, strdup(json), strlen(json)};
	return answer_early(r, p.body ? &p : NULL, NULL);
}

/* ---- the worker pool ---------------------------------------------------- */

/* On a worker thread: only this request's fields are touched. */
static void work_run(uv_work_t *w)
{
	http_request *r = w->data;
	r->reply_rc = r->route->reply(r->body, r->len, &r->reply);
}

/* Back on the loop thread. */
static void work_done(uv_work_t *w, int status)
{
	http_request *r = w->data;
	http_server *s = r->srv;
	assert(r->state == REQ_WORKING);
	if (status != 0) /* UV_ECANCELED: never cancelled, but answer anyway */
		r->reply_rc = -1;
	free(r->body); /* the query may be megabytes: do not keep it while sending */
	r->body = NULL;
	r->state = REQ_REPLIED;
	s->working--;
	MHD_resume_connection(r->conn);
	pump(s); /* resume does not wake an external loop by itself */
}

/* ---- the request handler ------------------------------------------------ */

/* How the body comes: its length, and whether the client waits for a
 * "100 Continue".  MHD has already rejected a malformed Content-Length. */
static void read_framing(http_request *r)
{
	const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_TRANSFER_ENCODING);
	const char *ex = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_EXPECT);
	if (cl && !te) {
		errno = 0;
		r->declared = strtoull(cl, NULL, 10);
		if (errno == ERANGE)
			r->declared = ULLONG_MAX;
	}
	r->has_body = te != NULL || r->declared > 0;
	r->expect_continue = ex && strcasecmp(ex, "100-continue") == 0;
}

/* First call: headers are in, no body yet.  Decides the answer to
 * everything but a well-formed POST /v1/query (answer_early says when it
 * goes out). */
static enum MHD_Result request_begin(http_request *r, const char *url, const char *method)
{
	char text[200];
	char detail[320];
	const http_route *route = http_route_find(url);

	if (!route) {
		snprintf(detail, sizeof detail, "no resource at %s",
		         log_printable(text, sizeof text, url));
		return answer_problem(r, 404, detail, NULL);
	}
	r->route = route;
	if (!http_route_allows(route, method)) {
		snprintf(detail, sizeof detail, "method %s is not allowed on %s; use %s",
		         r->method, route->path, route->allow);
		return answer_problem(r, 405, detail, route->allow);
	}
	switch (route->id) {
	case HTTP_ROUTE_LIVEZ:
		return answer_json(r, 200, "{\"status\":\"ok\"}");
	case HTTP_ROUTE_READYZ:
		if (r->srv->draining)
			return answer_json(r, 503, "{\"status\":\"draining\"}");
		return answer_json(r, 200, "{\"status\":\"ready\"}");
	case HTTP_ROUTE_QUERY:
	case HTTP_ROUTE_SCENE:
	case HTTP_ROUTE_CONTAINS:
		break;
	case HTTP_ROUTE_NONE:
		assert(0);
		break;
	}

	const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_CONTENT_TYPE);
	if (!http_media_is_json(ct)) {
		if (ct)
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json, not %s",
			         log_printable(text, sizeof text, ct));
		else
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json (the header is missing)");
		return answer_problem(r, 415, detail, NULL);
	}

	if (r->declared > HTTP_MAX_BODY) {
		snprintf(detail, sizeof detail,
		         "the request body (Content-Length %llu) is larger than the limit of %zu bytes",
		         r->declared, HTTP_MAX_BODY);
		return answer_problem(r, 413, detail, NULL);
	}
	return MHD_YES;
}

/* A piece of the body. */
static void request_receive(http_request *r, const char *data, size_t n)
{
	r->bytes_in += n;
	if (r->too_large || r->no_memory)
		return; /* discard to the end */
	if (n > HTTP_MAX_BODY - r->len) {
		r->too_large = 1;
		free(r->body);
		r->body = NULL;
		r->len = r->cap = 0;
		return;
	}
	if (r->len + n + 1 > r->cap) {
		/* Content-Length known: one exact allocation.  Chunked: double,
		 * from 64 KiB, never past the cap. */
		size_t want = r->len + n + 1;
		size_t cap = r->declared >= want ? (size_t)r->declared + 1 : r->cap * 2;
		if (cap < 65536)
			cap = 65536;
		if (cap > HTTP_MAX_BODY + 1)
			cap = HTTP_MAX_BODY + 1;
		if (cap < want)
			cap = want;
		char *body = realloc(r->body, cap);
		if (!body) {
			r->no_memory = 1;
			free(r->body);
			r->body = NULL;
			r->len = r->cap = 0;
			return;
		}
		r->body = body;
		r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
}

/* Final call of a query: the whole body is in. */
static enum MHD_Result request_submit(http_request *r)
{
	http_server *s = r->srv;
	char detail[160];

	if (r->too_large) {
		snprintf(detail, sizeof detail,
		         "the request body is larger than the limit of %zu bytes", HTTP_MAX_BODY);
		return respond_problem(r, 413, detail); /* read to its end: keep-alive */
	}
	if (!r->body && !r->no_memory) {
		r->body = malloc(1);
		r->cap = 1;
		r->no_memory = r->body == NULL;
	}
	if (r->no_memory)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1, NULL);
	r->body[r->len] = '\0';

	r->work.data = r;
	MHD_suspend_connection(r->conn);
	r->state = REQ_WORKING;
	s->working++;
	int rc = uv_queue_work(s->loop, &r->work, work_run, work_done);
	assert(rc == 0); /* fails only for a NULL work_cb */
	(void)rc;
	return MHD_YES; /* never MHD_NO once suspended */
}

/* The resumed call: send what the worker produced. */
static enum MHD_Result request_reply(http_request *r)
{
	if (r->reply_rc != 0)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1, NULL);
	enum MHD_Result ret = respond(r, (unsigned)r->reply.status, r->reply.content_type,
	                              r->reply.body, r->reply.length, r->allow);
	proto_reply_free(&r->reply);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *data, size_t *data_size, void **con_cls)
{
	http_server *s = cls;
	http_request *r = *con_cls;
	(void)version;

	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		r->srv = s;
		r->conn = conn;
		r->start_ns = uv_hrtime();
		r->head = strcmp(method, "HEAD") == 0;
		log_printable(r->method, sizeof r->method, method);
		log_printable(r->path, sizeof r->path, url);
		read_framing(r);
		*con_cls = r;
		s->requests++;
		r->next = s->active;
		if (s->active)
			s->active->prev = r;
		s->active = r;
		return request_begin(r, url, method);
	}
	if (*data_size) {
		size_t n = *data_size;
		*data_size = 0;
		if (r->state == REQ_RECEIVING) {
			request_receive(r, data, n);
		} else if (r->state == REQ_REPLIED) {
			/* The body of a request answered from its headers:
			 * dropped, up to the cap; past it, answer and close. */
			r->bytes_in += n;
			if (r->bytes_in > HTTP_MAX_BODY)
				return request_reply(r);
		}
		return MHD_YES;
	}
	switch (r->state) {
	case REQ_RECEIVING:
		return request_submit(r);
	case REQ_REPLIED:
		return request_reply(r);
	case REQ_WORKING:   /* not called while suspended */
	case REQ_RESPONDED: /* not called once a response is queued */
		break;
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
	 * with one, and MHD does not watch its socket. */
	assert(r->state != REQ_WORKING);

	double secs = (double)(uv_hrtime() - r->start_ns) / 1e9;
	json_t *f = json_pack("{s:s, s:s, s:i, s:f, s:I, s:I}",
	                      "method", r->method, "path", r->path, "status", r->status,
	                      "duration_s", secs, "bytes_in", (json_int_t)r->bytes_in,
	                      "bytes_out", (json_int_t)r->bytes_out);
	const char *why = termination_name(toe);
	if (f && why)
		json_object_set_new(f, "error", json_string(why));
	log_emit(why ? "warn" : "info", "request", f);

	proto_reply_free(&r->reply);
	free(r->body);
	if (r->prev)
		r->prev->next = r->next;
	else
		s->active = r->next;
	if (r->next)
		r->next->prev = r->prev;
	free(r);
	*con_cls = NULL;
	assert(s->requests > 0);
	s->requests--;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
	http_server *s = cls;
	(void)conn;
	(void)socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		s->connections++;
	} else {
		assert(s->connections > 0);
		s->connections--;
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
	log_emit("warn", "libmicrohttpd", json_pack("{s:s}", "detail",
	                                            log_printable(text, sizeof text, raw)));
}

/* ---- the loop side ------------------------------------------------------ */

static void on_handle_closed(uv_handle_t *h)
{
	http_server *s = h->data;
	if (--s->open_handles > 0)
		return;
	void (*on_closed)(void *) = s->on_closed;
	void *arg = s->arg;
	free(s);
	if (on_closed)
		on_closed(arg);
}

/* Drained: no request left, so no connection is suspended. */
static void shut(http_server *s)
{
	assert(s->requests == 0 && s->working == 0);
	s->closing = 1;
	log_emit("info", "stopped", json_pack("{s:i}", "connections_dropped",
	                                      (int)s->connections));
	/* Stop watching the epoll fd before MHD closes it. */
	uv_close((uv_handle_t *)&s->poll, on_handle_closed);
	uv_close((uv_handle_t *)&s->timer, on_handle_closed);
	uv_close((uv_handle_t *)&s->drain, on_handle_closed);
	MHD_stop_daemon(s->daemon);
	s->daemon = NULL;
}

static void on_timer(uv_timer_t *t)
{
	pump(t->data);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
	(void)status; /* an error on the epoll fd: MHD_run will report it */
	(void)events;
	pump(p->data);
}

/* libmicrohttpd 0.9.75 does not notice a client that closes in the middle
 * of its body until the connection times out (HTTP_CONNECTION_TIMEOUT_S),
 * which would hold the drain that long.  Such a request cannot be answered
 * anyway: find them (end of stream with nothing left to read) and give
 * their connections a 1 s timeout, which MHD then enforces. */
static void expire_gone_uploads(http_server *s)
{
	for (http_request *r = s->active; r; r = r->next) {
		if (r->state != REQ_RECEIVING || r->peer_gone)
			continue;
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		char b;
		if (ci && recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
			r->peer_gone = 1;
			MHD_set_connection_option(r->conn, MHD_CONNECTION_OPTION_TIMEOUT,
			                          (unsigned int)1);
		}
	}
}

static void on_drain_tick(uv_timer_t *t)
{
	http_server *s = t->data;
	if (uv_now(s->loop) - s->drain_start >= HTTP_DRAIN_GRACE_MS)
		s->grace_over = 1;
	expire_gone_uploads(s);
	pump(s);
}

/* Let MHD do all it can now, then sleep until its next deadline. */
static void pump(http_server *s)
{
	if (s->closing)
		return;
	MHD_run(s->daemon);
	if (s->draining && s->requests == 0 && (s->connections == 0 || s->grace_over)) {
		shut(s);
		return;
	}
	MHD_UNSIGNED_LONG_LONG ms;
	if (MHD_get_timeout(s->daemon, &ms) == MHD_YES)
		uv_timer_start(&s->timer, on_timer, ms > INT_MAX ? INT_MAX : ms, 0);
	else
		uv_timer_stop(&s->timer);
}

void http_server_drain(http_server *s)
{
	if (s->draining || s->closing)
		return;
	/* Take in the connections the kernel has already accepted for us:
	 * closing the listener would reset them. */
	MHD_run(s->daemon);
	s->draining = 1;
	MHD_socket fd = MHD_quiesce_daemon(s->daemon);
	if (fd != MHD_INVALID_SOCKET)
		close(fd); /* external polling: the listener is ours to close */
	log_emit("info", "draining", json_pack("{s:i, s:i}", "requests", (int)s->requests,
	                                       "connections", (int)s->connections));
	s->drain_start = uv_now(s->loop);
	uv_timer_start(&s->drain, on_drain_tick, HTTP_DRAIN_TICK_MS, HTTP_DRAIN_TICK_MS);
	pump(s);
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
                      void (*on_closed)(void *arg), void *arg)
{
	http_server *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->loop = loop;
	s->on_closed = on_closed;
	s->arg = arg;

	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	uint16_t port;
	if (cfg->addr.ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		port = ntohs(((const struct sockaddr_in6 *)&cfg->addr)->sin6_port);
	} else {
		port = ntohs(((const struct sockaddr_in *)&cfg->addr)->sin_port);
	}
	s->daemon = MHD_start_daemon(
		flags, port, NULL, NULL, on_request, s,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&cfg->addr,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_CONNECTION_TIMEOUT_S,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		MHD_OPTION_SIGPIPE_HANDLED_BY_APP, (int)1,
		MHD_OPTION_END);
	if (!s->daemon) {
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
		free(s);
		return rc;
	}
	uv_timer_init(loop, &s->timer);
	uv_timer_init(loop, &s->drain);
	s->poll.data = s->timer.data = s->drain.data = s;
	s->open_handles = 3;
	uv_poll_start(&s->poll, UV_READABLE, on_poll);
	pump(s);
	*out = s;
	return 0;
}
