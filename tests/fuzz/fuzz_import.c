/*
 * fuzz_import.c — libFuzzer target for mesh-file import (POST /v1/shapes
 * with model/stl, model/obj, model/gltf-binary, model/gltf+json or
 * application/x-ply).  The first byte picks the media type (and a spelling
 * of it: any case, a parameter), the rest is the file.  Each input goes to
 * proto_mesh_import (libassimp) and to proto_shape_import_reply, the
 * function clashd calls, with clashd's limits and a store of its own:
 *   - no crash, leak or sanitizer report (assimp's own: see
 *     tests/fuzz/findings/README.md);
 *   - the import succeeds with shapes (names UTF-8, finite coordinates and
 *     node matrices, indices in range, within the limits) or fails with a
 *     422 problem and a message; the reply is 200 or 201 with one entry per
 *     shape, or a 422 problem with a detail, in strict JSON;
 *   - nothing from disk: a file at SECRET_PATH (written at start, three
 *     vertices of SECRET_COORD) that seeds name as a glTF buffer or OBJ
 *     library never shows up in a result.
 * Build and run: `make fuzz`; seeds in tests/fuzz/corpus/import/.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_import.h"
#include "proto.h"
#include "store.h"

#define SECRET_PATH "/tmp/clashd-fuzz-import-secret.bin"
#define SECRET_COORD 4242.25f

static proto_context ctx;

static void fail(const char *media, const char *what, double x)
{
	fprintf(stderr, "fuzz_import: %s: %s (%.17g)\n", media, what, x);
	abort();
}

#define REQUIRE(cond, what, x)                          \
	do {                                            \
		if (!(cond))                            \
			fail(media, what, (double)(x)); \
	} while (0)

static int utf8_ok(const char *s)
{
	json_t *j = json_string(s); /* jansson refuses invalid UTF-8 */
	json_decref(j);
	return j != NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	proto_init();
	ctx = (proto_context){.limits = PROTO_DEFAULT_LIMITS,
	                      .max_queries = PROTO_DEFAULT_MAX_QUERIES,
	                      .weld = PROTO_DEFAULT_WELD};
	/* What a file must never read: a buffer of one triangle (36 bytes),
	 * also valid as an OBJ library or a PLY body's floats. */
	FILE *f = fopen(SECRET_PATH, "wb");
	if (f) {
		float v[9];
		for (int i = 0; i < 9; i++)
			v[i] = SECRET_COORD + (float)(i % 3);
		fwrite(v, sizeof v, 1, f);
		fclose(f);
	}
	return 0;
}

static const struct {
	const char *media[3]; /* spellings */
	proto_mesh_format f;
} types[] = {
	{{"model/stl", "MODEL/STL", "model/stl; charset=binary"}, PROTO_MESH_STL},
	{{"model/obj", "Model/Obj", "model/obj;q=1"}, PROTO_MESH_OBJ},
	{{"model/gltf-binary", "model/GLTF-binary", "model/gltf-binary ; x=y"}, PROTO_MESH_GLB},
	{{"model/gltf+json", "MODEL/GLTF+JSON", "model/gltf+json; charset=utf-8"}, PROTO_MESH_GLTF},
	{{"application/x-ply", "Application/X-PLY", "application/x-ply;format=ascii"},
         PROTO_MESH_PLY},
};

static void check_set(const proto_mesh_set *set, const char *media)
{
	size_t vertices = 0;
	REQUIRE(set->n >= 1, "imported, but no shape", set->n);
	REQUIRE(set->n <= ctx.limits.max_shapes, "more shapes than max_shapes", set->n);
	for (size_t i = 0; i < set->n; i++) {
		const proto_mesh_shape *s = &set->shapes[i];
		REQUIRE(s->name && s->name[0] && utf8_ok(s->name),
		        "a shape name empty or not UTF-8", i);
		REQUIRE(s->n >= 1 && s->t >= 1 && s->positions && s->indices, "an empty shape", i);
		for (size_t k = 0; k < 3 * s->n; k++) {
			REQUIRE(isfinite(s->positions[k]), "a coordinate not finite",
			        s->positions[k]);
			REQUIRE(fabs(s->positions[k] - SECRET_COORD) > 4,
			        "a coordinate read from disk", s->positions[k]);
		}
		for (size_t k = 0; k < 3 * s->t; k++)
			REQUIRE(s->indices[k] < s->n, "an index out of range", s->indices[k]);
		for (int k = 0; k < 16; k++)
			REQUIRE(isfinite(s->matrix[k]), "a node matrix not finite", s->matrix[k]);
		vertices += s->n;
	}
	REQUIRE(vertices <= ctx.limits.max_vertices, "more vertices than max_vertices", vertices);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned ti = data[0] % 5, sp = (data[0] / 5) % 3;
	const char *media = types[ti].media[sp];
	const char *file = (const char *)data + 1;
	size_t len = size - 1;
	REQUIRE(proto_mesh_format_of_media(media) == types[ti].f, "media type not recognized", ti);

	/* The import alone: shapes or a 422 with a message. */
	proto_mesh_set set;
	proto_problem p = {0};
	enum proto_limit which;
	int r = proto_mesh_import(file, len, types[ti].f, &ctx.limits, &set, &p, &which);
	REQUIRE(r == 0 || r == 1, "proto_mesh_import: not 0 or 1", r);
	if (r == 0)
		check_set(&set, media);
	else
		REQUIRE(p.status == 422 && p.detail[0] && p.pointer && !p.pointer[0],
		        "a failed import without a 422 and a message", p.status);
	size_t nshapes = r == 0 ? set.n : 0;
	proto_mesh_set_free(&set);
	proto_problem_release(&p);

	/* What clashd answers, with a store of its own (a fresh one: the
	 * answer is then 201, or 422). */
	proto_context c = ctx;
	c.store = proto_store_new((size_t)64 << 20, 0);
	REQUIRE(c.store, "proto_store_new", 0);
	proto_call call = {.ctx = &c};
	proto_reply reply;
	int rc = proto_shape_import_reply(file, len, media, NULL, NULL, &call, &reply);
	REQUIRE(rc == 0, "proto_shape_import_reply failed", rc);
	REQUIRE(reply.body && strlen(reply.body) == reply.length, "reply body", reply.length);
	if (getenv("FUZZ_IMPORT_PRINT"))
		fprintf(stderr, "%s: import %d (%zu shapes), reply %d %.300s\n", media, r, nshapes,
		        reply.status, reply.body);
	json_error_t err;
	json_t *doc = json_loadb(reply.body, reply.length, JSON_REJECT_DUPLICATES, &err);
	REQUIRE(doc && json_is_object(doc), "reply is not a JSON object", reply.status);
	if (reply.status == 201) {
		REQUIRE(r == 0, "stored, but the import failed", r);
		json_t *shapes = json_object_get(doc, "shapes");
		REQUIRE(json_is_array(shapes) && json_array_size(shapes) == nshapes,
		        "201 without one entry per shape", json_array_size(shapes));
		REQUIRE(strcmp(reply.content_type, PROTO_JSON) == 0, "201 not JSON", 0);
	} else {
		REQUIRE(reply.status == 422, "neither 201 nor 422", reply.status);
		REQUIRE(strcmp(reply.content_type, PROTO_PROBLEM_JSON) == 0, "422 not a problem",
		        0);
		json_t *detail = json_object_get(doc, "detail");
		REQUIRE(json_is_string(detail) && json_string_length(detail) > 0,
		        "422 without a detail", 0);
		REQUIRE(json_integer_value(json_object_get(doc, "status")) == 422,
		        "problem status not 422", 0);
	}
	json_decref(doc);
	proto_reply_free(&reply);
	proto_store_free(c.store);
	return 0;
}
