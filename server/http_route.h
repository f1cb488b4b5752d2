/*
 * http_route.h — clashd's route table and the checks a request must pass
 * before its body is read (path, method, media type).
 */
#ifndef SERVER_HTTP_ROUTE_H
#define SERVER_HTTP_ROUTE_H

#include <stddef.h>

#include "proto.h"

enum http_route_id {
	HTTP_ROUTE_NONE = 0, /* no such path: 404 */
	HTTP_ROUTE_QUERY,    /* POST /v1/query */
	HTTP_ROUTE_SCENE,    /* POST /v1/scene */
	HTTP_ROUTE_CONTAINS, /* POST /v1/contains */
	HTTP_ROUTE_BATCH,    /* POST /v1/batch (answered in chunks, http_batch.c) */
	HTTP_ROUTE_LIVEZ,    /* GET /livez */
	HTTP_ROUTE_READYZ,   /* GET /readyz */
	HTTP_ROUTE_METRICS,  /* GET /metrics */
	HTTP_ROUTE_OPENAPI,  /* GET /v1/openapi.json */
	HTTP_ROUTE_SHAPES,   /* POST /v1/shapes (the shape store's upload) */
	HTTP_ROUTE_SHAPE,    /* GET, HEAD, DELETE /v1/shapes/{id} */
	HTTP_ROUTE_HOME,     /* GET / (to the demo page, when served) */
	HTTP_ROUTE_WEB       /* GET /web/... (the demo page's files, --web) */
};

typedef struct http_route {
	enum http_route_id id;
	const char *path;  /* the path, or its prefix when `prefix` */
	int prefix;        /* any path starting with `path` (and more) */
	const char *allow; /* the methods, as the Allow header lists them */
	/* POST routes: the proto_* call that turns the body into the reply
	 * (the _ex form: the server's cancel flag in, what happened out). */
	int (*reply)(const char *body, size_t len, proto_call *call, proto_reply *out);
} http_route;

/* The route for a path (query string already stripped), or NULL. */
const http_route *http_route_find(const char *path);

/* Whether `method` is one the route's Allow list names. */
int http_route_allows(const http_route *r, const char *method);

/* What POST /v1/shapes takes besides JSON (proto_media_is_mesh), for a
 * 415's detail. */
#define HTTP_MESH_MEDIA_TYPES                                                           \
	" or a mesh file's (model/stl, model/obj, model/gltf-binary, model/gltf+json, " \
	"application/x-ply)"

/* Whether a Content-Type names JSON: application/json or application/X+json,
 * any case, parameters (charset ...) allowed.  NULL (no header) is not. */
int http_media_is_json(const char *content_type);

/* The table, for listing (metrics by route): route i for i < count. */
size_t http_route_count(void);
const http_route *http_route_at(size_t i);

/* The position of r in the table. */
size_t http_route_index(const http_route *r);

#endif
