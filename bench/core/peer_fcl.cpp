/*
 * peer_fcl.cpp — FCL 0.7 (Debian libfcl-dev) as benchmark methods:
 * fcl::distance (nearest points on) and fcl::collide, without contacts for
 * the verdict and with one contact for the penetration depth, each with
 * both of FCL's GJK solvers (GST_LIBCCD, its default, a libccd copy; and
 * GST_INDEP, its own GJK/EPA).  Settings are FCL's defaults otherwise
 * (distance tolerance 1e-6, GJK tolerance 1e-6).
 *
 * fcl::Convex wants a mesh: the hull's vertices and triangles, computed
 * with qhull (hull.c) once per distinct vertex array and not timed; with a
 * valid mesh of more than a few vertices FCL's support function walks the
 * vertex adjacency (hill climbing) instead of scanning.  The objects are
 * posed by Transform3d (quaternion and translation), as FCL users do.
 */
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#include <fcl/geometry/shape/convex.h>

#include "bench.h"

namespace {

using Convex = fcl::Convexd;

struct Pair {
	std::shared_ptr<Convex> a, b;
	fcl::Transform3d ta, tb;
	int which;
	fcl::GJKSolverType solver;
};

std::map<const double *, std::shared_ptr<Convex>> cache;

std::shared_ptr<Convex> convex(const bench_shape &s)
{
	auto it = cache.find(s.v);
	if (it != cache.end())
		return it->second;
	int *tri = nullptr, *vs = nullptr;
	size_t nv = 0;
	int nt = bench_hull(s.v, s.m, &tri, &vs, &nv);
	if (nt <= 0) {
		free(tri);
		free(vs);
		return nullptr;
	}
	std::vector<int> index(s.m, -1);
	auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
	for (size_t i = 0; i < nv; i++) {
		index[(size_t)vs[i]] = (int)i;
		const double *p = s.v + 3 * (size_t)vs[i];
		verts->emplace_back(p[0], p[1], p[2]);
	}
	auto faces = std::make_shared<std::vector<int>>();
	for (int f = 0; f < nt; f++) {
		faces->push_back(3);
		for (int k = 0; k < 3; k++)
			faces->push_back(index[(size_t)tri[3 * f + k]]);
	}
	free(tri);
	free(vs);
	auto c = std::make_shared<Convex>(verts, nt, faces);
	c->computeLocalAABB();
	cache[s.v] = c;
	return c;
}

fcl::Transform3d pose(const bench_shape &s)
{
	fcl::Transform3d t = fcl::Transform3d::Identity();
	t.translation() = fcl::Vector3d(s.t[0], s.t[1], s.t[2]);
	t.linear() = fcl::Quaterniond(s.q[3], s.q[0], s.q[1], s.q[2]).toRotationMatrix();
	return t;
}

enum { DISTANCE, VERDICT, DEPTH };

void *prep(const bench_case *c, int which, fcl::GJKSolverType solver)
{
	auto a = convex(c->a), b = convex(c->b);
	if (!a || !b)
		return nullptr;
	Pair *p = new Pair;
	p->a = a;
	p->b = b;
	p->ta = pose(c->a);
	p->tb = pose(c->b);
	p->which = which;
	p->solver = solver;
	return p;
}

void query(void *h, bench_answer *out)
{
	Pair *p = static_cast<Pair *>(h);
	out->intersecting = -1;
	out->distance = NAN;
	out->depth = NAN;
	if (p->which == DISTANCE) {
		fcl::DistanceRequestd req(true);
		req.gjk_solver_type = p->solver;
		fcl::DistanceResultd res;
		double d = fcl::distance(p->a.get(), p->ta, p->b.get(), p->tb, req, res);
		out->intersecting = d <= 0.0;
		out->distance = d < 0.0 ? 0.0 : d;
	} else if (p->which == VERDICT) {
		fcl::CollisionRequestd req;
		req.gjk_solver_type = p->solver;
		fcl::CollisionResultd res;
		fcl::collide(p->a.get(), p->ta, p->b.get(), p->tb, req, res);
		out->intersecting = res.isCollision();
	} else {
		fcl::CollisionRequestd req(1, true);
		req.gjk_solver_type = p->solver;
		fcl::CollisionResultd res;
		fcl::collide(p->a.get(), p->ta, p->b.get(), p->tb, req, res);
		out->intersecting = res.isCollision();
		out->depth = res.numContacts() > 0 ? res.getContact(0).penetration_depth : 0.0;
	}
}

void release(void *h)
{
	delete static_cast<Pair *>(h);
}

void *prep_dist_ccd(const bench_case *c) { return prep(c, DISTANCE, fcl::GST_LIBCCD); }
void *prep_dist_indep(const bench_case *c) { return prep(c, DISTANCE, fcl::GST_INDEP); }
void *prep_verd_ccd(const bench_case *c) { return prep(c, VERDICT, fcl::GST_LIBCCD); }
void *prep_verd_indep(const bench_case *c) { return prep(c, VERDICT, fcl::GST_INDEP); }
void *prep_depth_ccd(const bench_case *c) { return prep(c, DEPTH, fcl::GST_LIBCCD); }
void *prep_depth_indep(const bench_case *c) { return prep(c, DEPTH, fcl::GST_INDEP); }

const unsigned SEP = 1u << BENCH_SEPARATED, TOUCH = 1u << BENCH_TOUCHING,
               INTER = 1u << BENCH_INTERSECTING;

} // namespace

extern "C" const bench_method bench_fcl[] = {
	{"fcl::distance (GST_LIBCCD)", "FCL", BENCH_DISTANCE, SEP | TOUCH, 0, 0, prep_dist_ccd, query, release},
	{"fcl::distance (GST_INDEP)", "FCL", BENCH_DISTANCE, SEP | TOUCH, 0, 0, prep_dist_indep, query, release},
	{"fcl::collide (GST_LIBCCD)", "FCL", BENCH_VERDICT, SEP | TOUCH | INTER, 0, 0, prep_verd_ccd, query, release},
	{"fcl::collide (GST_INDEP)", "FCL", BENCH_VERDICT, SEP | TOUCH | INTER, 0, 0, prep_verd_indep, query, release},
	{"fcl::collide+contact (GST_LIBCCD EPA)", "FCL", BENCH_DEPTH, TOUCH | INTER, 0, 0, prep_depth_ccd, query, release},
	{"fcl::collide+contact (GST_INDEP EPA)", "FCL", BENCH_DEPTH, TOUCH | INTER, 0, 0, prep_depth_indep, query, release},
	{nullptr, nullptr, BENCH_DISTANCE, 0, 0, 0, nullptr, nullptr, nullptr}};
