/*
 * http_body.c — a query's body: stored as it comes (inflated when it is
 * gzip), held to its bound, then handed to the worker pool.
 *
 * Over the bound, or out of memory, the rest is read and dropped, so the
 * answer (413, 500) goes out on a connection still in step.  Once whole,
 * the connection is suspended and the query queued, or it waits for its
 * turn in the heavy share.
 */
#include "http_body.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "http_admit.h"
#include "http_answer.h"
#include "http_loop.h"
#include "http_request.h"
#include "http_work.h"

static int body_append(void *ctx, const char *data, size_t n);

/* A piece of the body: stored, or inflated and stored. */
void http_body_receive(http_request *r, const char *data, size_t n)
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

/* Bytes of the (inflated) body, up to http_request_body_limit(): 0, or 1 once over it
 * or out of memory (the rest is then discarded). */
static int body_append(void *ctx, const char *data, size_t n)
{
	http_request *r = ctx;
	size_t max = http_request_body_limit(r);
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
		 * want counts the NUL the decoder needs, which Content-Length
		 * does not.  Chunked: double, from 64 KiB, never past the cap. */
		size_t want = r->len + n + 1;
		size_t cap;
		if (!r->gzip && r->declared >= want - 1) {
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
enum MHD_Result http_body_submit(http_request *r)
{
	http_server *s = r->srv;
	char detail[160];

	if (r->too_large) {
		http_admit_release(r);
		http_answer_reject(r, HTTP_REJECT_BODY_TOO_LARGE);
		snprintf(detail, sizeof detail,
		         "the request body is larger than the limit of %zu bytes%s "
		         "(%s)",
		         http_request_body_limit(r), r->gzip ? " once inflated" : "",
		         http_request_body_limit_flag(r));
		return http_answer_now_problem(r, 413, detail); /* read to its end: keep-alive */
	}
	if (r->gzip && (r->gzip_error || !http_gzip_ended(r->gzip))) {
		http_admit_release(r);
		snprintf(detail, sizeof detail,
		         "the body is not a whole gzip stream (Content-Encoding: "
		         "gzip): %s",
		         r->gzip_error ? r->gzip_error : "it ends before the stream does");
		proto_reply p = {0};
		if (proto_request_problem_reply(400, detail, &p) != 0)
			return http_answer_oom(r);
		return http_answer_now_reply(r, &p);
	}
	if (!r->body && !r->no_memory) {
		r->body = malloc(1);
		r->cap = 1;
		r->no_memory = r->body == NULL;
	}
	if (r->no_memory) {
		http_admit_release(r);
		return http_answer_oom(r);
	}
	r->body[r->len] = '\0';

	r->work.data = r;
	r->deadline = uv_now(s->loop) + s->cfg->request_timeout_ms;
	http_loop_sweep_by(s, r->deadline);
	MHD_suspend_connection(r->conn);
	r->state = REQ_WORKING;
	s->working++;
	if (http_admit_is_heavy(r))
		http_admit_heavy(r, http_work_queue);
	else
		http_work_queue(r);
	return MHD_YES; /* never MHD_NO once suspended */
}
