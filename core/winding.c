/*
 * winding.c — the generalized winding number of a triangle mesh, fast by
 * its tree (Barill, Dickson, Schmidt, Levin, Jacobson 2018, "Fast winding
 * numbers for soups and clouds", section 3: a far node is replaced by its
 * Taylor expansion, near ones are opened, leaves are summed exactly by
 * solid angles: van Oosterom and Strackee 1983).  A node's cluster lies
 * within r (its box's half diagonal) of c (the box centre); seen from p,
 * y = c - p, d = |y| > r, g = d - r, it adds (N . y + tr M - 3 y.My / d^2)
 * / (4 pi d^3): N the area-weighted normal sum, M = sum area n (centroid
 * - c)^T, exact for the linear term on a triangle.  Error bounds, from
 * |D^k (1/|x|)| <= k! / |x|^(k+1) (Legendre polynomials are at most 1):
 * the dipole alone errs by at most A 2 r / (4 pi g^3), with M by A 3 r^2
 * / (4 pi g^4), A the area; the smaller is used, plus the rounding of N
 * and M to floats.  A node is expanded when its bound is at most tau, and
 * the walk returns the sum of the bounds it used.  Per inner node N, A
 * and M's symmetric part (all the term reads) are floats, 40 bytes,
 * indexed by the node's children pair.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "winding.h"
#include "trig.h"

/* Stack entries of a depth-first walk: the tree is at most about 80
 * levels deep (mesh_build.c) and each level leaves one entry waiting. */
#define WINDING_STACK 512
#define FOUR_PI 12.566370614359172

typedef struct far_node {
	float n[3]; /* sum of (b - a) x (c - a) / 2 over the node's triangles */
	float area; /* sum of their areas, rounded up */
	/* The symmetric part of the sum of area n_i (centroid - box
	 * centre)_j (xx yy zz xy yz zx): the only part the second-order
	 * term reads. */
	float m[6];
} far_node;

size_t winding_far_size(const clash_mesh *m)
{
	return mesh_valid(m) ? (m->nnodes / 2) * sizeof(far_node) : 0;
}

size_t winding_far_bound(size_t ntriangles)
{
	/* A pad and at most ntriangles leaves: ntriangles pairs at most. */
	return ntriangles * sizeof(far_node);
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

/* Node i's sums (n, area, s: area n_i centroid_j about the origin) in
 * doubles; inner nodes' stored on the way back.  Recursion as deep as the
 * tree. */
static void sums(const clash_mesh *m, far_node *far, uint32_t i, double *n, double *area, double *s)
{
	const mesh_node *nd = &m->nodes[i];
	n[0] = n[1] = n[2] = *area = 0.0;
	for (int j = 0; j < 9; j++)
		s[j] = 0.0;
	if (nd->count) {
		for (uint32_t k = 0; k < nd->count; k++) {
			const double *tr = mesh_tri(m, nd->first + k);
			double t[3], x[3];
			tri_normal(tr, t);
			for (int j = 0; j < 3; j++) {
				n[j] += t[j];
				x[j] = (tr[j] + tr[3 + j] + tr[6 + j]) / 3.0 - m->origin[j];
			}
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					s[3 * a + b] += t[a] * x[b];
			*area += sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
		}
		return;
	}
	for (uint32_t c = 0; c < 2; c++) {
		double cn[3], ca, cs[9];
		sums(m, far, nd->first + c, cn, &ca, cs);
		for (int j = 0; j < 3; j++)
			n[j] += cn[j];
		for (int j = 0; j < 9; j++)
			s[j] += cs[j];
		*area += ca;
	}
	far_node *f = &far[nd->first / 2];
	for (int j = 0; j < 3; j++)
		f->n[j] = (float)n[j];
	double c[3], mm[9];
	for (int b = 0; b < 3; b++)
		c[b] = 0.5 * nd->lo[b] + 0.5 * nd->hi[b];
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			mm[3 * a + b] = s[3 * a + b] - n[a] * c[b];
	for (int k = 0; k < 3; k++) {
		f->m[k] = (float)mm[4 * k];
		f->m[3 + k] =
			(float)(0.5 * mm[3 * k + (k + 1) % 3] + 0.5 * mm[3 * ((k + 1) % 3) + k]);
	}
	f->area = up(*area * (1.0 + 0x1p-50)); /* the sums' own rounding */
	/* A sum past the floats' range (coordinates near 1e19 and more):
	 * an infinite area, so that the node is always opened. */
	int finite = isfinite(f->area);
	for (int k = 0; k < 3; k++)
		finite = finite && isfinite(f->n[k]) && isfinite(f->m[k]) && isfinite(f->m[3 + k]);
	if (!finite)
		f->area = INFINITY;
}

int winding_far_build(const clash_mesh *m, void *storage, size_t size)
{
	if (!mesh_valid(m) || storage == NULL || ((uintptr_t)storage & 7) ||
	    size < winding_far_size(m))
		return CLASH_EINVAL;
	far_node *far = storage;
	memset(far, 0, winding_far_size(m));
	double n[3], area, sm[9];
	sums(m, far, 0, n, &area, sm);
	return CLASH_OK;
}

/* The solid angle of triangle t seen from p, over 4 pi (signed: positive
 * when p is behind it). */
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
	/* p in the triangle's plane: 0, also on the triangle itself (the
	 * mean of the two sides' +-1/2, whatever the sign of a zero det). */
	return det == 0.0 ? 0.0 : 2.0 * trig_atan2(det, den) / FOUR_PI;
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
	const double area = f->area, g2 = g * g;
	const double e1 = area * (2.0 * r / (FOUR_PI * g2 * g) + 0x1p-24 / (FOUR_PI * g2));
	const double e2 = area * (3.0 * r * r / (FOUR_PI * g2 * g2) + 0x1p-24 / (FOUR_PI * g2) +
	                          0x1p-22 * r / (FOUR_PI * g2 * g));
	*e = e2 < e1 ? e2 : e1;
	if (!(*e <= tau))
		return 0;
	const double d3 = d2 * d;
	double x = f->n[0] * v[0] + f->n[1] * v[1] + f->n[2] * v[2];
	if (e2 < e1) {
		const float *mm = f->m;
		double tr = 0.0, yMy = 0.0;
		for (int k = 0; k < 3; k++) {
			tr += mm[k];
			yMy += mm[k] * v[k] * v[k] + 2.0 * mm[3 + k] * v[k] * v[(k + 1) % 3];
		}
		x += tr - 3.0 * yMy / d2;
	}
	*w = x / (FOUR_PI * d3);
	return 1;
}

double winding_number_within(const clash_mesh *m, const void *far, const double *p, double tau,
                             double *bound, size_t *work, size_t limit)
{
	const far_node *fn = far;
	double q[3], w = 0.0, err = 0.0;
	for (int k = 0; k < 3; k++)
		q[k] = p[k] - m->origin[k];
	uint32_t stack[WINDING_STACK];
	int top = 0;
	size_t done = *work;
	stack[top++] = 0;
	while (top > 0) {
		const mesh_node *nd = &m->nodes[stack[--top]];
		done += nd->count ? nd->count : 1;
		if (done > limit) {
			*work = done;
			return NAN;
		}
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
	*work = done;
	if (bound)
		*bound = err;
	return w;
}

double winding_number(const clash_mesh *m, const void *far, const double *p, double tau,
                      double *bound)
{
	size_t work = 0;
	return winding_number_within(m, far, p, tau, bound, &work, SIZE_MAX);
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
