/*
 * stored_shape.c — building the value the shape store keeps: the blocks of
 * a decoded shape taken over, its id, and a compact preparation for each
 * 3-D convex part (prepared in scratch of clash_prepared_size, then the
 * clash_prepared_bytes that matter copied out, as clash.h allows).
 */
#include <stdlib.h>
#include <string.h>

#include "stored_shape.h"

/* Smaller parts are scanned faster than climbed (clash.h, prepared
 * shapes): their preparation would only cost room. */
#define PREPARE_MIN 32

static int keep(stored_shape *st, void *block, size_t bytes)
{
	void **grown = realloc(st->blocks, (st->nblocks + 1) * sizeof *grown);
	if (!grown) {
		free(block);
		return -1;
	}
	st->blocks = grown;
	st->blocks[st->nblocks++] = block;
	st->bytes += bytes;
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
	return keep(st, compact, bytes);
}

/* Count, prepare and weigh the tree under s (its arrays are the stored
 * shape's own, so the cast is to memory it owns). */
static int walk(stored_shape *st, clash_shape *s, int depth)
{
	if (depth > st->depth)
		st->depth = depth;
	if (s->nparts) {
		st->bytes += s->nparts * sizeof *s->parts;
		for (size_t i = 0; i < s->nparts; i++)
			if (walk(st, (clash_shape *)&s->parts[i], depth + 1))
				return -1;
		return 0;
	}
	st->leaves++;
	st->vertices += s->count;
	st->bytes += s->count * (size_t)s->dim * sizeof(double);
	return s->dim == 3 && s->count >= PREPARE_MIN ? prepare(st, s) : 0;
}

int proto_stored_shape_build(const clash_shape *s, void ***blocks, size_t *nblocks,
                             stored_shape **out)
{
	stored_shape *st = calloc(1, sizeof *st);
	if (!st)
		return -1;
	st->shape = *s;
	st->blocks = *blocks;
	st->nblocks = *nblocks;
	*blocks = NULL;
	*nblocks = 0;
	proto_shape_id(&st->shape, st->id);
	st->bytes = sizeof *st;
	if (walk(st, &st->shape, 0) != 0) {
		proto_stored_shape_free(st);
		return -1;
	}
	st->hull = st->shape.nparts ? 0 : clash_prepared_hull(&st->shape);
	*out = st;
	return 0;
}

void proto_stored_shape_free(void *stored)
{
	stored_shape *st = stored;
	if (!st)
		return;
	for (size_t i = 0; i < st->nblocks; i++)
		free(st->blocks[i]);
	free(st->blocks);
	free(st);
}
