/*
 * fanout.c — a small fixed set of threads that run the pieces of one
 * request at once: the narrow phase of a scene (proto/endpoints/scene.c splits its
 * candidate pairs into pieces of a few hundred pairs).
 *
 * Requests still run on libuv's worker pool, one worker each.  A scene's
 * worker hands its pieces here (fanout_run) and then takes pieces itself
 * until none is left; the fanout's threads take the rest.  So a job
 * finishes even when every fanout thread is busy elsewhere, other requests
 * never queue behind a scene's pieces (a scene holds one worker, like any
 * request), and concurrent jobs share the threads round robin, one piece at
 * a time.  Why one huge scene does not starve other requests, and why not
 * a uv_queue_work item per piece: docs/design.md, "Threading".
 *
 * A job lives on its caller's stack: it is on the list only while it has
 * pieces to hand out, and its caller returns only after the last piece has
 * finished (counted under the lock), so no thread touches it after that.
 */
#include "fanout.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct fanout_job {
	proto_piece_fn piece;
	void *ctx;
	size_t n;
	size_t next;             /* the next piece to hand out */
	size_t finished;         /* pieces that have returned */
	struct fanout_job *link; /* in the list of jobs with pieces to hand out */
} fanout_job;

struct fanout {
	pthread_mutex_t mu;
	pthread_cond_t work;     /* a job was listed, or stopping */
	pthread_cond_t finished; /* some job's last piece returned */
	fanout_job *head, *tail;
	int stopping;
	unsigned nthreads;
	pthread_t *threads;
};

/* Take a piece of the job at the head (mu held): the job moves to the
 * tail, or leaves the list with its last piece. */
static size_t take_head(fanout *f, fanout_job **job)
{
	fanout_job *j = f->head;
	size_t i = j->next++;
	f->head = j->link;
	if (f->head == NULL)
		f->tail = NULL;
	j->link = NULL;
	if (j->next < j->n) {
		if (f->tail)
			f->tail->link = j;
		else
			f->head = j;
		f->tail = j;
	}
	*job = j;
	return i;
}

/* Remove j from the list (mu held), when its caller took its last piece. */
static void unlist(fanout *f, fanout_job *j)
{
	fanout_job **pp = &f->head, *prev = NULL;
	while (*pp && *pp != j) {
		prev = *pp;
		pp = &(*pp)->link;
	}
	if (*pp == NULL)
		return;
	*pp = j->link;
	if (f->tail == j)
		f->tail = prev;
	j->link = NULL;
}

/* Run piece i of j, then count it (mu not held on entry, held on return). */
static void run_piece(fanout *f, fanout_job *j, size_t i)
{
	j->piece(j->ctx, i);
	pthread_mutex_lock(&f->mu);
	if (++j->finished == j->n)
		pthread_cond_broadcast(&f->finished);
}

static void *worker(void *arg)
{
	fanout *f = arg;
	pthread_mutex_lock(&f->mu);
	for (;;) {
		if (f->head) {
			fanout_job *j;
			size_t i = take_head(f, &j);
			pthread_mutex_unlock(&f->mu);
			run_piece(f, j, i);
			continue;
		}
		if (f->stopping)
			break;
		pthread_cond_wait(&f->work, &f->mu);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

void fanout_run(void *self, proto_piece_fn piece, void *ctx, size_t n)
{
	fanout *f = self;
	if (n == 0)
		return;
	if (f == NULL || f->nthreads == 0 || n == 1) {
		for (size_t i = 0; i < n; i++)
			piece(ctx, i);
		return;
	}
	fanout_job job = {.piece = piece, .ctx = ctx, .n = n};
	pthread_mutex_lock(&f->mu);
	if (f->tail)
		f->tail->link = &job;
	else
		f->head = &job;
	f->tail = &job;
	pthread_cond_broadcast(&f->work);
	/* Help with our own job until its pieces are all handed out. */
	while (job.next < job.n) {
		size_t i = job.next++;
		if (job.next == job.n)
			unlist(f, &job);
		pthread_mutex_unlock(&f->mu);
		run_piece(f, &job, i);
	}
	while (job.finished < job.n)
		pthread_cond_wait(&f->finished, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

int fanout_start(fanout **out, unsigned threads)
{
	fanout *f = calloc(1, sizeof *f);
	if (f == NULL)
		return -ENOMEM;
	if (threads > 0) {
		f->threads = calloc(threads, sizeof *f->threads);
		if (f->threads == NULL) {
			free(f);
			return -ENOMEM;
		}
	}
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->work, NULL);
	pthread_cond_init(&f->finished, NULL);
	for (unsigned i = 0; i < threads; i++) {
		int rc = pthread_create(&f->threads[i], NULL, worker, f);
		if (rc != 0) {
			fanout_stop(f);
			return -rc;
		}
		f->nthreads++;
	}
	*out = f;
	return 0;
}

void fanout_stop(fanout *f)
{
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	f->stopping = 1;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
	for (unsigned i = 0; i < f->nthreads; i++)
		pthread_join(f->threads[i], NULL);
	pthread_cond_destroy(&f->work);
	pthread_cond_destroy(&f->finished);
	pthread_mutex_destroy(&f->mu);
	free(f->threads);
	free(f);
}
