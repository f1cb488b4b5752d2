/*
 * http_admit.h — admission of queries and the heavy share of the
 * workers (http_admit.c).  Loop thread only.
 */
#ifndef SERVER_HTTP_ADMIT_H
#define SERVER_HTTP_ADMIT_H

#include "http_internal.h"

/* Admit a query whose head is sound (MHD_YES), or answer 503 or 429. */
enum MHD_Result http_admit_query(http_request *r);

/* Let its admission go (idempotent). */
void http_admit_release(http_request *r);

/* Heavy before any parse: a large body, a mesh file. */
int http_admit_is_heavy(const http_request *r);

/* The cost bound of work queued now (0: none). */
double http_admit_cost_bound(const http_request *r, int unlimited);

/* r is heavy: `go` queues its work now if the share has room, else once
 * its turn comes. */
void http_admit_heavy(http_request *r, void (*go)(http_request *r));

/* r is off the pool: its place goes to the next waiting (if it had one). */
void http_admit_heavy_done(http_request *r);

/* Take r out of the waiting list (it is in it). */
void http_admit_unwait(http_request *r);

#endif
