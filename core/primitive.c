/*
 * primitive.c — exact primitives by analytic support mappings (see
 * primitive.h; the axis convention is clash.h's, "Exact primitives").
 *
 * GJK, EPA and MPR need only the support mapping s_C(d) of each shape (the
 * point of C farthest along d), and van den Bergen, "Collision Detection in
 * Interactive 3D Environments" (2003), section 4.3.4, gives it in closed
 * form for the basic convex primitives: a ball r d/|d|, a box by the signs
 * of d, a cylinder by the sign of d's axial part and the direction of its
 * radial part, a cone as the better of its apex and the rim point under d's
 * radial part, an ellipsoid as the image of the ball's under its axes, and
 * Minkowski sums (a capsule = segment + ball) as sums of the terms' support
 * points.  A pose x -> L x + t maps them as polytopes are mapped (GJK88
 * eqs. (9)-(10)): s(d) = L s_local(L^T d) + t.  Polytope methods answer a
 * polytope exactly (EPA ends on a face of K), a curved K only to a
 * tolerance, so a polytope in disguise is lowered to one: a box to its
 * corners, a sphere or capsule under a similarity pose (L^T L = sigma^2 I)
 * to a point or a segment grown by sigma r, the spherical extension of
 * GJK88 section II.  The unit vertices are static constants it borrows.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "primitive.h"
#include "vec.h"

/* L^T L = sigma^2 I within this relative error makes a pose a similarity
 * (a rotation from a normalized quaternion is one to a few ulps); the
 * radius sigma r it gives is then off by at most that much, far below the
 * default tolerance of 1e-12 times the shapes' size. */
#define PRIMITIVE_SIMILARITY_TOLERANCE 1e-13

static const double unit_origin[3] = {0.0, 0.0, 0.0};
static const double unit_segment[6] = {0.0, -1.0, 0.0, 0.0, 1.0, 0.0};
static const double unit_cube[24] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, 1, 1, -1,
                                     -1, -1, 1,  1, -1, 1,  -1, 1, 1,  1, 1, 1};

/* How many of the three params a kind uses; 0 for an unknown kind. */
static int params_used(int kind)
{
	switch (kind) {
	case CLASH_KIND_SPHERE: return 1;
	case CLASH_KIND_CAPSULE:
	case CLASH_KIND_CYLINDER:
	case CLASH_KIND_CONE: return 2;
	case CLASH_KIND_BOX:
	case CLASH_KIND_ELLIPSOID: return 3;
	default: return 0;
	}
}

static int params_valid(int kind, const double *p)
{
	const int m = params_used(kind);
	if (m == 0 || p == NULL)
		return 0;
	for (int i = 0; i < m; i++)
		if (!(p[i] > 0.0) || !isfinite(p[i]))
			return 0;
	return 1;
}

int clash_shape_init_primitive(clash_shape *s, int kind, const double params[3])
{
	if (s == NULL)
		return CLASH_EINVAL;
	int err = clash_shape_init(s, 3, unit_origin, 1);
	if (err)
		return err;
	if (!params_valid(kind, params))
		return CLASH_EINVAL;
	s->kind = kind;
	for (int i = 0; i < params_used(kind); i++)
		s->params[i] = params[i];
	return CLASH_OK;
}

/* World coordinates x = L v + t of local point v (v itself unposed). */
static void pose_point(const clash_shape *s, const double *v, double *x)
{
	if (!s->posed) {
		vec_copy(x, v, 3);
		return;
	}
	const double *l = s->linear, *t = s->translation;
	for (int r = 0; r < 3; r++)
		x[r] = t[r] + l[r] * v[0] + l[3 + r] * v[1] + l[6 + r] * v[2];
}

/* The local support point p of a primitive in local direction e (any
 * length; e = 0 or NaN gives the origin, a point of every primitive). */
void primitive_local_support(int kind, const double *prm, const double *e, double *p)
{
	const double m = fmax(fabs(e[0]), fmax(fabs(e[1]), fabs(e[2])));
	p[0] = p[1] = p[2] = 0.0;
	if (!(m > 0.0) || !isfinite(m))
		return;
	/* Brought to unit size first: squares neither overflow nor vanish. */
	const double u0 = e[0] / m, u1 = e[1] / m, u2 = e[2] / m;
	const double r = prm[0], h = prm[1];
	const double sy = u1 >= 0.0 ? h : -h;
	const double len = sqrt(u0 * u0 + u1 * u1 + u2 * u2);
	const double rho = sqrt(u0 * u0 + u2 * u2);
	switch (kind) {
	case CLASH_KIND_SPHERE:
		p[0] = r * u0 / len;
		p[1] = r * u1 / len;
		p[2] = r * u2 / len;
		break;
	case CLASH_KIND_BOX:
		p[0] = u0 >= 0.0 ? prm[0] : -prm[0];
		p[1] = u1 >= 0.0 ? prm[1] : -prm[1];
		p[2] = u2 >= 0.0 ? prm[2] : -prm[2];
		break;
	case CLASH_KIND_CAPSULE: /* segment + ball: the sum of their points */
		p[0] = r * u0 / len;
		p[1] = sy + r * u1 / len;
		p[2] = r * u2 / len;
		break;
	case CLASH_KIND_CYLINDER: /* disc + segment */
		p[1] = sy;
		if (rho > 0.0) {
			p[0] = r * u0 / rho;
			p[2] = r * u2 / rho;
		}
		break;
	case CLASH_KIND_CONE:
		/* The apex scores u1 h, the rim point under the radial part
		 * r rho - u1 h (the base centre when there is none). */
		if (r * rho - u1 * h > u1 * h) {
			p[1] = -h;
			if (rho > 0.0) {
				p[0] = r * u0 / rho;
				p[2] = r * u2 / rho;
			}
		} else {
			p[1] = h;
		}
		break;
	case CLASH_KIND_ELLIPSOID: {
		/* The ball's point under x -> diag(a) x: a_i (a_i u_i) / |a u|. */
		const double q0 = prm[0] * u0, q1 = prm[1] * u1, q2 = prm[2] * u2;
		const double l = sqrt(q0 * q0 + q1 * q1 + q2 * q2);
		p[0] = prm[0] * q0 / l;
		p[1] = prm[1] * q1 / l;
		p[2] = prm[2] * q2 / l;
		break;
	}
	default: break;
	}
}

void primitive_local_box(const clash_shape *s, double *lo, double *hi)
{
	const double *p = s->params;
	double h[3];
	switch (s->kind) {
	case CLASH_KIND_SPHERE: h[0] = h[1] = h[2] = p[0]; break;
	case CLASH_KIND_CAPSULE:
		h[0] = h[2] = p[0];
		h[1] = p[1] + p[0];
		break;
	case CLASH_KIND_CYLINDER:
	case CLASH_KIND_CONE:
		h[0] = h[2] = p[0];
		h[1] = p[1];
		break;
	default: /* box, ellipsoid */
		h[0] = p[0];
		h[1] = p[1];
		h[2] = p[2];
		break;
	}
	for (int k = 0; k < 3; k++) {
		lo[k] = -h[k];
		hi[k] = h[k];
	}
}

double primitive_support_world(const clash_shape *s, const double *d, double *x)
{
	double e[3], p[3];
	if (s->posed) {
		const double *l = s->linear;
		for (int k = 0; k < 3; k++)
			e[k] = l[3 * k] * d[0] + l[3 * k + 1] * d[1] + l[3 * k + 2] * d[2];
	} else {
		vec_copy(e, d, 3);
	}
	primitive_local_support(s->kind, s->params, e, p);
	pose_point(s, p, x);
	return vec_dot(d, x, 3);
}

double primitive_reach(const clash_shape *s, const double *o)
{
	const double *p = s->params;
	double local;
	switch (s->kind) {
	case CLASH_KIND_SPHERE: local = p[0]; break;
	case CLASH_KIND_CAPSULE: local = p[0] + p[1]; break;
	case CLASH_KIND_CYLINDER:
	case CLASH_KIND_CONE: local = hypot(p[0], p[1]); break;
	case CLASH_KIND_BOX: local = vec_norm(p, 3); break;
	default: /* ellipsoid */ local = fmax(p[0], fmax(p[1], p[2])); break;
	}
	double c[3] = {0.0, 0.0, 0.0}, gain = 1.0;
	pose_point(s, unit_origin, c);
	if (s->posed) /* the Frobenius norm bounds the spectral one */
		gain = vec_norm(s->linear, 9);
	double d[3];
	vec_sub(d, c, o, 3);
	return (vec_norm(d, 3) + gain * local) * (1.0 + 8.0 * DBL_EPSILON);
}

int primitive_same(const clash_shape *a, const clash_shape *b, double tol)
{
	if (a->kind != b->kind)
		return 0;
	for (int i = 0; i < 3; i++)
		if (!(fabs(a->params[i] - b->params[i]) <= tol))
			return 0;
	double lo[3], hi[3];
	primitive_local_box(a, lo, hi);
	for (int i = 0; i < 4; i++) {
		double v[3] = {0.0, 0.0, 0.0}, pa[3] = {0.0, 0.0, 0.0}, pb[3] = {0.0, 0.0, 0.0},
		       d[3];
		if (i > 0)
			v[i - 1] = hi[i - 1];
		pose_point(a, v, pa);
		pose_point(b, v, pb);
		vec_sub(d, pa, pb, 3);
		if (!(vec_norm(d, 3) <= tol))
			return 0;
	}
	return 1;
}

double primitive_similarity_scale(const double *l)
{
	double g[3][3];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			g[i][j] = vec_dot(l + 3 * i, l + 3 * j, 3);
	const double s2 = (g[0][0] + g[1][1] + g[2][2]) / 3.0,
		     t = PRIMITIVE_SIMILARITY_TOLERANCE * s2;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (!(fabs(g[i][j] - (i == j ? s2 : 0.0)) <= t))
				return 0.0;
	return sqrt(s2);
}

/* The pose made explicit: an unposed shape gets L = I, t = 0. */
static void make_posed(clash_shape *s)
{
	if (s->posed)
		return;
	memset(s->linear, 0, sizeof s->linear);
	memset(s->translation, 0, sizeof s->translation);
	s->linear[0] = s->linear[4] = s->linear[8] = 1.0;
	s->posed = 1;
}

/* Column c of the linear part times f. */
static void scale_column(clash_shape *s, int c, double f)
{
	for (int r = 0; r < 3; r++)
		s->linear[3 * c + r] *= f;
}

/* *buf = s as a polytope borrowing vertices v (count of them). */
static void as_polytope(clash_shape *buf, const double *v, size_t count)
{
	buf->kind = CLASH_KIND_POLYTOPE;
	memset(buf->params, 0, sizeof buf->params);
	buf->vertices = v;
	buf->count = count;
}

int primitive_lower(const clash_shape *s, clash_shape *buf, const clash_shape **out, int box_only)
{
	*out = s;
	if (s->kind == CLASH_KIND_POLYTOPE)
		return CLASH_OK;
	if (box_only && s->kind != CLASH_KIND_BOX)
		return CLASH_ENOTSUP;
	if (s->dim != 3)
		return CLASH_EDIM;
	if (!params_valid(s->kind, s->params) || s->nparts)
		return CLASH_EINVAL;
	*buf = *s;
	buf->prepared = NULL;
	*out = buf;
	const double sigma = s->posed ? primitive_similarity_scale(s->linear) : 1.0;
	const double *p = s->params;
	if (s->kind == CLASH_KIND_BOX) {
		make_posed(buf);
		for (int c = 0; c < 3; c++)
			scale_column(buf, c, p[c]);
		as_polytope(buf, unit_cube, 8);
	} else if (s->kind == CLASH_KIND_SPHERE && sigma > 0.0) {
		buf->radius = s->radius + sigma * p[0];
		as_polytope(buf, unit_origin, 1);
	} else if (s->kind == CLASH_KIND_CAPSULE && sigma > 0.0) {
		make_posed(buf);
		scale_column(buf, 1, p[1]);
		buf->radius = s->radius + sigma * p[0];
		as_polytope(buf, unit_segment, 2);
	} else {
		make_posed(buf);
		buf->vertices = unit_origin;
		buf->count = 1;
		if (buf->kind == CLASH_KIND_SPHERE) { /* under a non-uniform scale */
			buf->kind = CLASH_KIND_ELLIPSOID;
			buf->params[1] = buf->params[2] = p[0];
		}
		return CLASH_OK;
	}
	if (!isfinite(buf->radius) || !vec_isfinite(buf->linear, 9))
		return CLASH_ERANGE;
	return CLASH_OK;
}
