/*
 * json_state.c — proto_json_state_of() (proto.h): whether a text is one
 * JSON value, the unfinished start of one, or neither, as jansson's parser
 * judges it.  The clash tool asks this of its first input lines to tell
 * JSON Lines from a document spread over lines (cli/framing.c).
 */
#include <jansson.h>

#include "proto.h"

enum proto_json_state proto_json_state_of(const char *text, size_t len, int prefix)
{
	json_error_t e;
	size_t flags = JSON_DECODE_ANY | (prefix ? JSON_DISABLE_EOF_CHECK : 0);
	json_t *j = json_loadb(text, len, flags, &e);
	if (j) {
		json_decref(j);
		return PROTO_JSON_COMPLETE;
	}
	return e.position >= 0 && (size_t)e.position >= len ? PROTO_JSON_OPEN : PROTO_JSON_BROKEN;
}
