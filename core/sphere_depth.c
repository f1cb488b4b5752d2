/*
 * sphere_depth.c — the penetration depth of a closed mesh and a ball
 * (sphere_depth.h; clash_mesh_depth in mesh_depth.c hands such pairs here
 * when the mesh is not convex).
 *
 * The ball moving along a unit u overlaps the mesh while its centre
 * x(t) = c + t u is within r of a triangle or inside the solid.  For one
 * triangle T the set {t : dist(x(t), T) <= r} is where the line meets the
 * convex T ⊕ ball, an interval: from the entries and exits of the slab
 * about T's plane (within T's edge planes), the cylinders about its edges
 * and the balls at its corners — quadratics, exact up to rounding.  The
 * directional depth t(u) is the end of the union of those intervals and
 * the stretches where the centre is inside (one ray cast per gap) that
 * holds t = 0 (Kim, Lin, Manocha 2002, directional penetration depth).
 * The depth is the least t(u) over candidates: the feet of the features
 * near the centre (a face's normal, away from an edge's line or a
 * corner), the least moves out of two or three faces' offset planes at
 * once (a slot, an inner corner), the axes and a Fibonacci sphere; then a
 * pattern search about the best.  Every answer is a move that parts them
 * (t(u) is exact); `converged` says the best is a foot of one to three
 * features that admits no shorter move nearby (a local optimum).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "mesh.h"
#include "mesh_query.h"
#include "overlap_sphere.h"
#include "vec.h"
#include "sphere_depth.h"
#include "tri_dist.h"

#define SD_FIBONACCI 128
#define SD_STEPS 40
/* Faces (those asking the least move) whose pairs and triples are tried. */
#define SD_FACES 8
/* Feet tried, the least asked first. */
#define SD_FEET 48

typedef struct sd_tri {
	double p[9], n[3];
} sd_tri;

typedef struct sd_span {
	double lo, hi;
} sd_span;

typedef struct sd_work {
	const clash_mesh *m;
	affine to_world, to_mesh;
	double c[3], r;
	int flip;
	const volatile int *cancel;
	sd_span *spans;
	size_t nspans, cap;
	uint32_t *stack, *stack2; /* of the path's walk, of the near walk */
	double best, u[3];
	double point[3]; /* where the ball touches at the best end */
	int exact;       /* the best is a foot that t(u) confirms */
} sd_work;

static void world_tri(const sd_work *w, size_t i, sd_tri *t)
{
	static const int perm[2][3] = {{0, 1, 2}, {0, 2, 1}};
	const double *src = mesh_tri(w->m, i);
	for (int c = 0; c < 3; c++)
		affine_apply(&w->to_world, src + 3 * perm[w->flip][c], t->p + 3 * c);
	double a[3], b[3];
	for (int k = 0; k < 3; k++) {
		a[k] = t->p[3 + k] - t->p[k];
		b[k] = t->p[6 + k] - t->p[k];
	}
	vec3_cross(t->n, a, b);
	sp_unit3(t->n);
}

/* ---- one triangle's interval ------------------------------------------ */

/* Roots of t^2 + 2 b t + cc = 0 into [lo, hi]; 0 when none. */
static int roots(double b, double cc, double *lo, double *hi)
{
	const double disc = b * b - cc;
	if (!(disc >= 0))
		return 0;
	const double s = sqrt(disc);
	const double q = b > 0 ? -b - s : -b + s;
	double r0 = q, r1 = q != 0 ? cc / q : 0.0;
	*lo = fmin(r0, r1);
	*hi = fmax(r0, r1);
	return 1;
}

static void take(double *lo, double *hi, double a, double b)
{
	if (a <= b) {
		*lo = fmin(*lo, a);
		*hi = fmax(*hi, b);
	}
}

/* The part of a t-interval where a + t s >= 0 (a linear constraint). */
static void clip_linear(double a, double s, double *lo, double *hi)
{
	if (s > 0)
		*lo = fmax(*lo, -a / s);
	else if (s < 0)
		*hi = fmin(*hi, -a / s);
	else if (a < 0)
		*hi = -INFINITY;
}

/* {t : dist(c + t u, T) <= r}: 0 when empty. */
static int tri_interval(const sd_work *w, const sd_tri *t, const double *u, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	double a, b;
	for (int i = 0; i < 3; i++) { /* corners */
		const double *p = t->p + 3 * i;
		double f[3];
		for (int k = 0; k < 3; k++)
			f[k] = w->c[k] - p[k];
		const double lf = sqrt(vec3_dot(f, f));
		if (roots(vec3_dot(u, f), (lf - w->r) * (lf + w->r), &a, &b))
			take(lo, hi, a, b);
	}
	for (int i = 0; i < 3; i++) { /* edges */
		const double *p = t->p + 3 * i, *q = t->p + 3 * ((i + 1) % 3);
		double e[3], f[3], fp[3], up[3];
		for (int k = 0; k < 3; k++) {
			e[k] = q[k] - p[k];
			f[k] = w->c[k] - p[k];
		}
		const double len = sqrt(vec3_dot(e, e));
		if (!(len > 0))
			continue;
		for (int k = 0; k < 3; k++)
			e[k] /= len;
		const double fe = vec3_dot(f, e), ue = vec3_dot(u, e);
		for (int k = 0; k < 3; k++) {
			fp[k] = f[k] - fe * e[k];
			up[k] = u[k] - ue * e[k];
		}
		const double uu = vec3_dot(up, up);
		if (uu > 1e-300) {
			const double lf = sqrt(vec3_dot(fp, fp));
			if (!roots(vec3_dot(up, fp) / uu, (lf - w->r) * (lf + w->r) / uu, &a, &b))
				continue;
		} else if (vec3_dot(fp, fp) <= w->r * w->r) {
			a = -INFINITY;
			b = INFINITY;
		} else {
			continue;
		}
		clip_linear(fe, ue, &a, &b);        /* along the edge: s >= 0 */
		clip_linear(len - fe, -ue, &a, &b); /* s <= len */
		take(lo, hi, a, b);
	}
	{ /* the slab about the plane, within the edge planes */
		double f[3];
		for (int k = 0; k < 3; k++)
			f[k] = w->c[k] - t->p[k];
		const double h = vec3_dot(f, t->n), s = vec3_dot(u, t->n);
		a = -INFINITY;
		b = INFINITY;
		clip_linear(w->r - h, -s, &a, &b); /* h + t s <= r */
		clip_linear(w->r + h, s, &a, &b);  /* h + t s >= -r */
		for (int i = 0; i < 3 && a <= b; i++) {
			const double *p = t->p + 3 * i, *q = t->p + 3 * ((i + 1) % 3);
			double e[3], m[3], g[3];
			for (int k = 0; k < 3; k++) {
				e[k] = q[k] - p[k];
				g[k] = w->c[k] - p[k];
			}
			vec3_cross(m, t->n, e); /* inward in the plane */
			clip_linear(vec3_dot(g, m), vec3_dot(u, m), &a, &b);
		}
		take(lo, hi, a, b);
	}
	return *lo <= *hi;
}

/* ---- the directional depth --------------------------------------------- */

static int span_cmp(const void *x, const void *y)
{
	const double a = ((const sd_span *)x)->lo, b = ((const sd_span *)y)->lo;
	return (a > b) - (a < b);
}

/* Does the segment c + [0, len] u come within r of box o? */
static int box_on_path(const obox *o, const double *c, const double *u, double len, double r)
{
	double t0 = 0.0, t1 = len;
	for (int k = 0; k < 3; k++) {
		const double lo = o->c[k] - o->h[k] - r, hi = o->c[k] + o->h[k] + r;
		if (fabs(u[k]) < 1e-300) {
			if (c[k] < lo || c[k] > hi)
				return 0;
			continue;
		}
		double a = (lo - c[k]) / u[k], b = (hi - c[k]) / u[k];
		if (a > b) {
			const double x = a;
			a = b;
			b = x;
		}
		t0 = fmax(t0, a);
		t1 = fmin(t1, b);
		if (t0 > t1)
			return 0;
	}
	return 1;
}

/* The intervals of the triangles near the path c + [0, limit] u. */
static int gather(sd_work *w, const double *u, double limit)
{
	w->nspans = 0;
	size_t top = 0, visits = 0;
	w->stack[top++] = 0;
	while (top) {
		if ((++visits & 255) == 0 && cancel_requested(w->cancel))
			return CLASH_ECANCELED;
		const mesh_node *n = &w->m->nodes[w->stack[--top]];
		obox o;
		mesh_node_obox(w->m, n, &w->to_world, &o);
		if (!box_on_path(&o, w->c, u, limit, w->r * (1 + 1e-12)))
			continue;
		if (!n->count) {
			w->stack[top++] = n->first + 1;
			w->stack[top++] = n->first;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; i++) {
			sd_tri t;
			world_tri(w, i, &t);
			double lo, hi;
			if (!tri_interval(w, &t, u, &lo, &hi) || hi < 0 || lo > limit)
				continue;
			if (w->nspans == w->cap) {
				const size_t cap = w->cap ? 2 * w->cap : 256;
				sd_span *s = realloc(w->spans, cap * sizeof *s);
				if (s == NULL)
					return CLASH_ENOMEM;
				w->spans = s;
				w->cap = cap;
			}
			w->spans[w->nspans++] = (sd_span){lo, hi};
		}
	}
	return CLASH_OK;
}

static int centre_inside(const sd_work *w, const double *x)
{
	double y[3];
	affine_apply(&w->to_mesh, x, y);
	const int in = mesh_point_inside(w->m, y, w->cancel);
	return in == CLASH_ERANGE ? 1 : in;
}

/* t(u), or `limit` when it is not less: into *t. */
static int depth_along(sd_work *w, const double *u, double limit, double *t)
{
	int err = gather(w, u, limit);
	if (err)
		return err;
	qsort(w->spans, w->nspans, sizeof *w->spans, span_cmp);
	double e = 0.0;
	/* each gap (no triangle within r) is inside or outside throughout */
	for (size_t i = 0; i <= w->nspans && e < limit; i++) {
		const double next = i < w->nspans ? w->spans[i].lo : limit;
		if (next > e) {
			double x[3];
			const double mid = 0.5 * (e + next);
			for (int k = 0; k < 3; k++)
				x[k] = w->c[k] + mid * u[k];
			const int in = centre_inside(w, x);
			if (in < 0)
				return in;
			if (!in)
				break;
			if (i == w->nspans)
				e = limit;
		}
		if (i < w->nspans)
			e = fmax(e, w->spans[i].hi);
	}
	*t = fmin(e, limit);
	return CLASH_OK;
}

/* ---- candidates ---------------------------------------------------------- */

typedef struct sd_face {
	double n[3], a; /* the centre must move a along n to leave its plane's offset */
} sd_face;

typedef struct sd_cand {
	double u[3], foot; /* a direction and the move its feature asks */
} sd_cand;

typedef struct sd_near {
	sd_face *faces;
	size_t nfaces, cap;
	sd_cand *cand;
	size_t ncand, cap_cand;
} sd_near;

/* Try direction u with the foot length `foot` (0: none): keep the best. */
static int try_dir(sd_work *w, const double *u_in, double foot)
{
	double u[3] = {u_in[0], u_in[1], u_in[2]}, t;
	if (!sp_unit3(u))
		return CLASH_OK;
	const int err = depth_along(w, u, w->best, &t);
	if (err)
		return err;
	if (t < w->best) {
		w->best = t;
		memcpy(w->u, u, sizeof u);
		w->exact = foot > 0 && fabs(t - foot) <= 1e-9 * fmax(foot, w->r);
	}
	return CLASH_OK;
}

/* The triangles within reach of x: each calls fn. */
typedef int (*near_fn)(sd_work *w, const sd_tri *t, const double *q, void *ctx);

static int near_tris(sd_work *w, const double *x, double reach, near_fn fn, void *ctx)
{
	size_t top = 0;
	w->stack2[top++] = 0;
	while (top) {
		const mesh_node *n = &w->m->nodes[w->stack2[--top]];
		obox o;
		mesh_node_obox(w->m, n, &w->to_world, &o);
		double d = 0.0;
		for (int k = 0; k < 3; k++) {
			const double e = fabs(x[k] - o.c[k]) - o.h[k];
			d += e > 0 ? e * e : 0.0;
		}
		if (d > reach * reach)
			continue;
		if (!n->count) {
			w->stack2[top++] = n->first + 1;
			w->stack2[top++] = n->first;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; i++) {
			sd_tri t;
			world_tri(w, i, &t);
			double q[3], e[3];
			tri_point_dist2(x, t.p, q);
			for (int k = 0; k < 3; k++)
				e[k] = x[k] - q[k];
			if (vec3_dot(e, e) > reach * reach)
				continue;
			const int err = fn(w, &t, q, ctx);
			if (err)
				return err;
		}
	}
	return CLASH_OK;
}

/* A feature near the centre: away from its closest point, out along its
 * normal; its face kept for the pairs and triples below. */
static int feature_feet(sd_work *w, const sd_tri *t, const double *q, void *ctx)
{
	sd_near *nr = ctx;
	double e[3], f[3];
	for (int k = 0; k < 3; k++) {
		e[k] = w->c[k] - q[k];
		f[k] = w->c[k] - t->p[k];
	}
	const double d = sqrt(vec3_dot(e, e)), h = vec3_dot(f, t->n);
	if (nr->ncand + 3 > nr->cap_cand) {
		const size_t cap = nr->cap_cand ? 2 * nr->cap_cand : 256;
		sd_cand *c = realloc(nr->cand, cap * sizeof *c);
		if (c == NULL)
			return CLASH_ENOMEM;
		nr->cand = c;
		nr->cap_cand = cap;
	}
	sd_cand *c = nr->cand + nr->ncand;
	memcpy(c[0].u, t->n, sizeof t->n);
	c[0].foot = w->r - h;
	nr->ncand++;
	if (d > 0) {
		for (int k = 0; k < 3; k++) {
			c[1].u[k] = e[k] / d;
			c[2].u[k] = -e[k] / d;
		}
		c[1].foot = w->r - d;
		c[2].foot = w->r + d; /* through it: no foot, tried last */
		nr->ncand += 2;
	}
	for (size_t i = 0; i < nr->nfaces; i++)
		if (vec3_dot(nr->faces[i].n, t->n) > 1 - 1e-12 &&
		    fabs(nr->faces[i].a - (w->r - h)) < 1e-12 * w->r)
			return CLASH_OK;
	if (nr->nfaces == nr->cap) { /* keep the faces that ask the least */
		size_t worst = 0;
		for (size_t i = 1; i < nr->nfaces; i++)
			if (nr->faces[i].a > nr->faces[worst].a)
				worst = i;
		if (nr->faces[worst].a <= w->r - h)
			return CLASH_OK;
		nr->faces[worst] = nr->faces[--nr->nfaces];
	}
	memcpy(nr->faces[nr->nfaces].n, t->n, sizeof t->n);
	nr->faces[nr->nfaces++].a = w->r - h;
	return CLASH_OK;
}

static int cand_cmp(const void *x, const void *y)
{
	const double a = ((const sd_cand *)x)->foot, b = ((const sd_cand *)y)->foot;
	return (a > b) - (a < b);
}

/* The candidates in order of the move they ask, distinct directions
 * only, at most SD_FEET of them. */
static int try_feet(sd_work *w, sd_near *nr)
{
	qsort(nr->cand, nr->ncand, sizeof *nr->cand, cand_cmp);
	size_t tried = 0;
	const double *done[SD_FEET];
	int err = CLASH_OK;
	for (size_t i = 0; i < nr->ncand && tried < SD_FEET && !err; i++) {
		const sd_cand *c = &nr->cand[i];
		int seen = 0;
		for (size_t j = 0; j < tried && !seen; j++)
			seen = vec3_dot(done[j], c->u) > 1 - 1e-12;
		if (seen)
			continue;
		done[tried++] = c->u;
		err = try_dir(w, c->u, c->foot <= w->r ? c->foot : 0.0);
	}
	return err;
}

/* The least move v with n_i . v = a_i for the k faces id (k = 2, 3), when
 * each multiplier is positive (every plane pushes): 1 with v. */
static int min_norm(const sd_face *f, const int *id, int k, double *v)
{
	double g[3][3], x[3], rhs[3];
	for (int i = 0; i < k; i++) {
		rhs[i] = f[id[i]].a;
		for (int j = 0; j < k; j++)
			g[i][j] = vec3_dot(f[id[i]].n, f[id[j]].n);
	}
	double det;
	if (k == 2) {
		det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
		if (!(fabs(det) > 1e-9))
			return 0;
		x[0] = (rhs[0] * g[1][1] - g[0][1] * rhs[1]) / det;
		x[1] = (g[0][0] * rhs[1] - g[1][0] * rhs[0]) / det;
	} else {
		double cf[3][3];
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				cf[i][j] =
					g[(i + 1) % 3][(j + 1) % 3] * g[(i + 2) % 3][(j + 2) % 3] -
					g[(i + 1) % 3][(j + 2) % 3] * g[(i + 2) % 3][(j + 1) % 3];
		det = g[0][0] * cf[0][0] + g[0][1] * cf[0][1] + g[0][2] * cf[0][2];
		if (!(fabs(det) > 1e-9))
			return 0;
		for (int i = 0; i < 3; i++)
			x[i] = (cf[0][i] * rhs[0] + cf[1][i] * rhs[1] + cf[2][i] * rhs[2]) / det;
	}
	for (int i = 0; i < k; i++)
		if (!(x[i] > 0))
			return 0;
	for (int c = 0; c < 3; c++) {
		v[c] = 0.0;
		for (int i = 0; i < k; i++)
			v[c] += x[i] * f[id[i]].n[c];
	}
	return 1;
}

/* Two and three faces at once (a slot, an inner corner). */
static int face_sets(sd_work *w, const sd_near *nr)
{
	const size_t n = nr->nfaces;
	int err = CLASH_OK;
	for (size_t i = 0; i < n && !err; i++)
		for (size_t j = i + 1; j < n && !err; j++) {
			int id[3] = {(int)i, (int)j, 0};
			double v[3];
			if (min_norm(nr->faces, id, 2, v) && sqrt(vec3_dot(v, v)) < w->best)
				err = try_dir(w, v, sqrt(vec3_dot(v, v)));
			for (size_t k = j + 1; k < n && !err; k++) {
				id[2] = (int)k;
				if (min_norm(nr->faces, id, 3, v) && sqrt(vec3_dot(v, v)) < w->best)
					err = try_dir(w, v, sqrt(vec3_dot(v, v)));
			}
			if (!err && cancel_requested(w->cancel))
				err = CLASH_ECANCELED;
		}
	return err;
}

/* Axes and a Fibonacci sphere. */
static int sphere_dirs(sd_work *w)
{
	int err = CLASH_OK;
	for (int k = 0; k < 6 && !err; k++) {
		double u[3] = {0, 0, 0};
		u[k / 2] = k & 1 ? -1.0 : 1.0;
		err = try_dir(w, u, 0);
	}
	const double golden = 2.39996322972865332;
	for (int i = 0; i < SD_FIBONACCI && !err; i++) {
		const double z = 1 - (2 * i + 1.0) / SD_FIBONACCI, s = sqrt(1 - z * z);
		const double u[3] = {s * cos(golden * i), s * sin(golden * i), z};
		err = try_dir(w, u, 0);
	}
	return err;
}

/* A pattern search about the best direction: turns toward four
 * directions across it, halving the angle when none improves. */
static int pattern(sd_work *w)
{
	double step = 0.3;
	int err = CLASH_OK;
	for (int it = 0; it < SD_STEPS * 4 && step > 1e-7 && !err; it++) {
		double e1[3], e2[3];
		const double ax[3] = {fabs(w->u[0]) < 0.6 ? 1.0 : 0.0,
		                      fabs(w->u[0]) < 0.6 ? 0.0 : 1.0, 0.0};
		vec3_cross(e1, w->u, ax);
		sp_unit3(e1);
		vec3_cross(e2, w->u, e1);
		const double best = w->best;
		const int exact = w->exact;
		const double u0[3] = {w->u[0], w->u[1], w->u[2]};
		for (int d = 0; d < 4 && !err; d++) {
			const double *e = d < 2 ? e1 : e2;
			const double sg = d & 1 ? -1.0 : 1.0;
			double u[3];
			for (int k = 0; k < 3; k++)
				u[k] = u0[k] * cos(step) + sg * sin(step) * e[k];
			err = try_dir(w, u, 0);
		}
		if (w->best < best * (1 - 1e-12))
			continue;
		/* no real gain: keep the foot's flag, make the steps finer */
		if (w->best >= best * (1 - 1e-12) && exact)
			w->exact = 1;
		step *= 0.5;
	}
	return err;
}

/* Where the ball touches at the end of the best move. */
static int touch_point(sd_work *w, const sd_tri *t, const double *q, void *ctx)
{
	(void)t;
	double *best = ctx;
	double x[3], e[3];
	for (int k = 0; k < 3; k++) {
		x[k] = w->c[k] + w->best * w->u[k];
		e[k] = x[k] - q[k];
	}
	const double d = vec3_dot(e, e);
	if (d < *best) {
		*best = d;
		memcpy(w->point, q, sizeof w->point);
	}
	return CLASH_OK;
}

int sphere_depth(const clash_shape *mesh, const double *c, double r, int ball_is_b,
                 const clash_options *opt, clash_result *res)
{
	sd_work w;
	memset(&w, 0, sizeof w);
	w.m = mesh->mesh;
	memcpy(w.c, c, sizeof w.c);
	w.r = r;
	w.cancel = opt ? opt->cancel : NULL;
	affine_of(mesh, &w.to_world);
	affine_invert(&w.to_world, &w.to_mesh);
	w.flip = (w.m->volume < 0.0) != (affine_det(w.to_world.l) < 0.0);
	w.stack = malloc((2 * (size_t)w.m->depth + 4) * sizeof *w.stack);
	w.stack2 = malloc((2 * (size_t)w.m->depth + 4) * sizeof *w.stack2);
	sd_near nr = {malloc(SD_FACES * sizeof(sd_face)), 0, SD_FACES, NULL, 0, 0};
	int err = w.stack && w.stack2 && nr.faces ? CLASH_OK : CLASH_ENOMEM;
	if (!err) {
		/* no move longer than leaving the mesh's box from the centre */
		obox o;
		mesh_node_obox(w.m, &w.m->nodes[0], &w.to_world, &o);
		double far = 0.0;
		for (int k = 0; k < 3; k++) {
			const double e = fabs(c[k] - o.c[k]) + o.h[k];
			far += e * e;
		}
		w.best = 2 * (sqrt(far) + r);
		w.u[2] = 1.0;
		err = near_tris(&w, c, r, feature_feet, &nr);
	}
	if (!err)
		err = try_feet(&w, &nr);
	if (!err)
		err = face_sets(&w, &nr);
	if (!err)
		err = sphere_dirs(&w);
	if (!err)
		err = pattern(&w);
	double d2 = INFINITY;
	if (!err) {
		double x[3];
		for (int k = 0; k < 3; k++)
			x[k] = c[k] + w.best * w.u[k];
		memcpy(w.point, x, sizeof x);
		err = near_tris(&w, x, r * (1 + 1e-6) + 1e-12, touch_point, &d2);
	}
	if (!err) {
		res->depth = w.best;
		for (int k = 0; k < 3; k++) {
			const double back = w.point[k] - w.best * w.u[k];
			res->depth_normal[k] = ball_is_b ? w.u[k] : -w.u[k];
			res->depth_a[k] = ball_is_b ? w.point[k] : back;
			res->depth_b[k] = ball_is_b ? back : w.point[k];
		}
		res->converged = w.exact;
		res->has |= CLASH_HAS_DEPTH;
	}
	free(w.stack);
	free(w.stack2);
	free(w.spans);
	free(nr.faces);
	free(nr.cand);
	return err;
}
