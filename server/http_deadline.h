/*
 * http_deadline.h — the deadline sweep (http_deadline.c).  Loop thread
 * only.
 */
#ifndef SERVER_HTTP_DEADLINE_H
#define SERVER_HTTP_DEADLINE_H

#include "http_internal.h"

/* The sweep timer's callback, and its period for `cfg`. */
void http_deadline_sweep(uv_timer_t *t);
unsigned http_deadline_interval(const server_config *cfg);

/* A body given up on (read timeout, too slow): 408, and close. */
enum MHD_Result http_deadline_expired(http_request *r);

#endif
