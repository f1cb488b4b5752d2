/*
 * shape_primitive.c — the exact primitive forms of a Shape (see shape_primitive.h):
 * each one member naming the kind, whose object gives its sizes, read into
 * clash_shape_init_primitive's three params.
 */
#include <math.h>
#include <string.h>

#include "decode.h"
#include "shape_primitive.h"

typedef struct form {
	const char *key;
	int kind;
	const char *size; /* "radius", "half_extents" or "radii" */
	int triple;       /* size is an array of 3 */
	int half_height;  /* also "half_height" */
} form;

static const form forms[] = {
	{"sphere", CLASH_KIND_SPHERE, "radius", 0, 0},
	{"box", CLASH_KIND_BOX, "half_extents", 1, 0},
	{"capsule", CLASH_KIND_CAPSULE, "radius", 0, 1},
	{"cylinder", CLASH_KIND_CYLINDER, "radius", 0, 1},
	{"cone", CLASH_KIND_CONE, "radius", 0, 1},
	{"ellipsoid", CLASH_KIND_ELLIPSOID, "radii", 1, 0},
};

#define NFORMS (sizeof forms / sizeof forms[0])

static const char *form_key(const char *key)
{
	for (size_t i = 0; i < NFORMS; i++)
		if (strcmp(forms[i].key, key) == 0)
			return forms[i].key;
	return NULL;
}

const char *proto_primitive_key(const json_t *v, const char **second)
{
	const char *first = NULL, *key;
	json_t *value;
	if (second)
		*second = NULL;
	json_object_foreach((json_t *)v, key, value) {
		const char *k = form_key(key);
		if (!k)
			continue;
		if (!first) {
			first = k;
			if (!second)
				break;
		} else {
			*second = k;
			break;
		}
	}
	return first;
}

/* One size: a finite number > 0. */
static int size(const json_t *x, const proto_path *at, const char *what, double *out,
                proto_problem *p)
{
	if (!json_is_number(x))
		return proto_fail(p, at, "%s must be a number, got %s", what, proto_kind_of(x));
	*out = json_number_value(x);
	if (!(*out > 0.0) || !isfinite(*out))
		return proto_fail(p, at, "%s must be a finite number > 0, got %.17g", what, *out);
	return 0;
}

int proto_primitive(const json_t *v, const char *key, const proto_path *at, clash_shape *s,
                    proto_problem *p)
{
	const form *f = NULL;
	for (size_t i = 0; i < NFORMS; i++)
		if (strcmp(forms[i].key, key) == 0)
			f = &forms[i];
	proto_path kp = {at, key, 0};
	const json_t *o = json_object_get(v, key);
	const char *members[3] = {f->size, f->half_height ? "half_height" : NULL, NULL};
	if (!json_is_object(o))
		return proto_fail(p, &kp, "%s must be an object {\"%s\": ...%s}, got %s", key,
		                  f->size, f->half_height ? ", \"half_height\": h" : "",
		                  proto_kind_of(o));
	int r = proto_known_members(o, &kp, members,
	                            f->half_height ? "this primitive has radius and half_height"
	                            : f->triple    ? "this primitive has one array of 3 sizes"
	                                           : "a sphere has radius",
	                            p);
	if (r)
		return r;
	double prm[3] = {0.0, 0.0, 0.0};
	proto_path sp = {&kp, f->size, 0}, hp = {&kp, "half_height", 0};
	const json_t *sz = json_object_get(o, f->size);
	if (!sz)
		return proto_fail(p, &kp, "%s needs %s", key, f->size);
	if (f->triple) {
		if (!json_is_array(sz) || json_array_size(sz) != 3)
			return proto_fail(
				p, &sp, "%s must be an array of 3 numbers (along x, y, z), got %s",
				f->size, proto_kind_of(sz));
		for (size_t i = 0; i < 3; i++) {
			proto_path el = {&sp, NULL, i};
			if ((r = size(json_array_get(sz, i), &el, f->size, &prm[i], p)))
				return r;
		}
	} else if ((r = size(sz, &sp, f->size, &prm[0], p))) {
		return r;
	}
	if (f->half_height) {
		const json_t *h = json_object_get(o, "half_height");
		if (!h)
			return proto_fail(p, &kp, "%s needs half_height (along its y axis)", key);
		if ((r = size(h, &hp, "half_height", &prm[1], p)))
			return r;
	}
	int e = clash_shape_init_primitive(s, f->kind, prm);
	if (e)
		return proto_fail(p, &kp, "%s: %s", key, clash_strerror(e));
	return 0;
}
