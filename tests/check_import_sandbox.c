/*
 * check_import_sandbox.c — suite import_sandbox: mesh files read by clashd's
 * import helper (server/import_sandbox.h), each bound checked through HTTP
 * against a real clashd:
 *  - hostile files (a glTF node graph that expands to 4^12
 *    nodes, a PLY list of 2^29 indices, an OBJ of eight 32 000-corner
 *    polygons) answered 422 well within the deadline, clashd's own peak
 *    RSS small, and the next import answered normally;
 *  - a file that needs more than --import-memory: 422, the server fine;
 *  - a helper that hangs (stopped with SIGSTOP, as a stuck assimp would
 *    be): the request answered 504 at --request-timeout, the helper gone;
 *    and SIGTERM then exits within --drain-timeout;
 *  - a helper that aborts or is killed: a 422 for that upload alone.
 * Under the sanitizers the helper's address-space limit is off (ASan's
 * shadow memory), so the memory case only checks that the server goes on.
 */
#include <dirent.h>
#include <stdarg.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "textbuf.h"

static char *text_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text_of(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	va_end(ap);
	return s;
}

/* A hostile glTF: 13 nodes, each listing the next four times. */
static char *dag_gltf(size_t *len)
{
	textbuf t = {0};
	textbuf_str(&t, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
	                "\"nodes\":[");
	for (int i = 0; i < 12; i++) {
		char node[64];
		snprintf(node, sizeof node, "{\"children\":[%d,%d,%d,%d]},", i + 1, i + 1, i + 1,
		         i + 1);
		textbuf_str(&t, node);
	}
	textbuf_str(
		&t,
		"{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
		"\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}],\"bufferViews\":[{"
		"\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36,\"uri\":"
		"\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}");
	*len = t.len;
	return t.s;
}

/* A hostile OBJ: eight polygons of 32 000 corners. */
static char *polygons_obj(size_t *len)
{
	textbuf t = {0};
	const int n = 32000;
	char line[96];
	for (int p = 0; p < 8; p++)
		for (int i = 0; i < n; i++) {
			snprintf(line, sizeof line, "v %.6f %.6f %d\n", cos(2 * M_PI * i / n),
			         sin(2 * M_PI * i / n), p);
			textbuf_str(&t, line);
		}
	for (int p = 0; p < 8; p++) {
		textbuf_str(&t, "f");
		for (int i = 0; i < n; i++) {
			snprintf(line, sizeof line, " %d", p * n + i + 1);
			textbuf_str(&t, line);
		}
		textbuf_str(&t, "\n");
	}
	*len = t.len;
	return t.s;
}

static void post_file(const char *type, const char *data, size_t len, hresp *r)
{
	char headers[128];
	snprintf(headers, sizeof headers, "Content-Type: %s\r\n", type);
	http_do("POST", "/v1/shapes", headers, data, len, r);
}

/* A problem of `status` whose detail holds `says`, within `seconds`. */
static void assert_answer(const char *type, const char *data, size_t len, int status,
                          const char *says, double seconds)
{
	double t0 = now_s();
	hresp r;
	post_file(type, data, len, &r);
	double took = now_s() - t0;
	json_t *p = assert_problem(&r, status);
	const char *detail = json_string_value(json_object_get(p, "detail"));
	ck_assert_msg(detail && strstr(detail, says), "%s: \"%s\" lacks \"%s\"", type, detail,
	              says);
	ck_assert_msg(took < seconds, "%s: answered in %.2f s, over %.2f s", type, took, seconds);
	printf("import_sandbox: %s, %zu bytes: %d in %.3f s\n", type, len, status, took);
	json_decref(p);
	hresp_free(&r);
}

/* A small file imports (201 or 200): the helper works. */
static void assert_imports(void)
{
	size_t len;
	char *stl = random_stl(1, &len);
	hresp r;
	post_file("model/stl", stl, len, &r);
	ck_assert_msg(r.status == 201 || r.status == 200, "import: %d %s", r.status, r.body);
	hresp_free(&r);
	free(stl);
}

START_TEST(hostile_files)
{
	server_start();
	size_t len;
	char *gltf = dag_gltf(&len);
	assert_answer("model/gltf+json", gltf, len, 422, "listed as a child more than once", 11);
	free(gltf);
	char *ply = text_of("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
	                    "property float y\nproperty float z\nelement face 1\n"
	                    "property list uchar int vertex_indices\nend_header\n"
	                    "0 0 0\n1 0 0\n0 1 0\n536870912 0 1 2\n");
	assert_answer("application/x-ply", ply, strlen(ply), 422, "a list longer than the rest",
	              11);
	free(ply);
	char *obj = polygons_obj(&len);
	assert_answer("model/obj", obj, len, 422, "polygons are too large", 11);
	free(obj);
	assert_imports();
	long kib = process_peak_rss_kib(srv.pid);
	printf("import_sandbox: clashd peak RSS %ld KiB\n", kib);
	ck_assert_msg(kib > 0 && kib < 256 * 1024, "clashd peak RSS %ld KiB", kib);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

/* 16.7 MB: 335 000 triangles, a million vertices before the join. */
#define BIG_TRIANGLES 335000

START_TEST(memory_limit)
{
	server_start_with((const char *const[]){"--import-memory", "64M", "--max-vertices",
	                                        "2000000", NULL},
	                  NULL);
	size_t len;
	char *stl = random_stl(BIG_TRIANGLES, &len);
	if (!clashd_sanitized())
		assert_answer("model/stl", stl, len, 422,
		              "ran out of memory (the import's limit is "
		              "--import-memory 67108864 bytes)",
		              11);
	free(stl);
	assert_imports();
	assert_still_serving();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

/* Whether process `pid` runs as the helper (past its exec: before it,
 * posix_spawn's child is a copy of clashd, which its parent waits for). */
static int is_helper(const char *pid)
{
	char path[300], cmd[256] = {0};
	snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
	if (f)
		fclose(f);
	size_t first = strnlen(cmd, n);
	return first + 1 < n && strcmp(cmd + first + 1, "--import-helper") == 0;
}

/* The pid of clashd's import helper, waiting up to `timeout` s; -1. */
static pid_t helper_pid(double timeout)
{
	double deadline = now_s() + timeout;
	do {
		DIR *d = opendir("/proc");
		struct dirent *e;
		pid_t found = -1;
		while (d && found < 0 && (e = readdir(d))) {
			char path[300], buf[512];
			snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
			FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r")
			                                                     : NULL;
			if (!f)
				continue;
			size_t n = fread(buf, 1, sizeof buf - 1, f);
			fclose(f);
			buf[n] = '\0';
			const char *close_paren = strrchr(buf, ')');
			int ppid = 0;
			if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 &&
			    ppid == srv.pid && is_helper(e->d_name))
				found = (pid_t)atoi(e->d_name);
		}
		if (d)
			closedir(d);
		if (found > 0)
			return found;
		usleep(500);
	} while (now_s() < deadline);
	return -1;
}

static int alive(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	return access(path, F_OK) == 0;
}

typedef struct upload {
	char *data;
	size_t len;
	int port;
	hresp r;
	int rc;
	double took;
} upload;

static void *upload_run(void *arg)
{
	upload *u = arg;
	double t0 = now_s();
	hconn c;
	u->rc = hconn_open(&c, u->port);
	if (u->rc != 0)
		return NULL;
	u->rc = hconn_request(&c, "POST", "/v1/shapes", "Content-Type: model/stl\r\n", u->data,
	                      u->len);
	if (u->rc == 0)
		u->rc = hconn_read(&c, &u->r, 0);
	hconn_close(&c);
	u->took = now_s() - t0;
	return NULL;
}

/* An upload started in a thread, its helper found and stopped (SIGSTOP):
 * a reader stuck for good.  Returns the helper's pid. */
static pid_t stuck_upload(upload *u, pthread_t *t)
{
	u->data = random_stl(BIG_TRIANGLES, &u->len);
	u->port = srv.port;
	ck_assert_int_eq(pthread_create(t, NULL, upload_run, u), 0);
	pid_t h = helper_pid(30);
	ck_assert_msg(h > 0, "no import helper seen");
	ck_assert_int_eq(kill(h, SIGSTOP), 0);
	return h;
}

START_TEST(stuck_helper_deadline)
{
	server_start_with((const char *const[]){"--request-timeout", "1s", "--max-vertices",
	                                        "2000000", NULL},
	                  NULL);
	upload u = {0};
	pthread_t t;
	pid_t h = stuck_upload(&u, &t);
	pthread_join(t, NULL);
	ck_assert_int_eq(u.rc, 0);
	json_t *p = assert_problem(&u.r, 504);
	json_decref(p);
	printf("import_sandbox: stuck helper answered 504 in %.3f s (deadline 1 s)\n", u.took);
	ck_assert_msg(u.took < 2.0, "504 after %.2f s", u.took);
	double t0 = now_s();
	while (alive(h) && now_s() - t0 < 5)
		usleep(1000);
	ck_assert_msg(!alive(h), "the helper outlived its request");
	hresp_free(&u.r);
	free(u.data);
	assert_imports();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

START_TEST(stuck_helper_drain)
{
	server_start_with((const char *const[]){"--request-timeout", "60s", "--drain-timeout",
	                                        "500ms", "--max-vertices", "2000000", NULL},
	                  NULL);
	upload u = {0};
	pthread_t t;
	pid_t h = stuck_upload(&u, &t);
	double t0 = now_s();
	kill(srv.pid, SIGTERM);
	int status = server_wait_exit(10);
	double took = now_s() - t0;
	printf("import_sandbox: SIGTERM with a stuck helper: exit in %.3f s (drain 0.5 s)\n", took);
	ck_assert_msg(took < 2.5, "exit %.2f s after SIGTERM", took);
	assert_clean_exit(status);
	pthread_join(t, NULL);
	ck_assert_msg(u.rc != 0 || u.r.status == 503, "the upload got %d", u.r.status);
	if (u.rc == 0)
		hresp_free(&u.r);
	free(u.data);
	t0 = now_s();
	while (alive(h) && now_s() - t0 < 5)
		usleep(1000);
	ck_assert_msg(!alive(h), "the helper outlived clashd");
}
END_TEST

/* A helper that aborts (SIGABRT, as a failed assertion in libassimp did:
 * tests/fuzz/findings/import/ply-short-face-abort.bin) or is killed
 * (SIGKILL, as the kernel's OOM killer would): a 422 for that upload, the
 * server fine.  Not SIGSEGV: AddressSanitizer's handler takes that one
 * and writes a report. */
START_TEST(helper_dies)
{
	server_start_with((const char *const[]){"--max-vertices", "2000000", NULL}, NULL);
	const int sig[] = {SIGABRT, SIGKILL};
	const char *says[] = {"failed on this file (signal 6)", "was killed"};
	for (int i = 0; i < 2; i++) {
		upload u = {0};
		pthread_t t;
		pid_t h = stuck_upload(&u, &t);
		ck_assert_int_eq(kill(h, sig[i]), 0);
		kill(h, SIGCONT);
		pthread_join(t, NULL);
		ck_assert_int_eq(u.rc, 0);
		json_t *p = assert_problem(&u.r, 422);
		const char *detail = json_string_value(json_object_get(p, "detail"));
		ck_assert_msg(detail && strstr(detail, says[i]), "\"%s\" lacks \"%s\"", detail,
		              says[i]);
		json_decref(p);
		hresp_free(&u.r);
		free(u.data);
		assert_imports();
	}
	assert_still_serving();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static Suite *import_sandbox_suite(void)
{
	Suite *s = suite_create("import_sandbox");
	ck_case(s, "http", 120,
	        CK_TESTS(hostile_files, memory_limit, stuck_helper_deadline, stuck_helper_drain,
	                 helper_dies));
	return s;
}

CHECK_SUITE(import_sandbox_suite)
