/*
 * store.c — the bounded, content-addressed cache of store.h.
 *
 * One mutex guards everything: a chained hash table of entries (its size a
 * power of two, doubled when the entries outnumber the buckets), a doubly
 * linked list in order of use, most recent first, and the clients that
 * own entries, each with its own list of them in the same order (a
 * client's eviction walks its own list, not everybody's).  Keys are
 * SHA-256 digests, so their bits are already uniform; they are still mixed
 * with a per-store random multiplier, so that ids a client ground out to
 * share low bits do not share a bucket.  Eviction walks a list from its old
 * end, skipping held entries.  An entry removed while held leaves the table
 * and the lists but not the count (`bytes`, its client's) until its last
 * release.  Values are freed after the mutex is let go (a large shape's
 * arrays take a while to unmap).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <nettle/sha2.h>

#include "store.h"

typedef struct client client;

/* The first member of an entry and of a client: a node of a chained hash
 * table (its size a power of two). */
typedef struct chained {
	struct chained *chain; /* next in its bucket */
} chained;

typedef struct table {
	chained **b;
	size_t n;
} table;

struct proto_store_entry {
	chained node; /* in the table of keys */
	uint8_t key[PROTO_STORE_KEY];
	void *value;
	size_t bytes; /* the value's and the store's own */
	void (*free_fn)(void *);
	unsigned refs;
	int linked;                                /* in the table and the lists */
	client *owner;                             /* NULL: nobody's */
	struct proto_store_entry *newer, *older;   /* everybody's list */
	struct proto_store_entry *cnewer, *colder; /* its owner's list */
	struct proto_store_entry *gone;            /* in a list of entries to free */
};

typedef struct proto_store_entry entry;

/* A client with entries counted (linked or held after removal). */
struct client {
	chained node; /* in the table of addresses */
	uint8_t addr[PROTO_STORE_CLIENT];
	size_t budget; /* its own bound (a tenant's); 0: the store's */
	size_t bytes;
	size_t counted; /* entries counting against it */
	entry *newest, *oldest;
};

struct proto_store {
	pthread_mutex_t lock;
	table by_key;  /* the entries */
	table by_addr; /* the clients */
	uint64_t mix;  /* odd */
	entry *newest, *oldest;
	proto_store_stats st;
	const struct proto_shape_tier *tier;
	/* A view (proto_store_view): every call goes to `base` with its keys
	 * scoped, its puts a client of their own with `view_budget`. */
	proto_store *base;
	uint8_t salt[PROTO_STORE_KEY];
	char scope[PROTO_STORE_SCOPE + 1];
	size_t view_budget;
};

/* The key `key` has in the base store: itself, or in a view SHA-256 of
 * the view's salt and it, so no id chosen in one view names an entry of
 * another (a preimage would be needed). */
static proto_store *resolve(proto_store *s, const uint8_t **key, uint8_t buf[PROTO_STORE_KEY])
{
	if (!s->base)
		return s;
	struct sha256_ctx h;
	sha256_init(&h);
	sha256_update(&h, PROTO_STORE_KEY, s->salt);
	sha256_update(&h, PROTO_STORE_KEY, *key);
	sha256_digest(&h, PROTO_STORE_KEY, buf);
	*key = buf;
	return s->base;
}

proto_store *proto_store_new(size_t budget, size_t client_budget)
{
	proto_store *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->by_key.n = s->by_addr.n = 64;
	s->by_key.b = calloc(s->by_key.n, sizeof *s->by_key.b);
	s->by_addr.b = calloc(s->by_addr.n, sizeof *s->by_addr.b);
	if (!s->by_key.b || !s->by_addr.b || pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s->by_key.b);
		free(s->by_addr.b);
		free(s);
		return NULL;
	}
	if (getrandom(&s->mix, sizeof s->mix, GRND_NONBLOCK) != (ssize_t)sizeof s->mix)
		s->mix = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15u;
	s->mix |= 1;
	s->st.budget = budget;
	s->st.client_budget = client_budget;
	return s;
}

static void free_entries(entry *e)
{
	while (e) {
		entry *next = e->gone;
		e->free_fn(e->value);
		free(e);
		e = next;
	}
}

void proto_store_free(proto_store *s)
{
	if (!s)
		return;
	if (s->base) {
		free(s);
		return;
	}
	entry *all = NULL;
	for (entry *e = s->newest; e; e = e->older) {
		e->gone = all;
		all = e;
	}
	free_entries(all);
	for (size_t i = 0; i < s->by_addr.n; i++)
		for (chained *c = s->by_addr.b[i], *next; c; c = next) {
			next = c->chain;
			free(c);
		}
	free(s->by_addr.b);
	free(s->by_key.b);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The bucket of t for a node whose bits are `bits`, mixed with the
 * store's multiplier. */
static chained **bucket(const proto_store *s, const table *t, uint64_t bits)
{
	return &t->b[(size_t)((bits * s->mix) >> 32) & (t->n - 1)];
}

static uint64_t key_bits(const uint8_t key[PROTO_STORE_KEY])
{
	uint64_t k;
	memcpy(&k, key, sizeof k);
	return k;
}

static uint64_t entry_bits(const chained *e)
{
	return key_bits(((const entry *)e)->key);
}

/* Double t when its nodes (`count`) outnumber its buckets (failing
 * quietly: chains just grow); bits: a node's, as bucket() takes them. */
static void grow(const proto_store *s, table *t, size_t count, uint64_t (*bits)(const chained *))
{
	if (count < t->n)
		return;
	table fresh = {calloc(2 * t->n, sizeof(chained *)), 2 * t->n};
	if (!fresh.b)
		return;
	for (size_t i = 0; i < t->n; i++) {
		for (chained *c = t->b[i], *next; c; c = next) {
			next = c->chain;
			chained **b = bucket(s, &fresh, bits(c));
			c->chain = *b;
			*b = c;
		}
	}
	free(t->b);
	*t = fresh;
}

/* Where the entry of `key` is linked (holding NULL: nowhere). */
static chained **find(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	chained **pp = bucket(s, &s->by_key, key_bits(key));
	while (*pp && memcmp(((entry *)*pp)->key, key, PROTO_STORE_KEY) != 0)
		pp = &(*pp)->chain;
	return pp;
}

static entry *lookup(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	return (entry *)*find(s, key);
}

/* Take e out of the lists it is in (it is linked). */
static void list_remove(proto_store *s, entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		s->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		s->oldest = e->newer;
	e->newer = e->older = NULL;
	client *c = e->owner;
	if (!c)
		return;
	if (e->cnewer)
		e->cnewer->colder = e->colder;
	else
		c->newest = e->colder;
	if (e->colder)
		e->colder->cnewer = e->cnewer;
	else
		c->oldest = e->cnewer;
	e->cnewer = e->colder = NULL;
}

/* Make e the most recently used, in its owner's list too. */
static void list_push(proto_store *s, entry *e)
{
	e->newer = NULL;
	e->older = s->newest;
	if (s->newest)
		s->newest->newer = e;
	else
		s->oldest = e;
	s->newest = e;
	client *c = e->owner;
	if (!c)
		return;
	e->cnewer = NULL;
	e->colder = c->newest;
	if (c->newest)
		c->newest->cnewer = e;
	else
		c->oldest = e;
	c->newest = e;
}

/* Addresses are chosen by clients (an IPv6 /64 holds many): hashed
 * (FNV-1a) before they are mixed like keys. */
static uint64_t addr_bits(const uint8_t addr[PROTO_STORE_CLIENT])
{
	uint64_t h = 0xcbf29ce484222325u;
	for (int i = 0; i < PROTO_STORE_CLIENT; i++)
		h = (h ^ addr[i]) * 0x100000001b3u;
	return h;
}

static uint64_t client_bits(const chained *c)
{
	return addr_bits(((const client *)c)->addr);
}

/* The client of address `addr`, added when it is not there (NULL when
 * memory ran out: then the entry is nobody's). */
static client *client_of(proto_store *s, const uint8_t addr[PROTO_STORE_CLIENT])
{
	chained **pp = bucket(s, &s->by_addr, addr_bits(addr));
	for (chained *n = *pp; n; n = n->chain)
		if (memcmp(((client *)n)->addr, addr, PROTO_STORE_CLIENT) == 0)
			return (client *)n;
	client *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	memcpy(c->addr, addr, PROTO_STORE_CLIENT);
	c->node.chain = *pp;
	*pp = &c->node;
	s->st.clients++;
	grow(s, &s->by_addr, s->st.clients, client_bits);
	return c;
}

/* e counts no more: its bytes leave the store's and its owner's sums, and
 * an owner left with nothing counted goes. */
static void uncount(proto_store *s, entry *e)
{
	s->st.bytes -= e->bytes;
	client *c = e->owner;
	if (!c)
		return;
	c->bytes -= e->bytes;
	if (--c->counted)
		return;
	chained **pp = bucket(s, &s->by_addr, addr_bits(c->addr));
	while (*pp != &c->node)
		pp = &(*pp)->chain;
	*pp = c->node.chain;
	free(c);
	s->st.clients--;
}

/* Take e out of the table and the lists; it stays counted while it is
 * held (its memory is still there), else it goes onto *gone. */
static void unlink_entry(proto_store *s, entry *e, entry **gone)
{
	chained **pp = find(s, e->key);
	*pp = e->node.chain;
	list_remove(s, e);
	e->linked = 0;
	s->st.entries--;
	if (e->refs) {
		s->st.held_removed++;
		s->st.held_removed_bytes += e->bytes;
		return;
	}
	uncount(s, e);
	e->gone = *gone;
	*gone = e;
}

/* Evict unheld entries, oldest first, until `need` more bytes fit the
 * budget (or none is left to evict); then, for client c (may be NULL),
 * its own until `cneed` more fit its share.  The evicted go onto *gone. */
static void evict(proto_store *s, client *c, size_t cneed, size_t need, entry **gone)
{
	size_t cbudget = c ? (c->budget ? c->budget : s->st.client_budget) : 0;
	if (c && cbudget) {
		entry *e = c->oldest;
		while (e && c->bytes + cneed > cbudget) {
			entry *newer = e->cnewer;
			if (e->refs == 0) {
				s->st.client_evictions++;
				s->st.evictions++;
				unlink_entry(s, e, gone);
			}
			e = newer;
		}
	}
	entry *e = s->oldest;
	while (e && s->st.bytes + need > s->st.budget) {
		entry *newer = e->newer;
		if (e->refs == 0) {
			s->st.evictions++;
			unlink_entry(s, e, gone);
		}
		e = newer;
	}
}

/* The store's own bytes for an entry: its block (with malloc's header)
 * and its share of the buckets (at most two pointers an entry). */
static size_t entry_cost(entry *e)
{
	return malloc_usable_size(e) + sizeof(size_t) + 2 * sizeof(entry *);
}

/* Link the new entry `fresh` (pp: where its key goes) for client `addr`,
 * room made first. */
static void insert(proto_store *s, entry *fresh, const uint8_t *addr, size_t cbudget, entry **gone)
{
	client *c = addr && (cbudget || s->st.client_budget) ? client_of(s, addr) : NULL;
	if (c && cbudget)
		c->budget = cbudget;
	/* Counted first: evicting c's last other value must not free c. */
	if (c)
		c->counted++;
	evict(s, c, fresh->bytes, fresh->bytes, gone);
	grow(s, &s->by_key, s->st.entries, entry_bits);
	chained **pp = find(s, fresh->key);
	fresh->node.chain = *pp;
	*pp = &fresh->node;
	fresh->owner = c;
	list_push(s, fresh);
	fresh->linked = 1;
	s->st.entries++;
	s->st.bytes += fresh->bytes;
	if (c)
		c->bytes += fresh->bytes;
}

proto_store_entry *proto_store_put(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                                   const uint8_t *client_addr, void *value, size_t bytes,
                                   void (*free_fn)(void *), int *created)
{
	entry *fresh = NULL, *gone = NULL, *held = NULL;
	uint8_t buf[PROTO_STORE_KEY];
	size_t cbudget = 0;
	if (s->base) { /* a view's puts are its own client's */
		client_addr = s->salt;
		cbudget = s->view_budget;
	}
	s = resolve(s, &key, buf);
	size_t cb = cbudget ? cbudget : s->st.client_budget;
	fresh = calloc(1, sizeof *fresh);
	if (!fresh) {
		*created = -2;
		free_fn(value);
		return NULL;
	}
	bytes += entry_cost(fresh);
	int over = bytes > s->st.budget ? -1 : client_addr && cb && bytes > cb ? -3 : 0;
	if (over) {
		*created = over;
		free(fresh);
		free_fn(value);
		return NULL;
	}
	memcpy(fresh->key, key, PROTO_STORE_KEY);
	fresh->value = value;
	fresh->bytes = bytes;
	fresh->free_fn = free_fn;
	fresh->refs = 1;

	pthread_mutex_lock(&s->lock);
	held = lookup(s, key);
	if (held) {
		held->refs++;
		list_remove(s, held);
		list_push(s, held);
		*created = 0;
		fresh->gone = gone;
		gone = fresh;
	} else {
		insert(s, fresh, client_addr, cbudget, &gone);
		held = fresh;
		*created = 1;
	}
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
	return held;
}

void proto_store_charge(proto_store *s, proto_store_entry *e, size_t more)
{
	if (s->base)
		s = s->base;
	entry *gone = NULL;
	pthread_mutex_lock(&s->lock);
	e->bytes += more;
	s->st.bytes += more;
	if (!e->linked)
		s->st.held_removed_bytes += more;
	if (e->owner)
		e->owner->bytes += more;
	evict(s, e->owner, 0, 0, &gone);
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
}

size_t proto_store_weight(proto_store *s, const proto_store_entry *e)
{
	if (s->base)
		s = s->base;
	pthread_mutex_lock(&s->lock);
	size_t bytes = e->bytes;
	pthread_mutex_unlock(&s->lock);
	return bytes;
}

proto_store_entry *proto_store_acquire(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	uint8_t buf[PROTO_STORE_KEY];
	s = resolve(s, &key, buf);
	pthread_mutex_lock(&s->lock);
	entry *e = lookup(s, key);
	if (e) {
		e->refs++;
		list_remove(s, e);
		list_push(s, e);
		s->st.hits++;
	} else {
		s->st.misses++;
	}
	pthread_mutex_unlock(&s->lock);
	return e;
}

int proto_store_has(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	uint8_t buf[PROTO_STORE_KEY];
	s = resolve(s, &key, buf);
	pthread_mutex_lock(&s->lock);
	int there = lookup(s, key) != NULL;
	pthread_mutex_unlock(&s->lock);
	return there;
}

int proto_store_peek(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                     void (*read)(const void *value, void *arg), void *arg)
{
	uint8_t buf[PROTO_STORE_KEY];
	s = resolve(s, &key, buf);
	pthread_mutex_lock(&s->lock);
	entry *e = lookup(s, key);
	if (e)
		read(e->value, arg);
	pthread_mutex_unlock(&s->lock);
	return e != NULL;
}

const void *proto_store_value(const proto_store_entry *e)
{
	return e->value;
}

void proto_store_retain(proto_store *s, proto_store_entry *e)
{
	if (s->base)
		s = s->base;
	pthread_mutex_lock(&s->lock);
	e->refs++;
	pthread_mutex_unlock(&s->lock);
}

void proto_store_release(proto_store *s, proto_store_entry *e)
{
	if (s->base)
		s = s->base;
	entry *gone = NULL;
	pthread_mutex_lock(&s->lock);
	if (--e->refs == 0) {
		if (!e->linked) {
			s->st.held_removed--;
			s->st.held_removed_bytes -= e->bytes;
			uncount(s, e);
			gone = e;
		}
		/* Puts made while others held theirs may have left the store, or
		 * this client, over. */
		evict(s, e->linked ? e->owner : NULL, 0, 0, &gone);
	}
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
}

int proto_store_remove(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	uint8_t buf[PROTO_STORE_KEY];
	s = resolve(s, &key, buf);
	entry *gone = NULL;
	pthread_mutex_lock(&s->lock);
	entry *e = lookup(s, key);
	int found = e != NULL;
	if (e)
		unlink_entry(s, e, &gone);
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
	return found ? 0 : 1;
}

size_t proto_store_view_usage(proto_store *view, size_t *entries)
{
	*entries = 0;
	if (!view->base)
		return 0;
	proto_store *s = view->base;
	size_t bytes = 0;
	pthread_mutex_lock(&s->lock);
	for (chained *n = *bucket(s, &s->by_addr, addr_bits(view->salt)); n; n = n->chain) {
		const client *c = (const client *)n;
		if (memcmp(c->addr, view->salt, PROTO_STORE_CLIENT) == 0) {
			bytes = c->bytes;
			*entries = c->counted;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return bytes;
}

void proto_store_get_stats(proto_store *s, proto_store_stats *out)
{
	if (s->base)
		s = s->base;
	pthread_mutex_lock(&s->lock);
	*out = s->st;
	pthread_mutex_unlock(&s->lock);
}

void proto_store_set_tier(proto_store *s, const struct proto_shape_tier *tier)
{
	s->tier = tier;
}

const struct proto_shape_tier *proto_store_tier(const proto_store *s)
{
	return s->base ? s->base->tier : s->tier;
}

proto_store *proto_store_view(proto_store *base, const char *scope, size_t budget)
{
	size_t n = strlen(scope);
	if (base->base || n == 0 || n > PROTO_STORE_SCOPE)
		return NULL;
	proto_store *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->base = base;
	memcpy(v->scope, scope, n);
	v->view_budget = budget;
	/* Random: nobody outside can compute a view's keys, nor pick a client
	 * address equal to its puts' (the salt's first bytes).  Memory only:
	 * the tier names the view by its scope. */
	if (getrandom(v->salt, sizeof v->salt, GRND_NONBLOCK) != (ssize_t)sizeof v->salt) {
		static const char tag[] = "clashd-store-view-v1";
		struct sha256_ctx h;
		sha256_init(&h);
		sha256_update(&h, sizeof tag, (const uint8_t *)tag);
		sha256_update(&h, n, (const uint8_t *)scope);
		sha256_update(&h, sizeof base->mix, (const uint8_t *)&base->mix);
		sha256_digest(&h, PROTO_STORE_KEY, v->salt);
	}
	return v;
}

const char *proto_store_scope(const proto_store *s)
{
	return s->base ? s->scope : NULL;
}
