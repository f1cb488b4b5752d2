/*
 * fuzz_mesh.c — libFuzzer target for malformed meshes on the winding-number
 * path (clash_mesh_build's census, turns and solid rule; core/winding.h).
 * Each input is a recipe: either a soup (up to 32 vertices on a small
 * integer grid, so that repeated, collinear, degenerate and coincident
 * triangles are common, and up to 48 triangles over them), or a closed box
 * lattice damaged by a list of edits (remove, flip, duplicate a triangle,
 * split one into a T-junction, move a vertex off its seam).  Checked
 * against computations made here:
 *   - the build never fails on valid input; the census's counts agree
 *     with a brute-force count of edge uses over the welded corners, and
 *     `closed` with them;
 *   - the built triangles are the input's, each as given or turned over,
 *     as many turned as clash_mesh_info says; when closed, every directed
 *     edge of the turned triangles has its reverse exactly once;
 *   - the leak lies in [0, 1/2], `solid` is closed or leak < 0.15;
 *   - at points the recipe picks (on the grid and between), the fast
 *     winding number is within its bound of the brute force over the
 *     turned triangles, an integer where the mesh is closed, and the
 *     inside test (the tree's, and the ray over the mesh capped at its
 *     holes where that decides) is |brute force| >= 1/2 wherever that is
 *     not at 1/2;
 *   - a ball the recipe places (on grid points, half points and between,
 *     so that it touches corners and edges exactly) gets a clash report
 *     and a depth or CLASH_ENOTSUP, never a crash; a volume that is
 *     finite, at most the ball's when the mesh is a closed solid of
 *     winding numbers 0 and 1 (a box lattice), and a depth >= 0 that
 *     leaves the ball touching or apart from the lattice's cells.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cube_lattice.h"
#include "../tri_list.h"
#include "../winding_ref.h"
#include "clash.h"
#include "mesh.h"
#include "mesh_query.h"
#include "winding.h"

#define MAX_V 64
#define MAX_T 64

#define REQUIRE(cond, what, a, b)                                                            \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_mesh: %s (%.17g, %.17g)\n", what, (double)(a), \
			        (double)(b));                                                \
			abort();                                                             \
		}                                                                            \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input {
	const uint8_t *p;
	size_t n;
} input;

static unsigned u8(input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

typedef struct recipe {
	double pos[3 * MAX_V];
	uint32_t idx[3 * MAX_T];
	size_t nv, nt;
} recipe;

static uint32_t vtx(recipe *r, double x, double y, double z)
{
	return tri_list_vertex(r->pos, &r->nv, x, y, z);
}

static void tri(recipe *r, uint32_t a, uint32_t b, uint32_t c)
{
	tri_list_triangle(r->idx, &r->nt, a, b, c);
}

static void soup(input *in, recipe *r)
{
	const size_t nv = 3 + u8(in) % 30, nt = 1 + u8(in) % 48;
	for (size_t i = 0; i < nv; i++)
		vtx(r, (int)(u8(in) % 9) - 4, (int)(u8(in) % 9) - 4, (int)(u8(in) % 9) - 4);
	for (size_t t = 0; t < nt; t++)
		tri(r, u8(in) % nv, u8(in) % nv, u8(in) % nv);
}

static uint32_t box_point(void *ctx, const int ijk[3], int face)
{
	(void)face;
	return vtx(ctx, ijk[0], ijk[1], ijk[2]);
}

static void recipe_tri(void *ctx, uint32_t a, uint32_t b, uint32_t c)
{
	tri(ctx, a, b, c);
}

/* A box cut n x n a face (n 1..2), outward, welded. */
static void box(input *in, recipe *r)
{
	uint32_t map[4 * 4 * 4];
	cube_lattice(1 + (int)(u8(in) % 2), 0, map, r, box_point, recipe_tri);
}

/* Up to eight edits of a closed box. */
static void damage(input *in, recipe *r)
{
	const unsigned edits = u8(in) % 9;
	for (unsigned e = 0; e < edits && r->nt > 1; e++) {
		const unsigned op = u8(in) % 5;
		const size_t t = u8(in) % r->nt;
		uint32_t *f = r->idx + 3 * t;
		if (op == 0) { /* remove */
			memmove(f, f + 3, 3 * (r->nt - t - 1) * sizeof *f);
			r->nt--;
		} else if (op == 1) { /* flip */
			const uint32_t x = f[1];
			f[1] = f[2];
			f[2] = x;
		} else if (op == 2 && r->nt < MAX_T) { /* duplicate */
			tri(r, f[0], f[1], f[2]);
		} else if (op == 3 && r->nt < MAX_T && r->nv < MAX_V) { /* T-junction */
			const double *a = r->pos + 3 * f[0], *b = r->pos + 3 * f[1];
			const uint32_t m = vtx(r, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]),
			                       0.5 * (a[2] + b[2]));
			const uint32_t b0 = f[1], c0 = f[2];
			f[1] = m;
			tri(r, m, b0, c0);
		} else if (op == 4 && r->nv < MAX_V) { /* a corner off its seam */
			const unsigned c = u8(in) % 3;
			const double *x = r->pos + 3 * f[c];
			const double s = ldexp(1.0, -(int)(u8(in) % 60));
			f[c] = vtx(r, x[0] + s, x[1], x[2]);
		}
	}
}

/* Triangle t's corners (9 doubles). */
static void corners(const recipe *r, size_t t, double *w)
{
	for (int c = 0; c < 3; c++)
		memcpy(w + 3 * c, r->pos + 3 * r->idx[3 * t + c], 3 * sizeof(double));
}

static int same_point(const double *a, const double *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static int degenerate(const double *w)
{
	return same_point(w, w + 3) || same_point(w + 3, w + 6) || same_point(w + 6, w);
}

/* The uses of the undirected edge (a, b) among the non-degenerate
 * triangles of w (9 doubles each). */
static size_t uses(const double *w, size_t nt, const double *a, const double *b)
{
	size_t n = 0;
	for (size_t t = 0; t < nt; t++) {
		const double *f = w + 9 * t;
		if (degenerate(f))
			continue;
		for (int k = 0; k < 3; k++) {
			const double *x = f + 3 * k, *y = f + 3 * ((k + 1) % 3);
			n += (same_point(x, a) && same_point(y, b)) ||
			     (same_point(x, b) && same_point(y, a));
		}
	}
	return n;
}

/* The census by brute force: edges used once and more than twice
 * (each undirected edge counted at its first use). */
static void brute_census(const double *w, size_t nt, size_t *boundary, size_t *nonmanifold)
{
	*boundary = *nonmanifold = 0;
	for (size_t t = 0; t < nt; t++) {
		const double *f = w + 9 * t;
		if (degenerate(f))
			continue;
		for (int k = 0; k < 3; k++) {
			const double *a = f + 3 * k, *b = f + 3 * ((k + 1) % 3);
			/* Counted at its first use: none before (t, k). */
			const size_t before = uses(w, t, a, b);
			size_t here = 0;
			for (int j = 0; j < k; j++) {
				const double *x = f + 3 * j, *y = f + 3 * ((j + 1) % 3);
				here += (same_point(x, a) && same_point(y, b)) ||
				        (same_point(x, b) && same_point(y, a));
			}
			if (before || here)
				continue;
			const size_t n = uses(w, nt, a, b);
			*boundary += n == 1;
			*nonmanifold += n > 2;
		}
	}
}

static int cmp9(const void *x, const void *y)
{
	const double *a = x, *b = y;
	for (int k = 0; k < 9; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int cmp3(const double *a, const double *b)
{
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* As oriented_key, the least corner by cmp3. */
static void key_of(const double *f, int turned, double *key)
{
	double g[9];
	for (int c = 0; c < 3; c++)
		memcpy(g + 3 * c, f + 3 * (turned ? (3 - c) % 3 : c), 3 * sizeof(double));
	int best = 0;
	for (int s = 1; s < 3; s++)
		if (cmp3(g + 3 * s, g + 3 * best) < 0)
			best = s;
	for (int c = 0; c < 3; c++)
		memcpy(key + 3 * c, g + 3 * ((best + c) % 3), 3 * sizeof(double));
}

/* The built triangles are the given ones, each as given or turned over
 * (equal as multisets of unoriented triangles); returns how many of the
 * non-degenerate given ones appear only turned (the multiset difference
 * of oriented ones). */
static size_t turned_count(size_t nt, const double *built, const double *given)
{
	static double kb[9 * MAX_T], kg[9 * MAX_T], ob[9 * MAX_T], og[9 * MAX_T];
	size_t n = 0, nb = 0;
	for (size_t t = 0; t < nt; t++) {
		double x[9], y[9];
		key_of(built + 9 * t, 0, x);
		key_of(built + 9 * t, 1, y);
		memcpy(kb + 9 * t, cmp9(x, y) <= 0 ? x : y, sizeof x);
		key_of(given + 9 * t, 0, x);
		key_of(given + 9 * t, 1, y);
		memcpy(kg + 9 * t, cmp9(x, y) <= 0 ? x : y, sizeof x);
		if (!degenerate(built + 9 * t))
			key_of(built + 9 * t, 0, ob + 9 * nb++);
		if (!degenerate(given + 9 * t))
			key_of(given + 9 * t, 0, og + 9 * n++);
	}
	REQUIRE(nb == n, "degenerate triangles", nb, n);
	qsort(kb, nt, 9 * sizeof(double), cmp9);
	qsort(kg, nt, 9 * sizeof(double), cmp9);
	REQUIRE(memcmp(kb, kg, 9 * nt * sizeof(double)) == 0, "built triangles are not the input's",
	        nt, 0);
	qsort(ob, n, 9 * sizeof(double), cmp9);
	qsort(og, n, 9 * sizeof(double), cmp9);
	size_t i = 0, j = 0, missing = 0;
	while (j < n) {
		const int c = i < n ? cmp9(ob + 9 * i, og + 9 * j) : 1;
		if (c == 0)
			i++, j++;
		else if (c < 0)
			i++;
		else
			j++, missing++;
	}
	return missing;
}

/* When closed: every directed edge's reverse is used exactly once. */
static void check_closed(const double *w, size_t nt)
{
	for (size_t t = 0; t < nt; t++) {
		const double *f = w + 9 * t;
		if (degenerate(f))
			continue;
		for (int k = 0; k < 3; k++) {
			const double *a = f + 3 * k, *b = f + 3 * ((k + 1) % 3);
			size_t rev = 0;
			for (size_t s = 0; s < nt; s++) {
				const double *g = w + 9 * s;
				if (degenerate(g))
					continue;
				for (int j = 0; j < 3; j++)
					rev += same_point(g + 3 * j, b) &&
					       same_point(g + 3 * ((j + 1) % 3), a);
			}
			REQUIRE(rev == 1, "closed, but an edge's reverse is used", rev, t);
		}
	}
}

static void check_points(input *in, const clash_mesh *m, const double *w, size_t nt,
                         const clash_mesh_info *info)
{
	/* The build keeps a far field only for an open mesh: one of ours. */
	static uint64_t far[MAX_T * 8];
	REQUIRE(winding_far_build(m, far, sizeof far) == CLASH_OK, "far field", winding_far_size(m),
	        sizeof far);
	REQUIRE(info->closed ? m->far == NULL : m->far != NULL, "the build's far field", 0, 0);
	const unsigned n = 1 + u8(in) % 8;
	for (unsigned i = 0; i < n; i++) {
		double p[3];
		for (int k = 0; k < 3; k++)
			p[k] = ((int)(u8(in) % 41) - 20) / 4.0 + ((u8(in) & 1) ? 0.125 : 0.0);
		if (winding_ref_on_surface(w, nt, p))
			continue;
		const double ref = winding_ref(w, nt, p);
		for (int k = 0; k < 2; k++) {
			double bound;
			const double v = winding_number(m, far, p, k ? 0.0 : 1e-3, &bound);
			REQUIRE(isfinite(v) && fabs(v - ref) <= bound + 1e-12,
			        "fast vs brute force", v, ref);
		}
		if (info->closed)
			REQUIRE(fabs(ref - nearbyint(ref)) < 1e-9, "closed, but not an integer",
			        ref, 0);
		if (fabs(fabs(ref) - 0.5) > 1e-9) {
			REQUIRE(winding_inside(m, far, p) == (fabs(ref) >= 0.5), "inside test", ref,
			        0);
			/* The capped ray, where it decides (away from the holes). */
			const int c = mesh_point_inside_open(m, p, NULL);
			REQUIRE(c < 0 || c == (fabs(ref) >= 0.5), "capped ray", ref, c);
			REQUIRE(!info->closed || c == -1, "capped ray on a closed mesh", c, 0);
		}
	}
}

/* A ball against the mesh: its report and its depth. */
static void check_ball(input *in, const clash_mesh *m, const clash_mesh_info *info)
{
	clash_shape ms, ball;
	REQUIRE(clash_shape_init_mesh(&ms, m) == CLASH_OK, "mesh shape", 0, 0);
	const double c[3] = {((int)(u8(in) % 33) - 16) / 4.0, ((int)(u8(in) % 33) - 16) / 4.0,
	                     ((int)(u8(in) % 33) - 16) / 4.0};
	const double r = (1 + u8(in) % 16) / 4.0;
	REQUIRE(clash_shape_init_primitive(&ball, CLASH_KIND_SPHERE, (double[]){r, 0, 0}) ==
	                CLASH_OK,
	        "ball", 0, 0);
	REQUIRE(clash_shape_set_translation(&ball, c) == CLASH_OK, "ball pose", 0, 0);
	clash_overlap *o = NULL;
	int rc = clash_overlap_get(&ms, &ball, NULL, &o);
	REQUIRE(rc == CLASH_OK || rc == CLASH_ENOTSUP, "ball report", rc, 0);
	if (rc == CLASH_OK) {
		REQUIRE(isfinite(o->volume), "ball volume finite", 0, 0);
		REQUIRE(o->volume <= 4.0 / 3.0 * M_PI * r * r * r * (1 + 1e-9) + 1e-12 ||
		                !info->closed || info->nonmanifold_edges ||
		                info->self_intersections,
		        "ball volume at most the ball's", (size_t)(1e6 * o->volume),
		        (size_t)(1e6 * r));
		for (size_t g = 0; g < o->nregions; g++)
			for (size_t i = 0; i < 3 * o->regions[g].polyline[o->regions[g].npolylines];
			     i++)
				REQUIRE(isfinite(o->regions[g].points[i]), "curve point finite", g,
				        i);
	}
	clash_overlap_free(o);
	clash_result res;
	rc = clash_mesh_depth(&ms, &ball, NULL, &res);
	REQUIRE(rc == CLASH_OK || rc == CLASH_ENOTSUP, "ball depth", rc, 0);
	if (rc == CLASH_OK && (res.has & CLASH_HAS_DEPTH))
		REQUIRE(isfinite(res.depth) && res.depth >= 0, "ball depth finite", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	input in = {data, size};
	static recipe r;
	memset(&r, 0, sizeof r);
	if (u8(&in) & 1) {
		soup(&in, &r);
	} else {
		box(&in, &r);
		damage(&in, &r);
	}
	static uint64_t store[1 << 16];
	const size_t need = clash_mesh_size(r.nv, r.nt);
	REQUIRE(need > 0 && need <= sizeof store, "mesh storage", need, sizeof store);
	clash_mesh *m;
	int rc = clash_mesh_build(store, sizeof store, r.pos, r.nv, r.idx, r.nt, &m);
	REQUIRE(rc == CLASH_OK, "clash_mesh_build refused a valid mesh", rc, r.nt);
	clash_mesh_info info;
	REQUIRE(clash_mesh_info_get(m, &info) == CLASH_OK, "clash_mesh_info_get", 0, 0);

	static double given[9 * MAX_T];
	for (size_t t = 0; t < r.nt; t++)
		corners(&r, t, given + 9 * t);
	const double *built = mesh_tri(m, 0);
	size_t boundary, nonmanifold;
	brute_census(given, r.nt, &boundary, &nonmanifold);
	REQUIRE(info.boundary_edges == boundary, "boundary edges", info.boundary_edges, boundary);
	REQUIRE(info.nonmanifold_edges == nonmanifold, "non-manifold edges", info.nonmanifold_edges,
	        nonmanifold);
	REQUIRE(!info.closed || (!boundary && !nonmanifold), "closed with open edges", boundary,
	        nonmanifold);
	const size_t turned = turned_count(r.nt, built, given);
	REQUIRE(turned == info.flipped, "turned triangles", turned, info.flipped);
	if (info.closed)
		check_closed(built, r.nt);
	REQUIRE(info.leak >= 0.0 && info.leak <= 0.5, "leak", info.leak, 0);
	REQUIRE(info.solid == (info.closed || info.leak < 0.15), "the solid rule", info.solid,
	        info.leak);
	check_points(&in, m, built, r.nt, &info);
	check_ball(&in, m, &info);
	return 0;
}
