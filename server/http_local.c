/*
 * http_local.c — the answers the loop thread gives from a request's head
 * alone: GET /metrics, /openapi.json, the demo page's files (--web), and
 * a stored shape's lookup (GET, HEAD, DELETE /v1/shapes/{id}; a miss
 * with a Redis tier goes on to a worker).
 */
#include "http_local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_answer.h"
#include "log.h"
#include "openapi.h"
#include "store_redis.h"

enum MHD_Result http_local_metrics(http_request *r)
{
	http_server *s = r->srv;
	unsigned running = __atomic_load_n(&s->running, __ATOMIC_RELAXED);
	http_gauges g = {
		.connections = s->connections,
		.in_flight = s->requests,
		.admitted = s->admitted,
		.queue_limit = s->cfg->max_queue,
		.queued = (s->jobs > running ? s->jobs - running : 0) + s->heavy_waiting,
		.running = running,
		.draining = s->draining,
		.has_store = s->ctx->store != NULL,
	};
	if (s->ctx->store)
		proto_store_get_stats(s->ctx->store, &g.store);
	if (s->redis) {
		g.has_redis = 1;
		store_redis_get_stats(s->redis, &g.redis);
	}
	/* Each tenant once (tokens may share one). */
	struct http_tenant_usage tenants[CONFIG_MAX_TOKENS];
	for (size_t i = 0; s->tenant_ctx && i < s->cfg->n_auth_tokens; i++) {
		const proto_context *c = s->tenant_ctx[i];
		int seen = !c;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->tenant_ctx[j] == c;
		if (seen)
			continue;
		struct http_tenant_usage *u = &tenants[g.ntenants++];
		u->name = proto_store_scope(c->store);
		u->bytes = proto_store_view_usage(c->store, &u->entries);
	}
	g.tenants = tenants;
	size_t len = 0;
	char *text = http_metrics_render(s->metrics, &g, &len);
	return http_answer_text(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

enum MHD_Result http_local_openapi(http_request *r)
{
	char *copy = malloc(openapi_json_len + 1);
	if (copy)
		memcpy(copy, openapi_json, openapi_json_len + 1);
	return http_answer_text(r, 200, PROTO_JSON, copy, openapi_json_len);
}

/* GET / and /web/...: the demo page's files, from memory (--web; a 404
 * when it is not served). */
enum MHD_Result http_local_page(http_request *r, const char *url)
{
	const http_static *web = &r->srv->cfg->web;
	char detail[320], text[200];
	if (r->srv->cfg->web_dir[0]) {
		if (r->route->id == HTTP_ROUTE_HOME) {
			r->location = "/web/";
			return http_answer_text(r, 308, "text/plain; charset=utf-8",
			                        strdup("/web/\n"), 6);
		}
		const http_static_file *f = url[4] == '/' ? http_static_find(web, url + 5) : NULL;
		if (f) {
			char *copy = malloc(f->len ? f->len : 1);
			if (copy)
				memcpy(copy, f->data, f->len);
			r->page = 1;
			return http_answer_text(r, 200, f->type, copy, f->len);
		}
	}
	snprintf(detail, sizeof detail, "no resource at %s%s",
	         log_printable(text, sizeof text, url),
	         r->srv->cfg->web_dir[0] ? "" : " (the demo page is not served: --web)");
	return http_answer_problem(r, 404, detail);
}

/* GET, HEAD and DELETE /v1/shapes/{id}: a lookup in the store, short
 * enough for the loop thread; a miss with a second tier goes on to a
 * worker. */
enum MHD_Result http_local_shape(http_request *r, const char *id, const char *method)
{
	proto_reply p = {0};
	/* A shared store must not let one client remove another's parts: a
	 * tenant's own are its own to delete, the others only when the
	 * operator says so. */
	if (strcmp(method, "DELETE") == 0 && !r->tenant && !r->srv->cfg->store_delete)
		return http_answer_problem(r, 403,
		                           "deleting stored shapes is off on this server: they may "
		                           "be other clients' (--store-delete; or a token with a "
		                           "tenant, which deletes its own)");
	if (proto_shape_reply(r->ctx, method, id, &p) != 0)
		return http_answer_early(r, NULL);
	/* Not in memory, maybe in the shared tier: asked on a worker (the
	 * loop never waits for Redis), admitted as a query is; when the
	 * queue is full, memory's answer stands. */
	if (p.status == 404 && strcmp(method, "DELETE") != 0 && r->ctx->store &&
	    proto_store_tier(r->ctx->store) && strlen(id) < sizeof r->shape_id &&
	    r->srv->admitted < r->srv->cfg->max_queue) {
		proto_reply_free(&p);
		strcpy(r->shape_id, id);
		r->srv->admitted++;
		r->admitted = 1;
		return MHD_YES; /* to a worker once the (empty) body is in */
	}
	return http_answer_early(r, &p);
}
