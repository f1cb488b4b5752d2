/*
 * main.c — clashd: read the configuration, start the HTTP server on a libuv
 * loop, drain on SIGTERM/SIGINT, exit 0 once every request is answered.
 * `clashd --healthcheck URL` probes a running clashd instead.
 *
 * Exit status: 0 after a clean drain, 1 when the server cannot start (for
 * instance the address is in use), 2 for a bad flag or environment value.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <uv.h>

#include "config.h"
#include "fanout.h"
#include "healthcheck.h"
#include "http_server.h"
#include "import_sandbox.h"
#include "log.h"
#include "proto.h"
#include "store.h"
#include "store_redis.h"

typedef struct app {
	http_server *server;
	uv_signal_t sigterm;
	uv_signal_t sigint;
} app;

/* Tenants (tokens of --auth-token-file naming one): a view of the store
 * each (proto_store_view: its own ids, its own share) and a context with
 * it; tokens naming the same tenant share them. */
typedef struct tenants {
	proto_store *view[CONFIG_MAX_TOKENS];
	proto_context ctx[CONFIG_MAX_TOKENS];
	const proto_context *of_token[CONFIG_MAX_TOKENS]; /* NULL: no tenant */
	size_t n;
} tenants;

static int tenants_make(tenants *t, const server_config *cfg, const proto_context *ctx)
{
	t->n = 0;
	for (size_t i = 0; i < cfg->n_auth_tokens; i++) {
		const char *name = cfg->auth_tenants[i];
		t->of_token[i] = NULL;
		for (size_t j = 0; name && j < i && !t->of_token[i]; j++)
			if (cfg->auth_tenants[j] && strcmp(cfg->auth_tenants[j], name) == 0)
				t->of_token[i] = t->of_token[j];
		if (!name || t->of_token[i])
			continue;
		t->view[t->n] = proto_store_view(ctx->store, name, cfg->store_per_tenant);
		if (!t->view[t->n])
			return -1;
		t->ctx[t->n] = *ctx;
		t->ctx[t->n].store = t->view[t->n];
		t->of_token[i] = &t->ctx[t->n++];
	}
	return 0;
}

/* A shape deleted on some replica sharing the Redis: its copy in this
 * one's memory goes too, from the base store or the tenant's view. */
typedef struct forget_target {
	proto_store *base;
	const tenants *ten;
} forget_target;

static int on_forgotten(void *arg, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	const forget_target *f = arg;
	proto_store *s = scope ? NULL : f->base;
	for (size_t i = 0; scope && !s && i < f->ten->n; i++)
		if (strcmp(proto_store_scope(f->ten->view[i]), scope) == 0)
			s = f->ten->view[i];
	return s && proto_store_remove(s, id) == 0;
}

static void tenants_free(tenants *t)
{
	for (size_t i = 0; i < t->n; i++)
		proto_store_free(t->view[i]);
	t->n = 0;
}

static void nothing(uv_work_t *w)
{
	(void)w;
}

static void on_signal(uv_signal_t *h, int signum)
{
	app *a = h->data;
	LOG_EMIT("info", "signal", LOG_STR("signal", signum == SIGTERM ? "SIGTERM" : "SIGINT"));
	/* A second signal changes nothing: requests in flight are still
	 * finished (--drain-timeout bounds it; an orchestrator's SIGKILL is
	 * the hard stop). */
	if (a->server)
		http_server_drain(a->server);
}

/* The server has closed all its handles: close ours so uv_run returns. */
static void on_server_closed(void *arg)
{
	app *a = arg;
	a->server = NULL;
	uv_close((uv_handle_t *)&a->sigterm, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
}

/* Each connection is a file descriptor: make room for --max-connections
 * (plus the listener, epoll, the log and libuv's own) when the hard limit
 * allows; say so when it does not. */
static void raise_fd_limit(unsigned connections)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)connections + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rlim_t before = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		LOG_EMIT("warn", "file descriptor limit below --max-connections",
		         LOG_INT("nofile_before", before), LOG_INT("nofile", rl.rlim_cur),
		         LOG_INT("max_connections", connections));
}

int main(int argc, char **argv)
{
	server_config cfg;
	char err[512];

	if (argc > 1 && strcmp(argv[1], IMPORT_SANDBOX_FLAG) == 0)
		return import_sandbox_main(argc, argv);
	switch (config_load(&cfg, argc, argv, err, sizeof err)) {
	case CONFIG_HELP:
		config_free(&cfg);
		config_usage(stdout);
		return 0;
	case CONFIG_PROBE: config_free(&cfg); return healthcheck_run(cfg.healthcheck_url);
	case CONFIG_ERROR:
		config_free(&cfg);
		fprintf(stderr, "clashd: %s (see clashd --help)\n", err);
		return 2;
	case CONFIG_RUN: break;
	}

	/* A peer that closes early must cost an EPIPE, not the process. */
	signal(SIGPIPE, SIG_IGN);
	/* From here on a stuck stdout costs log lines, never answers. */
	if (log_start() != 0) {
		LOG_EMIT("error", "cannot start", LOG_STR("error", "log writer thread"));
		config_free(&cfg);
		return 1;
	}
	/* libuv reads this once, when the first work item is queued. */
	char threads[16];
	snprintf(threads, sizeof threads, "%u", cfg.threads);
	setenv("UV_THREADPOOL_SIZE", threads, 1);
	proto_init();
	/* What every request is answered under, handed to each proto call. */
	proto_context ctx = {
		.limits =
			{
				.max_depth = cfg.max_depth,
				.max_vertices = cfg.max_vertices,
				.max_shapes = cfg.max_shapes,
				.max_part_depth = cfg.max_part_depth,
				.max_clashes = cfg.max_clashes,
				.max_reply = cfg.max_reply,
			},
		.max_queries = cfg.max_batch,
		.store = proto_store_new(cfg.shape_store, cfg.store_per_client),
		.weld = cfg.weld,
		.overlap = {cfg.overlap_regions, cfg.overlap_points, cfg.overlap_triangles},
	};
	if (!ctx.store) {
		LOG_EMIT("error", "cannot start", LOG_STR("error", "shape store"));
		config_free(&cfg);
		return 1;
	}
	/* The shared second tier: each worker connects on its first use. */
	store_redis *redis = NULL;
	if (cfg.store_redis_text[0]) {
		redis = store_redis_new(&cfg.store_redis, cfg.store_redis_timeout_ms,
		                        cfg.store_ttl_s, cfg.store_redis_max_value,
		                        cfg.store_per_tenant, cfg.weld);
		if (!redis) {
			LOG_EMIT("error", "cannot start", LOG_STR("error", "shape store redis"));
			proto_store_free(ctx.store);
			config_free(&cfg);
			return 1;
		}
		proto_store_set_tier(ctx.store, store_redis_tier(redis));
	}
	raise_fd_limit(cfg.max_connections);
	/* The threads that share a scene's narrow phase with its worker
	 * (fanout.c says why they are apart from libuv's pool). */
	fanout *fan = NULL;
	if (fanout_start(&fan, cfg.threads) != 0) {
		LOG_EMIT("error", "cannot start", LOG_STR("error", "fanout threads"));
		proto_store_free(ctx.store);
		store_redis_free(redis);
		config_free(&cfg);
		return 1;
	}
	ctx.parallel = (proto_parallel){fanout_run, fan};
	import_sandbox sandbox = {cfg.import_memory, (cfg.import_cpu_ms + 999) / 1000};
	ctx.importer = import_sandbox_importer(&sandbox);

	uv_loop_t loop;
	int rc = uv_loop_init(&loop);
	if (rc != 0) {
		LOG_EMIT("error", "cannot start", LOG_STR("error", uv_strerror(rc)));
		fanout_stop(fan);
		proto_store_free(ctx.store);
		store_redis_free(redis);
		config_free(&cfg);
		return 1;
	}
	/* libuv creates its worker threads when the first work item is
	 * queued: queue an empty one now, so that the first request does not
	 * wait for them. */
	uv_work_t pool_start;
	uv_queue_work(&loop, &pool_start, nothing, NULL);
	/* Signals first: whoever reads "listening" may send SIGTERM at once. */
	app a = {0};
	uv_signal_init(&loop, &a.sigterm);
	uv_signal_init(&loop, &a.sigint);
	a.sigterm.data = a.sigint.data = &a;
	uv_signal_start(&a.sigterm, on_signal, SIGTERM);
	uv_signal_start(&a.sigint, on_signal, SIGINT);

	static tenants ten; /* large: not on the stack */
	if (tenants_make(&ten, &cfg, &ctx) != 0) {
		LOG_EMIT("error", "cannot start", LOG_STR("error", "tenants' stores"));
		rc = UV_ENOMEM;
	} else {
		rc = http_server_start(&a.server, &loop, &cfg, &ctx, on_server_closed, &a);
	}
	static forget_target forget;
	forget = (forget_target){ctx.store, &ten};
	if (rc == 0 && redis && store_redis_watch(redis, on_forgotten, &forget) != 0)
		LOG_EMIT("warn", "shape store redis: cannot follow deletes",
		         LOG_STR("error", "watcher thread"));
	if (rc == 0 && redis)
		http_server_watch_redis(a.server, redis);
	if (rc == 0 && ten.n)
		http_server_set_tenants(a.server, ten.of_token);
	if (rc != 0) {
		LOG_EMIT("error", "cannot listen", LOG_STR("listen", cfg.listen),
		         LOG_STR("error", uv_strerror(rc)));
		on_server_closed(&a);
		uv_run(&loop, UV_RUN_DEFAULT);
		uv_loop_close(&loop);
		fanout_stop(fan);
		store_redis_stop(redis);
		tenants_free(&ten);
		proto_store_free(ctx.store);
		store_redis_free(redis);
		config_free(&cfg);
		return 1;
	}
	/* The effective configuration, every value with its source; "listen"
	 * is the address actually bound (port 0 resolved). */
	config_keys keys;
	log_field fields[CONFIG_NFIELDS + 6];
	config_fields(&cfg, http_server_address(a.server), fields, &keys);
	log_field *more = fields + CONFIG_NFIELDS;
	*more++ = LOG_STR("listen_requested", cfg.listen);
	*more++ = LOG_BOOL("tls", cfg.tls_cert != NULL);
	*more++ = LOG_STR("auth", cfg.auth_token ? "bearer" : "none");
	*more++ = LOG_INT("tenants", ten.n);
	*more++ = LOG_INT("pid", getpid());
	/* libuv's pool runs requests; as many again share scenes. */
	*more++ = LOG_INT("scene_threads", cfg.threads);
	log_emit("info", "listening", fields, (size_t)(more - fields));

	uv_run(&loop, UV_RUN_DEFAULT);
	rc = uv_loop_close(&loop);
	uv_library_shutdown(); /* joins the worker threads */
	fanout_stop(fan);
	store_redis_stop(redis); /* its threads use the stores */
	tenants_free(&ten);
	proto_store_free(ctx.store);
	store_redis_free(redis); /* after the threads: their connections are closed */
	config_free(&cfg);
	LOG_EMIT("info", "exit", LOG_INT("status", rc == 0 ? 0 : 1));
	return rc == 0 ? 0 : 1;
}
