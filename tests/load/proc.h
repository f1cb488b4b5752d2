/*
 * proc.h — the child processes of the failover and soak programs (clashd,
 * haproxy), started so that none can outlive the program.
 *
 * Each child gets PR_SET_PDEATHSIG(SIGKILL), so it dies with the program
 * however the program ends (a crash, a kill); the program's own exits go
 * through proc_fail() or proc_kill_all(), which SIGKILL and reap every
 * child still running; and proc_guard() arms an alarm after which the
 * program kills its children and exits 1 by itself.  Children must be
 * started from the main thread (the death signal follows the thread that
 * forked).
 */
#ifndef TESTS_LOAD_PROC_H
#define TESTS_LOAD_PROC_H

#include <sys/types.h>

#define PROC_MAX 16

/* Start argv[0] (a path) with `env` ("NAME=value", NULL-terminated, may be
 * NULL) added to the environment, stdout and stderr appended to `logpath`.
 * Returns the pid; on failure calls proc_fail(). */
pid_t proc_spawn(const char *const *argv, const char *const *env, const char *logpath);

/* Wait up to `timeout` seconds for pid to exit.  Returns its wait status,
 * or -1 if it is still running (then it is left running). */
int proc_wait(pid_t pid, double timeout);

/* SIGKILL and reap one child. */
void proc_kill(pid_t pid);

/* SIGKILL and reap every child still running. */
void proc_kill_all(void);

/* Print the message, kill every child, exit 1. */
void proc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* After `seconds`, kill every child and exit 1 (a bound on the whole run). */
void proc_guard(unsigned seconds);

/* A loopback TCP port free at the time of the call. */
int proc_free_port(void);

/* The first line of the file at `path` containing `needle`, waiting up to
 * `timeout` seconds for it; copied into out.  0, or -1 if none came. */
int proc_wait_line(const char *path, const char *needle, double timeout, char *out, size_t outlen);

/* Wait up to `timeout` seconds until 127.0.0.1:port accepts connections.
 * 0, or -1. */
int proc_wait_port(int port, double timeout);

/* The loopback port of the clashd logging to `logpath`, from its
 * "listening" line: the one naming `port` when that is known (not 0),
 * else the first; waits up to 10 s, then proc_fail() naming `name`. */
int proc_clashd_port(const char *logpath, int port, const char *name);

/* VmRSS of pid in KiB (/proc/PID/status), or -1. */
long proc_rss_kib(pid_t pid);

/* Its peak (VmHWM) in KiB, or -1: what a freed allocation leaves seen. */
long proc_peak_rss_kib(pid_t pid);

#endif
