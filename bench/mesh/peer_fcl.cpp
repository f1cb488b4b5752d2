/*
 * peer_fcl.cpp — FCL 0.7 (Debian libfcl-dev) as the mesh benchmark's peer:
 * fcl::BVHModel<OBBRSS> built from the mesh as three.js lays it out
 * (beginModel, addSubModel, endModel: FCL's default top-down split by the
 * mean along the longest axis, OBB fitted by covariance), fcl::collide
 * with FCL's default request (one contact, no contact details: the first
 * triangle pair found ends it) and fcl::distance with nearest points
 * (rel_err = abs_err = 0: exact), and for the clash report's comparison
 * fcl::collide with every contact (num_max_contacts unbounded,
 * enable_contact).  b is posed by a Transform3d with the
 * translation.  Surface only: FCL sees no contact when one solid holds
 * the other.
 *
 * Also the brute-force truth: FCL's triangle distance (PQP's TriDist,
 * 0 for triangles that meet) over every triangle pair.
 */
#include <limits>
#include <memory>
#include <vector>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#include <fcl/narrowphase/detail/primitive_shape_algorithm/triangle_distance.h>

#include "peers.h"

namespace {

using Model = fcl::BVHModel<fcl::OBBRSSd>;

void *build(const bm_mesh *m, void *)
{
	std::vector<fcl::Vector3d> ps;
	std::vector<fcl::Triangle> ts;
	ps.reserve(m->nv);
	ts.reserve(m->nt);
	for (size_t i = 0; i < m->nv; i++)
		ps.emplace_back(m->pos[3 * i], m->pos[3 * i + 1], m->pos[3 * i + 2]);
	for (size_t t = 0; t < m->nt; t++)
		ts.emplace_back(m->idx[3 * t], m->idx[3 * t + 1], m->idx[3 * t + 2]);
	auto *model = new Model();
	if (model->beginModel((int)m->nt, (int)m->nv) != fcl::BVH_OK ||
	    model->addSubModel(ps, ts) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK) {
		delete model;
		return nullptr;
	}
	model->computeLocalAABB();
	return model;
}

void destroy(void *tree, void *)
{
	delete static_cast<Model *>(tree);
}

fcl::Transform3d pose(const double t[3])
{
	fcl::Transform3d tf = fcl::Transform3d::Identity();
	tf.translation() = fcl::Vector3d(t[0], t[1], t[2]);
	return tf;
}

int collide(void *a, void *b, const double t[3], bm_answer *r)
{
	static const fcl::Transform3d id = fcl::Transform3d::Identity();
	fcl::CollisionRequestd req;
	fcl::CollisionResultd res;
	fcl::collide(static_cast<Model *>(a), id, static_cast<Model *>(b), pose(t), req, res);
	r->intersecting = res.isCollision();
	r->distance = 0;
	r->contact = r->intersecting ? BM_CONTACT_SURFACES : BM_CONTACT_NONE;
	return 0;
}

/* Every intersecting triangle pair with its contact point: the work a
 * clash report's regions need at least. */
int contacts(void *a, void *b, const double t[3], bm_answer *r)
{
	static const fcl::Transform3d id = fcl::Transform3d::Identity();
	fcl::CollisionRequestd req(std::numeric_limits<size_t>::max(), true);
	fcl::CollisionResultd res;
	fcl::collide(static_cast<Model *>(a), id, static_cast<Model *>(b), pose(t), req, res);
	r->intersecting = res.isCollision();
	r->distance = 0;
	r->contact = r->intersecting ? BM_CONTACT_SURFACES : BM_CONTACT_NONE;
	r->contacts = (long)res.numContacts();
	return 0;
}

int distance(void *a, void *b, const double t[3], bm_answer *r)
{
	static const fcl::Transform3d id = fcl::Transform3d::Identity();
	fcl::DistanceRequestd req(true);
	fcl::DistanceResultd res;
	fcl::distance(static_cast<Model *>(a), id, static_cast<Model *>(b), pose(t), req, res);
	r->distance = res.min_distance;
	r->intersecting = res.min_distance <= 0;
	r->contact = r->intersecting ? BM_CONTACT_SURFACES : BM_CONTACT_NONE;
	return 0;
}

fcl::Transform3d pose_of(const bm_pose *p)
{
	fcl::Transform3d tf = fcl::Transform3d::Identity();
	tf.linear() = fcl::Quaterniond(p->q[3], p->q[0], p->q[1], p->q[2]).normalized().toRotationMatrix();
	tf.translation() = fcl::Vector3d(p->t[0], p->t[1], p->t[2]);
	return tf;
}

int posed(void *a, void *b, const bm_pose *pa, const bm_pose *pb, int q, bm_answer *r)
{
	const Model *ma = static_cast<Model *>(a), *mb = static_cast<Model *>(b);
	if (q == BM_DISTANCE) {
		fcl::DistanceRequestd req(true);
		fcl::DistanceResultd res;
		fcl::distance(ma, pose_of(pa), mb, pose_of(pb), req, res);
		r->distance = res.min_distance;
		r->intersecting = res.min_distance <= 0;
	} else {
		fcl::CollisionRequestd req;
		if (q == BM_REPORT)
			req = fcl::CollisionRequestd(std::numeric_limits<size_t>::max(), true);
		fcl::CollisionResultd res;
		fcl::collide(ma, pose_of(pa), mb, pose_of(pb), req, res);
		r->intersecting = res.isCollision();
		r->contacts = (long)res.numContacts();
	}
	r->contact = r->intersecting ? BM_CONTACT_SURFACES : BM_CONTACT_NONE;
	return 0;
}

} // namespace

extern "C" const bm_peer bm_peer_fcl = {"FCL",    nullptr,  build,   destroy, collide,
                                        distance, contacts, nullptr, posed,  nullptr};

extern "C" double bm_brute_distance(const bm_mesh *a, const bm_mesh *b, const double t[3])
{
	std::vector<fcl::Vector3d> pb(b->nv);
	for (size_t i = 0; i < b->nv; i++)
		pb[i] = fcl::Vector3d(b->pos[3 * i] + t[0], b->pos[3 * i + 1] + t[1],
		                      b->pos[3 * i + 2] + t[2]);
	double best = INFINITY;
	fcl::Vector3d P, Q, T1[3], T2[3];
	for (size_t i = 0; i < a->nt; i++) {
		for (int k = 0; k < 3; k++) {
			const double *p = a->pos + 3 * (size_t)a->idx[3 * i + k];
			T1[k] = fcl::Vector3d(p[0], p[1], p[2]);
		}
		for (size_t j = 0; j < b->nt; j++) {
			for (int k = 0; k < 3; k++)
				T2[k] = pb[b->idx[3 * j + k]];
			double d = fcl::detail::TriangleDistance<double>::triDistance(T1, T2, P, Q);
			if (d < best)
				best = d;
		}
	}
	return best;
}
