/*
 * motion.c — shapes in motion (2005 interframe paper, section 5): the
 * motion between two poses, the swept-hull test, and the time of impact by
 * conservative advancement (Mirtich 1996; FCL's CA), beyond the paper.
 *
 * A motion (clash.h) moves a shape's origin along a line at constant speed
 * and turns the shape about that moving origin at constant angular speed:
 * the pose at time t is x -> R(t) L x + T + t d, the slerp of the
 * orientation and the lerp of the position between "pose" and "pose_end".
 * Under translation the paper's hull of an object's vertices in two frames
 * is exactly the volume it sweeps, so clash_swept answers "do they touch at
 * any time" with one GJK query; under rotation it is not used.  clash_toi
 * steps from t to t + d/mu, where GJK's distance d and a bound mu on the
 * approach speed show that nothing can touch sooner, so it never misses a
 * contact.
 *
 * Why this motion, the swept hull and the time of impact: docs/design.md,
 * "core/motion.c, scene.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clash.h"
#include "compound.h"
#include "gauss.h"
#include "motion.h"
#include "primitive.h"
#include "trig.h"
#include "vec.h"

/* The default contact tolerance, relative to the shapes' size: clash_gjk's. */
#define TOI_DEFAULT_RELATIVE_TOLERANCE 1e-12

/* Tolerances below this many ulps of the scene's size mean nothing: poses
 * and support points carry that much rounding. */
#define TOI_ROUNDOFF_ULPS 64.0

/* A motion's rotation part must be orthogonal within this (entries of
 * Q^T Q - I): twice the quaternion length tolerance, which is what a unit
 * quaternion off by that much gives. */
#define MOTION_ORTHO_TOLERANCE (2.0 * CLASH_QUAT_TOLERANCE)

/* ---- motions ------------------------------------------------------------- */

int motion_check(const clash_motion *m, int dim)
{
	if (m == NULL)
		return CLASH_OK;
	if (!vec_isfinite(m->translation, dim) || !vec_isfinite(m->rotation, 3))
		return CLASH_ERANGE;
	int turns = dim == 3 ? 3 : dim == 2 ? 1 : 0;
	for (int k = turns; k < 3; k++)
		if (m->rotation[k] != 0.0)
			return CLASH_EINVAL;
	return CLASH_OK;
}

double motion_spin(const clash_motion *m, int dim)
{
	if (m == NULL)
		return 0.0;
	if (dim == 3)
		return vec_norm(m->rotation, 3);
	if (dim == 2)
		return fabs(m->rotation[0]);
	return 0.0;
}

int motion_moves(const clash_motion *m, int dim)
{
	if (m == NULL)
		return 0;
	for (int k = 0; k < dim; k++)
		if (m->translation[k] != 0.0)
			return 1;
	return motion_spin(m, dim) != 0.0;
}

/* The pose of s as a full linear part and translation (identity when unposed). */
static void pose_of(const clash_shape *s, double *lin, double *t)
{
	const int n = s->dim;
	if (s->posed) {
		memcpy(lin, s->linear, (size_t)(n * n) * sizeof *lin);
		vec_copy(t, s->translation, n);
		return;
	}
	memset(lin, 0, (size_t)(n * n) * sizeof *lin);
	for (int i = 0; i < n; i++)
		lin[i * n + i] = 1.0;
	vec_zero(t, n);
}

/* inv = a^-1 (column-major n x n; gauss.h); -1 when a is singular. */
static int invert(const double *a, int n, double *inv)
{
	double m[CLASH_MAX_DIM * CLASH_MAX_DIM];
	memcpy(m, a, (size_t)(n * n) * sizeof *m);
	return gauss_invert(m, inv, n, 1, n);
}

/* The rotation vector of a 3-D rotation matrix q (column-major), the
 * shortest way: through the unit quaternion (Shepperd's branches keep the
 * square root away from 0), sign chosen with w >= 0. */
static void rotation_vector(const double *q, double *rv)
{
	const double m00 = q[0], m10 = q[1], m20 = q[2];
	const double m01 = q[3], m11 = q[4], m21 = q[5];
	const double m02 = q[6], m12 = q[7], m22 = q[8];
	double w, x, y, z, s;
	double tr = m00 + m11 + m22;
	if (tr > 0.0) {
		s = 2.0 * sqrt(tr + 1.0);
		w = 0.25 * s;
		x = (m21 - m12) / s;
		y = (m02 - m20) / s;
		z = (m10 - m01) / s;
	} else if (m00 > m11 && m00 > m22) {
		s = 2.0 * sqrt(fmax(0.0, 1.0 + m00 - m11 - m22));
		w = (m21 - m12) / s;
		x = 0.25 * s;
		y = (m01 + m10) / s;
		z = (m02 + m20) / s;
	} else if (m11 > m22) {
		s = 2.0 * sqrt(fmax(0.0, 1.0 + m11 - m00 - m22));
		w = (m02 - m20) / s;
		x = (m01 + m10) / s;
		y = 0.25 * s;
		z = (m12 + m21) / s;
	} else {
		s = 2.0 * sqrt(fmax(0.0, 1.0 + m22 - m00 - m11));
		w = (m10 - m01) / s;
		x = (m02 + m20) / s;
		y = (m12 + m21) / s;
		z = 0.25 * s;
	}
	if (w < 0.0) {
		w = -w;
		x = -x;
		y = -y;
		z = -z;
	}
	double v[3] = {x, y, z};
	double vlen = vec_norm(v, 3);
	if (vlen == 0.0) {
		vec_zero(rv, 3);
		return;
	}
	double angle = 2.0 * trig_atan2(vlen, w);
	for (int k = 0; k < 3; k++)
		rv[k] = v[k] / vlen * angle + 0.0;
}

int clash_motion_between(clash_motion *m, const clash_shape *start, const clash_shape *end)
{
	if (m == NULL)
		return CLASH_EINVAL;
	memset(m, 0, sizeof *m);
	if (start == NULL || end == NULL)
		return CLASH_EINVAL;
	const int n = start->dim;
	if (n < 1 || n > CLASH_MAX_DIM || end->dim != n)
		return CLASH_EDIM;
	double l0[CLASH_MAX_DIM * CLASH_MAX_DIM], l1[CLASH_MAX_DIM * CLASH_MAX_DIM];
	double t0[CLASH_MAX_DIM], t1[CLASH_MAX_DIM];
	pose_of(start, l0, t0);
	pose_of(end, l1, t1);
	for (int k = 0; k < n; k++)
		m->translation[k] = t1[k] - t0[k];
	if (!vec_isfinite(m->translation, n)) {
		memset(m, 0, sizeof *m);
		return CLASH_ERANGE;
	}
	double inv[CLASH_MAX_DIM * CLASH_MAX_DIM], q[CLASH_MAX_DIM * CLASH_MAX_DIM];
	if (invert(l0, n, inv) != 0) {
		memset(m, 0, sizeof *m);
		return CLASH_ESINGULAR;
	}
	for (int c = 0; c < n; c++) /* q = l1 inv */
		for (int r = 0; r < n; r++) {
			double x = 0.0;
			for (int k = 0; k < n; k++)
				x += l1[k * n + r] * inv[c * n + k];
			q[c * n + r] = x;
		}
	/* A rotation: orthogonal (Q^T Q = I) ... */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double x = vec_dot(q + i * n, q + j * n, n) - (i == j);
			if (!(fabs(x) <= MOTION_ORTHO_TOLERANCE)) {
				memset(m, 0, sizeof *m);
				return CLASH_ENOTSUP;
			}
		}
	/* ... and proper (det +1), in a dimension where we can turn. */
	int ok;
	if (n == 3) {
		double det = q[0] * (q[4] * q[8] - q[7] * q[5]) -
		             q[3] * (q[1] * q[8] - q[7] * q[2]) +
		             q[6] * (q[1] * q[5] - q[4] * q[2]);
		ok = det > 0.0;
		if (ok)
			rotation_vector(q, m->rotation);
	} else if (n == 2) {
		ok = q[0] * q[3] - q[2] * q[1] > 0.0;
		if (ok)
			m->rotation[0] = trig_atan2(q[1], q[0]) + 0.0;
	} else {
		ok = 1;
		for (int i = 0; i < n && ok; i++)
			for (int j = 0; j < n && ok; j++)
				ok = fabs(q[j * n + i] - (i == j)) <= MOTION_ORTHO_TOLERANCE;
	}
	if (!ok) {
		memset(m, 0, sizeof *m);
		return CLASH_ENOTSUP;
	}
	return CLASH_OK;
}

/* R = the rotation by t times m's turn (n x n, column-major, n = 2 or 3).
 * Returns 0 when that is the identity (nothing written). */
static int rotation_at(const clash_motion *m, int n, double t, double *rot)
{
	if (n == 2) {
		double a = t * m->rotation[0];
		if (a == 0.0)
			return 0;
		double c, s;
		trig_sincos(a, &s, &c);
		rot[0] = c;
		rot[1] = s;
		rot[2] = -s;
		rot[3] = c;
		return 1;
	}
	if (n != 3)
		return 0;
	double angle = vec_norm(m->rotation, 3);
	if (angle == 0.0 || t == 0.0)
		return 0;
	double k[3];
	for (int i = 0; i < 3; i++)
		k[i] = m->rotation[i] / angle;
	double c, s;
	trig_sincos(t * angle, &s, &c);
	const double v = 1.0 - c;
	/* Rodrigues: R = c I + s [k]x + (1 - c) k k^T, element (r, c) at [c*3 + r]. */
	rot[0] = c + v * k[0] * k[0];
	rot[1] = s * k[2] + v * k[1] * k[0];
	rot[2] = -s * k[1] + v * k[2] * k[0];
	rot[3] = -s * k[2] + v * k[0] * k[1];
	rot[4] = c + v * k[1] * k[1];
	rot[5] = s * k[0] + v * k[2] * k[1];
	rot[6] = s * k[1] + v * k[0] * k[2];
	rot[7] = -s * k[0] + v * k[1] * k[2];
	rot[8] = c + v * k[2] * k[2];
	return 1;
}

int clash_motion_pose(clash_shape *out, const clash_shape *s, const clash_motion *m, double t)
{
	if (out == NULL || s == NULL)
		return CLASH_EINVAL;
	*out = *s;
	if (m == NULL)
		return CLASH_OK;
	const int n = s->dim;
	if (n < 1 || n > CLASH_MAX_DIM)
		return CLASH_EDIM;
	if (!isfinite(t))
		return CLASH_ERANGE;
	double lin[CLASH_MAX_DIM * CLASH_MAX_DIM], tr[CLASH_MAX_DIM], rot[9];
	pose_of(s, lin, tr);
	int turns = rotation_at(m, n, t, rot);
	int shifts = 0;
	for (int k = 0; k < n; k++)
		shifts |= t * m->translation[k] != 0.0;
	if (!turns && !shifts)
		return CLASH_OK;
	if (turns)
		for (int c = 0; c < n; c++)
			for (int r = 0; r < n; r++) {
				double x = 0.0;
				for (int k = 0; k < n; k++)
					x += rot[k * n + r] * lin[c * n + k];
				out->linear[c * n + r] = x;
			}
	else
		memcpy(out->linear, lin, (size_t)(n * n) * sizeof *lin);
	for (int k = 0; k < n; k++)
		out->translation[k] = tr[k] + t * m->translation[k];
	out->posed = 1;
	if (!vec_isfinite(out->linear, n * n) || !vec_isfinite(out->translation, n))
		return CLASH_ERANGE;
	return CLASH_OK;
}

/* v = the velocity (per unit of t) at time t of the material point now at
 * p of a shape whose origin started at o0, under motion m: d + w x (p -
 * o(t)).  Rest (m NULL) gives 0. */
static void point_velocity(const clash_motion *m, int n, const double *o0, double t,
                           const double *p, double *v)
{
	vec_zero(v, n);
	if (m == NULL)
		return;
	double r[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		v[k] = m->translation[k];
		r[k] = p[k] - (o0[k] + t * m->translation[k]);
	}
	const double *w = m->rotation;
	if (n == 3) {
		v[0] += w[1] * r[2] - w[2] * r[1];
		v[1] += w[2] * r[0] - w[0] * r[2];
		v[2] += w[0] * r[1] - w[1] * r[0];
	} else if (n == 2) {
		v[0] -= w[0] * r[1];
		v[1] += w[0] * r[0];
	}
}

/* ---- boxes and reaches --------------------------------------------------- */

typedef struct box_walk {
	int n;
	double origin[CLASH_MAX_DIM];
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM]; /* of the hull points, radii excluded */
	double reach;  /* the largest |x - origin| over the hull points */
	double radius; /* the largest leaf radius */
} box_walk;

/* box_leaf for an exact primitive: its world box from its support points
 * along the axes, its reach bounded (primitive.h). */
static void primitive_box_leaf(const clash_shape *leaf, box_walk *w)
{
	for (int k = 0; k < 3; k++) {
		double d[3] = {0.0, 0.0, 0.0}, x[3];
		d[k] = 1.0;
		w->hi[k] = fmax(w->hi[k], primitive_support_world(leaf, d, x));
		d[k] = -1.0;
		w->lo[k] = fmin(w->lo[k], -primitive_support_world(leaf, d, x));
	}
	w->reach = fmax(w->reach, primitive_reach(leaf, w->origin));
	w->radius = fmax(w->radius, leaf->radius);
}

static int box_leaf(const clash_shape *leaf, size_t top, void *ctx)
{
	(void)top;
	box_walk *w = ctx;
	const int n = w->n;
	if (leaf->kind) {
		primitive_box_leaf(leaf, w);
		return CLASH_OK;
	}
	for (size_t i = 0; i < leaf->count; i++) {
		const double *v = leaf->vertices + i * (size_t)n;
		double d[CLASH_MAX_DIM];
		for (int r = 0; r < n; r++) {
			double s = leaf->posed ? leaf->translation[r] : v[r];
			if (leaf->posed)
				for (int k = 0; k < n; k++)
					s += leaf->linear[k * n + r] * v[k];
			w->lo[r] = fmin(w->lo[r], s);
			w->hi[r] = fmax(w->hi[r], s);
			d[r] = s - w->origin[r];
		}
		w->reach = fmax(w->reach, vec_norm(d, n));
	}
	w->radius = fmax(w->radius, leaf->radius);
	return CLASH_OK;
}

/* The hull box, reach and largest radius of s where it is. */
static int box_of(const clash_shape *s, box_walk *w)
{
	const int n = s->dim;
	memset(w, 0, sizeof *w);
	w->n = n;
	if (s->posed)
		vec_copy(w->origin, s->translation, n);
	for (int k = 0; k < n; k++) {
		w->lo[k] = INFINITY;
		w->hi[k] = -INFINITY;
	}
	int err = compound_foreach_leaf(s, box_leaf, w);
	if (err)
		return err;
	if (!vec_isfinite(w->lo, n) || !vec_isfinite(w->hi, n) || !isfinite(w->reach))
		return CLASH_ERANGE;
	return CLASH_OK;
}

int motion_box(const clash_shape *s, const clash_motion *m, double *lo, double *hi, double *reach)
{
	if (s == NULL || lo == NULL || hi == NULL)
		return CLASH_EINVAL;
	const int n = s->dim;
	size_t leaves;
	int err = compound_check(s, n, &leaves);
	if (err)
		return err;
	if ((err = motion_check(m, n)))
		return err;
	box_walk w0;
	if ((err = box_of(s, &w0)))
		return err;
	if (reach)
		*reach = w0.reach;
	vec_copy(lo, w0.lo, n);
	vec_copy(hi, w0.hi, n);
	double grow = w0.radius;
	const double spin = motion_spin(m, n);
	if (m && spin == 0.0) {
		/* Translation: the box of S and S + d. */
		for (int k = 0; k < n; k++) {
			lo[k] += fmin(0.0, m->translation[k]);
			hi[k] += fmax(0.0, m->translation[k]);
		}
	} else if (m) {
		clash_shape end;
		box_walk w1;
		if ((err = clash_motion_pose(&end, s, m, 1.0)) || (err = box_of(&end, &w1)))
			return err;
		/* Every hull point's path stays within spin^2 reach / 8 of its
		 * chord, and within reach of the origin's path. */
		double stray = spin * spin * w0.reach / 8.0;
		for (int k = 0; k < n; k++) {
			double o0 = w0.origin[k], o1 = w0.origin[k] + m->translation[k];
			double clo = fmin(o0, o1) - w0.reach, chi = fmax(o0, o1) + w0.reach;
			lo[k] = fmax(fmin(lo[k], w1.lo[k]) - stray, clo);
			hi[k] = fmin(fmax(hi[k], w1.hi[k]) + stray, chi);
		}
		grow = fmax(grow, w1.radius);
	}
	/* Rounding: a few ulps of the coordinates' size, so the box never
	 * comes out smaller than the shape. */
	for (int k = 0; k < n; k++) {
		double slack = 8.0 * DBL_EPSILON * (fabs(lo[k]) + fabs(hi[k]) + w0.reach);
		lo[k] -= grow + slack;
		hi[k] += grow + slack;
	}
	if (!vec_isfinite(lo, n) || !vec_isfinite(hi, n))
		return CLASH_ERANGE;
	return CLASH_OK;
}

/* Half the diagonal of a box. */
static double half_diagonal(const double *lo, const double *hi, int n)
{
	double h[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		h[k] = 0.5 * hi[k] - 0.5 * lo[k];
	return vec_norm(h, n);
}

/* ---- the swept-hull test ------------------------------------------------- */

/* Building b's relative swept hull: each convex leaf becomes a shape of its
 * world vertices and the same moved by d, at rest. */
typedef struct sweep_build {
	int n;
	double d[CLASH_MAX_DIM];
	clash_shape *leaves;
	size_t *tops;     /* the top-level part of each leaf */
	double *vertices; /* where the next leaf's vertices go */
	size_t nleaves;
	size_t total; /* vertices counted in the first pass */
} sweep_build;

static int count_leaf(const clash_shape *leaf, size_t top, void *ctx)
{
	(void)top;
	sweep_build *b = ctx;
	clash_shape buf;
	const clash_shape *low;
	int err = primitive_lower(leaf, &buf, &low, 0);
	if (err)
		return err;
	if (low->kind) /* curved: no vertices to sweep */
		return CLASH_ENOTSUP;
	b->total += low->count;
	return CLASH_OK;
}

static int sweep_leaf(const clash_shape *shape, size_t top, void *ctx)
{
	sweep_build *b = ctx;
	const int n = b->n;
	clash_shape buf;
	const clash_shape *leaf;
	int err = primitive_lower(shape, &buf, &leaf, 0); /* checked by count_leaf */
	if (err)
		return err;
	double *out = b->vertices;
	for (size_t i = 0; i < leaf->count; i++) {
		const double *v = leaf->vertices + i * (size_t)n;
		double *x = out + i * (size_t)n, *y = out + (leaf->count + i) * (size_t)n;
		for (int r = 0; r < n; r++) {
			double s = leaf->posed ? leaf->translation[r] : v[r];
			if (leaf->posed)
				for (int k = 0; k < n; k++)
					s += leaf->linear[k * n + r] * v[k];
			x[r] = s;
			y[r] = s + b->d[r];
		}
	}
	if (!vec_isfinite(out, (int)(2 * leaf->count * (size_t)n)))
		return CLASH_ERANGE;
	clash_shape *s = &b->leaves[b->nleaves];
	err = clash_shape_init(s, n, out, 2 * leaf->count);
	if (!err)
		err = clash_shape_set_radius(s, leaf->radius);
	if (err)
		return err;
	b->tops[b->nleaves++] = top;
	b->vertices = out + 2 * leaf->count * (size_t)n;
	return CLASH_OK;
}

static int mesh_leaf(const clash_shape *leaf, size_t top, void *ctx)
{
	(void)top;
	(void)ctx;
	return leaf->mesh != NULL;
}

/* 1 when s is a triangle mesh or a compound with one among its leaves
 * (errors of the walk count as 0: the query itself reports them). */
static int has_mesh(const clash_shape *s)
{
	return compound_foreach_leaf(s, mesh_leaf, NULL) > 0;
}

int clash_swept(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
                const clash_motion *mb, const clash_options *opt, clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	if (a == NULL || b == NULL)
		return CLASH_EINVAL;
	const int n = b->dim;
	if (n < 1 || n > CLASH_MAX_DIM || a->dim != n)
		return CLASH_EDIM;
	int err;
	if ((err = motion_check(ma, n)) || (err = motion_check(mb, n)))
		return err;
	if (motion_spin(ma, n) != 0.0 || motion_spin(mb, n) != 0.0)
		return CLASH_ENOTSUP;
	size_t nleaves;
	if ((err = compound_check(b, n, &nleaves)))
		return err;
	/* A swept mesh is not the hull of its vertices' two poses. */
	if (has_mesh(a) || has_mesh(b))
		return CLASH_ENOTSUP;
	clash_options o = opt ? *opt : (clash_options){0};
	o.warm_count = 0; /* b's vertices are not the ones a warm start names */
	o.warm_a = o.warm_b = NULL;
	o.warm_plane = NULL;

	sweep_build sb = {.n = n};
	for (int k = 0; k < n; k++)
		sb.d[k] = (mb ? mb->translation[k] : 0.0) - (ma ? ma->translation[k] : 0.0);
	if (!vec_isfinite(sb.d, n))
		return CLASH_ERANGE;
	if ((err = compound_foreach_leaf(b, count_leaf, &sb)))
		return err;
	/* One block: the leaf shapes, their top-level parts, the vertices. */
	size_t bytes = nleaves * (sizeof(clash_shape) + sizeof(size_t)) +
	               2 * sb.total * (size_t)n * sizeof(double);
	void *block = malloc(bytes);
	if (block == NULL)
		return CLASH_ENOMEM;
	sb.leaves = block;
	sb.tops = (size_t *)(sb.leaves + nleaves);
	sb.vertices = (double *)(sb.tops + nleaves);
	err = compound_foreach_leaf(b, sweep_leaf, &sb);
	if (!err) {
		assert(sb.nleaves == nleaves);
		clash_shape swept;
		if (b->nparts == 0)
			swept = sb.leaves[0];
		else
			err = clash_shape_init_compound(&swept, n, sb.leaves, nleaves);
		if (!err)
			err = clash_gjk(a, &swept, &o, r);
		if (!err && b->nparts) {
			r->part_b = sb.tops[r->part_b];
		}
	}
	free(block);
	if (err)
		memset(r, 0, sizeof *r);
	return err;
}

/* ---- depth --------------------------------------------------------------- */

int motion_deeper(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                  const clash_result *r, double tol)
{
	if (!r->intersecting)
		return 0;
	if (r->has & CLASH_HAS_DEPTH)
		return r->depth > tol;
	if (r->depth_lower_bound > tol)
		return 1;
	const int n = b->dim;
	clash_options o = opt ? *opt : (clash_options){0};
	o.warm_count = 0;
	o.warm_a = o.warm_b = NULL;
	o.warm_plane = NULL;
	o.want = 0; /* distances (and depths) are what this needs, whatever the caller's want */
	o.tolerance = 0.25 * tol;
	const double step = 2.0 * sqrt((double)n) * tol;
	for (int k = 0; k < n; k++)
		for (int sign = -1; sign <= 1; sign += 2) {
			clash_motion shift = {{0}, {0}};
			shift.translation[k] = sign * step;
			clash_shape moved;
			clash_result q;
			int err = clash_motion_pose(&moved, b, &shift, 1.0);
			if (!err)
				err = clash_gjk(a, &moved, &o, &q);
			if (err)
				return err;
			if (!q.intersecting)
				return 0;
		}
	return 1;
}

/* ---- time of impact ------------------------------------------------------ */

/* The motion's answer at the stop: contact point, normal, approach. */
typedef struct toi_state {
	const clash_shape *a, *b;
	const clash_motion *ma, *mb;
	int n;
	double oa[CLASH_MAX_DIM], ob[CLASH_MAX_DIM]; /* origins at the start */
} toi_state;

static void origin_of(const clash_shape *s, double *o)
{
	if (s->posed)
		vec_copy(o, s->translation, s->dim);
	else
		vec_zero(o, s->dim);
}

/* The unit direction from a to b of a separated answer: its plane's
 * normal when it has one (GJK keeps it accurate however small the gap),
 * else the direction between the near points (a compound answer whose
 * nearest parts' plane does not separate the rest), which is as accurate
 * as the gap is large next to the coordinates.  0 when there is none. */
static int near_direction(const clash_result *r, int n, double *dir)
{
	if (r->intersecting)
		return 0;
	if (r->has & CLASH_HAS_PLANE) {
		vec_copy(dir, r->normal, n);
		return 1;
	}
	double d[CLASH_MAX_DIM];
	vec_sub(d, r->near_b, r->near_a, n);
	double len = vec_norm(d, n);
	if (!(len > 0.0) || !isfinite(len))
		return 0;
	for (int k = 0; k < n; k++)
		dir[k] = d[k] / len + 0.0;
	return 1;
}

static void set_approach(const toi_state *st, double t, clash_toi_result *out)
{
	double va[CLASH_MAX_DIM], vb[CLASH_MAX_DIM], rel[CLASH_MAX_DIM];
	point_velocity(st->ma, st->n, st->oa, t, out->point, va);
	point_velocity(st->mb, st->n, st->ob, t, out->point, vb);
	vec_sub(rel, va, vb, st->n);
	out->approach = vec_dot(out->normal, rel, st->n) + 0.0;
}

/* What bounds a time of impact search (see clash_toi): sizes, speeds and
 * the tolerance, all at the start. */
typedef struct toi_bounds {
	double rel[CLASH_MAX_DIM]; /* a's translation relative to b's */
	double relnorm;
	double wa, wb;         /* the spins (motion_spin) */
	double spin_bound;     /* the most rotation adds to the approach */
	double mu_max;         /* no pair of points approaches faster */
	double tol, floor_tol; /* the tolerance and its rounding floor */
} toi_bounds;

/* Sizes and reaches at the start; the tolerance. */
static int toi_bounds_of(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
                         const clash_motion *mb, const clash_options *opt, toi_bounds *bd)
{
	const int n = a->dim;
	int err;
	double alo[CLASH_MAX_DIM], ahi[CLASH_MAX_DIM], blo[CLASH_MAX_DIM], bhi[CLASH_MAX_DIM];
	double ra, rb;
	if ((err = motion_box(a, NULL, alo, ahi, &ra)) ||
	    (err = motion_box(b, NULL, blo, bhi, &rb)))
		return err;
	const double size = half_diagonal(alo, ahi, n) + half_diagonal(blo, bhi, n);
	double gap[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		bd->rel[k] = (ma ? ma->translation[k] : 0.0) - (mb ? mb->translation[k] : 0.0);
		gap[k] = (0.5 * alo[k] + 0.5 * ahi[k]) - (0.5 * blo[k] + 0.5 * bhi[k]);
	}
	bd->relnorm = vec_norm(bd->rel, n);
	bd->wa = motion_spin(ma, n);
	bd->wb = motion_spin(mb, n);
	bd->spin_bound = bd->wa * ra + bd->wb * rb;
	bd->mu_max = bd->relnorm + bd->spin_bound;
	bd->floor_tol = TOI_ROUNDOFF_ULPS * DBL_EPSILON * (size + vec_norm(gap, n) + bd->mu_max);
	double tol = (opt && opt->tolerance > 0.0) ? opt->tolerance
	                                           : TOI_DEFAULT_RELATIVE_TOLERANCE * size;
	if (tol < bd->floor_tol)
		tol = bd->floor_tol;
	bd->tol = tol;
	if (!isfinite(tol) || !isfinite(bd->mu_max))
		return CLASH_ERANGE;
	return CLASH_OK;
}

/* The conservative advancement: from t = 0, query the distance d at t and
 * step ahead by as long as the approach speed bound mu needs to close d
 * (less GJK's slack) down to the goal, until contact, the end of the
 * motion, or CLASH_TOI_MAX_STEPS.  r: the last answer; prev_dir, *have_prev:
 * the last separated answer's direction.  Returns CLASH_OK or an error. */
static int toi_search(const toi_state *st, const toi_bounds *bd, const clash_options *o,
                      double clearance, clash_toi_result *out, clash_result *r, double *prev_dir,
                      int *have_prev)
{
	const int n = st->n;
	const double tol = bd->tol;
	/* A mesh answer has no separating plane: the near points' direction
	 * and the full relative speed bound the approach. */
	const int convex =
		st->a->nparts == 0 && st->b->nparts == 0 && !has_mesh(st->a) && !has_mesh(st->b);
	/* A distance from GJK is within its tolerance of the truth (or its own
	 * rounding floor, which floor_tol covers). */
	const double slack = o->tolerance + bd->floor_tol;
	double t = 0.0;
	int err;
	for (;;) {
		if (out->steps >= CLASH_TOI_MAX_STEPS) {
			/* Out of steps: nothing happened before t; say contact
			 * there rather than risk a miss. */
			out->converged = 0;
			if (!out->near) {
				out->near = 1;
				out->near_time = t;
			}
			out->contact = 1;
			out->toi = t;
			return CLASH_OK;
		}
		clash_shape pa, pb;
		if ((err = clash_motion_pose(&pa, st->a, st->ma, t)) ||
		    (err = clash_motion_pose(&pb, st->b, st->mb, t)))
			return err;
		if ((err = clash_gjk(&pa, &pb, o, r)))
			return err;
		out->steps++;
		const double d = r->intersecting ? 0.0 : r->distance;
		if (!out->near && (d < clearance || d <= tol)) {
			out->near = 1;
			out->near_time = t;
		}
		if (d <= tol) {
			out->contact = 1;
			out->toi = t;
			return CLASH_OK;
		}
		double dir[CLASH_MAX_DIM];
		if (near_direction(r, n, dir)) {
			vec_copy(prev_dir, dir, n);
			*have_prev = 1;
		}
		/* Aim a little past the target, so that it is reached. */
		const double goal =
			(out->near || clearance <= tol) ? 0.5 * tol : clearance - 0.5 * tol;
		double mu = bd->spin_bound;
		if (convex && (r->has & CLASH_HAS_PLANE))
			mu += vec_dot(r->normal, bd->rel,
			              n); /* n from a to b: a's own speed towards b */
		else
			mu += bd->relnorm;
		if (!(mu > 0.0))
			return CLASH_OK; /* the gap along n never closes: no contact, no nearer */
		double dlb = r->converged ? d - slack : 0.0;
		double dt = (dlb - goal) / mu;
		double next = t + (dt > 0.0 ? dt : 0.0);
		if (next <= t)
			next = nextafter(t, 2.0); /* rounding must not stall the search */
		if (next > 1.0)
			return CLASH_OK; /* nothing before the end */
		t = next;
	}
}

/* The contact found at out->toi (r: the answer there): its point, normal
 * and approach, and whether the shapes go on into each other. */
static int toi_contact(const toi_state *st, const toi_bounds *bd, const clash_options *o,
                       const clash_result *r, const double *prev_dir, int have_prev,
                       clash_toi_result *out)
{
	const int n = st->n;
	const double tol = bd->tol, mu_max = bd->mu_max;
	int err;
	for (int k = 0; k < n; k++)
		out->point[k] = 0.5 * r->near_a[k] + 0.5 * r->near_b[k];
	if (near_direction(r, n, out->normal)) {
		out->has_normal = 1;
	} else if (have_prev) {
		vec_copy(out->normal, prev_dir, n);
		out->has_normal = 1;
	} else if (out->toi == 0.0 && mu_max > 0.0) {
		/* Touching at the start: the direction that separated them a
		 * moment before, the motion run backwards by 8 tolerances. */
		clash_shape pa, pb;
		clash_result back;
		double eps = -8.0 * tol / mu_max;
		if ((err = clash_motion_pose(&pa, st->a, st->ma, eps)) ||
		    (err = clash_motion_pose(&pb, st->b, st->mb, eps)) ||
		    (err = clash_gjk(&pa, &pb, o, &back)))
			return err;
		if (near_direction(&back, n, out->normal))
			out->has_normal = 1;
	}
	if (out->has_normal)
		set_approach(st, out->toi, out);

	/* Do they go on into each other?  Look a moment later, when their
	 * approach would have taken them 16 tolerances deep: the depth there
	 * tells a collision from a graze or from sliding flush, which the
	 * normal before contact cannot (an edge meeting a face edge-on has an
	 * approaching normal, and then slides along the face). */
	double speed = out->has_normal ? out->approach : mu_max;
	if (out->toi < 1.0 && speed > 0.0) {
		double later = fmin(1.0, out->toi + 16.0 * tol / speed);
		if (later <= out->toi)
			later = nextafter(out->toi, 2.0);
		clash_shape pa, pb;
		clash_result r2;
		if ((err = clash_motion_pose(&pa, st->a, st->ma, later)) ||
		    (err = clash_motion_pose(&pb, st->b, st->mb, later)) ||
		    (err = clash_gjk(&pa, &pb, o, &r2)))
			return err;
		int deeper = motion_deeper(&pa, &pb, o, &r2, tol);
		if (deeper < 0)
			return deeper;
		out->runs_in = deeper;
	}
	if (!vec_isfinite(out->point, n) || !isfinite(out->approach)) {
		memset(out, 0, sizeof *out);
		return CLASH_ERANGE;
	}
	return CLASH_OK;
}

int clash_toi(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
              const clash_motion *mb, double clearance, const clash_options *opt,
              clash_toi_result *out)
{
	if (out == NULL)
		return CLASH_EINVAL;
	memset(out, 0, sizeof *out);
	if (a == NULL || b == NULL || !(clearance >= 0.0) || !isfinite(clearance))
		return CLASH_EINVAL;
	const int n = a->dim;
	if (n < 1 || n > CLASH_MAX_DIM || b->dim != n)
		return CLASH_EDIM;
	int err;
	if ((err = motion_check(ma, n)) || (err = motion_check(mb, n)))
		return err;
	out->dim = n;
	out->converged = 1;

	toi_bounds bd;
	if ((err = toi_bounds_of(a, ma, b, mb, opt, &bd)))
		return err;
	clash_options o = opt ? *opt : (clash_options){0};
	o.warm_count = 0; /* each step is another configuration */
	o.warm_a = o.warm_b = NULL;
	o.warm_plane = NULL;
	o.want = 0; /* distances (and depths) are what this needs, whatever the caller's want */
	o.tolerance = 0.25 * bd.tol;

	/* Pure translation: the swept hull says in one query whether anything
	 * happens at all. */
	const int meshes = has_mesh(a) || has_mesh(b);
	if (bd.wa == 0.0 && bd.wb == 0.0 && bd.relnorm > 0.0 && !meshes) {
		clash_options os = o;
		os.tolerance = bd.tol;
		clash_result sw;
		err = clash_swept(a, ma, b, mb, &os, &sw);
		if (err == CLASH_ENOTSUP) /* a curved b: the steps alone decide */
			sw.converged = 0;
		else if (err)
			return err;
		out->steps = 1;
		/* (A distance GJK did not converge on is only an upper bound.) */
		if (sw.converged && !sw.intersecting && !(sw.distance < clearance))
			return CLASH_OK;
	}

	toi_state st = {.a = a, .b = b, .ma = ma, .mb = mb, .n = n};
	origin_of(a, st.oa);
	origin_of(b, st.ob);
	double prev_dir[CLASH_MAX_DIM];
	int have_prev = 0;
	clash_result r;
	memset(&r, 0, sizeof r);
	if ((err = toi_search(&st, &bd, &o, clearance, out, &r, prev_dir, &have_prev)))
		return err;
	if (!out->contact)
		return CLASH_OK;
	return toi_contact(&st, &bd, &o, &r, prev_dir, have_prev, out);
}
