/*
 * http_answer.c — how clashd's answers go out through libmicrohttpd.
 *
 * Every answer carries the request id and whatever the request's checks
 * asked for (Allow, WWW-Authenticate, Location, Retry-After, the CORS
 * grant, Connection: close while draining).  An answer decided from the
 * headers alone waits for the body's end (http_answer_early says why);
 * the others go out now.  Out of memory, a fixed problem body still goes.
 */
#include "http_answer.h"

#include <stdlib.h>
#include <string.h>

#include "http_cors.h"
#include "http_request.h"
#include "problem.h"

void http_answer_reject(http_request *r, enum http_reject why)
{
	http_metrics_reject(r->srv->metrics, why);
	r->rejected = 1 + (int)why;
}

/* Sent when even building a problem fails (out of memory); the same
 * members proto_problem_reply(500, ...) would give. */
static const char oom_body[] =
	"{\"type\":\"urn:clashd:problem:internal\",\"title\":\"Internal error\","
	"\"status\":500,\"detail\":\"out of memory\"}";

static int add_header(struct MHD_Response *resp, const char *name, const char *value)
{
	return MHD_add_response_header(resp, name, value) == MHD_YES;
}

/* Queue the answer.  `owned`: `body` is malloc'd and passes to MHD, which
 * frees it once sent (no copy); else it is copied (static text). */
static enum MHD_Result respond_body(http_request *r, unsigned status, const char *type, char *body,
                                    size_t len, int owned)
{
	http_server *s = r->srv;
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body,
	                                                            owned ? MHD_RESPMEM_MUST_FREE
	                                                                  : MHD_RESPMEM_MUST_COPY);
	if (!resp) {
		if (owned)
			free(body);
		return MHD_NO; /* MHD closes the connection */
	}
	int ok = 1;
	if (status != 204)
		ok &= add_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ok &= add_header(resp, "X-Request-Id", r->id);
	if (r->allow)
		ok &= add_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (r->www_authenticate)
		ok &= add_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, r->www_authenticate);
	if (r->location)
		ok &= add_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
	if (r->page) {
		ok &= add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
		ok &= add_header(resp, "X-Content-Type-Options", "nosniff");
	}
	if (r->accept_encoding)
		ok &= add_header(resp, "Accept-Encoding", "gzip");
	if (r->retry_after)
		ok &= add_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, HTTP_RETRY_AFTER_S);
	if (s->cfg->n_cors_origins) {
		/* The answer depends on Origin whether or not it was allowed. */
		ok &= add_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
		if (r->cors) {
			ok &= add_header(resp, "Access-Control-Allow-Origin", r->cors);
			if (r->preflight) {
				ok &= add_header(resp, "Access-Control-Allow-Methods",
				                 r->preflight_methods);
				ok &= add_header(resp, "Access-Control-Allow-Headers",
				                 HTTP_CORS_ALLOW_HEADERS);
				ok &= add_header(resp, "Access-Control-Max-Age", HTTP_CORS_MAX_AGE);
			} else {
				ok &= add_header(resp, "Access-Control-Expose-Headers",
				                 HTTP_CORS_EXPOSE_HEADERS);
			}
		}
	}
	if (s->draining || r->close)
		ok &= add_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ret = ok ? MHD_queue_response(r->conn, status, resp) : MHD_NO;
	MHD_destroy_response(resp);
	r->state = REQ_RESPONDED;
	if (ret == MHD_YES) {
		r->status = (int)status;
		r->bytes_out = r->head ? 0 : len;
	}
	return ret;
}

/* 500 with the static body above: when even a problem cannot be built. */
enum MHD_Result http_answer_oom(http_request *r)
{
	return http_answer_now(r, 500, PROTO_PROBLEM_JSON, oom_body, sizeof oom_body - 1);
}

/* A static body, copied. */
enum MHD_Result http_answer_now(http_request *r, unsigned status, const char *type,
                                const char *body, size_t len)
{
	return respond_body(r, status, type, (char *)body, len, 0);
}

/* A reply: its body goes to MHD as it is, and *p is left empty. */
enum MHD_Result http_answer_now_reply(http_request *r, proto_reply *p)
{
	char *body = p->body;
	p->body = NULL;
	enum MHD_Result ret =
		respond_body(r, (unsigned)p->status, p->content_type, body, p->length, 1);
	proto_reply_free(p);
	return ret;
}

/* An answer decided from the headers alone (`p` is taken; NULL when it could
 * not be built).
 *
 * MHD closes a connection whose response is queued before the request has
 * been read to its end, and closing with unread bytes makes the kernel reset
 * the connection, which can destroy the answer before the client reads it.
 * So the answer normally waits for the final handler call, the body (if any)
 * read and dropped meanwhile, and the connection stays open.  It goes out at
 * once when the client holds the body back until told to go on (Expect:
 * 100-continue: the client then learns the answer without sending the body)
 * or announced more than its bound, http_request_body_limit() (not worth reading). */
enum MHD_Result http_answer_early(http_request *r, proto_reply *p)
{
	if (r->has_body && (r->expect_continue || r->declared > http_request_body_limit(r))) {
		if (!p)
			return http_answer_oom(r);
		return http_answer_now_reply(r, p);
	}
	if (p)
		r->reply = *p;
	r->reply_rc = p ? 0 : -1;
	r->state = REQ_REPLIED;
	return MHD_YES;
}

/* Send a problem now. */
enum MHD_Result http_answer_now_problem(http_request *r, int status, const char *detail)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return http_answer_oom(r);
	return http_answer_now_reply(r, &p);
}

enum MHD_Result http_answer_problem(http_request *r, int status, const char *detail)
{
	proto_reply p = {0};
	if (proto_problem_reply(status, detail, NULL, &p) != 0)
		return http_answer_early(r, NULL);
	return http_answer_early(r, &p);
}

/* Not admitted now: `status` (503 or 429) with Retry-After: 1. */
enum MHD_Result http_answer_refuse(http_request *r, int status, enum http_reject why,
                                   const char *detail)
{
	r->retry_after = 1;
	http_answer_reject(r, why);
	return http_answer_problem(r, status, detail);
}

/* `body` is taken (malloc'd; NULL when it could not be built). */
enum MHD_Result http_answer_text(http_request *r, int status, const char *type, char *body,
                                 size_t len)
{
	proto_reply p = {status, type, body, len};
	return http_answer_early(r, body ? &p : NULL);
}

enum MHD_Result http_answer_json(http_request *r, int status, const char *json)
{
	return http_answer_text(r, status, PROTO_JSON, strdup(json), strlen(json));
}

/* The resumed call: send what the worker produced. */
enum MHD_Result http_answer_reply(http_request *r)
{
	if (r->reply_rc != 0)
		return http_answer_oom(r);
	return http_answer_now_reply(r, &r->reply);
}
