/*
 * units.c — reading and checking "units" (units.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "units.h"

static const char *const names[PROTO_UNITS_COUNT] = {NULL, "mm", "cm", "m", "in"};

const char *proto_units_name(int units)
{
	return units > 0 && units < PROTO_UNITS_COUNT ? names[units] : NULL;
}

int proto_units_of_name(const char *name)
{
	for (int u = 1; u < PROTO_UNITS_COUNT; u++)
		if (strcmp(name, names[u]) == 0)
			return u;
	return PROTO_UNITS_NONE;
}

int proto_units_read(const json_t *v, const proto_path *at, int *out, proto_problem *p)
{
	const int u = json_is_string(v) ? proto_units_of_name(json_string_value(v)) : 0;
	if (u) {
		*out = u;
		return 0;
	}
	const int shown = json_is_string(v) && json_string_length(v) <= 16;
	return proto_fail(p, at,
	                  "units must be one of \"mm\", \"cm\", \"m\" and \"in\" (a "
	                  "label the answer echoes; clashd converts no units), got %s%s%s",
	                  shown ? "\"" : "", shown ? json_string_value(v) : proto_kind_of(v),
	                  shown ? "\"" : "");
}

int proto_units_note(proto_units_seen *seen, int units, const proto_path *at, proto_problem *p)
{
	if (seen->units == units)
		return 0;
	char *where = proto_path_render(at);
	if (!where)
		return -1;
	if (seen->units == PROTO_UNITS_NONE) {
		seen->units = units;
		snprintf(seen->at, sizeof seen->at, "%s", where[0] ? where : "the document");
		free(where);
		return 0;
	}
	free(where);
	return proto_fail(p, at,
	                  "units \"%s\" here, but %s says \"%s\": clashd converts no "
	                  "units, so every shape of a request must name the same (or none)",
	                  names[units], seen->at, names[seen->units]);
}
