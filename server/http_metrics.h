/*
 * http_metrics.h — clashd's counters and histograms, rendered for GET
 * /metrics in the Prometheus text format 0.0.4.
 *
 * Everything is updated and rendered on the loop thread, so nothing here
 * locks (the log's dropped lines are an atomic counter of log.c).  Labels are bounded: a route of the table (or "other" for paths
 * that are none), a status code, a rejection reason from the fixed list
 * below; never a request id or a raw URL.
 */
#ifndef SERVER_HTTP_METRICS_H
#define SERVER_HTTP_METRICS_H

#include <stddef.h>

#include "store.h"
#include "store_redis.h"

/* Why a request was turned away or cut short (clashd_rejections_total). */
enum http_reject {
	HTTP_REJECT_OVERLOAD,            /* 503: the queue bound was reached */
	HTTP_REJECT_BODY_TOO_LARGE,      /* 413 */
	HTTP_REJECT_TOO_DEEP,            /* 400: JSON nesting */
	HTTP_REJECT_TOO_MANY_VERTICES,   /* 422 */
	HTTP_REJECT_TOO_MANY_SHAPES,     /* 422 */
	HTTP_REJECT_PARTS_TOO_DEEP,      /* 422: compound nesting */
	HTTP_REJECT_DEADLINE,            /* 504: --request-timeout */
	HTTP_REJECT_READ_TIMEOUT,        /* 408 or closed: --read-timeout */
	HTTP_REJECT_UNAUTHORIZED,        /* 401 */
	HTTP_REJECT_SHUTDOWN,            /* 503: stopped at the drain timeout */
	HTTP_REJECT_TOO_MANY_QUERIES,    /* 422: a batch over --max-batch */
	HTTP_REJECT_BAD_FRAMING,         /* 400 or 501 and closed: where the body
	                               ends is unclear (Content-Length,
	                               Transfer-Encoding, a field name) */
	HTTP_REJECT_MALFORMED,           /* 400: Host, a repeated field, a control
	                               character in a field or the path */
	HTTP_REJECT_HEADER_TIMEOUT,      /* closed: --header-timeout */
	HTTP_REJECT_SLOW_BODY,           /* 408 or closed: --min-body-rate */
	HTTP_REJECT_CLIENT_LIMIT,        /* 429: --max-queue-per-client */
	HTTP_REJECT_CONNECTION_PRESSURE, /* closed: an idle connection, to keep
	                                    --max-connections from filling */
	HTTP_REJECT_COUNT
};

/* The instantaneous values, read when rendering. */
typedef struct http_gauges {
	unsigned connections; /* open TCP connections */
	unsigned in_flight;   /* requests begun and not yet completed */
	unsigned admitted;    /* queries admitted, not yet computed */
	unsigned queue_limit; /* --max-queue */
	unsigned queued;      /* queries waiting for a worker */
	unsigned running;     /* queries on a worker */
	int draining;
	int has_store; /* the shape store's figures follow */
	proto_store_stats store;
	int has_redis; /* the store's Redis tier's figures follow */
	store_redis_stats redis;
	/* Each tenant's share of this replica's store (--store-per-tenant). */
	struct http_tenant_usage {
		const char *name;
		size_t bytes, entries;
	} * tenants;
	size_t ntenants;
} http_gauges;

typedef struct http_metrics http_metrics;

/* Counters for `nroutes` routes (plus "other").  NULL when out of memory. */
http_metrics *http_metrics_new(size_t nroutes);
void http_metrics_free(http_metrics *m);

/* A completed request: route index (nroutes for "other"), status, seconds. */
void http_metrics_request(http_metrics *m, size_t route, int status, double seconds);

/* Iterations of one answered query. */
void http_metrics_iterations(http_metrics *m, int iterations);

void http_metrics_reject(http_metrics *m, enum http_reject why);

/* The name of a reason, as in the label and the log. */
const char *http_reject_name(enum http_reject why);

/* The exposition text (malloc'd, *len bytes), or NULL when out of memory. */
char *http_metrics_render(const http_metrics *m, const http_gauges *g, size_t *len);

#endif
