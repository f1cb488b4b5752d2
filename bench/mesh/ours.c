/*
 * ours.c — clashd's collision core as the mesh benchmark's method, through
 * the mesh API of core/clash.h (clash_mesh_size, clash_mesh_build,
 * clash_shape_init_mesh, then clash_gjk).
 *
 * three.js's torus knot has seam vertices (equal up to rounding, see
 * meshes.h), so by index it is an open tube; welding positions within
 * 1e-9 of the mesh's size (prepare, untimed, as a loader would) makes it a
 * closed solid, and only then can the core see a solid inside another.
 * The leaky knot stays open after the weld (its holes are real) and is a
 * solid by its small leak (describe says how the core read each mesh).
 * "collide" asks CLASH_WANT_VERDICT, distance CLASH_WANT_DISTANCE; report
 * is clash_overlap_get (regions and volume), depth clash_mesh_depth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clash.h"
#include "peers.h"

typedef struct {
	bm_mesh welded;
} prepared;

typedef struct {
	void *storage;
	clash_mesh *mesh;
	clash_shape shape;
} tree;

static void *prepare(const bm_mesh *m)
{
	prepared *p = calloc(1, sizeof *p);
	double lo[3], hi[3], size = 0;
	if (!p)
		return NULL;
	bm_bounds(m, lo, hi);
	for (int k = 0; k < 3; k++)
		size = fmax(size, hi[k] - lo[k]);
	if (bm_weld(m, 1e-9 * size, &p->welded) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void *build(const bm_mesh *m, void *prep)
{
	const bm_mesh *w = prep ? &((prepared *)prep)->welded : m;
	tree *t = calloc(1, sizeof *t);
	size_t size = clash_mesh_size(w->nv, w->nt);
	if (!t || !(t->storage = malloc(size)))
		goto fail;
	if (clash_mesh_build(t->storage, size, w->pos, w->nv, w->idx, w->nt, &t->mesh) != CLASH_OK)
		goto fail;
	if (clash_shape_init_mesh(&t->shape, t->mesh) != CLASH_OK)
		goto fail;
	if (!clash_mesh_is_solid(t->mesh))
		fprintf(stderr,
		        "bench-mesh: clashd takes a mesh of %zu triangles for a surface, not a solid\n",
		        w->nt);
	return t;
fail:
	if (t)
		free(t->storage);
	free(t);
	return NULL;
}

static void destroy(void *tr, void *prep)
{
	tree *t = tr;
	if (t) {
		free(t->storage);
		free(t);
	}
	if (prep) {
		bm_free(&((prepared *)prep)->welded);
		free(prep);
	}
}

static int query(void *a, void *b, const double t[3], unsigned want, bm_answer *out)
{
	clash_shape sb = ((tree *)b)->shape;
	clash_options opt;
	clash_result r;
	memset(&opt, 0, sizeof opt);
	opt.want = want;
	if (clash_shape_set_translation(&sb, t) != CLASH_OK)
		return -1;
	if (clash_gjk(&((tree *)a)->shape, &sb, &opt, &r) != CLASH_OK)
		return -1;
	out->intersecting = r.intersecting;
	out->distance = r.intersecting ? 0 : r.distance;
	out->contact = r.intersecting ? BM_CONTACT_UNKNOWN : BM_CONTACT_NONE;
	if (r.intersecting && (r.has & CLASH_HAS_MESH)) {
		switch (r.contact) {
		case CLASH_CONTACT_SURFACES: out->contact = BM_CONTACT_SURFACES; break;
		case CLASH_CONTACT_A_IN_B: out->contact = BM_CONTACT_A_IN_B; break;
		case CLASH_CONTACT_B_IN_A: out->contact = BM_CONTACT_B_IN_A; break;
		default: break;
		}
	}
	return 0;
}

static int collide(void *a, void *b, const double t[3], bm_answer *r)
{
	return query(a, b, t, CLASH_WANT_VERDICT, r);
}

static int distance(void *a, void *b, const double t[3], bm_answer *r)
{
	return query(a, b, t, CLASH_WANT_DISTANCE, r);
}

static int report(void *a, void *b, const double t[3], bm_answer *out)
{
	clash_shape sb = ((tree *)b)->shape;
	clash_overlap *o = NULL;
	if (clash_shape_set_translation(&sb, t) != CLASH_OK ||
	    clash_overlap_get(&((tree *)a)->shape, &sb, NULL, &o) != CLASH_OK)
		return -1;
	out->intersecting = o->intersecting;
	out->contact = o->intersecting ? BM_CONTACT_UNKNOWN : BM_CONTACT_NONE;
	out->regions = (long)o->total_regions;
	out->volume = o->has_volume ? o->volume : NAN;
	clash_overlap_free(o);
	return 0;
}

static int depth(void *a, void *b, const double t[3], bm_answer *out)
{
	clash_shape sb = ((tree *)b)->shape;
	clash_result r;
	if (clash_shape_set_translation(&sb, t) != CLASH_OK ||
	    clash_mesh_depth(&((tree *)a)->shape, &sb, NULL, &r) != CLASH_OK)
		return -1;
	out->intersecting = r.intersecting;
	out->contact = r.intersecting ? BM_CONTACT_UNKNOWN : BM_CONTACT_NONE;
	out->depth = (r.has & CLASH_HAS_DEPTH) ? r.depth : NAN;
	return 0;
}

static int set_pose(clash_shape *s, const bm_pose *p)
{
	return clash_shape_set_quaternion(s, p->q) != CLASH_OK ||
	       clash_shape_set_translation(s, p->t) != CLASH_OK;
}

static int posed(void *a, void *b, const bm_pose *pa, const bm_pose *pb, int q, bm_answer *out)
{
	clash_shape sa = ((tree *)a)->shape, sb = ((tree *)b)->shape;
	if (set_pose(&sa, pa) || set_pose(&sb, pb))
		return -1;
	if (q == BM_REPORT) {
		clash_overlap *o = NULL;
		if (clash_overlap_get(&sa, &sb, NULL, &o) != CLASH_OK)
			return -1;
		out->intersecting = o->intersecting;
		out->regions = (long)o->total_regions;
		out->volume = o->has_volume ? o->volume : NAN;
		clash_overlap_free(o);
		return 0;
	}
	clash_options opt;
	clash_result r;
	memset(&opt, 0, sizeof opt);
	opt.want = q == BM_DISTANCE ? CLASH_WANT_DISTANCE : CLASH_WANT_VERDICT;
	if (clash_gjk(&sa, &sb, &opt, &r) != CLASH_OK)
		return -1;
	out->intersecting = r.intersecting;
	out->distance = r.intersecting ? 0 : r.distance;
	return 0;
}

static void describe(void *tr, char *buf, size_t n)
{
	clash_mesh_info in;
	if (clash_mesh_info_get(((tree *)tr)->mesh, &in) != CLASH_OK) {
		snprintf(buf, n, "no mesh info");
		return;
	}
	snprintf(buf, n, "%s, %s, %zu boundary edges, leak %.3g", in.solid ? "solid" : "surface",
	         in.closed ? "closed" : "not closed", in.boundary_edges, in.leak);
}

const bm_peer bm_peer_ours = {"clashd", prepare, build, destroy, collide,
                              distance, report,  depth, posed,   describe};
