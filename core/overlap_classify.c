/*
 * overlap_classify.c — which parts of one side lie inside the other solid,
 * and their share of the volume (overlap.h).
 *
 * Only the triangles whose boxes meet the other side's box can lie inside
 * it ("in play").  Along an edge cut by the other surface the crossings
 * alternate between entering and leaving, so the first one tells whether
 * the edge's first corner is inside; a triangle that is not cut is wholly
 * inside or outside, like its corners, so the status spreads from the cut
 * triangles over shared corners (and along uncut edges of cut triangles).
 * Whatever it cannot reach (a part wholly inside or outside) takes one
 * ray cast (mesh_point_inside) per connected area.  Every decision comes
 * from the crossings' exact signs, so the pieces close up exactly.
 *
 * Volume: by the divergence theorem V = (1/3) sum over the boundary of
 * A∩B of x.n dA; a planar piece P of triangle T with its boundary
 * counter-clockwise contributes (x_T - o) . (1/2) sum (p - x_T) x (q - x_T)
 * over its boundary edges (p, q), x_T a corner of T, o the work's origin:
 * so the boundary edges (curve segments and inside pieces of T's edges)
 * are summed one by one, with no polygon built.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_query.h"
#include "overlap_work.h"

uint32_t ov_find(uint32_t *uf, uint32_t i)
{
	while (uf[i] != i) {
		uf[i] = uf[uf[i]];
		i = uf[i];
	}
	return i;
}

void ov_union(uint32_t *uf, uint32_t i, uint32_t j)
{
	i = ov_find(uf, i);
	j = ov_find(uf, j);
	if (i != j)
		uf[i > j ? i : j] = i > j ? j : i;
}

void ov_class_free(ov_class *c)
{
	free(c->play);
	free(c->vid);
	free(c->status);
	free(c->tri_in);
	free(c->xfirst);
	free(c->xs);
	free(c->sfirst);
	free(c->sorder);
	free(c->slot);
	memset(c, 0, sizeof *c);
}

/* The triangles of side x in play, and slot. */
static int find_play(ov_work *w, int x)
{
	const ov_side *s = &w->s[x];
	ov_class *c = &w->c[x];
	c->slot = malloc(s->n * sizeof *c->slot);
	c->play = malloc(s->n * sizeof *c->play);
	if (c->slot == NULL || c->play == NULL)
		return CLASH_ENOMEM;
	const double slack =
		fabs(w->s[1].offset[0]) + fabs(w->s[1].offset[1]) + fabs(w->s[1].offset[2]);
	const int err = ov_near(w, x, slack, c->play, &c->nplay);
	if (err)
		return err;
	/* tree order, so that answers do not depend on the walk */
	memset(c->slot, 0xff, s->n * sizeof *c->slot);
	for (size_t k = 0; k < c->nplay; k++)
		c->slot[c->play[k]] = 1;
	c->nplay = 0;
	for (size_t i = 0; i < s->n; i++)
		if (c->slot[i] != UINT32_MAX) {
			c->slot[i] = (uint32_t)c->nplay;
			c->play[c->nplay++] = (uint32_t)i;
		}
	return CLASH_OK;
}

static uint64_t point_hash(const double *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int k = 0; k < 3; k++) {
		uint64_t u;
		memcpy(&u, &p[k], sizeof u);
		h = (h ^ u) * 0x100000001b3ull;
		h ^= h >> 31;
	}
	return h * 0x9e3779b97f4a7c15ull;
}

/* Vertex numbers of the play triangles' corners (equal coordinates are
 * one vertex, as the mesh's weld of 0 has it). */
static int number_vertices(ov_work *w, int x)
{
	const ov_side *s = &w->s[x];
	ov_class *c = &w->c[x];
	size_t n = 16;
	while (n < 4 * c->nplay)
		n *= 2;
	uint32_t *slots = calloc(n, sizeof *slots);
	const double **at = malloc((3 * c->nplay + 1) * sizeof *at);
	c->vid = malloc((3 * c->nplay + 1) * sizeof *c->vid);
	if (slots == NULL || at == NULL || c->vid == NULL) {
		free(slots);
		free(at);
		return CLASH_ENOMEM;
	}
	for (size_t k = 0; k < 3 * c->nplay; k++) {
		if (ov_cancelled(w)) {
			free(slots);
			free(at);
			return CLASH_ECANCELED;
		}
		const double *p = ov_corner(s, c->play[k / 3], (int)(k % 3));
		size_t h = (size_t)(point_hash(p) >> 20) & (n - 1);
		while (slots[h] && memcmp(at[slots[h] - 1], p, 24) != 0)
			h = (h + 1) & (n - 1);
		if (!slots[h]) {
			at[c->nv] = p;
			slots[h] = (uint32_t)++c->nv;
		}
		c->vid[k] = slots[h] - 1;
	}
	free(slots);
	free(at);
	return CLASH_OK;
}

/* The segments of each play triangle (sfirst, sorder), by a counting sort. */
static int group_segments(ov_work *w, int x)
{
	ov_class *c = &w->c[x];
	c->sfirst = calloc(c->nplay + 1, sizeof *c->sfirst);
	c->sorder = malloc((w->nsegs + 1) * sizeof *c->sorder);
	if (c->sfirst == NULL || c->sorder == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < w->nsegs; i++)
		c->sfirst[c->slot[w->segs[i].t[x]] + 1]++;
	for (size_t k = 0; k < c->nplay; k++)
		c->sfirst[k + 1] += c->sfirst[k];
	for (size_t i = 0; i < w->nsegs; i++) {
		const uint32_t k = c->slot[w->segs[i].t[x]];
		c->sorder[c->sfirst[k]++] = (uint32_t)i;
	}
	for (size_t k = c->nplay; k > 0; k--)
		c->sfirst[k] = c->sfirst[k - 1];
	c->sfirst[0] = 0;
	return CLASH_OK;
}

static int cross_cmp(const void *p, const void *q)
{
	const ov_cross *a = p, *b = q;
	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Side x's crossing of end e on play triangle k, when e is on an edge of
 * it: 1 and *out. */
static int crossing_of(const ov_work *w, int x, uint32_t k, uint32_t e, ov_cross *out)
{
	const ov_end *d = &w->ends[e];
	if (d->side != x)
		return 0;
	const ov_side *s = &w->s[x];
	const uint32_t i = w->c[x].play[k];
	for (int c = 0; c < 3; c++) {
		const double *p = ov_corner(s, i, c), *q = ov_corner(s, i, (c + 1) % 3);
		const int fwd = memcmp(p, d->e0, 24) == 0 && memcmp(q, d->e1, 24) == 0;
		const int back = memcmp(q, d->e0, 24) == 0 && memcmp(p, d->e1, 24) == 0;
		if (fwd || back) {
			*out = (ov_cross){(uint8_t)c, (uint8_t)(fwd ? d->exit : !d->exit),
			                  fwd ? d->t : 1.0 - d->t, e};
			return 1;
		}
	}
	return 0;
}

static void set_status(ov_work *w, ov_class *c, uint32_t v, int in)
{
	if (c->status[v] < 0)
		c->status[v] = (int8_t)in;
	else if (c->status[v] != in)
		w->degenerate = 1;
}

/* The crossings of the play triangles' edges, sorted along each edge,
 * and the status of the corners they tell. */
static int list_crossings(ov_work *w, int x)
{
	ov_class *c = &w->c[x];
	c->xfirst = calloc(c->nplay + 1, sizeof *c->xfirst);
	c->xs = malloc((2 * w->nsegs + 1) * sizeof *c->xs);
	if (c->xfirst == NULL || c->xs == NULL)
		return CLASH_ENOMEM;
	size_t n = 0;
	for (uint32_t k = 0; k < c->nplay; k++) {
		if (ov_cancelled(w))
			return CLASH_ECANCELED;
		c->xfirst[k] = (uint32_t)n;
		for (uint32_t q = c->sfirst[k]; q < c->sfirst[k + 1]; q++) {
			const ov_seg *g = &w->segs[c->sorder[q]];
			n += crossing_of(w, x, k, g->from, &c->xs[n]);
			n += crossing_of(w, x, k, g->to, &c->xs[n]);
		}
		ov_cross *xs = c->xs + c->xfirst[k];
		const size_t m = n - c->xfirst[k];
		qsort(xs, m, sizeof *xs, cross_cmp);
		for (size_t i = 0; i < m; i++) {
			const int first = i == 0 || xs[i - 1].edge != xs[i].edge;
			const int last = i + 1 == m || xs[i + 1].edge != xs[i].edge;
			/* Alternating, and ordered beyond doubt. */
			if (!first && (xs[i - 1].exit == xs[i].exit ||
			               xs[i].t - xs[i - 1].t <= 64 * DBL_EPSILON))
				w->degenerate = 1;
			const uint32_t *v = c->vid + 3 * k;
			if (first)
				set_status(w, c, v[xs[i].edge], xs[i].exit);
			if (last)
				set_status(w, c, v[(xs[i].edge + 1) % 3], !xs[i].exit);
		}
	}
	c->xfirst[c->nplay] = (uint32_t)n;
	return CLASH_OK;
}

/* Crossings on edge e of play triangle k. */
static uint32_t edge_crossings(const ov_class *c, uint32_t k, int e)
{
	uint32_t n = 0;
	for (uint32_t i = c->xfirst[k]; i < c->xfirst[k + 1]; i++)
		n += c->xs[i].edge == e;
	return n;
}

typedef struct spread {
	uint32_t *first, *tris; /* vertex -> play triangles */
	uint32_t *queue;
	size_t head, tail;
} spread;

static void learn(ov_work *w, ov_class *c, spread *sp, uint32_t v, int in)
{
	if (c->status[v] < 0) {
		c->status[v] = (int8_t)in;
		sp->queue[sp->tail++] = v;
	} else if (c->status[v] != in) {
		w->degenerate = 1;
	}
}

static int run_queue(ov_work *w, ov_class *c, spread *sp)
{
	while (sp->head < sp->tail) {
		if (ov_cancelled(w))
			return CLASH_ECANCELED;
		const uint32_t v = sp->queue[sp->head++];
		const int in = c->status[v];
		for (uint32_t q = sp->first[v]; q < sp->first[v + 1]; q++) {
			const uint32_t k = sp->tris[q], *tv = c->vid + 3 * k;
			const int cut = c->sfirst[k + 1] > c->sfirst[k];
			if (!cut && c->tri_in[k] < 0)
				c->tri_in[k] = (int8_t)in;
			for (int e = 0; e < 3; e++) {
				const uint32_t p = tv[e], r = tv[(e + 1) % 3];
				if ((p == v || r == v) && (!cut || edge_crossings(c, k, e) == 0))
					learn(w, c, sp, p == v ? r : p, in);
			}
		}
	}
	return CLASH_OK;
}

/* One ray cast for a corner nothing else decided. */
static int cast(ov_work *w, int x, const double *p, int *in)
{
	const ov_side *o = &w->s[1 - x];
	double q[3], l[3];
	for (int k = 0; k < 3; k++)
		q[k] = p[k] - o->offset[k];
	affine_apply(&o->to_mesh, q, l);
	const int r = mesh_point_inside(o->m, l, w->cancel);
	if (r == CLASH_ECANCELED)
		return r;
	*in = r == 1;
	return CLASH_OK;
}

static int build_incidence(ov_class *c, spread *sp)
{
	sp->first = calloc(c->nv + 1, sizeof *sp->first);
	sp->tris = malloc((3 * c->nplay + 1) * sizeof *sp->tris);
	sp->queue = malloc((c->nv + 1) * sizeof *sp->queue);
	if (sp->first == NULL || sp->tris == NULL || sp->queue == NULL)
		return CLASH_ENOMEM;
	for (size_t k = 0; k < 3 * c->nplay; k++)
		sp->first[c->vid[k] + 1]++;
	for (size_t v = 0; v < c->nv; v++)
		sp->first[v + 1] += sp->first[v];
	for (size_t k = 0; k < 3 * c->nplay; k++)
		sp->tris[sp->first[c->vid[k]]++] = (uint32_t)(k / 3);
	for (size_t v = c->nv; v > 0; v--)
		sp->first[v] = sp->first[v - 1];
	sp->first[0] = 0;
	return CLASH_OK;
}

/* Spread the corners' status; cast rays for what stays unknown. */
static int spread_status(ov_work *w, int x)
{
	ov_class *c = &w->c[x];
	spread sp = {0};
	int err = build_incidence(c, &sp);
	for (uint32_t v = 0; !err && v < c->nv; v++)
		if (c->status[v] >= 0)
			sp.queue[sp.tail++] = v;
	if (!err)
		err = run_queue(w, c, &sp);
	for (uint32_t k = 0; !err && k < c->nplay; k++) {
		const uint32_t v = c->vid[3 * k];
		if (c->status[v] >= 0)
			continue;
		int in = 0;
		err = cast(w, x, ov_corner(&w->s[x], c->play[k], 0), &in);
		if (!err) {
			learn(w, c, &sp, v, in);
			err = run_queue(w, c, &sp);
		}
	}
	free(sp.first);
	free(sp.tris);
	free(sp.queue);
	return err;
}

int ov_classify(ov_work *w, int x)
{
	ov_class *c = &w->c[x];
	int err = find_play(w, x);
	if (!err)
		err = number_vertices(w, x);
	if (!err)
		err = group_segments(w, x);
	if (err || !w->volume)
		return err;
	c->status = malloc(c->nv + 1);
	c->tri_in = malloc(c->nplay + 1);
	if (c->status == NULL || c->tri_in == NULL)
		return CLASH_ENOMEM;
	memset(c->status, -1, c->nv + 1);
	memset(c->tri_in, -1, c->nplay + 1);
	err = list_crossings(w, x);
	if (!err)
		err = spread_status(w, x);
	return err;
}

/* (x_T - o) . ((p - x_T) x (q - x_T)) / 6 */
static double term(const double *o, const double *xt, const double *p, const double *q)
{
	double a[3], b[3], r[3];
	for (int k = 0; k < 3; k++) {
		a[k] = p[k] - xt[k];
		b[k] = q[k] - xt[k];
		r[k] = xt[k] - o[k];
	}
	return (r[0] * (a[1] * b[2] - a[2] * b[1]) + r[1] * (a[2] * b[0] - a[0] * b[2]) +
	        r[2] * (a[0] * b[1] - a[1] * b[0])) /
	       6.0;
}

/* The inside pieces of the edges of cut play triangle k. */
static void cut_pieces(ov_work *w, int x, uint32_t k, size_t vbase)
{
	const ov_class *c = &w->c[x];
	const ov_side *s = &w->s[x];
	const uint32_t i = c->play[k];
	const double *xt = ov_corner(s, i, 0);
	for (int e = 0; e < 3; e++) {
		const double *p = ov_corner(s, i, e);
		const uint32_t vp = c->vid[3 * k + e], vq = c->vid[3 * k + (e + 1) % 3];
		int in = c->status[vp] == 1;
		const double *from = p;
		uint32_t node = (uint32_t)(vbase + vp);
		for (uint32_t q = c->xfirst[k]; q < c->xfirst[k + 1]; q++) {
			const ov_cross *r = &c->xs[q];
			if (r->edge != e)
				continue;
			if (in) {
				w->vol[node] += term(w->origin, xt, from, w->ends[r->end].p);
				ov_union(w->uf, node, r->end);
			}
			in = !in;
			from = w->ends[r->end].p;
			node = r->end;
		}
		if (in) {
			w->vol[node] += term(w->origin, xt, from, ov_corner(s, i, (e + 1) % 3));
			ov_union(w->uf, node, (uint32_t)(vbase + vq));
		}
	}
}

void ov_pieces(ov_work *w, int x)
{
	const ov_class *c = &w->c[x];
	const ov_side *s = &w->s[x];
	const size_t vbase = w->nends + (x ? w->c[0].nv : 0);
	for (uint32_t k = 0; k < c->nplay; k++) {
		const uint32_t i = c->play[k], *v = c->vid + 3 * k;
		if (c->sfirst[k + 1] > c->sfirst[k]) {
			cut_pieces(w, x, k, vbase);
		} else if (c->tri_in[k] == 1) {
			w->vol[vbase + v[0]] += term(w->origin, ov_corner(s, i, 0),
			                             ov_corner(s, i, 1), ov_corner(s, i, 2));
			ov_union(w->uf, (uint32_t)(vbase + v[0]), (uint32_t)(vbase + v[1]));
			ov_union(w->uf, (uint32_t)(vbase + v[0]), (uint32_t)(vbase + v[2]));
		}
	}
}
