/*
 * check_penetration.c — suite "penetration": the exact penetration depth
 * (core/epa.c, through clash_gjk) against closed forms.
 *
 * Every expected depth, normal and deepest point here is worked out by hand:
 * boxes overlapping by known amounts along each axis (and exactly
 * face-to-face, and stacked so they only touch), spheres and capsules as
 * rounded points and segments, a point inside a tetrahedron (the distance to
 * the nearest face), a box 25 times larger than the other, 2-D polygons,
 * intervals in 1-D.  Axis-aligned boxes have a closed form in any placement
 * (K = A - B is a box; the depth is its nearest face), so random ones on an
 * integer grid, full of exact ties, touching faces and coplanar vertices,
 * are checked by the thousand, also turned by a common rotation.  The
 * failures other libraries are known for (bench/README.md's peers: flipped
 * normals on touching or face-face boxes, NaN, hangs, "origin outside the
 * polytope") each have a test.  Randomized comparison with the qhull oracle
 * is in check_random_pairs.c.
 *
 * Every answer also passes the invariants of any penetration: finite; a
 * unit normal; depth >= depth_lower_bound; depth_a - depth_b = depth *
 * normal; depth_a extreme along the normal in a and depth_b against it in b
 * (so both on their surfaces); and, re-querying with b translated along the
 * normal, depth plus a hair parts the shapes while depth minus a hair does
 * not.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "clash.h"
#include "prng.h"
#include "proto.h"

/* ---- helpers ------------------------------------------------------------ */

/* 8 vertices of the box [c - h, c + h] in 3-D. */
static void box3(double *v, const double *c, const double *h)
{
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 3; k++)
			v[i * 3 + k] = c[k] + (((i >> k) & 1) ? h[k] : -h[k]);
}

/* 4 vertices of the rectangle [c - h, c + h] in 2-D. */
static void box2(double *v, const double *c, const double *h)
{
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 2; k++)
			v[i * 2 + k] = c[k] + (((i >> k) & 1) ? h[k] : -h[k]);
}

static double dot(const double *x, const double *y, int dim)
{
	double s = 0;
	for (int k = 0; k < dim; k++)
		s += x[k] * y[k];
	return s;
}

/* World coordinates of vertex i of s (pose applied). */
static void world(const clash_shape *s, size_t i, double *x)
{
	int n = s->dim;
	const double *v = s->vertices + i * (size_t)n;
	for (int r = 0; r < n; r++) {
		x[r] = s->posed ? s->translation[r] : 0;
		for (int k = 0; k < n; k++)
			x[r] += (s->posed ? s->linear[k * n + r] : (r == k)) * v[k];
	}
}

/* max over the vertices of s of u.x (the support value without radius). */
static double support_value(const clash_shape *s, const double *u)
{
	double best = -INFINITY, x[CLASH_MAX_DIM];
	for (size_t i = 0; i < s->count; i++) {
		world(s, i, x);
		best = fmax(best, dot(u, x, s->dim));
	}
	return best;
}

/* clash_gjk with b translated by t: intersecting? */
static int moved_intersecting(const clash_shape *a, const clash_shape *b, const double *t)
{
	clash_shape m = *b;
	double tr[CLASH_MAX_DIM];
	for (int k = 0; k < b->dim; k++)
		tr[k] = (b->posed ? b->translation[k] : 0) + t[k];
	ck_assert_int_eq(clash_shape_set_translation(&m, tr), CLASH_OK);
	clash_result r;
	ck_assert_int_eq(clash_gjk(a, &m, NULL, &r), CLASH_OK);
	return r.intersecting;
}

/*
 * The invariants of any penetration answer (see the file comment); `size`
 * is the scale of the scene for the tolerances.  Returns the result.
 */
static clash_result ck_penetration_opt(const clash_shape *a, const clash_shape *b,
                                       const clash_options *opt, double size)
{
	clash_result r;
	ck_assert_int_eq(clash_gjk(a, b, opt, &r), CLASH_OK);
	int n = a->dim;
	ck_assert_msg(r.intersecting, "expected intersecting shapes");
	ck_assert_msg(r.has & CLASH_HAS_DEPTH, "no depth (has %#x)", r.has);
	ck_assert(isfinite(r.depth));
	/* Positions carry the rounding of their own magnitude too. */
	double coord = 0;
	for (int k = 0; k < n; k++)
		coord = fmax(coord, fabs(r.depth_a[k]));
	double tol = 1e-12 * size + 8 * DBL_EPSILON * coord;
	double len = 0;
	for (int k = 0; k < n; k++) {
		ck_assert(isfinite(r.depth_normal[k]) && isfinite(r.depth_a[k]) &&
		          isfinite(r.depth_b[k]));
		len += r.depth_normal[k] * r.depth_normal[k];
	}
	ck_near(sqrt(len), 1.0, 1e-14);
	ck_assert_msg(r.depth >= 0 && r.depth >= r.depth_lower_bound - tol,
	              "depth %.17g, depth_lower_bound %.17g", r.depth, r.depth_lower_bound);
	const double *u = r.depth_normal;
	for (int k = 0; k < n; k++)
		ck_near(r.depth_a[k] - r.depth_b[k], r.depth * u[k], 4 * tol);
	/* On the surfaces facing each other: a's point as far along u as a
	 * reaches, b's as far against it as b reaches. */
	double mu[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		mu[k] = -u[k];
	ck_near(dot(u, r.depth_a, n), support_value(a, u) + a->radius, 4 * tol);
	ck_near(dot(mu, r.depth_b, n), support_value(b, mu) + b->radius, 4 * tol);
	/* The move: depth + hair parts them, depth - hair does not. */
	double hair = 1e-9 * size + 64 * DBL_EPSILON * coord, t[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		t[k] = (r.depth + hair) * u[k];
	ck_assert_msg(!moved_intersecting(a, b, t),
	              "b moved by depth %.17g + hair still intersects", r.depth);
	if (r.depth > hair && r.converged) {
		for (int k = 0; k < n; k++)
			t[k] = (r.depth - hair) * u[k];
		ck_assert_msg(moved_intersecting(a, b, t), "b moved by depth %.17g - hair is apart",
		              r.depth);
	}
	return r;
}

static clash_result ck_penetration(const clash_shape *a, const clash_shape *b, double size)
{
	clash_result r = ck_penetration_opt(a, b, NULL, size);
	ck_assert_msg(r.converged, "not converged");
	return r;
}

static void shapes(clash_shape *a, clash_shape *b, int dim, const double *va, size_t na,
                   const double *vb, size_t nb)
{
	ck_assert_int_eq(clash_shape_init(a, dim, va, na), CLASH_OK);
	ck_assert_int_eq(clash_shape_init(b, dim, vb, nb), CLASH_OK);
}

static void ck_vec(const double *x, const double *want, int dim, double tol)
{
	for (int k = 0; k < dim; k++)
		ck_assert_msg(fabs(x[k] - want[k]) <= tol, "component %d: %.17g, expected %.17g", k,
		              x[k], want[k]);
}

/* ---- boxes ---------------------------------------------------------------- */

/* a = [-1,1]^3; b a cube of half-size 0.5 pushed into a's face along axis k
 * (sign s) by delta, and off-centre by 0.1 along the other axes, so the
 * least overlap is delta along s e_k. */
START_TEST(boxes_each_axis)
{
	static const double deltas[] = {0.3, 1e-3, 1e-9, 0.999};
	double va[24], vb[24], ha[3] = {1, 1, 1}, hb[3] = {0.5, 0.5, 0.5}, ca[3] = {0, 0, 0};
	box3(va, ca, ha);
	for (int k = 0; k < 3; k++)
		for (int s = -1; s <= 1; s += 2)
			for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
				double d = deltas[i], cb[3] = {0.1, 0.1, 0.1};
				cb[k] = s * (1.5 - d);
				box3(vb, cb, hb);
				clash_shape a, b;
				shapes(&a, &b, 3, va, 8, vb, 8);
				clash_result r = ck_penetration(&a, &b, 3);
				ck_near(r.depth, d, 1e-14);
				double n[3] = {0, 0, 0};
				n[k] = s;
				ck_vec(r.depth_normal, n, 3, 1e-14);
				/* Deepest points: on a's face x_k = s and b's face
				 * x_k = s (1 - d), inside the overlap laterally. */
				ck_near(r.depth_a[k], s, 1e-14);
				ck_near(r.depth_b[k], s * (1 - d), 1e-14);
				for (int j = 0; j < 3; j++)
					if (j != k) {
						ck_near(r.depth_a[j], r.depth_b[j], 1e-14);
						ck_assert(r.depth_a[j] >= -0.4 - 1e-14 &&
						          r.depth_a[j] <= 0.6 + 1e-14);
					}
			}
}
END_TEST

/* Two unit cubes stacked exactly (b on a's top face): they touch, depth 0,
 * and the normal is +z (b moves up to part), never flipped; also stacked
 * with b below, half off the face, and overlapping by a hair. */
START_TEST(boxes_stacked_touching)
{
	double va[24], vb[24], h[3] = {0.5, 0.5, 0.5}, ca[3] = {0, 0, 0};
	box3(va, ca, h);
	static const double offsets[][3] = {{0, 0, 1},       {0.5, 0.25, 1}, {0, 0, -1},
	                                    {0.3, -0.2, -1}, {1, 0, 0},      {0, -1, 0.7}};
	for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
		for (int over = 0; over < 3; over++) {
			/* over 0: exactly touching; 1: 1e-10 overlap; 2: 0.25. */
			double eps = over == 0 ? 0 : over == 1 ? 1e-10 : 0.25;
			double cb[3], n[3];
			int k = fabs(offsets[i][2]) == 1 ? 2 : fabs(offsets[i][0]) == 1 ? 0 : 1;
			for (int j = 0; j < 3; j++) {
				n[j] = j == k ? offsets[i][j] : 0;
				cb[j] = offsets[i][j] - eps * n[j];
			}
			box3(vb, cb, h);
			clash_shape a, b;
			shapes(&a, &b, 3, va, 8, vb, 8);
			clash_result r = ck_penetration(&a, &b, 2);
			ck_near(r.depth, eps, 1e-14);
			ck_vec(r.depth_normal, n, 3, 1e-14);
			ck_near(r.depth_a[k], 0.5 * n[k], 1e-14);
			ck_near(r.depth_b[k], 0.5 * n[k] - eps * n[k], 1e-14);
		}
}
END_TEST

/* Touching along an edge or at a corner: depth 0; the normal may be any
 * direction of the normal cone, so it must lie in it (all its components
 * point away from a, towards b). */
START_TEST(boxes_edge_and_corner_contact)
{
	double va[24], vb[24], h[3] = {0.5, 0.5, 0.5}, ca[3] = {0, 0, 0};
	box3(va, ca, h);
	static const double offsets[][3] = {{1, 0, 1},
	                                    {1, 1, 1},
	                                    {-1, 1, 0},
	                                    {1, -1, -1},
	                                    {1, 0.5, 1}};
	for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
		box3(vb, offsets[i], h);
		clash_shape a, b;
		shapes(&a, &b, 3, va, 8, vb, 8);
		clash_result r = ck_penetration(&a, &b, 2);
		ck_near(r.depth, 0, 1e-14);
		for (int k = 0; k < 3; k++) {
			if (fabs(offsets[i][k]) == 1)
				ck_assert_msg(r.depth_normal[k] * offsets[i][k] >= -1e-14,
				              "normal component %d = %g points into a", k,
				              r.depth_normal[k]);
			else
				ck_near(r.depth_normal[k], 0, 1e-14);
		}
	}
}
END_TEST

/* Exactly coincident boxes, and a box centred in a larger one: the depth is
 * the smallest gap between the faces plus the inner box's extent. */
START_TEST(boxes_nested)
{
	double va[24], vb[24], ha[3] = {2, 3, 4}, hb[3] = {0.5, 0.25, 1}, c0[3] = {0, 0, 0};
	box3(va, c0, ha);
	clash_shape a, b;
	shapes(&a, &b, 3, va, 8, va, 8);
	clash_result r = ck_penetration(&a, &b, 10);
	ck_near(r.depth, 4, 1e-14); /* the shortest axis is x, 2 + 2 */
	ck_near(fabs(r.depth_normal[0]), 1, 1e-14);
	double cb[3] = {0.5, 0, 0};
	box3(vb, cb, hb);
	shapes(&a, &b, 3, va, 8, vb, 8);
	r = ck_penetration(&a, &b, 10);
	/* b's x extent [0, 1] leaves a at x = 2: move 2 along +x; y: 3.25 + ..;
	 * the least is along +x: 2 - 0 = 2. */
	ck_near(r.depth, 2, 1e-14);
	double n[3] = {1, 0, 0};
	ck_vec(r.depth_normal, n, 3, 1e-14);
}
END_TEST

/* A 5 m box and a 0.2 m box (25x), the small one sunk 0.05 into the big
 * one's top face, at its centre, near an edge and at a corner; and the
 * other way round (the big one is b). */
START_TEST(boxes_25x)
{
	double va[24], vb[24], hbig[3] = {2.5, 2.5, 2.5}, hsmall[3] = {0.1, 0.1, 0.1};
	double c0[3] = {0, 0, 0};
	static const double xy[][2] = {{0, 0},
	                               {2.35, 0.3},
	                               {2.35, -2.38},
	                               {-2.45, 2.45},
	                               {2.57, 0}};
	for (size_t i = 0; i < sizeof xy / sizeof xy[0]; i++)
		for (int swap = 0; swap < 2; swap++) {
			double cs[3] = {xy[i][0], xy[i][1], 2.5 + 0.1 - 0.05};
			box3(va, c0, hbig);
			box3(vb, cs, hsmall);
			clash_shape a, b;
			if (!swap)
				shapes(&a, &b, 3, va, 8, vb, 8);
			else
				shapes(&a, &b, 3, vb, 8, va, 8);
			clash_result r = ck_penetration(&a, &b, 5);
			/* Where the small box overhangs an edge by less than 0.05 of
			 * its width, sliding it off sideways is shorter. */
			double side = INFINITY;
			for (int k = 0; k < 2; k++)
				side = fmin(side, 2.5 + 0.1 - fabs(xy[i][k]));
			double want = fmin(0.05, side);
			ck_near(r.depth, want, 1e-13);
			if (want == 0.05) {
				ck_near(r.depth_normal[2], swap ? -1 : 1, 1e-13);
			}
		}
}
END_TEST

/* Boxes turned by a common rotation keep the depth of the unturned pair. */
START_TEST(boxes_turned)
{
	double va[24], vb[24], ha[3] = {1, 0.7, 0.4}, hb[3] = {0.3, 0.5, 0.6}, ca[3] = {0, 0, 0};
	double cb[3] = {1.2, 0.3, -0.1};
	box3(va, ca, ha);
	box3(vb, cb, hb);
	/* Overlaps along x, y, z: 1.3 - 1.2 = 0.1 (+x), 1.2 - 0.3 = 0.9, 1.0 - 0.1 = 0.9. */
	double q[4] = {0.2, -0.4, 0.5, 0.0};
	q[3] = sqrt(1 - q[0] * q[0] - q[1] * q[1] - q[2] * q[2]);
	clash_shape a, b;
	shapes(&a, &b, 3, va, 8, vb, 8);
	double t0[3] = {0, 0, 0};
	ck_assert_int_eq(clash_shape_set_quaternion(&a, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&a, t0), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_quaternion(&b, q), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_translation(&b, t0), CLASH_OK);
	clash_result r = ck_penetration(&a, &b, 3);
	ck_near(r.depth, 0.1, 1e-14);
	/* The normal is the turned +x axis: the first column of a's rotation. */
	ck_vec(r.depth_normal, a.linear, 3, 1e-14);
}
END_TEST

/* Random axis-aligned boxes on an integer grid (exact ties, touching and
 * coplanar faces everywhere): K = A - B is the box [loA - hiB, hiA - loB],
 * so the depth is the least of its 2n face distances from the origin.  Also
 * in 2-D, and turned by a common rotation in 3-D (the depth is kept). */
static void grid_boxes(int dim, int turned)
{
	prng r = {UINT64_C(0xB0B0) + (uint64_t)dim * 7 + (uint64_t)turned};
	int tested = 0, touching = 0;
	for (int it = 0; it < 3000; it++) {
		double c[2][3], h[2][3], v[2][24];
		for (int s = 0; s < 2; s++)
			for (int k = 0; k < dim; k++) {
				h[s][k] = prng_int(&r, 1, 4) * 0.5;
				c[s][k] = prng_int(&r, -4, 4) * 0.5;
			}
		double depth = INFINITY;
		int axis = -1, sign = 0, unique = 1;
		for (int k = 0; k < dim; k++) {
			double lo = c[0][k] - h[0][k] - (c[1][k] + h[1][k]);
			double hi = c[0][k] + h[0][k] - (c[1][k] - h[1][k]);
			if (lo > 0 || hi < 0) {
				depth = -1; /* apart */
				break;
			}
			double cand[2] = {hi, -lo};
			for (int sg = 0; sg < 2; sg++) {
				if (cand[sg] < depth) {
					depth = cand[sg];
					axis = k;
					sign = sg ? -1 : 1;
					unique = 1;
				} else if (cand[sg] == depth) {
					unique = 0;
				}
			}
		}
		if (depth < 0)
			continue;
		/* B moves by hi along +e_k: hi is A's top minus B's bottom. */
		for (int s = 0; s < 2; s++)
			if (dim == 3)
				box3(v[s], c[s], h[s]);
			else
				box2(v[s], c[s], h[s]);
		clash_shape a, b;
		shapes(&a, &b, dim, v[0], (size_t)1 << dim, v[1], (size_t)1 << dim);
		double rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
		if (turned) {
			double q[4], nq = 0, t0[3] = {0, 0, 0};
			for (int i = 0; i < 4; i++) {
				q[i] = prng_normal(&r);
				nq += q[i] * q[i];
			}
			for (int i = 0; i < 4; i++)
				q[i] /= sqrt(nq);
			ck_assert_int_eq(clash_shape_set_quaternion(&a, q), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_translation(&a, t0), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_quaternion(&b, q), CLASH_OK);
			ck_assert_int_eq(clash_shape_set_translation(&b, t0), CLASH_OK);
			memcpy(rot, a.linear, sizeof rot);
		}
		clash_result res = ck_penetration(&a, &b, 8);
		ck_assert_msg(fabs(res.depth - depth) <= 1e-13,
		              "case %d: depth %.17g, expected %.17g", it, res.depth, depth);
		if (unique) {
			/* The direction is +-e_axis (turned: rot's column). */
			double n[3] = {0, 0, 0};
			for (int k = 0; k < dim; k++)
				n[k] = sign * (dim == 3 ? rot[axis * 3 + k] : (k == axis));
			ck_vec(res.depth_normal, n, dim, 1e-13);
		}
		tested++;
		touching += depth == 0;
	}
	ck_assert_int_gt(tested, 500);
	ck_assert_int_gt(touching, 50);
}

START_TEST(boxes_grid_3d)
{
	grid_boxes(3, 0);
}
END_TEST

START_TEST(boxes_grid_2d)
{
	grid_boxes(2, 0);
}
END_TEST

START_TEST(boxes_grid_turned)
{
	grid_boxes(3, 1);
}
END_TEST

/* ---- spheres, capsules, points ------------------------------------------------ */

/* Spheres are rounded points: centres 1.5 apart with radii 1 and 1 overlap
 * by 0.5 along the centre line; with equal centres, by the radii's sum in
 * some direction. */
START_TEST(spheres)
{
	double pa[3] = {0, 0, 0}, pb[3] = {1.5, 0, 0};
	static const double centres[][3] = {{1.5, 0, 0}, {0, -1.2, 0.5}, {1e-3, 0, 0}, {0, 0, 0}};
	for (size_t i = 0; i < sizeof centres / sizeof centres[0]; i++) {
		memcpy(pb, centres[i], sizeof pb);
		clash_shape a, b;
		shapes(&a, &b, 3, pa, 1, pb, 1);
		ck_assert_int_eq(clash_shape_set_radius(&a, 1), CLASH_OK);
		ck_assert_int_eq(clash_shape_set_radius(&b, 0.75), CLASH_OK);
		clash_result r = ck_penetration(&a, &b, 4);
		double d = sqrt(dot(pb, pb, 3));
		ck_near(r.depth, 1.75 - d, 1e-14);
		if (d > 0) {
			double n[3];
			for (int k = 0; k < 3; k++)
				n[k] = pb[k] / d;
			ck_vec(r.depth_normal, n, 3, 1e-14);
			for (int k = 0; k < 3; k++) {
				ck_near(r.depth_a[k], n[k], 1e-14);
				ck_near(r.depth_b[k], pb[k] - 0.75 * n[k], 1e-14);
			}
		}
	}
	/* In 2-D: discs. */
	double qa[2] = {1, 1}, qb[2] = {1.6, 1.8};
	clash_shape a, b;
	shapes(&a, &b, 2, qa, 1, qb, 1);
	ck_assert_int_eq(clash_shape_set_radius(&a, 0.5), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&b, 0.7), CLASH_OK);
	clash_result r = ck_penetration(&a, &b, 3);
	ck_near(r.depth, 1.2 - 1.0, 1e-14);
	double n2[2] = {0.6, 0.8};
	ck_vec(r.depth_normal, n2, 2, 1e-14);
}
END_TEST

/* Capsules (rounded segments): crossing 0.8 apart in z with radii 0.5 each
 * overlap by 0.2 along z; crossing at the same height their hulls meet in a
 * flat K (depth 0 of the hulls), so the depth is the radii's sum along +-z. */
START_TEST(capsules)
{
	double sa[6] = {-1, 0, 0, 1, 0, 0}, sb[6] = {0, -1, 0.8, 0, 1, 0.8};
	clash_shape a, b;
	shapes(&a, &b, 3, sa, 2, sb, 2);
	ck_assert_int_eq(clash_shape_set_radius(&a, 0.5), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&b, 0.5), CLASH_OK);
	clash_result r = ck_penetration(&a, &b, 3);
	ck_near(r.depth, 0.2, 1e-14);
	double n[3] = {0, 0, 1};
	ck_vec(r.depth_normal, n, 3, 1e-14);
	double pa[3] = {0, 0, 0.5}, pb[3] = {0, 0, 0.3};
	ck_vec(r.depth_a, pa, 3, 1e-14);
	ck_vec(r.depth_b, pb, 3, 1e-14);

	sb[2] = sb[5] = 0;
	shapes(&a, &b, 3, sa, 2, sb, 2);
	ck_assert_int_eq(clash_shape_set_radius(&a, 0.5), CLASH_OK);
	ck_assert_int_eq(clash_shape_set_radius(&b, 0.5), CLASH_OK);
	r = ck_penetration(&a, &b, 3);
	ck_near(r.depth, 1.0, 1e-14);
	ck_near(fabs(r.depth_normal[2]), 1, 1e-14);
}
END_TEST

/* A point b inside the tetrahedron a: the depth is the distance to the
 * nearest face, the normal that face's outward normal (b leaves through
 * it), the deepest points the point's projection on it and the point. */
START_TEST(point_in_tetrahedron)
{
	double t[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	static const double pts[][3] = {{0.1, 0.2, 0.3},
	                                {0.3, 0.3, 0.3},
	                                {0.25, 0.05, 0.25},
	                                {0.2, 0.2, 0.2}};
	double s3 = 1 / sqrt(3.0);
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		const double *p = pts[i];
		double want = INFINITY, n[3] = {0, 0, 0};
		for (int k = 0; k < 3; k++)
			if (p[k] < want) {
				want = p[k];
				memset(n, 0, sizeof n);
				n[k] = -1;
			}
		double slant = (1 - p[0] - p[1] - p[2]) * s3;
		if (slant < want) {
			want = slant;
			n[0] = n[1] = n[2] = s3;
		}
		clash_shape a, b;
		shapes(&a, &b, 3, t, 4, p, 1);
		clash_result r = ck_penetration(&a, &b, 2);
		ck_near(r.depth, want, 1e-15);
		if (i != 3) /* (0.2, 0.2, 0.2) is 0.2 from three faces: any of them */
			ck_vec(r.depth_normal, n, 3, 1e-14);
		ck_vec(r.depth_b, p, 3, 1e-15);
		for (int k = 0; k < 3; k++)
			ck_near(r.depth_a[k], p[k] + want * r.depth_normal[k], 1e-15);
	}
	/* And in 2-D: a point in a triangle. */
	double tri[6] = {0, 0, 4, 0, 0, 3}, p2[2] = {1, 0.5};
	clash_shape a, b;
	shapes(&a, &b, 2, tri, 3, p2, 1);
	clash_result r = ck_penetration(&a, &b, 5);
	ck_near(r.depth, 0.5, 1e-15);
	double n2[2] = {0, -1};
	ck_vec(r.depth_normal, n2, 2, 1e-15);
	p2[0] = 2.4;
	p2[1] = 1.0; /* 3x + 4y = 12 is 0.2 * 5 / 5 = (12 - 7.2 - 4) / 5 = 0.16 away */
	r = ck_penetration(&a, &b, 5);
	ck_near(r.depth, 0.16, 1e-15);
	double n3[2] = {0.6, 0.8};
	ck_vec(r.depth_normal, n3, 2, 1e-15);
}
END_TEST

/* ---- 2-D polygons and 1-D intervals ---------------------------------------------- */

START_TEST(polygons)
{
	/* A diamond's left corner 0.2 into a square's right edge. */
	double sq[8] = {-1, -1, 1, -1, 1, 1, -1, 1};
	double dia[8] = {0.8, 0, 1.8, -1, 2.8, 0, 1.8, 1};
	clash_shape a, b;
	shapes(&a, &b, 2, sq, 4, dia, 4);
	clash_result r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0.2, 1e-15);
	double n[2] = {1, 0}, pa[2] = {1, 0}, pb[2] = {0.8, 0};
	ck_vec(r.depth_normal, n, 2, 1e-15);
	ck_vec(r.depth_a, pa, 2, 1e-15);
	ck_vec(r.depth_b, pb, 2, 1e-15);

	/* Regular hexagons of circumradius 1, centres 1.5 apart along x: the
	 * vertical edges at x = +-cos(30 deg) face each other; overlap 2
	 * cos(30) - 1.5 along x. */
	double ha[12], hb[12];
	for (int i = 0; i < 6; i++) {
		double t = M_PI / 3 * i;
		ha[2 * i] = cos(t + M_PI / 6);
		ha[2 * i + 1] = sin(t + M_PI / 6);
		hb[2 * i] = 1.5 + ha[2 * i];
		hb[2 * i + 1] = ha[2 * i + 1];
	}
	shapes(&a, &b, 2, ha, 6, hb, 6);
	r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 2 * cos(M_PI / 6) - 1.5, 1e-15);
	ck_vec(r.depth_normal, n, 2, 1e-15);

	/* Collinear segments overlapping in 2-D: K is flat, depth 0, normal
	 * across the line. */
	double s1[4] = {0, 0, 2, 1}, s2[4] = {1, 0.5, 3, 1.5};
	shapes(&a, &b, 2, s1, 2, s2, 2);
	r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0, 1e-15);
	ck_near(fabs(r.depth_normal[0] * 2 + r.depth_normal[1] * 1), 0, 1e-14);
}
END_TEST

START_TEST(intervals)
{
	double a1[2] = {0, 2}, b1[3] = {1.5, 3, 2.2};
	clash_shape a, b;
	shapes(&a, &b, 1, a1, 2, b1, 3);
	clash_result r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0.5, 1e-15);
	ck_near(r.depth_normal[0], 1, 0);
	ck_near(r.depth_a[0], 2, 1e-15);
	ck_near(r.depth_b[0], 1.5, 1e-15);
	double b2[2] = {-1, 0.4};
	shapes(&a, &b, 1, a1, 2, b2, 2);
	ck_assert_int_eq(clash_shape_set_radius(&b, 0.1), CLASH_OK);
	r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0.5, 1e-15); /* b = [-1.1, 0.5] leaves by 0.5 to the left */
	ck_near(r.depth_normal[0], -1, 0);
}
END_TEST

/* ---- degenerate input ---------------------------------------------------------------- */

/* Coplanar squares in 3-D overlapping (flat K: depth 0, normal across the
 * plane); repeated vertices; a single shared point; a segment through a
 * box. */
START_TEST(degenerate)
{
	double s1[12] = {0, 0, 1, 2, 0, 1, 2, 2, 1, 0, 2, 1};
	double s2[12] = {1, 1, 1, 3, 1, 1, 3, 3, 1, 1, 3, 1};
	clash_shape a, b;
	shapes(&a, &b, 3, s1, 4, s2, 4);
	clash_result r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0, 1e-15);
	ck_near(fabs(r.depth_normal[2]), 1, 1e-15);

	double rep[3 * 10], c[3] = {0, 0, 0}, h[3] = {1, 1, 1}, box[24];
	box3(box, c, h);
	for (int i = 0; i < 10; i++) /* the corners, two of them twice */
		memcpy(rep + 3 * i, box + 3 * (i % 8), 3 * sizeof(double));
	double cb[3] = {1.5, 1.5, 1.7}, hb[3] = {0.75, 0.75, 0.75}, vb[24];
	box3(vb, cb, hb);
	shapes(&a, &b, 3, rep, 10, vb, 8);
	r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0.05, 1e-14); /* z: 1 - (1.7 - 0.75) */

	double p[3] = {1, 1, 1};
	shapes(&a, &b, 3, p, 1, p, 1);
	r = ck_penetration(&a, &b, 4);
	ck_near(r.depth, 0, 0);

	double seg[6] = {-3, 0.2, 0.1, 3, 0.2, 0.1};
	shapes(&a, &b, 3, box, 8, seg, 2);
	r = ck_penetration(&a, &b, 6);
	ck_near(r.depth, 0.8, 1e-14); /* out through y = 1 */
	double n[3] = {0, 1, 0};
	ck_vec(r.depth_normal, n, 3, 1e-14);
}
END_TEST

/* Far from the origin (1e5) a small pair keeps its own precision. */
START_TEST(far_from_origin)
{
	double va[24], vb[24], ha[3] = {1e-3, 1e-3, 1e-3};
	double ca[3] = {1e5, -2e5, 3e5}, cb[3] = {1e5 + 1.5e-3, -2e5 + 1e-4, 3e5 - 2e-4};
	box3(va, ca, ha);
	box3(vb, cb, ha);
	clash_shape a, b;
	shapes(&a, &b, 3, va, 8, vb, 8);
	clash_result r = ck_penetration(&a, &b, 1e-2);
	/* The overlap along x is 2e-3 - 1.5e-3, as exact as the input's own
	 * rounding at 1e5 (1.5e-11) allows. */
	ck_near(r.depth, (va[3] - vb[0]), 1e-15);
	double n[3] = {1, 0, 0};
	ck_vec(r.depth_normal, n, 3, 1e-12);
}
END_TEST

/* ---- round shapes, the iteration cap, the wire ------------------------------------------- */

/* n points on a sphere (Fibonacci lattice). */
static void sphere_points(double *v, int n, double r, const double *c)
{
	double g = M_PI * (3 - sqrt(5.0));
	for (int i = 0; i < n; i++) {
		double z = 1 - (2.0 * i + 1) / n, s = sqrt(1 - z * z);
		v[3 * i] = c[0] + r * s * cos(g * i);
		v[3 * i + 1] = c[1] + r * s * sin(g * i);
		v[3 * i + 2] = c[2] + r * z;
	}
}

/* Finely tessellated spheres (2000 vertices each) overlapping by about 0.5:
 * EPA must converge within its cap, to a depth between those of the
 * inscribed and circumscribed spheres. */
START_TEST(fine_spheres)
{
	enum {
		N = 2000
	};
	static double va[3 * N], vb[3 * N];
	double c0[3] = {0, 0, 0}, c1[3] = {0.9, 0.8, 0.7};
	sphere_points(va, N, 1, c0);
	sphere_points(vb, N, 1, c1);
	clash_shape a, b;
	shapes(&a, &b, 3, va, N, vb, N);
	clash_result r = ck_penetration(&a, &b, 3);
	double d = sqrt(dot(c1, c1, 3));
	/* Adjacent lattice points are ~sqrt(4 pi / N) apart: the hull lies
	 * within cos of that angle of the sphere. */
	double in = cos(sqrt(4 * M_PI / N));
	ck_assert_msg(r.depth <= 2 - d + 1e-12 && r.depth >= 2 * in - d - 1e-12, "depth %.17g",
	              r.depth);
	for (int k = 0; k < 3; k++)
		ck_near(r.depth_normal[k], c1[k] / d, 0.05);
}
END_TEST

/* At the cap the answer is marked unconverged and is an upper bound that
 * still parts the shapes: cap EPA by max_iterations (the GJK part needs
 * only its own few, so it is unchanged). */
START_TEST(iteration_cap)
{
	enum {
		N = 300
	};
	static double va[3 * N], vb[3 * N];
	double c0[3] = {0, 0, 0}, c1[3] = {0.7, -0.9, 0.4};
	sphere_points(va, N, 1, c0);
	sphere_points(vb, N, 1.2, c1);
	clash_shape a, b;
	shapes(&a, &b, 3, va, N, vb, N);
	clash_result full = ck_penetration(&a, &b, 3);
	clash_options opt;
	memset(&opt, 0, sizeof opt);
	opt.max_iterations = full.iterations; /* GJK finishes exactly as before */
	clash_result r = ck_penetration_opt(&a, &b, &opt, 3);
	ck_assert_msg(!r.converged, "EPA converged within %d expansions: pick a harder pair",
	              full.iterations);
	ck_assert(r.depth >= full.depth - 1e-12);
	/* The fallback's points: a's on its surface (checked), b's = a's -
	 * depth n (checked); and the depth stays a sane bound. */
	ck_assert(r.depth <= 1 + 1.2);
}
END_TEST

/* The Result JSON carries penetration.depth, normal and points. */
START_TEST(wire)
{
	static const char *q = "{\"a\":{\"vertices\":[[0,0],[2,0],[2,2],[0,2]]},"
			       "\"b\":{\"vertices\":[[0,0],[1,0],[1,1],[0,1]],\"radius\":0.25,"
			       "\"pose\":{\"translation\":[1.5,0.5]}}}";
	proto_reply out;
	ck_assert_int_eq(proto_query_reply(q, strlen(q), &out), 0);
	ck_assert_int_eq(out.status, 200);
	json_error_t err;
	json_t *j = json_loads(out.body, 0, &err);
	proto_reply_free(&out);
	ck_assert_ptr_nonnull(j);
	json_t *pen = json_object_get(j, "penetration");
	ck_assert_ptr_nonnull(pen);
	/* b = [1.5, 2.5] x [0.5, 1.5] grown by 0.25: it leaves a = [0, 2]^2
	 * by 0.75 along +x. */
	ck_near(json_number_value(json_object_get(pen, "depth")), 0.75, 1e-15);
	json_t *n = json_object_get(pen, "normal");
	ck_assert_int_eq(json_array_size(n), 2);
	ck_near(json_number_value(json_array_get(n, 0)), 1, 1e-15);
	ck_near(json_number_value(json_array_get(n, 1)), 0, 1e-15);
	json_t *pts = json_object_get(pen, "points");
	json_t *pa = json_object_get(pts, "a"), *pb = json_object_get(pts, "b");
	ck_assert_int_eq(json_array_size(pa), 2);
	ck_assert_int_eq(json_array_size(pb), 2);
	ck_near(json_number_value(json_array_get(pa, 0)), 2, 1e-15);
	ck_near(json_number_value(json_array_get(pb, 0)), 1.25, 1e-15);
	ck_near(json_number_value(json_array_get(pa, 1)), json_number_value(json_array_get(pb, 1)),
	        1e-15);
	json_decref(j);

	/* In 4-D there is no exact depth: only the bound. */
	static const char *q4 = "{\"a\":{\"vertices\":[[0,0,0,0],[1,0,0,0],[0,1,0,0],[0,0,1,0],"
				"[0,0,0,1]]},\"b\":{\"vertices\":[[0.1,0.1,0.1,0.1]]}}";
	ck_assert_int_eq(proto_query_reply(q4, strlen(q4), &out), 0);
	j = json_loads(out.body, 0, &err);
	proto_reply_free(&out);
	pen = json_object_get(j, "penetration");
	ck_assert_ptr_nonnull(json_object_get(pen, "depth_lower_bound"));
	ck_assert_ptr_null(json_object_get(pen, "depth"));
	ck_assert_ptr_null(json_object_get(pen, "normal"));
	ck_assert_ptr_null(json_object_get(pen, "points"));
	json_decref(j);
}
END_TEST

static Suite *penetration_suite(void)
{
	Suite *s = suite_create("penetration");
	ck_case(s, "closed", 0,
	        CK_TESTS(boxes_each_axis, boxes_stacked_touching, boxes_edge_and_corner_contact,
	                 boxes_nested, boxes_25x, boxes_turned, spheres, capsules,
	                 point_in_tetrahedron, polygons, intervals, degenerate, far_from_origin,
	                 wire));
	ck_case(s, "grid", 30, CK_TESTS(boxes_grid_3d, boxes_grid_2d, boxes_grid_turned));
	ck_case(s, "round", 30, CK_TESTS(fine_spheres, iteration_cap));
	return s;
}

CHECK_SUITE(penetration_suite)
