/*
 * text_buf.c — the growable text buffer (see text_buf.h): 256 bytes or the
 * first reservation, then doubling; room for the NUL always kept.
 */
#include "text_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int proto_text_reserve(proto_text *t, size_t more)
{
	if (t->failed)
		return -1;
	size_t need = t->len + more + 1;
	if (need <= t->cap)
		return 0;
	/* A first reservation is taken as it is asked (a batch reply, sized
	 * exactly); growth doubles. */
	size_t cap = t->cap ? t->cap : need > 256 ? need : 256;
	while (cap < need)
		cap *= 2;
	char *s = realloc(t->s, cap);
	if (!s) {
		t->failed = 1;
		return -1;
	}
	t->s = s;
	t->cap = cap;
	return 0;
}

void proto_text_vprintf(proto_text *t, const char *fmt, va_list ap)
{
	if (t->failed)
		return;
	va_list again;
	va_copy(again, ap);
	size_t room = t->s ? t->cap - t->len : 0;
	int n = vsnprintf(room ? t->s + t->len : NULL, room, fmt, ap);
	if (n >= 0 && (size_t)n >= room && proto_text_reserve(t, (size_t)n) == 0)
		vsnprintf(t->s + t->len, t->cap - t->len, fmt, again);
	va_end(again);
	if (n < 0)
		t->failed = 1;
	else if (!t->failed)
		t->len += (size_t)n;
}

void proto_text_printf(proto_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	proto_text_vprintf(t, fmt, ap);
	va_end(ap);
}

char *proto_text_finish(proto_text *t, size_t *len)
{
	if (t->failed || proto_text_reserve(t, 0) != 0) {
		free(t->s);
		memset(t, 0, sizeof *t);
		return NULL;
	}
	char *s = t->s;
	s[t->len] = '\0';
	if (len)
		*len = t->len;
	memset(t, 0, sizeof *t);
	return s;
}
