/*
 * http_work.h — a query on the worker pool (http_work.c).  Loop thread
 * only.
 */
#ifndef SERVER_HTTP_WORK_H
#define SERVER_HTTP_WORK_H

#include "http_internal.h"

/* Onto the pool. */
void http_work_queue(http_request *r);

/* Stop a query on the pool: at its deadline, or at the drain's end. */
void http_work_stop(http_request *r, enum request_stop why);

#endif
