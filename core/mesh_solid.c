/*
 * mesh_solid.c — the solid rule (mesh_solid.h): the mean leak of the
 * winding number over a mesh's surface.
 *
 * The leak at a point just in front of the surface is the distance of
 * the winding number there from the nearest integer (Jacobson, Kavan,
 * Sorkine-Hornung 2013, "Robust inside-outside segmentation using
 * generalized winding numbers", section 3: the number jumps by exactly 1
 * across the surface, and is an integer off a closed one).  The mean over
 * the area is taken at SOLID_SAMPLES points spread by area: the k-th at
 * (k + 1/2) / SOLID_SAMPLES of the area summed over the triangles in tree
 * order (near triangles are near in that order, so the points spread over
 * space too), placed in its triangle by the remainder and a golden-ratio
 * sequence.  Deterministic: the same mesh always gets the same verdict.
 * Each point is 1e-6 of its triangle's size in front of it; the far field
 * is evaluated within SOLID_TAU per cluster, far below the threshold.
 * The samples' work is bounded (SOLID_WORK_*): a mesh whose leak takes
 * more than that to measure is a soup of crossing triangles, no solid.
 */
#include <math.h>

#include "mesh_solid.h"
#include "winding.h"

#define SOLID_SAMPLES 1024
#define SOLID_TAU 1e-2
#define GOLDEN 0.6180339887498949
/* The most nodes and triangles the samples may read together: a few
 * hundred a sample on a part, while in a soup of crossing triangles
 * every sample would read most of them. */
#define SOLID_WORK_BASE ((size_t)1 << 22)
#define SOLID_WORK_PER_TRIANGLE 4

static double tri_normal(const double *t, double *n)
{
	const double u[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]};
	const double v[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
	n[0] = u[1] * v[2] - u[2] * v[1];
	n[1] = u[2] * v[0] - u[0] * v[2];
	n[2] = u[0] * v[1] - u[1] * v[0];
	return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* The leak at the point of triangle t at (u, v) of its edges, just in
 * front of it (n: its normal, area its area). */
static double leak_at(const clash_mesh *m, const double *t, const double *n, double area, double u,
                      double v, size_t *work, size_t limit)
{
	if (u + v > 1.0) {
		u = 1.0 - u;
		v = 1.0 - v;
	}
	const double off = 1e-6 * sqrt(area) / (2.0 * area);
	double p[3];
	for (int k = 0; k < 3; k++)
		p[k] = t[k] + u * (t[3 + k] - t[k]) + v * (t[6 + k] - t[k]) + off * n[k];
	const double w = winding_number_within(m, m->far, p, SOLID_TAU, NULL, work, limit);
	return fabs(w - nearbyint(w)); /* NAN past the limit */
}

double mesh_leak(const clash_mesh *m)
{
	double total = 0.0, n[3];
	for (size_t i = 0; i < m->ntriangles; i++)
		total += tri_normal(mesh_tri(m, i), n);
	if (!(total > 0.0) || !isfinite(total))
		return 0.5; /* no area: it encloses nothing */
	const double step = total / SOLID_SAMPLES;
	double sum = 0.0, before = 0.0, next = 0.5 * step;
	const size_t limit = SOLID_WORK_BASE + SOLID_WORK_PER_TRIANGLE * m->ntriangles;
	size_t work = 0;
	int k = 0;
	for (size_t i = 0; i < m->ntriangles && k < SOLID_SAMPLES; i++) {
		const double *t = mesh_tri(m, i);
		const double area = tri_normal(t, n);
		for (; k < SOLID_SAMPLES && next < before + area; k++, next += step) {
			const double u = (next - before) / area, v = fmod((k + 1) * GOLDEN, 1.0);
			sum += leak_at(m, t, n, area, u, v, &work, limit);
			if (work > limit)
				return 0.5; /* a soup of crossing triangles: a surface */
		}
		before += area;
	}
	return k ? sum / k : 0.5;
}

int mesh_solid_rule(const clash_mesh *m)
{
	return m->topo.closed || m->leak < MESH_SOLID_LEAK;
}
