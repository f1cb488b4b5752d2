/*
 * fuzz_solids.c — fuzz_core's 3-D mode (a first byte >= 0xc0): each side a
 * triangle mesh (a perturbed tetrahedron, octahedron or box, any of them
 * opened or with a degenerate triangle, or a soup of 1 to 4 triangles), a
 * polytope or an exact primitive, with random sizes, radius and pose.
 * clash_gjk's answer is checked against computations made here:
 *   - a mesh on either side: the distance is the least over pieces (each
 *     triangle a 3-vertex convex shape, a convex side whole) by clash_gjk;
 *     a solid holds the other's points by a winding number (solid angles,
 *     over the triangles as the build turned them);
 *     verdicts agree when the pieces are 1e-6 of the size apart or deep,
 *     near points lie on their shapes at the reported distance; the fast
 *     winding number (core/winding.h) of each mesh at the other's points
 *     is within its bound of the brute force, and so is its inside test;
 *   - no mesh: sphere, box and capsule pairs against closed forms (rigid
 *     poses), and every pair between the distances of inscribed and
 *     circumscribed polytopes (tessellations of the curved kinds).
 * Tolerances and the recipe: docs/testing.md, "Fuzzing".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../winding_ref.h"
#include "fuzz_core.h"
#include "mesh.h"
#include "winding.h"

#define MESH_MAX_V 12
#define MESH_MAX_T 13
#define TESS_M 24 /* around the axis */
#define TESS_K 12 /* latitude steps, pole to pole (even) */
#define TESS_MAX ((TESS_K + 1) * TESS_M + 2)

enum {
	SIDE_MESH,
	SIDE_POLY,
	SIDE_PRIM
};

static int print; /* FUZZ_CORE_PRINT: show the shapes and the answers */
/* The references need no penetration depth (EPA: the bulk of the time). */
static const clash_options no_depth = {.want = CLASH_WANT_DISTANCE};

typedef struct solid {
	int type, rigid, curved;
	clash_shape s;
	/* mesh */
	double pos[MESH_MAX_V * 3];
	uint32_t idx[MESH_MAX_T * 3];
	size_t nv, nt;
	int use_idx, expect_solid, solid;
	double tri[MESH_MAX_T][3][3];    /* world */
	double turned[MESH_MAX_T][3][3]; /* world, the build's (mesh.h): turned */
	clash_shape piece[MESH_MAX_T];
	uint64_t store[4096];
	/* polytope */
	double v[8 * 3];
	/* primitive: inner and outer polytopes, world */
	int kind;
	double params[3];
	double in[TESS_MAX][3], out[TESS_MAX][3];
	size_t ntess;
} solid;

static const double tet_v[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
static const uint32_t tet_f[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
static const double oct_v[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                   {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
static const uint32_t oct_f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                     {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
static const uint32_t box_f[12][3] = {{0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5},
                                      {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                      {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}};

/* A closed solid (0 tetrahedron, 1 octahedron, 2 box) of size sz, each
 * coordinate moved by up to a quarter of it (never self-crossing). */
static void closed_mesh(input *in, int which, double sz, solid *m)
{
	const double *v = which == 0 ? &tet_v[0][0] : which == 1 ? &oct_v[0][0] : NULL;
	const uint32_t *f = which == 0 ? &tet_f[0][0] : which == 1 ? &oct_f[0][0] : &box_f[0][0];
	m->nv = which == 0 ? 4 : which == 1 ? 6 : 8;
	m->nt = which == 0 ? 4 : which == 1 ? 8 : 12;
	for (size_t i = 0; i < m->nv; i++)
		for (int k = 0; k < 3; k++) {
			double base = v ? v[3 * i + k] : ((i >> k) & 1) ? 1.0 : -1.0;
			m->pos[3 * i + k] = (base + (int)(int8_t)u8(in) / 512.0) * sz;
		}
	memcpy(m->idx, f, m->nt * 3 * sizeof *f);
	m->use_idx = 1;
	m->expect_solid = 1;
}

static void make_mesh(input *in, int type, unsigned mods, double scale, solid *m)
{
	double sz = scale * (1 + u8(in) % 32) / 4.0;
	if (type <= 2) {
		closed_mesh(in, type, sz, m);
	} else if (type == 3) {
		/* Open: a closed one less one or two triangles; a solid when its
		 * leak is small (mesh_solid.h). */
		closed_mesh(in, (int)(mods % 3), sz, m);
		for (int d = 0; d < 1 + (int)((mods >> 2) & 1) && m->nt > 1; d++) {
			size_t t = u8(in) % m->nt;
			memmove(m->idx + 3 * t, m->idx + 3 * t + 3,
			        (m->nt - t - 1) * 3 * sizeof *m->idx);
			m->nt--;
		}
		m->expect_solid = -1;
	} else {
		/* A soup: repeated, collinear and tiny triangles come up. */
		m->nt = 1 + u8(in) % 4;
		m->use_idx = mods & 1;
		m->nv = m->use_idx ? 2 + u8(in) % 5 : 3 * m->nt;
		for (size_t i = 0; i < 3 * m->nv; i++)
			m->pos[i] = (int)(int8_t)u8(in) / 16.0 * scale;
		for (size_t i = 0; m->use_idx && i < 3 * m->nt; i++)
			m->idx[i] = u8(in) % m->nv;
		m->expect_solid = -1;
	}
	if (type <= 3 && (mods & 2)) /* turned inside out: still a solid */
		for (size_t t = 0; t < m->nt; t++) {
			uint32_t x = m->idx[3 * t + 1];
			m->idx[3 * t + 1] = m->idx[3 * t + 2];
			m->idx[3 * t + 2] = x;
		}
	if (type <= 2 && (mods & 8)) { /* a degenerate triangle more */
		uint32_t i = u8(in) % m->nv, j = u8(in) % m->nv;
		m->idx[3 * m->nt] = i;
		m->idx[3 * m->nt + 1] = j;
		m->idx[3 * m->nt + 2] = j;
		m->nt++;
		m->expect_solid = -1;
	}
	size_t need = clash_mesh_size(m->nv, m->nt);
	clash_mesh *cm;
	REQUIRE(need > 0 && need <= sizeof m->store, "mesh storage", (double)need, 0);
	/* Every other mesh welded as clashd welds (its vertices lie on a grid
	 * far coarser than the weld: the same topology). */
	int rc = clash_mesh_build_welded(m->store, sizeof m->store, m->pos, m->nv,
	                                 m->use_idx ? m->idx : NULL, m->nt,
	                                 (m->nt & 1) ? 1e-6 : 0.0, &cm);
	REQUIRE(rc == CLASH_OK, "clash_mesh_build refused a good mesh", rc, (double)m->nt);
	m->solid = clash_mesh_is_solid(cm);
	REQUIRE(m->expect_solid < 0 || m->solid == m->expect_solid, "mesh solid flag", m->solid,
	        m->expect_solid);
	REQUIRE(clash_shape_init_mesh(&m->s, cm) == CLASH_OK, "clash_shape_init_mesh", 0, 0);
}

/* Unit sphere (h = 0) or capsule tessellation, y the axis: inscribed (on
 * the surface) or circumscribed (meridian polygon tangent at the midpoints
 * of its edges, each ring's M-gon tangent to the ring). */
static size_t tess_round(double (*o)[3], double r, double h, int outer)
{
	const double dphi = M_PI / TESS_K;
	const double R1 = outer ? 1.0 / cos(dphi / 2) : 1.0,
		     Rm = outer ? 1.0 / cos(M_PI / TESS_M) : 1.0;
	size_t n = 0;
	for (int i = 0; i <= TESS_K; i++) {
		double phi = -M_PI / 2 + i * dphi;
		if (i == 0 || i == TESS_K) {
			o[n][0] = o[n][2] = 0;
			o[n++][1] = (i ? 1 : -1) * (R1 * r + h);
			continue;
		}
		for (int side = -1; side <= 1; side += 2) {
			if ((2 * i < TESS_K && side > 0) || (2 * i > TESS_K && side < 0))
				continue;
			for (int j = 0; j < TESS_M; j++) {
				double lam = 2 * M_PI * j / TESS_M, rho = R1 * Rm * r * cos(phi);
				o[n][0] = rho * cos(lam);
				o[n][2] = rho * sin(lam);
				o[n++][1] = R1 * r * sin(phi) + side * h;
			}
		}
	}
	return n;
}

/* Rings of radius r at heights y0 (and y1 unless apex): cylinder, cone. */
static size_t tess_rings(double (*o)[3], double r, double h, int cone, int outer)
{
	double rr = outer ? r / cos(M_PI / TESS_M) : r;
	size_t n = 0;
	for (int j = 0; j < TESS_M; j++) {
		double lam = 2 * M_PI * j / TESS_M;
		o[n][0] = rr * cos(lam), o[n][1] = -h, o[n++][2] = rr * sin(lam);
		if (!cone)
			o[n][0] = rr * cos(lam), o[n][1] = h, o[n++][2] = rr * sin(lam);
	}
	if (cone)
		o[n][0] = 0, o[n][1] = h, o[n++][2] = 0;
	return n;
}

static size_t tess(int kind, const double *p, double (*o)[3], int outer)
{
	size_t n = 0;
	switch (kind) {
	case CLASH_KIND_SPHERE: return tess_round(o, p[0], 0, outer);
	case CLASH_KIND_CAPSULE: return tess_round(o, p[0], p[1], outer);
	case CLASH_KIND_ELLIPSOID:
		n = tess_round(o, 1, 0, outer);
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 3; k++)
				o[i][k] *= p[k];
		return n;
	case CLASH_KIND_CYLINDER: return tess_rings(o, p[0], p[1], 0, outer);
	case CLASH_KIND_CONE: return tess_rings(o, p[0], p[1], 1, outer);
	default: /* box */
		for (int i = 0; i < 8; i++)
			for (int k = 0; k < 3; k++)
				o[i][k] = ((i >> k) & 1) ? p[k] : -p[k];
		return 8;
	}
}

/* One side; -1 when the core refused its pose (a singular matrix). */
static int make_solid(input *in, double scale, const double *offset, solid *m)
{
	unsigned k = u8(in);
	int type = (int)(k % 12);
	if (type <= 4) {
		m->type = SIDE_MESH;
		make_mesh(in, type, k >> 4, scale, m);
	} else if (type == 5) {
		m->type = SIDE_POLY;
		size_t count = 1 + u8(in) % 8;
		for (size_t i = 0; i < 3 * count; i++)
			m->v[i] = i16(in) / 64.0 * scale;
		clash_shape_init(&m->s, 3, m->v, count);
	} else {
		m->type = SIDE_PRIM;
		m->kind = type - 5;
		for (int i = 0; i < 3; i++)
			m->params[i] = (1 + u8(in)) / 32.0 * scale;
		if (clash_shape_init_primitive(&m->s, m->kind, m->params) != CLASH_OK)
			oops("clash_shape_init_primitive refused good params", m->kind,
			     m->params[0]);
	}
	if (pose_shape(in, 3, scale, offset, &m->s, &m->rigid) != 0)
		return -1;
	if (m->type == SIDE_MESH) {
		const uint32_t *ix = m->use_idx ? m->idx : NULL;
		for (size_t t = 0; t < m->nt; t++) {
			for (int c = 0; c < 3; c++)
				world(&m->s, m->pos + 3 * (ix ? ix[3 * t + c] : 3 * t + c),
				      m->tri[t][c]);
			for (int c = 0; c < 3; c++)
				world(&m->s, mesh_tri(m->s.mesh, t) + 3 * c, m->turned[t][c]);
			clash_shape_init(&m->piece[t], 3, &m->tri[t][0][0], 3);
			if (m->s.radius > 0)
				clash_shape_set_radius(&m->piece[t], m->s.radius);
		}
	} else if (m->type == SIDE_PRIM) {
		double loc[TESS_MAX][3];
		size_t n = tess(m->kind, m->params, loc, 0);
		for (size_t i = 0; i < n; i++)
			world(&m->s, loc[i], m->in[i]);
		m->ntess = tess(m->kind, m->params, loc, 1);
		REQUIRE(m->ntess == n, "tessellations of two sizes", (double)n, (double)m->ntess);
		for (size_t i = 0; i < n; i++)
			world(&m->s, loc[i], m->out[i]);
		/* Spheres and capsules under a similarity are exact (clash.h). */
		m->curved =
			m->kind >= CLASH_KIND_CYLINDER || (m->kind != CLASH_KIND_BOX && !m->rigid);
	}
	return 0;
}

static size_t npieces(const solid *m)
{
	return m->type == SIDE_MESH ? m->nt : 1;
}

static const clash_shape *piece(const solid *m, size_t i)
{
	return m->type == SIDE_MESH ? &m->piece[i] : &m->s;
}

/* Points of m: every corner of its triangles in the world (mesh: a part
 * reaching into an open solid through a hole may hold only some of
 * them), its first vertex or centre (convex). */
static size_t points_of(const solid *m, double (*x)[3])
{
	if (m->type == SIDE_MESH) {
		for (size_t t = 0; t < m->nt; t++)
			memcpy(x[3 * t], m->tri[t], sizeof m->tri[t]);
		return 3 * m->nt;
	}
	world(&m->s, m->s.vertices, x[0]);
	return 1;
}

static int inside_solid(const solid *m, const double *x)
{
	return m->type == SIDE_MESH && m->solid &&
	       fabs(winding_ref(&m->turned[0][0][0], m->nt, x)) > 0.5;
}

/* The distance from point x to m (0 inside a solid mesh); -1 when a
 * clash_gjk call did not converge. */
static double point_dist(const solid *m, const double *x)
{
	if (inside_solid(m, x))
		return 0;
	clash_shape pt;
	clash_shape_init(&pt, 3, x, 1);
	double best = INFINITY;
	for (size_t i = 0; i < npieces(m); i++) {
		clash_result r;
		if (clash_gjk(&pt, piece(m, i), &no_depth, &r) != CLASH_OK || !r.converged)
			return -1;
		best = fmin(best, r.distance);
	}
	return best;
}

static double dist3(const double *a, const double *b)
{
	double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
	return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static double size_of3(const solid *m)
{
	double s = m->s.radius, x[3];
	const double(*w)[3] = NULL;
	size_t n = 0;
	if (m->type == SIDE_MESH)
		w = (const double(*)[3])m->tri, n = 3 * m->nt;
	else if (m->type == SIDE_PRIM)
		w = (const double(*)[3])m->out, n = m->ntess;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			s = fmax(s, fabs(w[i][k]));
	for (size_t i = 0; m->type == SIDE_POLY && i < m->s.count; i++) {
		world(&m->s, m->s.vertices + 3 * i, x);
		for (int k = 0; k < 3; k++)
			s = fmax(s, fabs(x[k]));
	}
	return s;
}

/* ---- a mesh on either side ---------------------------------------------- */

/* The fast winding number of mesh side m (core/winding.h) at points x
 * (taken in the mesh's own coordinates) against the brute force: within
 * its bound, finite, and its inside test as |brute force| >= 1/2. */
static void check_winding(const solid *m, const double (*x)[3], size_t n)
{
	if (m->type != SIDE_MESH)
		return;
	static uint64_t far[MESH_MAX_T * 8];
	const clash_mesh *mesh = m->s.mesh;
	REQUIRE(winding_far_build(mesh, far, sizeof far) == CLASH_OK, "winding: far field",
	        (double)winding_far_size(mesh), (double)sizeof far);
	/* The build's own triangles: some may have been turned over. */
	double w[MESH_MAX_T * 9];
	memcpy(w, mesh_tri(mesh, 0), 9 * m->nt * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		if (winding_ref_on_surface(w, m->nt, x[i]))
			continue; /* w jumps by 1 there */
		const double ref = winding_ref(w, m->nt, x[i]);
		for (int k = 0; k < 2; k++) {
			double bound;
			const double v = winding_number(mesh, far, x[i], k ? 0.0 : 1e-3, &bound);
			REQUIRE(isfinite(v) && fabs(v - ref) <= bound + 1e-12,
			        "winding: fast vs brute force", v, ref);
		}
		if (fabs(fabs(ref) - 0.5) > 1e-9)
			REQUIRE(winding_inside(mesh, far, x[i]) == (fabs(ref) >= 0.5),
			        "winding: inside", ref, 0);
	}
}

static void check_mesh(const solid *a, const solid *b, double eps, double far)
{
	clash_result r;
	int rc = clash_gjk(&a->s, &b->s, NULL, &r);
	REQUIRE(rc == CLASH_OK || known_error(rc), "mesh: unexpected error", rc, 0);
	if (rc != CLASH_OK)
		return;
	check_members(&r, 3, "mesh");
	REQUIRE(r.has & CLASH_HAS_MESH, "mesh query without CLASH_HAS_MESH", r.has, 0);
	REQUIRE(r.has & CLASH_HAS_DISTANCE, "mesh query without a distance", r.has, 0);
	int sa = a->type == SIDE_MESH ? a->solid : 1, sb = b->type == SIDE_MESH ? b->solid : 1;
	REQUIRE(r.solid_a == sa && r.solid_b == sb, "mesh: solid flags", r.solid_a, r.solid_b);

	/* The pieces' least distance, and whether some pair is deep. */
	double dref = INFINITY;
	int deep = 0;
	for (size_t i = 0; i < npieces(a); i++)
		for (size_t j = 0; j < npieces(b); j++) {
			clash_result q;
			if (clash_gjk(piece(a, i), piece(b, j), &no_depth, &q) != CLASH_OK ||
			    !q.converged)
				return; /* no reference */
			dref = fmin(dref, q.distance);
			deep |= q.intersecting && (q.has & CLASH_HAS_DEPTH_BOUND) &&
			        q.depth_lower_bound > far;
		}
	/* Either side held by a solid mesh: some corner of it inside (with
	 * the surfaces apart, a part inside a closed solid is wholly inside;
	 * one reaching into an open one through a hole has a corner in, or
	 * crosses the film there: see the common point below). */
	static double pts[3 * MESH_MAX_T][3];
	int held = 0;
	for (size_t i = 0, n = points_of(a, pts); i < n; i++)
		held |= inside_solid(b, pts[i]);
	check_winding(b, (const double(*)[3])pts, points_of(a, pts));
	for (size_t i = 0, n = points_of(b, pts); i < n; i++)
		held |= inside_solid(a, pts[i]);
	check_winding(a, (const double(*)[3])pts, points_of(b, pts));

	if (print)
		fprintf(stderr,
		        "gjk: intersecting %d contact %d converged %d distance %.17g; "
		        "pieces %.17g deep %d, held %d\n",
		        r.intersecting, r.contact, r.converged, r.distance, dref, deep, held);
	if (!r.converged)
		return;
	if (!r.intersecting) {
		double gap = dist3(r.near_a, r.near_b);
		REQUIRE(fabs(gap - r.distance) <= eps, "mesh: |near_a - near_b| != distance", gap,
		        r.distance);
		REQUIRE(fabs(r.distance - dref) <= eps, "mesh: distance != the pieces' least",
		        r.distance, dref);
		REQUIRE(dref <= far || !held, "mesh: separated, but held by a solid", dref, far);
		double da = point_dist(a, r.near_a), db = point_dist(b, r.near_b);
		REQUIRE(da <= eps && db <= eps, "mesh: a near point off its shape", da, db);
	} else {
		REQUIRE(!memcmp(r.near_a, r.near_b, sizeof r.near_a), "mesh: two common points",
		        dist3(r.near_a, r.near_b), 0);
		double da = point_dist(a, r.near_a), db = point_dist(b, r.near_a);
		REQUIRE(da <= eps && db <= eps, "mesh: the common point is off a shape", da, db);
		/* The common point on one side and inside the other solid
		 * witnesses it too (a part crossing the film over a hole with
		 * no corner inside). */
		const int witnessed = inside_solid(a, r.near_a) || inside_solid(b, r.near_a);
		REQUIRE(dref <= far || held || witnessed,
		        "mesh: intersecting, but apart and neither held", dref, far);
		if (r.contact == CLASH_CONTACT_SURFACES)
			REQUIRE(dref <= eps, "mesh: surfaces touch, but the pieces are apart", dref,
			        eps);
		REQUIRE(r.contact != CLASH_CONTACT_A_IN_B || sb, "mesh: a in b, b no solid", 0, 0);
		REQUIRE(r.contact != CLASH_CONTACT_B_IN_A || sa, "mesh: b in a, a no solid", 0, 0);
	}
	if (deep)
		REQUIRE(r.intersecting, "mesh: separated, but pieces are deep in each other", dref,
		        far);

	/* The verdict alone, when far from touching. */
	clash_options ov = {0};
	ov.want = CLASH_WANT_VERDICT;
	clash_result v;
	rc = clash_gjk(&a->s, &b->s, &ov, &v);
	REQUIRE(rc == CLASH_OK, "mesh verdict: error", rc, 0);
	if (v.converged && (deep || dref > far))
		REQUIRE(v.intersecting == r.intersecting, "mesh verdict and distance disagree",
		        v.intersecting, dref);
}

/* ---- no mesh: closed forms and tessellation bounds ------------------------ */

static double seg_point(const double *p, const double *q, const double *x)
{
	double d[3], w[3], dd = 0, t = 0;
	for (int k = 0; k < 3; k++) {
		d[k] = q[k] - p[k];
		w[k] = x[k] - p[k];
		dd += d[k] * d[k];
		t += d[k] * w[k];
	}
	t = dd > 0 ? fmin(1, fmax(0, t / dd)) : 0;
	double y[3] = {p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2]};
	return dist3(x, y);
}

/* Segment to segment: the ends against the other segment, and the inner
 * critical point when both parameters lie inside. */
static double seg_seg(const double *p1, const double *q1, const double *p2, const double *q2)
{
	double best = fmin(fmin(seg_point(p1, q1, p2), seg_point(p1, q1, q2)),
	                   fmin(seg_point(p2, q2, p1), seg_point(p2, q2, q1)));
	double d1[3], d2[3], r[3];
	for (int k = 0; k < 3; k++)
		d1[k] = q1[k] - p1[k], d2[k] = q2[k] - p2[k], r[k] = p1[k] - p2[k];
	double a = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
	double e = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
	double b = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2];
	double c = d1[0] * r[0] + d1[1] * r[1] + d1[2] * r[2];
	double f = d2[0] * r[0] + d2[1] * r[1] + d2[2] * r[2];
	double den = a * e - b * b;
	if (den > 1e-12 * a * e) {
		double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
		if (s > 0 && s < 1 && t > 0 && t < 1) {
			double x[3], y[3];
			for (int k = 0; k < 3; k++)
				x[k] = p1[k] + s * d1[k], y[k] = p2[k] + t * d2[k];
			best = fmin(best, dist3(x, y));
		}
	}
	return best;
}

/* A rigid sphere or capsule as a segment (p, q) and a radius. */
static int as_segment(const solid *m, double *p, double *q, double *rad)
{
	if (m->type != SIDE_PRIM || !m->rigid ||
	    (m->kind != CLASH_KIND_SPHERE && m->kind != CLASH_KIND_CAPSULE))
		return 0;
	double h = m->kind == CLASH_KIND_CAPSULE ? m->params[1] : 0;
	double lp[3] = {0, -h, 0}, lq[3] = {0, h, 0};
	world(&m->s, lp, p);
	world(&m->s, lq, q);
	*rad = m->params[0] + m->s.radius;
	return 1;
}

/* The signed distance of the closed forms (< 0: overlapping), or NAN. */
static double closed_form(const solid *a, const solid *b)
{
	double pa[3], qa[3], ra, pb[3], qb[3], rb;
	int sa = as_segment(a, pa, qa, &ra), sb = as_segment(b, pb, qb, &rb);
	if (sa && sb)
		return seg_seg(pa, qa, pb, qb) - ra - rb;
	const solid *box = NULL;
	double *c = NULL, r = 0, x[3];
	if (sa && pa[0] == qa[0] && pa[1] == qa[1] && pa[2] == qa[2])
		box = b, c = pa, r = ra;
	else if (sb && pb[0] == qb[0] && pb[1] == qb[1] && pb[2] == qb[2])
		box = a, c = pb, r = rb;
	if (!box || box->type != SIDE_PRIM || box->kind != CLASH_KIND_BOX || !box->rigid)
		return NAN;
	/* The sphere's centre in the box's frame (rotation: transpose). */
	const clash_shape *s = &box->s;
	for (int col = 0; col < 3; col++) {
		x[col] = 0;
		for (int row = 0; row < 3; row++)
			x[col] += (s->posed ? s->linear[col * 3 + row] : col == row) *
			          (c[row] - (s->posed ? s->translation[row] : 0));
	}
	double out2 = 0, in = INFINITY;
	for (int k = 0; k < 3; k++) {
		double e = box->params[k], ex = fabs(x[k]) - e;
		if (ex > 0)
			out2 += ex * ex;
		in = fmin(in, e - fabs(x[k]));
	}
	return (out2 > 0 ? sqrt(out2) : -in) - r - s->radius;
}

/* Distance between the polytopes of a and b (inner or outer); -1 when
 * clash_gjk did not converge.  *deep: they overlap by more than far. */
static double poly_dist(const solid *a, const solid *b, int outer, double far, int *deep)
{
	clash_shape s[2];
	const solid *m[2] = {a, b};
	for (int k = 0; k < 2; k++) {
		if (m[k]->type == SIDE_PRIM) {
			clash_shape_init(&s[k], 3, outer ? &m[k]->out[0][0] : &m[k]->in[0][0],
			                 m[k]->ntess);
			if (m[k]->s.radius > 0)
				clash_shape_set_radius(&s[k], m[k]->s.radius);
		} else {
			s[k] = m[k]->s;
		}
	}
	clash_result r;
	if (clash_gjk(&s[0], &s[1], &no_depth, &r) != CLASH_OK || !r.converged)
		return -1;
	*deep = r.intersecting && (r.has & CLASH_HAS_DEPTH_BOUND) && r.depth_lower_bound > far;
	return r.distance;
}

static void check_convex(const solid *a, const solid *b, double eps, double far, int depth)
{
	clash_result g;
	int rc = clash_gjk(&a->s, &b->s, depth ? NULL : &no_depth, &g);
	REQUIRE(rc == CLASH_OK || known_error(rc), "primitive: unexpected error", rc, 0);
	if (rc != CLASH_OK)
		return;
	check_members(&g, 3, "primitive");
	if (!g.converged)
		return;
	int deep_in, deep_out;
	double d_in = poly_dist(a, b, 0, far, &deep_in), d_out = poly_dist(a, b, 1, far, &deep_out);
	double cf = closed_form(a, b);
	if (isnan(cf))
		cf = closed_form(b, a);
	if (print)
		fprintf(stderr,
		        "gjk: intersecting %d distance %.17g depth %.17g; polytopes %.17g "
		        "(inner) %.17g (outer), closed form %.17g\n",
		        g.intersecting, g.distance, g.depth, d_in, d_out, cf);
	if (d_in >= 0 && d_out >= 0) {
		if (!g.intersecting) {
			REQUIRE(g.distance >= d_out - eps,
			        "primitive: distance below the outer polytopes'", g.distance,
			        d_out);
			REQUIRE(g.distance <= d_in + eps,
			        "primitive: distance above the inner polytopes'", g.distance, d_in);
			REQUIRE(!deep_in, "primitive: separated, but the inner polytopes are deep",
			        g.distance, d_in);
		} else {
			REQUIRE(d_out <= eps,
			        "primitive: intersecting, but the outer polytopes are apart", d_out,
			        eps);
		}
	}
	if (!g.intersecting) {
		double gap = dist3(g.near_a, g.near_b);
		REQUIRE(fabs(gap - g.distance) <= eps, "primitive: |near_a - near_b| != distance",
		        gap, g.distance);
	}
	if (!isnan(cf)) {
		if (!g.intersecting)
			REQUIRE(fabs(g.distance - fmax(cf, 0)) <= eps,
			        "primitive: distance != closed form", g.distance, cf);
		if (fabs(cf) > far)
			REQUIRE(g.intersecting == (cf < 0), "primitive: verdict != closed form",
			        g.intersecting, cf);
		double pa[3], qa[3], ra, pb[3], qb[3], rb;
		if ((g.has & CLASH_HAS_DEPTH) && as_segment(a, pa, qa, &ra) &&
		    as_segment(b, pb, qb, &rb) && a->kind == CLASH_KIND_SPHERE &&
		    b->kind == CLASH_KIND_SPHERE)
			REQUIRE(fabs(g.depth + cf) <= eps, "primitive: sphere depth != closed form",
			        g.depth, -cf);
	}
}

void fuzz_solids(input *in, unsigned flags, int show)
{
	print = show;
	double scale = ldexp(1.0, (int)(u8(in) % 41) - 20);
	double offset[3] = {0};
	if (flags & 2)
		for (int k = 0; k < 3; k++)
			offset[k] = ldexp(i16(in), (int)(u8(in) % 15));
	static solid a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (make_solid(in, scale, offset, &a) != 0 || make_solid(in, scale, offset, &b) != 0)
		return;
	const solid *sd[2] = {&a, &b};
	for (int k = 0; print && k < 2; k++) {
		const solid *m = sd[k];
		fprintf(stderr,
		        "%c: type %d kind %d params %.17g %.17g %.17g radius %.17g rigid %d\n",
		        "ab"[k], m -> type, m -> kind, m -> params[0], m -> params[1],
		        m -> params[2], m -> s.radius, m->rigid);
		if (m->s.posed)
			fprintf(stderr,
			        "  linear %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
			        "(column-major), translation %.17g %.17g %.17g\n",
			        m->s.linear[0], m->s.linear[1], m->s.linear[2], m->s.linear[3],
			        m->s.linear[4], m->s.linear[5], m->s.linear[6], m->s.linear[7],
			        m->s.linear[8], m->s.translation[0], m->s.translation[1],
			        m->s.translation[2]);
		for (size_t t = 0; m->type == SIDE_MESH && t < m->nt; t++)
			for (int c = 0; c < 3; c++)
				fprintf(stderr, "  t%zu: %.17g %.17g %.17g\n", t, m->tri[t][c][0],
				        m->tri[t][c][1], m->tri[t][c][2]);
	}
	double S = fmax(size_of3(&a), size_of3(&b)) + 1e-300;
	/* Polytopes and meshes to 1e-12 of the size (clash.h's tolerance), a
	 * curved side to 1e-10: a hundredfold margin. */
	double eps = (a.curved || b.curved ? 1e-8 : 1e-10) * S, far = 1e-6 * S;
	if (a.type == SIDE_MESH || b.type == SIDE_MESH)
		check_mesh(&a, &b, eps, far);
	else
		check_convex(&a, &b, eps, far, !(a.curved || b.curved) || (flags & 8));
}
