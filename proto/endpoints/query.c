/*
 * query.c — the Query decoder: jansson tree -> proto_query, or a 422 problem
 * naming the first value that breaks the contract.
 *
 * Checks run in a fixed order, so that the answer for a request with several
 * faults is predictable: unknown members of the top-level object (in
 * document order), then "a" and "b" (each: members, vertices point by point
 * or parts part by part, radius, pose, pose_end), then method, tolerance,
 * max_iterations, warm (members, plane, then a and b) and want.  The
 * dimension of a query is that of its first point; every other point must
 * match it.  A compound shape {"parts": [shape, ...]} is decoded depth first
 * into malloc'd clash_shape arrays, the core's limits
 * (CLASH_COMPOUND_MAX_DEPTH, CLASH_COMPOUND_MAX_LEAVES) checked before
 * anything is allocated for a part beyond them.  Every number arrives as a
 * real (JSON_DECODE_INT_AS_REAL), so indices and counts are checked to be
 * integral here.
 *
 * pose_end, the flat "positions" form, where the first point is, and what
 * never reaches this file: docs/design.md, "proto/endpoints/query.c".
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "mesh_decode.h"
#include "pointer.h"
#include "query.h"
#include "refs.h"
#include "shape_primitive.h"
#include "stored_shape.h"
#include "vertex_table.h"

static int number(const json_t *v, const proto_path *at, const char *what, double *out,
                  proto_problem *p)
{
	if (!json_is_number(v))
		return proto_fail(p, at, "%s must be a number, got %s", what, proto_kind_of(v));
	*out = json_number_value(v);
	return 0;
}

/* An integral number in [lo, hi]. */
static int integer(const json_t *v, const proto_path *at, const char *what, double lo, double hi,
                   double *out, proto_problem *p)
{
	int r = number(v, at, what, out, p);
	if (r)
		return r;
	if (*out != floor(*out))
		return proto_fail(p, at, "%s must be an integer, got %.17g", what, *out);
	if (*out < lo || *out > hi)
		return proto_fail(p, at, "%s must be between %.17g and %.17g, got %.17g", what, lo,
		                  hi, *out);
	return 0;
}

/* An array of exactly n numbers. */
static int numbers(const json_t *v, const proto_path *at, const char *what, size_t n, double *out,
                   proto_problem *p)
{
	if (!json_is_array(v))
		return proto_fail(p, at, "%s must be an array of %zu numbers, got %s", what, n,
		                  proto_kind_of(v));
	if (json_array_size(v) != n)
		return proto_fail(p, at, "%s must have %zu numbers, got %zu", what, n,
		                  json_array_size(v));
	for (size_t i = 0; i < n; i++) {
		proto_path el = {at, NULL, i};
		const json_t *x = json_array_get(v, i);
		if (!json_is_number(x))
			return proto_fail(p, &el, "each element of %s must be a number, got %s",
			                  what, proto_kind_of(x));
		out[i] = json_number_value(x);
	}
	return 0;
}

/* Where decoding the shapes is: the query's dimension (0 until the first
 * point sets it) and that point's pointer, for messages; the convex parts
 * of the current top-level shape so far. */
typedef struct shape_walk {
	proto_query *q;
	int dim;
	char first[128];
	size_t leaves;
	/* Where a top-level shape's "pose_end" goes (NULL: not allowed), and
	 * the flag it sets. */
	clash_motion *motion;
	int *moving;
	const vertex_table *vt; /* the arrays read beside the tree, or NULL */
	proto_store *store;     /* where refs are found, or NULL */
	int stored;             /* a shape to store: no pose, pose_end or ref */
	double weld;            /* of meshes without their own */
	/* The first shape only method gjk answers (a mesh or a curved
	 * primitive): its pointer, rendered, and what it is; or NULL. */
	const char *gjk_only;
	char gjk_only_at[160];
} shape_walk;

/* Keep `block` (malloc'd) until proto_query_release.  -1 (and block freed)
 * when memory ran out. */
static int own(proto_query *q, void *block)
{
	if (q->nowned == q->owned_cap) {
		size_t cap = q->owned_cap ? 2 * q->owned_cap : 16;
		void **grown = realloc(q->owned, cap * sizeof *grown);
		if (!grown) {
			free(block);
			return -1;
		}
		q->owned = grown;
		q->owned_cap = cap;
	}
	q->owned[q->nowned++] = block;
	return 0;
}

/* vertices() for an array read from the text (vertex_scan.c): n >= 1
 * points of d (1..8) numbers each, so the only check left is the
 * dimension, failing (like vertices()) at its first point. */
static int vertices_read(const vertex_array *read, const proto_path *at, shape_walk *w,
                         double **store, size_t *count, proto_problem *p)
{
	proto_path pt = {at, NULL, 0};
	if (w->dim == 0) {
		w->dim = (int)read->d;
		char *first = proto_path_render(&pt);
		if (!first)
			return -1;
		snprintf(w->first, sizeof w->first, "%s", first);
		free(first);
	} else if (read->d != (size_t)w->dim) {
		return proto_fail(p, &pt,
		                  "this point has %zu coordinates but %s has %d: "
		                  "all points of a query must have the same dimension",
		                  read->d, w->first, w->dim);
	}
	if (!*store) {
		*store = malloc(read->n * read->d * sizeof(double));
		if (!*store)
			return -1;
	}
	memcpy(*store, read->xyz, read->n * read->d * sizeof(double));
	*count = read->n;
	return 0;
}

/* The vertices of a shape into a new row-major array (*store, malloc'd on
 * the first point). */
static int vertices(const json_t *v, const proto_path *at, shape_walk *w, double **store,
                    size_t *count, proto_problem *p)
{
	int *dim = &w->dim;
	const vertex_array *read = proto_vertex_lookup(w->vt, v);
	if (read && !read->flat)
		return vertices_read(read, at, w, store, count, p);
	if (!json_is_array(v))
		return proto_fail(p, at, "vertices must be an array of points, got %s",
		                  proto_kind_of(v));
	size_t n = json_array_size(v);
	if (n == 0)
		return proto_fail(p, at,
		                  "vertices must not be empty: a shape is the convex hull of at "
		                  "least one point");
	for (size_t i = 0; i < n; i++) {
		proto_path pt = {at, NULL, i};
		const json_t *point = json_array_get(v, i);
		if (!json_is_array(point))
			return proto_fail(p, &pt,
			                  "a point must be an array of 1 to %d numbers, got %s",
			                  CLASH_MAX_DIM, proto_kind_of(point));
		size_t d = json_array_size(point);
		if (*dim == 0) {
			if (d < 1 || d > CLASH_MAX_DIM)
				return proto_fail(p, &pt,
				                  "a point must have 1 to %d coordinates, got %zu",
				                  CLASH_MAX_DIM, d);
			*dim = (int)d;
			char *first = proto_path_render(&pt);
			if (!first)
				return -1;
			snprintf(w->first, sizeof w->first, "%s", first);
			free(first);
		} else if (d != (size_t)*dim) {
			return proto_fail(p, &pt,
			                  "this point has %zu coordinates but %s has %d: "
			                  "all points of a query must have the same dimension",
			                  d, w->first, *dim);
		}
		if (!*store) {
			if (n > SIZE_MAX / sizeof(double) / (size_t)*dim)
				return -1;
			*store = malloc(n * (size_t)*dim * sizeof(double));
			if (!*store)
				return -1;
		}
		for (size_t k = 0; k < d; k++) {
			proto_path c = {&pt, NULL, k};
			const json_t *x = json_array_get(point, k);
			if (!json_is_number(x))
				return proto_fail(p, &c, "a coordinate must be a number, got %s",
				                  proto_kind_of(x));
			(*store)[i * d + k] = json_number_value(x);
		}
	}
	*count = n;
	return 0;
}

/* The query's dimension, set by this shape's first point when it is the
 * first (`where`: the pointer to name in later messages), else checked:
 * `d` coordinates at `at`. */
static int point_dim(size_t d, const proto_path *at, const proto_path *where, shape_walk *w,
                     proto_problem *p)
{
	if (w->dim == 0) {
		w->dim = (int)d;
		char *first = proto_path_render(where);
		if (!first)
			return -1;
		snprintf(w->first, sizeof w->first, "%s", first);
		free(first);
		return 0;
	}
	if (d != (size_t)w->dim)
		return proto_fail(p, at,
		                  "these positions have %zu coordinates a point (dim) but %s "
		                  "has %d: all points of a query must have the same dimension",
		                  d, w->first, w->dim);
	return 0;
}

/* A flat "positions" array (x0, y0, z0, x1, ... as three.js and glTF keep
 * them), `dim` numbers a point ("dim" at `dp`, or 3 when absent), into a
 * new row-major array (*store, malloc'd), exactly as the same points given
 * as "vertices" would be.  Checked in this order: dim, the array, its
 * length (not empty, a multiple of dim), the dimension against the
 * query's (at dim when given, else at positions), each number. */
static int positions(const json_t *v, const proto_path *at, const json_t *dimv,
                     const proto_path *dp, shape_walk *w, double **store, size_t *count,
                     proto_problem *p)
{
	size_t d = 3;
	if (dimv) {
		double x = 0;
		int r = integer(dimv, dp, "dim (coordinates a point)", 1, CLASH_MAX_DIM, &x, p);
		if (r)
			return r;
		d = (size_t)x;
	}
	const vertex_array *read = proto_vertex_lookup(w->vt, v);
	if (read && !read->flat)
		read = NULL;
	if (!read && !json_is_array(v))
		return proto_fail(p, at,
		                  "positions must be a flat array of numbers [x0, y0, z0, x1, "
		                  "...], got %s",
		                  proto_kind_of(v));
	size_t len = read ? read->n : json_array_size(v);
	if (len == 0)
		return proto_fail(p, at,
		                  "positions must not be empty: a shape is the convex hull of "
		                  "at least one point");
	if (len % d)
		return proto_fail(p, at,
		                  "positions has %zu numbers, not a multiple of dim (%zu, "
		                  "coordinates a point)%s",
		                  len, d, dimv ? "" : ": without dim, points are 3-D");
	int r = point_dim(d, dimv ? dp : at, dimv ? dp : at, w, p);
	if (r)
		return r;
	double *xyz = *store;
	if (!xyz) {
		if (len > SIZE_MAX / sizeof(double))
			return -1;
		xyz = *store = malloc(len * sizeof(double));
		if (!xyz)
			return -1;
	}
	if (read) {
		memcpy(xyz, read->xyz, len * sizeof(double));
	} else {
		for (size_t i = 0; i < len; i++) {
			const json_t *x = json_array_get(v, i);
			if (!json_is_number(x)) {
				proto_path el = {at, NULL, i};
				return proto_fail(p, &el,
				                  "each element of positions must be a number (a "
				                  "coordinate), got %s",
				                  proto_kind_of(x));
			}
			xyz[i] = json_number_value(x);
		}
	}
	*count = len / d;
	return 0;
}

static const char *const pose_members[] = {"translation", "rotation", "angle", "matrix", NULL};

static int pose(const json_t *v, const proto_path *at, clash_shape *s, proto_problem *p)
{
	if (!json_is_object(v))
		return proto_fail(p, at, "pose must be an object, got %s", proto_kind_of(v));
	int r = proto_known_members(v, at, pose_members,
	                            "a pose has translation, rotation (3-D), angle (2-D) or matrix",
	                            p);
	if (r)
		return r;
	int dim = s->dim;
	const json_t *translation = json_object_get(v, "translation");
	const json_t *rotation = json_object_get(v, "rotation");
	const json_t *angle = json_object_get(v, "angle");
	const json_t *matrix = json_object_get(v, "matrix");
	proto_path tp = {at, "translation", 0}, rp = {at, "rotation", 0};
	proto_path ap = {at, "angle", 0}, mp = {at, "matrix", 0};

	if (matrix) {
		if (translation || rotation || angle)
			return proto_fail(p, &mp,
			                  "matrix gives the whole pose: it cannot be combined with "
			                  "translation, rotation or angle");
		double m[(CLASH_MAX_DIM + 1) * (CLASH_MAX_DIM + 1)];
		size_t n = (size_t)(dim + 1) * (size_t)(dim + 1);
		r = numbers(matrix, &mp, "matrix (column-major, (dim+1)^2 numbers)", n, m, p);
		if (r)
			return r;
		int e = clash_shape_set_matrix(s, m);
		if (e == CLASH_ESINGULAR)
			return proto_fail(
				p, &mp,
				"matrix is not an invertible affine map: its last row must "
				"be (0,..,0,1) and its linear part non-singular");
		if (e)
			return proto_fail(p, &mp, "matrix: %s", clash_strerror(e));
	}
	if (rotation) {
		if (dim != 3)
			return proto_fail(
				p, &rp,
				"rotation (a quaternion x, y, z, w) is for 3-D shapes; this "
				"query is %d-D (use angle in 2-D, or matrix)",
				dim);
		double q[4];
		r = numbers(rotation, &rp, "rotation (quaternion x, y, z, w)", 4, q, p);
		if (r)
			return r;
		int e = clash_shape_set_quaternion(s, q);
		if (e == CLASH_EQUAT)
			return proto_fail(p, &rp,
			                  "rotation is not a unit quaternion: its length must be 1 "
			                  "within %g",
			                  CLASH_QUAT_TOLERANCE);
		if (e)
			return proto_fail(p, &rp, "rotation: %s", clash_strerror(e));
	}
	if (angle) {
		if (dim != 2)
			return proto_fail(p, &ap,
			                  "angle (radians) is for 2-D shapes; this query is %d-D "
			                  "(use rotation in 3-D, or matrix)",
			                  dim);
		double a = 0;
		r = number(angle, &ap, "angle", &a, p);
		if (r)
			return r;
		int e = clash_shape_set_angle(s, a);
		if (e)
			return proto_fail(p, &ap, "angle: %s", clash_strerror(e));
	}
	if (translation) {
		double t[CLASH_MAX_DIM];
		r = numbers(translation, &tp, "translation", (size_t)dim, t, p);
		if (r)
			return r;
		int e = clash_shape_set_translation(s, t);
		if (e)
			return proto_fail(p, &tp, "translation: %s", clash_strerror(e));
	}
	return 0;
}

/* The motion to pose_end (`v`) from the pose s already has: decoded like a
 * pose, onto s with its pose reset. */
static int motion(const json_t *v, const proto_path *at, const clash_shape *s, clash_motion *m,
                  proto_problem *p)
{
	clash_shape end = *s;
	const int n = s->dim;
	end.posed = 0;
	memset(end.linear, 0, sizeof end.linear);
	memset(end.translation, 0, sizeof end.translation);
	for (int i = 0; i < n; i++)
		end.linear[i * n + i] = 1.0;
	int r = pose(v, at, &end, p);
	if (r)
		return r;
	int e = clash_motion_between(m, s, &end);
	if (e == CLASH_ENOTSUP && (n == 2 || n == 3))
		return proto_fail(
			p, at,
			"pose_end must follow from pose by a rotation and a translation "
			"(a rigid motion); between these two the shape is scaled, sheared "
			"or mirrored");
	if (e == CLASH_ENOTSUP)
		return proto_fail(p, at,
		                  "pose_end must follow from pose by a translation: a %d-D shape "
		                  "cannot turn during a motion (only 2-D and 3-D ones can)",
		                  n);
	if (e)
		return proto_fail(p, at, "pose_end: %s", clash_strerror(e));
	return 0;
}

static const char *const shape_members[] = {"vertices", "positions", "dim",       "parts",
                                            "ref",      "mesh",      "radius",    "pose",
                                            "pose_end", "sphere",    "box",       "capsule",
                                            "cylinder", "cone",      "ellipsoid", "units",
                                            NULL};

/* Note the first shape only method gjk answers (at `at`, `what` it is),
 * for the /method check of proto_query_decode.  0, or -1 (memory). */
static int gjk_only(shape_walk *w, const proto_path *at, const char *what)
{
	if (w->gjk_only)
		return 0;
	char *where = proto_path_render(at);
	if (!where)
		return -1;
	snprintf(w->gjk_only_at, sizeof w->gjk_only_at, "%s is %s", where, what);
	free(where);
	w->gjk_only = w->gjk_only_at;
	return 0;
}

static const char *const mesh_members[] = {"positions", "indices", "weld", NULL};

/* A stored shape's mesh m had "weld": x (its id covers it).  0, or -1. */
static int note_weld(proto_query *q, const clash_mesh *m, double x)
{
	if (q->nwelds == q->welds_cap) {
		size_t cap = q->welds_cap ? 2 * q->welds_cap : 4;
		proto_mesh_weld *grown = realloc(q->welds, cap * sizeof *grown);
		if (!grown)
			return -1;
		q->welds = grown;
		q->welds_cap = cap;
	}
	q->welds[q->nwelds++] = (proto_mesh_weld){m, x};
	return 0;
}

/* The mesh's "weld" (wv, or NULL: the walk's), a number >= 0. */
static int mesh_weld(const json_t *wv, const proto_path *at, const shape_walk *w, double *out,
                     proto_problem *p)
{
	*out = w->weld;
	if (!wv)
		return 0;
	proto_path wp = {at, "weld", 0};
	int r = number(wv, &wp, "weld", out, p);
	if (r == 0 && !(*out >= 0.0))
		r = proto_fail(p, &wp,
		               "weld must be at least 0 (a fraction of the mesh's box "
		               "diagonal; 0: only vertices of equal coordinates), got %.17g",
		               *out);
	return r;
}

/* {"mesh": {"positions": [...], "indices": [...]}} at `at` (the "mesh"
 * member): a 3-D triangle mesh, its tree and topology built (clash_mesh_build)
 * in storage the query owns, like its arrays. */
static int mesh_shape(const json_t *v, const proto_path *at, shape_walk *w, clash_shape *s,
                      proto_problem *p)
{
	if (!json_is_object(v))
		return proto_fail(p, at,
		                  "mesh must be an object {\"positions\": [x0, y0, z0, ...], "
		                  "\"indices\": [i0, i1, i2, ...]}, got %s",
		                  proto_kind_of(v));
	int r = proto_known_members(v, at, mesh_members, "a mesh has positions, indices and weld",
	                            p);
	if (r)
		return r;
	const json_t *flat = json_object_get(v, "positions");
	const json_t *iv = json_object_get(v, "indices");
	proto_path xp = {at, "positions", 0}, ip = {at, "indices", 0};
	if (!flat)
		return proto_fail(p, at,
		                  "positions is required: the mesh's vertices flat, [x0, y0, "
		                  "z0, x1, ...]");
	double *xyz = NULL;
	size_t n = 0, ntri = 0;
	r = positions(flat, &xp, NULL, NULL, w, &xyz, &n, p);
	if (xyz && own(w->q, xyz))
		return -1;
	if (r)
		return r;
	if (w->dim != 3)
		return proto_fail(p, &xp, "a mesh is 3-D: this query is %d-D", w->dim);
	uint32_t *idx = NULL;
	if (iv) {
		if (n > UINT32_MAX)
			return proto_fail(p, &xp,
			                  "a mesh with indices may have at most %lu vertices",
			                  (unsigned long)UINT32_MAX);
		r = proto_mesh_indices(iv, proto_vertex_lookup(w->vt, iv), &ip, n, &idx, &ntri, p);
		if (r)
			return r;
		if (own(w->q, idx))
			return -1;
	} else if (n % 3) {
		return proto_fail(p, &xp,
		                  "without indices, each three consecutive points are a "
		                  "triangle: %zu points are not a multiple of 3",
		                  n);
	} else {
		ntri = n / 3;
	}
	const json_t *wv = json_object_get(v, "weld");
	double weld;
	if ((r = mesh_weld(wv, at, w, &weld, p)))
		return r;
	size_t size = clash_mesh_size(n, ntri);
	if (size == 0)
		return proto_fail(p, at, "this mesh (%zu vertices, %zu triangles) is too large", n,
		                  ntri);
	/* 64-byte aligned, as the tree lays its pairs of nodes (a moved copy
	 * keeps their alignment). */
	size = (size + 63) & ~(size_t)63;
	void *storage = aligned_alloc(64, size);
	if (!storage)
		return -1;
	clash_mesh *m = NULL;
	int e = clash_mesh_build_welded(storage, size, xyz, n, idx, ntri, weld, &m);
	if (!e && w->stored) {
		/* A stored mesh keeps only its tree, not the build's scratch. */
		size_t kept = (clash_mesh_bytes(m) + 63) & ~(size_t)63;
		void *compact = aligned_alloc(64, kept);
		if (!compact) {
			free(storage);
			return -1;
		}
		e = clash_mesh_move(compact, m, &m);
		free(storage);
		storage = compact;
	}
	if (own(w->q, storage))
		return -1;
	if (e == CLASH_ENOMEM)
		return -1;
	if (!e)
		e = clash_shape_init_mesh(s, m);
	if (e == CLASH_ELIMIT)
		return proto_fail(p, at,
		                  "this mesh has thousands of distinct vertices within its "
		                  "weld (%.17g of its size) of each other, too densely packed to "
		                  "weld: send it with \"weld\": 0",
		                  weld);
	if (e)
		return proto_fail(p, at, "mesh: %s", clash_strerror(e));
	if (wv && w->stored && note_weld(w->q, m, weld))
		return -1;
	return gjk_only(w, at, "a triangle mesh");
}

/* Hold a stored shape until proto_query_release (which lets it go even
 * when this fails: -1, memory ran out). */
static int hold(proto_query *q, proto_store *store, proto_store_entry *e)
{
	if (q->nheld == q->held_cap) {
		size_t cap = q->held_cap ? 2 * q->held_cap : 4;
		proto_store_entry **grown = realloc(q->held, cap * sizeof *grown);
		if (!grown) {
			proto_store_release(store, e);
			return -1;
		}
		q->held = grown;
		q->held_cap = cap;
	}
	q->store = store;
	q->held[q->nheld++] = e;
	return 0;
}

/* {"ref": id}: the stored shape, borrowed as it is (arrays, parts and
 * preparations), held by the query; it counts against the dimension, the
 * convex parts and the nesting of the shape it is in as its geometry
 * would. */
static int ref_shape(const json_t *v, const proto_path *at, int depth, shape_walk *w,
                     clash_shape *s, proto_problem *p)
{
	if (w->stored)
		return proto_fail(p, at,
		                  "a stored shape cannot name another by ref: send its vertices "
		                  "or parts");
	proto_store_entry *e = NULL;
	int r = proto_ref_acquire(w->store, v, at, &e, p);
	if (r)
		return r;
	if (hold(w->q, w->store, e))
		return -1;
	/* The store's value is the shape's own; its first use prepares it
	 * (under its lock: stored_shape.h), unless another thread does. */
	stored_shape *st = (stored_shape *)proto_store_value(e);
	const clash_shape *borrowed = proto_stored_shape_borrow(st);
	if (!borrowed) {
		size_t grown;
		int ready = proto_stored_shape_ready(st, &grown);
		if (grown)
			proto_store_charge(w->store, e, grown);
		if (ready != 0)
			return -1;
		borrowed = &st->shape;
	}
	if (w->dim == 0) {
		w->dim = st->shape.dim;
		char *first = proto_path_render(at);
		if (!first)
			return -1;
		snprintf(w->first, sizeof w->first, "%s", first);
		free(first);
	} else if (st->shape.dim != w->dim) {
		return proto_fail(p, at,
		                  "this stored shape is %d-D but %s has %d coordinates: all "
		                  "points of a query must have the same dimension",
		                  st->shape.dim, w->first, w->dim);
	}
	if (depth + st->depth > CLASH_COMPOUND_MAX_DEPTH)
		return proto_fail(p, at,
		                  "parts may nest at most %d levels deep; this stored shape "
		                  "nests %d more here",
		                  CLASH_COMPOUND_MAX_DEPTH, st->depth);
	w->leaves += st->leaves;
	if (w->leaves > CLASH_COMPOUND_MAX_LEAVES)
		return proto_fail(p, at,
		                  "a shape may have at most %d convex parts in all, nested "
		                  "ones included; this stored shape's %zu are beyond that",
		                  CLASH_COMPOUND_MAX_LEAVES, st->leaves);
	*s = *borrowed;
	if (st->units && (r = proto_units_note(&w->q->units, st->units, at, p)) != 0)
		return r;
	if (st->meshes && gjk_only(w, at, "a stored shape holding a triangle mesh"))
		return -1;
	if (st->curved && gjk_only(w, at, "a stored shape holding a curved primitive"))
		return -1;
	return 0;
}

/* A primitive (proto_primitive: the member `prim` of v, at `kp`): 3-D,
 * its sizes read into s. */
static int primitive_shape(const json_t *v, const char *prim, const proto_path *at,
                           const proto_path *kp, shape_walk *w, clash_shape *s, proto_problem *p)
{
	if (w->dim == 0) {
		w->dim = 3;
		char *first = proto_path_render(kp);
		if (!first)
			return -1;
		snprintf(w->first, sizeof w->first, "%s", first);
		free(first);
	} else if (w->dim != 3) {
		return proto_fail(p, kp,
		                  "a %s is 3-D but %s has %d coordinates: all points of a "
		                  "query must have the same dimension",
		                  prim, w->first, w->dim);
	}
	int r = proto_primitive(v, prim, at, s, p);
	if (r == 0 && s->kind != CLASH_KIND_BOX)
		r = gjk_only(w, kp, "a curved primitive");
	return r;
}

static int shape(const json_t *v, const proto_path *at, int depth, shape_walk *w, double **store,
                 clash_shape *s, proto_problem *p);

/* The parts of a compound shape at nesting depth `depth` (0: a or b). */
static int parts(const json_t *v, const proto_path *at, int depth, shape_walk *w, clash_shape *s,
                 proto_problem *p)
{
	if (!json_is_array(v))
		return proto_fail(p, at, "parts must be an array of shapes, got %s",
		                  proto_kind_of(v));
	size_t n = json_array_size(v);
	if (n == 0)
		return proto_fail(p, at,
		                  "parts must not be empty: a compound shape is the union of at "
		                  "least one shape");
	if (depth >= CLASH_COMPOUND_MAX_DEPTH)
		return proto_fail(p, at, "parts may nest at most %d levels deep",
		                  CLASH_COMPOUND_MAX_DEPTH);
	/* Every part holds at least one convex part: refuse a too-long array
	 * before allocating for it. */
	if (n > CLASH_COMPOUND_MAX_LEAVES - w->leaves) {
		proto_path el = {at, NULL, CLASH_COMPOUND_MAX_LEAVES - w->leaves};
		return proto_fail(p, &el,
		                  "a shape may have at most %d convex parts in all, nested ones "
		                  "included; this part is beyond that",
		                  CLASH_COMPOUND_MAX_LEAVES);
	}
	clash_shape *list = calloc(n, sizeof *list);
	if (!list || own(w->q, list))
		return -1;
	for (size_t i = 0; i < n; i++) {
		proto_path el = {at, NULL, i};
		int r = shape(json_array_get(v, i), &el, depth + 1, w, NULL, &list[i], p);
		if (r)
			return r;
	}
	int e = clash_shape_init_compound(s, w->dim, list, n);
	if (e)
		return proto_fail(p, at, "parts: %s", clash_strerror(e));
	return 0;
}

/* A shape at nesting depth `depth`.  A top-level convex shape's vertices go
 * to *store; a part's (store NULL) are owned by the query. */
static int shape(const json_t *v, const proto_path *at, int depth, shape_walk *w, double **store,
                 clash_shape *s, proto_problem *p)
{
	if (!json_is_object(v))
		return proto_fail(p, at, "a shape must be an object with vertices or parts, got %s",
		                  proto_kind_of(v));
	int r = proto_known_members(
		v, at, shape_members,
		"a shape has vertices (or positions and dim), parts or ref, radius, "
		"pose, pose_end and units",
		p);
	if (r)
		return r;
	const json_t *verts = json_object_get(v, "vertices");
	const json_t *flat = json_object_get(v, "positions");
	const json_t *dimv = json_object_get(v, "dim");
	const json_t *list = json_object_get(v, "parts");
	const json_t *ref = json_object_get(v, "ref");
	proto_path vp = {at, "vertices", 0}, lp = {at, "parts", 0}, fp = {at, "ref", 0};
	proto_path xp = {at, "positions", 0}, dp = {at, "dim", 0};
	const json_t *mesh = json_object_get(v, "mesh");
	const char *prim2;
	const char *prim = proto_primitive_key(v, &prim2);
	proto_path mp = {at, "mesh", 0}, kp = {at, prim, 0}, k2 = {at, prim2, 0};
	/* One kind of geometry a shape: a primitive, a mesh, a ref, or points
	 * (vertices or positions) or parts. */
	if (prim2)
		return proto_fail(p, &k2,
		                  "a shape is one primitive: this one has both %s and %s "
		                  "(a union of primitives is a compound shape, {\"parts\": [...]})",
		                  prim, prim2);
	const char *also = verts  ? "vertices"
	                   : flat ? "positions"
	                   : list ? "parts"
	                   : ref  ? "ref"
	                   : dimv ? "dim"
	                          : NULL;
	if (prim && (also || mesh))
		return proto_fail(p, &kp,
		                  "a shape is either a primitive (%s) or given by vertices, "
		                  "positions, parts, ref or mesh: this one also has %s",
		                  prim, also ? also : "mesh");
	if (mesh && also)
		return proto_fail(p, &mp,
		                  "a shape is one of vertices, positions, parts, ref or mesh: "
		                  "this one also has %s",
		                  also);
	if (ref && (verts || flat || list))
		return proto_fail(p, &fp,
		                  "ref stands for a stored shape's geometry: a shape has "
		                  "either ref or %s, not both",
		                  verts  ? "vertices"
		                  : flat ? "positions"
		                         : "parts");
	if (verts && flat)
		return proto_fail(p, &xp,
		                  "a shape gives its points either as vertices ([[x, y, z], "
		                  "...]) or as positions ([x, y, z, ...]), not both");
	if ((verts || flat) && list)
		return proto_fail(p, &lp,
		                  "a shape has either %s (a convex shape) or parts (a "
		                  "compound shape), not both",
		                  verts ? "vertices" : "positions");
	if (dimv && !flat)
		return proto_fail(p, &dp,
		                  "dim (coordinates a point) goes with positions only: "
		                  "vertices, parts and ref have their own");
	if (!prim && !mesh && !verts && !flat && !list && !ref)
		return proto_fail(
			p, at,
			"vertices is required: an array of points [[x, y, z], ...] (or "
			"positions, the same points flat [x, y, z, ...], or parts, an array "
			"of shapes, for a compound shape, or ref, a stored shape's id, or a "
			"mesh, or a primitive: sphere, box, capsule, cylinder, cone, "
			"ellipsoid)");
	int e;
	if (prim || mesh) {
		if (++w->leaves > CLASH_COMPOUND_MAX_LEAVES)
			return proto_fail(p, at,
			                  "a shape may have at most %d convex parts in all, nested "
			                  "ones included; this part is beyond that",
			                  CLASH_COMPOUND_MAX_LEAVES);
		r = prim ? primitive_shape(v, prim, at, &kp, w, s, p)
		         : mesh_shape(mesh, &mp, w, s, p);
		if (r)
			return r;
	} else if (ref) {
		r = ref_shape(ref, &fp, depth, w, s, p);
		if (r)
			return r;
	} else if (list) {
		r = parts(list, &lp, depth, w, s, p);
		if (r)
			return r;
	} else {
		if (++w->leaves > CLASH_COMPOUND_MAX_LEAVES)
			return proto_fail(p, at,
			                  "a shape may have at most %d convex parts in all, nested "
			                  "ones included; this part is beyond that",
			                  CLASH_COMPOUND_MAX_LEAVES);
		double *own_store = NULL;
		size_t count = 0;
		if (verts)
			r = vertices(verts, &vp, w, store ? store : &own_store, &count, p);
		else
			r = positions(flat, &xp, dimv, &dp, w, store ? store : &own_store, &count,
			              p);
		if (own_store && own(w->q, own_store))
			return -1;
		if (r)
			return r;
		e = clash_shape_init(s, w->dim, store ? *store : own_store, count);
		if (e)
			return proto_fail(p, verts ? &vp : &xp, "%s: %s",
			                  verts ? "vertices" : "positions", clash_strerror(e));
	}

	const json_t *radius = json_object_get(v, "radius");
	if (radius) {
		proto_path rp = {at, "radius", 0};
		double x = 0;
		r = number(radius, &rp, "radius", &x, p);
		if (r)
			return r;
		if (x < 0)
			return proto_fail(p, &rp, "radius must be >= 0, got %.17g", x);
		/* A ref's radius adds to the stored one (others start at 0). */
		e = clash_shape_set_radius(s, s->radius + x);
		if (e)
			return proto_fail(p, &rp, "radius: %s", clash_strerror(e));
	}
	const json_t *uv = json_object_get(v, "units");
	if (uv) {
		proto_path up = {at, "units", 0};
		int units = 0;
		r = proto_units_read(uv, &up, &units, p);
		if (r == 0)
			r = proto_units_note(&w->q->units, units, &up, p);
		if (r)
			return r;
	}
	const json_t *po = json_object_get(v, "pose");
	const json_t *pe = json_object_get(v, "pose_end");
	if (w->stored && (po || pe)) {
		proto_path sp = {at, po ? "pose" : "pose_end", 0};
		return proto_fail(p, &sp,
		                  "a stored shape has no pose: give pose (and pose_end) "
		                  "with each shape that names it by ref");
	}
	if (po) {
		proto_path pp = {at, "pose", 0};
		r = pose(po, &pp, s, p);
		if (r)
			return r;
	}
	if (pe) {
		proto_path ep = {at, "pose_end", 0};
		if (depth > 0)
			return proto_fail(p, &ep,
			                  "pose_end is for a whole shape: a part moves with it");
		if (!w->motion)
			return proto_fail(p, &ep,
			                  "pose_end (a motion) is not taken by this request");
		r = motion(pe, &ep, s, w->motion, p);
		if (r)
			return r;
		*w->moving = 1;
	}
	return 0;
}

/* One side of the warm start: indices into the vertices of shape `side`. */
static int warm_side(const json_t *v, const proto_path *at, const char *side, size_t len,
                     size_t count, size_t *out, proto_problem *p)
{
	for (size_t i = 0; i < len; i++) {
		proto_path el = {at, NULL, i};
		double x = 0;
		int r = number(json_array_get(v, i), &el, "a warm-start index", &x, p);
		if (r)
			return r;
		if (x != floor(x) || x < 0 || x >= (double)count)
			return proto_fail(p, &el,
			                  "a warm-start index must be the index of a vertex of %s, "
			                  "an integer from 0 to %zu; got %.17g",
			                  side, count - 1, x);
		out[i] = (size_t)x;
	}
	return 0;
}

static const char *const plane_members[] = {"normal", "offset", NULL};

/* A previous answer's separating plane (method ipm, 2005 paper section
 * 4.1): {"normal": [dim numbers, not all 0], "offset": c}. */
static int warm_plane(const json_t *v, const proto_path *at, proto_query *q, proto_problem *p)
{
	if (!json_is_object(v))
		return proto_fail(
			p, at,
			"warm.plane must be an object {\"normal\": [...], \"offset\": c}, "
			"got %s",
			proto_kind_of(v));
	int r = proto_known_members(v, at, plane_members, "warm.plane has normal and offset", p);
	if (r)
		return r;
	const json_t *normal = json_object_get(v, "normal"), *offset = json_object_get(v, "offset");
	if (!normal || !offset)
		return proto_fail(p, at,
		                  "warm.plane needs both normal and offset (a previous answer's "
		                  "separating_plane)");
	proto_path np = {at, "normal", 0}, op = {at, "offset", 0};
	size_t dim = (size_t)q->a.dim;
	r = numbers(normal, &np, "warm.plane.normal", dim, q->warm_plane, p);
	if (r)
		return r;
	int zero = 1;
	for (size_t k = 0; k < dim; k++)
		zero = zero && q->warm_plane[k] == 0;
	if (zero)
		return proto_fail(p, &np,
		                  "warm.plane.normal must not be zero: it is a plane's normal");
	r = number(offset, &op, "warm.plane.offset", &q->warm_plane[dim], p);
	if (r)
		return r;
	q->opt.warm_plane = q->warm_plane;
	return 0;
}

static const char *const warm_members[] = {"a", "b", "plane", NULL};

/* Warm start: vertex indices (a and b, for gjk), a plane (for ipm), or
 * both, as a previous answer's "warm" has them. */
static int warm(const json_t *v, const proto_path *at, proto_query *q, proto_problem *p)
{
	if (q->a.nparts || q->b.nparts)
		return proto_fail(p, at,
		                  "warm start is not supported for compound shapes (a or b has "
		                  "parts): leave warm out");
	if (!json_is_object(v))
		return proto_fail(p, at,
		                  "warm must be an object {\"a\": [...], \"b\": [...]} and/or "
		                  "{\"plane\": {...}}, got %s",
		                  proto_kind_of(v));
	int r = proto_known_members(v, at, warm_members,
	                            "warm has a and b, arrays of vertex indices, and plane", p);
	if (r)
		return r;
	const json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");
	const json_t *plane = json_object_get(v, "plane");
	if (plane) {
		proto_path pp = {at, "plane", 0};
		if ((r = warm_plane(plane, &pp, q, p)))
			return r;
		if (!a && !b)
			return 0;
	}
	if (!a || !b)
		return proto_fail(p, at,
		                  "warm needs both a and b (vertex indices of a previous answer), "
		                  "or a plane, or all three");
	proto_path ap = {at, "a", 0}, bp = {at, "b", 0};
	size_t most = (size_t)q->a.dim + 1;
	if (!json_is_array(a))
		return proto_fail(p, &ap, "warm.a must be an array of vertex indices, got %s",
		                  proto_kind_of(a));
	if (!json_is_array(b))
		return proto_fail(p, &bp, "warm.b must be an array of vertex indices, got %s",
		                  proto_kind_of(b));
	size_t n = json_array_size(a);
	if (n < 1 || n > most)
		return proto_fail(p, &ap,
		                  "warm.a must have 1 to %zu indices (dimension + 1), got %zu",
		                  most, n);
	if (json_array_size(b) != n)
		return proto_fail(p, &bp,
		                  "warm.b must have as many indices as warm.a (%zu), got %zu", n,
		                  json_array_size(b));
	r = warm_side(a, &ap, "a", n, q->a.count, q->warm_a, p);
	if (r)
		return r;
	r = warm_side(b, &bp, "b", n, q->b.count, q->warm_b, p);
	if (r)
		return r;
	q->opt.warm_count = n;
	q->opt.warm_a = q->warm_a;
	q->opt.warm_b = q->warm_b;
	return 0;
}

static const char *const query_members[] = {"a",    "b",    "method", "tolerance", "max_iterations",
                                            "warm", "want", NULL};

/* "want": the answers the client needs, as clash_options.want bits, and
 * the clash report of a mesh pair as proto_query.report bits.  The
 * verdict always comes, so ["distance"] is ["intersecting", "distance"];
 * the report's parts come only when named (they cost far more). */
static int want(const json_t *v, const proto_path *at, unsigned *out, unsigned *report,
                proto_problem *p)
{
	static const struct {
		const char *name;
		unsigned bit, report;
	} names[] = {{"intersecting", CLASH_WANT_VERDICT, 0},
	             {"distance", CLASH_WANT_DISTANCE, 0},
	             {"depth", CLASH_WANT_DEPTH, PROTO_REPORT_DEPTH},
	             {"regions", CLASH_WANT_VERDICT, PROTO_REPORT_REGIONS},
	             {"volume", CLASH_WANT_VERDICT, PROTO_REPORT_VOLUME}};
	if (!json_is_array(v))
		return proto_fail(p, at,
		                  "want must be an array of answer names (\"intersecting\", "
		                  "\"distance\", \"depth\", \"regions\", \"volume\"), got %s",
		                  proto_kind_of(v));
	if (json_array_size(v) == 0)
		return proto_fail(p, at,
		                  "want must name at least one answer: \"intersecting\", "
		                  "\"distance\", \"depth\", \"regions\" or \"volume\"");
	unsigned bits = CLASH_WANT_VERDICT;
	*report = 0;
	for (size_t i = 0; i < json_array_size(v); i++) {
		proto_path ip = {at, NULL, i};
		const json_t *e = json_array_get(v, i);
		if (!json_is_string(e))
			return proto_fail(p, &ip, "want lists answer names (strings), got %s",
			                  proto_kind_of(e));
		const char *s = json_string_value(e);
		size_t len = json_string_length(e), k = 0;
		for (; k < sizeof names / sizeof names[0]; k++)
			if (len == strlen(names[k].name) && memcmp(s, names[k].name, len) == 0)
				break;
		if (k == sizeof names / sizeof names[0])
			return proto_fail(p, &ip,
			                  "unknown answer in want; known: \"intersecting\", "
			                  "\"distance\", \"depth\", \"regions\", \"volume\"");
		bits |= names[k].bit;
		*report |= names[k].report;
	}
	*out = bits;
	return 0;
}

static int options(const json_t *root, proto_query *q, proto_problem *p)
{
	const json_t *v;
	int r;
	q->method = proto_method_default();
	if ((v = json_object_get(root, "method"))) {
		proto_path at = {NULL, "method", 0};
		if (!json_is_string(v))
			return proto_fail(p, &at, "method must be a string, got %s",
			                  proto_kind_of(v));
		q->method = proto_method_find(json_string_value(v), json_string_length(v));
		if (!q->method) {
			char known[160] = "";
			size_t used = 0;
			for (size_t i = 0; i < proto_method_count() && used < sizeof known; i++)
				used += (size_t)snprintf(known + used, sizeof known - used,
				                         "%s\"%s\"", i ? ", " : "",
				                         proto_method_at(i)->name);
			return proto_fail(p, &at, "unknown method; known: %s", known);
		}
	}
	if ((v = json_object_get(root, "tolerance"))) {
		proto_path at = {NULL, "tolerance", 0};
		double t = 0;
		if ((r = number(v, &at, "tolerance", &t, p)))
			return r;
		if (!(t > 0) || !isfinite(t))
			return proto_fail(p, &at, "tolerance must be a distance > 0, got %.17g", t);
		q->opt.tolerance = t;
	}
	if ((v = json_object_get(root, "max_iterations"))) {
		proto_path at = {NULL, "max_iterations", 0};
		double n = 0;
		if ((r = integer(v, &at, "max_iterations", 1, PROTO_MAX_ITERATIONS_LIMIT, &n, p)))
			return r;
		q->opt.max_iterations = (int)n;
	}
	if ((v = json_object_get(root, "warm"))) {
		proto_path at = {NULL, "warm", 0};
		if ((r = warm(v, &at, q, p)))
			return r;
	}
	if ((v = json_object_get(root, "want"))) {
		proto_path at = {NULL, "want", 0};
		if ((r = want(v, &at, &q->opt.want, &q->report, p)))
			return r;
	}
	return 0;
}

/* Meshes and curved primitives are answered by method gjk alone (the
 * others take polytopes): another is a 422 at /method naming the first
 * such shape (`gjk_only`), before any work. */
static int gjk_method(const char *gjk_only, const proto_method *m, proto_problem *p)
{
	if (!gjk_only || strcmp(m->name, "gjk") == 0)
		return 0;
	proto_path at = {NULL, "method", 0};
	return proto_fail(p, &at,
	                  "method \"%s\" takes polytopes, and %s: method \"gjk\" "
	                  "answers it",
	                  m->name, gjk_only);
}

int proto_query_decode(const json_t *root, const vertex_table *vt, const proto_context *ctx,
                       proto_query *q, proto_problem *p)
{
	memset(q, 0, sizeof *q);
	if (!ctx)
		ctx = &proto_context_none;
	proto_store *store = ctx->store;
	int r;
	if (!json_is_object(root)) {
		r = proto_fail(p, NULL,
		               "a query must be a JSON object {\"a\": shape, \"b\": shape}, got %s",
		               proto_kind_of(root));
		goto out;
	}
	if ((r = proto_known_members(
		     root, NULL, query_members,
		     "a query has a, b, method, tolerance, max_iterations, warm and want", p)))
		goto out;
	const json_t *a = json_object_get(root, "a"), *b = json_object_get(root, "b");
	if (!a || !b) {
		r = proto_fail(p, NULL, "%s is required: a query names two shapes, a and b",
		               a ? "b" : "a");
		goto out;
	}
	shape_walk w = {.q = q,
	                .motion = &q->motion[0],
	                .moving = &q->moving,
	                .vt = vt,
	                .store = store,
	                .weld = ctx->weld};
	proto_path ap = {NULL, "a", 0}, bp = {NULL, "b", 0};
	if ((r = shape(a, &ap, 0, &w, &q->vertices[0], &q->a, p)))
		goto out;
	w.leaves = 0; /* the limit is per shape */
	w.motion = &q->motion[1];
	if ((r = shape(b, &bp, 0, &w, &q->vertices[1], &q->b, p)))
		goto out;
	if ((r = options(root, q, p)))
		goto out;
	r = gjk_method(w.gjk_only, q->method, p);
out:
	if (r == 1 && proto_refs_missing(root, store, p) != 0)
		r = -1;
	if (r)
		proto_query_release(q);
	return r;
}

void proto_query_release(proto_query *q)
{
	free(q->vertices[0]);
	free(q->vertices[1]);
	q->vertices[0] = q->vertices[1] = NULL;
	for (size_t i = 0; i < q->nowned; i++)
		free(q->owned[i]);
	free(q->owned);
	q->owned = NULL;
	q->nowned = q->owned_cap = 0;
	for (size_t i = 0; i < q->nheld; i++)
		proto_store_release(q->store, q->held[i]);
	free(q->held);
	q->held = NULL;
	q->nheld = q->held_cap = 0;
	free(q->welds);
	q->welds = NULL;
	q->nwelds = q->welds_cap = 0;
}

int proto_shape_decode_in(const json_t *v, const proto_path *at, proto_query *owner,
                          proto_shape_doc *doc, clash_shape *s, clash_motion *motion, int *moving,
                          proto_problem *p)
{
	shape_walk w = {.q = owner,
	                .dim = doc->dim,
	                .motion = motion,
	                .moving = moving,
	                .store = doc->store,
	                .stored = doc->stored,
	                .vt = doc->vt,
	                .weld = doc->weld};
	memcpy(w.first, doc->first, sizeof w.first);
	int r = shape(v, at, 0, &w, NULL, s, p);
	doc->dim = w.dim;
	memcpy(doc->first, w.first, sizeof doc->first);
	return r;
}

int proto_shapes_decode(const json_t *v0, const char *name0, const json_t *v1, const char *name1,
                        const proto_context *ctx, proto_query *q, proto_problem *p)
{
	if (!ctx)
		ctx = &proto_context_none;
	shape_walk w = {.q = q, .store = ctx->store, .weld = ctx->weld};
	proto_path p0 = {NULL, name0, 0}, p1 = {NULL, name1, 0};
	int r = shape(v0, &p0, 0, &w, &q->vertices[0], &q->a, p);
	if (r)
		return r;
	w.leaves = 0; /* the limit is per shape */
	return shape(v1, &p1, 0, &w, &q->vertices[1], &q->b, p);
}
