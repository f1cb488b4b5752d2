/*
 * cli.h — the pieces of the clash command-line tool.
 *
 * clash.c holds the command table and main(); each command is one entry with
 * its name, help text and run function.  Commands that answer JSON Lines
 * (one request per line in, one reply per line out) share the driver in
 * jsonl.c, which hands them blocks of lines and writes their answers, each
 * problem placed in the input (its "line"); framing.c recognises an input
 * that is not JSON Lines at all.  `clash query` answers a block as a batch
 * (proto_batch, on several threads: parallel.c), the very code of clashd's
 * POST /v1/batch.  document.c reads the one document of `clash scene`,
 * summary.c writes its one-line summary; import.c is `clash import`.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto.h"

/* Exit statuses of clash (documented in its --help). */
enum {
	CLI_EXIT_OK = 0,       /* every request was answered with a result */
	CLI_EXIT_PROBLEMS = 1, /* every request was answered, some by a problem */
	CLI_EXIT_ERROR = 2     /* bad command line, input that cannot be opened or
	                          read, output that cannot be written, no memory */
};

/* Turns one request into a reply; returns 0, or -1 when memory ran out. */
typedef int (*cli_reply_fn)(const char *request, size_t len, proto_reply *out);

/* A block of non-blank input lines, in input order. */
typedef struct cli_lines {
	const char *const *text; /* line i: text[i], len[i] bytes, no "\n" or "\r\n",
	                            not NUL-terminated */
	const size_t *len;
	const uint64_t *number; /* its 1-based line number in the input, blank
	                            lines counted */
	const uint64_t *offset; /* the input's byte offset of its first byte */
	size_t n;
} cli_lines;

/* Where the answers go, and how many of them were problems. */
typedef struct cli_sink {
	FILE *out;
	uint64_t problems;
} cli_sink;

/* Answers lines->text[0 .. n), handing each reply to cli_put_answer() in
 * order.  Returns 0, or -1 when memory ran out. */
typedef int (*cli_block_fn)(const cli_lines *lines, cli_sink *sink, void *arg);

/*
 * Answer the JSON Lines of `path` (stdin when NULL or "-") on stdout, one
 * reply body per non-blank input line, in order.  A line may be of any
 * length; "\n" or "\r\n" ends it.  Lines are handed to `answer` in blocks:
 * every complete line read so far (at most about a mebibyte of them), so a
 * file goes by in large blocks while a program that writes one line and
 * waits for its answer gets it at once.  When the input is not a regular
 * file (a pipe, a terminal) each block's replies are flushed at once.  An
 * input that is not JSON Lines (cli_framing) is answered with one problem
 * and not read further.  Messages go to stderr prefixed with `prog` (the
 * command, "clash query").  Returns one of the CLI_EXIT_* statuses.
 */
int cli_jsonl(const char *prog, const char *path, cli_block_fn answer, void *arg);

/* Write the answer to line i of `lines` (its body, len bytes, and the HTTP
 * status clashd would answer) and a newline.  A problem (status other than
 * 200) is counted, and placed in the whole input: its "line" member set to
 * the line's number, its "position" (malformed JSON) moved by the line's
 * offset.  Returns 0, or -1 when memory ran out. */
int cli_put_answer(cli_sink *sink, const cli_lines *lines, size_t i, const char *body, size_t len,
                   int status);

/* A cli_block_fn answering each line in turn with the cli_reply_fn that
 * `arg` points to. */
int cli_answer_each(const cli_lines *lines, cli_sink *sink, void *arg);

/* A cli_block_fn answering the lines as Queries: one proto_batch of them,
 * shared by `*(unsigned *)arg` threads. */
int cli_answer_batch(const cli_lines *lines, cli_sink *sink, void *arg);

/* Answer every query of `b` on `threads` threads (the caller's included),
 * each taking the next few queries in turn.  Returns 0, or -1 when memory
 * ran out. */
int cli_batch_answer(proto_batch *b, unsigned threads);

/* The cores this process may run on (its affinity mask), at least 1. */
unsigned cli_default_threads(void);

/* What the first non-blank lines of an input say it is. */
typedef enum cli_framing {
	CLI_FRAMING_LINES,   /* JSON Lines (or lines too broken to say more) */
	CLI_FRAMING_MORE,    /* the next non-blank line will tell */
	CLI_FRAMING_ARRAY,   /* a JSON array, on one line or many */
	CLI_FRAMING_DOCUMENT /* a JSON document spread over lines (pretty-printed) */
} cli_framing;

/* Judge an input by its first non-blank lines, lines->text[0 .. n) (n >= 1);
 * `eof`: no more lines will come.  Sets *out; returns 0, or -1 when memory
 * ran out. */
int cli_framing_of(const cli_lines *lines, int eof, cli_framing *out);

/* The problem answering a whole input of that framing (ARRAY or DOCUMENT)
 * given to `prog` (e.g. "clash query"): a 400 saying that the tool reads
 * one JSON object per line and how to convert the input.  Returns 0 or -1. */
int cli_framing_problem(const char *prog, cli_framing framing, proto_reply *out);

/* Read the whole of `path` (stdin when NULL or "-") into *text (malloc'd,
 * NULL when empty) and *len.  Messages go to stderr prefixed with `prog`.
 * Returns CLI_EXIT_OK, or CLI_EXIT_ERROR (then *text is NULL). */
int cli_read_input(const char *prog, const char *path, char **text, size_t *len);

/* `clash import`: the mesh file `path` (stdin when NULL or "-") of format
 * `format` ("stl", "obj", "glb", "gltf", "ply"; NULL: from the extension of
 * `path`) written as the import document on stdout, a summary on stderr;
 * or its problem (422) on stdout.  Returns one of the CLI_EXIT_* statuses. */
int cli_import(const char *prog, const char *path, const char *format);

/* Called with the answer of cli_document() when it is not a problem. */
typedef void (*cli_summary_fn)(const char *prog, const proto_reply *answer);

/*
 * Answer the one JSON document that is the whole of `path` (stdin when NULL
 * or "-"), laid out in any way, with one reply body and a newline on
 * stdout, then hand a result (not a problem) to `summary` (NULL: none).
 * Messages go to stderr prefixed with `prog`.  Returns one of the
 * CLI_EXIT_* statuses.
 */
int cli_document(const char *prog, const char *path, cli_reply_fn reply, cli_summary_fn summary);

/* The cli_summary_fn of `clash scene`: one line on stderr with the counts
 * per class, the candidate pairs and whether the list was cut short, e.g.
 * "clash scene: 3 clash, 1 touch, 0 clearance (12 candidate pairs)". */
void cli_scene_summary(const char *prog, const proto_reply *answer);

#endif /* CLI_H */
