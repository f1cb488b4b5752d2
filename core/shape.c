/*
 * shape.c — building and posing clash_shape values.
 *
 * A shape borrows its vertex array and carries an affine pose
 * x_world = linear * x + translation that the support mapping applies on the
 * fly (GJK88 eq. (9)-(10): moving a polytope moves its support points, so the
 * vertices are never transformed in bulk).  These setters are the only place
 * that validates poses, so every query can trust a shape's pose is finite,
 * affine and non-singular.
 */
#include <math.h>
#include <string.h>

#include "clash.h"
#include "trig.h"

/* |det| below this fraction of the product of the column lengths (Hadamard's
 * bound) makes a matrix numerically singular: it would squash the shape
 * flat and its inverse-transpose, used for directions, would be meaningless. */
#define SINGULAR_RATIO 1e-12

/* Entries of the homogeneous row of a pose matrix may differ from (0,..,0,1)
 * by this much: float32 round trips leave such dust, perspective does not. */
#define AFFINE_ROW_TOLERANCE 1e-12

static void set_identity(clash_shape *s)
{
	int n = s->dim;
	memset(s->linear, 0, sizeof s->linear);
	for (int i = 0; i < n; i++)
		s->linear[i * n + i] = 1.0;
}

int clash_shape_init(clash_shape *s, int dim, const double *vertices, size_t count)
{
	if (s == NULL)
		return CLASH_EINVAL;
	memset(s, 0, sizeof *s);
	if (dim < 1 || dim > CLASH_MAX_DIM)
		return CLASH_EDIM;
	if (count == 0)
		return CLASH_EEMPTY;
	if (vertices == NULL)
		return CLASH_EINVAL;
	s->dim = dim;
	s->count = count;
	s->vertices = vertices;
	set_identity(s);
	return CLASH_OK;
}

int clash_shape_set_radius(clash_shape *s, double radius)
{
	if (s == NULL)
		return CLASH_EINVAL;
	if (!(radius >= 0.0) || !isfinite(radius))
		return CLASH_ERADIUS;
	s->radius = radius;
	return CLASH_OK;
}

int clash_shape_set_translation(clash_shape *s, const double *t)
{
	if (s == NULL || t == NULL || s->dim < 1)
		return CLASH_EINVAL;
	for (int i = 0; i < s->dim; i++)
		if (!isfinite(t[i]))
			return CLASH_ERANGE;
	memcpy(s->translation, t, (size_t)s->dim * sizeof *t);
	s->posed = 1;
	return CLASH_OK;
}

int clash_shape_set_quaternion(clash_shape *s, const double q[4])
{
	if (s == NULL || q == NULL)
		return CLASH_EINVAL;
	if (s->dim != 3)
		return CLASH_EQUAT;
	for (int i = 0; i < 4; i++)
		if (!isfinite(q[i]))
			return CLASH_ERANGE;
	double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (!(fabs(len - 1.0) <= CLASH_QUAT_TOLERANCE))
		return CLASH_EQUAT;
	double x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
	double *m = s->linear; /* column-major: m[c*3 + r] */
	m[0] = 1 - 2 * (y * y + z * z);
	m[1] = 2 * (x * y + w * z);
	m[2] = 2 * (x * z - w * y);
	m[3] = 2 * (x * y - w * z);
	m[4] = 1 - 2 * (x * x + z * z);
	m[5] = 2 * (y * z + w * x);
	m[6] = 2 * (x * z + w * y);
	m[7] = 2 * (y * z - w * x);
	m[8] = 1 - 2 * (x * x + y * y);
	s->posed = 1;
	return CLASH_OK;
}

int clash_shape_set_angle(clash_shape *s, double radians)
{
	if (s == NULL)
		return CLASH_EINVAL;
	if (s->dim != 2)
		return CLASH_EDIM;
	if (!isfinite(radians))
		return CLASH_ERANGE;
	double c, sn;
	trig_sincos(radians, &sn, &c);
	s->linear[0] = c;
	s->linear[1] = sn;
	s->linear[2] = -sn;
	s->linear[3] = c;
	s->posed = 1;
	return CLASH_OK;
}

/* Ratio |det(a)| / prod |column|, in [0, 1]: 1 for orthogonal columns, 0 for
 * singular ones.  LU with partial pivoting on a copy. */
static double hadamard_ratio(const double *a, int n)
{
	double m[CLASH_MAX_DIM * CLASH_MAX_DIM];
	for (int c = 0; c < n; c++) {
		double len = 0.0;
		for (int r = 0; r < n; r++)
			len = hypot(len, a[c * n + r]);
		if (len == 0.0)
			return 0.0;
		/* Normalizing columns first keeps the product in range and
		 * makes the ratio independent of the matrix's scale. */
		for (int r = 0; r < n; r++)
			m[c * n + r] = a[c * n + r] / len;
	}
	double det = 1.0;
	for (int k = 0; k < n; k++) {
		int piv = k;
		for (int r = k + 1; r < n; r++)
			if (fabs(m[k * n + r]) > fabs(m[k * n + piv]))
				piv = r;
		double p = m[k * n + piv];
		if (p == 0.0)
			return 0.0;
		if (piv != k)
			for (int c = 0; c < n; c++) {
				double t = m[c * n + k];
				m[c * n + k] = m[c * n + piv];
				m[c * n + piv] = t;
			}
		det *= p;
		for (int r = k + 1; r < n; r++) {
			double f = m[k * n + r] / p;
			for (int c = k; c < n; c++)
				m[c * n + r] -= f * m[c * n + k];
		}
	}
	return fabs(det);
}

int clash_shape_set_matrix(clash_shape *s, const double *h)
{
	if (s == NULL || h == NULL || s->dim < 1)
		return CLASH_EINVAL;
	int n = s->dim, h1 = n + 1;
	for (int i = 0; i < h1 * h1; i++)
		if (!isfinite(h[i]))
			return CLASH_ERANGE;
	/* The last row, (r = n, c = 0..n), must be (0, .., 0, 1). */
	for (int c = 0; c < n; c++)
		if (fabs(h[c * h1 + n]) > AFFINE_ROW_TOLERANCE)
			return CLASH_ESINGULAR;
	if (fabs(h[n * h1 + n] - 1.0) > AFFINE_ROW_TOLERANCE)
		return CLASH_ESINGULAR;
	double lin[CLASH_MAX_DIM * CLASH_MAX_DIM];
	for (int c = 0; c < n; c++)
		for (int r = 0; r < n; r++)
			lin[c * n + r] = h[c * h1 + r];
	if (!(hadamard_ratio(lin, n) >= SINGULAR_RATIO))
		return CLASH_ESINGULAR;
	memcpy(s->linear, lin, (size_t)(n * n) * sizeof *lin);
	for (int r = 0; r < n; r++)
		s->translation[r] = h[n * h1 + r];
	s->posed = 1;
	return CLASH_OK;
}
