/*
 * cli.h — the pieces of the clash command-line tool.
 *
 * clash.c holds the command table and main(); each command is one entry with
 * its name, help text and run function.  Commands that answer JSON Lines
 * (one request per line in, one reply per line out) share the driver in
 * jsonl.c and only name the proto_* call that answers a line.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "proto.h"

/* Exit statuses of clash (documented in its --help). */
enum {
	CLI_EXIT_OK = 0,      /* every line was answered (answers may be problems) */
	CLI_EXIT_FAILURE = 1, /* a read or write failed, or memory ran out */
	CLI_EXIT_USAGE = 2    /* bad command line, or the input cannot be opened */
};

/* Turns one request into a reply; returns 0, or -1 when memory ran out. */
typedef int (*cli_reply_fn)(const char *request, size_t len, proto_reply *out);

/*
 * Answer the JSON Lines of `path` (stdin when NULL or "-") on stdout, one
 * reply body per non-blank input line, in order.  A line may be of any
 * length; "\n" or "\r\n" ends it.  When the input is not a regular file
 * (a pipe, a terminal) each reply is flushed at once, so a program can talk
 * to clash a line at a time.  Messages go to stderr prefixed with `prog`.
 * Returns one of the CLI_EXIT_* statuses.
 */
int cli_jsonl(const char *prog, const char *path, cli_reply_fn reply);

/*
 * Answer the one JSON document that is the whole of `path` (stdin when NULL
 * or "-"), laid out in any way, with one reply body and a newline on
 * stdout.  Messages go to stderr prefixed with `prog`.  Returns one of the
 * CLI_EXIT_* statuses (an answer that is a problem is still CLI_EXIT_OK).
 */
int cli_document(const char *prog, const char *path, cli_reply_fn reply);

#endif /* CLI_H */
