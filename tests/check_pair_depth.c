/*
 * check_pair_depth.c — suite "pairdepth": the penetration of the deepest
 * pair of parts of intersecting compound shapes (CLASH_HAS_PAIR_DEPTH, the
 * wire's `penetration.deepest_pair`).
 *
 * What it is compared with:
 *  - a closed form: compounds of axis-aligned boxes, whose pairwise depth
 *    is the least overlap over the axes, along that axis; the whole scene
 *    also turned and moved by one rigid pose (depth kept, normal turned);
 *  - a peg in a slot, where the deepest pair's depth is not the union's:
 *    moving b by it leaves the compounds intersecting;
 *  - /v1/query against /v1/scene: every compound clash of random scenes
 *    (compound against convex and against compound) carries the same
 *    penetration, near parts and class inputs as the query of that pair;
 *    and the members are the contract's (proto/openapi.yaml).
 * The random compounds of suite "compound" are checked against brute force
 * over their pairs of parts with the core's EPA for each pair.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "contract_doc.h"
#include "clash.h"
#include "prng.h"
#include "proto.h"

enum {
	MAX_BOXES = 6
};

/* A box [lo, hi] of 3-D as its 8 corners. */
static void corners(double *v, const double *lo, const double *hi)
{
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			v[3 * i + k] = (i >> k) & 1 ? hi[k] : lo[k];
}

typedef struct boxes {
	double lo[MAX_BOXES][3], hi[MAX_BOXES][3];
	double v[MAX_BOXES][24];
	clash_shape parts[MAX_BOXES];
	clash_shape whole;
	int n;
} boxes;

static void random_boxes(prng *g, boxes *b, double spread)
{
	b->n = prng_int(g, 2, MAX_BOXES);
	for (int i = 0; i < b->n; i++) {
		for (int k = 0; k < 3; k++) {
			double c = prng_range(g, -spread, spread), h = prng_range(g, 0.3, 1.5);
			b->lo[i][k] = c - h;
			b->hi[i][k] = c + h;
		}
		corners(b->v[i], b->lo[i], b->hi[i]);
		ck_assert_int_eq(clash_shape_init(&b->parts[i], 3, b->v[i], 8), CLASH_OK);
	}
	ck_assert_int_eq(clash_shape_init_compound(&b->whole, 3, b->parts, (size_t)b->n), CLASH_OK);
}

/* The depth of boxes i of a and j of b (-1 when apart), its axis and sign. */
static double box_depth(const boxes *a, int i, const boxes *b, int j, int *axis, double *sign,
                        double *second)
{
	double best = INFINITY;
	*second = INFINITY;
	for (int k = 0; k < 3; k++) {
		double up = a->hi[i][k] - b->lo[j][k], down = b->hi[j][k] - a->lo[i][k];
		if (up < 0 || down < 0)
			return -1;
		double d = fmin(up, down);
		if (d < best) {
			*second = best;
			best = d;
			*axis = k;
			*sign = up <= down ? 1 : -1;
		} else {
			*second = fmin(*second, d);
		}
		*second = fmin(*second, fmax(up, down));
	}
	return best;
}

/* The closed form of the deepest pair; 0 when its depth or axis is not
 * clear of the others' by `margin` (the test then skips the direction). */
typedef struct deepest {
	double depth, sign;
	int axis, i, j, clear;
} deepest;

static deepest closed_form(const boxes *a, const boxes *b, double margin)
{
	deepest d = {.depth = -1};
	double runner_up = -1, axis_gap = 0;
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			int axis;
			double sign, second;
			double x = box_depth(a, i, b, j, &axis, &sign, &second);
			if (x > d.depth) {
				runner_up = d.depth;
				d = (deepest){x, sign, axis, i, j, 0};
				axis_gap = second - x;
			} else {
				runner_up = fmax(runner_up, x);
			}
		}
	d.clear = d.depth - runner_up > margin && axis_gap > margin;
	return d;
}

/* A rotation matrix (row-major) from a unit quaternion (x, y, z, w). */
static void quat_matrix(const double q[4], double m[9])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
	               2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
	               2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
	memcpy(m, r, sizeof r);
}

static void pose_both(boxes *a, boxes *b, const double q[4], const double t[3])
{
	clash_shape *s[2] = {&a->whole, &b->whole};
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(clash_shape_set_quaternion(s[i], q), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(s[i], t), CLASH_OK);
	}
}

START_TEST(boxes_closed_form)
{
	prng g = {0xb0c5e5};
	static boxes a, b;
	int compared = 0, directions = 0;
	for (int rep = 0; rep < 400; rep++) {
		random_boxes(&g, &a, 2.0);
		random_boxes(&g, &b, 2.0);
		double rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0, 0};
		if (rep % 2) { /* the same rigid pose on both: depth kept, normal turned */
			double q[4], len = 0;
			for (int k = 0; k < 4; k++) {
				q[k] = prng_range(&g, -1, 1);
				len += q[k] * q[k];
			}
			for (int k = 0; k < 4; k++)
				q[k] /= sqrt(len);
			for (int k = 0; k < 3; k++)
				t[k] = prng_range(&g, -50, 50);
			pose_both(&a, &b, q, t);
			quat_matrix(q, rot);
		}
		clash_result r;
		ck_assert_int_eq(clash_gjk(&a.whole, &b.whole, NULL, &r), CLASH_OK);
		deepest d = closed_form(&a, &b, 1e-6);
		ck_assert_int_eq(r.intersecting, d.depth >= 0);
		if (!r.intersecting) {
			ck_assert(!(r.has & (CLASH_HAS_PAIR_DEPTH | CLASH_HAS_DEPTH)));
			continue;
		}
		compared++;
		ck_assert(r.converged);
		ck_assert(r.has & CLASH_HAS_PAIR_DEPTH);
		ck_assert(!(r.has & CLASH_HAS_DEPTH));
		ck_near(r.depth, d.depth, 1e-9);
		ck_assert(r.depth_lower_bound == r.depth);
		if (!d.clear)
			continue;
		directions++;
		ck_assert_uint_eq(r.part_a, (size_t)d.i);
		ck_assert_uint_eq(r.part_b, (size_t)d.j);
		for (int k = 0; k < 3; k++) /* sign times the axis' column of rot */
			ck_near(r.depth_normal[k], d.sign * rot[3 * k + d.axis], 1e-9);
		for (int k = 0; k < 3; k++)
			ck_near(r.depth_a[k], r.depth_b[k] + r.depth * r.depth_normal[k], 1e-9);
	}
	ck_assert_int_gt(compared, 100);
	ck_assert_int_gt(directions, 50);
}
END_TEST

/* A peg in a slot (2-D): walls [0,1]x[0,3] and [2,3]x[0,3], floor
 * [0,3]x[0,1]; the peg [0.9,2.1]x[0.95,5] overlaps each wall by 0.1 and
 * the floor by 0.05.  The deepest pair (a wall, 0.1 along x) is reported,
 * but moving the peg by it pushes it 0.2 into the other wall: the slot's
 * own depth is the way out, up by 2.05. */
START_TEST(peg_in_slot)
{
	const double left[] = {0, 0, 1, 0, 1, 3, 0, 3}, right[] = {2, 0, 3, 0, 3, 3, 2, 3},
		     floor_[] = {0, 0, 3, 0, 3, 1, 0, 1},
		     peg[] = {0.9, 0.95, 2.1, 0.95, 2.1, 5, 0.9, 5};
	clash_shape parts[3], slot, b;
	ck_assert_int_eq(clash_shape_init(&parts[0], 2, left, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&parts[1], 2, right, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&parts[2], 2, floor_, 4), CLASH_OK);
	ck_assert_int_eq(clash_shape_init_compound(&slot, 2, parts, 3), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&b, 2, peg, 4), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&slot, &b, NULL, &r), CLASH_OK);
	ck_assert(r.intersecting && (r.has & CLASH_HAS_PAIR_DEPTH));
	ck_near(r.depth, 0.1, 1e-12);
	/* Either wall (a tie): moving the peg away from it. */
	ck_assert_uint_le(r.part_a, 1);
	ck_near(r.depth_normal[0], r.part_a == 0 ? 1 : -1, 1e-12);
	ck_near(r.depth_normal[1], 0, 1e-12);
	const size_t wall = r.part_a;
	/* Moved by depth * normal: that pair touches, the peg is still in. */
	double t[2] = {r.depth * r.depth_normal[0], r.depth * r.depth_normal[1]};
	ck_assert_int_eq(clash_shape_set_translation(&b, t), CLASH_OK);
	clash_result moved, pair;
	ck_assert_int_eq(clash_gjk(&parts[wall], &b, NULL, &pair), CLASH_OK);
	ck_near(pair.depth, 0, 1e-12);
	ck_assert_int_eq(clash_gjk(&slot, &b, NULL, &moved), CLASH_OK);
	ck_assert(moved.intersecting);
	ck_near(moved.depth, 0.2, 1e-12);
	ck_assert_uint_eq(moved.part_a, 1 - wall);
	/* The slot's own depth is larger: the way out, up by 2.05. */
	t[0] = 0;
	t[1] = 2.05 + 1e-9;
	ck_assert_int_eq(clash_shape_set_translation(&b, t), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&slot, &b, NULL, &moved), CLASH_OK);
	ck_assert(!moved.intersecting);
}
END_TEST

/* ---- the wire: /v1/scene against /v1/query ------------------------------ */

static json_t *call(int scene, const char *text)
{
	proto_reply out;
	if (scene)
		ck_assert_int_eq(proto_scene_reply(text, strlen(text), &out), 0);
	else
		ck_assert_int_eq(proto_query_reply(text, strlen(text), &out), 0);
	ck_assert_msg(out.status == 200, "%d: %s", out.status, out.body);
	json_t *j = json_loadb(out.body, out.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	proto_reply_free(&out);
	return j;
}

/* A random shape: a compound of 1 to 4 turned boxes (and a sphere part),
 * itself posed, or a convex box. */
static json_t *random_shape(prng *g, double spread)
{
	json_t *parts = json_array();
	int compound = prng_unit(g) < 0.7, n = compound ? prng_int(g, 1, 4) : 1;
	for (int i = 0; i < n; i++) {
		double h[3], c[3];
		for (int k = 0; k < 3; k++) {
			h[k] = prng_range(g, 0.2, 1.0);
			c[k] = prng_range(g, -1.5, 1.5);
		}
		json_t *v = json_array();
		for (int m = 0; m < 8; m++)
			json_array_append_new(v, json_pack("[fff]", m & 1 ? h[0] : -h[0],
			                                   m & 2 ? h[1] : -h[1],
			                                   m & 4 ? h[2] : -h[2]));
		double s = sqrt(0.5);
		json_t *part;
		if (i == 3) {
			json_decref(v);
			part = json_pack("{s[[fff]] sf}", "vertices", c[0], c[1], c[2], "radius",
			                 h[0]);
		} else {
			part = json_pack("{so s{s[fff] s[ffff]}}", "vertices", v, "pose",
			                 "translation", c[0], c[1], c[2], "rotation", 0.0,
			                 s * (i % 2), 0.0, i % 2 ? s : 1.0);
		}
		json_array_append_new(parts, part);
	}
	json_t *pose = json_pack("{s[fff] s[ffff]}", "translation", prng_range(g, 0, spread),
	                         prng_range(g, 0, spread), prng_range(g, 0, spread), "rotation",
	                         0.0, 0.0, 0.6, 0.8);
	if (!compound) {
		json_t *box = json_incref(json_object_get(json_array_get(parts, 0), "vertices"));
		json_decref(parts);
		return json_pack("{so so}", "vertices", box, "pose", pose);
	}
	return json_pack("{so so}", "parts", parts, "pose", pose);
}

/* value's members all in the schema's properties, its required ones there. */
static void in_schema(json_t *schema, json_t *value, const char *where)
{
	json_t *props = json_object_get(schema, "properties"), *req, *v;
	const char *m;
	json_object_foreach(value, m, v)
		ck_assert_msg(json_object_get(props, m), "%s.%s is not in the contract", where, m);
	req = json_object_get(schema, "required");
	for (size_t i = 0; i < json_array_size(req); i++)
		ck_assert_msg(json_object_get(value, json_string_value(json_array_get(req, i))),
		              "%s lacks %s", where, json_string_value(json_array_get(req, i)));
}

/* The contract's schemas, from proto/openapi.yaml. */
static json_t *schemas(void)
{
	static json_t *api;
	if (!api)
		api = contract_doc_load();
	return json_object_get(json_object_get(api, "components"), "schemas");
}

static json_t *prop(json_t *schema, const char *name)
{
	json_t *p = json_object_get(json_object_get(schema, "properties"), name);
	ck_assert_msg(p != NULL, "no %s in the contract", name);
	return p;
}

/* The scene's clash c of objects a and b against the query of the pair. */
static void clash_against_query(json_t *c, json_t *sa, json_t *sb, int compound_pairs[2])
{
	json_t *qa = json_pack("{sOsO}", "a", sa, "b", sb);
	char *text = json_dumps(qa, JSON_COMPACT);
	json_t *q = call(0, text);
	free(text);
	json_decref(qa);
	ck_assert(
		json_equal(json_object_get(q, "intersecting"), json_object_get(c, "intersecting")));
	json_t *qn = json_object_get(q, "near_parts"), *cn = json_object_get(c, "near_parts");
	ck_assert((qn == NULL) == (cn == NULL) && (!qn || json_equal(qn, cn)));
	json_t *qp = json_object_get(q, "penetration"), *cp = json_object_get(c, "penetration");
	if (!json_is_true(json_object_get(c, "intersecting")) ||
	    !json_object_get(c, "near_parts")) {
		json_decref(q);
		return;
	}
	/* [0]: compound against convex, [1]: against compound */
	compound_pairs[json_object_get(sa, "parts") && json_object_get(sb, "parts")]++;
	json_t *qd = json_object_get(qp, "deepest_pair"), *cd = json_object_get(cp, "deepest_pair");
	ck_assert_ptr_nonnull(qd);
	ck_assert_ptr_nonnull(cd);
	ck_assert_ptr_null(json_object_get(qp, "depth"));
	ck_assert_ptr_null(json_object_get(cp, "depth"));
	ck_assert(json_equal(json_object_get(qp, "depth_lower_bound"),
	                     json_object_get(cp, "depth_lower_bound")));
	ck_assert(json_equal(json_object_get(qd, "depth"), json_object_get(cd, "depth")));
	ck_assert(json_equal(json_object_get(qd, "normal"), json_object_get(cd, "normal")));
	ck_assert(json_number_value(json_object_get(qd, "depth")) ==
	          json_number_value(json_object_get(qp, "depth_lower_bound")));
	json_t *rp = prop(json_object_get(schemas(), "Result"), "penetration");
	json_t *kp = prop(json_object_get(schemas(), "Clash"), "penetration");
	in_schema(rp, qp, "Result.penetration");
	in_schema(prop(rp, "deepest_pair"), qd, "Result.penetration.deepest_pair");
	in_schema(kp, cp, "Clash.penetration");
	in_schema(prop(kp, "deepest_pair"), cd, "Clash.penetration.deepest_pair");
	json_decref(q);
}

START_TEST(scene_matches_query)
{
	proto_init();
	prng g = {0x5ce4e};
	int compound_pairs[2] = {0, 0};
	for (int rep = 0; rep < 20; rep++) {
		json_t *objects = json_array();
		for (int i = 0; i < 12; i++) {
			char id[16];
			snprintf(id, sizeof id, "o%d", i);
			json_array_append_new(objects, json_pack("{ssso}", "id", id, "shape",
			                                         random_shape(&g, 5.0)));
		}
		json_t *scene = json_pack("{sO}", "objects", objects);
		char *text = json_dumps(scene, JSON_COMPACT);
		json_t *res = call(1, text), *c;
		free(text);
		size_t i;
		json_array_foreach(json_object_get(res, "clashes"), i, c) {
			int a = atoi(json_string_value(json_object_get(c, "a")) + 1),
			    b = atoi(json_string_value(json_object_get(c, "b")) + 1);
			clash_against_query(c,
			                    json_object_get(json_array_get(objects, (size_t)a),
			                                    "shape"),
			                    json_object_get(json_array_get(objects, (size_t)b),
			                                    "shape"),
			                    compound_pairs);
		}
		json_decref(res);
		json_decref(scene);
		json_decref(objects);
	}
	ck_assert_int_gt(compound_pairs[0], 10);
	ck_assert_int_gt(compound_pairs[1], 10);
}
END_TEST

static Suite *pair_depth_suite(void)
{
	Suite *s = suite_create("pairdepth");
	ck_case(s, "core", 0, CK_TESTS(boxes_closed_form, peg_in_slot));
	ck_case(s, "wire", 60, CK_TESTS(scene_matches_query));
	return s;
}

CHECK_SUITE(pair_depth_suite)
