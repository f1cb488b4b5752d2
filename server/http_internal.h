/*
 * http_internal.h — the records clashd's HTTP server keeps, shared by the
 * files it is made of (server/http_*.c, not a public header).
 *
 * http_server: the daemon, the loop's handles, the counts that admission,
 * backpressure and the drain read.  http_conn: one per TCP connection.
 * http_request: one per request, from its first handler call to its
 * completion, with its body, its work on the pool and its answer.
 * batch_job: a chunk of a batch.  Everything but the fields a worker
 * writes (said where) is the loop thread's.
 */
#ifndef SERVER_HTTP_INTERNAL_H
#define SERVER_HTTP_INTERNAL_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>
#include <uv.h>

#include "http_gzip.h"
#include "http_metrics.h"
#include "config.h"
#include "http_route.h"
#include "proto.h"
#include "request_id.h"

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
 * request (http_loop.c, relieve_pressure).  One accepted less than
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
	                             to a control character (http_head_unescape) */
} http_conn;

struct http_server {
	uv_loop_t *loop;
	const server_config *cfg;
	const proto_context *ctx; /* every proto call's */
	struct MHD_Daemon *daemon;
	uv_poll_t poll;       /* MHD's epoll fd */
	uv_timer_t timer;     /* MHD_get_timeout() */
	uv_idle_t again;      /* MHD_get_timeout() == 0: run on the next pass */
	uv_timer_t drain;     /* ticks while draining */
	uv_timer_t sweep;     /* deadlines */
	uv_timer_cb on_sweep; /* its callback (http_deadline.c), to re-arm it */
	int open_handles;     /* of the four above, not yet closed */
	int draining;         /* SIGTERM seen: /readyz 503, Connection: close */
	int listener_closed;  /* no more connections can arrive */
	int grace_over;       /* idle connections may now be dropped */
	int drain_expired;    /* --drain-timeout passed: stop everything */
	uint64_t drain_start; /* uv_now() at SIGTERM */
	int closing;          /* daemon stopped, handles closing */
	unsigned connections; /* open TCP connections */
	int full;             /* connections reached --max-connections since the
	                        last run of MHD that had a free slot (http_loop_pump) */
	unsigned requests;    /* requests begun and not completed */
	unsigned working;     /* requests queued or running on the pool */
	unsigned jobs;        /* work items of those on the pool: queries, batch
	                        splits and batch chunks */
	unsigned running;     /* of the jobs, running now (workers update it) */
	unsigned admitted;    /* queries admitted, not yet back from the pool */
	unsigned imports;     /* of them, mesh files (--max-imports) */
	unsigned heavy;       /* heavy requests on the pool (see http_admit.c) */
	struct http_request *heavy_head, *heavy_tail; /* heavy ones waiting */
	unsigned heavy_waiting;
	struct http_request *active;   /* the `requests` ones, linked */
	http_conn *conns, *conns_tail; /* the `connections` ones, linked,
	                                  oldest first */
	http_metrics *metrics;
	store_redis *redis;                     /* the store's Redis tier, for /metrics; or NULL */
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
	proto_call call;             /* the worker's in/out */
	int unlimited;               /* queued with no cost bound: the batch's heavy turn */
	struct batch_job *redo_next; /* in its batch's redo list */
} batch_job;

typedef struct http_request {
	http_server *srv;
	const proto_context *ctx;         /* its calls': the server's, or its tenant's */
	int tenant;                       /* its token names a tenant: ctx is that tenant's */
	struct http_request *prev, *next; /* in srv->active */
	struct MHD_Connection *conn;
	http_conn *hc; /* its connection's record (NULL once that closed) */
	const http_route *route;
	enum request_state state;
	uint64_t start_ns;
	int head;                      /* HEAD: no body goes out */
	int has_body;                  /* Content-Length > 0 or Transfer-Encoding */
	int expect_continue;           /* the client waits for "100 Continue" */
	unsigned long long declared;   /* Content-Length; 0 if none, chunked */
	const char *allow;             /* the Allow header of a 405 (static) */
	const char *www_authenticate;  /* of a 401 (static) */
	const char *location;          /* of a redirect (static) */
	int page;                      /* a file of the demo page: not to be cached stale */
	int accept_encoding;           /* a 415 for Content-Encoding: say which we take */
	char mesh_type[64];            /* POST /v1/shapes with a mesh file: its Content-Type */
	char weld[64];                 /* and its "weld" query parameter ("": none; " ":
	                       one empty or too long, refused as no number) */
	char units[24];                /* and its "units" one ("": none; " ": one empty or
	                       too long, refused as no unit's name) */
	char shape_id[80];             /* GET or HEAD of a shape memory lacks: its id, looked
	                       up in the store's tier on a worker */
	http_gzip *gzip;               /* Content-Encoding: gzip: its inflater */
	const char *gzip_error;        /* the body is not gzip: zlib's word (static) */
	int retry_after;               /* a 503: say when to come back */
	const char *cors;              /* Access-Control-Allow-Origin value, or NULL */
	char *origin;                  /* a copy of its Origin http_request_header (malloc'd; with
	                      --cors-origin or on a preflight; "cors" may point here) */
	int preflight;                 /* a CORS preflight: grant headers go out */
	const char *preflight_methods; /* what it grants (static, the route's, or
	                                  the request's header) */
	int close; /* its framing is unsound: the answer closes the connection */
	char id[REQUEST_ID_MAX + 1];
	char method[16]; /* printable copies, for the log */
	char path[256];
	char *body; /* the upload, NUL-terminated for the decoder */
	size_t len, cap;
	uint64_t bytes_in; /* body bytes received, discarded ones included */
	int too_large;     /* the body went over http_request_body_limit() */
	int peer_gone;     /* drain found its client gone mid-body */
	int no_memory;     /* the body could not be stored */
	int admitted;      /* counts in srv->admitted (a mesh file: and imports) */
	int overdue;       /* answered 504 at its deadline while its worker ran */
	int worker_gone;   /* that worker has returned since */
	int orphan;        /* its connection was done with it first: the
	                      worker's return frees it (http_request_free) */
	proto_reply early; /* that answer (the worker owns `reply`) */
	int heavy;         /* counts in srv->heavy */
	int heavy_waiting; /* in srv's heavy list, not yet on the pool */
	struct http_request *heavy_next;
	void (*heavy_go)(struct http_request *r); /* its work, once its turn comes */
	int expired; /* past --read-timeout or --min-body-rate while receiving */
	enum http_reject expired_why;
	uint64_t expired_at;
	uint64_t body_start;      /* uv_now() at its headers */
	int body_in;              /* the final handler call came: no more body */
	unsigned char client[16]; /* its client's address (IPv4 as ::ffff:a.b.c.d) */
	int rejected;             /* 1 + enum http_reject, for the log; 0 if none */
	uint64_t deadline;        /* uv_now() by which the work must be done */
	enum request_stop stop;
	volatile int cancel; /* read by the worker (proto, core) */
	uv_work_t work;
	proto_call call; /* the worker's in/out */
	int reply_rc;    /* proto_query_reply_ex()'s result */
	/* POST /v1/batch: set by the split (its worker), then loop-owned but
	 * for what the chunk workers write (see http_batch.c). */
	proto_batch *batch;
	size_t queries;   /* its size, for the log */
	int batch_chunks; /* the split is done: `jobs` are the work (loop) */
	batch_job *jobs;
	size_t njobs;
	size_t next_job;                  /* jobs [0, next_job) have been queued */
	unsigned jobs_out;                /* queued or running now */
	int costly;                       /* a chunk stopped over HTTP_HEAVY_COST: the rest
	                      runs in the heavy share */
	batch_job *redo_head, *redo_tail; /* those chunks, to run again */
	int heavy_out;                    /* the one unbounded chunk is queued or running */
	unsigned jobs_left;               /* not finished; the worker bringing it to 0 joins */
	int batch_joined; /* every query answered and the reply built (by that worker) */
	proto_reply reply;
	int status; /* sent, for the log; 0 if none */
	size_t bytes_out;
} http_request;

#endif
