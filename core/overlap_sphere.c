/*
 * overlap_sphere.c — where a closed mesh and a ball meet, and the volume
 * they share (overlap_sphere.h; the answer is written by
 * overlap_sphere_out.c).
 *
 * Volume by the divergence theorem with the origin at the centre c:
 * V = (1/3) (sum over faces T of h_T area(T∩D) + r^3 Omega), Omega the
 * area of the unit sphere's part inside the mesh (on the sphere x.n = r,
 * on a face x.n = h_T).  area(T∩D) is closed form: T's boundary is cut
 * into pieces inside the circle (triangles with o) and outside (sectors).
 * Omega from Gauss-Bonnet on each patch P of the sphere inside the mesh,
 * bounded by b loops of arcs: area(P) = 2 pi (2 - b) - sum over its loops
 * of (integral of the geodesic curvature + turning angles at corners),
 * an arc of T's circle of angle phi giving -phi h_T / r, a corner (where a
 * loop crosses an edge) the signed angle between the arcs' tangents; a
 * sphere no loop crosses is inside or out (a ray).
 * Loops bound one patch when each lies on the other's inner side and no
 * third separates them (crossings of a great-circle arc with the loops'
 * sampled polygons).  Regions join triangles through edges inside the
 * ball, loops to their triangles and to the loops of their patch
 * (docs/shapes.md, "A mesh and a sphere").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "mesh_query.h"
#include "overlap_sphere.h"
#include "vec.h"
#include "overlap_work.h"
#include "tri_dist.h"

#define SP_PI 3.14159265358979323846
/* Samples of a whole circle when sides of loops are compared. */
#define SP_SIDE_STEPS 64

int ov_ball_of(const clash_shape *s, double *c, double *r)
{
	if (s->mesh || s->nparts || s->dim != 3)
		return 0;
	double base;
	if (s->kind == CLASH_KIND_SPHERE)
		base = s->params[0];
	else if (s->kind == CLASH_KIND_POLYTOPE && s->count == 1 && s->radius > 0)
		base = 0.0;
	else
		return 0;
	affine f;
	affine_of(s, &f);
	affine_apply(&f, s->vertices, c);
	/* a similarity: columns orthogonal, of one length */
	double col[3][3], len[3];
	for (int j = 0; j < 3; j++) {
		for (int k = 0; k < 3; k++)
			col[j][k] = f.l[3 * k + j];
		len[j] = sqrt(vec3_dot(col[j], col[j]));
	}
	const double tol = 1e-14 * len[0];
	for (int j = 0; j < 3; j++)
		if (fabs(len[j] - len[0]) > tol ||
		    fabs(vec3_dot(col[j], col[(j + 1) % 3])) > tol * len[0])
			return 0;
	*r = base * len[0] + s->radius;
	return *r > 0;
}

/* ---- triangles near the ball ------------------------------------------- */

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 1;
	const size_t c = *cap ? 2 * *cap : 64;
	void *p = realloc(*arr, c * size);
	if (p == NULL)
		return 0;
	*arr = p;
	*cap = c;
	return 1;
}

static int box_meets_ball(const obox *o, const double *c, double r)
{
	double d = 0.0;
	for (int k = 0; k < 3; k++) {
		const double e = fabs(c[k] - o->c[k]) - o->h[k];
		if (e > 0)
			d += e * e;
	}
	return d <= r * r * (1 + 1e-12);
}

/* Area of T∩D: T's edges about o in the plane, cut by the circle. */
/* The solid angle from c of the triangle o, x, y of T's plane (x, y about
 * o): Van Oosterom and Strackee (1983), signed as h. */
static double fan_angle(const double *x, const double *y, double h)
{
	const double lx = sqrt(x[0] * x[0] + x[1] * x[1] + h * h);
	const double ly = sqrt(y[0] * y[0] + y[1] * y[1] + h * h);
	const double det = h * (x[0] * y[1] - x[1] * y[0]);
	const double den = fabs(h) * lx * ly + h * h * (lx + ly) +
	                   (x[0] * y[0] + x[1] * y[1] + h * h) * fabs(h);
	return 2 * atan2(det, den);
}

/* Area of T∩D and its solid angle seen from c (signed as h): T's edges
 * about o in the plane, cut by the circle; pieces inside are triangles
 * with o, pieces outside sectors (solid angle phi (sign h - h / r)). */
static void piece_area(const double (*q)[2], double rho, double h, double r, double *area,
                       double *omega)
{
	const double cone = (h > 0) - (h < 0) - h / r;
	*area = *omega = 0.0;
	for (int i = 0; i < 3; i++) {
		const double *p = q[i], *s = q[(i + 1) % 3];
		const double d[2] = {s[0] - p[0], s[1] - p[1]};
		const double a = d[0] * d[0] + d[1] * d[1];
		const double b = p[0] * d[0] + p[1] * d[1];
		const double cc = (p[0] - rho) * (p[0] + rho) + p[1] * p[1];
		const double disc = b * b - a * cc;
		double t0 = 0.0, t1 = 0.0; /* the inside part [t0, t1] */
		if (a > 0 && disc > 0) {
			const double sq = sqrt(disc);
			const double r0 = b > 0 ? (-b - sq) / a : cc / (-b + sq);
			const double r1 = b > 0 ? cc / (-b - sq) : (-b + sq) / a;
			t0 = fmin(fmax(fmin(r0, r1), 0.0), 1.0);
			t1 = fmin(fmax(fmax(r0, r1), 0.0), 1.0);
		}
		const double x0[2] = {p[0] + t0 * d[0], p[1] + t0 * d[1]};
		const double x1[2] = {p[0] + t1 * d[0], p[1] + t1 * d[1]};
		double phi;
		if (t0 > 0) { /* outside p .. x0: a sector */
			phi = atan2(p[0] * x0[1] - p[1] * x0[0], p[0] * x0[0] + p[1] * x0[1]);
			*area += 0.5 * rho * rho * phi;
			*omega += phi * cone;
		}
		if (t1 > t0) {
			*area += 0.5 * (x0[0] * x1[1] - x0[1] * x1[0]);
			*omega += fan_angle(x0, x1, h);
		}
		if (t1 < 1) {
			phi = atan2(x1[0] * s[1] - x1[1] * s[0], x1[0] * s[0] + x1[1] * s[1]);
			*area += 0.5 * rho * rho * phi;
			*omega += phi * cone;
		}
	}
}

/* The distance from o (the origin) to the triangle q in its plane. */
static double plane_gap(const double (*q)[2])
{
	double best = INFINITY;
	int inside = 1;
	for (int i = 0; i < 3; i++) {
		const double *a = q[i], *b = q[(i + 1) % 3];
		const double d[2] = {b[0] - a[0], b[1] - a[1]};
		inside &= d[0] * (-a[1]) - d[1] * (-a[0]) >= 0;
		const double dd = d[0] * d[0] + d[1] * d[1];
		double t = dd > 0 ? -(a[0] * d[0] + a[1] * d[1]) / dd : 0.0;
		t = fmin(fmax(t, 0.0), 1.0);
		best = fmin(best, hypot(a[0] + t * d[0], a[1] + t * d[1]));
	}
	return inside ? 0.0 : best;
}

/* Plane, disc and area of triangle t; 0 when its plane misses the ball. */
static int plane_of(sp_work *w, sp_tri *t)
{
	double u[3], v[3];
	for (int k = 0; k < 3; k++) {
		u[k] = t->p[3 + k] - t->p[k];
		v[k] = t->p[6 + k] - t->p[k];
	}
	vec3_cross(t->n, u, v);
	if (!sp_unit3(t->n) || !sp_unit3(u))
		return 0;
	memcpy(t->e1, u, sizeof u);
	vec3_cross(t->e2, t->n, t->e1);
	double rel[3][3];
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			rel[i][k] = t->p[3 * i + k] - w->c[k];
	t->h = (vec3_dot(t->n, rel[0]) + vec3_dot(t->n, rel[1]) + vec3_dot(t->n, rel[2])) / 3.0;
	if (!(fabs(t->h) < w->r))
		return 0;
	t->rho = sqrt((w->r - fabs(t->h)) * (w->r + fabs(t->h)));
	double q[3][2];
	for (int i = 0; i < 3; i++) {
		q[i][0] = vec3_dot(rel[i], t->e1);
		q[i][1] = vec3_dot(rel[i], t->e2);
	}
	if (!(plane_gap(q) < t->rho))
		return 0; /* the disc misses T or only touches it */
	piece_area((const double(*)[2])q, t->rho, t->h, w->r, &t->area, &t->omega);
	return 1;
}

typedef struct near_ctx {
	sp_work *w;
	size_t cap;
} near_ctx;

static int add_tri(near_ctx *x, size_t i)
{
	sp_work *w = x->w;
	if (!grow((void **)&w->tri, w->ntri, &x->cap, sizeof *w->tri))
		return CLASH_ENOMEM;
	sp_tri *t = &w->tri[w->ntri];
	memset(t, 0, sizeof *t);
	static const int perm[2][3] = {{0, 1, 2}, {0, 2, 1}};
	const int flip = (w->m->volume < 0.0) != (affine_det(w->to_world.l) < 0.0);
	const double *src = mesh_tri(w->m, i);
	for (int c = 0; c < 3; c++)
		affine_apply(&w->to_world, src + 3 * perm[flip][c], t->p + 3 * c);
	t->input = w->m->input[i];
	if (plane_of(w, t))
		w->ntri++;
	return CLASH_OK;
}

/* The triangles whose plane's disc meets them, in tree order. */
static int find_near(sp_work *w)
{
	near_ctx x = {w, 0};
	uint32_t *stack = malloc((2 * (size_t)w->m->depth + 4) * sizeof *stack);
	if (stack == NULL)
		return CLASH_ENOMEM;
	size_t top = 0;
	stack[top++] = 0;
	size_t visits = 0;
	while (top) {
		if ((++visits & 255) == 0 && cancel_requested(w->cancel)) {
			free(stack);
			return CLASH_ECANCELED;
		}
		const mesh_node *n = &w->m->nodes[stack[--top]];
		obox o;
		mesh_node_obox(w->m, n, &w->to_world, &o);
		if (!box_meets_ball(&o, w->c, w->r))
			continue;
		if (n->count) {
			for (uint32_t i = n->first; i < n->first + n->count; i++) {
				const int err = add_tri(&x, i);
				if (err) {
					free(stack);
					return err;
				}
			}
		} else {
			stack[top++] = n->first + 1;
			stack[top++] = n->first;
		}
	}
	free(stack);
	return CLASH_OK;
}

/* ---- where the sphere crosses the edges --------------------------------- */

typedef struct xkey {
	double e[6];
	int root;
} xkey;

typedef struct xmap {
	xkey *keys;
	uint32_t *slots; /* index + 1, 0 empty */
	size_t nslots;
} xmap;

static uint64_t key_hash(const xkey *k)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)k->root;
	for (int i = 0; i < 6; i++) {
		uint64_t u;
		memcpy(&u, &k->e[i], sizeof u);
		h = (h ^ u) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h * 0x9e3779b97f4a7c15ull;
}

static int lex_less(const double *a, const double *b)
{
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k];
	return 0;
}

/* The edge p-q with its corners in lexicographic order, so that both
 * triangles of an edge name it alike. */
static void edge_key(const double *p, const double *q, xkey *k)
{
	const int swap = lex_less(q, p);
	memcpy(k->e, swap ? q : p, 3 * sizeof(double));
	memcpy(k->e + 3, swap ? p : q, 3 * sizeof(double));
	k->root = 0;
}

/* Crossing `root` of the edge with corners in canonical order: its index,
 * added when new (the same point for both triangles of the edge). */
static int crossing(sp_work *w, xmap *x, const xkey *k, double t, uint32_t *id)
{
	size_t h = (size_t)(key_hash(k) >> 17) & (x->nslots - 1);
	while (x->slots[h]) {
		const xkey *o = &x->keys[x->slots[h] - 1];
		if (o->root == k->root && memcmp(o->e, k->e, sizeof k->e) == 0) {
			*id = x->slots[h] - 1;
			return CLASH_OK;
		}
		h = (h + 1) & (x->nslots - 1);
	}
	if (!grow((void **)&w->xp, w->nx, &w->cap_x, sizeof *w->xp))
		return CLASH_ENOMEM;
	for (int j = 0; j < 3; j++)
		w->xp[w->nx][j] = k->e[j] + t * (k->e[3 + j] - k->e[j]);
	x->keys[w->nx] = *k;
	x->slots[h] = (uint32_t)(w->nx + 1);
	*id = (uint32_t)w->nx++;
	return CLASH_OK;
}

typedef struct xing {
	double theta;
	uint32_t id;
} xing;

/* The crossings of triangle t's edges with the sphere, with their angles
 * about o; *n of them. */
static int edge_crossings(sp_work *w, xmap *x, const sp_tri *t, xing *out, int *n)
{
	*n = 0;
	for (int i = 0; i < 3; i++) {
		const double *p = t->p + 3 * i, *q = t->p + 3 * ((i + 1) % 3);
		xkey k;
		edge_key(p, q, &k);
		double d[3], f[3];
		for (int j = 0; j < 3; j++) {
			d[j] = k.e[3 + j] - k.e[j];
			f[j] = k.e[j] - w->c[j];
		}
		const double a = vec3_dot(d, d), b = vec3_dot(f, d);
		const double lf = sqrt(vec3_dot(f, f));
		const double cc = (lf - w->r) * (lf + w->r);
		const double disc = b * b - a * cc;
		if (!(a > 0) || !(disc > 0))
			continue;
		const double sq = sqrt(disc);
		double r[2];
		r[0] = b > 0 ? (-b - sq) / a : cc / (-b + sq);
		r[1] = b > 0 ? cc / (-b - sq) : (-b + sq) / a;
		for (k.root = 0; k.root < 2; k.root++) {
			if (!(r[k.root] >= 0 && r[k.root] <= 1))
				continue;
			uint32_t id;
			const int err = crossing(w, x, &k, r[k.root], &id);
			if (err)
				return err;
			double rel[3];
			for (int j = 0; j < 3; j++)
				rel[j] = w->xp[id][j] - w->c[j];
			out[*n].theta = atan2(vec3_dot(rel, t->e2), vec3_dot(rel, t->e1));
			out[(*n)++].id = id;
		}
	}
	return CLASH_OK;
}

static int in_triangle(const sp_work *w, const sp_tri *t, double theta)
{
	double q[3][2];
	for (int i = 0; i < 3; i++) {
		double rel[3];
		for (int k = 0; k < 3; k++)
			rel[k] = t->p[3 * i + k] - w->c[k];
		q[i][0] = vec3_dot(rel, t->e1);
		q[i][1] = vec3_dot(rel, t->e2);
	}
	const double m[2] = {t->rho * cos(theta), t->rho * sin(theta)};
	for (int i = 0; i < 3; i++) {
		const double *a = q[i], *b = q[(i + 1) % 3];
		if ((b[0] - a[0]) * (m[1] - a[1]) - (b[1] - a[1]) * (m[0] - a[0]) < 0)
			return 0;
	}
	return 1;
}

static int xing_cmp(const void *a, const void *b)
{
	const double x = ((const xing *)a)->theta, y = ((const xing *)b)->theta;
	return (x > y) - (x < y);
}

static int add_arc(sp_work *w, uint32_t tri, uint32_t from, uint32_t to, double hi, double lo)
{
	if (!grow((void **)&w->arcs, w->narcs, &w->cap_arcs, sizeof *w->arcs))
		return CLASH_ENOMEM;
	w->arcs[w->narcs++] = (sp_arc){tri, from, to, hi, lo, UINT32_MAX, UINT32_MAX};
	return CLASH_OK;
}

/* The arcs of triangle i's circle inside it. */
static int tri_arcs(sp_work *w, xmap *x, uint32_t i)
{
	const sp_tri *t = &w->tri[i];
	xing xs[6];
	int n;
	int err = edge_crossings(w, x, t, xs, &n);
	if (err)
		return err;
	if (n == 0)
		return in_triangle(w, t, 0.0)
		               ? add_arc(w, i, UINT32_MAX, UINT32_MAX, 2 * SP_PI, 0.0)
		               : CLASH_OK;
	qsort(xs, (size_t)n, sizeof *xs, xing_cmp);
	for (int j = 0; j < n && !err; j++) {
		const double lo = xs[j].theta;
		const double hi = j + 1 < n ? xs[j + 1].theta : xs[0].theta + 2 * SP_PI;
		if (hi > lo && in_triangle(w, t, 0.5 * (lo + hi)))
			err = add_arc(w, i, xs[(j + 1) % n].id, xs[j].id, hi, lo);
	}
	return err;
}

static int find_arcs(sp_work *w)
{
	xmap x = {0};
	x.nslots = 64;
	while (x.nslots < 16 * w->ntri + 64)
		x.nslots *= 2;
	x.slots = calloc(x.nslots, sizeof *x.slots);
	x.keys = malloc((6 * w->ntri + 1) * sizeof *x.keys);
	int err = x.slots && x.keys ? CLASH_OK : CLASH_ENOMEM;
	for (size_t i = 0; i < w->ntri && !err; i++) {
		if ((i & 255) == 255 && cancel_requested(w->cancel))
			err = CLASH_ECANCELED;
		else
			err = tri_arcs(w, &x, (uint32_t)i);
	}
	free(x.slots);
	free(x.keys);
	return err;
}

/* ---- loops ---------------------------------------------------------------- */

size_t sp_arc_steps(const sp_arc *a)
{
	const double step = 2 * SP_PI / SP_SIDE_STEPS;
	const double s = ceil((a->hi - a->lo) / step);
	return s < 1 ? 1 : (size_t)s;
}

/* Point i of `count` steps from hi down to lo; the ends are the crossing
 * points themselves, so that neighbouring arcs share them. */
void sp_arc_point(const sp_work *w, const sp_arc *a, size_t i, size_t count, double *x)
{
	if (i == 0 && a->from != UINT32_MAX) {
		memcpy(x, w->xp[a->from], 3 * sizeof *x);
		return;
	}
	if (i == count && a->to != UINT32_MAX) {
		memcpy(x, w->xp[a->to], 3 * sizeof *x);
		return;
	}
	const sp_tri *t = &w->tri[a->tri];
	const double th = a->hi - (a->hi - a->lo) * (double)i / (double)count;
	const double cs = cos(th), sn = sin(th);
	for (int k = 0; k < 3; k++)
		x[k] = w->c[k] + t->h * t->n[k] + t->rho * (cs * t->e1[k] + sn * t->e2[k]);
}

/* The unit tangent of the walk on triangle t at sphere point x. */
static void tangent(const sp_work *w, const sp_tri *t, const double *x, double *nu, double *tg)
{
	for (int k = 0; k < 3; k++)
		nu[k] = (x[k] - w->c[k]) / w->r;
	vec3_cross(tg, nu, t->n);
	sp_unit3(tg);
}

/* The turning angle where arc a hands over to arc b (at a's end). */
static double corner(const sp_work *w, const sp_arc *a, const sp_arc *b)
{
	const double *x = w->xp[a->to];
	double nu[3], t1[3], t2[3], c[3];
	tangent(w, &w->tri[a->tri], x, nu, t1);
	tangent(w, &w->tri[b->tri], x, nu, t2);
	vec3_cross(c, t1, t2);
	return atan2(vec3_dot(nu, c), vec3_dot(t1, t2));
}

static int add_loop(sp_work *w, uint32_t first)
{
	sp_loop *l = &w->loops[w->nloops];
	memset(l, 0, sizeof *l);
	l->first = first;
	l->patch = (uint32_t)w->nloops;
	uint32_t a = first;
	do {
		sp_arc *arc = &w->arcs[a];
		if (arc->loop != UINT32_MAX)
			return CLASH_ENOTSUP; /* a walk that runs into another loop */
		arc->loop = (uint32_t)w->nloops;
		l->narcs++;
		l->turning -= (arc->hi - arc->lo) * w->tri[arc->tri].h / w->r;
		if (arc->next == UINT32_MAX)
			break;
		if (arc->to != UINT32_MAX) /* not a whole circle */
			l->turning += corner(w, arc, &w->arcs[arc->next]);
		a = arc->next;
	} while (a != first);
	l->closed = a == first && w->arcs[a].next != UINT32_MAX;
	w->nloops++;
	return CLASH_OK;
}

/* Arcs chained head to tail into loops (open chains first). */
static int find_loops(sp_work *w)
{
	uint32_t *start = malloc((w->nx + 1) * sizeof *start);
	uint8_t *reached = calloc(w->narcs + 1, 1);
	w->loops = malloc((w->narcs + 1) * sizeof *w->loops);
	int err = start && reached && w->loops ? CLASH_OK : CLASH_ENOMEM;
	if (!err) {
		memset(start, 0xff, (w->nx + 1) * sizeof *start);
		for (size_t i = 0; i < w->narcs; i++)
			if (w->arcs[i].from != UINT32_MAX)
				start[w->arcs[i].from] = (uint32_t)i;
		for (size_t i = 0; i < w->narcs; i++) {
			sp_arc *a = &w->arcs[i];
			if (a->to != UINT32_MAX && start[a->to] != UINT32_MAX) {
				a->next = start[a->to];
				reached[a->next] = 1;
			} else if (a->to == UINT32_MAX) {
				a->next = (uint32_t)i; /* a whole circle */
			}
		}
		for (size_t i = 0; i < w->narcs && !err; i++)
			if (!reached[i] && w->arcs[i].from != UINT32_MAX &&
			    w->arcs[i].loop == UINT32_MAX)
				err = add_loop(w, (uint32_t)i);
		for (size_t i = 0; i < w->narcs && !err; i++)
			if (w->arcs[i].loop == UINT32_MAX)
				err = add_loop(w, (uint32_t)i);
	}
	free(start);
	free(reached);
	return err;
}

/* ---- which loops bound one patch ----------------------------------------- */

typedef struct sp_poly {
	double (*p)[3]; /* unit vectors from c */
	size_t n;
	double ref[3]; /* a point just on the inner side */
} poly;

static int loop_poly(const sp_work *w, const sp_loop *l, poly *out)
{
	size_t n = 0;
	uint32_t a = l->first;
	for (size_t k = 0; k < l->narcs; k++, a = w->arcs[a].next)
		n += sp_arc_steps(&w->arcs[a]);
	out->p = malloc((n + 1) * sizeof *out->p);
	if (out->p == NULL)
		return CLASH_ENOMEM;
	out->n = 0;
	a = l->first;
	for (size_t k = 0; k < l->narcs; k++, a = w->arcs[a].next) {
		const size_t s = sp_arc_steps(&w->arcs[a]);
		for (size_t i = 0; i < s; i++) {
			double x[3];
			sp_arc_point(w, &w->arcs[a], i, s, x);
			for (int j = 0; j < 3; j++)
				out->p[out->n][j] = (x[j] - w->c[j]) / w->r;
			out->n++;
		}
	}
	/* inside: from the first point towards -n of its triangle */
	const sp_tri *t = &w->tri[w->arcs[l->first].tri];
	double nu[3], tg[3], left[3];
	memcpy(nu, out->p[0], sizeof nu);
	vec3_cross(tg, nu, t->n);
	sp_unit3(tg);
	vec3_cross(left, nu, tg);
	for (int j = 0; j < 3; j++)
		out->ref[j] = nu[j] + 1e-6 * left[j];
	sp_unit3(out->ref);
	return CLASH_OK;
}

static double det3v(const double *a, const double *b, const double *c)
{
	double x[3];
	vec3_cross(x, a, b);
	return vec3_dot(x, c);
}

/* Do the great-circle arcs a-b and p-q cross? */
static int arcs_cross(const double *a, const double *b, const double *p, const double *q)
{
	const double s1 = det3v(a, b, p), s2 = det3v(a, b, q);
	const double s3 = det3v(p, q, a), s4 = det3v(p, q, b);
	if (!((s1 > 0) != (s2 > 0) && (s3 > 0) != (s4 > 0)))
		return 0;
	double n1[3], n2[3], x[3], ab[3], pq[3];
	vec3_cross(n1, a, b);
	vec3_cross(n2, p, q);
	vec3_cross(x, n1, n2);
	for (int k = 0; k < 3; k++) {
		ab[k] = a[k] + b[k];
		pq[k] = p[k] + q[k];
	}
	if (vec3_dot(x, ab) < 0)
		for (int k = 0; k < 3; k++)
			x[k] = -x[k];
	return vec3_dot(x, pq) > 0;
}

/* Point x (unit) on the inner side of loop l's polygon. */
static int inner_side(const poly *l, const double *x)
{
	int odd = 0;
	for (size_t i = 0; i < l->n; i++)
		odd ^= arcs_cross(l->ref, x, l->p[i], l->p[(i + 1) % l->n]);
	return !odd;
}

/* Loops i and j bound the same patch when each lies on the other's inner
 * side and every other loop has both on one side. */
static int group_patches(sp_work *w)
{
	const size_t k = w->nloops;
	if (k < 1)
		return CLASH_OK;
	poly *p = w->polys = calloc(k, sizeof *p);
	uint8_t *side = malloc(k * k);
	uint32_t *uf = malloc(k * sizeof *uf);
	int err = p && side && uf ? CLASH_OK : CLASH_ENOMEM;
	for (size_t i = 0; i < k && !err; i++)
		err = w->loops[i].closed ? loop_poly(w, &w->loops[i], &p[i]) : CLASH_ENOTSUP;
	for (size_t i = 0; i < k && !err; i++) {
		uf[i] = (uint32_t)i;
		for (size_t j = 0; j < k; j++)
			side[i * k + j] = i == j || inner_side(&p[i], p[j].p[0]);
		if (cancel_requested(w->cancel))
			err = CLASH_ECANCELED;
	}
	for (size_t i = 0; i < k && !err; i++)
		for (size_t j = i + 1; j < k; j++) {
			int same = side[i * k + j] && side[j * k + i];
			for (size_t l = 0; l < k && same; l++)
				same = l == i || l == j || side[l * k + i] == side[l * k + j];
			if (same)
				ov_union(uf, (uint32_t)i, (uint32_t)j);
		}
	for (size_t i = 0; i < k && !err; i++)
		w->loops[i].patch = ov_find(uf, (uint32_t)i);
	free(side);
	free(uf);
	return err;
}

/* ---- regions and their volumes -------------------------------------------- */

typedef struct emap {
	double (*keys)[6];
	uint32_t *tri;
	uint32_t *slots;
	size_t nslots, n;
} emap;

/* Does the segment p-q pass inside the open ball? */
static int edge_inside(const sp_work *w, const double *p, const double *q)
{
	double d[3], f[3];
	for (int k = 0; k < 3; k++) {
		d[k] = q[k] - p[k];
		f[k] = w->c[k] - p[k];
	}
	const double dd = vec3_dot(d, d);
	double t = dd > 0 ? vec3_dot(f, d) / dd : 0.0;
	t = fmin(fmax(t, 0.0), 1.0);
	double e = 0.0;
	for (int k = 0; k < 3; k++) {
		const double x = p[k] + t * d[k] - w->c[k];
		e += x * x;
	}
	return e < w->r * w->r;
}

/* Triangles joined through the edges they share inside the ball. */
static int join_edges(sp_work *w)
{
	emap e = {0};
	e.nslots = 64;
	while (e.nslots < 8 * w->ntri + 64)
		e.nslots *= 2;
	e.slots = calloc(e.nslots, sizeof *e.slots);
	e.keys = malloc((3 * w->ntri + 1) * sizeof *e.keys);
	e.tri = malloc((3 * w->ntri + 1) * sizeof *e.tri);
	if (e.slots == NULL || e.keys == NULL || e.tri == NULL) {
		free(e.slots);
		free(e.keys);
		free(e.tri);
		return CLASH_ENOMEM;
	}
	for (size_t i = 0; i < w->ntri; i++)
		for (int j = 0; j < 3; j++) {
			const double *p = w->tri[i].p + 3 * j, *q = w->tri[i].p + 3 * ((j + 1) % 3);
			if (!edge_inside(w, p, q))
				continue;
			xkey k;
			edge_key(p, q, &k);
			size_t h = (size_t)(key_hash(&k) >> 17) & (e.nslots - 1);
			while (e.slots[h] && memcmp(e.keys[e.slots[h] - 1], k.e, sizeof k.e) != 0)
				h = (h + 1) & (e.nslots - 1);
			if (e.slots[h]) {
				ov_union(w->uf, e.tri[e.slots[h] - 1], (uint32_t)i);
				continue;
			}
			memcpy(e.keys[e.n], k.e, sizeof k.e);
			e.tri[e.n] = (uint32_t)i;
			e.slots[h] = (uint32_t)++e.n;
		}
	free(e.slots);
	free(e.keys);
	free(e.tri);
	return CLASH_OK;
}

/* Is point x (world) inside the mesh?  On the surface counts as inside. */
static int mesh_holds(const sp_work *w, const double *x)
{
	double y[3];
	affine_apply(&w->to_mesh, x, y);
	const int in = mesh_point_inside(w->m, y, w->cancel);
	return in == CLASH_ERANGE ? 1 : in;
}

static void box_grow(sp_work *w, uint32_t r, const double *x)
{
	for (int k = 0; k < 3; k++) {
		w->lo[3 * r + k] = fmin(w->lo[3 * r + k], x[k]);
		w->hi[3 * r + k] = fmax(w->hi[3 * r + k], x[k]);
	}
}

/* The box of T∩D into region r: corners in the ball, crossings of its
 * edges, and its circle's extremes along the axes that lie in T. */
static void piece_box(sp_work *w, uint32_t r, const sp_tri *t)
{
	for (int i = 0; i < 3; i++) {
		double d = 0.0;
		for (int k = 0; k < 3; k++)
			d += (t->p[3 * i + k] - w->c[k]) * (t->p[3 * i + k] - w->c[k]);
		if (d <= w->r * w->r)
			box_grow(w, r, t->p + 3 * i);
	}
	for (int k = 0; k < 3; k++) {
		const double a = t->e1[k], b = t->e2[k];
		if (!(a != 0 || b != 0))
			continue;
		for (int s = 0; s < 2; s++) {
			const double th = atan2(s ? -b : b, s ? -a : a);
			if (!in_triangle(w, t, th))
				continue;
			double x[3];
			for (int j = 0; j < 3; j++)
				x[j] = w->c[j] + t->h * t->n[j] +
				       t->rho * (cos(th) * t->e1[j] + sin(th) * t->e2[j]);
			box_grow(w, r, x);
		}
	}
}

/* The sphere's poles inside the mesh and in a patch of region r's loops
 * grow its box. */
static void pole_boxes(sp_work *w)
{
	for (int k = 0; k < 6; k++) {
		double u[3] = {0, 0, 0}, x[3];
		u[k / 2] = k & 1 ? -1.0 : 1.0;
		for (int j = 0; j < 3; j++)
			x[j] = w->c[j] + w->r * u[j];
		if (!mesh_holds(w, x))
			continue;
		for (size_t p = 0; p < w->nloops; p++) {
			if (w->loops[p].patch != p)
				continue;
			int in = 1;
			for (size_t l = 0; l < w->nloops && in; l++)
				in = w->loops[l].patch != p || inner_side(&w->polys[l], u);
			if (in)
				box_grow(w, w->reg[ov_find(w->uf, (uint32_t)(w->ntri + p))], x);
		}
	}
}

static int regions(sp_work *w)
{
	const size_t nn = w->ntri + w->nloops;
	w->reg = malloc((nn + 1) * sizeof *w->reg);
	w->vol = calloc(nn + 1, sizeof *w->vol);
	w->lo = malloc(3 * (nn + 1) * sizeof *w->lo);
	w->hi = malloc(3 * (nn + 1) * sizeof *w->hi);
	w->crossed = calloc(nn + 1, sizeof *w->crossed);
	if (!w->reg || !w->vol || !w->lo || !w->hi || !w->crossed)
		return CLASH_ENOMEM;
	memset(w->reg, 0xff, (nn + 1) * sizeof *w->reg);
	for (size_t i = 0; i < 3 * (nn + 1); i++) {
		w->lo[i] = INFINITY;
		w->hi[i] = -INFINITY;
	}
	for (size_t i = 0; i < nn; i++) {
		const uint32_t root = ov_find(w->uf, (uint32_t)i);
		if (w->reg[root] == UINT32_MAX)
			w->reg[root] = (uint32_t)w->nregions++;
	}
	for (size_t i = 0; i < w->ntri; i++) {
		const uint32_t r = w->reg[ov_find(w->uf, (uint32_t)i)];
		w->vol[r] += w->tri[i].h * w->tri[i].area;
		piece_box(w, r, &w->tri[i]);
	}
	/* Gauss-Bonnet: each patch 2 pi (2 - b), each loop minus its turning */
	const double r3 = w->r * w->r * w->r;
	for (size_t l = 0; l < w->nloops; l++) {
		const uint32_t r = w->reg[ov_find(w->uf, (uint32_t)(w->ntri + l))];
		w->crossed[r] = 1;
		w->vol[r] += r3 * ((w->loops[l].patch == l ? 4 * SP_PI : 0.0) - 2 * SP_PI -
		                   w->loops[l].turning);
	}
	/* the curve's points too: an extreme of a circle that only touches an
	 * edge may fall just outside T */
	for (size_t a = 0; a < w->narcs; a++) {
		const uint32_t r = w->reg[ov_find(w->uf, w->arcs[a].tri)];
		const size_t n = sp_arc_steps(&w->arcs[a]);
		for (size_t i = 0; i <= n; i++) {
			double x[3];
			sp_arc_point(w, &w->arcs[a], i, n, x);
			box_grow(w, r, x);
		}
	}
	if (w->closed && w->nloops)
		pole_boxes(w);
	for (size_t r = 0; r < w->nregions; r++)
		w->vol[r] /= 3.0;
	return CLASH_OK;
}

/* The ball wholly inside the mesh (no loop): one region, the ball less
 * whatever the mesh leaves out of it. */
static int ball_inside(sp_work *w)
{
	/* points of the sphere in generic directions: a sphere that only
	 * touches the surface (at a face's foot, along an edge) is decided by
	 * any point off it */
	static const double dirs[3][3] = {{0.5698402909980532, 0.7548776662466927,
	                                   0.3247179572447460},
	                                  {-0.6180339887498949, 0.2360679774997897,
	                                   0.7500000000000000},
	                                  {0.1, -0.8660254037844386, -0.4898979485566356}};
	for (int k = 0; k < 3; k++) {
		double x[3];
		const double l = sqrt(vec3_dot(dirs[k], dirs[k]));
		for (int j = 0; j < 3; j++)
			x[j] = w->c[j] + w->r * dirs[k][j] / l;
		double y[3];
		affine_apply(&w->to_mesh, x, y);
		const int in = mesh_point_inside(w->m, y, w->cancel);
		if (in != CLASH_ERANGE)
			return in;
	}
	return 0;
}

/* The volume again, independently of how loops were grouped: a ray from c
 * to x crosses the faces between, so 1_M(x) = 1_M(c) - the signed count,
 * and V = 1_M(c) 4/3 pi r^3 + (1/3) sum over T (h_T area(T∩D) - r^3
 * omega_T), omega_T T∩D's solid angle from c signed as h_T.  When the
 * regions' volumes do not add up to it (loops that nearly touch, grouped
 * wrong), they are one region, of this volume. */
static int check_total(sp_work *w)
{
	/* a centre near a face makes its solid angle ill-conditioned (it
	 * jumps by the disc's winding as c crosses the plane): then the
	 * loops decide alone */
	for (size_t i = 0; i < w->ntri; i++) {
		double q[3];
		if (tri_point_dist2(w->c, w->tri[i].p, q) < 1e-12 * w->r * w->r)
			return CLASH_OK;
	}
	double y[3];
	affine_apply(&w->to_mesh, w->c, y);
	const int in = mesh_point_inside(w->m, y, w->cancel);
	if (in < 0)
		return in == CLASH_ERANGE ? CLASH_OK : in;
	const double r3 = w->r * w->r * w->r;
	double v = in ? 4 * SP_PI * r3 : 0.0, sum = 0.0;
	for (size_t i = 0; i < w->ntri; i++)
		v += w->tri[i].h * w->tri[i].area - r3 * w->tri[i].omega;
	v /= 3.0;
	w->volume = v;
	for (size_t r = 0; r < w->nregions; r++)
		sum += w->vol[r];
	if (w->nregions == 0 || fabs(sum - v) <= 1e-10 * fmax(fabs(v), 1e-6 * r3))
		return CLASH_OK;
	if (w->nregions == 1) {
		w->vol[0] = v;
		return CLASH_OK;
	}
	const size_t nn = w->ntri + w->nloops;
	for (size_t i = 1; i < nn; i++)
		ov_union(w->uf, 0, (uint32_t)i);
	free(w->reg);
	free(w->vol);
	free(w->lo);
	free(w->hi);
	free(w->crossed);
	w->nregions = 0;
	const int err = regions(w);
	if (!err)
		w->vol[0] = v;
	return err;
}

int sp_pieces(sp_work *w)
{
	int err = find_near(w);
	if (!err)
		err = find_arcs(w);
	if (!err)
		err = find_loops(w);
	if (!err && w->closed)
		err = group_patches(w);
	if (err)
		return err;
	const size_t nn = w->ntri + w->nloops;
	w->uf = malloc((nn + 1) * sizeof *w->uf);
	if (w->uf == NULL)
		return CLASH_ENOMEM;
	for (size_t i = 0; i < nn; i++)
		w->uf[i] = (uint32_t)i;
	err = join_edges(w);
	for (size_t a = 0; a < w->narcs && !err; a++)
		ov_union(w->uf, w->arcs[a].tri, (uint32_t)(w->ntri + w->arcs[a].loop));
	for (size_t l = 0; l < w->nloops && !err; l++)
		ov_union(w->uf, (uint32_t)(w->ntri + l), (uint32_t)(w->ntri + w->loops[l].patch));
	if (!err && w->closed && w->nloops == 0) {
		err = ball_inside(w);
		if (err > 0) {
			w->sphere_inside = 1;
			err = CLASH_OK;
			for (size_t i = 1; i < w->ntri; i++)
				ov_union(w->uf, 0, (uint32_t)i);
		}
	}
	if (!err)
		err = regions(w);
	if (!err && w->sphere_inside) {
		if (w->nregions == 0) {
			w->nregions = 1;
			w->vol[0] = 0.0;
		}
		w->vol[0] += 4 * SP_PI * w->r * w->r * w->r / 3.0;
		for (int k = 0; k < 3; k++) {
			w->lo[k] = w->c[k] - w->r;
			w->hi[k] = w->c[k] + w->r;
		}
	}
	if (!err && w->closed)
		err = check_total(w);
	return err;
}

void sp_free(sp_work *w)
{
	for (size_t i = 0; w->polys && i < w->nloops; i++)
		free(w->polys[i].p);
	free(w->polys);
	free(w->tri);
	free(w->xp);
	free(w->arcs);
	free(w->loops);
	free(w->uf);
	free(w->reg);
	free(w->vol);
	free(w->lo);
	free(w->hi);
	free(w->crossed);
}
