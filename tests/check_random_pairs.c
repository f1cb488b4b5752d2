/*
 * check_random_pairs.c — suite "random_pairs": the collision core
 * (clash_gjk) and the `clash query` command line tool against the qhull
 * oracle (tests/oracle.c) on thousands of random shape pairs.
 *
 * Each pair is built from its own seed (printed, with the whole pair, on any
 * failure), so a failing case is replayed alone.  Shapes: points on spheres,
 * in balls, box corners plus extra points, elongated and thin ellipsoids;
 * 4..40 vertices in 3-D, 3..40 in 2-D; scales 1e-3..1e3 with a size ratio up
 * to 25 between the two; posed by quaternion or angle + translation, by a
 * homogeneous matrix with non-uniform scale and shear, or given directly in
 * world coordinates; a fifth of the pairs sit ~1e5 away from the origin;
 * some are rounded by radii.  The placement is exact by construction: B is
 * moved along the normal ray of the nearest point of A - B, which sets the
 * hull gap to any chosen value (separated, touching within 1e-13..1e-4 of
 * the size either way, or overlapping).  The generator is shared with other
 * suites: tests/pairgen.c.
 *
 * The oracle never sees the core's view of the shapes: world points are
 * computed here, relative to the pair's origin O (so a pair at 1e5 keeps the
 * precision of its own size, as the core claims to), and the oracle's
 * answer is the exact geometry of those inputs to about 1e-16 of their size.
 *
 * What is checked, per pair:
 *   - the verdict, unless the oracle distance or depth is inside the
 *     touching band 1e-9·size;
 *   - the distance to 1e-9 relative plus 2e-12·size (the core's default
 *     tolerance is 1e-12 times its own, slightly larger, measure of size);
 *   - near points: |near_a - near_b| = distance; each within its rounded
 *     shape (the oracle's distance from the point to the hull <= radius,
 *     and = radius when separated); equal when intersecting;
 *   - the separating plane: unit normal, every vertex of a (grown by its
 *     radius) on one side, of b on the other, by brute force;
 *   - 0 <= depth_lower_bound <= oracle depth;
 *   - when intersecting, the penetration (EPA): depth >= depth_lower_bound
 *     and equal to the oracle's depth (to the distance's tolerance); a unit
 *     normal; depth_a in a's rounded hull and extreme along the normal (so
 *     on a's surface), depth_b in b's and extreme against it, depth_a -
 *     depth_b = depth * normal; and, with b moved along the normal, depth +
 *     hair parts the shapes while depth - hair does not (judged by the
 *     oracle; clash_gjk must agree whenever it claims to have converged);
 *   - warm-start indices in range, and a warm-started re-query agrees.
 * Positions are compared with an extra few ulps of the coordinates'
 * magnitude, since a near point at 1e5 cannot be finer than 1.5e-11.
 *
 * Test case "core" calls clash_gjk directly (4 x 750 pairs in 3-D, 2 x 600
 * in 2-D); test case "cli" writes 10 000 pairs as JSON Lines, runs
 * `build/clash query FILE` and judges every output line the same way.  A run
 * does not stop at the first bad pair: failures are counted by kind, the
 * first few printed (two with the whole pair), and the summary line gives
 * the counts and the worst errors.  To replay one pair with everything
 * printed: CLASH_PAIR_SEED=0x... [CLASH_PAIR_DIM=2]
 * CK_RUN_SUITE=random_pairs CK_RUN_CASE=core build/check.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clash.h"
#include "oracle.h"
#include "pairgen.h"
#include "prng.h"
#include "spawn.h"

#define PAIR_MAX_CATS 16
#define PAIR_SHOW_FAILURES 2 /* in full */
#define PAIR_SHOW_MESSAGES 12

/* ---- judging an answer --------------------------------------------------- */

typedef struct pair_stats {
	int pairs, skipped, separated, intersecting, band;
	int unconverged, backups, max_iterations, near_flat;
	long iterations;
	double worst_rel;   /* |distance error| / distance, distance > band */
	double worst_abs;   /* |distance error| / (1e-12·size) */
	double worst_plane; /* plane violation / its tolerance */
	double worst_near;  /* near-point error / its tolerance */
	double depth_ratio; /* sum of depth_lower_bound / depth */
	int depth_n;
	double worst_depth_rel; /* |depth error| / depth, depth > 1e-3·size */
	double worst_depth_abs; /* |depth error| / (1e-12·size) */
	double worst_depth_pts; /* depth point error / its tolerance */
	int moves;              /* move checks made */
	int move_gjk_unsure;    /* moved pairs clash_gjk got wrong, saying it did not converge */
	int failures, ncats;
	const char *cats[PAIR_MAX_CATS];
	int cat_count[PAIR_MAX_CATS];
	char first[512];
} pair_stats;

/* The answer as the CLI or the core gives it. */
typedef struct answer {
	int intersecting;
	double distance;
	double near_a[3], near_b[3];
	double normal[3], offset;
	double depth_lower_bound;
	int has_depth;
	double depth, depth_normal[3], depth_a[3], depth_b[3];
	int converged, iterations;
} answer;

/* Record a failed check: count it by category, show the first few in full
 * (the pair and both answers), and let the run go on so the final report
 * says how often each kind of failure happens. */
static void pair_fail(pair_stats *st, const pair *p, const char *cat, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void pair_fail(pair_stats *st, const pair *p, const char *cat, const char *fmt, ...)
{
	int i;
	for (i = 0; i < st->ncats && strcmp(st->cats[i], cat) != 0; i++)
		;
	if (i == st->ncats && st->ncats < PAIR_MAX_CATS) {
		st->cats[i] = cat;
		st->ncats++;
	}
	if (i < st->ncats)
		st->cat_count[i]++;
	st->failures++;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (st->failures == 1)
		snprintf(st->first, sizeof st->first, "%s", msg);
	if (st->failures <= PAIR_SHOW_MESSAGES)
		printf("FAILED [%s] %s (%s pair, size %.3g)\n", cat, msg, p->placement,
		       p->a.extent + p->b.extent + p->a.radius + p->b.radius);
	if (st->failures <= PAIR_SHOW_FAILURES)
		pair_dump(p);
}

#define FAIL(cat, ...)                              \
	do {                                        \
		pair_fail(st, p, cat, __VA_ARGS__); \
		return;                             \
	} while (0)

static double dist3(int dim, const double *x, const double *y)
{
	double s = 0;
	for (int k = 0; k < dim; k++)
		s += (x[k] - y[k]) * (x[k] - y[k]);
	return sqrt(s);
}

/* The core's shape for s, from its description alone (as built for the
 * pair, by the same calls). */
static int core_shape(const pshape *s, clash_shape *cs)
{
	int rc;
	const double *v = s->pose == POSE_NONE ? s->verts : s->local;
	if ((rc = clash_shape_init(cs, s->dim, v, s->count)) ||
	    (rc = clash_shape_set_radius(cs, s->radius)))
		return rc;
	if (s->pose == POSE_ROTATION) {
		rc = s->dim == 3 ? clash_shape_set_quaternion(cs, s->q)
		                 : clash_shape_set_angle(cs, s->angle);
		return rc ? rc : clash_shape_set_translation(cs, s->trans);
	}
	return s->pose == POSE_MATRIX ? clash_shape_set_matrix(cs, s->mat) : CLASH_OK;
}

/* The pair with b moved by t.  Returns whether the oracle finds the moved
 * shapes intersecting (touching counts), or -1 when it cannot judge them;
 * *gjk gets clash_gjk's verdict and *gjk_sure whether that answer claims
 * convergence (both -1 if the core failed). */
static int moved_intersecting(const pair *p, const double *t, int *gjk, int *gjk_sure)
{
	int dim = p->dim;
	clash_shape ca, cb;
	*gjk = *gjk_sure = -1;
	if (core_shape(&p->a, &ca) != CLASH_OK || core_shape(&p->b, &cb) != CLASH_OK)
		return -1;
	double tr[3];
	for (int k = 0; k < dim; k++)
		tr[k] = (cb.posed ? cb.translation[k] : 0) + t[k];
	clash_result res;
	if (clash_shape_set_translation(&cb, tr) == CLASH_OK &&
	    clash_gjk(&ca, &cb, NULL, &res) == CLASH_OK) {
		*gjk = res.intersecting;
		*gjk_sure = res.converged;
	}
	double wb[PAIR_MAXV * 3];
	for (size_t i = 0; i < p->b.count; i++)
		for (int k = 0; k < dim; k++)
			wb[i * (size_t)dim + k] = p->b.world[i * (size_t)dim + k] + t[k];
	oracle_answer o;
	if (oracle_query(dim, p->a.world, p->a.count, p->a.radius, wb, p->b.count, p->b.radius,
	                 &o) != ORACLE_OK)
		return -1;
	return o.intersecting;
}

/* Judge the penetration of an intersecting answer; see the file comment. */
static void judge_depth(const pair *p, const oracle_answer *o, const answer *r, pair_stats *st,
                        const char *who, double tol, double tol_pos)
{
	int dim = p->dim;
	unsigned long long seed = (unsigned long long)p->seed;
	double size = p->a.extent + p->b.extent + p->a.radius + p->b.radius;
	if (!r->has_depth)
		FAIL("depth", "seed %#llx %s: intersecting without a penetration depth", seed, who);
	if (!r->converged)
		FAIL("depth-unconverged",
		     "seed %#llx %s: not converged (depth %.17g, oracle %.17g)", seed, who,
		     r->depth, o->depth);
	if (!(r->depth >= r->depth_lower_bound - tol))
		FAIL("depth", "seed %#llx %s: depth %.17g below depth_lower_bound %.17g", seed, who,
		     r->depth, r->depth_lower_bound);
	double err = fabs(r->depth - o->depth);
	double tol_depth = tol + 1e-9 * o->depth;
	if (!(err <= tol_depth))
		FAIL("depth",
		     "seed %#llx %s: depth %.17g, oracle %.17g (error %.3g, tolerance %.3g)", seed,
		     who, r->depth, o->depth, err, tol_depth);
	if (o->depth > 1e-3 * size)
		st->worst_depth_rel = fmax(st->worst_depth_rel, err / o->depth);
	st->worst_depth_abs = fmax(st->worst_depth_abs, err / (1e-12 * size));
	const double *n = r->depth_normal;
	static const double zero[3] = {0, 0, 0};
	double nn = dist3(dim, n, zero);
	if (!(fabs(nn - 1) <= 1e-12))
		FAIL("depth-normal", "seed %#llx %s: depth normal of length %.17g", seed, who, nn);

	/* The points, relative to O: a's in its rounded hull and as far along n
	 * as a reaches; b's in its own and as far against n as b reaches; and
	 * a - b = depth n. */
	double da[3], db[3], gap[3];
	for (int k = 0; k < dim; k++) {
		da[k] = r->depth_a[k] - p->O[k];
		db[k] = r->depth_b[k] - p->O[k];
		gap[k] = da[k] - db[k] - r->depth * n[k];
	}
	double e = dist3(dim, gap, zero);
	if (!(e <= tol_pos + tol_depth))
		FAIL("depth-points",
		     "seed %#llx %s: |depth_a - depth_b - depth n| = %.3g (tolerance %.3g)", seed,
		     who, e, tol_pos + tol_depth);
	st->worst_depth_pts = fmax(st->worst_depth_pts, e / (tol_pos + tol_depth));
	for (int w = 0; w < 2; w++) {
		const pshape *s = w ? &p->b : &p->a;
		const double *x = w ? db : da;
		double d;
		int rc = oracle_point_distance(dim, s->world, s->count, x, &d);
		if (rc == ORACLE_OK && !(d <= s->radius + tol_pos))
			FAIL("depth-points",
			     "seed %#llx %s: depth_%c at %.17g from its hull, radius %.17g", seed,
			     who, w ? 'b' : 'a', d, s->radius);
		if (rc == ORACLE_OK)
			st->worst_depth_pts =
				fmax(st->worst_depth_pts, fmax(0, d - s->radius) / tol_pos);
		/* Extreme along +n (a) or -n (b): on the surface facing the other. */
		double ext = -INFINITY, at = 0;
		for (size_t i = 0; i < s->count; i++) {
			double h = 0;
			for (int k = 0; k < dim; k++)
				h += (w ? -n[k] : n[k]) * s->world[i * (size_t)dim + k];
			ext = fmax(ext, h);
		}
		ext += s->radius;
		for (int k = 0; k < dim; k++)
			at += (w ? -n[k] : n[k]) * x[k];
		if (!(fabs(at - ext) <= tol_pos + tol_depth))
			FAIL("depth-points",
			     "seed %#llx %s: depth_%c %.3g inside its shape's surface along the "
			     "normal (tolerance %.3g)",
			     seed, who, w ? 'b' : 'a', ext - at, tol_pos + tol_depth);
		st->worst_depth_pts =
			fmax(st->worst_depth_pts, fabs(at - ext) / (tol_pos + tol_depth));
	}

	/* Move b along n: by depth + hair the shapes part, by depth - hair not.
	 * The hair covers the depth's tolerance, the core's own touching
	 * tolerance and the rounding of a translation at these coordinates.
	 * The oracle judges; clash_gjk must agree whenever it claims to have
	 * converged (when it does not, a disagreement is only counted). */
	double coord = 0;
	for (int k = 0; k < dim; k++)
		coord = fmax(coord, fabs(p->O[k]) + size + fabs(p->a.t[k]) + fabs(p->b.t[k]));
	double hair = 1e-8 * r->depth + 1e-10 * size + 64 * DBL_EPSILON * coord;
	for (int m = 0; m < 2; m++) {
		double step = m == 0 ? r->depth + hair : r->depth - hair, t[3];
		if (m == 1 && !(step > 0))
			break; /* touching: a move against n need not keep them in contact */
		for (int k = 0; k < dim; k++)
			t[k] = step * n[k];
		int gjk, sure, in = moved_intersecting(p, t, &gjk, &sure);
		st->moves++;
		if (in < 0)
			continue; /* the oracle cannot judge the moved pair */
		if (in != m)
			FAIL("depth-move",
			     "seed %#llx %s: b moved by depth %.17g %c hair %.3g along the normal: "
			     "the oracle finds them %s",
			     seed, who, r->depth, m ? '-' : '+', hair,
			     in ? "intersecting" : "apart");
		if (gjk != m && sure == 1)
			FAIL("depth-move",
			     "seed %#llx %s: b moved by depth %.17g %c hair %.3g along the normal: "
			     "clash_gjk finds them %s and says it converged",
			     seed, who, r->depth, m ? '-' : '+', hair,
			     gjk ? "intersecting" : "apart");
		if (gjk != m)
			st->move_gjk_unsure++;
	}
}

/* Judge one answer against the oracle; see the file comment. */
static void judge(const pair *p, const oracle_answer *o, const answer *r, pair_stats *st,
                  const char *who)
{
	int dim = p->dim;
	unsigned long long seed = (unsigned long long)p->seed;
	double size = p->a.extent + p->b.extent + p->a.radius + p->b.radius;
	double unit = 1e-12 * size;
	double tol = 2 * unit + 1e-9 * o->distance;
	double coord = 0;
	for (int k = 0; k < dim; k++)
		coord = fmax(coord, fabs(p->O[k]) + size + fabs(p->a.t[k]) + fabs(p->b.t[k]));
	double tol_pos = tol + 8 * DBL_EPSILON * coord;
	double band = 1e-9 * size;

	/* Verdict outside the touching band. */
	if (o->distance > band) {
		st->separated++;
		if (r->intersecting)
			FAIL("verdict", "seed %#llx %s: intersecting, oracle distance %.17g", seed,
			     who, o->distance);
	} else if (o->depth > band) {
		st->intersecting++;
		if (!r->intersecting)
			FAIL("verdict", "seed %#llx %s: separated (%.17g), oracle depth %.17g",
			     seed, who, r->distance, o->depth);
	} else {
		st->band++;
	}

	/* Distance. */
	double err = fabs(r->distance - o->distance);
	if (!(err <= tol))
		FAIL("distance",
		     "seed %#llx %s: distance %.17g, oracle %.17g (error %.3g, tolerance %.3g)",
		     seed, who, r->distance, o->distance, err, tol);
	if (o->distance > band)
		st->worst_rel = fmax(st->worst_rel, err / o->distance);
	st->worst_abs = fmax(st->worst_abs, err / unit);
	if (r->intersecting && r->distance != 0)
		FAIL("distance", "seed %#llx %s: intersecting with distance %.17g", seed, who,
		     r->distance);

	/* Near points, relative to O. */
	double na[3], nb[3];
	for (int k = 0; k < dim; k++) {
		na[k] = r->near_a[k] - p->O[k];
		nb[k] = r->near_b[k] - p->O[k];
	}
	double gap = dist3(dim, na, nb);
	double e = fabs(gap - r->distance);
	if (!(e <= tol_pos))
		FAIL("near-gap", "seed %#llx %s: |near_a - near_b| = %.17g, distance %.17g", seed,
		     who, gap, r->distance);
	st->worst_near = fmax(st->worst_near, e / tol_pos);
	for (int w = 0; w < 2; w++) {
		const pshape *s = w ? &p->b : &p->a;
		const double *x = w ? nb : na;
		double d;
		int rc = oracle_point_distance(dim, s->world, s->count, x, &d);
		if (rc == ORACLE_EFLAT) {
			st->near_flat++;
			continue;
		}
		if (rc != ORACLE_OK)
			FAIL("oracle", "seed %#llx: oracle on near point: %s", seed,
			     oracle_strerror(rc));
		/* Separated: on the rounded surface (hull distance = radius);
		 * intersecting: anywhere in the rounded shape. */
		double lo = r->intersecting ? -INFINITY : s->radius - tol_pos;
		if (!(d <= s->radius + tol_pos && d >= lo))
			FAIL("near-in-shape",
			     "seed %#llx %s: near_%c at %.17g from its hull, radius %.17g, "
			     "tolerance %.3g; distance %.3g (oracle %.3g)",
			     seed, who, w ? 'b' : 'a', d, s->radius, tol_pos, r->distance,
			     o->distance);
		if (!r->intersecting)
			st->worst_near = fmax(st->worst_near, fabs(d - s->radius) / tol_pos);
		else
			st->worst_near = fmax(st->worst_near, fmax(0, d - s->radius) / tol_pos);
	}

	if (r->intersecting) {
		if (dist3(dim, na, nb) > tol_pos)
			FAIL("near-equal", "seed %#llx %s: intersecting but near_a != near_b", seed,
			     who);
		if (!(r->depth_lower_bound >= 0 && r->depth_lower_bound <= o->depth + tol))
			FAIL("depth-bound",
			     "seed %#llx %s: depth_lower_bound %.17g, oracle depth %.17g", seed,
			     who, r->depth_lower_bound, o->depth);
		if (o->depth > band) {
			st->depth_ratio += r->depth_lower_bound / o->depth;
			st->depth_n++;
		}
		judge_depth(p, o, r, st, who, tol, tol_pos);
		return;
	}

	/* Separating plane, by brute force over the world vertices. */
	double nn = sqrt(r->normal[0] * r->normal[0] + r->normal[1] * r->normal[1] +
	                 (dim == 3 ? r->normal[2] * r->normal[2] : 0));
	if (!(fabs(nn - 1) <= 1e-12))
		FAIL("normal", "seed %#llx %s: normal of length %.17g", seed, who, nn);
	double c = r->offset;
	for (int k = 0; k < dim; k++)
		c -= r->normal[k] * p->O[k]; /* the plane relative to O */
	double worst = 0, side[2] = {-INFINITY, -INFINITY};
	for (int w = 0; w < 2; w++) {
		const pshape *s = w ? &p->b : &p->a;
		for (size_t i = 0; i < s->count; i++) {
			double h = 0;
			for (int k = 0; k < dim; k++)
				h += r->normal[k] * s->world[i * (size_t)dim + k];
			double viol = w ? (c - (h - s->radius)) : (h + s->radius - c);
			side[w] = fmax(side[w], viol);
			worst = fmax(worst, viol);
		}
	}
	if (!(worst <= tol_pos))
		FAIL("plane",
		     "seed %#llx %s: separating plane violated by %.3g (tolerance %.3g): "
		     "a by %.3g, b by %.3g, so the slab along the normal is %.3g wide for a "
		     "distance of %.3g (oracle %.3g); converged %d after %d iterations",
		     seed, who, worst, tol_pos, side[0], side[1], -(side[0] + side[1]), r->distance,
		     o->distance, r->converged, r->iterations);
	st->worst_plane = fmax(st->worst_plane, worst / tol_pos);
}

static void answer_from_core(const clash_result *res, answer *a)
{
	memset(a, 0, sizeof *a);
	a->intersecting = res->intersecting;
	a->distance = res->distance;
	memcpy(a->near_a, res->near_a, sizeof a->near_a);
	memcpy(a->near_b, res->near_b, sizeof a->near_b);
	memcpy(a->normal, res->normal, sizeof a->normal);
	a->offset = res->offset;
	a->depth_lower_bound = res->depth_lower_bound;
	a->has_depth = (res->has & CLASH_HAS_DEPTH) != 0;
	a->depth = res->depth;
	memcpy(a->depth_normal, res->depth_normal, sizeof a->depth_normal);
	memcpy(a->depth_a, res->depth_a, sizeof a->depth_a);
	memcpy(a->depth_b, res->depth_b, sizeof a->depth_b);
	a->converged = res->converged;
	a->iterations = res->iterations;
}

static void stats_print(const char *what, const pair_stats *st)
{
	printf("%s: %d pairs (%d skipped as flat): %d separated, %d intersecting, %d in the "
	       "touching band; worst distance error %.3g relative, %.3g x 1e-12*size; "
	       "worst near point %.3g, plane %.3g x their tolerance; mean depth bound / depth %.3f; "
	       "worst depth error %.3g relative (depth > 1e-3*size), %.3g x 1e-12*size, depth points %.3g x their "
	       "tolerance (%d move checks, %d unconverged gjk verdicts wrong); "
	       "iterations mean %.2f max %d; %d unconverged, %d with backups; %d failed checks",
	       what, st->pairs, st->skipped, st->separated, st->intersecting, st->band,
	       st->worst_rel, st->worst_abs, st->worst_near, st->worst_plane,
	       st->depth_n ? st->depth_ratio / st->depth_n : 0.0, st->worst_depth_rel,
	       st->worst_depth_abs, st->worst_depth_pts, st->moves, st->move_gjk_unsure,
	       st->pairs ? (double)st->iterations / st->pairs : 0.0, st->max_iterations,
	       st->unconverged, st->backups, st->failures);
	for (int i = 0; i < st->ncats; i++)
		printf("%s %s: %d", i ? "," : " (", st->cats[i], st->cat_count[i]);
	printf("%s\n", st->ncats ? ")" : "");
	fflush(stdout);
}

/* ---- the core ------------------------------------------------------------ */

/* Query the core for one pair, cold and warm-started, and judge both. */
static void core_pair(const pair *p, const clash_shape *ca, const clash_shape *cb,
                      const oracle_answer *o, pair_stats *st)
{
	unsigned long long seed = (unsigned long long)p->seed;
	int dim = p->dim;
	clash_result res;
	int rc = clash_gjk(ca, cb, NULL, &res);
	if (rc != CLASH_OK)
		FAIL("core-error", "seed %#llx: clash_gjk: %s", seed, clash_strerror(rc));
	if (res.dim != dim)
		FAIL("core-error", "seed %#llx: result dim %d", seed, res.dim);
	st->unconverged += !res.converged;
	st->backups += res.backups > 0;
	st->iterations += res.iterations;
	if (res.iterations > st->max_iterations)
		st->max_iterations = res.iterations;
	answer a;
	answer_from_core(&res, &a);
	int before = st->failures;
	judge(p, o, &a, st, "core");
	if (st->failures != before)
		return;

	/* Warm start: indices in range; the re-query is as good. */
	if (res.warm_count < 1 || res.warm_count > (size_t)dim + 1)
		FAIL("warm", "seed %#llx: warm_count %zu", seed, res.warm_count);
	for (size_t k = 0; k < res.warm_count; k++)
		if (res.warm_a[k] >= p->a.count || res.warm_b[k] >= p->b.count)
			FAIL("warm", "seed %#llx: warm index out of range", seed);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	opt.warm_count = res.warm_count;
	opt.warm_a = res.warm_a;
	opt.warm_b = res.warm_b;
	clash_result res2;
	rc = clash_gjk(ca, cb, &opt, &res2);
	if (rc != CLASH_OK)
		FAIL("warm", "seed %#llx: warm clash_gjk: %s", seed, clash_strerror(rc));
	pair_stats st2;
	memset(&st2, 0, sizeof st2);
	answer_from_core(&res2, &a);
	judge(p, o, &a, &st2, "core (warm)");
	if (st2.failures)
		FAIL("warm", "%s", st2.first);
}

/* Replay of one pair, for a failure report: CLASH_PAIR_SEED=0x... (and
 * CLASH_PAIR_DIM=2 for a 2-D pair) makes each core test case run that
 * pair alone and print everything about it. */
static int replay_seed(uint64_t *seed, int *dim)
{
	const char *s = getenv("CLASH_PAIR_SEED");
	if (!s || !*s)
		return 0;
	*seed = strtoull(s, NULL, 0);
	const char *d = getenv("CLASH_PAIR_DIM");
	*dim = d && *d ? atoi(d) : 3;
	return 1;
}

static void replay(uint64_t seed, int dim)
{
	pair p;
	clash_shape ca, cb;
	oracle_answer o;
	pair_stats st;
	memset(&st, 0, sizeof st);
	if (pair_make(&p, seed, dim, &ca, &cb, &o) < 0) {
		printf("replay: the oracle cannot judge this pair\n");
		return;
	}
	pair_dump(&p);
	printf("oracle: intersecting %d distance %.17g depth %.17g hull distance %.17g "
	       "hull depth %.17g\n",
	       o.intersecting, o.distance, o.depth, o.hull_distance, o.hull_depth);
	clash_result r;
	int rc = clash_gjk(&ca, &cb, NULL, &r);
	printf("core: rc %d intersecting %d distance %.17g depth_lower_bound %.17g "
	       "iterations %d converged %d backups %d\n",
	       rc, r.intersecting, r.distance, r.depth_lower_bound, r.iterations, r.converged,
	       r.backups);
	printf("  near_a %.17g %.17g %.17g\n  near_b %.17g %.17g %.17g\n  normal %.17g %.17g "
	       "%.17g offset %.17g\n",
	       r.near_a[0], r.near_a[1], r.near_a[2], r.near_b[0], r.near_b[1], r.near_b[2],
	       r.normal[0], r.normal[1], r.normal[2], r.offset);
	if (r.has & CLASH_HAS_DEPTH)
		printf("  depth %.17g normal %.17g %.17g %.17g\n  depth_a %.17g %.17g %.17g\n  depth_b "
		       "%.17g %.17g %.17g\n",
		       r.depth, r.depth_normal[0], r.depth_normal[1], r.depth_normal[2],
		       r.depth_a[0], r.depth_a[1], r.depth_a[2], r.depth_b[0], r.depth_b[1],
		       r.depth_b[2]);
	if (r.has & CLASH_HAS_DEPTH) {
		/* h_K(n) by brute force in long double: an upper bound on the depth. */
		long double ha = -INFINITY, hb = -INFINITY;
		for (size_t i = 0; i < p.a.count; i++) {
			long double h = 0;
			for (int k = 0; k < dim; k++)
				h += (long double)r.depth_normal[k] *
				     p.a.world[i * (size_t)dim + k];
			ha = h > ha ? h : ha;
		}
		for (size_t i = 0; i < p.b.count; i++) {
			long double h = 0;
			for (int k = 0; k < dim; k++)
				h -= (long double)r.depth_normal[k] *
				     p.b.world[i * (size_t)dim + k];
			hb = h > hb ? h : hb;
		}
		printf("  brute force h_K(normal) + radii = %.17Lg\n",
		       ha + hb + p.a.radius + p.b.radius);
	}
	for (size_t k = 0; k < r.warm_count; k++) {
		const double *wa = p.a.world + r.warm_a[k] * (size_t)dim;
		const double *wb = p.b.world + r.warm_b[k] * (size_t)dim;
		printf("  simplex %zu: a[%zu] = %.17g %.17g %.17g  b[%zu] = %.17g %.17g %.17g "
		       "(relative to O)\n",
		       k, r.warm_a[k], wa[0], wa[1], dim == 3 ? wa[2] : 0, r.warm_b[k], wb[0],
		       wb[1], dim == 3 ? wb[2] : 0);
	}
	answer a;
	answer_from_core(&r, &a);
	judge(&p, &o, &a, &st, "core");
	printf("replay: %d failed checks\n", st.failures);
}

static void core_run(int dim, uint64_t base, int count, const char *what, int first)
{
	pair_stats st;
	memset(&st, 0, sizeof st);
	uint64_t seed;
	int rdim;
	if (replay_seed(&seed, &rdim)) {
		if (rdim == dim && first)
			replay(seed, dim);
		return;
	}
	for (int i = 0; i < count; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		if (pair_make(&p, pair_seed(base, i), dim, &ca, &cb, &o) < 0) {
			st.skipped++;
			continue;
		}
		st.pairs++;
		core_pair(&p, &ca, &cb, &o, &st);
	}
	stats_print(what, &st);
	ck_assert_msg(st.failures == 0, "%s: %d failed checks; first: %s", what, st.failures,
	              st.first);
	ck_assert_int_gt(st.pairs, count * 9 / 10);
	ck_assert_int_gt(st.separated, count / 5);
	ck_assert_int_gt(st.intersecting, count / 5);
}

/* 4 x 750 pairs in 3-D, 2 x 600 in 2-D, each run in its own process. */
START_TEST(core_3d)
{
	char what[64];
	snprintf(what, sizeof what, "pairs core 3-D base %#x", 0x3D000 + _i);
	core_run(3, UINT64_C(0x3D000000) + (uint64_t)_i * 1000000, 750, what, _i == 0);
}
END_TEST

START_TEST(core_2d)
{
	char what[64];
	snprintf(what, sizeof what, "pairs core 2-D base %#x", 0x2D000 + _i);
	core_run(2, UINT64_C(0x2D000000) + (uint64_t)_i * 1000000, 600, what, _i == 0);
}
END_TEST

/* ---- tiny shapes: subnormal coordinates ---------------------------------- */

/* The pairs scaled by 2^-TINY_EXP, which puts every coordinate and radius
 * (sizes 1e-3..1e3) below 2^-1022: subnormal, rounded to the grid of
 * 2^-1074.  The oracle judges the shapes the core was given, scaled back
 * (ldexp(ldexp(x, -TINY_EXP), TINY_EXP): exact), and the core's answers
 * are scaled back the same way.  What is guaranteed: the verdict exactly
 * as for shapes of normal size (outside the touching band); the distance
 * and, when converged, the depth to the pairs' tolerance plus TINY_QUANTA
 * steps of the subnormal grid (2^-1074, 2^-34 once scaled back): the core
 * answers the query scaled up by a power of two, exactly, and scales each
 * length back with one rounding to that grid.  The verdict-only query
 * agrees with the full one. */
#define TINY_EXP 1040
#define TINY_QUANTA 4.0

static void tiny_pair(const pair *p, pair_stats *st)
{
	const int dim = p->dim;
	const size_t na = p->a.count, nb = p->b.count;
	double ta[PAIR_MAXV * 3], tb[PAIR_MAXV * 3], ua[PAIR_MAXV * 3], ub[PAIR_MAXV * 3];
	for (size_t i = 0; i < na * (size_t)dim; i++) {
		ta[i] = ldexp(p->a.world[i], -TINY_EXP);
		ua[i] = ldexp(ta[i], TINY_EXP);
	}
	for (size_t i = 0; i < nb * (size_t)dim; i++) {
		tb[i] = ldexp(p->b.world[i], -TINY_EXP);
		ub[i] = ldexp(tb[i], TINY_EXP);
	}
	const double tra = ldexp(p->a.radius, -TINY_EXP), trb = ldexp(p->b.radius, -TINY_EXP);
	const double ura = ldexp(tra, TINY_EXP), urb = ldexp(trb, TINY_EXP);
	oracle_answer o;
	if (oracle_query(dim, ua, na, ura, ub, nb, urb, &o) != ORACLE_OK) {
		st->skipped++; /* rounding made the difference flat */
		return;
	}
	st->pairs++;
	clash_shape sa, sb;
	ck_assert_int_eq(clash_shape_init(&sa, dim, ta, na), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(&sb, dim, tb, nb), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&sa, tra), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&sb, trb), CLASH_OK);
	clash_result r, v;
	int rc = clash_gjk(&sa, &sb, NULL, &r);
	if (rc != CLASH_OK) {
		pair_fail(st, p, "tiny error", "seed %#llx: clash_gjk: %s",
		          (unsigned long long)p->seed, clash_strerror(rc));
		return;
	}
	clash_options vo = {0};
	vo.want = CLASH_WANT_VERDICT;
	rc = clash_gjk(&sa, &sb, &vo, &v);
	if (rc != CLASH_OK || v.intersecting != r.intersecting)
		pair_fail(st, p, "tiny verdict-only", "seed %#llx: verdict-only %s, full %d",
		          (unsigned long long)p->seed,
		          rc               ? clash_strerror(rc)
		          : v.intersecting ? "1"
		                           : "0",
		          r.intersecting);
	const double size = p->a.extent + p->b.extent + p->a.radius + p->b.radius;
	const double band = 1e-9 * size, quantum = ldexp(1.0, -1074 + TINY_EXP);
	if (r.intersecting)
		st->intersecting++;
	else
		st->separated++;
	int in_band = o.intersecting ? o.depth <= band : o.distance <= band;
	if (in_band)
		st->band++;
	else if (r.intersecting != o.intersecting)
		pair_fail(st, p, "tiny verdict",
		          "seed %#llx: intersecting %d, oracle %d (distance %.3g, depth %.3g)",
		          (unsigned long long)p->seed, r.intersecting, o.intersecting, o.distance,
		          o.depth);
	double d = ldexp(r.distance, TINY_EXP);
	double tol = 1e-9 * o.distance + 2e-12 * size + TINY_QUANTA * quantum;
	double err = fabs(d - o.distance);
	if (!(err <= tol))
		pair_fail(st, p, "tiny distance",
		          "seed %#llx: distance %.17g, oracle %.17g (error %.3g, tolerance %.3g)",
		          (unsigned long long)p->seed, d, o.distance, err, tol);
	else if (o.distance > band && err / o.distance > st->worst_rel)
		st->worst_rel = err / o.distance;
	if (err / quantum > st->worst_abs)
		st->worst_abs = err / quantum;
	if (r.intersecting && o.intersecting && (r.has & CLASH_HAS_DEPTH) && r.converged &&
	    !in_band) {
		double dp = ldexp(r.depth, TINY_EXP);
		double dtol = 1e-9 * o.depth + 2e-12 * size + TINY_QUANTA * quantum;
		double derr = fabs(dp - o.depth);
		if (!(derr <= dtol))
			pair_fail(
				st, p, "tiny depth",
				"seed %#llx: depth %.17g, oracle %.17g (error %.3g, tolerance %.3g)",
				(unsigned long long)p->seed, dp, o.depth, derr, dtol);
		if (derr / quantum > st->worst_depth_abs)
			st->worst_depth_abs = derr / quantum;
		st->depth_n++;
	}
}

START_TEST(tiny)
{
	const int dim = _i == 0 ? 3 : 2;
	const int count = dim == 3 ? 300 : 200;
	pair_stats st;
	memset(&st, 0, sizeof st);
	for (int i = 0; i < count; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		if (pair_make(&p, pair_seed(UINT64_C(0x71A7000) + (uint64_t)dim * 1000000, i), dim,
		              &ca, &cb, &o) < 0)
			continue;
		tiny_pair(&p, &st);
	}
	printf("pairs tiny %d-D (x 2^-%d): %d pairs (%d skipped), %d separated, %d intersecting, "
	       "%d in the touching band; worst distance error %.3g relative, %.3g subnormal "
	       "steps; worst depth error %.3g steps over %d depths\n",
	       dim, TINY_EXP, st.pairs, st.skipped, st.separated, st.intersecting, st.band,
	       st.worst_rel, st.worst_abs, st.worst_depth_abs, st.depth_n);
	ck_assert_msg(st.failures == 0, "tiny %d-D: %d failed checks; first: %s", dim, st.failures,
	              st.first);
	ck_assert_int_gt(st.pairs, count * 9 / 10);
	ck_assert_int_gt(st.separated, count / 5);
	ck_assert_int_gt(st.intersecting, count / 5);
}
END_TEST

/* ---- the command line tool ------------------------------------------------ */

/* Temp files of the cli test, made and removed by an unchecked fixture (in
 * the runner's own process), so a failed test leaves nothing behind. */
static char cli_in[64], cli_out[64];

static void cli_setup(void)
{
	const char *dir = getenv("TMPDIR");
	dir = dir && *dir && strlen(dir) < 32 ? dir : "/tmp";
	snprintf(cli_in, sizeof cli_in, "%s/clash-pairs-in-XXXXXX", dir);
	snprintf(cli_out, sizeof cli_out, "%s/clash-pairs-out-XXXXXX", dir);
	int fi = mkstemp(cli_in), fo = mkstemp(cli_out);
	if (fi >= 0)
		close(fi);
	else
		cli_in[0] = 0;
	if (fo >= 0)
		close(fo);
	else
		cli_out[0] = 0;
}

static void cli_teardown(void)
{
	if (cli_in[0])
		unlink(cli_in);
	if (cli_out[0])
		unlink(cli_out);
}

static void json_shape(FILE *f, const pshape *s)
{
	int dim = s->dim;
	const double *v = s->pose == POSE_NONE ? s->verts : s->local;
	fputs("{\"vertices\":[", f);
	for (size_t i = 0; i < s->count; i++) {
		fputs(i ? ",[" : "[", f);
		for (int k = 0; k < dim; k++)
			fprintf(f, "%s%.17g", k ? "," : "", v[i * (size_t)dim + k]);
		fputc(']', f);
	}
	fprintf(f, "],\"radius\":%.17g", s->radius);
	if (s->pose == POSE_ROTATION) {
		if (dim == 3)
			fprintf(f, ",\"pose\":{\"rotation\":[%.17g,%.17g,%.17g,%.17g]", s->q[0],
			        s->q[1], s->q[2], s->q[3]);
		else
			fprintf(f, ",\"pose\":{\"angle\":%.17g", s->angle);
		fputs(",\"translation\":[", f);
		for (int k = 0; k < dim; k++)
			fprintf(f, "%s%.17g", k ? "," : "", s->trans[k]);
		fputs("]}", f);
	} else if (s->pose == POSE_MATRIX) {
		fputs(",\"pose\":{\"matrix\":[", f);
		for (int i = 0; i < (dim + 1) * (dim + 1); i++)
			fprintf(f, "%s%.17g", i ? "," : "", s->mat[i]);
		fputs("]}", f);
	}
	fputc('}', f);
}

/* Read n numbers from a JSON array; 0 on success. */
static int json_reals(const json_t *a, int n, double *x)
{
	if (!json_is_array(a) || (int)json_array_size(a) != n)
		return -1;
	for (int i = 0; i < n; i++) {
		const json_t *v = json_array_get(a, (size_t)i);
		if (!json_is_number(v))
			return -1;
		x[i] = json_number_value(v);
	}
	return 0;
}

/* Check one Result line against its pair; the shape of the object first. */
static void cli_judge(const pair *p, const oracle_answer *o, const char *line, pair_stats *st)
{
	unsigned long long seed = (unsigned long long)p->seed;
	int dim = p->dim;
	json_error_t err;
	json_t *root = json_loads(line, 0, &err);
	answer a;
	memset(&a, 0, sizeof a);
	const char *bad = NULL;
	const json_t *status = root ? json_object_get(root, "status") : NULL;
	const json_t *np = root ? json_object_get(root, "near_points") : NULL;
	const json_t *it = root ? json_object_get(root, "iterations") : NULL;
	const json_t *warm = root ? json_object_get(root, "warm") : NULL;
	const json_t *method = root ? json_object_get(root, "method") : NULL;
	if (!root)
		bad = "not JSON";
	else if (status)
		bad = "a problem";
	else if (!json_is_boolean(json_object_get(root, "intersecting")) ||
	         !json_is_number(json_object_get(root, "distance")) ||
	         !json_is_boolean(json_object_get(root, "converged")) || !json_is_integer(it) ||
	         json_integer_value(it) < 1 || !json_is_string(method) ||
	         strcmp(json_string_value(method), "gjk") != 0 || !json_is_object(np) ||
	         json_reals(json_object_get(np, "a"), dim, a.near_a) ||
	         json_reals(json_object_get(np, "b"), dim, a.near_b))
		bad = "not a Result";
	if (!bad) {
		a.intersecting = json_is_true(json_object_get(root, "intersecting"));
		a.distance = json_number_value(json_object_get(root, "distance"));
		a.converged = json_is_true(json_object_get(root, "converged"));
		a.iterations = (int)json_integer_value(it);
		const json_t *plane = json_object_get(root, "separating_plane");
		const json_t *pen = json_object_get(root, "penetration");
		if (a.intersecting) {
			const json_t *d = json_is_object(pen)
			                          ? json_object_get(pen, "depth_lower_bound")
			                          : NULL;
			const json_t *dd =
				json_is_object(pen) ? json_object_get(pen, "depth") : NULL;
			const json_t *pts =
				json_is_object(pen) ? json_object_get(pen, "points") : NULL;
			if (!json_is_number(d) || plane)
				bad = "an intersecting Result without penetration.depth_lower_bound";
			else
				a.depth_lower_bound = json_number_value(d);
			/* depth, normal and points come together or not at all. */
			if (!bad && dd) {
				if (!json_is_number(dd) || !json_is_object(pts) ||
				    json_reals(json_object_get(pen, "normal"), dim,
				               a.depth_normal) ||
				    json_reals(json_object_get(pts, "a"), dim, a.depth_a) ||
				    json_reals(json_object_get(pts, "b"), dim, a.depth_b))
					bad = "a Result with a malformed penetration";
				a.has_depth = 1;
				a.depth = json_number_value(dd);
			} else if (!bad && json_is_object(pen) &&
			           (json_object_get(pen, "normal") || pts)) {
				bad = "a Result with penetration normal or points but no depth";
			}
		} else {
			const json_t *c =
				json_is_object(plane) ? json_object_get(plane, "offset") : NULL;
			if (!json_is_number(c) || pen ||
			    json_reals(json_object_get(plane, "normal"), dim, a.normal))
				bad = "a separated Result without separating_plane";
			else
				a.offset = json_number_value(c);
		}
	}
	if (!bad) {
		/* warm: two index arrays of equal length 1..dim+1, in range. */
		const json_t *wa = json_is_object(warm) ? json_object_get(warm, "a") : NULL;
		const json_t *wb = json_is_object(warm) ? json_object_get(warm, "b") : NULL;
		size_t n = json_is_array(wa) ? json_array_size(wa) : 0;
		if (!json_is_array(wb) || n < 1 || n > (size_t)dim + 1 || json_array_size(wb) != n)
			bad = "a Result with a bad warm member";
		for (size_t i = 0; !bad && i < n; i++) {
			const json_t *x = json_array_get(wa, i), *y = json_array_get(wb, i);
			if (!json_is_integer(x) || !json_is_integer(y) ||
			    json_integer_value(x) < 0 || json_integer_value(y) < 0 ||
			    (size_t)json_integer_value(x) >= p->a.count ||
			    (size_t)json_integer_value(y) >= p->b.count)
				bad = "a Result with a warm index out of range";
		}
	}
	json_decref(root);
	if (bad) {
		pair_fail(st, p, "cli-result", "seed %#llx: answer is %s: %.300s", seed, bad, line);
		return;
	}
	st->unconverged += !a.converged;
	st->iterations += a.iterations;
	if (a.iterations > st->max_iterations)
		st->max_iterations = a.iterations;
	judge(p, o, &a, st, "clash query");
}

/* Run build/clash query IN > OUT; returns its exit status or -1. */
static int cli_run(const char *in, const char *out)
{
	char prog[512];
	snprintf(prog, sizeof prog, "%s/clash", check_build_dir());
	ck_assert_msg(access(prog, X_OK) == 0, "%s is missing: build the CLI first (make)", prog);
	int fd = open(out, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	spawn_opts o = {.file = prog,
	                .argv = (const char *const[]){"clash", "query", in, NULL},
	                .out = fd};
	spawned c;
	ck_assert_int_eq(spawn(&o, &c), 0);
	close(fd);
	return spawn_exit_code(spawn_wait(c.pid, -1));
}

#define CLI_PAIRS 10000
#define CLI_PAIRS_2D 2500

static uint64_t cli_seed(int i)
{
	return pair_seed(UINT64_C(0xC11000000), i);
}

START_TEST(cli_query)
{
	ck_assert_msg(cli_in[0] && cli_out[0], "cannot make temporary files");
	FILE *f = fopen(cli_in, "w");
	ck_assert_ptr_nonnull(f);
	int written = 0, skipped = 0;
	for (int i = 0; i < CLI_PAIRS; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		if (pair_make(&p, cli_seed(i), i < CLI_PAIRS_2D ? 2 : 3, &ca, &cb, &o) < 0) {
			skipped++;
			continue;
		}
		fputs("{\"a\":", f);
		json_shape(f, &p.a);
		fputs(",\"b\":", f);
		json_shape(f, &p.b);
		fputs("}\n", f);
		written++;
	}
	ck_assert_int_eq(fclose(f), 0);

	int rc = cli_run(cli_in, cli_out);
	ck_assert_msg(rc == 0, "clash query exited with %d", rc);

	/* One answer per query, in order: regenerate each pair from its seed. */
	f = fopen(cli_out, "r");
	ck_assert_ptr_nonnull(f);
	pair_stats st;
	memset(&st, 0, sizeof st);
	st.skipped = skipped;
	char *line = NULL;
	size_t cap = 0;
	int answered = 0;
	for (int i = 0; i < CLI_PAIRS; i++) {
		pair p;
		clash_shape ca, cb;
		oracle_answer o;
		if (pair_make(&p, cli_seed(i), i < CLI_PAIRS_2D ? 2 : 3, &ca, &cb, &o) < 0)
			continue;
		ssize_t got = getline(&line, &cap, f);
		if (got < 0)
			break;
		answered++;
		st.pairs++;
		cli_judge(&p, &o, line, &st);
	}
	int extra = getline(&line, &cap, f) >= 0;
	free(line);
	fclose(f);
	stats_print("pairs clash query", &st);
	ck_assert_msg(answered == written && !extra, "%d queries, %d answers%s", written, answered,
	              extra ? " and more" : "");
	ck_assert_msg(st.failures == 0, "clash query: %d failed checks; first: %s", st.failures,
	              st.first);
	ck_assert_int_gt(st.separated, CLI_PAIRS / 5);
	ck_assert_int_gt(st.intersecting, CLI_PAIRS / 5);
}
END_TEST

static Suite *random_pairs_suite(void)
{
	Suite *s = suite_create("random_pairs");
	TCase *tc = ck_case(s, "core", 120, NULL);
	ck_loops(tc, 4, CK_TESTS(core_3d));
	ck_loops(tc, 2, CK_TESTS(core_2d));
	tc = ck_case(s, "tiny", 120, NULL);
	ck_loops(tc, 2, CK_TESTS(tiny));
	tc = ck_case(s, "cli", 300, CK_TESTS(cli_query));
	tcase_add_unchecked_fixture(tc, cli_setup, cli_teardown);
	return s;
}

CHECK_SUITE(random_pairs_suite)
