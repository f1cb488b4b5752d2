/*
 * check_weld.c — the tolerance weld of a mesh's vertices (core/weld.c,
 * clash_mesh_build_welded).
 *
 * The clusters are compared with an independent O(n^2) clustering (every
 * pair tested, joined in a plain union-find) on random point sets with
 * planted near-duplicates, far pairs and chains; meshes whose seam
 * vertices are duplicated 1e-15 and 1e-9 of their size away are compared,
 * answer by answer and bit by bit, with the mesh whose seams share their
 * vertices (built by clash_mesh_build); weld 0 is compared, tree and
 * corners, with clash_mesh_build.  On the wire (a clashd): the same
 * meshes uploaded and sent inline answer byte for byte alike, the weld's
 * setting, member and import parameter do what openapi.yaml says.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "clash.h"
#include "http_harness.h"
#include "mesh.h"
#include "prng.h"
#include "textbuf.h"
#include "tri_list.h"
#include "weld.h"

/* ---- the oracle ------------------------------------------------------------ */

static size_t root_of(size_t *parent, size_t x)
{
	while (parent[x] != x)
		x = parent[x];
	return x;
}

/* The rule of weld.h by brute force: every pair within tol (the same
 * distance test: in units of tol, squared, at most 1; tol 0: equal
 * coordinates) joined, clusters numbered by their first vertex; *nu. */
static uint32_t *oracle_clusters(const double *p, size_t nv, double tol, size_t *nu)
{
	size_t *parent = malloc(nv * sizeof *parent);
	uint32_t *label = malloc(nv * sizeof *label);
	ck_assert(parent && label);
	for (size_t v = 0; v < nv; v++)
		parent[v] = v;
	for (size_t a = 0; a < nv; a++)
		for (size_t b = 0; b < a; b++) {
			const double *x = p + 3 * a, *y = p + 3 * b;
			int join;
			if (tol == 0.0) {
				join = x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
			} else {
				double d = 0;
				for (int k = 0; k < 3; k++)
					d += ((x[k] - y[k]) / tol) * ((x[k] - y[k]) / tol);
				join = d <= 1.0;
			}
			size_t ra = root_of(parent, a), rb = root_of(parent, b);
			if (join && ra != rb)
				parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
		}
	size_t n = 0;
	for (size_t v = 0; v < nv; v++) {
		size_t r = root_of(parent, v);
		label[v] = r == v ? (uint32_t)n++ : label[r];
	}
	free(parent);
	*nu = n;
	return label;
}

static size_t slots_for(size_t nv)
{
	size_t s = 16;
	while (s < 2 * nv)
		s *= 2;
	return s;
}

/* weld_join against the oracle: the same numbers vertex by vertex, and
 * each cluster's first vertex the least of its vertices. */
static void compare_with_oracle(const double *p, size_t nv, double tol, const char *what)
{
	size_t nslots = slots_for(nv), nexp;
	uint32_t *slots = malloc(nslots * sizeof *slots), *first = malloc(nv * sizeof *first),
		 *next = malloc(nv * sizeof *next), *parent = malloc(nv * sizeof *parent),
		 *canon = malloc(nv * sizeof *canon);
	ck_assert(slots && first && next && parent && canon);
	weld_scratch s = {slots, nslots, first, next, parent};
	size_t nu = weld_join(p, nv, tol, &s, canon);
	uint32_t *want = oracle_clusters(p, nv, tol, &nexp);
	ck_assert_msg(nu == nexp, "%s: %zu clusters, the oracle %zu", what, nu, nexp);
	size_t wrong = 0;
	for (size_t v = 0; v < nv; v++)
		wrong += canon[v] != want[v];
	ck_assert_msg(wrong == 0, "%s: %zu vertices in another cluster than the oracle's", what,
	              wrong);
	for (size_t c = 0; c < nu; c++) {
		uint32_t least = UINT32_MAX;
		for (size_t v = 0; v < nv && least == UINT32_MAX; v++)
			if (want[v] == c)
				least = (uint32_t)v;
		ck_assert_uint_eq(first[c], least);
	}
	free(want);
	free(slots);
	free(first);
	free(next);
	free(parent);
	free(canon);
}

/* A point d * tol from x in a random direction. */
static void near_point(prng *g, const double *x, double d, double *y)
{
	double u[3], n = 0;
	do {
		n = 0;
		for (int k = 0; k < 3; k++) {
			u[k] = prng_range(g, -1, 1);
			n += u[k] * u[k];
		}
	} while (n < 1e-3 || n > 1);
	for (int k = 0; k < 3; k++)
		y[k] = x[k] + d * u[k] / sqrt(n);
}

/* n random points in [off, off + size)^3 with planted pairs within 0.98
 * tol (some exact copies), pairs between 1.02 tol and 3 tol, and chains
 * of steps of 0.9 tol (ends far apart), shuffled. */
static double *planted(prng *g, size_t n, double off, double size, double tol, size_t *out)
{
	double *p = malloc(3 * 4 * n * sizeof *p);
	ck_assert(p);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		double *x = p + 3 * k++;
		for (int c = 0; c < 3; c++)
			x[c] = off + prng_range(g, 0, size);
		int kind = prng_int(g, 0, 7);
		if (kind <= 1) { /* a near duplicate, or an exact one */
			near_point(g, x, kind ? prng_range(g, 0.0, 0.98) * tol : 0.0, p + 3 * k);
			k++;
		} else if (kind == 2) { /* just too far */
			near_point(g, x, prng_range(g, 1.02, 3.0) * tol, p + 3 * k);
			k++;
		} else if (kind == 3) { /* a chain of three steps */
			double dir[3];
			near_point(g, (double[3]){0, 0, 0}, 0.9 * tol, dir);
			for (int s = 1; s <= 2; s++, k++)
				for (int c = 0; c < 3; c++)
					p[3 * k + (size_t)c] = x[c] + s * dir[c];
		}
	}
	for (size_t i = k; i-- > 1;) {
		size_t j = (size_t)(prng_next(g) % (i + 1));
		for (int c = 0; c < 3; c++) {
			double t = p[3 * i + (size_t)c];
			p[3 * i + (size_t)c] = p[3 * j + (size_t)c];
			p[3 * j + (size_t)c] = t;
		}
	}
	*out = k;
	return p;
}

/* n distinct points (3 a triangle) in a clump 1e-9 wide at the origin,
 * and the last at (1, 1, 1): at any weld from 1e-8 on, all but that one
 * are within the tolerance of each other.  malloc'd. */
static double *clump(size_t n, prng *g)
{
	double *p = malloc(3 * n * sizeof *p);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < 3 * n; i++)
		p[i] = i + 3 < 3 * n ? prng_range(g, 0, 1e-9) : 1.0;
	return p;
}

START_TEST(clusters_match_brute_force)
{
	prng g = {2025};
	/* clang-format off */
	struct {
		size_t n;
		double off, size, tol;
	} cases[] = {
		{400, 0.0, 1.0, 0.02},       /* crowded: many chance joins */
		{1500, -0.5, 1.0, 1e-6},     /* sparse: the planted ones */
		{800, 1e6, 1.0, 1e-7},       /* far from the origin */
		{600, -3e11, 1e12, 1e-6},    /* cubes capped at 2^45 a side */
		{300, 0.0, 1e-12, 3e-14},    /* tiny */
		{500, 0.0, 1.0, 0.0},        /* exact duplicates only */
	};
	/* clang-format on */
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int rep = 0; rep < 3; rep++) {
			size_t nv;
			double *p = planted(&g, cases[c].n, cases[c].off, cases[c].size,
			                    cases[c].tol, &nv);
			char what[64];
			snprintf(what, sizeof what, "case %zu, set %d", c, rep);
			compare_with_oracle(p, nv, cases[c].tol, what);
			free(p);
		}
	/* -0 is +0; a chain along a line, the steps just within tol; one
	 * point, two far apart. */
	double z[12] = {0, -0.0, 1, -0.0, 0, 1, 5, 5, 5, 5, 5, 5};
	compare_with_oracle(z, 4, 0.0, "signed zeros");
	double line[60];
	for (int i = 0; i < 20; i++) {
		line[3 * i] = 0.999 * i;
		line[3 * i + 1] = line[3 * i + 2] = 0.0;
	}
	compare_with_oracle(line, 20, 1.0, "chain");
	size_t nu = 0;
	uint32_t *lab = oracle_clusters(line, 20, 1.0, &nu);
	ck_assert_uint_eq(nu, 1); /* the rule chains: ends 19 tol apart, one cluster */
	free(lab);
	compare_with_oracle(line, 1, 1.0, "one point");
	double two[6] = {0, 0, 0, 1e300, -1e300, 0};
	compare_with_oracle(two, 2, INFINITY, "infinite tolerance");
	compare_with_oracle(two, 2, 1e-300, "far apart");
}
END_TEST

/* ---- meshes ---------------------------------------------------------------- */

typedef struct wmesh {
	double *pos;
	uint32_t *idx;
	size_t nv, nt;
	void *store;
	clash_mesh *m;
} wmesh;

static uint32_t vtx(wmesh *t, double x, double y, double z)
{
	return tri_list_vertex(t->pos, &t->nv, x, y, z);
}

static void tri(wmesh *t, uint32_t a, uint32_t b, uint32_t c)
{
	tri_list_triangle(t->idx, &t->nt, a, b, c);
}

/* A UV sphere (nu longitudes, nb bands) about c, outward, room for nv
 * more vertices. */
static void sphere(wmesh *t, const double *c, double r, int nu, int nb, size_t room)
{
	size_t nv = 2 + (size_t)nu * (size_t)(nb - 1), nt = 2 * (size_t)nu * (size_t)(nb - 1);
	memset(t, 0, sizeof *t);
	t->pos = malloc(3 * (nv + room) * sizeof *t->pos);
	t->idx = malloc(3 * nt * sizeof *t->idx);
	ck_assert(t->pos && t->idx);
	uint32_t top = vtx(t, c[0], c[1], c[2] + r), first = (uint32_t)t->nv;
	for (int j = 1; j < nb; j++)
		for (int i = 0; i < nu; i++) {
			double th = M_PI * j / nb, ph = 2 * M_PI * i / nu;
			vtx(t, c[0] + r * sin(th) * cos(ph), c[1] + r * sin(th) * sin(ph),
			    c[2] + r * cos(th));
		}
	uint32_t bottom = vtx(t, c[0], c[1], c[2] - r);
#define RING(j, i) (first + (uint32_t)((j)-1) * (uint32_t)nu + (uint32_t)((i) % nu))
	for (int i = 0; i < nu; i++) {
		tri(t, top, RING(1, i), RING(1, i + 1));
		tri(t, bottom, RING(nb - 1, i + 1), RING(nb - 1, i));
		for (int j = 1; j < nb - 1; j++) {
			tri(t, RING(j, i), RING(j + 1, i), RING(j, i + 1));
			tri(t, RING(j + 1, i), RING(j + 1, i + 1), RING(j, i + 1));
		}
	}
#undef RING
}

/* A box [0,1]x[0,2]x[0,3] tessellated n x n a face, room for more. */
static void box(wmesh *t, int n, size_t room)
{
	size_t nv = 6 * (size_t)(n + 1) * (size_t)(n + 1), nt = 12 * (size_t)n * (size_t)n;
	memset(t, 0, sizeof *t);
	t->pos = malloc(3 * (nv + room) * sizeof *t->pos);
	t->idx = malloc(3 * nt * sizeof *t->idx);
	ck_assert(t->pos && t->idx);
	static const double size[3] = {1, 2, 3};
	/* Each face: axis k fixed at 0 or size, spanned by the other two in
	 * the order that makes it outward. */
	for (int k = 0; k < 3; k++)
		for (int side = 0; side < 2; side++) {
			int u = (k + 1) % 3, v = (k + 2) % 3;
			if (!side) {
				int w = u;
				u = v;
				v = w;
			}
			uint32_t base = (uint32_t)t->nv;
			for (int a = 0; a <= n; a++)
				for (int b = 0; b <= n; b++) {
					double x[3];
					x[k] = side ? size[k] : 0.0;
					x[u] = size[u] * a / n;
					x[v] = size[v] * b / n;
					vtx(t, x[0], x[1], x[2]);
				}
#define AT(a, b) (base + (uint32_t)((a) * (n + 1) + (b)))
			for (int a = 0; a < n; a++)
				for (int b = 0; b < n; b++) {
					tri(t, AT(a, b), AT(a + 1, b), AT(a + 1, b + 1));
					tri(t, AT(a, b), AT(a + 1, b + 1), AT(a, b + 1));
				}
#undef AT
		}
}

static void build(wmesh *t, double weld)
{
	size_t size = clash_mesh_size(t->nv, t->nt);
	ck_assert(size > 0);
	t->store = aligned_alloc(64, (size + 63) & ~(size_t)63);
	ck_assert(t->store);
	ck_assert_int_eq(clash_mesh_build_welded(t->store, size, t->pos, t->nv, t->idx, t->nt, weld,
	                                         &t->m),
	                 CLASH_OK);
}

static void tm_free(wmesh *t)
{
	free(t->pos);
	free(t->idx);
	free(t->store);
}

/* A copy of w whose triangles about its vertices with x > 0 (in their
 * fan on the side y > 0) use duplicates moved d away in random directions
 * (d relative to w's diagonal), appended after w's vertices: the seams of
 * a part exported unwelded.  *ndup: the duplicates. */
static void split(const wmesh *w, wmesh *s, double d, prng *g, size_t *ndup)
{
	*s = *w;
	s->pos = malloc(3 * 2 * w->nv * sizeof *s->pos);
	s->idx = malloc(3 * w->nt * sizeof *s->idx);
	s->store = NULL;
	s->m = NULL;
	ck_assert(s->pos && s->idx);
	memcpy(s->pos, w->pos, 3 * w->nv * sizeof *s->pos);
	memcpy(s->idx, w->idx, 3 * w->nt * sizeof *s->idx);
	uint32_t *dup = malloc(w->nv * sizeof *dup);
	ck_assert(dup);
	const double diag = weld_diagonal(w->pos, w->nv);
	*ndup = 0;
	for (size_t v = 0; v < w->nv; v++) {
		dup[v] = UINT32_MAX;
		if (w->pos[3 * v] > 0.0) {
			near_point(g, w->pos + 3 * v, d * diag, s->pos + 3 * s->nv);
			dup[v] = (uint32_t)s->nv++;
			++*ndup;
		}
	}
	for (size_t t = 0; t < w->nt; t++) {
		double cy = 0;
		for (int c = 0; c < 3; c++)
			cy += w->pos[3 * w->idx[3 * t + (size_t)c] + 1];
		for (int c = 0; cy > 0 && c < 3; c++) {
			uint32_t *x = &s->idx[3 * t + (size_t)c];
			if (dup[*x] != UINT32_MAX)
				*x = dup[*x];
		}
	}
	free(dup);
}

/* The members of a mesh query's answer, compared bit for bit. */
static void same_answer(const clash_result *x, const clash_result *y, const char *what, int i)
{
	ck_assert_msg(x->intersecting == y->intersecting && x->contact == y->contact &&
	                      x->solid_a == y->solid_a && x->solid_b == y->solid_b &&
	                      x->converged == y->converged,
	              "%s, query %d: verdicts differ", what, i);
	ck_assert_msg(memcmp(&x->distance, &y->distance, sizeof x->distance) == 0 &&
	                      memcmp(x->near_a, y->near_a, 3 * sizeof(double)) == 0 &&
	                      memcmp(x->near_b, y->near_b, 3 * sizeof(double)) == 0,
	              "%s, query %d: distance %.17g / %.17g or near points differ", what, i,
	              x->distance, y->distance);
}

/* The welded mesh w and its split copy s built with the default weld
 * answer random queries (convex tetrahedra, some inside, and a posed box
 * mesh) bit for bit the same; s is a solid. */
static void answers_as_welded(wmesh *w, double d, prng *g, const char *what)
{
	wmesh s;
	size_t ndup;
	split(w, &s, d, g, &ndup);
	build(&s, 1e-6);
	ck_assert_msg(clash_mesh_is_solid(s.m), "%s: not a solid once welded", what);
	ck_assert_uint_eq(clash_mesh_welded(s.m), ndup);
	ck_assert_uint_eq(clash_mesh_welded(w->m), 0);
	clash_shape a, b;
	ck_assert_int_eq(clash_shape_init_mesh(&a, w->m), CLASH_OK);
	ck_assert_int_eq(clash_shape_init_mesh(&b, s.m), CLASH_OK);
	wmesh other;
	box(&other, 2, 0);
	build(&other, 0.0);
	for (int i = 0; i < 200; i++) {
		double pts[12], c[3], r = prng_range(g, 0.02, 0.6);
		for (int k = 0; k < 3; k++)
			c[k] = prng_range(g, -1.5, 2.5);
		for (int k = 0; k < 12; k++)
			pts[k] = c[k % 3] + prng_range(g, -r, r);
		clash_shape q;
		clash_result x, y;
		if (i % 4 == 3) {
			ck_assert_int_eq(clash_shape_init_mesh(&q, other.m), CLASH_OK);
			double t[3] = {c[0], c[1], c[2]}, quat[4] = {0.5, 0.5, 0.5, 0.5};
			ck_assert_int_eq(clash_shape_set_quaternion(&q, quat), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_translation(&q, t), CLASH_OK);
		} else {
			ck_assert_int_eq(clash_shape_init(&q, 3, pts, 4), CLASH_OK);
		}
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		ck_assert_int_eq(clash_gjk(&a, &q, NULL, &x), CLASH_OK);
		ck_assert_int_eq(clash_gjk(&b, &q, NULL, &y), CLASH_OK);
		same_answer(&x, &y, what, i);
		ck_assert_int_eq(clash_gjk(&q, &b, NULL, &y), CLASH_OK);
		ck_assert_int_eq(clash_gjk(&q, &a, NULL, &x), CLASH_OK);
		same_answer(&x, &y, what, i);
	}
	/* A small cube buried in the wall's inside is inside both. */
	double in[24];
	for (int k = 0; k < 8; k++) {
		in[3 * k] = 0.5 + 0.01 * (k & 1);
		in[3 * k + 1] = 0.2 + 0.01 * ((k >> 1) & 1);
		in[3 * k + 2] = 0.3 + 0.01 * ((k >> 2) & 1);
	}
	clash_shape q;
	clash_result y;
	ck_assert_int_eq(clash_shape_init(&q, 3, in, 8), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&b, &q, NULL, &y), CLASH_OK);
	ck_assert_msg(y.intersecting && y.contact == CLASH_CONTACT_B_IN_A, "%s: cube not inside",
	              what);
	tm_free(&other);
	tm_free(&s);
}

START_TEST(seam_duplicates_answer_as_welded)
{
	prng g = {25};
	const double c[3] = {0.4, 0.3, 0.2};
	wmesh w;
	sphere(&w, c, 1.0, 24, 12, 0);
	build(&w, 0.0);
	ck_assert(clash_mesh_is_solid(w.m));
	answers_as_welded(&w, 1e-15, &g, "sphere, 1e-15");
	answers_as_welded(&w, 1e-9, &g, "sphere, 1e-9");
	tm_free(&w);
	/* A box whose faces each have their own vertices: its edges are
	 * seams of exact duplicates (solid already), then moved apart. */
	box(&w, 3, 0);
	build(&w, 0.0);
	ck_assert(clash_mesh_is_solid(w.m));
	answers_as_welded(&w, 1e-15, &g, "box, 1e-15");
	answers_as_welded(&w, 1e-9, &g, "box, 1e-9");
	tm_free(&w);
}
END_TEST

/* Duplicates farther apart than the weld stay apart: the seams are open
 * (not closed), nothing moved; a weld wide enough joins them. */
START_TEST(apart_beyond_tolerance_stay_apart)
{
	prng g = {26};
	const double c[3] = {0, 0, 0};
	wmesh w, s;
	size_t ndup;
	sphere(&w, c, 1.0, 16, 8, 0);
	split(&w, &s, 3e-6, &g, &ndup);
	clash_mesh_info info;
	build(&s, 1e-6);
	ck_assert_int_eq(clash_mesh_info_get(s.m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 0);
	ck_assert_uint_eq(clash_mesh_welded(s.m), 0);
	free(s.store);
	build(&s, 1e-5);
	ck_assert_int_eq(clash_mesh_info_get(s.m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 1);
	ck_assert_uint_eq(clash_mesh_welded(s.m), ndup);
	ck_assert_uint_eq(info.welded, ndup);
	free(s.store);
	build(&s, 0.0);
	ck_assert_int_eq(clash_mesh_info_get(s.m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 0);
	ck_assert_uint_eq(clash_mesh_welded(s.m), 0);
	tm_free(&s);
	free(w.pos);
	free(w.idx);
}
END_TEST

/* Weld 0, and a weld with nothing to join, build what clash_mesh_build
 * builds: the same corners, tree, parts and topology. */
static void same_mesh(const clash_mesh *x, const clash_mesh *y)
{
	ck_assert_uint_eq(x->ntriangles, y->ntriangles);
	ck_assert_uint_eq(x->nnodes, y->nnodes);
	ck_assert_uint_eq(x->nreps, y->nreps);
	ck_assert_uint_eq(x->bytes, y->bytes);
	ck_assert_int_eq(x->solid, y->solid);
	ck_assert_int_eq(x->depth, y->depth);
	ck_assert_ptr_eq(x->positions, y->positions);
	ck_assert(memcmp(x->origin, y->origin, sizeof x->origin) == 0);
	ck_assert(memcmp(x->tri, y->tri, 9 * x->ntriangles * sizeof(double)) == 0);
	ck_assert(memcmp(x->nodes, y->nodes, x->nnodes * sizeof *x->nodes) == 0);
	ck_assert(memcmp(x->reps, y->reps, x->nreps * sizeof *x->reps) == 0);
}

START_TEST(weld_zero_is_mesh_build)
{
	prng g = {27};
	const double c[3] = {1, 2, 3};
	wmesh w, s;
	size_t ndup;
	sphere(&w, c, 2.0, 20, 10, 0);
	split(&w, &s, 1e-9, &g, &ndup);
	wmesh *both[2] = {&w, &s};
	for (int i = 0; i < 2; i++) {
		wmesh *t = both[i];
		size_t size = clash_mesh_size(t->nv, t->nt);
		void *st = aligned_alloc(64, (size + 63) & ~(size_t)63);
		clash_mesh *m;
		ck_assert_int_eq(clash_mesh_build(st, size, t->pos, t->nv, t->idx, t->nt, &m),
		                 CLASH_OK);
		build(t, 0.0);
		same_mesh(t->m, m);
		ck_assert_uint_eq(clash_mesh_welded(t->m), 0);
		if (t == &w) { /* nothing within 1e-6: the same mesh again */
			free(t->store);
			build(t, 1e-6);
			same_mesh(t->m, m);
		}
		free(st);
	}
	tm_free(&w);
	tm_free(&s);
}
END_TEST

START_TEST(bad_weld_refused)
{
	double pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	static double store[4096];
	clash_mesh *m;
	size_t size = clash_mesh_size(3, 1);
	ck_assert(size <= sizeof store);
	const double bad[] = {-1e-6, -0.0 - 1e-300, NAN, INFINITY};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(clash_mesh_build_welded(store, size, pos, 3, NULL, 1, bad[i], &m),
		                 CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_build_welded(store, size, pos, 3, NULL, 1, -0.0, &m), CLASH_OK);
	/* A weld wider than the triangle: its corners all one, the triangle
	 * kept (degenerate) and the coordinates of the first. */
	ck_assert_int_eq(clash_mesh_build_welded(store, size, pos, 3, NULL, 1, 2.0, &m), CLASH_OK);
	ck_assert_uint_eq(clash_mesh_triangles(m), 1);
	ck_assert_uint_eq(clash_mesh_welded(m), 2);
	for (int k = 0; k < 9; k++)
		ck_assert(m->tri[k] == 0.0);
	ck_assert_ptr_eq(m->positions, pos);
}
END_TEST

/* ---- on the wire ------------------------------------------------------------- */

/* {"positions": [...], "indices": [...]} of t, every double exactly, and
 * `extra` (", \"weld\": 0", or "") before the closing brace.  malloc'd. */
static char *mesh_text(const wmesh *t, const char *extra)
{
	return mesh_geometry_json(t->pos, t->nv, t->idx, t->nt, extra);
}

/* Upload {"mesh": mesh}: its id (malloc'd); its summary's read.closed. */
static char *upload(const char *mesh, int *closed)
{
	textbuf b = {0};
	textbuf_str(&b, "{\"mesh\":");
	textbuf_str(&b, mesh);
	textbuf_str(&b, "}");
	int status;
	char *text = http_post_json("/v1/shapes", b.s, &status);
	ck_assert_msg(status == 201 || status == 200, "upload: %d %s", status, text);
	json_t *j = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(j);
	char *id = strdup(json_string_value(json_object_get(j, "id")));
	*closed = json_is_true(json_object_get(json_object_get(j, "read"), "closed"));
	json_decref(j);
	free(text);
	free(b.s);
	return id;
}

/* The query of `a` (a shape's text) and the box lo..hi: the answer. */
static char *query(const char *a, const double *lo, const double *hi, int *status)
{
	char box_text[600];
	box_vertices(box_text, sizeof box_text, lo, hi);
	textbuf b = {0};
	textbuf_str(&b, "{\"a\":");
	textbuf_str(&b, a);
	textbuf_str(&b, ",\"b\":{\"vertices\":");
	textbuf_str(&b, box_text);
	textbuf_str(&b, "}}");
	char *answer = http_post_json("/v1/query", b.s, status);
	free(b.s);
	return answer;
}

static char *wrap(const char *member, const char *value)
{
	textbuf b = {0};
	textbuf_str(&b, "{\"");
	textbuf_str(&b, member);
	textbuf_str(&b, "\":");
	textbuf_str(&b, value);
	textbuf_str(&b, "}");
	return b.s;
}

static char *ref_of(const char *id)
{
	char text[128];
	snprintf(text, sizeof text, "\"%s\"", id);
	return wrap("ref", text);
}

/* Boxes about the sphere of test_sphere(): inside it, through its wall,
 * beside it, far. */
static const double boxes[4][2][3] = {
	{{0.45, 0.25, 0.15}, {0.5, 0.3, 0.2}},
	{{1.2, 0.2, 0.1}, {1.6, 0.4, 0.3}},
	{{1.5, 0.3, 0.2}, {1.7, 0.4, 0.3}},
	{{40, 40, 40}, {41, 41, 41}},
};

static void test_sphere(wmesh *w)
{
	const double c[3] = {0.4, 0.3, 0.2};
	sphere(w, c, 1.0, 24, 12, 0);
}

/* The answer of a box query has "intersection": want (NULL: none). */
static void assert_intersection(const char *answer, const char *want)
{
	json_t *j = json_loads(answer, 0, NULL);
	ck_assert_ptr_nonnull(j);
	const char *got = json_string_value(json_object_get(j, "intersection"));
	ck_assert_msg(want ? got && strcmp(got, want) == 0 : got == NULL,
	              "intersection %s, not %s: %s", got ? got : "none", want ? want : "none",
	              answer);
	json_decref(j);
}

/* Two answers equal but for their "read" members. */
static int same_but_read(const char *x, const char *y)
{
	json_t *a = json_loads(x, 0, NULL), *b = json_loads(y, 0, NULL);
	ck_assert(a && b);
	json_object_del(a, "read");
	json_object_del(b, "read");
	const int same = json_equal(a, b);
	json_decref(a);
	json_decref(b);
	return same;
}

/* The answer's mesh side a was read closed or not, with `welded`
 * vertices moved. */
static void assert_read(const char *answer, int closed, size_t welded)
{
	json_t *j = json_loads(answer, 0, NULL);
	ck_assert_ptr_nonnull(j);
	json_t *a = json_object_get(json_object_get(j, "read"), "a");
	ck_assert_msg(json_is_object(a), "%s", answer);
	ck_assert_msg(json_is_true(json_object_get(a, "closed")) == closed, "%s", answer);
	ck_assert_msg(json_integer_value(json_object_get(a, "welded")) == (json_int_t)welded,
	              "welded %zu: %s", welded, answer);
	json_decref(j);
}

static void assert_pointer(const char *path, const char *body, const char *pointer)
{
	hresp r;
	http_do("POST", path, JSON_HEADERS, body, strlen(body), &r);
	json_t *p = assert_problem(&r, 422);
	const char *got = json_string_value(json_object_get(p, "pointer"));
	ck_assert_msg(got && strcmp(got, pointer) == 0, "%s: pointer %s, not %s", path,
	              got ? got : "none", pointer);
	json_decref(p);
	hresp_free(&r);
}

/* The sphere with seams duplicated 1e-15 of its size away, sent inline
 * and by ref, answers byte for byte as the sphere with shared seams sent
 * either way, but for how it was read ("read": its welded vertices);
 * "weld": 0 leaves its seams open (not closed, a solid still by its
 * winding number: the buried box inside); bad welds are 422s at the
 * member. */
START_TEST(wire_seams_answer_as_welded)
{
	server_start();
	prng g = {31};
	wmesh w, s;
	size_t ndup;
	test_sphere(&w);
	split(&w, &s, 1e-15, &g, &ndup);
	char *wt = mesh_text(&w, ""), *st = mesh_text(&s, ""), *s0 = mesh_text(&s, ",\"weld\":0");
	int closed_w, closed_s, closed_0;
	char *idw = upload(wt, &closed_w), *ids = upload(st, &closed_s),
	     *id0 = upload(s0, &closed_0);
	ck_assert(closed_w && closed_s && !closed_0);
	ck_assert_str_ne(idw, ids);
	ck_assert_str_ne(ids, id0);
	char *shapes[6] = {wrap("mesh", wt), ref_of(idw),      wrap("mesh", st),
	                   ref_of(ids),      wrap("mesh", s0), ref_of(id0)};
	for (int k = 0; k < 4; k++) {
		char *answers[6];
		for (int i = 0; i < 6; i++) {
			int status;
			answers[i] = query(shapes[i], boxes[k][0], boxes[k][1], &status);
			ck_assert_msg(status == 200, "box %d, shape %d: %d %s", k, i, status,
			              answers[i]);
		}
		for (int i = 1; i < 4; i++)
			ck_assert_msg(same_but_read(answers[i], answers[0]),
			              "box %d: shape %d answers\n%s\n"
			              "where the welded mesh answers\n%s",
			              k, i, answers[i], answers[0]);
		ck_assert_str_eq(answers[5], answers[4]); /* weld 0: by ref as inline */
		ck_assert_str_eq(answers[3], answers[2]); /* welded: by ref as inline */
		if (k == 0) {
			assert_intersection(answers[0], "b_inside_a");
			assert_intersection(answers[4], "b_inside_a");
			assert_read(answers[2], 1, ndup);
			assert_read(answers[4], 0, 0);
		}
		for (int i = 0; i < 6; i++)
			free(answers[i]);
	}
	/* A bad weld: at the member, wherever the mesh is. */
	char *neg = mesh_text(&w, ",\"weld\":-1e-6"), *str = mesh_text(&w, ",\"weld\":\"1e-6\"");
	char *body = wrap("mesh", neg), *q;
	assert_pointer("/v1/shapes", body, "/mesh/weld");
	free(body);
	body = wrap("mesh", str);
	assert_pointer("/v1/shapes", body, "/mesh/weld");
	q = wrap("a", body);
	free(q);
	textbuf b = {0};
	textbuf_str(&b, "{\"a\":");
	textbuf_str(&b, body);
	textbuf_str(&b, ",\"b\":{\"vertices\":[[0,0,0]]}}");
	assert_pointer("/v1/query", b.s, "/a/mesh/weld");
	textbuf c = {0};
	textbuf_str(&c, "{\"queries\":[");
	textbuf_str(&c, b.s);
	textbuf_str(&c, "]}");
	int status;
	char *batch = http_post_json("/v1/batch", c.s, &status);
	ck_assert_int_eq(status, 200);
	ck_assert_msg(strstr(batch, "\"pointer\":\"/queries/0/a/mesh/weld\""), "%s", batch);
	free(batch);
	free(body);
	textbuf d = {0};
	textbuf_str(&d, "{\"objects\":[{\"id\":\"x\",\"shape\":{\"mesh\":");
	textbuf_str(&d, neg);
	textbuf_str(&d, "}},{\"id\":\"y\",\"shape\":{\"vertices\":[[0,0,0]]}}]}");
	assert_pointer("/v1/scene", d.s, "/objects/0/shape/mesh/weld");
	/* Too densely packed to weld: a 422 at the mesh, fine with weld 0. */
	wmesh dense = {0};
	dense.nv = 12000;
	dense.nt = 4000;
	dense.pos = clump(dense.nv, &g);
	dense.idx = malloc(3 * dense.nt * sizeof *dense.idx);
	for (uint32_t i = 0; i < 3 * dense.nt; i++)
		dense.idx[i] = i;
	char *dt = mesh_text(&dense, ""), *d0 = mesh_text(&dense, ",\"weld\":0");
	body = wrap("mesh", dt);
	assert_pointer("/v1/shapes", body, "/mesh");
	free(body);
	int closed_d;
	free(upload(d0, &closed_d));
	free(dt);
	free(d0);
	tm_free(&dense);
	/* The import parameter is not for a JSON upload. */
	body = wrap("mesh", wt);
	hresp r;
	http_do("POST", "/v1/shapes?weld=0", JSON_HEADERS, body, strlen(body), &r);
	json_decref(assert_problem(&r, 422));
	hresp_free(&r);
	free(body);
	free(b.s);
	free(c.s);
	free(d.s);
	free(neg);
	free(str);
	for (int i = 0; i < 6; i++)
		free(shapes[i]);
	free(wt);
	free(st);
	free(s0);
	free(idw);
	free(ids);
	free(id0);
	tm_free(&w);
	tm_free(&s);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

/* --weld 0 turns the weld off for meshes without their own; the setting
 * is in the start-up line; bad values stop clashd. */
START_TEST(wire_weld_setting)
{
	const char *const off[] = {"--weld", "0", NULL};
	server_start_with(off, NULL);
	prng g = {32};
	wmesh w, s;
	size_t ndup;
	test_sphere(&w);
	split(&w, &s, 1e-15, &g, &ndup);
	char *st = mesh_text(&s, ""), *s6 = mesh_text(&s, ",\"weld\":1e-6");
	char *a = wrap("mesh", st), *a6 = wrap("mesh", s6);
	int status;
	char *x = query(a, boxes[0][0], boxes[0][1], &status);
	assert_intersection(x, "b_inside_a"); /* by its winding number */
	assert_read(x, 0, 0);                 /* open seams, nothing welded */
	free(x);
	x = query(a6, boxes[0][0], boxes[0][1], &status);
	assert_intersection(x, "b_inside_a");
	assert_read(x, 1, ndup);
	free(x);
	assert_clean_exit(server_stop_within(20));
	const char *const env[] = {"CLASHD_WELD=2e-6", NULL};
	json_t *line = listening_line(NULL, env);
	ck_assert_ptr_nonnull(line);
	ck_assert(json_real_value(json_object_get(line, "weld")) == 2e-6);
	ck_assert_str_eq(json_string_value(json_object_get(line, "weld_source")), "env");
	json_decref(line);
	const char *bad[] = {"-1e-6", "2", "nan", "0x1p-20", "1e-6x", "", "1e-999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *const args[] = {"--weld", bad[i], NULL};
		char err[512];
		ck_assert_msg(run_clashd(args, NULL, err, sizeof err) == 2, "--weld %s", bad[i]);
		ck_assert_msg(strstr(err, "--weld"), "--weld %s: %s", bad[i], err);
	}
	free(st);
	free(s6);
	free(a);
	free(a6);
	tm_free(&w);
	tm_free(&s);
}
END_TEST

/* A binary STL of t's triangles, the corners at vertices with x > 0 of
 * the triangles with y > 0 moved `ulps` float steps along x: the seams a
 * second export writes apart. */
static char *stl_of(const wmesh *t, int ulps, size_t *len)
{
	*len = 84 + 50 * t->nt;
	char *b = calloc(1, *len);
	ck_assert_ptr_nonnull(b);
	uint32_t n = (uint32_t)t->nt;
	memcpy(b + 80, &n, 4);
	for (size_t i = 0; i < t->nt; i++) {
		float f[12] = {0};
		double cy = 0;
		for (int c = 0; c < 3; c++)
			cy += t->pos[3 * t->idx[3 * i + (size_t)c] + 1];
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 3; k++) {
				float x = (float)t->pos[3 * t->idx[3 * i + (size_t)c] + (size_t)k];
				for (int u = 0; k == 0 && x > 0 && cy > 0 && u < ulps; u++)
					x = nextafterf(x, INFINITY);
				f[3 + 3 * c + k] = x;
			}
		memcpy(b + 84 + 50 * i, f, sizeof f);
	}
	return b;
}

/* The import: {"shapes": [...]}'s one shape's id and read.closed. */
static char *import_one(const char *path, const char *stl, size_t len, int *closed)
{
	hresp r;
	http_do("POST", path, "Content-Type: model/stl\r\n", stl, len, &r);
	ck_assert_msg(r.status == 201 || r.status == 200, "%s: %d %s", path, r.status, r.body);
	json_t *j = json_loads(r.body, 0, NULL);
	json_t *one = json_array_get(json_object_get(j, "shapes"), 0);
	ck_assert_ptr_nonnull(one);
	char *id = strdup(json_string_value(json_object_get(one, "id")));
	ck_assert(json_is_true(json_object_get(one, "solid")));
	*closed = json_is_true(json_object_get(json_object_get(one, "read"), "closed"));
	json_decref(j);
	hresp_free(&r);
	return id;
}

/* An STL whose seams are two float steps apart is closed when imported
 * (the buried box inside it), not with ?weld=0 (a solid still, by its
 * winding number); ?weld= is in the id; a bad one is a 422 at "". */
START_TEST(wire_import_weld)
{
	server_start();
	wmesh w;
	test_sphere(&w);
	size_t len, len0;
	char *stl = stl_of(&w, 2, &len), *whole = stl_of(&w, 0, &len0);
	int closed;
	char *id_whole = import_one("/v1/shapes", whole, len0, &closed);
	ck_assert(closed);
	char *id = import_one("/v1/shapes", stl, len, &closed);
	ck_assert(closed);
	char *id0 = import_one("/v1/shapes?weld=0", stl, len, &closed);
	ck_assert(!closed);
	char *id6 = import_one("/v1/shapes?weld=1e-6", stl, len, &closed);
	ck_assert(closed);
	ck_assert_str_ne(id, id_whole);
	ck_assert_str_ne(id, id0);
	ck_assert_str_ne(id, id6);
	const char *ids[3] = {id, id0, id_whole};
	const char *want[3] = {"b_inside_a", "b_inside_a", "b_inside_a"};
	for (int i = 0; i < 3; i++) {
		char *a = ref_of(ids[i]);
		int status;
		char *x = query(a, boxes[0][0], boxes[0][1], &status);
		ck_assert_int_eq(status, 200);
		assert_intersection(x, want[i]);
		free(x);
		free(a);
	}
	const char *bad[] = {"-1",
	                     "abc",
	                     "",
	                     "1e-999",
	                     "inf",
	                     "0x10",
	                     "0.00000000000000000000000000000000000000000000000000000000000000001"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char path[160];
		snprintf(path, sizeof path, "/v1/shapes?weld=%s", bad[i]);
		hresp r;
		http_do("POST", path, "Content-Type: model/stl\r\n", stl, len, &r);
		json_t *p = assert_problem(&r, 422);
		ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "");
		ck_assert_msg(strstr(json_string_value(json_object_get(p, "detail")), "weld"), "%s",
		              r.body);
		json_decref(p);
		hresp_free(&r);
	}
	free(stl);
	free(whole);
	free(id_whole);
	free(id);
	free(id0);
	free(id6);
	tm_free(&w);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

/* A clump of 12 000 distinct vertices within the weld of each other is
 * refused (CLASH_ELIMIT) rather than welded pair by pair; weld 0 builds
 * it; a clump of 1 500 is welded, as the oracle says (one cluster and the
 * far point). */
START_TEST(dense_clump_refused)
{
	prng g = {33};
	const size_t n = 12000;
	double *p = clump(n, &g);
	size_t size = clash_mesh_size(n, n / 3);
	void *st = aligned_alloc(64, (size + 63) & ~(size_t)63);
	clash_mesh *m;
	ck_assert_int_eq(clash_mesh_build_welded(st, size, p, n, NULL, n / 3, 1e-6, &m),
	                 CLASH_ELIMIT);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(clash_mesh_build_welded(st, size, p, n, NULL, n / 3, 0.0, &m), CLASH_OK);
	free(st);
	free(p);
	p = clump(1500, &g);
	compare_with_oracle(p, 1500, 1e-6 * weld_diagonal(p, 1500), "clump of 1500");
	free(p);
}
END_TEST

static Suite *weld_suite(void)
{
	Suite *s = suite_create("weld");
	ck_case(s, "core", 60,
	        CK_TESTS(clusters_match_brute_force, seam_duplicates_answer_as_welded,
	                 apart_beyond_tolerance_stay_apart, weld_zero_is_mesh_build,
	                 bad_weld_refused, dense_clump_refused));
	ck_case(s, "wire", 90,
	        CK_TESTS(wire_seams_answer_as_welded, wire_weld_setting, wire_import_weld));
	return s;
}

CHECK_SUITE(weld_suite)
