/*
 * winding.c — the generalized winding number of a triangle mesh, fast by
 * its tree (Barill, Dickson, Schmidt, Levin, Jacobson 2018, "Fast winding
 * numbers for soups and clouds", section 3: a node far from the point is
 * replaced by a dipole, near ones are opened, and leaves are summed
 * exactly).  A triangle's exact share is its solid angle over 4 pi (van
 * Oosterom and Strackee 1983, "The solid angle of a plane triangle").
 *
 * Far field, first order: a cluster of triangles within radius r of c,
 * area A and area-weighted normal sum N, seen from p at d = |c - p| > r,
 * adds N . (c - p) / (4 pi d^3).  Its error is at most A r / (2 pi
 * (d - r)^3): the gradient of x / |x|^3 has norm at most 2 / |x|^3, and
 * every point of the cluster is within r of c, so at least d - r from p.
 * The cluster is the node's box (c its centre, r its half diagonal: no
 * storage); N and A are kept per inner node as floats (N rounded to
 * nearest adds at most 2^-24 A / (4 pi (d - r)^2), counted in the bound;
 * A rounded up), 16 bytes each, indexed by the node's children pair.
 */
#include <math.h>
#include <string.h>

#include "winding.h"

/* Stack entries of a depth-first walk: the tree is at most about 80
 * levels deep (mesh_build.c) and each level leaves one entry waiting. */
#define WINDING_STACK 512
#define FOUR_PI 12.566370614359172

typedef struct far_node {
	float n[3]; /* sum of (b - a) x (c - a) / 2 over the node's triangles */
	float area; /* sum of their areas, rounded up */
} far_node;

size_t winding_far_size(const clash_mesh *m)
{
	return mesh_valid(m) ? (m->nnodes / 2) * sizeof(far_node) : 0;
}

static void tri_normal(const double *t, double *n)
{
	const double u[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]};
	const double v[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
	n[0] = 0.5 * (u[1] * v[2] - u[2] * v[1]);
	n[1] = 0.5 * (u[2] * v[0] - u[0] * v[2]);
	n[2] = 0.5 * (u[0] * v[1] - u[1] * v[0]);
}

static float up(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Node i's sums (n, area) in doubles; inner nodes' stored on the way
 * back.  Recursion as deep as the tree. */
static void sums(const clash_mesh *m, far_node *far, uint32_t i, double *n, double *area)
{
	const mesh_node *nd = &m->nodes[i];
	n[0] = n[1] = n[2] = *area = 0.0;
	if (nd->count) {
		for (uint32_t k = 0; k < nd->count; k++) {
			double t[3];
			tri_normal(mesh_tri(m, nd->first + k), t);
			for (int j = 0; j < 3; j++)
				n[j] += t[j];
			*area += sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
		}
		return;
	}
	for (uint32_t c = 0; c < 2; c++) {
		double cn[3], ca;
		sums(m, far, nd->first + c, cn, &ca);
		for (int j = 0; j < 3; j++)
			n[j] += cn[j];
		*area += ca;
	}
	far_node *f = &far[nd->first / 2];
	for (int j = 0; j < 3; j++)
		f->n[j] = (float)n[j];
	f->area = up(*area * (1.0 + 0x1p-50)); /* the sums' own rounding */
}

int winding_far_build(const clash_mesh *m, void *storage, size_t size)
{
	if (!mesh_valid(m) || storage == NULL || ((uintptr_t)storage & 7) ||
	    size < winding_far_size(m))
		return CLASH_EINVAL;
	far_node *far = storage;
	memset(far, 0, winding_far_size(m));
	double n[3], area;
	sums(m, far, 0, n, &area);
	return CLASH_OK;
}

/* The solid angle of triangle t seen from p, over 4 pi. */
static double tri_winding(const double *t, const double *p)
{
	double a[3], b[3], c[3];
	for (int k = 0; k < 3; k++) {
		a[k] = t[k] - p[k];
		b[k] = t[3 + k] - p[k];
		c[k] = t[6 + k] - p[k];
	}
	const double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	const double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	const double lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
	                   a[2] * (b[0] * c[1] - b[1] * c[0]);
	const double den = la * lb * lc + (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * lc +
	                   (a[0] * c[0] + a[1] * c[1] + a[2] * c[2]) * lb +
	                   (b[0] * c[0] + b[1] * c[1] + b[2] * c[2]) * la;
	return 2.0 * atan2(det, den) / FOUR_PI;
}

/* Inner node nd as a dipole seen from p (relative to the origin, as its
 * box): 1 with *w and *e (its error bound) when within tau, else 0. */
static int dipole(const mesh_node *nd, const far_node *f, const double *p, double tau, double *w,
                  double *e)
{
	double v[3], h2 = 0.0, d2 = 0.0;
	for (int k = 0; k < 3; k++) {
		const double lo = nd->lo[k], hi = nd->hi[k];
		v[k] = 0.5 * lo + 0.5 * hi - p[k];
		h2 += (hi - lo) * (hi - lo);
		d2 += v[k] * v[k];
	}
	const double r = 0.5 * sqrt(h2) * (1.0 + 0x1p-48), d = sqrt(d2), g = d - r;
	if (!(g > 0.0))
		return 0;
	const double area = f->area;
	*e = area * (2.0 * r / (FOUR_PI * g * g * g) + 0x1p-24 / (FOUR_PI * g * g));
	if (!(*e <= tau))
		return 0;
	*w = (f->n[0] * v[0] + f->n[1] * v[1] + f->n[2] * v[2]) / (FOUR_PI * d2 * d);
	return 1;
}

double winding_number(const clash_mesh *m, const void *far, const double *p, double tau,
                      double *bound)
{
	const far_node *fn = far;
	double q[3], w = 0.0, err = 0.0;
	for (int k = 0; k < 3; k++)
		q[k] = p[k] - m->origin[k];
	uint32_t stack[WINDING_STACK];
	int top = 0;
	stack[top++] = 0;
	while (top > 0) {
		const mesh_node *nd = &m->nodes[stack[--top]];
		if (nd->count) {
			for (uint32_t i = 0; i < nd->count; i++)
				w += tri_winding(mesh_tri(m, nd->first + i), p);
			continue;
		}
		double dw, de;
		if (tau > 0.0 && dipole(nd, &fn[nd->first / 2], q, tau, &dw, &de)) {
			w += dw;
			err += de;
			continue;
		}
		stack[top++] = nd->first + 1;
		stack[top++] = nd->first;
	}
	if (bound)
		*bound = err;
	return w;
}

/* The first tolerance per cluster of the inside test, and how much each
 * refinement divides it by before the exact sum. */
#define WINDING_TAU 1e-3
#define WINDING_REFINE 16.0
#define WINDING_TRIES 4

int winding_inside(const clash_mesh *m, const void *far, const double *p)
{
	double tau = WINDING_TAU, bound;
	for (int i = 0; i < WINDING_TRIES; i++, tau /= WINDING_REFINE) {
		const double w = fabs(winding_number(m, far, p, tau, &bound));
		if (fabs(w - 0.5) > bound)
			return w >= 0.5;
	}
	return fabs(winding_number(m, far, p, 0.0, NULL)) >= 0.5;
}
