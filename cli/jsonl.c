/*
 * jsonl.c — the JSON Lines driver shared by clash's line-oriented commands.
 *
 * Reads with getline(), so a line is as long as memory allows (a query with a
 * large hull is one long line); a NUL byte inside a line is passed on and
 * answered as malformed JSON rather than cutting the line short.  Blank lines
 * (only spaces, tabs, CR) are skipped without a reply, so a file may end with
 * an empty line or be spaced out by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

int cli_jsonl(const char *prog, const char *path, cli_reply_fn reply)
{
	FILE *in = stdin;
	const char *name = "standard input";
	if (path && strcmp(path, "-") != 0) {
		in = fopen(path, "r");
		if (!in) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
			return CLI_EXIT_USAGE;
		}
		name = path;
	}
	struct stat st;
	int flush_each = !(fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode));

	int status = CLI_EXIT_OK;
	char *line = NULL;
	size_t cap = 0;
	for (;;) {
		errno = 0;
		ssize_t got = getline(&line, &cap, in);
		if (got < 0) {
			/* End of input, or a read error or no memory for the line. */
			if (!feof(in)) {
				fprintf(stderr, "%s: cannot read %s: %s\n", prog, name,
				        strerror(errno ? errno : EIO));
				status = CLI_EXIT_FAILURE;
			}
			break;
		}
		size_t n = (size_t)got;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (blank(line, n))
			continue;
		proto_reply r;
		if (reply(line, n, &r) != 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			status = CLI_EXIT_FAILURE;
			break;
		}
		fwrite(r.body, 1, r.length, stdout);
		putchar('\n');
		proto_reply_free(&r);
		if (flush_each)
			fflush(stdout);
		if (ferror(stdout))
			break;
	}
	free(line);
	if (in != stdin)
		fclose(in);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the answers: %s\n", prog, strerror(errno));
		status = CLI_EXIT_FAILURE;
	}
	return status;
}
