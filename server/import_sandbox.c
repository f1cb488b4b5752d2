/*
 * import_sandbox.c — mesh files read in a helper process (import_sandbox.h).
 *
 * The parent side (on a worker thread): the file into a memfd, the helper
 * spawned with it as standard input and a pipe as standard output, then the
 * pipe read in slices of HELPER_POLL_MS, the cancel flag looked at between
 * them, until the helper closes it; then its exit status.  posix_spawn
 * (glibc's clone with a shared address space, then exec) is safe from a
 * threaded process, where fork is not; every descriptor of clashd but the
 * three is closed in the helper before exec.
 *
 * The helper side: limits first (address space, CPU, no files, no core),
 * death with its parent, then proto_mesh_import() and the result written.
 * Under AddressSanitizer or ThreadSanitizer the address-space limit is left
 * off (their shadow memory alone is terabytes of address space), and so is
 * the file-size limit, so that a sanitizer report the helper writes reaches
 * its log.
 */
#include "import_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh_import.h"
#include "mesh_wire.h"
#include "problem.h"
#include "text_buf.h"

extern char **environ;

#define HELPER_POLL_MS 20 /* how soon a cancel reaches a running helper */
#define HELPER_NOMEM 3    /* the helper's exit status when memory ran out */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HELPER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HELPER_SANITIZED 1
#endif
#endif
#ifndef HELPER_SANITIZED
#define HELPER_SANITIZED 0
#endif

/* ---- the parent ---------------------------------------------------------- */

/* The file in a sealed-off memfd at offset 0, or -1. */
static int file_fd(const char *data, size_t len)
{
	int fd = memfd_create("clashd-import", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Start the helper on `in`, its output to `out`.  0, or an errno. */
static int spawn(const import_sandbox *sb, int in, int out, int format,
                 const proto_request_limits *l, pid_t *pid)
{
	char a[6][24];
	snprintf(a[0], sizeof a[0], "%d", format);
	snprintf(a[1], sizeof a[1], "%zu", l->max_vertices);
	snprintf(a[2], sizeof a[2], "%zu", l->max_shapes);
	snprintf(a[3], sizeof a[3], "%zu", sb->memory);
	snprintf(a[4], sizeof a[4], "%u", sb->cpu_s);
	snprintf(a[5], sizeof a[5], "%ld", (long)getpid());
	char *argv[] = {"clashd", IMPORT_SANDBOX_FLAG, a[0], a[1], a[2], a[3], a[4], a[5], NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE); /* clashd ignores it; the helper dies of it */
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGXCPU);
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	if (!(rc = posix_spawn_file_actions_adddup2(&fa, in, 0)) &&
	    !(rc = posix_spawn_file_actions_adddup2(&fa, out, 1)) &&
	    !(rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) &&
	    !(rc = posix_spawnattr_setsigmask(&at, &none)) &&
	    !(rc = posix_spawnattr_setsigdefault(&at, &dfl)) &&
	    !(rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))
		rc = posix_spawn(pid, "/proc/self/exe", &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* The helper's output until it closes it, at most `most` bytes: 0; 1 when
 * the cancel flag was set or the output grew past `most` (*over set); -1
 * when memory ran out or the pipe failed. */
static int collect(int fd, size_t most, const volatile int *cancel, proto_text *t, int *over)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	for (;;) {
		if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) /* set on the loop */
			return 1;
		int n = poll(&pfd, 1, HELPER_POLL_MS);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			continue;
		if (proto_text_reserve(t, 64 << 10) != 0)
			return -1;
		ssize_t got = read(fd, t->s + t->len, t->cap - t->len - 1);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
		t->len += (size_t)got;
		if (t->len > most) {
			*over = 1;
			return 1;
		}
	}
}

/* What a helper's end says, when it wrote no result. */
static int died(const import_sandbox *sb, int status, proto_problem *p)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == HELPER_NOMEM)
		return proto_problem_whole(
			p,
			"reading the file ran out of memory (the import's limit is "
			"--import-memory %zu bytes)",
			sb->memory);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
		return proto_problem_whole(p,
		                           "reading the file took more than %u s of CPU, the "
		                           "import's limit (--import-cpu)",
		                           sb->cpu_s);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return proto_problem_whole(p,
		                           "the mesh reader was killed: past %u s of CPU "
		                           "(--import-cpu), or by the system for memory",
		                           sb->cpu_s);
	if (WIFSIGNALED(status))
		return proto_problem_whole(
			p,
			"the mesh reader failed on this file (signal %d); within "
			"--import-memory %zu bytes",
			WTERMSIG(status), sb->memory);
	return proto_problem_whole(p, "the mesh reader failed on this file (exit status %d)",
	                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int sandbox_run(void *self, const char *data, size_t len, int format,
                       const proto_request_limits *l, const volatile int *cancel,
                       struct proto_mesh_set *out, struct proto_problem *p, enum proto_limit *which)
{
	const import_sandbox *sb = self;
	memset(out, 0, sizeof *out);
	*which = PROTO_LIMIT_NONE;
	int in = file_fd(data, len), pipefd[2] = {-1, -1};
	if (in < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
		if (in >= 0)
			close(in);
		return proto_problem_whole(p, "the import could not start: %s", strerror(errno));
	}
	pid_t pid;
	int rc = spawn(sb, in, pipefd[1], format, l, &pid);
	close(in);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		return proto_problem_whole(p, "the import could not start: %s", strerror(rc));
	}
	proto_text t = {0};
	int over = 0;
	int r = collect(pipefd[0], proto_mesh_wire_max(l), cancel, &t, &over);
	close(pipefd[0]);
	if (r != 0)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	size_t n = 0;
	char *bytes = proto_text_finish(&t, &n);
	if (r == 0 && !bytes)
		r = -1;
	if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		r = proto_mesh_wire_get(bytes, n, l, out, p, which);
		r = r == 2 ? 1 : r;
	} else if (r == 0)
		r = died(sb, status, p);
	else if (r == 1)
		r = over ? proto_problem_whole(
				   p, "the file's meshes are larger than the server's limits "
				      "(--max-vertices, --max-shapes) allow")
		         : proto_problem_whole(p, "the import was stopped");
	free(bytes);
	return r;
}

/* ---- the helper ---------------------------------------------------------- */

static int set_limit(int what, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = {soft, hard};
	return setrlimit(what, &rl);
}

/* The helper's limits, or -1. */
static int confine(size_t memory, unsigned cpu_s, long parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != (pid_t)parent)
		return -1; /* its parent is gone already */
	/* Never above what clashd itself was given (a container's limit). */
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_max != RLIM_INFINITY && memory > as.rlim_max)
		memory = as.rlim_max;
	if (memory && !HELPER_SANITIZED && set_limit(RLIMIT_AS, memory, memory) != 0)
		return -1;
	if (cpu_s && set_limit(RLIMIT_CPU, cpu_s, (rlim_t)cpu_s + 1) != 0)
		return -1;
	if (!HELPER_SANITIZED && set_limit(RLIMIT_FSIZE, 0, 0) != 0)
		return -1;
	return set_limit(RLIMIT_CORE, 0, 0);
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int import_sandbox_main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "clashd %s: started by clashd itself, not by hand\n",
		        IMPORT_SANDBOX_FLAG);
		return 2;
	}
	proto_request_limits l = {0};
	int format = atoi(argv[2]);
	l.max_vertices = strtoull(argv[3], NULL, 10);
	l.max_shapes = strtoull(argv[4], NULL, 10);
	if (confine(strtoull(argv[5], NULL, 10), (unsigned)strtoul(argv[6], NULL, 10),
	            strtol(argv[7], NULL, 10)) != 0)
		return 2;
	struct stat st;
	if (fstat(0, &st) != 0 || st.st_size < 0)
		return 2;
	size_t len = (size_t)st.st_size;
	const char *data = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, 0, 0) : "";
	if (data == MAP_FAILED)
		return HELPER_NOMEM;
	proto_mesh_set set;
	proto_problem p = {0};
	enum proto_limit which = PROTO_LIMIT_NONE;
	int r = proto_mesh_import(data, len, (proto_mesh_format)format, &l, &set, &p, &which);
	if (r < 0)
		_exit(HELPER_NOMEM);
	if (r == 1 && strstr(p.detail, "bad_alloc"))
		proto_problem_set(&p, 422, NULL,
		                  "reading the file ran out of memory (the import's "
		                  "limit is --import-memory %s bytes)",
		                  argv[5]);
	proto_text t = {0};
	proto_mesh_wire_put(&t, r, &set, &p, which);
	size_t n;
	char *bytes = proto_text_finish(&t, &n);
	/* _exit: nothing of the process is worth tearing down one by one. */
	_exit(!bytes ? HELPER_NOMEM : write_all(1, bytes, n) == 0 ? 0 : 2);
}

proto_importer import_sandbox_importer(import_sandbox *sb)
{
	return (proto_importer){sandbox_run, sb};
}
