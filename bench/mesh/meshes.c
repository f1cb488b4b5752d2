/*
 * meshes.c — see meshes.h.  The torus knot follows the construction of
 * three.js's TorusKnotGeometry (r0.187): a point P1 on the (p, q) torus
 * knot curve at u and a point P2 a little ahead (u + 0.01) give a frame
 * T = P2 - P1, N = P2 + P1, B = T x N, N = B x T (B and N normalized), and
 * the tube's circle is laid in the (N, B) plane.  Every expression keeps
 * the order of operations of three.js, so the doubles match its to the
 * last bit or so (the libms differ) and the float32 positions match.
 */
#include "meshes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bm_knot_curve(double u, int p, int q, double radius, double out[3])
{
	double cu = cos(u), su = sin(u);
	double quOverP = (double)q / (double)p * u;
	double cs = cos(quOverP);
	out[0] = radius * (2 + cs) * 0.5 * cu;
	out[1] = radius * (2 + cs) * su * 0.5;
	out[2] = radius * sin(quOverP) * 0.5;
}

static void cross(const double a[3], const double b[3], double o[3])
{
	double x = a[1] * b[2] - a[2] * b[1];
	double y = a[2] * b[0] - a[0] * b[2];
	double z = a[0] * b[1] - a[1] * b[0];
	o[0] = x;
	o[1] = y;
	o[2] = z;
}

/* three.js's Vector3.normalize: divideScalar(length || 1), which multiplies
 * by the reciprocal. */
static void normalize(double v[3])
{
	double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	double s = 1 / (len != 0 ? len : 1);
	v[0] *= s;
	v[1] *= s;
	v[2] *= s;
}

static double round32(double x, int float32)
{
	return float32 ? (double)(float)x : x;
}

int bm_torus_knot(bm_mesh *m, double radius, double tube, int tubular, int radial, int p, int q,
                  int float32)
{
	size_t nv = (size_t)(tubular + 1) * (size_t)(radial + 1);
	size_t nt = 2 * (size_t)tubular * (size_t)radial;
	memset(m, 0, sizeof *m);
	m->pos = malloc(3 * nv * sizeof *m->pos);
	m->idx = malloc(3 * nt * sizeof *m->idx);
	if (!m->pos || !m->idx) {
		bm_free(m);
		return -1;
	}
	m->nv = nv;
	m->nt = nt;
	double *o = m->pos;
	for (int i = 0; i <= tubular; ++i) {
		double u = (double)i / tubular * p * M_PI * 2;
		double P1[3], P2[3], T[3], N[3], B[3];
		bm_knot_curve(u, p, q, radius, P1);
		bm_knot_curve(u + 0.01, p, q, radius, P2);
		for (int k = 0; k < 3; k++) {
			T[k] = P2[k] - P1[k];
			N[k] = P2[k] + P1[k];
		}
		cross(T, N, B);
		cross(B, T, N);
		normalize(B);
		normalize(N);
		for (int j = 0; j <= radial; ++j) {
			double v = (double)j / radial * M_PI * 2;
			double cx = -tube * cos(v);
			double cy = tube * sin(v);
			for (int k = 0; k < 3; k++)
				*o++ = round32(P1[k] + (cx * N[k] + cy * B[k]), float32);
		}
	}
	uint32_t *t = m->idx, r1 = (uint32_t)radial + 1;
	for (uint32_t j = 1; j <= (uint32_t)tubular; j++) {
		for (uint32_t i = 1; i <= (uint32_t)radial; i++) {
			uint32_t a = r1 * (j - 1) + (i - 1);
			uint32_t b = r1 * j + (i - 1);
			uint32_t c = r1 * j + i;
			uint32_t d = r1 * (j - 1) + i;
			*t++ = a, *t++ = b, *t++ = d;
			*t++ = b, *t++ = c, *t++ = d;
		}
	}
	return 0;
}

/* Icosphere: midpoints cached per edge in a table keyed by the pair. */
typedef struct {
	uint64_t key;
	uint32_t v;
} edge_slot;

static uint32_t midpoint(double *pos, size_t *nv, edge_slot *tab, size_t cap, uint32_t a,
                         uint32_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint64_t key = (lo << 32 | hi) + 1;
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) % cap;
	while (tab[h].key && tab[h].key != key)
		h = (h + 1) % cap;
	if (tab[h].key)
		return tab[h].v;
	uint32_t v = (uint32_t)(*nv)++;
	double *p = pos + 3 * (size_t)v, n = 0;
	for (int k = 0; k < 3; k++) {
		p[k] = 0.5 * (pos[3 * (size_t)a + k] + pos[3 * (size_t)b + k]);
		n += p[k] * p[k];
	}
	n = sqrt(n);
	for (int k = 0; k < 3; k++)
		p[k] /= n;
	tab[h].key = key;
	tab[h].v = v;
	return v;
}

int bm_box(bm_mesh *m, const double c[3], const double h[3])
{
	/* Corner i: bit 0 the z sign, bit 1 y's, bit 2 x's; each face's
	 * corners run counter-clockwise seen from outside. */
	static const uint32_t faces[12][3] = {
		{2, 6, 4}, {2, 4, 0}, {1, 5, 7}, {1, 7, 3}, /* -z, +z */
		{4, 5, 1}, {4, 1, 0}, {2, 3, 7}, {2, 7, 6}, /* -y, +y */
		{1, 3, 2}, {1, 2, 0}, {4, 6, 7}, {4, 7, 5}, /* -x, +x */
	};
	memset(m, 0, sizeof *m);
	m->pos = malloc(24 * sizeof *m->pos);
	m->idx = malloc(36 * sizeof *m->idx);
	if (!m->pos || !m->idx) {
		bm_free(m);
		return -1;
	}
	for (int i = 0; i < 8; i++) {
		m->pos[3 * i + 0] = c[0] + (i & 4 ? h[0] : -h[0]);
		m->pos[3 * i + 1] = c[1] + (i & 2 ? h[1] : -h[1]);
		m->pos[3 * i + 2] = c[2] + (i & 1 ? h[2] : -h[2]);
	}
	memcpy(m->idx, faces, sizeof faces);
	m->nv = 8;
	m->nt = 12;
	return 0;
}

int bm_icosphere(bm_mesh *m, double radius, const double centre[3], int detail)
{
	static const uint32_t faces[20][3] = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10},
	                                      {0, 10, 11}, {1, 5, 9},  {5, 11, 4}, {11, 10, 2},
	                                      {10, 7, 6},  {7, 1, 8},  {3, 9, 4},  {3, 4, 2},
	                                      {3, 2, 6},   {3, 6, 8},  {3, 8, 9},  {4, 9, 5},
	                                      {2, 4, 11},  {6, 2, 10}, {8, 6, 7},  {9, 8, 1}};
	double g = (1 + sqrt(5.0)) / 2;
	const double v0[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
	                          {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
	                          {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
	size_t nt = 20, ntmax = 20, nvmax;
	for (int d = 0; d < detail; d++)
		ntmax *= 4;
	nvmax = ntmax / 2 + 2;
	memset(m, 0, sizeof *m);
	m->pos = malloc(3 * nvmax * sizeof *m->pos);
	m->idx = malloc(3 * ntmax * sizeof *m->idx);
	uint32_t *tmp = malloc(3 * ntmax * sizeof *tmp);
	size_t cap = 4 * ntmax;
	edge_slot *tab = malloc(cap * sizeof *tab);
	if (!m->pos || !m->idx || !tmp || !tab) {
		free(tmp);
		free(tab);
		bm_free(m);
		return -1;
	}
	size_t nv = 12;
	for (int i = 0; i < 12; i++) {
		double n = sqrt(v0[i][0] * v0[i][0] + v0[i][1] * v0[i][1] + v0[i][2] * v0[i][2]);
		for (int k = 0; k < 3; k++)
			m->pos[3 * i + k] = v0[i][k] / n;
	}
	memcpy(m->idx, faces, sizeof faces);
	for (int d = 0; d < detail; d++) {
		memset(tab, 0, cap * sizeof *tab);
		size_t o = 0;
		for (size_t f = 0; f < nt; f++) {
			uint32_t a = m->idx[3 * f], b = m->idx[3 * f + 1], c = m->idx[3 * f + 2];
			uint32_t ab = midpoint(m->pos, &nv, tab, cap, a, b);
			uint32_t bc = midpoint(m->pos, &nv, tab, cap, b, c);
			uint32_t ca = midpoint(m->pos, &nv, tab, cap, c, a);
			uint32_t t[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
			memcpy(tmp + o, t, sizeof t);
			o += 12;
		}
		nt *= 4;
		memcpy(m->idx, tmp, 3 * nt * sizeof *tmp);
	}
	free(tmp);
	free(tab);
	for (size_t i = 0; i < nv; i++)
		for (int k = 0; k < 3; k++)
			m->pos[3 * i + k] = (double)(float)(centre[k] + radius * m->pos[3 * i + k]);
	m->nv = nv;
	m->nt = nt;
	if (bm_volume(m) < 0) /* outward: flip every triangle */
		for (size_t f = 0; f < nt; f++) {
			uint32_t x = m->idx[3 * f + 1];
			m->idx[3 * f + 1] = m->idx[3 * f + 2];
			m->idx[3 * f + 2] = x;
		}
	return 0;
}

/* Weld: sort the vertices by x, then merge each with the first earlier
 * vertex (in sorted order) within eps in every coordinate. */
static const double *sort_pos;
static int by_x(const void *a, const void *b)
{
	double x = sort_pos[3 * (size_t) * (const uint32_t *)a];
	double y = sort_pos[3 * (size_t) * (const uint32_t *)b];
	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

int bm_weld(const bm_mesh *in, double eps, bm_mesh *out)
{
	size_t n = in->nv;
	uint32_t *order = malloc(n * sizeof *order);
	uint32_t *rep = malloc(n * sizeof *rep);
	uint32_t *newid = malloc(n * sizeof *newid);
	memset(out, 0, sizeof *out);
	out->pos = malloc(3 * n * sizeof *out->pos);
	out->idx = malloc(3 * in->nt * sizeof *out->idx);
	if (!order || !rep || !newid || !out->pos || !out->idx) {
		free(order);
		free(rep);
		free(newid);
		bm_free(out);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i, rep[i] = (uint32_t)i;
	sort_pos = in->pos;
	qsort(order, n, sizeof *order, by_x);
	for (size_t s = 0; s < n; s++) {
		const double *p = in->pos + 3 * (size_t)order[s];
		for (size_t r = s; r-- > 0;) {
			const double *q = in->pos + 3 * (size_t)order[r];
			if (p[0] - q[0] > eps)
				break;
			if (fabs(p[1] - q[1]) <= eps && fabs(p[2] - q[2]) <= eps) {
				rep[order[s]] = rep[order[r]];
				break;
			}
		}
	}
	/* A vertex's representative is the first of its class in sorted
	 * order; number the representatives in their original order. */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		newid[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = rep[i];
		if (newid[r] == UINT32_MAX) {
			newid[r] = (uint32_t)m;
			memcpy(out->pos + 3 * m, in->pos + 3 * (size_t)r, 3 * sizeof(double));
			m++;
		}
	}
	for (size_t t = 0; t < 3 * in->nt; t++)
		out->idx[t] = newid[rep[in->idx[t]]];
	out->nv = m;
	out->nt = in->nt;
	free(order);
	free(rep);
	free(newid);
	return 0;
}

int bm_drop_triangles(const bm_mesh *in, size_t every, size_t at, bm_mesh *out)
{
	memset(out, 0, sizeof *out);
	out->pos = malloc(3 * in->nv * sizeof *out->pos);
	out->idx = malloc(3 * in->nt * sizeof *out->idx);
	if (!out->pos || !out->idx) {
		bm_free(out);
		return -1;
	}
	memcpy(out->pos, in->pos, 3 * in->nv * sizeof *out->pos);
	out->nv = in->nv;
	for (size_t t = 0; t < in->nt; t++)
		if (t % every != at)
			memcpy(out->idx + 3 * out->nt++, in->idx + 3 * t, 3 * sizeof *out->idx);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int bm_closed(const bm_mesh *m)
{
	size_t ne = 3 * m->nt;
	uint64_t *e = malloc(ne * sizeof *e);
	if (!e)
		return -1;
	for (size_t t = 0; t < m->nt; t++)
		for (int k = 0; k < 3; k++) {
			uint64_t a = m->idx[3 * t + k], b = m->idx[3 * t + (k + 1) % 3];
			e[3 * t + k] = a << 32 | b;
		}
	qsort(e, ne, sizeof *e, cmp_u64);
	int ok = 1;
	for (size_t i = 0; i < ne && ok; i++) {
		uint64_t a = e[i] >> 32, b = e[i] & 0xffffffffu;
		if (a == b || (i + 1 < ne && e[i + 1] == e[i])) {
			ok = 0; /* degenerate, or a directed edge used twice */
			break;
		}
		uint64_t rev = b << 32 | a;
		if (!bsearch(&rev, e, ne, sizeof *e, cmp_u64))
			ok = 0; /* a border edge */
	}
	free(e);
	return ok;
}

double bm_volume(const bm_mesh *m)
{
	double v = 0;
	for (size_t t = 0; t < m->nt; t++) {
		const double *a = m->pos + 3 * (size_t)m->idx[3 * t];
		const double *b = m->pos + 3 * (size_t)m->idx[3 * t + 1];
		const double *c = m->pos + 3 * (size_t)m->idx[3 * t + 2];
		double bc[3];
		cross(b, c, bc);
		v += a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
	}
	return v / 6;
}

void bm_bounds(const bm_mesh *m, double lo[3], double hi[3])
{
	for (int k = 0; k < 3; k++)
		lo[k] = INFINITY, hi[k] = -INFINITY;
	for (size_t i = 0; i < m->nv; i++)
		for (int k = 0; k < 3; k++) {
			double x = m->pos[3 * i + k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
		}
}

void bm_free(bm_mesh *m)
{
	free(m->pos);
	free(m->idx);
	m->pos = NULL;
	m->idx = NULL;
	m->nv = m->nt = 0;
}
