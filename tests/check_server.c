/*
 * check_server.c — suite "server": clashd end to end, over real HTTP.
 *
 * Each test starts build/clashd on 127.0.0.1:0 with 2 worker threads, learns
 * the port from its start-up log line, and talks HTTP/1.1 to it through the
 * small client below (request out; status line, headers and a
 * Content-Length body back).  A thread keeps reading the server's stdout (so
 * the pipe never fills and blocks it) and keeps the lines for the tests that
 * look at the log.  Answers are checked against closed forms: boxes whose
 * distance, near points and separating plane are known exactly.
 *
 * The server never outlives its test: it is started with PR_SET_PDEATHSIG,
 * so a failing test (Check _exits the forked test process) or a timeout
 * takes it down too; a passing test stops it with SIGTERM, reaps it and
 * checks that it exited 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>

#include "check.h"

#define MAX_BODY ((size_t)16 << 20) /* server/http_server.h HTTP_MAX_BODY */

/* ---- the server process ------------------------------------------------- */

typedef struct server {
	pid_t pid;
	int port;
	int out;             /* read end of its stdout */
	pthread_t reader;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *log;           /* everything read so far, NUL-terminated */
	size_t log_len;
	int eof;
} server;

static server srv; /* one per test (each test is its own process) */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *log_reader(void *arg)
{
	server *s = arg;
	char buf[4096];
	for (;;) {
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
static json_t *log_wait(server *s, const char *needle, double timeout)
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

static void server_start(void)
{
	server *s = &srv;
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);

	char path[4096];
	snprintf(path, sizeof path, "%s/clashd", check_build_dir());
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Die with the test process, whatever way it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, "clashd", "--listen", "127.0.0.1:0", "--threads", "2", (char *)NULL);
		fprintf(stderr, "check_server: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	s->pid = pid;
	s->out = fds[0];
	ck_assert_int_eq(pthread_create(&s->reader, NULL, log_reader, s), 0);

	json_t *line = log_wait(s, "\"msg\":\"listening\"", 10);
	ck_assert_msg(line != NULL, "clashd (%s) printed no \"listening\" line", path);
	const char *listen = json_string_value(json_object_get(line, "listen"));
	ck_assert_ptr_nonnull(listen);
	ck_assert_msg(strncmp(listen, "127.0.0.1:", 10) == 0, "listen is %s", listen);
	s->port = atoi(listen + 10);
	ck_assert_int_gt(s->port, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(line, "threads")), 2);
	json_decref(line);
}

/* SIGTERM (once), then wait up to `timeout` seconds for the exit.  Returns
 * the wait status, or -1 after having had to SIGKILL it. */
static int server_wait_exit(double timeout);

/* SIGTERM, then wait (bounded) for the exit. */
static int server_stop_within(double timeout)
{
	if (srv.pid <= 0)
		return -1;
	kill(srv.pid, SIGTERM);
	return server_wait_exit(timeout);
}

/* Wait for an exit already under way (after a SIGTERM the test sent). */
static int server_wait_exit(double timeout)
{
	server *s = &srv;
	int status = -1;
	double deadline = now_s() + timeout;
	for (;;) {
		pid_t r = waitpid(s->pid, &status, WNOHANG);
		if (r == s->pid)
			break;
		if (r < 0 || now_s() > deadline) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			status = -1;
			break;
		}
		usleep(5000);
	}
	s->pid = 0;
	pthread_join(s->reader, NULL);
	close(s->out);
	return status;
}

static void assert_clean_exit(int status)
{
	ck_assert_msg(status != -1, "clashd did not exit after SIGTERM");
	ck_assert_msg(WIFEXITED(status), "clashd died of signal %d",
	              WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

/* Checked fixture: every test gets a fresh server and must leave it able to
 * shut down cleanly. */
static void setup(void)
{
	server_start();
}

static void teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(15));
	free(srv.log);
	srv.log = NULL;
}

/* ---- a small HTTP/1.1 client -------------------------------------------- */

typedef struct hconn {
	int fd;
	char buf[65536]; /* bytes read but not yet consumed */
	size_t len;
} hconn;

typedef struct hresp {
	int status;
	char head[16384]; /* status line and headers */
	char *body;       /* NUL-terminated */
	size_t body_len;
	int closed;       /* the server said Connection: close */
} hresp;

static int hconn_open(hconn *c, int port)
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

static void hconn_timeout(hconn *c, int seconds)
{
	struct timeval tv = {seconds, 0};
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static void hconn_close(hconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int hconn_send(hconn *c, const void *p, size_t n)
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

static int hconn_sendf(hconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int hconn_sendf(hconn *c, const char *fmt, ...)
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
static ssize_t hconn_fill(hconn *c)
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

static void hresp_free(hresp *r)
{
	free(r->body);
	r->body = NULL;
}

/* The value of header `name` (case-insensitive), copied into out; NULL if
 * absent. */
static const char *hresp_header(const hresp *r, const char *name, char *out, size_t outlen)
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
static int hconn_read(hconn *c, hresp *r, int head_request)
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
		while (c->len < want && c->len < sizeof c->buf) {
			ssize_t n = hconn_fill(c);
			if (n <= 0)
				break;
		}
		/* Bodies here are small (replies, problems); a longer one is an
		 * error of its own. */
		if (c->len < want)
			return -1;
		memcpy(r->body, c->buf, want);
		r->body[want] = '\0';
		r->body_len = want;
		memmove(c->buf, c->buf + want, c->len - want);
		c->len -= want;
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
static int hconn_request(hconn *c, const char *method, const char *path, const char *headers,
                         const char *body, size_t len)
{
	if (body) {
		if (hconn_sendf(c, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: %zu\r\n\r\n",
		                method, path, headers ? headers : "", len) != 0)
			return -1;
		return hconn_send(c, body, len);
	}
	return hconn_sendf(c, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", method, path,
	                   headers ? headers : "");
}

/* One exchange on a fresh connection; asserts that it went through. */
static void http_do(const char *method, const char *path, const char *headers,
                    const char *body, size_t len, hresp *r)
{
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, method, path, headers, body, len), 0);
	ck_assert_msg(hconn_read(&c, r, strcmp(method, "HEAD") == 0) == 0,
	              "no response to %s %s", method, path);
	hconn_close(&c);
}

#define JSON_HEADERS "Content-Type: application/json\r\n"

/* ---- queries with known answers ----------------------------------------- */

/* The 8 corners of the box [lo, hi] (3-D) as JSON vertices. */
static void box_vertices(char *out, size_t len, const double lo[3], const double hi[3])
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
static char *box_query(const double alo[3], const double ahi[3], const double blo[3],
                       const double bhi[3])
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
static char *cubes_query(double shift)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {1, 1, 1};
	const double blo[3] = {3 + shift, 0, 0}, bhi[3] = {4 + shift, 1, 1};
	return box_query(alo, ahi, blo, bhi);
}

static int close_to(double x, double want)
{
	return fabs(x - want) <= 1e-9 * (1 + fabs(want));
}

/* Check a Result for the two cubes gap apart along x: not intersecting,
 * distance gap, near points {a, b} on x = 1 and x = 1 + gap with equal y
 * and z in [0,1], plane normal (1,0,0) offset 1 + gap/2.  Returns NULL or
 * what is wrong (static text). */
static const char *cubes_answer_wrong(const char *body, double gap)
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
static const char *problem_type(int status)
{
	switch (status) {
	case 400: return "urn:clashd:problem:malformed-json";
	case 404: return "urn:clashd:problem:not-found";
	case 405: return "urn:clashd:problem:method-not-allowed";
	case 413: return "urn:clashd:problem:payload-too-large";
	case 415: return "urn:clashd:problem:unsupported-media-type";
	case 422: return "urn:clashd:problem:invalid-query";
	}
	return NULL;
}

/* Assert a problem reply: status, media type, type, title, "status". */
static json_t *assert_problem(const hresp *r, int status)
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
		ck_assert_str_eq(json_string_value(json_object_get(p, "type")), problem_type(status));
	return p;
}

/* The server still answers the acceptance query correctly. */
static void assert_still_serving(void)
{
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	ck_assert_int_eq(r.status, 200);
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
	hresp_free(&r);
	free(q);
}

static char *big_cubes_query(size_t n, unsigned seed);

/* ---- tests -------------------------------------------------------------- */

START_TEST(test_acceptance_query)
{
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, q, strlen(q), &r);
	ck_assert_int_eq(r.status, 200);
	char v[256];
	ck_assert_ptr_nonnull(hresp_header(&r, "Content-Type", v, sizeof v));
	ck_assert_str_eq(v, "application/json");
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);

	/* The request was logged: method, path, status, sizes, duration. */
	json_t *line = log_wait(&srv, "\"path\":\"/v1/query\"", 5);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(json_string_value(json_object_get(line, "method")), "POST");
	ck_assert_int_eq(json_integer_value(json_object_get(line, "status")), 200);
	ck_assert_int_eq(json_integer_value(json_object_get(line, "bytes_in")), (json_int_t)strlen(q));
	ck_assert_int_eq(json_integer_value(json_object_get(line, "bytes_out")), (json_int_t)r.body_len);
	ck_assert(json_number_value(json_object_get(line, "duration_s")) >= 0);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(line, "ts")));
	json_decref(line);
	hresp_free(&r);
	free(q);
}
END_TEST

START_TEST(test_media_type_parameters)
{
	/* Parameters and +json suffixes are JSON too. */
	static const char *const types[] = {
		"Content-Type: application/json; charset=utf-8\r\n",
		"Content-Type: Application/JSON\r\n",
		"Content-Type: application/vnd.clash.query+json\r\n",
	};
	char *q = cubes_query(1);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", types[i], q, strlen(q), &r);
		ck_assert_msg(r.status == 200, "%s -> %d", types[i], r.status);
		const char *wrong = cubes_answer_wrong(r.body, 3);
		ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
		hresp_free(&r);
	}
	free(q);
}
END_TEST

START_TEST(test_probes)
{
	hresp r;
	char v[256];
	http_do("GET", "/livez", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hresp_header(&r, "Content-Type", v, sizeof v), "application/json");
	ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
	hresp_free(&r);

	http_do("GET", "/readyz", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ready\"}");
	hresp_free(&r);

	/* A query string does not change the route. */
	http_do("GET", "/readyz?verbose=1", NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);

	/* HEAD: same status and length, no body. */
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "HEAD", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 1), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hresp_header(&r, "Content-Length", v, sizeof v), "15");
	hresp_free(&r);
	/* ... and the connection carries on with the next request right
	 * after the head, which proves no body bytes were sent. */
	ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
	hresp_free(&r);
	hconn_close(&c);
}
END_TEST

START_TEST(test_not_found)
{
	static const char *const paths[] = {"/", "/v1", "/v1/query/", "/v2/query", "/livez/x",
	                                    "/%ff%00"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		hresp r;
		http_do("GET", paths[i], NULL, NULL, 0, &r);
		json_decref(assert_problem(&r, 404));
		hresp_free(&r);
	}
	/* With a body it never reads. */
	char *q = cubes_query(0);
	hresp r;
	http_do("POST", "/v1/queries", JSON_HEADERS, q, strlen(q), &r);
	json_decref(assert_problem(&r, 404));
	hresp_free(&r);
	free(q);
	assert_still_serving();
}
END_TEST

START_TEST(test_method_not_allowed)
{
	struct {
		const char *method, *path, *allow;
	} cases[] = {
		{"GET", "/v1/query", "POST"},
		{"PUT", "/v1/query", "POST"},
		{"DELETE", "/v1/query", "POST"},
		{"POST", "/livez", "GET, HEAD"},
		{"POST", "/readyz", "GET, HEAD"},
		{"OPTIONS", "/readyz", "GET, HEAD"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hresp r;
		char v[256];
		const char *body = strcmp(cases[i].method, "POST") == 0 ? "{}" : NULL;
		http_do(cases[i].method, cases[i].path, body ? JSON_HEADERS : NULL, body,
		        body ? 2 : 0, &r);
		json_t *p = assert_problem(&r, 405);
		ck_assert_msg(hresp_header(&r, "Allow", v, sizeof v) != NULL, "%s %s: no Allow",
		              cases[i].method, cases[i].path);
		ck_assert_str_eq(v, cases[i].allow);
		/* The detail names the method. */
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "detail")),
		                             cases[i].method));
		json_decref(p);
		hresp_free(&r);
	}
	assert_still_serving();
}
END_TEST

START_TEST(test_unsupported_media_type)
{
	static const char *const headers[] = {
		"",                                       /* no Content-Type */
		"Content-Type: text/plain\r\n",
		"Content-Type: application/x-www-form-urlencoded\r\n",
		"Content-Type: application/jsonx\r\n",
		"Content-Type: application/+json\r\n",
		"Content-Type: text/json+xml\r\n",
		"Content-Type: application/json x\r\n",
	};
	char *q = cubes_query(0);
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", headers[i], q, strlen(q), &r);
		ck_assert_msg(r.status == 415, "%s -> %d", headers[i], r.status);
		json_decref(assert_problem(&r, 415));
		hresp_free(&r);
	}
	free(q);

	/* A body sent whole before the client reads: the answer arrives and
	 * the connection stays open (the body is read and dropped, not left
	 * unread under a close, which would reset the connection). */
	size_t big = 300 * 1000;
	char *junk = malloc(big);
	ck_assert_ptr_nonnull(junk);
	memset(junk, 'x', big);
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", "Content-Type: text/csv\r\n",
		                               junk, big), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 415));
		ck_assert(!r.closed);
		hresp_free(&r);
		ck_assert_int_eq(hconn_request(&c, "POST", "/elsewhere", JSON_HEADERS, junk, big), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 404));
		ck_assert(!r.closed);
		hresp_free(&r);
	}
	hconn_close(&c);
	free(junk);

	/* With Expect: 100-continue the answer comes instead of the 100. */
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n"
	                                 "Content-Type: text/plain\r\nExpect: 100-continue\r\n"
	                                 "Content-Length: 5000000\r\n\r\n"), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 415));
	hresp_free(&r);
	hconn_close(&c);
	assert_still_serving();
}
END_TEST

START_TEST(test_hostile_clients)
{
	/* Things a broken or hostile client does; none may hurt the server. */
	static const char *const raw[] = {
		"GARBAGE\r\n\r\n",
		"GET / HTTP/9.9\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", /* a TLS hello */
		"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n",
		"POST /v1/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		"Content-Type: application/json\r\n\r\nzz\r\n",
		"GET /livez HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		hconn c;
		hresp r;
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_send(&c, raw[i], strlen(raw[i])), 0);
		shutdown(c.fd, SHUT_WR);
		/* Any answer (MHD's own 400 ...), a close, or silence (MHD
		 * 0.9.75 waits for its timeout on a half-closed partial
		 * request line) is fine. */
		hconn_timeout(&c, 1);
		if (hconn_read(&c, &r, 0) == 0) {
			ck_assert_msg((r.status >= 400 && r.status < 500) || r.status == 505,
			              "case %zu: status %d", i, r.status);
			hresp_free(&r);
		}
		hconn_close(&c);
	}

	/* Headers larger than the connection's memory: 431 or a close. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "GET /livez HTTP/1.1\r\nHost: x\r\n"), 0);
	char hdr[1100];
	memset(hdr, 'a', sizeof hdr);
	memcpy(hdr, "X-Pad: ", 7);
	memcpy(hdr + sizeof hdr - 2, "\r\n", 2);
	int sent_all = 1;
	for (int i = 0; i < 64 && sent_all; i++)
		sent_all = hconn_send(&c, hdr, sizeof hdr) == 0;
	if (sent_all)
		hconn_send(&c, "\r\n", 2);
	if (hconn_read(&c, &r, 0) == 0) {
		ck_assert_int_ge(r.status, 400);
		hresp_free(&r);
	}
	hconn_close(&c);

	/* Gone mid-body, and gone while the query runs. */
	char *q = cubes_query(0);
	size_t len = strlen(q);
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
		                                 "Content-Length: %zu\r\n\r\n", len), 0);
		ck_assert_int_eq(hconn_send(&c, q, i % 2 ? len : len / 2), 0);
		hconn_close(&c);
	}
	free(q);
	char *bigq = big_cubes_query(20000, 7);
	ck_assert_ptr_nonnull(bigq);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, bigq, strlen(bigq)), 0);
		hconn_close(&c);
	}
	free(bigq);
	assert_still_serving();
	/* The teardown then checks that it still shuts down cleanly. */
}
END_TEST

START_TEST(test_bad_request)
{
	static const char *const bodies[] = {
		"", "{", "{\"a\":", "[1,2", "not json", "{\"a\":1} trailing", "\xff\xfe",
	};
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", JSON_HEADERS, bodies[i], strlen(bodies[i]), &r);
		ck_assert_msg(r.status == 400, "body \"%s\" -> %d", bodies[i], r.status);
		json_decref(assert_problem(&r, 400));
		hresp_free(&r);
	}
	/* A NUL byte inside the body is input like any other. */
	hresp r;
	http_do("POST", "/v1/query", JSON_HEADERS, "{\"a\"\0:1}", 8, &r);
	json_decref(assert_problem(&r, 400));
	hresp_free(&r);
	assert_still_serving();
}
END_TEST

START_TEST(test_unprocessable)
{
	/* Valid JSON, invalid query: the problem points at the value. */
	struct {
		const char *body, *pointer_prefix;
	} cases[] = {
		{"{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}", "/a"},
		{"{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":\"x\"}}", "/b"},
		{"{\"a\":{\"vertices\":[[0,0,0]]}}", "/"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hresp r;
		http_do("POST", "/v1/query", JSON_HEADERS, cases[i].body, strlen(cases[i].body), &r);
		json_t *p = assert_problem(&r, 422);
		const char *ptr = json_string_value(json_object_get(p, "pointer"));
		ck_assert_msg(ptr != NULL, "no pointer in %s", r.body);
		ck_assert_msg(strncmp(ptr, cases[i].pointer_prefix, strlen(cases[i].pointer_prefix)) == 0 ||
		              (strcmp(cases[i].pointer_prefix, "/") == 0 && ptr[0] == '\0'),
		              "pointer %s for %s", ptr, cases[i].body);
		json_decref(p);
		hresp_free(&r);
	}
	assert_still_serving();
}
END_TEST

START_TEST(test_too_large_by_length)
{
	/* Announce one byte over the cap and send nothing: the answer must
	 * come from the headers alone. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Content-Length: %zu\r\n\r\n", MAX_BODY + 1), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	hresp_free(&r);
	hconn_close(&c);

	/* Same with Expect: 100-continue (curl's way): no 100 comes first. */
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Expect: 100-continue\r\n"
	                                 "Content-Length: 99999999999\r\n\r\n"), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	hresp_free(&r);
	hconn_close(&c);
	assert_still_serving();
}
END_TEST

START_TEST(test_too_large_chunked)
{
	/* A chunked body over the cap is read to its end and answered 413;
	 * the connection stays usable. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Transfer-Encoding: chunked\r\n\r\n"), 0);
	size_t chunk = 1 << 20;
	char *spaces = malloc(chunk);
	ck_assert_ptr_nonnull(spaces);
	memset(spaces, ' ', chunk);
	for (size_t sent = 0; sent <= MAX_BODY; sent += chunk) {
		ck_assert_int_eq(hconn_sendf(&c, "%zx\r\n", chunk), 0);
		ck_assert_int_eq(hconn_send(&c, spaces, chunk), 0);
		ck_assert_int_eq(hconn_send(&c, "\r\n", 2), 0);
	}
	free(spaces);
	ck_assert_int_eq(hconn_send(&c, "0\r\n\r\n", 5), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_decref(assert_problem(&r, 413));
	ck_assert(!r.closed);
	hresp_free(&r);

	/* Same connection: a chunked query under the cap is answered. */
	char *q = cubes_query(0);
	size_t half = strlen(q) / 2;
	ck_assert_int_eq(hconn_sendf(&c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                                 "Transfer-Encoding: chunked\r\n\r\n%zx\r\n", half), 0);
	ck_assert_int_eq(hconn_send(&c, q, half), 0);
	ck_assert_int_eq(hconn_sendf(&c, "\r\n%zx\r\n", strlen(q) - half), 0);
	ck_assert_int_eq(hconn_send(&c, q + half, strlen(q) - half), 0);
	ck_assert_int_eq(hconn_send(&c, "\r\n0\r\n\r\n", 7), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	const char *wrong = cubes_answer_wrong(r.body, 2);
	ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
	hresp_free(&r);
	free(q);
	hconn_close(&c);
}
END_TEST

START_TEST(test_keep_alive)
{
	/* One connection, many requests, every kind of answer: it stays open
	 * and every answer is the right one. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	for (int i = 0; i < 10; i++) {
		char *q = cubes_query(i);
		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		ck_assert_int_eq(r.status, 200);
		ck_assert(!r.closed);
		const char *wrong = cubes_answer_wrong(r.body, 2 + i);
		ck_assert_msg(!wrong, "%s: %s", wrong, r.body);
		hresp_free(&r);
		free(q);

		ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		ck_assert_int_eq(r.status, 200);
		hresp_free(&r);

		ck_assert_int_eq(hconn_request(&c, "POST", "/v1/query", JSON_HEADERS, "{", 1), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 400));
		ck_assert(!r.closed);
		hresp_free(&r);

		ck_assert_int_eq(hconn_request(&c, "GET", "/nowhere", NULL, NULL, 0), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
		json_decref(assert_problem(&r, 404));
		hresp_free(&r);
	}
	/* Pipelined: three requests in one write, three answers in order. */
	char *q1 = cubes_query(1), *q5 = cubes_query(5);
	char *batch = NULL;
	ck_assert_int_ge(asprintf(&batch,
	                          "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                          "Content-Length: %zu\r\n\r\n%s"
	                          "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
	                          "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                          "Content-Length: %zu\r\n\r\n%s",
	                          strlen(q1), q1, strlen(q5), q5), 0);
	ck_assert_int_eq(hconn_send(&c, batch, strlen(batch)), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(cubes_answer_wrong(r.body, 3));
	hresp_free(&r);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "{\"status\":\"ready\"}");
	hresp_free(&r);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(cubes_answer_wrong(r.body, 7));
	hresp_free(&r);
	free(batch);
	free(q1);
	free(q5);
	hconn_close(&c);
}
END_TEST

/* ---- concurrency -------------------------------------------------------- */

#define CLIENTS 32
#define REQUESTS_PER_CLIENT 20

typedef struct client_job {
	int id;
	int port;
	int ok;          /* answers that were right */
	char error[256]; /* the first thing that went wrong */
} client_job;

static void *client_run(void *arg)
{
	client_job *j = arg;
	hconn *c = malloc(sizeof *c);
	if (!c || hconn_open(c, j->port) != 0) {
		snprintf(j->error, sizeof j->error, "client %d: cannot connect", j->id);
		free(c);
		return NULL;
	}
	for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
		/* Every answer differs, so a reply sent to the wrong request
		 * would be caught. */
		double shift = j->id * REQUESTS_PER_CLIENT + i;
		char *q = cubes_query(shift * 0.25);
		hresp r;
		if (!q || hconn_request(c, "POST", "/v1/query", JSON_HEADERS, q, strlen(q)) != 0 ||
		    hconn_read(c, &r, 0) != 0) {
			snprintf(j->error, sizeof j->error, "client %d request %d: no answer", j->id, i);
			free(q);
			break;
		}
		const char *wrong = r.status == 200 ? cubes_answer_wrong(r.body, 2 + shift * 0.25)
		                                    : "status is not 200";
		if (wrong) {
			snprintf(j->error, sizeof j->error, "client %d request %d: %s", j->id, i, wrong);
			hresp_free(&r);
			free(q);
			break;
		}
		j->ok++;
		int closed = r.closed;
		hresp_free(&r);
		free(q);
		if (closed) {
			hconn_close(c);
			if (hconn_open(c, j->port) != 0)
				break;
		}
	}
	hconn_close(c);
	free(c);
	return NULL;
}

START_TEST(test_concurrent_clients)
{
	pthread_t t[CLIENTS];
	client_job jobs[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		jobs[i] = (client_job){.id = i, .port = srv.port};
		ck_assert_int_eq(pthread_create(&t[i], NULL, client_run, &jobs[i]), 0);
	}
	int ok = 0;
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(jobs[i].error[0] == '\0', "%s", jobs[i].error);
		ok += jobs[i].ok;
	}
	ck_assert_int_eq(ok, CLIENTS * REQUESTS_PER_CLIENT);
}
END_TEST

/* ---- drain -------------------------------------------------------------- */

/* A query for two boxes given by `n` vertices each: the 8 corners of
 * [0,1]^3 (or of [3,4]x[0,1]^2) plus n-8 points inside, so the hulls, and
 * the answer, are those of the cubes while decoding takes a while. */
static char *big_cubes_query(size_t n, unsigned seed)
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
			len += (size_t)snprintf(q + len, cap - len, "%s[%.3f,%.3f,%.3f]", i ? "," : "",
			                        p[0], p[1], p[2]);
		}
		len += (size_t)snprintf(q + len, cap - len, shape ? "]}}" : "]},\"b\":{\"vertices\":[");
	}
	return q;
}

typedef struct drain_job {
	int port;
	const char *query;
	size_t len;
	int hold;                 /* keep the last byte until `go` */
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
	int *ready;               /* jobs that are in flight */
	int *go;
	int status;
	char body[4096];
	char error[256];
} drain_job;

static void *drain_client(void *arg)
{
	drain_job *j = arg;
	hconn *c = malloc(sizeof *c);
	hresp r;
	size_t first = j->hold ? j->len - 1 : j->len;
	if (!c || hconn_open(c, j->port) != 0) {
		snprintf(j->error, sizeof j->error, "cannot connect");
		goto signal_ready;
	}
	/* Expect: 100-continue makes "the server has begun this request"
	 * observable: the 100 comes once the handler has seen the headers. */
	if (hconn_sendf(c, "POST /v1/query HTTP/1.1\r\nHost: x\r\n" JSON_HEADERS
	                   "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n", j->len) != 0 ||
	    hconn_read(c, &r, 0) != 0) {
		snprintf(j->error, sizeof j->error, "no 100 Continue");
		goto signal_ready;
	}
	hresp_free(&r);
	if (r.status != 100) {
		snprintf(j->error, sizeof j->error, "status %d instead of 100", r.status);
		goto signal_ready;
	}
	if (hconn_send(c, j->query, first) != 0) {
		snprintf(j->error, sizeof j->error, "cannot send the body");
		goto signal_ready;
	}
signal_ready:
	pthread_mutex_lock(j->mu);
	(*j->ready)++;
	pthread_cond_broadcast(j->cv);
	while (!*j->go)
		pthread_cond_wait(j->cv, j->mu);
	pthread_mutex_unlock(j->mu);
	if (!j->error[0]) {
		if (first < j->len && hconn_send(c, j->query + first, j->len - first) != 0)
			snprintf(j->error, sizeof j->error, "cannot send the last byte");
		else if (hconn_read(c, &r, 0) != 0)
			snprintf(j->error, sizeof j->error, "no answer");
		else {
			j->status = r.status;
			snprintf(j->body, sizeof j->body, "%s", r.body);
			hresp_free(&r);
		}
	}
	if (c)
		hconn_close(c);
	free(c);
	return NULL;
}

#define DRAIN_HELD 3    /* requests that cannot finish before SIGTERM */
#define DRAIN_RUNNING 3 /* requests sent whole, running when it comes */
#define DRAIN_VERTICES 200000

START_TEST(test_drain_on_sigterm)
{
	enum { N = DRAIN_HELD + DRAIN_RUNNING };
	char *q = big_cubes_query(DRAIN_VERTICES, 1);
	ck_assert_ptr_nonnull(q);
	size_t qlen = strlen(q);
	ck_assert_uint_lt(qlen, MAX_BODY);

	/* A keep-alive connection that asks /readyz before and after. */
	hconn probe;
	hresp r;
	ck_assert_int_eq(hconn_open(&probe, srv.port), 0);
	ck_assert_int_eq(hconn_request(&probe, "GET", "/readyz", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&probe, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(!r.closed);
	hresp_free(&r);

	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	int ready = 0, go = 0;
	pthread_t t[N];
	drain_job jobs[N];
	for (int i = 0; i < N; i++) {
		jobs[i] = (drain_job){.port = srv.port, .query = q, .len = qlen,
		                      .hold = i < DRAIN_HELD, .mu = &mu, .cv = &cv,
		                      .ready = &ready, .go = &go};
		ck_assert_int_eq(pthread_create(&t[i], NULL, drain_client, &jobs[i]), 0);
	}
	/* Every request has been taken up by the server (100 Continue seen)
	 * and sent; the held ones miss their last byte. */
	pthread_mutex_lock(&mu);
	while (ready < N)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	kill(srv.pid, SIGTERM);
	json_t *line = log_wait(&srv, "\"msg\":\"draining\"", 10);
	ck_assert_msg(line != NULL, "no \"draining\" log line after SIGTERM");
	/* At least the held requests were in flight. */
	ck_assert_int_ge(json_integer_value(json_object_get(line, "requests")), DRAIN_HELD);
	json_decref(line);

	/* The listener is closed ... */
	hconn late;
	ck_assert_int_eq(hconn_open(&late, srv.port), -ECONNREFUSED);
	/* ... and an open connection hears that the server is draining. */
	ck_assert_int_eq(hconn_request(&probe, "GET", "/readyz", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&probe, &r, 0), 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert_str_eq(r.body, "{\"status\":\"draining\"}");
	ck_assert(r.closed);
	hresp_free(&r);
	hconn_close(&probe);

	/* Let the held requests finish: all of them are answered in full. */
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(jobs[i].error[0] == '\0', "request %d: %s", i, jobs[i].error);
		ck_assert_msg(jobs[i].status == 200, "request %d: status %d: %s", i, jobs[i].status,
		              jobs[i].body);
		const char *wrong = cubes_answer_wrong(jobs[i].body, 2);
		ck_assert_msg(!wrong, "request %d: %s: %s", i, wrong, jobs[i].body);
	}
	free(q);

	assert_clean_exit(server_wait_exit(20));
	line = log_wait(&srv, "\"msg\":\"stopped\"", 0);
	ck_assert_ptr_nonnull(line);
	json_decref(line);
}
END_TEST

START_TEST(test_drain_idle)
{
	/* No request in flight: SIGTERM ends the process at once, and an idle
	 * keep-alive connection does not hold it beyond the grace period. */
	hconn c;
	hresp r;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "GET", "/livez", NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(15));
	/* The idle connection was closed by the server. */
	char b;
	ck_assert_int_le(recv(c.fd, &b, 1, 0), 0);
	hconn_close(&c);
}
END_TEST

/* ---- flags -------------------------------------------------------------- */

/* Run clashd with args and env, return its exit status; stderr captured. */
static int run_clashd(const char *const *args, const char *env, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/clashd", check_build_dir());
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(fds[1], STDERR_FILENO);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		unsetenv("CLASHD_LISTEN");
		unsetenv("CLASHD_THREADS");
		if (env)
			putenv((char *)env);
		const char *argv[8] = {"clashd"};
		for (int i = 0; args[i] && i < 6; i++)
			argv[i + 1] = args[i];
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < errlen && (k = read(fds[0], err + n, errlen - 1 - n)) > 0)
		n += (size_t)k;
	err[n] = '\0';
	close(fds[0]);
	int status;
	/* Bad values exit at once; the tests here never start a server. */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_bad_flags)
{
	struct {
		const char *args[4];
		const char *env;
		const char *mention;
	} cases[] = {
		{{"--threads", "0"}, NULL, "--threads"},
		{{"--threads", "2x"}, NULL, "--threads"},
		{{"--threads", "-1"}, NULL, "--threads"},
		{{"--threads", "100000"}, NULL, "--threads"},
		{{"--threads"}, NULL, "--threads"},
		{{"--listen", "127.0.0.1"}, NULL, "--listen"},
		{{"--listen", "127.0.0.1:65536"}, NULL, "--listen"},
		{{"--listen", "127.0.0.1:http"}, NULL, "--listen"},
		{{"--listen", "::1:80"}, NULL, "--listen"},
		{{"--listen", "[::1:80"}, NULL, "--listen"},
		{{"--bogus"}, NULL, "--bogus"},
		{{"extra"}, NULL, "extra"},
		{{NULL}, "CLASHD_THREADS=many", "CLASHD_THREADS"},
		{{NULL}, "CLASHD_LISTEN=nowhere", "CLASHD_LISTEN"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[1024];
		int rc = run_clashd(cases[i].args, cases[i].env, err, sizeof err);
		ck_assert_msg(rc == 2, "case %zu exited %d (%s)", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].mention), "case %zu: stderr \"%s\" does not name %s",
		              i, err, cases[i].mention);
	}
	/* --help goes to stdout and exits 0. */
	const char *help[] = {"--help", NULL};
	char err[1024];
	ck_assert_int_eq(run_clashd(help, NULL, err, sizeof err), 0);
}
END_TEST

/* Start clashd with env/args of our own and read its "listening" line. */
static json_t *listening_line(const char *const *args, const char *env)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/clashd", check_build_dir());
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		unsetenv("CLASHD_LISTEN");
		unsetenv("CLASHD_THREADS");
		if (env)
			putenv((char *)env);
		const char *argv[8] = {"clashd"};
		for (int i = 0; args[i] && i < 6; i++)
			argv[i + 1] = args[i];
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	FILE *f = fdopen(fds[0], "r");
	char line[4096];
	json_t *j = NULL;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "\"msg\":\"listening\"")) {
			j = json_loads(line, 0, NULL);
			break;
		}
	kill(pid, SIGTERM);
	int status;
	waitpid(pid, &status, 0);
	if (f)
		fclose(f);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clashd did not exit 0");
	return j;
}

START_TEST(test_flag_precedence)
{
	/* Environment when there is no flag ... */
	const char *none[] = {"--listen", "127.0.0.1:0", NULL};
	json_t *j = listening_line(none, "CLASHD_THREADS=3");
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "threads")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "env");
	json_decref(j);
	/* ... the flag over the environment ... */
	const char *flag[] = {"--listen=127.0.0.1:0", "--threads=5", NULL};
	j = listening_line(flag, "CLASHD_THREADS=3");
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "threads")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "flag");
	json_decref(j);
	/* ... the environment for the address too, and a default count. */
	const char *noargs[] = {NULL};
	j = listening_line(noargs, "CLASHD_LISTEN=127.0.0.1:0");
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(j, "listen_source")), "env");
	ck_assert_str_eq(json_string_value(json_object_get(j, "threads_source")), "default");
	ck_assert_int_ge(json_integer_value(json_object_get(j, "threads")), 1);
	json_decref(j);
}
END_TEST

Suite *server_suite(void)
{
	Suite *s = suite_create("server");

	TCase *tc = tcase_create("http");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_acceptance_query);
	tcase_add_test(tc, test_media_type_parameters);
	tcase_add_test(tc, test_probes);
	tcase_add_test(tc, test_not_found);
	tcase_add_test(tc, test_method_not_allowed);
	tcase_add_test(tc, test_unsupported_media_type);
	tcase_add_test(tc, test_bad_request);
	tcase_add_test(tc, test_hostile_clients);
	tcase_add_test(tc, test_unprocessable);
	tcase_add_test(tc, test_too_large_by_length);
	tcase_add_test(tc, test_too_large_chunked);
	tcase_add_test(tc, test_keep_alive);
	tcase_add_test(tc, test_concurrent_clients);
	suite_add_tcase(s, tc);

	tc = tcase_create("drain");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_drain_on_sigterm);
	tcase_add_test(tc, test_drain_idle);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_bad_flags);
	tcase_add_test(tc, test_flag_precedence);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_SUITE(server_suite)
