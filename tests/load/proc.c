/*
 * proc.c — child processes that cannot outlive their parent (proc.h).
 */
#include "proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../spawn.h"

static volatile pid_t children[PROC_MAX];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void forget(pid_t pid)
{
	for (int i = 0; i < PROC_MAX; i++)
		if (children[i] == pid)
			children[i] = 0;
}

pid_t proc_spawn(const char *const *argv, const char *const *env, const char *logpath)
{
	int slot = -1;
	for (int i = 0; i < PROC_MAX && slot < 0; i++)
		if (children[i] == 0)
			slot = i;
	if (slot < 0)
		proc_fail("proc: more than %d children", PROC_MAX);
	int out = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out < 0)
		proc_fail("proc: cannot open %s: %s", logpath, strerror(errno));
	/* Its own process group: a terminal's ^C reaches us, not it. */
	spawn_opts o = {.argv = argv,
	                .in = SPAWN_NULL,
	                .out = out,
	                .err = out,
	                .env = env,
	                .own_group = 1};
	spawned c;
	int rc = spawn(&o, &c);
	if (rc != 0)
		proc_fail("proc: cannot start %s: %s", argv[0], strerror(-rc));
	pid_t pid = c.pid;
	close(out);
	children[slot] = pid;
	return pid;
}

int proc_wait(pid_t pid, double timeout)
{
	int status = spawn_wait(pid, timeout);
	if (status == -1) {
		/* Still running (left so), or no child of ours any more. */
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == 0)
			return -1;
		if (r != pid)
			status = -1;
	}
	forget(pid);
	return status;
}

void proc_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	spawn_kill(pid);
	forget(pid);
}

void proc_kill_all(void)
{
	for (int i = 0; i < PROC_MAX; i++)
		if (children[i] > 0)
			proc_kill(children[i]);
}

void proc_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	proc_kill_all();
	exit(1);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "proc: time limit reached: killing every child\n";
	ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)ignored;
	for (int i = 0; i < PROC_MAX; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
	_exit(1);
}

void proc_guard(unsigned seconds)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* ^C and kill (not -9) end the children too. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	alarm(seconds);
}

int proc_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		proc_fail("proc: no free port: %s", strerror(errno));
	close(fd);
	return ntohs(a.sin_port);
}

int proc_wait_line(const char *path, const char *needle, double timeout, char *out, size_t outlen)
{
	double deadline = now() + timeout;
	for (;;) {
		FILE *f = fopen(path, "r");
		char line[8192];
		while (f && fgets(line, sizeof line, f))
			if (strstr(line, needle)) {
				fclose(f);
				snprintf(out, outlen, "%s", line);
				return 0;
			}
		if (f)
			fclose(f);
		if (now() > deadline)
			return -1;
		usleep(20000);
	}
}

int proc_wait_port(int port, double timeout)
{
	double deadline = now() + timeout;
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {0};
		a.sin_family = AF_INET;
		a.sin_port = htons((uint16_t)port);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			return 0;
		if (now() > deadline)
			return -1;
		usleep(20000);
	}
}

/* A "Name: N kB" line of the process's status. */
static long status_kib(pid_t pid, const char *format)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, format, &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

long proc_rss_kib(pid_t pid)
{
	return status_kib(pid, "VmRSS: %ld kB");
}

long proc_peak_rss_kib(pid_t pid)
{
	return status_kib(pid, "VmHWM: %ld kB");
}

int proc_clashd_port(const char *logpath, int port, const char *name)
{
	char line[8192], needle[96];
	if (port)
		snprintf(needle, sizeof needle, "\"listen\":\"127.0.0.1:%d\"", port);
	else
		snprintf(needle, sizeof needle, "\"msg\":\"listening\"");
	if (proc_wait_line(logpath, needle, 10, line, sizeof line) != 0)
		proc_fail("%s did not start (see %s)", name, logpath);
	const char *p = strstr(line, "\"listen\":\"127.0.0.1:");
	int got = p ? atoi(p + strlen("\"listen\":\"127.0.0.1:")) : 0;
	if (got <= 0)
		proc_fail("%s: no address in %s", name, line);
	return got;
}
