/*
 * http_route.c — the route table and the pre-body request checks.
 *
 * Kept apart from http_server.c so that the HTTP-level contract (which paths
 * exist, which methods they take, which bodies are JSON) reads as a table,
 * not as branches inside the event-loop code.
 */
#include "http_route.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const http_route routes[] = {
	{HTTP_ROUTE_QUERY, "/v1/query", 0, "POST", proto_query_reply_ex},
	{HTTP_ROUTE_SCENE, "/v1/scene", 0, "POST", proto_scene_reply_ex},
	{HTTP_ROUTE_CONTAINS, "/v1/contains", 0, "POST", proto_contains_reply_ex},
	{HTTP_ROUTE_BATCH, "/v1/batch", 0, "POST", proto_batch_reply_ex},
	{HTTP_ROUTE_LIVEZ, "/livez", 0, "GET, HEAD", NULL},
	{HTTP_ROUTE_READYZ, "/readyz", 0, "GET, HEAD", NULL},
	{HTTP_ROUTE_METRICS, "/metrics", 0, "GET, HEAD", NULL},
	{HTTP_ROUTE_OPENAPI, "/v1/openapi.json", 0, "GET, HEAD", NULL},
	{HTTP_ROUTE_SHAPES, "/v1/shapes", 0, "POST", proto_shape_put_reply},
	{HTTP_ROUTE_SHAPE, "/v1/shapes/", 1, "GET, HEAD, DELETE", NULL},
	{HTTP_ROUTE_HOME, "/", 0, "GET, HEAD", NULL},
	{HTTP_ROUTE_WEB, "/web", 1, "GET, HEAD", NULL},
};

const http_route *http_route_find(const char *path)
{
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		const http_route *r = &routes[i];
		size_t n = strlen(r->path);
		if (r->prefix ? strncmp(path, r->path, n) == 0 && path[n] != '\0'
		              : strcmp(path, r->path) == 0)
			return r;
	}
	return NULL;
}

int http_route_allows(const http_route *r, const char *method)
{
	/* Method names are case-sensitive (RFC 9110 section 9.1). */
	size_t n = strlen(method);
	for (const char *a = r->allow; *a;) {
		size_t k = strcspn(a, ",");
		if (k == n && strncmp(a, method, n) == 0)
			return 1;
		a += k;
		a += strspn(a, ", ");
	}
	return 0;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

int http_media_is_json(const char *ct)
{
	if (!ct)
		return 0;
	while (is_ows(*ct))
		ct++;
	size_t n = strcspn(ct, ";");
	while (n > 0 && is_ows(ct[n - 1]))
		n--;
	/* type "/" subtype, tokens only: no spaces inside. */
	for (size_t i = 0; i < n; i++)
		if (is_ows(ct[i]))
			return 0;
	static const char app[] = "application/";
	const size_t napp = sizeof app - 1;
	if (n <= napp || strncasecmp(ct, app, napp) != 0)
		return 0;
	const char *sub = ct + napp;
	size_t nsub = n - napp;
	if (nsub == 4 && strncasecmp(sub, "json", 4) == 0)
		return 1;
	/* A structured-syntax suffix (RFC 6839): application/problem+json. */
	return nsub > 5 && strncasecmp(sub + nsub - 5, "+json", 5) == 0 &&
	       memchr(sub, '/', nsub) == NULL;
}

size_t http_route_count(void)
{
	return sizeof routes / sizeof routes[0];
}

const http_route *http_route_at(size_t i)
{
	return i < http_route_count() ? &routes[i] : NULL;
}

size_t http_route_index(const http_route *r)
{
	return (size_t)(r - routes);
}
