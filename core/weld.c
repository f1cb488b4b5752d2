/*
 * weld.c — joining vertices within a tolerance (weld.h).
 *
 * First the vertices of equal coordinates are made one (a hash of their
 * bits), so the many copies of each corner in a triangle soup cost one
 * point below.  With a tolerance, those distinct points go into a grid of
 * cubes at least twice the tolerance wide: two points within it then lie
 * in the same or neighbouring cubes, and each point is compared with the
 * points put in before it in the cubes its ball of radius tol enters (of
 * the 27 about its own, those on its side of each axis), the joins kept in
 * a union-find whose root is the cluster's least point.  Cube numbers come
 * from floor((x - lo) / cell) with at most 2^45 cubes along an axis: their
 * rounding is below a hundredth of a cube, far less than the cube's width
 * over the tolerance's, so no pair within the tolerance is missed.  Points
 * packed much closer than the tolerance in one place are compared pair by
 * pair (quadratic in the points of a cube): a real mesh looks at about 8
 * points a point, and the weld gives up (WELD_DENSE) past WELD_BUDGET, so
 * that a hostile mesh costs a bounded time.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "weld.h"

double weld_diagonal(const double *p, size_t nv)
{
	if (nv == 0)
		return 0.0;
	double lo[3], hi[3], d = 0.0;
	for (int k = 0; k < 3; k++)
		lo[k] = hi[k] = p[k];
	for (size_t v = 1; v < nv; v++)
		for (int k = 0; k < 3; k++) {
			const double x = p[3 * v + (size_t)k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
		}
	/* Halved first: the box of coordinates near DBL_MAX still has one. */
	for (int k = 0; k < 3; k++) {
		const double h = 0.5 * hi[k] - 0.5 * lo[k];
		d += h * h;
	}
	return 2.0 * sqrt(d);
}

static uint64_t bits_of(double x)
{
	uint64_t u;
	x += 0.0; /* -0 as +0 */
	memcpy(&u, &x, sizeof u);
	return u;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* canon[v]: a number 0..nu-1 shared by vertices of equal coordinates,
 * first[u] the first vertex of number u. */
static size_t join_equal(const double *p, size_t nv, const weld_scratch *s, uint32_t *canon)
{
	uint32_t *slots = s->slots;
	const size_t mask = s->nslots - 1;
	memset(slots, 0, s->nslots * sizeof *slots);
	size_t nu = 0;
	for (size_t v = 0; v < nv; v++) {
		const double *x = p + 3 * v;
		uint64_t h = mix(bits_of(x[0]) ^ mix(bits_of(x[1]) ^ mix(bits_of(x[2]))));
		size_t i = (size_t)h & mask;
		for (;;) {
			uint32_t o = slots[i];
			if (o == 0) {
				slots[i] = (uint32_t)(v + 1);
				s->first[nu] = (uint32_t)v;
				canon[v] = (uint32_t)nu++;
				break;
			}
			const double *y = p + 3 * (size_t)(o - 1);
			if (x[0] == y[0] && x[1] == y[1] && x[2] == y[2]) {
				canon[v] = canon[o - 1];
				break;
			}
			i = (i + 1) & mask;
		}
	}
	return nu;
}

/* The grid over the distinct points q(u) = p + 3 first[u]. */
typedef struct grid {
	const double *p;
	const uint32_t *first;
	double lo[3], cell, tol;
} grid;

static const double *point(const grid *g, uint32_t u)
{
	return g->p + 3 * (size_t)g->first[u];
}

/* Point u's cube; with `reach`, along each axis the neighbours its ball
 * of radius tol may enter: from c + lo[k] to c + hi[k] (-1..0, 0..1 or
 * -1..1). */
static void cube_reach(const grid *g, uint32_t u, int64_t c[3], int lo[3], int hi[3])
{
	const double *x = point(g, u);
	for (int k = 0; k < 3; k++) {
		const double q = (x[k] - g->lo[k]) / g->cell, f = floor(q);
		c[k] = (int64_t)f;
		if (lo) {
			/* The ball is half a cube wide: it leaves the cube below
			 * only from its lower half, above only from its upper
			 * (with room for the rounding of q, below 1/100). */
			lo[k] = q - f < 0.5 + 1.0 / 32 ? -1 : 0;
			hi[k] = q - f > 0.5 - 1.0 / 32 ? 1 : 0;
		}
	}
}

static void cube_of(const grid *g, uint32_t u, int64_t c[3])
{
	cube_reach(g, u, c, NULL, NULL);
}

static size_t cube_hash(const int64_t c[3])
{
	return (size_t)mix((uint64_t)c[0] ^ mix((uint64_t)c[1] ^ mix((uint64_t)c[2])));
}

/* The slot of cube c: the one holding its first point + 1, or the empty
 * one where it would go; *seen counts the slots looked at (cubes made to
 * collide count against the budget as points do). */
static size_t cube_slot(const grid *g, const weld_scratch *s, const int64_t c[3], size_t *seen)
{
	const size_t mask = s->nslots - 1;
	for (size_t i = cube_hash(c) & mask;; i = (i + 1) & mask) {
		const uint32_t o = s->slots[i];
		++*seen;
		if (o == 0)
			return i;
		int64_t d[3];
		cube_of(g, o - 1, d);
		if (d[0] == c[0] && d[1] == c[1] && d[2] == c[2])
			return i;
	}
}

/* Within the tolerance: the distance in units of tol at most 1 (a tol
 * of infinity joins everything). */
static int near(const grid *g, uint32_t a, uint32_t b)
{
	const double *x = point(g, a), *y = point(g, b);
	double d = 0.0;
	for (int k = 0; k < 3; k++) {
		const double t = (x[k] - y[k]) / g->tol;
		d += t * t;
	}
	return d <= 1.0;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Point u joined with every earlier point within tol in the cubes its
 * ball enters (8 of the 27 about it, mostly), then put in its cube;
 * returns the earlier points and the slots looked at. */
static size_t add_point(const grid *g, const weld_scratch *s, uint32_t u)
{
	size_t seen = 0;
	int64_t c[3];
	int lo[3], hi[3];
	cube_reach(g, u, c, lo, hi);
	for (int dx = lo[0]; dx <= hi[0]; dx++)
		for (int dy = lo[1]; dy <= hi[1]; dy++)
			for (int dz = lo[2]; dz <= hi[2]; dz++) {
				const int64_t n[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
				for (uint32_t w = s->slots[cube_slot(g, s, n, &seen)]; w;
				     w = s->next[w - 1]) {
					seen++;
					uint32_t a = find(s->parent, u), b = find(s->parent, w - 1);
					if (a != b && near(g, u, w - 1))
						s->parent[a > b ? a : b] = a < b ? a : b;
				}
			}
	const size_t i = cube_slot(g, s, c, &seen);
	s->next[u] = s->slots[i];
	s->slots[i] = u + 1;
	return seen;
}

/* The nu distinct points (numbers canon, first points first) joined by
 * tol: canon and first renumbered by cluster; returns their count, or
 * WELD_DENSE when the points are packed too densely (looking at more
 * than WELD_BUDGET of them). */
static size_t join_near(const double *p, size_t nv, size_t nu, double tol, const weld_scratch *s,
                        uint32_t *canon)
{
	grid g = {p, s->first, {0, 0, 0}, 0.0, tol};
	double ext = 0.0;
	for (int k = 0; k < 3; k++) {
		double lo = INFINITY, hi = -INFINITY;
		for (uint32_t u = 0; u < nu; u++) {
			const double x = point(&g, u)[k];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		g.lo[k] = lo;
		ext = hi - lo > ext ? hi - lo : ext;
	}
	g.cell = 2.0 * tol > ext * 0x1p-45 ? 2.0 * tol : ext * 0x1p-45;
	memset(s->slots, 0, s->nslots * sizeof *s->slots);
	const size_t budget = WELD_BUDGET(nu);
	size_t seen = 0; /* points and slots looked at */
	for (uint32_t u = 0; u < nu; u++) {
		s->parent[u] = u;
		seen += add_point(&g, s, u);
		if (seen > budget)
			return WELD_DENSE;
	}
	/* Roots are their clusters' least points: numbered in order, a
	 * cluster's number (in next) is at most its root's. */
	size_t nc = 0;
	for (uint32_t u = 0; u < nu; u++) {
		const uint32_t r = find(s->parent, u);
		if (r == u) {
			s->first[nc] = s->first[u];
			s->next[u] = (uint32_t)nc++;
		} else {
			s->next[u] = s->next[r];
		}
	}
	for (size_t v = 0; v < nv; v++)
		canon[v] = s->next[canon[v]];
	return nc;
}

size_t weld_join(const double *p, size_t nv, double tol, const weld_scratch *s, uint32_t *canon)
{
	const size_t nu = join_equal(p, nv, s, canon);
	if (!(tol > 0.0) || nu < 2)
		return nu;
	return join_near(p, nv, nu, tol, s, canon);
}

size_t weld_place(const double *p, size_t nv, const uint32_t *canon, const uint32_t *first,
                  double *out)
{
	size_t moved = 0;
	for (size_t v = 0; v < nv; v++) {
		const double *x = p + 3 * v, *y = p + 3 * (size_t)first[canon[v]];
		const int same = x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
		/* out is written from the first vertex moved on (most meshes
		 * have none: then it is not touched). */
		if (!same && !moved++ && out)
			memcpy(out, p, 3 * v * sizeof *p);
		if (moved && out)
			memcpy(out + 3 * v, same ? x : y, 3 * sizeof *x);
	}
	return moved;
}
