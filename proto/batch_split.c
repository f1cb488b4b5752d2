/*
 * batch_split.c — the queries of {"queries": [q0, q1, ...]} found by a byte
 * scan, so that each can be parsed (and answered) on its own, on any thread.
 *
 * The scanner walks the envelope strictly and, inside the array, only tells
 * strings from structure (a string runs from '"' to the next unescaped '"')
 * and counts bracket depth: a query ends at the first ',' or ']' at its own
 * level.  For valid JSON that is exactly where each element ends; for
 * invalid JSON some piece (or the envelope) is then not JSON, which the
 * caller finds by parsing each piece strictly.  Anything but the plain form
 * is BATCH_SPLIT_OTHER: the caller parses the whole body to say exactly
 * what is wrong.  Each span also records its line and column (as jansson
 * counts them: UTF-8 lead bytes), so that a parser position inside a query
 * can be told relative to the whole body.
 *
 * Why not parse the body whole first, and what the plain form is:
 * docs/design.md, "proto/batch_split.c".
 */
#include "batch_split.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
	const char *s;
	size_t len, i;
	size_t line;     /* of byte i */
	size_t col;      /* characters on the line before byte col_pos */
	size_t col_pos;
} scan;

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(scan *sc)
{
	while (sc->i < sc->len && is_ws((unsigned char)sc->s[sc->i])) {
		if (sc->s[sc->i] == '\n') {
			sc->line++;
			sc->col = 0;
			sc->col_pos = sc->i + 1;
		}
		sc->i++;
	}
}

/* The index of the quote closing the string that opens at i, or len. */
static size_t string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++; /* the escaped byte is no quote (all escapes are ASCII) */
		else if (s[i] == '"')
			return i;
	}
	return len;
}

/* The string [a, b] (quotes included) is "queries", escapes decoded. */
static int names_queries(const char *s, size_t a, size_t b)
{
	static const char want[] = "queries";
	const size_t n = sizeof want - 1;
	if (!memchr(s + a, '\\', b - a))
		return b - a - 1 == n && memcmp(s + a + 1, want, n) == 0;
	json_error_t e;
	json_t *v = json_loadb(s + a, b - a + 1, JSON_DECODE_ANY, &e);
	int is = json_is_string(v) && json_string_length(v) == n &&
	         memcmp(json_string_value(v), want, n) == 0;
	json_decref(v);
	return is;
}

/* Characters (UTF-8 lead bytes) before byte `to` on the current line. */
static size_t column_at(scan *sc, size_t to)
{
	for (; sc->col_pos < to; sc->col_pos++)
		sc->col += ((unsigned char)sc->s[sc->col_pos] & 0xC0) != 0x80;
	return sc->col;
}

enum batch_split_result proto_batch_split(const char *text, size_t len, size_t max,
                                          batch_span **spans, size_t *n)
{
	scan sc = {text, len, 0, 1, 0, 0};
	const char *s = text;
	batch_span *list = NULL;
	size_t count = 0, cap = 0;
	*spans = NULL;
	*n = 0;

	skip_ws(&sc);
	if (sc.i >= len || s[sc.i] != '{')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	skip_ws(&sc);
	if (sc.i >= len || s[sc.i] != '"')
		return BATCH_SPLIT_OTHER;
	size_t key_end = string_end(s, len, sc.i);
	if (key_end >= len || !names_queries(s, sc.i, key_end))
		return BATCH_SPLIT_OTHER;
	sc.i = key_end + 1;
	skip_ws(&sc);
	if (sc.i >= len || s[sc.i] != ':')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	skip_ws(&sc);
	if (sc.i >= len || s[sc.i] != '[')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	skip_ws(&sc);
	if (sc.i < len && s[sc.i] == ']')
		goto array_end;

	for (;;) {
		if (sc.i >= len || s[sc.i] == ',' || s[sc.i] == ']')
			goto other; /* an empty element, or the end of the text */
		size_t start = sc.i, line = sc.line, column = column_at(&sc, start);
		size_t depth = 0;
		size_t i = sc.i;
		for (; i < len; i++) {
			unsigned char c = (unsigned char)s[i];
			if (c == '"') {
				i = string_end(s, len, i);
				if (i >= len)
					goto other;
			} else if (c == '[' || c == '{') {
				depth++;
			} else if (c == ']' || c == '}') {
				if (depth == 0)
					break;
				depth--;
			} else if (c == ',') {
				if (depth == 0)
					break;
			} else if (c == '\n') {
				sc.line++;
				sc.col = 0;
				sc.col_pos = i + 1;
			}
		}
		if (i >= len || s[i] == '}')
			goto other;
		size_t end = i;
		while (end > start && is_ws((unsigned char)s[end - 1]))
			end--;
		if (max && count == max) {
			free(list);
			*n = count + 1;
			return BATCH_SPLIT_TOO_MANY;
		}
		if (count == cap) {
			size_t grown = cap ? 2 * cap : 64;
			batch_span *l = realloc(list, grown * sizeof *l);
			if (!l) {
				free(list);
				return BATCH_SPLIT_NOMEM;
			}
			list = l;
			cap = grown;
		}
		list[count++] = (batch_span){start, end - start, line, column};
		sc.i = i + 1;
		if (s[i] == ']')
			break;
		skip_ws(&sc);
	}
	goto after_array;
array_end:
	sc.i++;
after_array:
	skip_ws(&sc);
	if (sc.i >= len || s[sc.i] != '}')
		goto other; /* another member, or the object left open */
	sc.i++;
	skip_ws(&sc);
	if (sc.i != len)
		goto other;
	*spans = list;
	*n = count;
	return BATCH_SPLIT_OK;
other:
	free(list);
	return BATCH_SPLIT_OTHER;
}
