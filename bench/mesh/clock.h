/*
 * clock.h — the mesh benchmark's clock and medians (main.c, sweep.c).
 */
#ifndef BENCH_MESH_CLOCK_H
#define BENCH_MESH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double bm_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static inline int bm_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (n >= 1), sorting v. */
static inline double bm_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bm_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
