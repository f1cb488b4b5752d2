/*
 * result.c — the Result encoder.
 *
 * Only the members the method filled are written (clash_result.has).
 * Built as a jansson tree and dumped with JSON_REAL_PRECISION(17): 17
 * significant digits are enough for any double to read back identically, and
 * jansson writes the decimal point regardless of the process locale.  Member
 * order is fixed (jansson keeps insertion order), so replies are byte-for-byte
 * reproducible.
 */
#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_dump.h"
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

/* The same for the penetration depth members (CLASH_HAS_DEPTH). */
static const char *non_finite_depth(const clash_result *r)
{
	if (!r->intersecting || !(r->has & CLASH_HAS_DEPTH))
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

static void put(json_t *obj, const char *key, json_t *value, int *failed)
{
	if (!value || json_object_set_new(obj, key, value) != 0)
		*failed = 1;
}

static json_t *reals(const double *x, int n)
{
	json_t *a = json_array();
	for (int i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_real(x[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *indices(const size_t *x, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_integer((json_int_t)x[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* {"a": ..., "b": ...} from two values (taken over, even on failure). */
static json_t *pair(json_t *a, json_t *b)
{
	json_t *o = json_object();
	int failed = !o;
	if (o) {
		put(o, "a", a, &failed);
		put(o, "b", b, &failed);
	} else {
		json_decref(a);
		json_decref(b);
	}
	if (failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The members of a motion's answer: "toi" (null when there is no contact)
 * and, with a contact, "contact". */
static void put_motion(json_t *o, const clash_toi_result *t, int dim, int *failed)
{
	if (!t->contact) {
		put(o, "toi", json_null(), failed);
		return;
	}
	put(o, "toi", json_real(t->toi), failed);
	json_t *c = json_object();
	int cf = !c;
	if (c) {
		put(c, "point", reals(t->point, dim), &cf);
		if (t->has_normal)
			put(c, "normal", reals(t->normal, dim), &cf);
	}
	if (cf) {
		json_decref(c);
		c = NULL;
	}
	put(o, "contact", c, failed);
}

/* {"normal": [...], "offset": c}, or NULL when memory ran out. */
static json_t *plane_object(const clash_result *r)
{
	json_t *plane = json_object();
	int pf = !plane;
	if (plane) {
		put(plane, "normal", reals(r->normal, r->dim), &pf);
		put(plane, "offset", json_real(r->offset), &pf);
	}
	if (pf) {
		json_decref(plane);
		plane = NULL;
	}
	return plane;
}

static int encode(const clash_result *r, const char *method, const clash_toi_result *toi,
                  proto_reply *out, proto_problem *p)
{
	memset(out, 0, sizeof *out);
	assert(r->dim >= 1 && r->dim <= CLASH_MAX_DIM);
	assert(r->warm_count <= CLASH_MAX_DIM + 1);
	const char *bad = non_finite(r);
	if (!bad)
		bad = non_finite_depth(r);
	if (bad) {
		proto_problem_set(p, 500, NULL, "the answer has a non-finite %s; please report "
		                                "this query", bad);
		return 1;
	}
	json_t *o = json_object();
	if (!o)
		return -1;
	int failed = 0;
	put(o, "intersecting", json_boolean(r->intersecting), &failed);
	if (has_distance(r)) {
		put(o, "distance", json_real(r->distance), &failed);
		put(o, "near_points", pair(reals(r->near_a, r->dim), reals(r->near_b, r->dim)),
		    &failed);
	}
	/* Compound shapes: the top-level parts of the answer (0 for a side
	 * that is not compound). */
	if (r->has & CLASH_HAS_PARTS)
		put(o, "near_parts", pair(json_integer((json_int_t)r->part_a),
		                          json_integer((json_int_t)r->part_b)),
		    &failed);
	/* A compound answer has no plane when the nearest pair's plane does
	 * not separate the whole shapes. */
	if (has_plane(r)) {
		put(o, "separating_plane", plane_object(r), &failed);
	} else if (has_depth_bound(r)) {
		json_t *pen = json_object();
		int pf = !pen;
		if (pen)
			put(pen, "depth_lower_bound", json_real(r->depth_lower_bound), &pf);
		if (pen && (r->has & CLASH_HAS_DEPTH)) {
			put(pen, "depth", json_real(r->depth), &pf);
			put(pen, "normal", reals(r->depth_normal, r->dim), &pf);
			put(pen, "points", pair(reals(r->depth_a, r->dim), reals(r->depth_b, r->dim)), &pf);
		}
		if (pf) {
			json_decref(pen);
			pen = NULL;
		}
		put(o, "penetration", pen, &failed);
	}
	if (r->has & CLASH_HAS_DISTANCE_BOUND)
		put(o, "distance_lower_bound", json_real(r->distance_lower_bound), &failed);
	put(o, "method", json_string(method), &failed);
	put(o, "iterations", json_integer(r->iterations), &failed);
	put(o, "converged", json_boolean(r->converged && (!toi || toi->converged)), &failed);
	/* What a later query sends back: the final simplex's vertex indices
	 * (gjk), or else the separating plane (ipm, 2005 paper section 4.1).
	 * Compound answers have neither: compound queries take no warm start. */
	if (r->has & CLASH_HAS_WARM) {
		put(o, "warm",
		    pair(indices(r->warm_a, r->warm_count), indices(r->warm_b, r->warm_count)),
		    &failed);
	} else if (has_plane(r) && !(r->has & CLASH_HAS_PARTS)) {
		json_t *warm = json_object();
		if (warm)
			put(warm, "plane", plane_object(r), &failed);
		put(o, "warm", warm, &failed);
	}
	if (toi)
		put_motion(o, toi, r->dim, &failed);
	/* json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)), the same bytes
	 * without printf (json_dump.c). */
	size_t length = 0;
	char *body = failed ? NULL : proto_json_dump(o, &length);
	json_decref(o);
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
	return encode(r, method, NULL, out, p);
}

int proto_result_encode_motion(const clash_result *r, const char *method,
                               const clash_toi_result *toi, proto_reply *out, proto_problem *p)
{
	return encode(r, method, toi, out, p);
}
