/*
 * http_request.h — a request's record (http_internal.h): made, looked
 * into, freed.  Loop thread only.
 */
#ifndef SERVER_HTTP_REQUEST_H
#define SERVER_HTTP_REQUEST_H

#include "http_internal.h"

/* The record of a request whose head has just been read, linked in
 * s->active (and its connection's record); NULL when out of memory. */
http_request *http_request_new(http_server *s, struct MHD_Connection *conn, const char *url,
                               const char *method);

void http_request_free(http_request *r);

/* A header of the request, or NULL. */
const char *http_request_header(http_request *r, const char *name);

/* The bound of r's body (inflated), and the flag that sets it. */
size_t http_request_body_limit(const http_request *r);
const char *http_request_body_limit_flag(const http_request *r);

#endif
