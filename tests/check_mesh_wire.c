/*
 * check_mesh_wire.c — suite "mesh_wire": triangle meshes on the wire
 * {"mesh": {"positions", "indices"}} decoded, answered and
 * refused as proto/openapi.yaml (MeshGeometry) says.  The geometry is an
 * L-bracket, an extruded L whose distances and insides are known in
 * closed form; the core's own mesh suite checks the algorithms against
 * brute force, this one the contract: answers, members and pointers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "proto.h"

/* The L profile (counter-clockwise seen from +z), its inner corner at
 * (1, 1); (0, 1) splits the long wall so that the top and bottom, cut into
 * two convex pieces, share every edge with a wall: a closed mesh. */
static const double profile[7][2] = {{0, 0}, {5, 0}, {5, 1}, {1, 1}, {1, 5}, {0, 5}, {0, 1}};
#define NP 7

/* The bracket, z from 0 to 1: positions (14 vertices) and indices; with
 * `open`, no top (a surface, not a solid). */
static json_t *bracket(int open)
{
	json_t *pos = json_array(), *idx = json_array();
	for (int z = 0; z < 2; z++)
		for (int i = 0; i < NP; i++) {
			json_array_append_new(pos, json_real(profile[i][0]));
			json_array_append_new(pos, json_real(profile[i][1]));
			json_array_append_new(pos, json_real(z));
		}
	/* The L as two convex pieces, (0,1,2,3,6) and (6,3,4,5), fanned,
	 * counter-clockwise: they share the edge 3-6. */
	static const int tris[5][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 6}, {6, 3, 4}, {6, 4, 5}};
	for (int t = 0; t < 5; t++) {
		if (!open) /* top, z = 1, facing +z */
			for (int k = 0; k < 3; k++)
				json_array_append_new(idx, json_integer(NP + tris[t][k]));
		for (int k = 2; k >= 0; k--) /* bottom, facing -z */
			json_array_append_new(idx, json_integer(tris[t][k]));
	}
	for (int i = 0; i < NP; i++) { /* walls, facing out */
		int j = (i + 1) % NP;
		int q[6] = {i, j, NP + j, i, NP + j, NP + i};
		for (int k = 0; k < 6; k++)
			json_array_append_new(idx, json_integer(q[k]));
	}
	return json_pack("{s:{s:o, s:o}}", "mesh", "positions", pos, "indices", idx);
}

/* An axis-aligned box lo..hi as a convex shape. */
static json_t *box(double x0, double y0, double z0, double x1, double y1, double z1)
{
	json_t *v = json_array();
	for (int i = 0; i < 8; i++)
		json_array_append_new(v, json_pack("[f, f, f]", i & 1 ? x1 : x0, i & 2 ? y1 : y0,
		                                   i & 4 ? z1 : z0));
	return json_pack("{s:o}", "vertices", v);
}

/* The reply to {"a": a, "b": b, ...extra} (steals a, b and extra). */
static json_t *ask(json_t *a, json_t *b, json_t *extra, int *status)
{
	json_t *doc = extra ? extra : json_object();
	json_object_set_new(doc, "a", a);
	json_object_set_new(doc, "b", b);
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(text, strlen(text), &r), 0);
	free(text);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	*status = r.status;
	proto_reply_free(&r);
	return j;
}

static json_t *ok(json_t *a, json_t *b)
{
	int st;
	json_t *j = ask(a, b, NULL, &st);
	char *d = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == 200, "status %d: %s", st, d);
	free(d);
	return j;
}

static void refused(json_t *a, json_t *b, json_t *extra, const char *pointer)
{
	int st;
	json_t *j = ask(a, b, extra, &st);
	char *d = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == 422, "status %d, expected 422: %s", st, d);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "pointer, expected %s: %s", pointer, d);
	free(d);
	json_decref(j);
}

static int flag(const json_t *j, const char *obj, const char *side)
{
	const json_t *v = json_object_get(json_object_get(j, obj), side);
	ck_assert_msg(json_is_boolean(v), "no %s.%s", obj, side);
	return json_is_true(v);
}

START_TEST(notch_is_not_the_hull)
{
	/* In the notch, 2.0 from both arms; the hull of the bracket holds it. */
	json_t *j = ok(bracket(0), box(3, 3, 0, 4, 4, 1));
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_near(json_real_value(json_object_get(j, "distance")), 2.0, 1e-12);
	ck_assert(flag(j, "solid", "a") && flag(j, "solid", "b"));
	ck_assert_ptr_null(json_object_get(j, "intersection"));
	ck_assert_ptr_null(json_object_get(j, "penetration"));
	json_decref(j);
}
END_TEST

START_TEST(inside_the_solid)
{
	json_t *j = ok(bracket(0), box(0.2, 2, 0.4, 0.4, 2.2, 0.6));
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "intersection")), "b_inside_a");
	json_decref(j);
	/* The other way round. */
	j = ok(box(0.2, 2, 0.4, 0.4, 2.2, 0.6), bracket(0));
	ck_assert_str_eq(json_string_value(json_object_get(j, "intersection")), "a_inside_b");
	json_decref(j);
	/* Crossing a wall. */
	j = ok(bracket(0), box(0.5, 2, 0.4, 1.5, 2.2, 0.6));
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "intersection")), "surfaces");
	json_decref(j);
}
END_TEST

START_TEST(open_surface)
{
	/* Without its top the bracket is a surface: the probe inside is 0.2
	 * from the wall x = 0 and touches nothing. */
	json_t *j = ok(bracket(1), box(0.2, 2, 0.4, 0.4, 2.2, 0.6));
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_assert(!flag(j, "solid", "a") && flag(j, "solid", "b"));
	ck_near(json_real_value(json_object_get(j, "distance")), 0.2, 1e-12);
	json_decref(j);
}
END_TEST

START_TEST(consecutive_triples)
{
	/* The same mesh with its corners written out and no indices. */
	json_t *m = bracket(0);
	json_t *g = json_object_get(m, "mesh");
	json_t *pos = json_object_get(g, "positions"), *idx = json_object_get(g, "indices");
	json_t *flat = json_array();
	for (size_t i = 0; i < json_array_size(idx); i++) {
		size_t v = (size_t)json_integer_value(json_array_get(idx, i));
		for (int k = 0; k < 3; k++)
			json_array_append(flat, json_array_get(pos, 3 * v + (size_t)k));
	}
	json_t *soup = json_pack("{s:{s:o}}", "mesh", "positions", flat);
	json_t *j1 = ok(json_deep_copy(m), box(3, 3, 0, 4, 4, 1));
	json_t *j2 = ok(soup, box(3, 3, 0, 4, 4, 1));
	ck_near(json_real_value(json_object_get(j2, "distance")),
	        json_real_value(json_object_get(j1, "distance")), 1e-15);
	json_decref(j1);
	json_decref(j2);
	json_decref(m);
}
END_TEST

/* A mesh with one member replaced (steals v). */
static json_t *with(const char *member, json_t *v)
{
	json_t *m = bracket(0);
	json_object_set_new(json_object_get(m, "mesh"), member, v);
	return m;
}

START_TEST(bad_meshes)
{
	json_t *b = box(3, 3, 0, 4, 4, 1);
	refused(with("indices",
	             json_pack("[i, i, i, i, i, i, i, i, i]", 0, 1, 2, 3, 4, 5, 6, 14, 8)),
	        json_deep_copy(b), NULL, "/a/mesh/indices/7");
	refused(with("indices", json_pack("[i, i, i, i]", 0, 1, 2, 3)), json_deep_copy(b), NULL,
	        "/a/mesh/indices");
	refused(with("indices", json_pack("[i, f, i]", 0, 1.5, 2)), json_deep_copy(b), NULL,
	        "/a/mesh/indices/1");
	refused(with("indices", json_pack("[i, i, i]", 0, -1, 2)), json_deep_copy(b), NULL,
	        "/a/mesh/indices/1");
	refused(with("indices", json_string("0 1 2")), json_deep_copy(b), NULL, "/a/mesh/indices");
	refused(with("indices", json_array()), json_deep_copy(b), NULL, "/a/mesh/indices");
	refused(with("positions", json_pack("[f, f]", 0.0, 1.0)), json_deep_copy(b), NULL,
	        "/a/mesh/positions");
	refused(with("positions", json_pack("[f, f, s]", 0.0, 1.0, "z")), json_deep_copy(b), NULL,
	        "/a/mesh/positions/2");
	refused(with("normals", json_array()), json_deep_copy(b), NULL, "/a/mesh/normals");
	refused(json_pack("{s:{s:o}}", "mesh", "indices", json_pack("[i, i, i]", 0, 1, 2)),
	        json_deep_copy(b), NULL, "/a/mesh");
	refused(json_pack("{s:[f, f, f, f, f, f]}", "mesh", 0.0, 0.0, 0.0, 1.0, 0.0, 0.0),
	        json_deep_copy(b), NULL, "/a/mesh");
	/* Without indices: whole triangles only. */
	refused(json_pack("{s:{s:[f, f, f, f, f, f]}}", "mesh", "positions", 0.0, 0.0, 0.0, 1.0,
	                  0.0, 0.0),
	        json_deep_copy(b), NULL, "/a/mesh/positions");
	/* A mesh and vertices at once; a 2-D query. */
	json_t *both = bracket(0);
	json_object_set_new(both, "vertices", json_pack("[[f, f, f]]", 0.0, 0.0, 0.0));
	refused(both, json_deep_copy(b), NULL, "/a/mesh");
	refused(json_pack("{s:[[f, f]]}", "vertices", 0.0, 0.0), bracket(0), NULL,
	        "/b/mesh/positions");
	/* Meshes are for method gjk. */
	refused(bracket(0), json_deep_copy(b), json_pack("{s:s}", "method", "simplex"), "/method");
	refused(bracket(0), json_deep_copy(b), json_pack("{s:s}", "method", "ipm"), "/method");
	json_decref(b);
}
END_TEST

START_TEST(mesh_in_a_compound)
{
	/* A compound of the bracket and a far box: answered for the union. */
	json_t *parts = json_pack("{s:[o, o]}", "parts", bracket(0), box(10, 10, 0, 11, 11, 1));
	json_t *j = ok(parts, box(3, 3, 0, 4, 4, 1));
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_near(json_real_value(json_object_get(j, "distance")), 2.0, 1e-12);
	json_decref(j);
}
END_TEST

START_TEST(mesh_in_motion)
{
	/* A ball of radius 0.25 rolled from x = 7 to 3 at the bracket's arm
	 * (its end face at x = 5): contact when its centre is at 5.25, t =
	 * 1.75 / 4, by conservative advancement. */
	json_t *ball = json_pack("{s:{s:f}, s:{s:[f, f, f]}, s:{s:[f, f, f]}}", "sphere", "radius",
	                         0.25, "pose", "translation", 7.0, 0.5, 0.5, "pose_end",
	                         "translation", 3.0, 0.5, 0.5);
	json_t *j = ok(bracket(0), ball);
	ck_near(json_number_value(json_object_get(j, "toi")), 1.75 / 4, 1e-9);
	const json_t *c = json_object_get(j, "contact");
	ck_near(json_number_value(json_array_get(json_object_get(c, "point"), 0)), 5.0, 1e-9);
	ck_near(json_number_value(json_array_get(json_object_get(c, "normal"), 0)), 1.0, 1e-9);
	json_decref(j);
}
END_TEST

START_TEST(mesh_in_a_scene)
{
	/* The bracket, a probe inside it, a box in its notch 2.0 away (a
	 * clearance of 1 leaves it out) and one crossing a wall: each clash
	 * with its depth and volume. */
	json_t *objs = json_pack("[{s:s, s:o}, {s:s, s:o}, {s:s, s:o}, {s:s, s:o}]", "id",
	                         "bracket", "shape", bracket(0), "id", "probe", "shape",
	                         box(0.2, 2, 0.4, 0.4, 2.2, 0.6), "id", "notch", "shape",
	                         box(3, 3, 0, 4, 4, 1), "id", "wall", "shape",
	                         box(0.5, 2, 0.4, 1.5, 2.2, 0.6));
	json_t *doc = json_pack("{s:o, s:f}", "objects", objs, "clearance", 1.0);
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	proto_reply r;
	ck_assert_int_eq(proto_scene_reply(text, strlen(text), &r), 0);
	free(text);
	ck_assert_int_eq(r.status, 200);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	proto_reply_free(&r);
	/* (The probe and the wall box, 0.1 apart, are a clearance pair.) */
	const json_t *clashes = json_object_get(j, "clashes");
	size_t with_bracket = 0;
	for (size_t i = 0; i < json_array_size(clashes); i++) {
		const json_t *c = json_array_get(clashes, i);
		const char *b = json_string_value(json_object_get(c, "b"));
		if (strcmp(json_string_value(json_object_get(c, "a")), "bracket") != 0)
			continue;
		with_bracket++;
		ck_assert_str_eq(json_string_value(json_object_get(c, "class")), "clash");
		ck_assert_str_eq(json_string_value(json_object_get(c, "intersection")),
		                 strcmp(b, "probe") == 0 ? "b_inside_a" : "surfaces");
		/* Two solids: their depth and shared volume, in closed form (the
		 * probe leaves the arm x in [0, 1] by 0.4 along -x; the wall box
		 * by 0.5 along +x; the probe lies wholly inside). */
		const int probe = strcmp(b, "probe") == 0;
		const json_t *pen = json_object_get(c, "penetration");
		ck_near(json_number_value(json_object_get(pen, "depth")), probe ? 0.4 : 0.5, 1e-9);
		ck_near(json_number_value(json_array_get(json_object_get(pen, "normal"), 0)),
		        probe ? -1.0 : 1.0, 1e-9);
		ck_near(json_number_value(json_object_get(json_object_get(c, "overlap"), "volume")),
		        probe ? 0.2 * 0.2 * 0.2 : 0.5 * 0.2 * 0.2, 1e-9);
	}
	ck_assert_uint_eq(with_bracket, 2);
	json_decref(j);
}
END_TEST

/* The centre curve of three.js's TorusKnotGeometry(radius, ..., 2, 3). */
static void knot_curve(double u, double *p)
{
	double r = (2 + cos(1.5 * u)) * 0.5;
	p[0] = r * cos(u);
	p[1] = r * sin(u);
	p[2] = sin(1.5 * u) * 0.5;
}

/* A torus knot like three.js's TorusKnotGeometry(1, 0.3, tubular, radial),
 * its seams closed by wrapping the indices (a solid): {"mesh": ...}, and in
 * *flat the same points as a convex shape's "positions". */
static json_t *knot(int tubular, int radial, json_t **flat)
{
	json_t *pos = json_array(), *idx = json_array();
	for (int j = 0; j < tubular; j++) {
		double u = 4 * M_PI * j / tubular, p1[3], p2[3], T[3], N[3], B[3];
		knot_curve(u, p1);
		knot_curve(u + 0.01, p2);
		for (int k = 0; k < 3; k++) {
			T[k] = p2[k] - p1[k];
			N[k] = p2[k] + p1[k];
		}
		for (int k = 0; k < 3; k++)
			B[k] = T[(k + 1) % 3] * N[(k + 2) % 3] - T[(k + 2) % 3] * N[(k + 1) % 3];
		for (int k = 0; k < 3; k++)
			N[k] = B[(k + 1) % 3] * T[(k + 2) % 3] - B[(k + 2) % 3] * T[(k + 1) % 3];
		double lb = sqrt(B[0] * B[0] + B[1] * B[1] + B[2] * B[2]);
		double ln = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
		for (int i = 0; i < radial; i++) {
			double v = 2 * M_PI * i / radial, cx = -0.3 * cos(v), cy = 0.3 * sin(v);
			for (int k = 0; k < 3; k++)
				json_array_append_new(pos, json_real(p1[k] + cx * N[k] / ln +
				                                     cy * B[k] / lb));
		}
	}
	for (int j = 1; j <= tubular; j++)
		for (int i = 1; i <= radial; i++) {
			int a = radial * (j - 1) + (i - 1), b = radial * (j % tubular) + (i - 1);
			int c = radial * (j % tubular) + i % radial,
			    d = radial * (j - 1) + i % radial;
			int t[6] = {a, b, d, b, c, d};
			for (int k = 0; k < 6; k++)
				json_array_append_new(idx, json_integer(t[k]));
		}
	*flat = json_pack("{s:O}", "positions", pos);
	return json_pack("{s:{s:o, s:o}}", "mesh", "positions", pos, "indices", idx);
}

START_TEST(torus_knot_probes)
{
	/* A probe at the knot's centre, in its hole: the hull holds it, the
	 * mesh does not. */
	json_t *hull;
	json_t *m = knot(128, 12, &hull);
	json_t *j = ok(json_deep_copy(m), box(-0.05, -0.05, -0.05, 0.05, 0.05, 0.05));
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_assert(flag(j, "solid", "a"));
	ck_assert(json_real_value(json_object_get(j, "distance")) > 0.05);
	json_decref(j);
	j = ok(hull, box(-0.05, -0.05, -0.05, 0.05, 0.05, 0.05));
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	json_decref(j);
	/* A probe on the tube's centre curve is inside the solid. */
	double c[3];
	knot_curve(1.0, c);
	j = ok(m,
	       box(c[0] - 0.02, c[1] - 0.02, c[2] - 0.02, c[0] + 0.02, c[1] + 0.02, c[2] + 0.02));
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "intersection")), "b_inside_a");
	json_decref(j);
}
END_TEST

START_TEST(mesh_and_ball_report)
{
	/* A ball of radius 0.4 sunk 0.3 into the bracket's top, over its
	 * arm: a spherical cap, one closed loop on the ball and the top,
	 * depth 0.3 up +z; a capsule there has no volume, and says why. */
	json_t *ball = json_pack("{s:{s:f}, s:{s:[f, f, f]}}", "sphere", "radius", 0.4, "pose",
	                         "translation", 3.0, 0.5, 1.1);
	int st;
	json_t *j = ask(bracket(0), ball,
	                json_pack("{s:[s, s, s]}", "want", "regions", "volume", "depth"), &st);
	ck_assert_int_eq(st, 200);
	const json_t *ov = json_object_get(j, "overlap");
	ck_assert_ptr_null(json_object_get(ov, "no_volume"));
	const double h = 0.3, r = 0.4;
	ck_near(json_number_value(json_object_get(ov, "volume")), M_PI * h * h * (3 * r - h) / 3,
	        1e-12);
	const json_t *regions = json_object_get(ov, "regions");
	ck_assert_uint_eq(json_array_size(regions), 1);
	const json_t *curve = json_object_get(json_array_get(regions, 0), "curve");
	ck_assert_uint_eq(json_array_size(curve), 1);
	ck_assert(json_is_true(json_object_get(json_array_get(curve, 0), "closed")));
	size_t i;
	const json_t *pt;
	json_array_foreach(json_object_get(json_array_get(curve, 0), "points"), i, pt) {
		const double x = json_number_value(json_array_get(pt, 0)) - 3.0;
		const double y = json_number_value(json_array_get(pt, 1)) - 0.5;
		const double z = json_number_value(json_array_get(pt, 2));
		ck_near(z, 1.0, 1e-12);
		ck_near(sqrt(x * x + y * y + 0.01), r, 1e-12);
	}
	const json_t *pen = json_object_get(j, "penetration");
	ck_near(json_number_value(json_object_get(pen, "depth")), h, 1e-12);
	ck_near(json_number_value(json_array_get(json_object_get(pen, "normal"), 2)), 1.0, 1e-12);
	json_decref(j);
	json_t *cap = json_pack("{s:{s:f, s:f}, s:{s:[f, f, f]}}", "capsule", "radius", 0.4,
	                        "half_height", 0.2, "pose", "translation", 3.0, 0.5, 1.1);
	j = ask(bracket(0), cap, json_pack("{s:[s]}", "want", "volume"), &st);
	ck_assert_int_eq(st, 200);
	const char *why =
		json_string_value(json_object_get(json_object_get(j, "overlap"), "no_volume"));
	ck_assert_msg(why && strstr(why, "capsule"), "no_volume: %s", why ? why : "(none)");
	json_decref(j);
}
END_TEST

static Suite *mesh_wire_suite(void)
{
	Suite *s = suite_create("mesh_wire");
	ck_case(s, "mesh", 0,
	        CK_TESTS(notch_is_not_the_hull, torus_knot_probes, inside_the_solid, open_surface,
	                 consecutive_triples, bad_meshes, mesh_in_a_compound, mesh_in_a_scene,
	                 mesh_in_motion, mesh_and_ball_report));
	return s;
}

CHECK_SUITE(mesh_wire_suite)
