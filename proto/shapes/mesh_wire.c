/*
 * mesh_wire.c — a mesh import's result as bytes (mesh_wire.h).
 *
 *   u32 magic, u32 kind
 *   kind 0 (shapes):  u32 count, then per shape: u32 name length, the name,
 *                     u64 n, u64 t, 16 doubles (matrix), 3n doubles, 3t u32
 *   kind 1 (problem): i32 status, u32 limit, u32 length, the detail
 *
 * The reader takes nothing on trust: each length is checked against what is
 * left before anything is allocated, the totals against the request's
 * limits, and each shape as proto_mesh_import() promises it (a name of
 * valid UTF-8, finite numbers, indices in range, no triangle with two
 * equal corners, at least one triangle).
 */
#include "mesh_wire.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC 0x4d494c43u /* "CLIM" */
#define WIRE_NAME_MAX 1024     /* assimp's own bound on a name */

size_t proto_mesh_wire_max(const proto_request_limits *l)
{
	size_t shapes = l->max_shapes ? l->max_shapes : 1u << 20;
	size_t v = l->max_vertices ? l->max_vertices : (size_t)1 << 26;
	return 12 + shapes * (4 + WIRE_NAME_MAX + 16 + 16 * sizeof(double)) +
	       v * 3 * sizeof(double) +
	       v * PROTO_MESH_WIRE_TRIANGLES_PER_VERTEX * 3 * sizeof(uint32_t);
}

static void put_u32(proto_text *t, uint32_t x)
{
	proto_text_put(t, (const char *)&x, sizeof x);
}

static void put_u64(proto_text *t, uint64_t x)
{
	proto_text_put(t, (const char *)&x, sizeof x);
}

void proto_mesh_wire_put(proto_text *t, int rc, const proto_mesh_set *set, const proto_problem *p,
                         enum proto_limit which)
{
	put_u32(t, WIRE_MAGIC);
	put_u32(t, rc == 0 ? 0 : 1);
	if (rc != 0) {
		int32_t status = p->status;
		size_t n = strnlen(p->detail, sizeof p->detail);
		proto_text_put(t, (const char *)&status, sizeof status);
		put_u32(t, (uint32_t)which);
		put_u32(t, (uint32_t)n);
		proto_text_put(t, p->detail, n);
		return;
	}
	put_u32(t, (uint32_t)set->n);
	for (size_t i = 0; i < set->n; i++) {
		const proto_mesh_shape *s = &set->shapes[i];
		size_t n = strlen(s->name);
		put_u32(t, (uint32_t)n);
		proto_text_put(t, s->name, n);
		put_u64(t, s->n);
		put_u64(t, s->t);
		proto_text_put(t, (const char *)s->matrix, sizeof s->matrix);
		proto_text_put(t, (const char *)s->positions, 3 * s->n * sizeof *s->positions);
		proto_text_put(t, (const char *)s->indices, 3 * s->t * sizeof *s->indices);
	}
}

/* The reader's place in the bytes. */
typedef struct wire {
	const char *d;
	size_t left;
} wire;

/* The next n bytes into `to` (NULL: skipped); 0, or -1 when fewer are left. */
static int take(wire *w, void *to, size_t n)
{
	if (n > w->left)
		return -1;
	if (to)
		memcpy(to, w->d, n);
	w->d += n;
	w->left -= n;
	return 0;
}

static int malformed(proto_problem *p, const char *what)
{
	int r = proto_problem_whole(p, "the import helper's answer is not well formed (%s)", what);
	return r == 1 ? 2 : r;
}

static int over(proto_problem *p, enum proto_limit *which, enum proto_limit lim, const char *fmt,
                size_t n)
{
	*which = lim;
	return proto_problem_whole(p, fmt, n);
}

static int get_problem(wire *w, proto_problem *p, enum proto_limit *which)
{
	int32_t status;
	uint32_t lim, n;
	if (take(w, &status, sizeof status) || take(w, &lim, sizeof lim) || take(w, &n, sizeof n) ||
	    n >= sizeof p->detail || n != w->left)
		return malformed(p, "a problem's length");
	if (status != 422 || lim > PROTO_LIMIT_QUERIES)
		return malformed(p, "a problem's status");
	char detail[sizeof p->detail];
	memcpy(detail, w->d, n);
	detail[n] = '\0';
	json_t *valid = json_string(detail); /* NULL: not UTF-8 */
	if (!valid || memchr(detail, 0, n))
		return json_decref(valid), malformed(p, "a problem's text");
	json_decref(valid);
	*which = (enum proto_limit)lim;
	return proto_problem_whole(p, "%s", detail);
}

/* One shape's name, counts and matrix; its arrays are read by get_arrays. */
static int get_head(wire *w, proto_mesh_shape *s, proto_problem *p)
{
	uint32_t n;
	if (take(w, &n, sizeof n) || n == 0 || n >= WIRE_NAME_MAX || n > w->left)
		return malformed(p, "a shape's name length");
	s->name = malloc(n + 1);
	if (!s->name)
		return -1;
	take(w, s->name, n);
	s->name[n] = '\0';
	json_t *valid = json_string(s->name);
	if (!valid || strlen(s->name) != n)
		return json_decref(valid), malformed(p, "a shape's name");
	json_decref(valid);
	uint64_t nv, nt;
	if (take(w, &nv, sizeof nv) || take(w, &nt, sizeof nt) ||
	    take(w, s->matrix, sizeof s->matrix))
		return malformed(p, "a shape's counts");
	for (int k = 0; k < 16; k++)
		if (!isfinite(s->matrix[k]))
			return malformed(p, "a matrix that is not finite");
	if (nv < 3 || nt < 1 || nv > w->left / 24 || nt > w->left / 12 ||
	    24 * nv + 12 * nt > w->left)
		return malformed(p, "a shape's vertex and triangle counts");
	s->n = (size_t)nv;
	s->t = (size_t)nt;
	return 0;
}

static int get_arrays(wire *w, proto_mesh_shape *s, proto_problem *p)
{
	s->positions = malloc(3 * s->n * sizeof *s->positions);
	s->indices = malloc(3 * s->t * sizeof *s->indices);
	if (!s->positions || !s->indices)
		return -1;
	take(w, s->positions, 3 * s->n * sizeof *s->positions);
	take(w, s->indices, 3 * s->t * sizeof *s->indices);
	for (size_t k = 0; k < 3 * s->n; k++)
		if (!isfinite(s->positions[k]))
			return malformed(p, "a vertex that is not finite");
	for (size_t f = 0; f < s->t; f++) {
		const uint32_t *c = &s->indices[3 * f];
		if (c[0] >= s->n || c[1] >= s->n || c[2] >= s->n || c[0] == c[1] || c[1] == c[2] ||
		    c[0] == c[2])
			return malformed(p, "a triangle's indices");
	}
	return 0;
}

static int get_shapes(wire *w, const proto_request_limits *l, proto_mesh_set *out, proto_problem *p,
                      enum proto_limit *which)
{
	uint32_t count;
	if (take(w, &count, sizeof count) || count == 0 || count > w->left / 64)
		return malformed(p, "the number of shapes");
	if (l->max_shapes && count > l->max_shapes)
		return over(p, which, PROTO_LIMIT_SHAPES,
		            "the file places more than %zu meshes, the "
		            "server's limit of shapes in one request (--max-shapes)",
		            l->max_shapes);
	out->shapes = calloc(count, sizeof *out->shapes);
	if (!out->shapes)
		return -1;
	size_t vertices = 0, triangles = 0;
	size_t most_t = l->max_vertices * PROTO_MESH_WIRE_TRIANGLES_PER_VERTEX;
	for (uint32_t i = 0; i < count; i++) {
		proto_mesh_shape *s = &out->shapes[out->n++];
		int r = get_head(w, s, p);
		if (r)
			return r;
		vertices += s->n;
		triangles += s->t;
		if (l->max_vertices && vertices > l->max_vertices)
			return over(p, which, PROTO_LIMIT_VERTICES,
			            "the file's meshes have more than %zu "
			            "vertices in all, the server's limit (--max-vertices)",
			            l->max_vertices);
		if (l->max_vertices && triangles > most_t)
			return over(p, which, PROTO_LIMIT_VERTICES,
			            "the file's meshes have more than %zu "
			            "triangles in all, 8 per vertex of the server's limit "
			            "(--max-vertices)",
			            most_t);
		if ((r = get_arrays(w, s, p)) != 0)
			return r;
	}
	return w->left == 0 ? 0 : malformed(p, "bytes after the last shape");
}

int proto_mesh_wire_get(const char *data, size_t len, const proto_request_limits *l,
                        proto_mesh_set *out, proto_problem *p, enum proto_limit *which)
{
	memset(out, 0, sizeof *out);
	*which = PROTO_LIMIT_NONE;
	wire w = {data, len};
	uint32_t magic, kind;
	int r;
	if (take(&w, &magic, sizeof magic) || take(&w, &kind, sizeof kind) || magic != WIRE_MAGIC ||
	    kind > 1)
		r = malformed(p, "its header");
	else
		r = kind ? get_problem(&w, p, which) : get_shapes(&w, l, out, p, which);
	if (r)
		proto_mesh_set_free(out);
	return r;
}
