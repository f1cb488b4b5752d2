/*
 * batch_split.c — the queries of {"queries": [q0, q1, ...]} found by a byte
 * scan, so that each can be parsed (and answered) on its own, on any thread.
 *
 * The envelope is read strictly; inside the array the byte scanner
 * (json_scan.h) walks each query, telling strings from structure and
 * counting brackets: a query ends at the first ',' or ']' at its own
 * level.  For valid JSON that is exactly where each element ends; for
 * invalid JSON some piece (or the envelope) is then not JSON, which the
 * caller finds by parsing each piece strictly.  Anything but the plain form
 * is BATCH_SPLIT_OTHER: the caller parses the whole body to say exactly
 * what is wrong.  Each span also records its line and column (as jansson
 * counts them: UTF-8 lead bytes), so that a parser position inside a query
 * can be told relative to the whole body.
 *
 * Why not parse the body whole first: docs/design.md, "proto/endpoints/batch.c,
 * batch_split.c, scene.c".
 */
#include "batch_split.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"

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

enum batch_split_result proto_batch_split(const char *text, size_t len, size_t max,
                                          batch_span **spans, size_t *n)
{
	json_scan sc = json_scan_begin(text, len);
	const char *s = text;
	batch_span *list = NULL;
	size_t count = 0, cap = 0;
	*spans = NULL;
	*n = 0;

	json_scan_ws(&sc);
	if (sc.i >= len || s[sc.i] != '{')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	json_scan_ws(&sc);
	if (sc.i >= len || s[sc.i] != '"')
		return BATCH_SPLIT_OTHER;
	size_t key_end = json_scan_string_end(s, len, sc.i);
	if (key_end >= len || !names_queries(s, sc.i, key_end))
		return BATCH_SPLIT_OTHER;
	sc.i = key_end + 1;
	json_scan_ws(&sc);
	if (sc.i >= len || s[sc.i] != ':')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	json_scan_ws(&sc);
	if (sc.i >= len || s[sc.i] != '[')
		return BATCH_SPLIT_OTHER;
	sc.i++;
	json_scan_ws(&sc);
	if (sc.i < len && s[sc.i] == ']')
		goto array_end;

	for (;;) {
		if (sc.i >= len || s[sc.i] == ',' || s[sc.i] == ']')
			goto other; /* an empty element, or the end of the text */
		size_t start = sc.i, line = sc.line, column = json_scan_column(&sc, start);
		json_scan_walk(&sc, 0, 1);
		size_t i = sc.i;
		if (i >= len || s[i] == '}')
			goto other;
		size_t end = i;
		while (end > start && json_scan_is_ws(s[end - 1]))
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
		json_scan_ws(&sc);
	}
	goto after_array;
array_end:
	sc.i++;
after_array:
	json_scan_ws(&sc);
	if (sc.i >= len || s[sc.i] != '}')
		goto other; /* another member, or the object left open */
	sc.i++;
	json_scan_ws(&sc);
	if (sc.i != len)
		goto other;
	*spans = list;
	*n = count;
	return BATCH_SPLIT_OK;
other:
	free(list);
	return BATCH_SPLIT_OTHER;
}
