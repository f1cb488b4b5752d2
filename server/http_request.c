/*
 * http_request.c — a request's record: made at its first handler call,
 * freed once its connection is done with it (or its overdue worker is).
 *
 * What the head says that every later step reads: the body's framing
 * (Content-Length, chunked, Expect: 100-continue), the client's address,
 * the request id, and the bound its body is held to.
 */
#include "http_request.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "http_loop.h"
#include "log.h"

/* How the body comes: its length, and whether the client waits for a
 * "100 Continue".  MHD has already rejected a malformed Content-Length. */
static void read_framing(http_request *r)
{
	const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_TRANSFER_ENCODING);
	const char *ex =
		MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
	if (cl && !te) {
		errno = 0;
		r->declared = strtoull(cl, NULL, 10);
		if (errno == ERANGE)
			r->declared = ULLONG_MAX;
	}
	r->has_body = te != NULL || r->declared > 0;
	r->expect_continue = ex && strcasecmp(ex, "100-continue") == 0;
}

/* A client address as 16 bytes, IPv4 as ::ffff:a.b.c.d (zeros if unknown). */
static void client_key(struct MHD_Connection *conn, unsigned char key[16])
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	memset(key, 0, 16);
	if (!ci || !ci->client_addr)
		return;
	if (ci->client_addr->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr, 16);
	} else if (ci->client_addr->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ci->client_addr)->sin_addr, 4);
	}
}

const char *http_request_header(http_request *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

/* The bound of r's body (inflated): a mesh file's is its own. */
size_t http_request_body_limit(const http_request *r)
{
	const server_config *cfg = r->srv->cfg;
	return r->mesh_type[0] ? cfg->max_import_body : cfg->max_body;
}

const char *http_request_body_limit_flag(const http_request *r)
{
	return r->mesh_type[0] ? "--max-import-body" : "--max-body";
}

/* A request's record, at its first handler call (headers read): what the
 * head says of its framing and who sent it, linked in srv->active; NULL
 * when memory ran out. */
http_request *http_request_new(http_server *s, struct MHD_Connection *conn, const char *url,
                               const char *method)
{
	http_request *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->srv = s;
	r->ctx = s->ctx;
	r->conn = conn;
	r->start_ns = uv_hrtime();
	r->body_start = uv_now(s->loop);
	client_key(conn, r->client);
	r->head = strcmp(method, "HEAD") == 0;
	log_printable(r->method, sizeof r->method, method);
	log_printable(r->path, sizeof r->path, url);
	request_id_pick(&s->ids, http_request_header(r, "X-Request-Id"), r->id);
	read_framing(r);
	r->hc = http_loop_conn(conn);
	if (r->hc)
		r->hc->req = r;
	s->requests++;
	r->next = s->active;
	if (s->active)
		s->active->prev = r;
	s->active = r;
	return r;
}

void http_request_free(http_request *r)
{
	proto_reply_free(&r->reply);
	proto_reply_free(&r->early);
	free(r->body);
	http_gzip_free(r->gzip);
	free(r->origin);
	free(r);
}
