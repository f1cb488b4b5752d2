/*
 * soak.c — clashd under steady load for a while; its memory must stay flat.
 *
 *   build/soak [--seconds S] [--interval S] [--max-growth BYTES] [--dir DIR]
 *   (make soak DURATION=S; make test runs it for 25 s)
 *
 * One clashd (build/clashd, or $CLASH_CLASHD) on a free loopback port, four
 * closed-loop clients (loadgen.h) sending a mix of every kind of request:
 * queries with each method, compound shapes, a 400-vertex query, a
 * containment query, malformed and invalid bodies (400, 422), unknown paths
 * and methods (404, 405), probes and /metrics.  Every answer is checked
 * (status, and the body byte for byte where the codec gives it).  Every
 * interval the resident set size is read from /proc/PID/status (VmRSS).
 *
 * Verdict.  The first half is warm-up (malloc's arenas, jansson's pools and
 * the thread stacks reach their working size); over the second half the
 * least-squares slope of RSS against time is the growth rate.  Divided by
 * the request rate it is the memory kept per request, which is what a leak
 * is: the run fails above --max-growth bytes per request (default 1).
 * Why 1: every allocation glibc makes takes at least 32 bytes, so a leak on
 * a path that even 1 request in 32 takes keeps >= 1 byte per request on
 * average (checked: a clashd leaking 24 bytes on GET /livez alone, 1 request
 * in 15 here, measured +2.1 bytes per request and failed); a flat clashd
 * measures within +-0.05 (its RSS moves by single pages, 4 KiB, against
 * hundreds of thousands of requests per half-run).  The slope is printed
 * in KiB/min too.  Any failed request fails the run as well, and so does a
 * clashd that does not exit 0 on SIGTERM at the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loadgen.h"
#include "proc.h"
#include "proto.h"

#define MAX_SAMPLES 100000
#define MAX_REQS 16

static load_request reqs[MAX_REQS];
static proto_reply expect[MAX_REQS];
static char *bodies[MAX_REQS];
static size_t nreqs;

/* A request; for the POST routes the expected reply comes from the codec. */
static void add(const char *method, const char *path, char *body, int status)
{
	load_request *r = &reqs[nreqs];
	*r = (load_request){method, path, body, body ? strlen(body) : 0, status, NULL, 0,
	                    NULL,   0,    NULL};
	bodies[nreqs] = body;
	proto_reply *e = &expect[nreqs];
	int rc = 0;
	if (body && strcmp(path, "/v1/query") == 0)
		rc = proto_query_reply(body, r->len, e);
	else if (body && strcmp(path, "/v1/contains") == 0)
		rc = proto_contains_reply(body, r->len, e);
	if (rc != 0)
		proc_fail("soak: out of memory");
	if (e->body) {
		if (e->status != status)
			proc_fail("soak: request %zu answers %d, not %d: %s", nreqs, e->status,
			          status, e->body);
		r->expect_body = e->body;
		r->expect_len = e->length;
	}
	nreqs++;
}

static char *text(const char *s)
{
	char *d = strdup(s);
	if (!d)
		proc_fail("soak: out of memory");
	return d;
}

/* Two 3-D clouds of n points each (the cube corners plus points inside). */
static char *cloud_query(int n)
{
	size_t cap = 64 + (size_t)n * 2 * 40;
	char *q = malloc(cap);
	if (!q)
		proc_fail("soak: out of memory");
	size_t len = (size_t)snprintf(q, cap, "{\"a\":{\"vertices\":[");
	unsigned seed = 12345;
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < n; i++) {
			double p[3];
			for (int k = 0; k < 3; k++) {
				seed = seed * 1103515245u + 12345u;
				p[k] = i < 8 ? ((i >> k) & 1) : (1 + (seed >> 8) % 998) / 1000.0;
			}
			p[0] += s ? 3 : 0;
			len += (size_t)snprintf(q + len, cap - len, "%s[%.3f,%.3f,%.3f]",
			                        i ? "," : "", p[0], p[1], p[2]);
		}
		len += (size_t)snprintf(q + len, cap - len, s ? "]}}" : "]},\"b\":{\"vertices\":[");
	}
	return q;
}

/* Least-squares slope of y against x over samples [from, n). */
static double slope(const double *x, const double *y, int from, int n)
{
	double mx = 0, my = 0;
	int k = n - from;
	for (int i = from; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= k;
	my /= k;
	double sxy = 0, sxx = 0;
	for (int i = from; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	return sxx > 0 ? sxy / sxx : 0;
}

int main(int argc, char **argv)
{
	double seconds = 600, interval = 0, max_growth = 1;
	const char *dir = "build/soak.d";
	const char *clashd = getenv("CLASH_CLASHD") ? getenv("CLASH_CLASHD") : "build/clashd";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--interval") == 0)
			interval = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--max-growth") == 0)
			max_growth = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else {
			fprintf(stderr,
			        "usage: soak [--seconds S] [--interval S] [--max-growth BYTES] "
			        "[--dir DIR]\n");
			return 2;
		}
	}
	if (!(seconds >= 10) || seconds > 7 * 86400) {
		fprintf(stderr, "soak: --seconds from 10 to a week\n");
		return 2;
	}
	/* Samples: every second for short runs, else about 200 of them, at
	 * most every 5 s ("every few seconds"). */
	if (interval <= 0)
		interval = seconds <= 120 ? 0.5 : seconds / 200 < 5 ? seconds / 200 : 5;
	setvbuf(stdout, NULL, _IOLBF, 0);
	proc_guard((unsigned)seconds + 60);
	mkdir(dir, 0755);

	proto_init();
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],"
	         "[1,1,1]]},\"b\":{\"vertices\":[[3,0,0],[4,0,0],[3,1,0],[3,0,1],[4,1,1],[4,1,0],"
	         "[4,0,1],[3,1,1]]}}"),
	    200);
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0,0,0],[2,0,0],[0,2,0],[0,0,2]]},\"b\":{\"vertices\":"
	         "[[0.5,0.5,0.5],[3,3,3]],\"radius\":0.25,\"pose\":{\"rotation\":[0,0,0.6,0.8]}}}"),
	    200);
	add("POST", "/v1/query",
	    text("{\"a\":{\"parts\":[{\"vertices\":[[0,0],[4,0],[4,1],[0,1]]},{\"vertices\":[[0,1],"
	         "[1,1],[1,4],[0,4]]}]},\"b\":{\"vertices\":[[2,1.5],[3,3]],\"radius\":0.25}}"),
	    200);
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0,0],[1,0],[0,1]]},\"b\":{\"vertices\":[[2,2],[3,2],[2,3]]},"
	         "\"method\":\"ipm\"}"),
	    200);
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0,0,0,0],[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]},\"b\":"
	         "{\"vertices\":[[2,2,2,2],[3,2,2,2]]},\"method\":\"simplex\"}"),
	    200);
	add("POST", "/v1/query", cloud_query(200), 200);
	add("POST", "/v1/contains",
	    text("{\"inner\":{\"vertices\":[[0.1,0.1,0.1]],\"radius\":0.05},\"outer\":{\"vertices\":"
	         "[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}"),
	    200);
	add("POST", "/v1/query", text("{\"a\":{\"vertices\":[[0,0],[1,"), 400);
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":[[1,2,1e400]]}}"), 422);
	add("POST", "/v1/query",
	    text("{\"a\":{\"vertices\":[[0]],\"colour\":\"red\"},\"b\":{\"vertices\":[[1]]}}"),
	    422);
	add("POST", "/v1/contains", text("{\"inner\":{\"vertices\":[[0]]}}"), 422);
	add("GET", "/livez", NULL, 200);
	add("GET", "/metrics", NULL, 200);
	add("POST", "/nowhere", text("{}"), 404);
	add("GET", "/v1/query", NULL, 405);

	/* Its log (a JSON line per request, megabytes a second) goes to
	 * /dev/null: written all the same, kept nowhere. */
	int port = proc_free_port();
	char listen[64];
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	const char *cargv[] = {clashd, "--listen", listen, "--threads", "2", NULL};
	pid_t pid = proc_spawn(cargv, NULL, "/dev/null");
	if (proc_wait_port(port, 10) != 0)
		proc_fail("soak: clashd did not start (run %s --listen %s by hand to see why)",
		          clashd, listen);
	printf("soak: clashd (pid %d) on 127.0.0.1:%d for %.0f s, RSS every %.1f s, %zu kinds of "
	       "request\n",
	       (int)pid, port, seconds, interval, nreqs);

	static double t[MAX_SAMPLES], rss[MAX_SAMPLES], sent[MAX_SAMPLES];
	int n = 0;
	char flog[512];
	snprintf(flog, sizeof flog, "%s/failures.log", dir);
	FILE *ff = fopen(flog, "w");
	load_config lc = {port, 4, 0, seconds, reqs, nreqs, ff, 0};
	load_run *run = load_start(&lc);
	if (!run)
		proc_fail("soak: cannot start the clients");
	double t0 = load_now();
	char series[512];
	snprintf(series, sizeof series, "%s/rss.tsv", dir);
	FILE *fs = fopen(series, "w");
	if (fs)
		fprintf(fs, "seconds\trss_kib\trequests\n");
	for (double next = t0; n < MAX_SAMPLES; next += interval) {
		double w = next - load_now();
		if (w > 0)
			usleep((useconds_t)(w * 1e6));
		double now = load_now() - t0;
		if (now > seconds)
			break;
		long kib = proc_rss_kib(pid);
		if (kib < 0) {
			load_stats ls;
			load_finish(run, 0, &ls);
			proc_fail("soak: clashd is gone");
		}
		t[n] = now;
		rss[n] = (double)kib;
		sent[n] = (double)load_sent(run);
		if (fs)
			fprintf(fs, "%.2f\t%ld\t%.0f\n", now, kib, sent[n]);
		n++;
	}
	if (fs)
		fclose(fs);
	load_stats ls;
	load_finish(run, 0, &ls);
	if (ff)
		fclose(ff);
	kill(pid, SIGTERM);
	int st = proc_wait(pid, 25);
	proc_kill_all();

	load_print(stdout, "soak: clients", &ls);
	int ok = 1;
	if (n < 8) {
		fprintf(stderr, "soak: FAILED: only %d RSS samples\n", n);
		return 1;
	}
	int half = n / 2;
	double kib_per_s = slope(t, rss, half, n);
	double req_per_s = slope(t, sent, half, n);
	double bytes_per_req = req_per_s > 0 ? kib_per_s * 1024 / req_per_s : 0;
	double lo = rss[half], hi = rss[half];
	for (int i = half; i < n; i++) {
		lo = rss[i] < lo ? rss[i] : lo;
		hi = rss[i] > hi ? rss[i] : hi;
	}
	printf("soak: RSS %.0f KiB at the start, %.0f KiB at the end (second half %.0f to %.0f KiB, "
	       "%d samples); slope over the second half %+.1f KiB/min at %.0f requests/s = %+.3f "
	       "bytes per request (limit %.3g); series in %s\n",
	       rss[0], rss[n - 1], lo, hi, n - half, kib_per_s * 60, req_per_s, bytes_per_req,
	       max_growth, series);
	if (ls.failed) {
		fprintf(stderr, "soak: FAILED: %llu of %llu requests failed (see %s)\n",
		        (unsigned long long)ls.failed, (unsigned long long)ls.sent, flog);
		ok = 0;
	}
	if (bytes_per_req > max_growth) {
		fprintf(stderr, "soak: FAILED: clashd's memory grows by %.3f bytes per request\n",
		        bytes_per_req);
		ok = 0;
	}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "soak: FAILED: clashd did not exit 0 after SIGTERM\n");
		ok = 0;
	}
	for (size_t i = 0; i < nreqs; i++) {
		free(bodies[i]);
		proto_reply_free(&expect[i]);
	}
	if (ok)
		printf("soak: passed: %llu requests, memory flat\n", (unsigned long long)ls.sent);
	return ok ? 0 : 1;
}
