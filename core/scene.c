/*
 * scene.c — scenes: which pairs of the objects of an assembly
 * clash, touch or come closer than a clearance, at rest or in motion.
 *
 * Broad phase: one world box per object over its whole motion (motion_box),
 * grown by half the clearance, the overlapping boxes found by a
 * bounding-volume hierarchy walked against itself (the 2005 interframe
 * paper culls with bounding boxes).  Narrow phase: clash_scene_pair answers
 * one candidate pair (clash_gjk at the start, clash_toi when either object
 * moves) and its class (clash.h, enum clash_class).  It only reads the
 * scene, so a caller may spread the candidates over threads
 * (clash_scene_run is the one-thread version); they come sorted by (a, b),
 * so answers keep the input order however the pairs are split.  The pairs
 * may be restricted ("only") and some excluded ("ignore"), by object or
 * group.
 *
 * The hierarchy (and why not sweep and prune), the lists, the per-pair
 * tolerance and duplicates: docs/design.md, "core/motion.c, scene.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clash.h"
#include "duplicate.h"
#include "motion.h"
#include "vec.h"

/* The default tolerance of a pair, relative to its size: clash_gjk's. */
#define SCENE_DEFAULT_RELATIVE_TOLERANCE 1e-12

/* Boxes grow by this much of their object's size and position on top of
 * half the clearance and tolerance: far more than the default tolerance
 * and any rounding of poses, so no touching pair is culled. */
#define SCENE_BOX_MARGIN 1e-9

/* ---- pair lists ---------------------------------------------------------- */

static int pair_cmp(const void *x, const void *y)
{
	const clash_pair *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/* Whether x names an object (x < count) or a group (count + g). */
static int selector_ok(size_t x, size_t count, size_t ngroups)
{
	return x < count || x - count < ngroups;
}

/* A normalized (a < b), sorted, deduplicated copy of a pair list, indices
 * checked against count objects and ngroups groups after them (a group may
 * be paired with itself, an object not).  *out is malloc'd (NULL for an
 * empty list); *groups tells whether an end names a group. */
static int pair_set(const clash_pair *in, size_t n, size_t count, size_t ngroups, clash_pair **out,
                    size_t *nout, int *groups)
{
	*groups = 0;
	*out = NULL;
	*nout = 0;
	if (n == 0)
		return CLASH_OK;
	if (in == NULL)
		return CLASH_EINVAL;
	clash_pair *p = malloc(n * sizeof *p);
	if (p == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t a = in[i].a, b = in[i].b;
		if ((a == b && a < count) || !selector_ok(a, count, ngroups) ||
		    !selector_ok(b, count, ngroups)) {
			free(p);
			return CLASH_EINVAL;
		}
		*groups |= a >= count || b >= count;
		p[i] = a < b ? (clash_pair){a, b} : (clash_pair){b, a};
	}
	qsort(p, n, sizeof *p, pair_cmp);
	size_t m = 1;
	for (size_t i = 1; i < n; i++)
		if (pair_cmp(&p[i], &p[m - 1]) != 0)
			p[m++] = p[i];
	*out = p;
	*nout = m;
	return CLASH_OK;
}

static int pair_in(const clash_pair *set, size_t n, size_t a, size_t b)
{
	clash_pair key = a < b ? (clash_pair){a, b} : (clash_pair){b, a};
	return n > 0 && bsearch(&key, set, n, sizeof *set, pair_cmp) != NULL;
}

/* Whether the objects a and b match a pair of the set: by themselves, or
 * by their groups (scene->group) when `groups`. */
static int pair_matches(const clash_pair *set, size_t n, int groups, const clash_scene *s, size_t a,
                        size_t b)
{
	if (pair_in(set, n, a, b))
		return 1;
	if (!groups || s->group == NULL)
		return 0;
	size_t ga = s->group[a], gb = s->group[b];
	ga = ga == CLASH_SCENE_NO_GROUP ? a : s->count + ga;
	gb = gb == CLASH_SCENE_NO_GROUP ? b : s->count + gb;
	return (ga != a && pair_in(set, n, ga, b)) || (gb != b && pair_in(set, n, a, gb)) ||
	       ((ga != a || gb != b) && pair_in(set, n, ga, gb));
}

/* A growing array of pairs. */
typedef struct pair_list {
	clash_pair *p;
	size_t n, cap;
	size_t max; /* 0: no limit */
} pair_list;

static int pair_push(pair_list *l, size_t a, size_t b)
{
	if (l->max && l->n >= l->max)
		return CLASH_ELIMIT;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		clash_pair *grown = realloc(l->p, cap * sizeof *grown);
		if (grown == NULL)
			return CLASH_ENOMEM;
		l->p = grown;
		l->cap = cap;
	}
	l->p[l->n++] = a < b ? (clash_pair){a, b} : (clash_pair){b, a};
	return CLASH_OK;
}

/* ---- the scene ----------------------------------------------------------- */

static int scene_check(const clash_scene *s)
{
	if (s == NULL)
		return CLASH_EINVAL;
	if (!(s->clearance >= 0.0) || !isfinite(s->clearance))
		return CLASH_EINVAL;
	if (!(s->opt.tolerance >= 0.0) || !isfinite(s->opt.tolerance) || s->opt.max_iterations < 0)
		return CLASH_EINVAL;
	if (!(s->touch_depth >= 0.0) || !isfinite(s->touch_depth))
		return CLASH_EINVAL;
	if (s->count == 0)
		return CLASH_OK;
	if (s->shapes == NULL)
		return CLASH_EINVAL;
	for (size_t i = 0; s->group && i < s->count; i++)
		if (s->group[i] != CLASH_SCENE_NO_GROUP && s->group[i] >= s->ngroups)
			return CLASH_EINVAL;
	const int n = s->shapes[0].dim;
	if (n < 1 || n > CLASH_MAX_DIM)
		return CLASH_EDIM;
	for (size_t i = 0; i < s->count; i++) {
		if (s->shapes[i].dim != n)
			return CLASH_EDIM;
		if (s->motions) {
			int err = motion_check(&s->motions[i], n);
			if (err)
				return err;
		}
	}
	return CLASH_OK;
}

static const clash_motion *motion_of(const clash_scene *s, size_t i)
{
	if (s->motions == NULL || !motion_moves(&s->motions[i], s->shapes[i].dim))
		return NULL;
	return &s->motions[i];
}

/* Half the diagonal of the box [lo, hi]. */
static double half_diagonal(const double *lo, const double *hi, int n)
{
	double h[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		h[k] = 0.5 * hi[k] - 0.5 * lo[k];
	return vec_norm(h, n);
}

/* The grown boxes: lo of object i at box[2*i*dim], hi right after.  Each
 * grows by half the clearance and half the largest tolerance any pair can
 * have (the pair's tolerance is capped by its size, at most twice the
 * largest box's), so two boxes together grow by at least a pair's. */
static int scene_boxes(const clash_scene *s, double *box)
{
	const int n = s->shapes[0].dim;
	double largest = 0.0;
	for (size_t i = 0; i < s->count; i++) {
		double *lo = box + 2 * i * (size_t)n, *hi = lo + n;
		int err = motion_box(&s->shapes[i], motion_of(s, i), lo, hi, NULL);
		if (err)
			return err;
		largest = fmax(largest, half_diagonal(lo, hi, n));
	}
	const double tol =
		fmin(s->opt.tolerance, 2.0 * CLASH_SCENE_MAX_RELATIVE_TOLERANCE * largest);
	const double grow = 0.5 * s->clearance + 0.5 * tol;
	for (size_t i = 0; i < s->count; i++) {
		double *lo = box + 2 * i * (size_t)n, *hi = lo + n;
		double size = 0.0;
		for (int k = 0; k < n; k++)
			size = fmax(size, fmax(hi[k] - lo[k], fmax(fabs(lo[k]), fabs(hi[k]))));
		const double margin = grow + SCENE_BOX_MARGIN * size;
		for (int k = 0; k < n; k++) {
			lo[k] -= margin;
			hi[k] += margin;
		}
		if (!vec_isfinite(lo, 2 * n))
			return CLASH_ERANGE;
	}
	return CLASH_OK;
}

/* ---- the bounding-volume hierarchy -------------------------------------- */

/* A node: its box, and either two children or a run of objects. */
typedef struct bvh_node {
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	size_t left, right;  /* children, when count == 0 */
	size_t first, count; /* a leaf: order[first .. first + count) */
} bvh_node;

/* An object's key along the split axis (its box's centre), for selection. */
typedef struct bvh_key {
	double c;
	size_t i;
} bvh_key;

typedef struct bvh {
	const double *box; /* the objects' boxes (scene_boxes) */
	int n;             /* dimension */
	bvh_node *nodes;
	size_t nnodes;
	bvh_key *keys; /* the objects, in leaf order once built */
	/* The traversal's output and work. */
	pair_list *out;
	const clash_scene *scene;
	const clash_pair *ignore, *only; /* only: when a pair of it names a group */
	size_t nignore, nonly;
	int ignore_groups;
	size_t tested;
} bvh;

/* Objects per leaf: below this, comparing every pair of two leaves costs
 * less than descending further. */
#define BVH_LEAF 4

static int key_less(const bvh_key *p, const bvh_key *q)
{
	return p->c < q->c || (p->c == q->c && p->i < q->i);
}

static void key_swap(bvh_key *keys, size_t i, size_t j)
{
	bvh_key t = keys[i];
	keys[i] = keys[j];
	keys[j] = t;
}

/* Put the k-th smallest key of keys[0 .. m) at k, smaller ones before it
 * and larger after (quickselect; the middle element as pivot, which sorted
 * input, common in CAD arrays, does not defeat; keys are distinct, ties
 * being broken by index). */
static void select_key(bvh_key *keys, size_t m, size_t k)
{
	size_t lo = 0, hi = m - 1;
	while (lo < hi) {
		key_swap(keys, lo + (hi - lo) / 2, hi);
		size_t store = lo;
		for (size_t i = lo; i < hi; i++)
			if (key_less(&keys[i], &keys[hi]))
				key_swap(keys, i, store++);
		key_swap(keys, store, hi);
		if (k == store)
			return;
		if (k < store)
			hi = store - 1;
		else
			lo = store + 1;
	}
}

/* Build the node for keys[first .. first + count): returns its index.
 * Depth stays below log2(n) + 2 (median splits), so recursion is safe. */
static size_t bvh_build(bvh *t, size_t first, size_t count)
{
	const int n = t->n;
	size_t id = t->nnodes++;
	bvh_node *node = &t->nodes[id];
	double clo[CLASH_MAX_DIM], chi[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		node->lo[k] = clo[k] = INFINITY;
		node->hi[k] = chi[k] = -INFINITY;
	}
	for (size_t q = first; q < first + count; q++) {
		const double *lo = t->box + 2 * t->keys[q].i * (size_t)n, *hi = lo + n;
		for (int k = 0; k < n; k++) {
			double c = 0.5 * lo[k] + 0.5 * hi[k];
			node->lo[k] = fmin(node->lo[k], lo[k]);
			node->hi[k] = fmax(node->hi[k], hi[k]);
			clo[k] = fmin(clo[k], c);
			chi[k] = fmax(chi[k], c);
		}
	}
	if (count <= BVH_LEAF) {
		node->first = first;
		node->count = count;
		return id;
	}
	/* Split at the median centre along the axis where the centres spread
	 * most. */
	int axis = 0;
	for (int k = 1; k < n; k++)
		if (chi[k] - clo[k] > chi[axis] - clo[axis])
			axis = k;
	for (size_t q = first; q < first + count; q++) {
		const double *lo = t->box + 2 * t->keys[q].i * (size_t)n;
		t->keys[q].c = 0.5 * lo[axis] + 0.5 * lo[n + axis];
	}
	size_t half = count / 2;
	select_key(t->keys + first, count, half);
	node->count = 0;
	size_t left = bvh_build(t, first, half);
	size_t right = bvh_build(t, first + half, count - half);
	t->nodes[id].left = left;
	t->nodes[id].right = right;
	return id;
}

static int box_overlap(const double *alo, const double *ahi, const double *blo, const double *bhi,
                       int n)
{
	for (int k = 0; k < n; k++)
		if (alo[k] > bhi[k] || blo[k] > ahi[k])
			return 0;
	return 1;
}

/* The candidate (i, j), unless ignored (or, with t->only, not listed). */
static int bvh_pair(bvh *t, size_t i, size_t j)
{
	t->tested++;
	const int n = t->n;
	const double *bi = t->box + 2 * i * (size_t)n, *bj = t->box + 2 * j * (size_t)n;
	if (!box_overlap(bi, bi + n, bj, bj + n, n))
		return CLASH_OK;
	size_t a = i < j ? i : j, b = i < j ? j : i;
	if (pair_matches(t->ignore, t->nignore, t->ignore_groups, t->scene, a, b))
		return CLASH_OK;
	if (t->only && !pair_matches(t->only, t->nonly, 1, t->scene, a, b))
		return CLASH_OK;
	return pair_push(t->out, a, b);
}

/* The sum of a node box's sides: which of two nodes is the bigger. */
static double node_size(const bvh_node *x, int n)
{
	double s = 0.0;
	for (int k = 0; k < n; k++)
		s += x->hi[k] - x->lo[k];
	return s;
}

/* Every overlapping pair with one object under node x and one under y. */
static int bvh_cross(bvh *t, size_t x, size_t y)
{
	const bvh_node *nx = &t->nodes[x], *ny = &t->nodes[y];
	if (!box_overlap(nx->lo, nx->hi, ny->lo, ny->hi, t->n))
		return CLASH_OK;
	int err;
	if (nx->count && ny->count) {
		for (size_t p = nx->first; p < nx->first + nx->count; p++)
			for (size_t q = ny->first; q < ny->first + ny->count; q++)
				if ((err = bvh_pair(t, t->keys[p].i, t->keys[q].i)))
					return err;
		return CLASH_OK;
	}
	/* Descend on the side that is not a leaf (the bigger, if neither is). */
	if (nx->count || (!ny->count && node_size(ny, t->n) > node_size(nx, t->n))) {
		if ((err = bvh_cross(t, x, ny->left)))
			return err;
		return bvh_cross(t, x, ny->right);
	}
	if ((err = bvh_cross(t, nx->left, y)))
		return err;
	return bvh_cross(t, nx->right, y);
}

/* Every overlapping pair under node x. */
static int bvh_self(bvh *t, size_t x)
{
	const bvh_node *nx = &t->nodes[x];
	int err;
	if (nx->count) {
		for (size_t p = nx->first; p < nx->first + nx->count; p++)
			for (size_t q = p + 1; q < nx->first + nx->count; q++)
				if ((err = bvh_pair(t, t->keys[p].i, t->keys[q].i)))
					return err;
		return CLASH_OK;
	}
	if ((err = bvh_self(t, nx->left)) || (err = bvh_self(t, nx->right)))
		return err;
	return bvh_cross(t, nx->left, nx->right);
}

int clash_scene_candidates(const clash_scene *s, clash_pair **pairs, size_t *npairs,
                           clash_scene_stats *st)
{
	if (pairs == NULL || npairs == NULL)
		return CLASH_EINVAL;
	*pairs = NULL;
	*npairs = 0;
	if (st)
		memset(st, 0, sizeof *st);
	int err = scene_check(s);
	if (err)
		return err;
	clash_pair *ignore = NULL, *only = NULL;
	size_t nignore = 0, nonly = 0;
	const size_t ngroups = s->group ? s->ngroups : 0;
	int ignore_groups, only_groups;
	if ((err = pair_set(s->ignore, s->nignore, s->count, ngroups, &ignore, &nignore,
	                    &ignore_groups)) ||
	    (err = pair_set(s->only, s->nonly, s->count, ngroups, &only, &nonly, &only_groups))) {
		free(ignore);
		return err;
	}
	if (s->count < 2) {
		free(ignore);
		free(only);
		return CLASH_OK;
	}
	const int n = s->shapes[0].dim;
	const size_t count = s->count;
	double *box = malloc(2 * count * (size_t)n * sizeof *box);
	pair_list out = {.max = s->max_candidates};
	bvh t = {.box = box,
	         .n = n,
	         .out = &out,
	         .scene = s,
	         .ignore = ignore,
	         .nignore = nignore,
	         .ignore_groups = ignore_groups};
	if (only_groups) { /* groups: the hierarchy finds their pairs */
		t.only = only;
		t.nonly = nonly;
	}
	if (box == NULL)
		err = CLASH_ENOMEM;
	if (!err)
		err = scene_boxes(s, box);
	if (!err && s->nonly > 0 && !only_groups) {
		/* Only the listed pairs: no hierarchy needed. */
		for (size_t i = 0; i < nonly && !err; i++)
			err = bvh_pair(&t, only[i].a, only[i].b);
	} else if (!err) {
		t.nodes = malloc(2 * count * sizeof *t.nodes);
		t.keys = malloc(count * sizeof *t.keys);
		if (t.nodes == NULL || t.keys == NULL) {
			err = CLASH_ENOMEM;
		} else {
			for (size_t i = 0; i < count; i++)
				t.keys[i] = (bvh_key){0.0, i};
			size_t root = bvh_build(&t, 0, count);
			assert(t.nnodes <= 2 * count);
			err = bvh_self(&t, root);
		}
	}
	if (!err && out.n > 1) /* out.p is NULL when no pair was found */
		qsort(out.p, out.n, sizeof *out.p, pair_cmp);
	free(t.nodes);
	free(t.keys);
	free(box);
	free(ignore);
	free(only);
	if (st) {
		st->tested = t.tested;
		st->candidates = out.n;
	}
	if (err) {
		free(out.p);
		return err;
	}
	*pairs = out.p;
	*npairs = out.n;
	return CLASH_OK;
}

/* The world box of a shape at rest, radius included: lo then hi. */
typedef struct world_box {
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
} world_box;

/* Whether a and b coincide within tol (clash.h, CLASH_CLASS_DUPLICATE;
 * duplicate.c), their boxes first.  1, 0 or an error. */
static int duplicate(const clash_shape *sa, const clash_shape *sb, const world_box *ba,
                     const world_box *bb, double tol)
{
	if (!duplicate_boxes_allow(ba->lo, ba->hi, bb->lo, bb->hi, sa->dim, tol))
		return 0;
	return duplicate_same(sa, sb, tol);
}

/* The tolerance of the pair (a, b) (clash.h): *tol for classing, and in
 * opt->tolerance what GJK is given (0 stays 0: GJK's own default). */
static int pair_tolerance(const clash_scene *s, const clash_shape *sa, const clash_shape *sb,
                          world_box *ba, world_box *bb, clash_options *opt, double *tol)
{
	const int n = sa->dim;
	int err;
	if ((err = motion_box(sa, NULL, ba->lo, ba->hi, NULL)) ||
	    (err = motion_box(sb, NULL, bb->lo, bb->hi, NULL)))
		return err;
	const double size = half_diagonal(ba->lo, ba->hi, n) + half_diagonal(bb->lo, bb->hi, n);
	if (!(s->opt.tolerance > 0.0)) {
		*tol = SCENE_DEFAULT_RELATIVE_TOLERANCE * size;
		return CLASH_OK;
	}
	const double cap = CLASH_SCENE_MAX_RELATIVE_TOLERANCE * size;
	if (s->opt.tolerance > cap && cap > 0.0)
		opt->tolerance = cap;
	*tol = opt->tolerance;
	return CLASH_OK;
}

/* The start's answer r into h. */
static void hit_from(clash_scene_hit *h, const clash_result *r, int n)
{
	h->intersecting = r->intersecting;
	h->distance = r->distance;
	vec_copy(h->near_a, r->near_a, n);
	vec_copy(h->near_b, r->near_b, n);
	h->depth_exact = (r->has & CLASH_HAS_DEPTH) != 0;
	h->depth = h->depth_exact ? r->depth : r->depth_lower_bound;
	h->pair_depth_exact = (r->has & CLASH_HAS_PAIR_DEPTH) != 0;
	h->pair_depth = h->pair_depth_exact ? r->depth : 0.0;
	if (h->depth_exact || h->pair_depth_exact)
		vec_copy(h->normal, r->depth_normal, n);
	h->mesh = (r->has & CLASH_HAS_MESH) != 0;
	h->contact = h->mesh && r->intersecting ? r->contact : CLASH_CONTACT_NONE;
	h->has_parts = (r->has & CLASH_HAS_PARTS) != 0;
	h->part_a = r->part_a;
	h->part_b = r->part_b;
	h->converged = r->converged;
}

/* Two intersecting solids with a mesh between them are classed by their
 * depth, as convex shapes are (clash_mesh_depth, into *r), and carry the
 * volume they share (clash_overlap_get; none for a pair it cannot
 * answer, a curved primitive against a mesh), so that a client can rank
 * clashes; a pair neither answers keeps clash_gjk's answer.  Open surfaces have neither: their class comes from the shift
 * test of motion_deeper. */
static int mesh_report(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                       clash_result *r, clash_scene_hit *h)
{
	if (!(r->has & CLASH_HAS_MESH) || !r->intersecting || !r->solid_a || !r->solid_b)
		return CLASH_OK;
	clash_result deep;
	int err = clash_mesh_depth(a, b, opt, &deep);
	if (err && err != CLASH_ENOTSUP)
		return err;
	if (!err)
		*r = deep;
	clash_overlap *o = NULL;
	clash_overlap_options oo = {.tolerance = opt->tolerance, .cancel = opt->cancel};
	err = clash_overlap_get(a, b, &oo, &o);
	if (err == CLASH_ENOTSUP)
		return CLASH_OK;
	if (err)
		return err;
	h->has_volume = o->has_volume;
	h->volume = o->has_volume ? o->volume : 0.0;
	clash_overlap_free(o);
	return CLASH_OK;
}

int clash_scene_pair(const clash_scene *s, size_t a, size_t b, clash_scene_hit *h)
{
	if (h == NULL)
		return CLASH_EINVAL;
	memset(h, 0, sizeof *h);
	if (s == NULL || a == b || a >= s->count || b >= s->count || s->shapes == NULL)
		return CLASH_EINVAL;
	if (a > b) {
		size_t x = a;
		a = b;
		b = x;
	}
	const clash_shape *sa = &s->shapes[a], *sb = &s->shapes[b];
	const clash_motion *ma = motion_of(s, a), *mb = motion_of(s, b);
	clash_options opt = s->opt;
	opt.warm_count = 0;
	opt.warm_a = opt.warm_b = NULL;
	opt.warm_plane = NULL;
	opt.want = 0; /* a pair's class needs its distance and depth */
	double tol;
	world_box ba, bb;
	int err = pair_tolerance(s, sa, sb, &ba, &bb, &opt, &tol);
	if (err)
		return err;
	const int n = sa->dim;
	h->a = a;
	h->b = b;

	clash_result r;
	const int dup = ma == NULL && mb == NULL ? duplicate(sa, sb, &ba, &bb, tol) : 0;
	if (dup < 0)
		return dup;
	if (dup) {
		opt.want = CLASH_WANT_DISTANCE; /* near points, no depth search */
		if ((err = clash_gjk(sa, sb, &opt, &r)))
			return err;
		hit_from(h, &r, n);
		h->depth = 0.0;
		h->depth_exact = 0;
		h->pair_depth = 0.0;
		h->pair_depth_exact = 0;
		vec_zero(h->normal, n);
		h->cls = CLASH_CLASS_DUPLICATE;
		return CLASH_OK;
	}
	if ((err = clash_gjk(sa, sb, &opt, &r)))
		return err;
	if ((err = mesh_report(sa, sb, &opt, &r, h)))
		return err;
	hit_from(h, &r, n);
	const int deep = motion_deeper(sa, sb, &opt, &r, fmax(tol, s->touch_depth));
	if (deep < 0)
		return deep;

	if (ma == NULL && mb == NULL) {
		if (r.intersecting)
			h->cls = deep ? CLASH_CLASS_CLASH : CLASH_CLASS_TOUCH;
		else if (r.distance < s->clearance)
			h->cls = CLASH_CLASS_CLEARANCE;
		return CLASH_OK;
	}
	h->moving = 1;
	if ((err = clash_toi(sa, ma, sb, mb, s->clearance, &opt, &h->toi)))
		return err;
	h->converged = h->converged && h->toi.converged;
	const clash_toi_result *t = &h->toi;
	if (t->contact)
		h->cls = deep || t->runs_in ? CLASH_CLASS_CLASH : CLASH_CLASS_TOUCH;
	else if (t->near && s->clearance > 0.0) {
		h->cls = CLASH_CLASS_CLEARANCE;
	}
	return CLASH_OK;
}

int clash_scene_run(const clash_scene *s, clash_scene_hit **hits, size_t *nhits,
                    clash_scene_stats *st)
{
	if (hits == NULL || nhits == NULL)
		return CLASH_EINVAL;
	*hits = NULL;
	*nhits = 0;
	clash_scene_stats local;
	if (st == NULL)
		st = &local;
	clash_pair *pairs;
	size_t npairs;
	int err = clash_scene_candidates(s, &pairs, &npairs, st);
	if (err)
		return err;
	clash_scene_hit *out = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < npairs && !err; i++) {
		clash_scene_hit h;
		err = clash_scene_pair(s, pairs[i].a, pairs[i].b, &h);
		if (err || h.cls == CLASH_CLASS_NONE)
			continue;
		if (n == cap) {
			size_t grown_cap = cap ? 2 * cap : 16;
			clash_scene_hit *grown = realloc(out, grown_cap * sizeof *grown);
			if (grown == NULL) {
				err = CLASH_ENOMEM;
				break;
			}
			out = grown;
			cap = grown_cap;
		}
		out[n++] = h;
	}
	free(pairs);
	if (err) {
		free(out);
		return err;
	}
	st->reported = n;
	*hits = out;
	*nhits = n;
	return CLASH_OK;
}
