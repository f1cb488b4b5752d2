/*
 * check_scene.c — suite "scene": which pairs of many objects clash, touch
 * or come closer than a clearance: the core's broad and narrow
 * phases, the Scene contract (proto_scene_reply), `clash scene`, and POST
 * /v1/scene on a real clashd.
 *
 * The broad phase is checked against brute force: every pair of random
 * scenes (hundreds of objects: turned boxes, random hulls, spheres,
 * capsules, compounds; 2-D and 3-D; several clearances; at rest and in
 * motion) through clash_gjk, classed by the rule of clash.h written out
 * again here, must give exactly the pairs the scene reports.  Its cost is
 * checked without timing, by counting: on a sparse scene of 10 000 objects
 * the pairs of boxes compared and the candidates must be a small multiple
 * of n, not n^2.  Closed forms (boxes stacked, overlapping, at known gaps)
 * pin the classes and the JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <jansson.h>

#include "check.h"
#include "contract_doc.h"
#include "clash.h"
#include "http_harness.h"
#include "prng.h"
#include "proto.h"
#include "spawn.h"

/* ---- random scenes ------------------------------------------------------- */

/* A scene whose shapes and vertex arrays are owned here. */
typedef struct world {
	int dim;
	size_t n;
	clash_shape *shapes;
	clash_motion *motions;
	double **verts; /* one per object, plus parts' arrays after them */
	clash_shape **parts;
	size_t nverts;
} world;

static double *take(world *w, size_t count)
{
	double *v = malloc(count * sizeof *v);
	ck_assert_ptr_nonnull(v);
	w->verts[w->nverts++] = v;
	return v;
}

static void box_into(double *v, int dim, const double *h)
{
	size_t m = (size_t)1 << dim;
	for (size_t i = 0; i < m; i++)
		for (int k = 0; k < dim; k++)
			v[i * (size_t)dim + (size_t)k] = (i >> k) & 1 ? h[k] : -h[k];
}

/* One random object centred near c, of size about `size`. */
static void random_object(world *w, prng *g, size_t i, const double *c, double size)
{
	const int dim = w->dim;
	clash_shape *s = &w->shapes[i];
	int kind = prng_int(g, 0, 4);
	double h[3];
	for (int k = 0; k < dim; k++)
		h[k] = prng_range(g, 0.2, 1.0) * size;
	if (kind == 0) { /* a box */
		double *v = take(w, (size_t)dim << dim);
		box_into(v, dim, h);
		ck_assert_int_eq(clash_shape_init(s, dim, v, (size_t)1 << dim), CLASH_OK);
	} else if (kind == 1) { /* a random hull */
		size_t m = (size_t)prng_int(g, 3, 10);
		double *v = take(w, m * (size_t)dim);
		for (size_t j = 0; j < m * (size_t)dim; j++)
			v[j] = prng_range(g, -size, size);
		ck_assert_int_eq(clash_shape_init(s, dim, v, m), CLASH_OK);
	} else if (kind == 2) { /* a sphere */
		double *v = take(w, (size_t)dim);
		memset(v, 0, (size_t)dim * sizeof *v);
		ck_assert_int_eq(clash_shape_init(s, dim, v, 1), CLASH_OK);
		clash_shape_set_radius(s, h[0]);
	} else if (kind == 3) { /* a capsule */
		double *v = take(w, 2 * (size_t)dim);
		for (int k = 0; k < dim; k++) {
			v[k] = -h[k];
			v[dim + k] = h[k];
		}
		ck_assert_int_eq(clash_shape_init(s, dim, v, 2), CLASH_OK);
		clash_shape_set_radius(s, 0.2 * size);
	} else { /* a compound: an L of two boxes */
		clash_shape *p = calloc(2, sizeof *p);
		w->parts[i] = p;
		for (int j = 0; j < 2; j++) {
			double *v = take(w, (size_t)dim << dim), hh[3], t[3] = {0};
			for (int k = 0; k < dim; k++)
				hh[k] = j == k ? h[k] : 0.25 * size;
			box_into(v, dim, hh);
			t[j] = h[j];
			ck_assert_int_eq(clash_shape_init(&p[j], dim, v, (size_t)1 << dim),
			                 CLASH_OK);
			clash_shape_set_translation(&p[j], t);
		}
		ck_assert_int_eq(clash_shape_init_compound(s, dim, p, 2), CLASH_OK);
	}
	if (dim == 3) {
		double q[4];
		prng_direction(g, 4, q);
		clash_shape_set_quaternion(s, q);
	} else {
		clash_shape_set_angle(s, prng_range(g, -3.2, 3.2));
	}
	clash_shape_set_translation(s, c);
}

/* n objects in a cube of side `side`; when motion is set, some move. */
static void world_random(world *w, prng *g, int dim, size_t n, double side, int motion)
{
	memset(w, 0, sizeof *w);
	w->dim = dim;
	w->n = n;
	w->shapes = calloc(n, sizeof *w->shapes);
	w->motions = calloc(n, sizeof *w->motions);
	w->verts = calloc(4 * n, sizeof *w->verts);
	w->parts = calloc(n, sizeof *w->parts);
	for (size_t i = 0; i < n; i++) {
		double c[3];
		for (int k = 0; k < dim; k++)
			c[k] = prng_range(g, 0, side);
		random_object(w, g, i, c, 0.5);
		if (motion && prng_int(g, 0, 3) == 0) {
			for (int k = 0; k < dim; k++)
				w->motions[i].translation[k] = prng_range(g, -2, 2);
			if (prng_int(g, 0, 1)) {
				if (dim == 3)
					for (int k = 0; k < 3; k++)
						w->motions[i].rotation[k] =
							prng_range(g, -1.5, 1.5);
				else
					w->motions[i].rotation[0] = prng_range(g, -3, 3);
			}
		}
	}
}

static void world_free(world *w)
{
	for (size_t i = 0; i < w->nverts; i++)
		free(w->verts[i]);
	for (size_t i = 0; i < w->n; i++)
		free(w->parts[i]);
	free(w->verts);
	free(w->parts);
	free(w->shapes);
	free(w->motions);
}

/* A point of a convex shape, posed by hand. */
static void posed_point(const clash_shape *s, size_t i, double *w)
{
	for (int r = 0; r < s->dim; r++) {
		w[r] = s->posed ? s->translation[r] : 0.0;
		for (int c = 0; c < s->dim; c++) {
			double m = s->posed ? s->linear[c * s->dim + r] : (double)(r == c);
			w[r] += m * s->vertices[i * (size_t)s->dim + (size_t)c];
		}
	}
}

/* Whether every posed vertex of a is within tol of some posed vertex of b
 * (every pair looked at). */
static int brute_covered(const clash_shape *a, const clash_shape *b, double tol)
{
	for (size_t i = 0; i < a->count; i++) {
		int found = 0;
		for (size_t j = 0; j < b->count && !found; j++) {
			double pa[3], pb[3], d2 = 0;
			posed_point(a, i, pa);
			posed_point(b, j, pb);
			for (int k = 0; k < a->dim; k++)
				d2 += (pa[k] - pb[k]) * (pa[k] - pb[k]);
			found = sqrt(d2) <= tol;
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* Whether a and b are copies of one shape within tol: convex ones as
 * point sets, in any order; compound ones (only ever copied whole here)
 * by their parts' array and pose. */
static int brute_duplicate(const clash_shape *a, const clash_shape *b, double tol)
{
	if (a->nparts || b->nparts)
		return a->parts == b->parts && a->nparts == b->nparts && a->radius == b->radius &&
		       memcmp(a->linear, b->linear, sizeof a->linear) == 0 &&
		       memcmp(a->translation, b->translation, sizeof a->translation) == 0;
	if (fabs(a->radius - b->radius) > tol)
		return 0;
	return brute_covered(a, b, tol) && brute_covered(b, a, tol);
}

/* Into a fresh array of w: shape s's vertices shuffled, one of them
 * repeated when `repeat`, and vertex 0 of the shuffle moved by `nudge`
 * along x; the copy is posed like s. */
static clash_shape shuffled_copy(world *w, prng *g, const clash_shape *s, int repeat, double nudge)
{
	const int dim = s->dim;
	size_t m = s->count + (repeat ? 1 : 0);
	double *v = take(w, m * (size_t)dim);
	memcpy(v, s->vertices, s->count * (size_t)dim * sizeof *v);
	if (repeat)
		memcpy(v + s->count * (size_t)dim, s->vertices, (size_t)dim * sizeof *v);
	for (size_t i = m - 1; i > 0; i--) {
		size_t j = (size_t)prng_int(g, 0, (int)i);
		for (int k = 0; k < dim; k++) {
			double t = v[i * (size_t)dim + (size_t)k];
			v[i * (size_t)dim + (size_t)k] = v[j * (size_t)dim + (size_t)k];
			v[j * (size_t)dim + (size_t)k] = t;
		}
	}
	v[0] += nudge;
	clash_shape c = *s;
	c.vertices = v;
	c.count = m;
	return c;
}

/* The class of a pair at rest with an explicit tolerance (one the cap of
 * CLASH_SCENE_MAX_RELATIVE_TOLERANCE leaves alone: the closed forms check
 * the cap) and touch depth, by clash.h's rule, from clash_gjk alone:
 * duplicates by comparison, then the depth when GJK gives one, else its
 * lower bound, else whether b moved 2 sqrt(dim) d along every axis either
 * way still meets a, d = max(tol, touch). */
static enum clash_class brute_class(const clash_shape *a, const clash_shape *b, double clearance,
                                    double tol, double touch, clash_result *r)
{
	clash_options opt = {.tolerance = tol};
	ck_assert_int_eq(clash_gjk(a, b, &opt, r), CLASH_OK);
	if (brute_duplicate(a, b, tol))
		return CLASH_CLASS_DUPLICATE;
	if (!r->intersecting)
		return r->distance < clearance ? CLASH_CLASS_CLEARANCE : CLASH_CLASS_NONE;
	tol = fmax(tol, touch);
	if (r->has & CLASH_HAS_DEPTH)
		return r->depth > tol ? CLASH_CLASS_CLASH : CLASH_CLASS_TOUCH;
	if (r->depth_lower_bound > tol)
		return CLASH_CLASS_CLASH;
	clash_options probe = {.tolerance = tol / 4};
	for (int k = 0; k < a->dim; k++)
		for (int sign = -1; sign <= 1; sign += 2) {
			clash_shape moved = *b;
			double t[3] = {0, 0, 0};
			if (b->posed)
				memcpy(t, b->translation, (size_t)b->dim * sizeof *t);
			t[k] += sign * 2 * sqrt(b->dim) * tol;
			if (!b->posed) {
				ck_assert_int_eq(clash_shape_init(&moved, b->dim, b->vertices,
				                                  b->count),
				                 0);
				moved.radius = b->radius;
			}
			ck_assert_int_eq(clash_shape_set_translation(&moved, t), CLASH_OK);
			clash_result q;
			ck_assert_int_eq(clash_gjk(a, &moved, &probe, &q), CLASH_OK);
			if (!q.intersecting)
				return CLASH_CLASS_TOUCH;
		}
	return CLASH_CLASS_CLASH;
}

/* A depth as reported: exact, or a lower bound. */
static void check_depth(const clash_scene_hit *h, double want)
{
	if (h->depth_exact)
		ck_near(h->depth, want, 1e-12);
	else
		ck_assert(h->depth >= 0 && h->depth <= want + 1e-12);
}

/* ---- closed forms -------------------------------------------------------- */

static const double CUBE[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0,
                                0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};

static void cube_at(clash_shape *s, double x, double y, double z)
{
	ck_assert_int_eq(clash_shape_init(s, 3, CUBE, 8), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(s, (double[]){x, y, z}), CLASH_OK);
}

START_TEST(classes_closed_form)
{
	/* 0 and 1 stacked (touch), 2 sunk 0.5 into 0 (clash), 3 at 0.3 from 1
	 * (clearance with c = 0.5), 4 far. */
	clash_shape s[5];
	cube_at(&s[0], 0, 0, 0);
	cube_at(&s[1], 0, 0, 1);
	cube_at(&s[2], 0.5, 0, 0);
	cube_at(&s[3], 0, 0, 2.3);
	cube_at(&s[4], 10, 10, 10);
	clash_scene sc = {.count = 5, .shapes = s, .clearance = 0.5};
	clash_scene_hit *hits;
	size_t n;
	clash_scene_stats st;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, &st), CLASH_OK);
	/* (0,1) touch, (0,2) clash, (1,2) touch (2 is flush under 1's
	 * bottom), (1,3) clearance 0.3; in (a, b) order. */
	ck_assert_uint_eq(n, 4);
	size_t want[4][2] = {{0, 1}, {0, 2}, {1, 2}, {1, 3}};
	enum clash_class cls[4] = {CLASH_CLASS_TOUCH, CLASH_CLASS_CLASH, CLASH_CLASS_TOUCH,
	                           CLASH_CLASS_CLEARANCE};
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(hits[i].a, want[i][0]);
		ck_assert_uint_eq(hits[i].b, want[i][1]);
		ck_assert_int_eq(hits[i].cls, cls[i]);
		ck_assert(!hits[i].moving);
	}
	check_depth(&hits[1], 0.5);
	ck_near(hits[3].distance, 0.3, 1e-12);
	ck_assert_uint_eq(st.reported, 4);
	ck_assert_uint_eq(st.candidates, 4); /* 4 is nowhere near */
	free(hits);
	/* Clearance 0: only the intersecting pairs. */
	sc.clearance = 0;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 3);
	free(hits);
	/* A tolerance of 0.6 is capped (1e-6 of the pairs' size): the 0.5
	 * overlap stays a clash and the 0.3 gap a gap, absent without a
	 * clearance.  A touch depth of 0.6 makes the overlap a touch, and
	 * leaves the gap alone. */
	sc.opt.tolerance = 0.6;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(hits[1].cls, CLASH_CLASS_CLASH);
	free(hits);
	sc.touch_depth = 0.6;
	sc.clearance = 0.5;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(hits[i].cls, CLASH_CLASS_TOUCH);
	ck_assert_int_eq(hits[3].cls, CLASH_CLASS_CLEARANCE);
	ck_near(hits[3].distance, 0.3, 1e-6);
	free(hits);
	/* 0.4 < 0.5 < 0.6: deeper than it, the overlap is a clash again. */
	sc.touch_depth = 0.4;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_int_eq(hits[1].cls, CLASH_CLASS_CLASH);
	ck_assert(hits[1].depth_exact);
	ck_near(hits[1].normal[0], 1, 1e-12); /* b moves +x by 0.5 to part */
	ck_near(hits[0].normal[2], 1, 1e-12); /* b (stacked on a) moves up */
	free(hits);
	sc.touch_depth = -1;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	sc.touch_depth = INFINITY;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	sc.touch_depth = 0;
	sc.clearance = 0;
	/* Only some pairs; ignore some. */
	sc.opt.tolerance = 0;
	sc.clearance = 0.5;
	clash_pair only[] = {{3, 1}, {0, 2}, {2, 0}, {0, 4}};
	clash_pair ignore[] = {{2, 0}};
	sc.only = only;
	sc.nonly = 4;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, &st), CLASH_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert(hits[0].a == 0 && hits[0].b == 2 && hits[1].a == 1 && hits[1].b == 3);
	ck_assert_uint_eq(st.tested, 3); /* deduplicated */
	free(hits);
	sc.ignore = ignore;
	sc.nignore = 1;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert(hits[0].a == 1 && hits[0].b == 3);
	free(hits);
	/* Bad scenes. */
	clash_pair bad[] = {{1, 1}};
	sc.only = bad;
	sc.nonly = 1;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	bad[0].b = 5;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	sc.nonly = 0;
	sc.clearance = -1;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	sc.clearance = 0;
	clash_shape flat;
	ck_assert_int_eq(clash_shape_init(&flat, 2, CUBE, 4), CLASH_OK);
	clash_shape mixed[2] = {s[0], flat};
	clash_scene sm = {.count = 2, .shapes = mixed};
	ck_assert_int_eq(clash_scene_run(&sm, &hits, &n, NULL), CLASH_EDIM);
	/* Empty and single scenes answer nothing. */
	clash_scene empty = {0};
	ck_assert_int_eq(clash_scene_run(&empty, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 0);
	free(hits);
	clash_scene one = {.count = 1, .shapes = s};
	ck_assert_int_eq(clash_scene_run(&one, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 0);
	free(hits);
	/* The candidate cap. */
	clash_shape same[30];
	for (int i = 0; i < 30; i++)
		cube_at(&same[i], 0, 0, 0);
	clash_scene crowd = {.count = 30, .shapes = same, .max_candidates = 100};
	ck_assert_int_eq(clash_scene_run(&crowd, &hits, &n, NULL), CLASH_ELIMIT);
	crowd.max_candidates = 435;
	ck_assert_int_eq(clash_scene_run(&crowd, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 435);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(hits[i].cls, CLASH_CLASS_DUPLICATE);
	free(hits);
}
END_TEST

START_TEST(moving_closed_form)
{
	/* A cube runs along x through a row of cubes, one of which sits a
	 * little off to the side (a graze: touch), another 0.2 off (clearance
	 * 0.3), a third it runs into flush at the end (touch). */
	clash_shape s[5];
	cube_at(&s[0], 0, 0, 0);   /* the runner, moving 10 along x */
	cube_at(&s[1], 4, 0, 0);   /* hit at t = 3 / 10 */
	cube_at(&s[2], 6, 1, 0);   /* grazed: flush along y = 1 from t = 0.5 */
	cube_at(&s[3], 8, 0, 1.2); /* passes 0.2 above */
	cube_at(&s[4], 11, 0, 0);  /* reached flush at t = 1 */
	clash_motion m[5] = {{{10, 0, 0}, {0}}};
	clash_scene sc = {.count = 5, .shapes = s, .motions = m, .clearance = 0.3};
	clash_scene_hit *hits;
	size_t n;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert(hits[i].a == 0 && hits[i].b == i + 1 && hits[i].moving);
		ck_assert(hits[i].toi.converged);
	}
	ck_assert_int_eq(hits[0].cls, CLASH_CLASS_CLASH);
	ck_near(hits[0].toi.toi, 0.3, 1e-12);
	ck_near(hits[0].toi.approach, 10, 1e-9);
	ck_assert_int_eq(hits[1].cls, CLASH_CLASS_TOUCH);
	ck_near(hits[1].toi.toi, 0.5, 1e-12);
	ck_assert_int_eq(hits[2].cls, CLASH_CLASS_CLEARANCE);
	ck_assert(!hits[2].toi.contact);
	ck_near(hits[2].toi.near_time, (7 - sqrt(0.05)) / 10,
	        1e-12); /* hypot(7 - 10 t, 0.2) = 0.3 */
	ck_assert_int_eq(hits[3].cls, CLASH_CLASS_TOUCH);
	ck_near(hits[3].toi.toi, 1.0, 1e-9);
	free(hits);
}
END_TEST

/* ---- against brute force ------------------------------------------------- */

/* Returns how many duplicates there were. */
static size_t check_against_brute(const world *w, double clearance, double tol, double touch,
                                  const char *what)
{
	size_t duplicates = 0;
	clash_scene sc = {.count = w->n,
	                  .shapes = w->shapes,
	                  .clearance = clearance,
	                  .touch_depth = touch};
	sc.opt.tolerance = tol;
	clash_scene_hit *hits;
	size_t n;
	clash_scene_stats st;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, &st), CLASH_OK);
	size_t k = 0, want = 0;
	for (size_t i = 0; i < w->n; i++)
		for (size_t j = i + 1; j < w->n; j++) {
			clash_result r;
			enum clash_class c = brute_class(&w->shapes[i], &w->shapes[j], clearance,
			                                 tol, touch, &r);
			if (c == CLASH_CLASS_NONE)
				continue;
			want++;
			ck_assert_msg(k < n && hits[k].a == i && hits[k].b == j,
			              "%s c=%g: pair (%zu, %zu) (class %d) missing", what,
			              clearance, i, j, c);
			ck_assert_msg(hits[k].cls == c,
			              "%s c=%g touch=%g: pair (%zu, %zu) class %d, "
			              "brute force %d",
			              what, clearance, touch, i, j, hits[k].cls, c);
			if (c != CLASH_CLASS_DUPLICATE)
				ck_assert(hits[k].distance == r.distance);
			if (c == CLASH_CLASS_DUPLICATE) {
				ck_assert(hits[k].intersecting && hits[k].distance == 0);
				duplicates++;
			}
			/* A compound's deepest pair: GJK's depth of it. */
			ck_assert_int_eq(hits[k].pair_depth_exact,
			                 c != CLASH_CLASS_DUPLICATE &&
			                         (r.has & CLASH_HAS_PAIR_DEPTH));
			if (hits[k].pair_depth_exact)
				ck_assert(hits[k].pair_depth == r.depth);
			if (hits[k].depth_exact ||
			    hits[k].pair_depth_exact) /* GJK's, a unit vector */
				for (int q = 0; q < w->dim; q++)
					ck_assert(hits[k].normal[q] == r.depth_normal[q]);
			k++;
		}
	ck_assert_msg(n == want, "%s c=%g: %zu reported, brute force %zu", what, clearance, n,
	              want);
	ck_assert_uint_le(st.candidates, w->n * (w->n - 1) / 2);
	free(hits);
	return duplicates;
}

START_TEST(brute_force_at_rest)
{
	prng g = {0x5ce0e001};
	for (int round = 0; round < 4; round++) {
		int dim = round % 2 ? 2 : 3;
		world w;
		world_random(&w, &g, dim, 300, dim == 3 ? 14 : 40, 0);
		/* Some objects copied onto others: duplicates, their vertices
		 * listed alike, shuffled, with one repeated, or one moved by
		 * 1e-10 (a duplicate within the tolerance) or 1e-8 (none). */
		for (size_t i = 10; i < w.n; i += 37) {
			const clash_shape *o = &w.shapes[i - 10];
			int how = (int)(i / 37) % 5;
			if (how == 0 || o->nparts)
				w.shapes[i] = *o;
			else
				w.shapes[i] = shuffled_copy(&w, &g, o, how == 2,
				                            how == 3   ? 1e-10
				                            : how == 4 ? 1e-8
				                                       : 0);
		}
		const double clearances[] = {0, 0.05, 0.3}, touches[] = {0, 0.05, 0.4};
		for (size_t c = 0; c < 3; c++) {
			size_t d = check_against_brute(&w, clearances[c], 1e-9, touches[c],
			                               dim == 3 ? "3-D" : "2-D");
			ck_assert_uint_ge(d, 6); /* 8 copies; the one moved 1e-8 is none */
		}
		world_free(&w);
	}
}
END_TEST

/* The class of the pair of a and b alone (tolerance tol), and its time. */
static enum clash_class pair_class(const clash_shape *a, const clash_shape *b, double tol,
                                   double *ms)
{
	clash_shape two[2] = {*a, *b};
	clash_scene sc = {.count = 2, .shapes = two};
	sc.opt.tolerance = tol;
	clash_scene_hit h;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(clash_scene_pair(&sc, 0, 1, &h), CLASH_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
	if (h.cls == CLASH_CLASS_DUPLICATE)
		ck_assert(!h.depth_exact && h.depth == 0 && h.intersecting);
	return h.cls;
}

/* Duplicates whatever the order of the vertices: a hull of
 * 2000 points on a sphere against copies of it, shuffled, posed by hand
 * into world coordinates, with a point repeated, with one point moved
 * past the tolerance or dropped; each against brute force over every
 * pair of points, and none by a depth search (identical hulls of 2000
 * points would take EPA thousands of expansions: the comparison takes a
 * fraction of that). */
START_TEST(duplicates_in_any_order)
{
	enum {
		N = 2000
	};
	prng g = {0xd0b1e};
	world w = {.dim = 3};
	w.verts = calloc(8, sizeof *w.verts);
	double *v = take(&w, 3 * N);
	for (int i = 0; i < N; i++)
		prng_direction(&g, 3, v + 3 * i);
	clash_shape a;
	ck_assert_int_eq(clash_shape_init(&a, 3, v, N), CLASH_OK);
	const double q[4] = {0.1, 0.7, 0.1, 0.7}, t[3] = {5, -3, 2}, tol = 1e-9;
	ck_assert_int_eq(clash_shape_set_quaternion(&a, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&a, t), CLASH_OK);
	/* a's points in world coordinates, unposed, shuffled. */
	clash_shape flat = shuffled_copy(&w, &g, &a, 0, 0);
	double *fv = (double *)flat.vertices;
	for (size_t i = 0; i < flat.count; i++) {
		double p[3];
		posed_point(&flat, i, p);
		memcpy(fv + 3 * i, p, sizeof p);
	}
	ck_assert_int_eq(clash_shape_init(&flat, 3, fv, flat.count), CLASH_OK);
	clash_shape dropped = shuffled_copy(&w, &g, &a, 0, 0);
	dropped.count--;
	/* clang-format off */
	const struct {
		const char *what;
		clash_shape b;
		int dup;
	} cases[] = {
	    {"listed alike", a, 1},
	    {"shuffled", shuffled_copy(&w, &g, &a, 0, 0), 1},
	    {"world coordinates", flat, 1},
	    {"a point repeated", shuffled_copy(&w, &g, &a, 1, 0), 1},
	    {"a point moved by tol / 2", shuffled_copy(&w, &g, &a, 0, 0.5 * tol), 1},
	    {"a point moved by 3 tol", shuffled_copy(&w, &g, &a, 0, 3 * tol), 0},
	    {"a point dropped", dropped, 0},
	};
	/* clang-format on */
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double ms;
		enum clash_class c = pair_class(&a, &cases[k].b, tol, &ms);
		ck_assert_msg(brute_duplicate(&a, &cases[k].b, tol) == cases[k].dup,
		              "%s: brute force", cases[k].what);
		ck_assert_msg((c == CLASH_CLASS_DUPLICATE) == cases[k].dup, "%s: class %d",
		              cases[k].what, c);
		if (!cases[k].dup)
			ck_assert_int_eq(c, CLASH_CLASS_CLASH);
		if (getenv("CLASH_SCENE_VERBOSE"))
			fprintf(stderr, "%-26s class %d  %.2f ms\n", cases[k].what, c, ms);
	}
	world_free(&w);
}
END_TEST

/* Brute force for compounds in any order: every part of a coincides with
 * a part of b not taken yet (the parts here are far apart, so a first
 * match is the only one), convex parts by brute_duplicate, compound parts
 * the same way one level down. */
static int brute_matched(const clash_shape *a, const clash_shape *b, double tol)
{
	if (!a->nparts || !b->nparts)
		return !a->nparts && !b->nparts && !a->kind && !b->kind &&
		       brute_duplicate(a, b, tol);
	if (a->nparts != b->nparts)
		return 0;
	int taken[64] = {0};
	ck_assert_uint_le(b->nparts, 64);
	for (size_t i = 0; i < a->nparts; i++) {
		size_t j = 0;
		while (j < b->nparts &&
		       (taken[j] || !brute_matched(&a->parts[i], &b->parts[j], tol)))
			j++;
		if (j == b->nparts)
			return 0;
		taken[j] = 1;
	}
	return 1;
}

/* Duplicates of compounds whose parts are listed in another order
 * 40 convex parts and a compound part of two, against the
 * same parts shuffled (the vertices of each shuffled too), with one part
 * moved by tol / 2 or 3 tol, or one part replaced by a copy of another;
 * each against brute force and the class the scene gives. */
START_TEST(compound_duplicates_in_any_order)
{
	enum {
		P = 41
	};
	prng g = {0xc0b1e};
	world w = {.dim = 3};
	w.verts = calloc(4 * P + 8, sizeof *w.verts);
	const double tol = 1e-9;
	clash_shape parts[P], inner[2], inner2[2], shuffled[P], moved[P], far[P], copied[P];
	for (int i = 0; i < P + 1; i++) {
		/* A hull of 8 to 20 points of radius 0.4 at a point of a
		 * 6 x 6 x 6 grid of pitch 1 (no two parts meet). */
		int m = prng_int(&g, 8, 20);
		double *v = take(&w, 3 * (size_t)m);
		double c[3] = {(double)(i % 6), (double)(i / 6 % 6), (double)(i / 36)};
		for (int k = 0; k < m; k++) {
			prng_direction(&g, 3, v + 3 * k);
			for (int d = 0; d < 3; d++)
				v[3 * k + d] = c[d] + 0.4 * v[3 * k + d];
		}
		clash_shape *s = i < P - 1 ? &parts[i] : &inner[i - (P - 1)];
		ck_assert_int_eq(clash_shape_init(s, 3, v, (size_t)m), CLASH_OK);
	}
	ck_assert_int_eq(clash_shape_init_compound(&parts[P - 1], 3, inner, 2), CLASH_OK);
	/* A shuffle of the parts, each convex one's vertices shuffled too, the
	 * inner compound's two parts swapped. */
	int perm[P];
	for (int i = 0; i < P; i++)
		perm[i] = i;
	for (int i = P - 1; i > 0; i--) {
		int j = prng_int(&g, 0, i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	inner2[0] = shuffled_copy(&w, &g, &inner[1], 0, 0);
	inner2[1] = shuffled_copy(&w, &g, &inner[0], 0, 0);
	for (int i = 0; i < P; i++) {
		const clash_shape *src = &parts[perm[i]];
		if (src->nparts)
			ck_assert_int_eq(clash_shape_init_compound(&shuffled[i], 3, inner2, 2),
			                 CLASH_OK);
		else
			shuffled[i] = shuffled_copy(&w, &g, src, 0, 0);
	}
	/* The shuffled parts with one convex part's first vertex moved by
	 * tol / 2 (still a duplicate) or 3 tol (not), or replaced by a copy of
	 * another part (not). */
	int one = perm[0] == P - 1 ? 1 : 0;
	memcpy(moved, shuffled, sizeof moved);
	memcpy(far, shuffled, sizeof far);
	memcpy(copied, shuffled, sizeof copied);
	moved[one] = shuffled_copy(&w, &g, &shuffled[one], 0, 0.5 * tol);
	far[one] = shuffled_copy(&w, &g, &shuffled[one], 0, 3 * tol);
	copied[one] = shuffled[one + 1].nparts ? shuffled[one + 2] : shuffled[one + 1];
	clash_shape a, b[5];
	ck_assert_int_eq(clash_shape_init_compound(&a, 3, parts, P), CLASH_OK);
	const clash_shape *lists[5] = {parts, shuffled, moved, far, copied};
	for (int k = 0; k < 5; k++)
		ck_assert_int_eq(clash_shape_init_compound(&b[k], 3, lists[k], P), CLASH_OK);
	const struct {
		const char *what;
		int dup;
	} cases[5] = {{"listed alike", 1},
	              {"parts shuffled", 1},
	              {"a part moved by tol / 2", 1},
	              {"a part moved by 3 tol", 0},
	              {"a part replaced by another", 0}};
	for (int k = 0; k < 5; k++) {
		double ms;
		enum clash_class c = pair_class(&a, &b[k], tol, &ms);
		ck_assert_msg(brute_matched(&a, &b[k], tol) == cases[k].dup, "%s: brute force",
		              cases[k].what);
		ck_assert_msg((c == CLASH_CLASS_DUPLICATE) == cases[k].dup, "%s: class %d",
		              cases[k].what, c);
		if (!cases[k].dup)
			ck_assert_int_eq(c, CLASH_CLASS_CLASH);
	}
	world_free(&w);
}
END_TEST

/* The broad phase loses nothing: every pair through clash_scene_pair. */
static void check_broad_phase(const world *w, const clash_motion *motions, double clearance,
                              const clash_pair *ignore, size_t nignore)
{
	clash_scene sc = {.count = w->n,
	                  .shapes = w->shapes,
	                  .motions = motions,
	                  .clearance = clearance,
	                  .ignore = ignore,
	                  .nignore = nignore};
	clash_scene_hit *hits;
	size_t n, k = 0;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	for (size_t i = 0; i < w->n; i++)
		for (size_t j = i + 1; j < w->n; j++) {
			int ignored = 0;
			for (size_t q = 0; q < nignore; q++)
				ignored |= (ignore[q].a == i && ignore[q].b == j) ||
				           (ignore[q].a == j && ignore[q].b == i);
			clash_scene_hit h;
			ck_assert_int_eq(clash_scene_pair(&sc, j, i, &h), CLASH_OK);
			ck_assert(h.a == i && h.b == j);
			if (h.cls == CLASH_CLASS_NONE || ignored)
				continue;
			ck_assert_msg(k < n && hits[k].a == i && hits[k].b == j,
			              "c=%g: pair (%zu, %zu) missing (class %d, toi %g)", clearance,
			              i, j, h.cls, h.toi.toi);
			ck_assert_int_eq(hits[k].cls, h.cls);
			k++;
		}
	ck_assert_uint_eq(k, n);
	free(hits);
}

START_TEST(brute_force_in_motion)
{
	prng g = {0x5ce0e002};
	for (int round = 0; round < 2; round++) {
		int dim = round % 2 ? 2 : 3;
		world w;
		world_random(&w, &g, dim, 150, dim == 3 ? 12 : 30, 1);
		check_broad_phase(&w, w.motions, 0, NULL, 0);
		check_broad_phase(&w, w.motions, 0.2, NULL, 0);
		/* Moving pairs through clash_toi itself. */
		clash_scene sc = {.count = w.n, .shapes = w.shapes, .motions = w.motions};
		clash_scene_hit *hits;
		size_t n;
		ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
		size_t moving = 0;
		for (size_t i = 0; i < n; i++) {
			if (!hits[i].moving)
				continue;
			moving++;
			clash_toi_result t;
			ck_assert_int_eq(clash_toi(&w.shapes[hits[i].a], &w.motions[hits[i].a],
			                           &w.shapes[hits[i].b], &w.motions[hits[i].b], 0,
			                           NULL, &t),
			                 CLASH_OK);
			ck_assert(t.contact && t.toi == hits[i].toi.toi);
		}
		ck_assert_uint_gt(moving, 5);
		free(hits);
		world_free(&w);
	}
}
END_TEST

START_TEST(brute_force_ignore)
{
	prng g = {0x5ce0e003};
	world w;
	world_random(&w, &g, 3, 120, 8, 0);
	/* Ignore every third reported pair, given in either order. */
	clash_scene sc = {.count = w.n, .shapes = w.shapes};
	clash_scene_hit *hits;
	size_t n;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
	ck_assert_uint_gt(n, 10);
	clash_pair *ign = calloc(n, sizeof *ign);
	size_t ni = 0;
	for (size_t i = 0; i < n; i += 3)
		ign[ni++] = i % 2 ? (clash_pair){hits[i].b, hits[i].a}
		                  : (clash_pair){hits[i].a, hits[i].b};
	check_broad_phase(&w, NULL, 0, ign, ni);
	/* Only the pairs of the first object and of the last. */
	clash_pair *only = calloc(2 * w.n, sizeof *only);
	size_t no = 0;
	for (size_t j = 1; j < w.n; j++) {
		only[no++] = (clash_pair){0, j};
		only[no++] = (clash_pair){w.n - 1, j - 1};
	}
	sc.only = only;
	sc.nonly = no;
	clash_scene_hit *some;
	size_t ns;
	ck_assert_int_eq(clash_scene_run(&sc, &some, &ns, NULL), CLASH_OK);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (hits[i].a == 0 || hits[i].b == w.n - 1) {
			ck_assert(k < ns && some[k].a == hits[i].a && some[k].b == hits[i].b);
			k++;
		}
	ck_assert_uint_eq(k, ns);
	free(some);
	free(only);
	free(ign);
	free(hits);
	world_free(&w);
}
END_TEST

/* ---- scale, by counting -------------------------------------------------- */

START_TEST(sparse_scene_scales)
{
	/* 10 000 unit cubes on a grid of pitch 3, ten of them pushed 2.5
	 * along x into their neighbour. */
	const size_t n = 10000, side = 22;
	clash_shape *s = calloc(n, sizeof *s);
	for (size_t i = 0; i < n; i++) {
		double x = 3.0 * (double)(i % side), y = 3.0 * (double)(i / side % side),
		       z = 3.0 * (double)(i / side / side);
		if (i % 1000 == 500)
			x += 2.5;
		cube_at(&s[i], x, y, z);
	}
	clash_scene sc = {.count = n, .shapes = s};
	clash_scene_hit *hits;
	size_t nh;
	clash_scene_stats st;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &nh, &st), CLASH_OK);
	ck_assert_uint_eq(nh, 10);
	for (size_t i = 0; i < nh; i++) {
		ck_assert_uint_eq(hits[i].a, 500 + 1000 * i);
		ck_assert_uint_eq(hits[i].b, 501 + 1000 * i);
		ck_assert_int_eq(hits[i].cls, CLASH_CLASS_CLASH);
		check_depth(&hits[i], 0.5);
	}
	ck_assert_uint_eq(st.candidates, 10);
	/* The broad phase compared a few pairs per object, not n^2 / 2 = 5e7. */
	ck_assert_msg(st.tested <= 8 * n, "compared %zu pairs", st.tested);
	free(hits);
	/* With a clearance of 2.5 the grown boxes of all 26 grid neighbours
	 * overlap (13 candidates per object), and the 6 face neighbours, 2
	 * apart, are reported (3 per object): all still linear.  (A lattice
	 * is where sweep and prune fails: along any axis it projects whole
	 * slabs of n^(2/3) boxes onto one interval.) */
	sc.clearance = 2.5;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &nh, &st), CLASH_OK);
	ck_assert_uint_le(st.candidates, 13 * n);
	ck_assert_uint_ge(nh, 2 * n);
	ck_assert_uint_le(nh, 3 * n);
	ck_assert_msg(st.tested <= 40 * n, "compared %zu pairs", st.tested);
	free(hits);
	free(s);
}
END_TEST

/* ---- the contract ---------------------------------------------------------- */

/* The context the contract tests answer in (each test is its own
 * process): limits set by a test apply to its later calls. */
static proto_context test_ctx;

static json_t *scene_json(const char *body, int *status)
{
	proto_reply r;
	proto_call call = {.ctx = &test_ctx};
	ck_assert_int_eq(proto_scene_reply_ex(body, strlen(body), &call, &r), 0);
	*status = r.status;
	json_t *j = json_loads(r.body, 0, NULL);
	ck_assert_msg(j != NULL, "not JSON: %s", r.body);
	proto_reply_free(&r);
	return j;
}

#define JCUBE "[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]"
#define OBJ(id, x, y, z)                                                                      \
	"{\"id\":\"" id "\",\"shape\":{\"vertices\":" JCUBE ",\"pose\":{\"translation\":[" #x \
	"," #y "," #z "]}}}"

START_TEST(reply_closed_form)
{
	proto_init();
	int st;
	/* clang-format off */
	json_t *j = scene_json("{\"objects\":[" OBJ("floor", 0, 0, 0) "," OBJ("crate", 0, 0, 1) ","
	                       OBJ("post", 0.5, 0, 0) "," OBJ("lamp", 0, 0, 2.3) "],"
	                       "\"clearance\":0.5}",
	                       &st);
	/* clang-format on */
	ck_assert_int_eq(st, 200);
	json_t *c = json_object_get(j, "clashes");
	ck_assert_uint_eq(json_array_size(c), 4);
	const char *want[4][3] = {{"floor", "crate", "touch"},
	                          {"floor", "post", "clash"},
	                          {"crate", "post", "touch"},
	                          {"crate", "lamp", "clearance"}};
	for (size_t i = 0; i < 4; i++) {
		json_t *e = json_array_get(c, i);
		ck_assert_str_eq(json_string_value(json_object_get(e, "a")), want[i][0]);
		ck_assert_str_eq(json_string_value(json_object_get(e, "b")), want[i][1]);
		ck_assert_str_eq(json_string_value(json_object_get(e, "class")), want[i][2]);
		ck_assert_ptr_null(json_object_get(e, "toi"));
	}
	json_t *clear = json_array_get(c, 3);
	ck_near(json_number_value(json_object_get(clear, "distance")), 0.3, 1e-12);
	ck_assert(json_is_false(json_object_get(clear, "intersecting")));
	ck_assert_ptr_null(json_object_get(clear, "penetration"));
	json_t *pen = json_object_get(json_array_get(c, 1), "penetration");
	if (json_object_get(pen, "depth"))
		ck_near(json_number_value(json_object_get(pen, "depth")), 0.5, 1e-12);
	else
		ck_assert(json_number_value(json_object_get(pen, "depth_lower_bound")) <= 0.5);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "candidates")), 4);
	json_decref(j);

	/* pairs and ignore, by id. */
	/* clang-format off */
	j = scene_json("{\"objects\":[" OBJ("floor", 0, 0, 0) "," OBJ("crate", 0, 0, 1) ","
	               OBJ("post", 0.5, 0, 0) "],\"pairs\":[[\"post\",\"crate\"],[\"floor\",\"post\"]],"
	               "\"ignore\":[[\"post\",\"floor\"]]}",
	               &st);
	/* clang-format on */
	ck_assert_int_eq(st, 200);
	c = json_object_get(j, "clashes");
	ck_assert_uint_eq(json_array_size(c), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "a")), "crate");
	json_decref(j);

	/* Motion: toi, contact and clearance_time. */
	/* clang-format off */
	j = scene_json("{\"objects\":[{\"id\":\"runner\",\"shape\":{\"vertices\":" JCUBE ","
	               "\"pose_end\":{\"translation\":[10,0,0]}}}," OBJ("wall", 4, 0, 0) ","
	               OBJ("far", 4, 9, 0) "],\"clearance\":0.5}",
	               &st);
	/* clang-format on */
	ck_assert_int_eq(st, 200);
	c = json_object_get(j, "clashes");
	ck_assert_uint_eq(json_array_size(c), 1);
	json_t *e = json_array_get(c, 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "class")), "clash");
	ck_near(json_number_value(json_object_get(e, "toi")), 0.3, 1e-12);
	ck_near(json_number_value(json_object_get(e, "clearance_time")), 0.25, 1e-12);
	ck_near(json_number_value(
			json_array_get(json_object_get(json_object_get(e, "contact"), "normal"),
	                               0)),
	        1, 1e-12);
	ck_assert(json_is_false(json_object_get(e, "intersecting"))); /* at the start */
	json_decref(j);

	/* 2-D, with a compound: an L and a disc in its corner, a bar across
	 * the L's foot. */
	j = scene_json(
		"{\"objects\":[{\"id\":\"L\",\"shape\":{\"parts\":["
		"{\"vertices\":[[0,0],[4,0],[4,1],[0,1]]},{\"vertices\":[[0,1],[1,1],[1,4],[0,4]]}]}},"
		"{\"id\":\"disc\",\"shape\":{\"vertices\":[[2,2]],\"radius\":0.9}},"
		"{\"id\":\"bar\",\"shape\":{\"vertices\":[[3,-1],[3,3]]}}],\"clearance\":0.2}",
		&st);
	ck_assert_int_eq(st, 200);
	c = json_object_get(j, "clashes");
	ck_assert_uint_eq(json_array_size(c), 3);
	const char *want2[3][3] = {{"L", "disc", "clearance"},
	                           {"L", "bar", "clash"},
	                           {"disc", "bar", "clearance"}};
	for (size_t i = 0; i < 3; i++) {
		e = json_array_get(c, i);
		ck_assert_str_eq(json_string_value(json_object_get(e, "a")), want2[i][0]);
		ck_assert_str_eq(json_string_value(json_object_get(e, "b")), want2[i][1]);
		ck_assert_str_eq(json_string_value(json_object_get(e, "class")), want2[i][2]);
	}
	ck_near(json_number_value(json_object_get(json_array_get(c, 0), "distance")), 0.1, 1e-12);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(json_array_get(c, 1),
	                                                                    "near_parts"),
	                                                    "a")),
	                 0);
	ck_near(json_number_value(json_object_get(json_array_get(c, 2), "distance")), 0.1, 1e-12);
	json_decref(j);

	/* An empty scene. */
	j = scene_json("{\"objects\":[]}", &st);
	ck_assert_int_eq(st, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "clashes")), 0);
	json_decref(j);
}
END_TEST

static void expect_problem(const char *body, int status, const char *pointer)
{
	int st;
	json_t *j = scene_json(body, &st);
	ck_assert_msg(st == status, "%s: status %d, expected %d", body, st, status);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	if (pointer)
		ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "%s: pointer %s, expected %s", body,
		              ptr ? ptr : "(none)", pointer);
	json_decref(j);
}

static size_t count_of(json_t *j, const char *cls)
{
	return (size_t)json_integer_value(json_object_get(json_object_get(j, "counts"), cls));
}

/* A clearance case from plant design: a beam 6 x 0.3 x 0.4 and a pipe of radius 0.05 whose
 * surface is 30 mm above it, in metres. */
#define BEAM                                                                             \
	"{\"id\":\"beam\",\"shape\":{\"vertices\":[[0,0,0],[6,0,0],[0,0.3,0],[6,0.3,0]," \
	"[0,0,0.4],[6,0,0.4],[0,0.3,0.4],[6,0.3,0.4]]}}"

/* The class of the pipe to the beam at axis height z under `extra`
 * members, or NULL when the pair is absent. */
static const char *pipe_class(const char *z, const char *extra, double *distance)
{
	char body[1024];
	snprintf(body, sizeof body,
	         "{\"objects\":[" BEAM
	         ",{\"id\":\"pipe\",\"shape\":{\"vertices\":[[3,-1,%s],[3,2,%s]],"
	         "\"radius\":0.05}}]%s}",
	         z, z, extra);
	int st;
	json_t *j = scene_json(body, &st);
	ck_assert_msg(st == 200, "%s: %d", body, st);
	json_t *c = json_array_get(json_object_get(j, "clashes"), 0);
	static char cls[32];
	const char *out = NULL;
	if (c) {
		snprintf(cls, sizeof cls, "%s", json_string_value(json_object_get(c, "class")));
		*distance = json_number_value(json_object_get(c, "distance"));
		out = cls;
	}
	json_decref(j);
	return out;
}

START_TEST(cad_semantics)
{
	proto_init();
	/* The pipe 30 mm off: clearance (with one of 50 mm) or absent, under
	 * any tolerance and any touch_depth. */
	const char *tols[] = {"", ",\"tolerance\":1e-9", ",\"tolerance\":0.05",
	                      ",\"tolerance\":1e300"};
	const char *touches[] = {"", ",\"touch_depth\":0.05", ",\"touch_depth\":1e6"};
	for (size_t t = 0; t < 4; t++)
		for (size_t d = 0; d < 3; d++) {
			char extra[128];
			double dist = -1;
			snprintf(extra, sizeof extra, "%s%s", tols[t], touches[d]);
			ck_assert_msg(pipe_class("0.48", extra, &dist) == NULL, "%s", extra);
			snprintf(extra, sizeof extra, "%s%s,\"clearance\":0.05", tols[t],
			         touches[d]);
			const char *cls = pipe_class("0.48", extra, &dist);
			ck_assert_msg(cls && strcmp(cls, "clearance") == 0, "%s: %s", extra,
			              cls ? cls : "absent");
			ck_near(dist, 0.03, 1e-6);
		}
	/* Sunk 20 mm into the beam: a touch under a touch_depth of 50 mm, a
	 * clash under one of 10 mm or none. */
	double dist;
	ck_assert_str_eq(pipe_class("0.43", ",\"touch_depth\":0.05", &dist), "touch");
	ck_assert_str_eq(pipe_class("0.43", ",\"touch_depth\":0.01", &dist), "clash");
	ck_assert_str_eq(pipe_class("0.43", ",\"tolerance\":0.05", &dist), "clash");

	/* Two copies of a part: duplicate, counted, with no penetration; the
	 * clash carries its direction. */
	int st;
	/* clang-format off */
	json_t *j = scene_json("{\"objects\":[" OBJ("a", 0, 0, 0) "," OBJ("b", 0, 0, 0) ","
	                       OBJ("c", 0.5, 0, 0) "]}", &st);
	/* clang-format on */
	ck_assert_int_eq(st, 200);
	json_t *c = json_object_get(j, "clashes");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "class")),
	                 "duplicate");
	ck_assert_ptr_null(json_object_get(json_array_get(c, 0), "penetration"));
	json_t *pen = json_object_get(json_array_get(c, 1), "penetration");
	ck_near(json_number_value(json_object_get(pen, "depth")), 0.5, 1e-12);
	json_t *normal = json_object_get(pen, "normal");
	ck_assert_uint_eq(json_array_size(normal), 3);
	ck_near(json_number_value(json_array_get(normal, 0)), 1, 1e-12);
	ck_assert_int_eq(count_of(j, "duplicate"), 1);
	ck_assert_int_eq(count_of(j, "clash"), 2);
	json_decref(j);
	/* The same part given in world coordinates (no pose): still a copy. */
	/* clang-format off */
	j = scene_json("{\"objects\":[" OBJ("a", 2, 0, 0) ",{\"id\":\"b\",\"shape\":{\"vertices\":"
	               "[[2,0,0],[3,0,0],[2,1,0],[2,0,1],[3,1,0],[3,0,1],[2,1,1],[3,1,1]]}}]}", &st);
	/* clang-format on */
	ck_assert_int_eq(count_of(j, "duplicate"), 1);
	json_decref(j);
	/* ... and its vertices listed in another order. */
	/* clang-format off */
	j = scene_json("{\"objects\":[" OBJ("a", 2, 0, 0) ",{\"id\":\"b\",\"shape\":{\"vertices\":"
	               "[[3,1,1],[2,1,1],[3,0,1],[2,0,1],[3,1,0],[2,1,0],[3,0,0],[2,0,0]]}}]}", &st);
	/* clang-format on */
	ck_assert_int_eq(count_of(j, "duplicate"), 1);
	json_decref(j);
	/* The two tetrahedra of a cube's corners: the same box, other points. */
	j = scene_json("{\"objects\":[{\"id\":\"a\",\"shape\":{\"vertices\":"
	               "[[0,0,0],[1,1,0],[1,0,1],[0,1,1]]}},{\"id\":\"b\",\"shape\":{\"vertices\":"
	               "[[1,0,0],[0,1,0],[0,0,1],[1,1,1]]}}]}",
	               &st);
	ck_assert_int_eq(count_of(j, "duplicate"), 0);
	ck_assert_int_eq(count_of(j, "clash"), 1);
	json_decref(j);

	/* Groups: parts of one assembly are not tested against each other. */
	const char *objs = "{\"objects\":["
			   "{\"id\":\"a\",\"group\":\"g1\",\"shape\":{\"vertices\":" JCUBE "}},"
			   "{\"id\":\"b\",\"group\":\"g1\",\"shape\":{\"vertices\":" JCUBE
			   ",\"pose\":{\"translation\":[0.5,0,0]}}},"
			   "{\"id\":\"c\",\"group\":\"g2\",\"shape\":{\"vertices\":" JCUBE
			   ",\"pose\":{\"translation\":[0,0.5,0]}}},"
			   "{\"id\":\"d\",\"shape\":{\"vertices\":" JCUBE
			   ",\"pose\":{\"translation\":[0,0,0.5]}}}]";
	/* clang-format off */
	const struct {
		const char *lists;
		size_t n;
	} cases[] = {
	    {"", 6},
	    {",\"ignore\":[[{\"group\":\"g1\"},{\"group\":\"g1\"}]]", 5},
	    {",\"ignore\":[[{\"group\":\"g1\"},\"d\"]]", 4},
	    {",\"ignore\":[[{\"group\":\"g2\"},{\"group\":\"g1\"}],[\"c\",\"d\"]]", 3},
	    {",\"pairs\":[[{\"group\":\"g1\"},{\"group\":\"g2\"}]]", 2},
	    {",\"pairs\":[[{\"group\":\"g1\"},\"d\"],[\"a\",\"b\"]],"
	     "\"ignore\":[[\"b\",\"d\"]]", 2},
	};
	/* clang-format on */
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char body[2048];
		snprintf(body, sizeof body, "%s%s}", objs, cases[k].lists);
		j = scene_json(body, &st);
		ck_assert_msg(st == 200, "%s: %d", body, st);
		ck_assert_msg(json_array_size(json_object_get(j, "clashes")) == cases[k].n,
		              "%s: %zu pairs", cases[k].lists,
		              json_array_size(json_object_get(j, "clashes")));
		json_decref(j);
	}

	/* Bad values, each with its pointer. */
	expect_problem("{\"objects\":[],\"touch_depth\":-1}", 422, "/touch_depth");
	expect_problem("{\"objects\":[],\"touch_depth\":\"deep\"}", 422, "/touch_depth");
	expect_problem(
		"{\"objects\":[{\"id\":\"a\",\"group\":7,\"shape\":{\"vertices\":[[0,0,0]]}}]}",
		422, "/objects/0/group");
	expect_problem(
		"{\"objects\":[{\"id\":\"a\",\"group\":\"\",\"shape\":{\"vertices\":[[0,0,0]]}}]}",
		422, "/objects/0/group");
	const char *two =
		"{\"objects\":[{\"id\":\"a\",\"group\":\"g\",\"shape\":{\"vertices\":[[0,0,0]]}},"
		"{\"id\":\"b\",\"shape\":{\"vertices\":[[0,0,0]]}}],";
	const struct {
		const char *tail, *pointer;
	} bad[] = {
		{"\"ignore\":[[{\"group\":\"h\"},\"a\"]]}", "/ignore/0/0/group"},
		{"\"ignore\":[[\"a\",{\"group\":1}]]}", "/ignore/0/1/group"},
		{"\"pairs\":[[\"a\",{}]]}", "/pairs/0/1"},
		{"\"pairs\":[[\"a\",{\"group\":\"g\",\"id\":\"b\"}]]}", "/pairs/0/1/id"},
		{"\"pairs\":[[\"a\",7]]}", "/pairs/0/1"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		char body[512];
		snprintf(body, sizeof body, "%s%s", two, bad[k].tail);
		expect_problem(body, 422, bad[k].pointer);
	}
}
END_TEST

/* Groups in the core: an ignored group and groups in `only`, against
 * clash_scene_pair over every pair. */
START_TEST(groups_brute_force)
{
	prng g = {0x5ce0e004};
	world w;
	world_random(&w, &g, 3, 120, 5, 0);
	size_t *group = malloc(w.n * sizeof *group);
	for (size_t i = 0; i < w.n; i++)
		group[i] = i % 5 == 4 ? CLASH_SCENE_NO_GROUP : i % 3;
	const size_t N = w.n;
	clash_pair ign[] = {{N + 0, N + 0}, {N + 1, 7}, {N + 2, N + 1}};
	clash_pair only[] = {{N + 0, N + 1}, {N + 0, N + 0}, {4, N + 2}, {9, 14}};
	for (int mode = 0; mode < 2; mode++) {
		clash_scene sc = {.count = N, .shapes = w.shapes, .group = group, .ngroups = 3};
		if (mode == 0) {
			sc.ignore = ign;
			sc.nignore = 3;
		} else {
			sc.only = only;
			sc.nonly = 4;
		}
		clash_scene_hit *hits;
		size_t n, k = 0;
		ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_OK);
		for (size_t i = 0; i < N; i++)
			for (size_t j = i + 1; j < N; j++) {
				size_t gi = group[i], gj = group[j];
				int in_ign = (gi == 0 && gj == 0) || (gi == 1 && j == 7) ||
				             (gj == 1 && i == 7) || (gi == 2 && gj == 1) ||
				             (gi == 1 && gj == 2);
				int in_only = (gi == 0 && gj == 1) || (gi == 1 && gj == 0) ||
				              (gi == 0 && gj == 0) || (i == 4 && gj == 2) ||
				              (j == 4 && gi == 2) || (i == 9 && j == 14);
				if (mode == 0 ? in_ign : !in_only)
					continue;
				clash_scene_hit h;
				ck_assert_int_eq(clash_scene_pair(&sc, i, j, &h), CLASH_OK);
				if (h.cls == CLASH_CLASS_NONE)
					continue;
				ck_assert_msg(k < n && hits[k].a == i && hits[k].b == j,
				              "mode %d: pair (%zu, %zu) missing", mode, i, j);
				k++;
			}
		ck_assert_uint_eq(k, n);
		ck_assert_uint_gt(n, 3);
		free(hits);
	}
	/* Bad groups. */
	clash_scene sc = {.count = N, .shapes = w.shapes, .group = group, .ngroups = 2};
	clash_scene_hit *hits;
	size_t n;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL); /* group 2 */
	sc.ngroups = 3;
	clash_pair beyond[] = {{0, N + 3}};
	sc.ignore = beyond;
	sc.nignore = 1;
	ck_assert_int_eq(clash_scene_run(&sc, &hits, &n, NULL), CLASH_EINVAL);
	free(group);
	world_free(&w);
}
END_TEST

START_TEST(reply_errors)
{
	proto_init();
	expect_problem("", 400, NULL);
	expect_problem("{\"objects\":[}", 400, "/objects/0");
	expect_problem("[]", 422, "");
	expect_problem("{}", 422, "");
	expect_problem("{\"objects\":[],\"colour\":1}", 422, "/colour");
	expect_problem("{\"objects\":{}}", 422, "/objects");
	expect_problem("{\"objects\":[1]}", 422, "/objects/0");
	expect_problem("{\"objects\":[{\"shape\":{\"vertices\":[[0]]}}]}", 422, "/objects/0");
	expect_problem("{\"objects\":[{\"id\":\"a\"}]}", 422, "/objects/0");
	expect_problem("{\"objects\":[{\"id\":\"a\",\"shape\":{\"vertices\":[[0]]},\"x\":1}]}", 422,
	               "/objects/0/x");
	expect_problem("{\"objects\":[{\"id\":7,\"shape\":{\"vertices\":[[0]]}}]}", 422,
	               "/objects/0/id");
	expect_problem("{\"objects\":[{\"id\":\"\",\"shape\":{\"vertices\":[[0]]}}]}", 422,
	               "/objects/0/id");
	/* Duplicates: the second of the first duplicated id. */
	/* clang-format off */
	expect_problem("{\"objects\":[" OBJ("a", 0, 0, 0) "," OBJ("b", 0, 0, 0) "," OBJ("c", 0, 0, 0)
	               "," OBJ("b", 0, 0, 0) "," OBJ("a", 0, 0, 0) "]}",
	               422, "/objects/3/id");
	/* clang-format on */
	/* Shapes: the Query's errors, at the object's pointer; one dimension. */
	/* clang-format off */
	expect_problem("{\"objects\":[" OBJ("a", 0, 0, 0) ",{\"id\":\"b\",\"shape\":{\"vertices\":"
	               "[[0,0,0],[1,1]]}}]}",
	               422, "/objects/1/shape/vertices/1");
	expect_problem("{\"objects\":[" OBJ("a", 0, 0, 0) ",{\"id\":\"b\",\"shape\":{\"vertices\":"
	               "[[0,0]]}}]}",
	               422, "/objects/1/shape/vertices/0");
	/* clang-format on */
	expect_problem(
		"{\"objects\":[{\"id\":\"a\",\"shape\":{\"vertices\":[[0,0]],\"radius\":-1}}]}",
		422, "/objects/0/shape/radius");
	expect_problem("{\"objects\":[{\"id\":\"a\",\"shape\":{\"parts\":[{\"vertices\":[[0,0]],"
	               "\"pose_end\":{}}]}}]}",
	               422, "/objects/0/shape/parts/0/pose_end");
	expect_problem("{\"objects\":[{\"id\":\"a\",\"shape\":{\"vertices\":[[0,0]],"
	               "\"pose_end\":{\"matrix\":[1,0,0,0,3,0,0,0,1]}}}]}",
	               422, "/objects/0/shape/pose_end");
	/* Options. */
	expect_problem("{\"objects\":[],\"clearance\":-0.1}", 422, "/clearance");
	expect_problem("{\"objects\":[],\"clearance\":\"1\"}", 422, "/clearance");
	expect_problem("{\"objects\":[],\"tolerance\":0}", 422, "/tolerance");
	/* pairs and ignore. */
	/* clang-format off */
	const char *two = "{\"objects\":[" OBJ("a", 0, 0, 0) "," OBJ("b", 0, 0, 0) "],";
	/* clang-format on */
	char body[1024];
	struct {
		const char *tail, *pointer;
	} lists[] = {
		{"\"pairs\":[]}", "/pairs"},
		{"\"pairs\":{}}", "/pairs"},
		{"\"pairs\":[[\"a\",\"b\"],[\"a\"]]}", "/pairs/1"},
		{"\"pairs\":[[\"a\",\"b\",\"a\"]]}", "/pairs/0"},
		{"\"pairs\":[\"ab\"]}", "/pairs/0"},
		{"\"pairs\":[[\"a\",2]]}", "/pairs/0/1"},
		{"\"pairs\":[[\"a\",\"c\"]]}", "/pairs/0/1"},
		{"\"ignore\":[[\"z\",\"a\"]]}", "/ignore/0/0"},
		{"\"ignore\":[[\"b\",\"b\"]]}", "/ignore/0/1"},
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		snprintf(body, sizeof body, "%s%s", two, lists[i].tail);
		expect_problem(body, 422, lists[i].pointer);
	}
	/* Too many objects: refused before any is decoded. */
	size_t nbig = 100001, bcap = 2 * nbig + 64, bused = 0;
	char *many = malloc(bcap);
	bused += (size_t)snprintf(many + bused, bcap - bused, "{\"objects\":[");
	for (size_t i = 0; i < nbig; i++)
		bused += (size_t)snprintf(many + bused, bcap - bused, "%s1", i ? "," : "");
	snprintf(many + bused, bcap - bused, "]}");
	expect_problem(many, 422, "/objects/100000");
	free(many);
	/* Too many candidates: 700 objects in one place. */
	size_t cap = 700 * 64 + 64, used = 0;
	char *big = malloc(cap);
	used += (size_t)snprintf(big + used, cap - used, "{\"objects\":[");
	for (int i = 0; i < 700; i++)
		used += (size_t)snprintf(big + used, cap - used,
		                         "%s{\"id\":\"o%d\",\"shape\":{\"vertices\":[[0,0]]}}",
		                         i ? "," : "", i);
	snprintf(big + used, cap - used, "]}");
	expect_problem(big, 422, "/objects");
	free(big);
}
END_TEST

START_TEST(limits_and_cancel)
{
	proto_init();
	/* A server's limits count each object's shape on its own. */
	proto_request_limits lim = {.max_depth = 16, .max_vertices = 8, .max_shapes = 3};
	test_ctx.limits = lim;
	char body[4096];
	int st;
	json_t *j;
	proto_call call = {0};
	proto_reply r;
	/* 10 shapes in all, one per object: within a limit of 3 per object. */
	size_t used = (size_t)snprintf(body, sizeof body, "{\"objects\":[");
	for (int i = 0; i < 10; i++) {
		char id[16];
		snprintf(id, sizeof id, "o%d", i);
		used += (size_t)snprintf(body + used, sizeof body - used,
		                         "%s{\"id\":\"%s\",\"shape\":{\"vertices\":" JCUBE "}}",
		                         i ? "," : "", id);
	}
	snprintf(body + used, sizeof body - used, "]}");
	j = scene_json(body, &st);
	ck_assert_int_eq(st, 200);
	json_decref(j);
	/* One object's compound of 3 parts is 4 shapes: the 4th is over. */
	expect_problem("{\"objects\":[{\"id\":\"a\",\"shape\":{\"parts\":[{\"vertices\":[[0]]},"
	               "{\"vertices\":[[1]]},{\"vertices\":[[2]]}]}}]}",
	               422, "/objects/0/shape/parts/2");
	expect_problem("{\"objects\":[{\"id\":\"a\",\"shape\":{\"vertices\":[[0],[1],[2],[3],[4],"
	               "[5],[6],[7],[8]]}}]}",
	               422, "/objects/0/shape/vertices");
	call = (proto_call){.ctx = &test_ctx};
	const char *deep = "{\"objects\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}";
	ck_assert_int_eq(proto_scene_reply_ex(deep, strlen(deep), &call, &r), 0);
	ck_assert_int_eq(r.status, 400);
	ck_assert_int_eq(call.limit, PROTO_LIMIT_DEPTH);
	proto_reply_free(&r);
	test_ctx.limits = (proto_request_limits){0};
	/* A stopped scene answers 503 and says so. */
	volatile int stop = 1;
	call = (proto_call){.cancel = &stop};
	/* clang-format off */
	const char *two = "{\"objects\":[" OBJ("a", 0, 0, 0) "," OBJ("b", 0, 0, 0.5) "]}";
	/* clang-format on */
	ck_assert_int_eq(proto_scene_reply_ex(two, strlen(two), &call, &r), 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert(call.cancelled);
	proto_reply_free(&r);
	stop = 0;
	call = (proto_call){.cancel = &stop};
	ck_assert_int_eq(proto_scene_reply_ex(two, strlen(two), &call, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(!call.cancelled);
	proto_reply_free(&r);
}
END_TEST

/* n objects, each the point (0, 0, 0) with an id of `idlen` characters:
 * every pair is a duplicate, n (n - 1) / 2 of them. */
static char *coincident_scene(size_t n, size_t idlen, const char *extra)
{
	size_t cap = n * (idlen + 80) + 200, used = 0;
	char *s = malloc(cap);
	ck_assert_ptr_nonnull(s);
	used += (size_t)snprintf(s, cap, "{%s\"objects\":[", extra);
	for (size_t i = 0; i < n; i++) {
		used += (size_t)snprintf(s + used, cap - used,
		                         "%s{\"id\":\"%0*zu\",\"shape\":"
		                         "{\"vertices\":[[0,0,0]]}}",
		                         i ? "," : "", (int)idlen, i);
	}
	snprintf(s + used, cap - used, "]}");
	return s;
}

/* The scene's reply under the limits in force, as JSON (status 200). */
static json_t *bounded_reply(const char *body, size_t *length)
{
	proto_reply r;
	proto_call call = {.ctx = &test_ctx};
	ck_assert_int_eq(proto_scene_reply_ex(body, strlen(body), &call, &r), 0);
	ck_assert_msg(r.status == 200, "status %d: %.300s", r.status, r.body);
	*length = r.length;
	json_t *j = json_loads(r.body, 0, NULL);
	ck_assert_msg(j != NULL, "not JSON");
	proto_reply_free(&r);
	return j;
}

/* A query of death: 632 coincident points ask for 199 396
 * clashes (36 MB of JSON).  The answer lists max_clashes of them, in at most
 * max_reply bytes, counts them all, and its list is the unbounded answer's
 * first entries. */
START_TEST(reply_bounded)
{
	proto_init();
	const size_t n = 632, pairs = n * (n - 1) / 2;
	char *body = coincident_scene(n, 8, "");
	proto_request_limits lim = {.max_clashes = 1000, .max_reply = 1 << 20};
	test_ctx.limits = lim;
	size_t len;
	json_t *j = bounded_reply(body, &len);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "clashes")), 1000);
	ck_assert(json_is_true(json_object_get(j, "truncated")));
	ck_assert_uint_eq(count_of(j, "duplicate"), pairs);
	ck_assert_uint_eq(count_of(j, "clash") + count_of(j, "touch") + count_of(j, "clearance"),
	                  0);
	ck_assert_uint_eq((size_t)json_integer_value(json_object_get(j, "candidates")), pairs);
	/* Pairs in input order: (0,1), (0,2), ... (0,631), (1,2), ... */
	json_t *c = json_array_get(json_object_get(j, "clashes"), 700);
	ck_assert_str_eq(json_string_value(json_object_get(c, "a")), "00000001");
	ck_assert_str_eq(json_string_value(json_object_get(c, "b")), "00000071");
	json_decref(j);

	/* A request may ask for fewer, never for more than the server lists. */
	free(body);
	body = coincident_scene(40, 8, "\"max_clashes\":3,");
	j = bounded_reply(body, &len);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "clashes")), 3);
	ck_assert(json_is_true(json_object_get(j, "truncated")));
	ck_assert_uint_eq(count_of(j, "duplicate"), 40 * 39 / 2);
	json_t *three = json_incref(json_object_get(j, "clashes"));
	json_decref(j);
	free(body);
	body = coincident_scene(40, 8, "\"max_clashes\":1000,");
	j = bounded_reply(body, &len);
	ck_assert(json_is_false(json_object_get(j, "truncated")));
	ck_assert_uint_eq(json_array_size(json_object_get(j, "clashes")), 40 * 39 / 2);
	for (size_t i = 0; i < 3; i++)
		ck_assert(json_equal(json_array_get(three, i),
		                     json_array_get(json_object_get(j, "clashes"), i)));
	json_decref(three);
	json_decref(j);
	free(body);
	body = coincident_scene(4, 8, "\"max_clashes\":0,");
	j = bounded_reply(body, &len);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "clashes")), 0);
	ck_assert(json_is_true(json_object_get(j, "truncated")));
	ck_assert_uint_eq(count_of(j, "duplicate"), 6);
	json_decref(j);
	free(body);
	expect_problem("{\"max_clashes\":1001,\"objects\":[]}", 422, "/max_clashes");
	expect_problem("{\"max_clashes\":-1,\"objects\":[]}", 422, "/max_clashes");
	expect_problem("{\"max_clashes\":2.5,\"objects\":[]}", 422, "/max_clashes");
	expect_problem("{\"max_clashes\":\"all\",\"objects\":[]}", 422, "/max_clashes");

	/* Long ids: the byte limit binds first, and the list is still the first
	 * pairs, as many as fit. */
	body = coincident_scene(300, 4000, "");
	lim.max_clashes = 0; /* none */
	lim.max_reply = 256 << 10;
	test_ctx.limits = lim;
	j = bounded_reply(body, &len);
	ck_assert_uint_le(len, 256 << 10);
	size_t listed = json_array_size(json_object_get(j, "clashes"));
	/* each clash carries two ids of 4000 bytes: about 8 100 bytes a clash */
	ck_assert_uint_gt(listed, (256 << 10) / 8300);
	ck_assert_uint_lt(listed, (256 << 10) / 8000 + 1);
	ck_assert(json_is_true(json_object_get(j, "truncated")));
	ck_assert_uint_eq(count_of(j, "duplicate"), 300 * 299 / 2);
	for (size_t i = 0; i < listed; i++) {
		json_t *ci = json_array_get(json_object_get(j, "clashes"), i);
		char want[8];
		snprintf(want, sizeof want, "%zu", i + 1); /* pairs (0, 1), (0, 2), ... */
		const char *b = json_string_value(json_object_get(ci, "b"));
		ck_assert_str_eq(b + strlen(b) - strlen(want), want);
	}
	json_decref(j);
	free(body);
	test_ctx.limits = (proto_request_limits){0};
}
END_TEST

/* A proto_parallel that runs the pieces on two threads, last first. */
typedef struct reverse_run {
	proto_piece_fn piece;
	void *ctx;
	size_t n;
	pthread_mutex_t mu;
	size_t next;
	int calls;
} reverse_run;

static void *reverse_worker(void *arg)
{
	reverse_run *r = arg;
	for (;;) {
		pthread_mutex_lock(&r->mu);
		size_t k = r->next++;
		pthread_mutex_unlock(&r->mu);
		if (k >= r->n)
			return NULL;
		r->piece(r->ctx, r->n - 1 - k);
	}
}

static void reverse_parallel(void *self, proto_piece_fn piece, void *ctx, size_t n)
{
	reverse_run *r = self;
	r->piece = piece;
	r->ctx = ctx;
	r->n = n;
	r->next = 0;
	r->calls++;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, reverse_worker, r), 0);
	reverse_worker(r);
	pthread_join(t, NULL);
}

/* A Scene document of n random objects (boxes and spheres) in a cube of
 * side `side`, some moving. */
static char *random_scene_text(prng *g, size_t n, double side, double clearance)
{
	size_t cap = n * 400 + 100, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s + used, cap - used, "{\"clearance\":%g,\"objects\":[",
	                         clearance);
	for (size_t i = 0; i < n; i++) {
		double x = prng_range(g, 0, side), y = prng_range(g, 0, side),
		       z = prng_range(g, 0, side);
		double h = prng_range(g, 0.2, 0.6);
		used += (size_t)snprintf(s + used, cap - used,
		                         "%s{\"id\":\"part-%zu\",\"shape\":", i ? "," : "", i);
		if (i % 3 == 0)
			used += (size_t)snprintf(s + used, cap - used,
			                         "{\"vertices\":[[0,0,0]],\"radius\":%.3f,"
			                         "\"pose\":{\"translation\":[%.4f,%.4f,%.4f]}",
			                         h, x, y, z);
		else
			used += (size_t)snprintf(
				s + used, cap - used,
				"{\"vertices\":[[-%.3f,-%.3f,-%.3f],[%.3f,-%.3f,-%.3f],[-%.3f,%.3f,-%.3f],"
				"[%.3f,%.3f,-%.3f],[-%.3f,-%.3f,%.3f],[%.3f,-%.3f,%.3f],[-%.3f,%.3f,%.3f],"
				"[%.3f,%.3f,%.3f]],\"pose\":{\"rotation\":[0,0,0.6,0.8],"
				"\"translation\":[%.4f,%.4f,%.4f]}",
				h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h,
				h, x, y, z);
		if (i % 7 == 0)
			used += (size_t)snprintf(s + used, cap - used,
			                         ",\"pose_end\":{\"translation\":[%.4f,%.4f,%.4f]}",
			                         x + 1, y - 1, z + 0.5);
		used += (size_t)snprintf(s + used, cap - used, "}}");
	}
	snprintf(s + used, cap - used, "]}");
	return s;
}

START_TEST(pieces_in_any_order)
{
	proto_init();
	prng g = {0x5ce0e004};
	char *text = random_scene_text(&g, 1500, 18, 0.1);
	proto_reply seq, par;
	ck_assert_int_eq(proto_scene_reply(text, strlen(text), &seq), 0);
	ck_assert_int_eq(seq.status, 200);
	reverse_run rr = {.mu = PTHREAD_MUTEX_INITIALIZER};
	proto_context ctx = {.parallel = {reverse_parallel, &rr}};
	proto_call call = {.ctx = &ctx};
	ck_assert_int_eq(proto_scene_reply_ex(text, strlen(text), &call, &par), 0);
	ck_assert_int_eq(rr.calls, 1); /* there were several pieces */
	ck_assert_str_eq(par.body, seq.body);
	json_t *j = json_loads(seq.body, 0, NULL);
	ck_assert_uint_gt(json_integer_value(json_object_get(j, "candidates")), 256);
	json_decref(j);
	proto_reply_free(&seq);
	proto_reply_free(&par);
	free(text);
}
END_TEST

/* ---- the contract document ----------------------------------------------- */

static json_t *at(json_t *j, const char *const *path)
{
	for (; *path; path++) {
		j = json_object_get(j, *path);
		ck_assert_msg(j != NULL, "openapi.yaml has no %s", *path);
	}
	return j;
}
#define AT(j, ...) at((j), (const char *const[]){__VA_ARGS__, NULL})

/* Every property of a schema, and of its object properties, described. */
static void described(const char *where, json_t *schema)
{
	const char *name;
	json_t *prop;
	json_object_foreach(json_object_get(schema, "properties"), name, prop) {
		ck_assert_msg(json_is_string(json_object_get(prop, "description")),
		              "%s.%s has no description", where, name);
		described(where, prop);
	}
}

/* value's members are all documented in `schema`, its required ones there. */
static void documented(json_t *schemas, const char *schema, json_t *value, const char *where)
{
	json_t *props = AT(schemas, schema, "properties");
	const char *m;
	json_t *v;
	json_object_foreach(value, m, v)
		ck_assert_msg(json_object_get(props, m) != NULL, "%s: %s is not documented in %s",
		              where, m, schema);
	json_t *req = json_object_get(json_object_get(schemas, schema), "required");
	for (size_t i = 0; i < json_array_size(req); i++)
		ck_assert_msg(json_object_get(value, json_string_value(json_array_get(req, i))),
		              "%s lacks %s", where, json_string_value(json_array_get(req, i)));
}

START_TEST(contract)
{
	proto_init();
	json_t *api = contract_doc_load();

	json_t *schemas = AT(api, "components", "schemas");
	const char *names[] = {"Scene", "SceneObject", "SceneResult", "Clash", "Contact"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		ck_assert(json_is_string(json_object_get(AT(schemas, names[i]), "description")));
		described(names[i], AT(schemas, names[i]));
	}
	AT(schemas, "Shape", "properties", "pose_end", "description");
	AT(schemas, "Result", "properties", "toi", "description");
	json_t *post = AT(api, "paths", "/v1/scene", "post");
	const char *codes[] = {"200", "400", "405", "413", "415", "422"};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		AT(post, "responses", codes[i]);
	/* The members of Scene and SceneObject are the decoder's: given a
	 * wrong type, each is a bad value, never an unknown member. */
	const char *name;
	json_t *v;
	json_object_foreach(AT(schemas, "Scene", "properties"), name, v) {
		char text[256];
		snprintf(text, sizeof text, "{\"objects\":[],\"%s\":{\"zz\":1}}", name);
		if (strcmp(name, "objects") == 0)
			snprintf(text, sizeof text, "{\"objects\":{\"zz\":1}}");
		int st;
		json_t *j = scene_json(text, &st);
		ck_assert_int_eq(st, 422);
		ck_assert_msg(!strstr(json_string_value(json_object_get(j, "detail")),
		                      "unknown member"),
		              "%s unknown to the decoder", name);
		json_decref(j);
	}
	json_object_foreach(AT(schemas, "SceneObject", "properties"), name, v) {
		json_t *o = json_pack("{s:s, s:{s:[[i]]}}", "id", "x", "shape", "vertices", 0);
		json_object_set_new(o, name, json_pack("{s:i}", "zz", 1));
		json_t *sc = json_pack("{s:[o]}", "objects", o);
		char *text = json_dumps(sc, JSON_COMPACT);
		json_decref(sc);
		int st;
		json_t *j = scene_json(text, &st);
		char where[128];
		snprintf(where, sizeof where, "/objects/0/%s", name);
		ck_assert_int_eq(st, 422);
		ck_assert_msg(strcmp(json_string_value(json_object_get(j, "pointer")), where) !=
		                              0 ||
		                      !strstr(json_string_value(json_object_get(j, "detail")),
		                              "unknown member"),
		              "%s unknown to the decoder", name);
		json_decref(j);
		free(text);
	}
	/* Every example is answered, with documented members; as shown where a
	 * response example exists (but for penetration, which is `depth` or
	 * `depth_lower_bound` as GJK can). */
	json_t *examples = AT(post, "requestBody", "content", "application/json", "examples");
	json_t *shown = AT(post, "responses", "200", "content", "application/json", "examples");
	json_t *ex;
	ck_assert_uint_ge(json_object_size(examples), 2);
	json_object_foreach(examples, name, ex) {
		char *text = json_dumps(AT(ex, "value"), JSON_COMPACT);
		int st;
		json_t *res = scene_json(text, &st);
		ck_assert_msg(st == 200, "example %s: %d", name, st);
		documented(schemas, "SceneResult", res, name);
		json_t *list = json_object_get(res, "clashes"), *c;
		size_t i;
		ck_assert_uint_gt(json_array_size(list), 0);
		json_array_foreach(list, i, c) {
			documented(schemas, "Clash", c, name);
			if (json_object_get(c, "contact"))
				documented(schemas, "Contact", json_object_get(c, "contact"), name);
		}
		json_t *want = json_object_get(json_object_get(shown, name), "value");
		if (want) {
			json_t *wl = json_object_get(want, "clashes");
			ck_assert_uint_eq(json_array_size(wl), json_array_size(list));
			ck_assert(contract_doc_same(json_object_get(want, "candidates"),
			                            json_object_get(res, "candidates")));
			json_array_foreach(list, i, c) {
				json_t *w = json_deep_copy(json_array_get(wl, i)),
				       *g = json_deep_copy(c);
				json_object_del(w, "penetration");
				json_object_del(g, "penetration");
				char *gs = json_dumps(g, JSON_COMPACT);
				ck_assert_msg(contract_doc_same(w, g),
				              "example %s, clash %zu is answered %s", name, i, gs);
				free(gs);
				json_decref(w);
				json_decref(g);
			}
		}
		json_decref(res);
		free(text);
	}
	json_decref(api);
}
END_TEST

/* ---- clash scene --------------------------------------------------------- */

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/check_scene_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t n = strlen(text);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Run build/clash with args, stdin from `input` (NULL: /dev/null); its
 * standard output into *out (malloc'd).  Returns the exit status. */
static int run_clash(const char *const *args, const char *input, char **out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/clash", check_build_dir());
	const char *argv[8] = {path};
	for (int i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	int in = input ? open(input, O_RDONLY) : SPAWN_NULL;
	ck_assert_msg(in != -1, "cannot open %s", input);
	spawn_opts opts = {.argv = argv, .in = in};
	int ws = spawn_capture(&opts, out, NULL, NULL);
	if (in > 0)
		close(in);
	ck_assert(ws != -1 && *out);
	return spawn_exit_code(ws);
}

START_TEST(cli_scene)
{
	proto_init();
	/* A pretty-printed document, over many lines. */
	/* clang-format off */
	const char *doc = "{\n  \"objects\": [\n    " OBJ("floor", 0, 0, 0) ",\n    "
	                  OBJ("crate", 0, 0, 1) "\n  ],\n  \"clearance\": 0.5\n}\n";
	/* clang-format on */
	char *file = write_temp(doc), *out;
	proto_reply want;
	ck_assert_int_eq(proto_scene_reply(doc, strlen(doc), &want), 0);
	ck_assert_int_eq(run_clash((const char *[]){"scene", file, NULL}, NULL, &out), 0);
	ck_assert_uint_eq(strlen(out), want.length + 1);
	ck_assert(strncmp(out, want.body, want.length) == 0 && out[want.length] == '\n');
	free(out);
	/* From standard input, and "-". */
	ck_assert_int_eq(run_clash((const char *[]){"scene", NULL}, file, &out), 0);
	ck_assert(strncmp(out, want.body, want.length) == 0);
	free(out);
	ck_assert_int_eq(run_clash((const char *[]){"scene", "-", NULL}, file, &out), 0);
	ck_assert(strncmp(out, want.body, want.length) == 0);
	free(out);
	proto_reply_free(&want);
	/* A problem is an answer, exit 1 (some request answered by a problem). */
	char *bad = write_temp("{\"objects\": [1]}");
	ck_assert_int_eq(run_clash((const char *[]){"scene", bad, NULL}, NULL, &out), 1);
	ck_assert(strstr(out, "\"pointer\":\"/objects/0\"") != NULL);
	free(out);
	/* Usage errors. */
	ck_assert_int_eq(run_clash((const char *[]){"scene", "/nonexistent/scene.json", NULL}, NULL,
	                           &out),
	                 2);
	free(out);
	ck_assert_int_eq(run_clash((const char *[]){"scene", file, bad, NULL}, NULL, &out), 2);
	free(out);
	ck_assert_int_eq(run_clash((const char *[]){"scene", "--help", NULL}, NULL, &out), 0);
	ck_assert(strstr(out, "usage: clash scene") != NULL);
	free(out);
	unlink(file);
	unlink(bad);
	free(file);
	free(bad);
}
END_TEST

/* ---- POST /v1/scene ------------------------------------------------------ */

/* One request on its own connection; the status, and the body (malloc'd). */
static int http(int port, const char *method, const char *path, const char *body, char **reply)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&a, sizeof a), 0);
	size_t blen = body ? strlen(body) : 0;
	char head[512];
	int hl = snprintf(head, sizeof head,
	                  "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
	                  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
	                  method, path, blen);
	ck_assert_int_eq(send(s, head, (size_t)hl, MSG_NOSIGNAL), hl);
	for (size_t off = 0; off < blen;) {
		ssize_t k = send(s, body + off, blen - off, MSG_NOSIGNAL);
		ck_assert_int_gt(k, 0);
		off += (size_t)k;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (cap - n < 4096)
			buf = realloc(buf, cap *= 2);
		ssize_t k = recv(s, buf + n, cap - n - 1, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(s);
	buf[n] = '\0';
	int status = 0;
	sscanf(buf, "HTTP/1.1 %d", &status);
	char *start = strstr(buf, "\r\n\r\n");
	*reply = strdup(start ? start + 4 : "");
	free(buf);
	return status;
}

typedef struct side_query {
	int port;
	int status;
} side_query;

static void *query_beside(void *arg)
{
	side_query *q = arg;
	char *reply;
	q->status = http(q->port, "POST", "/v1/query",
	                 "{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":[[3,4,0]]}}", &reply);
	if (q->status == 200 && !strstr(reply, "\"distance\":5.0"))
		q->status = -1;
	free(reply);
	return NULL;
}

START_TEST(server_scene)
{
	proto_init();
	server_start();
	int port = srv.port;
	prng g = {0x5ce0e005};
	/* A scene with many pieces: the fanout threads share it. */
	char *text = random_scene_text(&g, 4000, 26, 0.1);
	proto_reply want;
	ck_assert_int_eq(proto_scene_reply(text, strlen(text), &want), 0);
	ck_assert_int_eq(want.status, 200);
	/* A query sent while the scene runs is answered too. */
	side_query q = {.port = port};
	pthread_t t;
	char *reply;
	ck_assert_int_eq(pthread_create(&t, NULL, query_beside, &q), 0);
	ck_assert_int_eq(http(port, "POST", "/v1/scene", text, &reply), 200);
	pthread_join(t, NULL);
	ck_assert_int_eq(q.status, 200);
	ck_assert_str_eq(reply, want.body); /* the same answer as without threads */
	free(reply);
	proto_reply_free(&want);
	free(text);
	/* The route's errors. */
	ck_assert_int_eq(http(port, "POST", "/v1/scene", "{\"objects\":[1]}", &reply), 422);
	ck_assert(strstr(reply, "\"pointer\":\"/objects/0\"") != NULL);
	free(reply);
	ck_assert_int_eq(http(port, "GET", "/v1/scene", NULL, &reply), 405);
	free(reply);
	ck_assert_int_eq(http(port, "POST", "/v1/scene", "{\"objects\":[", &reply), 400);
	free(reply);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static void teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(20));
}

static Suite *scene_suite(void)
{
	Suite *s = suite_create("scene");
	ck_case(s, "closed_forms", 0, CK_TESTS(classes_closed_form, moving_closed_form));
	ck_case(s, "brute_force", 60,
	        CK_TESTS(brute_force_at_rest, duplicates_in_any_order,
	                 compound_duplicates_in_any_order, brute_force_in_motion,
	                 brute_force_ignore, groups_brute_force, sparse_scene_scales));
	ck_case(s, "contract", 30,
	        CK_TESTS(reply_closed_form, reply_errors, cad_semantics, pieces_in_any_order,
	                 limits_and_cancel, reply_bounded, contract, cli_scene));
	TCase *tc = ck_case(s, "server", 60, CK_TESTS(server_scene));
	tcase_add_checked_fixture(tc, NULL, teardown);
	return s;
}

CHECK_SUITE(scene_suite)
