/*
 * document.c — the one-document driver of clash's commands whose request
 * is a single JSON document (a Scene), laid out in any way: the whole
 * input is read and answered with one reply line.
 *
 * A scene exported from a CAD tool is usually one pretty-printed document
 * spread over many lines, so these commands do not take JSON Lines.  The
 * input is read in growing blocks to its end; a NUL byte in it is passed
 * on and answered as malformed JSON, as clash query does.  A problem's
 * "line", "column" and "position" count in the whole input, as they do in
 * a request body.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_read_input(const char *prog, const char *path, char **text_out, size_t *len_out)
{
	*text_out = NULL;
	*len_out = 0;
	FILE *in = stdin;
	const char *name = "standard input";
	if (path && strcmp(path, "-") != 0) {
		in = fopen(path, "rb");
		if (!in) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
			return CLI_EXIT_ERROR;
		}
		name = path;
	}
	int status = CLI_EXIT_OK;
	size_t len = 0, cap = 0;
	char *text = NULL;
	for (;;) {
		if (cap - len < 65536) {
			size_t grown_cap = cap ? 2 * cap : 1 << 20;
			char *grown = realloc(text, grown_cap);
			if (!grown) {
				fprintf(stderr, "%s: out of memory reading %s\n", prog, name);
				status = CLI_EXIT_ERROR;
				break;
			}
			text = grown;
			cap = grown_cap;
		}
		size_t got = fread(text + len, 1, cap - len, in);
		len += got;
		if (got == 0) {
			if (ferror(in)) {
				fprintf(stderr, "%s: cannot read %s: %s\n", prog, name,
				        strerror(errno ? errno : EIO));
				status = CLI_EXIT_ERROR;
			}
			break;
		}
	}
	if (in != stdin)
		fclose(in);
	if (status != CLI_EXIT_OK) {
		free(text);
		text = NULL;
		len = 0;
	}
	*text_out = text;
	*len_out = len;
	return status;
}

int cli_document(const char *prog, const char *path, cli_reply_fn reply, cli_summary_fn summary)
{
	size_t len = 0;
	char *text = NULL;
	int status = cli_read_input(prog, path, &text, &len);
	if (status == CLI_EXIT_OK) {
		proto_reply r;
		if (reply(text ? text : "", len, &r) != 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			status = CLI_EXIT_ERROR;
		} else {
			fwrite(r.body, 1, r.length, stdout);
			putchar('\n');
			if (r.status != 200)
				status = CLI_EXIT_PROBLEMS;
			else if (summary && fflush(stdout) == 0)
				summary(prog, &r); /* after the answer, 2>&1 included */
			proto_reply_free(&r);
		}
	}
	free(text);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the answer: %s\n", prog, strerror(errno));
		status = CLI_EXIT_ERROR;
	}
	return status;
}
