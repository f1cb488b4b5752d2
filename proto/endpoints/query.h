/*
 * query.h — decoding a parsed Query (openapi.yaml, components/schemas/Query)
 * into what the core needs.
 *
 * The decoder walks the jansson tree itself, keeping a proto_path of where it
 * is, so that the first value that breaks the contract is reported with its
 * JSON Pointer (json_unpack cannot do that: its error positions point into
 * its format string).  It checks everything the contract says, then hands
 * the values to the core's clash_shape_set_*() calls and maps each core
 * error to the value that caused it.
 */
#ifndef PROTO_QUERY_H
#define PROTO_QUERY_H

#include <jansson.h>

#include "clash.h"
#include "method.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "shape_id.h"
#include "store.h"
#include "units.h"
#include "vertex_table.h"

/* The clash report's parts a query's want names for a mesh pair
 * (proto_query.report; mesh_report.h runs them). */
enum proto_report {
	PROTO_REPORT_DEPTH = 1u << 0,   /* "depth": penetration of a mesh pair */
	PROTO_REPORT_REGIONS = 1u << 1, /* "regions": overlap.regions (and volume) */
	PROTO_REPORT_VOLUME = 1u << 2   /* "volume": overlap.volume */
};

/* Bounds of the options (openapi.yaml documents the same numbers). */
#define PROTO_MAX_ITERATIONS_LIMIT 100000

typedef struct proto_query {
	const proto_method *method;
	clash_shape a, b;
	double *vertices[2]; /* malloc'd, row-major; borrowed by a and b */
	/* Compound shapes ({"parts": [...]}): every parts array and every
	 * part's vertex array, malloc'd, borrowed by a and b. */
	void **owned;
	size_t nowned, owned_cap;
	clash_options opt; /* warm_a / warm_b / warm_plane point into the arrays below */
	size_t warm_a[CLASH_MAX_DIM + 1];
	size_t warm_b[CLASH_MAX_DIM + 1];
	double warm_plane[CLASH_MAX_DIM + 1]; /* normal, then offset */
	/* "pose_end" of a and b (rest when absent); moving when either has one. */
	clash_motion motion[2];
	int moving;
	/* Stored shapes named by "ref" (refs.h), held in `store` until
	 * proto_query_release: the shapes borrow their arrays. */
	proto_store *store;
	proto_store_entry **held;
	size_t nheld, held_cap;
	/* The meshes of a shape to store that had a "weld" member, and its
	 * value (the shape's id covers it). */
	proto_mesh_weld *welds;
	size_t nwelds, welds_cap;
	/* The clash report its want names for a mesh pair (PROTO_REPORT_*
	 * bits): none unless named. */
	unsigned report;
	/* The "units" its shapes (and stored shapes) named: one for all. */
	proto_units_seen units;
} proto_query;

/* Decode `root` (parsed with JSON_DECODE_INT_AS_REAL, so every number is a
 * real), with the vertex arrays read beside it (`vt`, or NULL: see
 * vertex_scan.h), into *q, refs resolved in ctx's store and meshes welded
 * by its weld (ctx NULL: proto_context_none, no store).
 * Returns 0; or 1 with a 422 problem in *p (an unknown-shape one listing
 * every missing id); or -1 when memory ran out.  Unless it returns 0, *q
 * holds nothing to release. */
int proto_query_decode(const json_t *root, const vertex_table *vt, const proto_context *ctx,
                       proto_query *q, proto_problem *p);

/* Free the vertex and parts arrays of a decoded query and let go of the
 * stored shapes it holds. */
void proto_query_release(proto_query *q);

/* Decoding the top-level shapes of one document other than a Query (the
 * objects of a Scene): they share the document's dimension, set by its
 * first point. */
typedef struct proto_shape_doc {
	int dim;                /* 0 until the first point */
	char first[128];        /* that point's JSON Pointer, for messages */
	proto_store *store;     /* where refs are found (NULL: nowhere) */
	const vertex_table *vt; /* the arrays read beside the tree, or NULL */
	int stored;             /* 1: a shape to store (POST /v1/shapes): no pose,
	                    pose_end or ref in it */
	double weld;            /* of a mesh without its own (proto_context.weld) */
} proto_shape_doc;

/* Decode one top-level Shape (openapi.yaml, components/schemas/Shape) at
 * `at` as the Query decoder decodes "a": every array it borrows is owned by
 * *owner (a zeroed proto_query used for nothing else; release it with
 * proto_query_release() whatever the result); its "pose_end", if any, goes
 * to *motion (left alone otherwise) and sets *moving.  Returns 0, 1 with a
 * 422 problem in *p, or -1 when memory ran out. */
int proto_shape_decode_in(const json_t *v, const proto_path *at, proto_query *owner,
                          proto_shape_doc *doc, clash_shape *s, clash_motion *motion, int *moving,
                          proto_problem *p);

/* Decode two Shapes (openapi.yaml, components/schemas/Shape), the members
 * name0 and name1 of a request other than a Query (e.g. "inner" and
 * "outer"), exactly as proto_query_decode() decodes "a" and "b": into q->a
 * and q->b, every allocation owned by *q (zeroed by the caller; release it
 * with proto_query_release() whatever the result), refs found and meshes
 * welded as ctx says (NULL: proto_context_none).  Returns 0, 1 with a 422
 * problem in *p, or -1 when memory ran out. */
int proto_shapes_decode(const json_t *v0, const char *name0, const json_t *v1, const char *name1,
                        const proto_context *ctx, proto_query *q, proto_problem *p);

#endif /* PROTO_QUERY_H */
