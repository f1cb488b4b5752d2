/*
 * json_dump.h — a faster json_dumps() for the replies (json_dump.c).
 */
#ifndef PROTO_JSON_DUMP_H
#define PROTO_JSON_DUMP_H

#include <stddef.h>

#include <jansson.h>

/* The text json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17)) gives,
 * byte for byte (malloc'd, NUL-terminated, its length in *len when len is
 * not NULL); NULL when memory ran out. */
char *proto_json_dump(const json_t *v, size_t *len);

/* One double as that dump writes it (finite values only): %.17g, then ".0"
 * when neither '.' nor 'e' is in it, no '+' and no leading zeros in the
 * exponent.  `out` has room for PROTO_REAL_MAX bytes; returns the length
 * (the text is NUL-terminated). */
#define PROTO_REAL_MAX 32
size_t proto_real_text(double x, char *out);

#endif /* PROTO_JSON_DUMP_H */
