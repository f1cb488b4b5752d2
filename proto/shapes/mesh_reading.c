/*
 * mesh_reading.c — a shape's meshes as read (mesh_reading.h): one table
 * of members, written as text (answers, json_write.c's rules) or as a
 * jansson object (summaries), in the same order.
 */
#include <string.h>

#include "mesh_reading.h"

typedef struct member {
	const char *name;
	int flag; /* a boolean, not a count */
	size_t (*count)(const clash_mesh_info *);
} member;

static size_t solid(const clash_mesh_info *i)
{
	return (size_t)i->solid;
}
static size_t closed(const clash_mesh_info *i)
{
	return (size_t)i->closed;
}
static size_t welded(const clash_mesh_info *i)
{
	return i->welded;
}
static size_t flipped(const clash_mesh_info *i)
{
	return i->flipped;
}
static size_t open_edges(const clash_mesh_info *i)
{
	return i->boundary_edges;
}
static size_t nonmanifold(const clash_mesh_info *i)
{
	return i->nonmanifold_edges;
}
static size_t self_x(const clash_mesh_info *i)
{
	return i->self_intersections;
}
static size_t self_capped(const clash_mesh_info *i)
{
	return (size_t)i->self_intersections_capped;
}

static const member members[] = {
	{"solid", 1, solid},
	{"closed", 1, closed},
	{"welded", 0, welded},
	{"flipped", 0, flipped},
	{"open_edges", 0, open_edges},
	{"nonmanifold_edges", 0, nonmanifold},
	{"self_intersections", 0, self_x},
	{"self_intersections_capped", 1, self_capped},
};
#define NMEMBERS (sizeof members / sizeof members[0])

void proto_mesh_reading_text(proto_text *t, const clash_shape *s)
{
	clash_mesh_info i;
	if (clash_shape_mesh_info(s, &i) == 0) {
		PROTO_TEXT_LIT(t, "null");
		return;
	}
	for (size_t k = 0; k < NMEMBERS; k++) {
		proto_text_put(t, k ? ",\"" : "{\"", 2);
		proto_text_put(t, members[k].name, strlen(members[k].name));
		PROTO_TEXT_LIT(t, "\":");
		const size_t v = members[k].count(&i);
		if (members[k].flag)
			proto_text_put(t, v ? "true" : "false", v ? 4 : 5);
		else
			proto_text_int(t, (long long)v);
	}
	PROTO_TEXT_LIT(t, ",\"leak\":");
	proto_text_real(t, i.leak);
	PROTO_TEXT_LIT(t, "}");
}

json_t *proto_mesh_reading_json(const clash_shape *s)
{
	clash_mesh_info i;
	if (clash_shape_mesh_info(s, &i) == 0)
		return json_null();
	json_t *o = json_object();
	int bad = o == NULL;
	for (size_t k = 0; !bad && k < NMEMBERS; k++) {
		const size_t v = members[k].count(&i);
		bad = json_object_set_new(o, members[k].name,
		                          members[k].flag ? json_boolean(v)
		                                          : json_integer((json_int_t)v));
	}
	if (bad || json_object_set_new(o, "leak", json_real(i.leak))) {
		json_decref(o);
		return NULL;
	}
	return o;
}
