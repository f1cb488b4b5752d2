/*
 * overlap_sphere.h — a mesh against a ball: the pieces of the report that
 * overlap_sphere.c works out and overlap_sphere_out.c writes (internal to
 * the core; ov_pair in overlap.c hands such pairs here).
 *
 * Everything is in world coordinates: the ball's centre c and radius r,
 * the mesh's triangles mapped by its pose.  A triangle T whose plane is
 * nearer than r to c meets the ball in T∩D, D the disc of radius
 * rho = sqrt(r^2 - h^2) about c's foot o in the plane (h the signed
 * distance of the plane from c along T's outward normal); the sphere
 * meets T along arcs of D's circle.  Arcs are joined into loops at the
 * points where the sphere crosses the mesh's edges.
 */
#ifndef CLASH_OVERLAP_SPHERE_H
#define CLASH_OVERLAP_SPHERE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "affine.h"
#include "clash.h"
#include "mesh.h"

/* A triangle near the ball. */
typedef struct sp_tri {
	double p[9];               /* world corners, outward order */
	double n[3], e1[3], e2[3]; /* unit normal, plane basis (e1 x e2 = n) */
	double h, rho;             /* signed plane distance from c, disc radius */
	double area;               /* of T∩D */
	double omega;              /* T∩D's solid angle from c, signed as h */
	uint32_t input;            /* input index */
	uint32_t region;           /* union-find node, then its region */
} sp_tri;

/* An arc of a triangle's circle inside it, walked from angle hi down to
 * lo (angles about o in the basis e1, e2): so the part of the sphere
 * inside the mesh lies on its left seen from outside the sphere.  from
 * and to are crossing points (UINT32_MAX for a whole circle). */
typedef struct sp_arc {
	uint32_t tri;
	uint32_t from, to;
	double hi, lo;
	uint32_t next; /* the arc after it along its loop (UINT32_MAX: none) */
	uint32_t loop;
} sp_arc;

typedef struct sp_loop {
	uint32_t first; /* its first arc */
	size_t narcs;
	int closed;
	double turning; /* geodesic curvature and corner angles (unit sphere) */
	uint32_t patch; /* union-find over loops: the sphere patch it bounds */
} sp_loop;

typedef struct sp_work {
	const clash_mesh *m;
	double c[3], r;
	int closed; /* the mesh is closed: loops close, volume defined */
	int mesh_is_a;
	const volatile int *cancel;
	affine to_world, to_mesh;
	sp_tri *tri;
	size_t ntri;
	double (*xp)[3]; /* crossing points of the sphere and the edges */
	size_t nx, cap_x;
	sp_arc *arcs;
	size_t narcs, cap_arcs;
	sp_loop *loops;
	size_t nloops;
	struct sp_poly *polys; /* per loop: its sampled polygon on the unit sphere */
	uint32_t *uf;          /* triangles then loops */
	int sphere_inside;     /* no loop: the sphere lies inside the mesh */
	double volume;         /* of ball and mesh, by the cones from c */
	size_t nregions;
	double *vol;     /* per region */
	double *lo, *hi; /* per region box */
	int *crossed;    /* per region: a loop */
	uint32_t *reg;   /* per union-find root: its region */
} sp_work;

/* The pieces of w (its mesh, pose, ball set): CLASH_OK, CLASH_ENOMEM,
 * CLASH_ECANCELED. */
int sp_pieces(sp_work *w);
/* Point i of arc a sampled with `count` steps (0 .. count). */
void sp_arc_point(const sp_work *w, const sp_arc *a, size_t i, size_t count, double *x);
/* Steps an arc is sampled with. */
size_t sp_arc_steps(const sp_arc *a);
void sp_free(sp_work *w);

/* a := a / |a|; 0 (a untouched) when |a| is 0. */
static inline int sp_unit3(double *a)
{
	const double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	if (!(l > 0))
		return 0;
	for (int k = 0; k < 3; k++)
		a[k] /= l;
	return 1;
}

/* The report of a mesh leaf (radius 0) against a ball leaf (overlap.c):
 * CLASH_ENOTSUP when `ball` is not a ball in world space (a primitive
 * sphere under a pose that is not a similarity). */
int ov_sphere(const clash_shape *mesh, const clash_shape *ball, int mesh_is_a,
              const clash_overlap_options *opt, clash_overlap **out);
/* Whether s is a ball in world space: its centre and radius. */
int ov_ball_of(const clash_shape *s, double *c, double *r);

#endif
