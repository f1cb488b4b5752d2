/*
 * mesh_doc.c — imported meshes as JSON text (mesh_doc.h), written piece by
 * piece (proto_text): a mesh of a million vertices never becomes a jansson
 * tree.
 */
#include "mesh_doc.h"

#include <string.h>

#include "json_write.h"

static void put_geometry(proto_text *t, const proto_mesh_shape *s, const double *weld)
{
	PROTO_TEXT_LIT(t, "{\"positions\":[");
	for (size_t i = 0; i < 3 * s->n; i++) {
		if (i)
			PROTO_TEXT_LIT(t, ",");
		proto_text_real(t, s->positions[i]);
	}
	PROTO_TEXT_LIT(t, "],\"indices\":[");
	for (size_t i = 0; i < 3 * s->t; i++) {
		if (i)
			PROTO_TEXT_LIT(t, ",");
		proto_text_int(t, s->indices[i]);
	}
	PROTO_TEXT_LIT(t, "]");
	if (weld) {
		PROTO_TEXT_LIT(t, ",\"weld\":");
		proto_text_real(t, *weld);
	}
	PROTO_TEXT_LIT(t, "}");
}

static void put_pose(proto_text *t, const proto_mesh_shape *s)
{
	PROTO_TEXT_LIT(t, "{\"matrix\":");
	proto_text_reals(t, s->matrix, 16);
	PROTO_TEXT_LIT(t, "}");
}

/* Room for a shape's numbers up front: about 20 bytes a coordinate. */
static void reserve(proto_text *t, const proto_mesh_shape *s)
{
	proto_text_reserve(t, 64 + 20 * 3 * s->n + 8 * 3 * s->t);
}

char *proto_mesh_document_text(const proto_mesh_set *set, size_t *len)
{
	proto_text t = {0};
	PROTO_TEXT_LIT(&t, "{\"shapes\":[");
	for (size_t i = 0; i < set->n; i++) {
		const proto_mesh_shape *s = &set->shapes[i];
		reserve(&t, s);
		if (i)
			PROTO_TEXT_LIT(&t, ",");
		PROTO_TEXT_LIT(&t, "{\"name\":");
		proto_text_string(&t, s->name, strlen(s->name));
		PROTO_TEXT_LIT(&t, ",\"mesh\":");
		put_geometry(&t, s, NULL);
		PROTO_TEXT_LIT(&t, ",\"pose\":");
		put_pose(&t, s);
		PROTO_TEXT_LIT(&t, "}");
	}
	PROTO_TEXT_LIT(&t, "]}");
	return proto_text_finish(&t, len);
}

char *proto_mesh_geometry_text(const proto_mesh_shape *s, const double *weld, const char *units,
                               size_t *len)
{
	proto_text t = {0};
	reserve(&t, s);
	PROTO_TEXT_LIT(&t, "{\"mesh\":");
	put_geometry(&t, s, weld);
	if (units) {
		PROTO_TEXT_LIT(&t, ",\"units\":");
		proto_text_string(&t, units, strlen(units));
	}
	PROTO_TEXT_LIT(&t, "}");
	return proto_text_finish(&t, len);
}

char *proto_mesh_pose_text(const proto_mesh_shape *s, size_t *len)
{
	proto_text t = {0};
	put_pose(&t, s);
	return proto_text_finish(&t, len);
}
