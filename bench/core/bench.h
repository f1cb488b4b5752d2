/*
 * bench.h — the core benchmark (make bench): shared types of the case sets,
 * the methods under test (ours and the peers'), the timers and the report.
 *
 * A case is two 3-D polytopes given by local vertices and a pose (unit
 * quaternion x, y, z, w and a translation), with the truth about them
 * (verdict, distance, penetration depth) from an independent source: the
 * qhull oracle (tests/oracle.c) for the GJK88 section VII set, a
 * construction with known answers for the scale set (cases.c).  Every
 * method sees the same cases in the same process run; a method's prepare
 * step (building a peer's shape objects, a prepared shape) is not timed,
 * its query is.
 *
 * C and C++ (the FCL and Bullet adapters) share this header.
 */
#ifndef BENCH_CORE_BENCH_H
#define BENCH_CORE_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_class {
	BENCH_SEPARATED = 0,
	BENCH_TOUCHING = 1,
	BENCH_INTERSECTING = 2,
	BENCH_CLASSES = 3
};

enum bench_set {
	BENCH_SET_GJK88 = 0,
	BENCH_SET_SCALE = 1
};

/* One polytope: local vertices (row-major, borrowed) and its pose. */
typedef struct bench_shape {
	const double *v;
	size_t m;
	double q[4]; /* x, y, z, w */
	double t[3];
	double radius; /* of a ball about the local origin holding every vertex */
} bench_shape;

typedef struct bench_case {
	enum bench_set set;
	enum bench_class cls;
	int index; /* within its set */
	int group; /* GJK88: the pair 0..19; scale: the total vertex count M */
	int kind;  /* scale: the shape kind (cases.c); GJK88: 0 */
	bench_shape a, b;
	/* Truth.  distance: the hull distance (0 when touching or
	 * intersecting); depth: the penetration depth when intersecting, NaN
	 * when not known; either verdict is right for a touching case. */
	int intersecting;
	double distance;
	double depth;
	double size; /* a.radius + b.radius: the scale of relative errors */
} bench_case;

/* What a method answered.  NaN in a member it does not give. */
typedef struct bench_answer {
	int intersecting; /* 1, 0, or -1 when the method gives no verdict */
	double distance;
	double depth;
} bench_answer;

/* The question a method answers, which decides which of our methods its
 * time is compared with. */
enum bench_kind {
	BENCH_DISTANCE = 0, /* distance (and near points) */
	BENCH_VERDICT = 1,  /* intersecting or not */
	BENCH_DEPTH = 2,    /* penetration depth when intersecting */
	BENCH_LP = 3,       /* the intersection LP (Kreuzer's P2) */
	BENCH_KINDS = 4
};

typedef struct bench_method {
	const char *name; /* e.g. "ccdGJKIntersect" */
	const char *peer; /* "clash", "libccd", "FCL", "Bullet", "GLPK" */
	enum bench_kind kind;
	unsigned classes;    /* bit per bench_class the method is run on */
	int reference;       /* 1: ours, the time the peers of this kind are divided by */
	size_t max_vertices; /* skip cases with more vertices than this (0: no limit) */
	/* Build what the query needs (not timed); NULL on failure. */
	void *(*prepare)(const bench_case *c);
	/* The timed query. */
	void (*query)(void *handle, bench_answer *out);
	void (*release)(void *handle);
} bench_method;

/* Method tables, each terminated by a method with name NULL. */
extern const bench_method bench_ours[];
extern const bench_method bench_ccd[];
extern const bench_method bench_fcl[];
extern const bench_method bench_bullet[];
extern const bench_method bench_glpk[];
/* Empty unless built with OPENGJK_DIR (peer_opengjk.c). */
extern const bench_method bench_opengjk[];

/* Free the preparations ours.c keeps per vertex array. */
void bench_ours_forget(void);

/* ---- cases.c ---------------------------------------------------------- */

/* The GJK88 section VII set (tests/gjk88.c), truth from the qhull oracle.
 * Returns the number of cases (into a malloc'd array), or -1. */
int bench_cases_gjk88(bench_case **out);

/* The GJK88 family (gjk88_polytope[GJK88_FAMILY], tests/gjk88.h) of the set
 * built by bench_cases_gjk88, or NULL before (or after it is freed). */
const void *bench_gjk88_family(void);

/* The scale set: per total vertex count M in ms[0..nm-1], `per_class`
 * pairs in each class.  Returns the number of cases, or -1. */
int bench_cases_scale(const int *ms, int nm, int per_class, uint64_t seed, bench_case **out);

/* Check the scale set's constructed truth against the qhull oracle on the
 * cases with at most max_m vertices; writes what it finds to out and
 * returns the number of disagreements. */
int bench_cases_check(const bench_case *cases, int n, size_t max_m, FILE *out);

void bench_cases_free(bench_case *cases, int n);

/* World coordinates of a shape's vertices (out: 3 m doubles). */
void bench_world(const bench_shape *s, double *out);

/* 3x3 rotation (row-major) of a unit quaternion x, y, z, w. */
void bench_rotation(const double q[4], double r[9]);

/* ---- hull_faces.c ----------------------------------------------------- */

/* The hull of m local points v (qhull): its vertices (indices into v) and
 * its triangles (outward, counter-clockwise seen from outside, indices
 * into v), malloc'd.  Returns the number of triangles, or -1. */
int bench_hull(const double *v, size_t m, int **triangles, int **vertices, size_t *nvertices);

/* ---- counters.c ------------------------------------------------------- */

/* Monotonic nanoseconds. */
uint64_t bench_ns(void);

/* User-mode instructions retired by this thread (perf_event_open); 0 when
 * the counter is not available (bench_instructions_ok() says). */
int bench_instructions_open(void);
int bench_instructions_ok(void);
uint64_t bench_instructions(void);

/* Calls to malloc, calloc, realloc and aligned allocators since start
 * (the bench binary interposes them). */
uint64_t bench_allocations(void);

#ifdef __cplusplus
}
#endif

#endif
