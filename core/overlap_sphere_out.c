/*
 * overlap_sphere_out.c — the report of a mesh against a ball
 * (ov_sphere, overlap_sphere.h): the pieces overlap_sphere.c finds,
 * written as clash_overlap_get's answer in one block.
 *
 * Each loop is one polyline: its arcs sampled every 2 pi / 64 at least,
 * every point computed on its circle (c + h n + rho (cos e1 + sin e2)),
 * the ends of arcs the crossings of the sphere with the mesh's edges.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlap_sphere.h"
#include "overlap_work.h"

static void *take(char **at, size_t bytes)
{
	void *p = *at;
	*at += (bytes + 7) & ~(size_t)7;
	return p;
}

static size_t loop_points(const sp_work *w, const sp_loop *l)
{
	size_t n = 0;
	uint32_t a = l->first;
	for (size_t k = 0; k < l->narcs; k++, a = w->arcs[a].next)
		n += sp_arc_steps(&w->arcs[a]);
	return n + !l->closed;
}

static int u32_cmp(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

typedef struct plan {
	size_t max_regions, max_points, max_triangles;
	uint32_t *tris; /* input indices by region */
	size_t *tfirst; /* nregions + 1 */
	size_t *keep;   /* per loop: points kept */
	size_t listed;
	int truncated;
} plan;

static int make_plan(const sp_work *w, plan *p)
{
	p->tris = malloc((w->ntri + 1) * sizeof *p->tris);
	p->tfirst = calloc(w->nregions + 2, sizeof *p->tfirst);
	p->keep = calloc(w->nloops + 1, sizeof *p->keep);
	if (!p->tris || !p->tfirst || !p->keep)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < w->ntri; i++)
		p->tfirst[w->reg[ov_find(w->uf, (uint32_t)i)] + 2]++;
	for (size_t r = 0; r < w->nregions; r++)
		p->tfirst[r + 2] += p->tfirst[r + 1];
	for (size_t i = 0; i < w->ntri; i++)
		p->tris[p->tfirst[w->reg[ov_find(w->uf, (uint32_t)i)] + 1]++] = w->tri[i].input;
	for (size_t r = 0; r < w->nregions; r++)
		qsort(p->tris + p->tfirst[r], p->tfirst[r + 1] - p->tfirst[r], sizeof *p->tris,
		      u32_cmp);
	p->listed = w->nregions < p->max_regions ? w->nregions : p->max_regions;
	p->truncated = p->listed < w->nregions;
	size_t points = 0;
	for (size_t r = 0; r < p->listed; r++)
		for (size_t l = 0; l < w->nloops; l++) {
			if (w->reg[ov_find(w->uf, (uint32_t)(w->ntri + l))] != r)
				continue;
			const size_t n = loop_points(w, &w->loops[l]);
			p->keep[l] = points + n <= p->max_points ? n : p->max_points - points;
			p->truncated |= p->keep[l] < n;
			points += p->keep[l];
		}
	return CLASH_OK;
}

static size_t block_bytes(const sp_work *w, const plan *p)
{
	size_t bytes = sizeof(clash_overlap) + p->listed * sizeof(clash_overlap_region) + 64;
	for (size_t r = 0; r < p->listed; r++) {
		size_t nl = 0;
		for (size_t l = 0; l < w->nloops; l++)
			if (w->reg[ov_find(w->uf, (uint32_t)(w->ntri + l))] == r) {
				nl++;
				bytes += 3 * p->keep[l] * sizeof(double);
			}
		const size_t nt = p->tfirst[r + 1] - p->tfirst[r];
		bytes += (nl + 1) * sizeof(size_t) + ((nl + 7) & ~(size_t)7) +
		         (((nt < p->max_triangles ? nt : p->max_triangles) * 4 + 7) & ~(size_t)7) +
		         32;
	}
	return bytes;
}

static size_t write_loop(const sp_work *w, const sp_loop *l, size_t keep, double *pts)
{
	size_t n = 0;
	uint32_t a = l->first;
	for (size_t k = 0; k < l->narcs && n < keep; k++, a = w->arcs[a].next) {
		const sp_arc *arc = &w->arcs[a];
		const size_t s = sp_arc_steps(arc);
		const size_t last = !l->closed && k + 1 == l->narcs ? s : s - 1;
		for (size_t i = 0; i <= last && n < keep; i++)
			sp_arc_point(w, arc, i, s, pts + 3 * n++);
	}
	return n;
}

static void fill_region(const sp_work *w, const plan *p, size_t r, char **at,
                        clash_overlap_region *g)
{
	memset(g, 0, sizeof *g);
	g->kind = w->crossed[r]                      ? CLASH_CONTACT_SURFACES
	          : w->sphere_inside != w->mesh_is_a ? CLASH_CONTACT_A_IN_B
	                                             : CLASH_CONTACT_B_IN_A;
	memcpy(g->lo, w->lo + 3 * r, sizeof g->lo);
	memcpy(g->hi, w->hi + 3 * r, sizeof g->hi);
	g->has_volume = w->closed;
	g->volume = w->closed ? w->vol[r] : 0.0;
	size_t nl = 0;
	for (size_t l = 0; l < w->nloops; l++)
		nl += w->reg[ov_find(w->uf, (uint32_t)(w->ntri + l))] == r;
	size_t *off = take(at, (nl + 1) * sizeof *off);
	unsigned char *closed = take(at, nl);
	double *pts = (double *)*at;
	size_t n = 0, k = 0;
	for (size_t l = 0; l < w->nloops; l++) {
		if (w->reg[ov_find(w->uf, (uint32_t)(w->ntri + l))] != r)
			continue;
		off[k] = n;
		const size_t full = loop_points(w, &w->loops[l]);
		closed[k++] = (unsigned char)(w->loops[l].closed && p->keep[l] == full);
		n += write_loop(w, &w->loops[l], p->keep[l], pts + 3 * n);
	}
	off[nl] = n;
	*at += n * 3 * sizeof(double);
	g->npolylines = nl;
	g->polyline = off;
	g->closed = closed;
	g->points = pts;
	const size_t nt = p->tfirst[r + 1] - p->tfirst[r];
	const size_t kt = nt < p->max_triangles ? nt : p->max_triangles;
	uint32_t *t = take(at, kt * sizeof *t);
	memcpy(t, p->tris + p->tfirst[r], kt * sizeof *t);
	g->triangles_a = g->triangles_b = t; /* the ball's side: none, yet a pointer */
	if (w->mesh_is_a) {
		g->ntriangles_a = kt;
		g->triangles_a = t;
		g->total_triangles_a = nt;
	} else {
		g->ntriangles_b = kt;
		g->triangles_b = t;
		g->total_triangles_b = nt;
	}
}

static int answer(const sp_work *w, plan *p, clash_overlap **out)
{
	int err = make_plan(w, p);
	if (err)
		return err;
	clash_overlap *o = malloc(block_bytes(w, p));
	if (o == NULL)
		return CLASH_ENOMEM;
	memset(o, 0, sizeof *o);
	char *at = (char *)(o + 1);
	clash_overlap_region *g = take(&at, p->listed * sizeof *g);
	for (size_t r = 0; r < p->listed; r++) {
		fill_region(w, p, r, &at, &g[r]);
		p->truncated |= g[r].ntriangles_a < g[r].total_triangles_a ||
		                g[r].ntriangles_b < g[r].total_triangles_b;
	}
	for (size_t r = 0; r < w->nregions && w->closed; r++)
		o->volume += w->vol[r];
	o->intersecting = w->nregions > 0;
	o->has_volume = w->closed;
	o->nregions = p->listed;
	o->total_regions = w->nregions;
	o->regions = g;
	o->truncated = p->truncated;
	const int ms = w->m->solid, mc = w->m->topo.closed;
	o->solid_a = w->mesh_is_a ? ms : 1;
	o->solid_b = w->mesh_is_a ? 1 : ms;
	o->closed_a = w->mesh_is_a ? mc : 1;
	o->closed_b = w->mesh_is_a ? 1 : mc;
	*out = o;
	return CLASH_OK;
}

/* Nudges of the centre when a configuration is degenerate (the circle
 * of a face through a corner, a loop that does not close): 2^-40 of the
 * scale in one of the mesh reports' generic directions (ov_dirs). */
#define SP_NUDGE 0x1p-40

static int attempt(const clash_shape *mesh, const double *c, double r, int mesh_is_a,
                   const clash_overlap_options *opt, clash_overlap **out)
{
	sp_work w;
	memset(&w, 0, sizeof w);
	memcpy(w.c, c, sizeof w.c);
	w.r = r;
	w.m = mesh->mesh;
	w.closed = w.m->topo.closed;
	w.mesh_is_a = mesh_is_a;
	w.cancel = opt ? opt->cancel : NULL;
	affine_of(mesh, &w.to_world);
	affine_invert(&w.to_world, &w.to_mesh);
	plan p = {opt && opt->max_regions ? opt->max_regions : CLASH_OVERLAP_MAX_REGIONS,
	          opt && opt->max_points ? opt->max_points : CLASH_OVERLAP_MAX_POINTS,
	          opt && opt->max_triangles ? opt->max_triangles : CLASH_OVERLAP_MAX_TRIANGLES,
	          NULL,
	          NULL,
	          NULL,
	          0,
	          0};
	int err = sp_pieces(&w);
	if (!err)
		err = answer(&w, &p, out);
	free(p.tris);
	free(p.tfirst);
	free(p.keep);
	sp_free(&w);
	return err;
}

int ov_sphere(const clash_shape *mesh, const clash_shape *ball, int mesh_is_a,
              const clash_overlap_options *opt, clash_overlap **out)
{
	double c[3], r;
	if (mesh->mesh == NULL || mesh->radius != 0.0 || !ov_ball_of(ball, c, &r))
		return CLASH_ENOTSUP;
	int err = attempt(mesh, c, r, mesh_is_a, opt, out);
	const double scale = r + fmax(fabs(c[0]), fmax(fabs(c[1]), fabs(c[2])));
	for (int k = 0; k < OV_ATTEMPTS && err == CLASH_ENOTSUP; k++) {
		double x[3];
		for (int j = 0; j < 3; j++)
			x[j] = c[j] + SP_NUDGE * scale * ov_dirs[k][j];
		err = attempt(mesh, x, r, mesh_is_a, opt, out);
	}
	return err;
}
