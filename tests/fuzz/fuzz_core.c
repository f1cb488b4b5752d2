/*
 * fuzz_core.c — libFuzzer target for the collision core, fed with the
 * shapes a decoded request can hold.
 *
 * The fuzz bytes are read as a recipe for two shapes (fuzz_solids.c when
 * byte 0 >= 0xc0): dim 1 to 8, 1 to 12 vertices each (or, for a, a compound of
 * 2 or 3 convex parts), coordinates on a grid of 1/64 scaled by a power of
 * two from 2^-20 to 2^20 (so exact ties, flat and repeated points, touching
 * shapes and far-off coordinates all come up), a radius, a pose (translation,
 * quaternion in 3-D, angle in 2-D, or any matrix), a common offset up to
 * 2^29 from the origin, and a small iteration cap now and then.  Then every
 * method answers: clash_gjk, clash_lp_simplex, clash_lp_ipm and
 * clash_contains, and the answers are checked against each other and
 * against brute force over the world vertices (computed here, not by the
 * core):
 *   - a call returns CLASH_OK or one of the documented errors; the members
 *     its `has` bits name are finite, and only those that go with its
 *     verdict are there (a plane only when separated, depth only when
 *     intersecting);
 *   - distance >= 0, 0 exactly when intersecting; |near_a - near_b| =
 *     distance; distance <= the least distance of two vertices (radii
 *     taken off), and, when separated, the gap along the normal (every
 *     vertex, radii included) is the distance: the plane separates and is
 *     optimal (converged answers);
 *   - ipm's plane separates every vertex; simplex's lower bound is at most
 *     gjk's distance;
 *   - verdicts agree when far from touching: gjk separated by more than
 *     1e-6 of the shapes' size, or intersecting with a certified depth
 *     bound above that, and the other methods (when converged) say the same;
 *   - containment: a convex shape contains itself (with an iteration cap:
 *     contained, or unsure with converged 0); inner contained in outer
 *     means they are not far apart; a reported outside vertex is not deep
 *     inside the outer shape (gjk from that vertex); an unsure answer
 *     claims nothing, and only a cap makes one.
 * Any violation aborts with the numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_core.h"

#define MAX_VERTS 12
#define MAX_PARTS 3

unsigned u8(input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

int i16(input *in)
{
	unsigned lo = u8(in), hi = u8(in);
	return (int)(int16_t)(uint16_t)(lo | hi << 8);
}

/* One convex shape with its storage. */
typedef struct convex {
	clash_shape s;
	double v[MAX_VERTS * CLASH_MAX_DIM];
} convex;

typedef struct side {
	convex part[MAX_PARTS];
	int nparts; /* 0: the shape is part[0] itself; else a compound of nparts */
	clash_shape parts[MAX_PARTS];
	clash_shape compound;
	const clash_shape *shape;
	/* World vertices and the radius around each (brute force below). */
	double w[MAX_PARTS * MAX_VERTS][CLASH_MAX_DIM];
	double r[MAX_PARTS * MAX_VERTS];
	size_t nw;
} side;

_Noreturn void oops(const char *what, double x, double y)
{
	fprintf(stderr, "fuzz_core: %s (%.17g vs %.17g)\n", what, x, y);
	abort();
}

/* Round and place shape s from the input: a radius now and then, a pose
 * (none, a translation, a rotation, any affine map) and the common offset.
 * Returns 0, or -1 when the core refused the pose (a singular matrix: a 422
 * on the wire, nothing to check).  *rigid: the pose is a rotation and a
 * translation (closed forms hold). */
int pose_shape(input *in, int dim, double scale, const double *offset, clash_shape *s, int *rigid)
{
	unsigned rb = u8(in);
	if (rb >= 160 && clash_shape_set_radius(s, (rb - 160) / 16.0 * scale) != CLASH_OK)
		oops("clash_shape_set_radius refused a good radius", rb, scale);
	double t[CLASH_MAX_DIM];
	for (int k = 0; k < dim; k++)
		t[k] = offset[k];
	*rigid = 1;
	switch (u8(in) % 4) {
	case 0: break;
	case 1:
		for (int k = 0; k < dim; k++)
			t[k] += i16(in) / 64.0 * scale;
		break;
	case 2:
		if (dim == 3) {
			double q[4], len = 0;
			for (int k = 0; k < 4; k++) {
				q[k] = (int)(int8_t)u8(in);
				len += q[k] * q[k];
			}
			if (len == 0)
				q[3] = len = 1;
			for (int k = 0; k < 4; k++)
				q[k] /= sqrt(len);
			if (clash_shape_set_quaternion(s, q) != CLASH_OK)
				oops("clash_shape_set_quaternion refused a unit quaternion", len,
				     0);
		} else if (dim == 2) {
			if (clash_shape_set_angle(s, i16(in) / 1024.0) != CLASH_OK)
				oops("clash_shape_set_angle refused an angle", 0, 0);
		}
		break;
	case 3: {
		/* Any affine map: the identity plus bytes/32. */
		double m[(CLASH_MAX_DIM + 1) * (CLASH_MAX_DIM + 1)] = {0};
		int d1 = dim + 1;
		for (int col = 0; col < dim; col++)
			for (int row = 0; row < dim; row++)
				m[col * d1 + row] = (row == col) + (int)(int8_t)u8(in) / 32.0;
		for (int row = 0; row < dim; row++)
			m[dim * d1 + row] = i16(in) / 64.0 * scale;
		m[dim * d1 + dim] = 1;
		*rigid = 0;
		if (clash_shape_set_matrix(s, m) != CLASH_OK)
			return -1;
		break;
	}
	}
	/* The offset (and case 1's translation) on top of the pose's own. */
	double tt[CLASH_MAX_DIM];
	int any = 0;
	for (int k = 0; k < dim; k++) {
		tt[k] = s->translation[k] + t[k];
		any |= t[k] != 0;
	}
	if (any && clash_shape_set_translation(s, tt) != CLASH_OK)
		oops("clash_shape_set_translation refused a finite translation", tt[0], 0);
	return 0;
}

/* Build one convex shape from the input (vertices, then radius and pose). */
static int make_convex(input *in, int dim, double scale, const double *offset, convex *c,
                       size_t maxv)
{
	size_t count = 1 + u8(in) % maxv;
	for (size_t i = 0; i < count * (size_t)dim; i++)
		c->v[i] = i16(in) / 64.0 * scale;
	if (clash_shape_init(&c->s, dim, c->v, count) != CLASH_OK)
		oops("clash_shape_init refused a good shape", dim, (double)count);
	int rigid;
	return pose_shape(in, dim, scale, offset, &c->s, &rigid);
}

/* x_world = linear x + translation, as clash.h defines the pose. */
void world(const clash_shape *s, const double *x, double *out)
{
	int n = s->dim;
	for (int r = 0; r < n; r++) {
		double acc = s->translation[r]; /* 0 and the identity when not posed */
		for (int c = 0; c < n; c++)
			acc += s->linear[c * n + r] * x[c];
		out[r] = acc;
	}
}

static int make_side(input *in, int dim, double scale, const double *offset, int compound, side *sd)
{
	sd->nparts = compound ? 2 + (int)(u8(in) % 2) : 0;
	int n = sd->nparts ? sd->nparts : 1;
	for (int i = 0; i < n; i++)
		if (make_convex(in, dim, scale, offset, &sd->part[i], sd->nparts ? 6 : MAX_VERTS) !=
		    0)
			return -1;
	if (sd->nparts) {
		for (int i = 0; i < n; i++)
			sd->parts[i] = sd->part[i].s;
		if (clash_shape_init_compound(&sd->compound, dim, sd->parts, (size_t)n) != CLASH_OK)
			oops("clash_shape_init_compound refused good parts", n, dim);
		sd->shape = &sd->compound;
	} else {
		sd->shape = &sd->part[0].s;
	}
	sd->nw = 0;
	for (int i = 0; i < n; i++) {
		const clash_shape *s = &sd->part[i].s;
		for (size_t j = 0; j < s->count; j++, sd->nw++) {
			world(s, s->vertices + j * (size_t)dim, sd->w[sd->nw]);
			sd->r[sd->nw] = s->radius;
		}
	}
	return 0;
}

static double dot(const double *a, const double *b, int n)
{
	double s = 0;
	for (int k = 0; k < n; k++)
		s += a[k] * b[k];
	return s;
}

static int finite_vec(const double *v, int n)
{
	for (int k = 0; k < n; k++)
		if (!isfinite(v[k]))
			return 0;
	return 1;
}

int known_error(int rc)
{
	return rc == CLASH_ERANGE || rc == CLASH_ENOTSUP || rc == CLASH_ELIMIT;
}

/* The largest |coordinate| + radius of the world vertices: the yardstick of
 * every tolerance below. */
static double size_of(const side *a, const side *b, int n)
{
	double s = 0;
	const side *sd[2] = {a, b};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sd[k]->nw; i++) {
			for (int j = 0; j < n; j++)
				s = fmax(s, fabs(sd[k]->w[i][j]));
			s = fmax(s, sd[k]->r[i]);
		}
	return s;
}

/* The gap along unit n: min over b of n.y - r  minus  max over a of n.x + r. */
static double gap_along(const side *a, const side *b, const double *nrm, int n)
{
	double ha = -INFINITY, lb = INFINITY;
	for (size_t i = 0; i < a->nw; i++)
		ha = fmax(ha, dot(nrm, a->w[i], n) + a->r[i]);
	for (size_t j = 0; j < b->nw; j++)
		lb = fmin(lb, dot(nrm, b->w[j], n) - b->r[j]);
	return lb - ha;
}

/* Check the members `has` names and that they go with the verdict. */
void check_members(const clash_result *r, int n, const char *method)
{
	(void)method;
	REQUIRE(r->dim == n, "result of another dimension", r->dim, n);
	REQUIRE(r->intersecting == 0 || r->intersecting == 1, "intersecting not 0/1",
	        r->intersecting, 0);
	REQUIRE(r->iterations >= 0, "negative iterations", r->iterations, 0);
	if (r->has & CLASH_HAS_DISTANCE) {
		REQUIRE(isfinite(r->distance) && r->distance >= 0, "distance < 0 or not finite",
		        r->distance, 0);
		REQUIRE(!r->intersecting || r->distance == 0, "intersecting with a distance",
		        r->distance, 0);
		REQUIRE(finite_vec(r->near_a, n) && finite_vec(r->near_b, n),
		        "near points not finite", 0, 0);
	}
	if (r->has & CLASH_HAS_PLANE) {
		REQUIRE(!r->intersecting, "a plane for intersecting shapes", 0, 0);
		REQUIRE(finite_vec(r->normal, n) && isfinite(r->offset), "plane not finite", 0, 0);
		double len = sqrt(dot(r->normal, r->normal, n));
		REQUIRE(fabs(len - 1) <= 1e-9, "normal not unit", len, 1);
	}
	if (r->has & CLASH_HAS_DEPTH_BOUND) {
		REQUIRE(r->intersecting, "depth bound for separated shapes", 0, 0);
		REQUIRE(isfinite(r->depth_lower_bound) && r->depth_lower_bound >= 0,
		        "depth_lower_bound < 0 or not finite", r->depth_lower_bound, 0);
	}
	if (r->has & CLASH_HAS_DEPTH) {
		REQUIRE(r->intersecting, "depth for separated shapes", 0, 0);
		REQUIRE(isfinite(r->depth) && r->depth >= 0, "depth < 0 or not finite", r->depth,
		        0);
		REQUIRE(finite_vec(r->depth_normal, n) && finite_vec(r->depth_a, n) &&
		                finite_vec(r->depth_b, n),
		        "depth members not finite", 0, 0);
	}
	if (r->has & CLASH_HAS_PAIR_DEPTH) { /* compounds: the deepest pair of parts' */
		REQUIRE(r->intersecting && !(r->has & CLASH_HAS_DEPTH), "pair depth misplaced", 0,
		        0);
		REQUIRE(isfinite(r->depth) && r->depth >= 0 && (r->has & CLASH_HAS_DEPTH_BOUND),
		        "pair depth < 0, not finite or without a bound", r->depth, 0);
		REQUIRE(!r->converged || r->depth == r->depth_lower_bound,
		        "pair depth is not the bound", r->depth, r->depth_lower_bound);
		REQUIRE(finite_vec(r->depth_normal, n) && finite_vec(r->depth_a, n) &&
		                finite_vec(r->depth_b, n),
		        "pair depth members not finite", 0, 0);
	}
	if (r->has & CLASH_HAS_DISTANCE_BOUND)
		REQUIRE(isfinite(r->distance_lower_bound) && r->distance_lower_bound >= 0 &&
		                (!r->intersecting || r->distance_lower_bound == 0),
		        "bad distance_lower_bound", r->distance_lower_bound, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	input in = {data, size};
	unsigned head = u8(&in), flags = u8(&in);
	if (head >= 0xc0) {
		/* Meshes and primitives (fuzz_solids.c). */
		fuzz_solids(&in, flags, getenv("FUZZ_CORE_PRINT") != NULL);
		return 0;
	}
	int n = 1 + (int)(head & 7);
	double scale = ldexp(1.0, (int)(u8(&in) % 41) - 20);
	double offset[CLASH_MAX_DIM] = {0};
	if (flags & 2)
		for (int k = 0; k < n; k++)
			offset[k] = ldexp(i16(&in), (int)(u8(&in) % 15));
	static side a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (make_side(&in, n, scale, offset, flags & 1, &a) != 0 ||
	    make_side(&in, n, scale, offset, 0, &b) != 0)
		return 0;
	clash_options opt = {0};
	if (flags & 4)
		opt.max_iterations = 1 + (int)(u8(&in) % 4);

	if (getenv("FUZZ_CORE_PRINT")) {
		/* Replaying one input: show the world vertices. */
		const side *sd[2] = {&a, &b};
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < sd[k]->nw; i++) {
				fprintf(stderr, "%c%zu r=%.17g:", "ab"[k], i, sd[k] -> r[i]);
				for (int j = 0; j < n; j++)
					fprintf(stderr, " %.17g", sd[k]->w[i][j]);
				fprintf(stderr, "\n");
			}
	}
	const double S = size_of(&a, &b, n) + 1e-300;
	const double eps = 1e-9 * S, far = 1e-6 * S;

	clash_result g, s, p;
	int rg = clash_gjk(a.shape, b.shape, &opt, &g);
	int rs = clash_lp_simplex(a.shape, b.shape, &opt, &s);
	int rp = clash_lp_ipm(a.shape, b.shape, &opt, &p);
	REQUIRE(rg == CLASH_OK || known_error(rg), "gjk: unexpected error", rg, 0);
	REQUIRE(rs == CLASH_OK || known_error(rs), "simplex: unexpected error", rs, 0);
	REQUIRE(rp == CLASH_OK || known_error(rp), "ipm: unexpected error", rp, 0);
	if (rg == CLASH_OK) {
		check_members(&g, n, "gjk");
		REQUIRE(g.has & CLASH_HAS_DISTANCE, "gjk without a distance", g.has, 0);
		/* Upper bound: any two vertices, radii off. */
		double best = INFINITY;
		for (size_t i = 0; i < a.nw; i++)
			for (size_t j = 0; j < b.nw; j++) {
				double d2 = 0;
				for (int k = 0; k < n; k++)
					d2 += (a.w[i][k] - b.w[j][k]) * (a.w[i][k] - b.w[j][k]);
				best = fmin(best, sqrt(d2) - a.r[i] - b.r[j]);
			}
		/* (A capped search answers an upper bound: no better than this.) */
		REQUIRE(!g.converged || g.distance <= fmax(best, 0) + eps,
		        "gjk distance above a vertex pair's", g.distance, best);
		if (!g.intersecting) {
			double d2 = 0;
			for (int k = 0; k < n; k++)
				d2 += (g.near_a[k] - g.near_b[k]) * (g.near_a[k] - g.near_b[k]);
			REQUIRE(fabs(sqrt(d2) - g.distance) <= eps, "|near_a - near_b| != distance",
			        sqrt(d2), g.distance);
			if (g.converged && (g.has & CLASH_HAS_PLANE)) {
				double gap = gap_along(&a, &b, g.normal, n);
				/* For a union the nearest parts' plane may pass closer
				 * to other parts: only the convex gap is the distance.
				 * The normal is exact to about 1e-9 in angle when the
				 * hull is flat near the nearest point (the distance is
				 * stationary there, the direction is not), so the gap
				 * is only held to `far`. */
				REQUIRE(gap <= g.distance + eps &&
				                (a.nparts || gap >= g.distance - far),
				        "gjk: gap along the normal is not the distance", gap,
				        g.distance);
				for (size_t i = 0; i < a.nw; i++)
					REQUIRE(dot(g.normal, a.w[i], n) + a.r[i] <= g.offset + eps,
					        "gjk plane: a vertex of a beyond it",
					        dot(g.normal, a.w[i], n) + a.r[i], g.offset);
				for (size_t j = 0; j < b.nw; j++)
					REQUIRE(dot(g.normal, b.w[j], n) - b.r[j] >= g.offset - eps,
					        "gjk plane: a vertex of b beyond it",
					        dot(g.normal, b.w[j], n) - b.r[j], g.offset);
			}
		} else if (g.has & CLASH_HAS_DEPTH) {
			REQUIRE(g.depth >= g.depth_lower_bound - eps, "depth below its lower bound",
			        g.depth, g.depth_lower_bound);
		}
	}
	if (rp == CLASH_OK) {
		check_members(&p, n, "ipm");
		/* A compound's plane is dropped unless it separates the whole
		 * union (core/compound.c); a convex pair's is always there. */
		if (!p.intersecting && !a.nparts)
			REQUIRE(p.has & CLASH_HAS_PLANE, "ipm separated without a plane", p.has, 0);
		if (!p.intersecting && (p.has & CLASH_HAS_PLANE)) {
			double gap = gap_along(&a, &b, p.normal, n);
			REQUIRE(gap >= -eps, "ipm plane does not separate", gap, 0);
		}
	}
	if (rs == CLASH_OK)
		check_members(&s, n, "simplex");

	/* Verdicts, when gjk is sure and far from touching. */
	if (rg == CLASH_OK && g.converged) {
		int g_far_apart = !g.intersecting && g.distance > far;
		int g_deep = g.intersecting && (g.has & CLASH_HAS_DEPTH_BOUND) &&
		             g.depth_lower_bound > far;
		if (rs == CLASH_OK && s.converged) {
			if (g_far_apart || g_deep)
				REQUIRE(s.intersecting == g.intersecting,
				        "simplex and gjk disagree", g.distance,
				        g.depth_lower_bound);
			REQUIRE(s.distance_lower_bound <= g.distance + eps,
			        "simplex's lower bound above gjk's distance",
			        s.distance_lower_bound, g.distance);
		}
		if (rp == CLASH_OK && p.converged && (g_far_apart || g_deep))
			REQUIRE(p.intersecting == g.intersecting, "ipm and gjk disagree",
			        g.distance, g.depth_lower_bound);
	}

	/* The verdict alone (want = verdict), which takes its own path
	 * (core/gjk.c starts it from the centres' difference): the full
	 * answer's verdict when that is sure and far from touching; a plane
	 * that separates and a lower bound at most the distance when apart;
	 * (converged: a capped search may stop on a plane that does not);
	 * a warm simplex of 1 to n+1 valid indices, which a next query
	 * takes. */
	clash_options ov = opt;
	ov.want = CLASH_WANT_VERDICT;
	clash_result v;
	int rv = clash_gjk(a.shape, b.shape, &ov, &v);
	REQUIRE(rv == CLASH_OK || known_error(rv), "verdict: unexpected error", rv, 0);
	if (rv == CLASH_OK && rg == CLASH_OK) {
		REQUIRE(!(v.has & (CLASH_HAS_DISTANCE | CLASH_HAS_DEPTH)), "verdict with more",
		        v.has, 0);
		if (g.converged && v.converged && !a.nparts) {
			int g_far_apart = !g.intersecting && g.distance > far;
			int g_deep = g.intersecting && (g.has & CLASH_HAS_DEPTH_BOUND) &&
			             g.depth_lower_bound > far;
			if (g_far_apart || g_deep)
				REQUIRE(v.intersecting == g.intersecting,
				        "verdict and gjk disagree", g.distance,
				        g.depth_lower_bound);
		}
		if (!v.intersecting) {
			REQUIRE(!g.converged || v.distance_lower_bound <= g.distance + eps,
			        "verdict's lower bound above the distance", v.distance_lower_bound,
			        g.distance);
			if (v.converged && (v.has & CLASH_HAS_PLANE)) {
				double gap = gap_along(&a, &b, v.normal, n);
				REQUIRE(gap >= -eps, "verdict plane does not separate", gap, 0);
			}
		}
		if (v.has & CLASH_HAS_WARM) {
			REQUIRE(v.warm_count >= 1 && v.warm_count <= (size_t)n + 1,
			        "verdict warm count", (double)v.warm_count, 0);
			clash_options ow = {0};
			ow.warm_count = v.warm_count;
			ow.warm_a = v.warm_a;
			ow.warm_b = v.warm_b;
			clash_result wr;
			int rw = clash_gjk(a.shape, b.shape, &ow, &wr);
			REQUIRE(rw == CLASH_OK || known_error(rw), "warm from a verdict: error", rw,
			        0);
			REQUIRE(rw != CLASH_EWARM && rw != CLASH_EINVAL, "verdict's warm refused",
			        rw, 0);
		}
	}

	/* Containment, with the query's options (a small iteration cap now
	 * and then: the answer must then say it is unsure rather than be
	 * wrong). */
	const int capped = opt.max_iterations > 0;
	clash_containment c;
	int rc = clash_contains(a.shape, b.shape, &opt, &c);
	REQUIRE(rc == CLASH_OK || known_error(rc), "contains: unexpected error", rc, 0);
	if (rc == CLASH_OK) {
		REQUIRE(c.converged == 0 || c.converged == 1, "contains: converged not 0/1",
		        c.converged, 0);
		/* Unsure: neither contained nor a vertex claimed outside. */
		REQUIRE(c.converged || (!c.contained && !c.has_outside_vertex),
		        "contains: an unconverged answer claims something", c.contained,
		        c.has_outside_vertex);
		/* Without a cap every vertex is decided (GJK, then the LP). */
		REQUIRE(c.converged || capped, "contains: unsure without an iteration cap", 0, 0);
		if (c.contained) {
			REQUIRE(!c.has_outside_vertex, "contained with an outside vertex", 0, 0);
			if (rg == CLASH_OK && g.converged)
				REQUIRE(g.intersecting || g.distance <= far,
				        "contained, but gjk finds them far apart", g.distance, far);
		} else if (c.has_outside_vertex) {
			size_t part = a.nparts ? c.outside_part : 0;
			REQUIRE(part < (size_t)(a.nparts ? a.nparts : 1),
			        "outside_part out of range", (double)c.outside_part, 0);
			const clash_shape *leaf = &a.part[part].s;
			REQUIRE(c.outside_vertex < leaf->count, "outside_vertex out of range",
			        (double)c.outside_vertex, (double)leaf->count);
			/* That vertex, posed, as a point shape against the outer one:
			 * it must not lie deeper inside than its own radius. */
			double x[CLASH_MAX_DIM];
			world(leaf, leaf->vertices + c.outside_vertex * (size_t)n, x);
			clash_shape pt;
			clash_shape_init(&pt, n, x, 1);
			clash_result q;
			if (clash_gjk(&pt, b.shape, NULL, &q) == CLASH_OK && q.converged &&
			    q.intersecting && (q.has & CLASH_HAS_DEPTH_BOUND))
				REQUIRE(q.depth_lower_bound <= leaf->radius + far,
				        "the outside vertex is deep inside", q.depth_lower_bound,
				        leaf->radius);
		}
	}
	/* A convex shape contains itself: surely without a cap (the wire's
	 * options), and with one contained or unsure, never "not contained". */
	clash_containment self;
	if (clash_contains(b.shape, b.shape, NULL, &self) == CLASH_OK)
		REQUIRE(self.contained && self.converged, "a shape does not contain itself",
		        self.contained, self.converged);
	if (capped && clash_contains(b.shape, b.shape, &opt, &self) == CLASH_OK)
		REQUIRE(self.contained || (!self.converged && !self.has_outside_vertex),
		        "a shape does not contain itself (capped)", self.contained, self.converged);
	return 0;
}
