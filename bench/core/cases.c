/*
 * cases.c — the case sets of the core benchmark (see bench.h).
 *
 * GJK88 set.  The 6000 examples of GJK88 section VII as tests/gjk88.c builds
 * them (the same ones the gjk88 suite checks), with the truth from the qhull
 * oracle (tests/oracle.c): the hull of the Minkowski difference, built point
 * by point, read off its facets.
 *
 * Scale set.  Pairs with M = M_a + M_b vertices up to 10^5, where qhull on
 * the M_a * M_b points of the difference is out of reach, so the truth comes
 * from the construction.  In a pair frame whose z axis is the contact
 * direction, a (below) and b (above) are built so that their nearest or
 * deepest features are known exactly, then the whole pair gets one random
 * rigid motion (and each shape its own random turn about z, which keeps the
 * construction), which changes no distance:
 *
 *   kind 0, "sphere": random points on a sphere of radius R, plus both poles
 *     (0, 0, +-R).  Vertex contact: b's south pole sits g above a's north
 *     pole on the line of the centres.  Each hull lies in its ball and
 *     holds its pole, so the hull distance is exactly g (g >= 0: the ball
 *     distance is g and the poles realize it).  For g < 0 each hull holds
 *     the segment between its poles, and these overlap: intersecting (the
 *     depth is not known in closed form: left NaN, only verdicts count).
 *   kind 1, "ball": random points in a ball of radius R below the plane
 *     z = h = 0.6 R, plus the south pole and k points evenly spaced (random
 *     phase) on the circle where that plane cuts the sphere (radius
 *     0.8 R): a flat top facet F, which holds the disc of radius
 *     rho = 0.8 R cos(pi/k) about the axis.
 *   kind 2, "elongated": the same on an ellipsoid with semi-axes
 *     (3R, R, R) (points on its surface), cut at z = 0.6 R; the facet is an
 *     affine image of a regular k-gon and still holds a disc of radius
 *     rho = 0.8 R cos(pi/k).
 *   For kinds 1 and 2, b is the same kind of shape flipped (facet at the
 *   bottom), shifted sideways by s (|s| <= 0.3 (rho_a + rho_b)) and placed
 *   with its facet g above a's.  Then K = a - b lies in z <= -g and holds
 *   the disc F_a - F_b of radius rho_a + rho_b about (-s, -g), which holds
 *   the point (0, 0, -g): the distance is exactly g when g >= 0.  When
 *   g = -delta < 0, moving b up by delta parts the hulls (h_K(z) = delta),
 *   and nothing less does if the ball of radius delta about the origin is
 *   in K; K holds the cone from that disc to P = (a's south pole) - (b's
 *   north pole), whose lateral surface is at least r0 cos(alpha) - |s|
 *   from the origin (r0 its radius at height 0, alpha its half angle).
 *   The generator shrinks delta until that bound exceeds it, so the
 *   depth is exactly delta.
 * Classes: separated g in [0.05, 0.5] (R_a + R_b) / 2, touching g = 0,
 * intersecting delta in [0.02, 0.2] min(R_a, R_b).  The vertex coordinates
 * of the construction are exact in the local frames (the facets lie on
 * z = +-h exactly); the motion rounds at the 1e-16 level.  bench_cases_check
 * compares the construction with qhull where qhull can answer (small M).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "../../tests/gjk88.h"
#include "../../tests/oracle.h"
#include "../../tests/prng.h"

#define PI 3.14159265358979323846

void bench_rotation(const double q[4], double r[9])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	r[0] = 1 - 2 * (y * y + z * z);
	r[1] = 2 * (x * y - w * z);
	r[2] = 2 * (x * z + w * y);
	r[3] = 2 * (x * y + w * z);
	r[4] = 1 - 2 * (x * x + z * z);
	r[5] = 2 * (y * z - w * x);
	r[6] = 2 * (x * z - w * y);
	r[7] = 2 * (y * z + w * x);
	r[8] = 1 - 2 * (x * x + y * y);
}

void bench_world(const bench_shape *s, double *out)
{
	double r[9];
	bench_rotation(s->q, r);
	for (size_t k = 0; k < s->m; k++) {
		const double *v = s->v + 3 * k;
		for (int i = 0; i < 3; i++)
			out[3 * k + i] = r[3 * i] * v[0] + r[3 * i + 1] * v[1] +
			                 r[3 * i + 2] * v[2] + s->t[i];
	}
}

static double max_norm(const double *v, size_t m)
{
	double best = 0;
	for (size_t k = 0; k < m; k++)
		best = fmax(best, sqrt(v[3 * k] * v[3 * k] + v[3 * k + 1] * v[3 * k + 1] +
		                       v[3 * k + 2] * v[3 * k + 2]));
	return best;
}

/* ---- GJK88 ------------------------------------------------------------- */

static gjk88_set *gjk88;

const void *bench_gjk88_family(void)
{
	return gjk88 ? gjk88->family : NULL;
}

int bench_cases_gjk88(bench_case **out)
{
	gjk88 = malloc(sizeof *gjk88);
	if (!gjk88 || gjk88_build(gjk88) != 0)
		return -1;
	bench_case *cs = calloc(GJK88_CASES, sizeof *cs);
	static double wa[GJK88_MAX_VERTICES * 3], wb[GJK88_MAX_VERTICES * 3];
	int n = 0;
	for (int i = 0; i < GJK88_CASES; i++) {
		const gjk88_case *k = &gjk88->cases[i];
		bench_case *c = &cs[n];
		c->set = BENCH_SET_GJK88;
		c->cls = (enum bench_class)k->cls;
		c->index = i;
		c->group = k->pair;
		c->a.v = k->a->v;
		c->a.m = (size_t)k->a->m;
		c->b.v = k->b->v;
		c->b.m = (size_t)k->b->m;
		memcpy(c->a.q, k->qa, sizeof c->a.q);
		memcpy(c->a.t, k->ta, sizeof c->a.t);
		memcpy(c->b.q, k->qb, sizeof c->b.q);
		memcpy(c->b.t, k->tb, sizeof c->b.t);
		c->a.radius = k->a->radius;
		c->b.radius = k->b->radius;
		c->size = c->a.radius + c->b.radius;
		bench_world(&c->a, wa);
		bench_world(&c->b, wb);
		oracle_answer o;
		int rc = oracle_query(3, wa, c->a.m, 0, wb, c->b.m, 0, &o);
		if (rc != ORACLE_OK)
			continue; /* flat differences: the gjk88 suite skips them too */
		c->intersecting = o.hull_overlap;
		c->distance = o.hull_distance;
		c->depth = o.hull_overlap ? o.hull_depth : 0.0;
		n++;
	}
	*out = cs;
	return n;
}

/* ---- scale ------------------------------------------------------------- */

/* Quaternion product p * q (x, y, z, w). */
static void qmul(const double p[4], const double q[4], double out[4])
{
	out[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
	out[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
	out[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
	out[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
}

enum {
	KIND_SPHERE = 0,
	KIND_BALL = 1,
	KIND_ELONGATED = 2,
	KINDS = 3
};

typedef struct built {
	double *v;
	size_t m;
	double top;   /* z of the top pole or facet */
	double south; /* -z of the bottom pole (> 0) */
	double rho;   /* in-plane disc radius the facet holds (kinds 1, 2) */
} built;

/* One shape of m >= 5 vertices with its contact feature on top (z > 0). */
static void build_shape(int kind, size_t m, double R, prng *r, built *s)
{
	s->m = m;
	s->v = malloc(3 * m * sizeof *s->v);
	size_t n = 0;
	double *v = s->v;
#define PUT(x, y, z) (v[3 * n] = (x), v[3 * n + 1] = (y), v[3 * n + 2] = (z), n++)
	if (kind == KIND_SPHERE) {
		PUT(0.0, 0.0, R);
		PUT(0.0, 0.0, -R);
		while (n < m) {
			double d[3];
			prng_direction(r, 3, d);
			PUT(R * d[0], R * d[1], R * d[2]);
		}
		s->top = R;
		s->south = R;
		s->rho = 0.0;
		return;
	}
	double ax = kind == KIND_ELONGATED ? 3.0 * R : R;
	double h = 0.6 * R;
	size_t k = m / 8;
	k = k < 3 ? 3 : k > 48 ? 48 : k;
	double phase = prng_range(r, 0, 2 * PI);
	for (size_t i = 0; i < k; i++) {
		double t = phase + 2 * PI * (double)i / (double)k;
		PUT(0.8 * ax * cos(t), 0.8 * R * sin(t), h); /* exactly on z = h */
	}
	PUT(0.0, 0.0, -R);
	while (n < m) {
		double d[3], x, y, z;
		prng_direction(r, 3, d);
		if (kind == KIND_BALL) {
			double u = cbrt(prng_unit(r));
			x = R * u * d[0];
			y = R * u * d[1];
			z = R * u * d[2];
		} else {
			x = ax * d[0];
			y = R * d[1];
			z = R * d[2];
		}
		if (z < h)
			PUT(x, y, z);
	}
#undef PUT
	s->top = h;
	s->south = R;
	s->rho = 0.8 * R * cos(PI / (double)k);
}

/* Turn a shape upside down: the contact feature at the bottom. */
static void flip(built *s)
{
	for (size_t i = 0; i < s->m; i++)
		s->v[3 * i + 2] = -s->v[3 * i + 2];
}

static void rotate(const double r[9], const double *x, double *out)
{
	for (int i = 0; i < 3; i++)
		out[i] = r[3 * i] * x[0] + r[3 * i + 1] * x[1] + r[3 * i + 2] * x[2];
}

int bench_cases_scale(const int *ms, int nm, int per_class, uint64_t seed, bench_case **out)
{
	int total = nm * per_class * BENCH_CLASSES;
	bench_case *cs = calloc((size_t)total, sizeof *cs);
	if (!cs)
		return -1;
	prng r = {seed};
	int n = 0;
	for (int im = 0; im < nm; im++) {
		size_t ma = (size_t)ms[im] / 2, mb = (size_t)ms[im] - ma;
		for (int p = 0; p < per_class; p++) {
			/* One pair of shapes per p, placed three ways; the
			 * vertex arrays are shared by the three cases (the
			 * first owns them). */
			int kind = p % KINDS;
			double Ra = prng_range(&r, 1.0, 3.0), Rb = prng_range(&r, 1.0, 3.0);
			built a, b;
			build_shape(kind, ma, Ra, &r, &a);
			build_shape(kind, mb, Rb, &r, &b);
			flip(&b);
			double s[2] = {0, 0};
			if (kind != KIND_SPHERE) {
				double ang = prng_range(&r, 0, 2 * PI);
				double len = prng_range(&r, 0, 0.3) * (a.rho + b.rho);
				s[0] = len * cos(ang);
				s[1] = len * sin(ang);
			}
			double sep = prng_range(&r, 0.05, 0.5) * 0.5 * (Ra + Rb);
			double delta = prng_range(&r, 0.02, 0.2) * fmin(Ra, Rb);
			if (kind != KIND_SPHERE) {
				/* Keep the ball of radius delta inside K (above). */
				for (;;) {
					double rho = a.rho + b.rho;
					double zp = -(a.south + a.top + b.top - delta + b.south);
					double r0 = rho * (0.0 - zp) / (delta - zp);
					double alpha = atan(rho / (delta - zp));
					double slen = sqrt(s[0] * s[0] + s[1] * s[1]);
					if (r0 * cos(alpha) - slen > 1.01 * delta)
						break;
					delta *= 0.5;
				}
			}
			double qc[4], tc[3], rc[9], qa[4], qb[4], za[4], zb[4];
			prng_rotation(&r, qc);
			bench_rotation(qc, rc);
			for (int i = 0; i < 3; i++)
				tc[i] = prng_range(&r, -5.0, 5.0);
			double pa = prng_range(&r, 0, 2 * PI), pb = prng_range(&r, 0, 2 * PI);
			za[0] = za[1] = zb[0] = zb[1] = 0.0;
			za[2] = sin(pa / 2);
			za[3] = cos(pa / 2);
			zb[2] = sin(pb / 2);
			zb[3] = cos(pb / 2);
			qmul(qc, za, qa);
			qmul(qc, zb, qb);
			double ra = max_norm(a.v, a.m), rb = max_norm(b.v, b.m);
			for (int cl = 0; cl < BENCH_CLASSES; cl++) {
				double g = cl == BENCH_SEPARATED  ? sep
				           : cl == BENCH_TOUCHING ? 0.0
				                                  : -delta;
				bench_case *c = &cs[n];
				c->set = BENCH_SET_SCALE;
				c->cls = (enum bench_class)cl;
				c->index = n;
				c->group = ms[im];
				c->kind = kind;
				c->a.v = a.v;
				c->a.m = a.m;
				c->b.v = b.v;
				c->b.m = b.m;
				c->a.radius = ra;
				c->b.radius = rb;
				c->size = ra + rb;
				memcpy(c->a.q, qa, sizeof qa);
				memcpy(c->b.q, qb, sizeof qb);
				double tl[3] = {s[0], s[1], a.top + b.top + g}, tw[3];
				rotate(rc, tl, tw);
				for (int i = 0; i < 3; i++) {
					c->a.t[i] = tc[i];
					c->b.t[i] = tc[i] + tw[i];
				}
				c->intersecting = cl != BENCH_SEPARATED;
				c->distance = g > 0 ? g : 0.0;
				c->depth = cl == BENCH_SEPARATED  ? 0.0
				           : cl == BENCH_TOUCHING ? 0.0
				           : kind == KIND_SPHERE  ? NAN
				                                  : delta;
				n++;
			}
		}
	}
	*out = cs;
	return n;
}

int bench_cases_check(const bench_case *cs, int n, size_t max_m, FILE *out)
{
	int bad = 0, checked = 0;
	double worst_d = 0, worst_p = 0;
	for (int i = 0; i < n; i++) {
		const bench_case *c = &cs[i];
		if (c->a.m + c->b.m > max_m)
			continue;
		double *wa = malloc(3 * c->a.m * sizeof *wa), *wb = malloc(3 * c->b.m * sizeof *wb);
		bench_world(&c->a, wa);
		bench_world(&c->b, wb);
		oracle_answer o;
		int rc = oracle_query(3, wa, c->a.m, 0, wb, c->b.m, 0, &o);
		free(wa);
		free(wb);
		if (rc != ORACLE_OK)
			continue;
		checked++;
		double tol = 1e-9 * c->size;
		double ed = fabs(o.hull_distance - c->distance);
		double ep =
			c->intersecting && !isnan(c->depth) ? fabs(o.hull_depth - c->depth) : 0.0;
		worst_d = fmax(worst_d, ed);
		worst_p = fmax(worst_p, ep);
		int wrong = ed > tol || ep > tol ||
		            (c->cls != BENCH_TOUCHING && o.hull_overlap != c->intersecting);
		if (wrong) {
			if (bad < 5)
				fprintf(out,
				        "  scale case %d (M %d, kind %d, %s): construction d %.17g depth "
				        "%.17g, qhull d %.17g depth %.17g\n",
				        c->index, c->group, c->kind,
				        c->cls == 0   ? "separated"
				        : c->cls == 1 ? "touching"
				                      : "intersecting",
				        c->distance, c->depth, o.hull_distance, o.hull_depth);
			bad++;
		}
	}
	fprintf(out,
	        "The construction checked against the qhull oracle on the %d cases with M <= %zu: "
	        "%d disagree; largest differences: distance %.2g, depth %.2g.\n",
	        checked, max_m, bad, worst_d, worst_p);
	return bad;
}

void bench_cases_free(bench_case *cs, int n)
{
	if (!cs)
		return;
	int gjk = n > 0 && cs[0].set == BENCH_SET_GJK88;
	for (int i = 0; i < n; i++)
		if (cs[i].set == BENCH_SET_SCALE && cs[i].cls == 0) { /* the owner */
			free((void *)cs[i].a.v);
			free((void *)cs[i].b.v);
		}
	free(cs);
	if (gjk) {
		free(gjk88);
		gjk88 = NULL;
	}
}
