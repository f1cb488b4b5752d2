/*
 * cancel.h — reading a caller's cancel flag (clash_options.cancel).
 *
 * The flag is set by another thread (a server's deadline or drain) while
 * a query runs: read with an atomic load, so the read is defined under the
 * C11 memory model and visible to ThreadSanitizer.  Relaxed: the flag
 * carries no data, only "stop soon".  The writer stores it atomically too.
 */
#ifndef CLASH_CANCEL_H
#define CLASH_CANCEL_H

/* Whether the flag (NULL: none) asks the query to stop. */
static inline int cancel_requested(const volatile int *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED);
}

#endif /* CLASH_CANCEL_H */
