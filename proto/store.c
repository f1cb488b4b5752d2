/*
 * store.c — the bounded, content-addressed cache of store.h.
 *
 * One mutex guards everything: a chained hash table of entries (its size a
 * power of two, doubled when the entries outnumber the buckets) and a
 * doubly linked list in order of use, most recent first.  Keys are SHA-256
 * digests, so their bits are already uniform; they are still mixed with a
 * per-store random multiplier, so that ids a client ground out to share
 * low bits do not share a bucket.  Eviction walks the list from its old
 * end, skipping held entries.  Values are freed after the mutex is let go
 * (a large shape's arrays take a while to unmap).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "store.h"

struct proto_store_entry {
	uint8_t key[PROTO_STORE_KEY];
	void *value;
	size_t bytes;
	void (*free_fn)(void *);
	unsigned refs;
	int linked;                      /* in the table and the list */
	struct proto_store_entry *chain; /* next in its bucket */
	struct proto_store_entry *newer, *older;
	struct proto_store_entry *gone;  /* in a list of entries to free */
};

typedef struct proto_store_entry entry;

struct proto_store {
	pthread_mutex_t lock;
	entry **buckets;
	size_t nbuckets; /* a power of two */
	uint64_t mix;    /* odd */
	entry *newest, *oldest;
	proto_store_stats st;
};

proto_store *proto_store_new(size_t budget)
{
	proto_store *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->nbuckets = 64;
	s->buckets = calloc(s->nbuckets, sizeof *s->buckets);
	if (!s->buckets || pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s->buckets);
		free(s);
		return NULL;
	}
	if (getrandom(&s->mix, sizeof s->mix, GRND_NONBLOCK) != (ssize_t)sizeof s->mix)
		s->mix = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15u;
	s->mix |= 1;
	s->st.budget = budget;
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
	entry *all = NULL;
	for (entry *e = s->newest; e; e = e->older) {
		e->gone = all;
		all = e;
	}
	free_entries(all);
	free(s->buckets);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static size_t bucket_of(const proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	uint64_t k;
	memcpy(&k, key, sizeof k);
	return (size_t)((k * s->mix) >> 32) & (s->nbuckets - 1);
}

static entry **find(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	entry **pp = &s->buckets[bucket_of(s, key)];
	while (*pp && memcmp((*pp)->key, key, PROTO_STORE_KEY) != 0)
		pp = &(*pp)->chain;
	return pp;
}

/* Make e the most recently used (it is linked, or being linked). */
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
}

static void list_push(proto_store *s, entry *e)
{
	e->newer = NULL;
	e->older = s->newest;
	if (s->newest)
		s->newest->newer = e;
	else
		s->oldest = e;
	s->newest = e;
}

/* Take e out of the table and the list; the caller frees it when nobody
 * holds it. */
static void unlink_entry(proto_store *s, entry *e)
{
	entry **pp = find(s, e->key);
	*pp = e->chain;
	list_remove(s, e);
	e->linked = 0;
	s->st.entries--;
	s->st.bytes -= e->bytes;
}

/* Evict unheld entries, oldest first, until `need` more bytes fit (or
 * none is left to evict); the evicted go onto *gone. */
static void evict(proto_store *s, size_t need, entry **gone)
{
	entry *e = s->oldest;
	while (e && s->st.bytes + need > s->st.budget) {
		entry *newer = e->newer;
		if (e->refs == 0) {
			unlink_entry(s, e);
			s->st.evictions++;
			e->gone = *gone;
			*gone = e;
		}
		e = newer;
	}
}

/* Double the buckets when the entries outnumber them (failing quietly:
 * chains just grow). */
static void grow(proto_store *s)
{
	if (s->st.entries < s->nbuckets)
		return;
	size_t old_n = s->nbuckets;
	entry **old = s->buckets;
	entry **fresh = calloc(2 * old_n, sizeof *fresh);
	if (!fresh)
		return;
	s->buckets = fresh;
	s->nbuckets = 2 * old_n;
	for (size_t i = 0; i < old_n; i++) {
		for (entry *e = old[i], *next; e; e = next) {
			next = e->chain;
			size_t b = bucket_of(s, e->key);
			e->chain = fresh[b];
			fresh[b] = e;
		}
	}
	free(old);
}

proto_store_entry *proto_store_put(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                                   void *value, size_t bytes, void (*free_fn)(void *),
                                   int *created)
{
	entry *fresh = NULL, *gone = NULL, *held = NULL;
	if (bytes > s->st.budget) {
		*created = -1;
		free_fn(value);
		return NULL;
	}
	fresh = calloc(1, sizeof *fresh);
	if (!fresh) {
		*created = -2;
		free_fn(value);
		return NULL;
	}
	memcpy(fresh->key, key, PROTO_STORE_KEY);
	fresh->value = value;
	fresh->bytes = bytes;
	fresh->free_fn = free_fn;
	fresh->refs = 1;

	pthread_mutex_lock(&s->lock);
	entry **pp = find(s, key);
	if (*pp) {
		held = *pp;
		held->refs++;
		list_remove(s, held);
		list_push(s, held);
		*created = 0;
		fresh->gone = gone;
		gone = fresh;
	} else {
		evict(s, bytes, &gone);
		grow(s);
		pp = find(s, key);
		fresh->chain = *pp;
		*pp = fresh;
		list_push(s, fresh);
		fresh->linked = 1;
		s->st.entries++;
		s->st.bytes += bytes;
		held = fresh;
		*created = 1;
	}
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
	return held;
}

proto_store_entry *proto_store_acquire(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	pthread_mutex_lock(&s->lock);
	entry *e = *find(s, key);
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
	pthread_mutex_lock(&s->lock);
	int there = *find(s, key) != NULL;
	pthread_mutex_unlock(&s->lock);
	return there;
}

int proto_store_peek(proto_store *s, const uint8_t key[PROTO_STORE_KEY],
                     void (*read)(const void *value, void *arg), void *arg)
{
	pthread_mutex_lock(&s->lock);
	entry *e = *find(s, key);
	if (e)
		read(e->value, arg);
	pthread_mutex_unlock(&s->lock);
	return e != NULL;
}

const void *proto_store_value(const proto_store_entry *e)
{
	return e->value;
}

void proto_store_release(proto_store *s, proto_store_entry *e)
{
	entry *gone = NULL;
	pthread_mutex_lock(&s->lock);
	if (--e->refs == 0) {
		if (!e->linked)
			gone = e;
		else if (s->st.bytes > s->st.budget) /* put while others held theirs */
			evict(s, 0, &gone);
	}
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
}

int proto_store_remove(proto_store *s, const uint8_t key[PROTO_STORE_KEY])
{
	entry *gone = NULL;
	pthread_mutex_lock(&s->lock);
	entry *e = *find(s, key);
	int found = e != NULL;
	if (e) {
		unlink_entry(s, e);
		if (e->refs == 0)
			gone = e;
	}
	pthread_mutex_unlock(&s->lock);
	free_entries(gone);
	return found ? 0 : 1;
}

void proto_store_get_stats(proto_store *s, proto_store_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->st;
	pthread_mutex_unlock(&s->lock);
}
