/*
 * check_sphere_clash.c — clash reports of a mesh against a sphere (where
 * they meet, how much they share, how deep), against independent answers:
 *   - the volume of a ball and a box in closed form (inside: 4/3 pi r^3;
 *     one face: the spherical cap), else by a one-dimensional quadrature
 *     in long double of the exact area of a disc cut by a rectangle (its
 *     kinks split out, adaptive Simpson to 1e-15 of r^3), summed over the
 *     cells of rectilinear-grid solids (an L, a slab, a U, a slot), so
 *     error bounds lie far below the 1e-9 asked of the core;
 *   - curve points against the sphere and the mesh's triangles by brute
 *     force (tri_dist.h);
 *   - the depth against r - h for a ball in a face, and against a brute
 *     force over dense directions (the least move along each that leaves
 *     the ball's centre r from the solid's every triangle and outside it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "check.h"
#include "clash.h"
#include "prng.h"
#include "report_check.h"
#include "tri_dist.h"
#include "world.h"

/* ---- rectilinear-grid solids ----------------------------------------------- */

typedef struct grid {
	int n[3];
	double *g[3]; /* n + 1 coordinates per axis */
	unsigned char *occ;
	double *pos;
	uint32_t *idx;
	size_t nv, nt, cap;
	void *store;
	clash_mesh *m;
	clash_shape s;
} grid;

static void grid_init(grid *v, const double *xs, int nx, const double *ys, int ny, const double *zs,
                      int nz)
{
	memset(v, 0, sizeof *v);
	const double *src[3] = {xs, ys, zs};
	const int n[3] = {nx, ny, nz};
	for (int k = 0; k < 3; k++) {
		v->n[k] = n[k];
		v->g[k] = malloc((size_t)(n[k] + 1) * sizeof(double));
		ck_assert(v->g[k]);
		memcpy(v->g[k], src[k], (size_t)(n[k] + 1) * sizeof(double));
	}
	v->occ = calloc((size_t)(nx * ny * nz), 1);
	ck_assert(v->occ);
}

static int grid_at(const grid *v, int i, int j, int k)
{
	if (i < 0 || j < 0 || k < 0 || i >= v->n[0] || j >= v->n[1] || k >= v->n[2])
		return 0;
	return v->occ[(k * v->n[1] + j) * v->n[0] + i];
}

static void grid_set(grid *v, int i, int j, int k)
{
	v->occ[(k * v->n[1] + j) * v->n[0] + i] = 1;
}

static void push_quad(void *ctx, const double (*q)[3])
{
	grid *v = ctx;
	if (v->nt + 2 > v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->pos = realloc(v->pos, 9 * v->cap * sizeof *v->pos);
		v->idx = realloc(v->idx, 3 * v->cap * sizeof *v->idx);
		ck_assert(v->pos && v->idx);
	}
	static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
	for (int t = 0; t < 2; t++) {
		for (int c = 0; c < 3; c++) {
			memcpy(v->pos + 3 * v->nv, q[tri[t][c]], 3 * sizeof(double));
			v->idx[3 * v->nt + c] = (uint32_t)v->nv++;
		}
		v->nt++;
	}
}

/* The boundary of the occupied cells (tests/cells.h), outward, built as a
 * mesh. */
static void grid_build(grid *v)
{
	const cells c = {{v->n[0], v->n[1], v->n[2]}, {v->g[0], v->g[1], v->g[2]}, v->occ};
	cells_boundary(&c, push_quad, v);
	const size_t size = clash_mesh_size(v->nv, v->nt);
	v->store = malloc(size);
	ck_assert(v->store);
	ck_assert_int_eq(clash_mesh_build(v->store, size, v->pos, v->nv, v->idx, v->nt, &v->m),
	                 CLASH_OK);
	ck_assert_int_eq(clash_shape_init_mesh(&v->s, v->m), CLASH_OK);
	clash_mesh_info info;
	ck_assert_int_eq(clash_mesh_info_get(v->m, &info), CLASH_OK);
	ck_assert(info.closed && info.solid);
}

static void grid_free(grid *v)
{
	for (int k = 0; k < 3; k++)
		free(v->g[k]);
	free(v->occ);
	free(v->pos);
	free(v->idx);
	free(v->store);
}

/* A box [lo, hi] as a grid of one cell. */
static void box_grid(grid *v, const double *lo, const double *hi)
{
	const double xs[2] = {lo[0], hi[0]}, ys[2] = {lo[1], hi[1]}, zs[2] = {lo[2], hi[2]};
	grid_init(v, xs, 1, ys, 1, zs, 1);
	grid_set(v, 0, 0, 0);
	grid_build(v);
}

/* An L (three cells along x, one up at x's first) and a U (one up at
 * each end) on the grid xs x ys x zs (3 x 2 x 1 cells). */
static void l_and_u(grid *l, grid *u, const double *xs, const double *ys, const double *zs)
{
	grid *g[2] = {l, u};
	for (int k = 0; k < 2; k++) {
		grid_init(g[k], xs, 3, ys, 2, zs, 1);
		grid_set(g[k], 0, 0, 0);
		grid_set(g[k], 1, 0, 0);
		grid_set(g[k], 2, 0, 0);
		grid_set(g[k], 0, 1, 0);
		if (k)
			grid_set(g[k], 2, 1, 0);
		grid_build(g[k]);
	}
}

/* ---- the volume of a ball and a box, independently ------------------------- */

typedef long double ld;

/* Integral of sqrt(s^2 - y^2) dy from -s to y. */
static ld chord_int(ld y, ld s)
{
	if (y <= -s)
		return 0;
	if (y >= s)
		return 0.5L * (ld)M_PI * s * s;
	return 0.5L * (y * sqrtl(s * s - y * y) + s * s * asinl(y / s)) + 0.25L * (ld)M_PI * s * s;
}

/* The integral of t(y) = sqrt(s^2 - y^2) over [p, q] clipped to ymax. */
static ld t_over(ld p, ld q, ld ymax, ld s)
{
	q = fminl(q, ymax);
	return q > p ? chord_int(q, s) - chord_int(p, s) : 0;
}

static ld len_over(ld p, ld q, ld ymax)
{
	q = fminl(q, ymax);
	return q > p ? q - p : 0;
}

/* Area of the disc of radius s about 0 with y <= Y and z <= Z. */
static ld quadrant(ld Y, ld Z, ld s)
{
	if (Y <= -s || Z <= -s || s <= 0)
		return 0;
	const ld ym = fminl(Y, s);
	if (Z >= s)
		return 2 * t_over(-s, s, ym, s);
	const ld w = sqrtl(s * s - Z * Z);
	if (Z >= 0)
		return 2 * t_over(-s, -w, ym, s) + Z * len_over(-w, w, ym) + t_over(-w, w, ym, s) +
		       2 * t_over(w, s, ym, s);
	return Z * len_over(-w, w, ym) + t_over(-w, w, ym, s);
}

typedef struct slab {
	ld r, y0, y1, z0, z1; /* relative to the centre */
} slab;

static ld rect_area(const slab *b, ld x)
{
	const ld s2 = b->r * b->r - x * x;
	if (s2 <= 0)
		return 0;
	const ld s = sqrtl(s2);
	return quadrant(b->y1, b->z1, s) - quadrant(b->y0, b->z1, s) - quadrant(b->y1, b->z0, s) +
	       quadrant(b->y0, b->z0, s);
}

static ld simpson(const slab *b, ld a, ld c, ld fa, ld fm, ld fc, ld whole, ld tol, int depth)
{
	const ld m = 0.5L * (a + c), lm = 0.5L * (a + m), rm = 0.5L * (m + c);
	const ld flm = rect_area(b, lm), frm = rect_area(b, rm);
	const ld left = (m - a) / 6 * (fa + 4 * flm + fm),
		 right = (c - m) / 6 * (fm + 4 * frm + fc);
	const ld diff = left + right - whole;
	if (depth <= 0 || fabsl(diff) <= 15 * tol)
		return left + right + diff / 15;
	return simpson(b, a, m, fa, flm, fm, left, tol / 2, depth - 1) +
	       simpson(b, m, c, fm, frm, fc, right, tol / 2, depth - 1);
}

static int ld_cmp(const void *a, const void *b)
{
	const ld x = *(const ld *)a, y = *(const ld *)b;
	return (x > y) - (x < y);
}

/* The volume of the ball (c, r) and the box [lo, hi]: the integral over x
 * of the disc-rectangle area, split where a side becomes tangent or a
 * corner enters (the integrand's kinks). */
static double ball_box(const double *c, double r, const double *lo, const double *hi)
{
	slab b = {r, (ld)lo[1] - c[1], (ld)hi[1] - c[1], (ld)lo[2] - c[2], (ld)hi[2] - c[2]};
	const ld x0 = fmaxl((ld)lo[0] - c[0], -(ld)r), x1 = fminl((ld)hi[0] - c[0], (ld)r);
	if (!(x1 > x0))
		return 0.0;
	ld cut[32];
	int n = 0;
	cut[n++] = x0;
	cut[n++] = x1;
	const ld ys[2] = {b.y0, b.y1}, zs[2] = {b.z0, b.z1};
	for (int i = 0; i < 2; i++) {
		const ld d[3] = {ys[i] * ys[i], zs[i] * zs[i], 0};
		for (int j = 0; j < 2; j++) {
			const ld e[3] = {d[0], d[1], ys[i] * ys[i] + zs[j] * zs[j]};
			for (int k = 0; k < 3; k++) {
				const ld s2 = (ld)r * r - e[k];
				if (s2 <= 0)
					continue;
				for (int sg = -1; sg <= 1; sg += 2) {
					const ld x = sg * sqrtl(s2);
					if (x > x0 && x < x1)
						cut[n++] = x;
				}
			}
		}
	}
	qsort(cut, (size_t)n, sizeof *cut, ld_cmp);
	ld v = 0;
	const ld tol = 1e-16L * (ld)r * r * r;
	for (int i = 0; i + 1 < n; i++) {
		const ld a = cut[i], e = cut[i + 1];
		if (!(e > a))
			continue;
		const ld fa = rect_area(&b, a), fe = rect_area(&b, e),
			 fm = rect_area(&b, 0.5L * (a + e));
		v += simpson(&b, a, e, fa, fm, fe, (e - a) / 6 * (fa + 4 * fm + fe), tol, 40);
	}
	return (double)v;
}

/* The ball against every cell of the grid. */
static double ball_grid(const double *c, double r, const grid *v)
{
	double sum = 0.0;
	for (int k = 0; k < v->n[2]; k++)
		for (int j = 0; j < v->n[1]; j++)
			for (int i = 0; i < v->n[0]; i++)
				if (grid_at(v, i, j, k)) {
					const double lo[3] = {v->g[0][i], v->g[1][j], v->g[2][k]};
					const double hi[3] = {v->g[0][i + 1], v->g[1][j + 1],
					                      v->g[2][k + 1]};
					sum += ball_box(c, r, lo, hi);
				}
	return sum;
}

/* ---- the reports ------------------------------------------------------------- */

static void ball_shape(clash_shape *s, const double *c, double r)
{
	ck_assert_int_eq(clash_shape_init_primitive(s, CLASH_KIND_SPHERE, (double[]){r, 0, 0}),
	                 CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(s, c), CLASH_OK);
}

/* The squared distance from p to the nearest triangle of v, posed as mesh,
 * by brute force. */
static double mesh_gap2(const grid *v, const clash_shape *mesh, const double *p)
{
	double best = INFINITY;
	for (size_t t = 0; t < v->nt; t++) {
		double w[9], q[3];
		for (int c = 0; c < 3; c++)
			world_of(mesh, v->pos + 3 * v->idx[3 * t + c], w + 3 * c);
		best = fmin(best, tri_point_dist2(p, w, q));
	}
	return best;
}

/* Every point within tol of the sphere and of a triangle of the mesh (in
 * its world pose), inside its region's box; loops closed. */
static void check_curves(const clash_overlap *o, const grid *v, const clash_shape *mesh,
                         const double *c, double r, double tol)
{
	for (size_t g = 0; g < o->nregions; g++) {
		const clash_overlap_region *rg = &o->regions[g];
		for (size_t l = 0; l < rg->npolylines; l++) {
			if (!o->truncated)
				ck_assert(rg->closed[l]);
			for (size_t i = rg->polyline[l]; i < rg->polyline[l + 1]; i++) {
				const double *p = rg->points + 3 * i;
				const double d = sqrt((p[0] - c[0]) * (p[0] - c[0]) +
				                      (p[1] - c[1]) * (p[1] - c[1]) +
				                      (p[2] - c[2]) * (p[2] - c[2]));
				ck_assert_msg(fabs(d - r) <= tol, "point %zu off the sphere by %g",
				              i, d - r);
				for (int k = 0; k < 3; k++)
					ck_assert_msg(
						p[k] >= rg->lo[k] - tol && p[k] <= rg->hi[k] + tol,
						"point %zu (%g %g %g) outside its region's box on axis %d: "
						"%g .. %g",
						i, p[0], p[1], p[2], k, rg->lo[k], rg->hi[k]);
				const double best = mesh_gap2(v, mesh, p);
				ck_assert_msg(sqrt(best) <= tol, "point %zu off the mesh by %g", i,
				              sqrt(best));
			}
		}
	}
}

static clash_overlap *report(const clash_shape *a, const clash_shape *b)
{
	return report_of(a, b, NULL);
}

/* The volume against the scale of r^3 * 1e-6 near 0 (report_check.h). */
static void check_volume(const clash_overlap *o, double want, double r)
{
	check_report_volume(o, want, 1e-6 * r * r * r);
}

START_TEST(ball_inside_box)
{
	grid v;
	box_grid(&v, (double[]){-3, -4, -5}, (double[]){3, 4, 5});
	clash_shape b;
	const double c[3] = {0.5, -0.25, 1.0}, r = 1.5;
	ball_shape(&b, c, r);
	clash_overlap *o = report(&v.s, &b);
	check_volume(o, 4.0 / 3.0 * M_PI * r * r * r, r);
	ck_assert_uint_eq(o->nregions, 1);
	ck_assert_int_eq(o->regions[0].kind, CLASH_CONTACT_B_IN_A);
	ck_assert_uint_eq(o->regions[0].npolylines, 0);
	ck_assert_uint_eq(o->regions[0].ntriangles_a, 0);
	for (int k = 0; k < 3; k++) {
		ck_assert(fabs(o->regions[0].lo[k] - (c[k] - r)) < 1e-12);
		ck_assert(fabs(o->regions[0].hi[k] - (c[k] + r)) < 1e-12);
	}
	clash_overlap_free(o);
	/* the other way round */
	o = report(&b, &v.s);
	check_volume(o, 4.0 / 3.0 * M_PI * r * r * r, r);
	ck_assert_int_eq(o->regions[0].kind, CLASH_CONTACT_A_IN_B);
	clash_overlap_free(o);
	grid_free(&v);
}
END_TEST

/* A ball through one face of a large box: a spherical cap (and its
 * complement when the centre is inside). */
START_TEST(ball_cut_by_face)
{
	grid v;
	box_grid(&v, (double[]){-10, -10, -10}, (double[]){0, 10, 10});
	const double r = 2.0;
	for (int i = -9; i <= 9; i += 2) {
		const double d = 0.21 * i; /* centre at x = d: depth of the cap r - d */
		const double c[3] = {d, 0.3, -0.7};
		clash_shape b;
		ball_shape(&b, c, r);
		clash_overlap *o = report(&v.s, &b);
		const double hc = r + fmin(d, 0) - fmax(d, 0); /* cap height on the smaller side */
		const double cap = M_PI * hc * hc * (3 * r - hc) / 3;
		const double want = d > 0 ? cap : 4.0 / 3.0 * M_PI * r * r * r - cap;
		check_volume(o, want, r);
		ck_assert_uint_eq(o->nregions, 1);
		ck_assert_int_eq(o->regions[0].kind, CLASH_CONTACT_SURFACES);
		ck_assert_uint_eq(o->regions[0].npolylines, 1);
		ck_assert(o->regions[0].total_triangles_a >= 1 &&
		          o->regions[0].total_triangles_a <= 2);
		check_curves(o, &v, &v.s, c, r, 1e-11);
		const double rho = d > 0 ? sqrt(r * r - d * d) : r;
		ck_assert(fabs(o->regions[0].lo[1] - (c[1] - rho)) < 1e-12);
		ck_assert(fabs(o->regions[0].hi[2] - (c[2] + rho)) < 1e-12);
		clash_overlap_free(o);
	}
	grid_free(&v);
}
END_TEST

/* Balls about an edge and a corner of a box, in many places, against the
 * quadrature. */
START_TEST(ball_at_edges_and_corners)
{
	grid v;
	const double lo[3] = {-1, -1.5, -2}, hi[3] = {1, 1.5, 2};
	box_grid(&v, lo, hi);
	prng rng = {24};
	for (int n = 0; n < 40; n++) {
		double c[3];
		for (int k = 0; k < 3; k++)
			c[k] = prng_unit(&rng) < 0.5 ? hi[k] + prng_range(&rng, -0.9, 0.9)
			                             : prng_range(&rng, lo[k], hi[k]);
		const double r = prng_range(&rng, 0.2, 1.2);
		clash_shape b;
		ball_shape(&b, c, r);
		clash_overlap *o = report(&v.s, &b);
		const double want = ball_box(c, r, lo, hi);
		if (want > 0) {
			check_volume(o, want, r);
			check_curves(o, &v, &v.s, c, r, 1e-11);
		}
		clash_overlap_free(o);
	}
	grid_free(&v);
}
END_TEST

/* Balls whose circles pass through corners, run along edges or touch
 * faces (the core nudges the centre by 2^-40 of the scale): a unit cube
 * against balls at a corner, an edge, a face, inscribed, and through its
 * twelve edges' midpoints. */
START_TEST(ball_degenerate_contacts)
{
	grid v;
	const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	box_grid(&v, lo, hi);
	const struct {
		double c[3], r, want;
	} cases[] = {{{0, 0, 0}, 1.0, M_PI / 6},
	             {{0, 0, 0}, 0.5, M_PI / 48},
	             {{0.5, 0.5, 0.5}, 0.5, M_PI / 6},
	             {{0.5, 0.5, 0}, 0.5, M_PI / 12},
	             {{0, 0, 0.5}, 0.5, M_PI / 24},
	             {{0.5, 0.5, 0.5}, M_SQRT1_2, -1},
	             {{1, 0.5, 0.5}, 0.5, M_PI / 12},
	             {{0.5, 0.5, 0.5}, M_SQRT1_2 * 1.2247448713915890, -1}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		clash_shape b;
		ball_shape(&b, cases[i].c, cases[i].r);
		clash_overlap *o = report(&v.s, &b);
		const double want = cases[i].want >= 0 ? cases[i].want
		                                       : ball_box(cases[i].c, cases[i].r, lo, hi);
		check_volume(o, want, cases[i].r);
		check_curves(o, &v, &v.s, cases[i].c, cases[i].r, 1e-11);
		clash_overlap_free(o);
	}
	grid_free(&v);
}
END_TEST

/* Non-convex solids: an L (ball in its inner corner), a thin slab (one
 * region with two loops), a U (two regions, one in each arm), the same
 * under a common rigid pose. */
START_TEST(ball_in_nonconvex_solids)
{
	const double xs[4] = {0, 1, 2, 3}, ys[3] = {0, 1, 2}, zs[2] = {0, 1};
	grid l, u, s;
	l_and_u(&l, &u, xs, ys, zs);
	box_grid(&s, (double[]){-5, -5, -0.1}, (double[]){5, 5, 0.1});
	clash_shape b;
	/* L: the ball in the inner corner at (1, 1) */
	const double c1[3] = {1.2, 1.15, 0.45};
	ball_shape(&b, c1, 0.4);
	clash_overlap *o = report(&l.s, &b);
	check_volume(o, ball_grid(c1, 0.4, &l), 0.4);
	ck_assert_uint_eq(o->nregions, 1);
	check_curves(o, &l, &l.s, c1, 0.4, 1e-11);
	clash_overlap_free(o);
	/* slab: one region, two loops */
	const double c2[3] = {0.3, -0.2, 0.05};
	ball_shape(&b, c2, 0.7);
	o = report(&s.s, &b);
	check_volume(o, ball_box(c2, 0.7, (double[]){-5, -5, -0.1}, (double[]){5, 5, 0.1}), 0.7);
	ck_assert_uint_eq(o->nregions, 1);
	ck_assert_uint_eq(o->regions[0].npolylines, 2);
	check_curves(o, &s, &s.s, c2, 0.7, 1e-11);
	clash_overlap_free(o);
	/* U: a ball across the gap between the arms, two regions */
	const double c3[3] = {1.5, 1.75, 0.5};
	ball_shape(&b, c3, 0.6);
	o = report(&u.s, &b);
	check_volume(o, ball_grid(c3, 0.6, &u), 0.6);
	ck_assert_uint_eq(o->nregions, 2);
	check_curves(o, &u, &u.s, c3, 0.6, 1e-11);
	/* each region's volume: its arm's cells and the base below it */
	double arm = ball_box(c3, 0.6, (double[]){0, 1, 0}, (double[]){1, 2, 1});
	ck_assert_msg(fabs(o->regions[0].volume - arm) <= 1e-9 * arm ||
	                      fabs(o->regions[1].volume - arm) <= 1e-9 * arm,
	              "arm %.17g: %.17g %.17g", arm, o->regions[0].volume, o->regions[1].volume);
	clash_overlap_free(o);
	/* the L and its ball under a common rigid pose */
	prng rng = {7};
	for (int n = 0; n < 8; n++) {
		double q[4], t[3], c[3];
		prng_motion(&rng, 5, q, t);
		ck_assert_int_eq(clash_shape_set_quaternion(&l.s, q), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(&l.s, t), CLASH_OK);
		for (int r = 0; r < 3; r++) {
			c[r] = t[r];
			for (int k = 0; k < 3; k++)
				c[r] += l.s.linear[3 * k + r] * c1[k];
		}
		ball_shape(&b, c, 0.4);
		o = report(&l.s, &b);
		check_volume(o, ball_grid(c1, 0.4, &l), 0.4);
		check_curves(o, &l, &l.s, c, 0.4, 1e-11);
		clash_overlap_free(o);
	}
	grid_free(&l);
	grid_free(&u);
	grid_free(&s);
}
END_TEST

/* ---- depth ------------------------------------------------------------------ */

/* The distance from x to the grid solid (0 inside). */
static double grid_dist(const grid *v, const double *x)
{
	double best = INFINITY;
	for (int k = 0; k < v->n[2]; k++)
		for (int j = 0; j < v->n[1]; j++)
			for (int i = 0; i < v->n[0]; i++) {
				if (!grid_at(v, i, j, k))
					continue;
				const int c[3] = {i, j, k};
				double d = 0.0;
				for (int a = 0; a < 3; a++) {
					const double e = fmax(v->g[a][c[a]] - x[a],
					                      x[a] - v->g[a][c[a] + 1]);
					d += e > 0 ? e * e : 0.0;
				}
				best = fmin(best, sqrt(d));
			}
	return best;
}

/* The least t >= 0 with the ball c + t u clear of the solid: marching by
 * the overlap (the distance is 1-Lipschitz, so a step of r - dist never
 * passes the exit). */
static double march(const grid *v, const double *c, double r, const double *u)
{
	double t = 0.0;
	for (int i = 0; i < 100000; i++) {
		const double x[3] = {c[0] + t * u[0], c[1] + t * u[1], c[2] + t * u[2]};
		const double g = r - grid_dist(v, x);
		if (g <= 1e-14 * r)
			return t;
		t += g;
	}
	return t;
}

/* The least over n Fibonacci directions. */
static double brute_depth(const grid *v, const double *c, double r, int n)
{
	double best = INFINITY;
	for (int i = 0; i < n; i++) {
		const double z = 1 - (2 * i + 1.0) / n, s = sqrt(1 - z * z);
		const double u[3] = {s * cos(2.39996322972865332 * i),
		                     s * sin(2.39996322972865332 * i), z};
		best = fmin(best, march(v, c, r, u));
	}
	return best;
}

static void depth_of(const grid *v, const double *c, double r, int swap, clash_result *res)
{
	clash_shape b;
	ball_shape(&b, c, r);
	const int err = swap ? clash_mesh_depth(&b, &v->s, NULL, res)
	                     : clash_mesh_depth(&v->s, &b, NULL, res);
	ck_assert_msg(err == CLASH_OK, "clash_mesh_depth: %s", clash_strerror(err));
	ck_assert(res->intersecting && (res->has & CLASH_HAS_DEPTH));
	/* b moved by depth * normal: the ball (moved by it, or back by it) is
	 * touching or apart */
	const double sg = swap ? -1.0 : 1.0;
	const double x[3] = {c[0] + sg * res->depth * res->depth_normal[0],
	                     c[1] + sg * res->depth * res->depth_normal[1],
	                     c[2] + sg * res->depth * res->depth_normal[2]};
	ck_assert_msg(grid_dist(v, x) >= r - 1e-9 * r,
	              "ball at %g %g %g r %g moved by %g along %g %g %g: still %g deep", c[0], c[1],
	              c[2], r, res->depth, res->depth_normal[0], res->depth_normal[1],
	              res->depth_normal[2], r - grid_dist(v, x));
}

/* An L: a ball sunk h into the long arm's top, far from its edges: r - h
 * up the face's normal, converged; a ball in the inner corner and in the
 * U's slot against the brute force. */
START_TEST(ball_depth)
{
	const double xs[4] = {0, 4, 8, 12}, ys[3] = {0, 4, 8}, zs[2] = {0, 4};
	grid l, u;
	l_and_u(&l, &u, xs, ys, zs);
	for (int swap = 0; swap < 2; swap++) {
		clash_result res;
		const double r = 0.5, h = 0.2;
		const double c[3] = {6.1, 2.2, 4 + r - h};
		depth_of(&l, c, r, swap, &res);
		ck_assert_msg(fabs(res.depth - h) < 1e-12, "depth %.17g", res.depth);
		ck_assert(fabs(res.depth_normal[2] - (swap ? -1 : 1)) < 1e-12);
		ck_assert(res.converged);
	}
	/* the inner corner of the L, the slot of the U, a ball across the
	 * slot's floor */
	const struct {
		const grid *v;
		double c[3], r;
	} cases[] = {{&l, {4.3, 4.2, 2.0}, 0.6},
	             {&l, {3.7, 4.4, 3.8}, 0.9},
	             {&u, {6.0, 5.0, 2.0}, 2.3},
	             {&u, {5.0, 4.3, 3.5}, 1.2},
	             {&u, {4.5, 6.5, 3.9}, 0.8}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		clash_result res;
		depth_of(cases[i].v, cases[i].c, cases[i].r, 0, &res);
		const double ref = brute_depth(cases[i].v, cases[i].c, cases[i].r, 20000);
		if (getenv("CLASH_SPHERE_DEPTH_LOG"))
			fprintf(stderr, "case %zu: depth %.17g converged %d, brute force %.17g\n",
			        i, res.depth, res.converged, ref);
		ck_assert_msg(res.depth <= ref * (1 + 1e-9) && res.depth >= 0.97 * ref,
		              "case %zu: depth %.17g, brute force %.17g", i, res.depth, ref);
	}
	grid_free(&l);
	grid_free(&u);
}
END_TEST

static Suite *sphere_mesh_overlap_suite(void)
{
	Suite *s = suite_create("sphere_mesh_overlap");
	ck_case(s, "volume_and_curves", 60,
	        CK_TESTS(ball_inside_box, ball_cut_by_face, ball_at_edges_and_corners,
	                 ball_degenerate_contacts, ball_in_nonconvex_solids));
	return s;
}

static Suite *sphere_mesh_depth_suite(void)
{
	Suite *s = suite_create("sphere_mesh_depth");
	ck_case(s, "depth", 120, CK_TESTS(ball_depth));
	return s;
}

CHECK_SUITE(sphere_mesh_overlap_suite)
CHECK_SUITE(sphere_mesh_depth_suite)
