/*
 * stored_shape.c — building the value the shape store keeps: the blocks of
 * a decoded shape taken over, its id, and — on first use, see
 * stored_shape.h — a compact preparation for each 3-D convex part
 * (prepared in scratch of clash_prepared_size, then the
 * clash_prepared_bytes that matter copied out, as clash.h allows).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "stored_shape.h"

/* Smaller parts are scanned faster than climbed (clash.h, prepared
 * shapes): their preparation would only cost room. */
#define PREPARE_MIN 32

static int prepared_part(const clash_shape *s)
{
	return s->dim == 3 && s->count >= PREPARE_MIN && !s->mesh;
}

static int keep(stored_shape *st, void *block)
{
	void **grown = realloc(st->blocks, (st->nblocks + 1) * sizeof *grown);
	if (!grown) {
		free(block);
		return -1;
	}
	st->blocks = grown;
	st->blocks[st->nblocks++] = block;
	return 0;
}

/* Prepare a 3-D convex part, keeping the compact preparation. */
static int prepare(stored_shape *st, clash_shape *s)
{
	size_t size = clash_prepared_size(s->dim, s->count);
	void *scratch = malloc(size);
	if (!scratch)
		return -1;
	if (clash_shape_prepare(s, scratch, size) != CLASH_OK) {
		free(scratch); /* cannot happen for decoded vertices: leave it plain */
		s->prepared = NULL;
		return 0;
	}
	size_t bytes = clash_prepared_bytes(s);
	void *compact = malloc(bytes);
	if (!compact) {
		s->prepared = NULL;
		free(scratch);
		return -1;
	}
	memcpy(compact, scratch, bytes);
	int e = clash_shape_set_prepared(s, compact);
	free(scratch);
	if (e != CLASH_OK) {
		s->prepared = NULL;
		free(compact);
		return 0;
	}
	return keep(st, compact);
}

/* Prepare every part under s not prepared yet (its arrays are the stored
 * shape's own, so the cast is to memory it owns). */
static int prepare_tree(stored_shape *st, clash_shape *s)
{
	if (s->nparts) {
		for (size_t i = 0; i < s->nparts; i++)
			if (prepare_tree(st, (clash_shape *)&s->parts[i]))
				return -1;
		return 0;
	}
	return prepared_part(s) && !s->prepared ? prepare(st, s) : 0;
}

size_t proto_block_bytes(const void *p)
{
	return p ? malloc_usable_size((void *)p) + sizeof(size_t) : 0;
}

/* What st holds: itself, its list of blocks and every block (vertex,
 * parts and index arrays, mesh trees, preparations). */
static size_t weigh(const stored_shape *st)
{
	size_t n = proto_block_bytes(st) + proto_block_bytes(st->blocks);
	for (size_t i = 0; i < st->nblocks; i++)
		n += proto_block_bytes(st->blocks[i]);
	return n;
}

/* Count the tree under s. */
static void walk(stored_shape *st, const clash_shape *s, int depth)
{
	if (depth > st->depth)
		st->depth = depth;
	if (s->nparts) {
		for (size_t i = 0; i < s->nparts; i++)
			walk(st, &s->parts[i], depth + 1);
		return;
	}
	st->leaves++;
	st->vertices += s->count;
	if (s->mesh) {
		st->meshes++;
		st->solid_meshes += clash_mesh_is_solid(s->mesh) != 0;
		st->triangles += clash_mesh_triangles(s->mesh);
	}
	st->curved += s->kind != CLASH_KIND_POLYTOPE && s->kind != CLASH_KIND_BOX;
}

int proto_stored_shape_build(const clash_shape *s, void ***blocks, size_t *nblocks,
                             const proto_mesh_weld *welds, size_t nwelds, int units,
                             stored_shape **out)
{
	stored_shape *st = calloc(1, sizeof *st);
	if (!st)
		return -1;
	if (pthread_mutex_init(&st->lock, NULL) != 0) {
		free(st);
		return -1;
	}
	atomic_init(&st->ready, 0);
	st->shape = *s;
	st->blocks = *blocks;
	st->nblocks = *nblocks;
	*blocks = NULL;
	*nblocks = 0;
	if (nwelds) {
		st->welds = malloc(nwelds * sizeof *st->welds);
		if (!st->welds || keep(st, st->welds)) {
			/* The blocks go back to the caller, as on any failure. */
			*blocks = st->blocks;
			*nblocks = st->nblocks;
			pthread_mutex_destroy(&st->lock);
			free(st);
			return -1;
		}
		memcpy(st->welds, welds, nwelds * sizeof *welds);
		st->nwelds = nwelds;
	}
	st->units = units;
	proto_shape_id(&st->shape, st->welds, st->nwelds, units, st->id);
	walk(st, &st->shape, 0);
	atomic_init(&st->bytes, weigh(st));
	*out = st;
	return 0;
}

int proto_stored_shape_ready(stored_shape *st, size_t *grown)
{
	*grown = 0;
	if (atomic_load_explicit(&st->ready, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&st->lock);
	int r = 0;
	if (!atomic_load_explicit(&st->ready, memory_order_relaxed)) {
		r = prepare_tree(st, &st->shape);
		/* Preparations kept before memory ran out stay: count them too. */
		size_t was = atomic_load(&st->bytes), now = weigh(st);
		if (now < was) /* cannot be (blocks are only added): keep the count */
			now = was;
		atomic_store(&st->bytes, now);
		*grown = now - was;
		if (r == 0) {
			st->hull = st->shape.nparts || st->shape.mesh
			                   ? 0
			                   : clash_prepared_hull(&st->shape);
			atomic_store_explicit(&st->ready, 1, memory_order_release);
		}
	}
	pthread_mutex_unlock(&st->lock);
	return r;
}

int proto_stored_shape_defer(stored_shape *st)
{
	if (st->shape.nparts || st->shape.mesh || !prepared_part(&st->shape))
		return 0;
	st->plain = st->shape;
	st->deferred = 1;
	return 1;
}

const clash_shape *proto_stored_shape_borrow(stored_shape *st)
{
	if (atomic_load_explicit(&st->ready, memory_order_acquire))
		return &st->shape;
	return st->deferred ? &st->plain : NULL;
}

long long proto_stored_shape_hull(const stored_shape *st)
{
	if (!atomic_load_explicit(&((stored_shape *)st)->ready, memory_order_acquire))
		return -1;
	return (long long)st->hull;
}

void proto_stored_shape_free(void *stored)
{
	stored_shape *st = stored;
	if (!st)
		return;
	for (size_t i = 0; i < st->nblocks; i++)
		free(st->blocks[i]);
	free(st->blocks);
	pthread_mutex_destroy(&st->lock);
	free(st);
}
