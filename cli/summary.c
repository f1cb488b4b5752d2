/*
 * summary.c — the one line `clash scene` writes to stderr beside its
 * answer:
 *
 *   clash scene: 3 clash, 1 touch, 0 clearance (12 candidate pairs)
 *
 * every class of the answer's "counts" in its order (so a class the
 * contract adds shows up without a change here), then the candidate pairs
 * of the broad phase, and ", list truncated" when "truncated" is true.
 * Those members close the answer ({"clashes": [...], "candidates": n,
 * "counts": {...}, "truncated": b}), so only its tail is parsed: the list
 * before them may be megabytes.  A key "candidates" followed by ':' cannot
 * appear inside a string of the list (its quotes would be escaped), so
 * the last one is the answer's own.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The answer's closing members as an object, or NULL. */
static json_t *tail_members(const proto_reply *answer)
{
	static const char key[] = "\"candidates\":";
	const char *at = NULL;
	for (const char *p = answer->body; (p = strstr(p, key)) != NULL; p++)
		at = p;
	if (!at)
		return NULL;
	size_t len = answer->length - (size_t)(at - answer->body);
	char *text = malloc(len + 2);
	if (!text)
		return NULL;
	text[0] = '{';
	memcpy(text + 1, at, len);
	text[len + 1] = '\0';
	json_t *j = json_loadb(text, len + 1, 0, NULL);
	free(text);
	return j;
}

void cli_scene_summary(const char *prog, const proto_reply *answer)
{
	json_t *j = tail_members(answer);
	json_t *counts = json_object_get(j, "counts");
	json_t *candidates = json_object_get(j, "candidates");
	if (!json_is_object(counts) || !json_is_integer(candidates)) {
		json_decref(j);
		return;
	}
	fprintf(stderr, "%s: ", prog);
	const char *cls;
	json_t *n;
	const char *sep = "";
	json_object_foreach(counts, cls, n) {
		fprintf(stderr, "%s%" JSON_INTEGER_FORMAT " %s", sep, json_integer_value(n), cls);
		sep = ", ";
	}
	json_int_t c = json_integer_value(candidates);
	fprintf(stderr, " (%" JSON_INTEGER_FORMAT " candidate pair%s%s)\n", c, c == 1 ? "" : "s",
	        json_is_true(json_object_get(j, "truncated")) ? ", list truncated" : "");
	json_decref(j);
}
