/*
 * loadgen.h — a small closed-loop HTTP/1.1 load generator for the failover
 * and soak programs (tests/load/failover.c, tests/load/soak.c).
 *
 * N client threads each keep one connection to 127.0.0.1:port and send the
 * requests of a list in turn, paced to a rate per client, until a duration
 * has passed or the caller stops them.  Every answer is checked: its status
 * against the expected one and, where the caller gives it, its body byte for
 * byte (the queries are pure functions of their bodies, so the expected
 * reply is known).  A request counts as failed when it gets another status
 * or body, or no complete answer at all (connection refused, reset, closed
 * early, timed out): the counts are exact, one per request sent.  A server's
 * "Connection: close" is honoured (the next request opens a new connection)
 * and is not a failure.  Closed-loop: a slow server slows the clients
 * (coordinated omission), which bounds the load and is fine for these tests.
 *
 * Requests by ref (docs/shapes.md): a request may name stored shapes
 * ({"ref": id}) and list them with their uploads; each client first
 * uploads them (POST /v1/shapes), then sends the requests.  A request
 * answered 422 unknown-shape is a miss, not a failure: the client uploads
 * the shapes its `missing` list names and sends the request once more, as
 * clients/js does; that second answer is the one checked.  A request may
 * carry a routing header (X-Clashd-Shape, its main shape's id), which its
 * uploads carry too, so that they go where the request goes.
 */
#ifndef TESTS_LOAD_LOADGEN_H
#define TESTS_LOAD_LOADGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct load_request {
	const char *method; /* "POST", "GET" */
	const char *path;   /* "/v1/query" */
	const char *body;   /* NULL: none */
	size_t len;
	int status;              /* the expected status */
	const char *expect_body; /* NULL: not compared */
	size_t expect_len;
	const struct load_shape *shapes; /* the stored shapes it names by ref */
	size_t nshapes;
	const char *route; /* NULL, or the X-Clashd-Shape value it carries */
} load_request;

/* A stored shape: its id and the body of its upload. */
typedef struct load_shape {
	const char *id;   /* "sha256:..." */
	const char *body; /* POST /v1/shapes */
	size_t len;
} load_shape;

/* The routing header (deploy/haproxy/haproxy.cfg hashes on it). */
#define LOAD_ROUTE_HEADER "X-Clashd-Shape"

typedef struct load_config {
	int port;                 /* on 127.0.0.1 */
	int clients;              /* threads, one connection each */
	double rate;              /* requests per second per client; 0: as fast as answered */
	double duration;          /* seconds; 0: until load_stop() */
	const load_request *reqs; /* sent in turn, each client from its own offset */
	size_t nreqs;
	FILE *log;    /* the first failures are described here (NULL: stderr) */
	int uploaded; /* 1: the stored shapes were uploaded once before
	                              the run (by the caller): clients upload only
	                              after a miss */
} load_config;

#define LOAD_STATUS_CLASSES 6 /* by_status[s / 100] */

typedef struct load_stats {
	uint64_t sent;       /* requests whose sending began */
	uint64_t ok;         /* answered as expected */
	uint64_t failed;     /* sent - ok, split below */
	uint64_t no_answer;  /* refused, reset, closed early, timed out */
	uint64_t bad_status; /* answered with another status */
	uint64_t bad_body;   /* the right status with another body */
	uint64_t by_status[LOAD_STATUS_CLASSES];
	uint64_t connections; /* opened */
	double max_latency;   /* seconds, of answered requests */
	double p50, p99;      /* latency percentiles (from a log histogram), seconds */
	double elapsed;       /* seconds from start to the last client's end */
	/* By ref (counted in the totals above once each, however many times
	 * they were sent). */
	uint64_t by_ref; /* requests naming stored shapes */
	uint64_t misses; /* of those, answered unknown-shape at first */
	uint64_t routed; /* by_ref requests with a routing header */
	uint64_t routed_misses;
	uint64_t uploads;   /* shapes uploaded before the requests (each a
	                         request of its own in the totals) */
	uint64_t reuploads; /* shapes uploaded again after a miss */
} load_stats;

typedef struct load_run load_run;

/* Start the clients.  Returns NULL when threads could not be started. */
load_run *load_start(const load_config *cfg);

/* Requests sent so far (any thread may call it while the load runs). */
uint64_t load_sent(const load_run *run);

/* Stop (at once, or after the duration when `wait_duration` is set), join
 * the clients, fill *out and free the run.  A request under way when told
 * to stop is finished and counted. */
void load_finish(load_run *run, int wait_duration, load_stats *out);

/* One request on a connection of its own to 127.0.0.1:port, with the
 * routing header when `route` is set (a HEAD's answer has no body).  The
 * status, or -1 with no complete answer (described on stderr); the body
 * (malloc'd, NUL-terminated) goes to *out when out is set. */
int load_once(int port, const char *method, const char *path, const char *route, const char *body,
              size_t len, char **out, size_t *outlen);

/* load_once with "Authorization: Bearer <token>" (token NULL: none). */
int load_once_as(int port, const char *token, const char *method, const char *path,
                 const char *route, const char *body, size_t len, char **out, size_t *outlen);

/* One line of totals. */
void load_print(FILE *f, const char *name, const load_stats *s);

double load_now(void);

#endif
