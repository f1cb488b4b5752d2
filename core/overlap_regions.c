/*
 * overlap_regions.c — the answer of a mesh clash report (overlap.h): the
 * pieces joined into regions, the segments chained into polylines, the
 * triangles named by their input indices, all in one block.
 *
 * A region is a connected component of the boundary of A∩B: segments
 * joined at their ends, inside pieces of edges joined to the crossings
 * and corners they run between, and triangles wholly inside joined by
 * their corners (union-find over the ends and both sides' vertices).
 * The segments of a region run head to tail (each end starts one segment
 * and ends one on closed surfaces), so a polyline is followed from an end
 * that none reaches (open), and what is left are loops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlap_work.h"

typedef struct tri_entry {
	uint32_t region, side, index;
} tri_entry;

typedef struct acc {
	uint32_t *reg; /* per root node: region or UINT32_MAX */
	size_t nreg;
	int *has_seg, *inside_side;
	double *vol, *lo, *hi;
	tri_entry *tris;
	size_t ntris;
	uint32_t *segs_of, *seg_first; /* segments by region */
} acc;

static uint32_t region_of(ov_work *w, acc *a, uint32_t node)
{
	const uint32_t r = ov_find(w->uf, node);
	if (a->reg[r] == UINT32_MAX)
		a->reg[r] = (uint32_t)a->nreg++;
	return a->reg[r];
}

static void grow_box(acc *a, uint32_t r, const affine *f, const double *p)
{
	double x[3];
	affine_apply(f, p, x);
	for (int k = 0; k < 3; k++) {
		a->lo[3 * r + k] = OV_MIN(a->lo[3 * r + k], x[k]);
		a->hi[3 * r + k] = OV_MAX(a->hi[3 * r + k], x[k]);
	}
}

static size_t inside_count(const ov_work *w)
{
	size_t n = 0;
	for (int x = 0; x < 2 && w->volume; x++)
		for (size_t k = 0; k < w->c[x].nplay; k++)
			n += w->c[x].sfirst[k + 1] == w->c[x].sfirst[k] && w->c[x].tri_in[k] == 1;
	return n;
}

/* Regions numbered by first appearance: segments, then inside triangles. */
static int number_regions(ov_work *w, acc *a)
{
	a->reg = malloc((w->nnodes + 1) * sizeof *a->reg);
	a->tris = malloc((2 * w->nsegs + inside_count(w) + 1) * sizeof *a->tris);
	if (a->reg == NULL || a->tris == NULL)
		return CLASH_ENOMEM;
	memset(a->reg, 0xff, (w->nnodes + 1) * sizeof *a->reg);
	for (size_t i = 0; i < w->nsegs; i++) {
		const ov_seg *g = &w->segs[i];
		const uint32_t r = region_of(w, a, g->from);
		for (int x = 0; x < 2; x++)
			if (w->s[x].listed)
				a->tris[a->ntris++] =
					(tri_entry){r, (uint32_t)x, w->s[x].m->input[g->t[x]]};
	}
	for (int x = 0; x < 2 && w->volume; x++) {
		const ov_class *c = &w->c[x];
		const size_t vbase = w->nends + (x ? w->c[0].nv : 0);
		for (size_t k = 0; k < c->nplay; k++)
			if (c->sfirst[k + 1] == c->sfirst[k] && c->tri_in[k] == 1) {
				const uint32_t r =
					region_of(w, a, (uint32_t)(vbase + c->vid[3 * k]));
				if (w->s[x].listed)
					a->tris[a->ntris++] =
						(tri_entry){r, (uint32_t)x,
					                    w->s[x].m->input[c->play[k]]};
			}
	}
	return CLASH_OK;
}

static int tri_cmp(const void *p, const void *q)
{
	const tri_entry *a = p, *b = q;
	if (a->region != b->region)
		return a->region < b->region ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Volumes, boxes and kinds of the regions. */
static int measure(ov_work *w, acc *a, const affine *f, double *total)
{
	const size_t n = a->nreg + 1;
	a->has_seg = calloc(n, sizeof *a->has_seg);
	a->inside_side = calloc(n, sizeof *a->inside_side);
	a->vol = calloc(n, sizeof *a->vol);
	a->lo = malloc(3 * n * sizeof *a->lo);
	a->hi = malloc(3 * n * sizeof *a->hi);
	if (!a->has_seg || !a->inside_side || !a->vol || !a->lo || !a->hi)
		return CLASH_ENOMEM;
	for (size_t k = 0; k < 3 * n; k++) {
		a->lo[k] = INFINITY;
		a->hi[k] = -INFINITY;
	}
	*total = 0.0;
	for (size_t i = 0; w->volume && i < w->nnodes; i++)
		if (w->vol[i] != 0.0) {
			*total += w->vol[i];
			const uint32_t r = a->reg[ov_find(w->uf, (uint32_t)i)];
			if (r != UINT32_MAX)
				a->vol[r] += w->vol[i];
		}
	for (size_t i = 0; i < w->nsegs; i++) {
		const uint32_t r = a->reg[ov_find(w->uf, w->segs[i].from)];
		a->has_seg[r] = 1;
		grow_box(a, r, f, w->ends[w->segs[i].from].p);
		grow_box(a, r, f, w->ends[w->segs[i].to].p);
	}
	for (int x = 0; x < 2 && w->volume; x++) {
		const ov_class *c = &w->c[x];
		const size_t vbase = w->nends + (x ? w->c[0].nv : 0);
		for (size_t k = 0; k < c->nplay; k++)
			if (c->sfirst[k + 1] == c->sfirst[k] && c->tri_in[k] == 1) {
				const uint32_t r =
					a->reg[ov_find(w->uf, (uint32_t)(vbase + c->vid[3 * k]))];
				a->inside_side[r] |= 1 << x;
				for (int j = 0; j < 3; j++)
					grow_box(a, r, f, ov_corner(&w->s[x], c->play[k], j));
			}
	}
	return CLASH_OK;
}

/* The segments of each region, by a counting sort. */
static int segments_by_region(ov_work *w, acc *a)
{
	a->seg_first = calloc(a->nreg + 2, sizeof *a->seg_first);
	a->segs_of = malloc((w->nsegs + 1) * sizeof *a->segs_of);
	if (a->seg_first == NULL || a->segs_of == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < w->nsegs; i++)
		a->seg_first[a->reg[ov_find(w->uf, w->segs[i].from)] + 1]++;
	for (size_t r = 0; r < a->nreg; r++)
		a->seg_first[r + 1] += a->seg_first[r];
	for (size_t i = 0; i < w->nsegs; i++)
		a->segs_of[a->seg_first[a->reg[ov_find(w->uf, w->segs[i].from)]]++] = (uint32_t)i;
	for (size_t r = a->nreg; r > 0; r--)
		a->seg_first[r] = a->seg_first[r - 1];
	a->seg_first[0] = 0;
	return CLASH_OK;
}

/* The chained curve of all listed regions: end ids in order (pts),
 * polyline starts (in pts) and closed flags. */
typedef struct chains {
	uint32_t *pts;
	size_t npts;
	size_t *off; /* per polyline: first point; one more at the end */
	unsigned char *closed;
	size_t npoly;
	size_t *region_poly; /* per listed region: first polyline; one more */
	uint32_t *next;      /* per end: the segment leaving it, or UINT32_MAX */
	unsigned char *reached, *used;
} chains;

static void follow(const ov_work *w, chains *ch, uint32_t s, int loop)
{
	const uint32_t start = w->segs[s].from;
	ch->off[ch->npoly] = ch->npts;
	ch->pts[ch->npts++] = start;
	while (s != UINT32_MAX && !ch->used[s]) {
		ch->used[s] = 1;
		const uint32_t to = w->segs[s].to;
		if (loop && to == start)
			break;
		ch->pts[ch->npts++] = to;
		s = ch->next[to];
	}
	ch->closed[ch->npoly++] =
		(unsigned char)(loop && s != UINT32_MAX && w->segs[s].to == start);
}

static int chain(ov_work *w, const acc *a, size_t nlisted, chains *ch)
{
	ch->pts = malloc((2 * w->nsegs + 1) * sizeof *ch->pts);
	ch->off = malloc((w->nsegs + 2) * sizeof *ch->off);
	ch->closed = malloc(w->nsegs + 1);
	ch->region_poly = malloc((nlisted + 1) * sizeof *ch->region_poly);
	ch->next = malloc((w->nends + 1) * sizeof *ch->next);
	ch->reached = calloc(w->nends + 1, 1);
	ch->used = calloc(w->nsegs + 1, 1);
	if (!ch->pts || !ch->off || !ch->closed || !ch->region_poly || !ch->next || !ch->reached ||
	    !ch->used)
		return CLASH_ENOMEM;
	memset(ch->next, 0xff, (w->nends + 1) * sizeof *ch->next);
	for (size_t i = 0; i < w->nsegs; i++) {
		ch->next[w->segs[i].from] = (uint32_t)i;
		ch->reached[w->segs[i].to] = 1;
	}
	for (size_t r = 0; r < nlisted; r++) {
		if (cancel_requested(w->cancel))
			return CLASH_ECANCELED;
		ch->region_poly[r] = ch->npoly;
		for (int loop = 0; loop < 2; loop++)
			for (uint32_t q = a->seg_first[r]; q < a->seg_first[r + 1]; q++) {
				const uint32_t s = a->segs_of[q];
				if (!ch->used[s] && (loop || !ch->reached[w->segs[s].from]))
					follow(w, ch, s, loop);
			}
	}
	ch->region_poly[nlisted] = ch->npoly;
	ch->off[ch->npoly] = ch->npts;
	return CLASH_OK;
}

static size_t cap_or(size_t v, size_t dflt)
{
	return v ? v : dflt;
}

/* Listed triangles of region r, side x: [*b, *e) of a->tris. */
static void tri_range(const acc *a, uint32_t r, uint32_t x, size_t *b, size_t *e)
{
	size_t lo = 0, hi = a->ntris;
	while (lo < hi) { /* first entry >= (r, x) */
		const size_t mid = (lo + hi) / 2;
		const tri_entry *t = &a->tris[mid];
		if (t->region < r || (t->region == r && t->side < x))
			lo = mid + 1;
		else
			hi = mid;
	}
	*b = lo;
	for (hi = lo; hi < a->ntris && a->tris[hi].region == r && a->tris[hi].side == x;)
		hi++;
	*e = hi;
}

typedef struct caps {
	size_t regions, points, triangles;
} caps;

/* Bytes of the block, and which points are kept under the cap. */
static size_t block_size(const acc *a, const chains *ch, size_t nlisted, const caps *cp,
                         int *truncated)
{
	size_t bytes = sizeof(clash_overlap) + nlisted * sizeof(clash_overlap_region);
	size_t points = 0;
	for (size_t r = 0; r < nlisted; r++) {
		const size_t np = ch->region_poly[r + 1] - ch->region_poly[r];
		bytes += (np + 1) * sizeof(size_t) + ((np + 7) & ~(size_t)7);
		for (size_t x = 0; x < 2; x++) {
			size_t b, e;
			tri_range(a, (uint32_t)r, (uint32_t)x, &b, &e);
			const size_t n = e - b < cp->triangles ? e - b : cp->triangles;
			*truncated |= n < e - b;
			bytes += ((n * sizeof(uint32_t) + 7) & ~(size_t)7);
		}
		for (size_t p = ch->region_poly[r]; p < ch->region_poly[r + 1]; p++) {
			const size_t n = ch->off[p + 1] - ch->off[p];
			const size_t keep = points + n <= cp->points ? n : cp->points - points;
			*truncated |= keep < n;
			points += keep;
			bytes += keep * 3 * sizeof(double);
		}
	}
	return bytes;
}

static void *take(char **at, size_t bytes)
{
	void *p = *at;
	*at += (bytes + 7) & ~(size_t)7;
	return p;
}

static void fill_region(const ov_work *w, const acc *a, const chains *ch, size_t r, const caps *cp,
                        size_t *points, const affine *f, double det, char **at,
                        clash_overlap_region *g)
{
	memset(g, 0, sizeof *g);
	g->kind = a->has_seg[r]
	                  ? CLASH_CONTACT_SURFACES
	                  : (a->inside_side[r] & 1 ? CLASH_CONTACT_A_IN_B : CLASH_CONTACT_B_IN_A);
	memcpy(g->lo, a->lo + 3 * r, sizeof g->lo);
	memcpy(g->hi, a->hi + 3 * r, sizeof g->hi);
	g->has_volume = w->volume;
	g->volume = w->volume ? fabs(det) * a->vol[r] : 0.0;
	const size_t p0 = ch->region_poly[r], np = ch->region_poly[r + 1] - p0;
	size_t *off = take(at, (np + 1) * sizeof *off);
	unsigned char *closed = take(at, np);
	double *pts = (double *)*at;
	size_t n = 0;
	for (size_t p = 0; p < np; p++) {
		off[p] = n;
		const size_t m = ch->off[p0 + p + 1] - ch->off[p0 + p];
		const size_t keep = *points + m <= cp->points ? m : cp->points - *points;
		closed[p] = (unsigned char)(keep == m && ch->closed[p0 + p]);
		for (size_t i = 0; i < keep; i++)
			affine_apply(f, w->ends[ch->pts[ch->off[p0 + p] + i]].p, pts + 3 * n++);
		*points += keep;
	}
	off[np] = n;
	*at += n * 3 * sizeof(double);
	g->npolylines = np;
	g->polyline = off;
	g->closed = closed;
	g->points = pts;
	for (uint32_t x = 0; x < 2; x++) {
		size_t b, e;
		tri_range(a, (uint32_t)r, x, &b, &e);
		const size_t k = e - b < cp->triangles ? e - b : cp->triangles;
		uint32_t *t = take(at, k * sizeof *t);
		for (size_t i = 0; i < k; i++)
			t[i] = a->tris[b + i].index;
		*(x ? &g->ntriangles_b : &g->ntriangles_a) = k;
		*(x ? &g->triangles_b : &g->triangles_a) = t;
		*(x ? &g->total_triangles_b : &g->total_triangles_a) = e - b;
	}
}

static void acc_free(acc *a, chains *ch)
{
	free(a->reg);
	free(a->has_seg);
	free(a->inside_side);
	free(a->vol);
	free(a->lo);
	free(a->hi);
	free(a->tris);
	free(a->segs_of);
	free(a->seg_first);
	free(ch->pts);
	free(ch->off);
	free(ch->closed);
	free(ch->region_poly);
	free(ch->next);
	free(ch->reached);
	free(ch->used);
}

/* Sort the triangle entries and drop repeats. */
static void unique_tris(acc *a)
{
	qsort(a->tris, a->ntris, sizeof *a->tris, tri_cmp);
	size_t n = 0;
	for (size_t i = 0; i < a->ntris; i++)
		if (n == 0 || tri_cmp(&a->tris[n - 1], &a->tris[i]) != 0)
			a->tris[n++] = a->tris[i];
	a->ntris = n;
}

int ov_answer(ov_work *w, const clash_overlap_options *opt, const affine *f, double det,
              clash_overlap **out)
{
	acc a = {0};
	chains ch = {0};
	double total = 0.0;
	const caps cp = {cap_or(opt ? opt->max_regions : 0, CLASH_OVERLAP_MAX_REGIONS),
	                 cap_or(opt ? opt->max_points : 0, CLASH_OVERLAP_MAX_POINTS),
	                 cap_or(opt ? opt->max_triangles : 0, CLASH_OVERLAP_MAX_TRIANGLES)};
	int err = number_regions(w, &a);
	if (!err)
		err = measure(w, &a, f, &total);
	if (!err)
		err = segments_by_region(w, &a);
	const size_t nlisted = a.nreg < cp.regions ? a.nreg : cp.regions;
	if (!err)
		err = chain(w, &a, nlisted, &ch);
	if (err) {
		acc_free(&a, &ch);
		return err;
	}
	unique_tris(&a);
	int truncated = nlisted < a.nreg;
	const size_t bytes = block_size(&a, &ch, nlisted, &cp, &truncated);
	clash_overlap *o = malloc(bytes);
	if (o == NULL) {
		acc_free(&a, &ch);
		return CLASH_ENOMEM;
	}
	memset(o, 0, sizeof *o);
	char *at = (char *)(o + 1);
	clash_overlap_region *g = take(&at, nlisted * sizeof *g);
	size_t points = 0;
	for (size_t r = 0; r < nlisted; r++)
		fill_region(w, &a, &ch, r, &cp, &points, f, det, &at, &g[r]);
	o->nregions = nlisted;
	o->total_regions = a.nreg;
	o->regions = g;
	o->truncated = truncated;
	o->has_volume = w->volume;
	o->volume = w->volume ? fabs(det) * total : 0.0;
	o->intersecting = a.nreg > 0;
	acc_free(&a, &ch);
	*out = o;
	return CLASH_OK;
}
