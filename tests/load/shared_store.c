/*
 * shared_store.c — three clashd sharing one Redis (--store-redis) behind a
 * proxy that sends each new connection to a replica picked at random, as
 * a Kubernetes Service does; then Redis paused, killed, restarted, full,
 * corrupt; then every replica restarted in turn.  (make shared-store;
 * make test runs it.)
 *
 *   build/shared-store [--dir DIR]
 *
 * Everything is on loopback: Debian's redis-server on a free port (no
 * persistence, allkeys-lru), three clashd on free ports, and the proxy
 * here (a thread per connection; a replica taken out of the proxy gets no
 * new connection, as a pod whose endpoint is removed).  Every answer is
 * compared byte for byte with the one the codec gives for its body here
 * (loadgen.h); a query by ref answered unknown-shape makes the client
 * upload what is missing and send it again, counted as a miss and
 * re-uploads.  The stages, each printing its numbers and failing the run
 * on a broken requirement:
 *   any replica   each part uploaded once, then 10 000 queries by ref
 *                 from 4 clients: 0 failed, 0 unknown-shape; the two
 *                 replicas an upload did not reach read it from Redis;
 *   head          a part uploaded to one replica: HEAD and GET on the others
 *                 200 (read from Redis on a worker);
 *   behind        a write under way (its marker planted by hand), a query
 *                 by ref for it on one replica, the upload 30 ms later on
 *                 another: the query waited and is served; parts of 30 000
 *                 points uploaded to one replica and named by ref at once
 *                 on another: each served (by a scan: the part read from
 *                 Redis is prepared on the tier's thread), then prepared
 *                 there within 5 s and served again, the same bytes;
 *   corrupt       another shape's bytes, then garbage, planted under a
 *                 shape's key: a replica lacking it answers unknown-shape
 *                 (not the other shape's answer) and counts a refusal; an
 *                 upload again repairs it;
 *   full          Redis at maxmemory with noeviction: an upload is still
 *                 201 and served by ref from the replica that took it,
 *                 clashd_store_redis_writes_refused says so, and clears
 *                 once Redis takes writes again;
 *   delete        a part in the memory of all three, DELETE on one: the
 *                 other two answer unknown-shape within 5 s;
 *   huge          a 16 MiB value planted under a part's key (replicas read
 *                 at most 1M): refused, counted, the replica's peak resident
 *                 memory not grown by a quarter of it; an upload repairs it;
 *   hostile       a replica whose "Redis" (a thread here) answers every
 *                 command with a 256 MiB value: unknown-shape, the reply
 *                 refused as it comes, peak resident memory not +16 MiB;
 *   faults        under load, Redis paused (SIGSTOP) 2 s, then killed, a
 *                 replica restarted meanwhile (empty memory, no Redis),
 *                 Redis started again empty: 0 failed requests (misses
 *                 re-uploaded are fine), /readyz 200 while Redis is down,
 *                 every replica back to clashd_store_redis_up 1, resident
 *                 memory bounded;
 *   tenants       two more replicas with tokens naming tenants: alpha's part
 *                 is served to alpha on the replica it was not uploaded to
 *                 (Redis, under alpha's key), refused to beta and to a token
 *                 without a tenant on both (GET, HEAD, by ref, DELETE);
 *   rolling       each replica in turn out of the proxy, SIGTERM (drain,
 *                 exit 0), started again, back in, under load: 0 failed,
 *                 0 unknown-shape, 0 re-uploads.
 * Every child is killed on every way out and the run is bounded (proc.h).
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loadgen.h"
#include "proc.h"
#include "proto.h"
#include "store.h"

#define REPLICAS 3
#define NSHAPES 8
#define SPREAD_QUERIES 10000
#define CLIENTS 4

typedef struct replica {
	char name[16];
	char log[512];
	int port;
	pid_t pid;
	atomic_int in_service; /* the proxy may send it new connections */
	int runs;              /* started so often; the earlier runs' logs are
	                          log.1, log.2 ... */
} replica;

static const char *clashd_bin;
static char workdir[256];
static replica rep[REPLICAS];
static int redis_port;
static pid_t redis_pid;
static char redis_log[512];

static void start_redis(void)
{
	char port[16];
	snprintf(port, sizeof port, "%d", redis_port);
	const char *argv[] = {"/usr/bin/redis-server",
	                      "--port",
	                      port,
	                      "--bind",
	                      "127.0.0.1",
	                      "--save",
	                      "",
	                      "--appendonly",
	                      "no",
	                      "--maxmemory",
	                      "64mb",
	                      "--maxmemory-policy",
	                      "allkeys-lru",
	                      NULL};
	redis_pid = proc_spawn(argv, NULL, redis_log);
	if (proc_wait_port(redis_port, 10) != 0)
		proc_fail("shared-store: redis-server did not start (see %s)", redis_log);
}

/* redis-cli with these arguments; its first output line into out. */
static void redis_cli(char *out, size_t outlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void redis_cli(char *out, size_t outlen, const char *fmt, ...)
{
	char args[512], cmd[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "redis-cli -p %d %s", redis_port, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		proc_fail("shared-store: cannot run %s", cmd);
	char line[256] = "";
	if (!fgets(line, sizeof line, p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	if (out)
		snprintf(out, outlen, "%s", line);
}

static void start_clashd(replica *r, int port)
{
	char listen[64], redis[64];
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	snprintf(redis, sizeof redis, "redis://127.0.0.1:%d", redis_port);
	const char *argv[] = {clashd_bin, "--listen",
	                      listen,     "--threads",
	                      "1",        "--drain-timeout",
	                      "5s",       "--max-connections-per-client",
	                      "0",        "--max-queue-per-client",
	                      "0",        "--store-redis",
	                      redis,      "--store-redis-max-value",
	                      "1M",       "--store-delete",
	                      "1",        NULL};
	r->pid = proc_spawn(argv, NULL, r->log);
	r->port = proc_clashd_port(r->log, port, r->name);
}

/* ---- the proxy: a random replica per connection ---- */

static int connect_port(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static void *relay(void *arg)
{
	int *fds = arg, c = fds[0], s = fds[1];
	free(fds);
	char buf[65536];
	struct pollfd p[2] = {{.fd = c, .events = POLLIN}, {.fd = s, .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, -1) < 0)
			break;
		int done = 0;
		for (int i = 0; i < 2 && !done; i++) {
			if (!p[i].revents)
				continue;
			ssize_t n = read(p[i].fd, buf, sizeof buf);
			if (n <= 0) {
				done = 1;
				break;
			}
			for (ssize_t off = 0; off < n;) {
				ssize_t w = write(p[1 - i].fd, buf + off, (size_t)(n - off));
				if (w <= 0) {
					done = 1;
					break;
				}
				off += w;
			}
		}
		if (done)
			break;
	}
	close(c);
	close(s);
	return NULL;
}

static void *proxy_main(void *arg)
{
	int lfd = *(int *)arg;
	unsigned seed = 12345;
	for (;;) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			continue;
		int s = -1, first = rand_r(&seed) % REPLICAS;
		for (int k = 0; k < REPLICAS && s < 0; k++) {
			replica *r = &rep[(first + k) % REPLICAS];
			if (atomic_load(&r->in_service))
				s = connect_port(r->port);
		}
		int *fds = malloc(2 * sizeof *fds);
		pthread_t th;
		if (s < 0 || !fds) {
			close(c);
			if (s >= 0)
				close(s);
			free(fds);
			continue;
		}
		/* As a Service's: no delay added to small answers. */
		int one = 1;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		fds[0] = c;
		fds[1] = s;
		if (pthread_create(&th, NULL, relay, fds) != 0) {
			close(c);
			close(s);
			free(fds);
			continue;
		}
		pthread_detach(th);
	}
	return NULL;
}

/* A listener on a free loopback port, served by `main` on a thread of
 * its own (given a pointer to the listening socket); the port. */
static int start_listener(void *(*main_fn)(void *), int *lfd)
{
	int port = proc_free_port();
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 256) != 0)
		proc_fail("shared-store: cannot listen on %d", port);
	*lfd = fd;
	pthread_t th;
	if (pthread_create(&th, NULL, main_fn, lfd) != 0)
		proc_fail("shared-store: no listener thread");
	pthread_detach(th);
	return port;
}

static int start_proxy(void)
{
	static int lfd;
	return start_listener(proxy_main, &lfd);
}

/* ---- the shapes and their queries ---- */

static proto_context ctx;
static load_shape shapes[NSHAPES];
static char ids[NSHAPES][80];
static load_request reqs[NSHAPES];
static char *bodies[NSHAPES];
static proto_reply expect[NSHAPES];

/* Store a shape here (the codec's id); 0, or -1 when it is no shape. */
static int local_id(const char *body, char id[80])
{
	proto_call call = {.ctx = &ctx};
	proto_reply up;
	int ok = proto_shape_put_reply(body, strlen(body), &call, &up) == 0 &&
	         (up.status == 201 || up.status == 200);
	const char *p = ok ? strstr(up.body, "\"sha256:") : NULL;
	ok = p && sscanf(p + 1, "%78[^\"]", id) == 1;
	proto_reply_free(&up);
	return ok ? 0 : -1;
}

static void make_shapes(void)
{
	ctx.store = proto_store_new((size_t)64 << 20, 0);
	if (!ctx.store)
		proc_fail("shared-store: out of memory");
	for (int k = 0; k < NSHAPES; k++) {
		char *b = malloc(64 * 3 * 24 + 64), *o = b;
		if (!b)
			proc_fail("shared-store: out of memory");
		if (k == NSHAPES - 1) {
			o += sprintf(o, "{\"mesh\":{\"positions\":[0,0,0,1,0,0,0,1,0,0,0,1],"
			                "\"indices\":[0,2,1,0,1,3,0,3,2,1,2,3]}}");
		} else if (k == NSHAPES - 2) {
			o += sprintf(o, "{\"parts\":[{\"box\":{\"half_extents\":[1,0.5,0.5]}},"
			                "{\"sphere\":{\"radius\":0.7}}],\"radius\":0.1}");
		} else {
			/* 64 random points in a box growing with k. */
			unsigned seed = 77 + (unsigned)k;
			o += sprintf(o, "{\"vertices\":[");
			for (int j = 0; j < 64; j++)
				o += sprintf(o, "%s[%.4f,%.4f,%.4f]", j ? "," : "",
				             (1 + 0.1 * k) * rand_r(&seed) / RAND_MAX,
				             (double)rand_r(&seed) / RAND_MAX,
				             0.8 * rand_r(&seed) / RAND_MAX);
			sprintf(o, "]}");
		}
		if (local_id(b, ids[k]) != 0)
			proc_fail("shared-store: shape %d does not store", k);
		shapes[k] = (load_shape){ids[k], b, strlen(b)};
		if (asprintf(&bodies[k],
		             "{\"a\":{\"ref\":\"%s\",\"pose\":{\"translation\":[0,0,%g]}},"
		             "\"b\":{\"vertices\":[[%g,0,0],[%g,1,1]],\"radius\":0.5}}",
		             ids[k], 0.1 * k, 3.0 + 0.25 * k, 4.0 + 0.25 * k) < 0)
			proc_fail("shared-store: out of memory");
		proto_call call = {.ctx = &ctx};
		if (proto_query_reply_ex(bodies[k], strlen(bodies[k]), &call, &expect[k]) != 0 ||
		    expect[k].status != 200)
			proc_fail("shared-store: query %d is not a good query", k);
		reqs[k] = (load_request){"POST",
		                         "/v1/query",
		                         bodies[k],
		                         strlen(bodies[k]),
		                         200,
		                         expect[k].body,
		                         expect[k].length,
		                         &shapes[k],
		                         1,
		                         NULL};
	}
}

/* ---- checks ---- */

static int failures;

static void require(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void require(int ok, const char *fmt, ...)
{
	if (ok)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "shared-store: FAILED: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	failures++;
}

/* An unlabelled series of a replica's /metrics, or -1. */
static long long metric(const replica *r, const char *name)
{
	char *m = NULL, key[128];
	long long v = -1;
	snprintf(key, sizeof key, "\n%s ", name);
	if (load_once(r->port, "GET", "/metrics", NULL, NULL, 0, &m, NULL) == 200 && strstr(m, key))
		v = atoll(strstr(m, key) + strlen(key));
	free(m);
	return v;
}

static long long metric_sum(const char *name)
{
	long long s = 0;
	for (int i = 0; i < REPLICAS; i++)
		s += metric(&rep[i], name);
	return s;
}

static int upload_to(int port, const load_shape *sh)
{
	char *ans = NULL;
	int st = load_once(port, "POST", "/v1/shapes", NULL, sh->body, sh->len, &ans, NULL);
	int ok = (st == 200 || st == 201) && ans && strstr(ans, sh->id);
	free(ans);
	return ok ? st : -1;
}

/* Query k by ref on a port: 1 the expected answer, 0 unknown-shape, -1
 * anything else (described). */
static int query_to(int port, int k, const char *body, const proto_reply *want)
{
	char *ans = NULL;
	size_t len = 0;
	int st = load_once(port, "POST", "/v1/query", NULL, body, strlen(body), &ans, &len);
	int r = -1;
	if (st == 200 && len == want->length && memcmp(ans, want->body, len) == 0)
		r = 1;
	else if (st == 422 && ans && strstr(ans, "\"urn:clashd:problem:unknown-shape\""))
		r = 0;
	else
		fprintf(stderr, "shared-store: query %d: %d %.300s\n", k, st, ans ? ans : "");
	free(ans);
	return r;
}

static load_run *start_load(int port, double rate)
{
	load_config lc = {.port = port,
	                  .clients = CLIENTS,
	                  .rate = rate,
	                  .duration = 0,
	                  .reqs = reqs,
	                  .nreqs = NSHAPES,
	                  .uploaded = 1};
	load_run *run = load_start(&lc);
	if (!run)
		proc_fail("shared-store: cannot start the clients");
	return run;
}

/* Each part uploaded once through the proxy, then SPREAD_QUERIES by ref. */
static void stage_any_replica(int port)
{
	for (int k = 0; k < NSHAPES; k++)
		if (upload_to(port, &shapes[k]) < 0)
			proc_fail("shared-store: upload of shape %d failed", k);
	long long reads0 = metric_sum("clashd_store_redis_hits_total");
	load_run *run = start_load(port, 0);
	double t0 = load_now();
	while (load_sent(run) < SPREAD_QUERIES && load_now() - t0 < 120)
		usleep(2000);
	load_stats st;
	load_finish(run, 0, &st);
	load_print(stdout, "shared-store: any replica", &st);
	long long hits = metric_sum("clashd_store_redis_hits_total") - reads0;
	printf("shared-store: any replica: %d parts uploaded once, %llu queries by ref through a "
	       "random replica per connection: %llu failed, %llu unknown-shape; %lld parts read "
	       "from redis by the replicas the upload missed\n",
	       NSHAPES, (unsigned long long)st.sent, (unsigned long long)st.failed,
	       (unsigned long long)st.misses, hits);
	require(st.sent >= SPREAD_QUERIES, "only %llu queries sent", (unsigned long long)st.sent);
	require(st.failed == 0, "%llu failed", (unsigned long long)st.failed);
	require(st.misses == 0, "%llu unknown-shape", (unsigned long long)st.misses);
	require(hits >= 2 * NSHAPES, "%lld reads from redis, expected %d or more", hits,
	        2 * NSHAPES);
}

/* A shape of its own for the stages below. */
static void extra_shape(int n, load_shape *sh, char id[80], char **query, proto_reply *want)
{
	char *b = NULL;
	if (asprintf(&b, "{\"box\":{\"half_extents\":[%g,0.5,0.5]}}", 0.3 + 0.01 * n) < 0 ||
	    local_id(b, id) != 0)
		proc_fail("shared-store: extra shape %d", n);
	*sh = (load_shape){id, b, strlen(b)};
	if (asprintf(query, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"vertices\":[[3,0,0]]}}", id) < 0)
		proc_fail("shared-store: out of memory");
	proto_call call = {.ctx = &ctx};
	if (proto_query_reply_ex(*query, strlen(*query), &call, want) != 0 || want->status != 200)
		proc_fail("shared-store: extra query %d", n);
}

/* GET and HEAD of a part the replica lacks: read from Redis (on a
 * worker), 200 on every replica after one upload. */
static void stage_head(void)
{
	load_shape h;
	char hid[80], *q, path[128], *ans = NULL;
	proto_reply want;
	extra_shape(4, &h, hid, &q, &want);
	require(upload_to(rep[0].port, &h) == 201, "upload of the HEAD stage's shape");
	snprintf(path, sizeof path, "/v1/shapes/%s", hid);
	int head1 = load_once(rep[1].port, "HEAD", path, NULL, NULL, 0, NULL, NULL);
	int get2 = load_once(rep[2].port, "GET", path, NULL, NULL, 0, &ans, NULL);
	int named = ans && strstr(ans, hid) != NULL;
	free(ans);
	printf("shared-store: head: a part uploaded to clashd-1: HEAD on clashd-2 %d, GET on "
	       "clashd-3 %d%s\n",
	       head1, get2, named ? " (its summary)" : "");
	require(head1 == 200 && get2 == 200 && named, "GET and HEAD do not read through");
	free(q);
	proto_reply_free(&want);
}

static void stage_corrupt(void)
{
	load_shape z;
	char zid[80], *q;
	proto_reply want;
	extra_shape(1, &z, zid, &q, &want);
	require(upload_to(rep[0].port, &z) == 201, "upload of the corrupt stage's shape");
	/* Shape 0's bytes under z's key: a well-formed shape, not z. */
	char out[256];
	redis_cli(out, sizeof out, "COPY clashd:shape:%s clashd:shape:%s REPLACE", ids[0] + 7,
	          zid + 7);
	require(strcmp(out, "1") == 0, "COPY in redis: %s", out);
	long long ref1 = metric(&rep[1], "clashd_store_redis_refused_total");
	int a1 = query_to(rep[1].port, 1, q, &want);
	long long ref1b = metric(&rep[1], "clashd_store_redis_refused_total");
	redis_cli(out, sizeof out, "SET clashd:shape:%s not-a-shape", zid + 7);
	long long ref2 = metric(&rep[2], "clashd_store_redis_refused_total");
	int a2 = query_to(rep[2].port, 1, q, &want);
	long long ref2b = metric(&rep[2], "clashd_store_redis_refused_total");
	/* Uploaded again: written through, repaired. */
	require(upload_to(rep[1].port, &z) == 201, "upload again of the corrupt stage's shape");
	int a3 = query_to(rep[2].port, 1, q, &want);
	printf("shared-store: corrupt: another shape's value under an id: %s, refusals %lld -> "
	       "%lld; garbage: %s, refusals %lld -> %lld; after an upload again: %s\n",
	       a1 == 0 ? "unknown-shape" : "SERVED", ref1, ref1b,
	       a2 == 0 ? "unknown-shape" : "SERVED", ref2, ref2b,
	       a3 == 1 ? "served" : "NOT SERVED");
	require(a1 == 0 && ref1b == ref1 + 1, "another shape's value was not refused");
	require(a2 == 0 && ref2b == ref2 + 1, "a garbage value was not refused");
	require(a3 == 1, "the shape uploaded again is not served from redis");
	free(q);
	proto_reply_free(&want);
}

static void stage_full(void)
{
	load_shape w;
	char wid[80], *q, out[256];
	proto_reply want;
	extra_shape(2, &w, wid, &q, &want);
	redis_cli(out, sizeof out, "CONFIG SET maxmemory-policy noeviction");
	redis_cli(out, sizeof out, "CONFIG SET maxmemory 1");
	int up = upload_to(rep[0].port, &w);
	long long refused = metric(&rep[0], "clashd_store_redis_writes_refused");
	int here = query_to(rep[0].port, 2, q, &want);
	int there = query_to(rep[1].port, 2, q, &want);
	redis_cli(out, sizeof out, "CONFIG SET maxmemory 64mb");
	redis_cli(out, sizeof out, "CONFIG SET maxmemory-policy allkeys-lru");
	int again = upload_to(rep[0].port, &w);
	long long refused_after = metric(&rep[0], "clashd_store_redis_writes_refused");
	int there_after = query_to(rep[1].port, 2, q, &want);
	printf("shared-store: full: upload %d, writes_refused %lld, by ref on the replica that took "
	       "it: %s, on another: %s; redis taking writes again: upload %d, writes_refused %lld, "
	       "on another: %s\n",
	       up, refused, here == 1 ? "served" : "NOT SERVED",
	       there == 0 ? "unknown-shape" : "OTHER", again, refused_after,
	       there_after == 1 ? "served" : "NOT SERVED");
	require(up == 201 && refused == 1 && here == 1 && there == 0,
	        "a full redis: the upload must be served from memory and refused writes shown");
	require(again == 200 && refused_after == 0 && there_after == 1,
	        "redis taking writes again: the upload again must reach it");
	free(q);
	proto_reply_free(&want);
}

static long rss_sum(void)
{
	long s = 0;
	for (int i = 0; i < REPLICAS; i++)
		s += proc_rss_kib(rep[i].pid);
	return s;
}

/* Query `q` on a port until it is unknown-shape (1) or 5 s have passed
 * (0, or -1 on a wrong answer); *took: how long. */
static int until_unknown(int port, const char *q, const proto_reply *want, double *took)
{
	double t0 = load_now();
	int a;
	while ((a = query_to(port, 5, q, want)) == 1 && load_now() - t0 < 5)
		usleep(5000);
	*took = load_now() - t0;
	return a == 0 ? 1 : a == 1 ? 0 : -1;
}

typedef struct behind_query {
	int port, k;
	const char *q;
	const proto_reply *want;
	int answer;
	pthread_t thread;
} behind_query;

static void *behind_main(void *arg)
{
	behind_query *b = arg;
	b->answer = query_to(b->port, b->k, b->q, b->want);
	return NULL;
}

/* An upload is answered before its value is in Redis (written behind,
 * after a marker): a replica asked for it meanwhile waits for it.  The
 * marker planted here by hand, the query sent to clashd-2, and only then
 * the part uploaded to clashd-1: served, after waiting.  Then large
 * parts (their write takes a while) uploaded and named by ref on another
 * replica at once: served every time. */
static void stage_behind(void)
{
	load_shape m;
	char mid[80], *mq, out[64];
	proto_reply mwant;
	extra_shape(7, &m, mid, &mq, &mwant);
	redis_cli(out, sizeof out, "SET clashd:pending:%s 1 PX 5000", mid + 7);
	long long w0 = metric(&rep[1], "clashd_store_redis_waits_total");
	behind_query bq = {rep[1].port, 7, mq, &mwant, -2, 0};
	if (pthread_create(&bq.thread, NULL, behind_main, &bq) != 0)
		proc_fail("shared-store: thread");
	usleep(30000); /* the query waits; the 250 ms timeout is 8 times this */
	int mup = upload_to(rep[0].port, &m);
	pthread_join(bq.thread, NULL);
	long long w1 = metric(&rep[1], "clashd_store_redis_waits_total");
	printf("shared-store: behind: a write under way (its marker planted), the query by ref on "
	       "clashd-2, 30 ms later the upload %d on clashd-1: %s, %lld reads waited\n",
	       mup,
	       bq.answer == 1   ? "served"
	       : bq.answer == 0 ? "unknown-shape"
	                        : "WRONG",
	       w1 - w0);
	require(mup == 201 && bq.answer == 1,
	        "a read during a write under way did not wait for it");
	free(mq);
	proto_reply_free(&mwant);

	enum {
		PARTS = 4,
		POINTS = 30000
	};
	int served = 0, prepared = 0, served_prepared = 0;
	for (int k = 0; k < PARTS; k++) {
		char *b = malloc((size_t)POINTS * 3 * 24 + 64), *o = b, id[80], *q = NULL;
		if (!b)
			proc_fail("shared-store: out of memory");
		unsigned seed = 500 + (unsigned)k;
		o += sprintf(o, "{\"vertices\":[");
		for (int j = 0; j < POINTS; j++)
			o += sprintf(o, "%s[%.6f,%.6f,%.6f]", j ? "," : "",
			             (double)rand_r(&seed) / RAND_MAX,
			             (double)rand_r(&seed) / RAND_MAX,
			             (double)rand_r(&seed) / RAND_MAX);
		sprintf(o, "]}");
		proto_reply want;
		if (local_id(b, id) != 0 ||
		    asprintf(&q, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"vertices\":[[3,0,0]]}}", id) < 0)
			proc_fail("shared-store: behind stage's part %d", k);
		proto_call call = {.ctx = &ctx};
		if (proto_query_reply_ex(q, strlen(q), &call, &want) != 0 || want.status != 200)
			proc_fail("shared-store: behind stage's query %d", k);
		load_shape sh = {id, b, strlen(b)};
		int up = upload_to(rep[0].port, &sh);
		int there = rep[1 + k % 2].port;
		/* Answered by a scan while its hull is built on the tier's
		 * thread: the same bytes as the prepared answer made here. */
		served += up == 201 && query_to(there, k, q, &want) == 1;
		/* Then prepared there: its summary gives the hull's size. */
		char path[128], *ans = NULL;
		snprintf(path, sizeof path, "/v1/shapes/%s", id);
		double t0 = load_now();
		int hull = 0;
		while (!hull && load_now() - t0 < 5) {
			free(ans);
			ans = NULL;
			hull = load_once(there, "GET", path, NULL, NULL, 0, &ans, NULL) == 200 &&
			       ans && !strstr(ans, "\"hull_vertices\":null");
			if (!hull)
				usleep(10000);
		}
		free(ans);
		prepared += hull;
		served_prepared += query_to(there, k, q, &want) == 1;
		free(b);
		free(q);
		proto_reply_free(&want);
	}
	printf("shared-store: behind: %d parts of %d points uploaded to clashd-1, each named by ref "
	       "on another replica at once: %d served (unprepared there), %d prepared there in the "
	       "background within 5 s, %d served again, the same bytes\n",
	       PARTS, POINTS, served, prepared, served_prepared);
	require(served == PARTS, "%d of %d parts served right after their upload", served, PARTS);
	require(prepared == PARTS && served_prepared == PARTS,
	        "parts read from redis not prepared in the background (%d of %d) or answered "
	        "otherwise once prepared (%d)",
	        prepared, PARTS, served_prepared);
}

/* A server that speaks just enough Redis to be hostile: whatever it is
 * asked, it answers a bulk string announced as 256 MiB and sends bytes
 * of it until the client hangs up. */
static void *hostile_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[4096];
	static const char head[] = "$268435456\r\n";
	memset(buf, 'x', sizeof buf);
	if (recv(fd, buf, sizeof buf, 0) > 0 && send(fd, head, sizeof head - 1, MSG_NOSIGNAL) > 0) {
		memset(buf, 'x', sizeof buf);
		for (long sent = 0; sent < (256L << 20); sent += (long)sizeof buf)
			if (send(fd, buf, sizeof buf, MSG_NOSIGNAL) <= 0)
				break;
	}
	close(fd);
	return NULL;
}

static void *hostile_main(void *arg)
{
	int lfd = *(int *)arg;
	for (;;) {
		int c = accept(lfd, NULL, NULL);
		pthread_t th;
		if (c < 0 || pthread_create(&th, NULL, hostile_conn, (void *)(intptr_t)c) != 0) {
			if (c >= 0)
				close(c);
			continue;
		}
		pthread_detach(th);
	}
	return NULL;
}

/* A replica whose "Redis" answers every command with a 256 MiB value
 * (--store-redis-max-value 1M): a query by ref is unknown-shape, the
 * reply refused as it arrives (counted), the replica's peak resident
 * memory not grown by 16 MiB. */
static void stage_hostile_redis(void)
{
	static int lfd;
	int port = start_listener(hostile_main, &lfd);
	replica h = {.name = "hostile"};
	char redis[64], listen[32];
	snprintf(redis, sizeof redis, "redis://127.0.0.1:%d", port);
	snprintf(listen, sizeof listen, "127.0.0.1:0");
	snprintf(h.log, sizeof h.log, "%.200s/%.15s.log", workdir, h.name);
	unlink(h.log);
	const char *argv[] = {clashd_bin, "--listen",
	                      listen,     "--threads",
	                      "1",        "--store-redis",
	                      redis,      "--store-redis-max-value",
	                      "1M",       NULL};
	h.pid = proc_spawn(argv, NULL, h.log);
	h.port = proc_clashd_port(h.log, 0, h.name);
	usleep(300000); /* its watcher meets the same answer first */
	long rss0 = proc_peak_rss_kib(h.pid);
	int a = query_to(h.port, 0, bodies[0], &expect[0]);
	long long big = metric(&h, "clashd_store_redis_too_large_total");
	int ready = load_once(h.port, "GET", "/readyz", NULL, NULL, 0, NULL, NULL);
	long rss1 = proc_peak_rss_kib(h.pid);
	printf("shared-store: hostile redis: every answer a 256 MiB value: query by ref %s, "
	       "replies refused %lld, /readyz %d, peak resident %ld -> %ld KiB\n",
	       a == 0   ? "unknown-shape"
	       : a == 1 ? "SERVED"
	                : "WRONG",
	       big, ready, rss0, rss1);
	require(a == 0 && big >= 1 && ready == 200, "a hostile redis's reply was not refused");
	require(rss1 - rss0 < 16 << 10, "peak resident memory grew by %ld KiB", rss1 - rss0);
	proc_kill(h.pid);
}

/* A part served from the memory of all three replicas, deleted on one:
 * the other two answer unknown-shape (Redis's stream of deletes). */
static void stage_delete(void)
{
	load_shape d;
	char did[80], *q, path[128];
	proto_reply want;
	extra_shape(5, &d, did, &q, &want);
	require(upload_to(rep[0].port, &d) == 201, "upload of the delete stage's shape");
	int held = 0;
	for (int i = 0; i < REPLICAS; i++)
		held += query_to(rep[i].port, 5, q, &want) == 1;
	snprintf(path, sizeof path, "/v1/shapes/%s", did);
	int del = load_once(rep[0].port, "DELETE", path, NULL, NULL, 0, NULL, NULL);
	double t1, t2;
	int gone1 = until_unknown(rep[1].port, q, &want, &t1);
	int gone2 = until_unknown(rep[2].port, q, &want, &t2);
	long long forgot = metric_sum("clashd_store_redis_forgotten_total");
	printf("shared-store: delete: a part served from memory by %d replicas, DELETE %d on "
	       "clashd-1: unknown-shape on clashd-2 %s after %.3f s, on clashd-3 %s after %.3f s; "
	       "memory copies dropped %lld\n",
	       held, del, gone1 == 1 ? "yes" : "NO", t1, gone2 == 1 ? "yes" : "NO", t2, forgot);
	require(held == REPLICAS && del == 204, "the delete stage's part");
	require(gone1 == 1 && gone2 == 1, "a DELETE on one replica left the part on others");
	require(forgot >= REPLICAS - 1, "%lld memory copies dropped", forgot);
	free(q);
	proto_reply_free(&want);
}

/* A value far over --store-redis-max-value (1M here) planted under a
 * part's key: refused before it is read, the replica's memory not grown
 * by it. */
static void stage_huge(void)
{
	enum {
		HUGE_MIB = 16
	};
	load_shape h;
	char hid[80], *q, file[600], out[64];
	proto_reply want;
	extra_shape(6, &h, hid, &q, &want);
	snprintf(file, sizeof file, "%.200s/huge.bin", workdir);
	FILE *f = fopen(file, "wb");
	if (!f)
		proc_fail("shared-store: cannot write %s", file);
	unsigned seed = 9;
	for (long i = 0; i < (long)HUGE_MIB << 20; i++)
		fputc(rand_r(&seed) & 255, f);
	fclose(f);
	redis_cli(out, sizeof out, "-x SET clashd:shape:%s < %s", hid + 7, file);
	require(strcmp(out, "OK") == 0, "SET of the huge value: %s", out);
	long rss0 = proc_peak_rss_kib(rep[1].pid);
	long long big0 = metric(&rep[1], "clashd_store_redis_too_large_total");
	int a = query_to(rep[1].port, 6, q, &want);
	long long big1 = metric(&rep[1], "clashd_store_redis_too_large_total");
	long rss1 = proc_peak_rss_kib(rep[1].pid);
	/* Uploaded: written over, served from Redis on another replica. */
	require(upload_to(rep[0].port, &h) == 201, "upload of the huge stage's shape");
	int b = query_to(rep[2].port, 6, q, &want);
	printf("shared-store: huge: a %d MiB value under a part's key: %s, refused %lld -> %lld, "
	       "peak resident %ld -> %ld KiB; after an upload, on another replica: %s\n",
	       HUGE_MIB, a == 0 ? "unknown-shape" : "SERVED", big0, big1, rss0, rss1,
	       b == 1 ? "served" : "NOT SERVED");
	require(a == 0 && big1 == big0 + 1, "the huge value was not refused");
	require(rss1 - rss0 < (HUGE_MIB << 10) / 4, "peak resident memory grew by %ld KiB",
	        rss1 - rss0);
	require(b == 1, "the part uploaded over the huge value is not served");
	unlink(file);
	free(q);
	proto_reply_free(&want);
}

static void restart(replica *r, int expect_clean)
{
	atomic_store(&r->in_service, 0);
	usleep(200000); /* connections being set up through the proxy settle */
	kill(r->pid, SIGTERM);
	int status = proc_wait(r->pid, 20);
	if (expect_clean)
		require(status == 0, "%s did not drain and exit 0 (status %d)", r->name, status);
	/* Its "listening" line must be the new process's. */
	char old[600];
	snprintf(old, sizeof old, "%s.%d", r->log, ++r->runs);
	rename(r->log, old);
	start_clashd(r, r->port);
	atomic_store(&r->in_service, 1);
}

static void stage_faults(int port)
{
	long rss0 = rss_sum();
	load_run *run = start_load(port, 200);
	double t0 = load_now();
	usleep(1500000);
	/* Paused: a replica with empty memory asks it and waits, once. */
	kill(redis_pid, SIGSTOP);
	restart(&rep[0], 1);
	/* Directly, so that the restarted replica's store is asked for sure:
	 * unknown-shape after at most a timeout (250 ms), never a hang. */
	double tq = load_now();
	int paused_query = query_to(rep[0].port, 0, bodies[0], &expect[0]);
	tq = load_now() - tq;
	double tu = load_now();
	int paused_upload = upload_to(rep[0].port, &shapes[0]);
	tu = load_now() - tu;
	int paused_ready = load_once(rep[0].port, "GET", "/readyz", NULL, NULL, 0, NULL, NULL);
	usleep(1500000);
	kill(redis_pid, SIGCONT);
	usleep(1500000);
	/* Gone: refused at once; two more replicas start empty. */
	proc_kill(redis_pid);
	int ready = load_once(rep[0].port, "GET", "/readyz", NULL, NULL, 0, NULL, NULL);
	restart(&rep[1], 1);
	restart(&rep[2], 1);
	usleep(2000000);
	start_redis();
	usleep(3000000);
	load_stats st;
	load_finish(run, 0, &st);
	load_print(stdout, "shared-store: faults", &st);
	long long up = metric_sum("clashd_store_redis_up");
	long long errors = metric_sum("clashd_store_redis_errors_total");
	long long skipped = metric_sum("clashd_store_redis_skipped_total");
	long rss1 = rss_sum();
	printf("shared-store: faults: redis paused 2 s (%s restarted meanwhile), killed (%s and "
	       "%s restarted meanwhile), started again empty, %.1f s under load: %llu requests, %llu failed, %llu "
	       "unknown-shape re-uploaded (%llu uploads), max latency %.3f s; /readyz with redis "
	       "down: %d; redis calls failed %lld, skipped while down %lld; replicas up again: "
	       "%lld of %d; resident %ld -> %ld KiB\n",
	       rep[0].name, rep[1].name, rep[2].name, load_now() - t0, (unsigned long long)st.sent,
	       (unsigned long long)st.failed, (unsigned long long)st.misses,
	       (unsigned long long)st.reuploads, st.max_latency, ready, errors, skipped, up,
	       REPLICAS, rss0, rss1);
	printf("shared-store: faults: with redis paused, on a replica lacking the shape: query by "
	       "ref %s in %.3f s, its upload %d in %.3f s, /readyz %d\n",
	       paused_query == 0   ? "unknown-shape"
	       : paused_query == 1 ? "served"
	                           : "WRONG",
	       tq, paused_upload, tu, paused_ready);
	/* 20 times the 250 ms timeout: only a wait without bound fails it. */
	require(paused_query == 0 && tq < 5, "the query by ref with redis paused");
	require(paused_upload == 201 && tu < 5, "the upload with redis paused");
	require(paused_ready == 200, "/readyz answered %d with redis paused", paused_ready);
	require(st.failed == 0, "%llu requests failed", (unsigned long long)st.failed);
	require(ready == 200, "/readyz answered %d with redis down", ready);
	require(up == REPLICAS, "%lld replicas see redis up again", up);
	require(errors > 0, "no failed redis call was counted");
	/* A replica restarted holds less; the others may grow by the
	 * re-uploads' copies and the load's buffers: 64 MiB is far above. */
	require(rss1 <= rss0 + 65536, "resident memory grew from %ld to %ld KiB", rss0, rss1);
}

static void stage_rolling(int port)
{
	for (int k = 0; k < NSHAPES; k++)
		if (upload_to(port, &shapes[k]) < 0)
			proc_fail("shared-store: upload of shape %d failed", k);
	load_run *run = start_load(port, 200);
	double t0 = load_now();
	usleep(1000000);
	for (int i = 0; i < REPLICAS; i++) {
		restart(&rep[i], 1);
		usleep(1000000);
	}
	load_stats st;
	load_finish(run, 0, &st);
	load_print(stdout, "shared-store: rolling", &st);
	printf("shared-store: rolling: each of %d replicas drained and started again in turn, "
	       "%.1f s under load: %llu requests, %llu failed, %llu unknown-shape, %llu "
	       "re-uploads\n",
	       REPLICAS, load_now() - t0, (unsigned long long)st.sent,
	       (unsigned long long)st.failed, (unsigned long long)st.misses,
	       (unsigned long long)st.reuploads);
	require(st.failed == 0, "%llu requests failed", (unsigned long long)st.failed);
	require(st.misses == 0 && st.reuploads == 0, "%llu unknown-shape, %llu re-uploads",
	        (unsigned long long)st.misses, (unsigned long long)st.reuploads);
}

/* Two replicas (named already) on the shared Redis with the token file
 * `tokens`, each tenant's share `per_tenant` (NULL: the default). */
static void start_tenant_pair(replica t[2], const char *tokens, const char *per_tenant)
{
	char redis[64];
	snprintf(redis, sizeof redis, "redis://127.0.0.1:%d", redis_port);
	for (int i = 0; i < 2; i++) {
		snprintf(t[i].log, sizeof t[i].log, "%.200s/%.15s.log", workdir, t[i].name);
		unlink(t[i].log);
		const char *argv[] = {clashd_bin,    "--listen",
		                      "127.0.0.1:0", "--threads",
		                      "1",           "--store-redis",
		                      redis,         "--auth-token-file",
		                      tokens,        per_tenant ? "--store-per-tenant" : NULL,
		                      per_tenant,    NULL};
		t[i].pid = proc_spawn(argv, NULL, t[i].log);
		t[i].port = proc_clashd_port(t[i].log, 0, t[i].name);
	}
}

/* Bytes and count of the values under `pattern` in Redis, read here
 * (SCAN, STRLEN), not from clashd's own sums. */
static long long redis_bytes(const char *pattern, int *count)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "redis-cli -p %d --scan --pattern '%s'", redis_port, pattern);
	FILE *p = popen(cmd, "r");
	if (!p)
		proc_fail("shared-store: cannot run %s", cmd);
	char key[256], out[64];
	long long sum = 0;
	*count = 0;
	while (fgets(key, sizeof key, p)) {
		key[strcspn(key, "\n")] = '\0';
		redis_cli(out, sizeof out, "STRLEN %s", key);
		sum += atoll(out);
		++*count;
	}
	pclose(p);
	return sum;
}

/* --store-per-tenant across replicas: two replicas whose tenants may keep
 * 100K each; alpha uploads six parts of about 24 KB, alternately to
 * each (each replica's memory holds its three), then beta one: in Redis
 * alpha keeps at most 100K (its newest four), beta's part stays. */
static void stage_tenant_budget(const char *tokens)
{
	replica t[2] = {{.name = "budget-1"}, {.name = "budget-2"}};
	start_tenant_pair(t, tokens, "100K");
	enum {
		PARTS = 6,
		POINTS = 1000,
		BUDGET = 100 << 10
	};
	int ok = 0;
	char *body = malloc((size_t)POINTS * 3 * 24 + 64);
	if (!body)
		proc_fail("shared-store: out of memory");
	for (int k = 0; k <= PARTS; k++) {
		unsigned seed = 900 + (unsigned)k;
		char *o = body + sprintf(body, "{\"vertices\":[");
		for (int j = 0; j < POINTS; j++)
			o += sprintf(o, "%s[%.6f,%.6f,%.6f]", j ? "," : "",
			             (double)rand_r(&seed) / RAND_MAX,
			             (double)rand_r(&seed) / RAND_MAX,
			             (double)rand_r(&seed) / RAND_MAX);
		sprintf(o, "]}");
		/* the last one beta's */
		ok += load_once_as(t[k % 2].port, k < PARTS ? "tokA" : "tokB", "POST", "/v1/shapes",
		                   NULL, body, strlen(body), NULL, NULL) == 201;
	}
	free(body);
	usleep(200000); /* the writes behind the answers */
	int alpha_n, beta_n;
	long long alpha = redis_bytes("clashd:shape:alpha:*", &alpha_n);
	long long beta = redis_bytes("clashd:shape:beta:*", &beta_n);
	char sum[64];
	redis_cli(sum, sizeof sum, "GET clashd:tenant:alpha:bytes");
	long long gone = metric(&t[0], "clashd_store_redis_tenant_evictions_total") +
	                 metric(&t[1], "clashd_store_redis_tenant_evictions_total");
	printf("shared-store: tenant budget: %d of %d uploads 201; in redis alpha keeps %d values, "
	       "%lld bytes (its sum says %s; budget %d), beta %d (%lld bytes); %lld of alpha's "
	       "removed\n",
	       ok, PARTS + 1, alpha_n, alpha, sum, BUDGET, beta_n, beta, gone);
	require(ok == PARTS + 1, "uploads refused");
	require(alpha <= BUDGET && alpha_n >= 3 && alpha_n < PARTS && atoll(sum) == alpha,
	        "alpha's values in redis are not kept within its budget across replicas");
	require(beta_n == 1 && gone == PARTS - alpha_n, "beta's value, or the removals counted");
	proc_kill(t[0].pid);
	proc_kill(t[1].pid);
}

/* Tenants on the shared store: two more replicas with tokens naming
 * tenants.  alpha's part, uploaded on one, is served to alpha on the
 * other (read from Redis, under alpha's key), and refused to beta and to
 * a token without a tenant on both: GET, HEAD, query by ref, DELETE. */
static void stage_tenants(void)
{
	char tokens[600];
	snprintf(tokens, sizeof tokens, "%.200s/tokens", workdir);
	FILE *f = fopen(tokens, "w");
	if (!f)
		proc_fail("shared-store: cannot write %s", tokens);
	fputs("tokA tenant=alpha\ntokB tenant=beta\ntokN\n", f);
	fclose(f);
	replica t[2] = {{.name = "tenant-1"}, {.name = "tenant-2"}};
	start_tenant_pair(t, tokens, NULL);
	load_shape sh;
	char id[80], *q, path[128], *ans = NULL;
	proto_reply want;
	extra_shape(3, &sh, id, &q, &want);
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	int up = load_once_as(t[0].port, "tokA", "POST", "/v1/shapes", NULL, sh.body, sh.len, NULL,
	                      NULL);
	int refused = 0, attempts = 0;
	static const char *const others[] = {"tokB", "tokN"};
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++) {
			int g = load_once_as(t[i].port, others[k], "GET", path, NULL, NULL, 0, NULL,
			                     NULL);
			int h = load_once_as(t[i].port, others[k], "HEAD", path, NULL, NULL, 0,
			                     NULL, NULL);
			int r = load_once_as(t[i].port, others[k], "POST", "/v1/query", NULL, q,
			                     strlen(q), &ans, NULL);
			int unknown = r == 422 && ans &&
			              strstr(ans, "\"urn:clashd:problem:unknown-shape\"");
			free(ans);
			ans = NULL;
			int d = load_once_as(t[i].port, others[k], "DELETE", path, NULL, NULL, 0,
			                     NULL, NULL);
			refused += (g == 404) + (h == 404) + unknown + (d == 404 || d == 403);
			attempts += 4;
		}
	size_t len = 0;
	int own = load_once_as(t[1].port, "tokA", "POST", "/v1/query", NULL, q, strlen(q), &ans,
	                       &len);
	int served = own == 200 && len == want.length && memcmp(ans, want.body, len) == 0;
	free(ans);
	/* Each tenant's share of tenant-2's memory: alpha's part, beta none. */
	long long alpha_n = metric(&t[1], "clashd_shape_store_tenant_entries{tenant=\"alpha\"}");
	long long alpha_b = metric(&t[1], "clashd_shape_store_tenant_bytes{tenant=\"alpha\"}");
	long long beta_n = metric(&t[1], "clashd_shape_store_tenant_entries{tenant=\"beta\"}");
	printf("shared-store: tenants: on tenant-2, alpha's entries %lld (%lld bytes), beta's %lld\n",
	       alpha_n, alpha_b, beta_n);
	require(alpha_n == 1 && alpha_b > 0 && beta_n == 0, "per-tenant store metrics");
	char out[64], unscoped[64];
	redis_cli(out, sizeof out, "EXISTS clashd:shape:alpha:%s", id + 7);
	redis_cli(unscoped, sizeof unscoped, "EXISTS clashd:shape:%s", id + 7);
	printf("shared-store: tenants: alpha's upload %d on tenant-1; %d of %d attempts by beta and "
	       "by a token without a tenant, on both replicas, refused; alpha's query by ref on "
	       "tenant-2 %s; in redis under alpha's key: %s, under no tenant's: %s\n",
	       up, refused, attempts, served ? "served" : "NOT SERVED", out, unscoped);
	require(up == 201 && refused == attempts && served, "tenants are not kept apart");
	require(strcmp(out, "1") == 0 && strcmp(unscoped, "0") == 0,
	        "alpha's part is not under alpha's key alone in redis");
	/* alpha's DELETE on tenant-1 removes it from Redis too (in the
	 * background), and from tenant-2's memory. */
	int del = load_once_as(t[0].port, "tokA", "DELETE", path, NULL, NULL, 0, NULL, NULL);
	double t0 = load_now();
	int gone = 0;
	while (!gone && load_now() - t0 < 5) {
		int g = load_once_as(t[1].port, "tokA", "POST", "/v1/query", NULL, q, strlen(q),
		                     &ans, NULL);
		gone = g == 422 && ans && strstr(ans, "\"urn:clashd:problem:unknown-shape\"");
		free(ans);
		ans = NULL;
		if (!gone)
			usleep(5000);
	}
	double tgone = load_now() - t0;
	do {
		usleep(20000);
		redis_cli(out, sizeof out, "EXISTS clashd:shape:alpha:%s", id + 7);
	} while (strcmp(out, "0") != 0 && load_now() - t0 < 5);
	printf("shared-store: tenants: alpha's DELETE %d on tenant-1, unknown-shape to alpha on "
	       "tenant-2 %s after %.3f s, gone from redis after %.3f s\n",
	       del, gone ? "yes" : "NO", tgone, load_now() - t0);
	require(del == 204 && strcmp(out, "0") == 0, "alpha's DELETE did not reach redis");
	require(gone, "alpha's DELETE left the part in tenant-2's memory");
	proc_kill(t[0].pid);
	proc_kill(t[1].pid);
	free(q);
	proto_reply_free(&want);
	stage_tenant_budget(tokens);
}

int main(int argc, char **argv)
{
	const char *dir = "build/shared-store.d";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
			dir = argv[++i];
		} else {
			fprintf(stderr, "usage: shared-store [--dir DIR]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	proc_guard(300);
	clashd_bin = getenv("CLASH_CLASHD") ? getenv("CLASH_CLASHD") : "build/clashd";
	snprintf(workdir, sizeof workdir, "%.200s", dir);
	mkdir(workdir, 0755);
	snprintf(redis_log, sizeof redis_log, "%.200s/redis.log", workdir);
	unlink(redis_log);
	redis_port = proc_free_port();
	start_redis();
	for (int i = 0; i < REPLICAS; i++) {
		snprintf(rep[i].name, sizeof rep[i].name, "clashd-%d", i + 1);
		snprintf(rep[i].log, sizeof rep[i].log, "%.200s/%.15s.log", workdir, rep[i].name);
		unlink(rep[i].log);
		start_clashd(&rep[i], 0);
		atomic_store(&rep[i].in_service, 1);
	}
	int port = start_proxy();
	make_shapes();
	double t0 = load_now();
	stage_any_replica(port);
	stage_head();
	stage_behind();
	stage_corrupt();
	stage_full();
	stage_delete();
	stage_huge();
	stage_hostile_redis();
	stage_tenants();
	stage_faults(port);
	stage_rolling(port);
	printf("shared-store: %s in %.1f s\n", failures ? "FAILED" : "passed", load_now() - t0);
	proc_kill_all();
	return failures ? 1 : 0;
}
