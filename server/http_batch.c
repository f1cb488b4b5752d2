/*
 * http_batch.c — POST /v1/batch answered in chunks by all the workers.
 *
 * Its split (proto_batch_open, on a worker like any query) gives the
 * queries; the batch is cut into chunks of about HTTP_BATCH_CHUNK_BYTES,
 * at most 2 a worker queued at a time, each answering its own queries;
 * the worker finishing the last builds the reply.  A chunk stopped over
 * the cost bound makes the batch costly: the rest runs one chunk at a
 * time in the heavy share (http_admit.c).
 */
#include "http_batch.h"

#include <assert.h>
#include <stdlib.h>

#include "http_admit.h"
#include "http_finish.h"

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

static void batch_job_done(uv_work_t *w, int status);

/* Queue a chunk of a batch (loop thread); `unlimited`: its heavy turn. */
static void batch_queue(http_request *r, batch_job *j, int unlimited)
{
	j->work.data = j;
	j->unlimited = unlimited;
	/* Up to 2 chunks a worker at a time (http_batch_pump): together within
	 * the bound, as one request. */
	j->call.max_cost = http_admit_cost_bound(r, unlimited) / (2 * r->srv->cfg->threads);
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
void http_batch_pump(http_request *r)
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
int http_batch_start(http_request *r)
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
	http_batch_pump(r);
	return 0;
}

/* The batch is over (loop thread): every chunk done, or it was stopped or
 * failed with none left on the pool. */
void http_batch_settle(http_request *r)
{
	if (r->heavy_waiting)
		http_admit_unwait(r);
	if (r->next_job < r->njobs || r->redo_head || !r->batch_joined) {
		/* Stopped (deadline, drain) or failed before every chunk ran. */
		int failed = 0;
		for (size_t k = 0; k < r->next_job; k++)
			failed |= r->jobs[k].call.cancelled < 0;
		if (failed && !r->stop) {
			r->reply_rc = -1;
			http_finish(r, 0);
		} else {
			http_finish(r, UV_ECANCELED);
		}
		return;
	}
	http_finish(r, 0);
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
		http_admit_heavy_done(r); /* its turn is over */
	}
	int going = status == 0 && j->call.cancelled == 0 && !r->stop;
	if (going && j->call.deferred)
		batch_redo(r, j);
	int left = r->redo_head || r->next_job < r->njobs;
	/* A costly batch asks for its next turn (behind the heavy ones
	 * waiting, when it just had one). */
	if (going && r->costly && left && !r->heavy && !r->heavy_waiting)
		http_admit_heavy(r, http_batch_pump);
	if (going)
		http_batch_pump(r);
	if (r->jobs_out > 0)
		return;
	if (going && left)
		return; /* waiting for its heavy turn */
	http_batch_settle(r);
}
