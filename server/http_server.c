/*
 * http_server.c — libmicrohttpd inside a libuv loop, queries on libuv's pool.
 *
 * One loop thread owns all network I/O; decoding and queries run on the
 * libuv worker pool (uv_queue_work, size = --threads), so a slow query never
 * holds up other connections and the loop never parses JSON.  libmicrohttpd
 * runs in "external epoll" mode: a uv_poll watches its epoll fd, and MHD is
 * run after every poll, timer and after-work callback.  A request's first
 * handler call (headers read) decides everything the head can decide (form,
 * route, token, method, media type, size, admission); a query's body is
 * then copied, its connection suspended and its work queued, and the
 * after-work callback resumes the connection to send the answer.  Around
 * that: backpressure (--max-queue: 503; --max-queue-per-client: 429), one
 * sweep timer for the deadlines (--request-timeout, --read-timeout, the
 * cuts of slow or vanished clients), batches answered in chunks by all the
 * workers, and the drain on SIGTERM.
 *
 * The design note (the loop, the order of the checks, why not MHD's own
 * threads, backpressure, deadlines, batches, drain): docs/design.md.
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http_auth.h"
#include "http_cors.h"
#include "http_gzip.h"
#include "http_listen.h"
#include "http_metrics.h"
#include "http_peer.h"
#include "http_route.h"
#include "http_strict.h"
#include "log.h"
#include "openapi.h"
#include "problem.h"
#include "proto.h"
#include "request_id.h"
#include "store.h"

/* The longest Origin header considered for CORS (longer ones are no
 * allowed origin). */
#define HTTP_ORIGIN_MAX 256

/* One per TCP connection, from MHD's STARTED to CLOSED notification. */
typedef struct http_conn {
	struct http_conn *prev, *next; /* in srv->conns */
	struct MHD_Connection *conn;
	struct http_request *req; /* the request under way, if any */
	uint64_t phase_start;     /* uv_now() when the current request (or the wait
	                             for one) began: the read deadline counts from it */
	int shut;                 /* its socket has been shut down */
	int served;               /* a request has completed on it: idle now
	                             means between requests (relieve_pressure) */
	int bad_target;           /* the target of the request being read decoded
	                             to a control character (on_unescape) */
} http_conn;

struct http_server {
	uv_loop_t *loop;
	const server_config *cfg;
	const proto_context *ctx; /* every proto call's */
	struct MHD_Daemon *daemon;
	uv_poll_t poll;      /* MHD's epoll fd */
	uv_timer_t timer;    /* MHD_get_timeout() */
	uv_idle_t again;     /* MHD_get_timeout() == 0: run on the next pass */
	uv_timer_t drain;    /* ticks while draining */
	uv_timer_t sweep;    /* deadlines */
	int open_handles;    /* of the four above, not yet closed */
	int draining;        /* SIGTERM seen: /readyz 503, Connection: close */
	int listener_closed; /* no more connections can arrive */
	int grace_over;      /* idle connections may now be dropped */
	int drain_expired;   /* --drain-timeout passed: stop everything */
	uint64_t drain_start; /* uv_now() at SIGTERM */
	int closing;         /* daemon stopped, handles closing */
	unsigned connections; /* open TCP connections */
	int full;            /* connections reached --max-connections since the
	                        last run of MHD that had a free slot (pump) */
	unsigned requests;   /* requests begun and not completed */
	unsigned working;    /* requests queued or running on the pool */
	unsigned jobs;       /* work items of those on the pool: queries, batch
	                        splits and batch chunks */
	unsigned running;    /* of the jobs, running now (workers update it) */
	unsigned admitted;   /* queries admitted, not yet back from the pool */
	unsigned imports;    /* of them, mesh files (--max-imports) */
	unsigned heavy;      /* heavy requests on the pool (see heavy_limit) */
	struct http_request *heavy_head, *heavy_tail; /* heavy ones waiting */
	unsigned heavy_waiting;
	struct http_request *active; /* the `requests` ones, linked */
	http_conn *conns, *conns_tail; /* the `connections` ones, linked,
	                                  oldest first */
	http_metrics *metrics;
	store_redis *redis;  /* the store's Redis tier, for /metrics; or NULL */
	const proto_context *const *tenant_ctx; /* token i's tenant's context, or
	                                           NULL (none, or no tenants) */
	request_id_gen ids;
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

/* Why a query was stopped before its answer. */
enum request_stop {
	STOP_NONE = 0,
	STOP_DEADLINE, /* --request-timeout: 504 */
	STOP_SHUTDOWN  /* --drain-timeout: 503 */
};

/* A chunk of a batch: queries [from, to). */
typedef struct batch_job {
	uv_work_t work;
	struct http_request *r;
	size_t from, to;
	proto_call call; /* the worker's in/out */
	int unlimited;   /* queued with no cost bound: the batch's heavy turn */
	struct batch_job *redo_next; /* in its batch's redo list */
} batch_job;

typedef struct http_request {
	http_server *srv;
	const proto_context *ctx; /* its calls': the server's, or its tenant's */
	int tenant;        /* its token names a tenant: ctx is that tenant's */
	struct http_request *prev, *next; /* in srv->active */
	struct MHD_Connection *conn;
	http_conn *hc;     /* its connection's record (NULL once that closed) */
	const http_route *route;
	enum request_state state;
	uint64_t start_ns;
	int head;          /* HEAD: no body goes out */
	int has_body;      /* Content-Length > 0 or Transfer-Encoding */
	int expect_continue; /* the client waits for "100 Continue" */
	unsigned long long declared; /* Content-Length; 0 if none, chunked */
	const char *allow; /* the Allow header of a 405 (static) */
	const char *www_authenticate; /* of a 401 (static) */
	const char *location; /* of a redirect (static) */
	int page;             /* a file of the demo page: not to be cached stale */
	int accept_encoding; /* a 415 for Content-Encoding: say which we take */
	char mesh_type[64]; /* POST /v1/shapes with a mesh file: its Content-Type */
	char weld[64];      /* and its "weld" query parameter ("": none; " ":
	                       one empty or too long, refused as no number) */
	char shape_id[80];  /* GET or HEAD of a shape memory lacks: its id, looked
	                       up in the store's tier on a worker */
	http_gzip *gzip;   /* Content-Encoding: gzip: its inflater */
	const char *gzip_error; /* the body is not gzip: zlib's word (static) */
	int retry_after;   /* a 503: say when to come back */
	const char *cors;  /* Access-Control-Allow-Origin value, or NULL */
	char *origin;      /* a copy of its Origin header (malloc'd; with
	                      --cors-origin or on a preflight; "cors" may point here) */
	int preflight;     /* a CORS preflight: grant headers go out */
	const char *preflight_methods; /* what it grants (static, the route's, or
	                                  the request's header) */
	int close;         /* its framing is unsound: the answer closes the connection */
	char id[REQUEST_ID_MAX + 1];
	char method[16];   /* printable copies, for the log */
	char path[256];
	char *body;        /* the upload, NUL-terminated for the decoder */
	size_t len, cap;
	uint64_t bytes_in; /* body bytes received, discarded ones included */
	int too_large;     /* the body went over body_limit() */
	int peer_gone;     /* drain found its client gone mid-body */
	int no_memory;     /* the body could not be stored */
	int admitted;      /* counts in srv->admitted (a mesh file: and imports) */
	int overdue;       /* answered 504 at its deadline while its worker ran */
	int worker_gone;   /* that worker has returned since */
	int orphan;        /* its connection was done with it first: the
	                      worker's return frees it (request_free) */
	proto_reply early; /* that answer (the worker owns `reply`) */
	int heavy;         /* counts in srv->heavy */
	int heavy_waiting; /* in srv's heavy list, not yet on the pool */
	struct http_request *heavy_next;
	int expired;       /* past --read-timeout or --min-body-rate while receiving */
	enum http_reject expired_why;
	uint64_t expired_at;
	uint64_t body_start; /* uv_now() at its headers */
	int body_in;       /* the final handler call came: no more body */
	unsigned char client[16]; /* its client's address (IPv4 as ::ffff:a.b.c.d) */
	int rejected;      /* 1 + enum http_reject, for the log; 0 if none */
	uint64_t deadline; /* uv_now() by which the work must be done */
	enum request_stop stop;
	volatile int cancel; /* read by the worker (proto, core) */
	uv_work_t work;
	proto_call call;   /* the worker's in/out */
	int reply_rc;      /* proto_query_reply_ex()'s result */
	/* POST /v1/batch: set by the split (its worker), then loop-owned but
	 * for what the chunk workers write (see batch_job_run). */
	proto_batch *batch;
	size_t queries;    /* its size, for the log */
	int batch_chunks;  /* the split is done: `jobs` are the work (loop) */
	batch_job *jobs;
	size_t njobs;
	size_t next_job;   /* jobs [0, next_job) have been queued */
	unsigned jobs_out; /* queued or running now */
	int costly;        /* a chunk stopped over HTTP_HEAVY_COST: the rest
	                      runs in the heavy share */
	batch_job *redo_head, *redo_tail; /* those chunks, to run again */
	int heavy_out;     /* the one unbounded chunk is queued or running */
	unsigned jobs_left; /* not finished; the worker bringing it to 0 joins */
	int batch_joined;  /* every query answered and the reply built (by that worker) */
	proto_reply reply;
	int status;        /* sent, for the log; 0 if none */
	size_t bytes_out;
} http_request;

static void pump(http_server *s);
static void sweep_by(http_server *s, uint64_t due);

static void reject(http_request *r, enum http_reject why)
{
	http_metrics_reject(r->srv->metrics, why);
	r->rejected = 1 + (int)why;
}

/* ---- responses ---------------------------------------------------------- */

/* Sent when even building a problem fails (out of memory); the same
 * members proto_problem_reply(500, ...) would give. */
static const char oom_body[] =
	"{\"type\":\"urn:clashd:problem:internal\",\"title\":\"Internal error\","
	"\"status\":500,\"detail\":\"out of memory\"}";

static int add_header(struct MHD_Response *resp, const char *name, const char *value)
{
	return MHD_add_response_header(resp, name, value) == MHD_YES;
}

/* Queue the answer.  `owned`: `body` is malloc'd and passes to MHD, which
 * frees it once sent (no copy); else it is copied (static text). */
static enum MHD_Result respond_body(http_request *r, unsigned status, const char *type,
                                    char *body, size_t len, int owned)
{
	http_server *s = r->srv;
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
	if (!resp) {
		if (owned)
			free(body);
		return MHD_NO; /* MHD closes the connection */
	}
	int ok = 1;
	if (status != 204)
		ok &= add_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ok &= add_header(resp, "X-Request-Id", r->id);
	if (r->allow)
		ok &= add_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (r->www_authenticate)
		ok &= add_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, r->www_authenticate);
	if (r->location)
		ok &= add_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
	if (r->page) {
		ok &= add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
		ok &= add_header(resp, "X-Content-Type-Options", "nosniff");
	}
	if (r->accept_encoding)
		ok &= add_header(resp, "Accept-Encoding", "gzip");
	if (r->retry_after)
		ok &= add_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, HTTP_RETRY_AFTER_S);
	if (s->cfg->n_cors_origins) {
		/* The answer depends on Origin whether or not it was allowed. */
		ok &= add_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
		if (r->cors) {
			ok &= add_header(resp, "Access-Control-Allow-Origin", r->cors);
			if (r->preflight) {
				ok &= add_header(resp, "Access-Control-Allow-Methods",
				                 r->preflight_methods);
				ok &= add_header(resp, "Access-Control-Allow-Headers",
				                 HTTP_CORS_ALLOW_HEADERS);
				ok &= add_header(resp, "Access-Control-Max-Age", HTTP_CORS_MAX_AGE);
			} else {
				ok &= add_header(resp, "Access-Control-Expose-Headers",
				                 HTTP_CORS_EXPOSE_HEADERS);
			}
		}
	}
	if (s->draining || r->close)
		ok &= add_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ret = ok ? MHD_queue_response(r->conn, status, resp) : MHD_NO;
	MHD_destroy_response(resp);
	r->state = REQ_RESPONDED;
	if (ret == MHD_YES) {
		r->status = (int)status;
		r->bytes_out = r->head ? 0 : len;
	}
	return ret;
}

/* A static body, copied. */
static enum MHD_Result respond(http_request *r, unsigned status, const char *type,
                               const char *body, size_t len)
{
	return respond_body(r, status, type, (char *)body, len, 0);
}

/* A reply: its body goes to MHD as it is, and *p is left empty. */
static enum MHD_Result respond_reply(http_request *r, proto_reply *p)
{
	char *body = p->body;
	p->body = NULL;
	enum MHD_Result ret = respond_body(r, (unsigned)p->status, p->content_type, body,
	                                   p->length, 1);
	proto_reply_free(p);
	return ret;
}

/* The bound of r's body (inflated): a mesh file's is its own. */
static size_t body_limit(const http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	return r->mesh_type[0] ? cfg->max_import_body : cfg->max_body;
}

static const char *body_limit_flag(const http_request *r)
{
	return r->mesh_type[0] ? "--max-import-body" : "--max-body";
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
 * or announced more than its bound, body_limit() (not worth reading). */
static enum MHD_Result answer_early(http_request *r, proto_reply *p)
{
	if (r->has_body && (r->expect_continue || r->declared > body_limit(r))) {
		if (!p)
			return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
		return respond_reply(r, p);
	}
	if (p)
		r->reply = *p;
	r->reply_rc = p ? 0 : -1;
	r->state = REQ_REPLIED;
	return MHD_YES;
}

/* Send a problem now. */
static enum MHD_Result respond_problem(http_request *r, int status, const char *detail)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
	return respond_reply(r, &p);
}

static enum MHD_Result answer_problem(http_request *r, int status, const char *detail)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return answer_early(r, NULL);
	return answer_early(r, &p);
}

/* Not admitted now: `status` (503 or 429) with Retry-After: 1. */
static enum MHD_Result refuse_admission(http_request *r, int status, enum http_reject why,
                                        const char *detail)
{
	r->retry_after = 1;
	reject(r, why);
	return answer_problem(r, status, detail);
}

/* `body` is taken (malloc'd; NULL when it could not be built). */
static enum MHD_Result answer_text(http_request *r, int status, const char *type, char *body,
                                  size_t len)
{
	proto_reply p = {status, type, body, len};
	return answer_early(r, body ? &p : NULL);
}

static enum MHD_Result answer_json(http_request *r, int status, const char *json)
{
	return answer_text(r, status, PROTO_JSON, strdup(json), strlen(json));
}

/* ---- the worker pool ---------------------------------------------------- */

/* On a worker thread: only this request's fields are touched (and the
 * server's `running`, atomically). */
static void work_run(uv_work_t *w)
{
	http_request *r = w->data;
	__atomic_add_fetch(&r->srv->running, 1, __ATOMIC_RELAXED);
	r->call.ctx = r->ctx;
	r->call.cancel = &r->cancel;
	r->call.client = r->client;
	if (r->route->id == HTTP_ROUTE_BATCH)
		r->reply_rc = proto_batch_open(r->body, r->len, &r->call, &r->batch, &r->reply);
	else if (r->mesh_type[0])
		r->reply_rc = proto_shape_import_reply(r->body, r->len, r->mesh_type,
		                                       r->weld[0] ? r->weld : NULL, &r->call,
		                                       &r->reply);
	else if (r->shape_id[0])
		r->reply_rc = proto_shape_reply_through(r->ctx, r->method, r->shape_id, &r->reply);
	else
		r->reply_rc = r->route->reply(r->body, r->len, &r->call, &r->reply);
	__atomic_sub_fetch(&r->srv->running, 1, __ATOMIC_RELAXED);
}

static void work_done(uv_work_t *w, int status);

static double cost_bound(const http_request *r, int unlimited);

/* Onto the pool (loop thread). */
static void queue_request(http_request *r)
{
	r->call.max_cost = cost_bound(r, r->heavy);
	r->srv->jobs++;
	int rc = uv_queue_work(r->srv->loop, &r->work, work_run, work_done);
	assert(rc == 0); /* fails only for a NULL work_cb */
	(void)rc;
}

/*
 * Fair workers.  A heavy request may hold at most threads - 1 workers: the
 * others wait in a list on the loop, so a small query always finds a
 * worker that no heavy one holds, and waits at most behind other small
 * ones.  Heavy is what a request will cost, not how it looks: a body of
 * HTTP_HEAVY_BYTES or more (its parse alone takes milliseconds) and an
 * import are heavy from the start; any other request is parsed on a worker
 * and judged by proto's cost (proto/request_cost.h: every shape it names,
 * stored ones by their size in the store, its pairs and primitives),
 * before anything is decoded or run (proto_call.max_cost).  Over
 * HTTP_HEAVY_COST it comes back unanswered and takes its turn like any
 * heavy one, so no worker is held by a heavy request waiting: parsed
 * again once its turn comes (a body of less than 64 KiB: microseconds).
 * A batch's chunks run under a share of the bound, item by item and in
 * all (2 a worker at a time: together the bound); a chunk stopped at an
 * item over it, or once its items cost it in all, makes the batch
 * costly: its stopped chunks and those not yet queued then run one at a
 * time with no bound, each a turn in the heavy share (its place let go
 * after each, so heavy requests take turns), and only its first chunks
 * ever ran beside small queries.  With one thread there is nothing to
 * keep free.
 */
#define HTTP_HEAVY_BYTES ((size_t)64 << 10)
/* About 25 ms of one worker at the most (proto/request_cost.h). */
#define HTTP_HEAVY_COST 25000.0

static unsigned heavy_limit(const http_server *s)
{
	return s->cfg->threads > 1 ? s->cfg->threads - 1 : 1;
}

/* Heavy before any parse. */
static int is_heavy(const http_request *r)
{
	if (r->mesh_type[0])
		return 1; /* imports take turns (proto.h): never every worker waiting */
	return r->route->id != HTTP_ROUTE_BATCH && r->len >= HTTP_HEAVY_BYTES;
}

/* The cost bound of work queued now (loop thread): none once it holds
 * its place in the heavy share, or with nothing to keep free. */
static double cost_bound(const http_request *r, int unlimited)
{
	return unlimited || r->srv->cfg->threads <= 1 ? 0 : HTTP_HEAVY_COST;
}

static void heavy_wait(http_request *r)
{
	http_server *s = r->srv;
	r->heavy_waiting = 1;
	r->heavy_next = NULL;
	if (s->heavy_tail)
		s->heavy_tail->heavy_next = r;
	else
		s->heavy_head = r;
	s->heavy_tail = r;
	s->heavy_waiting++;
}

/* Take r out of the waiting list (it is in it). */
static void heavy_unwait(http_request *r)
{
	http_server *s = r->srv;
	http_request **pp = &s->heavy_head, *prev = NULL;
	while (*pp != r) {
		prev = *pp;
		pp = &(*pp)->heavy_next;
	}
	*pp = r->heavy_next;
	if (s->heavy_tail == r)
		s->heavy_tail = prev;
	r->heavy_waiting = 0;
	s->heavy_waiting--;
}

static void batch_pump(http_request *r);

/* r has its place in the heavy share: its work goes on. */
static void heavy_start(http_request *r)
{
	r->heavy = 1;
	r->srv->heavy++;
	if (r->batch_chunks)
		batch_pump(r);
	else
		queue_request(r);
}

/* r is heavy: on now if the share has room, else in the waiting list. */
static void heavy_admit(http_request *r)
{
	if (r->srv->heavy >= heavy_limit(r->srv))
		heavy_wait(r);
	else
		heavy_start(r);
}

/* A heavy request is off the pool: the next waiting one goes on. */
static void heavy_done(http_request *r)
{
	http_server *s = r->srv;
	if (!r->heavy)
		return;
	r->heavy = 0;
	s->heavy--;
	if (s->heavy_head && s->heavy < heavy_limit(s)) {
		http_request *next = s->heavy_head;
		heavy_unwait(next);
		heavy_start(next);
	}
}

/* A chunk of a batch, on a worker: only its own queries are touched, and
 * the worker that finishes the last chunk builds the reply. */
static void batch_job_run(uv_work_t *w)
{
	batch_job *j = w->data;
	http_request *r = j->r;
	__atomic_add_fetch(&r->srv->running, 1, __ATOMIC_RELAXED);
	j->call.ctx = r->ctx;
	j->call.cancel = &r->cancel;
	int rc = proto_batch_answer(r->batch, j->from, j->to, &j->call);
	if (rc != 0)
		j->call.cancelled = -1; /* out of memory: the batch fails (500) */
	/* Release: this chunk's answers are visible to whoever joins.  A
	 * chunk stopped at a heavy item is not done: it runs again. */
	if ((rc != 0 || !j->call.deferred) &&
	    __atomic_sub_fetch(&r->jobs_left, 1, __ATOMIC_ACQ_REL) == 0) {
		int ok = 1;
		for (size_t k = 0; k < r->njobs; k++)
			ok &= r->jobs[k].call.cancelled == 0;
		if (ok) {
			proto_call c = {.ctx = r->ctx};
			r->reply_rc = proto_batch_reply(r->batch, &c, &r->reply);
			r->batch_joined = r->reply_rc == 0 && !c.cancelled;
			if (!r->batch_joined)
				proto_reply_free(&r->reply);
		}
	}
	__atomic_sub_fetch(&r->srv->running, 1, __ATOMIC_RELAXED);
}

static void release_admission(http_request *r)
{
	if (r->admitted) {
		r->admitted = 0;
		assert(r->srv->admitted > 0);
		r->srv->admitted--;
		if (r->mesh_type[0]) {
			assert(r->srv->imports > 0);
			r->srv->imports--;
		}
	}
}

/* The reply of a query stopped before its answer. */
static void stopped_reply(http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	char detail[200];
	int status;
	proto_reply_free(&r->reply);
	if (r->stop == STOP_SHUTDOWN) {
		status = 503;
		r->retry_after = 1;
		snprintf(detail, sizeof detail, "the server is shutting down and stopped this query "
		                                "(--drain-timeout %u ms); retry elsewhere",
		         cfg->drain_timeout_ms);
		reject(r, HTTP_REJECT_SHUTDOWN);
	} else {
		status = 504;
		snprintf(detail, sizeof detail, "the query did not finish within the server's limit "
		                                "of %u ms (--request-timeout)",
		         cfg->request_timeout_ms);
		reject(r, HTTP_REJECT_DEADLINE);
	}
	r->reply_rc = proto_problem_reply(status, detail, NULL, &r->reply);
}

static void batch_job_done(uv_work_t *w, int status);

/* Queue a chunk of a batch (loop thread); `unlimited`: its heavy turn. */
static void batch_queue(http_request *r, batch_job *j, int unlimited)
{
	j->work.data = j;
	j->unlimited = unlimited;
	/* Up to 2 chunks a worker at a time (batch_pump): together within
	 * the bound, as one request. */
	j->call.max_cost = cost_bound(r, unlimited) / (2 * r->srv->cfg->threads);
	r->heavy_out |= unlimited;
	r->jobs_out++;
	r->srv->jobs++;
	int rc = uv_queue_work(r->srv->loop, &j->work, batch_job_run, batch_job_done);
	assert(rc == 0); /* fails only for a NULL work_cb */
	(void)rc;
}

/* Queue what a batch may run now (loop thread): new chunks up to 2 per
 * worker, so every worker gets a share and the batch never floods the
 * pool; once it is costly, one chunk at a time in its heavy turn, those
 * stopped first. */
static void batch_pump(http_request *r)
{
	if (r->stop)
		return;
	if (r->costly) {
		if (!r->heavy || r->heavy_out)
			return;
		batch_job *j = r->redo_head;
		if (j) {
			r->redo_head = j->redo_next;
			if (!r->redo_head)
				r->redo_tail = NULL;
		} else if (r->next_job < r->njobs) {
			j = &r->jobs[r->next_job++];
		}
		if (j)
			batch_queue(r, j, 1);
		return;
	}
	while (r->next_job < r->njobs && r->jobs_out < 2 * r->srv->cfg->threads)
		batch_queue(r, &r->jobs[r->next_job++], 0);
}

/* A chunk stopped over the bound (loop thread): it runs again. */
static void batch_redo(http_request *r, batch_job *j)
{
	r->costly = 1;
	j->redo_next = NULL;
	if (r->redo_tail)
		r->redo_tail->redo_next = j;
	else
		r->redo_head = j;
	r->redo_tail = j;
}

/* The split is done: cut the batch into chunks and queue the first ones.
 * Returns 0, or -1 when memory ran out. */
static int batch_start(http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	size_t n = proto_batch_size(r->batch);
	r->queries = n;
	/* Chunks of about HTTP_BATCH_CHUNK_BYTES, at least 4 per worker when
	 * the batch is large enough, so every worker gets a share; an empty
	 * batch is one empty chunk (its worker builds the reply). */
	size_t avg = n ? r->len / n + 1 : 1;
	size_t per = HTTP_BATCH_CHUNK_BYTES / avg;
	size_t spread = (n + 4 * (size_t)cfg->threads - 1) / (4 * (size_t)cfg->threads);
	if (per > spread)
		per = spread;
	if (per < 1)
		per = 1;
	size_t njobs = n ? (n + per - 1) / per : 1;
	r->jobs = calloc(njobs, sizeof *r->jobs);
	if (!r->jobs)
		return -1;
	r->njobs = njobs;
	r->jobs_left = (unsigned)njobs;
	for (size_t k = 0; k < njobs; k++) {
		r->jobs[k].r = r;
		r->jobs[k].from = k * per < n ? k * per : n;
		r->jobs[k].to = (k + 1) * per < n ? (k + 1) * per : n;
	}
	r->batch_chunks = 1;
	batch_pump(r);
	return 0;
}

static void work_finish(http_request *r, int status);

/* Back on the loop thread. */
static void work_done(uv_work_t *w, int status)
{
	http_request *r = w->data;
	r->srv->jobs--;
	if (status == 0 && r->call.deferred) {
		/* Over HTTP_HEAVY_COST, not answered: it takes its turn. */
		if (!r->stop) {
			heavy_admit(r);
			return;
		}
		status = UV_ECANCELED;
	}
	if (r->batch) {
		/* Split: answer its queries, unless stopped meanwhile. */
		if (r->stop) {
			status = UV_ECANCELED;
		} else if (batch_start(r) == 0) {
			return; /* its chunks are on the pool */
		} else {
			r->reply_rc = -1;
		}
	}
	work_finish(r, status);
}

/* The batch is over (loop thread): every chunk done, or it was stopped or
 * failed with none left on the pool. */
static void batch_settle(http_request *r)
{
	if (r->heavy_waiting)
		heavy_unwait(r);
	if (r->next_job < r->njobs || r->redo_head || !r->batch_joined) {
		/* Stopped (deadline, drain) or failed before every chunk ran. */
		int failed = 0;
		for (size_t k = 0; k < r->next_job; k++)
			failed |= r->jobs[k].call.cancelled < 0;
		if (failed && !r->stop) {
			r->reply_rc = -1;
			work_finish(r, 0);
		} else {
			work_finish(r, UV_ECANCELED);
		}
		return;
	}
	work_finish(r, 0);
}

/* A chunk is back (loop thread): queue the next, or finish the batch. */
static void batch_job_done(uv_work_t *w, int status)
{
	batch_job *j = w->data;
	http_request *r = j->r;
	r->srv->jobs--;
	r->jobs_out--;
	if (j->unlimited) {
		r->heavy_out = 0;
		heavy_done(r); /* its turn is over */
	}
	int going = status == 0 && j->call.cancelled == 0 && !r->stop;
	if (going && j->call.deferred)
		batch_redo(r, j);
	int left = r->redo_head || r->next_job < r->njobs;
	/* A costly batch asks for its next turn (behind the heavy ones
	 * waiting, when it just had one). */
	if (going && r->costly && left && !r->heavy && !r->heavy_waiting)
		heavy_admit(r);
	if (going)
		batch_pump(r);
	if (r->jobs_out > 0)
		return;
	if (going && left)
		return; /* waiting for its heavy turn */
	batch_settle(r);
}

/* The work of a request is over (loop thread): its reply is ready, or it
 * was stopped (UV_ECANCELED). */
static void request_free(http_request *r);

static void work_finish(http_request *r, int status)
{
	http_server *s = r->srv;
	if (r->overdue) {
		/* Answered at its deadline (overdue_answer): what the worker
		 * made is dropped; the request goes if its connection has. */
		heavy_done(r);
		s->working--;
		r->worker_gone = 1;
		if (r->orphan)
			request_free(r);
		return;
	}
	assert(r->state == REQ_WORKING);
	heavy_done(r);
	if (r->batch) {
		/* The iterations of every query answered count as a query's. */
		if (status == 0 && r->reply_rc == 0 && r->reply.status == 200) {
			long total = 0;
			for (size_t i = 0; i < r->queries; i++) {
				int st, it;
				if (proto_batch_item(r->batch, i, NULL, &st, &it) && st == 200 && it > 0) {
					http_metrics_iterations(s->metrics, it);
					total += it;
				}
			}
			r->call.iterations = total > INT_MAX ? INT_MAX : (int)total;
		}
		proto_batch_free(r->batch);
		r->batch = NULL;
		free(r->jobs);
		r->jobs = NULL;
	}
	if (status == UV_ECANCELED || r->call.cancelled) {
		/* Stopped: cancelled before it started, or it saw the flag.  A
		 * query that finished anyway keeps its answer. */
		if (r->stop == STOP_NONE)
			r->stop = STOP_DEADLINE;
		stopped_reply(r);
	} else if (status != 0) {
		r->reply_rc = -1;
	} else {
		switch (r->call.limit) {
		case PROTO_LIMIT_DEPTH: reject(r, HTTP_REJECT_TOO_DEEP); break;
		case PROTO_LIMIT_VERTICES: reject(r, HTTP_REJECT_TOO_MANY_VERTICES); break;
		case PROTO_LIMIT_SHAPES: reject(r, HTTP_REJECT_TOO_MANY_SHAPES); break;
		case PROTO_LIMIT_PART_DEPTH: reject(r, HTTP_REJECT_PARTS_TOO_DEEP); break;
		case PROTO_LIMIT_QUERIES: reject(r, HTTP_REJECT_TOO_MANY_QUERIES); break;
		case PROTO_LIMIT_NONE: break;
		}
		if (!r->queries && r->reply_rc == 0 && r->reply.status == 200 &&
		    r->call.iterations > 0)
			http_metrics_iterations(s->metrics, r->call.iterations);
	}
	free(r->body); /* the query may be megabytes: do not keep it while sending */
	r->body = NULL;
	r->state = REQ_REPLIED;
	s->working--;
	/* Still admitted: its answer is held until on_completed(). */
	if (r->hc)
		r->hc->phase_start = uv_now(s->loop); /* a fresh budget to send the answer */
	MHD_resume_connection(r->conn);
	pump(s); /* resume does not wake an external loop by itself */
}

/* A query running past its deadline is answered now, not when the core
 * next looks at its cancel flag (a parse or a hull may take longer than
 * the sweep's period): the 504 goes out, and the request record waits for
 * its worker, which frees it (work_finish) once the connection is done
 * with it (on_completed).  Not for a batch, whose chunks are short. */
static void overdue_answer(http_request *r)
{
	http_server *s = r->srv;
	proto_reply keep = r->reply; /* the worker's: not touched here */
	r->reply = (proto_reply){0};
	stopped_reply(r);
	r->early = r->reply;
	r->reply = keep;
	r->overdue = 1;
	if (r->hc)
		r->hc->phase_start = uv_now(s->loop); /* a fresh budget to send it */
	MHD_resume_connection(r->conn);
}

/* Stop a query on the pool (loop thread). */
static void stop_work(http_request *r, enum request_stop why)
{
	if (r->stop != STOP_NONE)
		return;
	r->stop = why;
	r->cancel = 1;
	if (r->heavy_waiting) {
		heavy_unwait(r);
		if (!r->batch_chunks) { /* never on the pool since */
			work_finish(r, UV_ECANCELED);
			return;
		}
		if (r->jobs_out == 0) { /* a batch with nothing on the pool */
			batch_settle(r);
			return;
		}
	}
	/* Not started yet: it never will, and work_done gets UV_ECANCELED.
	 * A batch: each chunk queued and not started (uv_cancel refuses the
	 * others, finished ones included); no further chunk is queued. */
	if (!r->batch_chunks) {
		if (uv_cancel((uv_req_t *)&r->work) != 0 && why == STOP_DEADLINE &&
		    r->route->id != HTTP_ROUTE_BATCH)
			overdue_answer(r);
		return;
	}
	for (size_t k = 0; k < r->next_job; k++)
		uv_cancel((uv_req_t *)&r->jobs[k].work);
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

static const char *header(http_request *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

/* The body's Content-Encoding: 0 none (or identity), 1 gzip, -1 another
 * (then a 415's detail is in `detail` and the answer names gzip). */
static int body_encoding(http_request *r, char *detail, size_t len)
{
	const char *ce = header(r, MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (!ce || strcasecmp(ce, "identity") == 0)
		return 0;
	if (strcasecmp(ce, "gzip") == 0 || strcasecmp(ce, "x-gzip") == 0)
		return 1;
	char text[64];
	snprintf(detail, len, "Content-Encoding %s is not supported: send the body as it is, or "
	                      "with Content-Encoding: gzip",
	         log_printable(text, sizeof text, ce));
	r->accept_encoding = 1;
	return -1;
}

/* Whether the route needs the bearer token. */
static int route_protected(const server_config *cfg, const http_route *route)
{
	/* The demo page holds no data (a browser cannot send a token to
	 * open it); its calls to the API need the token as any. */
	if (!cfg->auth_token || route->id == HTTP_ROUTE_HOME || route->id == HTTP_ROUTE_WEB)
		return 0;
	for (size_t i = 0; i < cfg->n_auth_open; i++)
		if (strcmp(cfg->auth_open[i], route->path) == 0)
			return 0;
	return 1;
}

static enum MHD_Result answer_metrics(http_request *r)
{
	http_server *s = r->srv;
	unsigned running = __atomic_load_n(&s->running, __ATOMIC_RELAXED);
	http_gauges g = {
		.connections = s->connections,
		.in_flight = s->requests,
		.admitted = s->admitted,
		.queue_limit = s->cfg->max_queue,
		.queued = (s->jobs > running ? s->jobs - running : 0) + s->heavy_waiting,
		.running = running,
		.draining = s->draining,
		.has_store = s->ctx->store != NULL,
	};
	if (s->ctx->store)
		proto_store_get_stats(s->ctx->store, &g.store);
	if (s->redis) {
		g.has_redis = 1;
		store_redis_get_stats(s->redis, &g.redis);
	}
	size_t len = 0;
	char *text = http_metrics_render(s->metrics, &g, &len);
	return answer_text(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

void http_server_watch_redis(http_server *s, store_redis *redis)
{
	s->redis = redis;
}

void http_server_set_tenants(http_server *s, const proto_context *const *ctx)
{
	s->tenant_ctx = ctx;
}

static enum MHD_Result answer_openapi(http_request *r)
{
	char *copy = malloc(openapi_json_len + 1);
	if (copy)
		memcpy(copy, openapi_json, openapi_json_len + 1);
	return answer_text(r, 200, PROTO_JSON, copy, openapi_json_len);
}

/* GET / and /web/...: the demo page's files, from memory (--web; a 404
 * when it is not served). */
static enum MHD_Result answer_page(http_request *r, const char *url)
{
	const http_static *web = &r->srv->cfg->web;
	char detail[320], text[200];
	if (r->srv->cfg->web_dir[0]) {
		if (r->route->id == HTTP_ROUTE_HOME) {
			r->location = "/web/";
			return answer_text(r, 308, "text/plain; charset=utf-8", strdup("/web/\n"), 6);
		}
		const http_static_file *f = url[4] == '/' ? http_static_find(web, url + 5) : NULL;
		if (f) {
			char *copy = malloc(f->len ? f->len : 1);
			if (copy)
				memcpy(copy, f->data, f->len);
			r->page = 1;
			return answer_text(r, 200, f->type, copy, f->len);
		}
	}
	snprintf(detail, sizeof detail, "no resource at %s%s", log_printable(text, sizeof text, url),
	         r->srv->cfg->web_dir[0] ? "" : " (the demo page is not served: --web)");
	return answer_problem(r, 404, detail);
}

/* GET, HEAD and DELETE /v1/shapes/{id}: a lookup in the store, short
 * enough for the loop thread; a miss with a second tier goes on to a
 * worker. */
static enum MHD_Result answer_shape(http_request *r, const char *id, const char *method)
{
	proto_reply p = {0};
	/* A shared store must not let one client remove another's parts: a
	 * tenant's own are its own to delete, the others only when the
	 * operator says so. */
	if (strcmp(method, "DELETE") == 0 && !r->tenant && !r->srv->cfg->store_delete)
		return answer_problem(r, 403, "deleting stored shapes is off on this server: they may "
		                              "be other clients' (--store-delete; or a token with a "
		                              "tenant, which deletes its own)");
	if (proto_shape_reply(r->ctx, method, id, &p) != 0)
		return answer_early(r, NULL);
	/* Not in memory, maybe in the shared tier: asked on a worker (the
	 * loop never waits for Redis), admitted as a query is; when the
	 * queue is full, memory's answer stands. */
	if (p.status == 404 && strcmp(method, "DELETE") != 0 && r->ctx->store &&
	    proto_store_tier(r->ctx->store) && strlen(id) < sizeof r->shape_id &&
	    r->srv->admitted < r->srv->cfg->max_queue) {
		proto_reply_free(&p);
		strcpy(r->shape_id, id);
		r->srv->admitted++;
		r->admitted = 1;
		return MHD_YES; /* to a worker once the (empty) body is in */
	}
	return answer_early(r, &p);
}

/* A client address as 16 bytes, IPv4 as ::ffff:a.b.c.d (zeros if unknown). */
static void client_key(struct MHD_Connection *conn, unsigned char key[16])
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	memset(key, 0, 16);
	if (!ci || !ci->client_addr)
		return;
	if (ci->client_addr->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr, 16);
	} else if (ci->client_addr->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ci->client_addr)->sin_addr, 4);
	}
}

/* Queries admitted from one client address (a scan: there are at most
 * --max-connections requests). */
static unsigned client_admitted(const http_server *s, const unsigned char key[16])
{
	unsigned n = 0;
	for (const http_request *q = s->active; q; q = q->next)
		n += q->admitted && memcmp(q->client, key, 16) == 0;
	return n;
}

/* The methods a preflight grants: the route's when they hold the one
 * asked for, else that one (a token of letters), so the real request is
 * answered (405, 404) readably; NULL for a method that is no token. */
static const char *preflight_methods(const http_route *route, const char *asked)
{
	size_t n = strlen(asked);
	if (n == 0 || n > 15 || strspn(asked, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != n)
		return NULL;
	return route && http_route_allows(route, asked) ? route->allow : asked;
}

/* CORS at the start of a request: keep its Origin, decide the grant, and
 * say whether it is a preflight to answer now (204; the grant headers go
 * out in respond when the origin is allowed).  A preflight from an origin
 * that is not allowed is logged with the flag that would allow it. */
static int cors_begin(http_request *r, const char *method, const http_route *route)
{
	const server_config *cfg = r->srv->cfg;
	const char *asked = header(r, "Access-Control-Request-Method");
	int preflight = strcmp(method, "OPTIONS") == 0 && asked;
	const char *origin = header(r, "Origin");
	if (!origin || !origin[0] || (!cfg->n_cors_origins && !preflight))
		return 0;
	char text[HTTP_ORIGIN_MAX];
	if (strlen(origin) >= HTTP_ORIGIN_MAX || !(r->origin = strdup(origin)))
		return 0;
	r->cors = http_cors_allow(cfg->cors_origins, cfg->n_cors_origins, r->origin);
	if (!preflight)
		return 0;
	r->preflight_methods = preflight_methods(route, asked);
	if (!r->cors || !r->preflight_methods) {
		LOG_EMIT("warn", "cors preflight refused", LOG_STR("request_id", r->id),
		         LOG_STR("origin", log_printable(text, sizeof text, origin)),
		         LOG_STR("reason", !cfg->n_cors_origins
		                               ? "no --cors-origin is set: CORS is off"
		                               : r->cors ? "the method asked for is not a token"
		                                         : "the origin is not in --cors-origin"),
		         LOG_STR("hint", "start clashd with --cors-origin ORIGIN "
		                         "(or CLASHD_CORS_ORIGIN) naming this origin"));
		if (!cfg->n_cors_origins)
			return 0;
		r->cors = NULL;
	}
	r->preflight = 1;
	r->route = route;
	return 1;
}

/* First call: headers are in, no body yet.  Decides the answer to
 * everything but a well-formed, admitted POST /v1/query (answer_early says
 * when it goes out). */
static enum MHD_Result request_begin(http_request *r, const char *url, const char *method)
{
	http_server *s = r->srv;
	const server_config *cfg = s->cfg;
	char text[200];
	char detail[320];
	const http_route *route = http_route_find(url);

	/* A preflight carries no credentials (browsers never send them on
	 * one), so it is answered before the token check, and for any path:
	 * the real request may be a 404 or 405 the page can then read. */
	if (cors_begin(r, method, route))
		return answer_text(r, 204, PROTO_JSON, strdup(""), 0);
	if (!route) {
		snprintf(detail, sizeof detail, "no resource at %s",
		         log_printable(text, sizeof text, url));
		return answer_problem(r, 404, detail);
	}
	r->route = route;

	if (route_protected(cfg, route)) {
		size_t which = 0;
		enum http_auth_result a = http_auth_check(cfg->auth_tokens, cfg->n_auth_tokens,
		                                          header(r, MHD_HTTP_HEADER_AUTHORIZATION),
		                                          &which);
		if (a == HTTP_AUTH_OK && s->tenant_ctx && s->tenant_ctx[which]) {
			r->ctx = s->tenant_ctx[which];
			r->tenant = 1;
		}
		if (a != HTTP_AUTH_OK) {
			reject(r, HTTP_REJECT_UNAUTHORIZED);
			if (a == HTTP_AUTH_MISSING) {
				r->www_authenticate = "Bearer realm=\"clashd\"";
				snprintf(detail, sizeof detail, "%s needs a bearer token: send "
				                                "\"Authorization: Bearer <token>\"",
				         route->path);
			} else {
				r->www_authenticate = "Bearer realm=\"clashd\", error=\"invalid_token\"";
				snprintf(detail, sizeof detail, "the bearer token is not the right one");
			}
			return answer_problem(r, 401, detail);
		}
	}

	if (!http_route_allows(route, method)) {
		snprintf(detail, sizeof detail, "method %s is not allowed on %s; use %s",
		         r->method, route->path, route->allow);
		r->allow = route->allow;
		return answer_problem(r, 405, detail);
	}
	switch (route->id) {
	case HTTP_ROUTE_LIVEZ:
		return answer_json(r, 200, "{\"status\":\"ok\"}");
	case HTTP_ROUTE_READYZ:
		if (s->draining)
			return answer_json(r, 503, "{\"status\":\"draining\"}");
		if (s->admitted >= cfg->max_queue)
			return answer_json(r, 503, "{\"status\":\"overloaded\"}");
		return answer_json(r, 200, "{\"status\":\"ready\"}");
	case HTTP_ROUTE_METRICS:
		return answer_metrics(r);
	case HTTP_ROUTE_OPENAPI:
		return answer_openapi(r);
	case HTTP_ROUTE_SHAPE:
		return answer_shape(r, url + strlen(route->path), method);
	case HTTP_ROUTE_HOME:
	case HTTP_ROUTE_WEB:
		return answer_page(r, url);
	case HTTP_ROUTE_SHAPES:
	case HTTP_ROUTE_QUERY:
	case HTTP_ROUTE_SCENE:
	case HTTP_ROUTE_CONTAINS:
	case HTTP_ROUTE_BATCH:
		break;
	case HTTP_ROUTE_NONE:
		assert(0);
		break;
	}

	const char *ct = header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
	const char *weld = route->id == HTTP_ROUTE_SHAPES
	                 ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "weld")
	                 : NULL;
	if (route->id == HTTP_ROUTE_SHAPES && proto_media_is_mesh(ct) &&
	    strlen(ct) < sizeof r->mesh_type) {
		strcpy(r->mesh_type, ct); /* a mesh file, imported (on a worker) */
		/* An empty or overlong value is no number: a space stands for it. */
		const int bad = weld && (!weld[0] || strlen(weld) >= sizeof r->weld);
		snprintf(r->weld, sizeof r->weld, "%s", bad ? " " : weld ? weld : "");
	} else if (weld && http_media_is_json(ct)) {
		return answer_problem(r, 422, "the query parameter weld is for mesh files: a JSON "
		                              "upload's mesh says its own \"weld\"");
	} else if (!http_media_is_json(ct)) {
		const char *mesh = route->id == HTTP_ROUTE_SHAPES ? HTTP_MESH_MEDIA_TYPES : "";
		if (ct)
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json%s, not %s", mesh,
			         log_printable(text, sizeof text, ct));
		else
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json%s (the header is missing)",
			         mesh);
		return answer_problem(r, 415, detail);
	}

	int encoded = body_encoding(r, detail, sizeof detail);
	if (encoded < 0)
		return answer_problem(r, 415, detail);
	if (encoded) {
		r->gzip = http_gzip_new();
		if (!r->gzip)
			return answer_early(r, NULL);
	}

	if (r->declared > body_limit(r)) {
		snprintf(detail, sizeof detail,
		         "the request body (Content-Length %llu) is larger than the limit of %zu bytes "
		         "(%s)", r->declared, body_limit(r), body_limit_flag(r));
		reject(r, HTTP_REJECT_BODY_TOO_LARGE);
		return answer_problem(r, 413, detail);
	}

	/* Admission: refuse at once rather than queue without bound. */
	if (s->admitted >= cfg->max_queue) {
		snprintf(detail, sizeof detail,
		         "the server is at its limit of %u queries in progress (--max-queue); retry "
		         "after the Retry-After seconds",
		         cfg->max_queue);
		return refuse_admission(r, 503, HTTP_REJECT_OVERLOAD, detail);
	}
	if (cfg->max_queue_per_client &&
	    client_admitted(s, r->client) >= cfg->max_queue_per_client) {
		snprintf(detail, sizeof detail,
		         "this client address has %u queries in progress, the server's limit per "
		         "client (--max-queue-per-client); retry after the Retry-After seconds",
		         cfg->max_queue_per_client);
		return refuse_admission(r, 429, HTTP_REJECT_CLIENT_LIMIT, detail);
	}
	if (r->mesh_type[0] && s->imports >= cfg->max_imports) {
		snprintf(detail, sizeof detail,
		         "the server is at its limit of %u mesh files in progress (--max-imports); "
		         "retry after the Retry-After seconds",
		         cfg->max_imports);
		return refuse_admission(r, 503, HTTP_REJECT_OVERLOAD, detail);
	}
	s->admitted++;
	s->imports += r->mesh_type[0] != 0;
	r->admitted = 1;
	return MHD_YES;
}

static int body_append(void *ctx, const char *data, size_t n);

/* A piece of the body: stored, or inflated and stored. */
static void request_receive(http_request *r, const char *data, size_t n)
{
	r->bytes_in += n;
	if (r->too_large || r->no_memory || r->gzip_error)
		return; /* discard to the end */
	if (!r->gzip) {
		body_append(r, data, n);
		return;
	}
	const char *why = NULL;
	if (http_gzip_feed(r->gzip, data, n, body_append, r, &why) != 0)
		r->gzip_error = why;
}

/* A body of HUGE_BODY bytes or more (Content-Length) asks for transparent
 * huge pages (where THP is "madvise", as here): filled in 4 KiB pages, a
 * 3.3 MB upload to a fresh server took 800 page faults, about 3 us each on
 * this virtual machine; its aligned 2 MiB take one.  A hint: refused, the
 * block is an ordinary one.  The block is malloc's, freed as any body. */
#define HUGE_BODY ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static char *body_alloc(size_t cap)
{
	void *p = NULL;
	if (cap < HUGE_BODY)
		return malloc(cap);
	if (posix_memalign(&p, HUGE_PAGE, cap) != 0)
		return NULL;
	(void)madvise(p, cap & ~(size_t)4095, MADV_HUGEPAGE);
	return p;
}

/* Bytes of the (inflated) body, up to body_limit(): 0, or 1 once over it
 * or out of memory (the rest is then discarded). */
static int body_append(void *ctx, const char *data, size_t n)
{
	http_request *r = ctx;
	size_t max = body_limit(r);
	if (r->too_large || r->no_memory)
		return 1;
	if (n > max - r->len) {
		r->too_large = 1;
		free(r->body);
		r->body = NULL;
		r->len = r->cap = 0;
		return 1;
	}
	if (r->len + n + 1 > r->cap) {
		/* Content-Length known: one exact allocation (a small query
		 * then costs a small block, not 64 KiB, which glibc would hand
		 * back to the kernel and take again on every request).
		 * Chunked: double, from 64 KiB, never past the cap. */
		size_t want = r->len + n + 1;
		size_t cap;
		if (!r->gzip && r->declared >= want) {
			cap = (size_t)r->declared + 1;
		} else {
			cap = r->cap * 2;
			if (cap < 65536)
				cap = 65536;
		}
		if (cap > max + 1)
			cap = max + 1;
		if (cap < want)
			cap = want;
		char *body = r->body ? realloc(r->body, cap) : body_alloc(cap);
		if (!body) {
			r->no_memory = 1;
			free(r->body);
			r->body = NULL;
			r->len = r->cap = 0;
			return 1;
		}
		r->body = body;
		r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	return 0;
}

/* Final call of a query: the whole body is in. */
static enum MHD_Result request_submit(http_request *r)
{
	http_server *s = r->srv;
	char detail[160];

	if (r->too_large) {
		release_admission(r);
		reject(r, HTTP_REJECT_BODY_TOO_LARGE);
		snprintf(detail, sizeof detail, "the request body is larger than the limit of %zu bytes%s "
		         "(%s)", body_limit(r), r->gzip ? " once inflated" : "", body_limit_flag(r));
		return respond_problem(r, 413, detail); /* read to its end: keep-alive */
	}
	if (r->gzip && (r->gzip_error || !http_gzip_ended(r->gzip))) {
		release_admission(r);
		snprintf(detail, sizeof detail, "the body is not a whole gzip stream (Content-Encoding: "
		                                "gzip): %s",
		         r->gzip_error ? r->gzip_error : "it ends before the stream does");
		proto_reply p = {0};
		if (proto_request_problem_reply(400, detail, &p) != 0)
			return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
		return respond_reply(r, &p);
	}
	if (!r->body && !r->no_memory) {
		r->body = malloc(1);
		r->cap = 1;
		r->no_memory = r->body == NULL;
	}
	if (r->no_memory) {
		release_admission(r);
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
	}
	r->body[r->len] = '\0';

	r->work.data = r;
	r->deadline = uv_now(s->loop) + s->cfg->request_timeout_ms;
	sweep_by(s, r->deadline);
	MHD_suspend_connection(r->conn);
	r->state = REQ_WORKING;
	s->working++;
	if (is_heavy(r))
		heavy_admit(r);
	else
		queue_request(r);
	return MHD_YES; /* never MHD_NO once suspended */
}

/* The resumed call: send what the worker produced. */
static enum MHD_Result request_reply(http_request *r)
{
	if (r->reply_rc != 0)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
	return respond_reply(r, &r->reply);
}

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
	int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	                                    "X-Request-Id: %s\r\nConnection: close\r\n"
	                                    "Content-Length: %zu\r\n\r\n",
	                 status, proto_problem_title(status), p.content_type, r->id, p.length);
	if (n > 0 && (size_t)n < sizeof head &&
	    send(ci->connect_fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n &&
	    send(ci->connect_fd, p.body, p.length, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)p.length) {
		r->status = status;
		r->bytes_out = p.length;
	}
	shutdown(ci->connect_fd, SHUT_WR);
	proto_reply_free(&p);
}

/* Past --read-timeout, or slower than --min-body-rate, while its body
 * still comes: answer 408 and close. */
static enum MHD_Result request_expired(http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	char detail[200];
	release_admission(r);
	proto_reply_free(&r->reply);
	if (r->expired_why == HTTP_REJECT_SLOW_BODY)
		snprintf(detail, sizeof detail, "the request body came slower than the server's "
		                                "minimum of %zu bytes/s after %u ms (--min-body-rate)",
		         cfg->min_body_rate, cfg->body_grace_ms);
	else
		snprintf(detail, sizeof detail, "the request was not received within the server's "
		                                "limit of %u ms (--read-timeout)",
		         cfg->read_timeout_ms);
	send_problem_raw(r, 408, detail);
	r->state = REQ_RESPONDED;
	return MHD_NO; /* MHD closes the connection */
}

static http_conn *conn_record(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* MHD's own decoding of the %HH escapes of the path and query, noting a
 * control character in the result: a "%00" would otherwise end the path the
 * handler sees ("/v1/query%00x" routed as /v1/query). */
static size_t on_unescape(void *cls, struct MHD_Connection *conn, char *text)
{
	(void)cls;
	size_t n = MHD_http_unescape(text);
	http_conn *hc = conn_record(conn);
	if (hc && http_strict_has_control(text, n, 0))
		hc->bad_target = 1;
	return n;
}

/* Whether a field came on more than one line (obs-fold).  libmicrohttpd
 * 0.9.75 keeps each field in its read buffer, the value after the name on
 * the same line, but joins a continuation line onto the *name*, in a copy
 * it allocates past that buffer: so a field whose value lies before the
 * end of its name was folded ("Transfer-Encoding:\r\n chunked" arrives as
 * the field "Transfer-Encodingchunked" with an empty value).  The suite
 * http_api's strict cases hold this reading to the library in use. */
static int field_folded(const char *name, size_t name_len, const char *value)
{
	return value && (uintptr_t)value < (uintptr_t)name + name_len;
}

static enum MHD_Result scan_field(void *cls, enum MHD_ValueKind kind, const char *name,
                                  size_t name_len, const char *value, size_t value_len)
{
	(void)kind;
	http_strict_field(cls, name, name_len, value ? value : "", value ? value_len : 0,
	                  field_folded(name, name_len, value));
	return MHD_YES;
}

/* Whether the head is one clashd refuses (http_strict.h): every field line,
 * repeated ones included, and the target as decoded. */
static int head_refused(http_request *r, const char *url, const char *version,
                        http_strict_fault *f)
{
	http_strict scan = {0};
	MHD_get_connection_values_n(r->conn, MHD_HEADER_KIND, scan_field, &scan);
	int bad_target = http_strict_has_control(url, strlen(url), 0);
	if (r->hc) {
		bad_target |= r->hc->bad_target;
		r->hc->bad_target = 0;
	}
	int http11 = strcmp(version, MHD_HTTP_VERSION_1_0) != 0;
	return http_strict_judge(&scan, http11, bad_target, f);
}

/* Refuse a malformed head.  Sound framing: as any problem from the headers
 * (the body read and dropped, the connection kept).  Unsound framing: where
 * the body ends is unknown, so the answer goes out at once and the
 * connection closes after it (MHD reads nothing more of it). */
static enum MHD_Result answer_malformed(http_request *r, const http_strict_fault *f)
{
	proto_reply p = {0};
	int built = proto_request_problem_reply(f->status, f->detail, &p) == 0;
	reject(r, f->framing ? HTTP_REJECT_BAD_FRAMING : HTTP_REJECT_MALFORMED);
	if (!f->framing)
		return answer_early(r, built ? &p : NULL);
	r->close = 1;
	if (!built)
		return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
	return respond_reply(r, &p);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *data, size_t *data_size, void **con_cls)
{
	http_server *s = cls;
	http_request *r = *con_cls;

	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		r->srv = s;
		r->ctx = s->ctx;
		r->conn = conn;
		r->start_ns = uv_hrtime();
		r->body_start = uv_now(s->loop);
		client_key(conn, r->client);
		r->head = strcmp(method, "HEAD") == 0;
		log_printable(r->method, sizeof r->method, method);
		log_printable(r->path, sizeof r->path, url);
		request_id_pick(&s->ids, header(r, "X-Request-Id"), r->id);
		read_framing(r);
		r->hc = conn_record(conn);
		if (r->hc)
			r->hc->req = r;
		*con_cls = r;
		s->requests++;
		r->next = s->active;
		if (s->active)
			s->active->prev = r;
		s->active = r;
		http_strict_fault f;
		if (head_refused(r, url, version, &f))
			return answer_malformed(r, &f);
		return request_begin(r, url, method);
	}
	if (*data_size) {
		size_t n = *data_size;
		*data_size = 0;
		if (r->expired && (r->state == REQ_RECEIVING || r->state == REQ_REPLIED)) {
			r->bytes_in += n;
			return request_expired(r);
		}
		if (r->state == REQ_RECEIVING) {
			request_receive(r, data, n);
		} else if (r->state == REQ_REPLIED) {
			/* The body of a request answered from its headers:
			 * dropped, up to the cap; past it, answer and close. */
			r->bytes_in += n;
			if (r->bytes_in > body_limit(r))
				return request_reply(r);
		}
		return MHD_YES;
	}
	r->body_in = 1;
	switch (r->state) {
	case REQ_RECEIVING:
		if (r->expired)
			return request_expired(r);
		return request_submit(r);
	case REQ_REPLIED:
		return request_reply(r);
	case REQ_WORKING: /* not called while suspended, but once answered overdue */
		if (r->overdue) {
			if (r->early.body == NULL)
				return respond(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
			return respond_reply(r, &r->early);
		}
		break;
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
		.rejected = r->rejected ? http_reject_name((enum http_reject)(r->rejected - 1)) : NULL,
		.iterations = r->call.iterations,
		.queries = (long long)r->queries,
	});

	release_admission(r);
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
		r->orphan = 1; /* its worker frees it (work_finish) */
	else
		request_free(r);
}

static void request_free(http_request *r)
{
	proto_reply_free(&r->reply);
	proto_reply_free(&r->early);
	free(r->body);
	http_gzip_free(r->gzip);
	free(r->origin);
	free(r);
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

/* ---- the loop side ------------------------------------------------------ */

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
	pump(t->data);
}

/* Once per loop pass while MHD asks to be run at once: the pass polls
 * every other handle (without blocking) in between. */
static void on_again(uv_idle_t *h)
{
	uv_idle_stop(h);
	pump(h->data);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
	(void)status; /* an error on the epoll fd: MHD_run will report it */
	(void)events;
	pump(p->data);
}

/* Cut a connection: shut its socket down, which MHD notices (end of
 * stream) and closes it. */
static void conn_shut(http_conn *hc)
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
static int peer_closed(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	char b;
	if (!ci)
		return 0;
	ssize_t n = recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno == ECONNRESET);
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
	reject(r, why);
	release_admission(r);
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
	if ((!r || r->state == REQ_RECEIVING) && peer_closed(hc->conn)) {
		if (r)
			release_admission(r);
		conn_shut(hc);
		return 1;
	}
	if (!r && now - hc->phase_start >= cfg->header_timeout_ms) {
		http_metrics_reject(s->metrics, HTTP_REJECT_HEADER_TIMEOUT);
		LOG_EMIT("warn", "header timeout",
		         LOG_INT("header_timeout_ms", cfg->header_timeout_ms));
		conn_shut(hc);
		return 1;
	}
	if (r && body_too_slow(r, cfg, now)) {
		request_expire(r, HTTP_REJECT_SLOW_BODY, now);
		return 1;
	}
	return 0;
}

static void on_sweep(uv_timer_t *t);

/* Have the sweep run by `due` (a uv_now() time) at the latest: a deadline
 * falls before its next tick, so it fires when due, not up to a period
 * late. */
static void sweep_by(http_server *s, uint64_t due)
{
	uint64_t now = uv_now(s->loop), in = due > now ? due - now : 0;
	if (in < uv_timer_get_due_in(&s->sweep))
		uv_timer_start(&s->sweep, on_sweep, in, uv_timer_get_repeat(&s->sweep));
}

/* The deadlines (see the design note at the top). */
static void on_sweep(uv_timer_t *t)
{
	http_server *s = t->data;
	const server_config *cfg = s->cfg;
	uint64_t now = uv_now(s->loop);
	for (http_conn *hc = s->conns; hc; hc = hc->next) {
		http_request *r = hc->req;
		if (r && r->state == REQ_WORKING) {
			if (now >= r->deadline)
				stop_work(r, STOP_DEADLINE);
			else
				sweep_by(s, r->deadline);
			continue;
		}
		if (hc->shut || cut_slow_client(s, hc, now))
			continue;
		if (r && r->expired) {
			/* No bytes since to answer 408 with: close. */
			if (now - r->expired_at >= HTTP_EXPIRE_GRACE_MS)
				conn_shut(hc);
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
		conn_shut(hc);
	}
	pump(s);
}

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
		if (peer_closed(r->conn)) {
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
	PRESSURE_SILENT,   /* nothing received since the accept */
	PRESSURE_KEPT,     /* keep-alive, between requests */
	PRESSURE_IDLE = PRESSURE_KEPT,
	PRESSURE_HEAD,     /* a first head begun, not complete (or TLS) */
	PRESSURE_FRESH     /* accepted too recently to tell */
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
	conn_shut(first);
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
	sweep_by(s, now + HTTP_CONN_FULL_POLL_MS);
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	int waiting = info ? http_listen_queued(info->listen_fd) : -1;
	while (waiting-- > 0 && evict_first(s, PRESSURE_FRESH, now))
		;
}

/* --drain-timeout has passed: stop what is left. */
static void drain_expire(http_server *s)
{
	for (http_conn *hc = s->conns; hc; hc = hc->next) {
		if (hc->req && hc->req->state == REQ_WORKING)
			stop_work(hc->req, STOP_SHUTDOWN);
		else
			conn_shut(hc);
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
	pump(s);
}

/* Let MHD do all it can now, then sleep until its next deadline. */
static void pump(http_server *s)
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
		close_listener(s); /* no filter: close now, as a last-instant connect may be reset */
	LOG_EMIT("info", "draining", LOG_INT("requests", s->requests),
	         LOG_INT("connections", s->connections), LOG_BOOL("syn_filter", rc == 0));
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

static unsigned sweep_interval(const server_config *cfg)
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
		{MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)cfg->max_connections_per_client, NULL},
		{MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s},
		{MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, s},
		{MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1, NULL},
		{MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)on_unescape, NULL},
		{cfg->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, cfg->tls_cert},
		{cfg->tls_key ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, cfg->tls_key},
		{MHD_OPTION_END, 0, NULL},
	};
	s->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, s, MHD_OPTION_ARRAY,
	                             opts, MHD_OPTION_END);
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
	uv_poll_start(&s->poll, UV_READABLE, on_poll);
	unsigned every = sweep_interval(cfg);
	uv_timer_start(&s->sweep, on_sweep, every, every);
	pump(s);
	*out = s;
	return 0;
}
