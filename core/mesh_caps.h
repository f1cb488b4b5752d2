/*
 * mesh_caps.h — does a part reach into an open solid through its holes?
 * (internal to the core; core/mesh_caps.c, called by mesh_query.c).
 *
 * An open solid whose holes are listed is closed once each hole is capped
 * (mesh_topo.h: the cone from the hole's centre over its edges), and its
 * inside is the capped surface's.  A part whose surface stays apart from
 * the solid's triangles can still be partly inside: it then crosses a
 * cap.  One point of the part (its representative) decides a part wholly
 * inside or wholly outside; these decide the rest.
 */
#ifndef CLASH_MESH_CAPS_H
#define CLASH_MESH_CAPS_H

#include "affine.h"
#include "mesh.h"

/* Called with a cap triangle (9 world coordinates): 1 when the part meets
 * it (the common point in at), 0, or a negative error. */
typedef int (*caps_tri_fn)(void *ctx, const double tri[9], double at[3]);

/* Does a triangle of mesh p (posed by fp) meet a cap of the holes of h
 * (posed by fh)?  1 with a common point in at, 0, CLASH_ECANCELED.  h must
 * be capped (h->capped); exact for the caps' world coordinates. */
int mesh_caps_meet_mesh(const clash_mesh *h, const affine *fh, const clash_mesh *p,
                        const affine *fp, const volatile int *cancel, double at[3]);

/* The caps of h (posed by fh) whose balls meet box (in h's frame), each
 * handed to fn until it returns non-zero; that return, else 0. */
int mesh_caps_meet_box(const clash_mesh *h, const affine *fh, const obox *box, caps_tri_fn fn,
                       void *ctx, double at[3]);

#endif
