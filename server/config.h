/*
 * config.h — clashd's run-time configuration: command-line flags with
 * environment fallbacks (flag, then environment, then default).
 *
 * Every setting is one row of the table in config.c: its flag, its
 * CLASHD_* variable, its default, its bounds and its --help line; the
 * start-up log line lists every effective value with where it came from
 * (config_fields).  `clashd --help` prints the table.
 *
 * HOST is an IPv4 address, a name, or an IPv6 address in brackets
 * ([::1]:8080); an empty HOST (":8080") means every IPv4 interface.  PORT 0
 * lets the kernel pick a free port (the start-up log line names it).
 * Sizes are bytes, or a number with K, M or G (KiB, MiB, GiB); durations
 * are seconds, or a number with ms, s or m.
 */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

#include "http_static.h"
#include "log.h"
#include "store_redis.h"

/* libuv 1.44 refuses thread pools larger than this (MAX_THREADPOOL_SIZE). */
#define CONFIG_MAX_THREADS 1024

/* Origins (--cors-origin) and open paths (--auth-open) at most. */
#define CONFIG_MAX_LIST 32

/* Tokens in --auth-token-file at most, and a tenant's longest name. */
#define CONFIG_MAX_TOKENS 256
#define CONFIG_TENANT_MAX 64

/* The settings, in --help and log order. */
enum config_option {
	CONFIG_LISTEN,
	CONFIG_THREADS,
	CONFIG_MAX_BODY,
	CONFIG_MAX_VERTICES,
	CONFIG_MAX_SHAPES,
	CONFIG_MAX_DEPTH,
	CONFIG_MAX_PART_DEPTH,
	CONFIG_MAX_BATCH,
	CONFIG_MAX_CLASHES,
	CONFIG_OVERLAP_REGIONS,
	CONFIG_OVERLAP_POINTS,
	CONFIG_OVERLAP_TRIANGLES,
	CONFIG_MAX_REPLY,
	CONFIG_SHAPE_STORE,
	CONFIG_STORE_PER_CLIENT,
	CONFIG_IMPORT_MEMORY,
	CONFIG_IMPORT_CPU,
	CONFIG_MAX_IMPORT_BODY,
	CONFIG_MAX_IMPORTS,
	CONFIG_WELD,
	CONFIG_MAX_CONNECTIONS,
	CONFIG_MAX_CONNECTIONS_PER_CLIENT,
	CONFIG_MAX_QUEUE,
	CONFIG_MAX_QUEUE_PER_CLIENT,
	CONFIG_IDLE_TIMEOUT,
	CONFIG_HEADER_TIMEOUT,
	CONFIG_READ_TIMEOUT,
	CONFIG_MIN_BODY_RATE,
	CONFIG_BODY_GRACE,
	CONFIG_REQUEST_TIMEOUT,
	CONFIG_DRAIN_TIMEOUT,
	CONFIG_AUTH_TOKEN_FILE,
	CONFIG_AUTH_OPEN,
	CONFIG_CORS_ORIGIN,
	CONFIG_TLS_CERT,
	CONFIG_TLS_KEY,
	CONFIG_WEB,
	CONFIG_STORE_REDIS,
	CONFIG_STORE_TTL,
	CONFIG_STORE_REDIS_TIMEOUT,
	CONFIG_STORE_REDIS_MAX_VALUE,
	CONFIG_STORE_PER_TENANT,
	CONFIG_STORE_DELETE,
	CONFIG_NOPTIONS
};

typedef struct server_config {
	char listen[256];             /* HOST:PORT as given */
	struct sockaddr_storage addr; /* what it resolved to */
	socklen_t addrlen;
	unsigned threads; /* worker threads, 1..CONFIG_MAX_THREADS */

	/* Limits on one request (see README, Operations). */
	size_t max_body;          /* bytes of body: more is a 413 */
	size_t max_vertices;      /* per shape: 422 */
	size_t max_shapes;        /* per request, parts included: 422 */
	size_t max_depth;         /* JSON nesting: 400 */
	size_t max_part_depth;    /* compound nesting: 422 */
	size_t max_batch;         /* queries in one batch: 422 */
	size_t max_clashes;       /* clashes listed in a scene's answer */
	size_t overlap_regions;   /* a clash report's regions listed */
	size_t overlap_points;    /* its curve points, all regions together */
	size_t overlap_triangles; /* its triangles listed per side of a region */
	size_t max_reply;         /* bytes of one answer */
	size_t shape_store;       /* bytes of stored shapes (POST /v1/shapes) */
	size_t store_per_client;  /* of them, one client address's uploads
	                                   (0: no share) */
	size_t import_memory;     /* a mesh import helper's address space */
	unsigned import_cpu_ms;   /* a mesh import helper's CPU time */
	size_t max_import_body;   /* bytes of a mesh file's body (inflated):
	                                   more is a 413 */
	unsigned max_imports;     /* mesh files admitted at once: more
	                                   are answered 503 at once */
	double weld;              /* meshes' vertices within this much of
	                                   their box's diagonal are joined */

	/* Limits on the server. */
	unsigned max_connections; /* open at once; more wait in the backlog */
	unsigned max_queue;       /* queries admitted and not yet computed:
	                                   more are answered 503 at once */
	/* Per client address (0: no limit; behind a load balancer every
	 * request comes from its address). */
	unsigned max_connections_per_client; /* more are closed at accept */
	unsigned max_queue_per_client;       /* admitted queries: more get 429 */
	unsigned idle_timeout_ms;            /* a silent connection is closed */
	unsigned header_timeout_ms;          /* to receive a request head, from the
	                                   accept or the previous request */
	unsigned read_timeout_ms;            /* to receive one request, and to send its
	                                   answer: the slow-client bound */
	size_t min_body_rate;                /* bytes/s a body must average after
	                                   body_grace_ms, else 408 (0: none) */
	unsigned body_grace_ms;
	unsigned request_timeout_ms; /* queue wait + compute: then 504 */
	unsigned drain_timeout_ms;   /* SIGTERM to exit, at most (about) */

	/* Security. */
	char *auth_token;                      /* malloc'd token file text, cut into the
	                                   tokens below; NULL: no auth */
	char *auth_tokens[CONFIG_MAX_TOKENS];  /* into auth_token */
	char *auth_tenants[CONFIG_MAX_TOKENS]; /* token i's tenant, or NULL */
	size_t n_auth_tokens;
	char auth_token_file[512];
	char *auth_open[CONFIG_MAX_LIST]; /* paths served without a token */
	size_t n_auth_open;
	char *cors_origins[CONFIG_MAX_LIST]; /* allowed Origins ("*": any) */
	size_t n_cors_origins;
	char *tls_cert, *tls_key; /* malloc'd PEM text, or NULL: plain HTTP */
	char tls_cert_file[512], tls_key_file[512];

	/* The demo page (--web): its directory, its files read at start-up
	 * (web_dir empty: not served). */
	char web_dir[512];
	http_static web;

	/* The shape store's second tier (--store-redis): off when
	 * store_redis_text is empty; the text without its password. */
	char store_redis_text[300];
	store_redis_url store_redis;
	unsigned store_ttl_s;            /* refreshed on every read and write (0: none) */
	unsigned store_redis_timeout_ms; /* any one wait for Redis */
	size_t store_redis_max_value;    /* the largest value read from Redis */
	size_t store_per_tenant;         /* bytes of one tenant's shapes */
	int store_delete;                /* DELETE of shapes without a tenant */

	const char *source[CONFIG_NOPTIONS]; /* "flag", "env" or "default" */

	const char *healthcheck_url; /* --healthcheck URL: probe, do not serve */
} server_config;

enum config_status {
	CONFIG_RUN = 0,   /* *cfg is complete: serve */
	CONFIG_HELP = 1,  /* --help was asked for: print config_usage, exit 0 */
	CONFIG_ERROR = 2, /* err holds a one-line message: exit 2 */
	CONFIG_PROBE = 3  /* --healthcheck URL: probe it, exit 0 or 1 */
};

/* Fill *cfg from argv and the environment (reading the token and TLS files
 * it names).  Returns a config_status; on CONFIG_ERROR `err` (errlen bytes)
 * names the bad flag or variable and value.  Release with config_free()
 * whatever it returns. */
enum config_status config_load(server_config *cfg, int argc, char **argv, char *err, size_t errlen);

void config_free(server_config *cfg);

/* The --help text. */
void config_usage(FILE *out);

/* The effective configuration for the start-up log line: every setting,
 * in table order, with its value and then "<key>_source" (CONFIG_NFIELDS
 * fields into `out`); `listen`, when not NULL, stands for cfg->listen (the
 * address actually bound).  Secrets are not in it.  The fields point into
 * *cfg and *keys: keep both until the line is written. */
#define CONFIG_NFIELDS (2 * CONFIG_NOPTIONS)
typedef struct config_keys {
	char source[CONFIG_NOPTIONS][48]; /* "<key>_source" */
} config_keys;
void config_fields(const server_config *cfg, const char *listen, log_field *out, config_keys *keys);

/* The default worker count: the cores this process may run on (affinity
 * mask), lowered to a cgroup v2 CPU quota when one is set. */
unsigned config_default_threads(void);

#endif
