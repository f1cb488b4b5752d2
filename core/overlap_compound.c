/*
 * overlap_compound.c — the entry of mesh clash reports (clash_overlap_get)
 * and their compound shapes: every pair
 * of leaves (a leaf of a against a leaf of b, in world poses, as
 * core/compound.c walks them) is reported on its own (overlap.c), and the
 * answers are joined: regions in order of the pairs, named by their
 * top-level parts, volumes added up, caps applied to the whole.
 *
 * The volume is the sum over the pairs of leaves, which is the volume of
 * A∩B when the leaves of each side do not overlap each other (a part made
 * of touching pieces); where they do, the common part would count once per
 * pair that holds it, so the answer has no volume then, and none either
 * for a mesh whose shells cross or nest the same way (mesh_shells.h): a
 * surface that does not bound its solid once (docs/shapes.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compound.h"
#include "mesh_shells.h"
#include "primitive.h"
#include "overlap_work.h"

typedef struct leaves {
	clash_shape *s;
	size_t *top;
	size_t n, cap;
	int mesh; /* a leaf is a mesh */
} leaves;

static int add_leaf(const clash_shape *leaf, size_t top, void *ctx)
{
	leaves *l = ctx;
	if (l->n == l->cap)
		return CLASH_ELIMIT;
	l->s[l->n] = *leaf;
	l->top[l->n++] = top;
	l->mesh |= leaf->mesh != NULL;
	return CLASH_OK;
}

static int collect(const clash_shape *s, leaves *l)
{
	size_t n = 0;
	int err = compound_check(s, 3, &n);
	if (err)
		return err;
	l->s = malloc(n * sizeof *l->s);
	l->top = malloc(n * sizeof *l->top);
	if (l->s == NULL || l->top == NULL)
		return CLASH_ENOMEM;
	l->cap = n;
	return compound_foreach_leaf(s, add_leaf, l);
}

typedef struct joined {
	clash_overlap **part; /* one answer per pair of leaves */
	size_t npart;
	size_t *pa, *pb; /* their top-level parts */
} joined;

/* Points of region g kept under the remaining budget. */
static size_t kept_points(const clash_overlap_region *g, size_t budget)
{
	const size_t n = g->polyline[g->npolylines];
	return n < budget ? n : budget;
}

static size_t join_bytes(const joined *j, size_t max_regions, size_t max_points)
{
	size_t bytes = sizeof(clash_overlap), regions = 0, points = 0;
	for (size_t k = 0; k < j->npart; k++)
		for (size_t r = 0; r < j->part[k]->nregions && regions < max_regions;
		     r++, regions++) {
			const clash_overlap_region *g = &j->part[k]->regions[r];
			const size_t p = kept_points(g, max_points - points);
			points += p;
			bytes += sizeof *g + (g->npolylines + 1) * sizeof(size_t) +
			         ((g->npolylines + 7) & ~(size_t)7) + 3 * p * sizeof(double) +
			         ((g->ntriangles_a * 4 + 7) & ~(size_t)7) +
			         ((g->ntriangles_b * 4 + 7) & ~(size_t)7);
		}
	return bytes;
}

static void *take(char **at, size_t bytes)
{
	void *p = *at;
	*at += (bytes + 7) & ~(size_t)7;
	return p;
}

/* Region g copied into d (arrays from *at), its points cut to keep. */
static int copy_region(const clash_overlap_region *g, size_t keep, size_t pa, size_t pb, char **at,
                       clash_overlap_region *d)
{
	*d = *g;
	d->part_a = pa;
	d->part_b = pb;
	size_t *off = take(at, (g->npolylines + 1) * sizeof *off);
	unsigned char *closed = take(at, g->npolylines);
	int cut = 0;
	for (size_t i = 0; i <= g->npolylines; i++)
		off[i] = g->polyline[i] < keep ? g->polyline[i] : keep;
	for (size_t i = 0; i < g->npolylines; i++) {
		closed[i] = g->closed[i] && g->polyline[i + 1] <= keep;
		cut |= g->polyline[i + 1] > keep;
	}
	double *pts = take(at, 3 * keep * sizeof *pts);
	memcpy(pts, g->points, 3 * keep * sizeof *pts);
	uint32_t *ta = take(at, g->ntriangles_a * sizeof *ta);
	uint32_t *tb = take(at, g->ntriangles_b * sizeof *tb);
	memcpy(ta, g->triangles_a, g->ntriangles_a * sizeof *ta);
	memcpy(tb, g->triangles_b, g->ntriangles_b * sizeof *tb);
	d->polyline = off;
	d->closed = closed;
	d->points = pts;
	d->triangles_a = ta;
	d->triangles_b = tb;
	return cut;
}

static int join(const joined *j, const clash_overlap_options *opt, clash_overlap **out)
{
	const size_t max_regions =
		opt && opt->max_regions ? opt->max_regions : CLASH_OVERLAP_MAX_REGIONS;
	const size_t max_points =
		opt && opt->max_points ? opt->max_points : CLASH_OVERLAP_MAX_POINTS;
	clash_overlap *o = malloc(join_bytes(j, max_regions, max_points));
	if (o == NULL)
		return CLASH_ENOMEM;
	memset(o, 0, sizeof *o);
	o->solid_a = o->solid_b = o->closed_a = o->closed_b = o->has_volume = 1;
	size_t total = 0, points = 0;
	for (size_t k = 0; k < j->npart; k++)
		total += j->part[k]->nregions;
	char *at = (char *)(o + 1);
	clash_overlap_region *g =
		take(&at, (total < max_regions ? total : max_regions) * sizeof *g);
	for (size_t k = 0; k < j->npart; k++) {
		const clash_overlap *p = j->part[k];
		o->intersecting |= p->intersecting;
		o->solid_a &= p->solid_a;
		o->solid_b &= p->solid_b;
		o->closed_a &= p->closed_a;
		o->closed_b &= p->closed_b;
		o->has_volume &= p->has_volume;
		o->volume += p->volume;
		o->total_regions += p->total_regions;
		o->truncated |= p->truncated;
		for (size_t r = 0; r < p->nregions; r++) {
			if (o->nregions == max_regions) {
				o->truncated = 1;
				break;
			}
			const size_t keep = kept_points(&p->regions[r], max_points - points);
			points += keep;
			o->truncated |= copy_region(&p->regions[r], keep, j->pa[k], j->pb[k], &at,
			                            &g[o->nregions++]);
		}
	}
	if (!o->has_volume)
		o->volume = 0.0;
	o->regions = g;
	*out = o;
	return CLASH_OK;
}

/* Every pair of leaves into j. */
static int pairs(const leaves *la, const leaves *lb, const clash_overlap_options *opt, joined *j)
{
	const size_t n = la->n * lb->n;
	j->part = calloc(n + 1, sizeof *j->part);
	j->pa = malloc((n + 1) * sizeof *j->pa);
	j->pb = malloc((n + 1) * sizeof *j->pb);
	if (j->part == NULL || j->pa == NULL || j->pb == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < la->n; i++)
		for (size_t k = 0; k < lb->n; k++) {
			if (opt && cancel_requested(opt->cancel))
				return CLASH_ECANCELED;
			const int err = ov_pair(&la->s[i], &lb->s[k], opt, &j->part[j->npart]);
			if (err)
				return err;
			j->pa[j->npart] = la->top[i];
			j->pb[j->npart++] = lb->top[k];
		}
	return CLASH_OK;
}

/* A leaf's volume, or for a convex leaf an upper bound (its box's), in
 * world units: what an overlap between leaves is measured against. */
static double leaf_volume(const clash_shape *s)
{
	affine f;
	affine_of(s, &f);
	const double det = fabs(affine_det(f.l));
	if (s->mesh)
		return fabs(s->mesh->volume) * det;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	if (s->kind != CLASH_KIND_POLYTOPE)
		primitive_local_box(s, lo, hi);
	for (size_t i = 0; s->kind == CLASH_KIND_POLYTOPE && s->vertices && i < s->count; i++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], s->vertices[3 * i + k]);
			hi[k] = fmax(hi[k], s->vertices[3 * i + k]);
		}
	return lo[0] <= hi[0] ? (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]) * det : 0.0;
}

/* Do two leaves of one side overlap by more than 1e-9 of the smaller one
 * (more than rounding and the report's offset can make of a touch)?  By
 * the same report between them.  1, 0 or an error; a pair the report
 * cannot resolve counts as overlapping. */
static int leaves_overlap(const clash_shape *p, const clash_shape *q,
                          const clash_overlap_options *opt)
{
	clash_options o;
	memset(&o, 0, sizeof o);
	o.want = CLASH_WANT_VERDICT;
	o.cancel = opt ? opt->cancel : NULL;
	clash_result r;
	int err = clash_gjk(p, q, &o, &r);
	if (err || !r.intersecting)
		return err;
	clash_overlap_options only = {1, 1, 1, opt ? opt->tolerance : 0.0, o.cancel};
	clash_overlap *v = NULL;
	err = ov_pair(p, q, &only, &v);
	if (err == CLASH_ENOTSUP)
		return 1;
	if (err)
		return err;
	const double vp = leaf_volume(p), vq = leaf_volume(q);
	const int over = !v->has_volume || v->volume > 1e-9 * (vp < vq ? vp : vq);
	clash_overlap_free(v);
	return over;
}

/* Does the surface of side l bound its solid once: every mesh leaf's
 * shells (mesh_shells.h), and no two leaves overlapping?  1, 0 or an
 * error. */
static int side_once(const leaves *l, const clash_overlap_options *opt)
{
	const volatile int *cancel = opt ? opt->cancel : NULL;
	for (size_t i = 0; i < l->n; i++)
		if (l->s[i].mesh) {
			const int once = mesh_shells_once(l->s[i].mesh, cancel);
			if (once <= 0)
				return once;
		}
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = i + 1; k < l->n; k++) {
			const int over = leaves_overlap(&l->s[i], &l->s[k], opt);
			if (over)
				return over < 0 ? over : 0;
		}
	return 1;
}

/* The volume of *o kept only where both sides bound their solids once. */
static int check_once(const leaves *la, const leaves *lb, const clash_overlap_options *opt,
                      clash_overlap *o)
{
	if (!o->has_volume)
		return CLASH_OK;
	int once = side_once(la, opt);
	if (once < 0)
		return once;
	o->overlaps_itself_a = !once;
	once = side_once(lb, opt);
	if (once < 0)
		return once;
	o->overlaps_itself_b = !once;
	if (o->overlaps_itself_a || o->overlaps_itself_b) {
		o->has_volume = 0;
		o->volume = 0.0;
	}
	return CLASH_OK;
}

int ov_compound(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
                clash_overlap **out)
{
	leaves la = {0}, lb = {0};
	joined j = {0};
	int err = collect(a, &la);
	if (!err)
		err = collect(b, &lb);
	if (!err && !la.mesh && !lb.mesh)
		err = CLASH_EINVAL;
	if (!err)
		err = pairs(&la, &lb, opt, &j);
	if (!err)
		err = join(&j, opt, out);
	if (!err && (err = check_once(&la, &lb, opt, *out)) != CLASH_OK) {
		clash_overlap_free(*out);
		*out = NULL;
	}
	for (size_t k = 0; k < j.npart; k++)
		clash_overlap_free(j.part[k]);
	free(j.part);
	free(j.pa);
	free(j.pb);
	free(la.s);
	free(la.top);
	free(lb.s);
	free(lb.top);
	return err;
}

/* The entry point: a pair of leaves directly (overlap.c), compound
 * shapes leaf pair by leaf pair (above).  It lives here, above both, so
 * that overlap.c never calls back into this file. */
int clash_overlap_get(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
                      clash_overlap **out)
{
	if (out != NULL)
		*out = NULL;
	if (a == NULL || b == NULL || out == NULL)
		return CLASH_EINVAL;
	if (a->dim != 3 || b->dim != 3)
		return CLASH_EINVAL;
	if (a->nparts || b->nparts)
		return ov_compound(a, b, opt, out);
	if (a->mesh == NULL && b->mesh == NULL)
		return CLASH_EINVAL;
	int err = ov_pair(a, b, opt, out);
	const leaves la = {(clash_shape *)a, NULL, 1, 1, a->mesh != NULL};
	const leaves lb = {(clash_shape *)b, NULL, 1, 1, b->mesh != NULL};
	if (!err && (err = check_once(&la, &lb, opt, *out)) != CLASH_OK) {
		clash_overlap_free(*out);
		*out = NULL;
	}
	return err;
}

void clash_overlap_free(clash_overlap *o)
{
	free(o);
}
