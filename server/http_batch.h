/*
 * http_batch.h — a batch's chunks on the worker pool (http_batch.c).
 * Loop thread only.
 */
#ifndef SERVER_HTTP_BATCH_H
#define SERVER_HTTP_BATCH_H

#include "http_internal.h"

/* The split is done: cut the batch into chunks and queue the first ones.
 * Returns 0, or -1 when memory ran out. */
int http_batch_start(http_request *r);

/* Queue what the batch may run now. */
void http_batch_pump(http_request *r);

/* The batch is over (every chunk back, or stopped with none on the pool):
 * finish it. */
void http_batch_settle(http_request *r);

#endif
