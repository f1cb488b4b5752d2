/*
 * json_dump.h — a jansson tree written as text (json_dump.c) with the
 * pieces of json_write.h, which it includes: the Result and problem
 * encoders write those pieces directly, with no tree at all.
 */
#ifndef PROTO_JSON_DUMP_H
#define PROTO_JSON_DUMP_H

#include <stddef.h>

#include <jansson.h>

#include "json_write.h"

/* The text json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17)) gives,
 * byte for byte (malloc'd, NUL-terminated, its length in *len when len is
 * not NULL); NULL when memory ran out. */
char *proto_json_dump(const json_t *v, size_t *len);

#endif /* PROTO_JSON_DUMP_H */
