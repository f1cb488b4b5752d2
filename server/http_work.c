/*
 * http_work.c — a query on the libuv worker pool (uv_queue_work, size
 * --threads): queued, run, back on the loop, or stopped.
 *
 * The worker decodes and answers (a batch: splits, then http_batch.c
 * answers its chunks); back on the loop, a query over the cost bound
 * takes its turn in the heavy share, one finished goes to http_finish.
 * A stop (deadline, drain) cancels what has not started and flags what
 * runs.
 */
#include "http_work.h"

#include <assert.h>

#include "http_admit.h"
#include "http_batch.h"
#include "http_finish.h"

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
		                                       r->weld[0] ? r->weld : NULL,
		                                       r->units[0] ? r->units : NULL, &r->call,
		                                       &r->reply);
	else if (r->shape_id[0])
		r->reply_rc = proto_shape_reply_through(r->ctx, r->method, r->shape_id, &r->reply);
	else
		r->reply_rc = r->route->reply(r->body, r->len, &r->call, &r->reply);
	__atomic_sub_fetch(&r->srv->running, 1, __ATOMIC_RELAXED);
}

static void work_done(uv_work_t *w, int status);

/* Onto the pool (loop thread). */
void http_work_queue(http_request *r)
{
	r->call.max_cost = http_admit_cost_bound(r, r->heavy);
	r->srv->jobs++;
	int rc = uv_queue_work(r->srv->loop, &r->work, work_run, work_done);
	assert(rc == 0); /* fails only for a NULL work_cb */
	(void)rc;
}

/* Back on the loop thread. */
static void work_done(uv_work_t *w, int status)
{
	http_request *r = w->data;
	r->srv->jobs--;
	if (status == 0 && r->call.deferred) {
		/* Over HTTP_HEAVY_COST, not answered: it takes its turn. */
		if (!r->stop) {
			http_admit_heavy(r, http_work_queue);
			return;
		}
		status = UV_ECANCELED;
	}
	if (r->batch) {
		/* Split: answer its queries, unless stopped meanwhile. */
		if (r->stop) {
			status = UV_ECANCELED;
		} else if (http_batch_start(r) == 0) {
			return; /* its chunks are on the pool */
		} else {
			r->reply_rc = -1;
		}
	}
	http_finish(r, status);
}

/* Stop a query on the pool (loop thread). */
void http_work_stop(http_request *r, enum request_stop why)
{
	if (r->stop != STOP_NONE)
		return;
	r->stop = why;
	__atomic_store_n(&r->cancel, 1, __ATOMIC_RELAXED); /* the worker reads it atomically too */
	if (r->heavy_waiting) {
		http_admit_unwait(r);
		if (!r->batch_chunks) { /* never on the pool since */
			http_finish(r, UV_ECANCELED);
			return;
		}
		if (r->jobs_out == 0) { /* a batch with nothing on the pool */
			http_batch_settle(r);
			return;
		}
	}
	/* Not started yet: it never will, and work_done gets UV_ECANCELED.
	 * A batch: each chunk queued and not started (uv_cancel refuses the
	 * others, finished ones included); no further chunk is queued. */
	if (!r->batch_chunks) {
		if (uv_cancel((uv_req_t *)&r->work) != 0 && why == STOP_DEADLINE &&
		    r->route->id != HTTP_ROUTE_BATCH)
			http_finish_overdue(r);
		return;
	}
	for (size_t k = 0; k < r->next_job; k++)
		uv_cancel((uv_req_t *)&r->jobs[k].work);
}
