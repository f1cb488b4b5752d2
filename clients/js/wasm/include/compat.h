/*
 * compat.h — included before every proto/ file of the WebAssembly build:
 * what glibc declares and wasi-libc (0.0~git20220510) lacks.  getrandom
 * is getentropy (the page's crypto.getRandomValues through WASI's
 * random_get); qsort_r and a stable qsort are compat.c's.
 */
#ifndef CLASHD_WASM_COMPAT_H
#define CLASHD_WASM_COMPAT_H

#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

#define GRND_NONBLOCK 1

/* Up to 256 bytes (getentropy's bound), which is all proto/ asks for. */
static inline ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	(void)flags;
	return getentropy(buf, n) == 0 ? (ssize_t)n : -1;
}

void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
             void *arg);

#endif
