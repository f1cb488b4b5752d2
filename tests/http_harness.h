/*
 * http_harness.h — shared by the suites that run clashd (check_http_api.c,
 * check_operations.c and others): the server process, an HTTP/1.1 client,
 * known answers.
 * See http_harness.c.
 */
#ifndef TESTS_HTTP_HARNESS_H
#define TESTS_HTTP_HARNESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "check.h"

#define MAX_BODY ((size_t)16 << 20) /* clashd's default --max-body */

#define JSON_HEADERS "Content-Type: application/json\r\n"

/* ---- the server process ---- */

/* The clashd under test: $CLASH_CLASHD (make test's sanitizer pass sets it
 * to build/clashd-san), else clashd in the build directory. */
const char *clashd_path(void);

/* Whether that clashd is built with sanitizers ($CLASH_CLASHD_SAN=1, set
 * with CLASH_CLASHD by make test): memory bounds do not apply to it. */
int clashd_sanitized(void);

typedef struct server {
	pid_t pid;
	int port;
	int out; /* read end of its stdout */
	pthread_t reader;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *log; /* everything read so far, NUL-terminated */
	size_t log_len;
	int eof;
	int paused; /* server_log_pause: the reader stops reading */
} server;

extern server srv; /* one per test (each test is its own process) */

/* The address-space limit (RLIMIT_AS) of the clashd the next
 * server_start_with() starts, in bytes; 0 (the initial value): none. */
extern size_t server_as_limit;

double now_s(void);

/* Whether this run is `make attack` (CLASH_ATTACK=full): the hostile and
 * slow suites then run full-size attacks and hold each figure to its
 * latency target instead of make test's wide bound. */
int attack_full(void);

/* The bound a timing figure is held to: `target` under make attack, else
 * `wide` (make test shares a loaded machine). */
double attack_bound(double wide, double target);

/* The first complete log line containing `needle`, parsed; waits up to
 * `timeout` seconds.  NULL if none came. */
json_t *log_wait(server *s, const char *needle, double timeout);

/* Start clashd --listen 127.0.0.1:0 --threads 2, then `args` (NULL or
 * NULL-terminated), with the test's CLASHD_* variables removed and `env`
 * ("NAME=value", NULL-terminated) set; wait for "listening".  server_start()
 * is server_start_with(NULL, NULL). */
void server_start(void);
void server_start_with(const char *const *args, const char *const *env);

/* Stop (1) or resume (0) reading the server's stdout, so that a test can
 * leave clashd with a pipe nobody reads (it fills: 64 KiB on Linux).  The
 * reader may still take one chunk it was already waiting for; waiting for
 * the exit resumes it. */
void server_log_pause(int paused);

/* SIGTERM, then wait (bounded) for the exit.  Returns the wait status, or
 * -1 after having had to SIGKILL it. */
int server_stop_within(double timeout);

/* Wait for an exit already under way (after a SIGTERM the test sent). */
int server_wait_exit(double timeout);

void assert_clean_exit(int status);

/* ---- a small HTTP/1.1 client ---- */

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
	int closed; /* the server said Connection: close */
} hresp;

/* Connect to 127.0.0.1:port (20 s send/receive timeouts): 0 or -errno. */
int hconn_open(hconn *c, int port);
void hconn_timeout(hconn *c, int seconds);
void hconn_close(hconn *c);
int hconn_send(hconn *c, const void *p, size_t n);
int hconn_sendf(hconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Read more bytes into the buffer; 0 at EOF, -1 on error. */
ssize_t hconn_fill(hconn *c);
void hresp_free(hresp *r);
/* The value of header `name` (case-insensitive), copied into out; NULL if
 * absent. */
const char *hresp_header(const hresp *r, const char *name, char *out, size_t outlen);
/* Read one response (1xx ones included: the caller asks again). */
int hconn_read(hconn *c, hresp *r, int head_request);
/* Send one request with a Content-Length body (body may be NULL). */
int hconn_request(hconn *c, const char *method, const char *path, const char *headers,
                  const char *body, size_t len);
/* One exchange on a fresh connection; asserts that it went through. */
void http_do(const char *method, const char *path, const char *headers, const char *body,
             size_t len, hresp *r);
/* POST the JSON text `body` to `path` (http_do): the answer's body
 * (malloc'd, "" for none) and its status in *status. */
char *http_post_json(const char *path, const char *body, int *status);

/* ---- queries with known answers ---- */

void box_vertices(char *out, size_t len, const double lo[3], const double hi[3]);
char *box_query(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]);
/* Unit cubes [0,1]^3 and [3,4]x[0,1]^2, b moved `shift` further along x. */
char *cubes_query(double shift);
int close_to(double x, double want);
/* NULL if body is the right Result for the cubes gap apart, else what is
 * wrong (static text). */
const char *cubes_answer_wrong(const char *body, double gap);
/* The problem type of each status (proto/openapi.yaml, Problem.type). */
const char *problem_type(int status);
/* Assert a problem reply: status, media type, type, title, "status". */
json_t *assert_problem(const hresp *r, int status);
/* The server still answers the acceptance query correctly. */
void assert_still_serving(void);
/* The value of an unlabelled series of the server's GET /metrics. */
long long server_metric(const char *name);
/* The cubes with n vertices each (8 corners + interior points): the same
 * answer, slower to decode. */
char *big_cubes_query(size_t n, unsigned seed);
/* The same with a's member name written "vertic\u0065s": the same query,
 * but it takes jansson's parse (proto/shapes/vertex_scan.c reads plain vertex
 * arrays several times faster), for tests that need a slow decode. */
char *slow_cubes_query(size_t n, unsigned seed);
/* A binary STL of n random triangles in the unit cube (84 + 50 n bytes,
 * little-endian as the format is; its length in *len). */
char *random_stl(size_t n, size_t *len);
/* `times` copies of text[0, len) one after another, gzip-compressed
 * (zlib's deflate with a gzip wrapper, level 6), without holding them
 * all: malloc'd, its length in *out_len. */
char *gzip_repeated(const char *text, size_t len, int times, size_t *out_len);

/* ---- processes that do not serve ---- */

/* Run clashd with args and env, return its exit status; stderr captured
 * into err. */
int run_clashd(const char *const *args, const char *const *env, char *err, size_t errlen);
/* Start clashd with args and env, return its "listening" line, stop it. */
json_t *listening_line(const char *const *args, const char *const *env);

/* VmHWM (the peak resident set) of a process, in KiB; -1 if unknown. */
long process_peak_rss_kib(pid_t pid);

/* A problem body answered for one input line, as `clash query` writes it:
 * "line" set to `line`, and "position" (malformed JSON) moved by `offset`,
 * the bytes before the line.  malloc'd. */
char *problem_placed_in_input(const char *body, size_t len, long long line, long long offset);

/* A MeshGeometry's JSON: {"positions": [...], "indices": [...]} with
 * every double exactly (%.17g), then `extra` (e.g. ",\"weld\":0", or "")
 * before the closing brace.  malloc'd. */
char *mesh_geometry_json(const double *pos, size_t nv, const uint32_t *idx, size_t nt,
                         const char *extra);

#endif
