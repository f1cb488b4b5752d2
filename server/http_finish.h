/*
 * http_finish.h — the end of a query's work (http_finish.c).  Loop
 * thread only.
 */
#ifndef SERVER_HTTP_FINISH_H
#define SERVER_HTTP_FINISH_H

#include "http_internal.h"

/* Its reply is ready, or it was stopped (UV_ECANCELED): resume its
 * connection to send it. */
void http_finish(http_request *r, int status);

/* Past its deadline with its worker still running: answer 504 now. */
void http_finish_overdue(http_request *r);

#endif
