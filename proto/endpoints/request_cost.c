/*
 * request_cost.c — the cost of a parsed request (request_cost.h).
 *
 * Judged on jansson's tree, so member names are what the decoder will see
 * (escapes resolved, "\u0063ylinder" is a cylinder), and before decoding,
 * so the judgement costs a walk over the shapes' objects (never their
 * points: vertex arrays are counted by length) and one look into the store
 * per ref (proto_store_peek: nothing held, nothing counted).  The walk is
 * generic, as the request limits' is (request_limits.c): a shape is any
 * object with geometry members, malformed ones included, so that whatever
 * the decoder would refuse costs no more than it says and whatever it
 * would run is counted.  Why here rather than on the raw text: a scan of
 * the text would have to resolve escapes, nesting and refs as the parser
 * and decoder do, a second decoder to keep in step; a small body parses in
 * microseconds, so parsing first and judging the tree is exact and cheap
 * (clashd judges bodies of 64 KiB and more heavy by their size alone).
 * The weights were measured on the core's worst cases: identical hulls,
 * all-overlapping compounds and scenes, near-coaxial cylinders, meshes.
 */
#include "request_cost.h"

#include <string.h>

#include "request_limits.h"
#include "shape_id.h"
#include "shape_primitive.h"
#include "store.h"
#include "stored_shape.h"

/* Reading a point (parse, hull, preparation). */
#define COST_VERTEX 1.0
/* A mesh triangle: its share of the tree's build and of a search. */
#define COST_TRIANGLE 2.0
/* A pair of convex parts (GJK), and each point its support scans see. */
#define COST_PAIR 2.0
#define COST_PAIR_POINT 0.05
/* A query's depth search across its two shapes, per point (EPA on two
 * identical hulls grows over all of them). */
#define COST_DEPTH_POINT 4.0
/* A scene's pair, per point of its two objects. */
#define COST_SCENE_POINT 0.3
/* A pair with a curved side at the core's default EPA cap (1024
 * expansions): near-coaxial cylinders take it all.  The time grows with
 * about the square of the cap (4096, the most a query may ask: 14x). */
#define COST_CURVED 10000.0
#define CURVED_CAP_DEFAULT 1024.0
#define CURVED_CAP_MAX 4096.0
/* A containment: each inner point placed against the outer shape, per
 * outer point, and per curved outer part. */
#define COST_CONTAINS_POINT 2.0
#define COST_CONTAINS_OUTER_POINT 0.02
#define COST_CONTAINS_CURVED 20.0
/* A mesh pair's clash report (want "regions", "volume"; "depth"), per
 * triangle of the two sides: the crossing pairs and the classification
 * of every triangle; the depth's search over directions. */
#define COST_REPORT_TRIANGLE 4.0
#define COST_DEPTH_TRIANGLE 40.0
/* A motion (pose_end): the time of impact takes several searches. */
#define COST_MOTION_STEPS 16.0
/* A scene's narrow phase sees at most this many candidate pairs
 * (scene.c's PROTO_SCENE_MAX_CANDIDATES). */
#define SCENE_MAX_PAIRS 200000.0

/* What a shape holds, all its parts together. */
typedef struct shape_size {
	double vertices;  /* points of convex parts and corners of meshes */
	double triangles; /* of meshes */
	double leaves;    /* convex parts, primitives and meshes */
	double curved;    /* of the leaves, the curved primitives */
	int moving;       /* a "pose_end" */
} shape_size;

static void stored_size(const void *value, void *arg)
{
	const stored_shape *st = value;
	shape_size *z = arg;
	z->vertices += (double)st->vertices;
	z->triangles += (double)st->triangles;
	z->leaves += (double)st->leaves;
	z->curved += (double)st->curved;
}

/* A sphere or capsule is a grown point or segment (cheap) unless a
 * matrix pose, its own or an enclosing shape's, may scale it unevenly;
 * a box is a polytope; the others are curved. */
static int curved(const char *prim, int matrix)
{
	if (strcmp(prim, "box") == 0)
		return 0;
	if (strcmp(prim, "sphere") == 0 || strcmp(prim, "capsule") == 0)
		return matrix;
	return 1;
}

static double array_size(const json_t *v, const vertex_table *vt)
{
	const vertex_array *read = proto_vertex_lookup(vt, v);
	if (read)
		return (double)read->n;
	return json_is_array(v) ? (double)json_array_size(v) : 0;
}

/* Add what shape object v holds to *z.  `matrix`: an enclosing pose has one. */
static void shape_walk(const json_t *v, const vertex_table *vt, proto_store *store, int matrix,
                       shape_size *z)
{
	if (!json_is_object(v))
		return;
	const json_t *pose = json_object_get(v, "pose");
	matrix |= json_is_object(pose) && json_object_get(pose, "matrix") != NULL;
	z->moving |= json_object_get(v, "pose_end") != NULL;
	const char *prim = proto_primitive_key(v, NULL);
	if (prim) {
		z->leaves++;
		z->curved += curved(prim, matrix);
	}
	const char *member;
	size_t points = proto_limits_points(v, vt, &member);
	if (member) {
		z->leaves++;
		z->vertices += (double)points;
	}
	const json_t *mesh = json_object_get(v, "mesh");
	if (json_is_object(mesh)) {
		double corners = array_size(json_object_get(mesh, "positions"), vt) / 3;
		const json_t *indices = json_object_get(mesh, "indices");
		z->leaves++;
		z->vertices += corners;
		z->triangles += (indices ? array_size(indices, vt) : corners) / 3;
	}
	const json_t *ref = json_object_get(v, "ref");
	uint8_t id[PROTO_SHAPE_ID_BYTES];
	if (store && json_is_string(ref) &&
	    proto_shape_id_parse(json_string_value(ref), json_string_length(ref), id) == 0)
		proto_store_peek(store, id, stored_size, z);
	const json_t *parts = json_object_get(v, "parts");
	for (size_t i = 0; json_is_array(parts) && i < json_array_size(parts); i++)
		shape_walk(json_array_get(parts, i), vt, store, matrix, z);
}

static shape_size size_of(const proto_request *rq, const json_t *shape)
{
	shape_size z = {0};
	shape_walk(shape, rq->vt, rq->ctx->store, 0, &z);
	return z;
}

/* Reading and building a shape. */
static double own(const shape_size *z)
{
	return COST_VERTEX * z->vertices + COST_TRIANGLE * z->triangles;
}

/* A pair with a curved side under the query's "max_iterations" (the
 * core's EPA cap when it is set). */
static double curved_pair(const json_t *max_iterations)
{
	double cap = CURVED_CAP_DEFAULT;
	if (json_is_number(max_iterations)) {
		double x = json_number_value(max_iterations);
		cap = x >= 1 ? (x < CURVED_CAP_MAX ? x : CURVED_CAP_MAX) : cap;
	}
	double c = COST_CURVED * (cap / CURVED_CAP_DEFAULT) * (cap / CURVED_CAP_DEFAULT);
	return c > COST_PAIR ? c : COST_PAIR;
}

/* Whether the want array `want` names `name`. */
static int names(const json_t *want, const char *name)
{
	size_t i;
	const json_t *v;
	json_array_foreach(want, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

/* The clash report a query's want asks of its meshes (mesh_report.h). */
static double report(const json_t *want, double triangles)
{
	if (triangles == 0 || !json_is_array(want))
		return 0;
	double per = names(want, "depth") ? COST_DEPTH_TRIANGLE : 0;
	if (names(want, "regions") || names(want, "volume"))
		per += COST_REPORT_TRIANGLE;
	return per * triangles;
}

double proto_cost_query(const proto_request *rq)
{
	const json_t *root = rq->root;
	shape_size a = size_of(rq, json_object_get(root, "a"));
	shape_size b = size_of(rq, json_object_get(root, "b"));
	double pairs = a.leaves * b.leaves;
	double curved_pairs = a.curved * b.leaves + a.leaves * b.curved - a.curved * b.curved;
	double search = (pairs - curved_pairs) * COST_PAIR +
	                curved_pairs * curved_pair(json_object_get(root, "max_iterations")) +
	                COST_PAIR_POINT * (b.leaves * a.vertices + a.leaves * b.vertices) +
	                COST_DEPTH_POINT * (a.vertices + b.vertices) +
	                COST_TRIANGLE * (a.triangles + b.triangles) +
	                report(json_object_get(root, "want"), a.triangles + b.triangles);
	if (a.moving || b.moving)
		search *= COST_MOTION_STEPS;
	return own(&a) + own(&b) + search;
}

double proto_cost_contains(const proto_request *rq)
{
	shape_size in = size_of(rq, json_object_get(rq->root, "inner"));
	shape_size out = size_of(rq, json_object_get(rq->root, "outer"));
	double per_point = COST_CONTAINS_POINT + COST_CONTAINS_OUTER_POINT * out.vertices +
	                   COST_CONTAINS_CURVED * out.curved + COST_TRIANGLE * out.triangles;
	return own(&in) + own(&out) + in.vertices * per_point + in.leaves * out.leaves * COST_PAIR;
}

double proto_cost_scene(const proto_request *rq)
{
	const json_t *objects = json_object_get(rq->root, "objects");
	size_t n = json_is_array(objects) ? json_array_size(objects) : 0;
	/* Sums over the objects, so that the pairs are counted in one pass:
	 * the pairs of leaves of different objects are (L^2 - sum L_i^2) / 2. */
	double total = 0, leaves = 0, leaves2 = 0, flat = 0, flat2 = 0, vertices = 0, triangles = 0;
	for (size_t i = 0; i < n; i++) {
		shape_size z = size_of(rq, json_object_get(json_array_get(objects, i), "shape"));
		total += own(&z);
		leaves += z.leaves;
		leaves2 += z.leaves * z.leaves;
		flat += z.leaves - z.curved;
		flat2 += (z.leaves - z.curved) * (z.leaves - z.curved);
		vertices += z.vertices;
		triangles += z.triangles;
	}
	if (n < 2)
		return total;
	double all = (leaves * leaves - leaves2) / 2, flat_pairs = (flat * flat - flat2) / 2;
	double others = (double)n - 1, object_pairs = (double)n * others / 2;
	double pairs = flat_pairs * COST_PAIR + (all - flat_pairs) * COST_CURVED +
	               others * (COST_SCENE_POINT * vertices + COST_TRIANGLE * triangles);
	/* The narrow phase stops at its candidate limit. */
	if (object_pairs > SCENE_MAX_PAIRS)
		pairs *= SCENE_MAX_PAIRS / object_pairs;
	return total + pairs;
}

double proto_cost_upload(const proto_request *rq)
{
	shape_size z = size_of(rq, rq->root);
	return own(&z);
}
