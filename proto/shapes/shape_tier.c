/*
 * shape_tier.c — the read-through and write-through of the shape store's
 * second tier (shape_tier.h).
 *
 * A value read back is decoded by shape_canon.c and its id recomputed from
 * the decoded geometry: only a value whose content is the id's shape is
 * put in memory.  A single convex part read back is prepared on the
 * tier's thread (its hull is most of the time a first query would take),
 * queries scanning it meanwhile.  Two workers missing the same id at once both read it;
 * the second put finds the first's and drops its copy (store.h).
 */
#include <stdlib.h>
#include <string.h>

#include "shape_canon.h"
#include "shape_tier.h"
#include "stored_shape.h"

/* A deferred preparation: the entry held until it is made and counted. */
typedef struct preparation {
	proto_store *store;
	proto_store_entry *e;
} preparation;

static void prepare_now(void *arg)
{
	preparation *p = arg;
	size_t grown;
	/* On failure (memory) the shape stays deferred: queries scan it. */
	proto_stored_shape_ready((stored_shape *)proto_store_value(p->e), &grown);
	if (grown)
		proto_store_charge(p->store, p->e, grown);
	proto_store_release(p->store, p->e);
	free(p);
}

static void prepare_later(proto_store *store, proto_store_entry *e, const proto_shape_tier *t)
{
	preparation *p = malloc(sizeof *p);
	if (!p)
		return; /* stays deferred: queries scan it */
	proto_store_retain(store, e);
	*p = (preparation){store, e};
	t->later(t->self, prepare_now, p);
}

proto_store_entry *proto_shape_acquire(proto_store *store, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	proto_store_entry *e = proto_store_acquire(store, id);
	const proto_shape_tier *t = proto_store_tier(store);
	if (e || !t)
		return e;
	uint8_t *bytes = NULL;
	size_t len = 0;
	if (t->get(t->self, proto_store_scope(store), id, &bytes, &len) != 0)
		return NULL;
	stored_shape *st = NULL;
	int r = proto_shape_canon_decode(bytes, len, t->weld, &st);
	free(bytes);
	if (r == 0 && memcmp(st->id, id, PROTO_SHAPE_ID_BYTES) != 0) {
		proto_stored_shape_free(st);
		r = 2;
	}
	if (r > 0 && t->refused)
		t->refused(t->self, proto_store_scope(store), id,
		           r == 1 ? "not a shape" : "another shape's");
	if (r)
		return NULL;
	int deferred = t->later && proto_stored_shape_defer(st);
	int created;
	e = proto_store_put(store, id, NULL, st, atomic_load(&st->bytes), proto_stored_shape_free,
	                    &created);
	if (e && created == 1 && deferred)
		prepare_later(store, e, t);
	return e;
}

/* A stored shape as the tier's value: its entry held until it is let go. */
typedef struct held_value {
	proto_shape_value v; /* first: the tier hands back &v */
	proto_store *store;
	proto_store_entry *e;
} held_value;

static int held_encode(proto_shape_value *v, uint8_t **bytes, size_t *len)
{
	const stored_shape *st = proto_store_value(((held_value *)v)->e);
	return proto_shape_canon(&st->shape, st->welds, st->nwelds, st->units, bytes, len);
}

static void held_done(proto_shape_value *v)
{
	held_value *h = (held_value *)v;
	proto_store_release(h->store, h->e);
	free(h);
}

int proto_shape_write_through(proto_store *store, proto_store_entry *e)
{
	const proto_shape_tier *t = proto_store_tier(store);
	if (!t)
		return 0;
	const stored_shape *st = proto_store_value(e);
	held_value *h = malloc(sizeof *h);
	if (!h)
		return -1;
	*h = (held_value){{held_encode, held_done, atomic_load(&st->bytes)}, store, e};
	proto_store_retain(store, e);
	t->put(t->self, proto_store_scope(store), st->id, &h->v);
	return 0;
}

void proto_shape_forget(proto_store *store, const uint8_t id[PROTO_SHAPE_ID_BYTES])
{
	const proto_shape_tier *t = proto_store_tier(store);
	if (t && t->remove)
		t->remove(t->self, proto_store_scope(store), id);
}
