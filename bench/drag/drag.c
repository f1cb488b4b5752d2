/*
 * drag.c — the drag workload of `make bench-http`: a web CAD
 * tool drags a small box past a large part.
 *
 *   drag PORT [STEPS] [VERTICES] [UPLOADS]
 *   drag --mesh PORT [STEPS]     (the part a triangle mesh)
 *
 * The part: VERTICES points (default 50 000) on the unit sphere (a
 * Fibonacci lattice, so every point is a hull vertex), written with 17
 * significant digits.  The box: 8 vertices, 0.2 wide.  Over STEPS steps
 * (default 1000) the box moves along a line from x = -1.6 to x = 1.6
 * (y = 0.3, z = 0.1): it approaches the part, passes through it and
 * leaves.  Each step is one POST /v1/query on one keep-alive connection,
 * timed from the first byte sent to the last byte of the answer read:
 *
 *   inline   the whole part in every request ({"a": {"vertices": ...}});
 *   by ref   the part stored once (POST /v1/shapes), every request naming
 *            it ({"a": {"ref": "sha256:..."}}).
 *
 * The two answers of each step are compared byte for byte (a mismatch is
 * counted and reported, not fatal: prepared shapes may pick another of
 * equally extreme vertices).  Storing the part is timed too: the first
 * upload (201), then UPLOADS times (default 9) DELETE and upload again
 * (201, the median of those), and one upload of a part already stored
 * (200).  Output: a Markdown table on stdout.  With --mesh the part is
 * three.js's TorusKnotGeometry(1, 0.3, 800, 64), seams welded (102 400
 * triangles, a solid), stored once as {"mesh": ...}; the box crosses it
 * from x = -3.2 to 3.2 (y = 0.1, z = 0.05), by ref every step and inline
 * for the first few, whose answers must be the same.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../mesh/meshes.h"

typedef struct conn {
	int fd;
	char *buf; /* received, not yet consumed */
	size_t len, cap;
} conn;

typedef struct reply {
	int status;
	char *body; /* malloc'd, NUL-terminated */
	size_t length;
} reply;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "drag: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void conn_open(conn *c, int port)
{
	memset(c, 0, sizeof *c);
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		die("socket");
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
		die("connect");
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void send_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		size_t left = (size_t)w;
		while (n > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
}

/* More bytes into c->buf; dies at the close. */
static void fill(conn *c)
{
	if (c->cap - c->len < 65536) {
		c->cap = c->cap ? 2 * c->cap : 1 << 17;
		c->buf = realloc(c->buf, c->cap);
		if (!c->buf)
			die("memory");
	}
	ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (r < 0 && errno == EINTR)
		return;
	if (r <= 0)
		die("read (the server closed the connection)");
	c->len += (size_t)r;
}

/* One request and its answer (Content-Length framed, as clashd sends). */
static void request(conn *c, const char *method, const char *path, const char *body, size_t len,
                    reply *out)
{
	char head[512];
	int n = snprintf(head, sizeof head,
	                 "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	                 "Content-Length: %zu\r\n\r\n",
	                 method, path, len);
	struct iovec iov[2] = {{head, (size_t)n}, {(void *)body, len}};
	send_all(c->fd, iov, len ? 2 : 1);
	char *end;
	for (;;) {
		if (c->len && (end = memmem(c->buf, c->len, "\r\n\r\n", 4)))
			break;
		fill(c);
	}
	size_t hlen = (size_t)(end - c->buf) + 4;
	out->status = atoi(c->buf + 9);
	size_t blen = 0;
	for (char *l = c->buf; l < end; l = strstr(l, "\r\n") + 2)
		if (strncasecmp(l, "Content-Length:", 15) == 0)
			blen = strtoul(l + 15, NULL, 10);
	if (strcmp(method, "HEAD") == 0)
		blen = 0;
	while (c->len < hlen + blen)
		fill(c);
	out->body = malloc(blen + 1);
	if (!out->body)
		die("memory");
	memcpy(out->body, c->buf + hlen, blen);
	out->body[blen] = '\0';
	out->length = blen;
	memmove(c->buf, c->buf + hlen + blen, c->len - hlen - blen);
	c->len -= hlen + blen;
}

/* ---- the bodies ---------------------------------------------------------- */

typedef struct text {
	char *s;
	size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap = t->cap ? 2 * t->cap : 1 << 16;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			die("memory");
	}
}

/* {"vertices": [...]} of n points on the unit sphere. */
static void sphere(text *t, size_t n)
{
	const double golden = M_PI * (3.0 - sqrt(5.0));
	put(t, "{\"vertices\": [");
	for (size_t i = 0; i < n; i++) {
		double y = 1.0 - 2.0 * ((double)i + 0.5) / (double)n;
		double r = sqrt(1.0 - y * y), th = golden * (double)i;
		put(t, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", r * cos(th), y, r * sin(th));
	}
	put(t, "]}");
}

/* The query of shape a (a JSON object's text) and the box at (x, y, z). */
static void query_at(text *t, const char *a, double x, double y, double z)
{
	t->len = 0;
	put(t,
	    "{\"a\": %s, \"b\": {\"vertices\": [[-0.1, -0.1, -0.1], [0.1, -0.1, -0.1], "
	    "[-0.1, 0.1, -0.1], [0.1, 0.1, -0.1], [-0.1, -0.1, 0.1], [0.1, -0.1, 0.1], "
	    "[-0.1, 0.1, 0.1], [0.1, 0.1, 0.1]], \"pose\": {\"translation\": [%.17g, %.17g, "
	    "%.17g]}}}",
	    a, x, y, z);
}

/* The query of step k of `steps`: the box moved along the path. */
static void query(text *t, const char *a, size_t step, size_t steps)
{
	query_at(t, a, -1.6 + 3.2 * (double)step / (double)(steps > 1 ? steps - 1 : 1), 0.3, 0.1);
}

/* ---- statistics ------------------------------------------------------------ */

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The q-quantile of n sorted values (nearest rank). */
static double quantile(const double *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

typedef struct summary {
	double median, p99, mean, max;
} summary;

static summary summarize(double *ms, size_t n)
{
	summary s = {0};
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ms[i];
	qsort(ms, n, sizeof *ms, by_value);
	s.median = quantile(ms, n, 0.5);
	s.p99 = quantile(ms, n, 0.99);
	s.mean = sum / (double)n;
	s.max = ms[n - 1];
	return s;
}

/* {"mesh": ...} of the welded knot (positions float32, so 9 digits are
 * exact); its triangle count in *nt. */
static void knot(text *t, size_t *nt)
{
	bm_mesh k, w;
	if (bm_torus_knot(&k, 1, 0.3, 800, 64, 2, 3, 1) || bm_weld(&k, 0, &w))
		die("memory");
	put(t, "{\"mesh\": {\"positions\": [");
	for (size_t i = 0; i < 3 * w.nv; i++)
		put(t, "%s%.9g", i ? ", " : "", w.pos[i]);
	put(t, "], \"indices\": [");
	for (size_t i = 0; i < 3 * w.nt; i++)
		put(t, "%s%u", i ? ", " : "", (unsigned)w.idx[i]);
	put(t, "]}}");
	*nt = w.nt;
	bm_free(&k);
	bm_free(&w);
}

static double mesh_x(size_t k, size_t steps)
{
	return -3.2 + 6.4 * (double)k / (double)(steps > 1 ? steps - 1 : 1);
}

/* drag --mesh: the knot stored once, the box over it by ref (and inline
 * for the first steps, the answers compared). */
static int mesh_drag(int port, size_t steps)
{
	text part = {0}, q = {0}, ref = {0};
	size_t nt = 0;
	knot(&part, &nt);
	conn c;
	conn_open(&c, port);
	reply r;
	double t0 = now();
	request(&c, "POST", "/v1/shapes", part.s, part.len, &r);
	double upload_ms = (now() - t0) * 1e3;
	char *id = r.status == 201 || r.status == 200 ? strstr(r.body, "\"sha256:") : NULL;
	if (!id) {
		fprintf(stderr, "drag: POST /v1/shapes answered %d: %.300s\n", r.status, r.body);
		return 1;
	}
	put(&ref, "{\"ref\": \"%.71s\"}", id + 1);
	char summary_text[512];
	snprintf(summary_text, sizeof summary_text, "%s", r.body);
	free(r.body);
	size_t ninline = steps < 20 ? steps : 20, bad = 0, hits = 0, differ = 0;
	double *ref_ms = malloc(steps * sizeof *ref_ms), *in_ms = malloc(ninline * sizeof *in_ms);
	for (size_t k = 0; k < steps; k++) {
		query_at(&q, ref.s, mesh_x(k, steps), 0.1, 0.05);
		t0 = now();
		request(&c, "POST", "/v1/query", q.s, q.len, &r);
		ref_ms[k] = (now() - t0) * 1e3;
		bad += r.status != 200;
		hits += strstr(r.body, "\"intersecting\":true") != NULL;
		if (k * ninline % steps < ninline) { /* every (steps/ninline)-th step: inline too */
			reply ri;
			query_at(&q, part.s, mesh_x(k, steps), 0.1, 0.05);
			t0 = now();
			request(&c, "POST", "/v1/query", q.s, q.len, &ri);
			in_ms[k * ninline / steps] = (now() - t0) * 1e3;
			bad += ri.status != 200;
			if (strcmp(ri.body, r.body) != 0 && differ++ == 0)
				fprintf(stderr, "drag: step %zu, inline: %s\ndrag: by ref: %s\n", k,
				        ri.body, r.body);
			free(ri.body);
		}
		free(r.body);
	}
	query_at(&q, ref.s, 0, 0, 0);
	size_t ref_bytes = q.len;
	summary sr = summarize(ref_ms, steps), si = summarize(in_ms, ninline);
	printf("Drag over a mesh: three.js TorusKnotGeometry(1, 0.3, 800, 64), seams welded "
	       "(%zu triangles, %.1f MB of JSON), stored once; a box moved over %zu steps "
	       "across it, one keep-alive connection; %zu of the steps intersect.\n\n",
	       nt, (double)part.len / 1e6, steps, hits);
	printf("| step | request bytes | median ms | p99 ms | mean ms | max ms |\n");
	printf("|---|---|---|---|---|---|\n");
	printf("| inline (%zu of the steps) | %zu | %.3f | %.3f | %.3f | %.3f |\n", ninline,
	       part.len, si.median, si.p99, si.mean, si.max);
	printf("| by ref (stored once) | %zu | %.3f | %.3f | %.3f | %.3f |\n", ref_bytes, sr.median,
	       sr.p99, sr.mean, sr.max);
	printf("\nAnswers: %zu of %zu inline steps differ from by ref%s.  Storing the mesh "
	       "(POST /v1/shapes, tree built with the decoding): %.1f ms.  Summary: %s\n",
	       differ, ninline, bad ? "; SOME REQUESTS FAILED" : "", upload_ms, summary_text);
	free(ref_ms);
	free(in_ms);
	free(part.s);
	free(q.s);
	free(ref.s);
	free(c.buf);
	close(c.fd);
	return bad || differ ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--mesh") == 0)
		return mesh_drag(atoi(argv[2]), argc > 3 ? strtoul(argv[3], NULL, 10) : 1000);
	if (argc < 2) {
		fprintf(stderr,
		        "usage: drag PORT [STEPS] [VERTICES] [UPLOADS]\n       drag --mesh PORT [STEPS]\n");
		return 2;
	}
	int port = atoi(argv[1]);
	size_t steps = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	size_t nverts = argc > 3 ? strtoul(argv[3], NULL, 10) : 50000;
	size_t uploads = argc > 4 ? strtoul(argv[4], NULL, 10) : 9;
	if (!steps || !nverts || !uploads) {
		fprintf(stderr, "drag: STEPS, VERTICES and UPLOADS must be at least 1\n");
		return 2;
	}

	text part = {0}, q = {0}, ref = {0};
	sphere(&part, nverts);
	conn c;
	conn_open(&c, port);

	/* Store the part: the first upload, then deleted and uploaded again. */
	reply r;
	double t0 = now();
	request(&c, "POST", "/v1/shapes", part.s, part.len, &r);
	double first_ms = (now() - t0) * 1e3;
	if (r.status != 201 && r.status != 200) {
		fprintf(stderr, "drag: POST /v1/shapes answered %d: %s\n", r.status, r.body);
		return 1;
	}
	int first_status = r.status;
	char *id = strstr(r.body, "\"sha256:");
	if (!id) {
		fprintf(stderr, "drag: no id in %s\n", r.body);
		return 1;
	}
	char idtext[80];
	snprintf(idtext, sizeof idtext, "%.71s", id + 1);
	char summary_text[512];
	snprintf(summary_text, sizeof summary_text, "%s", r.body);
	free(r.body);
	char path[128];
	snprintf(path, sizeof path, "/v1/shapes/%s", idtext);
	double *up = malloc(uploads * sizeof *up);
	for (size_t i = 0; i < uploads; i++) {
		request(&c, "DELETE", path, "", 0, &r);
		free(r.body);
		t0 = now();
		request(&c, "POST", "/v1/shapes", part.s, part.len, &r);
		up[i] = (now() - t0) * 1e3;
		if (r.status != 201) {
			fprintf(stderr, "drag: upload after DELETE answered %d: %s\n", r.status,
			        r.body);
			return 1;
		}
		free(r.body);
	}
	t0 = now();
	request(&c, "POST", "/v1/shapes", part.s, part.len, &r);
	double again_ms = (now() - t0) * 1e3;
	if (r.status != 200) {
		fprintf(stderr, "drag: upload of a stored part answered %d\n", r.status);
		return 1;
	}
	free(r.body);
	summary us = summarize(up, uploads);

	/* The drag: inline, then by ref, each step's answers compared. */
	put(&ref, "{\"ref\": \"%s\"}", idtext);
	double *in_ms = malloc(steps * sizeof *in_ms), *ref_ms = malloc(steps * sizeof *ref_ms);
	char **answers = calloc(steps, sizeof *answers);
	size_t bad = 0, hits = 0, differ = 0;
	for (size_t k = 0; k < steps; k++) {
		query(&q, part.s, k, steps);
		t0 = now();
		request(&c, "POST", "/v1/query", q.s, q.len, &r);
		in_ms[k] = (now() - t0) * 1e3;
		bad += r.status != 200;
		answers[k] = r.body;
	}
	for (size_t k = 0; k < steps; k++) {
		query(&q, ref.s, k, steps);
		t0 = now();
		request(&c, "POST", "/v1/query", q.s, q.len, &r);
		ref_ms[k] = (now() - t0) * 1e3;
		bad += r.status != 200;
		hits += strstr(r.body, "\"intersecting\":true") != NULL;
		if (strcmp(r.body, answers[k]) != 0 && differ++ == 0)
			fprintf(stderr, "drag: step %zu, inline: %s\ndrag: step %zu, by ref: %s\n",
			        k, answers[k], k, r.body);
		free(r.body);
		free(answers[k]);
	}
	query(&q, part.s, 0, steps);
	size_t inline_bytes = q.len;
	query(&q, ref.s, 0, steps);
	size_t ref_bytes = q.len;
	summary si = summarize(in_ms, steps), sr = summarize(ref_ms, steps);

	printf("Drag: a %zu-vertex part (points on a sphere, %.1f MB of JSON) and a box moved "
	       "over %zu steps, one keep-alive connection; %zu of the steps intersect.\n\n",
	       nverts, (double)part.len / 1e6, steps, hits);
	printf("| step | request bytes | median ms | p99 ms | mean ms | max ms |\n");
	printf("|---|---|---|---|---|---|\n");
	printf("| inline (the whole part each step) | %zu | %.3f | %.3f | %.3f | %.3f |\n",
	       inline_bytes, si.median, si.p99, si.mean, si.max);
	printf("| by ref (stored once) | %zu | %.3f | %.3f | %.3f | %.3f |\n", ref_bytes, sr.median,
	       sr.p99, sr.mean, sr.max);
	printf("\nBy ref / inline: %.0fx faster at the median, %.0fx at p99.  Answers: %zu of "
	       "%zu by ref differ from inline%s.\n",
	       si.median / sr.median, si.p99 / sr.p99, differ, steps,
	       bad ? "; SOME REQUESTS FAILED" : "");
	printf("\nStoring the part (POST /v1/shapes, %.1f MB): first upload %.1f ms (%d); after "
	       "a DELETE, median of %zu: %.1f ms (min %.1f, max %.1f); already stored (200): "
	       "%.1f ms.  Summary: %s\n",
	       (double)part.len / 1e6, first_ms, first_status, uploads, us.median, up[0], us.max,
	       again_ms, summary_text);
	free(up);
	free(in_ms);
	free(ref_ms);
	free(answers);
	free(part.s);
	free(q.s);
	free(ref.s);
	free(c.buf);
	close(c.fd);
	return bad ? 1 : 0;
}
