/*
 * weld_text.c — a weld written as text: the "weld" query parameter of a
 * mesh file's import (shape_import.c) and clashd's --weld (server/config.c)
 * read by one rule, so the two accept the same numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int proto_weld_parse(const char *text, double *out)
{
	/* Digits first (no sign, space, "inf" or "nan"); no hex floats. */
	if (!text || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.') ||
	    strpbrk(text, "xXnN"))
		return -1;
	char *end;
	errno = 0;
	double x = strtod(text, &end);
	if (end == text || *end != '\0' || errno == ERANGE || !(x >= 0.0 && x <= 1e300))
		return -1;
	*out = x;
	return 0;
}
