/*
 * request_limits.c — request limits: nesting depth on the raw text, then vertex,
 * shape and compound-nesting counts on the parsed tree (see request_limits.h).
 *
 * The depth scan is a walk of the byte scanner (json_scan.h), which only
 * tells strings from structure and needs no valid JSON.  Its cost is
 * a small fraction of parsing, and it keeps a hostile "[[[[..." from
 * building 2048 levels of jansson tree (and the decoder from recursing into
 * them) when the server allows far fewer.
 *
 * The tree walk does not descend into "vertices" or "positions" arrays
 * (their length is all it needs: a flat array's points are its numbers over
 * its shape's "dim"), so it visits few nodes of a normal query.
 */
#include "request_limits.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "pointer.h"
#include "shape_primitive.h"
#include "vertex_table.h"

int proto_limits_depth(const char *text, size_t len, size_t max_depth, proto_problem *p)
{
	if (max_depth == 0)
		return 0;
	json_scan sc = json_scan_begin(text, len);
	if (json_scan_walk(&sc, max_depth, 0) != JSON_SCAN_DEEP)
		return 0;
	size_t at = sc.i;
	char *pointer = proto_pointer_at(text, len, at + 1);
	if (!pointer)
		return -1;
	proto_problem_set(p, 400, pointer,
	                  "arrays and objects nested deeper than the limit of %zu levels",
	                  max_depth);
	p->located = 1;
	p->line = (int)sc.line;
	p->column = (int)json_scan_column(&sc, at + 1); /* the bracket's own column */
	p->position = at + 1;
	return 1;
}

typedef struct walk {
	const proto_request_limits *l;
	const vertex_table *vt;
	proto_problem *p;
	enum proto_limit which;
	size_t shapes; /* seen so far, in document order */
} walk;

static int over(walk *w, enum proto_limit which, const proto_path *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int over(walk *w, enum proto_limit which, const proto_path *at, const char *fmt, ...)
{
	char *pointer = proto_path_render(at);
	if (!pointer)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	proto_problem_setv(w->p, 422, pointer, fmt, ap);
	va_end(ap);
	w->which = which;
	return 1;
}

static int is_shape(const json_t *v)
{
	return json_is_object(v) &&
	       (json_object_get(v, "vertices") != NULL || json_object_get(v, "parts") != NULL ||
	        json_object_get(v, "positions") != NULL || json_object_get(v, "ref") != NULL ||
	        proto_primitive_key(v, NULL) != NULL);
}

size_t proto_limits_points(const json_t *v, const vertex_table *vt, const char **member)
{
	const json_t *verts = json_object_get(v, "vertices");
	if (verts) {
		*member = "vertices";
		/* An array read from the text (vertex_scan.c) has its count there. */
		const vertex_array *read = proto_vertex_lookup(vt, verts);
		if (read && !read->flat)
			return read->n;
		return json_is_array(verts) ? json_array_size(verts) : 0;
	}
	const json_t *flat = json_object_get(v, "positions");
	*member = flat ? "positions" : NULL;
	if (!flat)
		return 0;
	const vertex_array *read = proto_vertex_lookup(vt, flat);
	size_t len = read && read->flat ? read->n : json_is_array(flat) ? json_array_size(flat) : 0;
	const json_t *dim = json_object_get(v, "dim");
	size_t d = 3;
	if (dim) {
		double x = json_is_number(dim) ? json_number_value(dim) : 0;
		d = x >= 1 && x <= 8 && x == (double)(size_t)x ? (size_t)x : 1;
	}
	return (len + d - 1) / d;
}

/* `nesting`: how many shapes enclose v. */
static int walk_value(walk *w, const json_t *v, const proto_path *at, size_t nesting)
{
	const proto_request_limits *l = w->l;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			proto_path el = {at, NULL, i};
			int r = walk_value(w, json_array_get(v, i), &el, nesting);
			if (r)
				return r;
		}
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	size_t inner = nesting;
	if (is_shape(v)) {
		w->shapes++;
		if (l->max_shapes && w->shapes > l->max_shapes)
			return over(
				w, PROTO_LIMIT_SHAPES, at,
				"a request may hold at most %zu shapes (each part of a compound "
				"shape counts): this is one more",
				l->max_shapes);
		if (l->max_part_depth && nesting > l->max_part_depth)
			return over(
				w, PROTO_LIMIT_PART_DEPTH, at,
				"compound shapes may nest at most %zu levels deep: this part is "
				"at level %zu",
				l->max_part_depth, nesting);
		const char *member = NULL;
		size_t nverts = proto_limits_points(v, w->vt, &member);
		if (l->max_vertices && nverts > l->max_vertices) {
			proto_path vp = {at, member, 0};
			if (at && at->key && strcmp(at->key, "mesh") == 0)
				return over(
					w, PROTO_LIMIT_VERTICES, &vp,
					"a mesh may have at most %zu vertices, this one has %zu",
					l->max_vertices, nverts);
			return over(
				w, PROTO_LIMIT_VERTICES, &vp,
				"a shape may have at most %zu vertices, this one has %zu (interior "
				"points can be dropped: only the hull counts)",
				l->max_vertices, nverts);
		}
		inner = nesting + 1;
	}
	const char *key;
	json_t *member;
	json_object_foreach((json_t *)v, key, member) {
		if (inner > nesting &&
		    (strcmp(key, "vertices") == 0 || strcmp(key, "positions") == 0 ||
		     strcmp(key, "indices") == 0))
			continue; /* counted above; points (and a mesh's corners) hold no shapes */
		proto_path m = {at, key, 0};
		int r = walk_value(w, member, &m, inner);
		if (r)
			return r;
	}
	return 0;
}

int proto_limits_tree(const json_t *root, const vertex_table *vt, const proto_request_limits *l,
                      proto_problem *p, enum proto_limit *which)
{
	if (!l->max_vertices && !l->max_shapes && !l->max_part_depth)
		return 0;
	walk w = {l, vt, p, PROTO_LIMIT_NONE, 0};
	int r = walk_value(&w, root, NULL, 0);
	if (r == 1)
		*which = w.which;
	return r;
}
