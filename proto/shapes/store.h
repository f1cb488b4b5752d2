/*
 * store.h — a bounded, content-addressed cache of values shared between
 * threads: the shape store behind POST /v1/shapes and {"ref": ...}.
 *
 * A value is keyed by a 32-byte digest (SHA-256) and weighs the bytes it
 * really holds; the store keeps their sum within its budget by dropping
 * the least recently used values that nobody holds.  Acquiring a value
 * holds it (a reference count) until it is released: a held value is never
 * freed, even when removed or evicted meanwhile, and it stays counted
 * until the last holder lets it go (its memory is still there).  A value
 * may belong to a client (its address), whose values together are kept
 * within a share of the budget by evicting that client's own least
 * recently used values first, so one client cannot flush everyone's.  One
 * mutex guards the tables and the LRU lists; every call is short (no value
 * is built or freed under it but by the caller's free function).  The
 * store knows nothing of shapes: it frees a value with the function it was
 * put with.
 */
#ifndef PROTO_STORE_H
#define PROTO_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_STORE_KEY 32
#define PROTO_STORE_CLIENT 16 /* a client's address, IPv4 as ::ffff:a.b.c.d */
#define PROTO_STORE_SCOPE 64  /* the longest name of a view */

/* What GET /metrics shows. */
typedef struct proto_store_stats {
	size_t entries;      /* values that can be acquired */
	size_t bytes;        /* every value's bytes, the removed but still
	                            held included, and the store's own per value */
	size_t held_removed; /* values removed or evicted, still held */
	size_t held_removed_bytes;
	size_t budget;             /* the bound on bytes */
	size_t client_budget;      /* the bound on one client's (0: none) */
	size_t clients;            /* clients with values here */
	uint64_t hits, misses;     /* acquisitions that found / did not find */
	uint64_t evictions;        /* values dropped for room */
	uint64_t client_evictions; /* of them, a client's own dropped to keep it
	                              within its share */
} proto_store_stats;

/* An empty store keeping at most `budget` bytes, and at most
 * `client_budget` of them for the values one client put (0: no such
 * bound); NULL when out of memory. */
proto_store *proto_store_new(size_t budget, size_t client_budget);

/* Free the store and every value (none may be held). */
void proto_store_free(proto_store *s);

/* A value held (acquired or put). */
typedef struct proto_store_entry proto_store_entry;

/* Put `value` (weighing `bytes`, freed by free_fn) under `key`, on behalf
 * of `client` (PROTO_STORE_CLIENT bytes, or NULL: no client's), and hold
 * it.  When the key is there already, the entry held is the one stored
 * (it stays its first client's) and `value` is freed at once: *created
 * says which (1: new, 0: there).  The client's values nobody holds are
 * evicted, least recently used first, until its own fit its share, then
 * anybody's until the new one fits the budget (held values cannot go: the
 * store is then over its budget until they are released).  Returns the
 * entry held, or NULL (and `value` freed) when it weighs more than the
 * whole budget (*created -1), more than one client's share (*created -3),
 * or memory ran out (*created -2).  What the entry weighs in the store
 * (proto_store_weight) adds the store's own bytes for it. */
proto_store_entry *proto_store_put(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                                   const uint8_t *client, void *value, size_t bytes,
                                   void (*free_fn)(void *), int *created);

/* A held entry's value grew by `more` bytes (a preparation made): counted
 * from now on, and room made for it as for a put. */
void proto_store_charge(proto_store *s, proto_store_entry *e, size_t more);

/* The bytes entry e is counted for. */
size_t proto_store_weight(proto_store *s, const proto_store_entry *e);

/* The entry under `key`, held, or NULL (a miss).  Counts a hit or a miss
 * and makes the entry the most recently used. */
proto_store_entry *proto_store_acquire(proto_store *s, const uint8_t key[PROTO_STORE_KEY]);

/* Whether `key` is there, counting nothing, holding nothing. */
int proto_store_has(proto_store *s, const uint8_t key[PROTO_STORE_KEY]);

/* When `key` is there: read(value, arg) under the store's lock (it must be
 * short and only read the value), and 1; else 0.  Counts nothing, holds
 * nothing, moves nothing in the order of use: a look at a value's size
 * before deciding to use it. */
int proto_store_peek(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                     void (*read)(const void *value, void *arg), void *arg);

/* The value of a held entry. */
const void *proto_store_value(const proto_store_entry *e);

/* Hold a held entry once more (for another thread, which releases it):
 * counts nothing, moves nothing. */
void proto_store_retain(proto_store *s, proto_store_entry *e);

/* Let go of an entry acquired or put. */
void proto_store_release(proto_store *s, proto_store_entry *e);

/* Remove `key`: 0, or 1 when it was not there.  Holders keep their value
 * until they release it. */
int proto_store_remove(proto_store *s, const uint8_t key[PROTO_STORE_KEY]);

void proto_store_get_stats(proto_store *s, proto_store_stats *out);

/* A second tier behind the store (shape_tier.h), or NULL: kept here so
 * that whoever holds the store reaches it; the store itself never calls
 * it.  Set before the store is shared; borrowed (it must outlive the
 * store's use). */
struct proto_shape_tier;
void proto_store_set_tier(proto_store *s, const struct proto_shape_tier *tier);
const struct proto_shape_tier *proto_store_tier(const proto_store *s);

/* A view of `base` named `scope` (1 to PROTO_STORE_SCOPE bytes; a
 * tenant): a store of its own to its callers, whose keys name only its own
 * entries (each key is scoped by a hash with the name, inside), kept in
 * base's table, order and budget; its puts count as one client's, within
 * `budget` bytes (0: base's share per client), whatever client they name.
 * Stats and tier are base's.  Free it with proto_store_free before base.
 * NULL when memory ran out or the name is empty or too long. */
proto_store *proto_store_view(proto_store *base, const char *scope, size_t budget);

/* The bytes a view's entries count for in its base (held removed ones
 * included), and in *entries how many; 0 for a store that is no view. */
size_t proto_store_view_usage(proto_store *view, size_t *entries);

/* A view's name; NULL for a store that is no view. */
const char *proto_store_scope(const proto_store *s);

#endif /* PROTO_STORE_H */
