/*
 * oracle.c — exact distance and penetration depth from the convex hull of a
 * Minkowski difference, computed with qhull.  See oracle.h for the contract.
 *
 * Why this is a fair reference for GJK: GJK never builds the difference; it
 * walks support points.  Here the difference is built point by point
 * (|A|·|B| points) and handed to qhull, an independent, widely used hull
 * code; the answer is then read from the facets with two elementary
 * formulas (plane offset, point-to-simplex distance).  The price is speed,
 * which tests can afford.
 *
 * qhull details that matter:
 *   - "Qt" triangulates the output, so every facet is a simplex (a segment
 *     in 2-D, a triangle in 3-D).  Merged coplanar facets may yield
 *     zero-area triangles; the point-to-triangle routine below falls back to
 *     the edges, so those are harmless.
 *   - facet->normal is the outward unit normal and facet->offset the plane
 *     constant: normal·x + offset is the signed distance of x, so the
 *     signed distance of the origin is just offset.
 *   - qh_new_qhull writes diagnostics to errfile and uses stderr when it is
 *     NULL, so errors go to /dev/null; outfile NULL means "no output", and
 *     qhull then still triangulates (qh_prepare_output).
 *   - qh_freeqhull(!qh_ALL) + qh_memfreeshort release everything; leftover
 *     "long" memory would be a leak, reported as ORACLE_EQHULL.
 */
#include "oracle.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/libqhull_r.h>

const char *oracle_strerror(int err)
{
	switch (err) {
	case ORACLE_OK: return "ok";
	case ORACLE_EINVAL: return "invalid argument";
	case ORACLE_ENOMEM: return "out of memory";
	case ORACLE_EFLAT: return "Minkowski difference is not full-dimensional";
	case ORACLE_EQHULL: return "qhull failed";
	default: return "unknown oracle error";
	}
}

static double dot(int dim, const double *u, const double *v)
{
	double s = 0;
	for (int i = 0; i < dim; i++)
		s += u[i] * v[i];
	return s;
}

/* Closest point to the origin on segment [a, b]; returns its squared norm. */
static double origin_to_segment(int dim, const double *a, const double *b, double *q)
{
	double ab[3], t = 0;
	for (int i = 0; i < dim; i++)
		ab[i] = b[i] - a[i];
	double len2 = dot(dim, ab, ab);
	if (len2 > 0) {
		t = -dot(dim, a, ab) / len2;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
	}
	for (int i = 0; i < dim; i++)
		q[i] = a[i] + t * ab[i];
	return dot(dim, q, q);
}

static void cross(const double *u, const double *v, double *w)
{
	w[0] = u[1] * v[2] - u[2] * v[1];
	w[1] = u[2] * v[0] - u[0] * v[2];
	w[2] = u[0] * v[1] - u[1] * v[0];
}

/* Closest point to the origin on triangle abc (3-D); returns its squared
 * norm.  The closest point is either the orthogonal projection (when it
 * falls inside: all barycentric coordinates >= 0) or on an edge, so taking
 * the minimum over those candidates is exact and needs no Voronoi-region
 * case analysis; it also copes with zero-area triangles. */
static double origin_to_triangle(const double *a, const double *b, const double *c, double *q)
{
	double best = INFINITY, cand[3];
	const double *e[3][2] = {{a, b}, {b, c}, {c, a}};
	for (int k = 0; k < 3; k++) {
		double d2 = origin_to_segment(3, e[k][0], e[k][1], cand);
		if (d2 < best) {
			best = d2;
			memcpy(q, cand, sizeof cand);
		}
	}
	double ab[3], ac[3], n[3];
	for (int i = 0; i < 3; i++) {
		ab[i] = b[i] - a[i];
		ac[i] = c[i] - a[i];
	}
	cross(ab, ac, n);
	double nn = dot(3, n, n);
	if (!(nn > 0))
		return best;
	/* Barycentric coordinates of the projection of the origin p = 0: the
	 * normal component of (b-p)x(c-p) is the same for p and its
	 * projection, so no explicit projection is needed. */
	double w[3];
	cross(b, c, w);
	double la = dot(3, w, n) / nn;
	cross(c, a, w);
	double lb = dot(3, w, n) / nn;
	double lc = 1 - la - lb;
	if (la >= 0 && lb >= 0 && lc >= 0) {
		double s = dot(3, a, n) / nn; /* origin's projection = s·n */
		for (int i = 0; i < 3; i++)
			cand[i] = s * n[i];
		double d2 = dot(3, cand, cand);
		if (d2 < best) {
			best = d2;
			memcpy(q, cand, sizeof cand);
		}
	}
	return best;
}

/* Read the answer off the facets of a finished hull. */
static int read_facets(qhT *qh, int dim, oracle_answer *out)
{
	facetT *facet;
	vertexT *vertex, **vertexp;
	int inside = 1, nfacets = 0;
	double depth = INFINITY, best = INFINITY, near[3] = {0, 0, 0};

	FORALLfacets
	{
		const double *v[3] = {NULL, NULL, NULL};
		int k = 0;
		FOREACHvertex_(facet->vertices)
		{
			if (k < 3)
				v[k] = vertex->point;
			k++;
		}
		if (k != dim || !facet->normal)
			return ORACLE_EQHULL; /* not simplicial despite Qt */
		nfacets++;
		double off = facet->offset;
		if (off > 0)
			inside = 0;
		if (-off < depth)
			depth = -off;
		double q[3] = {0, 0, 0};
		double d2 = dim == 2 ? origin_to_segment(2, v[0], v[1], q)
		                     : origin_to_triangle(v[0], v[1], v[2], q);
		if (d2 < best) {
			best = d2;
			memcpy(near, q, sizeof near);
		}
	}
	if (nfacets < dim + 1 || !isfinite(best) || !isfinite(depth))
		return ORACLE_EQHULL;
	out->facets = nfacets;
	if (inside) {
		out->hull_overlap = 1;
		out->hull_distance = 0;
		out->hull_depth = depth;
	} else {
		out->hull_overlap = 0;
		out->hull_distance = sqrt(best);
		out->hull_depth = 0;
		memcpy(out->near, near, sizeof near);
	}
	return ORACLE_OK;
}

int oracle_query(int dim, const double *a, size_t na, double ra, const double *b, size_t nb,
                 double rb, oracle_answer *out)
{
	if (!out)
		return ORACLE_EINVAL;
	memset(out, 0, sizeof *out);
	if ((dim != 2 && dim != 3) || !a || !b || na == 0 || nb == 0)
		return ORACLE_EINVAL;
	if (!(ra >= 0) || !(rb >= 0) || !isfinite(ra) || !isfinite(rb))
		return ORACLE_EINVAL;
	if (na > (size_t)INT_MAX / nb)
		return ORACLE_EINVAL;
	size_t n = na * nb;
	if (n < (size_t)dim + 1)
		return ORACLE_EFLAT;

	double *pts = malloc(n * (size_t)dim * sizeof *pts);
	qhT *qh = calloc(1, sizeof *qh);
	FILE *devnull = fopen("/dev/null", "w");
	int rc = ORACLE_OK;
	if (!pts || !qh)
		rc = ORACLE_ENOMEM;
	else if (!devnull)
		rc = ORACLE_EQHULL;
	if (rc != ORACLE_OK)
		goto done;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			for (int k = 0; k < dim; k++) {
				double x = a[i * (size_t)dim + k] - b[j * (size_t)dim + k];
				if (!isfinite(x)) {
					rc = ORACLE_EINVAL;
					goto done;
				}
				pts[(i * nb + j) * (size_t)dim + k] = x;
			}

	char cmd[] = "qhull Qt";
	qh_zero(qh, devnull);
	int exitcode = qh_new_qhull(qh, dim, (int)n, pts, False, cmd, NULL, devnull);
	if (exitcode == qh_ERRnone)
		rc = read_facets(qh, dim, out);
	else if (exitcode == qh_ERRsingular)
		rc = ORACLE_EFLAT;
	else if (exitcode == qh_ERRmem)
		rc = ORACLE_ENOMEM;
	else
		rc = ORACLE_EQHULL;
	int curlong = 0, totlong = 0;
	qh_freeqhull(qh, !qh_ALL);
	qh_memfreeshort(qh, &curlong, &totlong);
	if (rc == ORACLE_OK && (curlong || totlong))
		rc = ORACLE_EQHULL;

done:
	if (devnull)
		fclose(devnull);
	free(qh);
	free(pts);
	if (rc != ORACLE_OK) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	double r = ra + rb;
	out->intersecting = out->hull_distance <= r;
	out->distance = out->hull_distance > r ? out->hull_distance - r : 0;
	if (out->hull_overlap)
		out->depth = out->hull_depth + r;
	else
		out->depth = out->hull_distance < r ? r - out->hull_distance : 0;
	return ORACLE_OK;
}

int oracle_point_distance(int dim, const double *pts, size_t n, const double *p, double *dist)
{
	oracle_answer ans;
	if (!dist)
		return ORACLE_EINVAL;
	int rc = oracle_query(dim, pts, n, 0, p, 1, 0, &ans);
	*dist = rc == ORACLE_OK ? ans.hull_distance : NAN;
	return rc;
}

int oracle_hull_planes(int dim, const double *pts, size_t n, double **planes, size_t *count)
{
	if (!planes || !count)
		return ORACLE_EINVAL;
	*planes = NULL;
	*count = 0;
	if ((dim != 2 && dim != 3) || !pts || n > (size_t)INT_MAX)
		return ORACLE_EINVAL;
	if (n < (size_t)dim + 1)
		return ORACLE_EFLAT;
	/* qhull may reorder its input: hand it a copy. */
	double *copy = malloc(n * (size_t)dim * sizeof *copy);
	qhT *qh = calloc(1, sizeof *qh);
	FILE *devnull = fopen("/dev/null", "w");
	int rc = !copy || !qh ? ORACLE_ENOMEM : !devnull ? ORACLE_EQHULL : ORACLE_OK;
	if (rc == ORACLE_OK) {
		memcpy(copy, pts, n * (size_t)dim * sizeof *copy);
		char cmd[] = "qhull Qt";
		qh_zero(qh, devnull);
		int exitcode = qh_new_qhull(qh, dim, (int)n, copy, False, cmd, NULL, devnull);
		rc = exitcode == qh_ERRnone       ? ORACLE_OK
		     : exitcode == qh_ERRsingular ? ORACLE_EFLAT
		     : exitcode == qh_ERRmem      ? ORACLE_ENOMEM
		                                  : ORACLE_EQHULL;
		facetT *facet;
		size_t m = 0;
		if (rc == ORACLE_OK) {
			FORALLfacets m++;
			*planes = malloc(m * (size_t)(dim + 1) * sizeof **planes);
			if (!*planes)
				rc = ORACLE_ENOMEM;
		}
		if (rc == ORACLE_OK) {
			m = 0;
			FORALLfacets
			{
				double *row = *planes + m * (size_t)(dim + 1);
				for (int k = 0; k < dim; k++)
					row[k] = facet->normal[k];
				row[dim] = -facet->offset; /* u.x + offset = 0 on the plane */
				m++;
			}
			*count = m;
		}
		int curlong = 0, totlong = 0;
		qh_freeqhull(qh, !qh_ALL);
		qh_memfreeshort(qh, &curlong, &totlong);
		if (rc == ORACLE_OK && (curlong || totlong))
			rc = ORACLE_EQHULL;
	}
	if (devnull)
		fclose(devnull);
	free(qh);
	free(copy);
	if (rc != ORACLE_OK) {
		free(*planes);
		*planes = NULL;
		*count = 0;
	}
	return rc;
}
