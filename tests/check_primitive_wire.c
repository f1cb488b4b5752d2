/*
 * check_primitive_wire.c — suite "primitive_wire": the exact primitives on
 * the wire: answers against closed forms through the whole
 * decoder and encoder, every bad size with its pointer, the LP methods'
 * 422 for curved shapes, primitives in scenes and motions.  The core's
 * suite "primitive" checks the support mappings themselves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "proto.h"

/* The reply to a query text with ' for " (parsed); its status in *status. */
static json_t *reply_to(const char *single_quoted, int *status,
                        int (*fn)(const char *, size_t, proto_reply *))
{
	char *t = strdup(single_quoted);
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	proto_reply r;
	ck_assert_int_eq(fn(t, strlen(t), &r), 0);
	free(t);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	*status = r.status;
	proto_reply_free(&r);
	return j;
}

static json_t *ok(const char *q)
{
	int st;
	json_t *j = reply_to(q, &st, proto_query_reply);
	char *d = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == 200, "%s: status %d: %s", q, st, d);
	ck_assert_msg(json_is_true(json_object_get(j, "converged")), "%s: not converged: %s", q, d);
	free(d);
	return j;
}

static double distance(const char *q)
{
	json_t *j = ok(q);
	double d = json_real_value(json_object_get(j, "distance"));
	json_decref(j);
	return d;
}

static double depth(const char *q)
{
	json_t *j = ok(q);
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	double d = json_real_value(json_object_get(json_object_get(j, "penetration"), "depth"));
	json_decref(j);
	return d;
}

static void refused(const char *q, const char *pointer)
{
	int st;
	json_t *j = reply_to(q, &st, proto_query_reply);
	char *d = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == 422, "%s: status %d, expected 422: %s", q, st, d);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "%s: pointer, expected %s: %s", q, pointer,
	              d);
	free(d);
	json_decref(j);
}

/* Each of n shapes as a, beside a point as b: refused at its pointer (a
 * NULL pointer: skipped, the case being the parser's 400). */
static void refused_as_a(const char *const (*cases)[2], size_t n)
{
	char q[512];
	for (size_t i = 0; i < n; i++) {
		if (!cases[i][1])
			continue;
		snprintf(q, sizeof q, "{'a': %s, 'b': {'vertices': [[0, 0, 0]]}}", cases[i][0]);
		refused(q, cases[i][1]);
	}
}

START_TEST(closed_forms)
{
	/* Spheres: centre distance less the radii. */
	ck_near(distance("{'a': {'sphere': {'radius': 1}}, 'b': {'sphere': {'radius': 2}, "
	                 "'pose': {'translation': [3, 4, 0]}}}"),
	        2.0, 1e-9);
	ck_near(depth("{'a': {'sphere': {'radius': 1}}, 'b': {'sphere': {'radius': 2}, "
	              "'pose': {'translation': [2, 0, 0]}}}"),
	        1.0, 1e-9);
	/* A radius-10 cylinder (axis y) and a sphere beside it: 1.0 exactly,
	 * which a 16-gon misses by 19 %. */
	ck_near(distance("{'a': {'cylinder': {'radius': 10, 'half_height': 5}}, 'b': {'sphere': "
	                 "{'radius': 1}, 'pose': {'translation': [8.48528137423857, 0, "
	                 "8.48528137423857]}}}"),
	        1.0, 1e-9);
	/* Parallel cylinders, both along y after a turn of the pair. */
	ck_near(distance("{'a': {'cylinder': {'radius': 1, 'half_height': 2}, 'pose': {'rotation': "
	                 "[0, 0, 0.7071067811865476, 0.7071067811865476]}}, 'b': {'cylinder': "
	                 "{'radius': 0.5, 'half_height': 2}, 'pose': {'translation': [0, 3, 0], "
	                 "'rotation': [0, 0, 0.7071067811865476, 0.7071067811865476]}}}"),
	        1.5, 1e-9);
	/* A cone's apex (y = +h) over a box's top face. */
	ck_near(distance("{'a': {'box': {'half_extents': [5, 1, 5]}}, 'b': {'cone': {'radius': 1, "
	                 "'half_height': 1}, 'pose': {'translation': [0, 2.25, 0], 'rotation': "
	                 "[1, 0, 0, 0]}}}"),
	        0.25, 1e-9);
	/* An ellipsoid's long axis (x, 3) towards a box 1 away. */
	ck_near(distance("{'a': {'ellipsoid': {'radii': [3, 2, 1]}}, 'b': {'box': {'half_extents': "
	                 "[1, 1, 1]}, 'pose': {'translation': [5, 0, 0]}}}"),
	        1.0, 1e-9);
	/* Capsules crossed at right angles, 3 apart between their axes. */
	ck_near(distance("{'a': {'capsule': {'radius': 0.5, 'half_height': 2}}, 'b': {'capsule': "
	                 "{'radius': 0.25, 'half_height': 2}, 'pose': {'translation': [0, 0, 3], "
	                 "'rotation': [0, 0, 0.7071067811865476, 0.7071067811865476]}}}"),
	        2.25, 1e-12);
	/* A rounded box: the radius adds. */
	ck_near(distance("{'a': {'box': {'half_extents': [1, 1, 1]}, 'radius': 0.5}, 'b': "
	                 "{'sphere': {'radius': 1}, 'pose': {'translation': [4, 0, 0]}}}"),
	        1.5, 1e-12);
}
END_TEST

START_TEST(bad_sizes)
{
	static const char *const cases[][2] = {
		{"{'sphere': {'radius': 0}}", "/a/sphere/radius"},
		{"{'sphere': {'radius': -1}}", "/a/sphere/radius"},
		{"{'sphere': {'radius': 'one'}}", "/a/sphere/radius"},
		{"{'sphere': {}}", "/a/sphere"},
		{"{'sphere': {'radius': 1, 'centre': [0, 0, 0]}}", "/a/sphere/centre"},
		{"{'sphere': 1}", "/a/sphere"},
		{"{'box': {'half_extents': [1, 0, 1]}}", "/a/box/half_extents/1"},
		{"{'box': {'half_extents': [1, 1]}}", "/a/box/half_extents"},
		{"{'capsule': {'radius': 1}}", "/a/capsule"},
		{"{'cylinder': {'radius': 1, 'half_height': -2}}", "/a/cylinder/half_height"},
		{"{'cone': {'radius': 0, 'half_height': 2}}", "/a/cone/radius"},
		{"{'ellipsoid': {'radii': [1, 2, 1e400]}}", NULL},
		{"{'ellipsoid': {'radii': [1, 2, -3]}}", "/a/ellipsoid/radii/2"},
		{"{'sphere': {'radius': 1}, 'vertices': [[0, 0, 0]]}", "/a/sphere"},
	};
	refused_as_a(cases, sizeof cases / sizeof cases[0]); /* 1e400: the parser's 400 */
	/* A primitive is 3-D. */
	refused("{'a': {'vertices': [[0, 0]]}, 'b': {'sphere': {'radius': 1}}}", "/b/sphere");
}
END_TEST

/* One shape, one kind of geometry: a second primitive (in document
 * order, however its name is spelled) or a primitive beside vertices,
 * positions, parts, ref or mesh is a 422 at that key, on every route that
 * decodes a shape.  Before, the second primitive was silently dropped. */
START_TEST(one_kind)
{
	static const char *const cases[][2] = {
		{"{'box': {'half_extents': [1, 1, 1]}, 'sphere': {'radius': 1}}", "/a/sphere"},
		{"{'sphere': {'radius': 1}, 'box': {'half_extents': [1, 1, 1]}}", "/a/box"},
		{"{'cone': {'radius': 1, 'half_height': 1}, 'pose': {}, 'capsule': {'radius': 1, "
	         "'half_height': 1}}",
	         "/a/capsule"},
		{"{'\\u0063ylinder': {'radius': 1, 'half_height': 1}, 'sphere': {'radius': 1}}",
	         "/a/sphere"},
		{"{'sphere': {'radius': 1}, 'ellips\\u006fid': {'radii': [1, 2, 3]}}",
	         "/a/ellipsoid"},
		{"{'sphere': {'radius': 1}, 'vertices': [[0, 0, 0]]}", "/a/sphere"},
		{"{'positions': [0, 0, 0], 'sphere': {'radius': 1}}", "/a/sphere"},
		{"{'sphere': {'radius': 1}, 'parts': [{'vertices': [[0, 0, 0]]}]}", "/a/sphere"},
		{"{'sphere': {'radius': 1}, 'ref': 'sha256:00'}", "/a/sphere"},
		{"{'sphere': {'radius': 1}, 'mesh': {'positions': [0, 0, 0, 1, 0, 0, 0, 1, 0], "
	         "'indices': [0, 1, 2]}}",
	         "/a/sphere"},
		{"{'v\\u0065rtices': [[0, 0, 0]], 'box': {'half_extents': [1, 1, 1]}}", "/a/box"},
	};
	refused_as_a(cases, sizeof cases / sizeof cases[0]);
	/* Nested in parts, in /v1/contains and in a scene. */
	refused("{'a': {'parts': [{'sphere': {'radius': 1}}, {'box': {'half_extents': [1, 1, 1]}, "
	        "'cone': {'radius': 1, 'half_height': 1}}]}, 'b': {'sphere': {'radius': 1}}}",
	        "/a/parts/1/cone");
	int st;
	json_t *j =
		reply_to("{'inner': {'sphere': {'radius': 1}}, 'outer': {'box': {'half_extents': "
	                 "[2, 2, 2]}, 'sphere': {'radius': 3}}}",
	                 &st, proto_contains_reply);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/outer/sphere");
	json_decref(j);
	j = reply_to("{'objects': [{'id': 'x', 'shape': {'sphere': {'radius': 1}}}, {'id': 'y', "
	             "'shape': {'capsule': {'radius': 1, 'half_height': 1}, 'cylinder': "
	             "{'radius': 1, 'half_height': 1}}}]}",
	             &st, proto_scene_reply);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")),
	                 "/objects/1/shape/cylinder");
	json_decref(j);
	/* A batch item. */
	const char *batch = "{\"queries\": [{\"a\": {\"sphere\": {\"radius\": 1}}, \"b\": "
			    "{\"sphere\": {\"radius\": 1}, \"box\": {\"half_extents\": [1, 1, "
			    "1]}}}]}";
	proto_reply r;
	ck_assert_int_eq(proto_batch_reply_ex(batch, strlen(batch), NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	j = json_loadb(r.body, r.length, 0, NULL);
	proto_reply_free(&r);
	const json_t *item = json_array_get(json_object_get(j, "results"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(item, "status")), 422);
	ck_assert_str_eq(json_string_value(json_object_get(item, "pointer")), "/queries/0/b/box");
	json_decref(j);
}
END_TEST

START_TEST(methods)
{
	/* The LPs take a box (its corners), not a curved primitive. */
	json_t *j =
		ok("{'a': {'box': {'half_extents': [1, 1, 1]}}, 'b': {'vertices': [[3, 0, 0]]}, "
	           "'method': 'simplex'}");
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	json_decref(j);
	refused("{'a': {'cylinder': {'radius': 1, 'half_height': 1}}, 'b': {'vertices': "
	        "[[3, 0, 0]]}, 'method': 'simplex'}",
	        "/method");
	refused("{'a': {'vertices': [[3, 0, 0]]}, 'b': {'sphere': {'radius': 1}}, 'method': 'ipm'}",
	        "/method");
	/* gjk's verdict alone (want) on curved shapes. */
	j = ok("{'a': {'cone': {'radius': 1, 'half_height': 1}}, 'b': {'sphere': {'radius': 1}, "
	       "'pose': {'translation': [0, 1.5, 0]}}, 'want': ['intersecting']}");
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	json_decref(j);
}
END_TEST

/* /v1/contains with a curved inner: in a box (the closed form: a cylinder
 * of radius r fits a box of half extent a across its axis iff r <= a), a
 * point outside named when it does not fit, 422 at /inner in a curved
 * outer. */
START_TEST(curved_contains)
{
	int st;
	json_t *j = reply_to("{'inner': {'cylinder': {'radius': 1, 'half_height': 1}}, 'outer': "
	                     "{'box': {'half_extents': [1.01, 1.01, 1.01]}}}",
	                     &st, proto_contains_reply);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "contained")));
	ck_assert(json_is_true(json_object_get(j, "converged")));
	ck_assert(json_is_null(json_object_get(j, "outside_vertex")));
	ck_assert_ptr_null(json_object_get(j, "outside_point"));
	json_decref(j);
	j = reply_to("{'inner': {'cylinder': {'radius': 1, 'half_height': 1}}, 'outer': "
	             "{'box': {'half_extents': [0.99, 1.01, 1.01]}}}",
	             &st, proto_contains_reply);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "contained")));
	ck_assert(json_is_true(json_object_get(j, "converged")));
	json_t *pt = json_object_get(j, "outside_point");
	ck_assert_int_eq(json_array_size(pt), 3);
	ck_assert(fabs(json_real_value(json_array_get(pt, 0))) > 0.99);
	json_decref(j);
	j = reply_to("{'inner': {'cone': {'radius': 1, 'half_height': 1}}, 'outer': "
	             "{'cylinder': {'radius': 2, 'half_height': 2}}}",
	             &st, proto_contains_reply);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/inner");
	json_decref(j);
}
END_TEST

START_TEST(scenes_and_motion)
{
	/* A sphere rolling at a cylinder: contact when the gap of 2 is gone,
	 * at t = 2 / 4 of a move by 4. */
	json_t *j = ok("{'a': {'cylinder': {'radius': 1, 'half_height': 3}}, 'b': {'sphere': "
	               "{'radius': 1}, 'pose': {'translation': [4, 0, 0]}, 'pose_end': "
	               "{'translation': [0, 0, 0]}}}");
	const json_t *toi = json_object_get(j, "toi");
	ck_assert_msg(json_is_number(toi), "no toi");
	ck_near(json_number_value(toi), 0.5, 1e-9);
	json_decref(j);
	/* A scene of a pipe, a bolt through it and a sphere apart. */
	int st;
	j = reply_to("{'objects': [{'id': 'pipe', 'shape': {'cylinder': {'radius': 1, "
	             "'half_height': 5}}}, {'id': 'bolt', 'shape': {'capsule': {'radius': 0.2, "
	             "'half_height': 2}, 'pose': {'rotation': [0, 0, 0.7071067811865476, "
	             "0.7071067811865476]}}}, {'id': 'ball', 'shape': {'sphere': {'radius': 1}, "
	             "'pose': {'translation': [10, 0, 0]}}}]}",
	             &st, proto_scene_reply);
	ck_assert_int_eq(st, 200);
	const json_t *clashes = json_object_get(j, "clashes");
	ck_assert_uint_eq(json_array_size(clashes), 1);
	const json_t *c = json_array_get(clashes, 0);
	ck_assert_str_eq(json_string_value(json_object_get(c, "a")), "pipe");
	ck_assert_str_eq(json_string_value(json_object_get(c, "b")), "bolt");
	json_decref(j);
}
END_TEST

/* Found by make answers-compare: a sheared ellipsoid against a moving cone
 * made EPA start from a flat seed simplex taken whole, give up before it
 * tried any direction, and abort on its assertion (one request would have
 * killed clashd).  Now the fallback tries the axes first.  The motion is
 * answered, its distance at the start the one the same pair at rest gets. */
static const char sheared_pair[] =
	"{'a': {'ellipsoid': {'radii': [0.5408990570695501, 0.90721227531265269, "
	"0.34517706790467928]}, 'pose': {'matrix': [0.6888102439699485, 0.11429628248122192, "
	"-0.13816465124494109, 0, 0.10038959404661196, 1.2542025551011, 0, 0, 0, 0, "
	"1.7084321099220463, 0, -0.14074543029885603, -0.01056230478125781, "
	"-0.033148686949759885, 1]}}, 'b': {'cone': {'radius': 3.3617403104045698, "
	"'half_height': 6.2837795828267131}, 'pose': {'rotation': [0.54654984044718469, "
	"-0.4716446980081711, 0.4597865606940752, -0.51713718620212523], 'translation': "
	"[2.4497095642898921, -2.3544079209749054, 1.5426881796297249]}%s}}";

START_TEST(flat_seed_motion)
{
	char q[2048];
	snprintf(q, sizeof q, sheared_pair,
	         ", 'pose_end': {'translation': [0.85299620805507359, -0.80084249946943009, "
	         "-0.86786745309531343]}");
	int st;
	json_t *moving = reply_to(q, &st, proto_query_reply);
	ck_assert_int_eq(st, 200);
	const json_t *toi = json_object_get(moving, "toi");
	ck_assert_msg(json_is_number(toi), "no toi");
	ck_assert(json_number_value(toi) > 0 && json_number_value(toi) <= 1);
	snprintf(q, sizeof q, sheared_pair, "");
	json_t *rest = ok(q);
	ck_assert(json_real_value(json_object_get(moving, "distance")) ==
	          json_real_value(json_object_get(rest, "distance")));
	json_decref(moving);
	json_decref(rest);
}
END_TEST

static Suite *primitive_wire_suite(void)
{
	Suite *s = suite_create("primitive_wire");
	ck_case(s, "wire", 0,
	        CK_TESTS(closed_forms, bad_sizes, one_kind, methods, curved_contains,
	                 scenes_and_motion, flat_seed_motion));
	return s;
}

CHECK_SUITE(primitive_wire_suite)
