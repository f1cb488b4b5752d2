/*
 * mesh_fit.c — an oriented box per tree node (mesh_fit.h), after
 * Gottschalk, Lin, Manocha 1996, "OBBTree: a hierarchical structure for
 * rapid interference detection", section 4: the axes are the eigenvectors
 * of the covariance of the node's corners (Jacobi rotations), the extents
 * the corners' projections on them.
 *
 * One walk after the tree is built, children before parents: a node's
 * moments are its children's summed, and its rotations start from its
 * first child's axes (one sweep), so the axes cost O(1) a node; a leaf's
 * axes are its largest triangle's normal and longest edge.  Every
 * node projects all its corners (a triangle once a level): bounding the
 * children's boxes instead compounds their overhang level by level, and
 * the boxes near the root came out several times the node's size.
 *
 * Conservative by construction: the projections are made on the axes as
 * rounded to floats, around the centre as rounded to floats, and the
 * extents grown by 4e-6 of their sum (the axes as stored are orthonormal
 * to about 4e-7, so the parallelepiped they span with these extents holds
 * the slab box the projections bound) and by the rounding of the
 * projections, then rounded up to floats.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "mesh.h"
#include "mesh_fit.h"

/* Growth of the extents for the axes' rounding (see above). */
#define FIT_AXES_SLACK 4e-6

typedef struct moments {
	double s[3], ss[6]; /* sums of p and of p p^T (xx xy xz yy yz zz) */
	double n;
	uint32_t lo, hi; /* the node's triangles, tree order */
} moments;

static void add_point(moments *mo, const double *p)
{
	for (int k = 0; k < 3; k++)
		mo->s[k] += p[k];
	mo->ss[0] += p[0] * p[0];
	mo->ss[1] += p[0] * p[1];
	mo->ss[2] += p[0] * p[2];
	mo->ss[3] += p[1] * p[1];
	mo->ss[4] += p[1] * p[2];
	mo->ss[5] += p[2] * p[2];
	mo->n += 1.0;
}

/* The eigenvectors of the symmetric a (3x3, row-major, destroyed) as the
 * columns of v, by cyclic Jacobi rotations. */
static void jacobi(double a[9], double v[9], int sweeps)
{
	static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
	for (int sweep = 0; sweep < sweeps; sweep++) {
		const double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
		const double diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
		if (!(off > 1e-6 * diag))
			return;
		for (int r = 0; r < 3; r++) {
			const int p = pq[r][0], q = pq[r][1];
			const double apq = a[3 * p + q];
			if (apq == 0.0)
				continue;
			const double th = (a[3 * q + q] - a[3 * p + p]) / (2.0 * apq);
			const double t =
				(th >= 0.0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
			const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
			/* a = J^T a J, v = v J; J the rotation in the (p, q) plane. */
			for (int k = 0; k < 3; k++) {
				const double akp = a[3 * k + p], akq = a[3 * k + q];
				a[3 * k + p] = c * akp - s * akq;
				a[3 * k + q] = s * akp + c * akq;
			}
			for (int k = 0; k < 3; k++) {
				const double apk = a[3 * p + k], aqk = a[3 * q + k];
				a[3 * p + k] = c * apk - s * aqk;
				a[3 * q + k] = s * apk + c * aqk;
			}
			for (int k = 0; k < 3; k++) {
				const double vkp = v[3 * k + p], vkq = v[3 * k + q];
				v[3 * k + p] = c * vkp - s * vkq;
				v[3 * k + q] = s * vkp + c * vkq;
			}
		}
	}
}

/* The axes of mo (rows of ax, right-handed) as floats.  from: a child's
 * axes to start the rotations from (NULL: the coordinate axes); a
 * parent's covariance is nearly diagonal in its child's frame, and one
 * sweep then does what three do from the coordinate axes. */
static void fit_axes(const moments *mo, const float *from, float ax[9])
{
	double a[9], v[9], mean[3];
	for (int k = 0; k < 3; k++)
		mean[k] = mo->s[k] / mo->n;
	static const int at[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			a[3 * r + c] = mo->ss[at[3 * r + c]] / mo->n - mean[r] * mean[c];
	if (from) {
		/* v's columns the child's axes; a = v^T a v. */
		double t[9];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				v[3 * r + c] = from[3 * c + r];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				t[3 * r + c] = a[3 * r] * v[c] + a[3 * r + 1] * v[3 + c] +
				               a[3 * r + 2] * v[6 + c];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				a[3 * r + c] =
					v[r] * t[c] + v[3 + r] * t[3 + c] + v[6 + r] * t[6 + c];
	} else {
		for (int k = 0; k < 9; k++)
			v[k] = (double)(k % 4 == 0);
	}
	jacobi(a, v, from ? 1 : 3);
	double e[3][3];
	for (int i = 0; i < 2; i++) {
		double len = 0.0;
		for (int k = 0; k < 3; k++) {
			e[i][k] = v[3 * k + i];
			len += e[i][k] * e[i][k];
		}
		len = sqrt(len);
		for (int k = 0; k < 3; k++)
			e[i][k] /= len;
	}
	e[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
	e[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
	e[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			ax[3 * i + k] = (float)e[i][k];
}

/* Projections of points on the axes: their least and greatest. */
typedef struct span {
	double a[9], lo[3], hi[3], mag;
} span;

/* The corners of triangles lo..hi (node nd's), projected: on the
 * corners as they are, the origin's projection taken off once; the
 * rounding is of their magnitude, bounded by nd's box. */
static void project_corners(const clash_mesh *m, const mesh_node *nd, uint32_t lo, uint32_t hi,
                            span *s)
{
	const double *a = s->a;
	double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY,
	       h2 = -INFINITY;
	const double *p = mesh_tri(m, lo), *end = mesh_tri(m, hi);
	for (; p < end; p += 3) {
		const double t0 = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
		const double t1 = a[3] * p[0] + a[4] * p[1] + a[5] * p[2];
		const double t2 = a[6] * p[0] + a[7] * p[1] + a[8] * p[2];
		l0 = t0 < l0 ? t0 : l0;
		h0 = t0 > h0 ? t0 : h0;
		l1 = t1 < l1 ? t1 : l1;
		h1 = t1 > h1 ? t1 : h1;
		l2 = t2 < l2 ? t2 : l2;
		h2 = t2 > h2 ? t2 : h2;
	}
	const double lo3[3] = {l0, l1, l2}, hi3[3] = {h0, h1, h2};
	double mag = 0.0;
	for (int k = 0; k < 3; k++)
		mag += fabs(m->origin[k]) + fmax(fabs((double)nd->lo[k]), fabs((double)nd->hi[k]));
	for (int i = 0; i < 3; i++) {
		const double o = a[3 * i] * m->origin[0] + a[3 * i + 1] * m->origin[1] +
		                 a[3 * i + 2] * m->origin[2];
		s->lo[i] = lo3[i] - o;
		s->hi[i] = hi3[i] - o;
	}
	s->mag = 2.0 * mag;
}

static float up(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* The box from the span: centre, then extents about it, grown. */
static void span_box(const span *s, const float ax[9], mesh_obb *o)
{
	memcpy(o->a, ax, sizeof o->a);
	double c[3] = {0.0, 0.0, 0.0};
	for (int i = 0; i < 3; i++) {
		const double mid = 0.5 * s->lo[i] + 0.5 * s->hi[i];
		for (int k = 0; k < 3; k++)
			c[k] += mid * s->a[3 * i + k];
	}
	double h[3], sum = 0.0, mag = s->mag;
	for (int k = 0; k < 3; k++) {
		o->c[k] = (float)c[k];
		mag += fabs((double)o->c[k]);
	}
	for (int i = 0; i < 3; i++) {
		const double m = s->a[3 * i] * o->c[0] + s->a[3 * i + 1] * o->c[1] +
		                 s->a[3 * i + 2] * o->c[2];
		h[i] = fmax(s->hi[i] - m, m - s->lo[i]);
		sum += h[i];
	}
	for (int i = 0; i < 3; i++)
		o->h[i] = up(h[i] + FIT_AXES_SLACK * sum + 32 * DBL_EPSILON * mag + FLT_MIN);
	o->pad = 0.0f;
}

/* A leaf's axes from its largest triangle: its normal and its longest
 * edge (a leaf's few triangles are nearly coplanar, and Jacobi's rotations
 * cost more than the rest of its fit). */
static int leaf_axes(const clash_mesh *m, const mesh_node *nd, float ax[9])
{
	double e[3][3], best = 0.0;
	for (uint32_t t = nd->first; t < nd->first + nd->count; t++) {
		const double *p = mesh_tri(m, t);
		double u[3][3], n[3];
		for (int k = 0; k < 3; k++) {
			u[0][k] = p[3 + k] - p[k];
			u[1][k] = p[6 + k] - p[3 + k];
			u[2][k] = p[k] - p[6 + k];
		}
		n[0] = u[0][1] * u[2][2] - u[0][2] * u[2][1];
		n[1] = u[0][2] * u[2][0] - u[0][0] * u[2][2];
		n[2] = u[0][0] * u[2][1] - u[0][1] * u[2][0];
		const double a2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
		if (!(a2 > best))
			continue;
		best = a2;
		int l = 0;
		double l2[3];
		for (int i = 0; i < 3; i++)
			l2[i] = u[i][0] * u[i][0] + u[i][1] * u[i][1] + u[i][2] * u[i][2];
		l = l2[1] > l2[l] ? 1 : l;
		l = l2[2] > l2[l] ? 2 : l;
		const double ln = sqrt(l2[l]), nn = sqrt(a2);
		for (int k = 0; k < 3; k++) {
			e[0][k] = u[l][k] / ln;
			e[2][k] = n[k] / nn;
		}
	}
	if (!(best > 0.0))
		return 0; /* every triangle degenerate: the covariance's */
	e[1][0] = e[2][1] * e[0][2] - e[2][2] * e[0][1];
	e[1][1] = e[2][2] * e[0][0] - e[2][0] * e[0][2];
	e[1][2] = e[2][0] * e[0][1] - e[2][1] * e[0][0];
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			ax[3 * i + k] = (float)e[i][k];
	return 1;
}

/* The node's own axis-aligned box instead of o when that is no larger:
 * the covariance is isotropic for a cube or a sphere, and its axes then
 * any (often diagonal to the faces, the box half as large again). */
static void aabb_if_smaller(const clash_mesh *m, const mesh_node *nd, mesh_obb *o)
{
	double vol = 1.0, mag = 0.0;
	span s;
	for (int i = 0; i < 3; i++) {
		vol *= 0.5 * ((double)nd->hi[i] - (double)nd->lo[i]);
		s.lo[i] = nd->lo[i];
		s.hi[i] = nd->hi[i];
		mag += fabs(m->origin[i]) + fmax(fabs((double)nd->lo[i]), fabs((double)nd->hi[i]));
	}
	if (vol > (double)o->h[0] * (double)o->h[1] * (double)o->h[2])
		return;
	float ax[9];
	for (int i = 0; i < 9; i++)
		s.a[i] = ax[i] = (float)(i % 4 == 0);
	s.mag = 2.0 * mag;
	span_box(&s, ax, o);
}

static moments fit(const clash_mesh *m, mesh_obb *out, uint32_t k)
{
	const mesh_node *nd = &m->nodes[k];
	moments mo;
	memset(&mo, 0, sizeof mo);
	if (nd->count) {
		mo.lo = nd->first;
		mo.hi = nd->first + nd->count;
		for (uint32_t t = mo.lo; t < mo.hi; t++)
			for (int c = 0; c < 3; c++) {
				double p[3];
				for (int j = 0; j < 3; j++)
					p[j] = mesh_tri(m, t)[3 * c + j] - m->origin[j];
				add_point(&mo, p);
			}
	} else {
		const moments l = fit(m, out, nd->first), r = fit(m, out, nd->first + 1);
		for (int j = 0; j < 3; j++)
			mo.s[j] = l.s[j] + r.s[j];
		for (int j = 0; j < 6; j++)
			mo.ss[j] = l.ss[j] + r.ss[j];
		mo.n = l.n + r.n;
		mo.lo = l.lo;
		mo.hi = r.hi;
	}
	float ax[9];
	if (!nd->count)
		fit_axes(&mo, out[nd->first].a, ax);
	else if (!leaf_axes(m, nd, ax))
		fit_axes(&mo, NULL, ax);
	span s;
	for (int j = 0; j < 9; j++)
		s.a[j] = ax[j];
	project_corners(m, nd, mo.lo, mo.hi, &s);
	span_box(&s, ax, &out[k]);
	aabb_if_smaller(m, nd, &out[k]);
	return mo;
}

void mesh_fit_obbs(const clash_mesh *m, mesh_obb *out)
{
	memset(&out[1], 0, sizeof out[1]);
	fit(m, out, 0);
}

const mesh_obb *mesh_fit_get(const clash_mesh *m)
{
	/* The mesh is read-only to its users but for its boxes: fitted once,
	 * published by the release store, seen through the acquire load. */
	_Atomic int *state = (_Atomic int *)&m->fit;
	int s = atomic_load_explicit(state, memory_order_acquire);
	if (s == MESH_FIT_DONE)
		return m->obbs;
	if (s != MESH_FIT_NONE ||
	    !atomic_compare_exchange_strong_explicit(state, &s, MESH_FIT_BUSY, memory_order_acquire,
	                                             memory_order_relaxed))
		return NULL;
	mesh_fit_obbs(m, (mesh_obb *)m->obbs);
	atomic_store_explicit(state, MESH_FIT_DONE, memory_order_release);
	return m->obbs;
}
