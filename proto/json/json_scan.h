/*
 * json_scan.h — the one byte scanner of proto/: JSON text walked without
 * parsing it (json_scan.c), for every place that must know where strings,
 * numbers and brackets are before (or instead of) a parse: the depth limit
 * (request_limits.c), the batch splitter (batch_split.c), the pointer of a
 * parse error (pointer_scan.c), the plain-vertex reader (vertex_scan.c) and
 * the number-overflow check of a batch item (batch.c).
 *
 * Nothing here needs valid JSON: a string runs from '"' to the next
 * unescaped '"' (every escape is ASCII, so an escaped byte is never a
 * quote) or to the end of the text; whatever is misread in broken text, a
 * parse then rejects.
 */
#ifndef PROTO_JSON_SCAN_H
#define PROTO_JSON_SCAN_H

#include <stddef.h>

/* JSON white space: space, tab, newline, carriage return. */
static inline int json_scan_is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The first byte at or after i that is not white space, or len. */
static inline size_t json_scan_skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && json_scan_is_ws(s[i]))
		i++;
	return i;
}

/* A byte of a number as jansson's lexer takes a run of them: digits, '-',
 * '+', '.', 'e', 'E'. */
static inline int json_scan_is_number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* What follows an element of an array or object. */
enum json_scan_next {
	JSON_SCAN_MORE,   /* a ',': *at past it and the blanks after it */
	JSON_SCAN_CLOSED, /* the container's closing byte: *at past it */
	JSON_SCAN_OTHER   /* anything else: *at at it */
};

/* After an element ending at *at, blanks passed: a ',' or `close`. */
static inline enum json_scan_next json_scan_after(const char *s, size_t len, size_t *at, char close)
{
	size_t i = json_scan_skip_ws(s, len, *at);
	if (i < len && s[i] == ',') {
		*at = json_scan_skip_ws(s, len, i + 1);
		return JSON_SCAN_MORE;
	}
	if (i < len && s[i] == close) {
		*at = i + 1;
		return JSON_SCAN_CLOSED;
	}
	*at = i;
	return JSON_SCAN_OTHER;
}

/* The end of the run of number characters that starts at i. */
size_t json_scan_number_end(const char *s, size_t len, size_t i);

/* The index of the quote closing the string that opens at s[i] ('"'), or
 * len when the text ends first. */
size_t json_scan_string_end(const char *s, size_t len, size_t i);

/*
 * A walk through a text that keeps its place in lines and columns as
 * jansson counts them (lines: newlines outside strings; columns:
 * characters, i.e. UTF-8 lead bytes).  Start it with json_scan_begin().
 */
typedef struct json_scan {
	const char *s;
	size_t len;
	size_t i;           /* the next byte */
	size_t line;        /* 1-based, of byte i */
	size_t line_at;     /* the first byte of that line */
	size_t col, col_at; /* characters in [line_at, col_at): a cache */
} json_scan;

static inline json_scan json_scan_begin(const char *s, size_t len)
{
	return (json_scan){s, len, 0, 1, 0, 0, 0};
}

/* Past white space from sc->i, counting lines. */
void json_scan_ws(json_scan *sc);

/* Characters on the current line before byte `to` (>= every earlier
 * `to` on this line: the count goes on from the last one). */
size_t json_scan_column(json_scan *sc, size_t to);

enum json_scan_stop {
	JSON_SCAN_END,     /* the text ended (sc->i == len), perhaps in a string */
	JSON_SCAN_DEEP,    /* sc->i is at a bracket opening level max_depth + 1 */
	JSON_SCAN_BOUNDARY /* sc->i is at a ',', ']' or '}' at level 0 */
};

/* Walk from sc->i over strings and brackets, counting lines, to the first
 * stop: a '[' or '{' that opens level max_depth + 1 (levels counted from
 * where the walk starts; max_depth 0: no limit); with `boundary`, a ',',
 * ']' or '}' at level 0, where the value begun at sc->i ends (without it,
 * a closing bracket at level 0 is passed over); else the end of the text. */
enum json_scan_stop json_scan_walk(json_scan *sc, size_t max_depth, int boundary);

#endif /* PROTO_JSON_SCAN_H */
