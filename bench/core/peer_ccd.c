/*
 * peer_ccd.c — libccd 2.1 (Debian libccd-dev, double precision) as
 * benchmark methods: ccdGJKIntersect and ccdMPRIntersect (verdicts),
 * ccdGJKPenetration (GJK + EPA) and ccdMPRPenetration (depths).  libccd
 * 2.1 has no distance query (its header declares none; ccdGJKDist came
 * later), so it takes no part in the distance comparison.
 *
 * libccd asks the caller for support and centre functions.  Ours apply the
 * pose the way the core does: the direction is turned into the shape's
 * frame, the local vertices are scanned, the extreme one is posed.  The
 * settings are libccd's defaults (CCD_INIT: EPA and MPR tolerance 1e-4),
 * except an iteration cap for GJK and MPR (the default is none).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ccd/ccd.h>

#include "bench.h"

typedef struct ccd_obj {
	const double *v;
	size_t m;
	double r[9]; /* row-major rotation */
	double t[3];
	double centre[3]; /* world */
} ccd_obj;

typedef struct ccd_pair {
	ccd_obj a, b;
	ccd_t ccd;
	int which;
} ccd_pair;

static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
	const ccd_obj *o = obj;
	const double *r = o->r;
	double d0 = dir->v[0], d1 = dir->v[1], d2 = dir->v[2];
	/* R^T d */
	double e0 = r[0] * d0 + r[3] * d1 + r[6] * d2;
	double e1 = r[1] * d0 + r[4] * d1 + r[7] * d2;
	double e2 = r[2] * d0 + r[5] * d1 + r[8] * d2;
	const double *v = o->v;
	size_t best = 0;
	double bv = v[0] * e0 + v[1] * e1 + v[2] * e2;
	for (size_t i = 1; i < o->m; i++) {
		const double *p = v + 3 * i;
		double s = p[0] * e0 + p[1] * e1 + p[2] * e2;
		if (s > bv) {
			bv = s;
			best = i;
		}
	}
	const double *p = v + 3 * best;
	for (int i = 0; i < 3; i++)
		out->v[i] = r[3 * i] * p[0] + r[3 * i + 1] * p[1] + r[3 * i + 2] * p[2] + o->t[i];
}

static void centre(const void *obj, ccd_vec3_t *c)
{
	const ccd_obj *o = obj;
	for (int i = 0; i < 3; i++)
		c->v[i] = o->centre[i];
}

static void setup(ccd_obj *o, const bench_shape *s)
{
	o->v = s->v;
	o->m = s->m;
	bench_rotation(s->q, o->r);
	memcpy(o->t, s->t, sizeof o->t);
	double lc[3] = {0, 0, 0};
	for (size_t i = 0; i < s->m; i++)
		for (int k = 0; k < 3; k++)
			lc[k] += s->v[3 * i + k];
	for (int k = 0; k < 3; k++)
		lc[k] /= (double)s->m;
	for (int i = 0; i < 3; i++)
		o->centre[i] = o->r[3 * i] * lc[0] + o->r[3 * i + 1] * lc[1] +
		               o->r[3 * i + 2] * lc[2] + o->t[i];
}

enum {
	GJK_INTERSECT,
	MPR_INTERSECT,
	GJK_PENETRATION,
	MPR_PENETRATION
};

static void *prep(const bench_case *c, int which)
{
	ccd_pair *p = calloc(1, sizeof *p);
	setup(&p->a, &c->a);
	setup(&p->b, &c->b);
	CCD_INIT(&p->ccd);
	p->ccd.support1 = support;
	p->ccd.support2 = support;
	p->ccd.center1 = centre;
	p->ccd.center2 = centre;
	p->ccd.max_iterations = 1000;
	p->which = which;
	return p;
}

static void *prep_gi(const bench_case *c)
{
	return prep(c, GJK_INTERSECT);
}
static void *prep_mi(const bench_case *c)
{
	return prep(c, MPR_INTERSECT);
}
static void *prep_gp(const bench_case *c)
{
	return prep(c, GJK_PENETRATION);
}
static void *prep_mp(const bench_case *c)
{
	return prep(c, MPR_PENETRATION);
}

static void query(void *h, bench_answer *out)
{
	ccd_pair *p = h;
	out->distance = NAN;
	out->depth = NAN;
	ccd_real_t depth = 0;
	ccd_vec3_t dir, pos;
	int rc;
	switch (p->which) {
	case GJK_INTERSECT:
		out->intersecting = ccdGJKIntersect(&p->a, &p->b, &p->ccd) ? 1 : 0;
		break;
	case MPR_INTERSECT:
		out->intersecting = ccdMPRIntersect(&p->a, &p->b, &p->ccd) ? 1 : 0;
		break;
	case GJK_PENETRATION:
		rc = ccdGJKPenetration(&p->a, &p->b, &p->ccd, &depth, &dir, &pos);
		out->intersecting = rc == 0;
		out->depth = rc == 0 ? depth : 0.0;
		break;
	default:
		rc = ccdMPRPenetration(&p->a, &p->b, &p->ccd, &depth, &dir, &pos);
		out->intersecting = rc == 0;
		out->depth = rc == 0 ? depth : 0.0;
		break;
	}
}

static void release(void *h)
{
	free(h);
}

#define ALL ((1u << BENCH_SEPARATED) | (1u << BENCH_TOUCHING) | (1u << BENCH_INTERSECTING))
#define DEEP ((1u << BENCH_TOUCHING) | (1u << BENCH_INTERSECTING))

/* clang-format off */
const bench_method bench_ccd[] = {
	{"ccdGJKIntersect", "libccd", BENCH_VERDICT, ALL, 0, 0, prep_gi, query, release},
	{"ccdMPRIntersect", "libccd", BENCH_VERDICT, ALL, 0, 0, prep_mi, query, release},
	{"ccdGJKPenetration (EPA)", "libccd", BENCH_DEPTH, DEEP, 0, 0, prep_gp, query, release},
	{"ccdMPRPenetration", "libccd", BENCH_DEPTH, DEEP, 0, 0, prep_mp, query, release},
	{NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL}};
/* clang-format on */
