/*
 * check_winding.c — the fast generalized winding number of a mesh
 * (core/winding.h) against the brute-force sum of every triangle's solid
 * angle (tests/winding_ref.h), and against the integers a closed mesh
 * must give: a box and a sphere-like mesh, the same with one triangle
 * removed, with their seams duplicated 1e-15 away, with a flipped face,
 * two overlapping cubes in one mesh, an open sheet, the far field's order
 * on a curved patch, and a 99 372-triangle mesh (timings printed, never
 * asserted).
 *
 * Tolerance: winding_number returns a bound on its far-field error,
 * proven (core/winding.c) up to rounding, so the fast value must lie
 * within that bound plus the rounding of a sum of n solid angles (32 n
 * ulps, n the triangles) of the brute force, at every tau tried; with tau
 * 0 (no approximation) within the rounding alone.  The test needs no
 * tolerance of its own to tune, and a wrong far field, bound or tree walk
 * fails it.  A closed mesh's brute-force value must be its integer within
 * 1e-9 (the brute force's own check); the inside test must agree with
 * |brute force| >= 1/2 wherever that is 1e-9 or more from 1/2.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clash.h"
#include "cube_lattice.h"
#include "mesh_query.h"
#include "prng.h"
#include "winding.h"
#include "winding_ref.h"

/* Each cluster's error bound: the inside test's first (1e-3), looser,
 * tighter, and none (the exact sum by the tree). */
static const double TAUS[] = {1e-3, 1e-2, 1e-5, 1e-7, 0.0};
#define NTAUS ((int)(sizeof TAUS / sizeof TAUS[0]))

typedef struct wmesh {
	double *pos;
	uint32_t *idx;
	size_t nv, nt;
	void *store, *far;
	clash_mesh *m;
	double *tris; /* 9 per triangle, input order: the brute force's */
} wmesh;

static void wm_alloc(wmesh *w, size_t nv, size_t nt)
{
	memset(w, 0, sizeof *w);
	w->pos = malloc(3 * nv * sizeof *w->pos);
	w->idx = malloc(3 * nt * sizeof *w->idx);
	ck_assert(w->pos && w->idx);
}

static void wm_build(wmesh *w)
{
	size_t size = clash_mesh_size(w->nv, w->nt);
	ck_assert(size > 0);
	w->store = malloc(size);
	ck_assert(w->store);
	ck_assert_int_eq(clash_mesh_build(w->store, size, w->pos, w->nv, w->idx, w->nt, &w->m),
	                 CLASH_OK);
	size_t fs = winding_far_size(w->m);
	w->far = malloc(fs ? fs : 1);
	ck_assert(w->far);
	ck_assert_int_eq(winding_far_build(w->m, w->far, fs), CLASH_OK);
	w->tris = malloc(9 * w->nt * sizeof *w->tris);
	ck_assert(w->tris);
	for (size_t i = 0; i < w->nt; i++)
		for (int c = 0; c < 3; c++)
			memcpy(w->tris + 9 * i + 3 * c, w->pos + 3 * w->idx[3 * i + c],
			       3 * sizeof(double));
}

static void wm_free(wmesh *w)
{
	free(w->pos);
	free(w->idx);
	free(w->store);
	free(w->far);
	free(w->tris);
}

/* How the lattice points of a cube's surface are placed. */
typedef struct lattice {
	int n;               /* cells along an edge */
	double lo[3], hi[3]; /* a box; or, when sphere, the unit sphere */
	int sphere;
	double bump; /* the sphere's radius 1 + bump sin 4x sin 4y sin 4z */
	int unweld;  /* each face its own vertices, its border moved 1e-15 */
} lattice;

static void place(const lattice *l, const int *ijk, int face, double *p)
{
	double s = 0.0;
	for (int k = 0; k < 3; k++) {
		double u = (double)ijk[k] / l->n;
		p[k] = l->sphere ? 2.0 * u - 1.0 : l->lo[k] + (l->hi[k] - l->lo[k]) * u;
		s += p[k] * p[k];
	}
	if (l->sphere) {
		s = sqrt(s);
		double r =
			1.0 + l->bump * sin(4 * p[0] / s) * sin(4 * p[1] / s) * sin(4 * p[2] / s);
		for (int k = 0; k < 3; k++)
			p[k] *= r / s;
	}
	if (l->unweld)
		for (int k = 0; k < 3; k++)
			if (ijk[(face + 1) % 3] % l->n == 0 || ijk[(face + 2) % 3] % l->n == 0)
				p[k] += 1e-15 * ((face + k) % 3 - 1);
}

static uint32_t add_vertex(wmesh *w, const double *p)
{
	memcpy(w->pos + 3 * w->nv, p, 3 * sizeof *p);
	return (uint32_t)w->nv++;
}

static void add_tri(wmesh *w, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t *t = w->idx + 3 * w->nt++;
	t[0] = a;
	t[1] = b;
	t[2] = c;
}

typedef struct lattice_build {
	wmesh *w;
	const lattice *l;
} lattice_build;

static uint32_t lattice_point(void *ctx, const int ijk[3], int face)
{
	const lattice_build *lb = ctx;
	double p[3];
	place(lb->l, ijk, face, p);
	return add_vertex(lb->w, p);
}

static void lattice_tri(void *ctx, uint32_t a, uint32_t b, uint32_t c)
{
	add_tri(((lattice_build *)ctx)->w, a, b, c);
}

/* The cube's surface lattice, outward: 12 n^2 triangles appended to w
 * (room for 6 (n + 1)^2 vertices and those triangles). */
static void add_lattice(wmesh *w, const lattice *l)
{
	const size_t side = (size_t)l->n + 1;
	uint32_t *map = malloc(side * side * side * sizeof *map);
	ck_assert(map);
	lattice_build lb = {w, l};
	cube_lattice(l->n, l->unweld, map, &lb, lattice_point, lattice_tri);
	free(map);
}

static void lattice_mesh(wmesh *w, const lattice *l, size_t copies)
{
	wm_alloc(w, copies * 6 * (size_t)(l->n + 1) * (l->n + 1),
	         copies * 12 * (size_t)l->n * l->n);
	for (size_t i = 0; i < copies; i++)
		add_lattice(w, l + i);
}

static const lattice BOX = {6, {-1, -1, -1}, {1, 1, 1}, 0, 0.0, 0};
static const lattice SPHERE = {8, {0}, {0}, 1, 0.0, 0};

/* Fast against brute force at p: within the bound at each tau, exact
 * (within rounding) at tau 0, and the inside test as |brute| >= 1/2.
 * Returns the brute force. */
static double agrees(const wmesh *w, const double *p)
{
	const double ref = winding_ref(w->tris, w->nt, p);
	const double slack = 32 * DBL_EPSILON * (double)w->nt + 1e-14;
	for (int k = 0; k < NTAUS; k++) {
		double bound;
		const double fast = winding_number(w->m, w->far, p, TAUS[k], &bound);
		ck_assert_msg(fabs(fast - ref) <= bound + slack,
		              "tau %g at (%g %g %g): %.17g vs %.17g, bound %g", TAUS[k], p[0], p[1],
		              p[2], fast, ref, bound);
		if (TAUS[k] == 0.0)
			ck_assert(bound == 0.0);
	}
	if (fabs(fabs(ref) - 0.5) > 1e-9)
		ck_assert_int_eq(winding_inside(w->m, w->far, p), fabs(ref) >= 0.5);
	return ref;
}

static void random_point(prng *g, double lo, double hi, double *p)
{
	for (int k = 0; k < 3; k++)
		p[k] = prng_range(g, lo, hi);
}

/* A closed mesh's brute-force value is an integer: returns it. */
static int integer_of(double ref)
{
	ck_assert_msg(fabs(ref - nearbyint(ref)) <= 1e-9, "not an integer: %.17g", ref);
	return (int)nearbyint(ref);
}

START_TEST(closed_box_and_sphere_wind_once)
{
	prng g = {11};
	for (int s = 0; s < 2; s++) {
		wmesh w;
		lattice_mesh(&w, s ? &SPHERE : &BOX, 1);
		wm_build(&w);
		ck_assert_int_eq(clash_mesh_is_solid(w.m), 1);
		int inside = 0;
		for (int i = 0; i < 300; i++) {
			double p[3];
			random_point(&g, -1.5, 1.5, p);
			const int wi = integer_of(agrees(&w, p));
			double r = s ? sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
			             : fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2])));
			/* The sphere-like mesh lies between radii 0.97 and 1. */
			if (r < 0.97 || r > 1.0)
				ck_assert_int_eq(wi, r < 1.0);
			ck_assert(wi == 0 || wi == 1);
			ck_assert_int_eq(mesh_point_inside(w.m, p, NULL), wi); /* today's parity */
			inside += wi;
		}
		ck_assert(inside > 30 && inside < 270);
		wm_free(&w);
	}
}
END_TEST

/* The closed mesh of l, built, and that of `copy` into w, to be made
 * defective before its build. */
static void closed_and_copy(const lattice *l, const lattice *copy, wmesh *closed, wmesh *w)
{
	lattice_mesh(closed, l, 1);
	wm_build(closed);
	lattice_mesh(w, copy, 1);
}

/* The closed mesh's integer at p (its brute force). */
static int closed_value(const wmesh *closed, const double *p)
{
	return integer_of(winding_ref(closed->tris, closed->nt, p));
}

START_TEST(one_triangle_removed_stays_inside)
{
	/* w(leaky) = w(closed) - w(missing triangle), and a triangle subtends
	 * less than a hemisphere (|w| < 1/2): the 1/2 rule decides every
	 * point as the closed mesh does. */
	prng g = {12};
	for (int s = 0; s < 2; s++) {
		wmesh closed, w;
		closed_and_copy(s ? &SPHERE : &BOX, s ? &SPHERE : &BOX, &closed, &w);
		const size_t drop = (size_t)prng_int(&g, 0, (int)w.nt - 1);
		memcpy(w.idx + 3 * drop, w.idx + 3 * (w.nt - 1), 3 * sizeof *w.idx);
		w.nt--;
		wm_build(&w);
		clash_mesh_info info;
		ck_assert_int_eq(clash_mesh_info_get(w.m, &info), CLASH_OK);
		ck_assert_int_eq(info.closed, 0);
		ck_assert_uint_eq(info.boundary_edges, 3);
		ck_assert_int_eq(info.solid, 1); /* its leak is small */
		ck_assert(info.leak > 0.0 && info.leak < 0.15);
		int by_ray = 0;
		for (int i = 0; i < 300; i++) {
			double p[3];
			random_point(&g, -1.5, 1.5, p);
			const int want = closed_value(&closed, p);
			const double ref = agrees(&w, p);
			ck_assert(want ? ref > 0.5 : fabs(ref) < 0.5);
			ck_assert_int_eq(winding_inside(w.m, w.far, p), want);
			/* The ray over the mesh capped at its hole, away from it. */
			const int c = mesh_point_inside_open(w.m, p, NULL);
			if (c >= 0) {
				ck_assert_int_eq(c, want);
				by_ray++;
			}
		}
		ck_assert_int_ge(by_ray, 200);
		/* Right at the hole: the centre of the missing triangle, moved
		 * a little inward, is still inside. */
		double c[3] = {0, 0, 0};
		for (int k = 0; k < 9; k++)
			c[k % 3] += closed.tris[9 * drop + k] * (0.98 / 3.0);
		ck_assert_int_eq(closed_value(&closed, c), 1);
		ck_assert(agrees(&w, c) > 0.5);
		ck_assert_int_eq(winding_inside(w.m, w.far, c), 1);
		wm_free(&closed);
		wm_free(&w);
	}
}
END_TEST

START_TEST(seams_duplicated_1e15_away_wind_as_welded)
{
	prng g = {13};
	for (int s = 0; s < 2; s++) {
		lattice l = s ? SPHERE : BOX;
		wmesh welded, w;
		l.unweld = 1;
		closed_and_copy(s ? &SPHERE : &BOX, &l, &welded, &w);
		wm_build(&w);
		ck_assert_uint_gt(w.nv, welded.nv);
		ck_assert_int_eq(clash_mesh_is_solid(w.m), 1); /* it winds as a solid */
		for (int i = 0; i < 300; i++) {
			double p[3];
			random_point(&g, -1.5, 1.5, p);
			const int want = closed_value(&welded, p);
			ck_assert(fabs(agrees(&w, p) - want) <= 1e-9);
			ck_assert_int_eq(winding_inside(w.m, w.far, p), want);
		}
		wm_free(&welded);
		wm_free(&w);
	}
}
END_TEST

START_TEST(flipped_face_is_turned_back)
{
	/* The build turns the face back to agree with its neighbours: the
	 * mesh then winds exactly as the closed one, which the brute force of
	 * the closed mesh gives. */
	prng g = {14};
	for (int s = 0; s < 2; s++) {
		wmesh closed, w;
		closed_and_copy(s ? &SPHERE : &BOX, s ? &SPHERE : &BOX, &closed, &w);
		uint32_t *t = w.idx + 3 * (size_t)prng_int(&g, 0, (int)w.nt - 1), x = t[1];
		t[1] = t[2];
		t[2] = x;
		wm_build(&w);
		clash_mesh_info info;
		ck_assert_int_eq(clash_mesh_info_get(w.m, &info), CLASH_OK);
		ck_assert_int_eq(info.closed, 1);
		ck_assert_int_eq(info.solid, 1);
		ck_assert_uint_eq(info.flipped, 1);
		ck_assert_uint_eq(info.boundary_edges, 0);
		for (int i = 0; i < 300; i++) {
			double p[3];
			random_point(&g, -1.5, 1.5, p);
			const int want = closed_value(&closed, p);
			const double fast = winding_number(w.m, w.far, p, 0.0, NULL);
			if (fabs(fast - want) > 1e-9)
				ck_abort_msg("at (%g %g %g): %.17g, closed %d", p[0], p[1], p[2],
				             fast, want);
			ck_assert_int_eq(winding_inside(w.m, w.far, p), want);
		}
		wm_free(&closed);
		wm_free(&w);
	}
}
END_TEST

START_TEST(overlapping_cubes_wind_twice)
{
	/* Two closed cubes exported as one mesh: parity would call their
	 * overlap outside; the winding number is 2 there. */
	const lattice l[2] = {{4, {0, 0, 0}, {2, 2, 2}, 0, 0.0, 0},
	                      {4, {1, 1, 1}, {3, 3, 3}, 0, 0.0, 0}};
	wmesh w;
	lattice_mesh(&w, l, 2);
	wm_build(&w);
	prng g = {15};
	int twice = 0;
	for (int i = 0; i < 400; i++) {
		double p[3];
		random_point(&g, -0.5, 3.5, p);
		int want = 0;
		for (int c = 0; c < 2; c++)
			want += p[0] > l[c].lo[0] && p[0] < l[c].hi[0] && p[1] > l[c].lo[1] &&
			        p[1] < l[c].hi[1] && p[2] > l[c].lo[2] && p[2] < l[c].hi[2];
		ck_assert_int_eq(integer_of(agrees(&w, p)), want);
		ck_assert_int_eq(winding_inside(w.m, w.far, p), want > 0);
		twice += want == 2;
	}
	ck_assert_int_gt(twice, 0);
	wm_free(&w);
}
END_TEST

START_TEST(open_sheet_encloses_nothing)
{
	/* A plane patch subtends less than a hemisphere from any point off
	 * it: |w| < 1/2 everywhere, tending to 1/2 at the sheet, so the 1/2
	 * rule never calls a point inside it; a size away, |w| < 0.2. */
	wmesh w;
	wm_alloc(&w, 81, 128);
	uint32_t v[9][9];
	for (int i = 0; i < 9; i++)
		for (int j = 0; j < 9; j++)
			v[i][j] = add_vertex(&w, (double[3]){-1 + i / 4.0, -1 + j / 4.0, 0});
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			add_tri(&w, v[i][j], v[i + 1][j], v[i + 1][j + 1]);
			add_tri(&w, v[i][j], v[i + 1][j + 1], v[i][j + 1]);
		}
	wm_build(&w);
	ck_assert_int_eq(clash_mesh_is_solid(w.m), 0);
	prng g = {16};
	double most = 0.0;
	for (int i = 0; i < 400; i++) {
		const double h = pow(10.0, prng_range(&g, -6, 0.5)) * (i % 2 ? 1 : -1);
		double p[3] = {prng_range(&g, -1.2, 1.2), prng_range(&g, -1.2, 1.2), h};
		const double ref = agrees(&w, p);
		ck_assert(fabs(ref) < 0.5);
		ck_assert_int_eq(winding_inside(w.m, w.far, p), 0);
		if (fabs(h) >= 1.0)
			ck_assert(fabs(ref) < 0.2);
		most = fmax(most, fabs(ref));
	}
	ck_assert(most > 0.49); /* the points came close to the sheet */
	wm_free(&w);
}
END_TEST

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

START_TEST(large_mesh_tree_against_brute_force)
{
	lattice l = SPHERE;
	l.n = 91; /* 99 372 triangles */
	l.bump = 0.15;
	wmesh w;
	lattice_mesh(&w, &l, 1);
	double t0 = now();
	wm_build(&w);
	double t_build = now() - t0;
	ck_assert_int_eq(clash_mesh_is_solid(w.m), 1);
	prng g = {17};
	enum {
		N = 40
	};
	double pts[3 * N], ref[N];
	for (int i = 0; i < N; i++)
		random_point(&g, -1.3, 1.3, pts + 3 * i);
	t0 = now();
	for (int i = 0; i < N; i++)
		ref[i] = winding_ref(w.tris, w.nt, pts + 3 * i);
	double t_brute = (now() - t0) / N;
	double t_fast[NTAUS], worst[NTAUS] = {0}, widest[NTAUS] = {0};
	for (int k = 0; k < NTAUS; k++) {
		t0 = now();
		for (int i = 0; i < N; i++) {
			double bound, f = winding_number(w.m, w.far, pts + 3 * i, TAUS[k], &bound);
			worst[k] = fmax(worst[k], fabs(f - ref[i]));
			widest[k] = fmax(widest[k], bound);
			ck_assert(fabs(f - ref[i]) <= bound + 32 * DBL_EPSILON * (double)w.nt);
		}
		t_fast[k] = (now() - t0) / N;
		/* Far clusters were approximated (else the bound is 0). */
		ck_assert(TAUS[k] == 0.0 || widest[k] > 0.0);
	}
	int inside = 0;
	t0 = now();
	for (int i = 0; i < N; i++) {
		const int want = integer_of(ref[i]);
		ck_assert_int_eq(winding_inside(w.m, w.far, pts + 3 * i), want);
		inside += want;
	}
	double t_inside = (now() - t0) / N;
	/* Today's test, ray parity, says the same on this closed shell. */
	t0 = now();
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(mesh_point_inside(w.m, pts + 3 * i, NULL), integer_of(ref[i]));
	double t_parity = (now() - t0) / N;
	ck_assert(inside > 0 && inside < N);
	printf("winding_number: %zu triangles, mesh build %.1f ms, %.1f bytes/triangle, far field "
	       "%.1f bytes/triangle; per point: brute force %.2f ms, inside test %.3f ms, ray "
	       "parity %.3f ms\n",
	       w.nt, 1e3 * t_build, (double)clash_mesh_bytes(w.m) / (double)w.nt,
	       (double)winding_far_size(w.m) / (double)w.nt, 1e3 * t_brute, 1e3 * t_inside,
	       1e3 * t_parity);
	for (int k = 0; k < NTAUS; k++)
		printf("winding_number: tree, tau %g: %.3f ms, error %.2g, its bound %.2g\n",
		       TAUS[k], 1e3 * t_fast[k], worst[k], widest[k]);
	wm_free(&w);
}
END_TEST

START_TEST(far_field_is_second_order)
{
	/* A curved open patch (its normals do not cancel) seen from ever
	 * farther, its whole tree taken as one expansion (tau huge): a
	 * second-order expansion's error falls as d^-4 (16 times per
	 * doubling), a dipole's only as d^-3 (8 times). */
	wmesh w;
	wm_alloc(&w, 21 * 21, 800);
	for (int i = 0; i <= 20; i++)
		for (int j = 0; j <= 20; j++) {
			const double x = -1 + i / 10.0, y = -1 + j / 10.0;
			add_vertex(&w, (double[3]){x, y, 0.3 * (x * x - y * y) + 0.2 * x});
		}
	for (uint32_t i = 0; i < 20; i++)
		for (uint32_t j = 0; j < 20; j++) {
			const uint32_t a = 21 * i + j, b = a + 21;
			add_tri(&w, a, b, b + 1);
			add_tri(&w, a, b + 1, a + 1);
		}
	wm_build(&w);
	double last = 0.0;
	for (double d = 8; d <= 64; d *= 2) {
		const double p[3] = {0.3 * d, 0.2 * d, d};
		double bound;
		const double err =
			fabs(winding_number(w.m, w.far, p, 1e30, &bound) - agrees(&w, p));
		ck_assert(bound > 0.0 && err <= bound);
		if (last > 0.0)
			ck_assert_msg(last / err > 12.0, "error %g then %g at %g", last, err, d);
		last = err;
	}
	wm_free(&w);
}
END_TEST

START_TEST(huge_coordinates_open_every_node)
{
	/* A sphere-like mesh of radius 1e15 about (3e15, 0, 0): its areas
	 * fit floats, but area times radius does not, so no node may be
	 * expanded (else inf or NaN); the answers stay exact. */
	lattice l = SPHERE;
	l.n = 4;
	wmesh w;
	lattice_mesh(&w, &l, 1);
	for (size_t i = 0; i < 3 * w.nv; i++)
		w.pos[i] = w.pos[i] * 1e15 + (i % 3 == 0 ? 3e15 : 0.0);
	wm_build(&w);
	prng g = {18};
	for (int i = 0; i < 100; i++) {
		double p[3];
		random_point(&g, -6e15, 6e15, p);
		p[0] += 3e15;
		const double ref = agrees(&w, p);
		ck_assert(isfinite(ref));
		integer_of(ref);
	}
	wm_free(&w);
}
END_TEST

START_TEST(far_field_build_errors)
{
	ck_assert_uint_eq(winding_far_size(NULL), 0);
	wmesh w;
	lattice_mesh(&w, &BOX, 1);
	wm_build(&w);
	char buf[64];
	ck_assert_int_eq(winding_far_build(NULL, buf, sizeof buf), CLASH_EINVAL);
	ck_assert_int_eq(winding_far_build(w.m, NULL, 0), CLASH_EINVAL);
	ck_assert_int_eq(winding_far_build(w.m, w.far, winding_far_size(w.m) - 1), CLASH_EINVAL);
	ck_assert_int_eq(winding_far_build(w.m, buf + 1, sizeof buf), CLASH_EINVAL);
	/* tau 0: the exact sum, the same terms as the brute force. */
	double p[3] = {0.1, 0.2, 0.3}, bound = 1;
	ck_assert(fabs(winding_number(w.m, w.far, p, 0.0, &bound) - 1.0) <= 1e-12);
	ck_assert(bound == 0.0);
	/* On a face, within a triangle: the mean of the two sides, 1/2 (the
	 * triangle under p counts 0, the rest subtend a hemisphere). */
	const double on[3] = {0.1, 0.05, 1.0};
	ck_assert(winding_ref_on_surface(w.tris, w.nt, on));
	ck_assert(fabs(winding_number(w.m, w.far, on, 0.0, NULL) - 0.5) <= 1e-12);
	wm_free(&w);
}
END_TEST

static Suite *winding_suite(void)
{
	Suite *s = suite_create("winding_number");
	ck_case(s, "winding_number", 120,
	        CK_TESTS(closed_box_and_sphere_wind_once, one_triangle_removed_stays_inside,
	                 seams_duplicated_1e15_away_wind_as_welded, flipped_face_is_turned_back,
	                 overlapping_cubes_wind_twice, open_sheet_encloses_nothing,
	                 large_mesh_tree_against_brute_force, far_field_is_second_order,
	                 huge_coordinates_open_every_node, far_field_build_errors));
	return s;
}

CHECK_SUITE(winding_suite)
