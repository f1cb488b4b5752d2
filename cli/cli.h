/*
 * cli.h — the pieces of the clash command-line tool.
 *
 * clash.c holds the command table and main(); each command is one entry with
 * its name, help text and run function.  Commands that answer JSON Lines
 * (one request per line in, one reply per line out) share the driver in
 * jsonl.c, which hands them blocks of lines; `clash query` answers a block
 * as a batch (proto_batch, on several threads: parallel.c), the very code
 * of clashd's POST /v1/batch.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>

#include "proto.h"

/* Exit statuses of clash (documented in its --help). */
enum {
	CLI_EXIT_OK = 0,      /* every line was answered (answers may be problems) */
	CLI_EXIT_FAILURE = 1, /* a read or write failed, or memory ran out */
	CLI_EXIT_USAGE = 2    /* bad command line, or the input cannot be opened */
};

/* Turns one request into a reply; returns 0, or -1 when memory ran out. */
typedef int (*cli_reply_fn)(const char *request, size_t len, proto_reply *out);

/* Answers lines[0 .. n) (not NUL-terminated; lens[i] bytes each), writing
 * one reply body and "\n" per line to `out`, in order.  Returns 0, or -1
 * when memory ran out. */
typedef int (*cli_block_fn)(const char *const *lines, const size_t *lens, size_t n, FILE *out,
                            void *arg);

/*
 * Answer the JSON Lines of `path` (stdin when NULL or "-") on stdout, one
 * reply body per non-blank input line, in order.  A line may be of any
 * length; "\n" or "\r\n" ends it.  Lines are handed to `answer` in blocks:
 * every complete line read so far (at most about a mebibyte of them), so a
 * file goes by in large blocks while a program that writes one line and
 * waits for its answer gets it at once.  When the input is not a regular
 * file (a pipe, a terminal) each block's replies are flushed at once.
 * Messages go to stderr prefixed with `prog`.  Returns one of the
 * CLI_EXIT_* statuses.
 */
int cli_jsonl(const char *prog, const char *path, cli_block_fn answer, void *arg);

/* A cli_block_fn answering each line in turn with the cli_reply_fn that
 * `arg` points to. */
int cli_answer_each(const char *const *lines, const size_t *lens, size_t n, FILE *out,
                    void *arg);

/* A cli_block_fn answering the lines as Queries: one proto_batch of them,
 * shared by `*(unsigned *)arg` threads. */
int cli_answer_batch(const char *const *lines, const size_t *lens, size_t n, FILE *out,
                     void *arg);

/* Answer every query of `b` on `threads` threads (the caller's included),
 * each taking the next few queries in turn.  Returns 0, or -1 when memory
 * ran out. */
int cli_batch_answer(proto_batch *b, unsigned threads);

/* The cores this process may run on (its affinity mask), at least 1. */
unsigned cli_default_threads(void);

/*
 * Answer the one JSON document that is the whole of `path` (stdin when NULL
 * or "-"), laid out in any way, with one reply body and a newline on
 * stdout.  Messages go to stderr prefixed with `prog`.  Returns one of the
 * CLI_EXIT_* statuses (an answer that is a problem is still CLI_EXIT_OK).
 */
int cli_document(const char *prog, const char *path, cli_reply_fn reply);

#endif /* CLI_H */
