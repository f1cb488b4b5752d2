/*
 * http_finish.c — the end of a query's work, back on the loop thread: its
 * reply (or the 504 or 503 of one stopped) is ready, the connection is
 * resumed to send it.
 *
 * A query past its deadline while its worker still runs is answered at
 * once (http_finish_overdue); the record then waits for that worker.
 */
#include "http_finish.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "http_admit.h"
#include "http_answer.h"
#include "http_loop.h"
#include "http_request.h"

/* The reply of a query stopped before its answer, into *out (not the
 * worker's r->reply when that worker may still run); its return code. */
static int stopped_reply(http_request *r, proto_reply *out)
{
	const server_config *cfg = r->srv->cfg;
	char detail[200];
	int status;
	if (r->stop == STOP_SHUTDOWN) {
		status = 503;
		r->retry_after = 1;
		snprintf(detail, sizeof detail,
		         "the server is shutting down and stopped this query "
		         "(--drain-timeout %u ms); retry elsewhere",
		         cfg->drain_timeout_ms);
		http_answer_reject(r, HTTP_REJECT_SHUTDOWN);
	} else {
		status = 504;
		snprintf(detail, sizeof detail,
		         "the query did not finish within the server's limit "
		         "of %u ms (--request-timeout)",
		         cfg->request_timeout_ms);
		http_answer_reject(r, HTTP_REJECT_DEADLINE);
	}
	return proto_problem_reply(status, detail, NULL, out);
}

/* The work of a request is over (loop thread): its reply is ready, or it
 * was stopped (UV_ECANCELED). */
void http_finish(http_request *r, int status)
{
	http_server *s = r->srv;
	if (r->overdue) {
		/* Answered at its deadline (http_finish_overdue): what the worker
		 * made is dropped; the request goes if its connection has. */
		http_admit_heavy_done(r);
		s->working--;
		r->worker_gone = 1;
		if (r->orphan)
			http_request_free(r);
		return;
	}
	assert(r->state == REQ_WORKING);
	http_admit_heavy_done(r);
	if (r->batch) {
		/* The iterations of every query answered count as a query's. */
		if (status == 0 && r->reply_rc == 0 && r->reply.status == 200) {
			long total = 0;
			for (size_t i = 0; i < r->queries; i++) {
				int st, it;
				if (proto_batch_item(r->batch, i, NULL, &st, &it) && st == 200 &&
				    it > 0) {
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
		proto_reply_free(&r->reply);
		r->reply_rc = stopped_reply(r, &r->reply);
	} else if (status != 0) {
		r->reply_rc = -1;
	} else {
		switch (r->call.limit) {
		case PROTO_LIMIT_DEPTH: http_answer_reject(r, HTTP_REJECT_TOO_DEEP); break;
		case PROTO_LIMIT_VERTICES:
			http_answer_reject(r, HTTP_REJECT_TOO_MANY_VERTICES);
			break;
		case PROTO_LIMIT_SHAPES: http_answer_reject(r, HTTP_REJECT_TOO_MANY_SHAPES); break;
		case PROTO_LIMIT_PART_DEPTH:
			http_answer_reject(r, HTTP_REJECT_PARTS_TOO_DEEP);
			break;
		case PROTO_LIMIT_QUERIES:
			http_answer_reject(r, HTTP_REJECT_TOO_MANY_QUERIES);
			break;
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
	http_loop_pump(s); /* resume does not wake an external loop by itself */
}

/* A query running past its deadline is answered now, not when the core
 * next looks at its cancel flag (a parse or a hull may take longer than
 * the sweep's period): the 504 goes out, and the request record waits for
 * its worker, which frees it (http_finish) once the connection is done
 * with it (on_completed).  Not for a batch, whose chunks are short. */
void http_finish_overdue(http_request *r)
{
	http_server *s = r->srv;
	stopped_reply(r, &r->early); /* r->reply and r->call are the worker's */
	r->overdue = 1;
	if (r->hc)
		r->hc->phase_start = uv_now(s->loop); /* a fresh budget to send it */
	MHD_resume_connection(r->conn);
}
