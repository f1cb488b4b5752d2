/*
 * counters.c — what the benchmark measures a query with: wall time, the
 * instructions it retired (a count that other processes on a busy machine
 * do not disturb, unlike time), and the heap allocations it made.
 *
 * Instructions: a perf_event_open counter on this thread, user mode only,
 * read around each batch of queries.  Where perf events are not allowed
 * (containers, perf_event_paranoid) the count is reported as unavailable.
 *
 * Allocations: the bench binary defines malloc, calloc, realloc and
 * memalign itself, counting each call and forwarding to glibc's
 * __libc_* entry points.  The dynamic linker binds every library's calls
 * (libstdc++'s operator new, libccd, FCL, Bullet, GLPK) to these
 * definitions, so no LD_PRELOAD is needed; the count during a query loop
 * is the number of allocations the queries made.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t bench_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int insn_fd = -1;

int bench_instructions_open(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	insn_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (insn_fd < 0)
		return -1;
	/* A counter that opens but never counts (some virtual machines) is
	 * as good as none. */
	uint64_t x = bench_instructions();
	volatile double s = 0;
	for (int i = 0; i < 1000; i++)
		s += i;
	if (bench_instructions() == x) {
		close(insn_fd);
		insn_fd = -1;
		return -1;
	}
	return 0;
}

int bench_instructions_ok(void)
{
	return insn_fd >= 0;
}

uint64_t bench_instructions(void)
{
	uint64_t v = 0;
	if (insn_fd < 0 || read(insn_fd, &v, sizeof v) != sizeof v)
		return 0;
	return v;
}

/* ---- allocation counting ------------------------------------------------ */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static uint64_t allocations;

void *malloc(size_t n);
void *calloc(size_t n, size_t s);
void *realloc(void *p, size_t n);
void *memalign(size_t a, size_t n);

void *malloc(size_t n)
{
	allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t s)
{
	allocations++;
	return __libc_calloc(n, s);
}

void *realloc(void *p, size_t n)
{
	allocations++;
	return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n)
{
	allocations++;
	return __libc_memalign(a, n);
}

uint64_t bench_allocations(void)
{
	return allocations;
}
