/*
 * jsonl.c — the JSON Lines driver shared by clash's line-oriented commands.
 *
 * Reads with read(2) into a buffer that grows with the longest line, so a
 * line is as long as memory allows (a query with a large hull is one long
 * line); a NUL byte inside a line is passed on and answered as malformed
 * JSON rather than cutting the line short.  Blank lines (only spaces, tabs,
 * CR) are skipped without a reply, so a file may end with an empty line or
 * be spaced out by hand.
 *
 * Every complete line in the buffer after a read is one block for the
 * command (cli_block_fn): reading a file fills the buffer, so its lines go
 * by in blocks of about CLI_READ_BYTES that `clash query` answers on
 * several threads; a pipe delivers what its writer has written, so a
 * program that sends one line and waits for the answer gets it at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define CLI_READ_BYTES (1 << 20)

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

typedef struct block {
	const char **lines;
	size_t *lens;
	size_t n, cap;
} block;

static int block_add(block *b, const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (blank(line, len))
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		const char **lines = realloc(b->lines, cap * sizeof *lines);
		if (!lines)
			return -1;
		b->lines = lines;
		size_t *lens = realloc(b->lens, cap * sizeof *lens);
		if (!lens)
			return -1;
		b->lens = lens;
		b->cap = cap;
	}
	b->lines[b->n] = line;
	b->lens[b->n] = len;
	b->n++;
	return 0;
}

int cli_jsonl(const char *prog, const char *path, cli_block_fn answer, void *arg)
{
	int fd = STDIN_FILENO;
	const char *name = "standard input";
	if (path && strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
			return CLI_EXIT_USAGE;
		}
		name = path;
	}
	struct stat st;
	int flush_each = !(fstat(fd, &st) == 0 && S_ISREG(st.st_mode));

	int status = CLI_EXIT_OK;
	size_t cap = CLI_READ_BYTES, len = 0;
	char *buf = malloc(cap);
	block b = {0};
	int eof = 0;
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		status = CLI_EXIT_FAILURE;
		eof = 1;
	}
	while (!eof) {
		if (len == cap) {
			/* A line longer than the buffer: make room for it. */
			char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, 2 * cap) : NULL;
			if (!grown) {
				fprintf(stderr, "%s: out of memory\n", prog);
				status = CLI_EXIT_FAILURE;
				break;
			}
			buf = grown;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "%s: cannot read %s: %s\n", prog, name, strerror(errno));
			status = CLI_EXIT_FAILURE;
			break;
		}
		size_t scanned = len; /* no newline before this */
		len += (size_t)got;
		eof = got == 0;
		/* The complete lines, and at the end of input the last one. */
		b.n = 0;
		size_t start = 0;
		for (;;) {
			char *nl = memchr(buf + scanned, '\n', len - scanned);
			if (!nl)
				break;
			size_t end = (size_t)(nl - buf);
			if (block_add(&b, buf + start, end - start) != 0)
				goto no_memory;
			start = scanned = end + 1;
		}
		if (eof && start < len) {
			if (block_add(&b, buf + start, len - start) != 0)
				goto no_memory;
			start = len;
		}
		if (b.n > 0) {
			if (answer(b.lines, b.lens, b.n, stdout, arg) != 0)
				goto no_memory;
			if (flush_each)
				fflush(stdout);
			if (ferror(stdout))
				break;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		continue;
	no_memory:
		fprintf(stderr, "%s: out of memory\n", prog);
		status = CLI_EXIT_FAILURE;
		break;
	}
	free(buf);
	free(b.lines);
	free(b.lens);
	if (fd != STDIN_FILENO)
		close(fd);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the answers: %s\n", prog, strerror(errno));
		status = CLI_EXIT_FAILURE;
	}
	return status;
}

int cli_answer_each(const char *const *lines, const size_t *lens, size_t n, FILE *out,
                    void *arg)
{
	const cli_reply_fn *reply = arg;
	for (size_t i = 0; i < n; i++) {
		proto_reply r;
		if ((*reply)(lines[i], lens[i], &r) != 0)
			return -1;
		fwrite(r.body, 1, r.length, out);
		putc('\n', out);
		proto_reply_free(&r);
	}
	return 0;
}
