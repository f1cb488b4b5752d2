/*
 * json_dump.c — a jansson tree written as json_dumps(v, JSON_COMPACT |
 * JSON_REAL_PRECISION(17)) writes it, several times faster: its numbers
 * and strings by json_write.c, object members in insertion order.
 */
#include "json_dump.h"

#include <string.h>

static void dump(proto_text *t, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		proto_text_putc(t, '{');
		const char *key;
		json_t *member;
		int first = 1;
		json_object_foreach((json_t *)v, key, member) {
			if (!first)
				proto_text_putc(t, ',');
			first = 0;
			proto_text_string(t, key, strlen(key));
			proto_text_putc(t, ':');
			dump(t, member);
		}
		proto_text_putc(t, '}');
		break;
	}
	case JSON_ARRAY:
		proto_text_putc(t, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i)
				proto_text_putc(t, ',');
			dump(t, json_array_get(v, i));
		}
		proto_text_putc(t, ']');
		break;
	case JSON_STRING: proto_text_string(t, json_string_value(v), json_string_length(v)); break;
	case JSON_INTEGER: proto_text_int(t, json_integer_value(v)); break;
	case JSON_REAL: proto_text_real(t, json_real_value(v)); break;
	case JSON_TRUE: PROTO_TEXT_LIT(t, "true"); break;
	case JSON_FALSE: PROTO_TEXT_LIT(t, "false"); break;
	case JSON_NULL: PROTO_TEXT_LIT(t, "null"); break;
	}
}

char *proto_json_dump(const json_t *v, size_t *len)
{
	proto_text t = {0};
	dump(&t, v);
	return proto_text_finish(&t, len);
}
