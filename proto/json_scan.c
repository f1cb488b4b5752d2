/*
 * json_scan.c — the byte scanner of proto/ (see json_scan.h): strings
 * skipped, brackets counted, lines and columns kept, one byte at a time.
 * The walk is the hot loop of a batch body's split (batch_split.c): it
 * looks at each byte once, strings with a loop of their own.
 */
#include "json_scan.h"

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

size_t json_scan_column(json_scan *sc, size_t to)
{
	for (; sc->col_at < to; sc->col_at++)
		sc->col += ((unsigned char)sc->s[sc->col_at] & 0xC0) != 0x80;
	return sc->col;
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
		case '"':
			i = string_end(s, len, i);
			break;
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
		default: /* '\n' */
			newline(sc, i);
			break;
		}
	}
	sc->i = len;
	return JSON_SCAN_END;
}
