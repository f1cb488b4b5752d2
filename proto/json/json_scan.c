/*
 * json_scan.c — the byte scanner of proto/ (see json_scan.h): strings
 * skipped, brackets counted, lines and columns kept.  The walk and the
 * columns are the hot loops of a batch body's split (batch_split.c):
 * plain bytes pass the walk with a table lookup each, and columns are
 * counted eight bytes at a time.
 */
#include "json_scan.h"

#include <stdint.h>
#include <string.h>

size_t json_scan_number_end(const char *s, size_t len, size_t i)
{
	while (i < len && json_scan_is_number_char(s[i]))
		i++;
	return i;
}

/* The closing quote of the string opening at s[i], or len. */
static inline size_t string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++; /* the escaped byte is no quote (all escapes are ASCII) */
		else if (s[i] == '"')
			return i;
	}
	return len;
}

size_t json_scan_string_end(const char *s, size_t len, size_t i)
{
	return string_end(s, len, i);
}

static void newline(json_scan *sc, size_t i)
{
	sc->line++;
	sc->line_at = sc->col_at = i + 1;
	sc->col = 0;
}

void json_scan_ws(json_scan *sc)
{
	while (sc->i < sc->len && json_scan_is_ws(sc->s[sc->i])) {
		if (sc->s[sc->i] == '\n')
			newline(sc, sc->i);
		sc->i++;
	}
}

/* Characters are the bytes that are no UTF-8 continuation (10xxxxxx),
 * counted eight at a time: a continuation byte has bit 7 set and bit 6
 * clear, so x & ~(x << 1) keeps bit 7 of exactly those bytes (the shift
 * carries no bit into another byte's bit 7); a multiplication sums the
 * eight flags into the top byte. */
size_t json_scan_column(json_scan *sc, size_t to)
{
	const unsigned char *s = (const unsigned char *)sc->s;
	size_t i = sc->col_at, col = sc->col;
	for (; i + 8 <= to; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, sizeof x);
		uint64_t cont = (x & ~(x << 1) & 0x8080808080808080ull) >> 7; /* 0 or 1 a byte */
		col += 8 - (size_t)((cont * 0x0101010101010101ull) >> 56);
	}
	for (; i < to; i++)
		col += (s[i] & 0xC0) != 0x80;
	if (to > sc->col_at) {
		sc->col = col;
		sc->col_at = to;
	}
	return col;
}

/* The bytes the walk stops at; any other is passed in a tight loop (most
 * of a body is numbers). */
static const unsigned char structural[256] = {
	['"'] = 1, ['['] = 1, ['{'] = 1, [']'] = 1, ['}'] = 1, [','] = 1, ['\n'] = 1,
};

enum json_scan_stop json_scan_walk(json_scan *sc, size_t max_depth, int boundary)
{
	const char *s = sc->s;
	const size_t len = sc->len;
	size_t depth = 0;
	for (size_t i = sc->i; i < len; i++) {
		while (i < len && !structural[(unsigned char)s[i]])
			i++;
		if (i >= len)
			break;
		switch (s[i]) {
		case '"': i = string_end(s, len, i); break;
		case '[':
		case '{':
			if (++depth > max_depth && max_depth) {
				sc->i = i;
				return JSON_SCAN_DEEP;
			}
			break;
		case ']':
		case '}':
			if (depth > 0) {
				depth--;
				break;
			}
			if (boundary) {
				sc->i = i;
				return JSON_SCAN_BOUNDARY;
			}
			break;
		case ',':
			if (boundary && depth == 0) {
				sc->i = i;
				return JSON_SCAN_BOUNDARY;
			}
			break;
		default: /* '\n' */ newline(sc, i); break;
		}
	}
	sc->i = len;
	return JSON_SCAN_END;
}
