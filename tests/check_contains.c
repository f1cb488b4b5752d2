/*
 * check_contains.c — suite "contains": clash_contains (core/contains.c),
 * POST /v1/contains, and `clash contains`.
 *
 * Judges, independent of the core:
 *   - closed forms: boxes in boxes, a corner poking out (the vertex named),
 *     equal shapes, spheres in a box at the exact radius, rounded outers,
 *     intervals, compound inner shapes (the part named);
 *   - random 2-D and 3-D pairs against the qhull oracle per vertex: the
 *     distance of each inner vertex from co(outer) (radius of inner <=
 *     outer's) or its depth inside (inner's radius larger) against the
 *     radii; verdicts compared outside a band of 1e-9 of the size, and a
 *     reported outside vertex must really be outside;
 *   - random 4-D and 6-D pairs against the exact GLPK oracle (a vertex in
 *     the hull or not), radius 0;
 *   - the wire (answers and problems with their pointers), the command
 *     line tool, and clashd's route;
 *   - the contract: /v1/contains in proto/openapi.yaml, its schemas
 *     described, its examples answered as shown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "contract_doc.h"
#include "clash.h"
#include "http_harness.h"
#include "oracle.h"
#include "oracle_lp.h"
#include "prng.h"
#include "proto.h"

static const double cube[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1};

static clash_containment contains(const clash_shape *in, const clash_shape *out)
{
	clash_containment c;
	int rc = clash_contains(in, out, NULL, &c);
	ck_assert_msg(rc == CLASH_OK, "clash_contains: %s", clash_strerror(rc));
	ck_assert_int_eq(c.converged, 1); /* no cap: every vertex is decided */
	if (c.contained)
		ck_assert(!c.has_outside_vertex);
	else
		ck_assert(c.has_outside_vertex);
	return c;
}

/* A box [lo, hi]^3 as 8 vertices. */
static void box(double *v, double lo, double hi)
{
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			v[i * 3 + k] = (i >> k) & 1 ? hi : lo;
}

START_TEST(closed_forms)
{
	clash_shape in, out;
	double small[24], big[24];
	box(small, 0.25, 0.75);
	box(big, 0, 1);
	clash_shape_init(&in, 3, small, 8);
	clash_shape_init(&out, 3, big, 8);
	ck_assert(contains(&in, &out).contained);
	ck_assert(!contains(&out, &in).contained);
	ck_assert(contains(&out, &out).contained); /* equal: touching counts */
	/* Moved so that exactly one corner, vertex 7 (0.75,0.75,0.75)+t, is out. */
	clash_shape_set_translation(&in, (double[]){0.2, 0.2, 0.3});
	clash_containment c = contains(&in, &out);
	ck_assert(!c.contained);
	ck_assert_uint_eq(c.outside_vertex, 4); /* z = 0.75 + 0.3 > 1 first at index 4 */
	/* Rotated about z by 45 degrees: the half-width 0.25 becomes 0.354. */
	clash_shape_init(&in, 3, small, 8);
	double s = sin(M_PI / 8), co = cos(M_PI / 8);
	clash_shape_set_quaternion(&in, (double[]){0, 0, s, co});
	/* Rotation is about the origin: put the centre back at 0.5. */
	clash_shape_set_translation(&in, (double[]){0.5, 0.5 - 0.5 * M_SQRT2, 0});
	ck_assert(contains(&in, &out).contained);

	/* A ball (a point with a radius) in the unit cube: exact threshold. */
	double centre[] = {0.5, 0.5, 0.5};
	clash_shape_init(&in, 3, centre, 1);
	clash_shape_set_radius(&in, 0.5);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, 0.5 + 1e-9);
	ck_assert(!contains(&in, &out).contained);
	/* A capsule along the diagonal of a rounded cube. */
	double seg[] = {0.2, 0.2, 0.2, 0.8, 0.8, 0.8};
	clash_shape_init(&in, 3, seg, 2);
	clash_shape_set_radius(&in, 0.2);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, 0.2 + 1e-9);
	c = contains(&in, &out);
	ck_assert(!c.contained);
	/* Outer rounded: a point 0.3 beyond a face, outer radius 0.3. */
	double beyond[] = {1.3, 0.5, 0.5};
	clash_shape_init(&in, 3, beyond, 1);
	clash_shape_set_radius(&out, 0.3);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&out, 0.3 - 1e-9);
	ck_assert(!contains(&in, &out).contained);
	/* Beyond a corner: distance sqrt(3) * 0.1. */
	double corner[] = {1.1, 1.1, 1.1};
	clash_shape_init(&in, 3, corner, 1);
	clash_shape_set_radius(&out, sqrt(3.0) * 0.1 + 1e-12);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&out, sqrt(3.0) * 0.1 - 1e-9);
	ck_assert(!contains(&in, &out).contained);
	/* Both rounded, inner's radius larger: depth 0.5 needed for 0.7 - 0.2. */
	clash_shape_init(&in, 3, centre, 1);
	clash_shape_set_radius(&in, 0.7);
	clash_shape_set_radius(&out, 0.2);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, 0.7 + 1e-9);
	ck_assert(!contains(&in, &out).contained);

	/* 1-D: [2, 3] rounded by 1 in [0, 5]; then in [0.5, 5]. */
	double iv[] = {2, 3}, ov[] = {5, 0};
	clash_shape_init(&in, 1, iv, 2);
	clash_shape_set_radius(&in, 1);
	clash_shape_init(&out, 1, ov, 2);
	ck_assert(contains(&in, &out).contained);
	ov[1] = 1.5;
	c = contains(&in, &out);
	ck_assert(!c.contained);
	ck_assert_uint_eq(c.outside_vertex, 0);

	/* 2-D: a triangle, and a disc at its incentre with the inradius
	 * r = 1 / (2 + sqrt(2)) of the right triangle with legs 1. */
	double tri[] = {0, 0, 1, 0, 0, 1};
	double r = 1 / (2 + M_SQRT2);
	double inc[] = {r, r};
	clash_shape_init(&out, 2, tri, 3);
	clash_shape_init(&in, 2, inc, 1);
	clash_shape_set_radius(&in, r - 1e-12);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, r + 1e-9);
	ck_assert(!contains(&in, &out).contained);
	/* A flat outer (collinear) holds no disc, but holds its own points. */
	double flat[] = {0, 0, 1, 1, 2, 2};
	clash_shape_init(&out, 2, flat, 3);
	clash_shape_init(&in, 2, flat + 2, 1);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, 1e-6);
	ck_assert(!contains(&in, &out).contained);
}
END_TEST

START_TEST(compound_inner)
{
	double big[24], small[24];
	box(big, 0, 10);
	box(small, 0, 1);
	clash_shape out, parts[3], in;
	clash_shape_init(&out, 3, big, 8);
	for (int i = 0; i < 3; i++) {
		clash_shape_init(&parts[i], 3, small, 8);
		clash_shape_set_translation(&parts[i], (double[]){3.0 * i, 1, 1});
	}
	/* A compound: init for the identity pose, then the parts (vertices
	 * and count are then unused). */
	clash_shape_init(&in, 3, small, 8);
	in.parts = parts;
	in.nparts = 3;
	ck_assert(contains(&in, &out).contained);
	/* The compound's pose moves every part: part 2 ends at x = 7 + 2.5. */
	clash_shape_set_translation(&in, (double[]){2.5, 0, 0});
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_translation(&in, (double[]){3.5, 0, 0});
	clash_containment c = contains(&in, &out);
	ck_assert(!c.contained);
	ck_assert_uint_eq(c.outside_part, 2);
	ck_assert_uint_eq(c.outside_vertex, 1); /* (1, 0, 0) of the part, x = 10.5 */
	/* The compound's radius adds to each part's. */
	clash_shape_set_translation(&in, (double[]){0.5, 0, 0});
	clash_shape_set_radius(&in, 0.5);
	ck_assert(contains(&in, &out).contained);
	clash_shape_set_radius(&in, 0.6); /* part 0 now reaches x = -0.1 */
	c = contains(&in, &out);
	ck_assert(!c.contained);
	ck_assert_uint_eq(c.outside_part, 0);
	ck_assert_uint_eq(c.outside_vertex, 0);
	/* Nested: a compound of one compound. */
	clash_shape outerpart = in;
	clash_shape_set_radius(&outerpart, 0);
	clash_shape_set_translation(&outerpart, (double[]){0, 0, 0});
	clash_shape nest;
	clash_shape_init(&nest, 3, small, 8);
	nest.parts = &outerpart;
	nest.nparts = 1;
	ck_assert(contains(&nest, &out).contained);
	clash_shape_set_translation(&nest, (double[]){0, 0, 8.5});
	c = contains(&nest, &out);
	ck_assert(!c.contained);
	ck_assert_uint_eq(c.outside_part, 0);
	/* A compound outer is not convex. */
	clash_containment cc;
	ck_assert_int_eq(clash_contains(&out, &in, NULL, &cc), CLASH_ENOTSUP);
}
END_TEST

START_TEST(bad_input)
{
	clash_shape a, b;
	clash_containment c;
	clash_shape_init(&a, 3, cube, 8);
	double p2[] = {0, 0};
	clash_shape_init(&b, 2, p2, 1);
	ck_assert_int_eq(clash_contains(NULL, &a, NULL, &c), CLASH_EINVAL);
	ck_assert_int_eq(clash_contains(&a, &a, NULL, NULL), CLASH_EINVAL);
	ck_assert_int_eq(clash_contains(&a, &b, NULL, &c), CLASH_EDIM);
	double nan3[] = {NAN, 0, 0};
	clash_shape_init(&b, 3, nan3, 1);
	ck_assert_int_lt(clash_contains(&b, &a, NULL, &c), 0);
	/* Over the facet budget: an 8-D outer of 60 vertices, inner's radius
	 * larger than outer's. */
	static double v8[60 * 8];
	prng r = {42};
	for (int i = 0; i < 60 * 8; i++)
		v8[i] = prng_range(&r, -1, 1);
	double o8[8] = {0};
	clash_shape_init(&a, 8, v8, 60);
	clash_shape_init(&b, 8, o8, 1);
	clash_shape_set_radius(&b, 1e-3);
	ck_assert_int_eq(clash_contains(&b, &a, NULL, &c), CLASH_ENOTSUP);
	/* ... which radius 0 does not need. */
	clash_shape_set_radius(&b, 0);
	ck_assert_int_eq(clash_contains(&b, &a, NULL, &c), CLASH_OK);
}
END_TEST

/* ---- random pairs -------------------------------------------------------- */

#define MAXV 30

typedef struct cpair {
	int dim;
	size_t ni, no;
	double in[MAXV * CLASH_MAX_DIM], out[MAXV * CLASH_MAX_DIM];
	double ri, ro;
} cpair;

/* Outer: points on an ellipsoid; inner: a smaller cloud around a point
 * inside, scaled so that it is sometimes in, sometimes just out. */
static void cpair_make(prng *r, int dim, int rounded, cpair *p)
{
	memset(p, 0, sizeof *p);
	p->dim = dim;
	p->no = (size_t)prng_int(r, dim + 2, MAXV);
	p->ni = (size_t)prng_int(r, 1, MAXV);
	double ax[CLASH_MAX_DIM], u[CLASH_MAX_DIM], c[CLASH_MAX_DIM];
	double scale = prng_log(r, 1e-2, 1e2);
	for (int k = 0; k < dim; k++)
		ax[k] = scale * prng_range(r, 0.5, 1.5);
	for (size_t i = 0; i < p->no; i++) {
		prng_direction(r, dim, u);
		for (int k = 0; k < dim; k++)
			p->out[i * (size_t)dim + k] = ax[k] * u[k];
	}
	/* Hulls of a few dozen points get thin as the dimension grows. */
	double thin = dim <= 3 ? 1.0 : 2.0 / dim;
	double s = scale * thin * prng_log(r, 0.05, 1.2);
	for (int k = 0; k < dim; k++)
		c[k] = ax[k] * thin * prng_range(r, -0.4, 0.4);
	for (size_t i = 0; i < p->ni; i++) {
		prng_direction(r, dim, u);
		double rad = pow(prng_unit(r), 1.0 / dim);
		for (int k = 0; k < dim; k++)
			p->in[i * (size_t)dim + k] = c[k] + s * rad * u[k];
	}
	if (rounded) {
		p->ri = prng_unit(r) < 0.7 ? scale * prng_range(r, 0, 0.3) : 0;
		p->ro = prng_unit(r) < 0.7 ? scale * prng_range(r, 0, 0.3) : 0;
	}
}

typedef struct ctally {
	int pairs, contained, outside, band, skipped;
	long iterations;
} ctally;

/* Judge one 2-D/3-D pair against qhull, vertex by vertex. */
static void judge_qhull(uint64_t seed, int dim, ctally *t)
{
	prng r = {seed};
	cpair p;
	cpair_make(&r, dim, prng_unit(&r) < 0.5, &p);
	clash_shape in, out;
	clash_shape_init(&in, dim, p.in, p.ni);
	clash_shape_init(&out, dim, p.out, p.no);
	clash_shape_set_radius(&in, p.ri);
	clash_shape_set_radius(&out, p.ro);
	double rho = p.ro - p.ri, size = 0;
	for (size_t i = 0; i < p.no * (size_t)dim; i++)
		size = fmax(size, fabs(p.out[i]));
	size += p.ro;
	double band = 1e-9 * size;
	/* margin_i = rho - signed distance of vertex i: >= 0 when it fits. */
	double worst = INFINITY;
	double margin[MAXV];
	for (size_t i = 0; i < p.ni; i++) {
		const double *v = p.in + i * (size_t)dim;
		oracle_answer o;
		if (oracle_query(dim, p.out, p.no, 0, v, 1, 0, &o) != ORACLE_OK) {
			t->skipped++;
			return;
		}
		/* Signed distance: outside, the distance; inside, minus the depth. */
		double sd = o.hull_overlap ? -o.hull_depth : o.hull_distance;
		margin[i] = rho - sd;
		worst = fmin(worst, margin[i]);
	}
	t->pairs++;
	clash_containment c;
	int rc = clash_contains(&in, &out, NULL, &c);
	ck_assert_msg(rc == CLASH_OK, "seed %#llx: %s", (unsigned long long)seed,
	              clash_strerror(rc));
	ck_assert_int_eq(c.converged, 1);
	t->iterations += c.iterations;
	if (worst > band) {
		t->contained++;
		ck_assert_msg(c.contained,
		              "seed %#llx %d-D: not contained, vertex %zu; worst margin %.3g",
		              (unsigned long long)seed, dim, c.outside_vertex, worst);
	} else if (worst < -band) {
		t->outside++;
		ck_assert_msg(!c.contained, "seed %#llx %d-D: contained, worst margin %.3g",
		              (unsigned long long)seed, dim, worst);
	} else {
		t->band++;
	}
	if (!c.contained) {
		ck_assert_uint_lt(c.outside_vertex, p.ni);
		ck_assert_msg(margin[c.outside_vertex] <= band,
		              "seed %#llx %d-D: vertex %zu named outside, margin %.3g",
		              (unsigned long long)seed, dim, c.outside_vertex,
		              margin[c.outside_vertex]);
	}
}

/* n-D, radius 0, against GLPK. */
static void judge_glpk(uint64_t seed, int dim, ctally *t)
{
	prng r = {seed};
	cpair p;
	cpair_make(&r, dim, 0, &p);
	clash_shape in, out;
	clash_shape_init(&in, dim, p.in, p.ni);
	clash_shape_init(&out, dim, p.out, p.no);
	int all = 1, inside[MAXV];
	for (size_t i = 0; i < p.ni; i++) {
		ck_assert_int_eq(oracle_lp_contains_point(dim, p.out, p.no, p.in + i * (size_t)dim,
		                                          &inside[i]),
		                 ORACLE_LP_OK);
		all &= inside[i];
	}
	clash_containment c;
	ck_assert_int_eq(clash_contains(&in, &out, NULL, &c), CLASH_OK);
	ck_assert_int_eq(c.converged, 1);
	t->pairs++;
	t->iterations += c.iterations;
	if (all) {
		/* Exactly in; a vertex a rounding error out could go either way,
		 * but random points are never that close. */
		t->contained++;
		ck_assert_msg(c.contained, "seed %#llx %d-D: vertex %zu named outside",
		              (unsigned long long)seed, dim, c.outside_vertex);
	} else {
		t->outside++;
		ck_assert_msg(!c.contained, "seed %#llx %d-D: contained", (unsigned long long)seed,
		              dim);
		ck_assert_msg(!inside[c.outside_vertex], "seed %#llx %d-D: vertex %zu is inside",
		              (unsigned long long)seed, dim, c.outside_vertex);
	}
}

START_TEST(random_qhull)
{
	int dim = 2 + _i;
	ctally t = {0};
	for (int i = 0; i < 600; i++) {
		prng r = {UINT64_C(0xC0417A1) * (uint64_t)dim + (uint64_t)i};
		judge_qhull(prng_next(&r), dim, &t);
	}
	printf("contains random %d-D vs qhull: %d pairs (%d skipped): %d contained, %d not, %d in "
	       "the band; iterations mean %.2f\n",
	       dim, t.pairs, t.skipped, t.contained, t.outside, t.band,
	       t.pairs ? (double)t.iterations / t.pairs : 0.0);
	ck_assert_int_gt(t.contained, 100);
	ck_assert_int_gt(t.outside, 100);
}
END_TEST

START_TEST(random_glpk)
{
	int dim = _i == 0 ? 4 : 6;
	ctally t = {0};
	for (int i = 0; i < 150; i++) {
		prng r = {UINT64_C(0xC0417B2) * (uint64_t)dim + (uint64_t)i};
		judge_glpk(prng_next(&r), dim, &t);
	}
	oracle_lp_release();
	printf("contains random %d-D vs GLPK: %d pairs: %d contained, %d not; iterations mean "
	       "%.2f\n",
	       dim, t.pairs, t.contained, t.outside,
	       t.pairs ? (double)t.iterations / t.pairs : 0.0);
	ck_assert_int_gt(t.contained, 15);
	ck_assert_int_gt(t.outside, 15);
}
END_TEST

/* ---- the wire ------------------------------------------------------------ */

static json_t *reply(const char *text, int *status)
{
	proto_reply rep;
	ck_assert_int_eq(proto_contains_reply(text, strlen(text), &rep), 0);
	*status = rep.status;
	json_t *j = json_loads(rep.body, 0, NULL);
	ck_assert_msg(j != NULL, "not JSON: %s", rep.body);
	proto_reply_free(&rep);
	return j;
}

static void expect_problem(const char *text, int status, const char *pointer)
{
	int st;
	json_t *j = reply(text, &st);
	ck_assert_msg(st == status, "%s: status %d, expected %d", text, st, status);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), status);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	if (pointer)
		ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "%s: pointer %s, expected %s", text,
		              ptr ? ptr : "(none)", pointer);
	json_decref(j);
}

#define TRI "[[0,0],[1,0],[0,1]]"

START_TEST(wire)
{
	proto_init();
	int st;
	json_t *j =
		reply("{\"inner\":{\"vertices\":[[0.1,0.1],[0.2,0.3]]},\"outer\":{\"vertices\":" TRI
	              "}}",
	              &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_true(json_object_get(j, "contained")));
	ck_assert(json_is_null(json_object_get(j, "outside_vertex")));
	ck_assert(!json_object_get(j, "outside_part"));
	ck_assert(json_is_integer(json_object_get(j, "iterations")));
	ck_assert(json_is_true(json_object_get(j, "converged")));
	ck_assert_uint_eq(json_object_size(j), 4);
	json_decref(j);
	j = reply(
		"{\"inner\":{\"vertices\":[[0.1,0.1],[0.2,0.3],[0.9,0.9]],\"pose\":{\"angle\":0}},"
		"\"outer\":{\"vertices\":" TRI ",\"radius\":0.1},\"tolerance\":1e-9}",
		&st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "contained")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "outside_vertex")), 2);
	ck_assert(json_is_true(json_object_get(j, "converged")));
	json_decref(j);

	/* A compound inner: the part and its vertex. */
	j = reply("{\"inner\":{\"parts\":[{\"vertices\":[[0.1,0.1]]},{\"vertices\":[[0.2,0.2],"
	          "[0.7,0.7]]}]},\"outer\":{\"vertices\":" TRI "}}",
	          &st);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_false(json_object_get(j, "contained")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "outside_part")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "outside_vertex")), 1);
	json_decref(j);
	j = reply("{\"inner\":{\"parts\":[{\"vertices\":[[0.1,0.1]]}]},\"outer\":{\"vertices\":" TRI
	          "}}",
	          &st);
	ck_assert(json_is_true(json_object_get(j, "contained")));
	ck_assert(!json_object_get(j, "outside_part"));
	json_decref(j);
	expect_problem(
		"{\"inner\":{\"vertices\":[[0.1,0.1]]},\"outer\":{\"parts\":[{\"vertices\":" TRI
		"}]}}",
		422, "/outer");
	expect_problem("", 400, NULL);
	expect_problem("{\"inner\":", 400, "/inner");
	expect_problem("[1]", 422, "");
	expect_problem("{\"inner\":{\"vertices\":" TRI "}}", 422, "");
	expect_problem("{\"outer\":{\"vertices\":" TRI "}}", 422, "");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":" TRI
	               "},\"b\":1}",
	               422, "/b");
	expect_problem("{\"inner\":{\"vertices\":[[0,0],[1,\"x\"]]},\"outer\":{\"vertices\":" TRI
	               "}}",
	               422, "/inner/vertices/1/1");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":[[0,0,0]]}}", 422,
	               "/outer/vertices/0");
	expect_problem("{\"inner\":{\"vertices\":" TRI
	               ",\"radius\":-1},\"outer\":{\"vertices\":" TRI "}}",
	               422, "/inner/radius");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":" TRI
	               ",\"pose\":{\"rotation\":[0,0,0,1]}}}",
	               422, "/outer/pose/rotation");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":" TRI
	               "},\"tolerance\":0}",
	               422, "/tolerance");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":" TRI
	               "},\"tolerance\":\"1\"}",
	               422, "/tolerance");
	expect_problem("{\"inner\":{\"vertices\":" TRI "},\"outer\":{\"vertices\":" TRI
	               "},\"inner\":1}",
	               400, "/inner");
	/* Over the facet budget: 422 naming outer's vertices. */
	char *big = malloc(65536);
	ck_assert_ptr_nonnull(big);
	size_t n = (size_t)snprintf(big, 65536,
	                            "{\"inner\":{\"vertices\":[[0,0,0,0,0,0,0,0]],"
	                            "\"radius\":0.001},\"outer\":{\"vertices\":[");
	prng r = {7};
	for (int i = 0; i < 60; i++) {
		n += (size_t)snprintf(big + n, 65536 - n, "%s[", i ? "," : "");
		for (int k = 0; k < 8; k++)
			n += (size_t)snprintf(big + n, 65536 - n, "%s%.6f", k ? "," : "",
			                      prng_range(&r, -1, 1));
		n += (size_t)snprintf(big + n, 65536 - n, "]");
	}
	snprintf(big + n, 65536 - n, "]}}");
	expect_problem(big, 422, "/outer/vertices");
	free(big);
}
END_TEST

/* ---- the command line tool ------------------------------------------------ */

START_TEST(cli)
{
	char in[] = "/tmp/clash-contains-XXXXXX";
	int fd = mkstemp(in);
	ck_assert_int_ge(fd, 0);
	const char text[] =
		"{\"inner\":{\"vertices\":[[0.1,0.1]]},\"outer\":{\"vertices\":" TRI "}}\n"
		"\n"
		"{\"inner\":{\"vertices\":[[0.1,0.1],[2,2]]},\"outer\":{\"vertices\":" TRI "}}\r\n"
		"{\"inner\":1}\n"
		"{\"inner\":{\"vertices\":[[0.3,0.3]],\"radius\":0.2},\"outer\":{\"vertices\":" TRI
		"}}\n";
	ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s/clash contains %s", check_build_dir(), in);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	char line[4096];
	const char *want[] = {"{\"contained\":true,\"outside_vertex\":null,",
	                      "{\"contained\":false,\"outside_vertex\":1,", "\"status\":422",
	                      "{\"contained\":true,"};
	int k = 0;
	while (fgets(line, sizeof line, f)) {
		ck_assert_int_lt(k, 4);
		ck_assert_msg(strstr(line, want[k]) != NULL, "line %d: %s", k, line);
		k++;
	}
	int status = pclose(f);
	unlink(in);
	ck_assert_int_eq(k, 4);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1); /* the 422 */
	/* The 0.3 disc touches the hypotenuse x + y = 1 at depth 0.4/sqrt(2)
	 * = 0.283 > 0.2; the legs at 0.3. */
}
END_TEST

/* ---- clashd's route ------------------------------------------------------ */

/* POST `body` to `path`: the answer in *r. */
static void post(const char *path, const char *body, hresp *r)
{
	http_do("POST", path, JSON_HEADERS, body, strlen(body), r);
}

START_TEST(http_route)
{
	server_start_with((const char *const[]){"--threads", "1", NULL}, NULL);
	hresp r;
	post("/v1/contains",
	     "{\"inner\":{\"vertices\":[[0.1,0.1]]},\"outer\":{\"vertices\":" TRI "}}", &r);
	ck_assert_msg(r.status == 200, "%d %s", r.status, r.body);
	ck_assert_msg(strncmp(r.body, "{\"contained\":true,\"outside_vertex\":null,", 40) == 0,
	              "%s", r.body);
	hresp_free(&r);
	post("/v1/contains", "{\"inner\":{\"vertices\":[[0.1,0.1]]}}", &r);
	ck_assert_msg(r.status == 422, "%d %s", r.status, r.body);
	ck_assert_ptr_nonnull(strstr(r.head, "application/problem+json"));
	hresp_free(&r);
	/* The query route is unchanged, and simplex answers through it. */
	post("/v1/query",
	     "{\"a\":{\"vertices\":[[0,0]]},\"b\":{\"vertices\":[[3,4]]},\"method\":\"simplex\"}",
	     &r);
	ck_assert_msg(r.status == 200, "%d %s", r.status, r.body);
	const char *lb = strstr(r.body, "\"distance_lower_bound\":");
	ck_assert_ptr_nonnull(lb);
	ck_near(strtod(lb + 23, NULL), 5.0, 1e-12);
	hresp_free(&r);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static void route_teardown(void)
{
	if (srv.pid > 0)
		assert_clean_exit(server_stop_within(20));
}

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

static void described(const char *where, json_t *schema)
{
	const char *name;
	json_t *prop;
	json_object_foreach(json_object_get(schema, "properties"), name, prop)
		ck_assert_msg(json_is_string(json_object_get(prop, "description")),
		              "%s.%s has no description", where, name);
}

START_TEST(contract)
{
	proto_init();
	json_t *api = contract_doc_load();

	json_t *schemas = AT(api, "components", "schemas");
	described("ContainsQuery", AT(schemas, "ContainsQuery"));
	described("ContainsResult", AT(schemas, "ContainsResult"));
	json_t *post = AT(api, "paths", "/v1/contains", "post");
	const char *codes[] = {"200", "400", "413", "415", "422"};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		AT(post, "responses", codes[i]);
	/* The request members are the decoder's: each, given a wrong type, is
	 * a bad value, never an unknown member. */
	const char *name;
	json_t *v;
	json_object_foreach(AT(schemas, "ContainsQuery", "properties"), name, v) {
		char text[256], ptr[64];
		snprintf(text, sizeof text, "{\"%s\":{\"zz\":1}}", name);
		snprintf(ptr, sizeof ptr, "/%s", name);
		int st;
		json_t *j = reply(text, &st);
		const char *d = json_string_value(json_object_get(j, "detail"));
		ck_assert_int_eq(st, 422);
		ck_assert_msg(!strstr(d, "unknown member: a containment"),
		              "%s unknown to the decoder", name);
		json_decref(j);
	}
	/* Every example is answered, with the documented members, and as
	 * shown where a response example exists. */
	json_t *examples = AT(post, "requestBody", "content", "application/json", "examples");
	json_t *shown = AT(post, "responses", "200", "content", "application/json", "examples");
	json_t *ex;
	ck_assert_uint_ge(json_object_size(examples), 2);
	json_object_foreach(examples, name, ex) {
		char *text = json_dumps(AT(ex, "value"), JSON_COMPACT);
		int st;
		json_t *res = reply(text, &st);
		ck_assert_msg(st == 200, "example %s: %d", name, st);
		json_t *props = AT(schemas, "ContainsResult", "properties");
		const char *m;
		json_object_foreach(res, m, v)
			ck_assert_msg(json_object_get(props, m) != NULL, "%s: %s undocumented",
			              name, m);
		json_t *req = AT(schemas, "ContainsResult", "required");
		for (size_t i = 0; i < json_array_size(req); i++)
			ck_assert(json_object_get(res, json_string_value(json_array_get(req, i))));
		json_t *want = json_object_get(json_object_get(shown, name), "value");
		if (want) {
			/* Numbers compared by value: re-read the answer as the YAML was. */
			char *body = json_dumps(res, JSON_COMPACT);
			json_t *got = json_loads(body, JSON_DECODE_INT_AS_REAL, NULL);
			ck_assert_msg(json_equal(want, got), "example %s is answered %s", name,
			              body);
			json_decref(got);
			free(body);
		}
		json_decref(res);
		free(text);
	}
	json_decref(api);
}
END_TEST

/* ---- findings of make fuzz (tests/fuzz/findings/core/) ------------------ */

/* A convex shape contains itself.  The shapes decoded from the findings
 * (FUZZ_CORE_PRINT lists them): flat hulls with points 1.5e-8 around a
 * vertex, where GJK's point query stopped short of the vertex (separated
 * 4e-13 or 1.5e-10 away, unconverged) and that was taken for "outside";
 * and a rounded shape with a sheared pose. */
START_TEST(self_containment)
{
	/* clang-format off */
	static const double flat4[] = {
		0.00024424493312835693, 0, 1.4901161193847656e-08, 0,
		0, -3.814697265625e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
		3.7997961044311523e-06, 0, 0, 0,
		0, 0, 0, 0,
		-0.00016021728515625, -0.00015708804130554199, 3.1888484954833984e-06,
		-6.2584877014160156e-07,
		-1.4901161193847656e-08, -1.4901161193847656e-08, 0, 0,
		0, 0, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -0.00015641748905181885,
		-0.0001570284366607666,
		-0.0001570284366607666, 0.00024424493312835693, 0, 1.4901161193847656e-08,
		0, 0, 0, 0,
		0, 0, 0, 0,
	};
	static const double flat5[] = {
		7.62939453125e-06, 7.62939453125e-05, 1.0430812835693359e-07, 0, 0.000164031982421875,
		9.6857547760009766e-07, 0, 1.1920928955078125e-07, 7.0035457611083984e-07,
		3.814697265625e-06,
		0.000484466552734375, -0.00043873488903045654, -0.0001872330904006958,
		-6.5565109252929688e-07, -1.4901161193847656e-08,
		0, 0, 0, 0, -3.7997961044311523e-06,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, 0.00018002092838287354,
		-1.4901161193847656e-08, -1.4901161193847656e-08, 2.9802322387695312e-08, 0,
		-0.0004882514476776123,
		3.7997961044311523e-06, 0, 0, 0, 0,
		0, 0, 0, 0, 0,
	};
	static const double flat5_far[] = {
		-1.4901161193847656e-08, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, 3.7997961044311523e-06, 0,
		-0.00024403631687164307,
		0, 0, 8.9406967163085938e-08, 0, 0,
		-0.00024403631687164307, 0, 0, 0, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08, -8.7752938270568848e-05,
		5.3450465202331543e-05, 1.0430812835693359e-07,
		0, 0, 0, 0, 0.000244140625,
		0.000244140625, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, 0.00032806396484375, 0.00032895803451538086,
		0.0003293454647064209, 0.0003293454647064209,
		0.0003293454647064209, 9.5367431640625e-07, 9.5367431640625e-07, 9.5367431640625e-07,
		9.5367431640625e-07,
		0, -0.00024403631687164307, 0, 0, 4.4703483581542969e-08,
		1.4901161193847656e-08, 0, 9.5367431640625e-07, 0, 0,
		0, 0, 0, 0, 0,
	};
	static const double flat5_b[] = {
		1.1473894119262695e-05, -1.4901161193847656e-08, -1.4901161193847656e-08, 0,
		7.62939453125e-05,
		-3.7848949432373047e-06, -1.4901161193847656e-08, -1.4901161193847656e-08,
		-1.4901161193847656e-08, -0.00048448145389556885,
		0, -0.000244140625, 6.8545341491699219e-07, -0.00047488510608673096,
		5.9604644775390625e-08,
		6.7055225372314453e-07, 0, 0, 0, 0.00031094253063201904,
		-0.00047488510608673096, 1.952052116394043e-06, 0, 1.4901161193847656e-08,
		7.9274177551269531e-06,
		0, 0, -2.956390380859375e-05, -0.00047303736209869385, 0,
		-0.00047488510608673096, 5.9604644775390625e-08, 0, 0, -0.000476837158203125,
		1.4901161193847656e-08, 0, 0, 0, 2.5331974029541016e-07,
		2.86102294921875e-06, 0, 1.9073486328125e-06, 9.5367431640625e-07,
		2.4586915969848633e-06,
	};
	static const double rounded3[] = {
		0, 0, 260.671875,
		0, 0, 188,
		0, -0.015625, -0.015625,
		-0.015625, -0.015625, -0.015625,
		-0.015625, -0.015625, -0.015625,
		-0.015625, -0.015625, -3.25,
		-0.015625, 0.125, 0,
		0.03125, 0, -0.015625,
	};
	/* clang-format on */
	clash_shape s;
	/* contains-self-4d.bin */
	clash_shape_init(&s, 4, flat4, 11);
	ck_assert(contains(&s, &s).contained);
	/* contains-self-5d.bin */
	clash_shape_init(&s, 5, flat5, 8);
	ck_assert(contains(&s, &s).contained);
	/* contains-self-5d-far.bin: 6e-4 across, 2.7e8 from the origin */
	clash_shape_init(&s, 5, flat5_far, 12);
	clash_shape_set_translation(&s, (double[]){0, 22873, 269893632, 0, 0});
	ck_assert(contains(&s, &s).contained);
	/* contains-self-5d-rounded.bin (its inner is rounded; this is outer) */
	clash_shape_init(&s, 5, flat5_b, 9);
	ck_assert(contains(&s, &s).contained);
	/* contains-self-3d-rounded-matrix.bin: radius 5.9375, sheared */
	clash_shape_init(&s, 3, rounded3, 8);
	clash_shape_set_radius(&s, 5.9375);
	const double m[16] = {0.96875, -0.03125, -2.03125, 0, -0.03125, 0.96875, -0.03125, 0,
	                      0,       0,        -3,       0, 1,        0,       0,        1};
	ck_assert_int_eq(clash_shape_set_matrix(&s, m), CLASH_OK);
	ck_assert(contains(&s, &s).contained);
}
END_TEST

/* An iteration cap too small to place a vertex leaves the answer unsure:
 * converged 0, and neither "contained" nor an outside vertex claimed (an
 * inside vertex is never named as outside).  A vertex outside along an
 * axis is still found surely.  The small box is turned by 45 degrees about
 * z: an axis-aligned one has its vertices on the big box's diagonals,
 * where the LP's Dantzig pricing places a vertex in one pivot (the
 * opposite corner), within any cap. */
START_TEST(iteration_cap)
{
	double big[24], small[24];
	box(big, 0, 1);
	box(small, -0.25, 0.25);
	clash_shape in, out;
	clash_shape_init(&in, 3, small, 8);
	const double turn[4] = {0, 0, 0.38268343236508978, 0.92387953251128674}; /* 45 deg, z */
	ck_assert_int_eq(clash_shape_set_quaternion(&in, turn), CLASH_OK);
	clash_shape_set_translation(&in, (double[]){0.5, 0.5, 0.5});
	clash_shape_init(&out, 3, big, 8);
	ck_assert(contains(&in, &out).contained); /* no cap: sure */
	clash_options opt = {0};
	opt.max_iterations = 1;
	clash_containment c;
	ck_assert_int_eq(clash_contains(&in, &out, &opt, &c), CLASH_OK);
	ck_assert_int_eq(c.converged, 0);
	ck_assert_int_eq(c.contained, 0);
	ck_assert_int_eq(c.has_outside_vertex, 0);
	/* The shape in itself, capped: contained or unsure, never "not". */
	ck_assert_int_eq(clash_contains(&out, &out, &opt, &c), CLASH_OK);
	ck_assert(c.contained ? c.converged : !c.converged && !c.has_outside_vertex);
	/* Moved out along x by 0.5: the axis test is sure at any cap. */
	clash_shape_set_translation(&in, (double[]){1.0, 0.5, 0.5});
	ck_assert_int_eq(clash_contains(&in, &out, &opt, &c), CLASH_OK);
	ck_assert_int_eq(c.converged, 1);
	ck_assert_int_eq(c.contained, 0);
	ck_assert_int_eq(c.has_outside_vertex, 1);
}
END_TEST

static Suite *contains_suite(void)
{
	Suite *s = suite_create("contains");
	ck_case(s, "closed", 0,
	        CK_TESTS(closed_forms, compound_inner, bad_input, wire, cli, contract,
	                 self_containment, iteration_cap));
	TCase *tc = ck_case(s, "random", 60, NULL);
	ck_loops(tc, 2, CK_TESTS(random_qhull, random_glpk));
	tc = ck_case(s, "route", 20, CK_TESTS(http_route));
	tcase_add_checked_fixture(tc, NULL, route_teardown);
	return s;
}

CHECK_SUITE(contains_suite)
