/*
 * shape_import.c — POST /v1/shapes with a mesh file (openapi.yaml,
 * ImportResult): the file read as `clash import` reads it (mesh_import.h),
 * then each shape's geometry written as its StoredShape text (mesh_doc.h)
 * and stored exactly as an upload of that text would be (parsed under the
 * context's limits, shapes.h), so its id is the id of the same JSON upload.
 * The answer lists, in the file's order, each shape's name, id and pose
 * with its ShapeSummary: 201 when some shape was new, 200 when all were
 * there.  A problem with one shape's geometry names it in the import
 * document ("/shapes/3/mesh/indices/7"); the cancel flag is looked at
 * before the file is read and between shapes.  A "weld" query parameter
 * is written into each shape's text as its mesh's "weld", a "units" one
 * as its "units" (so the id is that of the same JSON upload with them);
 * the units are echoed beside the shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "endpoint.h"
#include "json_dump.h"
#include "mesh_doc.h"
#include "mesh_import.h"
#include "proto.h"
#include "shapes.h"
#include "units.h"
#include "vertex_scan.h"

int proto_media_is_mesh(const char *content_type)
{
	return proto_mesh_format_of_media(content_type) != PROTO_MESH_NONE;
}

/* Shape i's problem, named in the import document. */
static int placed(proto_problem *p, size_t i)
{
	if (!p->pointer)
		return 1;
	char prefix[32];
	int n = snprintf(prefix, sizeof prefix, "/shapes/%zu", i);
	return proto_problem_prefix(p, prefix, (size_t)n) == 0 ? 1 : -1;
}

/* What the request says beside the file: its media type and its "weld"
 * and "units" query parameters (NULL: none). */
typedef struct import_options {
	const char *media, *weld, *units;
} import_options;

/* The "units" query parameter's unit: 0 and *out, or 1 (a 422 at
 * "/units", where a JSON upload names them) or -1. */
static int units_parameter(const char *text, int *out, proto_problem *p)
{
	*out = proto_units_of_name(text);
	if (*out)
		return 0;
	/* Echoed only when short and plain: it came from a URL. */
	int plain = strlen(text) <= 16;
	for (const char *c = text; plain && *c; c++)
		plain = *c > ' ' && *c < 0x7f && *c != '"' && *c != '\\';
	const proto_path at = {NULL, "units", 0};
	return proto_fail(p, &at,
	                  "the query parameter units must be one of \"mm\", \"cm\", \"m\" "
	                  "and \"in\" (a label each stored shape keeps, as a JSON upload's "
	                  "\"units\"; clashd converts no units)%s%s%s",
	                  plain ? ", got \"" : "", plain ? text : "", plain ? "\"" : "");
}

/* Store shape s (with "weld": *weld when not NULL, "units" when units is
 * not NULL); its entry of the answer in *item.  0, 1 or -1. */
static int store_one(const proto_mesh_shape *s, const double *weld, const char *units, size_t i,
                     proto_call *call, json_t **item, int *created, proto_problem *p)
{
	const proto_context *ctx = proto_context_of(call);
	size_t len;
	char *text = proto_mesh_geometry_text(s, weld, units, &len);
	if (!text)
		return -1;
	json_t *root = NULL;
	vertex_table *vt = NULL;
	int r = proto_parse_query_text(text, len, ctx, &root, p, &call->limit, &vt);
	proto_store_entry *e = NULL;
	if (r == 0)
		r = proto_shape_store(root, vt, ctx, call->client, &e, created, p);
	proto_vertex_table_free(vt);
	json_decref(root);
	free(text);
	if (r == 1)
		return placed(p, i);
	if (r)
		return r;
	json_t *summary = proto_shape_summary(proto_store_value(e));
	proto_store_release(ctx->store, e);
	json_t *matrix = json_array();
	for (int k = 0; matrix && k < 16; k++)
		if (json_array_append_new(matrix, json_real(s->matrix[k])) != 0)
			json_decref(matrix), matrix = NULL;
	json_t *o = summary && matrix
	                    ? json_pack("{s:s, s:O, s:{s:o}}", "name", s->name, "id",
	                                json_object_get(summary, "id"), "pose", "matrix", matrix)
	                    : (json_decref(matrix), NULL);
	if (o && json_object_del(summary, "id") == 0 && json_object_update(o, summary) == 0) {
		json_decref(summary);
		*item = o;
		return 0;
	}
	json_decref(summary);
	json_decref(o);
	return -1;
}

/* The mesh file read (its media type in rq->self), each shape stored. */
static int import_all(proto_request *rq, proto_reply *out, proto_problem *p)
{
	proto_call *call = rq->call;
	const proto_context *ctx = rq->ctx;
	const import_options *o = rq->self;
	double weld;
	if (o->weld && proto_weld_parse(o->weld, &weld) != 0)
		return proto_problem_whole(p,
		                           "the query parameter weld must be a decimal number of "
		                           "at least 0 (a fraction of each mesh's box diagonal; 0: "
		                           "only vertices of equal coordinates)");
	int units = PROTO_UNITS_NONE;
	int r = o->units ? units_parameter(o->units, &units, p) : 0;
	if (r)
		return r;
	const char *unit_name = proto_units_name(units);
	if (proto_request_stopped(rq, "import", p))
		return 1;
	proto_mesh_set set;
	proto_mesh_format f = proto_mesh_format_of_media(o->media);
	const proto_importer *im = &ctx->importer;
	r = im->run ? im->run(im->self, rq->body, rq->len, (int)f, &ctx->limits, call->cancel, &set,
	                      p, &call->limit)
	            : proto_mesh_import(rq->body, rq->len, f, &ctx->limits, &set, p, &call->limit);
	if (r > 0 && proto_request_stopped(rq, "import", p))
		return 1;
	if (r)
		return r;
	json_t *shapes = json_array();
	int any = 0;
	r = shapes ? 0 : -1;
	for (size_t i = 0; r == 0 && i < set.n; i++) {
		json_t *item = NULL;
		int created = 0;
		r = proto_request_stopped(rq, "import", p);
		if (r == 0)
			r = store_one(&set.shapes[i], o->weld ? &weld : NULL, unit_name, i, call,
			              &item, &created, p);
		if (r == 0 && json_array_append_new(shapes, item) != 0)
			r = -1;
		any |= created;
	}
	proto_mesh_set_free(&set);
	json_t *doc = r == 0 ? json_pack("{s:o}", "shapes", shapes) : (json_decref(shapes), NULL);
	if (doc && unit_name && json_object_set_new(doc, "units", json_string(unit_name)) != 0)
		r = -1;
	if (r == 0) {
		size_t len = 0;
		char *body = doc ? proto_json_dump(doc, &len) : NULL;
		r = proto_reply_json(out, any ? 201 : 200, body, len);
	}
	json_decref(doc);
	return r;
}

/* The file is read by the mesh importer, not parsed as JSON; the cancel
 * flag is looked at before it is read and between shapes. */
static const proto_endpoint import_endpoint = {NULL, PROTO_PARSE_NONE, 1, import_all, NULL};

int proto_shape_import_reply(const char *body, size_t len, const char *content_type,
                             const char *weld, const char *units, proto_call *call,
                             proto_reply *out)
{
	import_options o = {content_type, weld, units};
	return proto_endpoint_reply(&import_endpoint, body, len, call, &o, out);
}
