/*
 * pthread.h — the mutexes proto/ uses, for the single-threaded
 * WebAssembly build (wasi-libc 0.0~git20220510 has no threads): nothing
 * ever waits, so each call succeeds and does nothing.
 */
#ifndef CLASHD_WASM_PTHREAD_H
#define CLASHD_WASM_PTHREAD_H

#include <sys/types.h> /* wasi-libc's pthread_mutex_t and pthread_mutexattr_t */

static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	(void)m;
	(void)a;
	return 0;
}

static inline int pthread_mutex_destroy(pthread_mutex_t *m)
{
	(void)m;
	return 0;
}

static inline int pthread_mutex_lock(pthread_mutex_t *m)
{
	(void)m;
	return 0;
}

static inline int pthread_mutex_unlock(pthread_mutex_t *m)
{
	(void)m;
	return 0;
}

#endif
