/*
 * check_motion.c — suite "motion": shapes that move (2005
 * interframe paper, section 5): clash_motion_between, clash_swept and
 * clash_toi, and "pose_end" in a Query.
 *
 * Every answer is checked against something independent of the
 * conservative advancement: closed forms (a thin fast box through a thin
 * wall, spheres on straight lines (a quadratic), boxes sliding along axes
 * (the slab entry times of each axis), a spinning bar meeting a ball (an
 * arcsine)), an explicit slerp of quaternions, and dense sampling of the
 * motion with clash_gjk, which can only see contacts that last longer than
 * its step but must never see one before our time of impact, nor one we
 * say is not there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "clash.h"
#include "prng.h"
#include "proto.h"

/* The 8 corners of the box [lo, hi] (3-D), or 4 (2-D), into v. */
static size_t box_vertices(int dim, const double *lo, const double *hi, double *v)
{
	size_t m = (size_t)1 << dim;
	for (size_t i = 0; i < m; i++)
		for (int k = 0; k < dim; k++)
			v[i * (size_t)dim + (size_t)k] = (i >> k) & 1 ? hi[k] : lo[k];
	return m;
}

static void shape_box(clash_shape *s, double *v, int dim, const double *lo, const double *hi)
{
	size_t m = box_vertices(dim, lo, hi, v);
	ck_assert_int_eq(clash_shape_init(s, dim, v, m), CLASH_OK);
}

static clash_motion moving(double dx, double dy, double dz)
{
	clash_motion m = {{dx, dy, dz}, {0, 0, 0}};
	return m;
}

/* ---- closed forms -------------------------------------------------------- */

START_TEST(thin_box_through_wall)
{
	/* A 2 cm bullet 10 m before a 1 cm wall, crossing 20 m in one frame:
	 * both frames see it clear of the wall. */
	double wv[24], bv[24];
	clash_shape wall, bullet;
	shape_box(&wall, wv, 3, (double[]){0, -5, -5}, (double[]){0.01, 5, 5});
	shape_box(&bullet, bv, 3, (double[]){-10.01, -0.01, -0.01}, (double[]){-9.99, 0.01, 0.01});
	clash_motion m = moving(20, 0, 0);
	clash_result r;
	clash_shape end;
	ck_assert_int_eq(clash_gjk(&bullet, &wall, NULL, &r), CLASH_OK);
	ck_assert(!r.intersecting);
	ck_assert_int_eq(clash_motion_pose(&end, &bullet, &m, 1.0), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&end, &wall, NULL, &r), CLASH_OK);
	ck_assert(!r.intersecting);
	ck_near(r.distance, 9.98, 1e-12);

	/* The swept hull sees it, and the time of impact is the closed form. */
	ck_assert_int_eq(clash_swept(&bullet, &m, &wall, NULL, NULL, &r), CLASH_OK);
	ck_assert(r.intersecting);
	clash_toi_result t;
	ck_assert_int_eq(clash_toi(&bullet, &m, &wall, NULL, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact && t.converged && t.has_normal);
	ck_near(t.toi, (10.0 - 0.01) / 20.0, 1e-12);
	ck_near(t.normal[0], 1.0, 1e-12);
	ck_near(t.normal[1], 0.0, 1e-12);
	ck_near(t.point[0], 0.0, 1e-9);
	ck_near(t.approach, 20.0, 1e-9);
	ck_assert_int_le(t.steps, 4); /* the swept hull, then Newton */
	/* The other way round: b moves, a is the wall. */
	ck_assert_int_eq(clash_toi(&wall, NULL, &bullet, &m, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact);
	ck_near(t.toi, (10.0 - 0.01) / 20.0, 1e-12);
	ck_near(t.normal[0], -1.0, 1e-12);
	ck_near(t.approach, 20.0, 1e-9);

	/* Aimed over the wall's top edge: no contact, and the swept distance
	 * is the closest approach (a 2-D question in x and z: the gap between
	 * the bullet's box and the wall's, sampled finely from above). */
	clash_motion past = moving(20, 0, 10.5);
	ck_assert_int_eq(clash_toi(&bullet, &past, &wall, NULL, 0.0, NULL, &t), CLASH_OK);
	ck_assert(!t.contact && !t.near);
	ck_assert_int_eq(clash_swept(&bullet, &past, &wall, NULL, NULL, &r), CLASH_OK);
	ck_assert(!r.intersecting);
	double least = INFINITY;
	for (int i = 0; i <= 200000; i++) {
		double tt = i / 200000.0;
		double x0 = -10.01 + 20 * tt, x1 = x0 + 0.02, z0 = -0.01 + 10.5 * tt;
		double gx = x0 > 0.01 ? x0 - 0.01 : x1 < 0 ? -x1 : 0;
		double gz = z0 > 5 ? z0 - 5 : 0;
		least = fmin(least, hypot(gx, gz));
	}
	ck_assert(r.distance <= least + 1e-12);
	ck_assert(r.distance >= least - 25.0 / 200000);
	ck_assert_int_eq(clash_toi(&bullet, &past, &wall, NULL, least + 0.01, NULL, &t), CLASH_OK);
	ck_assert(t.near && !t.contact);
}
END_TEST

/* The time two balls first touch: |p + t v| = R, p = cb - ca, v the
 * relative velocity of b. */
static int balls_meet(const double *p, const double *v, double radius, int dim, double *when)
{
	double vv = 0, pv = 0, pp = 0;
	for (int k = 0; k < dim; k++) {
		vv += v[k] * v[k];
		pv += p[k] * v[k];
		pp += p[k] * p[k];
	}
	double c = pp - radius * radius;
	if (c <= 0) {
		*when = 0;
		return 1;
	}
	double disc = pv * pv - vv * c;
	if (vv == 0 || disc < 0)
		return 0;
	double t = (-pv - sqrt(disc)) / vv;
	if (t < 0 || t > 1)
		return 0;
	*when = t;
	return 1;
}

START_TEST(balls_on_lines)
{
	prng g = {0x5eed0001};
	int hits = 0, misses = 0;
	for (int i = 0; i < 400; i++) {
		int dim = 2 + i % 2;
		double ca[3] = {0}, cb[3] = {0}, da[3] = {0}, db[3] = {0};
		for (int k = 0; k < dim; k++) {
			ca[k] = prng_range(&g, -3, 3);
			cb[k] = prng_range(&g, -3, 3);
			da[k] = prng_range(&g, -6, 6);
			db[k] = prng_range(&g, -6, 6);
		}
		double ra = prng_range(&g, 0.1, 1), rb = prng_range(&g, 0.1, 1);
		clash_shape a, b;
		ck_assert_int_eq(clash_shape_init(&a, dim, ca, 1), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&b, dim, cb, 1), CLASH_OK);
		clash_shape_set_radius(&a, ra);
		clash_shape_set_radius(&b, rb);
		clash_motion ma = moving(da[0], da[1], da[2]), mb = moving(db[0], db[1], db[2]);
		double p[3], v[3];
		for (int k = 0; k < dim; k++) {
			p[k] = cb[k] - ca[k];
			v[k] = db[k] - da[k];
		}
		/* Skip grazing cases, where a rounding decides. */
		double vv = 0, pv = 0;
		for (int k = 0; k < dim; k++) {
			vv += v[k] * v[k];
			pv += p[k] * v[k];
		}
		double tm = fmin(1, fmax(0, -pv / vv)), least = 0;
		for (int k = 0; k < dim; k++)
			least += (p[k] + tm * v[k]) * (p[k] + tm * v[k]);
		least = sqrt(least);
		if (fabs(least - (ra + rb)) < 1e-6)
			continue;
		double want;
		int meet = balls_meet(p, v, ra + rb, dim, &want);
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &ma, &b, &mb, 0.0, NULL, &t), CLASH_OK);
		ck_assert_msg(t.contact == meet, "case %d: contact %d, closed form %d", i,
		              t.contact, meet);
		clash_result sw;
		ck_assert_int_eq(clash_swept(&a, &ma, &b, &mb, NULL, &sw), CLASH_OK);
		ck_assert_int_eq(sw.intersecting, meet);
		if (meet) {
			hits++;
			ck_assert(t.converged);
			ck_near(t.toi, want, 1e-9);
			if (want > 0) {
				/* The normal is the centre line at contact. */
				double c[3], len = 0;
				for (int k = 0; k < dim; k++) {
					c[k] = p[k] + want * v[k];
					len += c[k] * c[k];
				}
				len = sqrt(len);
				for (int k = 0; k < dim; k++)
					ck_near(t.normal[k], c[k] / len, 1e-9);
				ck_assert(t.approach > 0);
			}
		} else {
			misses++;
			ck_near(sw.distance, least - ra - rb, 1e-9);
		}
	}
	ck_assert_int_gt(hits, 50);
	ck_assert_int_gt(misses, 50);
}
END_TEST

/* Axis-aligned boxes sliding: they touch from the latest of the axes'
 * entry times to the earliest of their exit times. */
START_TEST(boxes_sliding_along_axes)
{
	prng g = {0x5eed0002};
	int hits = 0, misses = 0;
	for (int i = 0; i < 400; i++) {
		const int dim = 3;
		double alo[3], ahi[3], blo[3], bhi[3], v[3], va[3], vb[3];
		for (int k = 0; k < dim; k++) {
			alo[k] = prng_range(&g, -3, 3);
			ahi[k] = alo[k] + prng_range(&g, 0.2, 2);
			blo[k] = prng_range(&g, -3, 3);
			bhi[k] = blo[k] + prng_range(&g, 0.2, 2);
			va[k] = prng_range(&g, -6, 6);
			vb[k] = i % 3 == 0 ? 0 : prng_range(&g, -6, 6);
			v[k] = vb[k] - va[k]; /* b relative to a */
		}
		if (i % 5 == 0) /* along one axis only */
			v[1] = v[2] = va[1] = va[2] = vb[1] = vb[2] = 0;
		double enter = 0, leave = 1;
		int axis = -1;
		for (int k = 0; k < dim; k++) {
			/* b's interval [blo + t v, bhi + t v] meets [alo, ahi] */
			double t0, t1;
			if (v[k] == 0) {
				if (bhi[k] < alo[k] || blo[k] > ahi[k])
					t0 = INFINITY, t1 = -INFINITY;
				else
					t0 = -INFINITY, t1 = INFINITY;
			} else {
				t0 = (alo[k] - bhi[k]) / v[k];
				t1 = (ahi[k] - blo[k]) / v[k];
				if (t0 > t1) {
					double x = t0;
					t0 = t1;
					t1 = x;
				}
			}
			if (t0 > enter) {
				enter = t0;
				axis = k;
			}
			leave = fmin(leave, t1);
		}
		int meet = enter <= leave;
		if (fabs(enter - leave) < 1e-6 || (meet && fabs(enter - 1) < 1e-6))
			continue; /* grazing: rounding decides */
		double av[24], bv[24];
		clash_shape a, b;
		shape_box(&a, av, 3, alo, ahi);
		shape_box(&b, bv, 3, blo, bhi);
		clash_motion ma = moving(va[0], va[1], va[2]), mb = moving(vb[0], vb[1], vb[2]);
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &ma, &b, &mb, 0.0, NULL, &t), CLASH_OK);
		ck_assert_msg(t.contact == meet, "case %d: contact %d, slabs %d", i, t.contact,
		              meet);
		if (!meet) {
			misses++;
			continue;
		}
		hits++;
		ck_near(t.toi, enter, 1e-9);
		if (enter > 0) {
			ck_assert(t.has_normal);
			/* a's face towards b: the normal is +-axis unless two axes
			 * enter at once. */
			ck_near(fabs(t.normal[axis]), 1.0, 1e-6);
			ck_assert(t.approach > 0);
		}
	}
	ck_assert_int_gt(hits, 30);
	ck_assert_int_gt(misses, 30);
}
END_TEST

START_TEST(clearance_time)
{
	/* Unit cubes 5 apart on x, b coming at 8 per unit of t: within 0.5 at
	 * t = 4.5 / 8, in contact at 5 / 8. */
	double av[24], bv[24];
	clash_shape a, b;
	shape_box(&a, av, 3, (double[]){0, 0, 0}, (double[]){1, 1, 1});
	shape_box(&b, bv, 3, (double[]){6, 0, 0}, (double[]){7, 1, 1});
	clash_motion mb = moving(-8, 0, 0);
	clash_toi_result t;
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.5, NULL, &t), CLASH_OK);
	ck_assert(t.near && t.contact && t.converged);
	ck_near(t.near_time, 4.5 / 8, 1e-12);
	ck_near(t.toi, 5.0 / 8, 1e-12);
	/* Going by at 0.3 above: near, no contact. */
	shape_box(&b, bv, 3, (double[]){-3, 1.3, 0}, (double[]){-2, 2.3, 1});
	mb = moving(8, 0, 0);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.5, NULL, &t), CLASH_OK);
	ck_assert(t.near && !t.contact);
	ck_near(t.near_time, 0.2, 1e-12); /* hypot(2 - 8 t, 0.3) = 0.5 */
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.25, NULL, &t), CLASH_OK);
	ck_assert(!t.near && !t.contact);
	/* At rest: near and contact only as they are now. */
	shape_box(&b, bv, 3, (double[]){0, 1.3, 0}, (double[]){1, 2.3, 1});
	ck_assert_int_eq(clash_toi(&a, NULL, &b, NULL, 0.25, NULL, &t), CLASH_OK);
	ck_assert(!t.near && !t.contact);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, NULL, 0.31, NULL, &t), CLASH_OK);
	ck_assert(t.near && !t.contact && t.near_time == 0);
	shape_box(&b, bv, 3, (double[]){1, 0, 0}, (double[]){2, 1, 1});
	ck_assert_int_eq(clash_toi(&a, NULL, &b, NULL, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact && t.toi == 0 && !t.has_normal);
	/* Flush at the start and pushed in: the normal from a moment before. */
	mb = moving(-0.5, 0, 0);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact && t.toi == 0 && t.has_normal);
	ck_near(t.normal[0], 1, 1e-9);
	ck_near(t.approach, 0.5, 1e-9);
	/* Flush and sliding along the face: no normal a moment before. */
	mb = moving(0, 3, 0);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, &mb, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact && t.toi == 0);
	ck_assert(!t.has_normal || t.approach <= 1e-9);
}
END_TEST

/* A bar (segment from -L to L on its x axis) turning about its centre by
 * `turn`, and a ball of radius r at (rho cos phi, rho sin phi): they meet
 * when the bar's angle reaches phi - asin(r / rho) (rho < L). */
START_TEST(spinning_bar_closed_form)
{
	const double L = 2.0;
	double bar[6] = {-L, 0, 0, L, 0, 0};
	prng g = {0x5eed0003};
	for (int i = 0; i < 60; i++) {
		int dim = 2 + i % 2;
		double rho = prng_range(&g, 0.5, 1.8), r = prng_range(&g, 0.05, 0.3);
		double phi = prng_range(&g, asin(r / rho) + 0.05, 2.5);
		double turn = prng_range(&g, 0.2, 3.1);
		double ball[3] = {rho * cos(phi), rho * sin(phi), 0};
		double bar2[4] = {-L, 0, L, 0};
		clash_shape a, b;
		ck_assert_int_eq(clash_shape_init(&a, dim, dim == 3 ? bar : bar2, 2), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&b, dim, ball, 1), CLASH_OK);
		clash_shape_set_radius(&b, r);
		clash_motion m = {{0}, {0}};
		if (dim == 3)
			m.rotation[2] = turn;
		else
			m.rotation[0] = turn;
		double when = (phi - asin(r / rho)) / turn;
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &m, &b, NULL, 0.0, NULL, &t), CLASH_OK);
		ck_assert(t.converged);
		if (when > 1 + 1e-6) {
			ck_assert_msg(!t.contact, "case %d: contact at %g, none expected", i,
			              t.toi);
			continue;
		}
		if (when > 1 - 1e-6)
			continue;
		ck_assert_msg(t.contact, "case %d: no contact, expected at %.17g", i, when);
		ck_near(t.toi, when, 1e-9);
		ck_assert(t.has_normal);
		/* The bar's point there moves at turn * rho into the ball. */
		ck_near(t.approach, turn * sqrt(rho * rho - r * r), 1e-6);
	}
}
END_TEST

/* ---- against dense sampling ---------------------------------------------- */

static double *random_polytope(prng *g, int dim, size_t m, double size)
{
	double *v = malloc(m * (size_t)dim * sizeof *v);
	for (size_t i = 0; i < m; i++)
		for (int k = 0; k < dim; k++)
			v[i * (size_t)dim + (size_t)k] = prng_range(g, -size, size);
	return v;
}

static void random_quaternion(prng *g, double *q)
{
	prng_direction(g, 4, q);
}

/* The distance at time t (GJK at the sampled poses). */
static double distance_at(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
                          const clash_motion *mb, double t, const clash_options *opt)
{
	clash_shape pa, pb;
	clash_result r;
	ck_assert_int_eq(clash_motion_pose(&pa, a, ma, t), CLASH_OK);
	ck_assert_int_eq(clash_motion_pose(&pb, b, mb, t), CLASH_OK);
	ck_assert_int_eq(clash_gjk(&pa, &pb, opt, &r), CLASH_OK);
	return r.intersecting ? 0.0 : r.distance;
}

START_TEST(turning_against_sampling)
{
	prng g = {0x5eed0004};
	const int samples = 1000;
	int hits = 0, misses = 0;
	clash_options opt = {.tolerance = 1e-9};
	for (int i = 0; i < 80; i++) {
		int dim = 2 + i % 2;
		size_t na = (size_t)prng_int(&g, 2, 8), nb = (size_t)prng_int(&g, 1, 8);
		double *va = random_polytope(&g, dim, na, 1.0),
		       *vb = random_polytope(&g, dim, nb, 0.6);
		clash_shape a, b;
		ck_assert_int_eq(clash_shape_init(&a, dim, va, na), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&b, dim, vb, nb), CLASH_OK);
		if (i % 4 == 1)
			clash_shape_set_radius(&b, 0.2);
		double ta[3] = {0}, tb[3] = {0};
		for (int k = 0; k < dim; k++) {
			ta[k] = prng_range(&g, -2, 2);
			tb[k] = prng_range(&g, -2, 2);
		}
		clash_shape_set_translation(&a, ta);
		clash_shape_set_translation(&b, tb);
		clash_motion ma = {{0}, {0}}, mb = {{0}, {0}};
		for (int k = 0; k < dim; k++) {
			ma.translation[k] = i % 3 == 0 ? 0 : prng_range(&g, -2, 2);
			mb.translation[k] = prng_range(&g, -1, 1);
		}
		if (dim == 3) {
			double q[4];
			random_quaternion(&g, q);
			clash_shape_set_quaternion(&a, q);
			prng_direction(&g, 3, ma.rotation);
			double turn = prng_range(&g, 0.5, 3.1);
			for (int k = 0; k < 3; k++)
				ma.rotation[k] *= turn;
		} else {
			clash_shape_set_angle(&a, prng_range(&g, -3, 3));
			ma.rotation[0] = prng_range(&g, -6, 6);
			mb.rotation[0] = prng_range(&g, -2, 2);
		}
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &ma, &b, &mb, 0.0, &opt, &t), CLASH_OK);
		ck_assert(t.converged);
		/* No sample sees a contact before ours, nor one we deny. */
		double first = -1;
		for (int s = 0; s <= samples && first < 0; s++) {
			double ts = (double)s / samples;
			if (distance_at(&a, &ma, &b, &mb, ts, &opt) == 0.0)
				first = ts;
		}
		if (first >= 0) {
			ck_assert_msg(t.contact, "case %d: sampled contact at %g, none found", i,
			              first);
			ck_assert_msg(t.toi <= first + 1e-12, "case %d: toi %.17g after sample %g",
			              i, t.toi, first);
		}
		if (t.contact) {
			hits++;
			/* It is a contact: within the tolerance there ... */
			ck_assert(distance_at(&a, &ma, &b, &mb, t.toi, &opt) <= 1e-9);
			/* ... and the first: apart at every sample before it. */
			for (int s = 0; s * 1.0 / samples < t.toi; s++)
				ck_assert(distance_at(&a, &ma, &b, &mb, (double)s / samples, &opt) >
				          0.0);
		} else {
			misses++;
		}
		free(va);
		free(vb);
	}
	ck_assert_int_gt(hits, 10);
	ck_assert_int_gt(misses, 5);
}
END_TEST

/* Two bars, each spinning about its own middle (and some drifting): their
 * contacts last, so the first sampled contact is at most one step after
 * ours, and never before it. */
START_TEST(spinning_bars_against_sampling)
{
	prng g = {0x5eed0007};
	const double h[3] = {1.0, 0.05, 0.05};
	double v[24];
	for (size_t i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			v[i * 3 + (size_t)k] = (i >> k) & 1 ? h[k] : -h[k];
	const int samples = 2000;
	int hits = 0, misses = 0;
	for (int i = 0; i < 60; i++) {
		clash_shape a, b;
		clash_shape_init(&a, 3, v, 8);
		clash_shape_init(&b, 3, v, 8);
		double q[4], tb[3] = {prng_range(&g, 0.6, 1.9), prng_range(&g, -0.5, 0.5),
		                      prng_range(&g, -0.3, 0.3)};
		random_quaternion(&g, q);
		clash_shape_set_quaternion(&b, q);
		clash_shape_set_translation(&b, tb);
		clash_motion ma = {{0}, {0, 0, prng_range(&g, 0.5, 3.0)}}, mb = {{0}, {0}};
		prng_direction(&g, 3, mb.rotation);
		double turn = prng_range(&g, 0.5, 3.0);
		for (int k = 0; k < 3; k++)
			mb.rotation[k] *= turn;
		if (i % 2)
			ma.translation[0] = prng_range(&g, 0, 0.5);
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &ma, &b, &mb, 0.0, NULL, &t), CLASH_OK);
		ck_assert(t.converged);
		double first = -1;
		for (int s = 0; s <= samples && first < 0; s++)
			if (distance_at(&a, &ma, &b, &mb, (double)s / samples, NULL) == 0.0)
				first = (double)s / samples;
		if (first < 0) {
			misses++;
			if (t.contact) /* then a contact too short for the samples */
				ck_assert(distance_at(&a, &ma, &b, &mb, t.toi, NULL) <= 1e-9);
			continue;
		}
		hits++;
		ck_assert_msg(t.contact, "case %d: sampled contact at %g, none found", i, first);
		ck_assert_msg(t.toi <= first, "case %d: toi %.17g after the sampled %g", i, t.toi,
		              first);
		ck_assert_msg(first - t.toi <= 1.0 / samples, "case %d: toi %.17g, sampled %g", i,
		              t.toi, first);
	}
	ck_assert_int_gt(hits, 10);
	ck_assert_int_gt(misses, 5);
}
END_TEST

START_TEST(swept_against_sampling)
{
	prng g = {0x5eed0005};
	for (int i = 0; i < 100; i++) {
		int dim = 2 + i % 2;
		size_t na = (size_t)prng_int(&g, 1, 8), nb = (size_t)prng_int(&g, 1, 8);
		double *va = random_polytope(&g, dim, na, 1.0),
		       *vb = random_polytope(&g, dim, nb, 1.0);
		clash_shape a, b;
		ck_assert_int_eq(clash_shape_init(&a, dim, va, na), CLASH_OK);
		ck_assert_int_eq(clash_shape_init(&b, dim, vb, nb), CLASH_OK);
		double tb[3] = {0};
		for (int k = 0; k < dim; k++)
			tb[k] = prng_range(&g, -4, 4);
		clash_shape_set_translation(&b, tb);
		if (dim == 3) {
			double q[4];
			random_quaternion(&g, q);
			clash_shape_set_quaternion(&b, q);
		}
		clash_motion ma = {{0}, {0}}, mb = {{0}, {0}};
		for (int k = 0; k < dim; k++) {
			ma.translation[k] = prng_range(&g, -3, 3);
			mb.translation[k] = prng_range(&g, -3, 3);
		}
		clash_result sw;
		ck_assert_int_eq(clash_swept(&a, &ma, &b, &mb, NULL, &sw), CLASH_OK);
		double least = INFINITY;
		const int samples = 2000;
		for (int s = 0; s <= samples; s++)
			least = fmin(least,
			             distance_at(&a, &ma, &b, &mb, (double)s / samples, NULL));
		/* The swept distance is the least: sampling can only be above it,
		 * by at most the relative speed times half a step. */
		double speed = 0;
		for (int k = 0; k < dim; k++)
			speed += (mb.translation[k] - ma.translation[k]) *
			         (mb.translation[k] - ma.translation[k]);
		speed = sqrt(speed);
		ck_assert_msg(sw.distance <= least + 1e-9, "case %d: swept %.17g, sampled %.17g", i,
		              sw.distance, least);
		ck_assert_msg(least <= sw.distance + speed * 0.5 / samples + 1e-9,
		              "case %d: swept %.17g, sampled %.17g", i, sw.distance, least);
		clash_toi_result t;
		ck_assert_int_eq(clash_toi(&a, &ma, &b, &mb, 0.0, NULL, &t), CLASH_OK);
		ck_assert_int_eq(t.contact, sw.intersecting);
		free(va);
		free(vb);
	}
}
END_TEST

START_TEST(compound_moving)
{
	/* An L of two boxes sliding down onto a box below its foot: the foot
	 * lands first. */
	double f[24], u[24], w[24];
	clash_shape parts[2], l, box;
	shape_box(&parts[0], f, 3, (double[]){0, 0, 0}, (double[]){4, 1, 1});
	shape_box(&parts[1], u, 3, (double[]){0, 1, 0}, (double[]){1, 4, 1});
	ck_assert_int_eq(clash_shape_init_compound(&l, 3, parts, 2), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&l, (double[]){0, 3, 0}), CLASH_OK);
	shape_box(&box, w, 3, (double[]){3, -1, 0}, (double[]){5, 0, 1});
	clash_motion m = moving(0, -6, 0);
	clash_toi_result t;
	ck_assert_int_eq(clash_toi(&l, &m, &box, NULL, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.contact && t.converged && t.has_normal);
	ck_near(t.toi, 3.0 / 6, 1e-12);
	ck_near(t.normal[1], -1, 1e-9);
	ck_near(t.approach, 6, 1e-6);
	/* Turning clockwise about z on the way (about the L's origin), so the
	 * foot swings down. */
	clash_motion turn = {{0, -6, 0}, {0, 0, -0.6}};
	ck_assert_int_eq(clash_toi(&l, &turn, &box, NULL, 0.0, NULL, &t), CLASH_OK);
	ck_assert(t.converged);
	double first = -1;
	for (int s = 0; s <= 4000 && first < 0; s++)
		if (distance_at(&l, &turn, &box, NULL, s / 4000.0, NULL) == 0.0)
			first = s / 4000.0;
	ck_assert(first >= 0 && t.contact);
	ck_assert(t.toi <= first && first - t.toi <= 1.0 / 4000);
}
END_TEST

/* ---- motions between poses ----------------------------------------------- */

/* slerp of unit quaternions (x, y, z, w), the shortest way. */
static void slerp(const double *q0, const double *q1, double t, double *q)
{
	double c = 0, s1 = 1;
	for (int k = 0; k < 4; k++)
		c += q0[k] * q1[k];
	if (c < 0) {
		c = -c;
		s1 = -1;
	}
	double th = acos(fmin(1, c)), w0, w1;
	if (th < 1e-9) {
		w0 = 1 - t;
		w1 = t;
	} else {
		w0 = sin((1 - t) * th) / sin(th);
		w1 = sin(t * th) / sin(th);
	}
	for (int k = 0; k < 4; k++)
		q[k] = w0 * q0[k] + s1 * w1 * q1[k];
}

START_TEST(motion_from_quaternions_is_slerp)
{
	prng g = {0x5eed0006};
	double v[3] = {1, 2, 3};
	for (int i = 0; i < 100; i++) {
		double q0[4], q1[4], t0[3], t1[3];
		random_quaternion(&g, q0);
		random_quaternion(&g, q1);
		for (int k = 0; k < 3; k++) {
			t0[k] = prng_range(&g, -5, 5);
			t1[k] = prng_range(&g, -5, 5);
		}
		clash_shape s, e, at, want;
		clash_shape_init(&s, 3, v, 1);
		e = s;
		clash_shape_set_quaternion(&s, q0);
		clash_shape_set_translation(&s, t0);
		clash_shape_set_quaternion(&e, q1);
		clash_shape_set_translation(&e, t1);
		clash_motion m;
		ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_OK);
		ck_assert(sqrt(m.rotation[0] * m.rotation[0] + m.rotation[1] * m.rotation[1] +
		               m.rotation[2] * m.rotation[2]) <= M_PI + 1e-12);
		for (int j = 0; j <= 4; j++) {
			double t = j / 4.0, q[4], tt[3];
			slerp(q0, q1, t, q);
			for (int k = 0; k < 3; k++)
				tt[k] = t0[k] + t * (t1[k] - t0[k]);
			want = s;
			clash_shape_set_quaternion(&want, q);
			clash_shape_set_translation(&want, tt);
			ck_assert_int_eq(clash_motion_pose(&at, &s, &m, t), CLASH_OK);
			for (int k = 0; k < 9; k++)
				ck_near(at.linear[k], want.linear[k], 1e-12);
			for (int k = 0; k < 3; k++)
				ck_near(at.translation[k], want.translation[k], 1e-12);
		}
	}
}
END_TEST

START_TEST(motion_between_limits)
{
	double v[8] = {0};
	clash_shape s, e;
	clash_motion m;
	/* 2-D angles turn the short way. */
	clash_shape_init(&s, 2, v, 1);
	e = s;
	clash_shape_set_angle(&s, 0.3);
	clash_shape_set_angle(&e, 2.0);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_OK);
	ck_near(m.rotation[0], 1.7, 1e-12);
	clash_shape_set_angle(&e, 0.3 + 4.0);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_OK);
	ck_near(m.rotation[0], 4.0 - 2 * M_PI, 1e-12);
	/* A change of scale, or a reflection, is no motion. */
	double scaled[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&e, scaled), CLASH_OK);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_ENOTSUP);
	double mirror[9] = {-1, 0, 0, 0, 1, 0, 0, 0, 1};
	clash_shape_init(&s, 2, v, 1);
	ck_assert_int_eq(clash_shape_set_matrix(&e, mirror), CLASH_OK);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_ENOTSUP);
	/* Scaled at both ends, turned between: a motion. */
	double sc0[9] = {2, 0, 0, 0, 3, 0, 5, 6, 1}, sc1[9] = {0, 2, 0, -3, 0, 0, 5, 6, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&s, sc0), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_matrix(&e, sc1), CLASH_OK);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_OK);
	ck_near(m.rotation[0], M_PI / 2, 1e-12);
	ck_near(m.translation[0], 0, 0);
	/* 4-D: translation only. */
	clash_shape_init(&s, 4, v, 1);
	e = s;
	ck_assert_int_eq(clash_shape_set_translation(&e, (double[]){1, 2, 3, 4}), CLASH_OK);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_OK);
	ck_near(m.translation[3], 4, 0);
	double rot4[25] = {0, 1, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1,
	                   0, 0, 0, 0, 0, 1,  0, 0, 0, 0, 0, 1};
	ck_assert_int_eq(clash_shape_set_matrix(&e, rot4), CLASH_OK);
	ck_assert_int_eq(clash_motion_between(&m, &s, &e), CLASH_ENOTSUP);
	/* Bad arguments. */
	clash_shape a, b;
	clash_toi_result t;
	clash_shape_init(&a, 3, v, 1);
	clash_shape_init(&b, 3, v + 1, 1);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, NULL, -1, NULL, &t), CLASH_EINVAL);
	ck_assert_int_eq(clash_toi(&a, NULL, &b, NULL, NAN, NULL, &t), CLASH_EINVAL);
	clash_motion bad = {{INFINITY, 0, 0}, {0, 0, 0}};
	ck_assert_int_eq(clash_toi(&a, &bad, &b, NULL, 0, NULL, &t), CLASH_ERANGE);
	clash_shape_init(&a, 4, v, 1);
	clash_shape_init(&b, 4, v + 1, 1);
	clash_motion turn4 = {{0}, {0, 0, 1}};
	ck_assert_int_eq(clash_toi(&a, &turn4, &b, NULL, 0, NULL, &t), CLASH_EINVAL);
	clash_result r;
	clash_motion turn3 = {{0}, {0, 0, 1}};
	clash_shape_init(&a, 3, v, 1);
	clash_shape_init(&b, 3, v + 1, 1);
	ck_assert_int_eq(clash_swept(&a, &turn3, &b, NULL, NULL, &r), CLASH_ENOTSUP);
}
END_TEST

/* ---- the Query's pose_end ------------------------------------------------ */

static json_t *reply_json(const char *body, int *status)
{
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(body, strlen(body), &r), 0);
	*status = r.status;
	json_t *j = json_loads(r.body, 0, NULL);
	ck_assert_ptr_nonnull(j);
	proto_reply_free(&r);
	return j;
}

#define CUBE "[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]"

START_TEST(query_pose_end)
{
	proto_init();
	int st;
	/* b comes from 3 to -3 along x: meets a at t = 2 / 6. */
	json_t *j = reply_json("{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE
	                       ",\"pose\":{\"translation\":[3,0,0]},"
	                       "\"pose_end\":{\"translation\":[-3,0,0]}}}",
	                       &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "intersecting"))); /* at the start */
	ck_near(json_number_value(json_object_get(j, "distance")), 2, 1e-12);
	ck_near(json_number_value(json_object_get(j, "toi")), 2.0 / 6, 1e-12);
	json_t *c = json_object_get(j, "contact");
	ck_near(json_number_value(json_array_get(json_object_get(c, "point"), 0)), 1, 1e-9);
	ck_near(json_number_value(json_array_get(json_object_get(c, "normal"), 0)), 1, 1e-12);
	json_decref(j);
	/* Missing: toi null, no contact. */
	j = reply_json("{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE
	               ",\"pose\":{\"translation\":[3,0,0]},"
	               "\"pose_end\":{\"translation\":[3,5,0]}}}",
	               &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_null(json_object_get(j, "toi")));
	ck_assert_ptr_null(json_object_get(j, "contact"));
	json_decref(j);
	/* No pose_end: no toi member at all. */
	j = reply_json("{\"a\":{\"vertices\":" CUBE "},\"b\":{\"vertices\":" CUBE "}}", &st);
	ck_assert_ptr_null(json_object_get(j, "toi"));
	json_decref(j);
	/* A turn in 2-D, given as angles: the bar meets the ball. */
	j = reply_json("{\"a\":{\"vertices\":[[-2,0],[2,0]],\"pose\":{\"angle\":0},"
	               "\"pose_end\":{\"angle\":1.5}},"
	               "\"b\":{\"vertices\":[[0,1]],\"radius\":0.5}}",
	               &st);
	ck_assert_int_eq(st, 200);
	ck_near(json_number_value(json_object_get(j, "toi")), (M_PI / 2 - asin(0.5)) / 1.5, 1e-9);
	json_decref(j);
}
END_TEST

static void expect_problem(const char *body, int status, const char *pointer)
{
	int st;
	json_t *j = reply_json(body, &st);
	ck_assert_msg(st == status, "%s: status %d, expected %d", body, st, status);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "%s: pointer %s, expected %s", body,
	              ptr ? ptr : "(none)", pointer);
	json_decref(j);
}

START_TEST(query_pose_end_errors)
{
	proto_init();
	expect_problem(
		"{\"a\":{\"vertices\":[[0,0,0]],\"pose_end\":[1]},\"b\":{\"vertices\":[[1,1,1]]}}",
		422, "/a/pose_end");
	expect_problem("{\"a\":{\"vertices\":[[0,0,0]],\"pose_end\":{\"spin\":1}},"
	               "\"b\":{\"vertices\":[[1,1,1]]}}",
	               422, "/a/pose_end/spin");
	expect_problem("{\"a\":{\"vertices\":[[0,0,0]],\"pose_end\":{\"translation\":[1,2]}},"
	               "\"b\":{\"vertices\":[[1,1,1]]}}",
	               422, "/a/pose_end/translation");
	/* A scale that changes is no motion. */
	expect_problem(
		"{\"a\":{\"vertices\":[[0,0]],\"pose_end\":{\"matrix\":[2,0,0,0,1,0,0,0,1]}},"
		"\"b\":{\"vertices\":[[1,1]]}}",
		422, "/a/pose_end");
	/* Parts move with their shape. */
	expect_problem("{\"a\":{\"parts\":[{\"vertices\":[[0,0]],\"pose_end\":{\"angle\":1}}]},"
	               "\"b\":{\"vertices\":[[1,1]]}}",
	               422, "/a/parts/0/pose_end");
	/* Turning in 4-D is not supported. */
	expect_problem("{\"a\":{\"vertices\":[[0,0,0,0]],\"pose_end\":{\"matrix\":"
	               "[0,1,0,0,0,-1,0,0,0,0,0,0,1,0,0,0,0,0,1,0,0,0,0,0,1]}},"
	               "\"b\":{\"vertices\":[[1,1,1,1]]}}",
	               422, "/a/pose_end");
}
END_TEST

static Suite *motion_suite(void)
{
	Suite *s = suite_create("motion");
	ck_case(s, "closed_forms", 0,
	        CK_TESTS(thin_box_through_wall, balls_on_lines, boxes_sliding_along_axes,
	                 clearance_time, spinning_bar_closed_form, compound_moving));
	ck_case(s, "sampling", 60,
	        CK_TESTS(turning_against_sampling, spinning_bars_against_sampling,
	                 swept_against_sampling));
	ck_case(s, "poses", 0,
	        CK_TESTS(motion_from_quaternions_is_slerp, motion_between_limits, query_pose_end,
	                 query_pose_end_errors));
	return s;
}

CHECK_SUITE(motion_suite)
