/*
 * check_docs.c — suite "docs": the README is a front door that works as
 * written, and the operations guide lists every flag clashd has.
 *
 *   readme   README.md stays within about 200 lines; every `curl` example
 *            in it runs against a clashd started here (its port put in
 *            place of 8080) and prints what the README says it prints:
 *            the ```json block that follows it, compared as JSON, or the
 *            "# ..." lines under it, compared with the spaces removed and
 *            each "..." standing for anything;
 *   flags    every flag of `clashd --help` has its row in
 *            docs/operations.md, with the default --help gives (a mode of
 *            its own, like --healthcheck, is named there in prose);
 *   headers  every .c and .h file under core/, proto/, server/ and cli/
 *            opens with a comment of at most HEADER_MAX_LINES lines on
 *            what it is and how it fits; design notes belong in
 *            docs/design.md, measurements in bench/results/;
 *   suites   every tests/check_*.c registers its suite (CHECK_SUITE), and
 *            docs/testing.md says what each suite checks;
 *   lengths  no function in core/ runs over FUNCTION_MAX_LINES lines
 *            unless the comment before it says why ("long because");
 *   design   docs/design.md stays an architecture a newcomer reads in one
 *            sitting: fewer than DESIGN_MAX_LINES lines;
 *   tracker  no comment of a source file under core/, proto/, server/,
 *            cli/ or tests/ points at the issue tracker (the word issue
 *            or a hash sign before a number): the tracker is not in the repository, so a
 *            comment says the reason itself;
 *   layout   docs/layout.md names every file of proto/, server/ and cli/.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "textbuf.h"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository)", path);
	textbuf t = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		textbuf_add(&t, buf, n);
	fclose(f);
	textbuf_add(&t, "", 0);
	return t.s ? t.s : strdup("");
}

/* Everything a shell command prints on stdout. */
static char *run_shell(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	textbuf t = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		textbuf_add(&t, buf, n);
	ck_assert_int_eq(pclose(p), 0);
	textbuf_add(&t, "", 0);
	return t.s ? t.s : strdup("");
}

static void strip_spaces(char *s)
{
	char *o = s;
	for (; *s; s++)
		if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r')
			*o++ = *s;
	*o = '\0';
}

/* `got` matches `want`, each "..." of which stands for anything. */
static int matches(const char *got, const char *want)
{
	const char *g = got;
	int first = 1;
	while (*want) {
		const char *dots = strstr(want, "...");
		size_t n = dots ? (size_t)(dots - want) : strlen(want);
		if (n && !dots && !first) { /* the last piece ends it */
			size_t left = strlen(g);
			return left >= n && strcmp(g + left - n, want) == 0;
		}
		if (n) {
			char *piece = strndup(want, n);
			const char *at = strstr(g, piece);
			int ok = at && (!first || at == g); /* the first piece starts it */
			free(piece);
			if (!ok)
				return 0;
			g = at + n;
		}
		if (!dots)
			return *g == '\0';
		want = dots + 3;
		first = 0;
	}
	return 1;
}

/* A fenced block. */
typedef struct block {
	char *text; /* the lines between the fences */
	char *lang; /* what follows the opening fence */
} block;

/* The fenced blocks of `md`, in order; n in *count. */
static block *blocks_of(const char *md, size_t *count)
{
	block *b = NULL;
	size_t n = 0;
	const char *p = md;
	while ((p = strstr(p, "```")) != NULL) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			break;
		const char *close = strstr(eol + 1, "\n```");
		if (!close)
			break;
		b = realloc(b, (n + 1) * sizeof *b);
		b[n].lang = strndup(p + 3, (size_t)(eol - p - 3));
		b[n].text = strndup(eol + 1, (size_t)(close - eol));
		n++;
		p = strchr(close + 1, '\n');
		if (!p)
			break;
	}
	*count = n;
	return b;
}

/* The commands of a shell block (its non-comment lines, continued lines
 * joined) and what its comment lines after them expect ("" if none). */
static void split_example(const char *text, char **cmd, char **want)
{
	textbuf c = {0}, w = {0};
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n >= 2 && p[0] == '#' && p[1] == ' ')
			textbuf_add(&w, p + 2, n - 2);
		else if (n && p[0] != '#') {
			textbuf_add(&c, p, n);
			textbuf_add(&c, "\n", 1);
		}
		p += n + (e != NULL);
	}
	textbuf_add(&c, "", 0);
	textbuf_add(&w, "", 0);
	*cmd = c.s;
	*want = w.s;
}

START_TEST(readme)
{
	char *md = read_file("README.md");
	size_t lines = 0;
	for (const char *p = md; *p; p++)
		lines += *p == '\n';
	ck_assert_msg(lines <= 210, "README.md has %zu lines: keep it a front door", lines);

	server_start();
	size_t n;
	block *b = blocks_of(md, &n);
	int ran = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(b[i].lang, "sh") != 0 || !strstr(b[i].text, "curl -s localhost:8080"))
			continue;
		char *cmd, *want;
		split_example(b[i].text, &cmd, &want);
		/* Our server, not one on 8080; no `make run &` here. */
		textbuf shell = {0};
		char port[32];
		snprintf(port, sizeof port, "localhost:%d", srv.port);
		for (const char *p = cmd; *p;) {
			if (strncmp(p, "localhost:8080", 14) == 0) {
				textbuf_str(&shell, port);
				p += 14;
			} else if (strncmp(p, "make run &\n", 11) == 0) {
				p += 11;
			} else {
				textbuf_add(&shell, p++, 1);
			}
		}
		textbuf_add(&shell, "", 0);
		char *got = run_shell(shell.s);
		if (want[0]) {
			strip_spaces(got);
			strip_spaces(want);
			ck_assert_msg(matches(got, want), "README example %zu printed\n%s\nnot\n%s",
			              i, got, want);
		} else {
			ck_assert_msg(i + 1 < n && strcmp(b[i + 1].lang, "json") == 0,
			              "README example %zu says nothing of its answer", i);
			json_t *g = json_loads(got, 0, NULL),
			       *w = json_loads(b[i + 1].text, 0, NULL);
			ck_assert_msg(g && w && json_equal(g, w),
			              "README example %zu printed\n%s\nnot\n%s", i, got,
			              b[i + 1].text);
			json_decref(g);
			json_decref(w);
		}
		ran++;
		free(got);
		free(shell.s);
		free(cmd);
		free(want);
	}
	ck_assert_int_ge(ran, 3);
	for (size_t i = 0; i < n; i++) {
		free(b[i].text);
		free(b[i].lang);
	}
	free(b);
	free(md);
	assert_clean_exit(server_stop_within(10));
}
END_TEST

START_TEST(flags)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "%s --help", clashd_path());
	char *help = run_shell(cmd);
	char *ops = read_file("docs/operations.md");
	int seen = 0;
	for (const char *p = help; (p = strstr(p, "\n  --")) != NULL;) {
		p += 3;
		size_t n = strcspn(p, " \n");
		char flag[64];
		snprintf(flag, sizeof flag, "`%.*s", (int)n, p);
		/* Its row: a line of the guide's tables whose first cell names it. */
		const char *row = NULL;
		for (const char *q = ops; q && *q; q = strchr(q, '\n'), q = q ? q + 1 : NULL) {
			const char *e = strchr(q, '\n');
			const char *bar = strstr(q, " | ");
			const char *hit = strstr(q, flag);
			if (q[0] == '|' && hit && (!e || hit < e) && bar && hit < bar) {
				row = q;
				break;
			}
		}
		ck_assert_msg(row || strstr(ops, flag + 1), "docs/operations.md does not name %s",
		              flag + 1);
		if (!row) { /* a mode of its own (--healthcheck, --help): named in prose */
			seen++;
			continue;
		}
		const char *eol = strchr(row, '\n');
		/* The default --help gives, if any, is in the row. */
		const char *next = strstr(p, "\n  --");
		const char *def = strstr(p, ", default ");
		if (def && (!next || def < next)) {
			def += 10;
			size_t dn = strcspn(def, ")");
			char *d = strndup(def, dn);
			char *in_row = strndup(row, eol ? (size_t)(eol - row) : strlen(row));
			ck_assert_msg(strstr(in_row, d) != NULL,
			              "the row of %s does not give its default %s", flag + 1, d);
			free(d);
			free(in_row);
		}
		seen++;
	}
	ck_assert_int_ge(seen, 20);
	free(help);
	free(ops);
}
END_TEST

/* The longest opening comment a source file may have: about 20 lines, so
 * a reader sees the code on the first screen, with a little slack for the
 * lines that open and close the comment. */
#define HEADER_MAX_LINES 22

/* Lines of the comment a file's text opens with (after blank lines), or 0
 * when it opens with anything else or the comment never closes. */
static size_t opening_comment_lines(const char *text)
{
	const char *p = text + strspn(text, " \t\r\n");
	if (strncmp(p, "/*", 2) == 0) {
		const char *end = strstr(p + 2, "*/");
		if (!end)
			return 0;
		size_t n = 1;
		for (const char *q = p; q < end; q++)
			n += *q == '\n';
		return n;
	}
	size_t n = 0;
	while (strncmp(p, "//", 2) == 0) { /* a run of line comments */
		n++;
		const char *e = strchr(p, '\n');
		if (!e)
			break;
		p = e + 1 + strspn(e + 1, " \t");
	}
	return n;
}

/* Every .c and .h below dir whose opening comment is missing or too long,
 * appended to `bad` one a line; returns how many files were looked at. */
static int check_headers_in(const char *dir, textbuf *bad)
{
	struct dirent **list;
	int n_entries = scandir(dir, &list, NULL, alphasort);
	ck_assert_msg(n_entries >= 0, "cannot open %s (run from the repository)", dir);
	int seen = 0;
	for (int i = 0; i < n_entries; i++) {
		const struct dirent *e = list[i];
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			seen += check_headers_in(path, bad);
			continue;
		}
		size_t len = strlen(e->d_name);
		if (len < 3 || e->d_name[len - 2] != '.' ||
		    (e->d_name[len - 1] != 'c' && e->d_name[len - 1] != 'h'))
			continue;
		char *text = read_file(path);
		size_t n = opening_comment_lines(text);
		free(text);
		seen++;
		char line[1200];
		if (n == 0)
			snprintf(line, sizeof line, "\n  %s: opens with no comment", path);
		else if (n > HEADER_MAX_LINES)
			snprintf(line, sizeof line, "\n  %s: opening comment of %zu lines", path,
			         n);
		else
			continue;
		textbuf_str(bad, line);
	}
	for (int i = 0; i < n_entries; i++)
		free(list[i]);
	free(list);
	return seen;
}

START_TEST(headers)
{
	static const char *const dirs[] = {"core", "proto", "server", "cli"};
	textbuf bad = {0};
	textbuf_add(&bad, "", 0);
	int seen = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		seen += check_headers_in(dirs[i], &bad);
	ck_assert_int_ge(seen, 100);
	ck_assert_msg(bad.len == 0,
	              "these files do not open with a comment of at most %d lines on what the "
	              "file is and how it fits (design notes go to docs/design.md):%s",
	              HEADER_MAX_LINES, bad.s);
	free(bad.s);
}
END_TEST

/* Whether docs/testing.md has a list item naming suite `name` before its
 * colon ("- `name`: ..." or "- `a`, `name`: ..."). */
static int suite_described(const char *md, const char *name)
{
	char want[128];
	snprintf(want, sizeof want, "`%s`", name);
	for (const char *line = md; line && *line;) {
		const char *end = strchr(line, '\n'), *colon = strchr(line, ':');
		if (!end)
			end = line + strlen(line);
		if (strncmp(line, "- `", 3) == 0 && colon && colon < end) {
			const char *at = strstr(line, want);
			if (at && at < colon)
				return 1;
		}
		line = *end ? end + 1 : NULL;
	}
	return 0;
}

START_TEST(suites)
{
	struct dirent **list;
	int n = scandir("tests", &list, NULL, alphasort);
	ck_assert_msg(n >= 0, "cannot open tests (run from the repository)");
	char *md = read_file("docs/testing.md");
	textbuf bad = {0};
	textbuf_add(&bad, "", 0);
	int files = 0, named = 0;
	for (int i = 0; i < n; i++) {
		const char *f = list[i]->d_name;
		size_t len = strlen(f);
		if (strncmp(f, "check_", 6) == 0 && len > 8 && strcmp(f + len - 2, ".c") == 0 &&
		    strcmp(f, "check_main.c") != 0) {
			char path[600], line[800];
			snprintf(path, sizeof path, "tests/%s", f);
			char *text = read_file(path);
			files++;
			if (!strstr(text, "CHECK_SUITE(")) {
				snprintf(line, sizeof line,
				         "\n  %s: registers no suite (CHECK_SUITE)", path);
				textbuf_str(&bad, line);
			}
			for (const char *p = strstr(text, "suite_create(\""); p;
			     p = strstr(p + 1, "suite_create(\"")) {
				char name[64];
				if (sscanf(p, "suite_create(\"%63[a-z0-9_]\")", name) != 1)
					continue;
				named++;
				if (!suite_described(md, name)) {
					snprintf(
						line, sizeof line,
						"\n  suite %s (%s) is not described in docs/testing.md",
						name, path);
					textbuf_str(&bad, line);
				}
			}
			free(text);
		}
		free(list[i]);
	}
	free(list);
	free(md);
	ck_assert_int_ge(files, 30);
	ck_assert_int_ge(named, files);
	ck_assert_msg(bad.len == 0, "suites:%s", bad.s);
	free(bad.s);
}
END_TEST

/* The longest function in core/ that needs no word on why (about 120
 * lines: what a reader can hold in mind), and the files not held to it
 * (none). */
#define FUNCTION_MAX_LINES 120
static const char *const function_length_exempt[] = {""};

/* Whether [from, to) holds "long because", in any case. */
static int says_long_because(const char *from, const char *to)
{
	static const char word[] = "long because";
	for (const char *p = from; p + sizeof word - 1 <= to; p++)
		if (strncasecmp(p, word, sizeof word - 1) == 0)
			return 1;
	return 0;
}

/* Each function of text (path) longer than FUNCTION_MAX_LINES, from the
 * "{" that opens its body to the "}" that closes it, each alone at the
 * start of a line as everywhere in the tree, whose stretch before that
 * "{" (from the end of the function before it: its comment and signature)
 * does not contain "long because", appended to bad.  Returns how many
 * functions were seen. */
static int check_function_lengths(const char *path, const char *text, textbuf *bad)
{
	const char *from = text, *open = NULL;
	size_t line = 1, open_line = 0;
	int seen = 0;
	for (const char *p = text; *p; line++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 1 && p[0] == '{') {
			open = p;
			open_line = line;
		} else if (len >= 1 && p[0] == '}') {
			if (open && len == 1) {
				size_t n = line - open_line + 1;
				seen++;
				if (n > FUNCTION_MAX_LINES && !says_long_because(from, open)) {
					char msg[1200];
					snprintf(msg, sizeof msg, "\n  %s:%zu: %zu lines", path,
					         open_line, n);
					textbuf_str(bad, msg);
				}
			}
			open = NULL;
			from = p;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return seen;
}

START_TEST(lengths)
{
	struct dirent **list;
	int n_entries = scandir("core", &list, NULL, alphasort);
	ck_assert_msg(n_entries >= 0, "cannot open core (run from the repository)");
	textbuf bad = {0};
	textbuf_add(&bad, "", 0);
	int seen = 0;
	for (int i = 0; i < n_entries; i++) {
		const char *name = list[i]->d_name;
		size_t len = strlen(name);
		int exempt = 0;
		for (size_t k = 0;
		     k < sizeof function_length_exempt / sizeof function_length_exempt[0]; k++)
			exempt |= strcmp(name, function_length_exempt[k]) == 0;
		if (!exempt && len > 2 && strcmp(name + len - 2, ".c") == 0) {
			char path[1024];
			snprintf(path, sizeof path, "core/%s", name);
			char *text = read_file(path);
			seen += check_function_lengths(path, text, &bad);
			free(text);
		}
		free(list[i]);
	}
	free(list);
	ck_assert_int_ge(seen, 300);
	ck_assert_msg(bad.len == 0,
	              "these functions run over %d lines with no comment before them saying why "
	              "(\"Long because ...\"): split them, or say why they stay whole:%s",
	              FUNCTION_MAX_LINES, bad.s);
	free(bad.s);
}
END_TEST

/* docs/design.md is read in one sitting (libuv's design.rst: 178 lines);
 * the reasoning of a single function belongs beside it, speed history in
 * bench/results/. */
#define DESIGN_MAX_LINES 400

START_TEST(design)
{
	char *md = read_file("docs/design.md");
	size_t lines = 0;
	for (const char *p = md; *p; p++)
		lines += *p == '\n';
	ck_assert_int_ge(lines, 100); /* the file is there and says something */
	ck_assert_msg(lines < DESIGN_MAX_LINES,
	              "docs/design.md has %zu lines (at most %d): keep it the architecture; "
	              "a function's reasoning goes beside it, measurements to bench/results/",
	              lines, DESIGN_MAX_LINES - 1);
	free(md);
}
END_TEST

/* Every file below dir (no dot files), appended to out as "path\n". */
static void files_under(const char *dir, textbuf *out)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	ck_assert_msg(n >= 0, "cannot open %s (run from the repository)", dir);
	for (int i = 0; i < n; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
		struct stat st;
		if (list[i]->d_name[0] != '.' && stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				files_under(path, out);
			else if (S_ISREG(st.st_mode))
				textbuf_str(out, path), textbuf_str(out, "\n");
		}
		free(list[i]);
	}
	free(list);
}

/* Every file below each of dirs, as "path\n" lines (free() it). */
static char *files_of(const char *const *dirs, size_t ndirs)
{
	textbuf t = {0};
	textbuf_add(&t, "", 0);
	for (size_t i = 0; i < ndirs; i++)
		files_under(dirs[i], &t);
	return t.s;
}

/* The comments of C or JavaScript source text, each followed by a newline;
 * string and character literals are skipped, so a hash and a digit in a
 * string are not taken for a comment's. */
static char *comments_of(const char *text)
{
	textbuf t = {0};
	textbuf_add(&t, "", 0);
	for (const char *p = text; *p;) {
		if (p[0] == '/' && (p[1] == '*' || p[1] == '/')) {
			const char *end = p[1] == '*' ? strstr(p + 2, "*/") : strchr(p + 2, '\n');
			size_t n = end ? (size_t)(end - (p + 2)) : strlen(p + 2);
			textbuf_add(&t, p + 2, n);
			textbuf_add(&t, "\n", 1);
			p += 2 + n;
		} else if (*p == '"' || *p == '\'' || *p == '`') {
			char quote = *p++;
			while (*p && *p != quote && !(quote != '`' && *p == '\n'))
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
		} else {
			p++;
		}
	}
	return t.s;
}

/* The first reference to the issue tracker in s, or NULL: "issue" or
 * "issues", then an optional space, then a hash sign or a digit; or a hash
 * sign and a digit. */
static const char *tracker_reference(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (p[0] == '#' && p[1] >= '0' && p[1] <= '9')
			return p;
		if (strncasecmp(p, "issue", 5) == 0) {
			const char *q = p + 5;
			q += *q == 's';
			q += *q == ' ';
			if (*q == '#' || (*q >= '0' && *q <= '9'))
				return p;
		}
	}
	return NULL;
}

START_TEST(tracker)
{
	static const char *const dirs[] = {"core", "proto", "server", "cli", "tests"};
	static const char *const exts[] = {".c", ".h", ".cjs", ".js", ".mjs"};
	char *files = files_of(dirs, sizeof dirs / sizeof dirs[0]);
	textbuf bad = {0};
	textbuf_add(&bad, "", 0);
	int seen = 0;
	for (char *path = files, *end; (end = strchr(path, '\n')) != NULL; path = end + 1) {
		*end = '\0';
		int source = 0;
		for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++) {
			size_t len = strlen(path), el = strlen(exts[k]);
			source |= len > el && strcmp(path + len - el, exts[k]) == 0;
		}
		if (!source)
			continue;
		char *text = read_file(path), *comments = comments_of(text);
		const char *hit = tracker_reference(comments);
		if (hit) {
			char line[1200];
			snprintf(line, sizeof line, "\n  %s: \"%.40s\"", path, hit);
			textbuf_str(&bad, line);
		}
		seen++;
		free(comments);
		free(text);
	}
	ck_assert_int_ge(seen, 250);
	ck_assert_msg(bad.len == 0,
	              "these comments point at the issue tracker, which is not in the repository: "
	              "say the reason instead:%s",
	              bad.s);
	free(files);
	free(bad.s);
}
END_TEST

/* docs/layout.md names every file of proto/, server/ and cli/ as `name`
 * or `folder/name` (by its own name, so a file moved to a subfolder stays
 * named). */
START_TEST(layout)
{
	static const char *const dirs[] = {"proto", "server", "cli"};
	char *md = read_file("docs/layout.md");
	char *files = files_of(dirs, sizeof dirs / sizeof dirs[0]);
	textbuf bad = {0};
	textbuf_add(&bad, "", 0);
	int seen = 0;
	for (char *path = files, *end; (end = strchr(path, '\n')) != NULL; path = end + 1) {
		*end = '\0';
		const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		char want[600], in_dir[600];
		snprintf(want, sizeof want, "`%s`", name);
		snprintf(in_dir, sizeof in_dir, "/%s`", name); /* `gen/x.c` */
		if (!strstr(md, want) && !strstr(md, in_dir)) {
			textbuf_str(&bad, "\n  ");
			textbuf_str(&bad, path);
		}
		seen++;
	}
	ck_assert_int_ge(seen, 100);
	ck_assert_msg(bad.len == 0,
	              "docs/layout.md does not name these files (a line each on what it is):%s",
	              bad.s);
	free(files);
	free(bad.s);
	free(md);
}
END_TEST

static Suite *docs_suite(void)
{
	Suite *s = suite_create("docs");
	ck_case(s, "docs", 60,
	        CK_TESTS(readme, flags, headers, suites, lengths, design, tracker, layout));
	return s;
}

CHECK_SUITE(docs_suite)
