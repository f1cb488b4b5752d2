/*
 * config.c — parse clashd's flags and environment into a server_config.
 *
 * Precedence is flag, then environment, then default, so a container can set
 * CLASHD_* once and an operator can still override one value on the command
 * line.  Every value is checked strictly (no trailing junk, no silent
 * clamping): a typo must stop the server at start-up with a message naming
 * the flag or variable, not run it with a value nobody asked for.  An empty
 * environment variable counts as unset (orchestrators often template empty
 * strings).
 *
 * The settings are a table (options[]), as Redis's config.c has: each row
 * carries its flag, variable, bounds, default, help and the server_config
 * field it fills (FIELD: a number stored and logged by its type), or, for
 * the few that are more than a number (an address, files, lists, a URL),
 * the pair of functions that read and log it (CUSTOM).  Adding a setting is
 * a row here, its id in config.h and its field; --help, the reading and the
 * start-up log line all come from the table, so none can forget it.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <uv.h>

#include "clash.h"
#include "http_cors.h"
#include "http_route.h"
#include "proto.h"

enum option_kind {
	KIND_ADDRESS,  /* HOST:PORT */
	KIND_COUNT,    /* a whole number in [min, max] */
	KIND_SIZE,     /* bytes, with K/M/G suffixes, in [min, max] */
	KIND_DURATION, /* milliseconds from "30s", "250ms", "2m" or "30", in [min, max] */
	KIND_FILE,     /* a path, read at start-up */
	KIND_LIST,     /* comma-separated items */
	KIND_DIR,      /* a directory, read at start-up; "auto" or "off" */
	KIND_RATIO,    /* a decimal number from 0 to 1 */
	KIND_URL       /* a redis:// URL */
};

/* How a numeric setting is kept in its server_config field. */
enum field_type {
	FIELD_NONE = 0, /* a CUSTOM setting */
	FIELD_SIZE,     /* size_t */
	FIELD_UINT,     /* unsigned */
	FIELD_DOUBLE,   /* double (KIND_RATIO) */
	FIELD_BOOL,     /* int, 0 or 1 */
	FIELD_SECONDS   /* unsigned whole seconds, rounded up from the milliseconds read */
};

typedef struct option option;

/* A CUSTOM setting's reader (0, or -1 with a reason in `why`) and the
 * value its start-up log line shows. */
typedef int (*option_apply)(server_config *cfg, const option *o, const char *v, char *why,
                            size_t whylen);
typedef log_field (*option_log)(const server_config *cfg, const char *key);

struct option {
	const char *flag; /* "--max-body" */
	const char *env;  /* "CLASHD_MAX_BODY" */
	const char *key;  /* its name in the start-up log line */
	enum option_kind kind;
	unsigned long long min, max;
	const char *def;      /* default as text; NULL: computed or none */
	const char *arg;      /* the value's name in --help */
	const char *help;     /* one line, or two separated by '\n' */
	enum field_type type; /* a number's field: its type and offset */
	size_t field;
	option_apply apply; /* or a CUSTOM setting's functions */
	option_log log;
};

#define FIELD(name, t) .type = FIELD_##t, .field = offsetof(server_config, name)
#define CUSTOM(a, l) .apply = (a), .log = (l)

static int apply_listen(server_config *, const option *, const char *, char *, size_t);
static int apply_token_file(server_config *, const option *, const char *, char *, size_t);
static int apply_auth_open(server_config *, const option *, const char *, char *, size_t);
static int apply_cors(server_config *, const option *, const char *, char *, size_t);
static int apply_tls(server_config *, const option *, const char *, char *, size_t);
static int apply_web(server_config *, const option *, const char *, char *, size_t);
static int apply_store_redis(server_config *, const option *, const char *, char *, size_t);
static log_field log_listen(const server_config *, const char *);
static log_field log_token_file(const server_config *, const char *);
static log_field log_auth_open(const server_config *, const char *);
static log_field log_cors(const server_config *, const char *);
static log_field log_tls_cert(const server_config *, const char *);
static log_field log_tls_key(const server_config *, const char *);
static log_field log_web(const server_config *, const char *);
static log_field log_store_redis(const server_config *, const char *);

#define KIB 1024ULL
#define MIB (1024ULL * 1024)
#define GIB (1024ULL * 1024 * 1024)
#define DAY_MS 86400000ULL

#define STR_(x) #x
#define STR(x) STR_(x)

/* clang-format off */
static const option options[CONFIG_NOPTIONS] = {
	[CONFIG_LISTEN] = {"--listen", "CLASHD_LISTEN", "listen", KIND_ADDRESS, 0, 0,
	                   "127.0.0.1:8080", "HOST:PORT",
	                   "address to listen on; [::1]:PORT for IPv6, :PORT for every\n"
	                   "IPv4 interface, PORT 0 for any free port",
		CUSTOM(apply_listen, log_listen)},
	[CONFIG_THREADS] = {"--threads", "CLASHD_THREADS", "threads", KIND_COUNT, 1,
	                    CONFIG_MAX_THREADS, NULL, "N",
	                    "worker threads for decoding and queries (default: usable cores,\n"
	                    "a cgroup CPU quota included)",
		FIELD(threads, UINT)},
	[CONFIG_MAX_BODY] = {"--max-body", "CLASHD_MAX_BODY", "max_body_bytes", KIND_SIZE, 64,
	                     GIB, "16M", "SIZE", "largest request body; larger ones get 413",
		FIELD(max_body, SIZE)},
	[CONFIG_MAX_VERTICES] = {"--max-vertices", "CLASHD_MAX_VERTICES", "max_vertices",
	                         KIND_COUNT, 1, 1000000000, STR(PROTO_DEFAULT_MAX_VERTICES), "N",
	                         "most vertices in one shape (or part); more get 422",
		FIELD(max_vertices, SIZE)},
	[CONFIG_MAX_SHAPES] = {"--max-shapes", "CLASHD_MAX_SHAPES", "max_shapes", KIND_COUNT, 2,
	                       1000000, STR(PROTO_DEFAULT_MAX_SHAPES), "N",
	                       "most shapes in one request, compound parts included; 422",
		FIELD(max_shapes, SIZE)},
	[CONFIG_MAX_DEPTH] = {"--max-depth", "CLASHD_MAX_DEPTH", "max_depth", KIND_COUNT, 4, 2048,
	                      STR(PROTO_DEFAULT_MAX_DEPTH), "N",
	                      "deepest nesting of JSON arrays and objects; deeper gets 400",
		FIELD(max_depth, SIZE)},
	[CONFIG_MAX_PART_DEPTH] = {"--max-part-depth", "CLASHD_MAX_PART_DEPTH", "max_part_depth",
	                           KIND_COUNT, 1, CLASH_COMPOUND_MAX_DEPTH,
	                           STR(PROTO_DEFAULT_MAX_PART_DEPTH), "N",
	                           "deepest nesting of compound shapes' parts (at most the\n"
	                           "core's " STR(CLASH_COMPOUND_MAX_DEPTH) "); deeper gets 422",
		FIELD(max_part_depth, SIZE)},
	[CONFIG_MAX_BATCH] = {"--max-batch", "CLASHD_MAX_BATCH", "max_batch", KIND_COUNT, 1,
	                      100000000, STR(PROTO_DEFAULT_MAX_QUERIES), "N",
	                      "most queries in one batch (POST /v1/batch); more get 422",
		FIELD(max_batch, SIZE)},
	[CONFIG_MAX_CLASHES] = {"--max-clashes", "CLASHD_MAX_CLASHES", "max_clashes", KIND_COUNT,
	                        1, 100000000, STR(PROTO_DEFAULT_MAX_CLASHES), "N",
	                        "most clashes listed in a scene's answer; the rest are counted\n"
	                        "and the answer says truncated",
		FIELD(max_clashes, SIZE)},
	[CONFIG_OVERLAP_REGIONS] = {"--overlap-regions", "CLASHD_OVERLAP_REGIONS",
	                            "overlap_regions", KIND_COUNT, 1, 1000000,
	                            STR(CLASH_OVERLAP_MAX_REGIONS), "N",
	                            "most regions a mesh pair's clash report lists (want\n"
	                            "\"regions\"); the others are counted, and it says truncated",
		FIELD(overlap_regions, SIZE)},
	[CONFIG_OVERLAP_POINTS] = {"--overlap-points", "CLASHD_OVERLAP_POINTS", "overlap_points",
	                           KIND_COUNT, 16, 100000000, STR(CLASH_OVERLAP_MAX_POINTS), "N",
	                           "most intersection-curve points of one clash report, all\n"
	                           "its regions together; past them it says truncated",
		FIELD(overlap_points, SIZE)},
	[CONFIG_OVERLAP_TRIANGLES] = {"--overlap-triangles", "CLASHD_OVERLAP_TRIANGLES",
	                              "overlap_triangles", KIND_COUNT, 1, 100000000,
	                              STR(CLASH_OVERLAP_MAX_TRIANGLES), "N",
	                              "most triangle indices a clash report lists per side of a\n"
	                              "region (the totals count them all)",
		FIELD(overlap_triangles, SIZE)},
	[CONFIG_MAX_REPLY] = {"--max-reply", "CLASHD_MAX_REPLY", "max_reply_bytes", KIND_SIZE,
	                      64 * KIB, GIB, "16M", "SIZE",
	                      "largest answer: a scene's clash list stops short of it\n"
	                      "(truncated), a batch whose answers exceed it gets 422",
		FIELD(max_reply, SIZE)},
	[CONFIG_SHAPE_STORE] = {"--shape-store", "CLASHD_SHAPE_STORE", "shape_store_bytes",
	                        KIND_SIZE, 1 * KIB, 1024 * GIB, "256M", "SIZE",
	                        "bytes of shapes kept by POST /v1/shapes (vertices and\n"
	                        "preparations); the least recently used go first",
		FIELD(shape_store, SIZE)},
	[CONFIG_STORE_PER_CLIENT] = {"--store-per-client", "CLASHD_STORE_PER_CLIENT",
	                             "store_per_client_bytes", KIND_SIZE, 0, 1024 * GIB, NULL,
	                             "SIZE",
	                             "bytes of the shape store one client address's uploads may\n"
	                             "hold; beyond, its own least recently used go first\n"
	                             "(default a quarter of --shape-store; 0: no share)",
		FIELD(store_per_client, SIZE)},
	[CONFIG_IMPORT_MEMORY] = {"--import-memory", "CLASHD_IMPORT_MEMORY", "import_memory_bytes",
	                          KIND_SIZE, 64 * MIB, 1024 * GIB, "512M", "SIZE",
	                          "address space of the process that reads one mesh file\n"
	                          "(POST /v1/shapes); a file that needs more gets 422",
		FIELD(import_memory, SIZE)},
	[CONFIG_IMPORT_CPU] = {"--import-cpu", "CLASHD_IMPORT_CPU", "import_cpu_ms", KIND_DURATION,
	                       1000, DAY_MS, "10s", "TIME",
	                       "CPU time of the process that reads one mesh file (whole\n"
	                       "seconds); a file that needs more gets 422",
		FIELD(import_cpu_ms, UINT)},
	[CONFIG_MAX_IMPORT_BODY] = {"--max-import-body", "CLASHD_MAX_IMPORT_BODY",
	                            "max_import_body_bytes", KIND_SIZE, 64, GIB, "32M", "SIZE",
	                            "largest mesh file (POST /v1/shapes with a mesh type; once\n"
	                            "inflated when gzip); larger ones get 413",
		FIELD(max_import_body, SIZE)},
	[CONFIG_MAX_IMPORTS] = {"--max-imports", "CLASHD_MAX_IMPORTS", "max_imports", KIND_COUNT, 1,
	                        1000000, "2", "N",
	                        "mesh files admitted at once (receiving, waiting or read);\n"
	                        "more get 503 + Retry-After at once",
		FIELD(max_imports, UINT)},
	[CONFIG_WELD] = {"--weld", "CLASHD_WELD", "weld", KIND_RATIO, 0, 1, STR(PROTO_DEFAULT_WELD),
	                 "RATIO",
	                 "a mesh's vertices within RATIO times its box's diagonal are\n"
	                 "joined (its \"weld\" overrides it); 0: only equal ones",
		FIELD(weld, DOUBLE)},
	[CONFIG_MAX_CONNECTIONS] = {"--max-connections", "CLASHD_MAX_CONNECTIONS",
	                            "max_connections", KIND_COUNT, 1, 1000000, "1000", "N",
	                            "open connections at most; further ones wait in the\n"
	                            "kernel's backlog until one closes",
		FIELD(max_connections, UINT)},
	[CONFIG_MAX_CONNECTIONS_PER_CLIENT] = {
		"--max-connections-per-client", "CLASHD_MAX_CONNECTIONS_PER_CLIENT",
		"max_connections_per_client", KIND_COUNT, 0, 1000000, "100", "N",
		"open connections from one client address; more are closed at\n"
		"once (0: no limit, e.g. behind a load balancer)",
		FIELD(max_connections_per_client, UINT)},
	[CONFIG_MAX_QUEUE] = {"--max-queue", "CLASHD_MAX_QUEUE", "max_queue", KIND_COUNT, 1,
	                      1000000, NULL, "N",
	                      "queries admitted and not yet computed (receiving, queued or\n"
	                      "running); more get 503 + Retry-After at once (default 16 x threads)",
		FIELD(max_queue, UINT)},
	[CONFIG_MAX_QUEUE_PER_CLIENT] = {
		"--max-queue-per-client", "CLASHD_MAX_QUEUE_PER_CLIENT", "max_queue_per_client",
		KIND_COUNT, 0, 1000000, NULL, "N",
		"queries admitted from one client address; more get 429 +\n"
		"Retry-After (default half of --max-queue; 0: no limit)",
		FIELD(max_queue_per_client, UINT)},
	[CONFIG_IDLE_TIMEOUT] = {"--idle-timeout", "CLASHD_IDLE_TIMEOUT", "idle_timeout_ms",
	                         KIND_DURATION, 1000, DAY_MS, "30s", "TIME",
	                         "a connection silent this long is closed (whole seconds)",
		FIELD(idle_timeout_ms, UINT)},
	[CONFIG_HEADER_TIMEOUT] = {"--header-timeout", "CLASHD_HEADER_TIMEOUT", "header_timeout_ms",
	                           KIND_DURATION, 100, DAY_MS, "10s", "TIME",
	                           "time to receive a request head, from the accept or the\n"
	                           "previous request's end; then the connection is closed",
		FIELD(header_timeout_ms, UINT)},
	[CONFIG_READ_TIMEOUT] = {"--read-timeout", "CLASHD_READ_TIMEOUT", "read_timeout_ms",
	                         KIND_DURATION, 100, DAY_MS, "60s", "TIME",
	                         "time to receive a whole request (and to send its answer),\n"
	                         "however slowly the bytes trickle in; then 408 or close",
		FIELD(read_timeout_ms, UINT)},
	[CONFIG_MIN_BODY_RATE] = {"--min-body-rate", "CLASHD_MIN_BODY_RATE", "min_body_rate",
	                          KIND_SIZE, 0, GIB, "1K", "SIZE",
	                          "bytes per second a request body must average after\n"
	                          "--body-grace; a slower one gets 408 (0: no minimum)",
		FIELD(min_body_rate, SIZE)},
	[CONFIG_BODY_GRACE] = {"--body-grace", "CLASHD_BODY_GRACE", "body_grace_ms", KIND_DURATION,
	                       0, DAY_MS, "5s", "TIME",
	                       "time a request body is given before --min-body-rate applies",
		FIELD(body_grace_ms, UINT)},
	[CONFIG_REQUEST_TIMEOUT] = {"--request-timeout", "CLASHD_REQUEST_TIMEOUT",
	                            "request_timeout_ms", KIND_DURATION, 1, DAY_MS, "10s", "TIME",
	                            "time for a query in queue and on a worker; then it is\n"
	                            "stopped and answered 504",
		FIELD(request_timeout_ms, UINT)},
	[CONFIG_DRAIN_TIMEOUT] = {"--drain-timeout", "CLASHD_DRAIN_TIMEOUT", "drain_timeout_ms",
	                          KIND_DURATION, 0, DAY_MS, "20s", "TIME",
	                          "on SIGTERM, time for requests in flight to finish; then they\n"
	                          "are stopped (503) and the process exits",
		FIELD(drain_timeout_ms, UINT)},
	[CONFIG_AUTH_TOKEN_FILE] = {"--auth-token-file", "CLASHD_AUTH_TOKEN_FILE",
	                            "auth_token_file", KIND_FILE, 0, 64 * KIB, NULL, "FILE",
	                            "require \"Authorization: Bearer <token>\", the token being\n"
	                            "this file's content (default: no authentication)",
		CUSTOM(apply_token_file, log_token_file)},
	[CONFIG_AUTH_OPEN] = {"--auth-open", "CLASHD_AUTH_OPEN", "auth_open", KIND_LIST, 0, 0,
	                      "/livez,/readyz,/metrics", "PATHS",
	                      "paths served without a token when one is set (comma-separated;\n"
	                      "\"none\" or an empty flag value: none)",
		CUSTOM(apply_auth_open, log_auth_open)},
	[CONFIG_CORS_ORIGIN] = {"--cors-origin", "CLASHD_CORS_ORIGIN", "cors_origin", KIND_LIST, 0,
	                        0, "", "ORIGINS",
	                        "browser origins allowed by CORS, e.g. https://app.example,\n"
	                        "http://localhost:* (any port), https://*.example.com (any\n"
	                        "subdomain); comma-separated; * for any; default: none",
		CUSTOM(apply_cors, log_cors)},
	[CONFIG_TLS_CERT] = {"--tls-cert", "CLASHD_TLS_CERT", "tls_cert", KIND_FILE, 0, 1 * MIB,
	                     NULL, "FILE", "serve HTTPS with this PEM certificate (chain)",
		CUSTOM(apply_tls, log_tls_cert)},
	[CONFIG_TLS_KEY] = {"--tls-key", "CLASHD_TLS_KEY", "tls_key", KIND_FILE, 0, 1 * MIB, NULL,
	                    "FILE", "and this PEM private key (both or neither)",
		CUSTOM(apply_tls, log_tls_key)},
	[CONFIG_WEB] = {"--web", "CLASHD_WEB", "web", KIND_DIR, 0, 0, "auto", "DIR",
	                "serve the demo page (make web) from DIR at /web/; auto: the web\n"
	                "directory beside clashd's binary, if there is one; off: none",
		CUSTOM(apply_web, log_web)},
	[CONFIG_STORE_REDIS] = {"--store-redis", "CLASHD_STORE_REDIS", "store_redis", KIND_URL, 0, 0,
	                        NULL, "URL",
	                        "keep every stored shape in this Redis too, shared by replicas:\n"
	                        "redis://[:PASSWORD@]HOST[:PORT][/DB] (default: memory only)",
		CUSTOM(apply_store_redis, log_store_redis)},
	[CONFIG_STORE_TTL] = {"--store-ttl", "CLASHD_STORE_TTL", "store_ttl_ms", KIND_DURATION, 0,
	                      3650 * DAY_MS, "0", "TIME",
	                      "a shape in Redis expires this long after its last use (whole\n"
	                      "seconds; 0: never, Redis's maxmemory-policy alone)",
		FIELD(store_ttl_s, SECONDS)},
	[CONFIG_STORE_REDIS_TIMEOUT] = {"--store-redis-timeout", "CLASHD_STORE_REDIS_TIMEOUT",
	                                "store_redis_timeout_ms", KIND_DURATION, 1, 60000, "250ms",
	                                "TIME",
	                                "longest wait for Redis (connect, each answer); then the\n"
	                                "shape is served from memory or is unknown",
		FIELD(store_redis_timeout_ms, UINT)},
	[CONFIG_STORE_REDIS_MAX_VALUE] = {"--store-redis-max-value", "CLASHD_STORE_REDIS_MAX_VALUE",
	                                  "store_redis_max_value_bytes", KIND_SIZE, 1 * KIB, GIB,
	                                  "64M", "SIZE",
	                                  "largest shape read from Redis; a larger value is refused\n"
	                                  "before it is read (the shape is then unknown)",
		FIELD(store_redis_max_value, SIZE)},
	[CONFIG_STORE_PER_TENANT] = {"--store-per-tenant", "CLASHD_STORE_PER_TENANT",
	                             "store_per_tenant_bytes", KIND_SIZE, 0, 1024 * GIB, NULL, "SIZE",
	                             "bytes of the shape store one tenant's shapes may hold; beyond,\n"
	                             "its own least recently used go first (default a quarter of\n"
	                             "--shape-store; tenants: --auth-token-file)",
		FIELD(store_per_tenant, SIZE)},
	[CONFIG_STORE_DELETE] = {"--store-delete", "CLASHD_STORE_DELETE", "store_delete", KIND_COUNT,
	                         0, 1, "0", "0|1",
	                         "1: DELETE /v1/shapes/{id} removes a shape stored without a\n"
	                         "tenant (0: refused, 403; a tenant may always delete its own)",
		FIELD(store_delete, BOOL)},
};
/* clang-format on */

void config_usage(FILE *out)
{
	fprintf(out, "usage: clashd [OPTION...]\n"
	             "       clashd --healthcheck URL\n"
	             "\n"
	             "Serve collision queries over HTTP (POST /v1/query, /v1/batch,\n"
	             "/v1/contains, /v1/scene; GET /livez, /readyz, /metrics,\n"
	             "/v1/openapi.json).  Each option also reads the environment variable\n"
	             "shown; a flag wins over the environment.\n"
	             "\n");
	for (int i = 0; i < CONFIG_NOPTIONS; i++) {
		const option *o = &options[i];
		fprintf(out, "  %s %s\n", o->flag, o->arg);
		for (const char *h = o->help; *h;) {
			size_t n = strcspn(h, "\n");
			fprintf(out, "      %.*s\n", (int)n, h);
			h += n + (h[n] == '\n');
		}
		if (o->def && o->def[0])
			fprintf(out, "      (env %s, default %s)\n", o->env, o->def);
		else
			fprintf(out, "      (env %s)\n", o->env);
	}
	fprintf(out, "  --healthcheck URL\n"
	             "      GET URL (http://HOST:PORT/PATH, or https:// without verifying the\n"
	             "      certificate) and exit: 0 on a 2xx answer within 5 s, else 1 (for\n"
	             "      container probes; nothing is served)\n"
	             "  --help\n"
	             "      show this text\n"
	             "\n"
	             "Sizes: bytes, or with K, M, G (KiB, MiB, GiB).  Times: seconds, or with\n"
	             "ms, s, m.  Logs are JSON lines on stdout.  SIGTERM or SIGINT drains: the\n"
	             "listener closes, /readyz answers 503, requests in flight finish (within\n"
	             "--drain-timeout), exit status 0.\n");
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Strict unsigned decimal prefix: digits only, no sign, no spaces, <= max.
 * Returns the number of digits read (0: none, or over max). */
static size_t parse_digits(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return i;
}

/* A number followed by one of the units (each a suffix and its factor);
 * none is factor `bare`. */
typedef struct unit {
	const char *suffix;
	unsigned long long factor;
} unit;

static int parse_scaled(const char *s, const unit *units, unsigned long long bare,
                        unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	size_t n = parse_digits(s, ULLONG_MAX / 1024, &v);
	if (n == 0)
		return -1;
	unsigned long long factor = 0;
	if (s[n] == '\0') {
		factor = bare;
	} else {
		for (const unit *u = units; u->suffix; u++)
			if (strcmp(s + n, u->suffix) == 0)
				factor = u->factor;
	}
	if (factor == 0 || (v && factor > max / v))
		return -1;
	*out = v * factor;
	return 0;
}

static const unit size_units[] = {{"K", KIB}, {"KiB", KIB}, {"M", MIB}, {"MiB", MIB},
                                  {"G", GIB}, {"GiB", GIB}, {NULL, 0}};
static const unit time_units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {NULL, 0}};

/* HOST:PORT, [V6]:PORT or :PORT -> socket address.  Returns 0 or -1 with a
 * reason in `why`. */
static int parse_listen(const char *s, server_config *cfg, char *why, size_t whylen)
{
	char host[256];
	const char *port;

	if (strlen(s) >= sizeof cfg->listen) {
		snprintf(why, whylen, "too long");
		return -1;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':') {
			snprintf(why, whylen, "expected [IPV6]:PORT");
			return -1;
		}
		size_t n = (size_t)(close - s - 1);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		port = close + 2;
	} else {
		const char *colon = strrchr(s, ':');
		if (!colon) {
			snprintf(why, whylen, "expected HOST:PORT");
			return -1;
		}
		size_t n = (size_t)(colon - s);
		memcpy(host, s, n);
		host[n] = '\0';
		if (strchr(host, ':')) {
			snprintf(why, whylen, "write IPv6 addresses in brackets, [::1]:PORT");
			return -1;
		}
		port = colon + 1;
	}

	unsigned long long portnum;
	size_t nd = parse_digits(port, 65535, &portnum);
	if (nd == 0 || port[nd] != '\0') {
		snprintf(why, whylen, "port must be a number from 0 to 65535");
		return -1;
	}

	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (s[0] == '[')
		hints.ai_flags |= AI_NUMERICHOST;
	int rc = getaddrinfo(host[0] ? host : "0.0.0.0", NULL, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(why, whylen, "cannot resolve the host: %s",
		         rc ? gai_strerror(rc) : "no address");
		return -1;
	}
	if ((res->ai_family != AF_INET && res->ai_family != AF_INET6) ||
	    res->ai_addrlen > sizeof cfg->addr) {
		freeaddrinfo(res);
		snprintf(why, whylen, "the host is not an IP address");
		return -1;
	}
	memset(&cfg->addr, 0, sizeof cfg->addr);
	memcpy(&cfg->addr, res->ai_addr, res->ai_addrlen);
	cfg->addrlen = (socklen_t)res->ai_addrlen;
	freeaddrinfo(res);
	if (cfg->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&cfg->addr)->sin_port = htons((uint16_t)portnum);
	else
		((struct sockaddr_in6 *)&cfg->addr)->sin6_port = htons((uint16_t)portnum);
	snprintf(cfg->listen, sizeof cfg->listen, "%s", s);
	return 0;
}

/* The cgroup v2 CPU quota ("max 100000" or "QUOTA PERIOD"), rounded up to
 * whole cores; 0 when there is none.  uv_available_parallelism() in libuv
 * 1.44 looks only at the affinity mask, so a container limited to 2 CPUs on
 * a 64-core node would otherwise start 64 workers. */
static unsigned cgroup_cpu_quota(void)
{
	FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (!f)
		return 0;
	char quota[32];
	unsigned long long period = 0;
	int n = fscanf(f, "%31s %llu", quota, &period);
	fclose(f);
	if (n != 2 || period == 0 || strcmp(quota, "max") == 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long q = strtoull(quota, &end, 10);
	if (errno || *end || q == 0)
		return 0;
	unsigned long long cores = (q + period - 1) / period;
	return cores > CONFIG_MAX_THREADS ? CONFIG_MAX_THREADS : (unsigned)cores;
}

unsigned config_default_threads(void)
{
	unsigned n = uv_available_parallelism(); /* affinity mask, >= 1 */
	unsigned q = cgroup_cpu_quota();
	if (q && q < n)
		n = q;
	if (n < 1)
		n = 1;
	return n > CONFIG_MAX_THREADS ? CONFIG_MAX_THREADS : n;
}

/* The value of --name VALUE or --name=VALUE at argv[*i]; advances *i past a
 * separate value.  NULL when argv[*i] is not this flag; *missing is set when
 * it is but the value is absent. */
static const char *flag_value(const char *name, int argc, char **argv, int *i, int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static const char *env_value(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* Read a whole file of at most `max` bytes into a malloc'd NUL-terminated
 * string. */
static char *read_file(const char *path, size_t max, char *why, size_t whylen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(why, whylen, "cannot open it: %s", strerror(errno));
		return NULL;
	}
	char *buf = malloc(max + 2);
	size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
	int failed = buf && ferror(f);
	fclose(f);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (failed || n > max) {
		snprintf(why, whylen, failed ? "cannot read it" : "larger than %zu bytes", max);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		snprintf(why, whylen, "it contains a NUL byte");
		free(buf);
		return NULL;
	}
	return buf;
}

/* RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
static int is_b64token(const char *t)
{
	size_t i = 0;
	for (; t[i]; i++) {
		char c = t[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'))
			break;
	}
	if (i == 0)
		return 0;
	while (t[i] == '=')
		i++;
	return t[i] == '\0';
}

/* scheme://host[:port], as a browser sends it in Origin; or "*". */
/* Split a comma-separated list (items trimmed, empty ones skipped). */
static int split_list(const char *v, char **items, size_t *n, char *why, size_t whylen)
{
	*n = 0;
	const char *p = v;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t len = strcspn(p, ",");
		size_t trimmed = len;
		while (trimmed > 0 && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t'))
			trimmed--;
		if (trimmed > 0) {
			if (*n == CONFIG_MAX_LIST) {
				snprintf(why, whylen, "more than %d items", CONFIG_MAX_LIST);
				return -1;
			}
			items[*n] = strndup(p, trimmed);
			if (!items[*n]) {
				snprintf(why, whylen, "out of memory");
				return -1;
			}
			(*n)++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* --web: "off", "auto" (the web directory beside the running binary,
 * served when it holds an index.html, else nothing) or a directory, which
 * must hold one. */
static int apply_web(server_config *cfg, const option *o, const char *v, char *why, size_t whylen)
{
	(void)o;
	char dir[sizeof cfg->web_dir];
	int automatic = strcmp(v, "auto") == 0;
	if (strcmp(v, "off") == 0)
		return 0;
	if (automatic) {
		char exe[sizeof dir];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 8);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (!slash)
			return 0;
		strcpy(slash, "/web");
		snprintf(dir, sizeof dir, "%s", exe);
	} else if (strlen(v) >= sizeof dir) {
		snprintf(why, whylen, "path too long");
		return -1;
	} else {
		snprintf(dir, sizeof dir, "%s", v);
	}
	if (http_static_load(&cfg->web, dir, why, whylen) != 0)
		return automatic ? 0 : -1;
	snprintf(cfg->web_dir, sizeof cfg->web_dir, "%s", dir);
	return 0;
}

/* A tenant's name: 1 to CONFIG_TENANT_MAX of [A-Za-z0-9._-]. */
static int is_tenant(const char *t)
{
	size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	return n > 0 && n <= CONFIG_TENANT_MAX && t[n] == '\0';
}

/* The token file's lines, cut in place: "TOKEN" or "TOKEN tenant=NAME"
 * each (blank lines skipped; a final newline and CRs are editors'). */
static int split_tokens(server_config *cfg, char *text, char *why, size_t whylen)
{
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		char *tok = strtok(line, " \t"), *tenant = tok ? strtok(NULL, " \t") : NULL;
		if (!tok)
			continue;
		if (!is_b64token(tok) ||
		    (tenant && (strncmp(tenant, "tenant=", 7) != 0 || !is_tenant(tenant + 7))) ||
		    strtok(NULL, " \t")) {
			snprintf(why, whylen,
			         "each line must be a token (letters, digits and -._~+/, "
			         "then any '='), optionally followed by tenant=NAME (1 to %d "
			         "of letters, digits and -._)",
			         CONFIG_TENANT_MAX);
			return -1;
		}
		if (cfg->n_auth_tokens == CONFIG_MAX_TOKENS) {
			snprintf(why, whylen, "more than %d tokens", CONFIG_MAX_TOKENS);
			return -1;
		}
		for (size_t i = 0; i < cfg->n_auth_tokens; i++)
			if (strcmp(cfg->auth_tokens[i], tok) == 0) {
				snprintf(why, whylen, "a token is there twice");
				return -1;
			}
		cfg->auth_tokens[cfg->n_auth_tokens] = tok;
		cfg->auth_tenants[cfg->n_auth_tokens++] = tenant ? tenant + 7 : NULL;
	}
	if (cfg->n_auth_tokens == 0) {
		snprintf(why, whylen,
		         "no token in it: the token must be one line of letters, digits "
		         "and -._~+/ (then any '='), not empty");
		return -1;
	}
	return 0;
}

/* A number read for setting o (n, or x for a ratio) into its field. */
static void store_number(server_config *cfg, const option *o, unsigned long long n, double x)
{
	char *f = (char *)cfg + o->field;
	switch (o->type) {
	case FIELD_SIZE: *(size_t *)f = (size_t)n; break;
	case FIELD_UINT: *(unsigned *)f = (unsigned)n; break;
	case FIELD_DOUBLE: *(double *)f = x; break;
	case FIELD_BOOL: *(int *)f = n != 0; break;
	case FIELD_SECONDS: *(unsigned *)f = (unsigned)((n + 999) / 1000); break;
	case FIELD_NONE: break;
	}
}

/* The start-up log's value of a number's field (seconds shown as the
 * milliseconds the setting is read in). */
static log_field number_log(const server_config *cfg, const option *o)
{
	const char *f = (const char *)cfg + o->field;
	switch (o->type) {
	case FIELD_SIZE: return LOG_INT(o->key, *(const size_t *)f);
	case FIELD_UINT: return LOG_INT(o->key, *(const unsigned *)f);
	case FIELD_DOUBLE: return LOG_REAL(o->key, *(const double *)f);
	case FIELD_BOOL: return LOG_BOOL(o->key, *(const int *)f);
	case FIELD_SECONDS: return LOG_INT(o->key, 1000ULL * *(const unsigned *)f);
	case FIELD_NONE: break;
	}
	return LOG_NULL(o->key);
}

/* Store `v` (the text of setting `id`) in cfg.  Returns 0, or -1 with a
 * reason in `why`. */
static int apply(server_config *cfg, int id, const char *v, char *why, size_t whylen)
{
	const option *o = &options[id];
	unsigned long long n = 0;
	double x = 0.0;
	switch (o->kind) {
	case KIND_COUNT: {
		size_t nd = parse_digits(v, o->max, &n);
		if (nd == 0 || v[nd] != '\0' || n < o->min) {
			snprintf(why, whylen, "expected a whole number from %llu to %llu", o->min,
			         o->max);
			return -1;
		}
		break;
	}
	case KIND_SIZE:
		if (parse_scaled(v, size_units, 1, o->max, &n) != 0 || n < o->min) {
			snprintf(why, whylen,
			         "expected a size from %llu bytes to %llu MiB: bytes, "
			         "or a number with K, M or G",
			         o->min, o->max / MIB);
			return -1;
		}
		break;
	case KIND_DURATION:
		if (parse_scaled(v, time_units, 1000, o->max, &n) != 0 || n < o->min) {
			snprintf(why, whylen,
			         "expected a time from %llu ms to %llu s: seconds, or a "
			         "number with ms, s or m",
			         o->min, o->max / 1000);
			return -1;
		}
		break;
	case KIND_RATIO:
		if (proto_weld_parse(v, &x) != 0 || x > (double)o->max) {
			snprintf(why, whylen, "expected a decimal number from 0 to %llu", o->max);
			return -1;
		}
		break;
	case KIND_ADDRESS:
	case KIND_FILE:
	case KIND_LIST:
	case KIND_DIR:
	case KIND_URL: break;
	}

	if (o->apply)
		return o->apply(cfg, o, v, why, whylen);
	store_number(cfg, o, n, x);
	return 0;
}

static int apply_listen(server_config *cfg, const option *o, const char *v, char *why,
                        size_t whylen)
{
	(void)o;
	return parse_listen(v, cfg, why, whylen);
}

static int apply_token_file(server_config *cfg, const option *o, const char *v, char *why,
                            size_t whylen)
{
	if (strlen(v) >= sizeof cfg->auth_token_file) {
		snprintf(why, whylen, "path too long");
		return -1;
	}
	snprintf(cfg->auth_token_file, sizeof cfg->auth_token_file, "%s", v);
	char *t = read_file(v, (size_t)o->max, why, whylen);
	if (!t)
		return -1;
	cfg->auth_token = t;
	return split_tokens(cfg, t, why, whylen);
}

static int apply_auth_open(server_config *cfg, const option *o, const char *v, char *why,
                           size_t whylen)
{
	(void)o;
	/* "none" says "no open path" where an empty value cannot (an empty
	 * variable counts as unset). */
	if (strcmp(v, "none") == 0)
		return 0;
	if (split_list(v, cfg->auth_open, &cfg->n_auth_open, why, whylen) != 0)
		return -1;
	for (size_t i = 0; i < cfg->n_auth_open; i++)
		if (!http_route_find(cfg->auth_open[i])) {
			snprintf(why, whylen, "%.200s is not one of clashd's paths",
			         cfg->auth_open[i]);
			return -1;
		}
	return 0;
}

static int apply_cors(server_config *cfg, const option *o, const char *v, char *why, size_t whylen)
{
	(void)o;
	if (split_list(v, cfg->cors_origins, &cfg->n_cors_origins, why, whylen) != 0)
		return -1;
	for (size_t i = 0; i < cfg->n_cors_origins; i++)
		if (!http_cors_pattern_valid(cfg->cors_origins[i])) {
			snprintf(why, whylen,
			         "%.80s is not an origin: expected "
			         "http(s)://HOST[:PORT], * as the port or the "
			         "first label of HOST (http://localhost:*, "
			         "https://*.example.com), or *",
			         cfg->cors_origins[i]);
			return -1;
		}
	return 0;
}

static int apply_tls(server_config *cfg, const option *o, const char *v, char *why, size_t whylen)
{
	const int cert = o == &options[CONFIG_TLS_CERT];
	char *file = cert ? cfg->tls_cert_file : cfg->tls_key_file;
	if (strlen(v) >= sizeof cfg->tls_cert_file) {
		snprintf(why, whylen, "path too long");
		return -1;
	}
	snprintf(file, sizeof cfg->tls_cert_file, "%s", v);
	char *pem = read_file(v, (size_t)o->max, why, whylen);
	if (!pem)
		return -1;
	if (!strstr(pem, "-----BEGIN ")) {
		free(pem);
		snprintf(why, whylen, "not a PEM file (no -----BEGIN line)");
		return -1;
	}
	if (cert)
		cfg->tls_cert = pem;
	else
		cfg->tls_key = pem;
	return 0;
}

static int apply_store_redis(server_config *cfg, const option *o, const char *v, char *why,
                             size_t whylen)
{
	(void)o;
	if (store_redis_parse_url(v, &cfg->store_redis, why, whylen) != 0)
		return -1;
	const int v6 = strchr(cfg->store_redis.host, ':') != NULL;
	snprintf(cfg->store_redis_text, sizeof cfg->store_redis_text, "redis://%s%s%s:%d/%d",
	         v6 ? "[" : "", cfg->store_redis.host, v6 ? "]" : "", cfg->store_redis.port,
	         cfg->store_redis.db);
	return 0;
}

void config_free(server_config *cfg)
{
	http_static_free(&cfg->web);
	cfg->web_dir[0] = '\0';
	free(cfg->auth_token);
	free(cfg->tls_cert);
	free(cfg->tls_key);
	for (size_t i = 0; i < cfg->n_auth_open; i++)
		free(cfg->auth_open[i]);
	for (size_t i = 0; i < cfg->n_cors_origins; i++)
		free(cfg->cors_origins[i]);
	cfg->auth_token = cfg->tls_cert = cfg->tls_key = NULL;
	cfg->n_auth_tokens = 0;
	cfg->n_auth_open = cfg->n_cors_origins = 0;
}

enum config_status config_load(server_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	const char *given[CONFIG_NOPTIONS] = {0};

	memset(cfg, 0, sizeof *cfg);
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int missing = 0, id = -1;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return CONFIG_HELP;
		if ((v = flag_value("--healthcheck", argc, argv, &i, &missing)) != NULL) {
			cfg->healthcheck_url = v;
			continue;
		}
		for (int k = 0; k < CONFIG_NOPTIONS && !v && !missing; k++)
			if ((v = flag_value(options[k].flag, argc, argv, &i, &missing)) != NULL)
				id = k;
		if (v) {
			given[id] = v;
		} else if (missing) {
			set_err(err, errlen, "%s needs a value", argv[i]);
			return CONFIG_ERROR;
		} else {
			set_err(err, errlen, "unknown argument \"%s\"", argv[i]);
			return CONFIG_ERROR;
		}
	}
	if (cfg->healthcheck_url)
		return CONFIG_PROBE;

	for (int id = 0; id < CONFIG_NOPTIONS; id++) {
		const option *o = &options[id];
		const char *v = given[id], *name = o->flag;
		cfg->source[id] = "flag";
		if (!v) {
			name = o->env;
			cfg->source[id] = "env";
			if (!(v = env_value(o->env))) {
				cfg->source[id] = "default";
				v = o->def;
			}
		}
		if (!v)
			continue; /* computed below, or off */
		char why[256];
		if (apply(cfg, id, v, why, sizeof why) != 0) {
			set_err(err, errlen, "%s: bad value \"%.200s\": %s", name, v, why);
			return CONFIG_ERROR;
		}
	}
	if (!cfg->threads)
		cfg->threads = config_default_threads();
	if (!cfg->max_queue)
		cfg->max_queue = 16 * cfg->threads;
	/* One client may hold half the slots: another still gets the rest. */
	if (strcmp(cfg->source[CONFIG_MAX_QUEUE_PER_CLIENT], "default") == 0)
		cfg->max_queue_per_client = (cfg->max_queue + 1) / 2;
	/* Four clients may fill the store before they evict each other. */
	if (strcmp(cfg->source[CONFIG_STORE_PER_CLIENT], "default") == 0)
		cfg->store_per_client = cfg->shape_store / 4;
	if (strcmp(cfg->source[CONFIG_STORE_PER_TENANT], "default") == 0)
		cfg->store_per_tenant = cfg->shape_store / 4;
	if (!cfg->tls_cert != !cfg->tls_key) {
		set_err(err, errlen, "%s: TLS needs both --tls-cert and --tls-key",
		        cfg->tls_cert ? "--tls-key" : "--tls-cert");
		return CONFIG_ERROR;
	}
	return CONFIG_RUN;
}

static log_field log_listen(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->listen);
}

static log_field log_token_file(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->auth_token ? cfg->auth_token_file : NULL);
}

static log_field log_auth_open(const server_config *cfg, const char *key)
{
	return LOG_STRV(key, (const char *const *)cfg->auth_open, cfg->n_auth_open);
}

static log_field log_cors(const server_config *cfg, const char *key)
{
	return LOG_STRV(key, (const char *const *)cfg->cors_origins, cfg->n_cors_origins);
}

static log_field log_tls_cert(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->tls_cert ? cfg->tls_cert_file : NULL);
}

static log_field log_tls_key(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->tls_key ? cfg->tls_key_file : NULL);
}

static log_field log_web(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->web_dir[0] ? cfg->web_dir : NULL);
}

static log_field log_store_redis(const server_config *cfg, const char *key)
{
	return LOG_STR(key, cfg->store_redis_text[0] ? cfg->store_redis_text : NULL);
}

void config_fields(const server_config *cfg, const char *listen, log_field *out, config_keys *keys)
{
	for (int id = 0; id < CONFIG_NOPTIONS; id++) {
		const option *o = &options[id];
		log_field v = o->log ? o->log(cfg, o->key) : number_log(cfg, o);
		if (id == CONFIG_LISTEN && listen) /* the address bound */
			v = LOG_STR(o->key, listen);
		snprintf(keys->source[id], sizeof keys->source[id], "%s_source", o->key);
		out[2 * id] = v;
		out[2 * id + 1] = LOG_STR(keys->source[id], cfg->source[id]);
	}
}
