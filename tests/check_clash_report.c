/*
 * check_clash_report.c — suite "clash_report": a mesh pair's clash report
 * on the wire (proto/endpoints/mesh_report.c, core/scene.c's classes).
 *
 * Everything is compared with closed forms: boxes given as 12-triangle
 * meshes, overlapping with coplanar faces or not, posed by a random
 * rotation that leaves volumes and depths unchanged, share the product of
 * their overlaps and part by the least overlap along an axis; a curve's
 * points lie on both boxes' surfaces; a scene classes mesh boxes exactly
 * as the same boxes as primitives at every overlap around its touch
 * depth; a sphere sunk into one part of a compound of mesh boxes, its
 * depth.  The core's own suites (overlap_volume, mesh_depth) check the
 * algorithms on harder shapes; this one checks what the wire makes of
 * them: members, pointers, caps, the want that asks, open surfaces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "prng.h"
#include "proto.h"
#include "textbuf.h"

/* A box lo..hi as a closed, outward mesh: 8 corners, 12 triangles. */
static char *box_mesh(const double lo[3], const double hi[3], const char *extra)
{
	double p[24];
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			p[3 * i + k] = (i >> k & 1) ? hi[k] : lo[k];
	static const uint32_t t[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
	                               2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
	return mesh_geometry_json(p, 8, t, 12, extra ? extra : "");
}

/* A pose text: a rotation (unit quaternion q) about the origin. */
static void pose_text(char *out, size_t n, const double q[4])
{
	snprintf(out, n, ",\"pose\":{\"rotation\":[%.17g,%.17g,%.17g,%.17g]}", q[0], q[1], q[2],
	         q[3]);
}

/* The text `b` (taken) answered in-process by `reply`; parsed, its status
 * in *status. */
static json_t *answered(textbuf *b, int (*reply)(const char *, size_t, proto_reply *), int *status)
{
	proto_reply r;
	ck_assert_int_eq(reply(b->s, strlen(b->s), &r), 0);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_msg(j != NULL, "%.*s", (int)r.length, r.body);
	*status = r.status;
	proto_reply_free(&r);
	free(b->s);
	return j;
}

/* The query {"a": a, "b": b `rest`} (rest: members after b, may be "");
 * parsed. */
static json_t *query_of(const char *a, const char *b, const char *rest, int *status)
{
	textbuf q = {0};
	textbuf_str(&q, "{\"a\":");
	textbuf_str(&q, a);
	textbuf_str(&q, ",\"b\":");
	textbuf_str(&q, b);
	textbuf_str(&q, rest);
	textbuf_str(&q, "}");
	return answered(&q, proto_query_reply, status);
}

/* The query of meshes ma and mb (each with `pose`, may be "") and `rest`
 * (members after b, may be ""), answered in-process; parsed. */
static json_t *mesh_pair(const char *ma, const char *mb, const char *pose, const char *rest,
                         int *status)
{
	textbuf sa = {0}, sb = {0};
	textbuf_str(&sa, "{\"mesh\":");
	textbuf_str(&sa, ma);
	textbuf_str(&sa, pose);
	textbuf_str(&sa, "}");
	textbuf_str(&sb, "{\"mesh\":");
	textbuf_str(&sb, mb);
	textbuf_str(&sb, pose);
	textbuf_str(&sb, "}");
	json_t *j = query_of(sa.s, sb.s, rest, status);
	free(sa.s);
	free(sb.s);
	return j;
}

/* The same for mesh boxes a and b. */
static json_t *mesh_boxes(const double alo[3], const double ahi[3], const double blo[3],
                          const double bhi[3], const char *pose, const char *rest, int *status)
{
	char *ma = box_mesh(alo, ahi, NULL), *mb = box_mesh(blo, bhi, NULL);
	json_t *j = mesh_pair(ma, mb, pose, rest, status);
	free(ma);
	free(mb);
	return j;
}

static double num(const json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	const json_t *v = o;
	for (char *k = strtok(buf, "."); k && v; k = strtok(NULL, "."))
		v = json_object_get(v, k);
	ck_assert_msg(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}

static int close_rel(double x, double want, double rel)
{
	return fabs(x - want) <= rel * fmax(fabs(want), 1e-300);
}

/* Distance from p to the surface of box lo..hi (p may be inside). */
static double box_surface_gap(const double *p, const double lo[3], const double hi[3])
{
	double out = 0, in = INFINITY;
	for (int k = 0; k < 3; k++) {
		double d = fmax(lo[k] - p[k], p[k] - hi[k]);
		if (d > 0)
			out += d * d;
		in = fmin(in, -d);
	}
	return out > 0 ? sqrt(out) : in;
}

START_TEST(volume_of_overlapping_boxes)
{
	/* Overlaps along x by o: faces coplanar in y and z, then inset. */
	const double alo[3] = {0, 0, 0}, ahi[3] = {10, 10, 10};
	const double os[] = {0.06, 0.1, 1.5, 9.99};
	for (size_t i = 0; i < sizeof os / sizeof os[0]; i++)
		for (int inset = 0; inset < 2; inset++) {
			const double o = os[i];
			double blo[3] = {10 - o, inset ? 2 : 0, inset ? 3 : 0};
			double bhi[3] = {20 - o, inset ? 8 : 10, inset ? 12 : 10};
			const double want =
				o * (fmin(bhi[1], 10) - blo[1]) * (fmin(bhi[2], 10) - blo[2]);
			int st;
			json_t *j =
				mesh_boxes(alo, ahi, blo, bhi, "", ",\"want\":[\"volume\"]", &st);
			ck_assert_int_eq(st, 200);
			double v = num(j, "overlap.volume");
			ck_assert_msg(close_rel(v, want, 1e-9),
			              "o %g inset %d: volume %.17g, want %.17g", o, inset, v, want);
			ck_assert_ptr_null(
				json_object_get(json_object_get(j, "overlap"), "regions"));
			ck_assert_int_eq((int)num(j, "overlap.regions_total"), 1);
			ck_assert(json_is_false(
				json_object_get(json_object_get(j, "overlap"), "truncated")));
			json_decref(j);
		}
}
END_TEST

/* Regions of the two boxes: one, its box the boxes' intersection, its
 * volume the whole, its curve on both surfaces, triangles in range. */
static void check_region(const json_t *j, const double alo[3], const double ahi[3],
                         const double blo[3], const double bhi[3], int posed)
{
	const json_t *ov = json_object_get(j, "overlap");
	const json_t *regions = json_object_get(ov, "regions");
	ck_assert_uint_eq(json_array_size(regions), 1);
	const json_t *g = json_array_get(regions, 0);
	ck_assert_str_eq(json_string_value(json_object_get(g, "kind")), "surfaces");
	ck_assert(close_rel(num(g, "volume"), num(ov, "volume"), 1e-12));
	if (!posed) {
		const json_t *box = json_object_get(g, "box");
		for (int k = 0; k < 3; k++) {
			double lo =
				json_number_value(json_array_get(json_object_get(box, "min"), k));
			double hi =
				json_number_value(json_array_get(json_object_get(box, "max"), k));
			ck_assert_msg(fabs(lo - fmax(alo[k], blo[k])) < 1e-9, "box min %d: %g", k,
			              lo);
			ck_assert_msg(fabs(hi - fmin(ahi[k], bhi[k])) < 1e-9, "box max %d: %g", k,
			              hi);
		}
	}
	const json_t *curve = json_object_get(g, "curve");
	ck_assert_uint_ge(json_array_size(curve), 1);
	size_t i, k;
	const json_t *line, *pt;
	size_t points = 0;
	json_array_foreach(curve, i, line) {
		ck_assert(json_is_true(json_object_get(line, "closed"))); /* both closed */
		json_array_foreach(json_object_get(line, "points"), k, pt) {
			double p[3];
			for (int c = 0; c < 3; c++)
				p[c] = json_number_value(json_array_get(pt, (size_t)c));
			if (!posed) {
				ck_assert_msg(fabs(box_surface_gap(p, alo, ahi)) < 1e-9,
				              "point off a");
				ck_assert_msg(fabs(box_surface_gap(p, blo, bhi)) < 1e-9,
				              "point off b");
			}
			points++;
		}
	}
	ck_assert_uint_ge(points, 3);
	const json_t *tri = json_object_get(g, "triangles");
	for (const char *side = "a"; side; side = side[0] == 'a' ? "b" : NULL) {
		const json_t *list = json_object_get(tri, side);
		ck_assert_uint_ge(json_array_size(list), 1);
		long long last = -1;
		json_array_foreach(list, k, pt) {
			long long x = json_integer_value(pt);
			ck_assert(x > last && x < 12);
			last = x;
		}
	}
}

START_TEST(regions_of_overlapping_boxes)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {10, 10, 10};
	const double blo[3] = {8, 2, 3}, bhi[3] = {18, 8, 12};
	int st;
	json_t *j = mesh_boxes(alo, ahi, blo, bhi, "", ",\"want\":[\"regions\"]", &st);
	ck_assert_int_eq(st, 200);
	ck_assert(close_rel(num(j, "overlap.volume"), 2 * 6 * 7, 1e-9));
	check_region(j, alo, ahi, blo, bhi, 0);
	json_decref(j);
	/* The same pair turned as one: the same volume (a rotation keeps it). */
	prng g = {24};
	for (int n = 0; n < 8; n++) {
		double q[4];
		char pose[200];
		prng_rotation(&g, q);
		pose_text(pose, sizeof pose, q);
		j = mesh_boxes(alo, ahi, blo, bhi, pose, ",\"want\":[\"regions\",\"depth\"]", &st);
		ck_assert_int_eq(st, 200);
		ck_assert_msg(close_rel(num(j, "overlap.volume"), 84, 1e-9), "turned: %.17g",
		              num(j, "overlap.volume"));
		check_region(j, alo, ahi, blo, bhi, 1);
		ck_assert_msg(fabs(num(j, "penetration.depth") - 2) < 1e-9, "turned depth %.17g",
		              num(j, "penetration.depth"));
		json_decref(j);
	}
}
END_TEST

START_TEST(depth_of_boxes_is_the_least_overlap)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {10, 10, 10};
	const double os[] = {0.06, 0.1, 0.15, 2.5};
	for (size_t i = 0; i < sizeof os / sizeof os[0]; i++) {
		const double o = os[i];
		const double blo[3] = {10 - o, 2, 3}, bhi[3] = {20 - o, 8, 7};
		int st;
		json_t *j = mesh_boxes(alo, ahi, blo, bhi, "", ",\"want\":[\"depth\"]", &st);
		ck_assert_int_eq(st, 200);
		double d = num(j, "penetration.depth");
		ck_assert_msg(fabs(d - o) < 1e-9, "overlap %g: depth %.17g", o, d);
		const json_t *n = json_object_get(json_object_get(j, "penetration"), "normal");
		ck_assert(fabs(json_number_value(json_array_get(n, 0)) - 1) < 1e-9);
		ck_assert(json_is_true(json_object_get(j, "converged")));
		ck_assert_ptr_null(json_object_get(j, "overlap"));
		json_decref(j);
	}
}
END_TEST

START_TEST(no_report_unless_asked)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {10, 10, 10};
	const double blo[3] = {8, 2, 3}, bhi[3] = {18, 8, 12};
	int st;
	json_t *j = mesh_boxes(alo, ahi, blo, bhi, "", "", &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert_ptr_null(json_object_get(j, "overlap"));
	ck_assert_ptr_null(json_object_get(j, "penetration"));
	json_decref(j);
	/* Apart: an empty report, volume 0. */
	const double clo[3] = {11, 0, 0}, chi[3] = {12, 1, 1};
	j = mesh_boxes(alo, ahi, clo, chi, "", ",\"want\":[\"regions\",\"volume\",\"depth\"]", &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	ck_assert(num(j, "overlap.volume") == 0);
	ck_assert_uint_eq(json_array_size(
				  json_object_get(json_object_get(j, "overlap"), "regions")),
	                  0);
	ck_assert_ptr_null(json_object_get(j, "penetration"));
	json_decref(j);
	/* A bad name is a 422 at its index. */
	j = mesh_boxes(alo, ahi, blo, bhi, "", ",\"want\":[\"regions\",\"area\"]", &st);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/want/1");
	json_decref(j);
}
END_TEST

/* A square sheet (two triangles, open) across the box: regions where it
 * crosses, no volume, no depth, each saying that b is open. */
START_TEST(open_surface_has_regions_only)
{
	const double lo[3] = {0, 0, 0}, hi[3] = {10, 10, 10};
	char *ma = box_mesh(lo, hi, NULL);
	const char *sheet = "{\"positions\":[5,-5,-5, 5,15,-5, 5,15,15, 5,-5,15],"
			    "\"indices\":[0,1,2, 0,2,3]}";
	int st;
	json_t *j = mesh_pair(ma, sheet, "", ",\"want\":[\"regions\",\"depth\"]", &st);
	ck_assert_int_eq(st, 200);
	const json_t *ov = json_object_get(j, "overlap");
	ck_assert_ptr_null(json_object_get(ov, "volume"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(ov, "no_volume")),
	                             "b is an open surface"));
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(j, "no_depth")), "b is an open surface"));
	ck_assert_ptr_null(json_object_get(j, "penetration"));
	const json_t *regions = json_object_get(ov, "regions");
	ck_assert_uint_eq(json_array_size(regions), 1);
	/* The sheet crosses the box's four side faces at x = 5: every curve
	 * point has x = 5 and lies on the box's surface. */
	size_t i, k;
	const json_t *line, *pt;
	json_array_foreach(json_object_get(json_array_get(regions, 0), "curve"), i, line)
		json_array_foreach(json_object_get(line, "points"), k, pt) {
			double p[3];
			for (int c = 0; c < 3; c++)
				p[c] = json_number_value(json_array_get(pt, (size_t)c));
			ck_assert(fabs(p[0] - 5) < 1e-9);
			ck_assert(fabs(box_surface_gap(p, lo, hi)) < 1e-9);
		}
	json_decref(j);
	free(ma);
}
END_TEST

/* A part made of two mesh boxes that overlap each other: the volume it
 * shares with a box across both would count their common part twice, so
 * regions and a plain statement instead; touching, the volume. */
START_TEST(overlapping_parts_say_why_no_volume)
{
	const double lo1[3] = {0, 0, 0}, hi1[3] = {2, 2, 2};
	const double blo[3] = {0.5, 0.5, 0.5}, bhi[3] = {3.5, 1.5, 1.5};
	char *m1 = box_mesh(lo1, hi1, NULL), *mb = box_mesh(blo, bhi, NULL);
	for (int touch = 0; touch < 2; touch++) {
		const double lo2[3] = {touch ? 2.0 : 1.0, 0, 0}, hi2[3] = {touch ? 4.0 : 3.0, 2, 2};
		char *m2 = box_mesh(lo2, hi2, NULL);
		textbuf a = {0}, b = {0};
		textbuf_str(&a, "{\"parts\":[{\"mesh\":");
		textbuf_str(&a, m1);
		textbuf_str(&a, "},{\"mesh\":");
		textbuf_str(&a, m2);
		textbuf_str(&a, "}]}");
		textbuf_str(&b, "{\"mesh\":");
		textbuf_str(&b, mb);
		textbuf_str(&b, "}");
		int st;
		json_t *j = query_of(a.s, b.s, ",\"want\":[\"regions\",\"volume\"]", &st);
		ck_assert_int_eq(st, 200);
		const json_t *ov = json_object_get(j, "overlap");
		const char *why = json_string_value(json_object_get(ov, "no_volume"));
		if (touch) {
			ck_assert_msg(why == NULL, "no_volume: %s", why);
			ck_assert(fabs(num(j, "overlap.volume") - 3.0) <= 3e-9);
		} else {
			ck_assert_ptr_null(json_object_get(ov, "volume"));
			ck_assert_msg(why && strstr(why, "a overlaps itself"), "no_volume: %s",
			              why ? why : "(none)");
		}
		ck_assert_uint_ge(json_array_size(json_object_get(ov, "regions")), 1);
		json_decref(j);
		free(a.s);
		free(b.s);
		free(m2);
	}
	free(m1);
	free(mb);
}
END_TEST

/* A box with one triangle missing is still a solid (by its winding
 * number) but not closed: regions, and a plain statement instead of a
 * volume. */
START_TEST(leaky_solid_says_why_no_volume)
{
	double p[24];
	const double lo[3] = {0, 0, 0}, hi[3] = {10, 10, 10};
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			p[3 * i + k] = (i >> k & 1) ? hi[k] : lo[k];
	static const uint32_t t[33] = {1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6,
	                               3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
	char *leaky = mesh_geometry_json(p, 8, t, 11, "");
	const double blo[3] = {8, 2, 3}, bhi[3] = {18, 8, 12};
	char *mb = box_mesh(blo, bhi, NULL);
	int st;
	json_t *j = mesh_pair(leaky, mb, "", ",\"want\":[\"regions\"]", &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(json_object_get(j, "solid"), "a")));
	const json_t *ov = json_object_get(j, "overlap");
	ck_assert_ptr_null(json_object_get(ov, "volume"));
	const char *why = json_string_value(json_object_get(ov, "no_volume"));
	ck_assert_msg(why && strstr(why, "a is a solid by its winding number but not closed"),
	              "no_volume: %s", why ? why : "(none)");
	ck_assert_uint_ge(json_array_size(json_object_get(ov, "regions")), 1);
	json_decref(j);
	free(leaky);
	free(mb);
}
END_TEST

/* Scene classes: mesh boxes against the same boxes as primitives, at
 * overlaps around touch_depth 0.05: one threshold, one meaning. */
static json_t *scene_of(const char *shape_a, const char *shape_b)
{
	textbuf b = {0};
	textbuf_str(&b, "{\"touch_depth\":0.05,\"objects\":[{\"id\":\"a\",\"shape\":");
	textbuf_str(&b, shape_a);
	textbuf_str(&b, "},{\"id\":\"b\",\"shape\":");
	textbuf_str(&b, shape_b);
	textbuf_str(&b, "}]}");
	int status;
	json_t *j = answered(&b, proto_scene_reply, &status);
	ck_assert_int_eq(status, 200);
	return j;
}

START_TEST(scene_classes_meshes_as_primitives)
{
	const double os[] = {0.03, 0.049, 0.051, 0.06, 0.10, 0.15, 1.0};
	for (size_t i = 0; i < sizeof os / sizeof os[0]; i++) {
		const double o = os[i];
		const double alo[3] = {0, 0, 0}, ahi[3] = {10, 10, 10};
		const double blo[3] = {10 - o, 0, 0}, bhi[3] = {20 - o, 10, 10};
		char *ma = box_mesh(alo, ahi, NULL), *mb = box_mesh(blo, bhi, NULL);
		char sa[4096], sb[4096], pa[200], pb[200];
		snprintf(sa, sizeof sa, "{\"mesh\":%s}", ma);
		snprintf(sb, sizeof sb, "{\"mesh\":%s}", mb);
		snprintf(pa, sizeof pa,
		         "{\"box\":{\"half_extents\":[5,5,5]},\"pose\":{\"translation\":"
		         "[5,5,5]}}");
		snprintf(pb, sizeof pb,
		         "{\"box\":{\"half_extents\":[5,5,5]},\"pose\":{\"translation\":"
		         "[%.17g,5,5]}}",
		         15 - o);
		json_t *m = scene_of(sa, sb), *p = scene_of(pa, pb);
		const json_t *cm = json_array_get(json_object_get(m, "clashes"), 0);
		const json_t *cp = json_array_get(json_object_get(p, "clashes"), 0);
		ck_assert_ptr_nonnull(cm);
		ck_assert_ptr_nonnull(cp);
		const char *km = json_string_value(json_object_get(cm, "class"));
		const char *kp = json_string_value(json_object_get(cp, "class"));
		ck_assert_msg(strcmp(km, kp) == 0, "overlap %g: mesh %s, primitive %s", o, km, kp);
		ck_assert_str_eq(km, o > 0.05 ? "clash" : "touch");
		/* Ranked by depth and volume. */
		ck_assert_msg(fabs(num(cm, "penetration.depth") - o) < 1e-9,
		              "overlap %g: depth %.17g", o, num(cm, "penetration.depth"));
		ck_assert_msg(close_rel(num(cm, "overlap.volume"), 100 * o, 1e-9),
		              "overlap %g: volume %.17g", o, num(cm, "overlap.volume"));
		json_decref(m);
		json_decref(p);
		free(ma);
		free(mb);
	}
}
END_TEST

/* A sphere of radius 0.35 sunk d into the first of two mesh boxes side by
 * side, parts of one compound, far from their edges: depth d up the top
 * face's normal, converged (its lower bound d too), in either order; in a
 * scene with touch_depth 0.05, a clash from d > 0.05 with that depth. */
START_TEST(depth_of_a_sphere_in_one_part)
{
	const double lo0[3] = {0, 0, 0}, hi0[3] = {10, 10, 10};
	const double lo1[3] = {10, 0, 0}, hi1[3] = {20, 10, 10};
	char *m0 = box_mesh(lo0, hi0, NULL), *m1 = box_mesh(lo1, hi1, NULL);
	textbuf parts = {0};
	textbuf_str(&parts, "{\"parts\":[{\"mesh\":");
	textbuf_str(&parts, m0);
	textbuf_str(&parts, "},{\"mesh\":");
	textbuf_str(&parts, m1);
	textbuf_str(&parts, "}]}");
	const double ds[] = {0.1, 0.01, 0.06, 0.3};
	for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		const double d = ds[i];
		char ball[160];
		snprintf(ball, sizeof ball,
		         "{\"sphere\":{\"radius\":0.35},\"pose\":{\"translation\":"
		         "[%g,5,%.17g]}}",
		         3.0 + i, 10 + 0.35 - d);
		for (int swap = 0; swap < 2; swap++) {
			int st;
			json_t *j = query_of(swap ? ball : parts.s, swap ? parts.s : ball,
			                     ",\"want\":[\"depth\"]", &st);
			ck_assert_int_eq(st, 200);
			double got = num(j, "penetration.depth");
			ck_assert_msg(fabs(got - d) < 1e-9, "d %g, swapped %d: depth %.17g", d,
			              swap, got);
			ck_assert(fabs(num(j, "penetration.depth_lower_bound") - got) < 1e-15);
			const json_t *n =
				json_object_get(json_object_get(j, "penetration"), "normal");
			ck_assert(fabs(json_number_value(json_array_get(n, 2)) - (swap ? -1 : 1)) <
			          1e-9);
			ck_assert(json_is_true(json_object_get(j, "converged")));
			json_decref(j);
		}
		json_t *sc = scene_of(parts.s, ball);
		const json_t *c = json_array_get(json_object_get(sc, "clashes"), 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(json_string_value(json_object_get(c, "class")),
		                 d > 0.05 ? "clash" : "touch");
		if (d > 0.05 || json_object_get(c, "penetration"))
			ck_assert_msg(fabs(num(c, "penetration.depth") - d) < 1e-9,
			              "scene, d %g: %.17g", d, num(c, "penetration.depth"));
		json_decref(sc);
	}
	free(parts.s);
	free(m0);
	free(m1);
}
END_TEST

/* Two boxes of one mesh, a bar across both: two regions, their volumes;
 * with --overlap-regions 1 one is listed, both are counted. */
START_TEST(caps_bind_and_say_so)
{
	const char *const args[] = {"--overlap-regions", "1", "--overlap-triangles", "2", NULL};
	server_start_with(args, NULL);
	double p[48];
	uint32_t t[72];
	for (int box = 0; box < 2; box++) {
		const double lo[3] = {box ? 20.0 : 0.0, 0, 0}, hi[3] = {box ? 30.0 : 10.0, 10, 10};
		for (int i = 0; i < 8; i++)
			for (int k = 0; k < 3; k++)
				p[24 * box + 3 * i + k] = (i >> k & 1) ? hi[k] : lo[k];
		static const uint32_t f[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6,
		                               0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7,
		                               0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
		for (int i = 0; i < 36; i++)
			t[36 * box + i] = f[i] + 8 * (uint32_t)box;
	}
	char *ma = mesh_geometry_json(p, 16, t, 24, "");
	const double blo[3] = {5, 4, 4}, bhi[3] = {25, 6, 7};
	char *mb = box_mesh(blo, bhi, NULL);
	textbuf b = {0};
	textbuf_str(&b, "{\"a\":{\"mesh\":");
	textbuf_str(&b, ma);
	textbuf_str(&b, "},\"b\":{\"mesh\":");
	textbuf_str(&b, mb);
	textbuf_str(&b, "},\"want\":[\"regions\"]}");
	int st;
	char *text = http_post_json("/v1/query", b.s, &st);
	ck_assert_int_eq(st, 200);
	json_t *j = json_loads(text, 0, NULL);
	const json_t *ov = json_object_get(j, "overlap");
	ck_assert(close_rel(num(j, "overlap.volume"), 2 * 5 * 2 * 3, 1e-9));
	ck_assert_int_eq((int)num(j, "overlap.regions_total"), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(ov, "regions")), 1);
	ck_assert(json_is_true(json_object_get(ov, "truncated")));
	const json_t *g = json_array_get(json_object_get(ov, "regions"), 0);
	ck_assert(close_rel(num(g, "volume"), 30, 1e-9));
	const json_t *tri = json_object_get(g, "triangles");
	ck_assert_uint_le(json_array_size(json_object_get(tri, "a")), 2);
	ck_assert_int_ge((int)json_integer_value(json_object_get(tri, "a_total")), 2);
	json_decref(j);
	free(text);
	/* A batch answers the item as the query alone. */
	textbuf bb = {0};
	textbuf_str(&bb, "{\"queries\":[");
	textbuf_str(&bb, b.s);
	textbuf_str(&bb, "]}");
	char *batch = http_post_json("/v1/batch", bb.s, &st);
	ck_assert_int_eq(st, 200);
	json_t *bj = json_loads(batch, 0, NULL);
	text = http_post_json("/v1/query", b.s, &st);
	json_t *qj = json_loads(text, 0, NULL);
	ck_assert(json_equal(json_array_get(json_object_get(bj, "results"), 0), qj));
	json_decref(bj);
	json_decref(qj);
	free(batch);
	free(text);
	free(bb.s);
	free(b.s);
	free(ma);
	free(mb);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static Suite *clash_report_suite(void)
{
	Suite *s = suite_create("clash_report");
	ck_case(s, "wire", 60,
	        CK_TESTS(volume_of_overlapping_boxes, regions_of_overlapping_boxes,
	                 depth_of_boxes_is_the_least_overlap, depth_of_a_sphere_in_one_part,
	                 no_report_unless_asked, open_surface_has_regions_only,
	                 leaky_solid_says_why_no_volume, overlapping_parts_say_why_no_volume,
	                 scene_classes_meshes_as_primitives));
	ck_case(s, "server", 60, CK_TESTS(caps_bind_and_say_so));
	return s;
}

CHECK_SUITE(clash_report_suite)
