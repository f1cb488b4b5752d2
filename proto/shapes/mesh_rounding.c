/*
 * mesh_rounding.c — a text mesh file's numbers, rounded as JavaScript
 * rounds them, in place of libassimp's (mesh_rounding.h).
 *
 * mesh_text.h reads the file's vertices again, each number as
 * (float)strtod.  An ASCII STL's come in assimp's order, one for each
 * vertex assimp made: they replace assimp's when the counts agree and
 * each number is within STL_STEPS float steps of assimp's.  OBJ and PLY
 * give their vertex lists, which assimp copies to every corner that uses
 * a vertex: each vertex assimp made takes the file's vertex nearest to it
 * within SNAP_STEPS float steps in every coordinate (found through a grid
 * of cells SNAP_CELL steps wide, each value once), unless two different
 * ones are as near (nearly coincident vertices: assimp's value stands).  assimp's reading
 * was at most two steps off in every number measured; anything farther is
 * a file the two readings disagree about, left as assimp read it.
 */
#include "mesh_rounding.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "mesh_text.h"

#define STL_STEPS 64
#define SNAP_STEPS 16
#define SNAP_CELL 32 /* at least 2 x SNAP_STEPS: a match is in a cell beside */
/* Distinct file vertices looked at in one cell at most: a real file has a
 * few within 32 float steps of each other, a hostile one cannot make a
 * vertex cost more than 8 cells of this. */
#define SNAP_CHAIN 32

/* A float's place in order: neighbours one apart, -0 and +0 at one place. */
static int64_t place(float x)
{
	int32_t i;
	memcpy(&i, &x, sizeof i);
	return i < 0 ? (int64_t)INT32_MIN - i : i;
}

static int64_t cell(int64_t p)
{
	return p >= 0 ? p / SNAP_CELL : -((-p + SNAP_CELL - 1) / SNAP_CELL);
}

static size_t cell_hash(int64_t x, int64_t y, int64_t z)
{
	uint64_t h = (uint64_t)x * 0x9e3779b97f4a7c15u;
	h = (h ^ (uint64_t)y) * 0xc2b2ae3d27d4eb4fu;
	h = (h ^ (uint64_t)z) * 0x165667b19e3779f9u;
	return (size_t)(h ^ (h >> 29));
}

/* How many steps apart a and b are in their farthest coordinate. */
static int64_t steps(const float a[3], const float b[3])
{
	int64_t d = 0;
	for (int k = 0; k < 3; k++) {
		int64_t e = llabs(place(a[k]) - place(b[k]));
		d = e > d ? e : d;
	}
	return d;
}

static size_t vertices_of(const struct aiScene *sc)
{
	size_t total = 0;
	for (unsigned i = 0; i < sc->mNumMeshes; i++)
		total += sc->mMeshes[i]->mNumVertices;
	return total;
}

/* The STL's vertices v[0, n) in assimp's order. */
static void in_order(const struct aiScene *sc, const float *v, size_t n)
{
	int ok = n == vertices_of(sc);
	for (int write = 0; ok && write < 2; write++)
		for (unsigned i = 0, k = 0; ok && i < sc->mNumMeshes; i++) {
			struct aiMesh *m = sc->mMeshes[i];
			for (unsigned j = 0; ok && j < m->mNumVertices; j++, k += 3) {
				struct aiVector3D *q = &m->mVertices[j];
				if (write)
					*q = (struct aiVector3D){v[k], v[k + 1], v[k + 2]};
				else
					ok = steps((const float[3]){q->x, q->y, q->z}, v + k) <=
					     STL_STEPS;
			}
		}
}

/* The file's vertex nearest q, into q (see above). */
static void snap_one(struct aiVector3D *q, const float *v, const uint32_t *head,
                     const uint32_t *next, size_t mask)
{
	const float a[3] = {q->x, q->y, q->z};
	if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(a[2]))
		return;
	int64_t lo[3], hi[3];
	for (int k = 0; k < 3; k++) {
		lo[k] = cell(place(a[k]) - SNAP_STEPS);
		hi[k] = cell(place(a[k]) + SNAP_STEPS);
	}
	const float *best = NULL;
	int64_t nearest = SNAP_STEPS + 1;
	int tie = 0;
	for (int64_t x = lo[0]; x <= hi[0]; x++)
		for (int64_t y = lo[1]; y <= hi[1]; y++)
			for (int64_t z = lo[2]; z <= hi[2]; z++)
				for (uint32_t j = head[cell_hash(x, y, z) & mask], walked = 0;
				     j && walked < SNAP_CHAIN; j = next[j - 1], walked++) {
					const float *r = v + 3 * (j - 1);
					int64_t d = steps(a, r);
					if (d < nearest)
						best = r, nearest = d, tie = 0;
					else if (d == nearest &&
					         memcmp(r, best, 3 * sizeof *r) != 0)
						tie = 1;
				}
	if (best && !tie)
		*q = (struct aiVector3D){best[0], best[1], best[2]};
}

static int by_bits(const void *x, const void *y)
{
	return memcmp(x, y, 3 * sizeof(float));
}

/* The OBJ's or PLY's vertices v[0, n) (reordered) where assimp's are.
 * 0 or -1. */
static int snapped(const struct aiScene *sc, float *v, size_t n)
{
	/* Each value once: an unwelded file repeats a vertex at every face. */
	qsort(v, n, 3 * sizeof *v, by_bits);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || memcmp(v + 3 * i, v + 3 * (u - 1), 3 * sizeof *v) != 0)
			memmove(v + 3 * u++, v + 3 * i, 3 * sizeof *v);
	n = u;
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint32_t *head = calloc(cap, sizeof *head), *next = malloc(n * sizeof *next);
	if (!head || !next) {
		free(head);
		free(next);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const float *r = v + 3 * i;
		next[i] = 0;
		if (!isfinite(r[0]) || !isfinite(r[1]) || !isfinite(r[2]))
			continue;
		size_t h = cell_hash(cell(place(r[0])), cell(place(r[1])), cell(place(r[2]))) &
		           (cap - 1);
		next[i] = head[h];
		head[h] = (uint32_t)(i + 1);
	}
	for (unsigned i = 0; i < sc->mNumMeshes; i++) {
		struct aiMesh *m = sc->mMeshes[i];
		for (unsigned j = 0; j < m->mNumVertices; j++)
			snap_one(&m->mVertices[j], v, head, next, cap - 1);
	}
	free(head);
	free(next);
	return 0;
}

int proto_mesh_rounding(const struct aiScene *sc, proto_mesh_format f, const char *data, size_t len)
{
	long (*scan)(const char *, size_t, float *, size_t) =
		f == PROTO_MESH_STL   ? proto_mesh_text_stl
		: f == PROTO_MESH_OBJ ? proto_mesh_text_obj
		: f == PROTO_MESH_PLY ? proto_mesh_text_ply
				      : NULL;
	size_t cap = vertices_of(sc);
	if (!scan || cap == 0)
		return 0;
	float *v = malloc(3 * cap * sizeof *v);
	long n = v ? scan(data, len, v, cap) : 0;
	if (n > 0 && (size_t)n > cap && f != PROTO_MESH_STL) { /* unused vertices */
		float *more = realloc(v, 3 * (size_t)n * sizeof *v);
		v = more ? more : v;
		n = more ? scan(data, len, v, (size_t)n) : -1;
		cap = (size_t)n;
	}
	int r = v ? 0 : -1;
	if (n > 0 && (size_t)n <= cap)
		r = f == PROTO_MESH_STL ? (in_order(sc, v, (size_t)n), 0)
		                        : snapped(sc, v, (size_t)n);
	free(v);
	return r;
}
