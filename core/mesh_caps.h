/*
 * mesh_caps.h — does a part reach into an open solid through its holes?
 * (internal to the core; core/mesh_caps.c, called by mesh_query.c).
 *
 * An open solid whose holes are listed is closed once each hole is capped
 * (mesh_topo.h: the cone from the hole's centre over its edges); away
 * from the holes its inside is the capped surface's, and near one, where
 * the winding number passes 1/2.  A part whose surface stays apart from
 * the solid's triangles and whose representative (one point) is outside
 * can still be partly inside: then it crosses a cap, or has points near a
 * hole.  These find such points; the caller's test of a point decides.
 */
#ifndef CLASH_MESH_CAPS_H
#define CLASH_MESH_CAPS_H

#include "affine.h"
#include "mesh.h"

/* Called with a cap triangle (9 world coordinates): 1 when the part meets
 * it (the common point in at), 0, or a negative error. */
typedef int (*caps_tri_fn)(void *ctx, const double tri[9], double at[3]);

/* Is the world point at (on the part) inside the holder?  1, 0, or a
 * negative error; it may answer 1 for another point of the part it
 * finds inside, moving at there. */
typedef int (*caps_point_fn)(void *ctx, double at[3]);

/* A point of mesh p (posed by fp) that the caps of the holes of h (posed
 * by fh) lead to and `inside` accepts: where a triangle of p meets a cap
 * (exact for the caps' world coordinates), or a corner of p in a hole's
 * ball.  1 with it in at, 0, or a negative error (CLASH_ECANCELED).  h
 * must be capped (h->capped). */
int mesh_caps_meet_mesh(const clash_mesh *h, const affine *fh, const clash_mesh *p,
                        const affine *fp, const volatile int *cancel, caps_point_fn inside,
                        void *ctx, double at[3]);

/* The caps of h (posed by fh) whose balls meet box (in h's frame), each
 * handed to fn until it returns non-zero; that return, else 0. */
int mesh_caps_meet_box(const clash_mesh *h, const affine *fh, const obox *box, caps_tri_fn fn,
                       void *ctx, double at[3]);

#endif
