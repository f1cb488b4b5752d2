/*
 * openapi.h — the contract, proto/openapi.yaml, as JSON inside the binary
 * (served at GET /v1/openapi.json).
 *
 * The definition is generated at build time (server/gen/openapi_embed.c
 * converts the YAML with libyaml into build/gen/openapi_json.c), so the
 * served document is always the one the binary was built with, and clashd
 * needs no file at run time.
 */
#ifndef SERVER_OPENAPI_H
#define SERVER_OPENAPI_H

#include <stddef.h>

extern const char openapi_json[];     /* NUL-terminated compact JSON */
extern const size_t openapi_json_len; /* strlen(openapi_json) */

#endif
