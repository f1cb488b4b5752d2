/*
 * fuzz_wire.c — libFuzzer target for what clashd reads back from its import
 * helper (proto/shapes/mesh_wire.h): the helper runs libassimp on an untrusted
 * file, so its output is untrusted too.  Each input is such an output, read
 * under clashd's default limits (and, by its first byte, smaller ones):
 *   - no crash, leak or sanitizer report, whatever the bytes;
 *   - a result it accepts is within the limits (shapes, vertices, 8
 *     triangles a vertex), every name valid UTF-8, every number finite,
 *     every index in range, no triangle with two equal corners, and
 *     written again it gives the same bytes;
 *   - a problem it passes on is a 422 with a detail.
 * Seeds (tests/fuzz/corpus/wire/) are the helper's own outputs for the
 * import target's seeds.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_wire.h"
#include "proto.h"

#define REQUIRE(cond, what)                                       \
	do {                                                      \
		if (!(cond)) {                                    \
			fprintf(stderr, "fuzz_wire: %s\n", what); \
			abort();                                  \
		}                                                 \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_set(const proto_mesh_set *set, const proto_request_limits *l)
{
	size_t v = 0, t = 0;
	REQUIRE(set->n >= 1 && set->n <= l->max_shapes, "shape count");
	for (size_t i = 0; i < set->n; i++) {
		const proto_mesh_shape *s = &set->shapes[i];
		json_t *name = json_string(s->name);
		REQUIRE(name && *s->name, "name");
		json_decref(name);
		v += s->n;
		t += s->t;
		for (size_t k = 0; k < 16; k++)
			REQUIRE(isfinite(s->matrix[k]), "matrix");
		for (size_t k = 0; k < 3 * s->n; k++)
			REQUIRE(isfinite(s->positions[k]), "position");
		for (size_t f = 0; f < s->t; f++) {
			const uint32_t *c = &s->indices[3 * f];
			REQUIRE(c[0] < s->n && c[1] < s->n && c[2] < s->n, "index");
			REQUIRE(c[0] != c[1] && c[1] != c[2] && c[0] != c[2], "corners");
		}
	}
	REQUIRE(v <= l->max_vertices, "vertices");
	REQUIRE(t <= l->max_vertices * PROTO_MESH_WIRE_TRIANGLES_PER_VERTEX, "triangles");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The limits: clashd's defaults, or small ones that inputs reach. */
	proto_request_limits l = {.max_vertices = PROTO_DEFAULT_MAX_VERTICES,
	                          .max_shapes = PROTO_DEFAULT_MAX_SHAPES};
	if (size > 0 && data[0] == 's') {
		l.max_vertices = 16;
		l.max_shapes = 2;
	}
	proto_mesh_set set;
	proto_problem p = {0};
	enum proto_limit which;
	int r = proto_mesh_wire_get((const char *)data, size, &l, &set, &p, &which);
	REQUIRE(r >= -1 && r <= 2, "return value");
	if (r == 0) {
		check_set(&set, &l);
		proto_text t = {0};
		proto_mesh_wire_put(&t, 0, &set, NULL, PROTO_LIMIT_NONE);
		size_t n;
		char *again = proto_text_finish(&t, &n);
		REQUIRE(again && n == size && memcmp(again, data, n) == 0, "written again");
		free(again);
		proto_mesh_set_free(&set);
	} else if (r > 0) {
		REQUIRE(p.status == 422 && p.detail[0] && p.pointer, "problem");
		REQUIRE(set.n == 0 && set.shapes == NULL, "nothing kept");
	}
	proto_problem_release(&p);
	return 0;
}
