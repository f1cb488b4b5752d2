/*
 * shape_canon.c — reading the canonical encoding back (shape_canon.h).
 *
 * A reader walks the bytes once, node by node, as shape_id.c writes them.
 * A count is accepted only when the bytes it announces are there, so a
 * corrupt length can never ask for more memory than the value's own size;
 * the nesting stops at the core's compound depth.  Every block the tree
 * takes (coordinates, part arrays, indices, mesh trees) is kept in one
 * list that passes to the stored shape, as an upload's decoding owner's do
 * (proto_stored_shape_build).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape_canon.h"
#include "shape_id.h"
#include "units.h"

static const char tag[] = "clashd-shape-v1";

typedef struct reader {
	const uint8_t *p;
	size_t left;
	void **blocks; /* malloc'd, each malloc'd */
	size_t nblocks, cap;
	int oom;
	double weld;            /* of meshes without their own (node 0x03) */
	proto_mesh_weld *welds; /* the meshes with their own (node 0x05) */
	size_t nwelds, wcap;
} reader;

static int keep(reader *r, void *block)
{
	if (!block) {
		r->oom = 1;
		return -1;
	}
	if (r->nblocks == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		void **grown = realloc(r->blocks, cap * sizeof *grown);
		if (!grown) {
			free(block);
			r->oom = 1;
			return -1;
		}
		r->blocks = grown;
		r->cap = cap;
	}
	r->blocks[r->nblocks++] = block;
	return 0;
}

static int take(reader *r, void *out, size_t n)
{
	if (r->left < n)
		return -1;
	memcpy(out, r->p, n);
	r->p += n;
	r->left -= n;
	return 0;
}

static int get_u64(reader *r, uint64_t *x)
{
	uint8_t b[8];
	if (take(r, b, 8))
		return -1;
	*x = 0;
	for (int i = 7; i >= 0; i--)
		*x = *x << 8 | b[i];
	return 0;
}

static int get_f64(reader *r, double *x)
{
	uint64_t bits;
	if (get_u64(r, &bits))
		return -1;
	memcpy(x, &bits, sizeof *x);
	return isfinite(*x) ? 0 : -1;
}

/* A count of items of `size` bytes each that must all be there. */
static int get_count(reader *r, size_t size, size_t *n)
{
	uint64_t v;
	if (get_u64(r, &v) || v == 0 || v > r->left / size)
		return -1;
	*n = (size_t)v;
	return 0;
}

static int get_f64s(reader *r, size_t n, double **out)
{
	double *x = malloc(n * sizeof *x);
	if (keep(r, x))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (get_f64(r, &x[i]))
			return -1;
	*out = x;
	return 0;
}

/* Remember that mesh m had its own weld w (node 0x05). */
static int note_weld(reader *r, const clash_mesh *m, double w)
{
	if (r->nwelds == r->wcap) {
		size_t cap = r->wcap ? 2 * r->wcap : 4;
		proto_mesh_weld *grown = realloc(r->welds, cap * sizeof *grown);
		if (!grown) {
			r->oom = 1;
			return -1;
		}
		r->welds = grown;
		r->wcap = cap;
	}
	r->welds[r->nwelds++] = (proto_mesh_weld){m, w};
	return 0;
}

/* A mesh node: positions, triangles' corners, its tree built (welded by
 * `weld`) and kept compact as a stored upload's (query.c's mesh_shape). */
static int mesh_node(reader *r, clash_shape *s, double weld)
{
	size_t n, ntri;
	double *xyz;
	if (get_count(r, 24, &n) || get_f64s(r, 3 * n, &xyz) || get_count(r, 12, &ntri))
		return -1;
	uint32_t *idx = malloc(3 * ntri * sizeof *idx);
	if (keep(r, idx))
		return -1;
	int identity = 1;
	for (size_t i = 0; i < 3 * ntri; i++) {
		uint8_t b[4];
		if (take(r, b, 4))
			return -1;
		idx[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		         (uint32_t)b[3] << 24;
		identity &= idx[i] == i;
	}
	size_t size = (clash_mesh_size(n, ntri) + 63) & ~(size_t)63;
	if (size == 0)
		return -1;
	void *storage = aligned_alloc(64, size);
	if (!storage) {
		r->oom = 1;
		return -1;
	}
	clash_mesh *m = NULL;
	/* Consecutive corners were written for a mesh sent without indices. */
	int e = clash_mesh_build_welded(storage, size, xyz, n,
	                                identity && n == 3 * ntri ? NULL : idx, ntri, weld, &m);
	void *compact = NULL;
	if (!e) {
		compact = aligned_alloc(64, (clash_mesh_bytes(m) + 63) & ~(size_t)63);
		e = compact ? clash_mesh_move(compact, m, &m) : CLASH_ENOMEM;
	}
	free(storage);
	if (compact && keep(r, compact))
		return -1;
	if (e == CLASH_ENOMEM)
		r->oom = 1;
	return e || clash_shape_init_mesh(s, m) ? -1 : 0;
}

static int primitive_node(reader *r, clash_shape *s, int dim)
{
	uint8_t kind;
	double prm[3] = {0, 0, 0};
	if (dim != 3 || take(r, &kind, 1) || kind < CLASH_KIND_SPHERE ||
	    kind > CLASH_KIND_ELLIPSOID)
		return -1;
	int n = kind == CLASH_KIND_SPHERE                                ? 1
	        : kind == CLASH_KIND_BOX || kind == CLASH_KIND_ELLIPSOID ? 3
	                                                                 : 2;
	for (int i = 0; i < n; i++)
		if (get_f64(r, &prm[i]))
			return -1;
	return clash_shape_init_primitive(s, kind, prm) ? -1 : 0;
}

static int node(reader *r, clash_shape *s, int dim, int depth)
{
	uint8_t kind;
	if (take(r, &kind, 1))
		return -1;
	int e = -1;
	if (kind == 1) {
		size_t n;
		double *x;
		if (get_count(r, 8 * (size_t)dim, &n) || get_f64s(r, n * (size_t)dim, &x))
			return -1;
		e = clash_shape_init(s, dim, x, n) ? -1 : 0;
	} else if (kind == 2 && depth < CLASH_COMPOUND_MAX_DEPTH) {
		size_t n;
		if (get_count(r, 10, &n)) /* a node is 10 bytes at least */
			return -1;
		clash_shape *parts = calloc(n, sizeof *parts);
		if (keep(r, parts))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (node(r, &parts[i], dim, depth + 1))
				return -1;
		e = clash_shape_init_compound(s, dim, parts, n) ? -1 : 0;
	} else if (kind == 3 && dim == 3) {
		e = mesh_node(r, s, r->weld);
	} else if (kind == 5 && dim == 3) {
		double w;
		e = get_f64(r, &w) || !(w >= 0.0 && w <= 1.0) || mesh_node(r, s, w) ||
		                    note_weld(r, s->mesh, w)
		            ? -1
		            : 0;
	} else if (kind == 4) {
		e = primitive_node(r, s, dim);
	}
	double radius;
	if (e || get_f64(r, &radius) || radius < 0 || clash_shape_set_radius(s, radius))
		return -1;
	return 0;
}

/* The units node, when the shape has one (shape_id.h). */
static int units_node(reader *r, int *units)
{
	uint8_t u[2];
	if (r->left < 2 || r->p[0] != PROTO_SHAPE_UNITS_NODE)
		return 0;
	if (take(r, u, sizeof u) || !proto_units_name(u[1]))
		return -1;
	*units = u[1];
	return 0;
}

int proto_shape_canon_decode(const uint8_t *bytes, size_t len, double weld, stored_shape **out)
{
	reader r = {bytes, len, NULL, 0, 0, 0, weld, NULL, 0, 0};
	char head[sizeof tag - 1];
	uint8_t dim = 0;
	clash_shape s;
	memset(&s, 0, sizeof s);
	int units = 0;
	int bad = take(&r, head, sizeof head) || memcmp(head, tag, sizeof head) != 0 ||
	          take(&r, &dim, 1) || dim < 1 || dim > CLASH_MAX_DIM || units_node(&r, &units) ||
	          node(&r, &s, dim, 0) || r.left != 0;
	int rc = r.oom ? -1 : bad ? 1 : 0;
	if (rc == 0 &&
	    proto_stored_shape_build(&s, &r.blocks, &r.nblocks, r.welds, r.nwelds, units, out) != 0)
		rc = -1;
	free(r.welds);
	for (size_t i = 0; i < r.nblocks; i++)
		free(r.blocks[i]);
	free(r.blocks);
	return rc;
}
