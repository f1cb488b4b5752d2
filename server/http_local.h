/*
 * http_local.h — the answers the loop gives from a request's head alone
 * (http_local.c).  Loop thread only.
 */
#ifndef SERVER_HTTP_LOCAL_H
#define SERVER_HTTP_LOCAL_H

#include "http_internal.h"

enum MHD_Result http_local_metrics(http_request *r);
enum MHD_Result http_local_openapi(http_request *r);

/* GET / and /web/...: the demo page's files. */
enum MHD_Result http_local_page(http_request *r, const char *url);

/* GET, HEAD and DELETE /v1/shapes/{id}. */
enum MHD_Result http_local_shape(http_request *r, const char *id, const char *method);

#endif
