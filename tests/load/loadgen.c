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

static void describe(client *c, const load_request *rq, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void describe(client *c, const load_request *rq, const char *fmt, ...)
{
	load_run *run = c->run;
	if (atomic_fetch_add(&run->logged, 1) >= MAX_LOGGED)
		return;
	FILE *f = run->cfg.log ? run->cfg.log : stderr;
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&run->log_mu);
	fprintf(f, "loadgen: client %d, t=%.3f s, %s %s: ", c->index, load_now() - run->start,
	        rq->method, rq->path);
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
	for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line, "\r\n")) {
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

/* Read one final response (1xx skipped).  0, or -1 with no complete answer. */
static int read_answer(client *c, answer *a)
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
		if (a->status == 204 || a->status == 304)
			want = 0;
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

static void *client_main(void *arg)
{
	client *c = arg;
	load_run *run = c->run;
	const load_config *cfg = &run->cfg;
	char head[1024];
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
		double t0 = load_now();
		int e = 0;
		if (c->fd < 0 && (e = connect_to(c)) != 0) {
			c->st.no_answer++;
			describe(c, rq, "connect: %s", strerror(-e));
			continue;
		}
		int hn;
		if (rq->body)
			hn = snprintf(head, sizeof head,
			              "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
			              "Content-Length: %zu\r\n\r\n",
			              rq->method, rq->path, rq->len);
		else
			hn = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			              rq->method, rq->path);
		answer a;
		if (send_all(c->fd, head, (size_t)hn) != 0 ||
		    (rq->body && send_all(c->fd, rq->body, rq->len) != 0)) {
			c->st.no_answer++;
			describe(c, rq, "send: %s", strerror(errno));
			disconnect(c);
			continue;
		}
		if (read_answer(c, &a) != 0) {
			c->st.no_answer++;
			describe(c, rq, "no complete answer (%s)", errno ? strerror(errno) : "closed");
			free(a.body);
			disconnect(c);
			continue;
		}
		double lat = load_now() - t0;
		if (lat > c->st.max_latency)
			c->st.max_latency = lat;
		c->hist[bucket_of(lat)]++;
		c->st.by_status[a.status / 100 < LOAD_STATUS_CLASSES ? a.status / 100 : 0]++;
		if (a.status != rq->status) {
			c->st.bad_status++;
			describe(c, rq, "status %d, expected %d: %.300s", a.status, rq->status, a.body);
		} else if (rq->expect_body &&
		           (a.len != rq->expect_len || memcmp(a.body, rq->expect_body, a.len) != 0)) {
			c->st.bad_body++;
			describe(c, rq, "another body: %.300s", a.body);
		} else {
			c->st.ok++;
		}
		free(a.body);
		if (a.closed)
			disconnect(c);
	}
	disconnect(c);
	return NULL;
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
