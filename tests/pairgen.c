/*
 * pairgen.c — building the random shape pairs of pairgen.h.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pairgen.h"
#include "prng.h"

static const char *const shape_names[] = {"sphere", "ball", "box", "elongated"};
static const char *const pose_names[] = {"none", "rotation", "matrix"};

/* ---- shapes ------------------------------------------------------------ */

static void quat_matrix(const double *q, double *m)
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	/* column-major: m[c*3 + r] */
	m[0] = 1 - 2 * (y * y + z * z);
	m[1] = 2 * (x * y + z * w);
	m[2] = 2 * (x * z - y * w);
	m[3] = 2 * (x * y - z * w);
	m[4] = 1 - 2 * (x * x + z * z);
	m[5] = 2 * (y * z + x * w);
	m[6] = 2 * (x * z + y * w);
	m[7] = 2 * (y * z - x * w);
	m[8] = 1 - 2 * (x * x + y * y);
}

/* c = a·b for column-major dim x dim matrices. */
static void mat_mul(int dim, const double *a, const double *b, double *c)
{
	for (int col = 0; col < dim; col++)
		for (int r = 0; r < dim; r++) {
			double s = 0;
			for (int k = 0; k < dim; k++)
				s += a[k * dim + r] * b[col * dim + k];
			c[col * dim + r] = s;
		}
}

static void random_rotation(prng *r, pshape *s)
{
	if (s->dim == 3) {
		double q[4], n = 0;
		for (int i = 0; i < 4; i++) {
			q[i] = prng_normal(r);
			n += q[i] * q[i];
		}
		n = sqrt(n);
		for (int i = 0; i < 4; i++)
			s->q[i] = q[i] / n;
		quat_matrix(s->q, s->lin);
	} else {
		s->angle = prng_range(r, -M_PI, M_PI);
		s->lin[0] = cos(s->angle);
		s->lin[1] = sin(s->angle);
		s->lin[2] = -sin(s->angle);
		s->lin[3] = cos(s->angle);
	}
}

/* Local vertices of a shape of kind s->shape at scale `scale`. */
static void random_local(prng *r, pshape *s, double scale)
{
	int dim = s->dim;
	double c[3], u[3];
	for (int k = 0; k < dim; k++)
		c[k] = scale * prng_range(r, -0.3, 0.3); /* local origin off-centre */
	if (s->shape == SHAPE_BOX) {
		double h[3];
		for (int k = 0; k < dim; k++)
			h[k] = scale * prng_range(r, 0.2, 1);
		size_t corners = (size_t)1 << dim;
		s->count = corners + (size_t)prng_int(r, 0, PAIR_MAXV - (int)corners);
		for (size_t i = 0; i < s->count; i++)
			for (int k = 0; k < dim; k++) {
				double f = i < corners ? ((i >> k) & 1 ? 1 : -1)
				                       : prng_range(r, -1, 1);
				s->local[i * (size_t)dim + k] = c[k] + f * h[k];
			}
		return;
	}
	double ax[3] = {1, 1, 1};
	if (s->shape == SHAPE_ELONGATED) {
		ax[0] = prng_range(r, 5, 30);
		ax[1] = prng_range(r, 0.05, 1);
		ax[2] = prng_range(r, 0.3, 1);
		scale /= ax[0] / 3; /* keep the overall size near `scale` */
	}
	s->count = (size_t)prng_int(r, dim + 1, PAIR_MAXV);
	for (size_t i = 0; i < s->count; i++) {
		prng_direction(r, dim, u);
		double rad = s->shape == SHAPE_BALL ? pow(prng_unit(r), 1.0 / dim) : 1;
		for (int k = 0; k < dim; k++)
			s->local[i * (size_t)dim + k] = c[k] + scale * rad * ax[k] * u[k];
	}
}

static void random_shape(prng *r, pshape *s, int dim, double scale, int rounded)
{
	memset(s, 0, sizeof *s);
	s->dim = dim;
	s->shape = prng_int(r, 0, SHAPE_KINDS - 1);
	random_local(r, s, scale);
	s->pose = prng_int(r, POSE_NONE, POSE_MATRIX);
	random_rotation(r, s);
	if (s->pose == POSE_MATRIX) {
		/* lin = R · shear · diag(scales): any non-singular affine map. */
		double sh[9], sc[9], tmp[9];
		memset(sc, 0, sizeof sc);
		for (int i = 0; i < dim; i++)
			for (int j = 0; j < dim; j++)
				sh[j * dim + i] = i == j ? 1 : prng_range(r, -0.5, 0.5);
		for (int i = 0; i < dim; i++)
			sc[i * dim + i] = prng_log(r, 0.2, 5);
		mat_mul(dim, sh, sc, tmp);
		double rot[9];
		memcpy(rot, s->lin, sizeof rot);
		mat_mul(dim, rot, tmp, s->lin);
	}
	s->radius = rounded ? scale * prng_range(r, 0, 0.5) : 0;
}

/* Fill verts/world/mat/trans from the description and make the core's
 * shape.  Returns a CLASH_E* code. */
static int pshape_build(pshape *s, const double *O, clash_shape *cs)
{
	int dim = s->dim, rc;
	double t_eff[3];
	for (int k = 0; k < dim; k++) {
		s->trans[k] = O[k] + s->t[k];
		/* The translation the core really gets, relative to O: exact,
		 * since trans and O are within a factor two (or O is 0). */
		t_eff[k] = s->trans[k] - O[k];
	}
	double lo[3], hi[3];
	for (size_t i = 0; i < s->count; i++) {
		const double *x = s->local + i * (size_t)dim;
		double *w = s->world + i * (size_t)dim;
		for (int r = 0; r < dim; r++) {
			double acc = 0;
			for (int k = 0; k < dim; k++)
				acc += s->lin[k * dim + r] * x[k];
			w[r] = acc + t_eff[r];
		}
		if (s->pose == POSE_NONE)
			for (int k = 0; k < dim; k++) {
				/* The core gets O + w; the oracle what that really is. */
				s->verts[i * (size_t)dim + k] = O[k] + w[k];
				w[k] = s->verts[i * (size_t)dim + k] - O[k];
			}
		for (int k = 0; k < dim; k++) {
			lo[k] = i ? fmin(lo[k], w[k]) : w[k];
			hi[k] = i ? fmax(hi[k], w[k]) : w[k];
		}
	}
	double e2 = 0;
	for (int k = 0; k < dim; k++) {
		e2 += (hi[k] - lo[k]) * (hi[k] - lo[k]) / 4;
		s->center[k] = 0.5 * (lo[k] + hi[k]);
	}
	s->extent = sqrt(e2);

	const double *v = s->pose == POSE_NONE ? s->verts : s->local;
	if ((rc = clash_shape_init(cs, dim, v, s->count)) ||
	    (rc = clash_shape_set_radius(cs, s->radius)))
		return rc;
	if (s->pose == POSE_ROTATION) {
		rc = dim == 3 ? clash_shape_set_quaternion(cs, s->q)
		              : clash_shape_set_angle(cs, s->angle);
		if (!rc)
			rc = clash_shape_set_translation(cs, s->trans);
	} else if (s->pose == POSE_MATRIX) {
		int m = dim + 1;
		memset(s->mat, 0, sizeof s->mat);
		for (int c = 0; c < dim; c++)
			for (int r = 0; r < dim; r++)
				s->mat[c * m + r] = s->lin[c * dim + r];
		for (int r = 0; r < dim; r++)
			s->mat[dim * m + r] = s->trans[r];
		s->mat[dim * m + dim] = 1;
		rc = clash_shape_set_matrix(cs, s->mat);
	}
	return rc;
}

/* ---- pairs ------------------------------------------------------------- */

void pair_dump(const pair *p)
{
	printf("pair seed %#llx dim %d O (%.17g %.17g %.17g) placement %s gap %.17g\n",
	       (unsigned long long)p->seed, p->dim, p->O[0], p->O[1], p->O[2], p->placement,
	       p->gap);
	for (int w = 0; w < 2; w++) {
		const pshape *s = w ? &p->b : &p->a;
		printf("  %c: %s, pose %s, %zu vertices, radius %.17g\n", w ? 'b' : 'a',
		       shape_names[s->shape], pose_names[s->pose], s->count, s->radius);
		if (s->pose == POSE_ROTATION && s->dim == 3)
			printf("     quaternion %.17g %.17g %.17g %.17g\n", s->q[0], s->q[1],
			       s->q[2], s->q[3]);
		if (s->pose == POSE_ROTATION && s->dim == 2)
			printf("     angle %.17g\n", s->angle);
		if (s->pose != POSE_NONE)
			printf("     translation %.17g %.17g %.17g\n", s->trans[0], s->trans[1],
			       s->dim == 3 ? s->trans[2] : 0.0);
		if (s->pose == POSE_MATRIX) {
			printf("     matrix");
			for (int i = 0; i < (s->dim + 1) * (s->dim + 1); i++)
				printf(" %.17g", s->mat[i]);
			printf("\n");
		}
		const double *v = s->pose == POSE_NONE ? s->verts : s->local;
		printf("     vertices");
		for (size_t i = 0; i < s->count * (size_t)s->dim; i++)
			printf(" %.17g", v[i]);
		printf("\n");
	}
	fflush(stdout);
}

int pair_make(pair *p, uint64_t seed, int dim, clash_shape *ca, clash_shape *cb, oracle_answer *ans)
{
	prng r = {seed};
	memset(p, 0, sizeof *p);
	p->seed = seed;
	p->dim = dim;
	if (prng_unit(&r) < 0.2)
		for (int k = 0; k < dim; k++)
			p->O[k] = (prng_unit(&r) < 0.5 ? -1 : 1) * prng_range(&r, 0.5e5, 2e5);
	double s = prng_log(&r, 1e-3, 1e3);
	double sb = s * prng_log(&r, 0.04, 25);
	int rounded = prng_unit(&r) < 0.3;
	random_shape(&r, &p->a, dim, s, rounded && prng_unit(&r) < 0.8);
	random_shape(&r, &p->b, dim, sb, rounded && prng_unit(&r) < 0.8);
	for (int k = 0; k < dim; k++)
		p->a.t[k] = s * prng_range(&r, -0.5, 0.5);

	/* Start well apart. */
	double u[3];
	prng_direction(&r, dim, u);
	int rc = pshape_build(&p->a, p->O, ca);
	ck_assert_msg(rc == CLASH_OK, "seed %#llx: shape a: %s", (unsigned long long)seed,
	              clash_strerror(rc));
	rc = pshape_build(&p->b, p->O, cb); /* for the extent */
	ck_assert_msg(rc == CLASH_OK, "seed %#llx: shape b: %s", (unsigned long long)seed,
	              clash_strerror(rc));
	/* Bounding balls twice their radii apart: certainly disjoint. */
	double far = 2 * (p->a.extent + p->b.extent);
	for (int k = 0; k < dim; k++)
		p->b.t[k] = p->a.center[k] + (p->b.t[k] - p->b.center[k]) + far * u[k];
	pshape_build(&p->b, p->O, cb);
	rc = oracle_query(dim, p->a.world, p->a.count, p->a.radius, p->b.world, p->b.count,
	                  p->b.radius, ans);
	if (rc != ORACLE_OK)
		return -1;
	ck_assert_msg(!ans->hull_overlap && ans->hull_distance > 0, "seed %#llx: not apart",
	              (unsigned long long)seed);

	/* Choose the hull gap g and move B by v = p(1 - g/d0), p the near
	 * point of A - B at distance d0: the origin then sits on the normal ray
	 * of p at distance g from it (inside A - B when g < 0). */
	double size = p->a.extent + p->b.extent;
	double rsum = p->a.radius + p->b.radius;
	double x = prng_unit(&r);
	if (x < 0.3) {
		p->placement = "separated";
		p->gap = rsum + size * prng_log(&r, 1e-4, 2);
	} else if (x < 0.6) {
		static const double eps[] = {0, 1e-13, 1e-11, 1e-9, 1e-7, 1e-4};
		p->placement = "near-touching";
		p->gap = rsum + (prng_unit(&r) < 0.5 ? -1 : 1) * size * eps[prng_int(&r, 0, 5)];
	} else if (x < 0.9) {
		p->placement = "overlapping";
		p->gap = rsum - size * prng_range(&r, 0.01, 0.5);
	} else {
		p->placement = "deep";
		p->gap = NAN;
	}
	if (isnan(p->gap)) {
		for (int k = 0; k < dim; k++)
			p->b.t[k] = p->a.t[k] + s * prng_range(&r, -0.1, 0.1);
	} else {
		double f = 1 - p->gap / ans->hull_distance;
		for (int k = 0; k < dim; k++)
			p->b.t[k] += f * ans->near[k];
	}
	rc = pshape_build(&p->b, p->O, cb);
	ck_assert_msg(rc == CLASH_OK, "seed %#llx: shape b: %s", (unsigned long long)seed,
	              clash_strerror(rc));
	rc = oracle_query(dim, p->a.world, p->a.count, p->a.radius, p->b.world, p->b.count,
	                  p->b.radius, ans);
	return rc == ORACLE_OK ? 0 : -1;
}

uint64_t pair_seed(uint64_t base, int i)
{
	prng r = {base + (uint64_t)i};
	return prng_next(&r);
}
