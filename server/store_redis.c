/*
 * store_redis.c — the shape store's tier on Redis (store_redis.h): hiredis's
 * blocking API on the workers, not its libuv adapter on the loop, because
 * a ref is resolved deep inside a request's decoding on a worker, and an
 * answer arriving on the loop would need every decoder to stop and resume
 * around it.  Each calling thread keeps its own connection (thread-local:
 * no lock), every connect and answer bounded by the timeout, so the loop
 * never waits for Redis and a worker waits at most three timeouts a call
 * (an answer failing at once on a connection Redis closed is retried on a
 * new one; a timeout is not).  After a failed call Redis is "down": for a
 * second every call answers "not there" untried, then one call at a time
 * probes it, so a paused or absent Redis costs a worker one wait a second,
 * not one a ref; a thread of its own PINGs a down Redis every second, so
 * /metrics and the log see it come back even when memory serves every
 * ref; it also sends the DELs a DELETE asks for (queued: the loop never
 * waits).  A refused write (maxmemory, noeviction) is no failure.  Keys:
 * "clashd:shape:", a tenant's name and ":" for a tenant's view, the id's
 * 64 hex digits; values: the canonical encoding (shape_id.h).
 */
#include "store_redis.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "log.h"

/* How long Redis stays "down" after a failed call before it is probed. */
#define REDIS_RETRY_MS 1000
/* DELs waiting for the prober thread at most (more are dropped: the
 * shapes then stay until Redis evicts or expires them). */
#define REDIS_FORGET_MAX 256

struct store_redis {
	store_redis_url url;
	struct timeval timeout;
	unsigned ttl_s;
	char ttl[24];          /* ttl_s as text, for EX */
	pthread_key_t conn;    /* the calling thread's redisContext */
	proto_shape_tier tier;
	atomic_int up;
	atomic_int writes_refused;
	atomic_int probing;    /* a thread is trying a down Redis */
	atomic_ullong retry_at; /* ms (monotonic): when a down Redis is tried */
	atomic_ullong reads, hits, refused, skipped, writes, write_errors, errors;
	pthread_t prober;       /* PINGs a down Redis, runs the DELs */
	struct forget {         /* DELs asked for (DELETE), not yet sent */
		char scope[PROTO_STORE_SCOPE + 1];
		int scoped;
		uint8_t id[PROTO_SHAPE_ID_BYTES];
	} forget[REDIS_FORGET_MAX];
	size_t nforget;         /* under mu */
	pthread_mutex_t mu;     /* for `stop` and its signal */
	pthread_cond_t wake;
	int stop;
	int has_prober;
};

static void close_conn(void *c)
{
	if (c)
		redisFree(c);
}

int store_redis_parse_url(const char *text, store_redis_url *out, char *why, size_t whylen)
{
	static const char scheme[] = "redis://";
	memset(out, 0, sizeof *out);
	out->port = 6379;
	if (strncmp(text, scheme, sizeof scheme - 1) != 0) {
		snprintf(why, whylen, "expected redis://[:PASSWORD@]HOST[:PORT][/DB]");
		return -1;
	}
	const char *p = text + sizeof scheme - 1;
	const char *at = strrchr(p, '@');
	if (at) {
		if (*p != ':' || (size_t)(at - p - 1) >= sizeof out->password) {
			snprintf(why, whylen, "a password is written :PASSWORD@ (no user name), "
			                      "at most %zu bytes", sizeof out->password - 1);
			return -1;
		}
		memcpy(out->password, p + 1, (size_t)(at - p - 1));
		p = at + 1;
	}
	size_t n;
	if (*p == '[') {
		n = strcspn(p + 1, "]");
		if (p[1 + n] != ']' || n == 0 || n >= sizeof out->host) {
			snprintf(why, whylen, "an IPv6 host is written in brackets, [::1]");
			return -1;
		}
		memcpy(out->host, p + 1, n);
		p += n + 2;
	} else {
		n = strcspn(p, ":/");
		if (n == 0 || n >= sizeof out->host) {
			snprintf(why, whylen, "no host");
			return -1;
		}
		memcpy(out->host, p, n);
		p += n;
	}
	char *end;
	if (*p == ':') {
		long port = strtol(p + 1, &end, 10);
		if (end == p + 1 || port < 1 || port > 65535 || (*end && *end != '/')) {
			snprintf(why, whylen, "the port must be a number from 1 to 65535");
			return -1;
		}
		out->port = (int)port;
		p = end;
	}
	if (*p == '/' && p[1]) {
		long db = strtol(p + 1, &end, 10);
		if (end == p + 1 || *end || db < 0 || db > 1000000) {
			snprintf(why, whylen, "the database must be a number (/0, /1 ...)");
			return -1;
		}
		out->db = (int)db;
	} else if (*p && strcmp(p, "/") != 0) {
		snprintf(why, whylen, "unexpected \"%.40s\" after the host", p);
		return -1;
	}
	return 0;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

static void set_up(store_redis *r, int up, const char *error)
{
	if (atomic_exchange(&r->up, up) == up)
		return;
	if (up)
		LOG_EMIT("info", "shape store redis reachable", LOG_STR("host", r->url.host),
		         LOG_INT("port", r->url.port));
	else
		LOG_EMIT("warn", "shape store redis unreachable: serving from memory",
		         LOG_STR("host", r->url.host), LOG_INT("port", r->url.port),
		         LOG_STR("error", error), LOG_INT("retry_ms", REDIS_RETRY_MS));
}

/* A reply that is not an error, or an error reply: both prove Redis is
 * there.  AUTH and SELECT on a new connection. */
static int setup(store_redis *r, redisContext *c)
{
	redisReply *y = NULL;
	if (r->url.password[0]) {
		y = redisCommand(c, "AUTH %s", r->url.password);
		if (!y || y->type == REDIS_REPLY_ERROR)
			goto fail;
		freeReplyObject(y);
	}
	if (r->url.db) {
		y = redisCommand(c, "SELECT %d", r->url.db);
		if (!y || y->type == REDIS_REPLY_ERROR)
			goto fail;
		freeReplyObject(y);
	}
	return 0;
fail:
	if (y)
		LOG_EMIT("error", "shape store redis refused the connection's setup",
		         LOG_STR("error", y->str));
	freeReplyObject(y);
	return -1;
}

static redisContext *connect_one(store_redis *r, char *err, size_t errlen)
{
	redisContext *c = redisConnectWithTimeout(r->url.host, r->url.port, r->timeout);
	if (!c || c->err || redisSetTimeout(c, r->timeout) != REDIS_OK || setup(r, c) != 0) {
		snprintf(err, errlen, "%s", !c ? "out of memory" : c->err ? c->errstr : "setup");
		if (c)
			redisFree(c);
		return NULL;
	}
	return c;
}

/* Run one command on this thread's connection; the reply (an error reply
 * included), or NULL: not tried (*skipped) or failed (counted, Redis down). */
static redisReply *call(store_redis *r, int argc, const char **argv, const size_t *lens,
                        int *skipped)
{
	*skipped = 0;
	int probe = 0;
	if (!atomic_load(&r->up)) {
		int idle = 0;
		if (now_ms() < atomic_load(&r->retry_at) ||
		    !atomic_compare_exchange_strong(&r->probing, &idle, 1)) {
			*skipped = 1;
			atomic_fetch_add(&r->skipped, 1);
			return NULL;
		}
		probe = 1;
	}
	redisContext *c = pthread_getspecific(r->conn);
	redisReply *y = NULL;
	char err[128] = "";
	for (int attempt = 0; attempt < 2 && !y; attempt++) {
		int reused = c != NULL;
		if (!c && !(c = connect_one(r, err, sizeof err)))
			break;
		pthread_setspecific(r->conn, c);
		errno = 0;
		y = redisCommandArgv(c, argc, argv, lens);
		if (y)
			break;
		int timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
		snprintf(err, sizeof err, "%s", timed_out ? "timed out" : c->errstr);
		redisFree(c);
		c = NULL;
		pthread_setspecific(r->conn, NULL);
		if (timed_out || !reused)
			break;
	}
	if (y) {
		set_up(r, 1, NULL);
	} else {
		atomic_fetch_add(&r->errors, 1);
		atomic_store(&r->retry_at, now_ms() + REDIS_RETRY_MS);
		set_up(r, 0, err);
	}
	if (probe)
		atomic_store(&r->probing, 0);
	return y;
}

#define KEY_MAX (16 + PROTO_STORE_SCOPE + 2 * PROTO_SHAPE_ID_BYTES)

/* "clashd:shape:" [scope ":"] and the id's hex digits. */
static void key_of(const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES], char key[KEY_MAX])
{
	static const char hex[] = "0123456789abcdef";
	int n = snprintf(key, KEY_MAX, "clashd:shape:%.*s%s", PROTO_STORE_SCOPE, scope ? scope : "",
	                 scope ? ":" : "");
	for (int i = 0; i < PROTO_SHAPE_ID_BYTES; i++) {
		key[n++] = hex[id[i] >> 4];
		key[n++] = hex[id[i] & 15];
	}
	key[n] = '\0';
}

static int tier_get(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                    uint8_t **bytes, size_t *len)
{
	store_redis *r = self;
	char key[KEY_MAX];
	key_of(scope, id, key);
	const char *argv[4] = {r->ttl_s ? "GETEX" : "GET", key, "EX", r->ttl};
	size_t lens[4] = {strlen(argv[0]), strlen(key), 2, strlen(r->ttl)};
	int skipped;
	atomic_fetch_add(&r->reads, 1);
	redisReply *y = call(r, r->ttl_s ? 4 : 2, argv, lens, &skipped);
	if (!y)
		return 1;
	int rc = 1;
	if (y->type == REDIS_REPLY_STRING && y->len > 0) {
		*bytes = malloc(y->len);
		if (*bytes) {
			memcpy(*bytes, y->str, y->len);
			*len = y->len;
			rc = 0;
			atomic_fetch_add(&r->hits, 1);
		}
	} else if (y->type == REDIS_REPLY_ERROR) {
		atomic_fetch_add(&r->errors, 1);
		LOG_EMIT("warn", "shape store redis read refused", LOG_STR("key", key),
		         LOG_STR("error", y->str));
	}
	freeReplyObject(y);
	return rc;
}

static void tier_put(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                     const uint8_t *bytes, size_t len)
{
	store_redis *r = self;
	char key[KEY_MAX];
	key_of(scope, id, key);
	const char *argv[5] = {"SET", key, (const char *)bytes, "EX", r->ttl};
	size_t lens[5] = {3, strlen(key), len, 2, strlen(r->ttl)};
	int skipped;
	redisReply *y = call(r, r->ttl_s ? 5 : 3, argv, lens, &skipped);
	if (!y) {
		if (!skipped)
			atomic_fetch_add(&r->write_errors, 1);
		return;
	}
	int refused = y->type == REDIS_REPLY_ERROR;
	atomic_fetch_add(refused ? &r->write_errors : &r->writes, 1);
	if (atomic_exchange(&r->writes_refused, refused) != refused) {
		if (refused)
			LOG_EMIT("warn", "shape store redis refuses writes: shapes kept in memory only",
			         LOG_STR("error", y->str));
		else
			LOG_EMIT("info", "shape store redis takes writes again");
	}
	freeReplyObject(y);
}

static void tier_refused(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                         const char *why)
{
	store_redis *r = self;
	char key[KEY_MAX];
	key_of(scope, id, key);
	atomic_fetch_add(&r->refused, 1);
	LOG_EMIT("warn", "shape store redis value refused: not the shape of its id",
	         LOG_STR("key", key), LOG_STR("reason", why));
}

static void run_forget(store_redis *r, const struct forget *f)
{
	char key[KEY_MAX];
	key_of(f->scoped ? f->scope : NULL, f->id, key);
	const char *argv[2] = {"DEL", key};
	size_t lens[2] = {3, strlen(key)};
	int skipped;
	freeReplyObject(call(r, 2, argv, lens, &skipped));
}

/* Every REDIS_RETRY_MS, a down Redis is probed like any call; the DELs
 * asked for are sent as they come. */
static void *prober_main(void *arg)
{
	store_redis *r = arg;
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		if (r->nforget) {
			struct forget f = r->forget[--r->nforget];
			pthread_mutex_unlock(&r->mu);
			run_forget(r, &f);
			pthread_mutex_lock(&r->mu);
			continue;
		}
		struct timespec due;
		clock_gettime(CLOCK_REALTIME, &due);
		due.tv_sec += REDIS_RETRY_MS / 1000;
		pthread_cond_timedwait(&r->wake, &r->mu, &due);
		if (r->stop || r->nforget || atomic_load(&r->up))
			continue;
		pthread_mutex_unlock(&r->mu);
		const char *argv[1] = {"PING"};
		size_t lens[1] = {4};
		int skipped;
		freeReplyObject(call(r, 1, argv, lens, &skipped));
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	close_conn(pthread_getspecific(r->conn));
	pthread_setspecific(r->conn, NULL);
	return NULL;
}

/* On the loop: queued for the prober thread, never waited for. */
static void tier_remove(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	store_redis *r = self;
	pthread_mutex_lock(&r->mu);
	if (r->nforget < REDIS_FORGET_MAX) {
		struct forget *f = &r->forget[r->nforget++];
		f->scoped = scope != NULL;
		snprintf(f->scope, sizeof f->scope, "%s", scope ? scope : "");
		memcpy(f->id, id, PROTO_SHAPE_ID_BYTES);
		pthread_cond_signal(&r->wake);
	}
	pthread_mutex_unlock(&r->mu);
}

store_redis *store_redis_new(const store_redis_url *url, unsigned timeout_ms, unsigned ttl_s,
                             double weld)
{
	store_redis *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	if (pthread_key_create(&r->conn, close_conn) != 0) {
		free(r);
		return NULL;
	}
	r->url = *url;
	r->timeout.tv_sec = timeout_ms / 1000;
	r->timeout.tv_usec = (long)(timeout_ms % 1000) * 1000;
	r->ttl_s = ttl_s;
	snprintf(r->ttl, sizeof r->ttl, "%u", ttl_s);
	atomic_init(&r->up, 1);
	r->tier = (proto_shape_tier){tier_get, tier_put, tier_remove, tier_refused, r, weld};
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->wake, NULL);
	r->has_prober = pthread_create(&r->prober, NULL, prober_main, r) == 0;
	return r;
}

const proto_shape_tier *store_redis_tier(store_redis *r)
{
	return &r->tier;
}

void store_redis_get_stats(store_redis *r, store_redis_stats *out)
{
	out->up = atomic_load(&r->up);
	out->writes_refused = atomic_load(&r->writes_refused);
	out->reads = atomic_load(&r->reads);
	out->hits = atomic_load(&r->hits);
	out->refused = atomic_load(&r->refused);
	out->skipped = atomic_load(&r->skipped);
	out->writes = atomic_load(&r->writes);
	out->write_errors = atomic_load(&r->write_errors);
	out->errors = atomic_load(&r->errors);
}

void store_redis_free(store_redis *r)
{
	if (!r)
		return;
	if (r->has_prober) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_signal(&r->wake);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->prober, NULL);
	}
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->mu);
	close_conn(pthread_getspecific(r->conn));
	pthread_key_delete(r->conn);
	free(r);
}
