/*
 * mesh_report.c — running and writing a mesh pair's clash report
 * (mesh_report.h).
 */
#include <math.h>
#include <string.h>

#include "json_write.h"
#include "mesh_report.h"
#include "query.h"

/* 1 when s is, or holds, a mesh (clash_shape_mesh_solid: without the
 * crossing count a full reading takes). */
static int holds_mesh(const clash_shape *s)
{
	int solid;
	return clash_shape_mesh_solid(s, &solid) != 0;
}

static const char *open_side(int solid_a, int solid_b, const char *what)
{
	if (!solid_a && !solid_b)
		return what[0] == 'v'
		               ? "a and b are open surfaces (their meshes enclose nothing): "
		                 "they have no volume to share, only the regions where they cross"
		               : "a and b are open surfaces (their meshes enclose nothing): "
		                 "there is no depth to part them by, only where they cross";
	if (!solid_a)
		return what[0] == 'v'
		               ? "a is an open surface (its mesh encloses nothing): it has no "
		                 "volume to share with b, only the regions where they cross"
		               : "a is an open surface (its mesh encloses nothing): there is no "
		                 "depth to part them by, only where they cross";
	return what[0] == 'v' ? "b is an open surface (its mesh encloses nothing): it has no "
	                        "volume to share with a, only the regions where they cross"
	                      : "b is an open surface (its mesh encloses nothing): there is no "
	                        "depth to part them by, only where they cross";
}

/* A depth found for a mesh pair is written as a convex pair's is: its
 * lower bound is the depth itself once the search certified it, else 0
 * (the depth is then an upper bound: a move that parts them). */
static void depth_bound(clash_result *res)
{
	if (!(res->has & CLASH_HAS_DEPTH) || (res->has & CLASH_HAS_DEPTH_BOUND))
		return;
	res->has |= CLASH_HAS_DEPTH_BOUND;
	res->depth_lower_bound = res->converged ? res->depth : 0.0;
}

/* 1 when s is, or holds, a curved primitive other than a sphere or a
 * rounded shape other than a ball (a point with a radius). */
static int curved(const clash_shape *s)
{
	for (size_t i = 0; i < s->nparts; i++)
		if (curved(&s->parts[i]))
			return 1;
	if (s->nparts == 0 && s->mesh == NULL && s->radius >= 0 &&
	    (s->kind == CLASH_KIND_SPHERE ||
	     (s->kind == CLASH_KIND_POLYTOPE && s->count == 1 && s->radius > 0)))
		return 0;
	return s->radius > 0 || (s->kind != CLASH_KIND_POLYTOPE && s->kind != CLASH_KIND_BOX);
}

/* Why a pair clash_overlap_get answered without a volume (both solids):
 * a side that overlaps itself, or whose mesh is not closed. */
static const char *unclosed(const clash_overlap *o)
{
	if (o->overlaps_itself_a || o->overlaps_itself_b)
		return o->overlaps_itself_a && o->overlaps_itself_b
		               ? "a and b each overlap themselves (shells of a mesh that cross or nest, or "
		                 "parts that overlap each other): their surfaces do not bound their solids "
		                 "once, so the volume they share is not measured"
		       : o->overlaps_itself_a
		               ? "a overlaps itself (shells of its mesh that cross or nest, or parts that "
		                 "overlap each other): its surface does not bound its solid once, so the "
		                 "volume it shares with b is not measured"
		               : "b overlaps itself (shells of its mesh that cross or nest, or parts that "
		                 "overlap each other): its surface does not bound its solid once, so the "
		                 "volume it shares with a is not measured";
	if (!o->closed_a && !o->closed_b)
		return "a and b are solids by their winding numbers but not closed (holes in their "
		       "meshes): the volume they share is found between closed solids only";
	return !o->closed_a ? "a is a solid by its winding number but not closed (holes in its "
	                      "mesh): the volume it shares with b is found between closed solids "
	                      "only"
	                    : "b is a solid by its winding number but not closed (holes in its "
	                      "mesh): the volume it shares with a is found between closed solids "
	                      "only";
}

static int overlap(const proto_query *q, const proto_overlap_caps *caps, const clash_result *res,
                   proto_mesh_report *rep)
{
	if (!res->solid_a || !res->solid_b)
		rep->no_volume = open_side(res->solid_a, res->solid_b, "volume");
	if (!res->intersecting)
		return 0;
	clash_overlap_options o = {caps->regions, caps->points, caps->triangles, q->opt.tolerance,
	                           q->opt.cancel};
	int err = clash_overlap_get(&q->a, &q->b, &o, &rep->overlap);
	if (err == CLASH_ENOTSUP) {
		rep->no_volume =
			curved(&q->a) || curved(&q->b)
				? "regions and volume are found between meshes, hulls, boxes and "
				  "spheres (a sphere under a pose that scales it unevenly is an "
				  "ellipsoid): a capsule, cylinder, cone, ellipsoid or rounded "
				  "shape (a radius) is not answered yet"
				: "regions and volume are not found for this pair: a mesh of it "
				  "overlaps itself (shells that cross), or its contacts are too "
				  "degenerate to resolve";
		return 0;
	}
	if (!err && !rep->no_volume && !rep->overlap->has_volume)
		rep->no_volume = unclosed(rep->overlap);
	return err;
}

int proto_mesh_report_run(const proto_query *q, const proto_overlap_caps *caps, clash_result *res,
                          proto_mesh_report *rep)
{
	memset(rep, 0, sizeof *rep);
	const int mesh = holds_mesh(&q->a) || holds_mesh(&q->b);
	rep->asked = mesh ? q->report : 0;
	rep->compound = q->a.nparts > 0 || q->b.nparts > 0;
	int err = rep->asked & PROTO_REPORT_DEPTH ? clash_mesh_depth(&q->a, &q->b, &q->opt, res)
	                                          : q->method->run(&q->a, &q->b, &q->opt, res);
	if (err || !rep->asked)
		return err;
	if (rep->asked & PROTO_REPORT_DEPTH) {
		depth_bound(res);
		if (res->intersecting && !(res->has & CLASH_HAS_DEPTH))
			rep->no_depth = open_side(res->solid_a, res->solid_b, "depth");
	}
	if (rep->asked & (PROTO_REPORT_REGIONS | PROTO_REPORT_VOLUME))
		err = overlap(q, caps, res, rep);
	if (err)
		proto_mesh_report_free(rep);
	return err;
}

void proto_mesh_report_free(proto_mesh_report *rep)
{
	clash_overlap_free(rep->overlap);
	memset(rep, 0, sizeof *rep);
}

static void point_list(proto_text *t, const double *x, size_t n)
{
	PROTO_TEXT_LIT(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			PROTO_TEXT_LIT(t, ",");
		proto_text_reals(t, x + 3 * i, 3);
	}
	PROTO_TEXT_LIT(t, "]");
}

static void index_list(proto_text *t, const uint32_t *x, size_t n)
{
	PROTO_TEXT_LIT(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			PROTO_TEXT_LIT(t, ",");
		proto_text_int(t, (long long)x[i]);
	}
	PROTO_TEXT_LIT(t, "]");
}

static const char *kind_name(int kind)
{
	return kind == CLASH_CONTACT_A_IN_B   ? "a_inside_b"
	       : kind == CLASH_CONTACT_B_IN_A ? "b_inside_a"
	                                      : "surfaces";
}

static void region_text(proto_text *t, const clash_overlap_region *g, int parts)
{
	PROTO_TEXT_LIT(t, "{\"kind\":\"");
	proto_text_put(t, kind_name(g->kind), strlen(kind_name(g->kind)));
	PROTO_TEXT_LIT(t, "\"");
	if (parts) {
		PROTO_TEXT_LIT(t, ",\"parts\":{\"a\":");
		proto_text_int(t, (long long)g->part_a);
		PROTO_TEXT_LIT(t, ",\"b\":");
		proto_text_int(t, (long long)g->part_b);
		PROTO_TEXT_LIT(t, "}");
	}
	PROTO_TEXT_LIT(t, ",\"box\":{\"min\":");
	proto_text_reals(t, g->lo, 3);
	PROTO_TEXT_LIT(t, ",\"max\":");
	proto_text_reals(t, g->hi, 3);
	PROTO_TEXT_LIT(t, "}");
	if (g->has_volume) {
		PROTO_TEXT_LIT(t, ",\"volume\":");
		proto_text_real(t, g->volume);
	}
	PROTO_TEXT_LIT(t, ",\"curve\":[");
	for (size_t i = 0; i < g->npolylines; i++) {
		if (i)
			PROTO_TEXT_LIT(t, ",");
		PROTO_TEXT_LIT(t, "{\"closed\":");
		if (g->closed[i])
			PROTO_TEXT_LIT(t, "true,\"points\":");
		else
			PROTO_TEXT_LIT(t, "false,\"points\":");
		const size_t from = g->polyline[i];
		point_list(t, g->points + 3 * from, g->polyline[i + 1] - from);
		PROTO_TEXT_LIT(t, "}");
	}
	PROTO_TEXT_LIT(t, "],\"triangles\":{\"a\":");
	index_list(t, g->triangles_a, g->ntriangles_a);
	PROTO_TEXT_LIT(t, ",\"b\":");
	index_list(t, g->triangles_b, g->ntriangles_b);
	PROTO_TEXT_LIT(t, ",\"a_total\":");
	proto_text_int(t, (long long)g->total_triangles_a);
	PROTO_TEXT_LIT(t, ",\"b_total\":");
	proto_text_int(t, (long long)g->total_triangles_b);
	PROTO_TEXT_LIT(t, "}}");
}

void proto_mesh_report_text(proto_text *t, const proto_mesh_report *rep)
{
	if (rep->no_depth) {
		PROTO_TEXT_LIT(t, ",\"no_depth\":");
		proto_text_string(t, rep->no_depth, strlen(rep->no_depth));
	}
	if (!(rep->asked & (PROTO_REPORT_REGIONS | PROTO_REPORT_VOLUME)))
		return;
	const clash_overlap *o = rep->overlap;
	PROTO_TEXT_LIT(t, ",\"overlap\":{");
	if (rep->no_volume) {
		PROTO_TEXT_LIT(t, "\"no_volume\":");
		proto_text_string(t, rep->no_volume, strlen(rep->no_volume));
	} else {
		PROTO_TEXT_LIT(t, "\"volume\":");
		proto_text_real(t, o && o->has_volume ? o->volume : 0.0);
	}
	if (rep->asked & PROTO_REPORT_REGIONS) {
		PROTO_TEXT_LIT(t, ",\"regions\":[");
		const int parts = rep->compound;
		for (size_t i = 0; o && i < o->nregions; i++) {
			if (i)
				PROTO_TEXT_LIT(t, ",");
			region_text(t, &o->regions[i], parts);
		}
		PROTO_TEXT_LIT(t, "]");
	}
	PROTO_TEXT_LIT(t, ",\"regions_total\":");
	proto_text_int(t, o ? (long long)o->total_regions : 0);
	if (o && o->truncated)
		PROTO_TEXT_LIT(t, ",\"truncated\":true}");
	else
		PROTO_TEXT_LIT(t, ",\"truncated\":false}");
}
