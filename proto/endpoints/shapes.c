/*
 * shapes.c — the shape store's routes: POST /v1/shapes (upload) and GET,
 * HEAD and DELETE /v1/shapes/{id} (openapi.yaml, ShapeSummary).
 *
 * An upload is a request like a query: parsed under the context's limits
 * (vertex arrays read beside the tree, vertex_scan.h), its Shape decoded
 * by the Query's own decoder with pose, pose_end and ref refused (so every
 * rule and pointer is a query's), then built into a stored shape (its id;
 * its preparations are made on first use: stored_shape.h) and put in the
 * store (proto_shape_store, shapes.h: a mesh file's import stores its
 * shapes through it too).  The same geometry always gives the same id, so
 * a second upload finds the first (200) and its copy is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "endpoint.h"
#include "request_cost.h"
#include "proto.h"
#include "query.h"
#include "shape_id.h"
#include "shape_tier.h"
#include "shapes.h"
#include "store.h"
#include "mesh_reading.h"
#include "stored_shape.h"
#include "vertex_scan.h"

json_t *proto_shape_summary(const stored_shape *st)
{
	char id[PROTO_PROBLEM_ID_SIZE];
	proto_shape_id_format(st->id, id);
	long long h = proto_stored_shape_hull(st); /* -1: not prepared yet */
	json_t *hull = h > 0 ? json_integer((json_int_t)h) : json_null();
	json_t *o = json_pack("{s:s, s:i, s:I, s:o, s:I, s:I}", "id", id, "dim", st->shape.dim,
	                      "vertices", (json_int_t)st->vertices, "hull_vertices", hull, "parts",
	                      (json_int_t)st->shape.nparts, "bytes",
	                      (json_int_t)atomic_load(&((stored_shape *)st)->bytes));
	const char *units = proto_units_name(st->units);
	if (o && units && json_object_set_new(o, "units", json_string(units))) {
		json_decref(o);
		return NULL;
	}
	if (o && st->meshes &&
	    (json_object_set_new(o, "triangles", json_integer((json_int_t)st->triangles)) ||
	     json_object_set_new(o, "solid", json_boolean(st->solid_meshes == st->meshes)) ||
	     json_object_set_new(o, "read", proto_mesh_reading_json(&st->shape)))) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

static int summary(const stored_shape *st, int status, proto_reply *out)
{
	json_t *o = proto_shape_summary(st);
	char *body = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return proto_reply_json(out, status, body, body ? strlen(body) : 0);
}

int proto_shape_store(const json_t *root, const vertex_table *vt, const proto_context *ctx,
                      const uint8_t *client, proto_store_entry **held, int *created,
                      proto_problem *p)
{
	proto_store *store = ctx->store;
	proto_query owner;
	memset(&owner, 0, sizeof owner);
	proto_shape_doc doc = {.vt = vt, .stored = 1, .weld = ctx->weld};
	clash_shape s;
	int r = proto_shape_decode_in(root, NULL, &owner, &doc, &s, NULL, NULL, p);
	stored_shape *st = NULL;
	if (r == 0 && proto_stored_shape_build(&s, &owner.owned, &owner.nowned, owner.welds,
	                                       owner.nwelds, owner.units.units, &st) != 0)
		r = -1;
	if (!owner.owned) /* passed to the stored shape */
		owner.owned_cap = 0;
	proto_query_release(&owner);
	if (r)
		return r;
	size_t bytes = atomic_load(&st->bytes);
	*created = 0;
	*held = proto_store_put(store, st->id, client, st, bytes, proto_stored_shape_free, created);
	if (*created == -1 || *created == -3) {
		proto_problem_set(
			p, 413, strdup(""), "this shape takes %zu bytes, more than %s", bytes,
			*created == -1 ? "the whole shape store holds (--shape-store)"
			: proto_store_scope(store)
				? "one tenant may keep in the shape store "
				  "(--store-per-tenant)"
				: "one client may keep in the shape store (--store-per-client)");
		return p->pointer ? 1 : -1;
	}
	if (!*held)
		return -1;
	/* Written through even when it was here: the tier may have lost it
	 * (evicted, restarted), and a client uploads again when some replica
	 * told it the shape is unknown. */
	if (proto_shape_write_through(store, *held) != 0) {
		proto_store_release(store, *held);
		*held = NULL;
		return -1;
	}
	return 0;
}

/* Decode and store the shape of a parsed upload. */
static int put(proto_request *rq, proto_reply *out, proto_problem *p)
{
	proto_store *store = rq->ctx->store;
	proto_store_entry *e;
	int created;
	int r = proto_shape_store(rq->root, rq->vt, rq->ctx, rq->call->client, &e, &created, p);
	if (r)
		return r;
	r = summary(proto_store_value(e), created ? 201 : 200, out);
	proto_store_release(store, e);
	return r;
}

/* An upload is parsed as a Query is (vertex arrays beside the tree). */
static const proto_endpoint upload = {"a shape, a JSON object", PROTO_PARSE_QUERY, 1, put,
                                      proto_cost_upload};

int proto_shape_put_reply(const char *body, size_t len, proto_call *call, proto_reply *out)
{
	return proto_endpoint_reply(&upload, body, len, call, NULL, out);
}

static int shape_reply(const proto_context *ctx, const char *method, const char *id, int through,
                       proto_reply *out)
{
	memset(out, 0, sizeof *out);
	uint8_t key[PROTO_SHAPE_ID_BYTES];
	if (proto_shape_id_parse(id, strlen(id), key) != 0)
		return proto_problem_reply(404,
		                           "no shape here: a shape's path is /v1/shapes/ and its "
		                           "id, \"sha256:\" and 64 lowercase hex digits",
		                           NULL, out);
	if (strcmp(method, "DELETE") == 0) {
		/* From the shared tier too (in the background, which also tells
		 * the other replicas), even when this replica's memory does not
		 * hold it; memory first, so that what the tier then tells this
		 * replica finds nothing left to remove. */
		int found = ctx->store && proto_store_remove(ctx->store, key) == 0;
		if (ctx->store)
			proto_shape_forget(ctx->store, key);
		if (!found)
			return proto_problem_reply(404, "no shape with this id is stored here",
			                           NULL, out);
		out->body = strdup("");
		if (!out->body)
			return -1;
		out->status = 204;
		out->content_type = PROTO_JSON;
		return 0;
	}
	proto_store_entry *e = !ctx->store ? NULL
	                       : through   ? proto_shape_acquire(ctx->store, key)
	                                   : proto_store_acquire(ctx->store, key);
	if (!e)
		return proto_problem_reply(404, "no shape with this id is stored here", NULL, out);
	int r = summary(proto_store_value(e), 200, out);
	proto_store_release(ctx->store, e);
	return r;
}

int proto_shape_reply(const proto_context *ctx, const char *method, const char *id,
                      proto_reply *out)
{
	return shape_reply(ctx, method, id, 0, out);
}

int proto_shape_reply_through(const proto_context *ctx, const char *method, const char *id,
                              proto_reply *out)
{
	return shape_reply(ctx, method, id, 1, out);
}
