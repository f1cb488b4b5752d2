/*
 * import_sandbox.h — mesh files read in a helper process (import_sandbox.c).
 *
 * libassimp can be made to take gigabytes or minutes by a file of a few
 * hundred bytes, and cannot be stopped from outside.  So clashd never runs
 * it: each import is one short-lived helper, this same program started as
 * `clashd --import-helper ...`, with an address-space and a CPU limit of its
 * own (--import-memory, --import-cpu).  The file goes to it in a memfd, the
 * shapes come back on a pipe (proto/shapes/mesh_wire.h), checked and bounded
 * before clashd accepts them.  The worker waiting for it kills it when the
 * request's cancel flag is set (deadline, drain), so an import never
 * outlives its request.  A helper that dies is a 422 for that upload only.
 */
#ifndef SERVER_IMPORT_SANDBOX_H
#define SERVER_IMPORT_SANDBOX_H

#include <stddef.h>

#include "proto.h"

/* argv[1] of the helper: clashd's main() hands such a run to
 * import_sandbox_main() before reading any flag. */
#define IMPORT_SANDBOX_FLAG "--import-helper"

typedef struct import_sandbox {
	size_t memory;  /* the helper's address space, bytes (0: none) */
	unsigned cpu_s; /* the helper's CPU seconds (0: none) */
} import_sandbox;

/* A reader for proto_context.importer that runs each import in a helper
 * under sb's limits (sb must outlive the context). */
proto_importer import_sandbox_importer(import_sandbox *sb);

/* The helper: argv as import_sandbox_importer's reader passes it; reads the
 * file from standard input, writes the result to standard output.  Returns
 * the exit status (0: a result was written). */
int import_sandbox_main(int argc, char **argv);

#endif /* SERVER_IMPORT_SANDBOX_H */
