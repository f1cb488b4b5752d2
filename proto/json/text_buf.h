/*
 * text_buf.h — the one growable text buffer of proto/ and server/
 * (text_buf.c): replies, problem bodies, pointers and the metrics page are
 * written into a proto_text.  A failed allocation sticks (later writes do
 * nothing) and shows at proto_text_finish(), so a writer checks once, at
 * the end.  Zero-initialized it is empty; proto_text_reserve() sizes it up
 * front.  No JSON here (json_write.h writes numbers and strings into it),
 * and no jansson: server/ includes this header.
 */
#ifndef PROTO_TEXT_BUF_H
#define PROTO_TEXT_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct proto_text {
	char *s;
	size_t len, cap; /* cap > len + 1 while room is left: the NUL fits */
	int failed;
} proto_text;

/* Room for `more` bytes (and the final NUL); 0, or -1 (failed). */
int proto_text_reserve(proto_text *t, size_t more);

/* Bytes as they are. */
static inline void proto_text_put(proto_text *t, const char *p, size_t n)
{
	if (n >= t->cap - t->len && proto_text_reserve(t, n) != 0)
		return;
	memcpy(t->s + t->len, p, n);
	t->len += n;
}

/* One byte. */
static inline void proto_text_putc(proto_text *t, char c)
{
	if (t->len + 1 < t->cap || proto_text_reserve(t, 1) == 0)
		t->s[t->len++] = c;
}

/* A string literal as it is. */
#define PROTO_TEXT_LIT(t, lit) proto_text_put((t), (lit), sizeof(lit) - 1)

/* printf-formatted text (an encoding error fails the buffer). */
void proto_text_printf(proto_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void proto_text_vprintf(proto_text *t, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* The text (NUL-terminated, its length in *len when len is not NULL),
 * which the caller frees; or NULL when an allocation failed (then nothing
 * is left to free).  *t is empty again. */
char *proto_text_finish(proto_text *t, size_t *len);

#endif /* PROTO_TEXT_BUF_H */
