/*
 * peers.h — the native methods of the mesh benchmark (bench/mesh/main.c):
 * FCL (peer_fcl.cpp) and clashd (ours.c), and the brute-force truth.
 */
#ifndef BENCH_MESH_PEERS_H
#define BENCH_MESH_PEERS_H

#include "meshes.h"

#ifdef __cplusplus
extern "C" {
#endif

enum bm_contact {
	BM_CONTACT_NONE = 0,     /* separated */
	BM_CONTACT_SURFACES = 1, /* the surfaces meet */
	BM_CONTACT_A_IN_B = 2,   /* a wholly inside b */
	BM_CONTACT_B_IN_A = 3,   /* b wholly inside a */
	BM_CONTACT_UNKNOWN = 4   /* intersecting, the method does not say how */
};

typedef struct bm_answer {
	int intersecting;
	double distance; /* the distance query only; 0 when intersecting */
	int contact;     /* enum bm_contact */
	/* The clash report: FCL, its contacts (every intersecting triangle
	 * pair with its contact point); clashd, its regions and the volume
	 * of the overlap.  The depth query: the penetration depth. */
	long contacts, regions;
	double volume, depth;
} bm_answer;

/* A rigid pose: the rotation as a unit quaternion (x, y, z, w), then the
 * translation. */
typedef struct bm_pose {
	double q[4], t[3];
} bm_pose;

/* The queries of a posed pair (bm_peer.posed). */
enum bm_query {
	BM_COLLIDE = 0,
	BM_DISTANCE = 1,
	BM_REPORT = 2
};

/* A peer: build its tree of a mesh in three.js's layout (a peer that needs
 * a welded mesh welds it first, untimed: prepare), and answer for a and b
 * with b translated by t.  Each query returns 0, or -1 on error. */
typedef struct bm_peer {
	const char *name;
	void *(*prepare)(const bm_mesh *m); /* untimed; NULL: none */
	void *(*build)(const bm_mesh *m, void *prepared);
	void (*destroy)(void *tree, void *prepared);
	int (*collide)(void *a, void *b, const double t[3], bm_answer *r);
	int (*distance)(void *a, void *b, const double t[3], bm_answer *r);
	/* Where they meet (NULL: the peer has no such query): FCL's collide
	 * with every contact, clashd's clash_overlap_get. */
	int (*report)(void *a, void *b, const double t[3], bm_answer *r);
	/* The penetration depth of two solids (NULL: none). */
	int (*depth)(void *a, void *b, const double t[3], bm_answer *r);
	/* Query q (enum bm_query) on a posed by pa and b by pb, both
	 * rotated and moved. */
	int (*posed)(void *a, void *b, const bm_pose *pa, const bm_pose *pb, int q, bm_answer *r);
	/* How the peer reads a built mesh, a short phrase into buf (NULL:
	 * nothing to say). */
	void (*describe)(void *tree, char *buf, size_t n);
} bm_peer;

extern const bm_peer bm_peer_fcl;
extern const bm_peer bm_peer_ours;

/* The least distance over all triangle pairs of a and b + t (FCL's
 * PQP triangle distance, 0 for triangles that meet): O(na * nb). */
double bm_brute_distance(const bm_mesh *a, const bm_mesh *b, const double t[3]);

#ifdef __cplusplus
}
#endif

#endif
