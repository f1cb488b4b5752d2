/*
 * http_admit.c — admission: which queries the server takes in, and the
 * heavy share that keeps a worker free for small ones.
 *
 * A query is admitted from its head (--max-queue, --max-queue-per-client,
 * --max-imports; refused with Retry-After rather than queued without
 * bound) and let go when its answer is sent or its body given up.  Once
 * its body is in, a heavy one takes its turn (below).
 */
#include "http_admit.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "http_answer.h"

/*
 * Fair workers.  A heavy request may hold at most threads - 1 workers: the
 * others wait in a list on the loop, so a small query always finds a
 * worker that no heavy one holds, and waits at most behind other small
 * ones.  Heavy is what a request will cost, not how it looks: a body of
 * HTTP_HEAVY_BYTES or more (its parse alone takes milliseconds) and an
 * import are heavy from the start; any other request is parsed on a worker
 * and judged by proto's cost (proto/endpoints/request_cost.h: every shape it names,
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
/* About 25 ms of one worker at the most (proto/endpoints/request_cost.h). */
#define HTTP_HEAVY_COST 25000.0

static unsigned heavy_limit(const http_server *s)
{
	return s->cfg->threads > 1 ? s->cfg->threads - 1 : 1;
}

/* Heavy before any parse. */
int http_admit_is_heavy(const http_request *r)
{
	if (r->mesh_type[0])
		return 1; /* imports take turns (proto.h): never every worker waiting */
	return r->route->id != HTTP_ROUTE_BATCH && r->len >= HTTP_HEAVY_BYTES;
}

/* The cost bound of work queued now (loop thread): none once it holds
 * its place in the heavy share, or with nothing to keep free. */
double http_admit_cost_bound(const http_request *r, int unlimited)
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
void http_admit_unwait(http_request *r)
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

/* r has its place in the heavy share: its work goes on. */
static void heavy_start(http_request *r)
{
	r->heavy = 1;
	r->srv->heavy++;
	r->heavy_go(r);
}

/* r is heavy: on now if the share has room, else in the waiting list;
 * `go` queues its work once it has its place. */
void http_admit_heavy(http_request *r, void (*go)(http_request *r))
{
	r->heavy_go = go;
	if (r->srv->heavy >= heavy_limit(r->srv))
		heavy_wait(r);
	else
		heavy_start(r);
}

/* A heavy request is off the pool: the next waiting one goes on. */
void http_admit_heavy_done(http_request *r)
{
	http_server *s = r->srv;
	if (!r->heavy)
		return;
	r->heavy = 0;
	s->heavy--;
	if (s->heavy_head && s->heavy < heavy_limit(s)) {
		http_request *next = s->heavy_head;
		http_admit_unwait(next);
		heavy_start(next);
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

/* A query's admission, once its head is sound: counted in, or refused
 * (503 at --max-queue or --max-imports, 429 at --max-queue-per-client). */
enum MHD_Result http_admit_query(http_request *r)
{
	http_server *s = r->srv;
	const server_config *cfg = s->cfg;
	char detail[320];

	/* Admission: refuse at once rather than queue without bound. */
	if (s->admitted >= cfg->max_queue) {
		snprintf(
			detail, sizeof detail,
			"the server is at its limit of %u queries in progress (--max-queue); retry "
			"after the Retry-After seconds",
			cfg->max_queue);
		return http_answer_refuse(r, 503, HTTP_REJECT_OVERLOAD, detail);
	}
	if (cfg->max_queue_per_client &&
	    client_admitted(s, r->client) >= cfg->max_queue_per_client) {
		snprintf(detail, sizeof detail,
		         "this client address has %u queries in progress, the server's limit per "
		         "client (--max-queue-per-client); retry after the Retry-After seconds",
		         cfg->max_queue_per_client);
		return http_answer_refuse(r, 429, HTTP_REJECT_CLIENT_LIMIT, detail);
	}
	if (r->mesh_type[0] && s->imports >= cfg->max_imports) {
		snprintf(detail, sizeof detail,
		         "the server is at its limit of %u mesh files in progress (--max-imports); "
		         "retry after the Retry-After seconds",
		         cfg->max_imports);
		return http_answer_refuse(r, 503, HTTP_REJECT_OVERLOAD, detail);
	}
	s->admitted++;
	s->imports += r->mesh_type[0] != 0;
	r->admitted = 1;
	return MHD_YES;
}

void http_admit_release(http_request *r)
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
