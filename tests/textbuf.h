/*
 * textbuf.h — a growing NUL-terminated string for the suites that write
 * request bodies and documents piece by piece (check_parse_as_jansson.c,
 * check_batch.c).
 * Allocation failure fails the running Check test.
 */
#ifndef TESTS_TEXTBUF_H
#define TESTS_TEXTBUF_H

#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct textbuf {
	char *s; /* NUL-terminated; free() when done */
	size_t len, cap;
} textbuf;

static inline void textbuf_add(textbuf *t, const char *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap < t->len + n + 1)
			cap *= 2;
		t->s = realloc(t->s, cap);
		ck_assert_ptr_nonnull(t->s);
		t->cap = cap;
	}
	memcpy(t->s + t->len, p, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static inline void textbuf_str(textbuf *t, const char *p)
{
	textbuf_add(t, p, strlen(p));
}

#endif
