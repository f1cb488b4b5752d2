/*
 * method.c — the table of query methods (see method.h).  The first entry is
 * the default.
 */
#include <string.h>

#include "method.h"

static const proto_method methods[] = {
	{"gjk", clash_gjk},
	{"simplex", clash_lp_simplex},
	{"ipm", clash_lp_ipm},
};

const proto_method *proto_method_default(void)
{
	return &methods[0];
}

const proto_method *proto_method_find(const char *name, size_t n)
{
	for (size_t i = 0; i < proto_method_count(); i++)
		if (strlen(methods[i].name) == n && memcmp(methods[i].name, name, n) == 0)
			return &methods[i];
	return NULL;
}

size_t proto_method_count(void)
{
	return sizeof methods / sizeof methods[0];
}

const proto_method *proto_method_at(size_t i)
{
	return i < proto_method_count() ? &methods[i] : NULL;
}
