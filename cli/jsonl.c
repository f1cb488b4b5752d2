/*
 * jsonl.c — the JSON Lines driver shared by clash's line-oriented commands.
 *
 * Reads with read(2) into a buffer that grows with the longest line, so a line
 * (a query with a large hull is one long line) is as long as memory allows; a
 * NUL byte inside a line is passed on and answered as malformed JSON rather
 * than cutting the line short.  Blank lines (only spaces, tabs, CR) get no
 * reply, so a file may end with one or be spaced out by hand; they still count
 * in the line numbers.  Every complete line in the buffer after a read is one
 * block for the command (cli_block_fn): a file's lines go by in blocks of
 * about CLI_READ_BYTES that `clash query` answers on several threads, and a
 * program that writes one line to a pipe and waits gets its answer at once.
 * Before the first answer the first non-blank lines are judged
 * (cli_framing_of): a pretty-printed document or a JSON array gets one problem
 * saying what the tool reads, not one per line; a first line that leaves JSON
 * open waits for the next non-blank line (or the end) to tell.  Problems are
 * placed in the whole input, as a batch body's are in the body: "line" the
 * input line (every problem), "column" the character in it and "position" the
 * byte offset from the start of the input (malformed JSON), by
 * proto_problem_place().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "problem.h"

#define CLI_READ_BYTES (1 << 20)

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* The non-blank lines gathered for the next answer, by their offsets in the
 * read buffer (which moves when it grows). */
typedef struct block {
	size_t *at; /* offset in the buffer */
	size_t *len;
	uint64_t *number;
	uint64_t *offset;  /* offset in the input */
	const char **text; /* filled just before answering */
	size_t n, cap;
} block;

static void block_free(block *b)
{
	free(b->at);
	free(b->len);
	free(b->number);
	free(b->offset);
	free(b->text);
}

static int block_grow(block *b)
{
	size_t cap = b->cap ? 2 * b->cap : 256;
	size_t *at = realloc(b->at, cap * sizeof *at);
	if (at)
		b->at = at;
	size_t *len = realloc(b->len, cap * sizeof *len);
	if (len)
		b->len = len;
	uint64_t *number = realloc(b->number, cap * sizeof *number);
	if (number)
		b->number = number;
	uint64_t *offset = realloc(b->offset, cap * sizeof *offset);
	if (offset)
		b->offset = offset;
	const char **text = realloc(b->text, cap * sizeof *text);
	if (text)
		b->text = text;
	if (!at || !len || !number || !offset || !text)
		return -1;
	b->cap = cap;
	return 0;
}

/* Add buf[at .. at + len), line `number` at input offset `offset`, unless
 * it is blank. */
static int block_add(block *b, const char *buf, size_t at, size_t len, uint64_t number,
                     uint64_t offset)
{
	if (len > 0 && buf[at + len - 1] == '\r')
		len--;
	if (blank(buf + at, len))
		return 0;
	if (b->n == b->cap && block_grow(b) != 0)
		return -1;
	b->at[b->n] = at;
	b->len[b->n] = len;
	b->number[b->n] = number;
	b->offset[b->n] = offset;
	b->n++;
	return 0;
}

static cli_lines block_lines(block *b, const char *buf)
{
	for (size_t i = 0; i < b->n; i++)
		b->text[i] = buf + b->at[i];
	return (cli_lines){b->text, b->len, b->number, b->offset, b->n};
}

/* The read side of the driver: the input, its buffer and where the lines
 * not yet answered start. */
typedef struct reader {
	int fd;
	const char *name;
	char *buf;
	size_t cap, len;
	size_t scanned;    /* no newline in buf[line_start .. scanned) */
	size_t line_start; /* the first byte of the first line not in the block */
	uint64_t base;     /* input offset of buf[0] */
	uint64_t lines;    /* lines seen (complete ones, and a last one at EOF) */
	int eof;
} reader;

/* Read once more and add the lines now complete to `b`.  Returns 0, -1 when
 * memory ran out, -2 when reading failed (errno set). */
static int read_lines(reader *r, block *b)
{
	if (r->len == r->cap) {
		/* A line longer than the buffer: make room for it. */
		char *grown = r->cap <= SIZE_MAX / 2 ? realloc(r->buf, 2 * r->cap) : NULL;
		if (!grown)
			return -1;
		r->buf = grown;
		r->cap *= 2;
	}
	ssize_t got;
	do
		got = read(r->fd, r->buf + r->len, r->cap - r->len);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -2;
	r->len += (size_t)got;
	r->eof = got == 0;
	for (;;) {
		char *nl = memchr(r->buf + r->scanned, '\n', r->len - r->scanned);
		if (!nl)
			break;
		size_t end = (size_t)(nl - r->buf);
		if (block_add(b, r->buf, r->line_start, end - r->line_start, ++r->lines,
		              r->base + r->line_start) != 0)
			return -1;
		r->line_start = r->scanned = end + 1;
	}
	r->scanned = r->len;
	if (r->eof && r->line_start < r->len) {
		if (block_add(b, r->buf, r->line_start, r->len - r->line_start, ++r->lines,
		              r->base + r->line_start) != 0)
			return -1;
		r->line_start = r->len;
	}
	return 0;
}

/* Drop the lines answered (all before line_start) from the buffer. */
static void consume(reader *r)
{
	memmove(r->buf, r->buf + r->line_start, r->len - r->line_start);
	r->base += r->line_start;
	r->len -= r->line_start;
	r->scanned -= r->line_start;
	r->line_start = 0;
}

/* Answer an input that is not JSON Lines with its one problem, at the
 * first non-blank line.  Returns 0 or -1. */
static int answer_framing(const char *prog, cli_framing framing, const cli_lines *lines,
                          cli_sink *sink)
{
	proto_reply r;
	if (cli_framing_problem(prog, framing, &r) != 0)
		return -1;
	int err = cli_put_answer(sink, lines, 0, r.body, r.length, r.status);
	proto_reply_free(&r);
	return err;
}

/* Read and answer the whole input.  Returns a CLI_EXIT_* status. */
static int answer_all(const char *prog, reader *r, cli_block_fn answer, void *arg, int flush_each)
{
	block b = {0};
	cli_sink sink = {stdout, 0};
	int framed = 0, status = CLI_EXIT_OK;
	while (!r->eof) {
		int err = read_lines(r, &b);
		if (err == -2) {
			fprintf(stderr, "%s: cannot read %s: %s\n", prog, r->name, strerror(errno));
			status = CLI_EXIT_ERROR;
			break;
		}
		cli_lines lines = block_lines(&b, r->buf);
		cli_framing framing = CLI_FRAMING_LINES;
		if (err == 0 && b.n > 0 && !framed)
			err = cli_framing_of(&lines, r->eof, &framing);
		if (err == 0 && framing == CLI_FRAMING_MORE)
			continue; /* keep the lines, read on */
		if (err == 0 && b.n > 0) {
			framed = 1;
			if (framing != CLI_FRAMING_LINES) {
				err = answer_framing(prog, framing, &lines, &sink);
				r->eof = 1; /* the one answer: read no further */
			} else {
				err = answer(&lines, &sink, arg);
			}
		}
		if (err != 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			status = CLI_EXIT_ERROR;
			break;
		}
		b.n = 0;
		consume(r);
		if (flush_each)
			fflush(stdout);
		if (ferror(stdout))
			break;
	}
	block_free(&b);
	if (status == CLI_EXIT_OK && sink.problems > 0)
		status = CLI_EXIT_PROBLEMS;
	return status;
}

int cli_jsonl(const char *prog, const char *path, cli_block_fn answer, void *arg)
{
	reader r = {.fd = STDIN_FILENO, .name = "standard input", .cap = CLI_READ_BYTES};
	if (path && strcmp(path, "-") != 0) {
		r.fd = open(path, O_RDONLY);
		if (r.fd < 0) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
			return CLI_EXIT_ERROR;
		}
		r.name = path;
	}
	struct stat st;
	int flush_each = !(fstat(r.fd, &st) == 0 && S_ISREG(st.st_mode));
	int status;
	r.buf = malloc(r.cap);
	if (r.buf) {
		status = answer_all(prog, &r, answer, arg, flush_each);
	} else {
		fprintf(stderr, "%s: out of memory\n", prog);
		status = CLI_EXIT_ERROR;
	}
	free(r.buf);
	if (r.fd != STDIN_FILENO)
		close(r.fd);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the answers: %s\n", prog, strerror(errno));
		status = CLI_EXIT_ERROR;
	}
	return status;
}

int cli_put_answer(cli_sink *sink, const cli_lines *lines, size_t i, const char *body, size_t len,
                   int status)
{
	if (status == 200) {
		fwrite(body, 1, len, sink->out);
		putc('\n', sink->out);
		return 0;
	}
	char *placed = proto_problem_place(body, len, lines->number[i], lines->offset[i], NULL);
	if (!placed)
		return -1;
	fputs(placed, sink->out);
	putc('\n', sink->out);
	free(placed);
	sink->problems++;
	return 0;
}

int cli_answer_each(const cli_lines *lines, cli_sink *sink, void *arg)
{
	const cli_reply_fn *reply = arg;
	for (size_t i = 0; i < lines->n; i++) {
		proto_reply r;
		if ((*reply)(lines->text[i], lines->len[i], &r) != 0)
			return -1;
		int err = cli_put_answer(sink, lines, i, r.body, r.length, r.status);
		proto_reply_free(&r);
		if (err != 0)
			return -1;
	}
	return 0;
}
