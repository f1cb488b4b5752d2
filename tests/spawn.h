/*
 * spawn.h — the one way the tests and the load programs run a program:
 * fork and exec with its standard streams where the caller says (a file of
 * its own, /dev/null, or a pipe back), wait for it within a bound, kill it.
 *
 * A child dies with its parent (PR_SET_PDEATHSIG: a test that crashes or
 * is killed leaves no clashd behind; the signal follows the thread that
 * forked).  No Check calls here: the load programs (tests/load/) use it as
 * the suites do, and each reports a failure its own way.
 */
#ifndef TESTS_SPAWN_H
#define TESTS_SPAWN_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Where a child's standard stream goes, besides a descriptor of ours
 * (> 0).  A zeroed spawn_opts inherits all three. */
enum {
	SPAWN_INHERIT = 0, /* ours */
	SPAWN_NULL = -2,   /* /dev/null (not -1: a failed open() is no choice) */
	SPAWN_PIPE = -3    /* a pipe, whose other end spawned gets */
};

typedef struct spawn_opts {
	const char *file;        /* the program: a path (execv); NULL: argv[0] */
	const char *const *argv; /* NULL-terminated */
	int search;              /* look `file` up in PATH (execvp) */
	int in, out, err;        /* a descriptor, or SPAWN_* */
	const char *env_drop;    /* remove the variables named with this prefix */
	const char *const *env;  /* then set these ("NAME=value"; NULL-terminated) */
	size_t as_limit;         /* RLIMIT_AS of the child, bytes; 0: none */
	int own_group;           /* its own process group (a terminal's ^C is ours) */
} spawn_opts;

typedef struct spawned {
	pid_t pid;
	int in, out, err; /* our ends of the pipes asked for, else -1 */
} spawned;

/* Start the program.  Returns 0 and *c, or -errno (nothing started).  A
 * child that cannot exec says why on its stderr and exits 127. */
int spawn(const spawn_opts *o, spawned *c);

/* Wait for pid's exit, at most `timeout` seconds (< 0: no bound).  Its wait
 * status; -1 when it still runs at the bound (it is left running) or is
 * no child of ours. */
int spawn_wait(pid_t pid, double timeout);

/* SIGKILL pid and reap it. */
void spawn_kill(pid_t pid);

/* SIGTERM, wait up to `timeout` seconds, then SIGKILL.  Its wait status,
 * or -1 when it had to be killed. */
int spawn_stop(pid_t pid, double timeout);

/* Read fd to its end (EINTR retried): the first cap - 1 bytes into buf,
 * NUL-terminated, the rest read and dropped (buf may be NULL, cap 0).
 * Returns the bytes kept. */
size_t spawn_read_all(int fd, char *buf, size_t cap);

/* Run the program to its end: the one stream asked as SPAWN_PIPE (stdout,
 * else stderr; none: nothing) read into buf as spawn_read_all does, then
 * its wait status.  -1 if it could not start. */
int spawn_run(const spawn_opts *o, char *buf, size_t cap);

/* Run the program to its end, its stdout and stderr kept whole (in
 * temporary files, so that neither fills while the other is read): *out
 * and *err malloc'd and NUL-terminated, *out_len the length of *out (each
 * pointer may be NULL: that stream goes to /dev/null).  Its wait status,
 * or -1 if it could not start. */
int spawn_capture(const spawn_opts *o, char **out, size_t *out_len, char **err);

/* All of a file from its start (a pipe: all that is left), malloc'd and
 * NUL-terminated (NULL: out of memory); its length in *len if not NULL. */
char *spawn_slurp(FILE *f, size_t *len);

/* The exit code of a wait status, or -1 when it did not exit (a signal). */
int spawn_exit_code(int status);

#endif
