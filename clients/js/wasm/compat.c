/*
 * compat.c — the sorts of the WebAssembly build (include/compat.h).
 *
 * qsort replaces wasi-libc's: glibc's qsort, which clashd runs with, is a
 * merge sort, hence stable, while musl's (wasi-libc's) smoothsort is not,
 * and the core sorts keys that tie (core/duplicate.c sorts points by one
 * coordinate), so which of two equal keys comes first would differ, and
 * with it the answer's bits.  Every stable sort orders ties alike: this
 * one is a merge sort too.  qsort_r (glibc's, which wasi-libc lacks) is the
 * same sort with the comparator's argument.
 */
#include <stdlib.h>
#include <string.h>

#include "compat.h"

typedef int (*cmp_r)(const void *, const void *, void *);

/* Sort [0, n) of base by merging runs into tmp and back, stably. */
static void merge_sort(unsigned char *base, unsigned char *tmp, size_t n, size_t size, cmp_r cmp,
                       void *arg)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(base, tmp, h, size, cmp, arg);
	merge_sort(base + h * size, tmp, n - h, size, cmp, arg);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		/* The left run's element first on a tie: stable. */
		if (cmp(base + j * size, base + i * size, arg) < 0)
			memcpy(tmp + k++ * size, base + j++ * size, size);
		else
			memcpy(tmp + k++ * size, base + i++ * size, size);
	}
	memcpy(tmp + k * size, base + i * size, (h - i) * size);
	k += h - i;
	memcpy(base, tmp, k * size);
}

/* Without memory for the merge: insertion, stable too. */
static void insertion_sort(unsigned char *base, size_t n, size_t size, cmp_r cmp, void *arg)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(base + j * size, base + (j - 1) * size, arg) < 0; j--)
			for (size_t b = 0; b < size; b++) {
				unsigned char t = base[j * size + b];
				base[j * size + b] = base[(j - 1) * size + b];
				base[(j - 1) * size + b] = t;
			}
}

void qsort_r(void *base, size_t n, size_t size, cmp_r cmp, void *arg)
{
	if (n < 2 || size == 0)
		return;
	unsigned char *tmp = malloc(n * size);
	if (tmp)
		merge_sort(base, tmp, n, size, cmp, arg);
	else
		insertion_sort(base, n, size, cmp, arg);
	free(tmp);
}

static int plain(const void *x, const void *y, void *cmp)
{
	return (*(int (**)(const void *, const void *))cmp)(x, y);
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	qsort_r(base, n, size, plain, &cmp);
}
