/*
 * overlap_pairs.c — the triangle pairs where two meshes cross, and the
 * curve's points (overlap.h).
 *
 * The two trees are walked together depth first, b's boxes mapped into
 * the common frame (the style of core/mesh_query.c), so the work is about
 * that of listing the crossing pairs.  Each crossing pair gives a segment
 * (tri_cut.h); its ends are keyed by the edge's corners and the triangle
 * passed, so the two triangles sharing an edge share the point, computed
 * once, and the segments chain into curves by their ends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlap_work.h"
#include "predicates.h"
#include "tri_cut.h"

#define OV_STACK 1024

static int lex_less(const double *p, const double *q)
{
	for (int k = 0; k < 3; k++)
		if (p[k] != q[k])
			return p[k] < q[k];
	return 0;
}

static uint64_t mix(uint64_t h, const double *p)
{
	for (int k = 0; k < 3; k++) {
		uint64_t u;
		memcpy(&u, &p[k], sizeof u);
		h = (h ^ u) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static size_t end_hash(const ov_work *w, int side, uint32_t tri, const double *e0, const double *e1)
{
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)tri << 1 | (uint64_t)side);
	h = mix(mix(h, e0), e1);
	return (size_t)(h * 0x9e3779b97f4a7c15ull >> 17) & (w->nslots - 1);
}

static int same_end(const ov_end *e, int side, uint32_t tri, const double *e0, const double *e1)
{
	return e->side == side && e->tri == tri && memcmp(e->e0, e0, 24) == 0 &&
	       memcmp(e->e1, e1, 24) == 0;
}

static int grow_slots(ov_work *w)
{
	const size_t n = w->nslots ? 2 * w->nslots : 1024;
	uint32_t *s = calloc(n, sizeof *s);
	if (s == NULL)
		return CLASH_ENOMEM;
	free(w->slots);
	w->slots = s;
	w->nslots = n;
	for (size_t i = 0; i < w->nends; i++) {
		const ov_end *e = &w->ends[i];
		size_t h = end_hash(w, e->side, e->tri, e->e0, e->e1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)(i + 1);
	}
	return CLASH_OK;
}

static void *grow(void *p, size_t *cap, size_t size)
{
	const size_t n = *cap ? 2 * *cap : 256;
	void *q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

/* The end where edge c of triangle i of side `side` passes triangle j of
 * the other: its index, added when new; -1 when out of memory. */
static long end_of(ov_work *w, int side, uint32_t i, int c, uint32_t j)
{
	const ov_side *x = &w->s[side], *y = &w->s[1 - side];
	const double *p = ov_corner(x, i, c), *q = ov_corner(x, i, (c + 1) % 3);
	const double *e0 = lex_less(p, q) ? p : q, *e1 = e0 == p ? q : p;
	if (2 * (w->nends + 1) > w->nslots && grow_slots(w))
		return -1;
	size_t h = end_hash(w, side, j, e0, e1);
	for (; w->slots[h]; h = (h + 1) & (w->nslots - 1))
		if (same_end(&w->ends[w->slots[h] - 1], side, j, e0, e1))
			return (long)w->slots[h] - 1;
	if (w->nends == w->cap_ends) {
		ov_end *n = grow(w->ends, &w->cap_ends, sizeof *n);
		if (n == NULL)
			return -1;
		w->ends = n;
	}
	const double *s[3] = {ov_corner(y, j, 0), ov_corner(y, j, 1), ov_corner(y, j, 2)};
	ov_end *e = &w->ends[w->nends];
	e->e0 = e0;
	e->e1 = e1;
	e->tri = j;
	e->side = (uint8_t)side;
	e->t = tri_cut_param(e0, e1, s);
	for (int k = 0; k < 3; k++)
		e->p[k] = e0[k] + e->t * (e1[k] - e0[k]);
	e->exit = pred_orient3d(s[0], s[1], s[2], e0) > 0.0;
	w->slots[h] = (uint32_t)++w->nends;
	return (long)w->nends - 1;
}

static int tri_box_overlap(const ov_side *x, size_t i, const ov_side *y, size_t j)
{
	const double *a = x->tri + 9 * i, *b = y->tri + 9 * j;
	for (int k = 0; k < 3; k++) {
		const double alo = OV_MIN(a[k], OV_MIN(a[3 + k], a[6 + k]));
		const double ahi = OV_MAX(a[k], OV_MAX(a[3 + k], a[6 + k]));
		const double blo = OV_MIN(b[k], OV_MIN(b[3 + k], b[6 + k]));
		const double bhi = OV_MAX(b[k], OV_MAX(b[3 + k], b[6 + k]));
		if (ahi < blo || bhi < alo)
			return 0;
	}
	return 1;
}

static int cut_pair(ov_work *w, uint32_t i, uint32_t j)
{
	const ov_side *a = &w->s[0], *b = &w->s[1];
	if (!tri_box_overlap(a, i, b, j))
		return CLASH_OK;
	const double *t[3] = {ov_corner(a, i, 0), ov_corner(a, i, 1), ov_corner(a, i, 2)};
	const double *s[3] = {ov_corner(b, j, 0), ov_corner(b, j, 1), ov_corner(b, j, 2)};
	tri_cut_end end[2];
	const int r = tri_cut(t, s, end);
	if (r < 0)
		w->degenerate = 1;
	if (r <= 0)
		return CLASH_OK;
	long id[2];
	for (int k = 0; k < 2; k++) {
		const int side = end[k].side;
		id[k] = end_of(w, side, side ? j : i, end[k].edge, side ? i : j);
		if (id[k] < 0)
			return CLASH_ENOMEM;
	}
	if (w->nsegs == w->cap_segs) {
		ov_seg *n = grow(w->segs, &w->cap_segs, sizeof *n);
		if (n == NULL)
			return CLASH_ENOMEM;
		w->segs = n;
	}
	w->segs[w->nsegs++] = (ov_seg){{i, j}, (uint32_t)id[0], (uint32_t)id[1]};
	return CLASH_OK;
}

static int leaf_pair(ov_work *w, const mesh_node *x, const mesh_node *y)
{
	for (uint32_t j = y->first; j < y->first + y->count; j++)
		ov_ready(&w->s[1], j);
	for (uint32_t i = x->first; i < x->first + x->count; i++)
		for (uint32_t j = y->first; j < y->first + y->count; j++) {
			const int err = cut_pair(w, i, j);
			if (err)
				return err;
		}
	return CLASH_OK;
}

static int boxes_meet(const obox *p, const obox *q, double slack)
{
	for (int k = 0; k < 3; k++)
		if (fabs(p->c[k] - q->c[k]) > p->h[k] + q->h[k] + slack)
			return 0;
	return 1;
}

int ov_pairs(ov_work *w)
{
	const clash_mesh *ma = w->s[0].m, *mb = w->s[1].m;
	const double slack =
		fabs(w->s[1].offset[0]) + fabs(w->s[1].offset[1]) + fabs(w->s[1].offset[2]);
	uint32_t stack[OV_STACK][2];
	int top = 0;
	stack[top][0] = 0;
	stack[top++][1] = 0;
	while (top > 0) {
		if (ov_cancelled(w))
			return CLASH_ECANCELED;
		const uint32_t na = stack[--top][0], nb = stack[top][1];
		const mesh_node *x = &ma->nodes[na], *y = &mb->nodes[nb];
		obox bx, by;
		ov_node_box(&w->s[0], x, &bx);
		ov_node_box(&w->s[1], y, &by);
		if (!boxes_meet(&bx, &by, slack))
			continue;
		if (x->count && y->count) {
			const int err = leaf_pair(w, x, y);
			if (err)
				return err;
			continue;
		}
		if (top + 2 > OV_STACK)
			return CLASH_ENOMEM; /* deeper than mesh_build.c builds */
		const int split_a = y->count || (!x->count && bx.h[0] + bx.h[1] + bx.h[2] >=
		                                                      by.h[0] + by.h[1] + by.h[2]);
		for (uint32_t c = 0; c < 2; c++) {
			stack[top][0] = split_a ? x->first + c : na;
			stack[top++][1] = split_a ? nb : y->first + c;
		}
	}
	return CLASH_OK;
}

static int tri_meets(const double *t, const obox *o, double slack)
{
	for (int k = 0; k < 3; k++) {
		const double lo = OV_MIN(t[k], OV_MIN(t[3 + k], t[6 + k]));
		const double hi = OV_MAX(t[k], OV_MAX(t[3 + k], t[6 + k]));
		if (hi < o->c[k] - o->h[k] - slack || lo > o->c[k] + o->h[k] + slack)
			return 0;
	}
	return 1;
}

int ov_near(ov_work *w, int x, double slack, uint32_t *play, size_t *n)
{
	ov_side *s = &w->s[x];
	obox other;
	ov_node_box(&w->s[1 - x], &w->s[1 - x].m->nodes[0], &other);
	uint32_t stack[OV_STACK];
	int top = 0;
	stack[top++] = 0;
	*n = 0;
	while (top > 0) {
		if (ov_cancelled(w))
			return CLASH_ECANCELED;
		const mesh_node *nd = &s->m->nodes[stack[--top]];
		obox b;
		ov_node_box(s, nd, &b);
		if (!boxes_meet(&b, &other, slack))
			continue;
		if (nd->count == 0) {
			if (top + 2 > OV_STACK)
				return CLASH_ENOMEM;
			stack[top++] = nd->first;
			stack[top++] = nd->first + 1;
			continue;
		}
		for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
			ov_ready(s, i);
			if (tri_meets(s->tri + 9 * i, &other, slack))
				play[(*n)++] = i;
		}
	}
	return CLASH_OK;
}
