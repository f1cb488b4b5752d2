/*
 * http_harness.c — what the suites that run clashd (http_api, operations
 * and others) share: starting build/clashd and reading its log, a small
 * HTTP/1.1 client, and queries whose answers are known in closed form.
 *
 * Each test starts build/clashd on 127.0.0.1:0 (with 2 worker threads and
 * any flags and environment of its own), learns the port from its start-up
 * log line, and talks HTTP/1.1 to it through the client below (request out;
 * status line, headers and a Content-Length body back).  A thread keeps
 * reading the server's stdout (so the pipe never fills, unless a test
 * pauses it) and keeps the lines for the tests that look at the log.
 *
 * The binary is $CLASH_CLASHD when set: the sanitizer pass of make test runs
 * these suites against build/clashd-san (ASan + UBSan + LeakSanitizer), whose
 * reports go where ASAN_OPTIONS' log_path says (see check-san in the
 * Makefile), so a leak at exit fails the pass even when the test that
 * started that clashd did not look at its exit status.
 *
 * The server never outlives its test: it is started through spawn.h (with
 * PR_SET_PDEATHSIG), so a failing test (Check _exits the forked test
 * process) or a timeout takes it down too; a passing test stops it with
 * SIGTERM, reaps it and checks that it exited 0.
 */
#include "http_harness.h"
#include "spawn.h"
#include "textbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <zlib.h>

/* ---- the server process ------------------------------------------------- */

server srv;             /* one per test (each test is its own process) */
size_t server_as_limit; /* bytes of address space for the next clashd; 0: none */

const char *clashd_path(void)
{
	static char path[4096];
	const char *p = getenv("CLASH_CLASHD");
	if (p && *p)
		return p;
	snprintf(path, sizeof path, "%s/clashd", check_build_dir());
	return path;
}

int clashd_sanitized(void)
{
	const char *s = getenv("CLASH_CLASHD_SAN");
	return s && strcmp(s, "1") == 0;
}

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int attack_full(void)
{
	const char *v = getenv("CLASH_ATTACK");
	return v && strcmp(v, "full") == 0;
}

double attack_bound(double wide, double target)
{
	return attack_full() ? target : wide;
}

static void *log_reader(void *arg)
{
	server *s = arg;
	char buf[4096];
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->paused)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
		ssize_t n = read(s->out, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		pthread_mutex_lock(&s->mu);
		if (n <= 0) {
			s->eof = 1;
		} else {
			char *grown = realloc(s->log, s->log_len + (size_t)n + 1);
			if (grown) {
				s->log = grown;
				memcpy(s->log + s->log_len, buf, (size_t)n);
				s->log_len += (size_t)n;
				s->log[s->log_len] = '\0';
			}
		}
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		if (n <= 0)
			return NULL;
	}
}

/* The first complete log line containing `needle`, parsed; waits up to
 * `timeout` seconds.  NULL if none came. */
json_t *log_wait(server *s, const char *needle, double timeout)
{
	double deadline = now_s() + timeout;
	json_t *found = NULL;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		const char *line = s->log;
		while (line && *line) {
			const char *end = strchr(line, '\n');
			if (!end)
				break;
			size_t n = (size_t)(end - line);
			char *copy = strndup(line, n);
			if (copy && strstr(copy, needle)) {
				found = json_loads(copy, 0, NULL);
				free(copy);
				break;
			}
			free(copy);
			line = end + 1;
		}
		if (found || s->eof || now_s() > deadline)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

/* argv for clashd: "clashd", the fixed ones, then `args`. */
static void build_argv(const char **argv, size_t cap, const char *const *fixed,
                       const char *const *args)
{
	size_t n = 0;
	argv[n++] = "clashd";
	for (; fixed && *fixed && n + 1 < cap; fixed++)
		argv[n++] = *fixed;
	for (; args && *args && n + 1 < cap; args++)
		argv[n++] = *args;
	argv[n] = NULL;
}

/* Why a clashd printed no listening line, as far as can be seen: how
 * long the test waited, whether its stdout ended, the process's state
 * (/proc/PID/stat: R, S, D, Z ...) and kernel wait channel, and the end of
 * what it printed.  Fails the test. */
static void start_failed(server *s, const char *path, double waited)
{
	char stat[512] = "", wchan[128] = "", name[64];
	snprintf(name, sizeof name, "/proc/%d/stat", (int)s->pid);
	FILE *f = fopen(name, "r");
	if (f) {
		if (!fgets(stat, sizeof stat, f))
			stat[0] = '\0';
		fclose(f);
	}
	snprintf(name, sizeof name, "/proc/%d/wchan", (int)s->pid);
	f = fopen(name, "r");
	if (f) {
		if (!fgets(wchan, sizeof wchan, f))
			wchan[0] = '\0';
		fclose(f);
	}
	pthread_mutex_lock(&s->mu);
	size_t len = s->log_len;
	const char *tail = s->log ? s->log + (len > 1500 ? len - 1500 : 0) : "";
	ck_abort_msg("clashd (%s) printed no \"listening\" line in %.1f s (stdout %s; "
	             "stat: %s; wchan: %s); its last output (%zu bytes in all): %s",
	             path, waited, s->eof ? "closed" : "open", stat, wchan, len, tail);
	pthread_mutex_unlock(&s->mu);
}

void server_start(void)
{
	server_start_with(NULL, NULL);
}

void server_start_with(const char *const *args, const char *const *env)
{
	server *s = &srv;
	/* A server still running (a fixture's, when the test wants its own
	 * flags) is stopped first, its log reader joined: left running, that
	 * thread read `s` after the memset below, from fd 0 (stdin: under
	 * make test /dev/null, so an end of file) and marked the new
	 * server's output ended before its "listening" line. */
	if (s->pid > 0)
		server_stop_within(15);
	free(s->log); /* of an earlier server of the same test */
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);

	const char *path = clashd_path();
	const char *argv[64];
	/* No demo page unless a test asks for one (--web: a later flag
	 * wins): whether build/web exists must not change answers. */
	static const char *const fixed[] = {"--listen", "127.0.0.1:0", "--threads", "2",
	                                    "--web",    "off",         NULL};
	build_argv(argv, 64, fixed, args);
	spawn_opts o = {.file = path,
	                .argv = argv,
	                .out = SPAWN_PIPE,
	                .env_drop = "CLASHD_",
	                .env = env,
	                .as_limit = server_as_limit};
	spawned c;
	ck_assert_int_eq(spawn(&o, &c), 0);
	s->pid = c.pid;
	s->out = c.out;
	ck_assert_int_eq(pthread_create(&s->reader, NULL, log_reader, s), 0);

	double t0 = now_s();
	json_t *line = log_wait(s, "\"msg\":\"listening\"", 30);
	if (!line)
		start_failed(s, path, now_s() - t0);
	const char *listen = json_string_value(json_object_get(line, "listen"));
	ck_assert_ptr_nonnull(listen);
	ck_assert_msg(strncmp(listen, "127.0.0.1:", 10) == 0, "listen is %s", listen);
	s->port = atoi(listen + 10);
	ck_assert_int_gt(s->port, 0);
	json_decref(line);
}

void server_log_pause(int paused)
{
	pthread_mutex_lock(&srv.mu);
	srv.paused = paused;
	pthread_cond_broadcast(&srv.cv);
	pthread_mutex_unlock(&srv.mu);
}

/* SIGTERM, then wait (bounded) for the exit. */
int server_stop_within(double timeout)
{
	if (srv.pid <= 0)
		return -1;
	kill(srv.pid, SIGTERM);
	return server_wait_exit(timeout);
}

/* Wait for an exit already under way (after a SIGTERM the test sent). */
int server_wait_exit(double timeout)
{
	server *s = &srv;
	int status = spawn_wait(s->pid, timeout);
	if (status == -1)
		spawn_kill(s->pid);
	s->pid = 0;
	server_log_pause(0);
	pthread_join(s->reader, NULL);
	close(s->out);
	return status;
}

void assert_clean_exit(int status)
{
	ck_assert_msg(status != -1, "clashd did not exit after SIGTERM");
	ck_assert_msg(WIFEXITED(status), "clashd died of signal %d",
	              WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

/* ---- a small HTTP/1.1 client -------------------------------------------- */

int hconn_open(hconn *c, int port)
{
	c->len = 0;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		return -errno;
	/* No test may hang on a silent server. */
	struct timeval tv = {20, 0};
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int e = errno;
		close(c->fd);
		c->fd = -1;
		return -e;
	}
	return 0;
}

void hconn_timeout(hconn *c, int seconds)
{
	struct timeval tv = {seconds, 0};
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

void hconn_close(hconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int hconn_send(hconn *c, const void *p, size_t n)
{
	const char *b = p;
	while (n > 0) {
		ssize_t w = send(c->fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int hconn_sendf(hconn *c, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf)
		return -1;
	return hconn_send(c, buf, (size_t)n);
}

/* Read more bytes into the buffer; 0 at EOF, -1 on error. */
ssize_t hconn_fill(hconn *c)
{
	if (c->len == sizeof c->buf)
		return -1;
	for (;;) {
		ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			c->len += (size_t)n;
		return n;
	}
}

void hresp_free(hresp *r)
{
	free(r->body);
	r->body = NULL;
}

/* The value of header `name` (case-insensitive), copied into out; NULL if
 * absent. */
const char *hresp_header(const hresp *r, const char *name, char *out, size_t outlen)
{
	size_t n = strlen(name);
	const char *line = strstr(r->head, "\r\n");
	while (line && line[2]) {
		line += 2;
		const char *end = strstr(line, "\r\n");
		if (!end)
			end = line + strlen(line);
		if ((size_t)(end - line) > n && strncasecmp(line, name, n) == 0 && line[n] == ':') {
			const char *v = line + n + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t vl = (size_t)(end - v);
			if (vl >= outlen)
				vl = outlen - 1;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return out;
		}
		line = end;
	}
	return NULL;
}

/* Read one response (1xx ones included: the caller asks again). */
int hconn_read(hconn *c, hresp *r, int head_request)
{
	memset(r, 0, sizeof *r);
	char *end;
	while (!(end = memmem(c->buf, c->len, "\r\n\r\n", 4)))
		if (hconn_fill(c) <= 0)
			return -1;
	size_t hlen = (size_t)(end - c->buf) + 2; /* keep the last header's CRLF */
	if (hlen >= sizeof r->head)
		return -1;
	memcpy(r->head, c->buf, hlen);
	r->head[hlen] = '\0';
	size_t consumed = hlen + 2;
	memmove(c->buf, c->buf + consumed, c->len - consumed);
	c->len -= consumed;
	if (sscanf(r->head, "HTTP/1.1 %d", &r->status) != 1)
		return -1;

	char v[256];
	r->closed = hresp_header(r, "Connection", v, sizeof v) && strcasecmp(v, "close") == 0;
	if (r->status < 200 || r->status == 204 || r->status == 304 || head_request) {
		r->body = calloc(1, 1);
		return r->body ? 0 : -1;
	}
	if (hresp_header(r, "Content-Length", v, sizeof v)) {
		size_t want = strtoul(v, NULL, 10);
		r->body = malloc(want + 1);
		if (!r->body)
			return -1;
		/* What is buffered, then the rest straight into the body: a
		 * body may be longer than the buffer (the served contract is
		 * over 64 KiB). */
		size_t have = c->len < want ? c->len : want;
		memcpy(r->body, c->buf, have);
		memmove(c->buf, c->buf + have, c->len - have);
		c->len -= have;
		while (have < want) {
			ssize_t n = recv(c->fd, r->body + have, want - have, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				free(r->body);
				r->body = NULL;
				return -1;
			}
			have += (size_t)n;
		}
		r->body[want] = '\0';
		r->body_len = want;
		return 0;
	}
	/* No length: the body runs to the close. */
	while (hconn_fill(c) > 0)
		;
	r->body = malloc(c->len + 1);
	if (!r->body)
		return -1;
	memcpy(r->body, c->buf, c->len);
	r->body[c->len] = '\0';
	r->body_len = c->len;
	c->len = 0;
	return 0;
}

/* Send one request with a Content-Length body (body may be NULL). */
int hconn_request(hconn *c, const char *method, const char *path, const char *headers,
                  const char *body, size_t len)
{
	if (body) {
		if (hconn_sendf(
			    c, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: %zu\r\n\r\n",
			    method, path, headers ? headers : "", len) != 0)
			return -1;
		return hconn_send(c, body, len);
	}
	return hconn_sendf(c, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", method, path,
	                   headers ? headers : "");
}

/* One exchange on a fresh connection; asserts that it went through. */
void http_do(const char *method, const char *path, const char *headers, const char *body,
             size_t len, hresp *r)
{
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, method, path, headers, body, len), 0);
	ck_assert_msg(hconn_read(&c, r, strcmp(method, "HEAD") == 0) == 0, "no response to %s %s",
	              method, path);
	hconn_close(&c);
}

char *http_post_json(const char *path, const char *body, int *status)
{
	hresp r;
	http_do("POST", path, JSON_HEADERS, body, strlen(body), &r);
	*status = r.status;
	char *out = strdup(r.body ? r.body : "");
	hresp_free(&r);
	return out;
}

/* ---- queries with known answers ----------------------------------------- */

/* The 8 corners of the box [lo, hi] (3-D) as JSON vertices. */
void box_vertices(char *out, size_t len, const double lo[3], const double hi[3])
{
	size_t n = 0;
	n += (size_t)snprintf(out + n, len - n, "[");
	for (int i = 0; i < 8; i++)
		n += (size_t)snprintf(out + n, len - n, "%s[%.17g,%.17g,%.17g]", i ? "," : "",
		                      i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1],
		                      i & 4 ? hi[2] : lo[2]);
	snprintf(out + n, len - n, "]");
}

/* A Query for two boxes (the wire contract, proto/openapi.yaml). */
char *box_query(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3])
{
	char va[1024], vb[1024];
	box_vertices(va, sizeof va, alo, ahi);
	box_vertices(vb, sizeof vb, blo, bhi);
	char *q = NULL;
	if (asprintf(&q, "{\"a\":{\"vertices\":%s},\"b\":{\"vertices\":%s}}", va, vb) < 0)
		return NULL;
	return q;
}

/* The acceptance query: unit cubes [0,1]^3 and [3,4]x[0,1]^2, or with b
 * moved `shift` further along x. */
char *cubes_query(double shift)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {1, 1, 1};
	const double blo[3] = {3 + shift, 0, 0}, bhi[3] = {4 + shift, 1, 1};
	return box_query(alo, ahi, blo, bhi);
}

int close_to(double x, double want)
{
	return fabs(x - want) <= 1e-9 * (1 + fabs(want));
}

/* Check a Result for the two cubes gap apart along x: not intersecting,
 * distance gap, near points {a, b} on x = 1 and x = 1 + gap with equal y
 * and z in [0,1], plane normal (1,0,0) offset 1 + gap/2.  Returns NULL or
 * what is wrong (static text). */
const char *cubes_answer_wrong(const char *body, double gap)
{
	json_error_t err;
	json_t *r = json_loads(body, 0, &err);
	const char *wrong = NULL;
	if (!r)
		return "the body is not JSON";
	json_t *near = json_object_get(r, "near_points");
	json_t *pa = json_object_get(near, "a"), *pb = json_object_get(near, "b");
	json_t *plane = json_object_get(r, "separating_plane");
	json_t *n = json_object_get(plane, "normal");
	if (!json_is_false(json_object_get(r, "intersecting")))
		wrong = "intersecting is not false";
	else if (!close_to(json_number_value(json_object_get(r, "distance")), gap))
		wrong = "wrong distance";
	else if (json_array_size(pa) != 3 || json_array_size(pb) != 3)
		wrong = "near_points is not two 3-D points";
	else if (!close_to(json_number_value(json_array_get(pa, 0)), 1) ||
	         !close_to(json_number_value(json_array_get(pb, 0)), 1 + gap))
		wrong = "near points are not on x = 1 and x = 1 + gap";
	else if (!close_to(json_number_value(json_array_get(pa, 1)),
	                   json_number_value(json_array_get(pb, 1))) ||
	         !close_to(json_number_value(json_array_get(pa, 2)),
	                   json_number_value(json_array_get(pb, 2))))
		wrong = "near points differ in y or z";
	else if (json_number_value(json_array_get(pa, 1)) < -1e-9 ||
	         json_number_value(json_array_get(pa, 1)) > 1 + 1e-9 ||
	         json_number_value(json_array_get(pa, 2)) < -1e-9 ||
	         json_number_value(json_array_get(pa, 2)) > 1 + 1e-9)
		wrong = "near points are off the faces";
	else if (json_array_size(n) != 3 || !close_to(json_number_value(json_array_get(n, 0)), 1) ||
	         !close_to(json_number_value(json_array_get(n, 1)), 0) ||
	         !close_to(json_number_value(json_array_get(n, 2)), 0))
		wrong = "separating plane normal is not (1,0,0)";
	else if (!close_to(json_number_value(json_object_get(plane, "offset")), 1 + gap / 2))
		wrong = "separating plane offset is wrong";
	json_decref(r);
	return wrong;
}

/* The problem type of each status (proto/openapi.yaml, Problem.type). */
const char *problem_type(int status)
{
	switch (status) {
	case 400: return "urn:clashd:problem:malformed-json";
	case 401: return "urn:clashd:problem:unauthorized";
	case 403: return "urn:clashd:problem:forbidden";
	case 408: return "urn:clashd:problem:request-timeout";
	case 404: return "urn:clashd:problem:not-found";
	case 405: return "urn:clashd:problem:method-not-allowed";
	case 413: return "urn:clashd:problem:payload-too-large";
	case 415: return "urn:clashd:problem:unsupported-media-type";
	case 422: return "urn:clashd:problem:invalid-query";
	case 429: return "urn:clashd:problem:too-many-requests";
	case 503: return "urn:clashd:problem:unavailable";
	case 504: return "urn:clashd:problem:timeout";
	}
	return NULL;
}

/* Assert a problem reply: status, media type, type, title, "status". */
json_t *assert_problem(const hresp *r, int status)
{
	char v[256];
	ck_assert_msg(r->status == status, "status %d, not %d: %s", r->status, status, r->body);
	ck_assert_ptr_nonnull(hresp_header(r, "Content-Type", v, sizeof v));
	ck_assert_str_eq(v, "application/problem+json");
	json_t *p = json_loads(r->body, 0, NULL);
	ck_assert_msg(p != NULL, "problem body is not JSON: %s", r->body);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "status")), status);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(p, "title")));
	if (problem_type(status))
		ck_assert_str_eq(json_string_value(json_object_get(p, "type")),
		                 problem_type(status));
	return p;
}

long long server_metric(const char *name)
{
	hresp r;
	http_do("GET", "/metrics", NULL, NULL, 0, &r);
	char key[128];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *at = strstr(r.body, key);
	ck_assert_msg(at != NULL, "no %s in /metrics", name);
	long long v = atoll(at + strlen(key));
	hresp_free(&r);
	return v;
}

/* The server still answers the acceptance query correctly.  A server
 * started with a short --request-timeout (100 ms) may answer 504 when a
 * loaded machine holds the query past it: that is the deadline working,
 * so the query is asked again, up to 20 times. */
void assert_still_serving(void)
{
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	for (int i = 0; i < 20 && r.status == 504 && strstr(r.body, "problem:timeout"); i++) {
		hresp_free(&r);
		usleep(50 * 1000);
		http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	}
	ck_assert_int_eq(r.status, 200);
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
	hresp_free(&r);
	free(q);
}

/* A query for two boxes given by `n` vertices each: the 8 corners of
 * [0,1]^3 (or of [3,4]x[0,1]^2) plus n-8 points inside, so the hulls, and
 * the answer, are those of the cubes while decoding takes a while. */
char *big_cubes_query(size_t n, unsigned seed)
{
	size_t cap = 64 + 2 * n * 24;
	char *q = malloc(cap);
	if (!q)
		return NULL;
	size_t len = (size_t)snprintf(q, cap, "{\"a\":{\"vertices\":[");
	for (int shape = 0; shape < 2; shape++) {
		double x0 = shape ? 3 : 0;
		for (size_t i = 0; i < n; i++) {
			double p[3];
			if (i < 8) {
				p[0] = x0 + (i & 1);
				p[1] = (i >> 1) & 1;
				p[2] = (i >> 2) & 1;
			} else {
				/* Interior points with 3 decimals: short text. */
				for (int k = 0; k < 3; k++) {
					seed = seed * 1103515245u + 12345u;
					p[k] = (1 + (seed >> 8) % 998) / 1000.0;
				}
				p[0] += x0;
			}
			len += (size_t)snprintf(q + len, cap - len, "%s[%.3f,%.3f,%.3f]",
			                        i ? "," : "", p[0], p[1], p[2]);
		}
		len += (size_t)snprintf(q + len, cap - len,
		                        shape ? "]}}" : "]},\"b\":{\"vertices\":[");
	}
	return q;
}

char *slow_cubes_query(size_t n, unsigned seed)
{
	char *q = big_cubes_query(n, seed);
	static const char head[] = "{\"a\":{\"vertices\":";
	if (!q || strncmp(q, head, sizeof head - 1) != 0)
		return q;
	size_t len = strlen(q);
	char *slow = malloc(len + 8);
	if (slow)
		snprintf(slow, len + 8, "{\"a\":{\"vertic\\u0065s\":%s", q + sizeof head - 1);
	free(q);
	return slow;
}

/* ---- flags -------------------------------------------------------------- */

/* Run clashd with args and env, return its exit status; stderr captured. */
int run_clashd(const char *const *args, const char *const *env, char *err, size_t errlen)
{
	const char *argv[64];
	build_argv(argv, 64, NULL, args);
	spawn_opts o = {.file = clashd_path(),
	                .argv = argv,
	                .out = SPAWN_NULL,
	                .err = SPAWN_PIPE,
	                .env_drop = "CLASHD_",
	                .env = env};
	/* Bad values exit at once; the tests here never start a server. */
	int status = spawn_run(&o, err, errlen);
	ck_assert(status != -1 && WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Start clashd with env/args of our own and read its "listening" line. */
json_t *listening_line(const char *const *args, const char *const *env)
{
	const char *argv[64];
	build_argv(argv, 64, NULL, args);
	spawn_opts o = {.file = clashd_path(),
	                .argv = argv,
	                .out = SPAWN_PIPE,
	                .env_drop = "CLASHD_",
	                .env = env,
	                .as_limit = server_as_limit};
	spawned c;
	ck_assert_int_eq(spawn(&o, &c), 0);
	FILE *f = fdopen(c.out, "r");
	char line[4096];
	json_t *j = NULL;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "\"msg\":\"listening\"")) {
			j = json_loads(line, 0, NULL);
			break;
		}
	kill(c.pid, SIGTERM);
	int status = spawn_wait(c.pid, -1);
	if (f)
		fclose(f);
	ck_assert_msg(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "clashd did not exit 0");
	return j;
}

/* ---- shared checks -------------------------------------------------------- */

long process_peak_rss_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

char *problem_placed_in_input(const char *body, size_t len, long long line, long long offset)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	ck_assert_ptr_nonnull(j);
	json_t *pos = json_object_get(j, "position");
	if (pos)
		json_integer_set(pos, json_integer_value(pos) + offset);
	json_object_set_new(j, "line", json_integer(line));
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

char *random_stl(size_t n, size_t *len)
{
	*len = 84 + 50 * n;
	unsigned char *b = calloc(1, *len);
	ck_assert_ptr_nonnull(b);
	for (int k = 0; k < 4; k++)
		b[80 + k] = (unsigned char)(n >> 8 * k);
	uint32_t x = 12345;
	for (size_t f = 0; f < n; f++)
		for (int k = 0; k < 9; k++) {
			x = x * 1664525u + 1013904223u;
			float v = (float)(x >> 8) / (float)(1 << 24);
			uint32_t bits;
			memcpy(&bits, &v, 4);
			for (int i = 0; i < 4; i++)
				b[84 + 50 * f + 12 + 4 * k + i] = (unsigned char)(bits >> 8 * i);
		}
	return (char *)b;
}

char *gzip_repeated(const char *text, size_t len, int times, size_t *out_len)
{
	z_stream z = {0};
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
	                 Z_OK);
	size_t cap = deflateBound(&z, (uLong)len) * (size_t)times + 64, used = 0;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	for (int k = 0; k < times; k++) {
		z.next_in = (Bytef *)(uintptr_t)text;
		z.avail_in = (uInt)len;
		int last = k == times - 1;
		do {
			z.next_out = (Bytef *)out + used;
			z.avail_out = (uInt)(cap - used);
			int rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
			ck_assert_int_ne(rc, Z_STREAM_ERROR);
			used = cap - z.avail_out;
			if (last && rc == Z_STREAM_END)
				break;
		} while (z.avail_in > 0 || last);
	}
	deflateEnd(&z);
	*out_len = used;
	return out;
}

char *mesh_geometry_json(const double *pos, size_t nv, const uint32_t *idx, size_t nt,
                         const char *extra)
{
	textbuf b = {0};
	char num[40];
	textbuf_str(&b, "{\"positions\":[");
	for (size_t i = 0; i < 3 * nv; i++) {
		snprintf(num, sizeof num, "%s%.17g", i ? "," : "", pos[i]);
		textbuf_str(&b, num);
	}
	textbuf_str(&b, "],\"indices\":[");
	for (size_t i = 0; i < 3 * nt; i++) {
		snprintf(num, sizeof num, "%s%u", i ? "," : "", idx[i]);
		textbuf_str(&b, num);
	}
	textbuf_str(&b, "]");
	textbuf_str(&b, extra);
	textbuf_str(&b, "}");
	return b.s;
}
