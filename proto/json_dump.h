/*
 * json_dump.h — replies written as text (json_dump.c): the bytes of
 * json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17)), either from a
 * jansson tree (proto_json_dump) or piece by piece into a proto_text, with
 * no tree at all (the Result and problem encoders).
 */
#ifndef PROTO_JSON_DUMP_H
#define PROTO_JSON_DUMP_H

#include <stddef.h>

#include <jansson.h>

#include "text_buf.h"

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

/* snprintf(out, PROTO_REAL_MAX, "%.*g", precision, x), byte for byte, for
 * 1 <= precision <= 17 (finite x; several times faster: no printf).
 * Returns the length (the text is NUL-terminated). */
size_t proto_real_g(double x, int precision, char *out);

/* A double as json_dumps writes it with JSON_REAL_PRECISION(17) (finite
 * only: jansson holds no NaN or infinity). */
void proto_text_real(proto_text *t, double x);

/* An array of n finite doubles, as proto_text_real writes each. */
void proto_text_reals(proto_text *t, const double *x, int n);

/* An integer as json_dumps writes a json_integer. */
void proto_text_int(proto_text *t, long long x);

/* A JSON string of n bytes of valid UTF-8, quoted and escaped as
 * json_dumps escapes it without flags. */
void proto_text_string(proto_text *t, const char *s, size_t n);

#endif /* PROTO_JSON_DUMP_H */
