/*
 * peer_bullet.cpp — Bullet 3.24's btGjkEpa2 (Debian libbullet-dev, the
 * double-precision build bullet-float64) as benchmark methods:
 * btGjkEpaSolver2::Distance (distance and witness points, separated pairs)
 * and btGjkEpaSolver2::Penetration (GJK + EPA depth).
 *
 * The shapes are btConvexHullShape over all the vertices (Bullet scans them
 * with its vectorized maxDot), margin 0 (the default 0.04 would round
 * them), posed by btTransform.  The initial direction ("guess") is the
 * difference of the shapes' centroids, computed in prepare; Bullet's
 * defaults otherwise (GJK 128 iterations, EPA 255, accuracy 1e-12 in
 * double).
 */
#include <cmath>
#include <map>
#include <memory>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

#include "bench.h"

namespace {

struct Pair {
	btConvexHullShape *a, *b;
	btTransform ta, tb;
	btVector3 guess;
	int which;
};

std::map<const double *, std::unique_ptr<btConvexHullShape>> cache;

btConvexHullShape *hull(const bench_shape &s)
{
	auto it = cache.find(s.v);
	if (it != cache.end())
		return it->second.get();
	auto *h = new btConvexHullShape(s.v, (int)s.m, 3 * sizeof(double));
	h->setMargin(0);
	h->recalcLocalAabb();
	cache[s.v].reset(h);
	return h;
}

btTransform pose(const bench_shape &s)
{
	return btTransform(btQuaternion(s.q[0], s.q[1], s.q[2], s.q[3]), btVector3(s.t[0], s.t[1], s.t[2]));
}

btVector3 centroid(const bench_shape &s, const btTransform &t)
{
	btVector3 c(0, 0, 0);
	for (size_t i = 0; i < s.m; i++)
		c += btVector3(s.v[3 * i], s.v[3 * i + 1], s.v[3 * i + 2]);
	c /= (btScalar)s.m;
	return t * c;
}

enum { DISTANCE, DEPTH };

void *prep(const bench_case *c, int which)
{
	Pair *p = new Pair;
	p->a = hull(c->a);
	p->b = hull(c->b);
	p->ta = pose(c->a);
	p->tb = pose(c->b);
	p->guess = centroid(c->b, p->tb) - centroid(c->a, p->ta);
	p->which = which;
	return p;
}

void query(void *h, bench_answer *out)
{
	Pair *p = static_cast<Pair *>(h);
	btGjkEpaSolver2::sResults res;
	out->distance = NAN;
	out->depth = NAN;
	if (p->which == DISTANCE) {
		bool apart = btGjkEpaSolver2::Distance(p->a, p->ta, p->b, p->tb, p->guess, res);
		out->intersecting = !apart;
		out->distance = apart ? res.distance : 0.0;
	} else {
		bool deep = btGjkEpaSolver2::Penetration(p->a, p->ta, p->b, p->tb, p->guess, res);
		out->intersecting = deep;
		out->depth = deep ? -res.distance : 0.0;
	}
}

void release(void *h)
{
	delete static_cast<Pair *>(h);
}

void *prep_dist(const bench_case *c) { return prep(c, DISTANCE); }
void *prep_depth(const bench_case *c) { return prep(c, DEPTH); }

const unsigned SEP = 1u << BENCH_SEPARATED, TOUCH = 1u << BENCH_TOUCHING,
               INTER = 1u << BENCH_INTERSECTING;

} // namespace

extern "C" const bench_method bench_bullet[] = {
	{"btGjkEpaSolver2::Distance", "Bullet", BENCH_DISTANCE, SEP | TOUCH, 0, 0, prep_dist, query, release},
	{"btGjkEpaSolver2::Penetration (EPA)", "Bullet", BENCH_DEPTH, TOUCH | INTER, 0, 0, prep_depth, query, release},
	{nullptr, nullptr, BENCH_DISTANCE, 0, 0, 0, nullptr, nullptr, nullptr}};
