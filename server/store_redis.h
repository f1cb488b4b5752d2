/*
 * store_redis.h — the shape store's second tier on Redis (--store-redis):
 * a proto_shape_tier (proto/shapes/shape_tier.h) whose calls run on the calling
 * worker, each Redis wait bounded by --store-redis-timeout, and that
 * answers "not there" at once while Redis is known to be unreachable.
 */
#ifndef SERVER_STORE_REDIS_H
#define SERVER_STORE_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include "shape_tier.h"

typedef struct store_redis store_redis;

/* Where Redis is, from redis://[:PASSWORD@]HOST[:PORT][/DB] (HOST a name,
 * an IPv4 address or [IPv6]; PORT 6379, DB 0 by default). */
typedef struct store_redis_url {
	char host[256];
	int port;
	int db;
	char password[256]; /* empty: no AUTH */
} store_redis_url;

/* Parse a URL: 0, or -1 with the reason in `why`. */
int store_redis_parse_url(const char *text, store_redis_url *out, char *why, size_t whylen);

/* What GET /metrics shows. */
typedef struct store_redis_stats {
	int up;                    /* the last call reached Redis (or none was made) */
	int writes_refused;        /* the last write was refused (maxmemory) */
	uint64_t reads;            /* lookups of a ref memory lacked */
	uint64_t hits;             /* of them, a value came back */
	uint64_t refused;          /* of those, refused: not the id's shape */
	uint64_t skipped;          /* lookups and writes not tried: Redis down */
	uint64_t writes;           /* write-throughs Redis took */
	uint64_t write_errors;     /* write-throughs that failed or were refused */
	uint64_t errors;           /* calls that failed (unreachable, timed out) */
	uint64_t too_large;        /* values refused unread: over max_value */
	uint64_t forgotten;        /* memory copies dropped: deleted on a replica */
	uint64_t waits;            /* reads that waited for a write under way */
	uint64_t dropped;          /* deletes not sent: the writer's queue was full */
	size_t queued_bytes;       /* values waiting to be written */
	uint64_t tenant_evictions; /* a tenant's values removed from Redis to
	                              keep its bytes there within its budget */
} store_redis_stats;

/* A tier on the Redis at `url` (no connection is made yet: each thread
 * connects on its first call), waiting at most timeout_ms for any
 * connection or answer, keeping values ttl_s seconds from their last
 * write or read (0: no expiry, Redis's memory policy alone), reading no
 * value of more than max_value bytes (a longer one is refused, never
 * held in memory whole), keeping each tenant's values in Redis within
 * tenant_budget bytes, whichever replicas wrote them (its least recently
 * written go first; 0: no bound); meshes read back without their own
 * weld are welded by `weld` (--weld).  NULL when memory ran out. */
store_redis *store_redis_new(const store_redis_url *url, unsigned timeout_ms, unsigned ttl_s,
                             size_t max_value, size_t tenant_budget, double weld);

const proto_shape_tier *store_redis_tier(store_redis *r);

/* Called for each shape deleted on any replica sharing the Redis (DELETE
 * on this one included), with its scope (a tenant's name, or NULL), on a
 * thread of the tier's own: drop the memory copy; 1 when there was one. */
typedef int (*store_redis_forgotten)(void *arg, const char *scope,
                                     const uint8_t id[PROTO_SHAPE_ID_BYTES]);

/* Start following the deletes (a thread with its own connection, reading
 * Redis's stream of them as they come, and after a lost connection those
 * made meanwhile).  0, or -1 when the thread cannot start. */
int store_redis_watch(store_redis *r, store_redis_forgotten fn, void *arg);

/* Stop its threads: the watcher, and the writer once it has sent what is
 * queued (the writes behind answered uploads, the deletes) and made the
 * preparations queued (which hold store entries): call it after the
 * workers are done and before the stores are freed.  store_redis_free
 * does it too. */
void store_redis_stop(store_redis *r);

void store_redis_get_stats(store_redis *r, store_redis_stats *out);

/* Stop it and free it; no call may be under way (threads' connections
 * are closed as their threads end). */
void store_redis_free(store_redis *r);

#endif /* SERVER_STORE_REDIS_H */
