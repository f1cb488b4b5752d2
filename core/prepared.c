/*
 * prepared.c — prepared shapes: clash_prepared_size, clash_shape_prepare
 * and the hill-climbing support mapping (see prepared.h).
 *
 * A shape used for many queries is prepared once: in 3-D its convex hull's
 * vertex adjacency is built (hull3.c), and a support point is then found by
 * walking the graph uphill from a start looked up in a cube map of
 * directions, in a few steps whatever the vertex count; the hull vertices
 * are renumbered along a Morton curve so that a climb reads near memory.
 * Why, and how the cube map is sized: docs/design.md, "core/prepared.c".
 *
 * Storage layout (caller's, 8-aligned): the prepared header, then for 3-D
 * the graph's arrays, packed (their offsets are in the header, see
 * prepared.h), then, used only while preparing, the hull builder's output
 * and scratch (hull3_scratch_size).  The preparation is the first `bytes`
 * bytes: it may be copied elsewhere and the rest freed
 * (clash_prepared_bytes, clash_shape_set_prepared). */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "hull3.h"
#include "lanes.h"
#include "prepared.h"
#include "vec.h"

#define PREPARED_MAGIC 0x70726570u /* "prep" */

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The packed graph at most (H = count), and the builder's output. */
static size_t final_size(size_t count)
{
	return align8(count * sizeof(uint32_t)) * 3 + align8((count + 1) * sizeof(uint32_t)) +
	       align8(6 * count * sizeof(uint32_t)) +
	       align8(PREPARED_CELLS_MAX * sizeof(uint32_t)) + 3 * count * sizeof(double) + 64;
}

static size_t built_size(size_t count)
{
	return align8((count + 1) * sizeof(uint32_t)) + align8(6 * count * sizeof(uint32_t));
}

/* Does dimension dim with count vertices get a hull graph? */
static int graphed(int dim, size_t count)
{
	return dim == 3 && count >= 4 && count <= HULL3_MAX_POINTS;
}

size_t clash_prepared_size(int dim, size_t count)
{
	if (dim < 1 || dim > CLASH_MAX_DIM || count == 0)
		return 0;
	size_t n = align8(sizeof(prepared));
	if (graphed(dim, count))
		n += final_size(count) + built_size(count) + align8(hull3_scratch_size(count));
	return n;
}

/* The cube map's side for count vertices: side^2 about count / 16. */
static int side_for(size_t count)
{
	int side = 4;
	while (side < PREPARED_SIDE_MAX && (size_t)(4 * side) * (size_t)(4 * side) < count)
		side *= 2;
	return side;
}

/* The cell of direction e (3-D).  A zero or NaN direction gets cell 0:
 * any start is as good as another. */
static unsigned cell_of(const double *e, int side)
{
	double ax = fabs(e[0]), ay = fabs(e[1]), az = fabs(e[2]);
	int a = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
	double m = fabs(e[a]);
	if (!(m > 0.0) || !(m < INFINITY))
		return 0;
	double u = e[(a + 1) % 3] / m, w = e[(a + 2) % 3] / m;
	int i = (int)((u + 1.0) * (0.5 * side)), j = (int)((w + 1.0) * (0.5 * side));
	i = i < 0 ? 0 : i >= side ? side - 1 : i;
	j = j < 0 ? 0 : j >= side ? side - 1 : j;
	return (unsigned)(((2 * a + (e[a] < 0.0)) * side + i) * side + j);
}

/* The central direction of cell c. */
static void cell_direction(unsigned c, int side, double *d)
{
	unsigned s = (unsigned)side;
	unsigned face = c / (s * s);
	unsigned i = (c / s) % s, j = c % s;
	int a = (int)face / 2;
	d[a] = face % 2 ? -1.0 : 1.0;
	d[(a + 1) % 3] = ((i + 0.5) / side) * 2.0 - 1.0;
	d[(a + 2) % 3] = ((j + 0.5) / side) * 2.0 - 1.0;
}

/* The score of graph node u along e: the scans' expression (support.c's
 * max_dot3_any), operand for operand, so that equal points score equal
 * bits. */
static inline double node_score(const double *xyz, uint32_t u, const double *e, double x0,
                                double y0, double z0)
{
	const double *r = xyz + 3 * (size_t)u;
	return ((r[0] - x0) * e[0] + (r[1] - y0) * e[1]) + (r[2] - z0) * e[2];
}

/* The climb over graph numbers; rel scores relative to the shape's vertex 0
 * (as support_max_dot_rel3), else plainly.  Returns a graph number, a node
 * none of whose neighbours scores higher; *second is the highest score of
 * its neighbours (-INFINITY for none) and *top its own. */
static uint32_t climb_from(const prepared *p, uint32_t cur, const double *e, int rel, double *top,
                           double *second)
{
	const double *xyz = prepared_xyz(p), *v0 = p->vertices;
	const uint32_t *adj_start = prepared_array(p, p->at_adj_start),
		       *adj = prepared_array(p, p->at_adj);
	const double x0 = rel ? v0[0] : 0.0, y0 = rel ? v0[1] : 0.0, z0 = rel ? v0[2] : 0.0;
	double best = node_score(xyz, cur, e, x0, y0, z0);
	for (;;) {
		uint32_t next = cur;
		double runner = -INFINITY;
		for (uint32_t k = adj_start[cur]; k < adj_start[cur + 1]; k++) {
			uint32_t u = adj[k];
			double s = node_score(xyz, u, e, x0, y0, z0);
			runner = s > runner ? s : runner;
			if (s > best) {
				best = s;
				next = u;
			}
		}
		if (next == cur) {
			*top = best;
			*second = runner;
			return cur;
		}
		cur = next;
	}
}

/* Plateaus of up to this many nodes are searched as a list. */
#define PLATEAU_LIST 8

/* Add w to the hash set of 2 PREPARED_PLATEAU_MAX slots (UINT32_MAX:
 * empty); 0 when it was there. */
static inline int set_add(uint32_t *set, uint32_t w)
{
	const uint32_t mask = 2 * PREPARED_PLATEAU_MAX - 1;
	uint32_t h = (w * UINT32_C(2654435761)) >> 16 & mask;
	while (set[h] != UINT32_MAX) {
		if (set[h] == w)
			return 0;
		h = (h + 1) & mask;
	}
	set[h] = w;
	return 1;
}

static inline int set_has(const uint32_t *set, uint32_t w)
{
	const uint32_t mask = 2 * PREPARED_PLATEAU_MAX - 1;
	uint32_t h = (w * UINT32_C(2654435761)) >> 16 & mask;
	while (set[h] != UINT32_MAX) {
		if (set[h] == w)
			return 1;
		h = (h + 1) & mask;
	}
	return 0;
}

/* The scans' answer from the climb's end `cur` (score best): the highest
 * score, the lowest vertex index among equal scores.  On a convex hull the
 * vertices scoring within rounding of the highest are a connected patch
 * around the climb's end (the nodes a linear function keeps above a level
 * are connected), so the nodes scoring within delta of the best are
 * visited from there.  Returns the vertex index, or SIZE_MAX when the patch
 * holds more than PREPARED_PLATEAU_MAX nodes (the caller then scans). */
static size_t plateau(const prepared *p, uint32_t cur, double best, const double *e, int rel,
                      double delta)
{
	const double *xyz = prepared_xyz(p), *v0 = p->vertices;
	const uint32_t *adj_start = prepared_array(p, p->at_adj_start),
		       *adj = prepared_array(p, p->at_adj);
	const uint32_t *vid = prepared_array(p, p->at_vid);
	const double x0 = rel ? v0[0] : 0.0, y0 = rel ? v0[1] : 0.0, z0 = rel ? v0[2] : 0.0;
	uint32_t seen[PREPARED_PLATEAU_MAX];
	/* The nodes seen: the list alone while it is short, then also a
	 * hash set of them (open addressing, at most half full). */
	uint32_t set[2 * PREPARED_PLATEAU_MAX];
	size_t n = 1;
	seen[0] = cur;
	uint32_t idx = vid[cur];
	double floor = best - delta;
	for (size_t i = 0; i < n; i++) {
		const uint32_t u = seen[i];
		for (uint32_t k = adj_start[u]; k < adj_start[u + 1]; k++) {
			const uint32_t w = adj[k];
			/* A large plateau's nodes are mostly each other's
			 * neighbours: look them up before scoring them. */
			if (n > PLATEAU_LIST && set_has(set, w))
				continue;
			const double s = node_score(xyz, w, e, x0, y0, z0);
			if (!(s >= floor))
				continue;
			if (n <= PLATEAU_LIST) {
				size_t j = 0;
				while (j < n && seen[j] != w)
					j++;
				if (j < n)
					continue;
			} else {
				set_add(set, w);
			}
			if (n == PREPARED_PLATEAU_MAX)
				return SIZE_MAX;
			seen[n++] = w;
			if (n == PLATEAU_LIST + 1) {
				memset(set, 0xff, sizeof set);
				for (size_t j = 0; j < n; j++)
					set_add(set, seen[j]);
			}
			if (s > best || (s == best && vid[w] < idx)) {
				best = s;
				idx = vid[w];
				floor = best - delta;
			}
		}
	}
	return idx;
}

size_t prepared_climb(const prepared *p, const double *e, int rel, size_t *hint)
{
	assert(p->hull > 0);
	const uint32_t *vid = prepared_array(p, p->at_vid);
	uint32_t at = prepared_array(p, p->at_start)[cell_of(e, p->side)];
	if (hint && *hint < p->count) {
		uint32_t h = prepared_array(p, p->at_rank)[*hint];
		if (h != UINT32_MAX && h != at) {
			/* Successive support points of one query move little:
			 * start from the last one when it is already further
			 * along e. */
			const double *xyz = prepared_xyz(p), *a = xyz + 3 * (size_t)at,
				     *b = xyz + 3 * (size_t)h;
			if ((a[0] - b[0]) * e[0] + (a[1] - b[1]) * e[1] + (a[2] - b[2]) * e[2] <
			    0.0)
				at = h;
		}
	}
	double top, second;
	uint32_t end = climb_from(p, at, e, rel, &top, &second);
	/* Near-ties: the bound covers the scores' rounding (a few ulps of
	 * reach |e|_1 each) and the builder's (points within its eps of the
	 * hull count as on it); NaN goes to the scan. */
	const double delta =
		PREPARED_TIE_ULPS * DBL_EPSILON * p->reach * (fabs(e[0]) + fabs(e[1]) + fabs(e[2]));
	size_t best;
	if (second < top - delta)
		best = vid[end];
	else if ((best = plateau(p, end, top, e, rel, delta)) == SIZE_MAX)
		best = lanes_max_dot3(p->vertices, p->count, e, rel);
	if (hint)
		*hint = best;
	return best;
}

/* Interleave the low 10 bits of x, y, z: a 30-bit Morton code. */
static uint32_t spread10(uint32_t x)
{
	x &= 0x3ffu;
	x = (x | (x << 16)) & 0x030000ffu;
	x = (x | (x << 8)) & 0x0300f00fu;
	x = (x | (x << 4)) & 0x030c30c3u;
	x = (x | (x << 2)) & 0x09249249u;
	return x;
}

/* Number the hull vertices along the Morton curve of the box lo..hi and
 * write the packed graph after the header at m.  adj_start0/adj0 is the
 * builder's graph over the original indices; work has room for 2 count
 * uint32.  Returns the end of what was written. */
static char *pack(prepared *p, char *m, const uint32_t *adj_start0, const uint32_t *adj0,
                  uint32_t *work)
{
	const size_t n = p->count, H = p->nodes;
	const double *v = p->vertices;
	uint32_t *rank = (uint32_t *)(void *)m;
	p->at_rank = (size_t)(m - (char *)p);
	m += align8(n * sizeof(uint32_t));
	uint32_t *vid = (uint32_t *)(void *)m;
	p->at_vid = (size_t)(m - (char *)p);
	m += align8(H * sizeof(uint32_t));
	/* Keys and a radix sort (three passes of 10 bits) of the hull
	 * vertices by them; work holds the keys, vid and rank the passes. */
	uint32_t *key = work, *tmp = work + n;
	size_t h = 0;
	double scale[3];
	for (int k = 0; k < 3; k++)
		scale[k] = p->hi[k] > p->lo[k] ? 1023.0 / (p->hi[k] - p->lo[k]) : 0.0;
	for (size_t i = 0; i < n; i++) {
		if (adj_start0[i] == adj_start0[i + 1])
			continue;
		uint32_t c[3];
		for (int k = 0; k < 3; k++) {
			double q = (v[3 * i + k] - p->lo[k]) * scale[k];
			c[k] = q > 0.0 ? (q < 1023.0 ? (uint32_t)q : 1023u) : 0u;
		}
		key[i] = spread10(c[0]) | spread10(c[1]) << 1 | spread10(c[2]) << 2;
		vid[h++] = (uint32_t)i;
	}
	assert(h == H);
	uint32_t *from = vid, *to = tmp;
	for (int pass = 0; pass < 3; pass++) {
		uint32_t count[1025] = {0};
		for (size_t j = 0; j < H; j++)
			count[((key[from[j]] >> (10 * pass)) & 1023u) + 1]++;
		for (int b = 0; b < 1024; b++)
			count[b + 1] += count[b];
		for (size_t j = 0; j < H; j++)
			to[count[(key[from[j]] >> (10 * pass)) & 1023u]++] = from[j];
		uint32_t *t = from;
		from = to;
		to = t;
	}
	if (from != vid)
		memcpy(vid, from, H * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		rank[i] = UINT32_MAX;
	for (size_t j = 0; j < H; j++)
		rank[vid[j]] = (uint32_t)j;
	/* The graph in the new numbers, and the coordinates in their order. */
	uint32_t *adj_start = (uint32_t *)(void *)m;
	p->at_adj_start = (size_t)(m - (char *)p);
	m += align8((H + 1) * sizeof(uint32_t));
	uint32_t *start = (uint32_t *)(void *)m;
	p->at_start = (size_t)(m - (char *)p);
	m += align8(PREPARED_CELLS_MAX * sizeof(uint32_t));
	double *xyz = (double *)(void *)m;
	p->at_xyz = (size_t)(m - (char *)p);
	m += 3 * H * sizeof(double);
	uint32_t *adj = (uint32_t *)(void *)m;
	p->at_adj = (size_t)(m - (char *)p);
	uint32_t at = 0;
	for (size_t j = 0; j < H; j++) {
		uint32_t i = vid[j];
		adj_start[j] = at;
		for (uint32_t k = adj_start0[i]; k < adj_start0[i + 1]; k++)
			adj[at++] = rank[adj0[k]];
		for (int c = 0; c < 3; c++)
			xyz[3 * j + c] = v[3 * (size_t)i + c];
	}
	adj_start[H] = at;
	(void)start;
	return m + align8(at * sizeof(uint32_t));
}

int prepared_of(const clash_shape *s, const prepared **out)
{
	*out = NULL;
	if (s->prepared == NULL)
		return CLASH_OK;
	const prepared *p = s->prepared;
	if (p->magic != PREPARED_MAGIC || p->dim != s->dim || p->count != s->count ||
	    p->vertices != s->vertices)
		return CLASH_EINVAL;
	*out = p;
	return CLASH_OK;
}

size_t clash_prepared_bytes(const clash_shape *s)
{
	const prepared *p;
	if (s == NULL || prepared_of(s, &p) != CLASH_OK || p == NULL)
		return 0;
	return p->bytes;
}

size_t clash_prepared_bytes_max(int dim, size_t count)
{
	if (dim < 1 || dim > CLASH_MAX_DIM || count == 0)
		return 0;
	/* The header, and the packed graph of a hull of every vertex (pack's
	 * end is checked to stay within final_size). */
	size_t n = align8(sizeof(prepared));
	if (graphed(dim, count))
		n += final_size(count);
	return n;
}

size_t clash_prepared_hull(const clash_shape *s)
{
	const prepared *p;
	if (s == NULL || prepared_of(s, &p) != CLASH_OK || p == NULL)
		return 0;
	return p->hull;
}

int clash_shape_set_prepared(clash_shape *s, const void *preparation)
{
	if (s == NULL || preparation == NULL || (uintptr_t)preparation % 8 != 0)
		return CLASH_EINVAL;
	const void *old = s->prepared;
	s->prepared = preparation;
	const prepared *p;
	if (prepared_of(s, &p) != CLASH_OK) {
		s->prepared = old;
		return CLASH_EINVAL;
	}
	return CLASH_OK;
}

int clash_shape_prepare(clash_shape *s, void *storage, size_t size)
{
	if (s == NULL || storage == NULL || s->nparts > 0 || s->kind || s->vertices == NULL ||
	    s->count == 0)
		return CLASH_EINVAL;
	if ((uintptr_t)storage % 8 != 0 || size < clash_prepared_size(s->dim, s->count))
		return CLASH_EINVAL;
	const int n = s->dim;
	s->prepared = NULL;
	char *m = storage;
	prepared *p = (prepared *)(void *)m;
	memset(p, 0, sizeof *p);
	m += align8(sizeof(prepared));
	p->dim = n;
	p->count = s->count;
	p->vertices = s->vertices;

	/* The box, and the NaN test a query would otherwise make. */
	const double *v = s->vertices;
	vec_copy(p->lo, v, n);
	vec_copy(p->hi, v, n);
	for (size_t i = 0; i < s->count; i++)
		for (int k = 0; k < n; k++) {
			double x = v[i * (size_t)n + k];
			if (!isfinite(x))
				return CLASH_ERANGE;
			p->lo[k] = x < p->lo[k] ? x : p->lo[k];
			p->hi[k] = x > p->hi[k] ? x : p->hi[k];
		}
	for (int k = 0; k < n; k++) {
		double big = fmax(fabs(p->lo[k]), fabs(p->hi[k]));
		p->reach = big > p->reach ? big : p->reach;
	}

	p->bytes = align8(sizeof(prepared));
	if (graphed(n, s->count)) {
		/* The builder works behind the room of the packed graph. */
		char *built = m + final_size(s->count);
		uint32_t *adj_start0 = (uint32_t *)(void *)built;
		uint32_t *adj0 =
			(uint32_t *)(void *)(built + align8((s->count + 1) * sizeof(uint32_t)));
		char *scratch = built + built_size(s->count);
		size_t attached;
		p->hull = hull3_build(v, s->count, scratch, adj_start0, adj0, &attached);
		p->nodes = p->hull + attached;
		p->side = side_for(s->count);
		if (p->hull > 0) {
			char *end = pack(p, m, adj_start0, adj0, (uint32_t *)(void *)scratch);
			assert(end <= built);
			p->bytes = (size_t)(end - (char *)p);
			/* Fill the start table cell by cell, each climb starting
			 * where the previous one ended. */
			uint32_t *start = (uint32_t *)(void *)((char *)p + p->at_start);
			uint32_t at = 0;
			const unsigned cells = 6u * (unsigned)p->side * (unsigned)p->side;
			for (unsigned c = 0; c < cells; c++) {
				double d[3];
				cell_direction(c, p->side, d);
				double top, second;
				at = climb_from(p, at, d, 0, &top, &second);
				start[c] = at;
			}
		}
	}
	p->magic = PREPARED_MAGIC;
	s->prepared = p;
	return CLASH_OK;
}
