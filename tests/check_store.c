/*
 * check_store.c — the shape store over HTTP: POST /v1/shapes, GET, HEAD
 * and DELETE /v1/shapes/{id}, and {"ref": id} wherever a Shape goes.
 *
 * Ids are computed here from the canonical encoding proto/openapi.yaml
 * documents (ShapeId), with OpenSSL's SHA-256 rather than the server's
 * nettle, so the document, not the code, is what both agree on.  Answers
 * by ref must be the bytes the same request gives inline.  What the store
 * counts is held against malloc's own count of the bytes in use
 * (mallinfo2) before and after storing, preparing and deleting shapes; its
 * eviction (per-client shares, values held after removal) against a count
 * kept here of what each client put.
 */
#include <arpa/inet.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "check.h"
#include "clash.h"
#include "http_harness.h"
#include "prng.h"
#include "proto.h"
#include "shape_canon.h"
#include "shape_id.h"
#include "store.h"

/* ---- the canonical encoding, from the document ---- */

typedef struct bytes {
	unsigned char *p;
	size_t n, cap;
} bytes;

static void put(bytes *b, const void *x, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = 2 * (b->n + n);
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->n, x, n);
	b->n += n;
}

static void put_u64(bytes *b, uint64_t x)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(x >> (8 * i));
	put(b, le, 8);
}

static void put_f64(bytes *b, double x)
{
	uint64_t bits;
	if (x == 0)
		x = 0.0;
	memcpy(&bits, &x, 8);
	put_u64(b, bits);
}

/* The primitives in the order of their kind byte (ShapeId). */
static const char *const primitive_kinds[] = {"sphere",   "box",  "capsule",
                                              "cylinder", "cone", "ellipsoid"};

static int primitive_of(const json_t *s)
{
	for (int k = 0; k < 6; k++)
		if (json_object_get(s, primitive_kinds[k]))
			return k + 1;
	return 0;
}

static int dim_of(const json_t *s)
{
	if (primitive_of(s) || json_object_get(s, "mesh"))
		return 3;
	const json_t *v = json_object_get(s, "vertices");
	if (v)
		return (int)json_array_size(json_array_get(v, 0));
	return dim_of(json_array_get(json_object_get(s, "parts"), 0));
}

static void node(bytes *b, const json_t *s)
{
	const json_t *v = json_object_get(s, "vertices"), *parts = json_object_get(s, "parts");
	int prim = primitive_of(s);
	const json_t *mesh = json_object_get(s, "mesh");
	const json_t *weld = mesh ? json_object_get(mesh, "weld") : NULL;
	unsigned char kind = weld ? 5 : mesh ? 3 : prim ? 4 : v ? 1 : 2;
	put(b, &kind, 1);
	if (weld) /* node 0x05: the mesh's own weld, then node 0x03's bytes */
		put_f64(b, json_number_value(weld));
	size_t i;
	json_t *x;
	if (mesh) {
		/* The positions, then the indices as uint32 (0, 1, 2 ... without). */
		const json_t *pos = json_object_get(mesh, "positions");
		const json_t *idx = json_object_get(mesh, "indices");
		put_u64(b, json_array_size(pos) / 3);
		json_array_foreach(pos, i, x)
			put_f64(b, json_number_value(x));
		size_t n = idx ? json_array_size(idx) : json_array_size(pos) / 3;
		put_u64(b, n / 3);
		for (i = 0; i < n; i++) {
			uint32_t k = idx ? (uint32_t)json_number_value(json_array_get(idx, i))
			                 : (uint32_t)i;
			unsigned char le[4] = {(unsigned char)k, (unsigned char)(k >> 8),
			                       (unsigned char)(k >> 16), (unsigned char)(k >> 24)};
			put(b, le, 4);
		}
	} else if (prim) {
		/* The kind, then the sizes as the wire orders them. */
		unsigned char k = (unsigned char)prim;
		put(b, &k, 1);
		const json_t *o = json_object_get(s, primitive_kinds[prim - 1]);
		const json_t *list = json_object_get(o, "half_extents");
		if (!list)
			list = json_object_get(o, "radii");
		if (list) {
			json_array_foreach(list, i, x)
				put_f64(b, json_number_value(x));
		} else {
			put_f64(b, json_number_value(json_object_get(o, "radius")));
			if (json_object_get(o, "half_height"))
				put_f64(b, json_number_value(json_object_get(o, "half_height")));
		}
	} else if (v) {
		put_u64(b, json_array_size(v));
		json_array_foreach(v, i, x) {
			size_t k;
			json_t *c;
			json_array_foreach(x, k, c)
				put_f64(b, json_number_value(c));
		}
	} else {
		put_u64(b, json_array_size(parts));
		json_array_foreach(parts, i, x)
			node(b, x);
	}
	const json_t *r = json_object_get(s, "radius");
	put_f64(b, r ? json_number_value(r) : 0.0);
}

/* The canonical encoding of a shape's JSON text, from the document. */
static bytes document_bytes(const char *text)
{
	json_t *s = json_loads(text, JSON_DECODE_INT_AS_REAL, NULL);
	ck_assert_ptr_nonnull(s);
	bytes b = {0};
	put(&b, "clashd-shape-v1", 15);
	unsigned char dim = (unsigned char)dim_of(s);
	put(&b, &dim, 1);
	const char *const unit_names[] = {"mm", "cm", "m", "in"};
	const char *units = json_string_value(json_object_get(s, "units"));
	for (unsigned char u = 0; units && u < 4; u++)
		if (strcmp(units, unit_names[u]) == 0) {
			unsigned char head[2] = {0x10, (unsigned char)(u + 1)};
			put(&b, head, 2);
		}
	node(&b, s);
	json_decref(s);
	return b;
}

/* "sha256:..." of a shape's JSON text, computed from the document. */
static void expected_id(const char *text, char out[72])
{
	bytes b = document_bytes(text);
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256(b.p, b.n, md);
	strcpy(out, "sha256:");
	for (int i = 0; i < 32; i++)
		sprintf(out + 7 + 2 * i, "%02x", md[i]);
	free(b.p);
}

/* ---- random shapes, written in several ways ---- */

/* A coordinate: style 0 %.17g, 1 integral ones as "k.0", 2 as "ke0". */
static void put_number(char **o, double x, int style)
{
	if (x == floor(x) && fabs(x) < 1e6 && style)
		*o += sprintf(*o, style == 1 ? "%.0f.0" : "%.0fe0", x);
	else
		*o += sprintf(*o, "%.17g", x);
}

/* Random points of dimension dim, about a centre; some integral. */
static void points(char **o, prng *g, int dim, size_t n, double cx, int style)
{
	*o += sprintf(*o, "\"vertices\": [");
	for (size_t i = 0; i < n; i++) {
		*o += sprintf(*o, "%s[", i ? ", " : "");
		for (int k = 0; k < dim; k++) {
			double x = (k == 0 ? cx : 0) + 2 * prng_unit(g) - 1;
			if (prng_below(g, 5) == 0)
				x = (double)prng_below(g, 3) - 1; /* 0 sometimes written -0.0 */
			if (x == 0 && style == 2)
				*o += sprintf(*o, "%s-0.0", k ? ", " : "");
			else {
				*o += sprintf(*o, "%s", k ? ", " : "");
				put_number(o, x, style);
			}
		}
		*o += sprintf(*o, "]");
	}
	*o += sprintf(*o, "]");
}

/* A random Shape without pose (convex, or compound two deep), as text in
 * `style`; the same seed gives the same geometry in every style. */
static char *random_shape(unsigned seed, int dim, double cx, int style)
{
	prng g = {seed};
	char *text = malloc(1 << 20), *o = text;
	ck_assert_ptr_nonnull(text);
	int kind = (int)prng_below(&g, 3);
	if (kind == 0) {
		*o++ = '{';
		points(&o, &g, dim, 1 + (size_t)prng_below(&g, 60), cx, style);
	} else {
		o += sprintf(o, "{\"parts\": [");
		int n = 1 + (int)prng_below(&g, 3);
		for (int i = 0; i < n; i++) {
			o += sprintf(o, "%s{", i ? ", " : "");
			if (kind == 2 && i == 0) {
				o += sprintf(o, "\"parts\": [{");
				points(&o, &g, dim, 1 + (size_t)prng_below(&g, 40), cx, style);
				o += sprintf(o, "}]");
			} else {
				points(&o, &g, dim, 1 + (size_t)prng_below(&g, 40), cx + i, style);
			}
			if (prng_below(&g, 2))
				o += sprintf(o, ", \"radius\": 0.25");
			*o++ = '}';
		}
		*o++ = ']';
	}
	if (prng_below(&g, 2))
		o += sprintf(o, ", \"radius\": %s", style ? "1e-1" : "0.1");
	*o++ = '}';
	*o = '\0';
	return text;
}

/* ---- HTTP ---- */

/* POST /v1/shapes: the status, the id into `id`. */
static int upload(const char *shape, char id[72])
{
	hresp r;
	http_do("POST", "/v1/shapes", JSON_HEADERS, shape, strlen(shape), &r);
	int status = r.status;
	if (status == 200 || status == 201) {
		json_t *s = json_loads(r.body, 0, NULL);
		ck_assert_ptr_nonnull(s);
		const char *text = json_string_value(json_object_get(s, "id"));
		ck_assert_ptr_nonnull(text);
		snprintf(id, 72, "%s", text);
		json_decref(s);
	}
	hresp_free(&r);
	return status;
}

/* ---- tests ---- */

START_TEST(test_ids)
{
	server_start();
	for (unsigned i = 0; i < 40; i++) {
		int dim = 1 + (int)(i % 4);
		char want[72], id[72], again[72];
		char *text = random_shape(1000 + i, dim, 0, 0);
		expected_id(text, want);
		ck_assert_int_eq(upload(text, id), 201);
		ck_assert_str_eq(id, want);
		/* The same numbers written otherwise: the same shape. */
		for (int style = 1; style <= 2; style++) {
			char *other = random_shape(1000 + i, dim, 0, style);
			ck_assert_int_eq(upload(other, again), 200);
			ck_assert_str_eq(again, want);
			free(other);
		}
		free(text);
	}
	ck_assert_int_eq(server_metric("clashd_shape_store_entries"), 40);
}
END_TEST

/* {"ref": id} for each top-level shape of `text` whose "vertices"/"parts"
 * object starts at a marker: here, requests are built from shape texts
 * directly. */
static char *query_text(const char *a, const char *b, const char *method, const char *pose)
{
	char *q = malloc(strlen(a) + strlen(b) + 512);
	sprintf(q,
	        "{\"a\": %.*s, \"pose\": {\"translation\": [0.5, 0.25, 0]}}, \"b\": %.*s, "
	        "\"pose\": %s}, \"method\": \"%s\"}",
	        (int)strlen(a) - 1, a, (int)strlen(b) - 1, b, pose, method);
	return q;
}

static char *ref_text(const char *id)
{
	size_t n = strlen(id) + 16;
	char *t = malloc(n);
	snprintf(t, n, "{\"ref\": \"%s\"}", id);
	return t;
}

START_TEST(test_ref_answers_equal_inline)
{
	server_start();
	static const char *const methods[] = {"gjk", "simplex", "ipm"};
	static const char *const poses[] = {
		"{\"translation\": [1.5, 0, 0]}",
		("{\"translation\": [0.2, 0.1, 0], \"rotation\": [0, 0, 0.38268343236508984, "
	         "0.9238795325112867]}"),
		"{\"translation\": [4, 0.5, 0]}",
	};
	for (unsigned i = 0; i < 24; i++) {
		char *a = random_shape(5000 + 2 * i, 3, 0, 0);
		char *b = random_shape(5001 + 2 * i, 3, 0.5, 0);
		char ida[72], idb[72];
		ck_assert_int_lt(upload(a, ida) - 200, 2);
		ck_assert_int_lt(upload(b, idb) - 200, 2);
		char *ra = ref_text(ida), *rb = ref_text(idb);
		for (size_t m = 0; m < 3; m++) {
			const char *pose = poses[i % 3];
			char *inline_q = query_text(a, b, methods[m], pose);
			char *ref_q = query_text(ra, rb, methods[m], pose);
			int s1, s2;
			char *x = http_post_json("/v1/query", inline_q, &s1),
			     *y = http_post_json("/v1/query", ref_q, &s2);
			ck_assert_int_eq(s1, s2);
			if (s1 == 200)
				ck_assert_str_eq(x, y);
			free(x);
			free(y);
			/* A batch of both forms: the same items. */
			char *batch = malloc(strlen(inline_q) + strlen(ref_q) + 64);
			sprintf(batch, "{\"queries\": [%s, %s]}", inline_q, ref_q);
			x = http_post_json("/v1/batch", batch, &s1);
			ck_assert_int_eq(s1, 200);
			json_t *root = json_loads(x, 0, NULL);
			json_t *res = json_object_get(root, "results");
			char *i0 = json_dumps(json_array_get(res, 0), JSON_COMPACT);
			char *i1 = json_dumps(json_array_get(res, 1), JSON_COMPACT);
			ck_assert_str_eq(i0, i1);
			free(i0);
			free(i1);
			json_decref(root);
			free(x);
			free(batch);
			free(inline_q);
			free(ref_q);
		}
		/* Contains: inner and outer. */
		char *c1 = malloc(strlen(a) + strlen(b) + 64), *c2 = malloc(256);
		sprintf(c1, "{\"inner\": %s, \"outer\": %s}", b, a);
		sprintf(c2, "{\"inner\": %s, \"outer\": %s}", rb, ra);
		int s1, s2;
		char *x = http_post_json("/v1/contains", c1, &s1),
		     *y = http_post_json("/v1/contains", c2, &s2);
		ck_assert_int_eq(s1, s2);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
		free(c1);
		free(c2);
		/* A scene: both, and a third object by ref with a radius added. */
		char *sc1 = malloc(2 * (strlen(a) + strlen(b)) + 512), *sc2 = malloc(1024);
		sprintf(sc1,
		        "{\"objects\": [{\"id\": \"a\", \"shape\": %s}, {\"id\": \"b\", "
		        "\"shape\": %s}], \"clearance\": 1}",
		        a, b);
		sprintf(sc2,
		        "{\"objects\": [{\"id\": \"a\", \"shape\": %s}, {\"id\": \"b\", "
		        "\"shape\": %s}], \"clearance\": 1}",
		        ra, rb);
		x = http_post_json("/v1/scene", sc1, &s1);
		y = http_post_json("/v1/scene", sc2, &s2);
		ck_assert_int_eq(s1, 200);
		ck_assert_int_eq(s2, 200);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
		free(sc1);
		free(sc2);
		free(ra);
		free(rb);
		free(a);
		free(b);
	}
}
END_TEST

/* Primitives stored: ids from the documented form, answers by ref the
 * inline answers, the same sizes written otherwise the same id. */
START_TEST(test_primitives)
{
	server_start();
	static const char *const shapes[] = {
		"{\"sphere\": {\"radius\": 1.5}}",
		"{\"box\": {\"half_extents\": [1, 2, 0.5]}, \"radius\": 0.25}",
		"{\"capsule\": {\"radius\": 0.5, \"half_height\": 2}}",
		"{\"cylinder\": {\"radius\": 10, \"half_height\": 3}}",
		"{\"cone\": {\"radius\": 1, \"half_height\": 1.5}}",
		"{\"ellipsoid\": {\"radii\": [3, 2, 1]}}",
		("{\"parts\": [{\"sphere\": {\"radius\": 1}}, {\"vertices\": [[0, 0, 0], "
	         "[1, 0, 0], [0, 1, 0]]}, {\"cylinder\": {\"radius\": 0.5, \"half_height\": 1}}]}"),
	};
	const char *probe = "{\"box\": {\"half_extents\": [0.5, 0.5, 0.5]}}";
	const char *pose = "{\"translation\": [2.5, 0.75, 0.25], \"rotation\": [0, 0, "
			   "0.38268343236508984, 0.9238795325112867]}";
	char ids[7][72];
	for (size_t i = 0; i < 7; i++) {
		char want[72];
		expected_id(shapes[i], want);
		ck_assert_int_eq(upload(shapes[i], ids[i]), 201);
		ck_assert_str_eq(ids[i], want);
		char *r = ref_text(ids[i]);
		char *inline_q = query_text(shapes[i], probe, "gjk", pose);
		char *ref_q = query_text(r, probe, "gjk", pose);
		int s1, s2;
		char *x = http_post_json("/v1/query", inline_q, &s1),
		     *y = http_post_json("/v1/query", ref_q, &s2);
		ck_assert_int_eq(s1, 200);
		ck_assert_int_eq(s2, 200);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
		free(inline_q);
		free(ref_q);
		free(r);
	}
	/* Different kinds with the same sizes are different shapes. */
	char id2[72];
	ck_assert_int_eq(upload("{\"cylinder\": {\"radius\": 0.5, \"half_height\": 2}}", id2), 201);
	ck_assert_str_ne(id2, ids[2]);
	ck_assert_int_eq(upload("{\"capsule\": {\"half_height\": 2.0, \"radius\": 5e-1}}", id2),
	                 200);
	ck_assert_str_eq(id2, ids[2]);
}
END_TEST

/* Meshes stored: ids from the documented form (indices written out when
 * absent), the summary's triangles and solid, answers by ref the inline
 * answers. */
START_TEST(test_meshes)
{
	server_start();
	const char *tet = "{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "
			  "\"indices\": [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]}}";
	const char *open = "{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "
			   "\"indices\": [0, 2, 1, 0, 1, 3, 0, 3, 2]}, \"radius\": 0.01}";
	const char *soup = "{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0]}}";
	const char *indexed = "{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0], "
			      "\"indices\": [0, 1, 2]}}";
	const char *shapes[] = {tet, open, soup};
	const char *probe =
		"{\"vertices\": [[0.6, 0.35, 0.1], [0.7, 0.35, 0.1], [0.6, 0.45, 0.1]]}";
	const char *pose = "{\"translation\": [0.05, 0.02, 0.01]}";
	for (size_t i = 0; i < 3; i++) {
		char want[72], id[72];
		expected_id(shapes[i], want);
		ck_assert_int_eq(upload(shapes[i], id), 201);
		ck_assert_str_eq(id, want);
		char *r = ref_text(id);
		char *inline_q = query_text(shapes[i], probe, "gjk", pose);
		char *ref_q = query_text(r, probe, "gjk", pose);
		int s1, s2;
		char *x = http_post_json("/v1/query", inline_q, &s1),
		     *y = http_post_json("/v1/query", ref_q, &s2);
		ck_assert_int_eq(s1, 200);
		ck_assert_int_eq(s2, 200);
		ck_assert_str_eq(x, y);
		/* The probe (a moves by (0.5, 0.25, 0): query_text) lies inside
		 * the tetrahedron, a solid; not inside the open one. */
		json_t *j = json_loads(x, 0, NULL);
		ck_assert(json_is_true(json_object_get(j, "intersecting")) == (i == 0));
		json_decref(j);
		free(x);
		free(y);
		free(inline_q);
		free(ref_q);
		/* The summary. */
		char path[128];
		snprintf(path, sizeof path, "/v1/shapes/%s", id);
		hresp g;
		http_do("GET", path, NULL, NULL, 0, &g);
		ck_assert_int_eq(g.status, 200);
		j = json_loads(g.body, 0, NULL);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "triangles")), i == 0   ? 4
		                                                                      : i == 1 ? 3
		                                                                               : 1);
		ck_assert(json_is_true(json_object_get(j, "solid")) == (i == 0));
		json_decref(j);
		hresp_free(&g);
		free(r);
	}
	/* Consecutive triples and the same indices written out: one shape. */
	char id1[72], id2[72];
	ck_assert_int_eq(upload(soup, id1), 200);
	ck_assert_int_eq(upload(indexed, id2), 200);
	ck_assert_str_eq(id1, id2);
}
END_TEST

/* A ref's radius adds to the stored one. */
START_TEST(test_ref_radius_adds)
{
	server_start();
	char id[72];
	ck_assert_int_eq(upload("{\"vertices\": [[0, 0, 0]], \"radius\": 1}", id), 201);
	char q[512];
	sprintf(q,
	        "{\"a\": {\"ref\": \"%s\", \"radius\": 0.5}, \"b\": {\"vertices\": [[5, 0, 0]]}}",
	        id);
	int st;
	char *x = http_post_json("/v1/query", q, &st);
	ck_assert_int_eq(st, 200);
	json_t *r = json_loads(x, 0, NULL);
	ck_near(json_number_value(json_object_get(r, "distance")), 3.5, 1e-12);
	json_decref(r);
	free(x);
}
END_TEST

static void *upload_many(void *arg)
{
	const char *shape = arg;
	intptr_t created = 0;
	for (int i = 0; i < 10; i++) {
		char id[72];
		int st = upload(shape, id);
		ck_assert(st == 200 || st == 201);
		created += st == 201;
	}
	return (void *)created;
}

START_TEST(test_concurrent_uploads)
{
	server_start();
	char *shape = random_shape(77, 3, 0, 0);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, upload_many, shape);
	intptr_t created = 0;
	for (int i = 0; i < 4; i++) {
		void *n;
		pthread_join(t[i], &n);
		created += (intptr_t)n;
	}
	ck_assert_int_eq(created, 1);
	ck_assert_int_eq(server_metric("clashd_shape_store_entries"), 1);
	free(shape);
}
END_TEST

/* Queries by ref while uploads push shapes out of a tiny store: each
 * answer is the inline one or an unknown-shape problem, never another. */
typedef struct evict_job {
	unsigned seed;
	int answered, missing;
} evict_job;

static void *query_while_evicting(void *arg)
{
	evict_job *j = arg;
	for (int i = 0; i < 30; i++) {
		unsigned s = j->seed + (unsigned)i;
		char *a = random_shape(s, 3, 0, 0), *b = random_shape(s + 7777, 3, 1, 0);
		/* A shape larger than the whole store is refused (413): its id
		 * is then not the server's to hold, and the iteration is moot. */
		char ida[72], idb[72];
		int ua = upload(a, ida), ub = upload(b, idb);
		if ((ua != 200 && ua != 201) || (ub != 200 && ub != 201)) {
			ck_assert_msg(ua == 413 || ub == 413, "uploads answered %d and %d", ua, ub);
			free(a);
			free(b);
			j->missing++;
			continue;
		}
		char *ra = ref_text(ida), *rb = ref_text(idb);
		char *qi = query_text(a, b, "gjk", "{\"translation\": [1, 0, 0]}");
		char *qr = query_text(ra, rb, "gjk", "{\"translation\": [1, 0, 0]}");
		int s1, s2;
		char *x = http_post_json("/v1/query", qi, &s1),
		     *y = http_post_json("/v1/query", qr, &s2);
		ck_assert_int_eq(s1, 200);
		if (s2 == 200) {
			ck_assert_str_eq(x, y);
			j->answered++;
		} else {
			ck_assert_int_eq(s2, 422);
			ck_assert_ptr_nonnull(strstr(y, "unknown-shape"));
			j->missing++;
		}
		free(x);
		free(y);
		free(qi);
		free(qr);
		free(ra);
		free(rb);
		free(a);
		free(b);
	}
	return NULL;
}

START_TEST(test_eviction_under_load)
{
	server_start_with((const char *const[]){"--shape-store", "48K", NULL}, NULL);
	pthread_t t[3];
	evict_job jobs[3] = {{100, 0, 0}, {2000, 0, 0}, {30000, 0, 0}};
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, query_while_evicting, &jobs[i]);
	int answered = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		answered += jobs[i].answered;
	}
	ck_assert_int_gt(answered, 0);
	ck_assert_int_gt(server_metric("clashd_shape_store_evictions_total"), 0);
	ck_assert_int_le(server_metric("clashd_shape_store_bytes"), 48 * 1024);
	assert_still_serving();
}
END_TEST

static json_t *unknown_problem(const char *path, const char *body, const char *pointer)
{
	hresp r;
	http_do("POST", path, JSON_HEADERS, body, strlen(body), &r);
	ck_assert_msg(r.status == 422, "%d %s", r.status, r.body);
	json_t *p = json_loads(r.body, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(p, "type")),
	                 "urn:clashd:problem:unknown-shape");
	if (pointer)
		ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), pointer);
	hresp_free(&r);
	return p;
}

START_TEST(test_unknown_refs)
{
	server_start();
	char held[72];
	ck_assert_int_eq(upload("{\"vertices\": [[0, 0, 0], [1, 1, 1]]}", held), 201);
	const char *x = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
	const char *y = "sha256:2222222222222222222222222222222222222222222222222222222222222222";
	char q[1024];
	sprintf(q,
	        "{\"a\": {\"ref\": \"%s\"}, \"b\": {\"parts\": [{\"ref\": \"%s\"}, {\"ref\": "
	        "\"%s\"}, {\"ref\": \"%s\"}]}}",
	        held, x, y, x);
	json_t *p = unknown_problem("/v1/query", q, "/b/parts/0/ref");
	json_t *missing = json_object_get(p, "missing");
	ck_assert_int_eq(json_array_size(missing), 2);
	ck_assert_str_eq(json_string_value(json_array_get(missing, 0)), x);
	ck_assert_str_eq(json_string_value(json_array_get(missing, 1)), y);
	json_decref(p);

	sprintf(q,
	        "{\"objects\": [{\"id\": \"1\", \"shape\": {\"ref\": \"%s\"}}, {\"id\": \"2\", "
	        "\"shape\": {\"ref\": \"%s\"}}, {\"id\": \"3\", \"shape\": {\"ref\": \"%s\"}}]}",
	        y, held, x);
	p = unknown_problem("/v1/scene", q, "/objects/0/shape/ref");
	ck_assert_int_eq(json_array_size(json_object_get(p, "missing")), 2);
	json_decref(p);

	sprintf(q, "{\"inner\": {\"ref\": \"%s\"}, \"outer\": {\"ref\": \"%s\"}}", held, y);
	p = unknown_problem("/v1/contains", q, "/outer/ref");
	ck_assert_int_eq(json_array_size(json_object_get(p, "missing")), 1);
	json_decref(p);

	/* A batch: each item for itself. */
	sprintf(q,
	        "{\"queries\": [{\"a\": {\"ref\": \"%s\"}, \"b\": {\"ref\": \"%s\"}}, {\"a\": "
	        "{\"ref\": \"%s\"}, \"b\": {\"ref\": \"%s\"}}]}",
	        held, held, held, y);
	int st;
	char *body = http_post_json("/v1/batch", q, &st);
	ck_assert_int_eq(st, 200);
	json_t *root = json_loads(body, 0, NULL);
	json_t *res = json_object_get(root, "results");
	ck_assert_ptr_nonnull(json_object_get(json_array_get(res, 0), "distance"));
	json_t *item = json_array_get(res, 1);
	ck_assert_str_eq(json_string_value(json_object_get(item, "type")),
	                 "urn:clashd:problem:unknown-shape");
	ck_assert_str_eq(json_string_value(json_object_get(item, "pointer")), "/queries/1/b/ref");
	ck_assert_int_eq(json_array_size(json_object_get(item, "missing")), 1);
	json_decref(root);
	free(body);
	ck_assert_int_ge(server_metric("clashd_shape_store_misses_total"), 4);
}
END_TEST

static void bad(const char *path, const char *body, int status, const char *pointer)
{
	hresp r;
	http_do("POST", path, JSON_HEADERS, body, strlen(body), &r);
	json_t *p = assert_problem(&r, status);
	if (pointer)
		ck_assert_msg(strcmp(json_string_value(json_object_get(p, "pointer")), pointer) ==
		                      0,
		              "%s: pointer %s, not %s", body,
		              json_string_value(json_object_get(p, "pointer")), pointer);
	json_decref(p);
	hresp_free(&r);
}

START_TEST(test_bad_uploads)
{
	server_start_with((const char *const[]){"--max-vertices", "100", NULL}, NULL);
	bad("/v1/shapes", "{\"vertices\": [[0, 0]", 400, NULL);
	bad("/v1/shapes", "", 400, "");
	bad("/v1/shapes", "[1, 2]", 422, "");
	bad("/v1/shapes", "{\"vertices\": [[0, 0]], \"pose\": {\"angle\": 1}}", 422, "/pose");
	bad("/v1/shapes", "{\"parts\": [{\"vertices\": [[0, 0]], \"pose_end\": {}}]}", 422,
	    "/parts/0/pose_end");
	bad("/v1/shapes", "{\"parts\": [{\"vertices\": [[0, 0]]}, {\"vertices\": [[0, 0, 0]]}]}",
	    422, "/parts/1/vertices/0");
	bad("/v1/shapes", "{\"ref\": \"sha256:00\"}", 422, "/ref");
	bad("/v1/shapes", "{\"vertices\": [[0, 0]], \"radius\": -1}", 422, "/radius");
	bad("/v1/shapes", "{\"vertices\": [[0, 0]], \"colour\": 1}", 422, "/colour");
	/* One primitive a shape, its name spelled plainly or with escapes. */
	bad("/v1/shapes", "{\"box\": {\"half_extents\": [1, 1, 1]}, \"sphere\": {\"radius\": 1}}",
	    422, "/sphere");
	bad("/v1/shapes",
	    "{\"\\u0063ylinder\": {\"radius\": 1, \"half_height\": 1}, \"cone\": "
	    "{\"radius\": 1, \"half_height\": 1}}",
	    422, "/cone");
	bad("/v1/query",
	    "{\"a\": {\"sphere\": {\"radius\": 1}, \"b\\u006fx\": {\"half_extents\": "
	    "[1, 1, 1]}}, \"b\": {\"sphere\": {\"radius\": 1}}}",
	    422, "/a/box");
	char big[4096], *o = big;
	o += sprintf(o, "{\"vertices\": [");
	for (int i = 0; i < 101; i++)
		o += sprintf(o, "%s[%d, 0]", i ? "," : "", i);
	sprintf(o, "]}");
	bad("/v1/shapes", big, 422, "/vertices");
	/* Refs in queries. */
	bad("/v1/query", "{\"a\": {\"ref\": 12}, \"b\": {\"vertices\": [[0]]}}", 422, "/a/ref");
	bad("/v1/query", "{\"a\": {\"ref\": \"sha256:ABCD\"}, \"b\": {\"vertices\": [[0]]}}", 422,
	    "/a/ref");
	char id[72], q[512];
	ck_assert_int_eq(upload("{\"vertices\": [[0, 0], [1, 0]]}", id), 201);
	sprintf(q, "{\"a\": {\"vertices\": [[0, 0, 0]]}, \"b\": {\"ref\": \"%s\"}}", id);
	bad("/v1/query", q, 422, "/b/ref");
	sprintf(q, "{\"a\": {\"ref\": \"%s\", \"vertices\": [[0, 0]]}, \"b\": {\"ref\": \"%s\"}}",
	        id, id);
	bad("/v1/query", q, 422, "/a/ref");
	ck_assert_int_eq(server_metric("clashd_shape_store_entries"), 1);
}
END_TEST

START_TEST(test_get_head_delete)
{
	server_start_with((const char *const[]){"--store-delete", "1", NULL}, NULL);
	char id[72], path[128];
	const char *shape = "{\"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}";
	ck_assert_int_eq(upload(shape, id), 201);
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	hresp r;
	http_do("GET", path, NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	json_t *s = json_loads(r.body, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(s, "id")), id);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "dim")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "vertices")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "parts")), 0);
	ck_assert_int_gt(json_integer_value(json_object_get(s, "bytes")), 4 * 3 * 8);
	json_decref(s);
	hresp_free(&r);
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "HEAD", path, NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 1), 0);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	hconn_close(&c);
	http_do("DELETE", path, NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 204);
	hresp_free(&r);
	http_do("DELETE", path, NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 404));
	hresp_free(&r);
	http_do("GET", path, NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 404));
	hresp_free(&r);
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_request(&c, "HEAD", path, NULL, NULL, 0), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 1), 0);
	ck_assert_int_eq(r.status, 404);
	hresp_free(&r);
	hconn_close(&c);
	http_do("GET", "/v1/shapes/sha256:xyz", NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 404));
	hresp_free(&r);
	http_do("PUT", path, NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 405));
	hresp_free(&r);
	/* Uploaded again: created again. */
	ck_assert_int_eq(upload(shape, id), 201);
}
END_TEST

/* ---- the flat form: "positions" and "dim" ---- */

/* Every "vertices" under v turned into "positions" (the same numbers in
 * the same order) and "dim" (left out when 3 and `keep_dim` is 0). */
static void flatten(json_t *v, int keep_dim)
{
	size_t i;
	json_t *x;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			flatten(x, keep_dim);
		return;
	}
	if (!json_is_object(v))
		return;
	json_t *verts = json_object_get(v, "vertices");
	if (verts) {
		json_t *flat = json_array();
		size_t d = json_array_size(json_array_get(verts, 0));
		json_array_foreach(verts, i, x) {
			size_t k;
			json_t *c;
			json_array_foreach(x, k, c)
				json_array_append_new(flat, json_real(json_number_value(c)));
		}
		json_object_del(v, "vertices");
		json_object_set_new(v, "positions", flat);
		if (d != 3 || keep_dim)
			json_object_set_new(v, "dim", json_integer((json_int_t)d));
	}
	const char *k;
	json_object_foreach(v, k, x)
		flatten(x, keep_dim);
}

/* The shape text with its points flat (malloc'd). */
static char *flat_text(const char *text, int keep_dim)
{
	json_t *j = json_loads(text, JSON_DECODE_INT_AS_REAL, NULL);
	ck_assert_ptr_nonnull(j);
	flatten(j, keep_dim);
	char *out = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
	ck_assert_ptr_nonnull(out);
	json_decref(j);
	return out;
}

/* The method name with its first letter escaped ("\u0067jk"): the query
 * is then parsed by jansson, not read by the vertex scanner. */
static void escaped(const char *method, char out[32])
{
	snprintf(out, 32, "\\u%04x%s", (unsigned)method[0], method + 1);
}

/* Posts `body` to `path` and `other` to the same path: the same status and
 * bytes. */
static void same_reply(const char *path, const char *body, const char *other)
{
	int s1, s2;
	char *x = http_post_json(path, body, &s1), *y = http_post_json(path, other, &s2);
	ck_assert_msg(s1 == s2, "%s: %d, flat %d\n%s\n%s", path, s1, s2, x, y);
	ck_assert_msg(strcmp(x, y) == 0, "%s: %s\nflat: %s", path, x, y);
	free(x);
	free(y);
}

START_TEST(test_positions_same_as_vertices)
{
	server_start();
	/* Ids: the flat form is the same shape, in every dimension. */
	for (unsigned i = 0; i < 24; i++) {
		int dim = 1 + (int)(i % 4);
		char want[72], id[72];
		char *text = random_shape(9000 + i, dim, 0, 0);
		char *flat = flat_text(text, i % 2);
		expected_id(text, want);
		ck_assert_int_eq(upload(flat, id), 201);
		ck_assert_str_eq(id, want);
		ck_assert_int_eq(upload(text, id), 200);
		ck_assert_str_eq(id, want);
		free(flat);
		free(text);
	}
	/* Answers: every method, every endpoint, read by the scanner or by
	 * jansson. */
	static const char *const methods[] = {"gjk", "simplex", "ipm"};
	static const char *const poses[] = {
		"{\"translation\": [1.5, 0, 0]}",
		("{\"translation\": [0.2, 0.1, 0], \"rotation\": [0, 0, 0.38268343236508984, "
	         "0.9238795325112867]}"),
		"{\"translation\": [4, 0.5, 0]}",
	};
	for (unsigned i = 0; i < 16; i++) {
		char *a = random_shape(7000 + 2 * i, 3, 0, 0);
		char *b = random_shape(7001 + 2 * i, 3, 0.5, 0);
		char *fa = flat_text(a, i % 2), *fb = flat_text(b, i % 3 == 0);
		for (size_t m = 0; m < 3; m++) {
			char name[32];
			if (i % 2)
				escaped(methods[m], name);
			else
				snprintf(name, sizeof name, "%s", methods[m]);
			const char *pose = poses[i % 3];
			char *vq = query_text(a, b, name, pose);
			char *fq = query_text(fa, fb, name, pose);
			char *mixed = query_text(a, fb, name, pose);
			same_reply("/v1/query", vq, fq);
			same_reply("/v1/query", vq, mixed);
			char *vbatch = malloc(2 * strlen(vq) + 64),
			     *fbatch = malloc(strlen(fq) + strlen(vq) + 64);
			sprintf(vbatch, "{\"queries\": [%s, %s]}", vq, vq);
			sprintf(fbatch, "{\"queries\": [%s, %s]}", fq, vq);
			same_reply("/v1/batch", vbatch, fbatch);
			free(vbatch);
			free(fbatch);
			free(vq);
			free(fq);
			free(mixed);
		}
		char *c1 = malloc(strlen(a) + strlen(b) + 64);
		char *c2 = malloc(strlen(fa) + strlen(fb) + 64);
		sprintf(c1, "{\"inner\": %s, \"outer\": %s}", b, a);
		sprintf(c2, "{\"inner\": %s, \"outer\": %s}", fb, fa);
		same_reply("/v1/contains", c1, c2);
		free(c1);
		free(c2);
		char *sc1 = malloc(strlen(a) + strlen(b) + 256);
		char *sc2 = malloc(strlen(fa) + strlen(fb) + 256);
		sprintf(sc1,
		        "{\"objects\": [{\"id\": \"a\", \"shape\": %s}, {\"id\": \"b\", "
		        "\"shape\": %s}], \"clearance\": 1}",
		        a, b);
		sprintf(sc2,
		        "{\"objects\": [{\"id\": \"a\", \"shape\": %s}, {\"id\": \"b\", "
		        "\"shape\": %s}], \"clearance\": 1}",
		        fa, fb);
		same_reply("/v1/scene", sc1, sc2);
		free(sc1);
		free(sc2);
		free(fa);
		free(fb);
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(test_positions_bad_and_limits)
{
	server_start_with((const char *const[]){"--max-vertices", "100", NULL}, NULL);
	/* clang-format off */
	static const struct {
		const char *path, *body, *pointer;
	} cases[] = {
		{"/v1/query", "{\"a\": {\"positions\": [0, 0, 0, 1]}, \"b\": {\"vertices\": [[3, 3, 3]]}}",
		 "/a/positions"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0, 1], \"dim\": 2}, \"b\": {\"vertices\": "
		 "[[3, 3]]}}", "/a/positions"},
		{"/v1/query", "{\"a\": {\"positions\": [], \"dim\": 2}, \"b\": {\"vertices\": [[3, 3]]}}",
		 "/a/positions"},
		{"/v1/query", "{\"a\": {\"positions\": {}}, \"b\": {\"vertices\": [[3, 3, 3]]}}",
		 "/a/positions"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0], \"dim\": 0}, \"b\": {\"vertices\": [[3]]}}",
		 "/a/dim"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0], \"dim\": 9}, \"b\": {\"vertices\": [[3]]}}",
		 "/a/dim"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0], \"dim\": 1.5}, \"b\": {\"vertices\": [[3]]}}",
		 "/a/dim"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0], \"dim\": \"2\"}, \"b\": {\"vertices\": "
		 "[[3, 3]]}}", "/a/dim"},
		{"/v1/query", "{\"a\": {\"vertices\": [[0, 0]], \"dim\": 2}, \"b\": {\"vertices\": "
		 "[[3, 3]]}}", "/a/dim"},
		{"/v1/query", "{\"a\": {\"vertices\": [[0, 0]], \"positions\": [0, 0], \"dim\": 2}, "
		 "\"b\": {\"vertices\": [[3, 3]]}}", "/a/positions"},
		{"/v1/query", "{\"a\": {\"parts\": [{\"vertices\": [[0, 0]]}], \"positions\": [0, 0], "
		 "\"dim\": 2}, \"b\": {\"vertices\": [[3, 3]]}}", "/a/parts"},
		{"/v1/query", "{\"a\": {\"positions\": [0, null, 0]}, \"b\": {\"vertices\": [[3, 3, 3]]}}",
		 "/a/positions/1"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0, [0]]}, \"b\": {\"vertices\": [[3, 3, 3]]}}",
		 "/a/positions/2"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0, 0]}, \"b\": {\"positions\": [0, 0], "
		 "\"dim\": 2}}", "/b/dim"},
		{"/v1/query", "{\"a\": {\"vertices\": [[0, 0]]}, \"b\": {\"positions\": [0, 0, 0]}}",
		 "/b/positions"},
		{"/v1/query", "{\"a\": {\"positions\": [0, 0], \"dim\": 2}, \"b\": {\"vertices\": "
		 "[[0, 0, 0]]}}", "/b/vertices/0"},
		{"/v1/query", "{\"a\": {\"parts\": [{\"vertices\": [[0, 0]]}, {\"positions\": [1, 1, 1], "
		 "\"dim\": 2}]}, \"b\": {\"vertices\": [[3, 3]]}}", "/a/parts/1/positions"},
		{"/v1/contains", "{\"inner\": {\"positions\": [0, 0, 0, 1]}, \"outer\": {\"vertices\": "
		 "[[3, 3, 3]]}}", "/inner/positions"},
		{"/v1/scene", "{\"objects\": [{\"id\": \"x\", \"shape\": {\"positions\": [0, \"0\", 0]}}]}",
		 "/objects/0/shape/positions/1"},
		{"/v1/shapes", "{\"positions\": [0, 0, 0, 1, 1]}", "/positions"},
		{"/v1/shapes", "{\"positions\": [0, 0], \"dim\": 2, \"pose\": {\"angle\": 1}}", "/pose"},
		{"/v1/shapes", "{\"dim\": 2}", "/dim"},
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		bad(cases[i].path, cases[i].body, 422, cases[i].pointer);
	/* A batch item answers for itself. */
	int st;
	char *body = http_post_json("/v1/batch",
	                            "{\"queries\": [{\"a\": {\"positions\": [0, 0, 0]}, \"b\": "
	                            "{\"positions\": [1, 1]}}]}",
	                            &st);
	ck_assert_int_eq(st, 200);
	json_t *root = json_loads(body, 0, NULL);
	json_t *item = json_array_get(json_object_get(root, "results"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(item, "status")), 422);
	ck_assert_str_eq(json_string_value(json_object_get(item, "pointer")),
	                 "/queries/0/b/positions");
	json_decref(root);
	free(body);

	/* --max-vertices counts points: 100 of them fit in any dimension, 101
	 * do not (counted from the numbers over dim, read by the scanner or
	 * by jansson). */
	for (int d = 1; d <= 4; d++) {
		for (int points = 100; points <= 101; points++) {
			for (int slow = 0; slow < 2; slow++) {
				char *text = malloc(16384), *o = text;
				o += sprintf(o, "{%s\"positions\": [",
				             slow ? "\"r\\u0061dius\": 0, " : "");
				for (int k = 0; k < points * d; k++)
					o += sprintf(o, "%s%d", k ? ", " : "", k);
				sprintf(o, "], \"dim\": %d}", d);
				char id[72];
				if (points == 100)
					ck_assert_int_lt(upload(text, id) - 200, 2);
				else
					bad("/v1/shapes", text, 422, "/positions");
				free(text);
			}
		}
	}
	/* A bad dim counts every number as a point: the limit still holds. */
	char *text = malloc(16384), *o = text;
	o += sprintf(o, "{\"positions\": [");
	for (int k = 0; k < 101; k++)
		o += sprintf(o, "%s%d", k ? ", " : "", k);
	sprintf(o, "], \"dim\": 0}");
	bad("/v1/shapes", text, 422, "/positions");
	free(text);
}
END_TEST

/* A ref is a shape for --max-shapes, as the inline shape it stands for:
 * a small body cannot name more stored shapes than it could send. */
START_TEST(test_refs_count_as_shapes)
{
	server_start_with((const char *const[]){"--max-shapes", "4", NULL}, NULL);
	char id[72];
	ck_assert_int_lt(upload("{\"vertices\": [[0, 0, 0], [1, 1, 1]]}", id) - 200, 2);
	char q[1024];
	/* a, its 3 parts and b: 5 shapes, the fifth over. */
	sprintf(q,
	        "{\"a\": {\"parts\": [{\"ref\": \"%s\"}, {\"ref\": \"%s\"}, {\"ref\": \"%s\"}]}, "
	        "\"b\": {\"ref\": \"%s\", \"pose\": {\"translation\": [5, 0, 0]}}}",
	        id, id, id, id);
	bad("/v1/query", q, 422, "/b");
	/* 4 shapes are within. */
	sprintf(q,
	        "{\"a\": {\"parts\": [{\"ref\": \"%s\"}, {\"ref\": \"%s\"}]}, "
	        "\"b\": {\"ref\": \"%s\", \"pose\": {\"translation\": [5, 0, 0]}}}",
	        id, id, id);
	int st;
	char *body = http_post_json("/v1/query", q, &st);
	ck_assert_msg(st == 200, "%d %s", st, body);
	free(body);
}
END_TEST

/* The text of n random 3-D points, every coordinate the longest a double's
 * shortest text can be (24 characters: 17 digits, padded with zeros, which
 * change no value), as "positions" or as "vertices". */
static char *longest_points(size_t n, int nested)
{
	size_t cap = n * 80 + 64;
	char *text = malloc(cap), *o = text;
	ck_assert_ptr_nonnull(text);
	uint64_t g = 0x5EED1E55;
	o += sprintf(o, nested ? "{\"vertices\":[" : "{\"positions\":[");
	for (size_t i = 0; i < 3 * n; i++) {
		g = g * 6364136223846793005ULL + 1442695040888963407ULL;
		double x =
			(0.001 + 0.998 * (double)(g >> 11) / 9007199254740992.0) * (g & 1 ? -1 : 1);
		char num[40];
		int len = snprintf(num, sizeof num, "%.17g", x);
		ck_assert(!strchr(num, 'e'));
		while (len < 24)
			num[len++] = '0';
		num[len] = '\0';
		if (nested && i % 3 == 0)
			o += sprintf(o, "%s[", i ? "," : "");
		int comma = nested ? i % 3 != 0 : i > 0;
		o += sprintf(o, "%s%s", comma ? "," : "", num);
		if (nested && i % 3 == 2)
			*o++ = ']';
	}
	sprintf(o, "]}");
	ck_assert_uint_lt(strlen(text), cap);
	return text;
}

/* The defaults are coherent: the largest shape --max-vertices allows fits
 * in a --max-body upload whatever its digits (so that limit binds first:
 * one vertex more is a 422 at the points, not a 413). */
START_TEST(test_largest_shape_fits)
{
	json_t *line = listening_line((const char *const[]){NULL}, NULL);
	ck_assert_ptr_nonnull(line);
	size_t nv = (size_t)json_integer_value(json_object_get(line, "max_vertices"));
	size_t body = (size_t)json_integer_value(json_object_get(line, "max_body_bytes"));
	json_decref(line);
	ck_assert_uint_gt(nv, 1000);
	server_start_with((const char *const[]){NULL}, NULL);
	for (int nested = 0; nested < 2; nested++) {
		char *text = longest_points(nv, nested);
		ck_assert_msg(strlen(text) <= body,
		              "%zu vertices take %zu bytes, over --max-body %zu", nv, strlen(text),
		              body);
		char id[72];
		int st = upload(text, id);
		ck_assert_msg(st == 201 || st == 200, "the largest shape: %d", st);
		free(text);
		text = longest_points(nv + 1, nested);
		bad("/v1/shapes", text, 422, nested ? "/vertices" : "/positions");
		free(text);
	}
}
END_TEST

/* An upload is answered before its preparation: hull_vertices is null
 * until the first query by ref prepares the shape; the answer is the
 * inline one all the same, and the bytes the preparation holds (about 60 a
 * hull vertex, clash.h) are added to the shape's and the store's count. */
START_TEST(test_prepared_on_first_use)
{
	server_start();
	char *text = malloc(8192), *o = text;
	o += sprintf(o, "{\"vertices\": [");
	for (int i = 0; i < 100; i++) {
		double y = 1 - 2 * (i + 0.5) / 100, r = sqrt(1 - y * y), th = 2.399963229728653 * i;
		o += sprintf(o, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", r * cos(th), y,
		             r * sin(th));
	}
	sprintf(o, "]}");
	int st;
	char *reply = http_post_json("/v1/shapes", text, &st);
	ck_assert_int_eq(st, 201);
	json_t *sum = json_loads(reply, 0, NULL);
	ck_assert(json_is_null(json_object_get(sum, "hull_vertices")));
	json_int_t weight = json_integer_value(json_object_get(sum, "bytes"));
	long long counted = server_metric("clashd_shape_store_bytes");
	ck_assert_int_gt(counted, weight);
	char id[72], path[128];
	snprintf(id, sizeof id, "%s", json_string_value(json_object_get(sum, "id")));
	json_decref(sum);
	free(reply);
	char *ref = ref_text(id);
	char *qi = query_text(text, "{\"vertices\": [[0, 0, 0], [0.1, 0, 0]]}", "gjk",
	                      "{\"translation\": [1.5, 0, 0]}");
	char *qr = query_text(ref, "{\"vertices\": [[0, 0, 0], [0.1, 0, 0]]}", "gjk",
	                      "{\"translation\": [1.5, 0, 0]}");
	same_reply("/v1/query", qi, qr);
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	hresp r;
	http_do("GET", path, NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	sum = json_loads(r.body, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "hull_vertices")), 100);
	json_int_t prepared = json_integer_value(json_object_get(sum, "bytes"));
	ck_assert_int_ge(prepared, weight + 100 * 40);
	/* The block malloc gave it and the list of blocks grown by one. */
	ck_assert_int_le(prepared, weight + (json_int_t)clash_prepared_bytes_max(3, 100) + 256);
	ck_assert_int_eq(server_metric("clashd_shape_store_bytes"), counted + (prepared - weight));
	json_decref(sum);
	hresp_free(&r);
	free(qi);
	free(qr);
	free(ref);
	free(text);
}
END_TEST

/* ---- what the store counts ---- */

/* The sanitizers' allocators keep no mallinfo2: under ASan or TSan the
 * steps below run (for their checks) unmeasured. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MALLOC_COUNTS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MALLOC_COUNTS 0
#endif
#endif
#ifndef MALLOC_COUNTS
#define MALLOC_COUNTS 1
#endif

/* Bytes malloc has handed out and not had back (arena chunks and mmap'd
 * blocks), as glibc counts them. */
static size_t in_use(void)
{
	if (!MALLOC_COUNTS)
		return 0;
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

/* n random points in the unit cube, as a shape's text. */
static char *cloud(unsigned seed, size_t n)
{
	prng g = {seed};
	char *t = malloc(64 * n + 32), *o = t;
	ck_assert_ptr_nonnull(t);
	o += sprintf(o, "{\"vertices\": [");
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s[%.9f, %.9f, %.9f]", i ? ", " : "", prng_unit(&g), prng_unit(&g),
		             prng_unit(&g));
	sprintf(o, "]}");
	return t;
}

/* n copies of the point (0, 0, 0): a few KB gzip'd, 8 bytes a point. */
static char *copies_of_a_point(size_t n)
{
	char *t = malloc(8 * n + 32), *o = t;
	ck_assert_ptr_nonnull(t);
	o += sprintf(o, "{\"vertices\": [");
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s[0,0,0]", i ? "," : "");
	sprintf(o, "]}");
	return t;
}

/* A k x k grid of squares, two triangles each, as a mesh. */
static char *grid_mesh(size_t k)
{
	char *t = malloc(48 * (k + 1) * (k + 1) + 64 * k * k + 64), *o = t;
	ck_assert_ptr_nonnull(t);
	o += sprintf(o, "{\"mesh\": {\"positions\": [");
	for (size_t i = 0; i <= k; i++)
		for (size_t j = 0; j <= k; j++)
			o += sprintf(o, "%s%zu, %zu, %g", i || j ? ", " : "", i, j,
			             0.01 * (double)((i * 7 + j * 3) % 5));
	o += sprintf(o, "], \"indices\": [");
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < k; j++) {
			size_t a = i * (k + 1) + j, b = a + 1, c = a + k + 1, d = c + 1;
			o += sprintf(o, "%s%zu, %zu, %zu, %zu, %zu, %zu", i || j ? ", " : "", a, b,
			             d, a, d, c);
		}
	sprintf(o, "]}}");
	return t;
}

/* n parts of m random points each. */
static char *cloud_compound(size_t n, size_t m)
{
	char *t = malloc(n * (64 * m + 64) + 32), *o = t;
	ck_assert_ptr_nonnull(t);
	o += sprintf(o, "{\"parts\": [");
	for (size_t i = 0; i < n; i++) {
		char *part = cloud((unsigned)(7 * i + 1), m);
		o += sprintf(o, "%s%s", i ? ", " : "", part);
		free(part);
	}
	sprintf(o, "]}");
	return t;
}

/* Whether the store's count moved by what malloc's did, within 2 % and
 * 32 KiB (the thread's cache of small freed blocks counts as in use). */
static void assert_counted(const char *what, size_t mem_before, size_t mem_after,
                           size_t count_before, size_t count_after)
{
	if (!MALLOC_COUNTS)
		return;
	long long mem = (long long)mem_after - (long long)mem_before;
	long long counted = (long long)count_after - (long long)count_before;
	fprintf(stderr, "store: %-34s malloc %+10lld, counted %+10lld\n", what, mem, counted);
	long long margin = llabs(counted) / 50 + 32768;
	ck_assert_msg(llabs(mem - counted) <= margin,
	              "%s: malloc's bytes in use moved by %lld, the store counted %lld", what, mem,
	              counted);
}

/* Every kind of shape uploaded in-process, then prepared by a query naming
 * it, then deleted: at each step the store's count moves as malloc's bytes
 * in use do (200 000 copies of one point: their 4.8 MB of coordinates, not
 * the 17.6 MB once counted for the room of a hull of every point). */
START_TEST(test_charge_is_memory)
{
	proto_store *store = proto_store_new((size_t)1 << 30, 0);
	ck_assert_ptr_nonnull(store);
	proto_context ctx = {.limits = PROTO_DEFAULT_LIMITS, .store = store};
	proto_call call = {.ctx = &ctx};
	struct {
		const char *what;
		char *text;
		char id[72];
	} shapes[] = {
		{"200 000 copies of a point", copies_of_a_point(200000), ""},
		{"a 50 000-point cloud", cloud(3, 50000), ""},
		{"a 2 x 300 x 300-triangle mesh", grid_mesh(300), ""},
		{"a compound of 64 x 500 points", cloud_compound(64, 500), ""},
		{"a 20-point cloud (a warm-up)", cloud(5, 20), ""},
	};
	size_t n = sizeof shapes / sizeof shapes[0];
	proto_store_stats st;
	size_t mem0 = 0, count0 = 0;
	/* The last, small one first: lazily made tables of the libraries are
	 * made then, not counted. */
	for (size_t k = 0; k < n; k++) {
		size_t i = (k + n - 1) % n;
		proto_reply out;
		proto_store_get_stats(store, &st);
		size_t mem = in_use(), count = st.bytes;
		if (k == 1) {
			mem0 = mem;
			count0 = count;
		}
		ck_assert_int_eq(proto_shape_put_reply(shapes[i].text, strlen(shapes[i].text),
		                                       &call, &out),
		                 0);
		ck_assert_msg(out.status == 201, "%s: %d %s", shapes[i].what, out.status, out.body);
		json_t *sum = json_loads(out.body, 0, NULL);
		snprintf(shapes[i].id, sizeof shapes[i].id, "%s",
		         json_string_value(json_object_get(sum, "id")));
		json_decref(sum);
		proto_reply_free(&out);
		proto_store_get_stats(store, &st);
		if (k)
			assert_counted(shapes[i].what, mem, in_use(), count, st.bytes);

		char q[256];
		snprintf(q, sizeof q,
		         "{\"a\": {\"ref\": \"%s\"}, \"b\": {\"vertices\": [[900, 0, "
		         "0]]}}",
		         shapes[i].id);
		mem = in_use();
		count = st.bytes;
		ck_assert_int_eq(proto_query_reply_ex(q, strlen(q), &call, &out), 0);
		ck_assert_msg(out.status == 200, "%s by ref: %d %s", shapes[i].what, out.status,
		              out.body);
		proto_reply_free(&out);
		proto_store_get_stats(store, &st);
		if (k) {
			char what[96];
			snprintf(what, sizeof what, "  prepared by a query");
			assert_counted(what, mem, in_use(), count, st.bytes);
		}
	}
	for (size_t i = 0; i + 1 < n; i++) {
		proto_reply out;
		ck_assert_int_eq(proto_shape_reply(&ctx, "DELETE", shapes[i].id, &out), 0);
		ck_assert_int_eq(out.status, 204);
		proto_reply_free(&out);
	}
	proto_store_get_stats(store, &st);
	assert_counted("all but the warm-up deleted", mem0, in_use(), count0, st.bytes);
	ck_assert_uint_eq(st.entries, 1);
	for (size_t i = 0; i < n; i++)
		free(shapes[i].text);
	proto_store_free(store);
}
END_TEST

/* Values for the store's own tests: blocks of a given size, their frees
 * counted. */
static int values_freed;

static void value_free(void *v)
{
	free(v);
	__atomic_add_fetch(&values_freed, 1, __ATOMIC_RELAXED);
}

static void key_of(unsigned i, uint8_t key[PROTO_STORE_KEY])
{
	memset(key, 0, PROTO_STORE_KEY);
	for (int b = 0; b < 4; b++)
		key[b] = (uint8_t)(i >> (8 * b));
	key[31] = 0x5a;
}

/* Put value i (1000 bytes) for `client`, held: the entry. */
static proto_store_entry *put_value(proto_store *s, unsigned i, const uint8_t *client, int *created)
{
	uint8_t key[PROTO_STORE_KEY];
	key_of(i, key);
	return proto_store_put(s, key, client, malloc(1000), 1000, value_free, created);
}

static int has_value(proto_store *s, unsigned i)
{
	uint8_t key[PROTO_STORE_KEY];
	key_of(i, key);
	return proto_store_has(s, key);
}

/* What put_value's values weigh in a store (the store's own bytes
 * included). */
static size_t value_weight(void)
{
	int created;
	proto_store *probe = proto_store_new(1 << 20, 0);
	proto_store_entry *e = put_value(probe, 0, NULL, &created);
	size_t w = proto_store_weight(probe, e);
	proto_store_release(probe, e);
	proto_store_free(probe);
	ck_assert_uint_gt(w, 1000);
	return w;
}

/* A value removed (or evicted) while held stays counted until released,
 * and what is counted makes others go: the store never holds more than its
 * budget but for what requests hold. */
START_TEST(test_held_after_removal_counted)
{
	int created;
	proto_store_entry *e;
	size_t w = value_weight();

	proto_store *s = proto_store_new(10 * w + w / 2, 0);
	proto_store_entry *held = put_value(s, 0, NULL, &created);
	ck_assert_int_eq(created, 1);
	uint8_t key[PROTO_STORE_KEY];
	key_of(0, key);
	ck_assert_int_eq(proto_store_remove(s, key), 0);
	proto_store_stats st;
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.entries, 0);
	ck_assert_uint_eq(st.bytes, w);
	ck_assert_uint_eq(st.held_removed, 1);
	ck_assert_uint_eq(st.held_removed_bytes, w);
	values_freed = 0;
	for (unsigned i = 1; i <= 20; i++) {
		e = put_value(s, i, NULL, &created);
		ck_assert_int_eq(created, 1);
		proto_store_release(s, e);
		proto_store_get_stats(s, &st);
		ck_assert_uint_le(st.bytes, 10 * w + w / 2);
	}
	/* Nine fit beside the one held: the eleven first went. */
	ck_assert_uint_eq(st.entries, 9);
	ck_assert_int_eq(values_freed, 11);
	ck_assert(!has_value(s, 11) && has_value(s, 12) && has_value(s, 20));
	proto_store_release(s, held);
	proto_store_get_stats(s, &st);
	ck_assert_int_eq(values_freed, 12);
	ck_assert_uint_eq(st.bytes, 9 * w);
	ck_assert_uint_eq(st.held_removed, 0);
	ck_assert_uint_eq(st.held_removed_bytes, 0);

	/* Evicted while held: the same. */
	e = put_value(s, 12, NULL, &created); /* there: held, most recent */
	ck_assert_int_eq(created, 0);
	for (unsigned i = 21; i <= 40; i++)
		proto_store_release(s, put_value(s, i, NULL, &created));
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.bytes, 10 * w);
	ck_assert_uint_eq(st.entries, 10);
	ck_assert(has_value(s, 12));
	key_of(12, key);
	ck_assert_int_eq(proto_store_remove(s, key), 0);
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.held_removed_bytes, w);
	proto_store_release(s, e);
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.bytes, 9 * w);
	proto_store_free(s);
}
END_TEST

/* A client whose share holds one value: each put evicts its only other
 * value, which left it with nothing counted (and freed its record) while
 * the put still used it (ASan: heap-use-after-free in the put). */
START_TEST(test_client_last_value)
{
	int created;
	size_t w = value_weight();
	uint8_t a[PROTO_STORE_CLIENT] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 1};
	proto_store *s = proto_store_new(10 * w + w / 2, w + w / 2);
	for (unsigned i = 0; i < 5; i++) {
		proto_store_release(s, put_value(s, i, a, &created));
		ck_assert_int_eq(created, 1);
		ck_assert(has_value(s, i) && (i == 0 || !has_value(s, i - 1)));
	}
	proto_store_stats st;
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.entries, 1);
	ck_assert_uint_eq(st.clients, 1);
	ck_assert_uint_eq(st.client_evictions, 4);
	ck_assert_uint_eq(st.bytes, w);
	proto_store_free(s);
}
END_TEST

/* One client's puts evict its own least recently used values past its
 * share, not another's; a value over the share is refused; a client's
 * held values push it over until released. */
START_TEST(test_client_share)
{
	int created;
	proto_store_entry *e;
	size_t w = value_weight();

	uint8_t a[PROTO_STORE_CLIENT] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 1};
	uint8_t b[PROTO_STORE_CLIENT] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 2};
	proto_store *s = proto_store_new(10 * w + w / 2, 3 * w + w / 2);
	for (unsigned i = 0; i < 3; i++)
		proto_store_release(s, put_value(s, i, a, &created));
	for (unsigned i = 100; i < 120; i++) {
		proto_store_release(s, put_value(s, i, b, &created));
		for (unsigned k = 0; k < 3; k++)
			ck_assert_msg(has_value(s, k), "b's put %u flushed a's value %u", i, k);
	}
	proto_store_stats st;
	proto_store_get_stats(s, &st);
	ck_assert_uint_eq(st.entries, 6);
	ck_assert_uint_eq(st.clients, 2);
	ck_assert_uint_eq(st.client_evictions, 17);
	ck_assert_uint_eq(st.evictions, 17);
	ck_assert(has_value(s, 117) && has_value(s, 118) && has_value(s, 119) &&
	          !has_value(s, 116));

	/* b holds its three and puts a fourth: over its share while it holds
	 * them all; the first let go is then its least recently used that
	 * can go. */
	proto_store_entry *h[3];
	uint8_t key[PROTO_STORE_KEY];
	for (unsigned i = 0; i < 3; i++) {
		key_of(117 + i, key);
		h[i] = proto_store_acquire(s, key);
	}
	e = put_value(s, 120, b, &created);
	ck_assert(has_value(s, 117) && has_value(s, 120));
	proto_store_release(s, h[0]);
	ck_assert(!has_value(s, 117) && has_value(s, 118) && has_value(s, 120));
	proto_store_release(s, h[1]);
	proto_store_release(s, h[2]);
	ck_assert(has_value(s, 118) && has_value(s, 119));
	/* Put and let go while the others are held: the new one is the one
	 * that can go. */
	for (unsigned i = 0; i < 2; i++) {
		key_of(118 + i, key);
		h[i] = proto_store_acquire(s, key);
	}
	proto_store_release(s, put_value(s, 121, b, &created));
	ck_assert(!has_value(s, 121) && has_value(s, 120));
	proto_store_release(s, h[0]);
	proto_store_release(s, h[1]);
	proto_store_release(s, e);
	ck_assert(has_value(s, 118) && has_value(s, 119) && has_value(s, 120));

	/* Nobody's values (no client) are bound by the budget alone. */
	for (unsigned i = 200; i < 230; i++)
		proto_store_release(s, put_value(s, i, NULL, &created));
	proto_store_get_stats(s, &st);
	ck_assert_uint_le(st.bytes, 10 * w + w / 2);

	/* Larger than a share: refused, freed. */
	values_freed = 0;
	key_of(999, key);
	e = proto_store_put(s, key, a, malloc(4 * w), 4 * w, value_free, &created);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(created, -3);
	ck_assert_int_eq(values_freed, 1);
	proto_store_free(s);
}
END_TEST

/* POST /v1/shapes from address `src` (127.0.0.x): the status, the id. */
static int upload_from(const char *src, const char *shape, char id[72])
{
	hconn c;
	c.len = 0;
	c.fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(c.fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	ck_assert_int_eq(inet_pton(AF_INET, src, &a.sin_addr), 1);
	ck_assert_int_eq(bind(c.fd, (struct sockaddr *)&a, sizeof a), 0);
	a.sin_port = htons((uint16_t)srv.port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(c.fd, (struct sockaddr *)&a, sizeof a), 0);
	hconn_timeout(&c, 20);
	ck_assert_int_eq(hconn_request(&c, "POST", "/v1/shapes", JSON_HEADERS, shape,
	                               strlen(shape)),
	                 0);
	hresp r;
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	int status = r.status;
	if (status == 200 || status == 201) {
		json_t *j = json_loads(r.body, 0, NULL);
		snprintf(id, 72, "%s", json_string_value(json_object_get(j, "id")));
		json_decref(j);
	}
	hresp_free(&r);
	hconn_close(&c);
	return status;
}

static int stored(const char *id)
{
	char path[128];
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	hresp r;
	http_do("GET", path, NULL, NULL, 0, &r);
	int st = r.status;
	hresp_free(&r);
	return st == 200;
}

/* Over HTTP: one address uploading 2 MB of shapes into a 1 MiB store
 * leaves another address's shapes in place (--store-per-client 256K);
 * without the share (0) they are flushed. */
START_TEST(test_client_share_http)
{
	for (int share = 1; share >= 0; share--) {
		server_start_with((const char *const[]){"--shape-store", "1M", "--store-per-client",
		                                        share ? "256K" : "0", NULL},
		                  NULL);
		char theirs[4][72], id[72];
		for (int i = 0; i < 4; i++) {
			char *t = cloud(500 + (unsigned)i, 800);
			ck_assert_int_eq(upload_from("127.0.0.2", t, theirs[i]), 201);
			free(t);
		}
		for (int i = 0; i < 100; i++) {
			char *t = cloud(1000 + (unsigned)i, 800);
			ck_assert_int_eq(upload(t, id), 201);
			free(t);
		}
		int kept = 0;
		for (int i = 0; i < 4; i++)
			kept += stored(theirs[i]);
		long long total = server_metric("clashd_shape_store_bytes");
		fprintf(stderr,
		        "store: share %s: the other address's 4 shapes, %d kept; %lld bytes "
		        "stored\n",
		        share ? "256K" : "off", kept, total);
		if (share) {
			ck_assert_int_eq(kept, 4);
			ck_assert_int_le(total, 4 * 64 * 1024 + 256 * 1024);
			ck_assert_int_gt(server_metric("clashd_shape_store_client_evictions_total"),
			                 0);
			ck_assert_int_eq(server_metric("clashd_shape_store_clients"), 2);
			char *big = cloud(7, 12000); /* about 290 KB stored */
			ck_assert_int_eq(upload(big, id), 413);
			free(big);
		} else {
			ck_assert_int_eq(kept, 0);
			ck_assert_int_le(total, 1024 * 1024);
			ck_assert_int_eq(server_metric("clashd_shape_store_client_evictions_total"),
			                 0);
		}
		assert_clean_exit(server_stop_within(20));
	}
}
END_TEST

/* n points on a sphere of radius r (a Fibonacci lattice), as a shape. */
static char *sphere_cloud(size_t n, double r)
{
	char *t = malloc(80 * n + 32), *o = t;
	ck_assert_ptr_nonnull(t);
	o += sprintf(o, "{\"vertices\": [");
	for (size_t i = 0; i < n; i++) {
		double z = 1 - 2 * ((double)i + 0.5) / (double)n, rr = sqrt(1 - z * z);
		double a = 2.399963229728653 * (double)i;
		o += sprintf(o, "%s[%.9f, %.9f, %.9f]", i ? ", " : "", r * rr * cos(a),
		             r * rr * sin(a), r * z);
	}
	sprintf(o, "]}");
	return t;
}

typedef struct slow_call {
	char *body;
	int status;
} slow_call;

static void *contains_run(void *arg)
{
	slow_call *c = arg;
	hresp r;
	http_do("POST", "/v1/contains", JSON_HEADERS, c->body, strlen(c->body), &r);
	c->status = r.status;
	hresp_free(&r);
	return NULL;
}

/* Poll metric `name` until it is `want` (up to `seconds`); its last value. */
static long long metric_until(const char *name, long long want, double seconds)
{
	double end = now_s() + seconds;
	long long v;
	while ((v = server_metric(name)) != want && now_s() < end)
		usleep(20000);
	return v;
}

/* Shapes deleted while a request holds them stay in
 * clashd_shape_store_bytes (as clashd_shape_store_held_removed_bytes)
 * until the request lets them go: a containment of 200 000 stored points
 * in a stored 60 000-point hull, running into --request-timeout (it takes
 * over 10 s), holds both while they are deleted. */
START_TEST(test_held_after_delete_metric)
{
	server_start_with((const char *const[]){"--request-timeout", "5s", "--store-delete", "1",
	                                        NULL},
	                  NULL);
	char inner[72], outer[72], path[128];
	char *t = cloud(11, 200000);
	ck_assert_int_eq(upload(t, inner), 201);
	free(t);
	t = sphere_cloud(60000, 5);
	ck_assert_int_eq(upload(t, outer), 201);
	free(t);
	long long stored_bytes = server_metric("clashd_shape_store_bytes");
	slow_call c = {malloc(256), 0};
	sprintf(c.body, "{\"inner\": {\"ref\": \"%s\"}, \"outer\": {\"ref\": \"%s\"}}", inner,
	        outer);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, contains_run, &c), 0);
	ck_assert_int_eq(metric_until("clashd_shape_store_hits_total", 2, 30), 2);
	const char *ids[] = {inner, outer};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "/v1/shapes/%s", ids[i]);
		hresp r;
		http_do("DELETE", path, NULL, NULL, 0, &r);
		ck_assert_int_eq(r.status, 204);
		hresp_free(&r);
	}
	long long held = server_metric("clashd_shape_store_held_removed_bytes");
	long long counted = server_metric("clashd_shape_store_bytes");
	fprintf(stderr, "store: deleted while held: %lld bytes counted (%lld stored before)\n",
	        counted, stored_bytes);
	ck_assert_int_eq(server_metric("clashd_shape_store_entries"), 0);
	ck_assert_int_ge(held, stored_bytes); /* their preparations may have been added */
	ck_assert_int_eq(counted, held);
	pthread_join(th, NULL);
	ck_assert_int_eq(c.status, 504);
	free(c.body);
	/* The worker lets go when it next looks at its cancel flag. */
	ck_assert_int_eq(metric_until("clashd_shape_store_bytes", 0, 60), 0);
	ck_assert_int_eq(server_metric("clashd_shape_store_held_removed_bytes"), 0);
	assert_still_serving();
}
END_TEST

/* The canonical form read back (the shape store's second tier keeps it,
 * proto/shapes/shape_canon.h): the bytes the document gives for each kind of
 * shape decode to a shape whose id is their SHA-256 (OpenSSL's) and whose
 * encoding is those bytes again; every truncation is refused, and no
 * single flipped byte gives a shape of the same id. */
static void canonical_round_trip(const char *text, int corrupt)
{
	bytes b = document_bytes(text);
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256(b.p, b.n, md);
	stored_shape *st = NULL;
	ck_assert_int_eq(proto_shape_canon_decode(b.p, b.n, PROTO_DEFAULT_WELD, &st), 0);
	ck_assert_mem_eq(st->id, md, 32);
	uint8_t *again = NULL;
	size_t len = 0;
	ck_assert_int_eq(proto_shape_canon(&st->shape, st->welds, st->nwelds, st->units, &again,
	                                   &len),
	                 0);
	ck_assert_uint_eq(len, b.n);
	ck_assert_mem_eq(again, b.p, len);
	free(again);
	proto_stored_shape_free(st);
	for (size_t cut = 0; corrupt && cut < b.n; cut += 1 + cut / 64) {
		st = NULL;
		ck_assert_int_eq(proto_shape_canon_decode(b.p, cut, PROTO_DEFAULT_WELD, &st), 1);
	}
	for (size_t at = 0; corrupt && at < b.n; at += 1 + at / 64) {
		b.p[at] ^= 0x5a;
		st = NULL;
		int r = proto_shape_canon_decode(b.p, b.n, PROTO_DEFAULT_WELD, &st);
		ck_assert(r == 1 || r == 0);
		if (r == 0) {
			ck_assert(memcmp(st->id, md, 32) != 0);
			proto_stored_shape_free(st);
		}
		b.p[at] ^= 0x5a;
	}
	free(b.p);
}

START_TEST(test_canonical_form_read_back)
{
	for (unsigned i = 0; i < 24; i++) {
		char *text = random_shape(7000 + i, 1 + (int)(i % 4), 0, 0);
		canonical_round_trip(text, i < 6);
		free(text);
	}
	static const char *const shapes[] = {
		"{\"sphere\": {\"radius\": 1.5}}",
		"{\"box\": {\"half_extents\": [1, 2, 3]}, \"radius\": 0.5}",
		"{\"capsule\": {\"radius\": 0.5, \"half_height\": 2}}",
		"{\"cylinder\": {\"radius\": 1, \"half_height\": 0.25}}",
		"{\"cone\": {\"radius\": 1, \"half_height\": 3}}",
		"{\"ellipsoid\": {\"radii\": [1, 2, 0.5]}}",
		"{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "
		"\"indices\": [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]}}",
		"{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0]}, \"radius\": 0.01}",
		"{\"parts\": [{\"sphere\": {\"radius\": 1}}, {\"mesh\": {\"positions\": [0, 0, 0, 1, "
		"0, 0, 0, 1, 0]}}, {\"parts\": [{\"vertices\": [[0, 0, 0], [1, 1, 1]]}], "
		"\"radius\": 0.25}]}",
		/* Meshes with their own weld (node 0x05), alone and as a part. */
		"{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "
		"\"indices\": [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], \"weld\": 0}}",
		"{\"parts\": [{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-9, 0, 0], "
		"\"indices\": [0, 1, 2, 3, 2, 0], \"weld\": 1e-3}}, {\"sphere\": {\"radius\": 1}}]}",
		/* Shapes that name their units (the 0x10 node after dim). */
		"{\"box\": {\"half_extents\": [1, 2, 3]}, \"units\": \"mm\"}",
		"{\"mesh\": {\"positions\": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "
		"\"indices\": [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]}, \"units\": \"in\"}",
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		canonical_round_trip(shapes[i], 1);
	/* Not a shape: empty, another tag, bytes after the shape. */
	stored_shape *st = NULL;
	ck_assert_int_eq(proto_shape_canon_decode((const uint8_t *)"", 0, PROTO_DEFAULT_WELD, &st),
	                 1);
	ck_assert_int_eq(proto_shape_canon_decode((const uint8_t *)"clashd-shape-v2", 15,
	                                          PROTO_DEFAULT_WELD, &st),
	                 1);
	bytes b = document_bytes(shapes[0]);
	put(&b, "x", 1);
	ck_assert_int_eq(proto_shape_canon_decode(b.p, b.n, PROTO_DEFAULT_WELD, &st), 1);
	free(b.p);
}
END_TEST

/* ---- tenants (tokens naming one: --auth-token-file) ---- */

/* A request with a bearer token: its status (and body into *body). */
static int as(const char *token, const char *method, const char *path, const char *json,
              char **body)
{
	char headers[256];
	snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n%s", token,
	         json ? JSON_HEADERS : "");
	hresp r;
	if (strcmp(method, "HEAD") == 0) {
		hconn c;
		ck_assert_int_eq(hconn_open(&c, srv.port), 0);
		ck_assert_int_eq(hconn_request(&c, "HEAD", path, headers, NULL, 0), 0);
		ck_assert_int_eq(hconn_read(&c, &r, 1), 0);
		hconn_close(&c);
	} else {
		http_do(method, path, headers, json, json ? strlen(json) : 0, &r);
	}
	int status = r.status;
	if (body)
		*body = strdup(r.body ? r.body : "");
	hresp_free(&r);
	return status;
}

static void tenant_tokens(char path[64])
{
	strcpy(path, "/tmp/clashd-tenants-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	static const char text[] =
		"tokA tenant=alpha\ntokA2 tenant=alpha\ntokB tenant=beta\ntokN\n";
	ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
}

/* A tenant's shape is nobody else's: another tenant and a token without
 * one can neither read it (GET, HEAD), use it by ref nor delete it, even
 * naming its id; the tenant's other token can; the same content uploaded
 * by another tenant is that tenant's own copy. */
START_TEST(test_tenants_kept_apart)
{
	char tokens[64];
	tenant_tokens(tokens);
	server_start_with((const char *const[]){"--auth-token-file", tokens, NULL}, NULL);
	const char *shape = "{\"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}";
	char want[72], path[128], *body = NULL;
	expected_id(shape, want);
	ck_assert_int_eq(as("tokA", "POST", "/v1/shapes", shape, &body), 201);
	ck_assert_ptr_nonnull(strstr(body, want));
	free(body);
	snprintf(path, sizeof path, "/v1/shapes/%s", want);
	char *q = ref_text(want), *query = query_text(q, "{\"vertices\": [[3, 0, 0]]}", "gjk",
	                                              "{\"translation\": [1, 0, 0]}");
	for (int round = 0; round < 2; round++) {
		static const char *const others[] = {"tokB", "tokN"};
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(as(others[k], "GET", path, NULL, NULL), 404);
			ck_assert_int_eq(as(others[k], "HEAD", path, NULL, NULL), 404);
			ck_assert_int_eq(as(others[k], "POST", "/v1/query", query, &body), 422);
			ck_assert_ptr_nonnull(strstr(body, "\"urn:clashd:problem:unknown-shape\""));
			free(body);
			/* Another tenant's DELETE finds nothing; without a tenant it is
			 * refused outright (--store-delete is off). */
			ck_assert_int_eq(as(others[k], "DELETE", path, NULL, NULL),
			                 k == 0 ? 404 : 403);
		}
		ck_assert_int_eq(as("tokA2", "HEAD", path, NULL, NULL), 200);
		ck_assert_int_eq(as("tokA", "POST", "/v1/query", query, NULL), 200);
	}
	/* beta's own copy: alpha's delete leaves it. */
	ck_assert_int_eq(as("tokB", "POST", "/v1/shapes", shape, NULL), 201);
	ck_assert_int_eq(as("tokA2", "DELETE", path, NULL, NULL), 204);
	ck_assert_int_eq(as("tokA", "HEAD", path, NULL, NULL), 404);
	ck_assert_int_eq(as("tokB", "POST", "/v1/query", query, NULL), 200);
	free(q);
	free(query);
	unlink(tokens);
}
END_TEST

/* --store-per-tenant: a tenant's uploads past it evict its own oldest,
 * never another's; a shape larger than it is a 413. */
START_TEST(test_tenant_share)
{
	char tokens[64];
	tenant_tokens(tokens);
	server_start_with((const char *const[]){"--auth-token-file", tokens, "--shape-store", "8M",
	                                        "--store-per-tenant", "1M", NULL},
	                  NULL);
	char ids[12][72], path[128];
	char *b = cloud(900, 2000);
	expected_id(b, ids[0]);
	ck_assert_int_eq(as("tokB", "POST", "/v1/shapes", b, NULL), 201);
	free(b);
	for (unsigned i = 1; i < 12; i++) { /* about 150 KB each */
		char *t = cloud(900 + i, 5000);
		expected_id(t, ids[i]);
		ck_assert_int_eq(as("tokA", "POST", "/v1/shapes", t, NULL), 201);
		free(t);
	}
	int kept = 0;
	for (unsigned i = 1; i < 12; i++) {
		snprintf(path, sizeof path, "/v1/shapes/%s", ids[i]);
		kept += as("tokA", "HEAD", path, NULL, NULL) == 200;
	}
	snprintf(path, sizeof path, "/v1/shapes/%s", ids[11]);
	ck_assert_int_eq(as("tokA", "HEAD", path, NULL, NULL), 200); /* the newest stays */
	snprintf(path, sizeof path, "/v1/shapes/%s", ids[0]);
	ck_assert_int_eq(as("tokB", "HEAD", path, NULL, NULL), 200);
	fprintf(stderr, "store: tenant share 1M: %d of alpha's 11 uploads kept, beta's kept\n",
	        kept);
	ck_assert_int_ge(kept, 2);
	ck_assert_int_le(kept, 9);
	char *big = cloud(990, 60000), *body = NULL;
	ck_assert_int_eq(as("tokA", "POST", "/v1/shapes", big, &body), 413);
	ck_assert_ptr_nonnull(strstr(body, "tenant"));
	free(body);
	free(big);
	unlink(tokens);
}
END_TEST

/* Without a tenant, DELETE is refused unless the operator allows it. */
START_TEST(test_delete_refused_by_default)
{
	server_start();
	char id[72], path[128];
	ck_assert_int_eq(upload("{\"vertices\": [[0, 0, 0], [2, 0, 0]]}", id), 201);
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	hresp r;
	http_do("DELETE", path, NULL, NULL, 0, &r);
	json_decref(assert_problem(&r, 403));
	ck_assert_ptr_nonnull(strstr(r.body, "--store-delete"));
	hresp_free(&r);
	http_do("GET", path, NULL, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	ck_case(s, "store", 120,
	        CK_TESTS(test_ids, test_canonical_form_read_back, test_tenants_kept_apart,
	                 test_tenant_share, test_delete_refused_by_default, test_primitives,
	                 test_meshes, test_ref_answers_equal_inline, test_ref_radius_adds,
	                 test_concurrent_uploads, test_eviction_under_load, test_unknown_refs,
	                 test_bad_uploads, test_get_head_delete, test_positions_same_as_vertices,
	                 test_positions_bad_and_limits, test_largest_shape_fits,
	                 test_refs_count_as_shapes, test_prepared_on_first_use,
	                 test_charge_is_memory, test_held_after_removal_counted, test_client_share,
	                 test_client_last_value, test_client_share_http,
	                 test_held_after_delete_metric));
	return s;
}

CHECK_SUITE(store_suite)
