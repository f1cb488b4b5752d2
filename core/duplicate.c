/*
 * duplicate.c — two copies of a part in one place (a classic modelling
 * error, CAD tools' "duplicate" test), found by comparing the shapes
 * rather than by a depth search, which identical hulls make slowest.
 *
 * Convex shapes coincide when their world point sets do: every vertex of
 * each within tol of some vertex of the other, whatever order the lists
 * give them in (a part written out twice need not list its vertices
 * alike).  Cheapest first: radii; the vertices in order (two copies of one
 * list); one vertex of each against every vertex of the other (a pair
 * that is no duplicate nearly always fails here, at the cost of one
 * support scan); only then each list sorted along the axis where its
 * points spread most and every point of the other looked up in the
 * window of width 2 tol around its coordinate: O(n log n), stopping at the
 * first match.  Compounds: their parts one to one, in order or else
 * matched by their boxes.  The caller first compares the world boxes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duplicate.h"
#include "motion.h"
#include "primitive.h"
#include "vec.h"

/* Point i of convex shape s, posed, in w. */
static void world_point(const clash_shape *s, size_t i, double *w)
{
	const int n = s->dim;
	const double *v = s->vertices + i * (size_t)n;
	if (!s->posed) {
		vec_copy(w, v, n);
		return;
	}
	vec_copy(w, s->translation, n);
	for (int c = 0; c < n; c++)
		vec_axpy(w, v[c], s->linear + c * n, n);
}

static int near_points(const double *p, const double *q, int n, double tol)
{
	double d[CLASH_MAX_DIM];
	vec_sub(d, p, q, n);
	return vec_norm(d, n) <= tol;
}

/* Whether every vertex of a is within tol of b's of the same index. */
static int same_order(const clash_shape *a, const clash_shape *b, double tol)
{
	if (a->count != b->count)
		return 0;
	for (size_t i = 0; i < a->count; i++) {
		double pa[CLASH_MAX_DIM], pb[CLASH_MAX_DIM];
		world_point(a, i, pa);
		world_point(b, i, pb);
		if (!near_points(pa, pb, a->dim, tol))
			return 0;
	}
	return 1;
}

/* Whether vertex i of a is within tol of some vertex of b (a scan). */
static int found_anywhere(const clash_shape *a, size_t i, const clash_shape *b, double tol)
{
	double p[CLASH_MAX_DIM], q[CLASH_MAX_DIM];
	world_point(a, i, p);
	for (size_t j = 0; j < b->count; j++) {
		world_point(b, j, q);
		if (near_points(p, q, a->dim, tol))
			return 1;
	}
	return 0;
}

typedef struct keyed {
	double x;
	size_t i;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
	const keyed *p = x, *q = y;
	return (p->x > q->x) - (p->x < q->x);
}

/* b's vertices by their world coordinate along the axis where they spread
 * most, into order (b->count entries); returns the axis. */
static int sort_points(const clash_shape *b, keyed *order)
{
	const int n = b->dim;
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM], w[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	for (size_t j = 0; j < b->count; j++) {
		world_point(b, j, w);
		for (int k = 0; k < n; k++) {
			lo[k] = fmin(lo[k], w[k]);
			hi[k] = fmax(hi[k], w[k]);
		}
	}
	int axis = 0;
	for (int k = 1; k < n; k++)
		if (hi[k] - lo[k] > hi[axis] - lo[axis])
			axis = k;
	for (size_t j = 0; j < b->count; j++) {
		world_point(b, j, w);
		order[j] = (keyed){w[axis], j};
	}
	qsort(order, b->count, sizeof *order, keyed_cmp);
	return axis;
}

/* The first entry of order (m of them) at or after x. */
static size_t lower_bound(const keyed *order, size_t m, double x)
{
	size_t lo = 0, hi = m;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (order[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether every vertex of a is within tol of some vertex of b, b's sorted
 * into order (scratch of b->count entries). */
static int covered(const clash_shape *a, const clash_shape *b, double tol, keyed *order)
{
	const int n = a->dim, axis = sort_points(b, order);
	for (size_t i = 0; i < a->count; i++) {
		double p[CLASH_MAX_DIM], q[CLASH_MAX_DIM];
		world_point(a, i, p);
		int found = 0;
		for (size_t k = lower_bound(order, b->count, p[axis] - tol);
		     !found && k < b->count && order[k].x <= p[axis] + tol; k++) {
			world_point(b, order[k].i, q);
			found = near_points(p, q, n, tol);
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* Convex shapes given as vertices: the same point set within tol. */
static int same_points(const clash_shape *a, const clash_shape *b, double tol)
{
	if (a->count == 0 || b->count == 0)
		return 0;
	if (same_order(a, b, tol))
		return 1;
	if (!found_anywhere(a, 0, b, tol) || !found_anywhere(b, 0, a, tol))
		return 0;
	keyed *order = malloc((a->count > b->count ? a->count : b->count) * sizeof *order);
	if (order == NULL)
		return CLASH_ENOMEM;
	int same = covered(a, b, tol, order) && covered(b, a, tol, order);
	free(order);
	return same;
}

/* Meshes: the positions in order, and the same triangles. */
static int same_mesh(const clash_shape *a, const clash_shape *b, double tol)
{
	if (!a->mesh || !b->mesh)
		return 0;
	size_t nt = clash_mesh_triangles(a->mesh);
	const uint32_t *ia = clash_mesh_indices(a->mesh), *ib = clash_mesh_indices(b->mesh);
	if (nt != clash_mesh_triangles(b->mesh) || (ia == NULL) != (ib == NULL) ||
	    (ia && memcmp(ia, ib, 3 * nt * sizeof *ia) != 0))
		return 0;
	return same_order(a, b, tol);
}

static int same_shape(const clash_shape *a, const clash_shape *b, double tol, int depth);

/* The world boxes of s's parts (each lo then hi, 2 dim values) into box. */
static int part_boxes(const clash_shape *s, double *box)
{
	const size_t step = 2 * (size_t)s->dim;
	for (size_t i = 0; i < s->nparts; i++) {
		int err = motion_box(&s->parts[i], NULL, box + i * step, box + i * step + s->dim,
		                     NULL);
		if (err)
			return err;
	}
	return CLASH_OK;
}

/* Compounds whose parts are listed in another order: each part of a
 * matched to a part of b not matched yet that coincides with it, looked
 * up by box (duplicate_boxes_allow) in b's parts sorted by their boxes'
 * lowest x.  The
 * first match is taken: a compound holding two parts that coincide within
 * tol but not with each other's matches may be missed (then no duplicate,
 * the ordinary clash), never the other way. */
static int matched_parts(const clash_shape *a, const clash_shape *b, double tol, int depth)
{
	const size_t m = a->nparts, step = 2 * (size_t)a->dim;
	double *box = malloc(2 * m * step * sizeof *box);
	keyed *order = malloc(m * sizeof *order);
	unsigned char *used = calloc(m, 1);
	int same = box && order && used ? CLASH_OK : CLASH_ENOMEM;
	const double *ba = box, *bb = box + m * step;
	if (same == CLASH_OK && !(same = part_boxes(a, box)))
		same = part_boxes(b, box + m * step);
	if (same != CLASH_OK)
		goto out;
	for (size_t j = 0; j < m; j++)
		order[j] = (keyed){bb[j * step], j};
	qsort(order, m, sizeof *order, keyed_cmp);
	same = 1;
	for (size_t i = 0; i < m && same == 1; i++) {
		const double x = ba[i * step];
		same = 0;
		for (size_t k = lower_bound(order, m, x - 2 * tol);
		     !same && k < m && order[k].x <= x + 2 * tol; k++) {
			size_t j = order[k].i;
			if (used[j] || !duplicate_boxes_allow(ba + i * step, ba + i * step + a->dim,
			                                      bb + j * step, bb + j * step + a->dim,
			                                      a->dim, tol))
				continue;
			same = same_shape(&a->parts[i], &b->parts[j], tol, depth + 1);
			used[j] = same == 1;
		}
	}
out:
	free(box);
	free(order);
	free(used);
	return same;
}

static int same_shape(const clash_shape *a, const clash_shape *b, double tol, int depth)
{
	if (b->dim != a->dim || a->nparts != b->nparts || !(fabs(a->radius - b->radius) <= tol))
		return 0;
	if (a->nparts) {
		if (depth >= CLASH_COMPOUND_MAX_DEPTH || a->posed != b->posed)
			return 0;
		/* A compound's pose would move its parts' points, which are
		 * compared where each part itself places them. */
		if (a->posed &&
		    (memcmp(a->linear, b->linear, sizeof a->linear) != 0 ||
		     memcmp(a->translation, b->translation, sizeof a->translation) != 0))
			return 0;
		int same = 1;
		for (size_t i = 0; i < a->nparts && same == 1; i++)
			same = same_shape(&a->parts[i], &b->parts[i], tol, depth + 1);
		return same == 0 ? matched_parts(a, b, tol, depth) : same;
	}
	if (a->kind || b->kind) /* exact primitives: kind, sizes and pose */
		return primitive_same(a, b, tol);
	if (a->mesh || b->mesh)
		return same_mesh(a, b, tol);
	return same_points(a, b, tol);
}

int duplicate_same(const clash_shape *a, const clash_shape *b, double tol)
{
	return same_shape(a, b, tol, 0);
}

int duplicate_boxes_allow(const double *alo, const double *ahi, const double *blo,
                          const double *bhi, int n, double tol)
{
	const double d = 2.0 * tol;
	for (int k = 0; k < n; k++)
		if (!(fabs(alo[k] - blo[k]) <= d && fabs(ahi[k] - bhi[k]) <= d))
			return 0;
	return 1;
}
