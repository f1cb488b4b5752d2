/*
 * batch_bench.c — the bodies `make bench-http` sends, and the decode-only
 * rate a batch over HTTP is measured against.
 *
 *   batch-bench bodies N DIR
 *       writes DIR/pair.json (one small pair, a Query), DIR/batch.json
 *       ({"queries": [N small pairs]}) and DIR/pair-answer.json (clashd's
 *       answer to pair.json, the body bench/hello sends back); for the
 *       by-ref queries, DIR/shape-a.json and DIR/shape-b.json (the pair's
 *       shapes, b without its move along x) and DIR/ref.json.in (the pair
 *       by ref, b moved by a pose; @A@ and @B@ stand for the ids)
 *   batch-bench decode BODY THREADS SECONDS
 *       decodes the batch body over and over on THREADS threads (each its
 *       own copy of the work, no sharing) and prints pairs per second for
 *         json_loadb   json_loadb of the whole body (and json_decref)
 *         decode       that, plus each query decoded into core types
 *                      (proto_query_decode, the decoder of /v1/query)
 *         answer       the whole batch answered in process, one thread per
 *                      body (proto_batch_reply_ex: split, per-query parse,
 *                      decode, GJK, encode, join) — the work clashd does
 *                      without HTTP
 *       one line of JSON per mode: pairs per second of wall time, and per
 *       second of the threads' CPU time (steadier on a busy machine).
 *
 * A small pair: two polytopes of 8 random vertices in a unit box (3-D,
 * coordinates written with 6 significant digits), b moved 0.5 to 2.5 along
 * x, so about a third intersect; about 495 bytes of JSON.  The generator is
 * seeded: every run sends the same bytes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "proto.h"
#include "query.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static int shape(char *o, size_t cap, double x)
{
	int n = snprintf(o, cap, "{\"vertices\":[");
	for (int i = 0; i < 8; i++)
		n += snprintf(o + n, cap - (size_t)n, "%s[%.6g,%.6g,%.6g]", i ? "," : "",
		              x + uniform(), uniform(), uniform());
	n += snprintf(o + n, cap - (size_t)n, "]}");
	return n;
}

static int pair(char *o, size_t cap)
{
	int n = snprintf(o, cap, "{\"a\":");
	n += shape(o + n, cap - (size_t)n, 0);
	n += snprintf(o + n, cap - (size_t)n, ",\"b\":");
	n += shape(o + n, cap - (size_t)n, 0.5 + 2 * uniform());
	n += snprintf(o + n, cap - (size_t)n, "}");
	return n;
}

static int write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "batch-bench: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static int bodies(size_t n, const char *dir)
{
	char one[4096];
	size_t cap = 64 + n * sizeof one, len = 0;
	char *batch = malloc(cap);
	if (!batch)
		return 1;
	len += (size_t)snprintf(batch, cap, "{\"queries\":[");
	int first_len = 0;
	for (size_t i = 0; i < n; i++) {
		int k = pair(one, sizeof one);
		if (i == 0) {
			first_len = k;
			if (write_file(dir, "pair.json", one, (size_t)k) != 0)
				return 1;
		}
		len += (size_t)snprintf(batch + len, cap - len, "%s%s", i ? "," : "", one);
	}
	len += (size_t)snprintf(batch + len, cap - len, "]}");
	if (write_file(dir, "batch.json", batch, len) != 0)
		return 1;
	/* The answer to the first pair: what hello sends, so both servers
	 * send as many bytes. */
	rng = 0x9E3779B97F4A7C15ULL;
	pair(one, sizeof one);
	proto_reply r;
	if (proto_query_reply(one, (size_t)first_len, &r) != 0 || r.status != 200)
		return 1;
	int rc = write_file(dir, "pair-answer.json", r.body, r.length);
	proto_reply_free(&r);
	free(batch);
	/* The same pair again, for storing: a as it is, b at x = 0 and moved
	 * by the by-ref query's pose instead. */
	rng = 0x9E3779B97F4A7C15ULL;
	char b[4096], ref[512];
	int ka = shape(one, sizeof one, 0);
	double x = 0.5 + 2 * uniform();
	int kb = shape(b, sizeof b, 0);
	int kr = snprintf(ref, sizeof ref,
	                  "{\"a\":{\"ref\":\"@A@\"},\"b\":{\"ref\":\"@B@\","
	                  "\"pose\":{\"translation\":[%.17g,0,0]}}}",
	                  x);
	if (rc == 0)
		rc = write_file(dir, "shape-a.json", one, (size_t)ka) ||
		     write_file(dir, "shape-b.json", b, (size_t)kb) ||
		     write_file(dir, "ref.json.in", ref, (size_t)kr);
	return rc ? 1 : 0;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum mode {
	MODE_LOADB,
	MODE_DECODE,
	MODE_ANSWER
};

typedef struct worker {
	pthread_t t;
	enum mode mode;
	const char *body;
	size_t len;
	double seconds;
	size_t npairs; /* in the body */
	size_t pairs;  /* out: pairs decoded */
	double cpu;    /* out: seconds of this thread's CPU time */
	int failed;
} worker;

static const size_t FLAGS = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL;

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *work(void *arg)
{
	worker *w = arg;
	double end = now_s() + w->seconds, c0 = cpu_s();
	while (!w->failed && now_s() < end) {
		if (w->mode == MODE_ANSWER) {
			proto_reply r;
			if (proto_batch_reply_ex(w->body, w->len, NULL, &r) != 0 || r.status != 200)
				w->failed = 1;
			proto_reply_free(&r);
			w->pairs += w->npairs;
			continue;
		}
		json_error_t e;
		json_t *root = json_loadb(w->body, w->len, FLAGS, &e);
		json_t *queries = json_object_get(root, "queries");
		if (!json_is_array(queries)) {
			w->failed = 1;
			break;
		}
		size_t n = json_array_size(queries);
		if (w->mode == MODE_DECODE) {
			for (size_t i = 0; i < n; i++) {
				proto_query q;
				proto_problem p = {0};
				if (proto_query_decode(json_array_get(queries, i), NULL, NULL, &q,
				                       &p) != 0) {
					w->failed = 1;
					proto_problem_release(&p);
					break;
				}
				proto_query_release(&q);
			}
		}
		json_decref(root);
		w->pairs += n;
	}
	w->cpu = cpu_s() - c0;
	return NULL;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static int decode(const char *path, int threads, double seconds)
{
	size_t len;
	char *body = slurp(path, &len);
	if (!body) {
		fprintf(stderr, "batch-bench: cannot read %s\n", path);
		return 1;
	}
	static const char *const names[] = {"json_loadb", "decode", "answer"};
	json_t *root = json_loadb(body, len, FLAGS, NULL);
	size_t npairs = json_array_size(json_object_get(root, "queries"));
	json_decref(root);
	const char *only = getenv("BATCH_BENCH_MODE"); /* one mode, for profiling */
	for (int m = MODE_LOADB; m <= MODE_ANSWER; m++) {
		if (only && strcmp(only, names[m]) != 0)
			continue;
		worker w[64];
		double t0 = now_s();
		for (int i = 0; i < threads; i++) {
			w[i] = (worker){.mode = (enum mode)m,
			                .body = body,
			                .len = len,
			                .seconds = seconds,
			                .npairs = npairs};
			pthread_create(&w[i].t, NULL, work, &w[i]);
		}
		size_t pairs = 0;
		double cpu = 0;
		int failed = 0;
		for (int i = 0; i < threads; i++) {
			pthread_join(w[i].t, NULL);
			pairs += w[i].pairs;
			cpu += w[i].cpu;
			failed |= w[i].failed;
		}
		double dt = now_s() - t0;
		if (failed) {
			fprintf(stderr, "batch-bench: %s failed on %s\n", names[m], path);
			return 1;
		}
		printf("{\"mode\":\"%s\",\"threads\":%d,\"seconds\":%.2f,\"pairs\":%zu,"
		       "\"pairs_per_s\":%.0f,\"cpu_s\":%.2f,\"pairs_per_cpu_s\":%.0f}\n",
		       names[m], threads, dt, pairs, (double)pairs / dt, cpu, (double)pairs / cpu);
		fflush(stdout);
	}
	free(body);
	return 0;
}

int main(int argc, char **argv)
{
	proto_init();
	if (argc == 4 && strcmp(argv[1], "bodies") == 0)
		return bodies((size_t)atol(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "decode") == 0) {
		int threads = atoi(argv[3]);
		if (threads < 1 || threads > 64)
			threads = 1;
		return decode(argv[2], threads, atof(argv[4]));
	}
	fprintf(stderr, "usage: batch-bench bodies N DIR\n"
	                "       batch-bench decode BODY THREADS SECONDS\n");
	return 2;
}
