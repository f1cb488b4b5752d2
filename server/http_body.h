/*
 * http_body.h — a query's body (http_body.c).  Loop thread only.
 */
#ifndef SERVER_HTTP_BODY_H
#define SERVER_HTTP_BODY_H

#include "http_internal.h"

/* A piece of the body: stored, or inflated and stored. */
void http_body_receive(http_request *r, const char *data, size_t n);

/* The whole body is in: answer its faults, or queue the query. */
enum MHD_Result http_body_submit(http_request *r);

#endif
