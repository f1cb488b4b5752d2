/*
 * parallel.c — `clash query` answers a block of lines as one proto_batch
 * shared by a few threads, through proto_batch_answer(): the per-query code
 * of clashd's POST /v1/batch, so a line's answer is byte for byte what the
 * server answers for the same query.
 *
 * Threads take chunks of CLI_CHUNK queries in turn from a shared counter
 * (small enough to even out queries of different sizes, large enough that
 * the counter is not contended); each writes only its own queries' answers,
 * and the caller writes them in order once all threads have joined.  A
 * block too small to share is answered on the calling thread alone.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "cli.h"

#define CLI_CHUNK 16
#define CLI_MAX_THREADS 64

typedef struct share {
	proto_batch *b;
	size_t n;
	size_t next; /* the first query no thread has taken (atomic) */
	int failed;  /* memory ran out (atomic) */
} share;

static void *answer_chunks(void *arg)
{
	share *sh = arg;
	for (;;) {
		size_t from = __atomic_fetch_add(&sh->next, CLI_CHUNK, __ATOMIC_RELAXED);
		if (from >= sh->n)
			break;
		size_t to = from + CLI_CHUNK < sh->n ? from + CLI_CHUNK : sh->n;
		if (proto_batch_answer(sh->b, from, to, NULL) != 0)
			__atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int cli_batch_answer(proto_batch *b, unsigned threads)
{
	share sh = {b, proto_batch_size(b), 0, 0};
	size_t chunks = (sh.n + CLI_CHUNK - 1) / CLI_CHUNK;
	size_t helpers = threads > 1 ? threads - 1 : 0;
	if (helpers > CLI_MAX_THREADS - 1)
		helpers = CLI_MAX_THREADS - 1;
	if (chunks == 0 || helpers > chunks - 1)
		helpers = chunks ? chunks - 1 : 0;
	pthread_t t[CLI_MAX_THREADS];
	size_t started = 0;
	for (; started < helpers; started++)
		if (pthread_create(&t[started], NULL, answer_chunks, &sh) != 0)
			break; /* fewer threads: the others share the work */
	answer_chunks(&sh);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return sh.failed ? -1 : 0;
}

int cli_answer_batch(const cli_lines *lines, cli_sink *sink, void *arg)
{
	unsigned threads = *(const unsigned *)arg;
	proto_batch *b = proto_batch_of_texts(lines->text, lines->len, lines->n);
	if (!b)
		return -1;
	int r = cli_batch_answer(b, threads);
	for (size_t i = 0; r == 0 && i < lines->n; i++) {
		size_t len;
		int status;
		const char *body = proto_batch_item(b, i, &len, &status, NULL);
		r = cli_put_answer(sink, lines, i, body, len, status);
	}
	proto_batch_free(b);
	return r;
}

unsigned cli_default_threads(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	int n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > CLI_MAX_THREADS ? CLI_MAX_THREADS : (unsigned)n;
}
