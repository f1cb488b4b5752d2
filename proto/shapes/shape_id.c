/*
 * shape_id.c — the canonical encoding of a shape and its SHA-256 (nettle),
 * as shape_id.h and proto/openapi.yaml (ShapeId) define them.
 *
 * The bytes are streamed into the hash through a small buffer, never
 * built whole: a 50 000-vertex part is 1.2 MB of coordinates.  The same
 * encoder writes them out whole for the store's second tier
 * (proto_shape_canon), so what a replica reads back hashes to its id.
 */
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "shape_id.h"

static const char tag[] = "clashd-shape-v1";

/* The encoding's bytes on their way into the hash. */
typedef struct encoder {
	struct sha256_ctx hash;
	uint8_t buf[4096];
	size_t used;
	int write;    /* 1: into `out` instead of the hash */
	uint8_t *out; /* malloc'd */
	size_t len, cap;
	int failed; /* memory ran out writing `out` */
} encoder;

static void flush(encoder *e)
{
	if (!e->write) {
		sha256_update(&e->hash, e->used, e->buf);
	} else if (!e->failed) {
		if (e->len + e->used > e->cap) {
			size_t cap = e->cap ? e->cap : sizeof e->buf;
			while (cap < e->len + e->used)
				cap *= 2;
			uint8_t *grown = realloc(e->out, cap);
			if (!grown) {
				e->failed = 1;
				e->used = 0;
				return;
			}
			e->out = grown;
			e->cap = cap;
		}
		memcpy(e->out + e->len, e->buf, e->used);
		e->len += e->used;
	}
	e->used = 0;
}

static void put(encoder *e, const void *bytes, size_t n)
{
	if (e->used + n > sizeof e->buf)
		flush(e);
	memcpy(e->buf + e->used, bytes, n);
	e->used += n;
}

static void put_u64(encoder *e, uint64_t x)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	put(e, b, sizeof b);
}

static void put_f64(encoder *e, double x)
{
	uint64_t bits;
	if (x == 0)
		x = 0.0; /* -0.0 is +0.0 */
	memcpy(&bits, &x, sizeof bits);
	put_u64(e, bits);
}

/* n coordinates, as put_f64 writes each: a buffer's worth at a time. */
static void put_f64s(encoder *e, const double *x, size_t n)
{
	while (n) {
		if (sizeof e->buf - e->used < 8)
			flush(e);
		size_t k = (sizeof e->buf - e->used) / 8;
		if (k > n)
			k = n;
		uint8_t *out = e->buf + e->used;
		for (size_t i = 0; i < k; i++) {
			uint64_t bits;
			double v = x[i] == 0 ? 0.0 : x[i]; /* -0.0 is +0.0 */
			memcpy(&bits, &v, sizeof bits);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			memcpy(out + 8 * i, &bits, 8);
#else
			for (int b = 0; b < 8; b++)
				out[8 * i + (size_t)b] = (uint8_t)(bits >> (8 * b));
#endif
		}
		e->used += 8 * k;
		x += k;
		n -= k;
	}
}

static void put_u32(encoder *e, uint32_t x)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	put(e, b, sizeof b);
}

/* A mesh: its points as a convex shape's, then the triangles' corners
 * (consecutive ones written out when it has no indices). */
static void mesh_node(encoder *e, const clash_shape *s)
{
	put_u64(e, s->count);
	put_f64s(e, s->vertices, s->count * 3);
	size_t ntri = clash_mesh_triangles(s->mesh);
	const uint32_t *idx = clash_mesh_indices(s->mesh);
	put_u64(e, ntri);
	for (size_t i = 0; i < 3 * ntri; i++)
		put_u32(e, idx ? idx[i] : (uint32_t)i);
}

/* A primitive: its wire kind (1 sphere, 2 box, 3 capsule, 4 cylinder,
 * 5 cone, 6 ellipsoid: clash_kind's numbers) and the sizes it has, in the
 * order of the wire (radius; half extents; radius, half height; radii). */
static void primitive_node(encoder *e, const clash_shape *s)
{
	uint8_t kind = (uint8_t)s->kind;
	put(e, &kind, 1);
	int n = s->kind == CLASH_KIND_SPHERE                                   ? 1
	        : s->kind == CLASH_KIND_BOX || s->kind == CLASH_KIND_ELLIPSOID ? 3
	                                                                       : 2;
	for (int i = 0; i < n; i++)
		put_f64(e, s->params[i]);
}

/* The weld a mesh's request gave it, if any. */
static const proto_mesh_weld *weld_of(const clash_mesh *m, const proto_mesh_weld *welds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (welds[i].mesh == m)
			return &welds[i];
	return NULL;
}

static void node(encoder *e, const clash_shape *s, const proto_mesh_weld *welds, size_t n)
{
	const proto_mesh_weld *w = s->mesh ? weld_of(s->mesh, welds, n) : NULL;
	uint8_t kind = s->nparts ? 2 : w ? 5 : s->mesh ? 3 : s->kind != CLASH_KIND_POLYTOPE ? 4 : 1;
	put(e, &kind, 1);
	if (w)
		put_f64(e, w->weld);
	if (kind == 3 || kind == 5) {
		mesh_node(e, s);
	} else if (kind == 4) {
		primitive_node(e, s);
	} else if (s->nparts) {
		put_u64(e, s->nparts);
		for (size_t i = 0; i < s->nparts; i++)
			node(e, &s->parts[i], welds, n);
	} else {
		put_u64(e, s->count);
		put_f64s(e, s->vertices, s->count * (size_t)s->dim);
	}
	put_f64(e, s->radius);
}

static void encode(encoder *e, const clash_shape *s, const proto_mesh_weld *welds, size_t n,
                   int units)
{
	uint8_t dim = (uint8_t)s->dim;
	put(e, tag, sizeof tag - 1);
	put(e, &dim, 1);
	if (units) {
		uint8_t u[2] = {PROTO_SHAPE_UNITS_NODE, (uint8_t)units};
		put(e, u, sizeof u);
	}
	node(e, s, welds, n);
	flush(e);
}

void proto_shape_id(const clash_shape *s, const proto_mesh_weld *welds, size_t n, int units,
                    uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	encoder e;
	sha256_init(&e.hash);
	e.used = 0;
	e.write = 0;
	encode(&e, s, welds, n, units);
	sha256_digest(&e.hash, PROTO_SHAPE_ID_BYTES, id);
}

int proto_shape_canon(const clash_shape *s, const proto_mesh_weld *welds, size_t n, int units,
                      uint8_t **bytes, size_t *len)
{
	encoder *e = calloc(1, sizeof *e);
	if (!e)
		return -1;
	e->write = 1;
	encode(e, s, welds, n, units);
	int r = e->failed ? -1 : 0;
	if (r)
		free(e->out);
	else
		*bytes = e->out, *len = e->len;
	free(e);
	return r;
}

static const char hex[] = "0123456789abcdef";
static const char prefix[] = "sha256:";

void proto_shape_id_format(const uint8_t id[PROTO_SHAPE_ID_BYTES], char text[PROTO_PROBLEM_ID_SIZE])
{
	memcpy(text, prefix, sizeof prefix - 1);
	char *h = text + sizeof prefix - 1;
	for (size_t i = 0; i < PROTO_SHAPE_ID_BYTES; i++) {
		h[2 * i] = hex[id[i] >> 4];
		h[2 * i + 1] = hex[id[i] & 15];
	}
	h[2 * PROTO_SHAPE_ID_BYTES] = '\0';
}

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int proto_shape_id_parse(const char *text, size_t len, uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	if (len != PROTO_SHAPE_ID_TEXT || memcmp(text, prefix, sizeof prefix - 1) != 0)
		return -1;
	const char *h = text + sizeof prefix - 1;
	for (size_t i = 0; i < PROTO_SHAPE_ID_BYTES; i++) {
		int hi = digit(h[2 * i]), lo = digit(h[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
