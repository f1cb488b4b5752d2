/*
 * store_redis.c — the shape store's tier on Redis (store_redis.h): hiredis's
 * blocking API on the workers, not its libuv adapter on the loop, because
 * a ref is resolved deep inside a request's decoding on a worker.  Each
 * calling thread keeps its own connection, every connect and answer
 * bounded by the timeout, a reply by --store-redis-max-value; after a
 * failed call Redis is "down" and calls answer "not there" untried for a
 * second, then one probes it.  A writer thread (which also PINGs a down
 * Redis) takes, in order, the values of answered uploads to encode and
 * write (a marker set before the answer makes readers wait for them),
 * the DELs of deletes
 * (each told to every replica in a stream a watcher thread follows) and
 * the preparation of parts read back.  Keys: "clashd:shape:" (or
 * "clashd:pending:"), a tenant's name and ":", the id's 64 hex digits;
 * values: the canonical encoding (shape_id.h).
 */
#include "store_redis.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "log.h"
#include "problem.h"

/* How long Redis stays "down" after a failed call before it is probed. */
#define REDIS_RETRY_MS 1000
/* Jobs waiting for the writer (the prober thread) at most: a DEL past
 * it is dropped (the shape then stays until Redis evicts or expires it),
 * a write is made at once. */
#define REDIS_QUEUE_JOBS 4096
/* A pending marker lives this many timeouts (a replica that dies before
 * writing its value leaves it that long); a reader waits one timeout. */
#define REDIS_MARKER_TIMEOUTS 8
/* Bytes of values waiting to be written at most; an upload past it is
 * written before it is answered. */
#define REDIS_QUEUE_BYTES ((size_t)64 << 20)
/* What a reply may hold besides the value: its header, and the other
 * small replies of its pipeline. */
#define REDIS_REPLY_SLACK 4096
/* The stream of deleted shapes every replica reads (fields "s": the
 * tenant or "", "id"), trimmed to about this many entries: a replica cut
 * off from Redis for longer than that many deletes may miss some. */
#define FORGOTTEN_STREAM "clashd:forgotten"
#define FORGOTTEN_KEEP "100000"
/* How long one read of the stream waits for news. */
#define WATCH_BLOCK_MS 1000
#define WATCH_REPLY_MAX (1 << 20)

struct store_redis {
	store_redis_url url;
	struct timeval timeout;
	unsigned ttl_s;
	char ttl[24];       /* ttl_s as text, for EX */
	size_t max_value;   /* the largest value read */
	char last[24];      /* max_value - 1 as text, for GETRANGE */
	pthread_key_t conn; /* the calling thread's redisContext */
	proto_shape_tier tier;
	atomic_int up;
	atomic_int writes_refused;
	atomic_int probing;     /* a thread is trying a down Redis */
	atomic_ullong retry_at; /* ms (monotonic): when a down Redis is tried */
	atomic_ullong reads, hits, refused, skipped, writes, write_errors, errors, too_large, waits;
	atomic_ullong tenant_evictions;
	size_t tenant_budget; /* a tenant's bytes in Redis at most (0: none) */
	pthread_t prober;     /* PINGs a down Redis, runs the DELs */
	/* The writer's jobs, oldest first (under mu): the writes behind
	 * uploads and the DELs of deletes, in the order they were asked for,
	 * so a shape deleted after its upload is not written back. */
	struct job *head, *tail;
	size_t njobs, queued_bytes;
	atomic_size_t queued;  /* queued_bytes, for /metrics */
	atomic_ullong dropped; /* DELs not queued: the queue was full */
	unsigned marker_ms;    /* a pending marker's life */
	char marker_px[24];
	pthread_mutex_t mu; /* for `stop` and its signal */
	pthread_cond_t wake;
	int stop;
	int has_prober;
	/* The watcher: other replicas' deletes, read from the stream. */
	store_redis_forgotten forgotten;
	void *forgotten_arg;
	pthread_t watcher;
	pthread_cond_t watch_wake;
	int watch_fd;   /* its connection's socket, -1: none (under mu) */
	int watch_stop; /* under mu */
	int has_watcher;
	atomic_ullong forgot;
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
			snprintf(why, whylen,
			         "a password is written :PASSWORD@ (no user name), "
			         "at most %zu bytes",
			         sizeof out->password - 1);
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

/* One command of a pipeline. */
typedef struct redis_cmd {
	int argc;
	const char **argv;
	const size_t *lens;
} redis_cmd;

/* The next reply on c, never holding more than `limit` unread bytes:
 * hiredis 0.14 has no bound on a reply's size and keeps a bulk value's
 * bytes until the whole value is there, so a value past the bound is
 * refused as it arrives (*too_large), before it is all in memory. */
static int read_bounded(redisContext *c, size_t limit, redisReply **out, int *too_large)
{
	void *y = NULL;
	if (redisGetReplyFromReader(c, &y) != REDIS_OK)
		return -1;
	while (!y) {
		if (redisBufferRead(c) != REDIS_OK)
			return -1;
		if (c->reader->len - c->reader->pos > limit) {
			*too_large = 1;
			return -1;
		}
		if (redisGetReplyFromReader(c, &y) != REDIS_OK)
			return -1;
	}
	*out = y;
	return 0;
}

/* Send n commands at once and read their n replies (one round trip). */
static int pipeline(redisContext *c, int n, const redis_cmd *cmds, size_t limit, redisReply **y,
                    int *too_large)
{
	for (int i = 0; i < n; i++)
		if (redisAppendCommandArgv(c, cmds[i].argc, cmds[i].argv, cmds[i].lens) != REDIS_OK)
			return -1;
	int done = 0;
	while (!done)
		if (redisBufferWrite(c, &done) != REDIS_OK)
			return -1;
	for (int i = 0; i < n; i++)
		if (read_bounded(c, limit, &y[i], too_large) != 0) {
			while (i-- > 0)
				freeReplyObject(y[i]);
			return -1;
		}
	return 0;
}

/* Run n commands on this thread's connection: 0 with their n replies
 * (error replies included), or -1: not tried (*skipped), a reply larger
 * than the bound (*too_large: the connection is dropped, Redis is not
 * down), or failed (counted, Redis down). */
static int call(store_redis *r, int n, const redis_cmd *cmds, redisReply **y, int *skipped,
                int *too_large)
{
	*skipped = 0;
	*too_large = 0;
	int probe = 0;
	if (!atomic_load(&r->up)) {
		int idle = 0;
		if (now_ms() < atomic_load(&r->retry_at) ||
		    !atomic_compare_exchange_strong(&r->probing, &idle, 1)) {
			*skipped = 1;
			atomic_fetch_add(&r->skipped, 1);
			return -1;
		}
		probe = 1;
	}
	redisContext *c = pthread_getspecific(r->conn);
	int ok = 0;
	char err[128] = "";
	for (int attempt = 0; attempt < 2 && !ok && !*too_large; attempt++) {
		int reused = c != NULL;
		if (!c && !(c = connect_one(r, err, sizeof err)))
			break;
		pthread_setspecific(r->conn, c);
		errno = 0;
		ok = pipeline(c, n, cmds, r->max_value + REDIS_REPLY_SLACK, y, too_large) == 0;
		if (ok)
			break;
		int timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
		snprintf(err, sizeof err, "%s", timed_out ? "timed out" : c->errstr);
		redisFree(c); /* a reply may be half read: the connection is lost */
		c = NULL;
		pthread_setspecific(r->conn, NULL);
		if (timed_out || !reused)
			break;
	}
	if (ok || *too_large) {
		set_up(r, 1, NULL);
	} else {
		atomic_fetch_add(&r->errors, 1);
		atomic_store(&r->retry_at, now_ms() + REDIS_RETRY_MS);
		set_up(r, 0, err);
	}
	if (probe)
		atomic_store(&r->probing, 0);
	return ok ? 0 : -1;
}

/* One command alone: its reply, or NULL. */
static redisReply *call1(store_redis *r, int argc, const char **argv, const size_t *lens,
                         int *skipped)
{
	redis_cmd cmd = {argc, argv, lens};
	redisReply *y;
	int too_large;
	return call(r, 1, &cmd, &y, skipped, &too_large) == 0 ? y : NULL;
}

#define KEY_MAX (24 + PROTO_STORE_SCOPE + 2 * PROTO_SHAPE_ID_BYTES)

/* "clashd:shape:" (or "clashd:pending:", the marker of a write under
 * way) [scope ":"] and the id's hex digits. */
static void key_in(const char *space, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                   char key[KEY_MAX])
{
	static const char hex[] = "0123456789abcdef";
	int n = snprintf(key, KEY_MAX, "clashd:%s:%.*s%s", space, PROTO_STORE_SCOPE,
	                 scope ? scope : "", scope ? ":" : "");
	for (int i = 0; i < PROTO_SHAPE_ID_BYTES; i++) {
		key[n++] = hex[id[i] >> 4];
		key[n++] = hex[id[i] & 15];
	}
	key[n] = '\0';
}

static void key_of(const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES], char key[KEY_MAX])
{
	key_in("shape", scope, id, key);
}

static void value_too_large(store_redis *r, const char *key, long long len)
{
	atomic_fetch_add(&r->too_large, 1);
	LOG_EMIT("warn", "shape store redis value refused: larger than --store-redis-max-value",
	         LOG_STR("key", key), LOG_INT("bytes", len), LOG_INT("max", r->max_value));
}

/* Its length, then at most max_value bytes of it (GETRANGE: Redis never
 * sends more), whether a write of it is under way, and its expiry pushed
 * back, in one round trip.  0 with the value; 1 none; 2 a write of it is
 * under way (what is there, if anything, may be what it replaces: a
 * corrupt value an upload repairs). */
static int read_value(store_redis *r, const char *key, const char *pending, uint8_t **bytes,
                      size_t *len)
{
	const char *strlen_argv[2] = {"STRLEN", key};
	const size_t strlen_lens[2] = {6, strlen(key)};
	const char *range_argv[4] = {"GETRANGE", key, "0", r->last};
	const size_t range_lens[4] = {8, strlen(key), 1, strlen(r->last)};
	const char *exists_argv[2] = {"EXISTS", pending};
	const size_t exists_lens[2] = {6, strlen(pending)};
	const char *expire_argv[3] = {"EXPIRE", key, r->ttl};
	const size_t expire_lens[3] = {6, strlen(key), strlen(r->ttl)};
	const redis_cmd cmds[4] = {{2, strlen_argv, strlen_lens},
	                           {4, range_argv, range_lens},
	                           {2, exists_argv, exists_lens},
	                           {3, expire_argv, expire_lens}};
	const int n = r->ttl_s ? 4 : 3;
	redisReply *y[4];
	int skipped, too_large;
	if (call(r, n, cmds, y, &skipped, &too_large) != 0) {
		if (too_large)
			value_too_large(r, key, -1);
		return 1;
	}
	int rc = 1;
	if (y[2]->type == REDIS_REPLY_INTEGER && y[2]->integer > 0) {
		rc = 2; /* what is there may be the value the write replaces */
	} else if (y[0]->type == REDIS_REPLY_INTEGER &&
	           (unsigned long long)y[0]->integer > r->max_value) {
		value_too_large(r, key, y[0]->integer);
	} else if (y[1]->type == REDIS_REPLY_STRING && y[1]->len > 0) {
		*bytes = malloc(y[1]->len);
		if (*bytes) {
			memcpy(*bytes, y[1]->str, y[1]->len);
			*len = y[1]->len;
			rc = 0;
		}
	} else if (y[0]->type == REDIS_REPLY_ERROR || y[1]->type == REDIS_REPLY_ERROR) {
		atomic_fetch_add(&r->errors, 1);
		LOG_EMIT("warn", "shape store redis read refused", LOG_STR("key", key),
		         LOG_STR("error", (y[0]->type == REDIS_REPLY_ERROR ? y[0] : y[1])->str));
	}
	for (int i = 0; i < n; i++)
		freeReplyObject(y[i]);
	return rc;
}

/* A value whose write is under way (another replica answered its upload
 * and writes it behind) is waited for, up to the timeout. */
static int tier_get(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                    uint8_t **bytes, size_t *len)
{
	store_redis *r = self;
	char key[KEY_MAX], pending[KEY_MAX];
	key_of(scope, id, key);
	key_in("pending", scope, id, pending);
	atomic_fetch_add(&r->reads, 1);
	unsigned long long until = now_ms() + r->marker_ms / REDIS_MARKER_TIMEOUTS;
	int rc, waited = 0;
	while ((rc = read_value(r, key, pending, bytes, len)) == 2 && now_ms() < until) {
		waited = 1;
		usleep(1000);
	}
	if (waited)
		atomic_fetch_add(&r->waits, 1);
	if (rc == 0)
		atomic_fetch_add(&r->hits, 1);
	return rc == 0 ? 0 : 1;
}

/* SET the value, and DEL its pending marker when there is one. */
static void write_value(store_redis *r, const char *key, const char *pending, const uint8_t *bytes,
                        size_t len)
{
	const char *set_argv[5] = {"SET", key, (const char *)bytes, "EX", r->ttl};
	const size_t set_lens[5] = {3, strlen(key), len, 2, strlen(r->ttl)};
	const char *del_argv[2] = {"DEL", pending};
	const size_t del_lens[2] = {3, pending ? strlen(pending) : 0};
	const redis_cmd cmds[2] = {{r->ttl_s ? 5 : 3, set_argv, set_lens}, {2, del_argv, del_lens}};
	redisReply *y[2];
	int skipped, too_large;
	if (call(r, pending ? 2 : 1, cmds, y, &skipped, &too_large) != 0) {
		if (!skipped)
			atomic_fetch_add(&r->write_errors, 1);
		return;
	}
	int refused = y[0]->type == REDIS_REPLY_ERROR;
	atomic_fetch_add(refused ? &r->write_errors : &r->writes, 1);
	if (atomic_exchange(&r->writes_refused, refused) != refused) {
		if (refused)
			LOG_EMIT("warn",
			         "shape store redis refuses writes: shapes kept in memory only",
			         LOG_STR("error", y[0]->str));
		else
			LOG_EMIT("info", "shape store redis takes writes again");
	}
	freeReplyObject(y[0]);
	if (pending)
		freeReplyObject(y[1]);
}

typedef struct job {
	struct job *next;
	int forget;         /* 1: a DELETE's, 0: a write behind an upload */
	void (*fn)(void *); /* or, when set, this call (tier_later) */
	void *arg;
	int scoped;
	char scope[PROTO_STORE_SCOPE + 1];
	uint8_t id[PROTO_SHAPE_ID_BYTES];
	proto_shape_value *value; /* a write's value, encoded by the writer */
	size_t len;               /* its weight in the queue */
} job;

static job *job_new(int forget, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->forget = forget;
	j->scoped = scope != NULL;
	snprintf(j->scope, sizeof j->scope, "%s", scope ? scope : "");
	memcpy(j->id, id, PROTO_SHAPE_ID_BYTES);
	return j;
}

/* Queue j for the writer: 0, or -1 when the queue is full (j is the
 * caller's still). */
static int enqueue(store_redis *r, job *j)
{
	pthread_mutex_lock(&r->mu);
	/* No writer thread (it could not start): nothing would take it. */
	int room = r->has_prober && r->njobs < REDIS_QUEUE_JOBS &&
	           r->queued_bytes + j->len <= REDIS_QUEUE_BYTES;
	if (room) {
		*(r->tail ? &r->tail->next : &r->head) = j;
		r->tail = j;
		r->njobs++;
		r->queued_bytes += j->len;
		atomic_store(&r->queued, r->queued_bytes);
		pthread_cond_signal(&r->wake);
	}
	pthread_mutex_unlock(&r->mu);
	return room ? 0 : -1;
}

/* A tenant's values in Redis kept within its budget (--store-per-tenant),
 * whichever replica wrote them: each tenant's sizes (a hash), the order
 * they were written in (a sorted set) and their sum, changed together by
 * one script; past the budget the tenant's least recently written values
 * go (their keys may be gone already: Redis's own eviction or expiry,
 * which the sum then forgets).  KEYS: sizes, order, sum; ARGV: the id's
 * hex digits, its bytes, the budget, the tenant's key prefix.  Returns
 * how many values went.  (Keys built in the script: a single Redis, not
 * a cluster.) */
static const char account_script[] =
	"local id, len, budget = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]) "
	"local old = tonumber(redis.call('HGET', KEYS[1], id) or '0') "
	"local t = redis.call('TIME') "
	"redis.call('HSET', KEYS[1], id, len) "
	"redis.call('ZADD', KEYS[2], t[1] * 1000000 + t[2], id) "
	"local sum = redis.call('INCRBY', KEYS[3], len - old) "
	"local gone = 0 "
	"while sum > budget do "
	"  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1] "
	"  if not oldest or oldest == id then break end "
	"  local size = tonumber(redis.call('HGET', KEYS[1], oldest) or '0') "
	"  redis.call('DEL', ARGV[4] .. oldest) "
	"  redis.call('HDEL', KEYS[1], oldest) "
	"  redis.call('ZREM', KEYS[2], oldest) "
	"  sum = redis.call('DECRBY', KEYS[3], size) "
	"  gone = gone + 1 "
	"end "
	"return gone";

/* A deleted value leaves its tenant's sum.  KEYS, ARGV[1] as above. */
static const char unaccount_script[] =
	"local size = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') "
	"if size > 0 then "
	"  redis.call('HDEL', KEYS[1], ARGV[1]) "
	"  redis.call('ZREM', KEYS[2], ARGV[1]) "
	"  redis.call('DECRBY', KEYS[3], size) "
	"end "
	"return size";

/* A tenant's accounting keys and its shapes' key prefix, and the EVAL. */
typedef struct tenant_keys {
	char sizes[KEY_MAX], order[KEY_MAX], sum[KEY_MAX], prefix[KEY_MAX];
	const char *argv[10];
	size_t lens[10];
} tenant_keys;

/* EVAL of `script` for `scope` and the id ending `key`; with `len` and
 * `budget` (text) the accounting's, without the unaccounting's. */
static redis_cmd tenant_cmd(tenant_keys *k, const char *script, const char *scope, const char *key,
                            const char *len, const char *budget)
{
	snprintf(k->sizes, KEY_MAX, "clashd:tenant:%s:sizes", scope);
	snprintf(k->order, KEY_MAX, "clashd:tenant:%s:order", scope);
	snprintf(k->sum, KEY_MAX, "clashd:tenant:%s:bytes", scope);
	snprintf(k->prefix, KEY_MAX, "clashd:shape:%s:", scope);
	const char *hex = key + strlen(key) - 2 * PROTO_SHAPE_ID_BYTES;
	const char *argv[10] = {"EVAL", script, "3", k->sizes, k->order,
	                        k->sum, hex,    len, budget,   k->prefix};
	int argc = len ? 10 : 7;
	for (int i = 0; i < argc; i++) {
		k->argv[i] = argv[i];
		k->lens[i] = strlen(argv[i]);
	}
	return (redis_cmd){argc, k->argv, k->lens};
}

/* A tenant's value of len bytes counted in Redis (account_script) before
 * it is written. */
static void account(store_redis *r, const char *scope, const char *key, size_t len)
{
	if (!scope || !r->tenant_budget)
		return;
	char lentext[24], budget[24];
	snprintf(lentext, sizeof lentext, "%zu", len);
	snprintf(budget, sizeof budget, "%zu", r->tenant_budget);
	tenant_keys tk;
	redis_cmd cmd = tenant_cmd(&tk, account_script, scope, key, lentext, budget);
	redisReply *y[1];
	int skipped, too_large;
	if (call(r, 1, &cmd, y, &skipped, &too_large) != 0)
		return;
	if (y[0]->type == REDIS_REPLY_INTEGER)
		atomic_fetch_add(&r->tenant_evictions, (unsigned long long)y[0]->integer);
	else
		LOG_EMIT("warn", "shape store redis: a tenant's bytes not counted",
		         LOG_STR("error", y[0]->type == REDIS_REPLY_ERROR ? y[0]->str : "?"));
	freeReplyObject(y[0]);
}

/* Encode v, count it for its tenant, write it (deleting the marker
 * `pending`, NULL: none), and let v go. */
static void write_encoded(store_redis *r, const char *scope, const char *key, const char *pending,
                          proto_shape_value *v)
{
	uint8_t *bytes;
	size_t len;
	if (v->encode(v, &bytes, &len) == 0) {
		account(r, scope, key, len);
		write_value(r, key, pending, bytes, len);
		free(bytes);
	} else {
		atomic_fetch_add(&r->write_errors, 1);
	}
	v->done(v);
}

/* The value is encoded and written after the upload is answered (by the
 * writer), but a marker set first, in the answer's time, makes any
 * replica asking for it meanwhile wait for it: an answered upload is
 * readable everywhere.  Without room in the queue, or when the marker
 * cannot be set, the value is written at once. */
static void tier_put(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
                     proto_shape_value *v)
{
	store_redis *r = self;
	char key[KEY_MAX], pending[KEY_MAX];
	key_of(scope, id, key);
	key_in("pending", scope, id, pending);
	const char *marker_argv[5] = {"SET", pending, "1", "PX", r->marker_px};
	const size_t marker_lens[5] = {3, strlen(pending), 1, 2, strlen(r->marker_px)};
	job *j = job_new(0, scope, id);
	int marked = 0;
	if (j) {
		redis_cmd cmd = {5, marker_argv, marker_lens};
		redisReply *y[1];
		int skipped, too_large;
		if (call(r, 1, &cmd, y, &skipped, &too_large) == 0) {
			marked = y[0]->type == REDIS_REPLY_STATUS;
			freeReplyObject(y[0]);
		}
	}
	if (marked) {
		j->value = v;
		j->len = v->weight;
		if (enqueue(r, j) == 0)
			return;
	}
	free(j);
	write_encoded(r, scope, key, NULL, v);
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

/* The DEL, and the delete told to every replica through the stream. */
static void run_forget(store_redis *r, const job *f)
{
	char key[KEY_MAX], id[PROTO_PROBLEM_ID_SIZE];
	key_of(f->scoped ? f->scope : NULL, f->id, key);
	proto_shape_id_format(f->id, id);
	const char *del_argv[2] = {"DEL", key};
	const size_t del_lens[2] = {3, strlen(key)};
	const char *add_argv[10] = {"XADD", FORGOTTEN_STREAM, "MAXLEN", "~", FORGOTTEN_KEEP, "*",
	                            "s",    f->scope,         "id",     id};
	const size_t add_lens[10] = {4,         strlen(FORGOTTEN_STREAM), 6,
	                             1,         strlen(FORGOTTEN_KEEP),   1,
	                             1,         strlen(f->scope),         2,
	                             strlen(id)};
	redis_cmd cmds[3] = {{2, del_argv, del_lens}, {10, add_argv, add_lens}};
	tenant_keys tk;
	int n = 2;
	if (f->scoped && r->tenant_budget)
		cmds[n++] = tenant_cmd(&tk, unaccount_script, f->scope, key, NULL, NULL);
	redisReply *y[3];
	int skipped, too_large;
	if (call(r, n, cmds, y, &skipped, &too_large) == 0)
		for (int i = 0; i < n; i++)
			freeReplyObject(y[i]);
}

static void run_job(store_redis *r, job *j)
{
	if (j->fn) {
		j->fn(j->arg);
	} else if (j->forget) {
		run_forget(r, j);
	} else {
		char key[KEY_MAX], pending[KEY_MAX];
		key_of(j->scoped ? j->scope : NULL, j->id, key);
		key_in("pending", j->scoped ? j->scope : NULL, j->id, pending);
		write_encoded(r, j->scoped ? j->scope : NULL, key, pending, j->value);
	}
}

/* Under mu: sleep a retry period, or until `wake` is signalled. */
static void wait_retry(store_redis *r, pthread_cond_t *wake)
{
	struct timespec due;
	clock_gettime(CLOCK_REALTIME, &due);
	due.tv_sec += REDIS_RETRY_MS / 1000;
	pthread_cond_timedwait(wake, &r->mu, &due);
}

/* The writer: the queued jobs in order (all of them before it stops: an
 * answered upload's value is written); and every REDIS_RETRY_MS, a down
 * Redis is probed like any call. */
static void *prober_main(void *arg)
{
	store_redis *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		if (r->head) {
			job *j = r->head;
			r->head = j->next;
			if (!r->head)
				r->tail = NULL;
			pthread_mutex_unlock(&r->mu);
			run_job(r, j);
			pthread_mutex_lock(&r->mu);
			r->njobs--;
			r->queued_bytes -= j->len;
			atomic_store(&r->queued, r->queued_bytes);
			free(j);
			continue;
		}
		if (r->stop)
			break;
		wait_retry(r, &r->wake);
		if (r->stop || r->head || atomic_load(&r->up))
			continue;
		pthread_mutex_unlock(&r->mu);
		const char *argv[1] = {"PING"};
		size_t lens[1] = {4};
		int skipped;
		freeReplyObject(call1(r, 1, argv, lens, &skipped));
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	close_conn(pthread_getspecific(r->conn));
	pthread_setspecific(r->conn, NULL);
	return NULL;
}

/* On the loop: queued for the writer, never waited for. */
static void tier_remove(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	store_redis *r = self;
	job *j = job_new(1, scope, id);
	if (!j || enqueue(r, j) != 0) {
		free(j);
		atomic_fetch_add(&r->dropped, 1);
	}
}

/* A call for the writer's thread, in turn with the writes (a part read
 * back is prepared there: one thread of its own for work the workers'
 * queries need not wait for); made at once when the queue is full. */
static void tier_later(void *self, void (*fn)(void *), void *arg)
{
	store_redis *r = self;
	job *j = calloc(1, sizeof *j);
	if (j) {
		j->fn = fn;
		j->arg = arg;
		if (enqueue(r, j) == 0)
			return;
		free(j);
	}
	fn(arg);
}

/* ---- the watcher: deletes made on any replica ---- */

/* The newest entry's id, where reading starts ("0-0": none yet). */
static int watch_start(redisContext *c, char last[64])
{
	const char *argv[6] = {"XREVRANGE", FORGOTTEN_STREAM, "+", "-", "COUNT", "1"};
	const size_t lens[6] = {9, strlen(FORGOTTEN_STREAM), 1, 1, 5, 1};
	const redis_cmd cmd = {6, argv, lens};
	redisReply *y;
	int too_large = 0;
	if (pipeline(c, 1, &cmd, WATCH_REPLY_MAX, &y, &too_large) != 0)
		return -1;
	snprintf(last, 64, "0-0");
	if (y->type == REDIS_REPLY_ARRAY && y->elements == 1 &&
	    y->element[0]->type == REDIS_REPLY_ARRAY && y->element[0]->elements == 2 &&
	    y->element[0]->element[0]->type == REDIS_REPLY_STRING)
		snprintf(last, 64, "%s", y->element[0]->element[0]->str);
	int rc = y->type == REDIS_REPLY_ERROR ? -1 : 0;
	freeReplyObject(y);
	return rc;
}

/* One entry of XREAD's answer: [id, [field, value, ...]]. */
static void watch_entry(store_redis *r, const redisReply *e, char last[64])
{
	if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
	    e->element[0]->type != REDIS_REPLY_STRING || e->element[1]->type != REDIS_REPLY_ARRAY)
		return;
	snprintf(last, 64, "%s", e->element[0]->str);
	const redisReply *kv = e->element[1];
	const char *scope = NULL, *id = NULL;
	size_t idlen = 0;
	for (size_t i = 0; i + 1 < kv->elements; i += 2) {
		const redisReply *k = kv->element[i], *v = kv->element[i + 1];
		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
			continue;
		if (strcmp(k->str, "s") == 0 && v->len <= PROTO_STORE_SCOPE)
			scope = v->len ? v->str : NULL;
		else if (strcmp(k->str, "id") == 0)
			id = v->str, idlen = v->len;
	}
	uint8_t key[PROTO_SHAPE_ID_BYTES];
	if (id && proto_shape_id_parse(id, idlen, key) == 0 &&
	    r->forgotten(r->forgotten_arg, scope, key))
		atomic_fetch_add(&r->forgot, 1);
}

/* Read the stream from `last` on one connection until it fails or the
 * watcher is stopped. */
static void watch_read(store_redis *r, redisContext *c, char last[64])
{
	char block[16];
	snprintf(block, sizeof block, "%d", WATCH_BLOCK_MS);
	for (;;) {
		pthread_mutex_lock(&r->mu);
		int stop = r->watch_stop;
		pthread_mutex_unlock(&r->mu);
		if (stop || (!last[0] && watch_start(c, last) != 0))
			return;
		const char *argv[8] = {"XREAD",   "COUNT",          "256", "BLOCK", block,
		                       "STREAMS", FORGOTTEN_STREAM, last};
		const size_t lens[8] =
			{5, 5, 3, 5, strlen(block), 7, strlen(FORGOTTEN_STREAM), strlen(last)};
		const redis_cmd cmd = {8, argv, lens};
		redisReply *y;
		int too_large = 0;
		if (pipeline(c, 1, &cmd, WATCH_REPLY_MAX, &y, &too_large) != 0)
			return;
		int bad = y->type == REDIS_REPLY_ERROR;
		/* [[stream, [entry, ...]]], or nil when nothing came */
		if (y->type == REDIS_REPLY_ARRAY && y->elements == 1 &&
		    y->element[0]->type == REDIS_REPLY_ARRAY && y->element[0]->elements == 2) {
			const redisReply *entries = y->element[0]->element[1];
			for (size_t i = 0;
			     entries->type == REDIS_REPLY_ARRAY && i < entries->elements; i++)
				watch_entry(r, entries->element[i], last);
		}
		freeReplyObject(y);
		if (bad)
			return;
	}
}

/* Connect, read, and after a failure try again a retry period later: a
 * connection of its own, whose reads wait WATCH_BLOCK_MS for news. */
static void *watcher_main(void *arg)
{
	store_redis *r = arg;
	char last[64] = "";
	struct timeval wait = r->timeout;
	wait.tv_sec += WATCH_BLOCK_MS / 1000;
	pthread_mutex_lock(&r->mu);
	while (!r->watch_stop) {
		pthread_mutex_unlock(&r->mu);
		char err[128];
		redisContext *c = connect_one(r, err, sizeof err);
		if (c && redisSetTimeout(c, wait) == REDIS_OK) {
			pthread_mutex_lock(&r->mu);
			r->watch_fd = r->watch_stop ? -1 : c->fd;
			pthread_mutex_unlock(&r->mu);
			watch_read(r, c, last);
			pthread_mutex_lock(&r->mu);
			r->watch_fd = -1;
			pthread_mutex_unlock(&r->mu);
		}
		if (c)
			redisFree(c);
		pthread_mutex_lock(&r->mu);
		if (r->watch_stop)
			break;
		wait_retry(r, &r->watch_wake);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int store_redis_watch(store_redis *r, store_redis_forgotten fn, void *arg)
{
	r->forgotten = fn;
	r->forgotten_arg = arg;
	r->has_watcher = pthread_create(&r->watcher, NULL, watcher_main, r) == 0;
	return r->has_watcher ? 0 : -1;
}

void store_redis_stop(store_redis *r)
{
	if (!r)
		return;
	if (r->has_watcher) {
		pthread_mutex_lock(&r->mu);
		r->watch_stop = 1;
		if (r->watch_fd >= 0) /* its read returns at once */
			shutdown(r->watch_fd, SHUT_RDWR);
		pthread_cond_signal(&r->watch_wake);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->watcher, NULL);
		r->has_watcher = 0;
	}
	if (r->has_prober) { /* it empties its queue first */
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_signal(&r->wake);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->prober, NULL);
		r->has_prober = 0;
	}
}

store_redis *store_redis_new(const store_redis_url *url, unsigned timeout_ms, unsigned ttl_s,
                             size_t max_value, size_t tenant_budget, double weld)
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
	r->max_value = max_value ? max_value : 1;
	r->tenant_budget = tenant_budget;
	r->marker_ms = REDIS_MARKER_TIMEOUTS * (timeout_ms ? timeout_ms : 1);
	snprintf(r->marker_px, sizeof r->marker_px, "%u", r->marker_ms);
	snprintf(r->last, sizeof r->last, "%zu", r->max_value - 1);
	atomic_init(&r->up, 1);
	r->tier = (proto_shape_tier){tier_get,   tier_put, tier_remove, tier_refused,
	                             tier_later, r,        weld};
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->wake, NULL);
	pthread_cond_init(&r->watch_wake, NULL);
	r->watch_fd = -1;
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
	out->too_large = atomic_load(&r->too_large);
	out->forgotten = atomic_load(&r->forgot);
	out->waits = atomic_load(&r->waits);
	out->queued_bytes = atomic_load(&r->queued);
	out->dropped = atomic_load(&r->dropped);
	out->tenant_evictions = atomic_load(&r->tenant_evictions);
}

void store_redis_free(store_redis *r)
{
	if (!r)
		return;
	store_redis_stop(r);
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->watch_wake);
	pthread_mutex_destroy(&r->mu);
	close_conn(pthread_getspecific(r->conn));
	pthread_key_delete(r->conn);
	free(r);
}
