/*
 * check_cli.c — suite "cli": the clash tool run as a program (build/clash,
 * found with check_build_dir()).
 *
 * `clash query` must answer each non-blank line, in order, with exactly what
 * proto_query_reply() answers for that line (so the CLI and the server speak
 * one contract), a problem placed in the input ("line", "position"), keep
 * going after bad lines, answer an input that is not JSON Lines with one
 * problem, and use its documented exit statuses; `clash scene` sums its
 * answer up on stderr; every command's --help example runs as written.
 * Each test forks the binary with files or pipes for its standard streams
 * and reaps it before returning.
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
#include "http_harness.h"
#include "proto.h"
#include "spawn.h"

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
	int in = input ? open(input, O_RDONLY) : SPAWN_NULL;
	ck_assert_msg(in != -1, "cannot open %s", input);
	spawn_opts o = {.argv = argv, .in = in};
	run r;
	int ws = spawn_capture(&o, &r.out, &r.out_len, &r.err);
	if (in > 0)
		close(in);
	ck_assert(ws != -1 && r.out && r.err);
	r.status = spawn_exit_code(ws);
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
#define CUBES(dx)                                                  \
	"{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE \
	",\"pose\":{\"translation\":[" dx ",0,0]}}}"

/* Good lines, bad lines, blank lines, CRLF, no final newline, a NUL byte. */
/* clang-format off */
static const char mixed[] =
	CUBES("3") "\n"
	"\n"
	"{\"a\": [1,2\n"
	"  \t \r\n"
	"{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}\n"
	CUBES("5") "\r\n"
	"{\"a\":[1,\0 2]}\n"
	CUBES("1.5");
/* clang-format on */

/* The statuses of the lines of `mixed` that get an answer, in order, and
 * their line numbers. */
static const int answered[] = {200, 400, 422, 200, 400, 200};
static const int answered_line[] = {1, 3, 5, 6, 7, 8};

/* Check the output of `clash query` on `mixed`: one line per answered input
 * line, a Result byte-identical to proto_query_reply's answer, a problem
 * the same placed in the input. */
static void check_mixed_output(const run *r)
{
	ck_assert_msg(r->status == 1, "exit %d: %s", r->status, r->err); /* problems */
	ck_assert_str_eq(r->err, "");
	/* Split the input into lines as the CLI should. */
	const char *p = mixed, *end = mixed + sizeof mixed - 1;
	const char *out = r->out;
	size_t k = 0;
	int number = 0;
	proto_init();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		number++;
		if (n && p[n - 1] == '\r')
			n--;
		int blank = 1;
		for (size_t i = 0; i < n; i++)
			blank &= p[i] == ' ' || p[i] == '\t';
		if (!blank) {
			ck_assert_uint_lt(k, sizeof answered / sizeof answered[0]);
			ck_assert_int_eq(number, answered_line[k]);
			proto_reply want;
			ck_assert_int_eq(proto_query_reply(p, n, &want), 0);
			ck_assert_int_eq(want.status, answered[k]);
			char *expect = want.status == 200
			                       ? strdup(want.body)
			                       : problem_placed_in_input(want.body, want.length,
			                                                 number, p - mixed);
			const char *eol = strchr(out, '\n');
			ck_assert_msg(eol != NULL, "answer %zu missing: %s", k, r->out);
			ck_assert_uint_eq((size_t)(eol - out), strlen(expect));
			ck_assert(memcmp(out, expect, strlen(expect)) == 0);
			free(expect);
			/* Problems carry their status and input line. */
			json_t *j = json_loadb(out, (size_t)(eol - out), 0, NULL);
			ck_assert_ptr_nonnull(j);
			if (want.status != 200) {
				ck_assert_int_eq(json_integer_value(json_object_get(j, "status")),
				                 want.status);
				ck_assert_int_eq(json_integer_value(json_object_get(j, "line")),
				                 number);
			} else {
				ck_assert(json_is_boolean(json_object_get(j, "intersecting")));
			}
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
	ck_assert_int_eq(r.status, 1);
	run_free(&r);
	const char *dash[] = {"query", "-", NULL};
	r = run_clash(dash, path);
	ck_assert_str_eq(r.out, first);
	ck_assert_int_eq(r.status, 1);
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
	len += (size_t)snprintf(text + len, cap - len, "]},\"b\":{\"vertices\":[[3,0,0]]}}\n");
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
	const char *path = clash_path();
	spawn_opts o = {.argv = (const char *const[]){path, "query", NULL},
	                .in = SPAWN_PIPE,
	                .out = SPAWN_PIPE};
	spawned c;
	ck_assert_int_eq(spawn(&o, &c), 0);
	signal(SIGPIPE, SIG_IGN);
	/* clang-format off */
	const char *lines[] = {CUBES("3") "\n", "{\"a\":1e400}\n", CUBES("2") "\n"};
	/* clang-format on */
	const char *expect[] = {"\"distance\":2.0,", "\"pointer\":\"/a\"", "\"distance\":1.0,"};
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(write(c.in, lines[i], strlen(lines[i])),
		                 (ssize_t)strlen(lines[i]));
		char buf[4096];
		size_t n = 0;
		while (n == 0 || buf[n - 1] != '\n') {
			ssize_t got = read(c.out, buf + n, sizeof buf - 1 - n);
			ck_assert_int_gt(got, 0); /* a hang here is the test's timeout */
			n += (size_t)got;
		}
		buf[n] = '\0';
		ck_assert_msg(strstr(buf, expect[i]) != NULL, "answer %d: %s", i, buf);
	}
	close(c.in);
	char rest[16];
	ck_assert_int_eq(read(c.out, rest, sizeof rest), 0);
	close(c.out);
	ck_assert_int_eq(spawn_exit_code(spawn_wait(c.pid, -1)), 1); /* the second line's problem */
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
	ck_assert_ptr_nonnull(
		strstr(r.out, "Exit status: 0 when every line was answered with a result;"));
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

	/* A directory opens but cannot be read: an I/O error (2). */
	const char *dir[] = {"query", "/tmp", NULL};
	r = run_clash(dir, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot read /tmp"));
	run_free(&r);
}
END_TEST

/* Run `clash ARGS` on `text` given as a file; the caller frees the run. */
static run run_on_text(const char *const *args, const char *text)
{
	char *path = temp_input(text, strlen(text));
	const char *argv[8];
	int n = 0;
	for (; args[n]; n++)
		argv[n] = args[n];
	argv[n] = path;
	argv[n + 1] = NULL;
	run r = run_clash(argv, NULL);
	unlink(path);
	free(path);
	return r;
}

/* The output of `r` as exactly one JSON object and a newline. */
static json_t *only_answer(const run *r)
{
	const char *eol = strchr(r->out, '\n');
	ck_assert_msg(eol && eol[1] == '\0', "not one line: %s", r->out);
	json_t *j = json_loadb(r->out, (size_t)(eol - r->out), 0, NULL);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* A problem that says the input is not JSON Lines and how to convert it. */
static void check_framing_problem(const run *r, const char *prog, const char *convert, int line)
{
	ck_assert_msg(r->status == 1, "exit %d: %s", r->status, r->err);
	json_t *j = only_answer(r);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 400);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), line);
	const char *detail = json_string_value(json_object_get(j, "detail"));
	ck_assert_ptr_nonnull(detail);
	char reads[64];
	snprintf(reads, sizeof reads, "%s reads JSON Lines: one JSON object per line", prog);
	ck_assert_msg(strstr(detail, reads) && strstr(detail, convert), "%s", detail);
	json_decref(j);
}

#define PRETTY_QUERY                             \
	"{\n"                                    \
	"  \"a\": {\n"                           \
	"    \"vertices\": [\n"                  \
	"      [0, 0, 0],\n"                     \
	"      [1, 0, 0]\n"                      \
	"    ]\n"                                \
	"  },\n"                                 \
	"  \"b\": {\"vertices\": [[3, 0, 0]]}\n" \
	"}\n"

START_TEST(not_json_lines)
{
	const char *query[] = {"query", NULL}, *contains[] = {"contains", NULL};
	/* A pretty-printed query: one problem, not one per line. */
	run r = run_on_text(query, PRETTY_QUERY);
	check_framing_problem(&r, "clash query", "jq -c . FILE | clash query", 1);
	run_free(&r);
	/* After blank lines, and several documents (jq's default output). */
	r = run_on_text(query, "\n  \n" PRETTY_QUERY PRETTY_QUERY);
	check_framing_problem(&r, "clash query", "jq -c .", 3);
	run_free(&r);
	/* A two-line document. */
	r = run_on_text(contains, "{\"inner\": {\"vertices\": [[0,0]]},\n \"outer\": 1}\n");
	check_framing_problem(&r, "clash contains", "jq -c . FILE | clash contains", 1);
	run_free(&r);
	/* Arrays of queries, on one line or many. */
	/* clang-format off */
	r = run_on_text(query, "[" CUBES("3") ", " CUBES("5") "]\n");
	/* clang-format on */
	check_framing_problem(&r, "clash query", "jq -c '.[]' FILE | clash query", 1);
	run_free(&r);
	/* clang-format off */
	r = run_on_text(query, "[\n  " CUBES("3") ",\n  " CUBES("5") "\n]\n");
	/* clang-format on */
	check_framing_problem(&r, "clash query", "jq -c '.[]'", 1);
	run_free(&r);
	/* Through a pipe, the document arriving in pieces: the first line
	 * leaves JSON open, the answer waits for the next. */
	int to[2];
	ck_assert_int_eq(pipe(to), 0);
	pid_t writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0) {
		close(to[0]);
		const char *pieces[] = {"{\n", "  \"a\": {\n", "    \"vertices\": [[0,0,0]]},\n",
		                        "  \"b\": {\"vertices\": [[1,0,0]]}}\n"};
		for (int i = 0; i < 4; i++) {
			if (write(to[1], pieces[i], strlen(pieces[i])) < 0)
				_exit(1);
			usleep(50000);
		}
		_exit(0);
	}
	close(to[1]);
	char fd_path[64];
	snprintf(fd_path, sizeof fd_path, "/dev/fd/%d", to[0]);
	r = run_clash(query, fd_path);
	close(to[0]);
	int ws;
	ck_assert_int_eq(waitpid(writer, &ws, 0), writer);
	check_framing_problem(&r, "clash query", "jq -c .", 1);
	run_free(&r);

	/* Broken lines among good ones are JSON Lines: each answered. */
	/* clang-format off */
	r = run_on_text(query, "{\"a\": {\"vertices\": [[0,0,0],\n" CUBES("3") "\n" CUBES("5") "\n");
	/* clang-format on */
	ck_assert_int_eq(r.status, 1);
	const char *second = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_nonnull(strstr(r.out, "\"status\":400"));
	ck_assert_ptr_nonnull(strstr(second, "\"distance\":2.0,"));
	ck_assert_ptr_nonnull(strstr(second, "\"distance\":4.0,"));
	run_free(&r);
	/* ... and so are lines that are arrays or numbers after the first. */
	/* clang-format off */
	r = run_on_text(query, CUBES("3") "\n[1]\n42\n");
	/* clang-format on */
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "\"line\":2"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"line\":3"));
	run_free(&r);
}
END_TEST

START_TEST(problems_name_their_line)
{
	const char *query[] = {"query", NULL};
	/* A bad line 3 (invalid): "line" 3, exit 1. */
	/* clang-format off */
	run r = run_on_text(query, CUBES("3") "\n" CUBES("4") "\n"
	                           "{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}\n"
	                           CUBES("5") "\n");
	/* clang-format on */
	ck_assert_int_eq(r.status, 1);
	const char *line3 = r.out;
	for (int i = 0; i < 2; i++)
		line3 = strchr(line3, '\n') + 1;
	json_t *j = json_loadb(line3, (size_t)(strchr(line3, '\n') - line3), 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 422);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/a/vertices");
	json_decref(j);
	run_free(&r);

	/* Malformed JSON on line 3, after a blank line: "line" 3, "column" in
	 * the line, "position" from the start of the input. */
	/* clang-format off */
	const char text[] = CUBES("3") "\n\n{\"a\": tru}\n";
	/* clang-format on */
	r = run_on_text(query, text);
	ck_assert_int_eq(r.status, 1);
	line3 = strchr(r.out, '\n') + 1;
	j = json_loadb(line3, strlen(line3), 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 400);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), 3);
	long long column = json_integer_value(json_object_get(j, "column"));
	long long position = json_integer_value(json_object_get(j, "position"));
	/* As jansson says for the line alone, the position moved to the line. */
	const char *bad = "{\"a\": tru}";
	json_error_t e;
	ck_assert_ptr_null(json_loads(bad, 0, &e));
	ck_assert_int_eq(column, e.column);
	ck_assert_int_eq(position, (long long)(strstr(text, bad) - text) + e.position);
	json_decref(j);
	run_free(&r);

	/* Every line answered with a result: exit 0. */
	/* clang-format off */
	r = run_on_text(query, CUBES("3") "\n" CUBES("4") "\n");
	/* clang-format on */
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	const char *contains[] = {"contains", NULL};
	r = run_on_text(contains, "{\"inner\":{\"vertices\":[[0.1,0.1]]},"
	                          "\"outer\":{\"vertices\":[[0,0],[1,0],[0,1]]}}\n"
	                          "\n{\"inner\":1}\n");
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "\"pointer\":\"\",\"line\":3}"));
	run_free(&r);
}
END_TEST

#define BALL(id, x) "{\"id\":\"" id "\",\"shape\":{\"vertices\":[[" #x ",0,0]],\"radius\":1}}"

/* The summary `clash scene` should write for its answer `out`. */
static void expected_summary(const char *out, char *buf, size_t size)
{
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	json_t *counts = json_object_get(j, "counts");
	ck_assert_ptr_nonnull(counts);
	size_t n = (size_t)snprintf(buf, size, "clash scene: ");
	const char *cls;
	json_t *v;
	json_object_foreach(counts, cls, v)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld %s", n > 13 ? ", " : "",
		                      (long long)json_integer_value(v), cls);
	long long c = json_integer_value(json_object_get(j, "candidates"));
	snprintf(buf + n, size - n, " (%lld candidate pair%s%s)\n", c, c == 1 ? "" : "s",
	         json_is_true(json_object_get(j, "truncated")) ? ", list truncated" : "");
	json_decref(j);
}

START_TEST(scene_summary)
{
	const char *scene[] = {"scene", NULL};
	/* a-b and b-c overlap 0.5 deep, a-c are 0.5 apart (clearance 1),
	 * d touches c. */
	/* clang-format off */
	run r = run_on_text(scene, "{\"objects\": [" BALL("a", 0) ", " BALL("b", 1.5) ", "
	                           BALL("c", 2.5) ", " BALL("d", 4.5) "], \"clearance\": 1}");
	/* clang-format on */
	ck_assert_int_eq(r.status, 0);
	char want[256];
	expected_summary(r.out, want, sizeof want);
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.err,
	                 "clash scene: 2 clash, 1 touch, 1 clearance, 0 duplicate (5 candidate "
	                 "pairs)\n");
	run_free(&r);
	/* Cut short by max_clashes: the counts cover every pair. */
	/* clang-format off */
	r = run_on_text(scene, "{\"objects\": [" BALL("a", 0) ", " BALL("b", 1.5) ", "
	                       BALL("c", 2.5) "], \"max_clashes\": 1}");
	/* clang-format on */
	ck_assert_int_eq(r.status, 0);
	expected_summary(r.out, want, sizeof want);
	ck_assert_str_eq(r.err, want);
	ck_assert_ptr_nonnull(strstr(r.err, ", list truncated)"));
	run_free(&r);
	/* A problem: exit 1, no summary. */
	r = run_on_text(scene, "{\n  \"objects\": [1]\n}\n");
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_nonnull(strstr(r.out, "\"pointer\":\"/objects/0\""));
	run_free(&r);
	r = run_on_text(scene, "{\n  \"objects\": [\n}\n");
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "\"line\":3,"));
	run_free(&r);
}
END_TEST

/* Run the example at the end of `clash CMD --help` as written, through
 * sh with the build directory first on PATH, and compare its output
 * (stderr included) with the lines shown after it. */
static void check_example(const char *cmd)
{
	const char *args[] = {cmd, "--help", NULL};
	run help = run_clash(args, NULL);
	ck_assert_int_eq(help.status, 0);
	const char *ex = strstr(help.out, "\n  $ ");
	ck_assert_msg(ex != NULL, "clash %s --help has no example", cmd);
	ex += 5;
	const char *eol = strchr(ex, '\n');
	char *command = strndup(ex, (size_t)(eol - ex));
	char dir[4096], shell[8192];
	ck_assert_ptr_nonnull(realpath(check_build_dir(), dir));
	snprintf(shell, sizeof shell, "PATH='%s':\"$PATH\"; %s 2>&1", dir, command);
	FILE *f = popen(shell, "r");
	ck_assert_ptr_nonnull(f);
	char *out;
	size_t out_len;
	out = spawn_slurp(f, &out_len);
	int st = pclose(f);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %d\n%s", command, st, out);
	/* Each shown line, "  " and the text; "..." at the end: a prefix. */
	const char *got = out;
	for (const char *shown = eol + 1; strncmp(shown, "  ", 2) == 0;) {
		shown += 2;
		const char *end = strchr(shown, '\n');
		size_t n = (size_t)(end - shown);
		const char *got_end = strchr(got, '\n');
		ck_assert_msg(got_end != NULL, "%s: output ends early:\n%s", command, out);
		if (n >= 3 && strncmp(end - 3, "...", 3) == 0)
			ck_assert_msg(strncmp(got, shown, n - 3) == 0, "%s:\n%s", command, out);
		else
			ck_assert_msg((size_t)(got_end - got) == n && strncmp(got, shown, n) == 0,
			              "%s:\n%s", command, out);
		got = got_end + 1;
		shown = end + 1;
	}
	ck_assert_msg(*got == '\0', "%s: more output:\n%s", command, out);
	free(out);
	free(command);
	run_free(&help);
}

START_TEST(help_examples_run)
{
	check_example("query");
	check_example("scene");
	check_example("contains");
	check_example("import");
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	ck_case(s, "query", 20,
	        CK_TESTS(query_file_and_stdin, query_empty_and_long,
	                 query_answers_each_line_at_once, help_and_usage, unreadable_input,
	                 not_json_lines, problems_name_their_line, scene_summary,
	                 help_examples_run));
	return s;
}

CHECK_SUITE(cli_suite)
