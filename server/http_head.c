/*
 * http_head.c — a request's head, judged at the first handler call.
 *
 * In order: the strict reading of the head (http_strict.h: malformed
 * fields, unsound framing, a target decoding to a control character);
 * CORS (a preflight answered before the token check); route, token,
 * method; the answers the loop gives itself (http_local.c); for a query,
 * media type, Content-Encoding, size and admission (http_admit.c).  What
 * is decided here goes out as http_answer_early says.
 */
#include "http_head.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_admit.h"
#include "http_answer.h"
#include "http_auth.h"
#include "http_cors.h"
#include "http_local.h"
#include "http_loop.h"
#include "http_request.h"
#include "log.h"

/* The longest Origin header considered for CORS (longer ones are no
 * allowed origin). */
#define HTTP_ORIGIN_MAX 256

/* The body's Content-Encoding: 0 none (or identity), 1 gzip, -1 another
 * (then a 415's detail is in `detail` and the answer names gzip). */
static int body_encoding(http_request *r, char *detail, size_t len)
{
	const char *ce = http_request_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (!ce || strcasecmp(ce, "identity") == 0)
		return 0;
	if (strcasecmp(ce, "gzip") == 0 || strcasecmp(ce, "x-gzip") == 0)
		return 1;
	char text[64];
	snprintf(detail, len,
	         "Content-Encoding %s is not supported: send the body as it is, or "
	         "with Content-Encoding: gzip",
	         log_printable(text, sizeof text, ce));
	r->accept_encoding = 1;
	return -1;
}

/* Whether the route needs the bearer token. */
static int route_protected(const server_config *cfg, const http_route *route)
{
	/* The demo page holds no data (a browser cannot send a token to
	 * open it); its calls to the API need the token as any. */
	if (!cfg->auth_token || route->id == HTTP_ROUTE_HOME || route->id == HTTP_ROUTE_WEB)
		return 0;
	for (size_t i = 0; i < cfg->n_auth_open; i++)
		if (strcmp(cfg->auth_open[i], route->path) == 0)
			return 0;
	return 1;
}

/* The methods a preflight grants: the route's when they hold the one
 * asked for, else that one (a token of letters), so the real request is
 * answered (405, 404) readably; NULL for a method that is no token. */
static const char *preflight_methods(const http_route *route, const char *asked)
{
	size_t n = strlen(asked);
	if (n == 0 || n > 15 || strspn(asked, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != n)
		return NULL;
	return route && http_route_allows(route, asked) ? route->allow : asked;
}

/* CORS at the start of a request: keep its Origin, decide the grant, and
 * say whether it is a preflight to answer now (204; the grant headers go
 * out in http_answer.c when the origin is allowed).  A preflight from an origin
 * that is not allowed is logged with the flag that would allow it. */
static int cors_begin(http_request *r, const char *method, const http_route *route)
{
	const server_config *cfg = r->srv->cfg;
	const char *asked = http_request_header(r, "Access-Control-Request-Method");
	int preflight = strcmp(method, "OPTIONS") == 0 && asked;
	const char *origin = http_request_header(r, "Origin");
	if (!origin || !origin[0] || (!cfg->n_cors_origins && !preflight))
		return 0;
	char text[HTTP_ORIGIN_MAX];
	if (strlen(origin) >= HTTP_ORIGIN_MAX || !(r->origin = strdup(origin)))
		return 0;
	r->cors = http_cors_allow(cfg->cors_origins, cfg->n_cors_origins, r->origin);
	if (!preflight)
		return 0;
	r->preflight_methods = preflight_methods(route, asked);
	if (!r->cors || !r->preflight_methods) {
		LOG_EMIT("warn", "cors preflight refused", LOG_STR("request_id", r->id),
		         LOG_STR("origin", log_printable(text, sizeof text, origin)),
		         LOG_STR("reason", !cfg->n_cors_origins
		                                   ? "no --cors-origin is set: CORS is off"
		                           : r->cors ? "the method asked for is not a token"
		                                     : "the origin is not in --cors-origin"),
		         LOG_STR("hint", "start clashd with --cors-origin ORIGIN "
		                         "(or CLASHD_CORS_ORIGIN) naming this origin"));
		if (!cfg->n_cors_origins)
			return 0;
		r->cors = NULL;
	}
	r->preflight = 1;
	r->route = route;
	return 1;
}

/* A query's head, once route, token and method passed: media type,
 * Content-Encoding and size, then admission. */
static enum MHD_Result query_head(http_request *r, const http_route *route)
{
	char text[200];
	char detail[320];

	const char *ct = http_request_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
	const int shapes = route->id == HTTP_ROUTE_SHAPES;
	const char *weld =
		shapes ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "weld") : NULL;
	const char *units =
		shapes ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "units")
		       : NULL;
	if (shapes && proto_media_is_mesh(ct) && strlen(ct) < sizeof r->mesh_type) {
		strcpy(r->mesh_type, ct); /* a mesh file, imported (on a worker) */
		/* An empty or overlong value is no number, no unit's name: a space
		 * stands for it. */
		const int bad = weld && (!weld[0] || strlen(weld) >= sizeof r->weld);
		snprintf(r->weld, sizeof r->weld, "%s", bad ? " " : weld ? weld : "");
		const int bad_units = units && (!units[0] || strlen(units) >= sizeof r->units);
		snprintf(r->units, sizeof r->units, "%s", bad_units ? " " : units ? units : "");
	} else if ((weld || units) && http_media_is_json(ct)) {
		return http_answer_problem(r, 422,
		                           weld ? "the query parameter weld is for mesh files: "
		                                  "a JSON upload's mesh says its own \"weld\""
		                                : "the query parameter units is for mesh "
		                                  "files: a JSON upload says its own "
		                                  "\"units\"");
	} else if (!http_media_is_json(ct)) {
		const char *mesh = route->id == HTTP_ROUTE_SHAPES ? HTTP_MESH_MEDIA_TYPES : "";
		if (ct)
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json%s, not %s", mesh,
			         log_printable(text, sizeof text, ct));
		else
			snprintf(detail, sizeof detail,
			         "Content-Type must be application/json%s (the header is missing)",
			         mesh);
		return http_answer_problem(r, 415, detail);
	}

	int encoded = body_encoding(r, detail, sizeof detail);
	if (encoded < 0)
		return http_answer_problem(r, 415, detail);
	if (encoded) {
		r->gzip = http_gzip_new();
		if (!r->gzip)
			return http_answer_early(r, NULL);
	}

	if (r->declared > http_request_body_limit(r)) {
		snprintf(
			detail, sizeof detail,
			"the request body (Content-Length %llu) is larger than the limit of %zu bytes "
			"(%s)",
			r->declared, http_request_body_limit(r), http_request_body_limit_flag(r));
		http_answer_reject(r, HTTP_REJECT_BODY_TOO_LARGE);
		return http_answer_problem(r, 413, detail);
	}

	return http_admit_query(r);
}

/* First call: headers are in, no body yet.  Decides the answer to
 * everything but a well-formed, admitted POST /v1/query (http_answer_early says
 * when it goes out). */
enum MHD_Result http_head_begin(http_request *r, const char *url, const char *method)
{
	http_server *s = r->srv;
	const server_config *cfg = s->cfg;
	char text[200];
	char detail[320];
	const http_route *route = http_route_find(url);

	/* A preflight carries no credentials (browsers never send them on
	 * one), so it is answered before the token check, and for any path:
	 * the real request may be a 404 or 405 the page can then read. */
	if (cors_begin(r, method, route))
		return http_answer_text(r, 204, PROTO_JSON, strdup(""), 0);
	if (!route) {
		snprintf(detail, sizeof detail, "no resource at %s",
		         log_printable(text, sizeof text, url));
		return http_answer_problem(r, 404, detail);
	}
	r->route = route;

	if (route_protected(cfg, route)) {
		size_t which = 0;
		enum http_auth_result a =
			http_auth_check(cfg->auth_tokens, cfg->n_auth_tokens,
		                        http_request_header(r, MHD_HTTP_HEADER_AUTHORIZATION),
		                        &which);
		if (a == HTTP_AUTH_OK && s->tenant_ctx && s->tenant_ctx[which]) {
			r->ctx = s->tenant_ctx[which];
			r->tenant = 1;
		}
		if (a != HTTP_AUTH_OK) {
			http_answer_reject(r, HTTP_REJECT_UNAUTHORIZED);
			if (a == HTTP_AUTH_MISSING) {
				r->www_authenticate = "Bearer realm=\"clashd\"";
				snprintf(detail, sizeof detail,
				         "%s needs a bearer token: send "
				         "\"Authorization: Bearer <token>\"",
				         route->path);
			} else {
				r->www_authenticate =
					"Bearer realm=\"clashd\", error=\"invalid_token\"";
				snprintf(detail, sizeof detail,
				         "the bearer token is not the right one");
			}
			return http_answer_problem(r, 401, detail);
		}
	}

	if (!http_route_allows(route, method)) {
		snprintf(detail, sizeof detail, "method %s is not allowed on %s; use %s", r->method,
		         route->path, route->allow);
		r->allow = route->allow;
		return http_answer_problem(r, 405, detail);
	}
	switch (route->id) {
	case HTTP_ROUTE_LIVEZ: return http_answer_json(r, 200, "{\"status\":\"ok\"}");
	case HTTP_ROUTE_READYZ:
		if (s->draining)
			return http_answer_json(r, 503, "{\"status\":\"draining\"}");
		if (s->admitted >= cfg->max_queue)
			return http_answer_json(r, 503, "{\"status\":\"overloaded\"}");
		return http_answer_json(r, 200, "{\"status\":\"ready\"}");
	case HTTP_ROUTE_METRICS: return http_local_metrics(r);
	case HTTP_ROUTE_OPENAPI: return http_local_openapi(r);
	case HTTP_ROUTE_SHAPE: return http_local_shape(r, url + strlen(route->path), method);
	case HTTP_ROUTE_HOME:
	case HTTP_ROUTE_WEB: return http_local_page(r, url);
	case HTTP_ROUTE_SHAPES:
	case HTTP_ROUTE_QUERY:
	case HTTP_ROUTE_SCENE:
	case HTTP_ROUTE_CONTAINS:
	case HTTP_ROUTE_BATCH: break;
	case HTTP_ROUTE_NONE: assert(0); break;
	}

	return query_head(r, route);
}

/* MHD's own decoding of the %HH escapes of the path and query, noting a
 * control character in the result: a "%00" would otherwise end the path the
 * handler sees ("/v1/query%00x" routed as /v1/query). */
size_t http_head_unescape(void *cls, struct MHD_Connection *conn, char *text)
{
	(void)cls;
	size_t n = MHD_http_unescape(text);
	http_conn *hc = http_loop_conn(conn);
	if (hc && http_strict_has_control(text, n, 0))
		hc->bad_target = 1;
	return n;
}

/* Whether a field came on more than one line (obs-fold).  libmicrohttpd
 * 0.9.75 keeps each field in its read buffer, the value after the name on
 * the same line, but joins a continuation line onto the *name*, in a copy
 * it allocates past that buffer: so a field whose value lies before the
 * end of its name was folded ("Transfer-Encoding:\r\n chunked" arrives as
 * the field "Transfer-Encodingchunked" with an empty value).  The suite
 * http_api's strict cases hold this reading to the library in use. */
static int field_folded(const char *name, size_t name_len, const char *value)
{
	return value && (uintptr_t)value < (uintptr_t)name + name_len;
}

static enum MHD_Result scan_field(void *cls, enum MHD_ValueKind kind, const char *name,
                                  size_t name_len, const char *value, size_t value_len)
{
	(void)kind;
	http_strict_field(cls, name, name_len, value ? value : "", value ? value_len : 0,
	                  field_folded(name, name_len, value));
	return MHD_YES;
}

/* Whether the head is one clashd refuses (http_strict.h): every field line,
 * repeated ones included, and the target as decoded. */
int http_head_refused(http_request *r, const char *url, const char *version, http_strict_fault *f)
{
	http_strict scan = {0};
	MHD_get_connection_values_n(r->conn, MHD_HEADER_KIND, scan_field, &scan);
	int bad_target = http_strict_has_control(url, strlen(url), 0);
	if (r->hc) {
		bad_target |= r->hc->bad_target;
		r->hc->bad_target = 0;
	}
	int http11 = strcmp(version, MHD_HTTP_VERSION_1_0) != 0;
	return http_strict_judge(&scan, http11, bad_target, f);
}

/* Refuse a malformed head.  Sound framing: as any problem from the headers
 * (the body read and dropped, the connection kept).  Unsound framing: where
 * the body ends is unknown, so the answer goes out at once and the
 * connection closes after it (MHD reads nothing more of it). */
enum MHD_Result http_head_malformed(http_request *r, const http_strict_fault *f)
{
	proto_reply p = {0};
	int built = proto_request_problem_reply(f->status, f->detail, &p) == 0;
	http_answer_reject(r, f->framing ? HTTP_REJECT_BAD_FRAMING : HTTP_REJECT_MALFORMED);
	if (!f->framing)
		return http_answer_early(r, built ? &p : NULL);
	r->close = 1;
	if (!built)
		return http_answer_oom(r);
	return http_answer_now_reply(r, &p);
}
