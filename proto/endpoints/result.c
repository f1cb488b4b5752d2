/*
 * result.c — the Result encoder.
 *
 * Only the members the method filled are written (clash_result.has).
 * Written straight as text (json_write.c), the bytes json_dumps(tree,
 * JSON_COMPACT | JSON_REAL_PRECISION(17)) gives for the tree of the same
 * members: 17 significant digits are enough for any double to read back
 * identically, and the decimal point is written regardless of the process
 * locale.  Member order is fixed, so replies are byte-for-byte
 * reproducible.  Why no tree: building and freeing a jansson tree of a
 * few dozen values was a third of answering a small query (the suite
 * "encode_as_jansson" checks the text against that tree's dump on random
 * answers).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "json_write.h"
#include "mesh_reading.h"
#include "mesh_report.h"
#include "result.h"

/* Which members are written: those the method filled (clash_result.has). */
static int has_distance(const clash_result *r)
{
	return (r->has & CLASH_HAS_DISTANCE) != 0;
}

static int has_plane(const clash_result *r)
{
	return !r->intersecting && (r->has & CLASH_HAS_PLANE);
}

static int has_depth_bound(const clash_result *r)
{
	return r->intersecting && (r->has & CLASH_HAS_DEPTH_BOUND);
}

/* The member name of the first non-finite value of the answer, or NULL. */
static const char *non_finite(const clash_result *r)
{
	for (int i = 0; i < r->dim; i++) {
		if (has_distance(r) && (!isfinite(r->near_a[i]) || !isfinite(r->near_b[i])))
			return "near_points";
		if (has_plane(r) && !isfinite(r->normal[i]))
			return "separating_plane.normal";
	}
	if (has_distance(r) && !isfinite(r->distance))
		return "distance";
	if (has_plane(r) && !isfinite(r->offset))
		return "separating_plane.offset";
	if (has_depth_bound(r) && !isfinite(r->depth_lower_bound))
		return "penetration.depth_lower_bound";
	if ((r->has & CLASH_HAS_DISTANCE_BOUND) && !isfinite(r->distance_lower_bound))
		return "distance_lower_bound";
	return NULL;
}

/* The same for the penetration depth members (CLASH_HAS_DEPTH, or the
 * deepest pair's: CLASH_HAS_PAIR_DEPTH). */
static const char *non_finite_depth(const clash_result *r)
{
	if (!r->intersecting || !(r->has & (CLASH_HAS_DEPTH | CLASH_HAS_PAIR_DEPTH)))
		return NULL;
	if (!isfinite(r->depth))
		return "penetration.depth";
	for (int i = 0; i < r->dim; i++) {
		if (!isfinite(r->depth_normal[i]))
			return "penetration.normal";
		if (!isfinite(r->depth_a[i]) || !isfinite(r->depth_b[i]))
			return "penetration.points";
	}
	return NULL;
}

static void indices(proto_text *t, const size_t *x, size_t n)
{
	proto_text_put(t, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			proto_text_put(t, ",", 1);
		proto_text_int(t, (long long)x[i]);
	}
	proto_text_put(t, "]", 1);
}

/* {"a":[...],"b":[...]} */
static void real_pair(proto_text *t, const double *a, const double *b, int n)
{
	PROTO_TEXT_LIT(t, "{\"a\":");
	proto_text_reals(t, a, n);
	PROTO_TEXT_LIT(t, ",\"b\":");
	proto_text_reals(t, b, n);
	PROTO_TEXT_LIT(t, "}");
}

/* "depth":d,"normal":[...],"points":{...}: the exact depth of convex
 * shapes, or of the deepest pair of parts of compound ones. */
static void depth_members(proto_text *t, const clash_result *r)
{
	PROTO_TEXT_LIT(t, "\"depth\":");
	proto_text_real(t, r->depth);
	PROTO_TEXT_LIT(t, ",\"normal\":");
	proto_text_reals(t, r->depth_normal, r->dim);
	PROTO_TEXT_LIT(t, ",\"points\":");
	real_pair(t, r->depth_a, r->depth_b, r->dim);
}

/* {"normal":[...],"offset":c} */
static void plane_object(proto_text *t, const clash_result *r)
{
	PROTO_TEXT_LIT(t, "{\"normal\":");
	proto_text_reals(t, r->normal, r->dim);
	PROTO_TEXT_LIT(t, ",\"offset\":");
	proto_text_real(t, r->offset);
	PROTO_TEXT_LIT(t, "}");
}

static int all_finite(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

int proto_result_motion(proto_text *t, const clash_toi_result *m, int dim)
{
	if (!m->contact) {
		PROTO_TEXT_LIT(t, ",\"toi\":null");
		return 0;
	}
	if (!isfinite(m->toi) || !all_finite(m->point, dim) ||
	    (m->has_normal && !all_finite(m->normal, dim)))
		return -1;
	PROTO_TEXT_LIT(t, ",\"toi\":");
	proto_text_real(t, m->toi);
	PROTO_TEXT_LIT(t, ",\"contact\":{\"point\":");
	proto_text_reals(t, m->point, dim);
	if (m->has_normal) {
		PROTO_TEXT_LIT(t, ",\"normal\":");
		proto_text_reals(t, m->normal, dim);
	}
	PROTO_TEXT_LIT(t, "}");
	return 0;
}

/* The first block of the text: a small pair's Result (about 400 bytes in
 * 3-D) fits, and glibc serves blocks under 1 KiB from its per-thread
 * cache (a larger first block made it sort its free lists on every
 * reply); a larger Result grows the text. */
#define RESULT_ROOM 1000

static int encode(const clash_result *r, const char *method, const proto_result_more *more,
                  proto_reply *out, proto_problem *p)
{
	const clash_toi_result *toi = more->toi;
	const clash_shape *a = more->a, *b = more->b;
	memset(out, 0, sizeof *out);
	assert(r->dim >= 1 && r->dim <= CLASH_MAX_DIM);
	assert(r->warm_count <= CLASH_MAX_DIM + 1);
	const char *bad = non_finite(r);
	if (!bad)
		bad = non_finite_depth(r);
	if (bad) {
		proto_problem_set(p, 500, NULL,
		                  "the answer has a non-finite %s; please report "
		                  "this query",
		                  bad);
		return 1;
	}
	proto_text t = {0};
	if (proto_text_reserve(&t, RESULT_ROOM) != 0)
		return -1;
	if (r->intersecting)
		PROTO_TEXT_LIT(&t, "{\"intersecting\":true");
	else
		PROTO_TEXT_LIT(&t, "{\"intersecting\":false");
	if (has_distance(r)) {
		PROTO_TEXT_LIT(&t, ",\"distance\":");
		proto_text_real(&t, r->distance);
		PROTO_TEXT_LIT(&t, ",\"near_points\":");
		real_pair(&t, r->near_a, r->near_b, r->dim);
	}
	/* Compound shapes: the top-level parts of the answer (0 for a side
	 * that is not compound). */
	if (r->has & CLASH_HAS_PARTS) {
		PROTO_TEXT_LIT(&t, ",\"near_parts\":{\"a\":");
		proto_text_int(&t, (long long)r->part_a);
		PROTO_TEXT_LIT(&t, ",\"b\":");
		proto_text_int(&t, (long long)r->part_b);
		PROTO_TEXT_LIT(&t, "}");
	}
	/* Meshes: which side is a solid (a convex shape is one; a mesh is
	 * when it encloses something) and, when they meet, how
	 * ("intersection": "contact" is a motion's). */
	if (r->has & CLASH_HAS_MESH) {
		PROTO_TEXT_LIT(&t, ",\"solid\":{\"a\":");
		proto_text_put(&t, r->solid_a ? "true" : "false", r->solid_a ? 4 : 5);
		PROTO_TEXT_LIT(&t, ",\"b\":");
		proto_text_put(&t, r->solid_b ? "true" : "false", r->solid_b ? 4 : 5);
		PROTO_TEXT_LIT(&t, "}");
		if (a && b) {
			PROTO_TEXT_LIT(&t, ",\"read\":{\"a\":");
			proto_mesh_reading_text(&t, a);
			PROTO_TEXT_LIT(&t, ",\"b\":");
			proto_mesh_reading_text(&t, b);
			PROTO_TEXT_LIT(&t, "}");
		}
		if (r->intersecting && r->contact == CLASH_CONTACT_SURFACES)
			PROTO_TEXT_LIT(&t, ",\"intersection\":\"surfaces\"");
		else if (r->intersecting && r->contact == CLASH_CONTACT_A_IN_B)
			PROTO_TEXT_LIT(&t, ",\"intersection\":\"a_inside_b\"");
		else if (r->intersecting && r->contact == CLASH_CONTACT_B_IN_A)
			PROTO_TEXT_LIT(&t, ",\"intersection\":\"b_inside_a\"");
	}
	/* A compound answer has no plane when the nearest pair's plane does
	 * not separate the whole shapes. */
	if (has_plane(r)) {
		PROTO_TEXT_LIT(&t, ",\"separating_plane\":");
		plane_object(&t, r);
	} else if (has_depth_bound(r)) {
		PROTO_TEXT_LIT(&t, ",\"penetration\":{\"depth_lower_bound\":");
		proto_text_real(&t, r->depth_lower_bound);
		if (r->has & CLASH_HAS_DEPTH) {
			PROTO_TEXT_LIT(&t, ",");
			depth_members(&t, r);
		} else if (r->has & CLASH_HAS_PAIR_DEPTH) {
			PROTO_TEXT_LIT(&t, ",\"deepest_pair\":{");
			depth_members(&t, r);
			PROTO_TEXT_LIT(&t, "}");
		}
		PROTO_TEXT_LIT(&t, "}");
	}
	if (more->report)
		proto_mesh_report_text(&t, more->report);
	if (r->has & CLASH_HAS_DISTANCE_BOUND) {
		PROTO_TEXT_LIT(&t, ",\"distance_lower_bound\":");
		proto_text_real(&t, r->distance_lower_bound);
	}
	PROTO_TEXT_LIT(&t, ",\"method\":");
	proto_text_string(&t, method, strlen(method));
	PROTO_TEXT_LIT(&t, ",\"iterations\":");
	proto_text_int(&t, r->iterations);
	if (r->converged && (!toi || toi->converged))
		PROTO_TEXT_LIT(&t, ",\"converged\":true");
	else
		PROTO_TEXT_LIT(&t, ",\"converged\":false");
	/* What a later query sends back: the final simplex's vertex indices
	 * (gjk), or else the separating plane (ipm, 2005 paper section 4.1).
	 * Compound answers have neither: compound queries take no warm start. */
	if (r->has & CLASH_HAS_WARM) {
		PROTO_TEXT_LIT(&t, ",\"warm\":{\"a\":");
		indices(&t, r->warm_a, r->warm_count);
		PROTO_TEXT_LIT(&t, ",\"b\":");
		indices(&t, r->warm_b, r->warm_count);
		PROTO_TEXT_LIT(&t, "}");
	} else if (has_plane(r) && !(r->has & CLASH_HAS_PARTS)) {
		PROTO_TEXT_LIT(&t, ",\"warm\":{\"plane\":");
		plane_object(&t, r);
		PROTO_TEXT_LIT(&t, "}");
	}
	if (more->units) {
		PROTO_TEXT_LIT(&t, ",\"units\":");
		proto_text_string(&t, more->units, strlen(more->units));
	}
	if (toi && proto_result_motion(&t, toi, r->dim) != 0)
		t.failed = 1;
	PROTO_TEXT_LIT(&t, "}");
	size_t length = 0;
	char *body = proto_text_finish(&t, &length);
	if (!body)
		return -1;
	out->status = 200;
	out->content_type = PROTO_JSON;
	out->body = body;
	out->length = length;
	return 0;
}

int proto_result_encode(const clash_result *r, const char *method, proto_reply *out,
                        proto_problem *p)
{
	return encode(r, method, &(proto_result_more){0}, out, p);
}

int proto_result_encode_motion(const clash_result *r, const char *method,
                               const clash_toi_result *toi, proto_reply *out, proto_problem *p)
{
	return encode(r, method, &(proto_result_more){.toi = toi}, out, p);
}

int proto_result_encode_more(const clash_result *r, const char *method,
                             const proto_result_more *more, proto_reply *out, proto_problem *p)
{
	return encode(r, method, more, out, p);
}
