/*
 * check_cli.c — suite "cli": the clash tool run as a program (build/clash,
 * found with check_build_dir()).
 *
 * `clash query` must answer each non-blank line, in order, with exactly what
 * proto_query_reply() answers for that line (so the CLI and the server speak
 * one contract), keep going after bad lines, and use its documented exit
 * statuses.  Each test forks the binary with files or pipes for its standard
 * streams and reaps it before returning.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proto.h"

typedef struct run {
	int status; /* exit status, or -1 if it did not exit normally */
	char *out, *err;
	size_t out_len;
} run;

static char *clash_path(void)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/clash", check_build_dir());
	ck_assert_msg(access(path, X_OK) == 0, "%s is not built", path);
	return path;
}

static char *slurp(FILE *f, size_t *len)
{
	fflush(f);
	rewind(f);
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);
	size_t got;
	while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2) {
			cap *= 2;
			s = realloc(s, cap);
		}
	}
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

/* Run clash with the given arguments (NULL-terminated), standard input from
 * `input` (a path; NULL for /dev/null). */
static run run_clash(const char *const *args, const char *input)
{
	const char *argv[16] = {clash_path()};
	int argc = 1;
	for (; args[argc - 1]; argc++) {
		ck_assert(argc < 15);
		argv[argc] = args[argc - 1];
	}
	argv[argc] = NULL;
	FILE *out = tmpfile(), *err = tmpfile();
	ck_assert(out && err);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int in = open(input ? input : "/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fileno(out), 1) < 0 || dup2(fileno(err), 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int ws;
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	run r;
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	r.out = slurp(out, &r.out_len);
	r.err = slurp(err, NULL);
	fclose(out);
	fclose(err);
	return r;
}

static void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

/* A temporary file holding `text` (len bytes); the caller unlinks it. */
static char *temp_input(const char *text, size_t len)
{
	char *path = strdup("/tmp/check_cli_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

#define CUBE "[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]"
#define CUBES(dx) \
	"{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE \
	",\"pose\":{\"translation\":[" dx ",0,0]}}}"

/* Good lines, bad lines, blank lines, CRLF, no final newline, a NUL byte. */
static const char mixed[] =
	CUBES("3") "\n"
	"\n"
	"{\"a\": [1,2\n"
	"  \t \r\n"
	"{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}\n"
	CUBES("5") "\r\n"
	"{\"a\":[1,\0 2]}\n"
	CUBES("1.5");

/* The statuses of the lines of `mixed` that get an answer, in order. */
static const int answered[] = {200, 400, 422, 200, 400, 200};

/* Check the output of `clash query` on `mixed`: one line per answered input
 * line, each byte-identical to proto_query_reply's answer. */
static void check_mixed_output(const run *r)
{
	ck_assert_msg(r->status == 0, "exit %d: %s", r->status, r->err);
	ck_assert_str_eq(r->err, "");
	/* Split the input into lines as the CLI should. */
	const char *p = mixed, *end = mixed + sizeof mixed - 1;
	const char *out = r->out;
	size_t k = 0;
	proto_init();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		if (n && p[n - 1] == '\r')
			n--;
		int blank = 1;
		for (size_t i = 0; i < n; i++)
			blank &= p[i] == ' ' || p[i] == '\t';
		if (!blank) {
			ck_assert_uint_lt(k, sizeof answered / sizeof answered[0]);
			proto_reply want;
			ck_assert_int_eq(proto_query_reply(p, n, &want), 0);
			ck_assert_int_eq(want.status, answered[k]);
			const char *eol = strchr(out, '\n');
			ck_assert_msg(eol != NULL, "answer %zu missing: %s", k, r->out);
			ck_assert_uint_eq((size_t)(eol - out), want.length);
			ck_assert(memcmp(out, want.body, want.length) == 0);
			/* Problems carry their status. */
			json_t *j = json_loadb(out, want.length, 0, NULL);
			ck_assert_ptr_nonnull(j);
			if (want.status != 200)
				ck_assert_int_eq(json_integer_value(json_object_get(j, "status")),
				                 want.status);
			else
				ck_assert(json_is_boolean(json_object_get(j, "intersecting")));
			json_decref(j);
			proto_reply_free(&want);
			out = eol + 1;
			k++;
		}
		p = nl ? nl + 1 : end;
	}
	ck_assert_uint_eq(k, sizeof answered / sizeof answered[0]);
	ck_assert_str_eq(out, ""); /* nothing more */
}

START_TEST(query_file_and_stdin)
{
	char *path = temp_input(mixed, sizeof mixed - 1);
	const char *with_file[] = {"query", path, NULL};
	run r = run_clash(with_file, NULL);
	check_mixed_output(&r);
	/* The distances of the good lines, by closed form: gaps 2, 4, 0.5. */
	ck_assert_ptr_nonnull(strstr(r.out, "\"distance\":2.0,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"distance\":4.0,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"distance\":0.5,"));
	char *first = strdup(r.out);
	run_free(&r);

	const char *from_stdin[] = {"query", NULL};
	r = run_clash(from_stdin, path);
	ck_assert_str_eq(r.out, first);
	ck_assert_int_eq(r.status, 0);
	run_free(&r);
	const char *dash[] = {"query", "-", NULL};
	r = run_clash(dash, path);
	ck_assert_str_eq(r.out, first);
	ck_assert_int_eq(r.status, 0);
	run_free(&r);
	const char *dashdash[] = {"query", "--", path, NULL};
	r = run_clash(dashdash, NULL);
	ck_assert_str_eq(r.out, first);
	run_free(&r);

	free(first);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(query_empty_and_long)
{
	/* No lines: no answers, success. */
	const char *args[] = {"query", NULL};
	run r = run_clash(args, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	run_free(&r);

	/* One line of about 2 MB: a segment [0,1] on x given by 80 000 points,
	 * and a point at x = 3. */
	size_t n = 80000, cap = n * 40 + 200, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "{\"a\":{\"vertices\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s[%.17g,0,0]", i ? "," : "",
		                        (double)i / (double)(n - 1));
	len += (size_t)snprintf(text + len, cap - len,
	                        "]},\"b\":{\"vertices\":[[3,0,0]]}}\n");
	char *path = temp_input(text, len);
	const char *with_file[] = {"query", path, NULL};
	r = run_clash(with_file, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"distance\":2.0,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"near_points\":{\"a\":[1.0,0.0,0.0],\"b\":[3.0,"));
	ck_assert_ptr_eq(strchr(r.out, '\n'), r.out + strlen(r.out) - 1);
	run_free(&r);
	unlink(path);
	free(path);
	free(text);
}
END_TEST

START_TEST(query_answers_each_line_at_once)
{
	/* Through pipes: each answer arrives before the next line is sent, so a
	 * program can drive clash a query at a time. */
	int to[2], from[2];
	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	const char *path = clash_path();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(path, path, "query", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	signal(SIGPIPE, SIG_IGN);
	const char *lines[] = {CUBES("3") "\n", "{\"a\":1e400}\n", CUBES("2") "\n"};
	const char *expect[] = {"\"distance\":2.0,", "\"pointer\":\"/a\"", "\"distance\":1.0,"};
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(write(to[1], lines[i], strlen(lines[i])), (ssize_t)strlen(lines[i]));
		char buf[4096];
		size_t n = 0;
		while (n == 0 || buf[n - 1] != '\n') {
			ssize_t got = read(from[0], buf + n, sizeof buf - 1 - n);
			ck_assert_int_gt(got, 0); /* a hang here is the test's timeout */
			n += (size_t)got;
		}
		buf[n] = '\0';
		ck_assert_msg(strstr(buf, expect[i]) != NULL, "answer %d: %s", i, buf);
	}
	close(to[1]);
	char rest[16];
	ck_assert_int_eq(read(from[0], rest, sizeof rest), 0);
	close(from[0]);
	int ws;
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}
END_TEST

START_TEST(help_and_usage)
{
	const char *help[] = {"--help", NULL};
	run r = run_clash(help, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "query"));
	ck_assert_ptr_nonnull(strstr(r.out, "Exit status"));
	ck_assert_str_eq(r.err, "");
	run_free(&r);

	const char *qhelp[] = {"query", "--help", NULL};
	r = run_clash(qhelp, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "clash query [FILE]"));
	ck_assert_ptr_nonnull(strstr(r.out, "Exit status: 0 when every line was answered"));
	run_free(&r);

	const char *none[] = {NULL};
	r = run_clash(none, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "usage:"));
	run_free(&r);

	const char *unknown[] = {"frobnicate", NULL};
	r = run_clash(unknown, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "unknown command 'frobnicate'"));
	ck_assert_ptr_nonnull(strstr(r.err, "usage:"));
	run_free(&r);

	const char *option[] = {"query", "--bogus", NULL};
	r = run_clash(option, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--bogus"));
	run_free(&r);

	const char *two[] = {"query", "x", "y", NULL};
	r = run_clash(two, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	run_free(&r);
}
END_TEST

START_TEST(unreadable_input)
{
	const char *missing[] = {"query", "/nonexistent/queries.jsonl", NULL};
	run r = run_clash(missing, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent/queries.jsonl"));
	run_free(&r);

	/* A directory opens but cannot be read: a failure part way (1). */
	const char *dir[] = {"query", "/tmp", NULL};
	r = run_clash(dir, NULL);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot read /tmp"));
	run_free(&r);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("query");
	tcase_add_test(tc, query_file_and_stdin);
	tcase_add_test(tc, query_empty_and_long);
	tcase_add_test(tc, query_answers_each_line_at_once);
	tcase_add_test(tc, help_and_usage);
	tcase_add_test(tc, unreadable_input);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_SUITE(cli_suite)
