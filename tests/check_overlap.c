/*
 * check_overlap.c — mesh clash reports: where
 * two meshes cross (regions, curves, triangles) and how much they overlap
 * (the volume of A∩B), against independent answers:
 *   - shapes made of axis-aligned voxels (an L, a U, a plate with a hole,
 *     a bolt, random blobs), whose overlap with a box or another voxel
 *     shape is the sum of the cells' box overlaps, exactly; coplanar and
 *     touching faces included; the same under any common rigid pose;
 *   - random convex polyhedra (hulls of random points by qhull, as
 *     tests/oracle.c), their intersection's volume from the two hulls'
 *     planes by brute force (every triple of planes, the faces' polygons);
 *   - curve points against both surfaces by brute force (tri_dist.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cells.h"
#include "clash.h"
#include "oracle.h"
#include "prng.h"
#include "report_check.h"
#include "tri_dist.h"
#include "world.h"

/* ---- meshes -------------------------------------------------------------- */

typedef struct tmesh {
	double *pos;
	uint32_t *idx;
	size_t nv, nt, cap;
	void *store;
	clash_mesh *m;
	clash_shape s;
} tmesh;

static void tm_push_tri(tmesh *t, const double *p0, const double *p1, const double *p2)
{
	if (t->nt == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->pos = realloc(t->pos, 9 * t->cap * sizeof *t->pos);
		t->idx = realloc(t->idx, 3 * t->cap * sizeof *t->idx);
		ck_assert(t->pos && t->idx);
	}
	const double *p[3] = {p0, p1, p2};
	for (int c = 0; c < 3; c++) {
		memcpy(t->pos + 3 * t->nv, p[c], 3 * sizeof(double));
		t->idx[3 * t->nt + c] = (uint32_t)t->nv++;
	}
	t->nt++;
}

static void tm_build(tmesh *t)
{
	const size_t size = clash_mesh_size(t->nv, t->nt);
	ck_assert(size > 0);
	t->store = malloc(size);
	ck_assert(t->store);
	ck_assert_int_eq(clash_mesh_build(t->store, size, t->pos, t->nv, t->idx, t->nt, &t->m),
	                 CLASH_OK);
	ck_assert_int_eq(clash_shape_init_mesh(&t->s, t->m), CLASH_OK);
}

static void tm_free(tmesh *t)
{
	free(t->pos);
	free(t->idx);
	free(t->store);
	memset(t, 0, sizeof *t);
}

/* ---- voxel shapes: cells of size h from o, the union's boundary ---------- */

typedef struct vox {
	int n[3];
	double h, o[3];
	unsigned char *occ;
} vox;

static void vox_init(vox *v, int nx, int ny, int nz, double h, double ox, double oy, double oz)
{
	*v = (vox){{nx, ny, nz}, h, {ox, oy, oz}, calloc((size_t)nx * ny * nz, 1)};
	ck_assert(v->occ);
}

static int vox_at(const vox *v, int i, int j, int k)
{
	if (i < 0 || j < 0 || k < 0 || i >= v->n[0] || j >= v->n[1] || k >= v->n[2])
		return 0;
	return v->occ[i + v->n[0] * (j + v->n[1] * k)];
}

static void vox_set(vox *v, int i0, int i1, int j0, int j1, int k0, int k1, int on)
{
	for (int k = k0; k < k1; k++)
		for (int j = j0; j < j1; j++)
			for (int i = i0; i < i1; i++)
				v->occ[i + v->n[0] * (j + v->n[1] * k)] = (unsigned char)on;
}

/* A boundary face as two triangles of t. */
static void push_face(void *ctx, const double (*q)[3])
{
	tm_push_tri(ctx, q[0], q[1], q[2]);
	tm_push_tri(ctx, q[0], q[2], q[3]);
}

/* The boundary of v's union (tests/cells.h), built as t. */
static void vox_mesh(const vox *v, tmesh *t)
{
	memset(t, 0, sizeof *t);
	double *g[3];
	for (int a = 0; a < 3; a++) {
		g[a] = malloc((size_t)(v->n[a] + 1) * sizeof *g[a]);
		ck_assert(g[a]);
		for (int i = 0; i <= v->n[a]; i++)
			g[a][i] = v->o[a] + v->h * i;
	}
	const cells c = {{v->n[0], v->n[1], v->n[2]}, {g[0], g[1], g[2]}, v->occ};
	cells_boundary(&c, push_face, t);
	for (int a = 0; a < 3; a++)
		free(g[a]);
	tm_build(t);
}

static double overlap1(double a0, double a1, double b0, double b1)
{
	const double lo = fmax(a0, b0), hi = fmin(a1, b1);
	return hi > lo ? hi - lo : 0.0;
}

/* Volume of the voxel shape v inside the box [lo, hi]. */
static double vox_box_volume(const vox *v, const double *lo, const double *hi)
{
	double s = 0.0;
	for (int k = 0; k < v->n[2]; k++)
		for (int j = 0; j < v->n[1]; j++)
			for (int i = 0; i < v->n[0]; i++) {
				if (!vox_at(v, i, j, k))
					continue;
				const int c[3] = {i, j, k};
				double p = 1.0;
				for (int x = 0; x < 3; x++) {
					const double a0 = v->o[x] + v->h * c[x];
					p *= overlap1(a0, a0 + v->h, lo[x], hi[x]);
				}
				s += p;
			}
	return s;
}

/* Volume of the common part of two voxel shapes. */
static double vox_vox_volume(const vox *a, const vox *b)
{
	double s = 0.0;
	for (int k = 0; k < b->n[2]; k++)
		for (int j = 0; j < b->n[1]; j++)
			for (int i = 0; i < b->n[0]; i++) {
				if (!vox_at(b, i, j, k))
					continue;
				const int c[3] = {i, j, k};
				double lo[3], hi[3];
				for (int x = 0; x < 3; x++) {
					lo[x] = b->o[x] + b->h * c[x];
					hi[x] = lo[x] + b->h;
				}
				s += vox_box_volume(a, lo, hi);
			}
	return s;
}

/* A box [lo, hi] as a 12-triangle mesh. */
static void box_mesh(tmesh *t, const double *lo, const double *hi)
{
	vox v;
	vox_init(&v, 1, 1, 1, 1.0, 0, 0, 0);
	v.occ[0] = 1;
	vox_mesh(&v, t);
	for (size_t i = 0; i < t->nv; i++)
		for (int x = 0; x < 3; x++)
			t->pos[3 * i + x] = t->pos[3 * i + x] > 0.5 ? hi[x] : lo[x];
	free(t->store);
	tm_build(t);
	free(v.occ);
}

/* ---- poses ----------------------------------------------------------------- */

static void random_pose(prng *r, double q[4], double t[3])
{
	prng_motion(r, 5, q, t);
}

static void set_pose(clash_shape *s, const double q[4], const double t[3])
{
	ck_assert_int_eq(clash_shape_set_quaternion(s, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(s, t), CLASH_OK);
}

static clash_overlap *get(const tmesh *a, const tmesh *b, const clash_overlap_options *opt)
{
	return report_of(&a->s, &b->s, opt);
}

/* The volume against the scale of size^3 * 1e-3 near 0 (report_check.h). */
static void check_volume(const clash_overlap *o, double want, double size)
{
	check_report_volume(o, want, 1e-3 * size * size * size);
}

/* Every curve point on both surfaces within tol; loops closed when both
 * sides are closed. */
static void check_curves(const clash_overlap *o, const tmesh *a, const tmesh *b, double tol,
                         int closed)
{
	const tmesh *m[2] = {a, b};
	for (size_t r = 0; r < o->nregions; r++) {
		const clash_overlap_region *g = &o->regions[r];
		for (size_t l = 0; l < g->npolylines; l++) {
			if (closed && !o->truncated)
				ck_assert_msg(g->closed[l], "region %zu polyline %zu open", r, l);
			for (size_t i = g->polyline[l]; i < g->polyline[l + 1]; i++) {
				const double *p = g->points + 3 * i;
				for (int x = 0; x < 3; x++)
					ck_assert(p[x] >= g->lo[x] && p[x] <= g->hi[x]);
				for (int s = 0; s < 2; s++) {
					double best = INFINITY, tri[9], q[3];
					for (size_t t = 0; t < m[s]->nt; t++) {
						for (int c = 0; c < 3; c++)
							world_of(&m[s]->s,
							         m[s]->pos +
							                 3 * m[s]->idx[3 * t + c],
							         tri + 3 * c);
						best = fmin(best, tri_point_dist2(p, tri, q));
					}
					ck_assert_msg(sqrt(best) <= tol,
					              "point %zu off side %d by %g", i, s,
					              sqrt(best));
				}
			}
		}
	}
}

/* The listed triangles name the input triangles the curve runs over:
 * every curve point of a region lies on one of its listed triangles of
 * each side (a mesh side, not truncated), read from the input arrays. */
static void check_listed(const clash_overlap *o, const tmesh *a, const tmesh *b, double tol)
{
	const tmesh *m[2] = {a, b};
	for (size_t r = 0; r < o->nregions; r++) {
		const clash_overlap_region *g = &o->regions[r];
		for (int s = 0; s < 2; s++) {
			const uint32_t *t = s ? g->triangles_b : g->triangles_a;
			const size_t n = s ? g->ntriangles_b : g->ntriangles_a;
			for (size_t i = 1; i < n; i++)
				ck_assert_uint_lt(t[i - 1], t[i]);
			for (size_t i = 0; i < g->polyline[g->npolylines]; i++) {
				double best = INFINITY, tri[9], q[3];
				for (size_t k = 0; k < n; k++) {
					for (int c = 0; c < 3; c++)
						world_of(&m[s]->s,
						         m[s]->pos + 3 * m[s]->idx[3 * t[k] + c],
						         tri + 3 * c);
					best = fmin(best,
					            tri_point_dist2(g->points + 3 * i, tri, q));
				}
				ck_assert_msg(sqrt(best) <= tol,
				              "region %zu point %zu: no listed triangle of %d", r,
				              i, s);
			}
		}
	}
}

static size_t total_polylines(const clash_overlap *o)
{
	size_t n = 0;
	for (size_t r = 0; r < o->nregions; r++)
		n += o->regions[r].npolylines;
	return n;
}

/* ---- volume: boxes and voxel shapes ---------------------------------------- */

static void box_pair(const double *alo, const double *ahi, const double *blo, const double *bhi,
                     double want, double size)
{
	tmesh a, b;
	box_mesh(&a, alo, ahi);
	box_mesh(&b, blo, bhi);
	clash_overlap *o = get(&a, &b, NULL);
	check_volume(o, want, size);
	ck_assert_int_eq(o->solid_a, 1);
	ck_assert_int_eq(o->solid_b, 1);
	clash_overlap_free(o);
	tm_free(&a);
	tm_free(&b);
}

START_TEST(boxes_coplanar_faces)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {2, 2, 2};
	/* overlapping with three, two, one coplanar face pairs */
	const double b1lo[3] = {1, 0, 0}, b1hi[3] = {3, 2, 2};
	box_pair(alo, ahi, b1lo, b1hi, 4.0, 3.0);
	const double b2lo[3] = {0.5, 0, -1}, b2hi[3] = {1.25, 2, 1.5};
	box_pair(alo, ahi, b2lo, b2hi, 0.75 * 2 * 1.5, 3.0);
	/* the same box */
	box_pair(alo, ahi, alo, ahi, 8.0, 2.0);
	/* face to face, edge to edge, corner to corner: volume 0 */
	const double t1lo[3] = {2, 0, 0}, t1hi[3] = {4, 2, 2};
	box_pair(alo, ahi, t1lo, t1hi, 0.0, 4.0);
	const double t2lo[3] = {2, 2, 0.5}, t2hi[3] = {3, 3, 1};
	box_pair(alo, ahi, t2lo, t2hi, 0.0, 3.0);
	const double t3lo[3] = {2, 2, 2}, t3hi[3] = {3, 3, 3};
	box_pair(alo, ahi, t3lo, t3hi, 0.0, 3.0);
	/* apart */
	const double s1lo[3] = {3, 0, 0}, s1hi[3] = {4, 1, 1};
	box_pair(alo, ahi, s1lo, s1hi, 0.0, 4.0);
}
END_TEST

START_TEST(box_inside_box)
{
	const double alo[3] = {0, 0, 0}, ahi[3] = {4, 4, 4};
	const double blo[3] = {1, 1.5, 2}, bhi[3] = {2, 3, 2.5};
	tmesh a, b;
	box_mesh(&a, alo, ahi);
	box_mesh(&b, blo, bhi);
	for (int swap = 0; swap < 2; swap++) {
		clash_overlap *o = swap ? get(&b, &a, NULL) : get(&a, &b, NULL);
		check_volume(o, 0.75, 4.0);
		ck_assert(o->intersecting);
		ck_assert_uint_eq(o->total_regions, 1);
		const clash_overlap_region *g = &o->regions[0];
		ck_assert_int_eq(g->kind, swap ? CLASH_CONTACT_A_IN_B : CLASH_CONTACT_B_IN_A);
		ck_assert_uint_eq(g->npolylines, 0);
		for (int x = 0; x < 3; x++) {
			ck_assert(fabs(g->lo[x] - blo[x]) <= 1e-12 &&
			          fabs(g->hi[x] - bhi[x]) <= 1e-12);
		}
		/* all 12 triangles of the inner box, input order */
		ck_assert_uint_eq(swap ? g->total_triangles_a : g->total_triangles_b, 12);
		const uint32_t *t = swap ? g->triangles_a : g->triangles_b;
		for (uint32_t i = 0; i < 12; i++)
			ck_assert_uint_eq(t[i], i);
		ck_assert_uint_eq(swap ? g->total_triangles_b : g->total_triangles_a, 0);
		clash_overlap_free(o);
	}
	tm_free(&a);
	tm_free(&b);
}
END_TEST

/* Poses that scale and shear: a box mesh stretched by a matrix against a
 * box mesh, both then moved alike; the volume is the overlap of the
 * stretched box with the other, times nothing else. */
START_TEST(scaled_poses)
{
	const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	tmesh a, b;
	box_mesh(&a, lo, hi);
	box_mesh(&b, lo, hi);
	/* a: x -> (2x + 0.5, 3y - 1, 0.5z + 0.25), a box [0.5, 2.5] x [-1, 2] x [0.25, 0.75] */
	const double ma[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0.5, 0, 0.5, -1, 0.25, 1};
	/* b: [1, 2.5] x [0.5, 1.25] x [0, 4] */
	const double mb[16] = {1.5, 0, 0, 0, 0, 0.75, 0, 0, 0, 0, 4, 0, 1, 0.5, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&a.s, ma), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_matrix(&b.s, mb), CLASH_OK);
	const double want = 1.5 * 0.75 * 0.5;
	clash_overlap *o = get(&a, &b, NULL);
	check_volume(o, want, 4.0);
	check_curves(o, &a, &b, 1e-11, 1);
	clash_overlap_free(o);
	o = get(&b, &a, NULL);
	check_volume(o, want, 4.0);
	clash_overlap_free(o);
	tm_free(&a);
	tm_free(&b);
}
END_TEST

/* An L (arms along x and y) and a U (open along +y) in cells of 1. */
static void make_l(vox *v)
{
	vox_init(v, 4, 4, 2, 1.0, 0, 0, 0);
	vox_set(v, 0, 4, 0, 1, 0, 2, 1);
	vox_set(v, 0, 1, 0, 4, 0, 2, 1);
}

static void make_u(vox *v)
{
	vox_init(v, 5, 4, 2, 1.0, 0, 0, 0);
	vox_set(v, 0, 5, 0, 1, 0, 2, 1);
	vox_set(v, 0, 1, 0, 4, 0, 2, 1);
	vox_set(v, 4, 5, 0, 4, 0, 2, 1);
}

/* v against boxes at cell-aligned and offset places, also posed alike. */
static void vox_against_boxes(vox *v, prng *r)
{
	tmesh a;
	vox_mesh(v, &a);
	const double boxes[][6] = {{0, 0, 0, 2, 2, 2},       {1, 0, 0, 3, 3, 1},
	                           {-1, -1, 0.5, 5, 1, 1.5}, {0.5, 0.25, -1, 4.5, 3.5, 3},
	                           {0, 2, 0, 5, 4, 2},       {2.5, 1.5, 0.5, 3.5, 3.5, 1.5}};
	for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
		tmesh b;
		box_mesh(&b, boxes[i], boxes[i] + 3);
		const double want = vox_box_volume(v, boxes[i], boxes[i] + 3);
		for (int posed = 0; posed < 3; posed++) {
			double q[4], t[3];
			random_pose(r, q, t);
			if (posed) {
				set_pose(&a.s, q, t);
				set_pose(&b.s, q, t);
			}
			clash_overlap *o = posed == 2 ? get(&b, &a, NULL) : get(&a, &b, NULL);
			check_volume(o, want, 6.0);
			clash_overlap_free(o);
		}
		clash_shape_init_mesh(&a.s, a.m);
		tm_free(&b);
	}
	tm_free(&a);
}

START_TEST(l_and_u_against_boxes)
{
	prng r = {24};
	vox v;
	make_l(&v);
	vox_against_boxes(&v, &r);
	free(v.occ);
	make_u(&v);
	vox_against_boxes(&v, &r);
	free(v.occ);
}
END_TEST

/* Blocks of cells with holes against others moved by whole and half
 * cells (coplanar faces throughout), against the cells' overlaps. */
START_TEST(voxel_blocks_against_cells)
{
	prng r = {2424};
	for (int n = 0; n < 24; n++) {
		vox va, vb;
		vox_init(&va, 4, 4, 3, 1.0, 0, 0, 0);
		vox_init(&vb, 3, 4, 3, 1.0, 0.5 * prng_int(&r, -2, 4), 0.5 * prng_int(&r, -2, 4),
		         0.5 * prng_int(&r, -1, 2));
		/* Blocks with a hole through and maybe a corner cell taken out
		 * (random cells would meet at edges only: not manifolds). */
		for (int pass = 0; pass < 2; pass++) {
			vox *v = pass ? &vb : &va;
			for (int k = 0; k < v->n[2]; k++)
				for (int j = 0; j < v->n[1]; j++)
					for (int i = 0; i < v->n[0]; i++)
						v->occ[i + v->n[0] * (j + v->n[1] * k)] = 1;
			vox_set(v, 1, 2, 1, 2, 0, v->n[2], 0); /* a hole through */
			vox_set(v, v->n[0] - 1, v->n[0], v->n[1] - 1, v->n[1], 0, 1,
			        prng_unit(&r) < 0.5);
		}
		tmesh a, b;
		vox_mesh(&va, &a);
		vox_mesh(&vb, &b);
		double q[4], t[3];
		random_pose(&r, q, t);
		set_pose(&a.s, q, t);
		set_pose(&b.s, q, t);
		clash_overlap *o = get(&a, &b, NULL);
		check_volume(o, vox_vox_volume(&va, &vb), 6.0);
		clash_overlap_free(o);
		tm_free(&a);
		tm_free(&b);
		free(va.occ);
		free(vb.occ);
	}
}
END_TEST

/* Box primitives (posed) against the L, either side. */
START_TEST(box_primitive_against_l)
{
	prng r = {5};
	vox v;
	make_l(&v);
	tmesh a;
	vox_mesh(&v, &a);
	const double lo[3] = {0.5, -0.5, 0.25}, hi[3] = {3.5, 2.5, 2.0};
	const double half[3] = {1.5, 1.5, 0.875}, centre[3] = {2.0, 1.0, 1.125};
	const double want = vox_box_volume(&v, lo, hi);
	for (int n = 0; n < 4; n++) {
		double q[4] = {0, 0, 0, 1}, t[3] = {0, 0, 0}, bt[3];
		if (n)
			random_pose(&r, q, t);
		set_pose(&a.s, q, t);
		clash_shape box;
		ck_assert_int_eq(clash_shape_init_primitive(&box, CLASH_KIND_BOX, half), CLASH_OK);
		world_of(&a.s, centre, bt);
		set_pose(&box, q, bt);
		clash_overlap *o = NULL;
		ck_assert_int_eq(n % 2 ? clash_overlap_get(&box, &a.s, NULL, &o)
		                       : clash_overlap_get(&a.s, &box, NULL, &o),
		                 CLASH_OK);
		check_volume(o, want, 4.0);
		ck_assert(o->closed_a && o->closed_b);
		clash_overlap_free(o);
	}
	tm_free(&a);
	free(v.occ);
}
END_TEST

/* A compound of the L (a mesh) and a box primitive against a box mesh:
 * the regions name their parts, the volumes add up. */
START_TEST(compound_with_mesh_part)
{
	vox v;
	make_l(&v);
	tmesh l, b;
	vox_mesh(&v, &l);
	clash_shape parts[2], comp;
	parts[0] = l.s;
	const double half[3] = {1, 1, 1}, at[3] = {10, 0, 0};
	ck_assert_int_eq(clash_shape_init_primitive(&parts[1], CLASH_KIND_BOX, half), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&parts[1], at), CLASH_OK);
	ck_assert_int_eq(clash_shape_init_compound(&comp, 3, parts, 2), CLASH_OK);
	const double lo[3] = {-1, 0.25, 0.5}, hi[3] = {12, 0.75, 1.5};
	box_mesh(&b, lo, hi);
	clash_overlap *o = NULL;
	ck_assert_int_eq(clash_overlap_get(&comp, &b.s, NULL, &o), CLASH_OK);
	const double in_l = vox_box_volume(&v, lo, hi), in_box = 2 * 0.5 * 0.5;
	check_volume(o, in_l + in_box, 12.0);
	ck_assert_uint_eq(o->total_regions, 2);
	for (size_t r = 0; r < 2; r++) {
		const clash_overlap_region *g = &o->regions[r];
		const double want = g->part_a == 0 ? in_l : in_box;
		ck_assert_msg(fabs(g->volume - want) <= 1e-9 * want, "part %zu: %.17g", g->part_a,
		              g->volume);
		ck_assert_uint_eq(g->part_b, 0);
	}
	ck_assert_uint_ne(o->regions[0].part_a, o->regions[1].part_a);
	clash_overlap_free(o);
	tm_free(&l);
	tm_free(&b);
	free(v.occ);
}
END_TEST

/* ---- volume: random convex polyhedra ---------------------------------------- */

/* The hull of n points as a closed mesh: qhull's triangulated facets,
 * each the input points on its plane. */
static void hull_mesh(const double *p, size_t n, tmesh *t)
{
	double *pl;
	size_t np;
	ck_assert_int_eq(oracle_hull_planes(3, p, n, &pl, &np), ORACLE_OK);
	memset(t, 0, sizeof *t);
	for (size_t f = 0; f < np; f++) {
		const double *u = pl + 4 * f;
		size_t on[3], k = 0;
		for (size_t i = 0; i < n && k < 3; i++)
			if (fabs(u[0] * p[3 * i] + u[1] * p[3 * i + 1] + u[2] * p[3 * i + 2] -
			         u[3]) <= 1e-10)
				on[k++] = i;
		ck_assert_uint_eq(k, 3);
		const double *a = p + 3 * on[0], *b = p + 3 * on[1], *c = p + 3 * on[2];
		double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
		double g[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
		const double s = u[0] * (e[1] * g[2] - e[2] * g[1]) +
		                 u[1] * (e[2] * g[0] - e[0] * g[2]) +
		                 u[2] * (e[0] * g[1] - e[1] * g[0]);
		if (s > 0)
			tm_push_tri(t, a, b, c);
		else
			tm_push_tri(t, a, c, b);
	}
	free(pl);
	tm_build(t);
}

/* Volume of {x : u.x <= h for every plane} by brute force: its corners
 * are the feasible meets of three planes; each plane's face is the
 * polygon of the corners on it, V = sum h area / 3. */
static double planes_volume(const double *pl, size_t np)
{
	const double eps = 1e-10;
	size_t cap = 64, nc = 0;
	double *corner = malloc(3 * cap * sizeof *corner);
	for (size_t i = 0; i < np; i++)
		for (size_t j = i + 1; j < np; j++)
			for (size_t k = j + 1; k < np; k++) {
				const double *a = pl + 4 * i, *b = pl + 4 * j, *c = pl + 4 * k;
				double bc[3] = {b[1] * c[2] - b[2] * c[1],
				                b[2] * c[0] - b[0] * c[2],
				                b[0] * c[1] - b[1] * c[0]};
				const double det = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
				if (fabs(det) < 1e-9)
					continue;
				double ca[3] = {c[1] * a[2] - c[2] * a[1],
				                c[2] * a[0] - c[0] * a[2],
				                c[0] * a[1] - c[1] * a[0]};
				double ab[3] = {a[1] * b[2] - a[2] * b[1],
				                a[2] * b[0] - a[0] * b[2],
				                a[0] * b[1] - a[1] * b[0]};
				double x[3];
				for (int d = 0; d < 3; d++)
					x[d] = (a[3] * bc[d] + b[3] * ca[d] + c[3] * ab[d]) / det;
				int ok = 1;
				for (size_t f = 0; f < np && ok; f++) {
					const double *u = pl + 4 * f;
					ok = u[0] * x[0] + u[1] * x[1] + u[2] * x[2] <= u[3] + eps;
				}
				if (!ok)
					continue;
				if (nc == cap)
					corner = realloc(corner, 3 * (cap *= 2) * sizeof *corner);
				memcpy(corner + 3 * nc++, x, sizeof x);
			}
	double v = 0.0;
	double *on = malloc(3 * (nc + 1) * sizeof *on), *ang = malloc((nc + 1) * sizeof *ang);
	for (size_t f = 0; f < np; f++) {
		const double *u = pl + 4 * f;
		size_t m = 0;
		double c[3] = {0, 0, 0};
		for (size_t i = 0; i < nc; i++) {
			const double *x = corner + 3 * i;
			if (fabs(u[0] * x[0] + u[1] * x[1] + u[2] * x[2] - u[3]) <= eps) {
				memcpy(on + 3 * m++, x, 3 * sizeof *x);
				for (int d = 0; d < 3; d++)
					c[d] += x[d];
			}
		}
		if (m < 3)
			continue;
		for (int d = 0; d < 3; d++)
			c[d] /= (double)m;
		/* a basis of the plane */
		double e1[3] = {-u[1], u[0], 0};
		if (fabs(u[2]) > 0.9)
			e1[0] = 0, e1[1] = -u[2], e1[2] = u[1];
		const double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
		for (int d = 0; d < 3; d++)
			e1[d] /= l;
		const double e2[3] = {u[1] * e1[2] - u[2] * e1[1], u[2] * e1[0] - u[0] * e1[2],
		                      u[0] * e1[1] - u[1] * e1[0]};
		for (size_t i = 0; i < m; i++) {
			double d0 = 0, d1 = 0;
			for (int d = 0; d < 3; d++) {
				d0 += (on[3 * i + d] - c[d]) * e1[d];
				d1 += (on[3 * i + d] - c[d]) * e2[d];
			}
			ang[i] = atan2(d1, d0);
		}
		/* sort by angle (insertion: few points) and add the fan's area */
		for (size_t i = 1; i < m; i++)
			for (size_t j = i; j > 0 && ang[j - 1] > ang[j]; j--) {
				double s = ang[j];
				ang[j] = ang[j - 1];
				ang[j - 1] = s;
				for (int d = 0; d < 3; d++) {
					s = on[3 * j + d];
					on[3 * j + d] = on[3 * (j - 1) + d];
					on[3 * (j - 1) + d] = s;
				}
			}
		double area = 0.0;
		for (size_t i = 0; i < m; i++) {
			const double *p = on + 3 * i, *q = on + 3 * ((i + 1) % m);
			double a[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
			double b[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
			area += 0.5 * (u[0] * (a[1] * b[2] - a[2] * b[1]) +
			               u[1] * (a[2] * b[0] - a[0] * b[2]) +
			               u[2] * (a[0] * b[1] - a[1] * b[0]));
		}
		v += u[3] * area / 3.0;
	}
	free(on);
	free(ang);
	free(corner);
	return v;
}

START_TEST(convex_against_half_spaces)
{
	prng r = {1e9 + 24};
	for (int n = 0; n < 20; n++) {
		double pa[3 * 14], pb[3 * 14], wa[3 * 14], wb[3 * 14];
		for (int i = 0; i < 3 * 14; i++) {
			pa[i] = prng_range(&r, -1, 1);
			pb[i] = prng_range(&r, -1, 1);
		}
		tmesh a, b;
		hull_mesh(pa, 14, &a);
		hull_mesh(pb, 14, &b);
		double q[4], t[3];
		random_pose(&r, q, t);
		set_pose(&a.s, q, t);
		random_pose(&r, q, t);
		for (int k = 0; k < 3; k++)
			t[k] = a.s.translation[k] + prng_range(&r, -0.8, 0.8);
		set_pose(&b.s, q, t);
		for (int i = 0; i < 14; i++) {
			world_of(&a.s, pa + 3 * i, wa + 3 * i);
			world_of(&b.s, pb + 3 * i, wb + 3 * i);
		}
		double *pl, *ql;
		size_t np, nq;
		ck_assert_int_eq(oracle_hull_planes(3, wa, 14, &pl, &np), ORACLE_OK);
		ck_assert_int_eq(oracle_hull_planes(3, wb, 14, &ql, &nq), ORACLE_OK);
		pl = realloc(pl, 4 * (np + nq) * sizeof *pl);
		memcpy(pl + 4 * np, ql, 4 * nq * sizeof *ql);
		const double want = planes_volume(pl, np + nq);
		/* every other time b as a polytope (the core takes its hull) */
		clash_shape poly;
		ck_assert_int_eq(clash_shape_init(&poly, 3, pb, 14), CLASH_OK);
		set_pose(&poly, q, t);
		clash_overlap *o = NULL;
		if (n % 2) {
			ck_assert_int_eq(clash_overlap_get(&a.s, &poly, NULL, &o), CLASH_OK);
			ck_assert_uint_eq(o->total_regions ? o->regions[0].total_triangles_b : 0,
			                  0);
		} else {
			o = get(&a, &b, NULL);
		}
		check_volume(o, want, 2.0);
		ck_assert_uint_le(o->total_regions, 1);
		if (want > 1e-6) {
			ck_assert_uint_eq(o->total_regions, 1);
			check_curves(o, &a, &b, 1e-11, 1);
		}
		clash_overlap_free(o);
		free(pl);
		free(ql);
		tm_free(&a);
		tm_free(&b);
	}
}
END_TEST

/* ---- regions ---------------------------------------------------------------- */

/* A 6 x 6 x 1 plate (cells of 1) with a 2 x 2 hole at (2..4, 2..4). */
static void make_plate(vox *v)
{
	vox_init(v, 6, 6, 1, 1.0, 0, 0, 0);
	vox_set(v, 0, 6, 0, 6, 0, 1, 1);
	vox_set(v, 2, 4, 2, 4, 0, 1, 0);
}

START_TEST(bolt_through_plate)
{
	vox vp;
	make_plate(&vp);
	tmesh plate;
	vox_mesh(&vp, &plate);
	/* A bolt wider than the hole, through it: one region, two loops (top
	 * and bottom of the plate), the ring's volume. */
	const double lo[3] = {1.5, 1.25, -2}, hi[3] = {4.5, 4.5, 3};
	tmesh bolt;
	box_mesh(&bolt, lo, hi);
	prng r = {7};
	for (int posed = 0; posed < 2; posed++) {
		if (posed) {
			double q[4], t[3];
			random_pose(&r, q, t);
			set_pose(&plate.s, q, t);
			set_pose(&bolt.s, q, t);
		}
		clash_overlap *o = get(&plate, &bolt, NULL);
		check_volume(o, vox_box_volume(&vp, lo, hi), 6.0);
		ck_assert_uint_eq(o->total_regions, 1);
		ck_assert_int_eq(o->regions[0].kind, CLASH_CONTACT_SURFACES);
		ck_assert_uint_eq(o->regions[0].npolylines, 2);
		check_curves(o, &plate, &bolt, 1e-11, 1);
		check_listed(o, &plate, &bolt, 1e-11);
		/* the bolt's 12 triangles, all of them crossed */
		ck_assert_uint_eq(o->regions[0].total_triangles_b, 8);
		clash_overlap_free(o);
	}
	tm_free(&bolt);
	/* A thin bolt grazing the hole's wall: a small fraction of the
	 * plate's triangles take part. */
	const double glo[3] = {3.9, 2.5, -2}, ghi[3] = {4.1, 3.5, 3};
	box_mesh(&bolt, glo, ghi);
	clash_shape_init_mesh(&plate.s, plate.m);
	clash_overlap_options opt = {0};
	clash_overlap *o = NULL;
	ck_assert_int_eq(clash_overlap_get(&plate.s, &bolt.s, &opt, &o), CLASH_OK);
	check_volume(o, 0.1 * 1.0 * 1.0, 6.0);
	/* one loop: over the top, down the hole's wall, under the bottom */
	ck_assert_uint_eq(o->total_regions, 1);
	ck_assert_uint_eq(o->regions[0].npolylines, 1);
	ck_assert_uint_le(o->regions[0].total_triangles_a, plate.nt / 8);
	check_curves(o, &plate, &bolt, 1e-11, 1);
	check_listed(o, &plate, &bolt, 1e-11);
	clash_overlap_free(o);
	/* the same from a plate moved to other storage (its input numbers go
	 * with it) */
	void *moved = malloc(clash_mesh_bytes(plate.m));
	clash_mesh *pm;
	ck_assert_int_eq(clash_mesh_move(moved, plate.m, &pm), CLASH_OK);
	free(plate.store);
	plate.store = moved;
	plate.m = pm;
	clash_shape_init_mesh(&plate.s, pm);
	o = get(&plate, &bolt, NULL);
	check_listed(o, &plate, &bolt, 1e-11);
	clash_overlap_free(o);
	tm_free(&bolt);
	tm_free(&plate);
	free(vp.occ);
}
END_TEST

START_TEST(two_separate_overlaps)
{
	vox vu;
	make_u(&vu);
	tmesh u, b;
	vox_mesh(&vu, &u);
	/* a bar across both arms of the U */
	const double lo[3] = {-0.5, 2.5, 0.5}, hi[3] = {5.5, 3.25, 1.75};
	box_mesh(&b, lo, hi);
	clash_overlap *o = get(&u, &b, NULL);
	ck_assert_uint_eq(o->total_regions, 2);
	check_volume(o, vox_box_volume(&vu, lo, hi), 6.0);
	const double arm = 1.0 * 0.75 * 1.25;
	for (size_t r = 0; r < 2; r++) {
		ck_assert_msg(fabs(o->regions[r].volume - arm) <= 1e-9 * arm, "region %zu: %.17g",
		              r, o->regions[r].volume);
		ck_assert_uint_eq(o->regions[r].npolylines, 2);
	}
	ck_assert(o->regions[0].hi[0] < 1.5 || o->regions[1].hi[0] < 1.5);
	check_curves(o, &u, &b, 1e-11, 1);
	check_listed(o, &u, &b, 1e-11);
	clash_overlap_free(o);

	/* caps: one region, 5 points, 1 triangle a side; totals stay */
	clash_overlap_options opt = {.max_regions = 1, .max_points = 5, .max_triangles = 1};
	ck_assert_int_eq(clash_overlap_get(&u.s, &b.s, &opt, &o), CLASH_OK);
	ck_assert(o->truncated);
	ck_assert_uint_eq(o->nregions, 1);
	ck_assert_uint_eq(o->total_regions, 2);
	check_volume(o, 2 * arm, 6.0);
	const clash_overlap_region *g = &o->regions[0];
	ck_assert_uint_le(g->polyline[g->npolylines], 5);
	ck_assert_uint_eq(g->ntriangles_a, 1);
	ck_assert_uint_eq(g->ntriangles_b, 1);
	ck_assert_uint_gt(g->total_triangles_a, 1);
	clash_overlap_free(o);
	/* no cap binds: not truncated */
	opt = (clash_overlap_options){0};
	ck_assert_int_eq(clash_overlap_get(&u.s, &b.s, &opt, &o), CLASH_OK);
	ck_assert(!o->truncated);
	clash_overlap_free(o);
	tm_free(&u);
	tm_free(&b);
	free(vu.occ);
}
END_TEST

/* A sheet (an open surface) through a box: regions and curves, no volume. */
START_TEST(open_surface_no_volume)
{
	tmesh sheet = {0}, b;
	const double p[4][3] = {{-1, -1, 0.5}, {3, -1, 0.7}, {3, 3, 0.6}, {-1, 3, 0.4}};
	tm_push_tri(&sheet, p[0], p[1], p[2]);
	tm_push_tri(&sheet, p[0], p[2], p[3]);
	tm_build(&sheet);
	const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	box_mesh(&b, lo, hi);
	for (int swap = 0; swap < 2; swap++) {
		clash_overlap *o = swap ? get(&b, &sheet, NULL) : get(&sheet, &b, NULL);
		ck_assert(o->intersecting);
		ck_assert(!o->has_volume);
		ck_assert_int_eq(swap ? o->solid_b : o->solid_a, 0);
		ck_assert_uint_eq(o->total_regions, 1);
		ck_assert(!o->regions[0].has_volume);
		ck_assert_uint_ge(total_polylines(o), 1);
		check_curves(o, swap ? &b : &sheet, swap ? &sheet : &b, 1e-11, 0);
		clash_overlap_free(o);
	}
	tm_free(&sheet);
	tm_free(&b);
}
END_TEST

/* ---- surfaces that do not bound their solid once ----------------------- */

/* The triangles of box lo..hi added to t (not built), facing out or, with
 * inward, turned over: a cavity's shell. */
static void push_box(tmesh *t, const double *lo, const double *hi, int inward)
{
	tmesh b;
	box_mesh(&b, lo, hi);
	for (size_t i = 0; i < b.nt; i++) {
		const double *p = b.pos + 3 * b.idx[3 * i], *q = b.pos + 3 * b.idx[3 * i + 1],
			     *r = b.pos + 3 * b.idx[3 * i + 2];
		if (inward)
			tm_push_tri(t, p, r, q);
		else
			tm_push_tri(t, p, q, r);
	}
	tm_free(&b);
}

/* a against b and b against a: intersecting, with regions; a overlapping
 * itself (then no volume) or not (then the volume), b not. */
static void check_once_both_ways(const clash_shape *a, const tmesh *b, int overlaps, double volume)
{
	for (int swap = 0; swap < 2; swap++) {
		clash_overlap *o = NULL;
		ck_assert_int_eq(swap ? clash_overlap_get(&b->s, a, NULL, &o)
		                      : clash_overlap_get(a, &b->s, NULL, &o),
		                 CLASH_OK);
		ck_assert(o->intersecting);
		ck_assert_uint_ge(o->total_regions, 1);
		ck_assert_int_eq(swap ? o->overlaps_itself_b : o->overlaps_itself_a, overlaps);
		ck_assert_int_eq(swap ? o->overlaps_itself_a : o->overlaps_itself_b, 0);
		if (overlaps)
			ck_assert(!o->has_volume && o->volume == 0.0);
		else
			check_volume(o, volume, 4.0);
		clash_overlap_free(o);
	}
}

/* A compound of two boxes overlapping by half: the sum over its leaves
 * would count their common part twice (3 where A∩B is 2), so no volume;
 * the same boxes touching face to face add up exactly. */
START_TEST(overlapping_leaves_have_no_volume)
{
	const double lo1[3] = {0, 0, 0}, hi1[3] = {2, 2, 2};
	const double blo[3] = {0.5, 0.5, 0.5}, bhi[3] = {3.5, 1.5, 1.5};
	tmesh a1, a2, b;
	box_mesh(&a1, lo1, hi1);
	box_mesh(&b, blo, bhi);
	for (int touch = 0; touch < 2; touch++) {
		const double lo2[3] = {touch ? 2.0 : 1.0, 0, 0}, hi2[3] = {touch ? 4.0 : 3.0, 2, 2};
		box_mesh(&a2, lo2, hi2);
		clash_shape parts[2] = {a1.s, a2.s}, comp;
		ck_assert_int_eq(clash_shape_init_compound(&comp, 3, parts, 2), CLASH_OK);
		check_once_both_ways(&comp, &b, !touch, 3.0);
		tm_free(&a2);
	}
	tm_free(&a1);
	tm_free(&b);
}
END_TEST

/* One mesh of two cube shells, the inner in the outer.  Facing the same
 * way, their winding number is 2 within the inner: the solid is the outer
 * cube, and a box inside it crossing the inner shell would be measured
 * against the inner alone, so no volume.  The inner turned over is a
 * cavity: A∩B is the box's part above it, 0.5. */
START_TEST(nested_shells_one_way_have_no_volume)
{
	const double olo[3] = {0, 0, 0}, ohi[3] = {4, 4, 4};
	const double ilo[3] = {1, 1, 1}, ihi[3] = {3, 3, 3};
	const double blo[3] = {1.5, 1.5, 2}, bhi[3] = {2.5, 2.5, 3.5};
	tmesh b;
	box_mesh(&b, blo, bhi);
	for (int cavity = 0; cavity < 2; cavity++) {
		tmesh a = {0};
		push_box(&a, olo, ohi, 0);
		push_box(&a, ilo, ihi, cavity);
		tm_build(&a);
		check_once_both_ways(&a.s, &b, !cavity, 0.5);
		tm_free(&a);
	}
	tm_free(&b);
}
END_TEST

/* Two cube shells of one mesh that cross each other, a box reaching into
 * both: no volume (or no report at all), never the sum. */
START_TEST(crossing_shells_have_no_volume)
{
	const double lo1[3] = {0, 0, 0}, hi1[3] = {2, 2, 2};
	const double lo2[3] = {1, 1, 1}, hi2[3] = {3, 3, 3};
	const double blo[3] = {1.25, 1.25, 1.5}, bhi[3] = {1.75, 1.75, 2.5};
	tmesh a = {0}, b;
	push_box(&a, lo1, hi1, 0);
	push_box(&a, lo2, hi2, 0);
	tm_build(&a);
	box_mesh(&b, blo, bhi);
	clash_overlap *o = NULL;
	const int err = clash_overlap_get(&a.s, &b.s, NULL, &o);
	ck_assert_msg(err == CLASH_OK || err == CLASH_ENOTSUP, "%s", clash_strerror(err));
	if (err == CLASH_OK) {
		ck_assert(o->overlaps_itself_a && !o->has_volume);
		clash_overlap_free(o);
	}
	tm_free(&a);
	tm_free(&b);
}
END_TEST

/* Random triangle soups against each other and against a box: no crash,
 * every curve point on both. */
START_TEST(random_soups_do_not_crash)
{
	prng r = {99};
	for (int n = 0; n < 30; n++) {
		tmesh a = {0}, b = {0};
		const int na = prng_int(&r, 1, 40), nb = prng_int(&r, 1, 40);
		for (int s = 0; s < 2; s++)
			for (int i = 0; i < (s ? nb : na); i++) {
				double p[3][3];
				for (int c = 0; c < 3; c++)
					for (int k = 0; k < 3; k++)
						p[c][k] = 0.25 *
						          prng_int(&r, 0, 8); /* coincidences */
				tm_push_tri(s ? &b : &a, p[0], p[1], p[2]);
			}
		tm_build(&a);
		tm_build(&b);
		clash_overlap *o = NULL;
		const int err = clash_overlap_get(&a.s, &b.s, NULL, &o);
		ck_assert(err == CLASH_OK || err == CLASH_ENOTSUP);
		if (o) {
			ck_assert(!o->has_volume ||
			          (o->volume >= -1e-9 && o->volume <= 8.0 + 1e-9));
			check_curves(o, &a, &b, 1e-11, 0);
		}
		clash_overlap_free(o);
		tm_free(&a);
		tm_free(&b);
	}
}
END_TEST

/* ---- large meshes, cancel ------------------------------------------------------ */

static void fine_box(tmesh *t, int k, double h, double ox, double oy, double oz)
{
	vox v;
	vox_init(&v, k, k, k, h, ox, oy, oz);
	memset(v.occ, 1, (size_t)k * k * k);
	vox_mesh(&v, t);
	free(v.occ);
}

START_TEST(large_meshes_volume)
{
	/* 12 * 91^2 = 99 372 triangles a side */
	tmesh a, b;
	fine_box(&a, 91, 1.0 / 91, 0, 0, 0);
	fine_box(&b, 91, 1.0 / 91, 0.3, 0.2, 0.1);
	clash_overlap *o = get(&a, &b, NULL);
	check_volume(o, 0.7 * 0.8 * 0.9, 1.3);
	ck_assert_uint_eq(o->total_regions, 1);
	ck_assert_uint_eq(o->regions[0].npolylines, 1);
	clash_overlap_free(o);
	volatile int cancel = 1;
	clash_overlap_options opt = {.cancel = &cancel};
	o = NULL;
	ck_assert_int_eq(clash_overlap_get(&a.s, &b.s, &opt, &o), CLASH_ECANCELED);
	ck_assert_ptr_null(o);
	tm_free(&a);
	tm_free(&b);
}
END_TEST

/* Fills a stretch of the stack with non-zero bytes: a callee that frees a
 * pointer it never set then frees garbage, not NULL. */
static void dirty_stack(void)
{
	volatile unsigned char junk[32768];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = 0xa5;
}

START_TEST(bad_arguments)
{
	const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	tmesh a;
	box_mesh(&a, lo, hi);
	clash_overlap *o = NULL;
	ck_assert_int_eq(clash_overlap_get(NULL, &a.s, NULL, &o), CLASH_EINVAL);
	ck_assert_int_eq(clash_overlap_get(&a.s, &a.s, NULL, NULL), CLASH_EINVAL);
	clash_shape sphere; /* a capsule: balls are answered, other curves not */
	const double r[3] = {1, 0.5, 0};
	ck_assert_int_eq(clash_shape_init_primitive(&sphere, CLASH_KIND_CAPSULE, r), CLASH_OK);
	ck_assert_int_eq(clash_overlap_get(&a.s, &sphere, NULL, &o), CLASH_ENOTSUP);
	/* a curved primitive first: the mesh's side is never read, yet freed */
	dirty_stack();
	ck_assert_int_eq(clash_overlap_get(&sphere, &a.s, NULL, &o), CLASH_ENOTSUP);
	clash_shape whole;
	ck_assert_int_eq(clash_shape_init_compound(&whole, 3, &a.s, 1), CLASH_OK);
	dirty_stack();
	ck_assert_int_eq(clash_overlap_get(&sphere, &whole, NULL, &o), CLASH_ENOTSUP);
	clash_shape box;
	ck_assert_int_eq(clash_shape_init_primitive(&box, CLASH_KIND_BOX, hi), CLASH_OK);
	ck_assert_int_eq(clash_overlap_get(&box, &box, NULL, &o), CLASH_EINVAL);
	ck_assert_ptr_null(o);
	clash_overlap_free(NULL);
	tm_free(&a);
}
END_TEST

static Suite *overlap_volume_suite(void)
{
	Suite *s = suite_create("overlap_volume");
	ck_case(s, "closed_forms", 60,
	        CK_TESTS(boxes_coplanar_faces, box_inside_box, scaled_poses, l_and_u_against_boxes,
	                 voxel_blocks_against_cells, convex_against_half_spaces,
	                 box_primitive_against_l, compound_with_mesh_part));
	ck_case(s, "large", 60, CK_TESTS(large_meshes_volume));
	ck_case(s, "bounded_once", 60,
	        CK_TESTS(overlapping_leaves_have_no_volume, nested_shells_one_way_have_no_volume,
	                 crossing_shells_have_no_volume));
	return s;
}

static Suite *overlap_regions_suite(void)
{
	Suite *s = suite_create("overlap_regions");
	ck_case(s, "regions", 60,
	        CK_TESTS(bolt_through_plate, two_separate_overlaps, open_surface_no_volume,
	                 random_soups_do_not_crash, bad_arguments));
	return s;
}

CHECK_SUITE(overlap_volume_suite)
CHECK_SUITE(overlap_regions_suite)
