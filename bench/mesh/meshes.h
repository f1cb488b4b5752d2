/*
 * meshes.h — the mesh benchmark's meshes: three.js's TorusKnotGeometry
 * reimplemented (the same positions, float32 as three.js stores them, and
 * the same index layout), an icosphere, welding of equal positions and the
 * closed-and-oriented check.
 */
#ifndef BENCH_MESH_MESHES_H
#define BENCH_MESH_MESHES_H

#include <stddef.h>
#include <stdint.h>

typedef struct bm_mesh {
	double *pos; /* 3 * nv */
	size_t nv;
	uint32_t *idx; /* 3 * nt */
	size_t nt;
} bm_mesh;

/* three.js TorusKnotGeometry(radius, tube, tubular, radial, p, q): the
 * (tubular + 1) * (radial + 1) vertices (a seam ring at each end of the
 * tube and a seam column around it, as three.js lays them out) and the
 * 2 * tubular * radial triangles in three.js's order.  Positions are
 * rounded to float32, as three.js's Float32BufferAttribute stores them;
 * with float32 == 0 they are left in double.  Returns 0, -1 when out of
 * memory. */
int bm_torus_knot(bm_mesh *m, double radius, double tube, int tubular, int radial, int p, int q,
                  int float32);

/* The point of the knot's centre curve at parameter u (three.js's
 * calculatePositionOnCurve). */
void bm_knot_curve(double u, int p, int q, double radius, double out[3]);

/* An icosphere: the icosahedron subdivided `detail` times (each triangle
 * into 4), every vertex projected to the sphere of `radius` about `centre`,
 * shared vertices, outward (counter-clockwise seen from outside) triangles;
 * 20 * 4^detail triangles.  Positions rounded to float32 like the knots. */
int bm_icosphere(bm_mesh *m, double radius, const double centre[3], int detail);

/* An axis-aligned box of half-sizes h about centre c: 8 vertices, 12
 * outward triangles (two a face).  Returns 0 or -1 (memory). */
int bm_box(bm_mesh *m, const double c[3], const double h[3]);

/* Weld: vertices whose positions are within eps (max-norm) of an earlier
 * one are merged into it (its position kept), the triangles re-indexed and
 * unused vertices dropped.  Triangles that become degenerate are kept (the
 * check below then fails).  Returns 0 or -1 (memory). */
int bm_weld(const bm_mesh *in, double eps, bm_mesh *out);

/* 1 when every undirected edge is used by exactly two triangles, once in
 * each direction (closed, consistently oriented, manifold at edges), 0
 * otherwise; -1 out of memory. */
int bm_closed(const bm_mesh *m);

/* A leaky copy: the same vertices, triangle t dropped when t % every ==
 * at (the rest kept in order).  Removing triangles keeps the vertex
 * numbering, so dropping from three.js's layout and then welding gives the
 * mesh that welding and then dropping gives.  Returns 0 or -1 (memory). */
int bm_drop_triangles(const bm_mesh *in, size_t every, size_t at, bm_mesh *out);

/* Signed volume (divergence theorem): positive for outward triangles. */
double bm_volume(const bm_mesh *m);

/* Axis-aligned bounds, lo[3] and hi[3]. */
void bm_bounds(const bm_mesh *m, double lo[3], double hi[3]);

void bm_free(bm_mesh *m);

#endif
