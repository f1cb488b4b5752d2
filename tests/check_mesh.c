/*
 * check_mesh.c — triangle meshes: the build's checks and
 * topology, and every query with a mesh on either side against
 * independent answers: brute force over all triangle pairs with clash_gjk
 * on 3-vertex shapes (distance, touching), the generalized winding number
 * by solid angles (Van Oosterom and Strackee 1983, "The solid angle of a
 * plane triangle") for insideness, and the convex query on a polytope's
 * vertices for a mesh of its hull.  Also the L-bracket notch, a bolt in a
 * plate's hole, mesh leaves in compounds, scenes and motion, and the
 * timings on two three.js TorusKnotGeometry(1, 0.3, 800, 64) meshes.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clash.h"
#include "mesh.h"
#include "mesh_fit.h"
#include "oracle.h"
#include "prng.h"
#include "tri_dist.h"
#include "tri_list.h"
#include "winding_ref.h"

/* ---- meshes -------------------------------------------------------------- */

typedef struct tmesh {
	double *pos;
	uint32_t *idx;
	size_t nv, nt;
	void *store;
	clash_mesh *m;
} tmesh;

static void tm_alloc(tmesh *t, size_t nv, size_t nt)
{
	memset(t, 0, sizeof *t);
	t->pos = calloc(3 * nv, sizeof(double));
	t->idx = calloc(3 * nt, sizeof(uint32_t));
	ck_assert(t->pos && t->idx);
}

static void tm_build(tmesh *t)
{
	size_t size = clash_mesh_size(t->nv, t->nt);
	ck_assert(size > 0);
	t->store = malloc(size);
	ck_assert(t->store);
	ck_assert_int_eq(clash_mesh_build(t->store, size, t->pos, t->nv, t->idx, t->nt, &t->m),
	                 CLASH_OK);
	ck_assert_uint_le(clash_mesh_bytes(t->m), size);
	ck_assert_uint_eq(clash_mesh_triangles(t->m), t->nt);
}

static void tm_free(tmesh *t)
{
	free(t->pos);
	free(t->idx);
	free(t->store);
}

static void tri(tmesh *t, uint32_t a, uint32_t b, uint32_t c)
{
	tri_list_triangle(t->idx, &t->nt, a, b, c);
}

static uint32_t vtx(tmesh *t, double x, double y, double z)
{
	return tri_list_vertex(t->pos, &t->nv, x, y, z);
}

/* A box's surface, outward counter-clockwise, appended to t. */
static void add_box(tmesh *t, const double *lo, const double *hi)
{
	uint32_t v[8];
	for (int i = 0; i < 8; i++)
		v[i] = vtx(t, (i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1],
		           (i & 4) ? hi[2] : lo[2]);
	static const int f[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
	                            {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
	for (int i = 0; i < 6; i++) {
		tri(t, v[f[i][0]], v[f[i][1]], v[f[i][2]]);
		tri(t, v[f[i][0]], v[f[i][2]], v[f[i][3]]);
	}
}

static void box_mesh(tmesh *t, const double *lo, const double *hi)
{
	tm_alloc(t, 8, 12);
	add_box(t, lo, hi);
	tm_build(t);
}

/* A torus about z, closed (indices wrap). */
static void torus_mesh(tmesh *t, double R, double r, int nu, int nv)
{
	tm_alloc(t, (size_t)(nu * nv), (size_t)(2 * nu * nv));
	for (int i = 0; i < nu; i++)
		for (int j = 0; j < nv; j++) {
			double u = 2 * M_PI * i / nu, v = 2 * M_PI * j / nv;
			vtx(t, (R + r * cos(v)) * cos(u), (R + r * cos(v)) * sin(u), r * sin(v));
		}
	for (int i = 0; i < nu; i++)
		for (int j = 0; j < nv; j++) {
			uint32_t a = (uint32_t)(i * nv + j),
				 b = (uint32_t)(((i + 1) % nu) * nv + j);
			uint32_t c = (uint32_t)(((i + 1) % nu) * nv + (j + 1) % nv),
				 d = (uint32_t)(i * nv + (j + 1) % nv);
			tri(t, a, b, c);
			tri(t, a, c, d);
		}
	tm_build(t);
}

/* three.js TorusKnotGeometry(radius, tube, tubular, radial, 2, 3), its
 * seams closed by wrapping the indices (so a solid). */
static void knot_point(double u, double radius, double *p)
{
	double cu = cos(u), su = sin(u), qp = 1.5 * u, cs = cos(qp);
	p[0] = radius * (2 + cs) * 0.5 * cu;
	p[1] = radius * (2 + cs) * su * 0.5;
	p[2] = radius * sin(qp) * 0.5;
}

static void knot_mesh(tmesh *t, double radius, double tube, int tubular, int radial)
{
	tm_alloc(t, (size_t)(tubular * radial), (size_t)(2 * tubular * radial));
	for (int j = 0; j < tubular; j++) {
		double u = (double)j / tubular * 2 * 2 * M_PI, p1[3], p2[3], T[3], N[3], B[3];
		knot_point(u, radius, p1);
		knot_point(u + 0.01, radius, p2);
		for (int k = 0; k < 3; k++) {
			T[k] = p2[k] - p1[k];
			N[k] = p2[k] + p1[k];
		}
		B[0] = T[1] * N[2] - T[2] * N[1];
		B[1] = T[2] * N[0] - T[0] * N[2];
		B[2] = T[0] * N[1] - T[1] * N[0];
		N[0] = B[1] * T[2] - B[2] * T[1];
		N[1] = B[2] * T[0] - B[0] * T[2];
		N[2] = B[0] * T[1] - B[1] * T[0];
		double lb = sqrt(B[0] * B[0] + B[1] * B[1] + B[2] * B[2]),
		       ln = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
		for (int i = 0; i < radial; i++) {
			double v = (double)i / radial * 2 * M_PI, cx = -tube * cos(v),
			       cy = tube * sin(v);
			vtx(t, p1[0] + cx * N[0] / ln + cy * B[0] / lb,
			    p1[1] + cx * N[1] / ln + cy * B[1] / lb,
			    p1[2] + cx * N[2] / ln + cy * B[2] / lb);
		}
	}
	for (int j = 1; j <= tubular; j++)
		for (int i = 1; i <= radial; i++) {
			uint32_t a = (uint32_t)(radial * (j - 1) + (i - 1));
			uint32_t b = (uint32_t)(radial * (j % tubular) + (i - 1));
			uint32_t c = (uint32_t)(radial * (j % tubular) + i % radial);
			uint32_t d = (uint32_t)(radial * (j - 1) + i % radial);
			tri(t, a, b, d);
			tri(t, b, c, d);
		}
	tm_build(t);
}

/* An L-shaped prism: the profile (0,0) (4,0) (4,1) (1,1) (1,4) (0,4),
 * extruded over z in [0, 1]. */
static void l_bracket(tmesh *t)
{
	static const double p[6][2] = {{0, 0}, {4, 0}, {4, 1}, {1, 1}, {1, 4}, {0, 4}};
	static const int cap[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
	tm_alloc(t, 12, 20);
	for (int z = 0; z < 2; z++)
		for (int i = 0; i < 6; i++)
			vtx(t, p[i][0], p[i][1], z);
	for (int i = 0; i < 4; i++) {
		tri(t, (uint32_t)cap[i][0], (uint32_t)cap[i][2], (uint32_t)cap[i][1]);
		tri(t, (uint32_t)cap[i][0] + 6, (uint32_t)cap[i][1] + 6, (uint32_t)cap[i][2] + 6);
	}
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t j = (i + 1) % 6;
		tri(t, i, j, j + 6);
		tri(t, i, j + 6, i + 6);
	}
	tm_build(t);
}

/* A UV sphere of radius r about c (nu longitudes, nv latitude bands),
 * closed, appended to t: outward, or inward (its triangles reversed). */
static void add_sphere(tmesh *t, const double *c, double r, int nu, int nv, int inward)
{
	uint32_t top = vtx(t, c[0], c[1], c[2] + r), first = (uint32_t)t->nv;
	for (int j = 1; j < nv; j++)
		for (int i = 0; i < nu; i++) {
			double th = M_PI * j / nv, ph = 2 * M_PI * i / nu;
			vtx(t, c[0] + r * sin(th) * cos(ph), c[1] + r * sin(th) * sin(ph),
			    c[2] + r * cos(th));
		}
	uint32_t bottom = vtx(t, c[0], c[1], c[2] - r);
#define RING(j, i) (first + (uint32_t)((j)-1) * (uint32_t)nu + (uint32_t)((i) % nu))
	for (int i = 0; i < nu; i++) {
		uint32_t f[2][3] = {{top, RING(1, i), RING(1, i + 1)},
		                    {bottom, RING(nv - 1, i + 1), RING(nv - 1, i)}};
		for (int k = 0; k < 2; k++)
			inward ? tri(t, f[k][0], f[k][2], f[k][1])
			       : tri(t, f[k][0], f[k][1], f[k][2]);
		for (int j = 1; j < nv - 1; j++) {
			uint32_t a = RING(j, i), b = RING(j + 1, i), cc = RING(j + 1, i + 1),
				 d = RING(j, i + 1);
			if (inward) {
				tri(t, a, d, b);
				tri(t, b, d, cc);
			} else {
				tri(t, a, b, d);
				tri(t, b, cc, d);
			}
		}
	}
#undef RING
}

static size_t sphere_vertices(int nu, int nv)
{
	return 2 + (size_t)nu * (size_t)(nv - 1);
}

static size_t sphere_triangles(int nu, int nv)
{
	return 2 * (size_t)nu * (size_t)(nv - 1);
}

/* ---- independent answers ---------------------------------------------------- */

static void world(const clash_shape *s, const double *v, double *x)
{
	for (int r = 0; r < 3; r++) {
		x[r] = s->posed ? s->translation[r] : 0.0;
		for (int k = 0; k < 3; k++)
			x[r] += (s->posed ? s->linear[3 * k + r] : (double)(r == k)) * v[k];
	}
}

/* World triangles of a mesh shape (9 doubles each, malloc'd). */
static double *world_tris(const clash_shape *s, const tmesh *t)
{
	double *w = malloc(9 * t->nt * sizeof *w);
	for (size_t i = 0; i < t->nt; i++)
		for (int c = 0; c < 3; c++)
			world(s, t->pos + 3 * t->idx[3 * i + c], w + 9 * i + 3 * c);
	return w;
}

/* Least distance over triangle pairs by clash_gjk (radii 0). */
static double brute_pairs(const double *wa, size_t na, const double *wb, size_t nb)
{
	double best = INFINITY;
	int errors = 0; /* asserted once: check logs every assertion */
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++) {
			clash_shape x, y;
			clash_shape_init(&x, 3, wa + 9 * i, 3);
			clash_shape_init(&y, 3, wb + 9 * j, 3);
			clash_result r;
			errors += clash_gjk(&x, &y, NULL, &r) != CLASH_OK;
			best = fmin(best, r.intersecting ? 0.0 : r.distance);
		}
	ck_assert_int_eq(errors, 0);
	return best;
}

static void random_pose(clash_shape *s, prng *g, double spread, int scale)
{
	double q[4], t[3];
	prng_motion(g, spread, q, t);
	if (scale) {
		/* A rotation after a non-uniform scale, as a matrix. */
		double x = q[0], y = q[1], z = q[2], w = q[3];
		double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),
		               2 * (x * z - y * w),     2 * (x * y - z * w),
		               1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
		               2 * (x * z + y * w),     2 * (y * z - x * w),
		               1 - 2 * (x * x + y * y)};
		double sc[3] = {prng_range(g, 0.5, 2), prng_range(g, 0.5, 2),
		                prng_range(g, 0.5, 2)};
		double m[16] = {0};
		for (int c = 0; c < 3; c++)
			for (int r = 0; r < 3; r++)
				m[4 * c + r] = R[3 * c + r] * sc[c];
		for (int r = 0; r < 3; r++)
			m[12 + r] = t[r];
		m[15] = 1;
		ck_assert_int_eq(clash_shape_set_matrix(s, m), CLASH_OK);
	} else {
		ck_assert_int_eq(clash_shape_set_quaternion(s, q), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_translation(s, t), CLASH_OK);
	}
}

/* Some vertex of `pts` (world) inside the closed triangles w? */
static int any_inside(const double *pts, size_t np, const double *w, size_t nt)
{
	for (size_t i = 0; i < np; i++)
		if (fabs(winding_ref(w, nt, pts + 3 * i)) > 0.5)
			return 1;
	return 0;
}

static double *world_verts(const clash_shape *s, const double *v, size_t n)
{
	double *w = malloc(3 * n * sizeof *w);
	for (size_t i = 0; i < n; i++)
		world(s, v + 3 * i, w + 3 * i);
	return w;
}

/* ---- tests -------------------------------------------------------------------- */

/* A mesh moved out of its build storage (clash_mesh_move) answers as
 * before once that storage is gone. */
START_TEST(moved_mesh_answers_the_same)
{
	prng g;
	g.s = 77;
	tmesh t;
	torus_mesh(&t, 1.0, 0.3, 24, 12);
	size_t kept = clash_mesh_bytes(t.m);
	ck_assert_uint_lt(kept, clash_mesh_size(t.nv, t.nt));
	void *dst = aligned_alloc(32, (kept + 31) & ~(size_t)31);
	clash_mesh *moved = NULL;
	ck_assert_int_eq(clash_mesh_move(dst, t.m, &moved), CLASH_OK);
	ck_assert_ptr_eq(moved, dst);
	ck_assert_int_eq(clash_mesh_move((char *)dst + 4, t.m, &moved), CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_move(dst, t.m, &moved), CLASH_OK);
	double box[24];
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			box[3 * i + k] = (i >> k) & 1 ? 0.1 : -0.1;
	double before[60];
	int hit[60];
	for (int round = 0; round < 60; round++) {
		clash_shape m, c;
		clash_shape_init_mesh(&m, t.m);
		clash_shape_init(&c, 3, box, 8);
		random_pose(&c, &g, 1.5, 0);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&m, &c, NULL, &r), CLASH_OK);
		before[round] = r.distance;
		hit[round] = r.intersecting;
	}
	/* The old storage scribbled over and freed. */
	memset(t.store, 0xa5, clash_mesh_size(t.nv, t.nt));
	free(t.store);
	t.store = NULL;
	g.s = 77;
	for (int round = 0; round < 60; round++) {
		clash_shape m, c;
		clash_shape_init_mesh(&m, moved);
		clash_shape_init(&c, 3, box, 8);
		random_pose(&c, &g, 1.5, 0);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&m, &c, NULL, &r), CLASH_OK);
		ck_assert_int_eq(r.intersecting, hit[round]);
		ck_assert(r.distance == before[round]);
	}
	ck_assert_int_eq(clash_mesh_is_solid(moved), 1);
	free(dst);
	tm_free(&t);
}
END_TEST

/* A bipyramid over a 40-gon: each apex is on 80 directed edges (the
 * build checks long vertex lists another way than short ones): solid;
 * with one triangle doubled, three edges shared by three; with one
 * flipped, that one turned back. */
static void bipyramid_topology(void)
{
	enum {
		N = 40
	};
	double pos[3 * (N + 2)] = {0, 0, 1, 0, 0, -1};
	uint32_t idx[3 * (2 * N + 1)];
	for (int i = 0; i < N; i++) {
		pos[6 + 3 * i] = cos(2 * M_PI * i / N);
		pos[7 + 3 * i] = sin(2 * M_PI * i / N);
		pos[8 + 3 * i] = 0;
		uint32_t a = 2 + (uint32_t)i, b = 2 + (uint32_t)((i + 1) % N);
		uint32_t *up = idx + 6 * i, *down = up + 3;
		up[0] = a, up[1] = b, up[2] = 0;
		down[0] = b, down[1] = a, down[2] = 1;
	}
	size_t size = clash_mesh_size(N + 2, 2 * N + 1);
	void *st = malloc(size);
	clash_mesh *m;
	ck_assert_int_eq(clash_mesh_build(st, size, pos, N + 2, idx, 2 * N, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_is_solid(m), 1);
	clash_mesh_info info;
	memcpy(idx + 6 * N, idx, 3 * sizeof *idx); /* the first triangle twice */
	ck_assert_int_eq(clash_mesh_build(st, size, pos, N + 2, idx, 2 * N + 1, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_info_get(m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 0);
	ck_assert_uint_eq(info.nonmanifold_edges, 3);
	ck_assert_uint_eq(info.boundary_edges, 0);
	ck_assert_int_eq(info.solid, 1); /* a doubled face leaks nothing */
	uint32_t t = idx[6 * 7];
	idx[6 * 7] = idx[6 * 7 + 1];
	idx[6 * 7 + 1] = t;
	ck_assert_int_eq(clash_mesh_build(st, size, pos, N + 2, idx, 2 * N, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_info_get(m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 1);
	ck_assert_uint_eq(info.flipped, 1);
	free(st);
}

START_TEST(build_errors_and_topology)
{
	double pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	uint32_t idx[3] = {0, 1, 2}, bad[3] = {0, 1, 3};
	static double store[4096];
	clash_mesh *m;
	size_t size = clash_mesh_size(3, 1);
	ck_assert(size > 0 && size <= sizeof store);
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 3, bad, 1, &m), CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 3, idx, 0, &m), CLASH_EEMPTY);
	ck_assert_int_eq(clash_mesh_build(store, size - 8, pos, 3, idx, 1, &m), CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_build((char *)store + 4, size, pos, 3, idx, 1, &m),
	                 CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 4, NULL, 1, &m), CLASH_EINVAL);
	pos[4] = NAN;
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 3, idx, 1, &m), CLASH_ERANGE);
	pos[4] = 2e30; /* node boxes are floats: extents up to 1e30 */
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 3, idx, 1, &m), CLASH_ERANGE);
	pos[4] = 1;
	ck_assert_int_eq(clash_mesh_build(store, size, pos, 3, NULL, 1, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_is_solid(m), 0);
	clash_shape s;
	ck_assert_int_eq(clash_shape_init_mesh(&s, m), CLASH_OK);
	ck_assert_int_eq(s.dim, 3);
	ck_assert_ptr_eq(s.mesh, m);
	ck_assert_int_eq(clash_shape_init_mesh(&s, NULL), CLASH_EINVAL);

	/* A box: solid; without a triangle: open, a solid still (its leak is
	 * small); without two opposite faces: a tube, a surface; with a face flipped: turned
	 * back, closed; as unindexed triples: welded, solid. */
	tmesh b;
	double lo[3] = {0, 0, 0}, hi[3] = {1, 2, 3};
	box_mesh(&b, lo, hi);
	ck_assert_int_eq(clash_mesh_is_solid(b.m), 1);
	clash_mesh_info info;
	size = clash_mesh_size(8, 11);
	void *st = malloc(size);
	ck_assert_int_eq(clash_mesh_build(st, size, b.pos, 8, b.idx, 11, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_info_get(m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 0);
	ck_assert_uint_eq(info.boundary_edges, 3);
	ck_assert_int_eq(info.solid, 1);
	ck_assert_int_eq(clash_mesh_build(st, size, b.pos, 8, b.idx, 8, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_info_get(m, &info), CLASH_OK);
	ck_assert_uint_eq(info.boundary_edges, 8); /* a tube: two rims of four */
	ck_assert_int_eq(info.solid, 0);
	ck_assert_int_eq(clash_mesh_is_solid(m), 0);
	ck_assert_int_eq(clash_mesh_info_get(NULL, &info), CLASH_EINVAL);
	ck_assert_int_eq(clash_mesh_info_get(m, NULL), CLASH_EINVAL);
	free(st);
	uint32_t flip[36];
	memcpy(flip, b.idx, sizeof flip);
	flip[1] = b.idx[2];
	flip[2] = b.idx[1];
	size = clash_mesh_size(8, 12);
	st = malloc(size);
	ck_assert_int_eq(clash_mesh_build(st, size, b.pos, 8, flip, 12, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_info_get(m, &info), CLASH_OK);
	ck_assert_int_eq(info.closed, 1);
	ck_assert_uint_eq(info.flipped, 1);
	ck_assert_int_eq(clash_mesh_is_solid(m), 1);
	free(st);
	double soup[108];
	for (int i = 0; i < 36; i++)
		memcpy(soup + 3 * i, b.pos + 3 * b.idx[i], 3 * sizeof(double));
	size = clash_mesh_size(36, 12);
	st = malloc(size);
	ck_assert_int_eq(clash_mesh_build(st, size, soup, 36, NULL, 12, &m), CLASH_OK);
	ck_assert_int_eq(clash_mesh_is_solid(m), 1);
	free(st);
	tm_free(&b);
	tmesh t;
	torus_mesh(&t, 2, 0.5, 24, 12);
	ck_assert_int_eq(clash_mesh_is_solid(t.m), 1);
	tm_free(&t);
	bipyramid_topology();
}
END_TEST

/* Mesh a against mesh b at random poses: distance, near points and the
 * verdict against brute force and winding numbers. */
static void check_pair(const tmesh *ta, const tmesh *tb, prng *g, int rounds, double spread,
                       int scale)
{
	for (int round = 0; round < rounds; round++) {
		clash_shape a, b;
		clash_shape_init_mesh(&a, ta->m);
		clash_shape_init_mesh(&b, tb->m);
		random_pose(&a, g, spread, scale && round % 2);
		random_pose(&b, g, spread, scale && round % 3 == 0);
		if (round % 5 == 4) {
			/* Unrotated, translated only: the query's translation path
			 * (mesh_query.c, shift_gap2). */
			const double id[4] = {0, 0, 0, 1};
			ck_assert_int_eq(clash_shape_set_quaternion(&a, id), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_quaternion(&b, id), CLASH_OK);
		}
		double ra = round % 4 == 1 ? 0.05 : 0.0;
		clash_shape_set_radius(&a, ra);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
		double *wa = world_tris(&a, ta), *wb = world_tris(&b, tb);
		double d = brute_pairs(wa, ta->nt, wb, tb->nt) - ra;
		ck_assert(r.has & CLASH_HAS_MESH);
		ck_assert_int_eq(r.solid_a, clash_mesh_is_solid(ta->m));
		ck_assert_int_eq(r.solid_b, clash_mesh_is_solid(tb->m));
		if (fabs(d) < 1e-9)
			goto next; /* too close to call either way */
		int surfaces = d <= 0;
		double *va = world_verts(&a, ta->pos, ta->nv),
		       *vb = world_verts(&b, tb->pos, tb->nv);
		int a_in_b = !surfaces && r.solid_b && any_inside(va, ta->nv, wb, tb->nt);
		int b_in_a =
			!surfaces && !a_in_b && r.solid_a && any_inside(vb, tb->nv, wa, ta->nt);
		free(va);
		free(vb);
		ck_assert_int_eq(r.intersecting, surfaces || a_in_b || b_in_a);
		if (surfaces)
			ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
		else if (a_in_b)
			ck_assert_int_eq(r.contact, CLASH_CONTACT_A_IN_B);
		else if (b_in_a)
			ck_assert_int_eq(r.contact, CLASH_CONTACT_B_IN_A);
		if (!r.intersecting) {
			ck_near(r.distance, d, 1e-9 * (1 + d));
			double e[3] = {r.near_b[0] - r.near_a[0], r.near_b[1] - r.near_a[1],
			               r.near_b[2] - r.near_a[2]};
			ck_near(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), d, 1e-9 * (1 + d));
		} else {
			ck_assert(r.near_a[0] == r.near_b[0] && r.near_a[2] == r.near_b[2]);
		}
		/* The verdict alone agrees. */
		clash_options o = {0};
		o.want = CLASH_WANT_VERDICT;
		clash_result v;
		ck_assert_int_eq(clash_gjk(&a, &b, &o, &v), CLASH_OK);
		ck_assert_int_eq(v.intersecting, r.intersecting);
		/* Swapped. */
		clash_result s;
		ck_assert_int_eq(clash_gjk(&b, &a, NULL, &s), CLASH_OK);
		ck_assert_int_eq(s.intersecting, r.intersecting);
		if (!r.intersecting)
			ck_near(s.distance, r.distance, 1e-9 * (1 + d));
	next:
		free(wa);
		free(wb);
	}
}

START_TEST(mesh_mesh_against_brute_force)
{
	prng g;
	g.s = 1301;
	tmesh t, k, b, l;
	torus_mesh(&t, 1.0, 0.3, 16, 8);
	knot_mesh(&k, 1.0, 0.3, 24, 6);
	double lo[3] = {-0.3, -0.2, -0.5}, hi[3] = {0.3, 0.2, 0.5};
	box_mesh(&b, lo, hi);
	l_bracket(&l);
	check_pair(&t, &t, &g, 30, 1.5, 1);
	check_pair(&t, &b, &g, 40, 1.0, 1);
	check_pair(&k, &t, &g, 20, 1.5, 0);
	check_pair(&l, &b, &g, 40, 2.5, 1);
	check_pair(&b, &l, &g, 20, 2.5, 0);
	tm_free(&t);
	tm_free(&k);
	tm_free(&b);
	tm_free(&l);
}
END_TEST

/* Two boxes with parallel faces: many triangle pairs tie at the least
 * distance (faces, and the edges of the faces beside them), which the
 * search may leave after the first; the distance still the brute force's
 * and the construction's, translated only and turned together. */
START_TEST(parallel_faces_tie)
{
	tmesh b;
	double lo[3] = {-0.5, -0.5, -0.5}, hi[3] = {0.5, 0.5, 0.5};
	box_mesh(&b, lo, hi);
	static const double gaps[] = {1e-6, 0.02, 0.1, 0.4, 1.0, 37.5};
	static const double q[][4] = {{0, 0, 0, 1}, {0.1, 0.2, 0.3, 0.9}, {-0.6, 0.1, 0.2, 0.7}};
	for (size_t qi = 0; qi < sizeof q / sizeof q[0]; qi++)
		for (size_t gi = 0; gi < sizeof gaps / sizeof gaps[0]; gi++) {
			clash_shape a, c;
			clash_shape_init_mesh(&a, b.m);
			clash_shape_init_mesh(&c, b.m);
			double n = sqrt(q[qi][0] * q[qi][0] + q[qi][1] * q[qi][1] +
			                q[qi][2] * q[qi][2] + q[qi][3] * q[qi][3]);
			double u[4] = {q[qi][0] / n, q[qi][1] / n, q[qi][2] / n, q[qi][3] / n};
			ck_assert_int_eq(clash_shape_set_quaternion(&a, u), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_quaternion(&c, u), CLASH_OK);
			/* c: a moved by 1 + gap along a's x axis and 0.1, 0.05
			 * along its others (the faces overlap, offset). */
			double local[3] = {1.0 + gaps[gi], 0.1, 0.05}, t[3];
			double x = u[0], y = u[1], z = u[2], w = u[3];
			t[0] = (1 - 2 * (y * y + z * z)) * local[0] +
			       2 * (x * y - z * w) * local[1] + 2 * (x * z + y * w) * local[2];
			t[1] = 2 * (x * y + z * w) * local[0] +
			       (1 - 2 * (x * x + z * z)) * local[1] +
			       2 * (y * z - x * w) * local[2];
			t[2] = 2 * (x * z - y * w) * local[0] + 2 * (y * z + x * w) * local[1] +
			       (1 - 2 * (x * x + y * y)) * local[2];
			ck_assert_int_eq(clash_shape_set_translation(&c, t), CLASH_OK);
			clash_result r;
			ck_assert_int_eq(clash_gjk(&a, &c, NULL, &r), CLASH_OK);
			double *wa = world_tris(&a, &b), *wc = world_tris(&c, &b);
			const double d = brute_pairs(wa, b.nt, wc, b.nt);
			ck_assert(!r.intersecting);
			ck_near(d, gaps[gi], 1e-9 * (1 + d));
			ck_near(r.distance, d, 1e-9 * (1 + d));
			double e[3] = {r.near_b[0] - r.near_a[0], r.near_b[1] - r.near_a[1],
			               r.near_b[2] - r.near_a[2]};
			ck_near(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), d, 1e-9 * (1 + d));
			free(wa);
			free(wc);
		}
	tm_free(&b);
}
END_TEST

/* A mesh and a convex shape: brute force over triangles; a mesh of a
 * convex hull answers as the hull's vertex list. */
START_TEST(mesh_convex_against_brute_force)
{
	prng g;
	g.s = 1302;
	tmesh t, h;
	torus_mesh(&t, 1.0, 0.3, 16, 8);
	double lo[3] = {-0.5, -0.4, -0.3}, hi[3] = {0.5, 0.4, 0.3};
	box_mesh(&h, lo, hi);
	double bx[24];
	for (int i = 0; i < 8; i++) {
		bx[3 * i] = (i & 1) ? 0.2 : -0.2;
		bx[3 * i + 1] = (i & 2) ? 0.1 : -0.1;
		bx[3 * i + 2] = (i & 4) ? 0.15 : -0.15;
	}
	for (int round = 0; round < 200; round++) {
		const tmesh *tm = round % 2 ? &t : &h;
		clash_shape m, c;
		clash_shape_init_mesh(&m, tm->m);
		clash_shape_init(&c, 3, bx, 8);
		random_pose(&m, &g, 0.6, round % 3 == 0);
		random_pose(&c, &g, 1.2, round % 5 == 0);
		if (round % 4 == 2)
			clash_shape_set_radius(&c, 0.03);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&m, &c, NULL, &r), CLASH_OK);
		double *w = world_tris(&m, tm);
		double best = INFINITY;
		for (size_t i = 0; i < tm->nt; i++) {
			clash_shape x;
			clash_shape_init(&x, 3, w + 9 * i, 3);
			clash_result q;
			ck_assert_int_eq(clash_gjk(&x, &c, NULL, &q), CLASH_OK);
			best = fmin(best, q.intersecting ? 0.0 : q.distance);
		}
		if (best > 1e-9 || best == 0.0) {
			int surfaces = best == 0.0;
			double *vc = world_verts(&c, bx, 8);
			int c_in_m = !surfaces && any_inside(vc, 1, w, tm->nt);
			free(vc);
			int m_in_c = 0;
			if (!surfaces && !c_in_m) {
				clash_containment cc;
				ck_assert_int_eq(clash_contains(&m, &c, NULL, &cc), CLASH_OK);
				m_in_c = cc.contained;
			}
			ck_assert_int_eq(r.intersecting, surfaces || c_in_m || m_in_c);
			if (!r.intersecting)
				ck_near(r.distance, best, 1e-9);
			if (c_in_m)
				ck_assert_int_eq(r.contact, CLASH_CONTACT_B_IN_A);
			if (m_in_c)
				ck_assert_int_eq(r.contact, CLASH_CONTACT_A_IN_B);
			/* The box mesh is the hull of its vertices. */
			if (tm == &h) {
				clash_shape hv;
				clash_shape_init(&hv, 3, h.pos, h.nv);
				memcpy(hv.linear, m.linear, sizeof hv.linear);
				memcpy(hv.translation, m.translation, sizeof hv.translation);
				hv.posed = m.posed;
				clash_result cv;
				ck_assert_int_eq(clash_gjk(&hv, &c, NULL, &cv), CLASH_OK);
				ck_assert_int_eq(cv.intersecting, r.intersecting);
				if (!r.intersecting)
					ck_near(r.distance, cv.distance, 1e-9);
			}
		}
		clash_result s;
		ck_assert_int_eq(clash_gjk(&c, &m, NULL, &s), CLASH_OK);
		ck_assert_int_eq(s.intersecting, r.intersecting);
		ck_assert_int_eq(s.solid_a, 1);
		free(w);
	}
	tm_free(&t);
	tm_free(&h);
}
END_TEST

/* Mesh against each exact primitive, at random poses: the verdict and the
 * distance of the tree search against every triangle's own clash_gjk with
 * the primitive, the centre's winding number and clash_contains. */
START_TEST(mesh_primitive_against_brute_force)
{
	prng g;
	g.s = 1313;
	tmesh t;
	torus_mesh(&t, 1.0, 0.3, 16, 8);
	static const double sizes[][3] = {{0.2, 0, 0},     {0.2, 0.1, 0.15}, {0.1, 0.2, 0},
	                                  {0.15, 0.25, 0}, {0.2, 0.2, 0},    {0.25, 0.1, 0.15}};
	static const double origin[3] = {0, 0, 0};
	for (int round = 0; round < 240; round++) {
		int kind = CLASH_KIND_SPHERE + round % 6;
		clash_shape m, c;
		clash_shape_init_mesh(&m, t.m);
		ck_assert_int_eq(clash_shape_init_primitive(&c, kind, sizes[kind - 1]), CLASH_OK);
		random_pose(&m, &g, 0.3, round % 7 == 0);
		random_pose(&c, &g, 1.3, round % 5 == 0);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&m, &c, NULL, &r), CLASH_OK);
		double *w = world_tris(&m, &t);
		double best = INFINITY;
		for (size_t i = 0; i < t.nt; i++) {
			clash_shape x;
			clash_shape_init(&x, 3, w + 9 * i, 3);
			clash_result q;
			ck_assert_int_eq(clash_gjk(&x, &c, NULL, &q), CLASH_OK);
			best = fmin(best, q.intersecting ? 0.0 : q.distance);
		}
		if (best > 1e-8 || best == 0.0) {
			int surfaces = best == 0.0;
			double centre[3];
			world(&c, origin, centre);
			int c_in_m = !surfaces && any_inside(centre, 1, w, t.nt);
			int m_in_c = 0;
			if (!surfaces && !c_in_m) {
				clash_containment cc;
				ck_assert_int_eq(clash_contains(&m, &c, NULL, &cc), CLASH_OK);
				m_in_c = cc.contained;
			}
			ck_assert_msg(
				r.intersecting == (surfaces || c_in_m || m_in_c),
				"round %d (kind %d): intersecting %d, brute force %g, inside %d %d",
				round, kind, r.intersecting, best, c_in_m, m_in_c);
			if (!r.intersecting)
				ck_near(r.distance, best, 1e-8);
			if (c_in_m)
				ck_assert_int_eq(r.contact, CLASH_CONTACT_B_IN_A);
		}
		free(w);
	}
	tm_free(&t);
}
END_TEST

START_TEST(l_bracket_notch_and_inside)
{
	tmesh l;
	l_bracket(&l);
	ck_assert_int_eq(clash_mesh_is_solid(l.m), 1);
	double probe[24];
	for (int i = 0; i < 8; i++) {
		probe[3 * i] = (i & 1) ? 0.25 : -0.25;
		probe[3 * i + 1] = (i & 2) ? 0.25 : -0.25;
		probe[3 * i + 2] = (i & 4) ? 0.25 : -0.25;
	}
	clash_shape m, p;
	clash_shape_init_mesh(&m, l.m);
	clash_shape_init(&p, 3, probe, 8);
	/* In the notch, 2.0 from both arms, within the hull of the L. */
	double at[3] = {3.25, 3.25, 0.5};
	clash_shape_set_translation(&p, at);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&p, &m, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 2.0, 1e-12);
	/* Inside the bracket's material. */
	double in[3] = {0.5, 2.5, 0.5};
	clash_shape_set_translation(&p, in);
	ck_assert_int_eq(clash_gjk(&p, &m, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_A_IN_B);
	/* Touching a face counts. */
	double touch[3] = {1.25, 2.5, 0.5};
	clash_shape_set_translation(&p, touch);
	ck_assert_int_eq(clash_gjk(&p, &m, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
	tm_free(&l);
}
END_TEST

/* A plate with a square hole (an extruded square annulus, one closed
 * mesh); a bolt through the hole not touching it; a bolt wholly inside
 * the plate. */
START_TEST(bolt_through_a_hole)
{
	tmesh pl;
	tm_alloc(&pl, 16, 32);
	static const double sq[4][2] = {{-2, -2}, {2, -2}, {2, 2}, {-2, 2}};
	for (int z = 0; z < 2; z++)
		for (int i = 0; i < 4; i++) {
			vtx(&pl, sq[i][0], sq[i][1], z);         /* outer */
			vtx(&pl, sq[i][0] / 2, sq[i][1] / 2, z); /* inner */
		}
#define OV(i, z) ((uint32_t)(8 * (z) + 2 * ((i) % 4)))
#define IV(i, z) ((uint32_t)(8 * (z) + 2 * ((i) % 4) + 1))
	for (int i = 0; i < 4; i++) {
		tri(&pl, OV(i, 1), OV(i + 1, 1), IV(i + 1, 1));
		tri(&pl, OV(i, 1), IV(i + 1, 1), IV(i, 1));
		tri(&pl, OV(i, 0), IV(i + 1, 0), OV(i + 1, 0));
		tri(&pl, OV(i, 0), IV(i, 0), IV(i + 1, 0));
		tri(&pl, OV(i, 0), OV(i + 1, 0), OV(i + 1, 1));
		tri(&pl, OV(i, 0), OV(i + 1, 1), OV(i, 1));
		tri(&pl, IV(i, 0), IV(i + 1, 1), IV(i + 1, 0));
		tri(&pl, IV(i, 0), IV(i, 1), IV(i + 1, 1));
	}
#undef OV
#undef IV
	tm_build(&pl);
	ck_assert_int_eq(clash_mesh_is_solid(pl.m), 1);
	tmesh bolt;
	double lo[3] = {-0.9, -0.9, -3}, hi[3] = {0.9, 0.9, 3};
	box_mesh(&bolt, lo, hi);
	clash_shape p, s;
	clash_shape_init_mesh(&p, pl.m);
	clash_shape_init_mesh(&s, bolt.m);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&s, &p, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 0.1, 1e-12);
	/* As a convex bolt too. */
	clash_shape c;
	clash_shape_init(&c, 3, bolt.pos, 8);
	ck_assert_int_eq(clash_gjk(&c, &p, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 0.1, 1e-12);
	/* A small bolt inside the plate's material. */
	double small_lo[3] = {-0.1, -0.1, -0.3}, small_hi[3] = {0.1, 0.1, 0.3};
	tmesh sb;
	box_mesh(&sb, small_lo, small_hi);
	clash_shape_init_mesh(&s, sb.m);
	double t[3] = {1.5, 0, 0.5};
	clash_shape_set_translation(&s, t);
	ck_assert_int_eq(clash_gjk(&s, &p, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_A_IN_B);
	ck_assert_int_eq(clash_gjk(&p, &s, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_B_IN_A);
	/* The plate without its last triangle leaks little: a solid still,
	 * the bolt inside it. */
	size_t size = clash_mesh_size(pl.nv, pl.nt - 1);
	void *st = malloc(size);
	clash_mesh *open;
	ck_assert_int_eq(clash_mesh_build(st, size, pl.pos, pl.nv, pl.idx, pl.nt - 1, &open),
	                 CLASH_OK);
	ck_assert_int_eq(clash_mesh_is_solid(open), 1);
	clash_shape o;
	clash_shape_init_mesh(&o, open);
	ck_assert_int_eq(clash_gjk(&s, &o, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_A_IN_B);
	/* Its top alone is an open surface: it holds nothing. */
	ck_assert_int_eq(clash_mesh_build(st, size, pl.pos, pl.nv, pl.idx, 1, &open), CLASH_OK);
	ck_assert_int_eq(clash_mesh_is_solid(open), 0);
	clash_shape_init_mesh(&o, open);
	ck_assert_int_eq(clash_gjk(&s, &o, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_assert_int_eq(r.solid_b, 0);
	/* Its distance: that of two convex shapes, the bolt and the triangle. */
	double tv[9], bv[24];
	for (int j = 0; j < 3; j++)
		memcpy(tv + 3 * j, pl.pos + 3 * pl.idx[j], 3 * sizeof(double));
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			bv[3 * i + k] = sb.pos[3 * i + k] + t[k];
	clash_shape ct, cb;
	clash_shape_init(&ct, 3, tv, 3);
	clash_shape_init(&cb, 3, bv, 8);
	clash_result cr;
	ck_assert_int_eq(clash_gjk(&cb, &ct, NULL, &cr), CLASH_OK);
	ck_near(r.distance, cr.distance, 1e-12);
	free(st);
	tm_free(&pl);
	tm_free(&bolt);
	tm_free(&sb);
}
END_TEST

START_TEST(other_methods_say_not_supported)
{
	tmesh b;
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	box_mesh(&b, lo, hi);
	clash_shape m, c;
	clash_shape_init_mesh(&m, b.m);
	clash_shape_init(&c, 3, b.pos, 8);
	clash_result r;
	ck_assert_int_eq(clash_lp_simplex(&m, &c, NULL, &r), CLASH_ENOTSUP);
	ck_assert_int_eq(clash_lp_ipm(&c, &m, NULL, &r), CLASH_ENOTSUP);
	clash_containment cc;
	ck_assert_int_eq(clash_contains(&c, &m, NULL, &cc), CLASH_ENOTSUP);
	ck_assert_int_eq(clash_contains(&m, &c, NULL, &cc), CLASH_OK);
	ck_assert_int_eq(cc.contained, 1);
	clash_motion mo = {{1, 0, 0}, {0, 0, 0}};
	ck_assert_int_eq(clash_swept(&m, NULL, &c, &mo, NULL, &r), CLASH_ENOTSUP);
	clash_options o = {0};
	size_t w = 0;
	o.warm_count = 1;
	o.warm_a = o.warm_b = &w;
	ck_assert_int_eq(clash_gjk(&m, &c, &o, &r), CLASH_ENOTSUP);
	volatile int stop = 1;
	clash_options oc = {0};
	oc.cancel = &stop;
	tm_free(&b);
	tmesh k;
	knot_mesh(&k, 1, 0.3, 200, 16);
	clash_shape_init_mesh(&m, k.m);
	clash_shape_init_mesh(&c, k.m);
	double t[3] = {3.2, 0.1, 0.05};
	clash_shape_set_translation(&c, t);
	ck_assert_int_eq(clash_gjk(&m, &c, &oc, &r), CLASH_ECANCELED);
	tm_free(&k);
}
END_TEST

/* Mesh leaves in a compound; a mesh in a scene; a mesh in motion. */
START_TEST(compound_scene_and_motion)
{
	tmesh t, b;
	torus_mesh(&t, 1.0, 0.25, 16, 8);
	double lo[3] = {-0.2, -0.2, -0.2}, hi[3] = {0.2, 0.2, 0.2};
	box_mesh(&b, lo, hi);
	clash_shape parts[2];
	clash_shape_init_mesh(&parts[0], t.m);
	clash_shape_init_mesh(&parts[1], t.m);
	double off[3] = {5, 0, 0};
	clash_shape_set_translation(&parts[1], off);
	clash_shape comp, probe;
	ck_assert_int_eq(clash_shape_init_compound(&comp, 3, parts, 2), CLASH_OK);
	clash_shape_init_mesh(&probe, b.m);
	/* In the hole of the second torus: 1 - 0.25 - 0.2 from its tube
	 * (the box's corner reaches 0.2 sqrt 2 sideways). */
	clash_shape_set_translation(&probe, off);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&comp, &probe, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_assert(r.distance > 0.4 && r.distance < 0.56);
	ck_assert_int_eq((int)r.part_a, 1);
	double on[3] = {6, 0, 0};
	clash_shape_set_translation(&probe, on);
	ck_assert_int_eq(clash_gjk(&comp, &probe, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);

	/* A scene: the probe inside the first torus's tube, a box far away. */
	clash_shape objs[3];
	clash_shape_init_mesh(&objs[0], t.m);
	clash_shape_init_mesh(&objs[1], b.m);
	double in_tube[3] = {1, 0, 0}, far[3] = {10, 0, 0};
	clash_shape_set_translation(&objs[1], in_tube);
	clash_shape_init_mesh(&objs[2], b.m);
	clash_shape_set_translation(&objs[2], far);
	objs[1].mesh = NULL; /* the probe as a convex box */
	objs[1].vertices = b.pos;
	objs[1].count = 8;
	clash_scene sc;
	memset(&sc, 0, sizeof sc);
	sc.count = 3;
	sc.shapes = objs;
	clash_scene_hit *hits;
	size_t nh;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &nh, NULL), CLASH_OK);
	ck_assert_uint_eq(nh, 1);
	ck_assert_uint_eq(hits[0].a, 0);
	ck_assert_uint_eq(hits[0].b, 1);
	ck_assert_int_eq(hits[0].cls, CLASH_CLASS_CLASH);
	free(hits);

	/* Motion: the box mesh flies along x through the torus's tube; the
	 * first contact against sampling. */
	clash_shape a, m;
	clash_shape_init_mesh(&a, t.m);
	clash_shape_init_mesh(&m, b.m);
	double start[3] = {-3, 0.05, 0.02};
	clash_shape_set_translation(&m, start);
	clash_motion mo = {{3, 0, 0}, {0, 0, 0.7}};
	clash_toi_result tr;
	ck_assert_int_eq(clash_toi(&a, NULL, &m, &mo, 0.0, NULL, &tr), CLASH_OK);
	ck_assert_int_eq(tr.contact, 1);
	double first = -1;
	for (int i = 0; i <= 2000; i++) {
		double tt = i / 2000.0;
		clash_shape pm;
		clash_motion_pose(&pm, &m, &mo, tt);
		ck_assert_int_eq(clash_gjk(&a, &pm, NULL, &r), CLASH_OK);
		if (r.intersecting) {
			first = tt;
			break;
		}
	}
	ck_assert(first >= 0);
	ck_assert(tr.toi <= first + 1e-9 && tr.toi >= first - 1.0 / 2000 - 1e-9);
	tm_free(&t);
	tm_free(&b);
}
END_TEST

/* Larger random meshes: a torus of 40 x 25 = 2 000 triangles against a
 * box, a knot and itself at random poses, against brute force over all
 * triangle pairs (4 million clash_gjk pairs for the torus with itself). */
START_TEST(two_thousand_triangles_against_brute_force)
{
	prng g;
	g.s = 1321;
	tmesh t, k, b;
	torus_mesh(&t, 1.0, 0.3, 40, 25);
	ck_assert_uint_eq(t.nt, 2000);
	knot_mesh(&k, 1.0, 0.3, 48, 6);
	double lo[3] = {-0.3, -0.2, -0.5}, hi[3] = {0.3, 0.2, 0.5};
	box_mesh(&b, lo, hi);
	check_pair(&t, &b, &g, 12, 1.2, 1);
	check_pair(&t, &k, &g, 3, 1.5, 0);
	check_pair(&t, &t, &g, 1, 1.5, 0);
	tm_free(&t);
	tm_free(&k);
	tm_free(&b);
}
END_TEST

static void set_pose(clash_shape *s, const double q[4], const double t[3])
{
	ck_assert_int_eq(clash_shape_set_quaternion(s, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(s, t), CLASH_OK);
}

/* A solid with a cavity: a ball of radius 1 with a spherical hole of
 * radius 0.6, its inner shell oriented inward (closed and consistently
 * oriented, so a solid).  The cavity is outside the solid, as the
 * generalized winding number says (+1 - 1 = 0 there): a probe in the
 * cavity is apart, at its distance to the inner shell; a probe in the
 * wall is inside; a probe holding the whole shell in its own cavity... is
 * the shell inside nothing. */
START_TEST(nested_solids_and_cavities)
{
	tmesh shell, probe;
	const double o[3] = {0, 0, 0};
	tm_alloc(&shell, 2 * sphere_vertices(32, 16), 2 * sphere_triangles(32, 16));
	add_sphere(&shell, o, 1.0, 32, 16, 0);
	add_sphere(&shell, o, 0.6, 32, 16, 1);
	tm_build(&shell);
	ck_assert_int_eq(clash_mesh_is_solid(shell.m), 1);
	tm_alloc(&probe, sphere_vertices(12, 6), sphere_triangles(12, 6));
	add_sphere(&probe, o, 0.1, 12, 6, 0);
	tm_build(&probe);
	prng g;
	g.s = 1331;
	/* Probe centres: the cavity's middle, off-centre in the cavity, in
	 * the wall, beyond, each under a random common rigid motion. */
	const double at[4][3] = {{0, 0, 0}, {0.2, -0.15, 0.1}, {0, 0.8, 0}, {0, 0, 1.5}};
	const int want_hit[4] = {0, 0, 1, 0};
	for (int round = 0; round < 8; round++)
		for (int c = 0; c < 4; c++) {
			clash_shape a, b;
			clash_shape_init_mesh(&a, shell.m);
			clash_shape_init_mesh(&b, probe.m);
			double q[4], shift[3], pc[3];
			prng_motion(&g, 5, q, shift);
			set_pose(&a, q, shift);
			world(&a, at[c], pc);
			set_pose(&b, q, pc);
			clash_result r;
			ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
			double *wa = world_tris(&a, &shell), *wb = world_tris(&b, &probe);
			ck_assert_int_eq(r.intersecting, want_hit[c]);
			/* The winding number of the probe's centre agrees. */
			ck_assert_int_eq(fabs(winding_ref(wa, shell.nt, pc)) > 0.5, want_hit[c]);
			if (want_hit[c]) {
				ck_assert_int_eq(r.contact, CLASH_CONTACT_B_IN_A);
			} else {
				double d = brute_pairs(wa, shell.nt, wb, probe.nt);
				ck_near(r.distance, d, 1e-9);
			}
			clash_options vo = {0};
			vo.want = CLASH_WANT_VERDICT;
			clash_result v;
			ck_assert_int_eq(clash_gjk(&b, &a, &vo, &v), CLASH_OK);
			ck_assert_int_eq(v.intersecting, want_hit[c]);
			free(wa);
			free(wb);
		}
	/* A ball filling the cavity exactly less 0.05: apart by 0.05. */
	tmesh ball;
	tm_alloc(&ball, sphere_vertices(32, 16), sphere_triangles(32, 16));
	add_sphere(&ball, o, 0.55, 32, 16, 0);
	tm_build(&ball);
	clash_shape a, b;
	clash_shape_init_mesh(&a, shell.m);
	clash_shape_init_mesh(&b, ball.m);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	double *wa = world_tris(&a, &shell), *wb = world_tris(&b, &ball);
	ck_near(r.distance, brute_pairs(wa + 9 * (shell.nt / 2), shell.nt / 2, wb, ball.nt), 1e-9);
	free(wa);
	free(wb);
	tm_free(&ball);
	tm_free(&shell);
	tm_free(&probe);
}
END_TEST

/* Two tori linked like chain links, not touching: the second's centre
 * circle runs through the first's hole and round its tube.  Not
 * intersecting (neither holds the other: the winding numbers of their
 * vertices are 0), the distance equal to brute force, at random common
 * poses; then moved so the tubes cross. */
START_TEST(interlocked_tori)
{
	tmesh a, b;
	torus_mesh(&a, 1.0, 0.25, 32, 12);
	/* b: a's vertices turned a quarter about x, moved by (1, 0, 0). */
	tm_alloc(&b, a.nv, a.nt);
	for (size_t i = 0; i < a.nv; i++)
		vtx(&b, a.pos[3 * i] + 1.0, -a.pos[3 * i + 2], a.pos[3 * i + 1]);
	for (size_t i = 0; i < a.nt; i++)
		tri(&b, a.idx[3 * i], a.idx[3 * i + 1], a.idx[3 * i + 2]);
	tm_build(&b);
	ck_assert_int_eq(clash_mesh_is_solid(b.m), 1);
	prng g;
	g.s = 1341;
	for (int round = 0; round < 6; round++) {
		clash_shape sa, sb;
		clash_shape_init_mesh(&sa, a.m);
		clash_shape_init_mesh(&sb, b.m);
		double q[4], t[3];
		prng_motion(&g, 3, q, t);
		set_pose(&sa, q, t);
		set_pose(&sb, q, t);
		clash_result r;
		ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
		double *wa = world_tris(&sa, &a), *wb = world_tris(&sb, &b);
		double d = brute_pairs(wa, a.nt, wb, b.nt);
		ck_assert(d > 0.3);
		ck_assert_int_eq(r.intersecting, 0);
		ck_near(r.distance, d, 1e-9);
		double *va = world_verts(&sa, a.pos, a.nv), *vb = world_verts(&sb, b.pos, b.nv);
		ck_assert_int_eq(any_inside(va, a.nv, wb, b.nt), 0);
		ck_assert_int_eq(any_inside(vb, b.nv, wa, a.nt), 0);
		clash_options vo = {0};
		vo.want = CLASH_WANT_VERDICT;
		ck_assert_int_eq(clash_gjk(&sb, &sa, &vo, &r), CLASH_OK);
		ck_assert_int_eq(r.intersecting, 0);
		free(va);
		free(vb);
		free(wa);
		free(wb);
	}
	/* Slid along x by 0.5: the tubes cross. */
	clash_shape sa, sb;
	clash_shape_init_mesh(&sa, a.m);
	clash_shape_init_mesh(&sb, b.m);
	double t[3] = {0.5, 0, 0};
	clash_shape_set_translation(&sb, t);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
	tm_free(&a);
	tm_free(&b);
}
END_TEST

/* The facets of the hull of n points in general position on an
 * ellipsoid, by brute force (a triple is a facet when every other point
 * lies strictly below its plane), outward: a closed mesh of the hull. */
static void hull_mesh(tmesh *t, const double *p, size_t n)
{
	tm_alloc(t, n, 2 * n);
	for (size_t i = 0; i < n; i++)
		vtx(t, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			for (uint32_t k = j + 1; k < n; k++) {
				double e1[3], e2[3], nr[3];
				for (int c = 0; c < 3; c++) {
					e1[c] = p[3 * j + c] - p[3 * i + c];
					e2[c] = p[3 * k + c] - p[3 * i + c];
				}
				nr[0] = e1[1] * e2[2] - e1[2] * e2[1];
				nr[1] = e1[2] * e2[0] - e1[0] * e2[2];
				nr[2] = e1[0] * e2[1] - e1[1] * e2[0];
				int pos = 0, neg = 0;
				for (size_t m = 0; m < n; m++) {
					if (m == i || m == j || m == k)
						continue;
					double h = nr[0] * (p[3 * m] - p[3 * i]) +
					           nr[1] * (p[3 * m + 1] - p[3 * i + 1]) +
					           nr[2] * (p[3 * m + 2] - p[3 * i + 2]);
					pos += h > 0;
					neg += h < 0;
				}
				if (pos == 0 && neg > 0)
					tri(t, i, j, k);
				else if (neg == 0 && pos > 0)
					tri(t, i, k, j);
			}
	ck_assert_uint_eq(t->nt, 2 * n - 4); /* simplicial, all points on the hull */
	tm_build(t);
}

static void random_ellipsoid_points(prng *g, double *p, size_t n)
{
	double ax[3] = {prng_range(g, 0.3, 1), prng_range(g, 0.3, 1), prng_range(g, 0.3, 1)};
	for (size_t i = 0; i < n; i++) {
		double d[3], len = 0;
		do {
			len = 0;
			for (int k = 0; k < 3; k++) {
				d[k] = prng_range(g, -1, 1);
				len += d[k] * d[k];
			}
		} while (len > 1 || len < 1e-3);
		for (int k = 0; k < 3; k++)
			p[3 * i + k] = ax[k] * d[k] / sqrt(len);
	}
}

/* A mesh of a convex polytope's hull answers as the polytope's vertex
 * list does (clash_gjk's convex path, and the qhull oracle), against a
 * convex polytope and against another hull mesh, at random poses. */
START_TEST(hull_mesh_as_its_vertex_list)
{
	prng g;
	g.s = 1351;
	int agreed = 0;
	for (int round = 0; round < 60; round++) {
		size_t na = 4 + (size_t)round % 17, nb = 4 + (size_t)(round * 7) % 13;
		double pa[3 * 20], pb[3 * 16];
		random_ellipsoid_points(&g, pa, na);
		random_ellipsoid_points(&g, pb, nb);
		tmesh ha, hb;
		hull_mesh(&ha, pa, na);
		hull_mesh(&hb, pb, nb);
		ck_assert_int_eq(clash_mesh_is_solid(ha.m), 1);
		clash_shape ma, mb, va, vb;
		clash_shape_init_mesh(&ma, ha.m);
		clash_shape_init_mesh(&mb, hb.m);
		clash_shape_init(&va, 3, pa, na);
		clash_shape_init(&vb, 3, pb, nb);
		random_pose(&ma, &g, 0.8, 0);
		random_pose(&mb, &g, 0.8, 0);
		memcpy(va.linear, ma.linear, sizeof va.linear);
		memcpy(va.translation, ma.translation, sizeof va.translation);
		va.posed = ma.posed;
		memcpy(vb.linear, mb.linear, sizeof vb.linear);
		memcpy(vb.translation, mb.translation, sizeof vb.translation);
		vb.posed = mb.posed;
		clash_result cv;
		ck_assert_int_eq(clash_gjk(&va, &vb, NULL, &cv), CLASH_OK);
		double *wa = world_verts(&va, pa, na), *wb = world_verts(&vb, pb, nb);
		oracle_answer oa;
		ck_assert_int_eq(oracle_query(3, wa, na, 0, wb, nb, 0, &oa), ORACLE_OK);
		free(wa);
		free(wb);
		if (oa.hull_overlap ? oa.hull_depth < 1e-9 : oa.hull_distance < 1e-9) {
			tm_free(&ha); /* too close to call */
			tm_free(&hb);
			continue;
		}
		ck_assert_int_eq(cv.intersecting, oa.hull_overlap);
		const clash_shape *as[2] = {&ma, &ma}, *bs[2] = {&vb, &mb};
		for (int c = 0; c < 2; c++) {
			clash_result r;
			ck_assert_int_eq(clash_gjk(as[c], bs[c], NULL, &r), CLASH_OK);
			ck_assert_int_eq(r.intersecting, oa.hull_overlap);
			if (!r.intersecting) {
				ck_near(r.distance, oa.hull_distance, 1e-9);
				ck_near(r.distance, cv.distance, 1e-9);
			}
		}
		agreed++;
		tm_free(&ha);
		tm_free(&hb);
	}
	ck_assert_int_ge(agreed, 50);
}
END_TEST

/* ---- exact touching ------------------------------------------------------------ */

/* The tetrahedron o + {0, L e_x, L e_y, L e_z}, outward. */
static void tetra_mesh(tmesh *t, double o, double L)
{
	tm_alloc(t, 4, 4);
	uint32_t v0 = vtx(t, o, o, o), x = vtx(t, o + L, o, o), y = vtx(t, o, o + L, o),
		 z = vtx(t, o, o, o + L);
	tri(t, v0, y, x);
	tri(t, v0, x, z);
	tri(t, v0, z, y);
	tri(t, x, y, z);
	tm_build(t);
}

/* A small tetrahedron with its apex at p and its base beyond it along
 * (1, 1, 1), outward. */
static void spike_mesh(tmesh *t, const double *p)
{
	tm_alloc(t, 4, 4);
	uint32_t a = vtx(t, p[0], p[1], p[2]), b = vtx(t, p[0] + 20, p[1] + 5, p[2] + 5),
		 c = vtx(t, p[0] + 5, p[1] + 20, p[2] + 5),
		 d = vtx(t, p[0] + 5, p[1] + 5, p[2] + 20);
	tri(t, a, c, b);
	tri(t, a, d, c);
	tri(t, a, b, d);
	tri(t, b, c, d);
	tm_build(t);
}

/* *x's last mantissa bit set to y's. */
static void same_last_bit(double *x, double y)
{
	uint64_t u, w;
	memcpy(&u, x, sizeof u);
	memcpy(&w, &y, sizeof w);
	u = (u & ~(uint64_t)1) | (w & 1);
	memcpy(x, &u, sizeof u);
}

/* One triangle, an open surface. */
static void one_tri_mesh(tmesh *t, const double *p, const double *q, const double *r)
{
	tm_alloc(t, 3, 1);
	vtx(t, p[0], p[1], p[2]);
	vtx(t, q[0], q[1], q[2]);
	vtx(t, r[0], r[1], r[2]);
	tri(t, 0, 1, 2);
	tm_build(t);
}

/* The least distance of the triangle pairs in the closed form of
 * tri_dist.h, rounded: to show that rounding bites in these cases. */
static double fp_pairs(const tmesh *a, const tmesh *b)
{
	clash_shape x, y;
	clash_shape_init_mesh(&x, a->m);
	clash_shape_init_mesh(&y, b->m);
	double *wa = world_tris(&x, a), *wb = world_tris(&y, b), best = INFINITY, p[3], q[3];
	for (size_t i = 0; i < a->nt; i++)
		for (size_t j = 0; j < b->nt; j++)
			best = fmin(best, sqrt(tri_dist2(wa + 9 * i, wb + 9 * j, p, q)));
	free(wa);
	free(wb);
	return best;
}

/* a and b (unposed) meet: every way of asking says so, distance 0, and
 * the common point is `at` when given. */
static void expect_contact(const tmesh *ta, const tmesh *tb, const double *at)
{
	clash_shape a, b;
	clash_shape_init_mesh(&a, ta->m);
	clash_shape_init_mesh(&b, tb->m);
	for (int swap = 0; swap < 2; swap++) {
		for (int verdict = 0; verdict < 2; verdict++) {
			clash_options o = {0};
			o.want = verdict ? CLASH_WANT_VERDICT : CLASH_WANT_DISTANCE;
			clash_result r;
			ck_assert_int_eq(clash_gjk(swap ? &b : &a, swap ? &a : &b, &o, &r),
			                 CLASH_OK);
			ck_assert_int_eq(r.intersecting, 1);
			ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
			ck_assert(r.distance == 0.0);
			for (int k = 0; k < 3; k++) {
				ck_assert(r.near_a[k] == r.near_b[k]);
				ck_assert(!at || r.near_a[k] == at[k]);
			}
		}
	}
}

/* Surfaces meeting at distance 0 are decided by the exact triangle test
 * (tri_overlap), their common point by tri_overlap_point, at offsets of
 * 1e6 where the rounded distances of the same triangles are not 0; near
 * misses within the tolerance still touch, larger gaps do not. */
START_TEST(exact_touching_at_large_offsets)
{
	const double off = 1e6 + 0.1, L = 1e6;
	/* A corner exactly on an oblique face: x + y + z = 3 off + L holds
	 * exactly for integers 333333 + 333333 + 333334 (offset each). */
	tmesh a, b;
	tetra_mesh(&a, off, L);
	double p[3] = {off + 333333, off + 333333, off + 333334};
	spike_mesh(&b, p);
	expect_contact(&a, &b, p);
	tm_free(&b);
	/* One ulp off the face, outside: within the tolerance, touching. */
	double p1[3] = {p[0], p[1], nextafter(p[2], INFINITY)};
	spike_mesh(&b, p1);
	clash_shape sa, sb;
	clash_shape_init_mesh(&sa, a.m);
	clash_shape_init_mesh(&sb, b.m);
	clash_result r;
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 1);
	ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
	tm_free(&b);
	/* One unit off: apart by 1 / sqrt(3). */
	double p2[3] = {p[0], p[1], p[2] + 1};
	spike_mesh(&b, p2);
	clash_shape_init_mesh(&sb, b.m);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, 1 / sqrt(3.0), 1e-9);
	tm_free(&b);
	tm_free(&a);

	/* Random triangles near 1.5e6 with full 53-bit coordinates; a vertex
	 * of the second exactly on the first, inside it: the midpoint of v2
	 * and of the midpoint m of v0 v1 (each pair summed shares its exponent
	 * and last bit, so the halves are exact); the second's other corners
	 * strictly on one side.  Contact at exactly that vertex, where the
	 * rounded closed-form distance is often not 0. */
	prng g;
	g.s = 1366;
	int rounded_apart = 0;
	for (int round = 0; round < 40; round++) {
		double v[9], q[9], e1[3], e2[3], n[3];
		for (int k = 0; k < 9; k++)
			v[k] = prng_range(&g, 1.1e6, 2e6);
		for (int k = 0; k < 3; k++) {
			same_last_bit(&v[3 + k], v[k]);
			double m = (v[k] + v[3 + k]) / 2;
			ck_assert(m - v[k] == v[3 + k] - m); /* exact */
			same_last_bit(&v[6 + k], m);
			q[k] = (m + v[6 + k]) / 2;
			ck_assert(q[k] - m == v[6 + k] - q[k]);
			e1[k] = v[3 + k] - v[k];
			e2[k] = v[6 + k] - v[k];
		}
		n[0] = e1[1] * e2[2] - e1[2] * e2[1];
		n[1] = e1[2] * e2[0] - e1[0] * e2[2];
		n[2] = e1[0] * e2[1] - e1[1] * e2[0];
		double side = round % 2 ? 1e-6 : -1e-6;
		for (int k = 0; k < 3; k++) {
			q[3 + k] = q[k] + prng_range(&g, -1e3, 1e3) + side * n[k];
			q[6 + k] = q[k] + prng_range(&g, -1e3, 1e3) + side * n[k];
		}
		one_tri_mesh(&a, v, v + 3, v + 6);
		one_tri_mesh(&b, q, q + 3, q + 6);
		rounded_apart += fp_pairs(&a, &b) > 0.0;
		expect_contact(&a, &b, q);
		tm_free(&a);
		tm_free(&b);
	}
	printf("mesh: exact touching at 1e6: %d of 40 rounded distances not 0\n", rounded_apart);
	ck_assert_int_gt(rounded_apart, 0);

	/* Two boxes sharing part of a face exactly (the face x = off + 1). */
	const double hx = off + 1;
	double alo[3] = {off, off, off}, ahi[3] = {hx, off + 1, off + 1};
	double blo[3] = {hx, off + 0.25, off + 0.3}, bhi[3] = {off + 2.7, off + 0.75, off + 1.9};
	box_mesh(&a, alo, ahi);
	box_mesh(&b, blo, bhi);
	expect_contact(&a, &b, NULL);
	clash_shape_init_mesh(&sa, a.m);
	clash_shape_init_mesh(&sb, b.m);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert(r.near_a[0] == hx);
	tm_free(&a);
	tm_free(&b);

	/* Coplanar triangles in the oblique plane x + y + z = 3 off + L:
	 * overlapping (contact), then apart in the plane. */
	double t0[3] = {off + L, off, off}, t1[3] = {off, off + L, off},
	       t2[3] = {off, off, off + L};
	double u0[3] = {off + 600000, off + 300000, off + 100000},
	       u1[3] = {off + 100000, off + 600000, off + 300000},
	       u2[3] = {off + 700000, off + 700000, off - 400000};
	one_tri_mesh(&a, t0, t1, t2);
	one_tri_mesh(&b, u0, u1, u2);
	expect_contact(&a, &b, NULL);
	tm_free(&b);
	/* Sharing a vertex only. */
	double w1[3] = {off + L + 1000, off - 500, off - 500},
	       w2[3] = {off + L + 500, off + 500, off - 1000};
	one_tri_mesh(&b, t0, w1, w2);
	expect_contact(&a, &b, t0);
	tm_free(&b);
	/* In the plane, 3 units beyond the edge t0 t1. */
	double v0[3] = {off + 500000 + 2, off + 500000 + 2, off - 4},
	       v1[3] = {off + 900000, off + 400000, off - 300000},
	       v2[3] = {off + 400000, off + 900000, off - 300000};
	one_tri_mesh(&b, v0, v1, v2);
	clash_shape_init_mesh(&sa, a.m);
	clash_shape_init_mesh(&sb, b.m);
	ck_assert_int_eq(clash_gjk(&sa, &sb, NULL, &r), CLASH_OK);
	ck_assert_int_eq(r.intersecting, 0);
	ck_near(r.distance, sqrt(24.0), 1e-6);
	tm_free(&b);
	tm_free(&a);
}
END_TEST

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Timings on two 102 400-triangle torus knots (printed; only correctness
 * is asserted, against the distance's symmetry and a 2-D scan). */
START_TEST(torus_knot_timings)
{
	double t0 = now();
	tmesh k;
	knot_mesh(&k, 1, 0.3, 800, 64);
	double t1 = now();
	ck_assert_uint_eq(k.nt, 102400);
	ck_assert_int_eq(clash_mesh_is_solid(k.m), 1);
	/* Build alone, repeated. */
	size_t size = clash_mesh_size(k.nv, k.nt);
	void *st = malloc(size);
	clash_mesh *m2;
	double best_build = INFINITY;
	for (int i = 0; i < 5; i++) {
		double s = now();
		ck_assert_int_eq(clash_mesh_build(st, size, k.pos, k.nv, k.idx, k.nt, &m2),
		                 CLASH_OK);
		best_build = fmin(best_build, now() - s);
	}
	(void)t1;
	(void)t0;
	printf("mesh: torus knot %zu triangles, build %.1f ms (best of 5), %zu bytes kept\n", k.nt,
	       1e3 * best_build, clash_mesh_bytes(m2));
	free(st);
	clash_shape a, b;
	clash_shape_init_mesh(&a, k.m);
	clash_shape_init_mesh(&b, k.m);
	const double dxs[3] = {3.2, 2.75, 0.5};
	const char *names[3] = {"apart", "crossing", "deep"};
	for (int c = 0; c < 3; c++) {
		double tr[3] = {dxs[c], 0.1, 0.05};
		clash_shape_set_translation(&b, tr);
		clash_result r;
		int reps = 200;
		double s = now();
		for (int i = 0; i < reps; i++)
			ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
		double dist_us = 1e6 * (now() - s) / reps;
		clash_options o = {0};
		o.want = CLASH_WANT_VERDICT;
		clash_result v;
		s = now();
		for (int i = 0; i < reps; i++)
			ck_assert_int_eq(clash_gjk(&a, &b, &o, &v), CLASH_OK);
		double verdict_us = 1e6 * (now() - s) / reps;
		ck_assert_int_eq(v.intersecting, r.intersecting);
		ck_assert_int_eq(r.intersecting, c > 0);
		printf("mesh: knot %-8s distance %8.1f us (d = %.6f, %d pairs), intersect %8.1f us\n",
		       names[c], dist_us, r.distance, r.iterations, verdict_us);
	}
	/* Against a small box. */
	double bx[24];
	for (int i = 0; i < 8; i++) {
		bx[3 * i] = (i & 1) ? 0.05 : -0.05;
		bx[3 * i + 1] = (i & 2) ? 0.05 : -0.05;
		bx[3 * i + 2] = (i & 4) ? 0.05 : -0.05;
	}
	clash_shape box;
	clash_shape_init(&box, 3, bx, 8);
	const double at[3][3] = {{0.0, 0.0, 0.0}, {1.5, 0.0, 0.0}, {1.3, 0.2, 0.1}};
	for (int c = 0; c < 3; c++) {
		clash_shape_set_translation(&box, at[c]);
		clash_result r;
		int reps = 2000;
		double s = now();
		for (int i = 0; i < reps; i++)
			ck_assert_int_eq(clash_gjk(&a, &box, NULL, &r), CLASH_OK);
		printf("mesh: knot vs small box at (%.1f %.1f %.1f): %.1f us (intersecting %d, d = %.6f)\n",
		       at[c][0], at[c][1], at[c][2], 1e6 * (now() - s) / reps, r.intersecting,
		       r.distance);
	}
	tm_free(&k);
}
END_TEST

/* Fuzz finding (tests/fuzz/findings/core/mesh-degenerate-through-solid.bin):
 * a mesh triangle with two equal corners is a segment; one from inside a
 * solid tetrahedron out through its face was answered separated (0.13
 * away): tri_dist2 asked a crossing of both triangles' planes, and a
 * segment has none, its corners and edges miss a piercing. */
START_TEST(degenerate_triangle_pierces)
{
	static const double seg[9] = {-4.0625, -4.0625, 0, 0, 0, 0, 0, 0, 0};
	static const double tet[12] = {0.28125,   0.25,        0.21875,        0.25,
	                               -0.21875,  -0.25,       -0.26171875,    0.25146484375,
	                               -0.203125, -0.26171875, -0.24853515625, 0.2568359375};
	static const uint32_t ti[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
	static uint64_t sa[8192], sb[8192];
	clash_mesh *ma, *mb;
	ck_assert_int_eq(clash_mesh_build(sa, sizeof sa, seg, 3, NULL, 1, &ma), CLASH_OK);
	ck_assert_int_eq(clash_mesh_build(sb, sizeof sb, tet, 4, ti, 4, &mb), CLASH_OK);
	clash_shape a, b;
	clash_shape_init_mesh(&a, ma);
	clash_shape_init_mesh(&b, mb);
	clash_result r;
	for (int swap = 0; swap < 2; swap++) {
		ck_assert_int_eq(clash_gjk(swap ? &b : &a, swap ? &a : &b, NULL, &r), CLASH_OK);
		ck_assert_int_eq(r.intersecting, 1);
		ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
	}
	/* tri_dist2 itself: a point-triangle (three equal corners) on a face
	 * is at 0, and the segment meets the surface once, in either order. */
	double ps[3], pt[3];
	double t0[9];
	for (int c = 0; c < 3; c++)
		memcpy(t0 + 3 * c, tet + 3 * ti[c], 3 * sizeof *t0);
	double cen[9];
	for (int k = 0; k < 3; k++)
		cen[k] = cen[3 + k] = cen[6 + k] = (t0[k] + t0[3 + k] + t0[6 + k]) / 3;
	ck_assert(tri_dist2(cen, t0, ps, pt) < 1e-30);
	ck_assert(tri_dist2(t0, cen, ps, pt) < 1e-30);
	int hits = 0, back = 0;
	for (int f = 0; f < 4; f++) {
		double t[9];
		for (int c = 0; c < 3; c++)
			memcpy(t + 3 * c, tet + 3 * ti[3 * f + c], 3 * sizeof *t);
		hits += tri_dist2(seg, t, ps, pt) == 0;
		back += tri_dist2(t, seg, pt, ps) == 0;
	}
	ck_assert_int_eq(hits, 1);
	ck_assert_int_eq(back, 1);
}
END_TEST

/* Fuzz finding (tests/fuzz/findings/core/mesh-capsule-touching-far.bin):
 * a capsule 1e-5 long under a shearing matrix against two triangles 5e-7
 * across, both 3e7 from the origin: the first pass's clash_gjk verdicts
 * said every triangle apart, the distance pass's clash_gjk found one
 * intersecting, and the answer was "separated" at distance -1 (the mark
 * of clash_gjk's common point).  Now a distance pass that comes within
 * the threshold answers touching. */
START_TEST(distance_pass_touching)
{
	static const double t[3] = {-28157952, 2671, 9325568};
	/* clang-format off */
	static const double w[18] = {
	    -28157951.999999762, 2671.0000001988374, 9325568.0000002906,
	    -28157952.000000238, 2671.0000002379529, 9325567.9999997616,
	    -28157951.999999717, 2670.9999998058192, 9325567.9999997616,
	    -28157951.999999717, 2670.9999998058192, 9325567.9999997616,
	    -28157952.000000238, 2671.0000002379529, 9325567.9999997616,
	    -28157952.000000238, 2670.9999997611158, 9325568.0000001788};
	/* clang-format on */
	static const double p[3] = {1.9073486328125e-06, 2.5033950805664062e-06, 0};
	static const double m[16] = {2.96875,
	                             -3.15625,
	                             -1,
	                             0,
	                             -1.65625,
	                             -0.28125,
	                             1.84375,
	                             0,
	                             0,
	                             -0.03125,
	                             0.96875,
	                             0,
	                             -28157952.000000015,
	                             2670.9999961853027,
	                             9325567.9999999702,
	                             1};
	double loc[18];
	for (int i = 0; i < 18; i++)
		loc[i] = w[i] - t[i % 3];
	clash_shape a;
	ck_assert_int_eq(clash_shape_init_primitive(&a, CLASH_KIND_CAPSULE, p), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_matrix(&a, m), CLASH_OK);
	static uint64_t sb[8192];
	for (int posed = 0; posed < 2; posed++) {
		clash_mesh *mb;
		ck_assert_int_eq(clash_mesh_build(sb, sizeof sb, posed ? loc : w, 6, NULL, 2, &mb),
		                 CLASH_OK);
		clash_shape b;
		clash_shape_init_mesh(&b, mb);
		if (posed)
			clash_shape_set_translation(&b, t);
		for (int swap = 0; swap < 2; swap++) {
			clash_result r;
			ck_assert_int_eq(clash_gjk(swap ? &b : &a, swap ? &a : &b, NULL, &r),
			                 CLASH_OK);
			ck_assert(r.distance >= 0);
			ck_assert_int_eq(r.intersecting, 1);
			ck_assert_int_eq(r.contact, CLASH_CONTACT_SURFACES);
			ck_assert(!memcmp(r.near_a, r.near_b, sizeof r.near_a));
		}
	}
}
END_TEST

/* The triangles under node k of m (tree order): [*lo, *hi). */
static void node_range(const clash_mesh *m, uint32_t k, uint32_t *lo, uint32_t *hi)
{
	const mesh_node *nd = &m->nodes[k];
	if (nd->count) {
		*lo = nd->first;
		*hi = nd->first + nd->count;
		return;
	}
	uint32_t l, h;
	node_range(m, nd->first, lo, &h);
	node_range(m, nd->first + 1, &l, hi);
	ck_assert_uint_eq(h, l);
}

/* Every corner of every triangle under each node lies in the node's
 * oriented box, read as the parallelepiped its float axes span (the
 * coordinates along them solved by Cramer's rule in doubles, not by
 * projections as the fit makes them); the root covers the whole mesh. */
static void check_boxes_hold(const clash_mesh *m)
{
	const mesh_obb *obbs = mesh_fit_get(m); /* fitted here, on one thread */
	ck_assert_ptr_nonnull(obbs);
	for (uint32_t k = 0; k < m->nnodes; k++) {
		if (k == 1)
			continue; /* the pad */
		const mesh_obb *o = &obbs[k];
		double A[9];
		for (int i = 0; i < 9; i++)
			A[i] = o->a[i];
		/* Columns of M = A^T: p - c = M s. */
		const double det = A[0] * (A[4] * A[8] - A[7] * A[5]) -
		                   A[3] * (A[1] * A[8] - A[7] * A[2]) +
		                   A[6] * (A[1] * A[5] - A[4] * A[2]);
		ck_assert(fabs(det - 1.0) < 1e-5);
		uint32_t lo, hi;
		node_range(m, k, &lo, &hi);
		if (k == 0) {
			ck_assert_uint_eq(lo, 0);
			ck_assert_uint_eq(hi, m->ntriangles);
		}
		for (uint32_t t = lo; t < hi; t++)
			for (int c = 0; c < 3; c++) {
				const double *p = m->tri + 9 * t + 3 * c;
				double v[3], sv[3];
				for (int j = 0; j < 3; j++)
					v[j] = p[j] - m->origin[j] - (double)o->c[j];
				for (int i = 0; i < 3; i++) {
					/* Cramer: column i of M replaced by v; M's columns
					 * are A's rows. */
					double col[3][3];
					for (int cc = 0; cc < 3; cc++)
						for (int r = 0; r < 3; r++)
							col[cc][r] = cc == i ? v[r] : A[3 * cc + r];
					const double di = col[0][0] * (col[1][1] * col[2][2] -
					                               col[1][2] * col[2][1]) -
					                  col[1][0] * (col[0][1] * col[2][2] -
					                               col[0][2] * col[2][1]) +
					                  col[2][0] * (col[0][1] * col[1][2] -
					                               col[0][2] * col[1][1]);
					sv[i] = di / det;
				}
				for (int i = 0; i < 3; i++)
					ck_assert_msg(
						fabs(sv[i]) <= (double)o->h[i],
						"node %u triangle %u corner %d: %g along axis %d, extent %g",
						k, t, c, sv[i], i, (double)o->h[i]);
			}
	}
}

/* The oriented boxes (core/mesh_fit.c) hold their triangles, on meshes
 * near the origin and far from it; a lone tilted triangle's box is flat
 * (the fit follows the surface, not the axes). */
START_TEST(oriented_boxes_hold_their_triangles)
{
	tmesh t, k, l, far;
	torus_mesh(&t, 1.0, 0.3, 40, 25);
	knot_mesh(&k, 1.0, 0.3, 48, 6);
	l_bracket(&l);
	torus_mesh(&far, 1.0, 0.3, 20, 12);
	tm_free(&far);
	tm_alloc(&far, 20 * 12, 2 * 20 * 12);
	{
		tmesh src;
		torus_mesh(&src, 1.0, 0.3, 20, 12);
		memcpy(far.idx, src.idx, 3 * src.nt * sizeof *far.idx);
		for (size_t i = 0; i < src.nv; i++) {
			far.pos[3 * i] = src.pos[3 * i] * 1e-3 + 12345.678;
			far.pos[3 * i + 1] = src.pos[3 * i + 2] * 1e-3 - 9876.5;
			far.pos[3 * i + 2] = src.pos[3 * i + 1] * 1e-3 + 0.25;
		}
		far.nv = src.nv;
		far.nt = src.nt;
		tm_free(&src);
		tm_build(&far);
	}
	check_boxes_hold(t.m);
	check_boxes_hold(k.m);
	check_boxes_hold(l.m);
	check_boxes_hold(far.m);
	tmesh one;
	tm_alloc(&one, 3, 1);
	const double tri[9] = {0.1, 0.2, 0.3, 1.7, -0.4, 0.9, -0.6, 1.1, 1.4};
	memcpy(one.pos, tri, sizeof tri);
	one.idx[0] = 0, one.idx[1] = 1, one.idx[2] = 2;
	one.nv = 3;
	one.nt = 1;
	tm_build(&one);
	check_boxes_hold(one.m);
	const float *h = mesh_fit_get(one.m)[0].h;
	ck_assert(fmin(h[0], fmin(h[1], h[2])) < 1e-5 * fmax(h[0], fmax(h[1], h[2])));
	tm_free(&one);
	tm_free(&t);
	tm_free(&k);
	tm_free(&l);
	tm_free(&far);
}
END_TEST

/* Rotated poses at small gaps, where a lower bound of the oriented boxes
 * that came out too high would lose the least pair: b turned at random
 * (or turned as a is: the translation-only pair of frames, up to
 * rounding) and moved along a random direction until the distance is a
 * target gap (moved by the query's distance still to go, which never
 * overshoots); then the distance, both ways, and the verdict against
 * brute force over all triangle pairs. */
START_TEST(rotated_near_misses_against_brute_force)
{
	prng g;
	g.s = 2811;
	tmesh k, t;
	knot_mesh(&k, 1.0, 0.3, 24, 6);
	torus_mesh(&t, 1.0, 0.3, 16, 8);
	static const double gaps[] = {1e-6, 1e-3, 0.02, 0.1, 0.4, 1.5};
	for (int round = 0; round < 24; round++) {
		const tmesh *ta = &k, *tb = round % 3 == 2 ? &t : &k;
		clash_shape a, b;
		clash_shape_init_mesh(&a, ta->m);
		clash_shape_init_mesh(&b, tb->m);
		double qa[4], qb[4], ta0[3], tb0[3];
		prng_motion(&g, 1.0, qa, ta0);
		prng_motion(&g, 1.0, qb, tb0);
		set_pose(&a, qa, ta0);
		set_pose(&b, round % 4 == 3 ? qa : qb, ta0);
		double dir[3], len = 0.0;
		for (int j = 0; j < 3; j++) {
			dir[j] = prng_range(&g, -1, 1);
			len += dir[j] * dir[j];
		}
		len = sqrt(len);
		const double gap = gaps[round % 6];
		double s = 8.0;
		clash_result r;
		for (int it = 0; it < 200; it++) {
			double tr[3];
			for (int j = 0; j < 3; j++)
				tr[j] = ta0[j] + s * dir[j] / len;
			ck_assert_int_eq(clash_shape_set_translation(&b, tr), CLASH_OK);
			ck_assert_int_eq(clash_gjk(&a, &b, NULL, &r), CLASH_OK);
			if (r.intersecting || r.distance - gap < 1e-3 * gap)
				break;
			s -= r.distance - gap;
		}
		double *wa = world_tris(&a, ta), *wb = world_tris(&b, tb);
		const double d = brute_pairs(wa, ta->nt, wb, tb->nt);
		free(wa);
		free(wb);
		if (fabs(d) < 1e-9)
			continue; /* too close to call */
		ck_assert_int_eq(r.intersecting, 0);
		ck_assert_msg(fabs(r.distance - d) <= 1e-9 * (1 + d),
		              "round %d: %.17g, brute force %.17g", round, r.distance, d);
		clash_result sw, v;
		ck_assert_int_eq(clash_gjk(&b, &a, NULL, &sw), CLASH_OK);
		ck_near(sw.distance, d, 1e-9 * (1 + d));
		clash_options o = {0};
		o.want = CLASH_WANT_VERDICT;
		ck_assert_int_eq(clash_gjk(&a, &b, &o, &v), CLASH_OK);
		ck_assert_int_eq(v.intersecting, 0);
	}
	tm_free(&k);
	tm_free(&t);
}
END_TEST

/* ---- one mesh, many threads ------------------------------------------------ */

/* Poses of a knot against itself (one mesh on both sides) and against a
 * second mesh: both turned at random, b moved along a random direction to
 * a target gap; the distance and the verdict of each. */
#define SHARED_POSES 24

typedef struct shared_pose {
	double qa[4], ta[3], qb[4], tb[3];
	int self, verdict;
} shared_pose;

typedef struct shared_run {
	const clash_mesh *k, *t;
	const shared_pose *poses;
	const clash_result *want; /* the single-threaded answers */
	int start;                /* each thread its own order */
	pthread_barrier_t *go;
	int wrong;
} shared_run;

static void shared_answer(const clash_mesh *k, const clash_mesh *t, const shared_pose *p,
                          clash_result *r)
{
	clash_shape a, b;
	clash_shape_init_mesh(&a, k);
	clash_shape_init_mesh(&b, p->self ? k : t);
	clash_shape_set_quaternion(&a, p->qa);
	clash_shape_set_translation(&a, p->ta);
	clash_shape_set_quaternion(&b, p->qb);
	clash_shape_set_translation(&b, p->tb);
	clash_options o = {0};
	o.want = p->verdict ? CLASH_WANT_VERDICT : CLASH_WANT_DISTANCE;
	if (clash_gjk(&a, &b, &o, r) != CLASH_OK)
		r->distance = NAN;
}

static void *shared_worker(void *arg)
{
	shared_run *w = arg;
	pthread_barrier_wait(w->go);
	for (int i = 0; i < SHARED_POSES; i++) {
		const int n = (w->start + i) % SHARED_POSES;
		clash_result r;
		shared_answer(w->k, w->t, &w->poses[n], &r);
		const clash_result *e = &w->want[n];
		/* The same least distance whichever boxes bounded the search;
		 * the same points up to rounding (pairs of triangles that share
		 * the nearest corner tie, and either may be met first). */
		int same = r.intersecting == e->intersecting;
		if (!w->poses[n].verdict) {
			same = same && r.distance == e->distance;
			for (int j = 0; j < 3; j++)
				same = same && fabs(r.near_a[j] - e->near_a[j]) <= 1e-12 &&
				       fabs(r.near_b[j] - e->near_b[j]) <= 1e-12;
		}
		w->wrong += !same;
	}
	return NULL;
}

static void shared_poses(const tmesh *k, const tmesh *t, shared_pose *poses)
{
	prng g;
	g.s = 4242;
	static const double gaps[] = {1e-3, 0.02, 0.1, 0.4};
	for (int i = 0; i < SHARED_POSES; i++) {
		shared_pose *p = &poses[i];
		p->self = i % 2;
		p->verdict = i % 3 == 2;
		prng_motion(&g, 1.0, p->qa, p->ta);
		prng_motion(&g, 1.0, p->qb, p->tb);
		double dir[3], len = 0.0, s = 8.0;
		for (int j = 0; j < 3; j++) {
			dir[j] = prng_range(&g, -1, 1);
			len += dir[j] * dir[j];
		}
		len = sqrt(len);
		for (int it = 0; it < 200; it++) {
			for (int j = 0; j < 3; j++)
				p->tb[j] = p->ta[j] + s * dir[j] / len;
			shared_pose d = *p;
			d.verdict = 0;
			clash_result r;
			shared_answer(k->m, t->m, &d, &r);
			const double gap = gaps[i % 4];
			if (r.intersecting || r.distance - gap < 1e-3 * gap)
				break;
			s -= r.distance - gap;
		}
	}
}

/* Rotated queries on fresh meshes (boxes not yet fitted) from four threads
 * at once, each in its own order: one thread fits a mesh's boxes while
 * the others answer from the axis-aligned ones, then all use the fitted
 * boxes; every answer must equal the one a single thread gave on meshes
 * built apart (ThreadSanitizer checks the hand-over: make check-tsan). */
START_TEST(fresh_mesh_shared_by_threads)
{
	tmesh k, t;
	knot_mesh(&k, 1.0, 0.3, 400, 12);
	torus_mesh(&t, 1.0, 0.3, 48, 24);
	shared_pose poses[SHARED_POSES];
	clash_result want[SHARED_POSES];
	shared_poses(&k, &t, poses);
	for (int i = 0; i < SHARED_POSES; i++) {
		shared_answer(k.m, t.m, &poses[i], &want[i]);
		ck_assert(!isnan(want[i].distance));
	}
	for (int round = 0; round < 3; round++) {
		const clash_mesh *fk, *ft;
		void *sk = malloc(clash_mesh_size(k.nv, k.nt)),
		     *st = malloc(clash_mesh_size(t.nv, t.nt));
		ck_assert(sk && st);
		/* Storage not zeroed: boxes read before their fit would be
		 * nonsense, not zeros (which bound nothing and stay exact). */
		memset(sk, 0x47, clash_mesh_size(k.nv, k.nt));
		memset(st, 0x47, clash_mesh_size(t.nv, t.nt));
		ck_assert_int_eq(clash_mesh_build(sk, clash_mesh_size(k.nv, k.nt), k.pos, k.nv,
		                                  k.idx, k.nt, (clash_mesh **)&fk),
		                 CLASH_OK);
		ck_assert_int_eq(clash_mesh_build(st, clash_mesh_size(t.nv, t.nt), t.pos, t.nv,
		                                  t.idx, t.nt, (clash_mesh **)&ft),
		                 CLASH_OK);
		ck_assert_int_eq(atomic_load(&fk->fit), MESH_FIT_NONE);
		enum {
			NTHREADS = 4
		};
		pthread_barrier_t go;
		ck_assert_int_eq(pthread_barrier_init(&go, NULL, NTHREADS), 0);
		pthread_t th[NTHREADS];
		shared_run runs[NTHREADS];
		for (int i = 0; i < NTHREADS; i++) {
			runs[i] = (shared_run){fk,  ft, poses, want, i * SHARED_POSES / NTHREADS,
			                       &go, 0};
			ck_assert_int_eq(pthread_create(&th[i], NULL, shared_worker, &runs[i]), 0);
		}
		for (int i = 0; i < NTHREADS; i++) {
			pthread_join(th[i], NULL);
			ck_assert_msg(runs[i].wrong == 0, "round %d thread %d: %d answers differ",
			              round, i, runs[i].wrong);
		}
		pthread_barrier_destroy(&go);
		ck_assert_int_eq(atomic_load(&fk->fit), MESH_FIT_DONE);
		ck_assert_int_eq(atomic_load(&ft->fit), MESH_FIT_DONE);
		free(sk);
		free(st);
	}
	tm_free(&k);
	tm_free(&t);
}
END_TEST

static Suite *mesh_threads_suite(void)
{
	Suite *s = suite_create("mesh_threads");
	ck_case(s, "mesh_threads", 120, CK_TESTS(fresh_mesh_shared_by_threads));
	return s;
}

CHECK_SUITE(mesh_threads_suite)

static Suite *mesh_suite(void)
{
	Suite *s = suite_create("mesh");
	ck_case(s, "mesh", 120,
	        CK_TESTS(build_errors_and_topology, moved_mesh_answers_the_same,
	                 mesh_mesh_against_brute_force, parallel_faces_tie,
	                 mesh_convex_against_brute_force, mesh_primitive_against_brute_force,
	                 l_bracket_notch_and_inside, bolt_through_a_hole,
	                 other_methods_say_not_supported, compound_scene_and_motion,
	                 two_thousand_triangles_against_brute_force, nested_solids_and_cavities,
	                 interlocked_tori, hull_mesh_as_its_vertex_list,
	                 exact_touching_at_large_offsets, degenerate_triangle_pierces,
	                 distance_pass_touching, torus_knot_timings,
	                 oriented_boxes_hold_their_triangles,
	                 rotated_near_misses_against_brute_force));
	return s;
}

CHECK_SUITE(mesh_suite)
