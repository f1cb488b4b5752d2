/*
 * spawn.c — run a program from a test (spawn.h).
 *
 * The child: death signal, then its streams, then its environment and
 * limits, then exec.  It checks that its parent is still the one that
 * forked (the parent may have died before PR_SET_PDEATHSIG took effect).
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child: remove every variable whose name starts with `prefix`. */
static void drop_env(const char *prefix)
{
	extern char **environ;
	size_t plen = strlen(prefix);
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++)
			if (strncmp(*e, prefix, plen) == 0) {
				char name[256];
				size_t n = strcspn(*e, "=");
				if (n >= sizeof name)
					continue;
				memcpy(name, *e, n);
				name[n] = '\0';
				unsetenv(name);
				again = 1;
				break;
			}
	}
}

/* In the child: stream `to` (0, 1, 2) from `how`; `pipe_end` is the
 * child's end of its pipe.  0, or -1. */
static int child_stream(int to, int how, int pipe_end)
{
	if (how == SPAWN_INHERIT)
		return 0;
	int fd = how == SPAWN_PIPE   ? pipe_end
	         : how == SPAWN_NULL ? open("/dev/null", to == 0 ? O_RDONLY : O_WRONLY)
	                             : how;
	return fd >= 0 && dup2(fd, to) >= 0 ? 0 : -1;
}

static void child(const spawn_opts *o, pid_t parent, const int p[3][2])
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (o->own_group)
		setpgid(0, 0);
	const int how[3] = {o->in, o->out, o->err};
	for (int k = 0; k < 3; k++)
		if (child_stream(k, how[k], p[k][k == 0 ? 0 : 1]) != 0)
			_exit(127);
	for (int k = 0; k < 3; k++)
		if (how[k] == SPAWN_PIPE) {
			close(p[k][0]);
			close(p[k][1]);
		}
	if (o->env_drop)
		drop_env(o->env_drop);
	for (const char *const *e = o->env; e && *e; e++)
		putenv((char *)*e);
	if (o->as_limit) {
		struct rlimit lim = {o->as_limit, o->as_limit};
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(127);
	}
	const char *file = o->file ? o->file : o->argv[0];
	if (o->search)
		execvp(file, (char *const *)o->argv);
	else
		execv(file, (char *const *)o->argv);
	fprintf(stderr, "spawn: cannot run %s: %s\n", file, strerror(errno));
	_exit(127);
}

int spawn(const spawn_opts *o, spawned *c)
{
	int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
	const int how[3] = {o->in, o->out, o->err};
	int rc = 0;
	for (int k = 0; k < 3 && rc == 0; k++)
		if (how[k] == SPAWN_PIPE && pipe(p[k]) != 0)
			rc = -errno;
	pid_t parent = getpid();
	pid_t pid = rc == 0 ? fork() : -1;
	if (pid == 0)
		child(o, parent, (const int(*)[2])p);
	if (pid < 0 && rc == 0)
		rc = -errno;
	/* Ours: the read end of an output, the write end of the input. */
	int ours[3] = {-1, -1, -1};
	for (int k = 0; k < 3; k++) {
		if (p[k][0] < 0)
			continue;
		int mine = k == 0 ? 1 : 0;
		close(p[k][1 - mine]);
		if (rc == 0)
			ours[k] = p[k][mine];
		else
			close(p[k][mine]);
	}
	if (rc != 0)
		return rc;
	c->pid = pid;
	c->in = ours[0];
	c->out = ours[1];
	c->err = ours[2];
	return 0;
}

int spawn_wait(pid_t pid, double timeout)
{
	double deadline = now() + timeout;
	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, timeout < 0 ? 0 : WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (r == 0 && now() > deadline)
			return -1;
		if (r == 0)
			usleep(5000);
	}
}

void spawn_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int spawn_stop(pid_t pid, double timeout)
{
	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	int status = spawn_wait(pid, timeout);
	if (status == -1)
		spawn_kill(pid);
	return status;
}

size_t spawn_read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	char sink[4096];
	for (;;) {
		int keep = buf && n + 1 < cap;
		char *dst = keep ? buf + n : sink;
		size_t room = keep ? cap - 1 - n : sizeof sink;
		ssize_t k = read(fd, dst, room);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (keep)
			n += (size_t)k;
	}
	if (buf && cap)
		buf[n] = '\0';
	return n;
}

int spawn_run(const spawn_opts *o, char *buf, size_t cap)
{
	spawned c;
	if (spawn(o, &c) != 0)
		return -1;
	int fd = c.out >= 0 ? c.out : c.err;
	if (fd >= 0)
		spawn_read_all(fd, buf, cap);
	else if (buf && cap)
		buf[0] = '\0';
	if (c.out >= 0)
		close(c.out);
	if (c.err >= 0)
		close(c.err);
	if (c.in >= 0)
		close(c.in);
	return spawn_wait(c.pid, -1);
}

char *spawn_slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 12, n = 0, got;
	char *s = malloc(cap);
	rewind(f);
	while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2) {
			char *bigger = realloc(s, cap *= 2);
			if (!bigger)
				free(s);
			s = bigger;
		}
	}
	if (s)
		s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

int spawn_capture(const spawn_opts *o, char **out, size_t *out_len, char **err)
{
	FILE *fo = out ? tmpfile() : NULL, *fe = err ? tmpfile() : NULL;
	int status = -1;
	spawned c;
	spawn_opts mine = *o;
	mine.out = fo ? fileno(fo) : SPAWN_NULL;
	mine.err = fe ? fileno(fe) : SPAWN_NULL;
	if ((!out || fo) && (!err || fe) && spawn(&mine, &c) == 0)
		status = spawn_wait(c.pid, -1);
	if (out)
		*out = fo ? spawn_slurp(fo, out_len) : NULL;
	if (err)
		*err = fe ? spawn_slurp(fe, NULL) : NULL;
	if (fo)
		fclose(fo);
	if (fe)
		fclose(fe);
	return status;
}

int spawn_exit_code(int status)
{
	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
