/*
 * http_metrics.c — counters, histograms and their Prometheus exposition.
 *
 * Histograms keep one count per bucket (not cumulative) and are made
 * cumulative when rendered, as the format wants: _bucket{le="x"} counts the
 * observations <= x, the last bucket is le="+Inf" and equals _count.
 * Request counts by (route, status) live in a small array searched
 * linearly: a server sees a handful of distinct pairs.
 */
#include "http_metrics.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_route.h"
#include "log.h"
#include "text_buf.h"

/* Seconds: from a fast query (~50 us) to the longest deadline worth having. */
static const double duration_bounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                         0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                         1,      2.5,     5,      10,    30};
#define NDURATION (sizeof duration_bounds / sizeof duration_bounds[0])

/* GJK takes a handful of iterations; the tail is what the cap allows. */
static const double iteration_bounds[] = {1,  2,  3,  4,   6,   8,    12,    16,
                                          24, 32, 64, 128, 256, 1024, 10000, 100000};
#define NITERATION (sizeof iteration_bounds / sizeof iteration_bounds[0])

_Static_assert(NITERATION <= NDURATION, "a histogram holds either kind of buckets");

typedef struct histogram {
	uint64_t bucket[NDURATION + 1]; /* the last one is +Inf; big enough for both kinds */
	uint64_t count;
	double sum;
} histogram;

typedef struct status_count {
	size_t route;
	int status;
	uint64_t count;
} status_count;

struct http_metrics {
	size_t nroutes;
	histogram *duration; /* per route, and "other" */
	histogram iterations;
	status_count *statuses;
	size_t nstatuses, capstatuses;
	uint64_t rejects[HTTP_REJECT_COUNT];
};

static const char *const reject_names[HTTP_REJECT_COUNT] = {
	[HTTP_REJECT_OVERLOAD] = "overload",
	[HTTP_REJECT_BODY_TOO_LARGE] = "body_too_large",
	[HTTP_REJECT_TOO_DEEP] = "too_deep",
	[HTTP_REJECT_TOO_MANY_VERTICES] = "too_many_vertices",
	[HTTP_REJECT_TOO_MANY_SHAPES] = "too_many_shapes",
	[HTTP_REJECT_PARTS_TOO_DEEP] = "parts_too_deep",
	[HTTP_REJECT_TOO_MANY_QUERIES] = "too_many_queries",
	[HTTP_REJECT_DEADLINE] = "deadline",
	[HTTP_REJECT_READ_TIMEOUT] = "read_timeout",
	[HTTP_REJECT_UNAUTHORIZED] = "unauthorized",
	[HTTP_REJECT_SHUTDOWN] = "shutdown",
	[HTTP_REJECT_BAD_FRAMING] = "bad_framing",
	[HTTP_REJECT_MALFORMED] = "malformed_request",
	[HTTP_REJECT_HEADER_TIMEOUT] = "header_timeout",
	[HTTP_REJECT_SLOW_BODY] = "slow_body",
	[HTTP_REJECT_CLIENT_LIMIT] = "client_limit",
	[HTTP_REJECT_CONNECTION_PRESSURE] = "connection_pressure",
};

const char *http_reject_name(enum http_reject why)
{
	return why < HTTP_REJECT_COUNT ? reject_names[why] : "unknown";
}

http_metrics *http_metrics_new(size_t nroutes)
{
	http_metrics *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->nroutes = nroutes;
	m->duration = calloc(nroutes + 1, sizeof *m->duration);
	if (!m->duration) {
		free(m);
		return NULL;
	}
	return m;
}

void http_metrics_free(http_metrics *m)
{
	if (!m)
		return;
	free(m->duration);
	free(m->statuses);
	free(m);
}

static void observe(histogram *h, const double *bounds, size_t n, double x)
{
	size_t i = 0;
	while (i < n && x > bounds[i])
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum += x;
}

void http_metrics_request(http_metrics *m, size_t route, int status, double seconds)
{
	if (route > m->nroutes)
		route = m->nroutes;
	observe(&m->duration[route], duration_bounds, NDURATION, seconds);
	for (size_t i = 0; i < m->nstatuses; i++)
		if (m->statuses[i].route == route && m->statuses[i].status == status) {
			m->statuses[i].count++;
			return;
		}
	if (m->nstatuses == m->capstatuses) {
		size_t cap = m->capstatuses ? 2 * m->capstatuses : 16;
		status_count *s = realloc(m->statuses, cap * sizeof *s);
		if (!s)
			return; /* a count lost, never the server */
		m->statuses = s;
		m->capstatuses = cap;
	}
	m->statuses[m->nstatuses++] = (status_count){route, status, 1};
}

void http_metrics_iterations(http_metrics *m, int iterations)
{
	observe(&m->iterations, iteration_bounds, NITERATION, (double)iterations);
}

void http_metrics_reject(http_metrics *m, enum http_reject why)
{
	if (why < HTTP_REJECT_COUNT)
		m->rejects[why]++;
}

/* The page is written into proto's text buffer; a failed allocation sticks
 * and shows at the end. */
static void put(proto_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(proto_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	proto_text_vprintf(t, fmt, ap);
	va_end(ap);
}

static const char *route_label(const http_metrics *m, size_t route)
{
	return route < m->nroutes ? http_route_at(route)->path : "other";
}

/* One histogram's lines; `labels` is "" or `name="value",`. */
static void put_histogram(proto_text *t, const char *name, const char *labels, const histogram *h,
                          const double *bounds, size_t n)
{
	uint64_t cumulative = 0;
	for (size_t i = 0; i < n; i++) {
		cumulative += h->bucket[i];
		put(t, "%s_bucket{%sle=\"%g\"} %llu\n", name, labels, bounds[i],
		    (unsigned long long)cumulative);
	}
	cumulative += h->bucket[n];
	put(t, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cumulative);
	size_t ll = strlen(labels);
	/* _sum and _count carry the labels without the trailing comma. */
	put(t, "%s_sum%s%.*s%s %.9g\n", name, ll ? "{" : "", ll ? (int)ll - 1 : 0, labels,
	    ll ? "}" : "", h->sum);
	put(t, "%s_count%s%.*s%s %llu\n", name, ll ? "{" : "", ll ? (int)ll - 1 : 0, labels,
	    ll ? "}" : "", (unsigned long long)h->count);
}

/* Resident set size from /proc/self/statm (pages), or -1. */
static long long resident_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return -1;
	unsigned long long size, resident;
	int n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	if (n != 2)
		return -1;
	return (long long)resident * sysconf(_SC_PAGESIZE);
}

/* The shape store's Redis tier (store_redis.h). */
static void render_redis(proto_text *t, const store_redis_stats *r)
{
	put(t,
	    "# HELP clashd_store_redis_up 1 while the shape store's Redis answers (its last "
	    "call did), 0 while it is unreachable or too slow.\n"
	    "# TYPE clashd_store_redis_up gauge\nclashd_store_redis_up %d\n",
	    r->up);
	put(t,
	    "# HELP clashd_store_redis_writes_refused 1 while Redis refuses writes "
	    "(maxmemory reached with noeviction).\n"
	    "# TYPE clashd_store_redis_writes_refused gauge\n"
	    "clashd_store_redis_writes_refused %d\n",
	    r->writes_refused);
	put(t,
	    "# HELP clashd_store_redis_queued_bytes Bytes of stored shapes answered and "
	    "waiting to be written to Redis.\n"
	    "# TYPE clashd_store_redis_queued_bytes gauge\n"
	    "clashd_store_redis_queued_bytes %zu\n",
	    r->queued_bytes);
	static const char *const names[] = {"reads",   "hits",      "refused",
	                                    "skipped", "writes",    "write_errors",
	                                    "errors",  "too_large", "forgotten",
	                                    "waits",   "dropped",   "tenant_evictions"};
	static const char *const helps[] =
		{"Refs memory lacked, looked up in Redis.",
	         "Of them, a value came back.",
	         "Values refused: not the shape of their id (corrupt or planted).",
	         "Lookups and writes not tried while Redis was down.",
	         "Shapes written through to Redis.",
	         "Write-throughs that failed or Redis refused.",
	         "Calls to Redis that failed (unreachable, timed out).",
	         "Values refused unread: larger than --store-redis-max-value.",
	         "Shapes dropped from memory: deleted on a replica sharing the Redis.",
	         "Reads that waited for a value another replica was writing.",
	         "Deletes not sent to Redis: the writer's queue was full.",
	         ("A tenant's values removed from Redis to keep its bytes there within "
	          "--store-per-tenant.")};
	const uint64_t v[] = {r->reads,     r->hits,         r->refused, r->skipped,
	                      r->writes,    r->write_errors, r->errors,  r->too_large,
	                      r->forgotten, r->waits,        r->dropped, r->tenant_evictions};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		put(t,
		    "# HELP clashd_store_redis_%s_total %s\n# TYPE clashd_store_redis_%s_total "
		    "counter\nclashd_store_redis_%s_total %llu\n",
		    names[i], helps[i], names[i], names[i], (unsigned long long)v[i]);
}

char *http_metrics_render(const http_metrics *m, const http_gauges *g, size_t *len)
{
	proto_text t = {0};
	if (proto_text_reserve(&t, 8192) != 0)
		return NULL;

	put(&t, "# HELP clashd_http_requests_total HTTP requests answered, by route and status.\n"
	        "# TYPE clashd_http_requests_total counter\n");
	for (size_t i = 0; i < m->nstatuses; i++)
		put(&t, "clashd_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
		    route_label(m, m->statuses[i].route), m->statuses[i].status,
		    (unsigned long long)m->statuses[i].count);

	put(&t, "# HELP clashd_http_request_duration_seconds Time from a request's headers to "
	        "its completion.\n"
	        "# TYPE clashd_http_request_duration_seconds histogram\n");
	for (size_t r = 0; r <= m->nroutes; r++) {
		if (m->duration[r].count == 0)
			continue;
		char labels[128];
		snprintf(labels, sizeof labels, "route=\"%s\",", route_label(m, r));
		put_histogram(&t, "clashd_http_request_duration_seconds", labels, &m->duration[r],
		              duration_bounds, NDURATION);
	}

	put(&t, "# HELP clashd_query_iterations Iterations of each answered query.\n"
	        "# TYPE clashd_query_iterations histogram\n");
	put_histogram(&t, "clashd_query_iterations", "", &m->iterations, iteration_bounds,
	              NITERATION);

	put(&t, "# HELP clashd_rejections_total Requests turned away or cut short, by reason.\n"
	        "# TYPE clashd_rejections_total counter\n");
	for (int i = 0; i < HTTP_REJECT_COUNT; i++)
		put(&t, "clashd_rejections_total{reason=\"%s\"} %llu\n", reject_names[i],
		    (unsigned long long)m->rejects[i]);

	put(&t,
	    "# HELP clashd_queue_depth Queries waiting for a worker thread.\n"
	    "# TYPE clashd_queue_depth gauge\nclashd_queue_depth %u\n",
	    g->queued);
	put(&t,
	    "# HELP clashd_workers_busy Queries running on a worker thread.\n"
	    "# TYPE clashd_workers_busy gauge\nclashd_workers_busy %u\n",
	    g->running);
	put(&t,
	    "# HELP clashd_queries_admitted Queries admitted and not yet computed "
	    "(receiving their body, queued or running).\n"
	    "# TYPE clashd_queries_admitted gauge\nclashd_queries_admitted %u\n",
	    g->admitted);
	put(&t,
	    "# HELP clashd_queries_admitted_limit The bound on admitted queries (--max-queue).\n"
	    "# TYPE clashd_queries_admitted_limit gauge\nclashd_queries_admitted_limit %u\n",
	    g->queue_limit);
	put(&t,
	    "# HELP clashd_http_requests_in_flight Requests begun and not yet completed.\n"
	    "# TYPE clashd_http_requests_in_flight gauge\nclashd_http_requests_in_flight %u\n",
	    g->in_flight);
	put(&t,
	    "# HELP clashd_connections Open client connections.\n"
	    "# TYPE clashd_connections gauge\nclashd_connections %u\n",
	    g->connections);
	put(&t,
	    "# HELP clashd_draining 1 once SIGTERM has started the drain.\n"
	    "# TYPE clashd_draining gauge\nclashd_draining %d\n",
	    g->draining ? 1 : 0);
	put(&t,
	    "# HELP clashd_log_lines_dropped_total Log lines dropped because stdout did not "
	    "keep up.\n"
	    "# TYPE clashd_log_lines_dropped_total counter\nclashd_log_lines_dropped_total %llu\n",
	    log_lines_dropped());
	if (g->has_store) {
		const proto_store_stats *st = &g->store;
		put(&t,
		    "# HELP clashd_shape_store_entries Shapes in the shape store.\n"
		    "# TYPE clashd_shape_store_entries gauge\nclashd_shape_store_entries %zu\n",
		    st->entries);
		put(&t,
		    "# HELP clashd_shape_store_bytes Bytes the stored shapes hold (arrays, "
		    "trees, preparations), those removed but still in use included.\n"
		    "# TYPE clashd_shape_store_bytes gauge\nclashd_shape_store_bytes %zu\n",
		    st->bytes);
		put(&t,
		    "# HELP clashd_shape_store_held_removed_bytes Of them, shapes deleted or "
		    "evicted that a request still holds.\n"
		    "# TYPE clashd_shape_store_held_removed_bytes gauge\n"
		    "clashd_shape_store_held_removed_bytes %zu\n",
		    st->held_removed_bytes);
		put(&t,
		    "# HELP clashd_shape_store_clients Client addresses with shapes stored.\n"
		    "# TYPE clashd_shape_store_clients gauge\nclashd_shape_store_clients %zu\n",
		    st->clients);
		put(&t,
		    "# HELP clashd_shape_store_limit_bytes The bound on those bytes "
		    "(--shape-store).\n"
		    "# TYPE clashd_shape_store_limit_bytes gauge\n"
		    "clashd_shape_store_limit_bytes %zu\n",
		    st->budget);
		put(&t,
		    "# HELP clashd_shape_store_hits_total Refs (and GETs) that found their "
		    "shape.\n"
		    "# TYPE clashd_shape_store_hits_total counter\n"
		    "clashd_shape_store_hits_total %llu\n",
		    (unsigned long long)st->hits);
		put(&t,
		    "# HELP clashd_shape_store_misses_total Refs (and GETs) that did not.\n"
		    "# TYPE clashd_shape_store_misses_total counter\n"
		    "clashd_shape_store_misses_total %llu\n",
		    (unsigned long long)st->misses);
		put(&t,
		    "# HELP clashd_shape_store_evictions_total Shapes dropped, least recently "
		    "used first, to make room.\n"
		    "# TYPE clashd_shape_store_evictions_total counter\n"
		    "clashd_shape_store_evictions_total %llu\n",
		    (unsigned long long)st->evictions);
		put(&t,
		    "# HELP clashd_shape_store_client_evictions_total Of them, a client's own, "
		    "to keep it within --store-per-client.\n"
		    "# TYPE clashd_shape_store_client_evictions_total counter\n"
		    "clashd_shape_store_client_evictions_total %llu\n",
		    (unsigned long long)st->client_evictions);
	}
	if (g->ntenants) {
		put(&t,
		    "# HELP clashd_shape_store_tenant_bytes Bytes of one tenant's shapes in this "
		    "replica's store (--store-per-tenant bounds it).\n"
		    "# TYPE clashd_shape_store_tenant_bytes gauge\n");
		for (size_t i = 0; i < g->ntenants; i++)
			put(&t, "clashd_shape_store_tenant_bytes{tenant=\"%s\"} %zu\n",
			    g->tenants[i].name, g->tenants[i].bytes);
		put(&t,
		    "# HELP clashd_shape_store_tenant_entries One tenant's shapes in this replica's "
		    "store.\n# TYPE clashd_shape_store_tenant_entries gauge\n");
		for (size_t i = 0; i < g->ntenants; i++)
			put(&t, "clashd_shape_store_tenant_entries{tenant=\"%s\"} %zu\n",
			    g->tenants[i].name, g->tenants[i].entries);
	}
	if (g->has_redis)
		render_redis(&t, &g->redis);
	long long rss = resident_bytes();
	if (rss >= 0)
		put(&t,
		    "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
		    "# TYPE process_resident_memory_bytes gauge\n"
		    "process_resident_memory_bytes %lld\n",
		    rss);
	return proto_text_finish(&t, len);
}
