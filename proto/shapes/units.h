/*
 * units.h — the length units a shape or a scene may name ("units": "mm").
 *
 * clashd converts nothing: a unit is a label the answer echoes so that a
 * client (the demo, a CAD page) can print "0.4 mm" rather than "0.4".
 * What it does check is that one request speaks one unit: every "units"
 * a query, a scene or a stored shape brings must be the same, or the
 * request is a 422 at the first one that differs (two parts drawn in
 * millimetres and inches would otherwise be compared as if they were in
 * the same unit, and answer nonsense).
 */
#ifndef PROTO_UNITS_H
#define PROTO_UNITS_H

#include <jansson.h>

#include "pointer.h"
#include "problem.h"

/* 0: none named; then the units below, in the order of openapi.yaml's
 * enum.  A stored shape keeps one of these numbers (its id covers it). */
enum proto_units {
	PROTO_UNITS_NONE = 0,
	PROTO_UNITS_MM,
	PROTO_UNITS_CM,
	PROTO_UNITS_M,
	PROTO_UNITS_IN,
	PROTO_UNITS_COUNT
};

/* What a request has named so far: the unit and where it was first
 * named (a rendered JSON Pointer, for the message). */
typedef struct proto_units_seen {
	int units;
	char at[128];
} proto_units_seen;

/* The unit's name ("mm"), or NULL for PROTO_UNITS_NONE or out of range. */
const char *proto_units_name(int units);

/* The unit named `name` ("mm"), or PROTO_UNITS_NONE when it names none. */
int proto_units_of_name(const char *name);

/* The unit of a "units" member v at `at`: 0 and *out, or 1 (a 422 in p:
 * not one of the names) or -1 (memory). */
int proto_units_read(const json_t *v, const proto_path *at, int *out, proto_problem *p);

/* Note that `at` names `units` (not NONE): 0 when it agrees with what
 * `seen` holds (which then holds it), 1 (a 422 at `at` naming both) or
 * -1 (memory). */
int proto_units_note(proto_units_seen *seen, int units, const proto_path *at, proto_problem *p);

#endif
