/*
 * overlap.c — mesh clash reports (issue #24): where two shapes with a mesh
 * on either side cross, and how much they overlap (clash_overlap_get).
 *
 * The work is done in a's frame: b's triangles are mapped into it and
 * moved by a tiny offset in a fixed generic direction, so that no contact
 * between the two is degenerate (no corner of one on a face of the other,
 * no coplanar faces, no edges that meet): every decision is then the sign
 * of an exact predicate of one real configuration, and the pieces of the
 * boundary of A∩B close up exactly.  When a decision still comes out
 * degenerate, the work starts again with the offset in another direction.
 * The volume moves by at most |offset| times the area of the smaller
 * surface (docs/shapes.md, "Where and how much two meshes overlap").
 * Then: crossing pairs (overlap_pairs.c), what lies inside
 * (overlap_classify.c), regions and the answer (overlap_regions.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlap.h"

/* The offset of b: this fraction of the work's scale (the larger of the
 * size and the farthest coordinate), in one of these directions. */
#define OV_OFFSET 0x1p-42
#define OV_ATTEMPTS 4
static const double ov_dirs[OV_ATTEMPTS][3] = {
        {1.0, 0.7548776662466927, 0.5698402909980532},
        {-0.6180339887498949, 1.0, -0.4142135623730950},
        {0.3819660112501051, -0.8660254037844386, 1.0},
        {-1.0, -0.2360679774997897, -0.7071067811865476}};

static void identity(affine *f)
{
	memset(f, 0, sizeof *f);
	f->l[0] = f->l[4] = f->l[8] = 1.0;
	f->shift = 1;
}

static double det3(const double *l)
{
	return l[0] * (l[4] * l[8] - l[5] * l[7]) - l[1] * (l[3] * l[8] - l[5] * l[6]) +
	       l[2] * (l[3] * l[7] - l[4] * l[6]);
}

/* Box and orientation of a side's triangles (common frame). */
static void survey(ov_side *s)
{
	double v = 0.0;
	for (int k = 0; k < 3; k++) {
		s->lo[k] = INFINITY;
		s->hi[k] = -INFINITY;
	}
	for (size_t i = 0; i < s->n; i++) {
		const double *t = s->tri + 9 * i;
		v += t[0] * (t[4] * t[8] - t[5] * t[7]) - t[1] * (t[3] * t[8] - t[5] * t[6]) +
		     t[2] * (t[3] * t[7] - t[4] * t[6]);
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 3; k++) {
				s->lo[k] = fmin(s->lo[k], t[3 * c + k]);
				s->hi[k] = fmax(s->hi[k], t[3 * c + k]);
			}
	}
	s->flip = v < 0.0;
}

static void side_init(ov_side *s, const clash_mesh *m)
{
	memset(s, 0, sizeof *s);
	s->m = m;
	s->n = m->ntriangles;
	s->closed = m->topo.closed;
	s->solid = m->solid;
	s->listed = 1;
	identity(&s->to_common);
	identity(&s->to_mesh);
}

/* b's triangles in a's frame, moved by the offset. */
static int place_b(ov_side *b, const affine *ba, const double *offset, double **copy)
{
	double *t = malloc(9 * b->n * sizeof *t);
	if (t == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < 3 * b->n; i++) {
		affine_apply(ba, b->m->tri + 3 * i, t + 3 * i);
		for (int k = 0; k < 3; k++)
			t[3 * i + k] += offset[k];
	}
	b->to_common = *ba;
	affine_invert(ba, &b->to_mesh);
	memcpy(b->offset, offset, sizeof b->offset);
	b->tri = t;
	*copy = t;
	survey(b);
	return CLASH_OK;
}

static void work_free(ov_work *w)
{
	free(w->ends);
	free(w->slots);
	free(w->segs);
	ov_class_free(&w->c[0]);
	ov_class_free(&w->c[1]);
	free(w->vol);
	free(w->uf);
}

/* The scale of the offset: the boxes' extent and farthest coordinate. */
static double work_scale(const ov_side *a, const ov_side *b)
{
	double s = 0.0;
	for (int k = 0; k < 3; k++) {
		s = fmax(s, fmax(a->hi[k] - a->lo[k], b->hi[k] - b->lo[k]));
		s = fmax(s, fmax(fmax(fabs(a->lo[k]), fabs(a->hi[k])),
		                 fmax(fabs(b->lo[k]), fabs(b->hi[k]))));
	}
	return s;
}

/* The segments' volume terms and their ends joined. */
static void segment_terms(ov_work *w)
{
	for (size_t i = 0; i < w->nsegs; i++) {
		const ov_seg *g = &w->segs[i];
		const double *p = w->ends[g->from].p, *q = w->ends[g->to].p;
		for (int x = 0; x < 2; x++) {
			const double *c = ov_corner(&w->s[x], g->t[x], 0);
			double u[3], v[3], r[3];
			for (int k = 0; k < 3; k++) {
				u[k] = (x ? q[k] : p[k]) - c[k];
				v[k] = (x ? p[k] : q[k]) - c[k];
				r[k] = c[k] - w->origin[k];
			}
			w->vol[g->from] += (r[0] * (u[1] * v[2] - u[2] * v[1]) +
			                    r[1] * (u[2] * v[0] - u[0] * v[2]) +
			                    r[2] * (u[0] * v[1] - u[1] * v[0])) / 6.0;
		}
		ov_union(w->uf, g->from, g->to);
	}
}

/* One attempt with b moved by offset: CLASH_OK with w filled, or an
 * error; w->degenerate asks for another attempt. */
static int attempt(ov_work *w)
{
	int err = ov_pairs(w);
	if (err || w->degenerate)
		return err;
	w->volume = w->s[0].closed && w->s[1].closed;
	for (int x = 0; x < 2 && w->volume && !err; x++)
		err = ov_classify(w, x);
	if (err || w->degenerate)
		return err;
	w->nnodes = w->nends + w->c[0].nv + w->c[1].nv;
	w->vol = calloc(w->nnodes + 1, sizeof *w->vol);
	w->uf = malloc((w->nnodes + 1) * sizeof *w->uf);
	if (w->vol == NULL || w->uf == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < w->nnodes; i++)
		w->uf[i] = (uint32_t)i;
	for (int x = 0; x < 2 && w->volume; x++)
		ov_pieces(w, x);
	segment_terms(w);
	return CLASH_OK;
}

static int check_side(const clash_shape *s)
{
	if (s->dim != 3)
		return CLASH_EINVAL;
	if (s->radius != 0.0 || s->nparts > 0 || s->mesh == NULL)
		return CLASH_ENOTSUP;
	return CLASH_OK;
}

static int run(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
               clash_overlap **out)
{
	affine fa, fb, ia, ba;
	affine_of(a, &fa);
	affine_of(b, &fb);
	affine_invert(&fa, &ia);
	affine_compose(&ia, &fb, &ba);
	int err = CLASH_ENOTSUP;
	for (int k = 0; k < OV_ATTEMPTS; k++) {
		ov_work w;
		memset(&w, 0, sizeof w);
		w.cancel = opt ? opt->cancel : NULL;
		side_init(&w.s[0], a->mesh);
		side_init(&w.s[1], b->mesh);
		w.s[0].tri = a->mesh->tri;
		survey(&w.s[0]);
		double *copy = NULL, zero[3] = {0, 0, 0};
		err = place_b(&w.s[1], &ba, zero, &copy);
		if (err)
			return err;
		double offset[3];
		const double scale = OV_OFFSET * work_scale(&w.s[0], &w.s[1]);
		for (int j = 0; j < 3; j++)
			offset[j] = scale * ov_dirs[k][j];
		free(copy);
		err = place_b(&w.s[1], &ba, offset, &copy);
		if (err)
			return err;
		for (int j = 0; j < 3; j++)
			w.origin[j] = 0.5 * (fmax(w.s[0].lo[j], w.s[1].lo[j]) +
			                     fmin(w.s[0].hi[j], w.s[1].hi[j]));
		err = attempt(&w);
		if (!err && !w.degenerate)
			err = ov_answer(&w, opt, &fa, det3(fa.l), out);
		const int again = !err && w.degenerate;
		work_free(&w);
		free(copy);
		if (!again)
			break;
		err = CLASH_ENOTSUP;
	}
	return err;
}

int clash_overlap_get(const clash_shape *a, const clash_shape *b,
                      const clash_overlap_options *opt, clash_overlap **out)
{
	if (out != NULL)
		*out = NULL;
	if (a == NULL || b == NULL || out == NULL)
		return CLASH_EINVAL;
	int err = check_side(a);
	if (!err)
		err = check_side(b);
	if (err)
		return err;
	err = run(a, b, opt, out);
	if (err)
		return err;
	(*out)->solid_a = a->mesh->solid;
	(*out)->solid_b = b->mesh->solid;
	return CLASH_OK;
}

void clash_overlap_free(clash_overlap *o)
{
	free(o);
}
