/*
 * shape_tier.h — the shape store's second tier: a slower store behind the
 * in-memory one (store.h), shared by every replica of a service (clashd's
 * is Redis: server/store_redis.c), holding each stored shape's canonical
 * encoding (shape_id.h) under its id.
 *
 * Every shape stored is written through to it; a ref the memory lacks is
 * looked up in it, and what comes back is trusted only once the shape
 * decoded from it (shape_canon.h) has the id asked for: a corrupt or
 * planted value is refused, never served.  The tier is reached through
 * the store (proto_store_set_tier), so every caller holding the store
 * reaches it, and a server without one behaves as if there were none.
 */
#ifndef PROTO_SHAPE_TIER_H
#define PROTO_SHAPE_TIER_H

#include <stddef.h>
#include <stdint.h>

#include "shape_id.h"
#include "store.h"

/* A value for the tier to keep, encoded (shape_id.h) when the tier
 * writes it: on the tier's own thread, so that an upload's answer does
 * not wait for the encoding of a large part. */
typedef struct proto_shape_value proto_shape_value;
struct proto_shape_value {
	/* Its bytes: 0 with *bytes (malloc'd, the caller's) and *len, or -1
	 * when memory ran out. */
	int (*encode)(proto_shape_value *v, uint8_t **bytes, size_t *len);
	/* Let go of v: called once, after encode or without it. */
	void (*done)(proto_shape_value *v);
	/* About the bytes its encoding takes (for the tier's bounds). */
	size_t weight;
};

typedef struct proto_shape_tier {
	/* The bytes kept under `id` in `scope` (a tenant, the store view's
	 * name; NULL: none): 0 with *bytes (malloc'd, the caller's) and *len;
	 * 1 when there are none or the tier cannot be reached.  Runs on the
	 * calling worker and may wait: the tier bounds the wait.  Scopes never
	 * share a value. */
	int (*get)(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
	           uint8_t **bytes, size_t *len);
	/* Keep the value v (the tier takes it: v->done once) under `id` in
	 * `scope`, best effort (the memory tier has the shape already).  It
	 * may encode and write it after it returns, but a get of `id` from
	 * any replica sharing the tier must from then on find it, or wait for
	 * it (within the tier's bound), unless the tier fails. */
	void (*put)(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
	            proto_shape_value *v);
	/* Remove `id` from `scope`, later: it must not wait (it is called on
	 * the event loop); best effort. */
	void (*remove)(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES]);
	/* What get returned under `id` was refused (why: "not a shape",
	 * "another shape's"): for the tier's metrics and log. */
	void (*refused)(void *self, const char *scope, const uint8_t id[PROTO_SHAPE_ID_BYTES],
	                const char *why);
	/* Run fn(arg) soon on a thread of the tier's own (not a worker's),
	 * or now when it cannot: a part read back is prepared there, so the
	 * query that asked for it does not wait for its hull.  NULL: none
	 * (parts are prepared by their first query). */
	void (*later)(void *self, void (*fn)(void *arg), void *arg);
	void *self;
	/* The weld of meshes read back without their own "weld" (node 0x03):
	 * the server's --weld, which every replica sharing the tier shares. */
	double weld;
} proto_shape_tier;

/* The stored shape under `id`, held: from memory, else from the store's
 * tier (decoded, checked against `id`, put in memory as the least
 * recently used would be: it counts as a hit next time; a single convex
 * part is prepared on the tier's thread meanwhile, queries scanning it
 * until then).  NULL when neither has it (or memory ran out). */
proto_store_entry *proto_shape_acquire(proto_store *store, const uint8_t id[PROTO_SHAPE_ID_BYTES]);

/* Write the stored shape held in `e` through to the store's tier, if it
 * has one (e held again until the tier has encoded it).  0, or -1 when
 * memory ran out (the shape stays in memory). */
int proto_shape_write_through(proto_store *store, proto_store_entry *e);

/* Ask the store's tier, if it has one, to remove `id` (a DELETE): without
 * waiting for it. */
void proto_shape_forget(proto_store *store, const uint8_t id[PROTO_SHAPE_ID_BYTES]);

#endif /* PROTO_SHAPE_TIER_H */
