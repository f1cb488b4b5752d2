/*
 * overlap.c — mesh clash reports for one pair of leaves: where
 * two shapes with a mesh on either side cross, and how much they overlap
 * (ov_pair; clash_overlap_get, in overlap_compound.c, calls it).
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

#include "hull3.h"
#include "overlap_sphere.h"
#include "overlap_work.h"

/* The offset of b: this fraction of the work's scale (the larger of the
 * size and the farthest coordinate), in one of ov_dirs' directions. */
#define OV_OFFSET 0x1p-42
#define OV_OFFSET_MIN 0x1p-47

static void identity(affine *f)
{
	memset(f, 0, sizeof *f);
	f->l[0] = f->l[4] = f->l[8] = 1.0;
	f->shift = 1;
}

/* A side's box in the common frame: its tree's root. */
static void side_box(ov_side *s)
{
	obox o;
	ov_node_box(s, &s->m->nodes[0], &o);
	for (int k = 0; k < 3; k++) {
		s->lo[k] = o.c[k] - o.h[k];
		s->hi[k] = o.c[k] + o.h[k];
	}
}

static void side_init(ov_side *s, const clash_mesh *m)
{
	memset(s, 0, sizeof *s);
	s->m = m;
	s->n = m->ntriangles;
	s->tri = m->tri;
	s->closed = m->topo.closed;
	s->solid = m->solid;
	s->listed = 1;
	s->flip = m->volume < 0.0;
	identity(&s->to_common);
	identity(&s->to_mesh);
	side_box(s);
}

/* b in a's frame, moved by offset: its triangles are mapped as they are
 * first needed (ov_ready). */
static int place_b(ov_side *b, const affine *ba, const double *offset)
{
	b->copy = malloc(9 * b->n * sizeof *b->copy);
	b->ready = calloc(b->n, 1);
	if (b->copy == NULL || b->ready == NULL)
		return CLASH_ENOMEM;
	b->tri = b->copy;
	b->to_common = *ba;
	affine_invert(ba, &b->to_mesh);
	memcpy(b->offset, offset, sizeof b->offset);
	b->flip = (b->m->volume < 0.0) != (affine_det(ba->l) < 0.0);
	side_box(b);
	return CLASH_OK;
}

static void work_free(ov_work *w)
{
	free(w->s[1].copy);
	free(w->s[1].ready);
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
		s = OV_MAX(s, OV_MAX(a->hi[k] - a->lo[k], b->hi[k] - b->lo[k]));
		s = OV_MAX(s, OV_MAX(OV_MAX(fabs(a->lo[k]), fabs(a->hi[k])),
		                     OV_MAX(fabs(b->lo[k]), fabs(b->hi[k]))));
	}
	return s;
}

/* |offset| per axis: OV_OFFSET of the scale, less to stay within a
 * quarter of a smaller tolerance, never under OV_OFFSET_MIN of the scale
 * (the rounding of coordinates must not undo it). */
static double offset_size(double scale, const clash_overlap_options *opt)
{
	double d = OV_OFFSET * scale;
	if (opt && opt->tolerance > 0.0 && opt->tolerance / 4 < d)
		d = opt->tolerance / 4;
	return OV_MAX(d, OV_OFFSET_MIN * scale);
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
			                    r[2] * (u[0] * v[1] - u[1] * v[0])) /
			                   6.0;
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

/* A side as a mesh: its own, or the triangulated hull of a convex one
 * (a box primitive's corners, a polytope's vertices). */
typedef struct ov_source {
	const clash_mesh *m;
	void *store;
	double corners[24];
} ov_source;

static int hull_mesh(const double *v, size_t n, ov_source *src)
{
	void *scratch = malloc(hull3_scratch_size(n));
	uint32_t *faces = malloc(6 * n * sizeof *faces);
	int err = CLASH_ENOMEM;
	if (scratch && faces) {
		const size_t nf = hull3_faces(v, n, scratch, faces);
		const size_t size = nf ? clash_mesh_size(n, nf) : 0;
		err = nf == 0 || size == 0 ? CLASH_ENOTSUP : CLASH_OK;
		if (!err && (src->store = malloc(size)) == NULL)
			err = CLASH_ENOMEM;
		clash_mesh *m = NULL;
		if (!err)
			err = clash_mesh_build(src->store, size, v, n, faces, nf, &m);
		src->m = m;
	}
	free(scratch);
	free(faces);
	return err;
}

static int source_of(const clash_shape *s, ov_source *src)
{
	memset(src, 0, sizeof *src);
	if (s->dim != 3)
		return CLASH_EINVAL;
	if (s->radius != 0.0 || s->nparts > 0)
		return CLASH_ENOTSUP;
	if (s->mesh) {
		src->m = s->mesh;
		return CLASH_OK;
	}
	if (s->kind == CLASH_KIND_BOX) {
		for (int i = 0; i < 8; i++)
			for (int k = 0; k < 3; k++)
				src->corners[3 * i + k] =
					(i >> k & 1) ? s->params[k] : -s->params[k];
		return hull_mesh(src->corners, 8, src);
	}
	if (s->kind != CLASH_KIND_POLYTOPE || s->vertices == NULL)
		return CLASH_ENOTSUP;
	return hull_mesh(s->vertices, s->count, src);
}

/* Are a and b clearly apart: their surfaces farther than any offset of
 * the work can close (clash_gjk's verdict with that reach as its
 * tolerance), neither inside the other?  Then the report is empty, and
 * b's triangles need not be mapped nor a's classified.  Both closed
 * sides must be solids, so that the verdict's containment is the one the
 * work would find.  1, 0 (do the work) or an error. */
static int clearly_apart(const clash_shape *a, const clash_shape *b, const ov_source *src,
                         const affine *fa, const affine *ba, const clash_overlap_options *opt)
{
	if (src[0].m->topo.closed && src[1].m->topo.closed && !(src[0].m->solid && src[1].m->solid))
		return 0;
	ov_side sa, sb;
	side_init(&sa, src[0].m);
	side_init(&sb, src[1].m);
	sb.to_common = *ba;
	side_box(&sb);
	/* |offset| <= 2 offset_size in a's frame; world lengths grow by at
	 * most the Frobenius norm of a's map. */
	double norm = 0.0;
	for (int k = 0; k < 9; k++)
		norm += fa->l[k] * fa->l[k];
	clash_options o;
	memset(&o, 0, sizeof o);
	o.want = CLASH_WANT_VERDICT;
	o.cancel = opt ? opt->cancel : NULL;
	o.tolerance = 4.0 * offset_size(work_scale(&sa, &sb), opt) * sqrt(norm);
	clash_result r;
	int err = clash_gjk(a, b, &o, &r);
	return err ? err : !r.intersecting;
}

/* The report of two shapes apart: no regions, no volume. */
static int empty_answer(const ov_source *src, clash_overlap **out)
{
	clash_overlap *o = calloc(1, sizeof *o);
	if (o == NULL)
		return CLASH_ENOMEM;
	o->regions = (const clash_overlap_region *)(o + 1);
	o->has_volume = src[0].m->topo.closed && src[1].m->topo.closed;
	*out = o;
	return CLASH_OK;
}

static int run(const clash_shape *a, const clash_shape *b, const ov_source *src,
               const clash_overlap_options *opt, clash_overlap **out)
{
	affine fa, fb, ia, ba;
	affine_of(a, &fa);
	affine_of(b, &fb);
	affine_invert(&fa, &ia);
	affine_compose(&ia, &fb, &ba);
	affine_mark_shift(&ba);
	int err = clearly_apart(a, b, src, &fa, &ba, opt);
	if (err)
		return err < 0 ? err : empty_answer(src, out);
	err = CLASH_ENOTSUP;
	for (int k = 0; k < OV_ATTEMPTS; k++) {
		ov_work w;
		memset(&w, 0, sizeof w);
		w.cancel = opt ? opt->cancel : NULL;
		side_init(&w.s[0], src[0].m);
		side_init(&w.s[1], src[1].m);
		w.s[0].listed = a->mesh != NULL;
		w.s[1].listed = b->mesh != NULL;
		const double zero[3] = {0, 0, 0};
		err = place_b(&w.s[1], &ba, zero);
		double offset[3];
		const double scale = offset_size(work_scale(&w.s[0], &w.s[1]), opt);
		for (int j = 0; j < 3; j++)
			offset[j] = scale * ov_dirs[k][j];
		if (!err) {
			memcpy(w.s[1].offset, offset, sizeof offset);
			side_box(&w.s[1]);
			for (int j = 0; j < 3; j++)
				w.origin[j] = 0.5 * (OV_MAX(w.s[0].lo[j], w.s[1].lo[j]) +
				                     OV_MIN(w.s[0].hi[j], w.s[1].hi[j]));
			err = attempt(&w);
		}
		if (!err && !w.degenerate)
			err = ov_answer(&w, opt, &fa, affine_det(fa.l), out);
		const int again = !err && w.degenerate;
		work_free(&w);
		if (!again)
			break;
		err = CLASH_ENOTSUP;
	}
	return err;
}

int ov_pair(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
            clash_overlap **out)
{
	double c[3], r;
	if (a->mesh && a->radius == 0.0 && ov_ball_of(b, c, &r))
		return ov_sphere(a, b, 1, opt, out);
	if (b->mesh && b->radius == 0.0 && ov_ball_of(a, c, &r))
		return ov_sphere(b, a, 0, opt, out);
	ov_source src[2] = {{0}}; /* both freed below, whichever source_of failed */
	int err = source_of(a, &src[0]);
	if (!err)
		err = source_of(b, &src[1]);
	if (!err)
		err = run(a, b, src, opt, out);
	if (!err) {
		(*out)->solid_a = src[0].m->solid;
		(*out)->solid_b = src[1].m->solid;
		(*out)->closed_a = src[0].m->topo.closed;
		(*out)->closed_b = src[1].m->topo.closed;
	}
	free(src[0].store);
	free(src[1].store);
	return err;
}
