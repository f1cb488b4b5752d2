/*
 * loadgen.c — the load generator of loadgen.h.
 *
 * One thread per client, blocking sockets with 10 s timeouts (a request
 * with no answer by then is a failure, and no client can hang).  Responses
 * are read by Content-Length, or chunked, or to the close.  Counters are
 * per client and summed at the end, so the hot path takes no lock.
 */
#include "loadgen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HIST_BUCKETS 64 /* latency buckets of a quarter octave from 10 us */
#define MAX_LOGGED 20   /* failures described, over all clients */

typedef struct client {
	load_run *run;
	int index;
	pthread_t thread;
	int fd;
	char *buf; /* received, not yet consumed */
	size_t len, cap;
	load_stats st;
	uint64_t hist[HIST_BUCKETS];
	const char *token; /* a bearer token its requests carry, or NULL */
} client;

struct load_run {
	load_config cfg;
	client *clients;
	int started;
	double start;
	atomic_int stop;
	atomic_ullong sent;
	atomic_int logged;
	pthread_mutex_t log_mu;
};

double load_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void describe(client *c, const char *method, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void describe(client *c, const char *method, const char *path, const char *fmt, ...)
{
	load_run *run = c->run;
	if (atomic_fetch_add(&run->logged, 1) >= MAX_LOGGED)
		return;
	FILE *f = run->cfg.log ? run->cfg.log : stderr;
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&run->log_mu);
	fprintf(f, "loadgen: client %d, t=%.3f s, %s %s: ", c->index, load_now() - run->start,
	        method, path);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	pthread_mutex_unlock(&run->log_mu);
	va_end(ap);
}

static void disconnect(client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

static int connect_to(client *c)
{
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	struct timeval tv = {10, 0};
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)c->run->cfg.port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int e = errno;
		disconnect(c);
		return -e;
	}
	c->st.connections++;
	return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read more bytes; 1, 0 at EOF, -1 on error or timeout. */
static int fill(client *c)
{
	if (c->cap - c->len < 16384) {
		size_t cap = c->cap ? c->cap * 2 : 65536;
		char *b = realloc(c->buf, cap);
		if (!b)
			return -1;
		c->buf = b;
		c->cap = cap;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			c->len += (size_t)n;
			c->buf[c->len] = '\0';
			return 1;
		}
		return n == 0 ? 0 : -1;
	}
}

static void consume(client *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

/* Header `name`'s value in head (CRLF lines), copied; NULL if absent. */
static const char *header(const char *head, const char *name, char *out, size_t outlen)
{
	size_t n = strlen(name);
	for (const char *line = strstr(head, "\r\n"); line && line[2];
	     line = strstr(line, "\r\n")) {
		line += 2;
		if (strncasecmp(line, name, n) == 0 && line[n] == ':') {
			const char *v = line + n + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t k = strcspn(v, "\r\n");
			if (k >= outlen)
				k = outlen - 1;
			memcpy(out, v, k);
			out[k] = '\0';
			return out;
		}
	}
	return NULL;
}

typedef struct answer {
	int status;
	int closed; /* Connection: close */
	char *body; /* malloc'd */
	size_t len;
} answer;

/* Read one final response (1xx skipped; no body when `to_head`: the
 * answer to a HEAD).  0, or -1 with no complete answer. */
static int read_answer(client *c, int to_head, answer *a)
{
	memset(a, 0, sizeof *a);
	for (;;) {
		char *end;
		while (!(c->buf && (end = memmem(c->buf, c->len, "\r\n\r\n", 4))))
			if (fill(c) <= 0)
				return -1;
		size_t hlen = (size_t)(end - c->buf) + 4;
		char *head = strndup(c->buf, hlen - 2);
		if (!head)
			return -1;
		consume(c, hlen);
		if (sscanf(head, "HTTP/1.%*d %d", &a->status) != 1) {
			free(head);
			return -1;
		}
		if (a->status < 200) {
			free(head);
			continue;
		}
		char v[128];
		a->closed = header(head, "Connection", v, sizeof v) && strcasecmp(v, "close") == 0;
		int chunked = header(head, "Transfer-Encoding", v, sizeof v) &&
		              strcasestr(v, "chunked") != NULL;
		long long want = -1;
		if (header(head, "Content-Length", v, sizeof v))
			want = atoll(v);
		free(head);
		if (to_head || a->status == 204 || a->status == 304) {
			want = 0;
			chunked = 0;
		}
		if (chunked) {
			size_t cap = 4096, n = 0;
			char *body = malloc(cap);
			for (;;) {
				char *eol;
				while (!(eol = memmem(c->buf, c->len, "\r\n", 2)))
					if (fill(c) <= 0)
						goto bad_chunk;
				size_t size = strtoul(c->buf, NULL, 16);
				consume(c, (size_t)(eol - c->buf) + 2);
				while (c->len < size + 2)
					if (fill(c) <= 0)
						goto bad_chunk;
				if (size == 0) {
					consume(c, 2); /* no trailers from our servers */
					break;
				}
				if (n + size + 1 > cap) {
					cap = 2 * (n + size + 1);
					char *b = realloc(body, cap);
					if (!b)
						goto bad_chunk;
					body = b;
				}
				memcpy(body + n, c->buf, size);
				n += size;
				consume(c, size + 2);
			}
			body[n] = '\0';
			a->body = body;
			a->len = n;
			return 0;
		bad_chunk:
			free(body);
			return -1;
		}
		if (want < 0) { /* to the close */
			int r;
			while ((r = fill(c)) > 0)
				;
			if (r < 0)
				return -1;
			want = (long long)c->len;
			a->closed = 1;
		}
		while ((long long)c->len < want)
			if (fill(c) <= 0)
				return -1;
		a->body = malloc((size_t)want + 1);
		if (!a->body)
			return -1;
		memcpy(a->body, c->buf, (size_t)want);
		a->body[want] = '\0';
		a->len = (size_t)want;
		consume(c, (size_t)want);
		return 0;
	}
}

static int bucket_of(double seconds)
{
	double us = seconds * 1e6 / 10;
	int b = us <= 1 ? 0 : (int)(4 * log2(us));
	return b < 0 ? 0 : b >= HIST_BUCKETS ? HIST_BUCKETS - 1 : b;
}

static double bucket_top(int b)
{
	return 10e-6 * pow(2, (b + 1) / 4.0);
}

/* Send a request (connecting first when needed) and read its answer into
 * *a.  0, or -1 with no complete answer (described, counted in no_answer,
 * disconnected).  A "Connection: close" answer disconnects after it. */
static int exchange(client *c, const char *method, const char *path, const char *route,
                    const char *body, size_t len, answer *a)
{
	char head[1024], rh[512] = "";
	memset(a, 0, sizeof *a);
	int e;
	if (c->fd < 0 && (e = connect_to(c)) != 0) {
		c->st.no_answer++;
		describe(c, method, path, "connect: %s", strerror(-e));
		return -1;
	}
	if (route)
		snprintf(rh, sizeof rh, LOAD_ROUTE_HEADER ": %.200s\r\n", route);
	if (c->token)
		snprintf(rh + strlen(rh), sizeof rh - strlen(rh),
		         "Authorization: Bearer %.200s\r\n", c->token);
	int hn;
	if (body)
		hn = snprintf(
			head, sizeof head,
			"%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: application/json\r\n"
			"Content-Length: %zu\r\n\r\n",
			method, path, rh, len);
	else
		hn = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n",
		              method, path, rh);
	if (send_all(c->fd, head, (size_t)hn) != 0 || (body && send_all(c->fd, body, len) != 0)) {
		c->st.no_answer++;
		describe(c, method, path, "send: %s", strerror(errno));
		disconnect(c);
		return -1;
	}
	errno = 0;
	if (read_answer(c, strcmp(method, "HEAD") == 0, a) != 0) {
		c->st.no_answer++;
		describe(c, method, path, "no complete answer (%s)",
		         errno ? strerror(errno) : "closed");
		free(a->body);
		a->body = NULL;
		disconnect(c);
		return -1;
	}
	if (a->closed)
		disconnect(c);
	return 0;
}

/* Upload a shape (route: the header to send, or NULL).  0, or -1 counted
 * as a failure of the request it was for. */
static int upload(client *c, const load_shape *sh, const char *route)
{
	answer a;
	if (exchange(c, "POST", "/v1/shapes", route, sh->body, sh->len, &a) != 0)
		return -1;
	int ok = a.status == 200 || a.status == 201;
	if (!ok) {
		c->st.bad_status++;
		describe(c, "POST", "/v1/shapes", "status %d, expected 200 or 201: %.300s",
		         a.status, a.body);
	}
	free(a.body);
	return ok ? 0 : -1;
}

/* Whether an answer is the unknown-shape problem. */
static int is_miss(const answer *a)
{
	return a->status == 422 && a->body &&
	       strstr(a->body, "\"urn:clashd:problem:unknown-shape\"") != NULL;
}

/* After a miss: upload the shapes of rq its "missing" list names.  The
 * number uploaded (0: the list names none of them), or -1. */
static int upload_missing(client *c, const load_request *rq, const answer *a)
{
	const char *missing = strstr(a->body, "\"missing\"");
	if (!missing)
		return 0;
	const char *list_end = strchr(missing, ']');
	int n = 0;
	for (size_t k = 0; k < rq->nshapes; k++) {
		const char *at = strstr(missing, rq->shapes[k].id);
		if (!at || (list_end && at > list_end))
			continue;
		if (upload(c, &rq->shapes[k], rq->route) != 0)
			return -1;
		c->st.reuploads++;
		n++;
	}
	return n;
}

/* Whether shape j of request p and shape k of request q are one upload:
 * the same shape with the same route. */
static int same_upload(const load_request *p, size_t j, const load_request *q, size_t k)
{
	if (strcmp(p->shapes[j].id, q->shapes[k].id) != 0)
		return 0;
	if (!p->route || !q->route)
		return p->route == q->route;
	return strcmp(p->route, q->route) == 0;
}

static void *client_main(void *arg)
{
	client *c = arg;
	load_run *run = c->run;
	const load_config *cfg = &run->cfg;
	/* The stored shapes first, each with every route of a request naming
	 * it (the uploads go where the requests will). */
	for (size_t r = 0; r < cfg->nreqs && !cfg->uploaded; r++)
		for (size_t k = 0; k < cfg->reqs[r].nshapes; k++) {
			int seen = 0;
			for (size_t q = 0; q <= r && !seen; q++)
				for (size_t j = 0; j < (q < r ? cfg->reqs[q].nshapes : k) && !seen;
				     j++)
					seen = same_upload(&cfg->reqs[q], j, &cfg->reqs[r], k);
			if (seen)
				continue;
			/* A request of its own: counted in sent, ok or failed. */
			c->st.sent++;
			atomic_fetch_add(&run->sent, 1);
			if (upload(c, &cfg->reqs[r].shapes[k], cfg->reqs[r].route) == 0) {
				c->st.ok++;
				c->st.uploads++;
			}
		}
	for (uint64_t i = 0;; i++) {
		if (atomic_load(&run->stop))
			break;
		double now = load_now();
		if (cfg->duration > 0 && now - run->start >= cfg->duration)
			break;
		if (cfg->rate > 0) {
			double due = run->start + (double)i / cfg->rate;
			if (due > now) {
				double w = due - now;
				struct timespec ts = {(time_t)w, (long)((w - floor(w)) * 1e9)};
				nanosleep(&ts, NULL);
				if (atomic_load(&run->stop))
					break;
			}
		}
		const load_request *rq = &cfg->reqs[(i + (uint64_t)c->index * 7) % cfg->nreqs];
		c->st.sent++;
		atomic_fetch_add(&run->sent, 1);
		if (rq->nshapes) {
			c->st.by_ref++;
			c->st.routed += rq->route != NULL;
		}
		double t0 = load_now();
		answer a;
		if (exchange(c, rq->method, rq->path, rq->route, rq->body, rq->len, &a) != 0)
			continue;
		if (rq->nshapes && is_miss(&a)) {
			/* Upload what is missing and send it once more. */
			c->st.misses++;
			c->st.routed_misses += rq->route != NULL;
			int up = upload_missing(c, rq, &a);
			if (up < 0) {
				free(a.body);
				continue;
			}
			if (up > 0) {
				free(a.body);
				if (exchange(c, rq->method, rq->path, rq->route, rq->body, rq->len,
				             &a) != 0)
					continue;
			}
		}
		double lat = load_now() - t0;
		if (lat > c->st.max_latency)
			c->st.max_latency = lat;
		c->hist[bucket_of(lat)]++;
		c->st.by_status[a.status / 100 < LOAD_STATUS_CLASSES ? a.status / 100 : 0]++;
		if (a.status != rq->status) {
			c->st.bad_status++;
			describe(c, rq->method, rq->path, "status %d, expected %d: %.300s",
			         a.status, rq->status, a.body);
		} else if (rq->expect_body && (a.len != rq->expect_len ||
		                               memcmp(a.body, rq->expect_body, a.len) != 0)) {
			c->st.bad_body++;
			describe(c, rq->method, rq->path, "another body: %.300s", a.body);
		} else {
			c->st.ok++;
		}
		free(a.body);
	}
	disconnect(c);
	return NULL;
}

int load_once(int port, const char *method, const char *path, const char *route, const char *body,
              size_t len, char **out, size_t *outlen)
{
	return load_once_as(port, NULL, method, path, route, body, len, out, outlen);
}

int load_once_as(int port, const char *token, const char *method, const char *path,
                 const char *route, const char *body, size_t len, char **out, size_t *outlen)
{
	load_run run;
	memset(&run, 0, sizeof run);
	atomic_init(&run.stop, 0);
	atomic_init(&run.sent, 0);
	atomic_init(&run.logged, 0);
	run.cfg.port = port;
	run.start = load_now();
	pthread_mutex_init(&run.log_mu, NULL);
	client c;
	memset(&c, 0, sizeof c);
	c.run = &run;
	c.index = -1;
	c.fd = -1;
	c.token = token;
	answer a;
	int rc = exchange(&c, method, path, route, body, len, &a);
	disconnect(&c);
	free(c.buf);
	pthread_mutex_destroy(&run.log_mu);
	if (rc != 0)
		return -1;
	if (out) {
		*out = a.body;
		if (outlen)
			*outlen = a.len;
	} else {
		free(a.body);
	}
	return a.status;
}

load_run *load_start(const load_config *cfg)
{
	load_run *run = calloc(1, sizeof *run);
	if (!run || cfg->clients < 1 || cfg->nreqs < 1) {
		free(run);
		return NULL;
	}
	run->cfg = *cfg;
	run->clients = calloc((size_t)cfg->clients, sizeof *run->clients);
	if (!run->clients) {
		free(run);
		return NULL;
	}
	pthread_mutex_init(&run->log_mu, NULL);
	run->start = load_now();
	for (int i = 0; i < cfg->clients; i++) {
		client *c = &run->clients[i];
		c->run = run;
		c->index = i;
		c->fd = -1;
		if (pthread_create(&c->thread, NULL, client_main, c) != 0)
			break;
		run->started++;
	}
	if (run->started < cfg->clients) {
		load_stats ignored;
		load_finish(run, 0, &ignored);
		return NULL;
	}
	return run;
}

uint64_t load_sent(const load_run *run)
{
	return atomic_load(&((load_run *)run)->sent);
}

void load_finish(load_run *run, int wait_duration, load_stats *out)
{
	if (!wait_duration)
		atomic_store(&run->stop, 1);
	uint64_t hist[HIST_BUCKETS] = {0};
	memset(out, 0, sizeof *out);
	for (int i = 0; i < run->started; i++) {
		client *c = &run->clients[i];
		pthread_join(c->thread, NULL);
		out->sent += c->st.sent;
		out->ok += c->st.ok;
		out->no_answer += c->st.no_answer;
		out->bad_status += c->st.bad_status;
		out->bad_body += c->st.bad_body;
		out->connections += c->st.connections;
		out->by_ref += c->st.by_ref;
		out->misses += c->st.misses;
		out->routed += c->st.routed;
		out->routed_misses += c->st.routed_misses;
		out->uploads += c->st.uploads;
		out->reuploads += c->st.reuploads;
		for (int k = 0; k < LOAD_STATUS_CLASSES; k++)
			out->by_status[k] += c->st.by_status[k];
		if (c->st.max_latency > out->max_latency)
			out->max_latency = c->st.max_latency;
		for (int k = 0; k < HIST_BUCKETS; k++)
			hist[k] += c->hist[k];
		free(c->buf);
	}
	out->elapsed = load_now() - run->start;
	out->failed = out->sent - out->ok;
	uint64_t answered = 0, seen = 0;
	for (int k = 0; k < HIST_BUCKETS; k++)
		answered += hist[k];
	for (int k = 0; k < HIST_BUCKETS && answered; k++) {
		seen += hist[k];
		if (!out->p50 && seen * 2 >= answered)
			out->p50 = bucket_top(k);
		if (!out->p99 && seen * 100 >= answered * 99)
			out->p99 = bucket_top(k);
	}
	pthread_mutex_destroy(&run->log_mu);
	free(run->clients);
	free(run);
}

void load_print(FILE *f, const char *name, const load_stats *s)
{
	fprintf(f,
	        "%s: %llu requests in %.1f s (%.0f/s), %llu as expected, %llu failed "
	        "(%llu without an answer, %llu wrong status, %llu wrong body); "
	        "2xx %llu, 4xx %llu, 5xx %llu; %llu connections; latency p50 <= %.2f ms, "
	        "p99 <= %.2f ms, max %.2f ms\n",
	        name, (unsigned long long)s->sent, s->elapsed,
	        s->elapsed > 0 ? (double)s->sent / s->elapsed : 0.0, (unsigned long long)s->ok,
	        (unsigned long long)s->failed, (unsigned long long)s->no_answer,
	        (unsigned long long)s->bad_status, (unsigned long long)s->bad_body,
	        (unsigned long long)s->by_status[2], (unsigned long long)s->by_status[4],
	        (unsigned long long)s->by_status[5], (unsigned long long)s->connections,
	        s->p50 * 1e3, s->p99 * 1e3, s->max_latency * 1e3);
}
