/*
 * refs.c — resolving {"ref": id} against the shape store (refs.h).
 *
 * The missing ids are gathered by a walk over the whole parsed request,
 * every object with a well-formed "ref" string counted wherever it is
 * (shapes are the only objects that may have one), so the list does not
 * depend on where the decoder stopped.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "refs.h"
#include "shape_id.h"
#include "shape_tier.h"

int proto_ref_acquire(proto_store *store, const json_t *v, const proto_path *at,
                      proto_store_entry **entry, proto_problem *p)
{
	uint8_t id[PROTO_SHAPE_ID_BYTES];
	if (!json_is_string(v) ||
	    proto_shape_id_parse(json_string_value(v), json_string_length(v), id) != 0)
		return proto_fail(p, at,
		                  "ref must be a shape id, \"sha256:\" and 64 lowercase hex "
		                  "digits (as POST /v1/shapes answers), got %s",
		                  json_is_string(v) ? "another string" : proto_kind_of(v));
	*entry = store ? proto_shape_acquire(store, id) : NULL;
	if (*entry)
		return 0;
	int r = proto_fail(p, at,
	                   "no shape with this id is stored here (never uploaded, evicted, "
	                   "or sent to another server): upload every shape \"missing\" lists "
	                   "with POST /v1/shapes, then send the request again");
	if (r != 1)
		return r;
	p->missing = malloc(sizeof *p->missing);
	if (!p->missing)
		return -1;
	proto_shape_id_format(id, p->missing[0]);
	p->nmissing = 1;
	return 1;
}

/* The ids found so far, in document order. */
typedef struct id_list {
	char (*ids)[PROTO_PROBLEM_ID_SIZE];
	size_t n, cap;
} id_list;

static int add(id_list *l, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		void *grown = realloc(l->ids, cap * sizeof *l->ids);
		if (!grown)
			return -1;
		l->ids = grown;
		l->cap = cap;
	}
	proto_shape_id_format(id, l->ids[l->n++]);
	return 0;
}

/* Positions by id, then by position: the first of equal ids leads. */
static int by_id(const void *x, const void *y, void *list)
{
	const id_list *l = list;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = memcmp(l->ids[i], l->ids[j], PROTO_SHAPE_ID_TEXT);
	return c ? c : (i > j) - (i < j);
}

/* Keep the first of each id, in order: O(n log n) for a scene of many. */
static int dedupe(id_list *l)
{
	size_t *order = malloc((l->n ? l->n : 1) * sizeof *order);
	unsigned char *dup = calloc(l->n ? l->n : 1, 1);
	if (!order || !dup) {
		free(order);
		free(dup);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++)
		order[i] = i;
	qsort_r(order, l->n, sizeof *order, by_id, l);
	for (size_t k = 1; k < l->n; k++)
		dup[order[k]] =
			memcmp(l->ids[order[k]], l->ids[order[k - 1]], PROTO_SHAPE_ID_TEXT) == 0;
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!dup[i])
			memmove(l->ids[kept++], l->ids[i], sizeof l->ids[i]);
	l->n = kept;
	free(order);
	free(dup);
	return 0;
}

static int walk(const json_t *v, proto_store *store, id_list *l)
{
	const char *key;
	json_t *child;
	size_t i;
	if (json_is_object(v)) {
		const json_t *ref = json_object_get(v, "ref");
		uint8_t id[PROTO_SHAPE_ID_BYTES];
		if (json_is_string(ref) &&
		    proto_shape_id_parse(json_string_value(ref), json_string_length(ref), id) ==
		            0 &&
		    !(store && proto_store_has(store, id)) && add(l, id) != 0)
			return -1;
		json_object_foreach((json_t *)v, key, child)
			if (walk(child, store, l) != 0)
				return -1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child)
			if (walk(child, store, l) != 0)
				return -1;
	}
	return 0;
}

int proto_refs_missing(const json_t *root, proto_store *store, proto_problem *p)
{
	if (p->nmissing == 0)
		return 0;
	/* The decoder's own id first: it may have been uploaded meanwhile. */
	id_list l = {p->missing, 1, 1};
	p->missing = NULL;
	p->nmissing = 0;
	int r = walk(root, store, &l);
	if (r == 0)
		r = dedupe(&l);
	p->missing = l.ids;
	p->nmissing = l.n;
	return r;
}
