/*
 * scene_tally.c — proto_scene_tally_of() (proto.h): the counts of a Scene
 * answer read back from its text, for the clash tool's summary line.
 *
 * The members read close the answer ({"clashes": [...], "candidates": n,
 * "counts": {...}, "truncated": b}, as scene.c writes it), so only its tail
 * is parsed: the list before them may be megabytes.  A key "candidates"
 * followed by ':' cannot appear inside a string of the list (its quotes
 * would be escaped), so the last one is the answer's own.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* The answer's closing members as an object in *out (NULL when the body
 * has none that parse).  Returns 0, or -1 when memory ran out. */
static int tail_members(const char *body, size_t len, json_t **out)
{
	static const char key[] = "\"candidates\":";
	const char *at = NULL;
	for (const char *p = body; (p = memmem(p, len - (size_t)(p - body), key, sizeof key - 1));
	     p++)
		at = p;
	*out = NULL;
	if (!at)
		return 0;
	size_t n = len - (size_t)(at - body);
	char *text = malloc(n + 2);
	if (!text)
		return -1;
	text[0] = '{';
	memcpy(text + 1, at, n);
	text[n + 1] = '\0';
	json_error_t e;
	*out = json_loadb(text, n + 1, 0, &e);
	free(text);
	return *out || json_error_code(&e) != json_error_out_of_memory ? 0 : -1;
}

/* The classes of `counts` in *t, their names in the same block. */
static int copy_counts(json_t *counts, proto_scene_tally *t)
{
	size_t n = json_object_size(counts), names = 0;
	const char *cls;
	json_t *v;
	json_object_foreach(counts, cls, v)
		names += strlen(cls) + 1;
	t->counts = malloc(n * sizeof *t->counts + names);
	if (!t->counts)
		return -1;
	char *name = (char *)(t->counts + n);
	json_object_foreach(counts, cls, v) {
		size_t k = strlen(cls) + 1;
		memcpy(name, cls, k);
		t->counts[t->ncounts++] = (proto_scene_count){name, json_integer_value(v)};
		name += k;
	}
	return 0;
}

int proto_scene_tally_of(const char *body, size_t len, proto_scene_tally *out)
{
	memset(out, 0, sizeof *out);
	json_t *j;
	if (tail_members(body, len, &j) != 0)
		return -1;
	json_t *counts = json_object_get(j, "counts");
	json_t *candidates = json_object_get(j, "candidates");
	int r = 0;
	if (json_is_object(counts) && json_is_integer(candidates)) {
		out->candidates = json_integer_value(candidates);
		out->truncated = json_is_true(json_object_get(j, "truncated"));
		r = copy_counts(counts, out) == 0 ? 1 : -1;
		if (r < 0)
			memset(out, 0, sizeof *out);
	}
	json_decref(j);
	return r;
}

void proto_scene_tally_free(proto_scene_tally *t)
{
	free(t->counts);
	memset(t, 0, sizeof *t);
}
