/*
 * clash.h — public interface of the clashd collision core.
 *
 * The core answers proximity queries between two convex polytopes given by
 * their vertices (the convex hull; no faces needed), in any dimension from 1
 * to CLASH_MAX_DIM.  A shape may be rounded by a radius (its spherical
 * extension, GJK88 section II) and placed by an affine pose applied inside
 * the support mapping, so vertex arrays are never copied or transformed.
 *
 * The library is pure C11: no I/O, no global state, no allocation in the
 * query path but one scratch block per query of compound shapes (see
 * clash_shape_init_compound), a scaled-up copy of shapes below about 1e-289
 * in size (core/support.h, "Tiny queries"), the polytope of a depth search
 * past CLASH_EPA_FIXED_EXPANSIONS expansions (with the preparation of its
 * large shapes past 2 048), and the swept-hull and scene calls, which say
 * what they allocate.  Every function is reentrant; shapes
 * are read-only during a query, so one shape may serve many threads at once.
 * Errors are negative return values (CLASH_E*), never exits; clash_strerror()
 * names them.  Lifetimes: a clash_shape borrows its vertex array, which must
 * outlive every query that uses it; a clash_result is plain data.
 */
#ifndef CLASH_H
#define CLASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's API: exported even when the core is built with hidden
 * visibility (its internals are). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Largest supported dimension.  Simplices have up to CLASH_MAX_DIM+1 points. */
#define CLASH_MAX_DIM 8

/* Default hard cap on GJK iterations.  Polytope queries finish in a handful
 * (GJK88 section VII saw 3 to 6); the cap only bounds pathological input. */
#define CLASH_GJK_MAX_ITERATIONS 256

/* The penetration-depth search (EPA) keeps its polytope on the stack for
 * CLASH_EPA_FIXED_EXPANSIONS expansions, which most pairs need far fewer
 * than; past them it grows on the heap (about 350 bytes an expansion,
 * freed before the query returns; CLASH_ENOMEM if that fails), up to a
 * hard cap of one expansion per vertex of the two shapes, at least
 * CLASH_EPA_MAX_ITERATIONS.  Identical or nearly identical hulls of n
 * vertices need about 1.6 n (3 600 at n = 2 000, 306 000 and some 110 MB
 * at n = 200 000).  A search past 2 048 expansions prepares each shape of
 * 2 048 vertices or more that came unprepared (as clash_shape_prepare,
 * freed before the query returns; the same answer), so its support
 * points cost a climb, not a scan: such hulls of 200 000 vertices take
 * seconds.  A polytope pair ends anyway within |A| |B| expansions (each
 * adds a vertex of A - B).  At the cap (or clash_options'
 * max_iterations) the answer is the best found, marked not converged. */
#define CLASH_EPA_FIXED_EXPANSIONS 128
#define CLASH_EPA_MAX_ITERATIONS 65536

/* A quaternion whose length differs from 1 by more than this is rejected as
 * not a rotation; within it, it is normalized.  Loose enough for quaternions
 * stored as float32 or typed with four decimals, tight enough to catch a
 * vector passed where a quaternion was meant. */
#define CLASH_QUAT_TOLERANCE 1e-3

/* Limits of compound shapes (clash_shape_init_compound), fixed at compile
 * time: depth bounds the recursion of every walk over the parts, leaves the
 * scratch a query allocates (proto checks both before allocating).  Depth
 * counts levels of parts: a compound of convex shapes has depth 1.  Leaves
 * are the convex shapes of one compound, at any depth. */
#define CLASH_COMPOUND_MAX_DEPTH 8
#define CLASH_COMPOUND_MAX_LEAVES 4096

/* Error codes (negative, as in libuv). */
enum clash_error {
	CLASH_OK = 0,
	CLASH_EINVAL = -1,    /* null pointer or malformed argument */
	CLASH_EDIM = -2,      /* dimension outside 1..CLASH_MAX_DIM, or two shapes differ */
	CLASH_EEMPTY = -3,    /* a shape has no vertices */
	CLASH_ERADIUS = -4,   /* radius negative or not finite */
	CLASH_EQUAT = -5,     /* quaternion not of unit length, or not 3-D */
	CLASH_ESINGULAR = -6, /* pose matrix singular, or its last row is not (0,..,0,1) */
	CLASH_ERANGE = -7,    /* a coordinate is not finite, or a result overflows a double */
	CLASH_EWARM = -8,     /* a warm-start vertex index is out of range */
	CLASH_ENOTSUP = -9,   /* the method does not support this input (say so, never guess) */
	CLASH_ELIMIT = -10,   /* a compound shape is deeper than CLASH_COMPOUND_MAX_DEPTH or
	                       * has more than CLASH_COMPOUND_MAX_LEAVES convex leaves */
	CLASH_ENOMEM = -11,   /* out of memory (where the calls say they allocate) */
	CLASH_ECANCELED = -12 /* the caller asked the query to stop (clash_options.cancel) */
};

/* Returns a static, human-readable message for a CLASH_E* code. */
const char *clash_strerror(int err);

/*
 * A convex polytope: the convex hull of `count` points of dimension `dim`,
 * stored row-major in `vertices` (point i is vertices[i*dim .. i*dim+dim-1]),
 * grown by `radius` (every point within `radius` of the hull, in world units),
 * and placed in the world by x_world = linear * x + translation.
 *
 * `linear` is column-major dim x dim (element (r, c) at linear[c*dim + r]).
 * Build shapes with clash_shape_init() and the clash_shape_set_*() calls
 * rather than by hand: they validate and fill the pose consistently.
 */
typedef struct clash_shape {
	int dim;
	size_t count;
	const double *vertices;
	/* A compound shape (GJK88 section II, eq. (2)-(8)): when nparts > 0 the
	 * shape is the union of parts[0..nparts-1] (each itself a shape of the
	 * same dim, possibly compound) and vertices/count are unused.  The
	 * compound's pose is applied after each part's own, its radius added to
	 * each part's. */
	const struct clash_shape *parts;
	size_t nparts;
	double radius;
	int posed; /* 0: identity pose, linear and translation are ignored */
	double linear[CLASH_MAX_DIM * CLASH_MAX_DIM];
	double translation[CLASH_MAX_DIM];
	/* Exact primitives (clash_shape_init_primitive): CLASH_KIND_POLYTOPE
	 * (0, set by clash_shape_init) for a hull of vertices, else the kind
	 * and its sizes; vertices/count are then the single local origin. */
	int kind;
	double params[3];
	/* Set by clash_shape_prepare (NULL otherwise): what the shape's
	 * queries reuse.  Opaque. */
	const void *prepared;
	/* A triangle mesh (clash_shape_init_mesh; NULL for every other shape):
	 * the shape is the mesh, not the hull of `vertices`, which then are the
	 * mesh's positions (for bounding boxes and reaches). */
	const struct clash_mesh *mesh;
} clash_shape;

/* Borrow `vertices` (count points of dimension dim), identity pose, radius 0.
 * Returns CLASH_EDIM, CLASH_EEMPTY or CLASH_EINVAL on bad arguments. */
int clash_shape_init(clash_shape *s, int dim, const double *vertices, size_t count);

/*
 * A compound shape (GJK88 section II, eqs. (2)-(8)): the union of parts[0 ..
 * nparts-1], each a shape of dimension dim built with clash_shape_init or,
 * nested, with this call; the array is borrowed like vertices.  The
 * compound's radius and pose (set with the calls below) apply to the whole:
 * a part's world pose is the compound's pose after the part's own, and its
 * radius is the part's plus the compound's, both in world units (a scaling
 * pose does not scale radii).  Non-convex objects are built this way: an L
 * of two boxes, a dumbbell of two spheres and a capsule.
 *
 * Queries answer for the union: distance is the least over pairs of convex
 * leaves (eq. (8)); part_a and part_b of the result name the top-level parts
 * of the pair that gave the answer (0 for a side that is not compound).
 * When they intersect, clash_gjk (1-D to 3-D) reports the penetration of
 * the deepest intersecting pair of convex leaves (CLASH_HAS_PAIR_DEPTH,
 * clash_result), a lower bound on the union's depth, never the union's
 * own (CLASH_HAS_DEPTH).  See core/compound.c for what each method
 * reports.  Limits: CLASH_COMPOUND_MAX_DEPTH levels and
 * CLASH_COMPOUND_MAX_LEAVES leaves per shape (CLASH_ELIMIT), checked at
 * query time with the rest of the tree.
 * A query of compound shapes allocates scratch for its leaves (freed before
 * it returns; CLASH_ENOMEM when that fails) and does not take a warm
 * simplex (opt->warm_count > 0 gives CLASH_ENOTSUP).
 * Returns CLASH_EDIM (dim out of range, or a part of another dimension),
 * CLASH_EEMPTY (no parts) or CLASH_EINVAL.
 */
int clash_shape_init_compound(clash_shape *s, int dim, const clash_shape *parts, size_t nparts);

/*
 * Exact primitives: 3-D shapes given by their analytic support
 * mappings (van den Bergen, "Collision Detection in Interactive 3D
 * Environments", 2003, section 4.3.4), not by vertices.  One axis
 * convention for all, that of three.js (CylinderGeometry, ConeGeometry,
 * CapsuleGeometry), every shape centred on its local origin:
 *   CLASH_KIND_SPHERE     params {r}: the ball of radius r;
 *   CLASH_KIND_BOX        params {x, y, z}: half extents along x, y, z;
 *   CLASH_KIND_CAPSULE    params {r, h}: the segment y in [-h, h] grown by r;
 *   CLASH_KIND_CYLINDER   params {r, h}: radius r about the y axis, y in [-h, h];
 *   CLASH_KIND_CONE       params {r, h}: base disc of radius r at y = -h,
 *                         apex at y = +h;
 *   CLASH_KIND_ELLIPSOID  params {a, b, c}: semi-axes along x, y, z.
 * Unused params are ignored; used ones must be finite and > 0
 * (CLASH_EINVAL otherwise, as for an unknown kind).  The shape starts with
 * identity pose and radius 0; the clash_shape_set_*() calls place it (any
 * affine map: a scaled sphere is an ellipsoid) and round it (the radius, in
 * world units, adds as for a polytope).
 *
 * What takes them: clash_gjk (distance, EPA depth, the verdict), compounds
 * (as parts, with polytopes), clash_contains as outer, clash_toi, scenes.
 * Internally a sphere or capsule whose pose is a similarity is a point or a
 * segment grown by its (scaled) radius, and a box its 8 corners, so their
 * answers are those of polytopes, depth included; cylinders, cones,
 * ellipsoids (and spheres, capsules under a non-uniform scale) are curved:
 * GJK converges on them only in the limit, and its projections onto the
 * flat simplices of clustering support points lose digits near 1e-12 of
 * the size, so a pair with a curved side has the default tolerance 1e-10
 * times the size (a smaller opt.tolerance may end with converged = 0 and
 * the best bounds found); EPA's polytope inside the curved Minkowski
 * difference ends with its depth within tolerance of its lower bound or,
 * after 1024 expansions (the query's max_iterations instead, when set, up
 * to 4096: each costs more as the polytope grows, near touching the
 * curved difference is never matched, and a query this small must not
 * hold a server's worker for seconds), with converged = 0 and an upper
 * bound.  Shapes that share an axis of symmetry (a shaft in a bearing)
 * are searched in a plane through it instead, and converge.
 * A curved shape has no vertices: warm-start indices are
 * ignored for a pair with a curved side (the answer's warm indices of
 * that side are 0), clash_shape_prepare gives CLASH_EINVAL, the LP methods
 * (clash_lp_simplex, clash_lp_ipm) CLASH_ENOTSUP for every kind but the
 * box, clash_contains CLASH_ENOTSUP for a curved inner, and clash_swept
 * CLASH_ENOTSUP for a curved b (clash_toi then goes without it).
 */
enum clash_kind {
	CLASH_KIND_POLYTOPE = 0,
	CLASH_KIND_SPHERE,
	CLASH_KIND_BOX,
	CLASH_KIND_CAPSULE,
	CLASH_KIND_CYLINDER,
	CLASH_KIND_CONE,
	CLASH_KIND_ELLIPSOID
};
int clash_shape_init_primitive(clash_shape *s, int kind, const double params[3]);

/*
 * Prepared shapes: for a convex shape used in many queries (a scene's
 * obstacles, a robot's links), prepare it once.  A prepared shape keeps its
 * vertices' bounding box, so a query sets up without reading them, and in
 * 3-D the vertex adjacency of their convex hull (built by Quickhull) with a
 * table of starting vertices by direction, so that each support point is
 * found by hill climbing over the hull in a handful of steps instead of a
 * scan of every vertex: a query on a 10^5-vertex prepared shape costs a
 * few microseconds, as on a small one.  Shapes of fewer than a few dozen
 * vertices keep scanning (faster there).
 *
 * clash_prepared_size(dim, count) is the storage preparing count vertices
 * of dimension dim needs, in bytes (in 3-D about 330 per vertex while
 * preparing, of which about 60 per hull vertex are kept: see
 * clash_prepared_bytes below; a few hundred bytes otherwise).
 * clash_shape_prepare(s, storage, size) prepares s, a shape built with
 * clash_shape_init, in the caller's storage: at least
 * clash_prepared_size(s->dim, s->count) bytes, 8-byte aligned (malloc's
 * is), which must stay in place and unchanged, like the vertex array,
 * while s is prepared.  The pose and radius may change freely (a
 * preparation describes the vertices only); clash_shape_init on s drops
 * it.  It takes O(count log count) time and allocates nothing.  Queries
 * answer as for the unprepared shape, bit for bit (warm indices too): among
 * equally extreme vertices, or ones equal to rounding, the climb takes the
 * one a scan takes (the highest score, then the lowest index).  Returns CLASH_OK, CLASH_ERANGE (a vertex is not
 * finite) or CLASH_EINVAL (NULL, a compound shape, storage too small or
 * misaligned).  A query whose shape's preparation no longer matches its
 * vertex array or count gives CLASH_EINVAL.
 */
size_t clash_prepared_size(int dim, size_t count);
int clash_shape_prepare(clash_shape *s, void *storage, size_t size);

/* Keeping a preparation compact: preparing uses clash_prepared_size bytes,
 * but only the first clash_prepared_bytes(s) of them (about 60 per hull
 * vertex) are the preparation; the rest was scratch.  Those bytes may be
 * copied to other 8-aligned storage (and the original freed), and a shape
 * pointed at the copy with clash_shape_set_prepared, which also attaches a
 * preparation to another clash_shape borrowing the same vertex array.
 * clash_prepared_bytes gives 0 for a shape not prepared;
 * clash_shape_set_prepared gives CLASH_EINVAL, changing nothing, when the
 * preparation is not one of s's vertex array and count. */
size_t clash_prepared_bytes(const clash_shape *s);

/* The most clash_prepared_bytes can give once count vertices of dimension
 * dim are prepared (whatever their hull), so room for a preparation can be
 * set aside before it is made; 0 for a dim or count clash_prepared_size
 * refuses. */
size_t clash_prepared_bytes_max(int dim, size_t count);

/* The vertices of the convex hull a 3-D preparation climbs over (0 for a
 * shape not prepared, not 3-D, or flat). */
size_t clash_prepared_hull(const clash_shape *s);
int clash_shape_set_prepared(clash_shape *s, const void *preparation);

/* Set the radius of the spherical extension (>= 0, finite). */
int clash_shape_set_radius(clash_shape *s, double radius);

/* Set the translation part of the pose (dim numbers). */
int clash_shape_set_translation(clash_shape *s, const double *t);

/* Set the rotation from a quaternion (x, y, z, w): 3-D shapes only.  The
 * quaternion is normalized; one whose length is off by more than
 * CLASH_QUAT_TOLERANCE gives CLASH_EQUAT. */
int clash_shape_set_quaternion(clash_shape *s, const double q[4]);

/* Set the rotation of a 2-D shape by an angle in radians (counter-clockwise). */
int clash_shape_set_angle(clash_shape *s, double radians);

/* Set the whole pose from a homogeneous (dim+1) x (dim+1) matrix in
 * column-major order (for 3-D: the 16 numbers of three.js Matrix4.elements or
 * a glTF node matrix).  Any non-singular affine map is accepted (scale and
 * shear too); a singular linear part or a last row other than (0,..,0,1)
 * gives CLASH_ESINGULAR.  The radius stays in world units. */
int clash_shape_set_matrix(clash_shape *s, const double *m);

/* Query options.  Zero-initialize for the defaults. */
typedef struct clash_options {
	/* Absolute distance tolerance in world units.  0 selects the default,
	 * 1e-12 times the size of the shapes.  Shapes closer than this count as
	 * touching (intersecting, distance 0); a separated answer is within it of
	 * the true distance unless `converged` is 0. */
	double tolerance;
	/* Hard cap on iterations; 0 selects CLASH_GJK_MAX_ITERATIONS.  It caps
	 * the penetration-depth expansions separately: 0 selects
	 * the EPA cap above (one per vertex of the two shapes, at least
	 * CLASH_EPA_MAX_ITERATIONS), which also bounds a larger one. */
	int max_iterations;
	/* Warm start (GJK88 section VIII): vertex index pairs of a previous
	 * answer's final simplex, e.g. clash_result.warm_a / warm_b.  At most
	 * CLASH_MAX_DIM + 1 pairs; 0 starts from the centroids' direction. */
	size_t warm_count;
	const size_t *warm_a;
	const size_t *warm_b;
	/* Method "ipm" (2005 paper, section 4.1): a previous answer's separating
	 * plane, dim normal components then the offset; while it still
	 * separates, the answer is "no collision" without iterating.  NULL: none. */
	const double *warm_plane;
	/* Cooperative cancellation: when not NULL, *cancel is read before each
	 * GJK iteration and each EPA expansion (clash_gjk, and so each pair of
	 * a compound query) and, once it is nonzero, the query stops and
	 * returns CLASH_ECANCELED (no answer).  Another thread may set it at any time (a plain aligned int
	 * store; the core only reads it).  A server uses it to free a worker
	 * whose request has passed its deadline.  One iteration is not
	 * interrupted: its support scans are linear in the vertex count, which
	 * the caller bounds.  Other methods should read it in their iteration
	 * loops the same way. */
	const volatile int *cancel;
	/* What the caller needs: CLASH_WANT_* bits, 0 for everything the
	 * method answers.  Method gjk does the least work that answers what is
	 * asked: CLASH_WANT_VERDICT alone stops at the first separating
	 * direction (a support point w with v.w / |v| beyond the radii: the
	 * answer then has a separating plane and distance_lower_bound) or the
	 * first simplex that holds the origin or comes within the radii (the
	 * answer is only the verdict); without CLASH_WANT_DEPTH it skips the
	 * penetration depth (EPA).  `has` says what the answer carries.  The
	 * verdict is the one the full query would give.  Methods that only
	 * answer the verdict (simplex, ipm) ignore it. */
	unsigned want;
} clash_options;

/* Bits of clash_options.want. */
enum clash_want {
	CLASH_WANT_VERDICT = 1u << 0,  /* intersecting */
	CLASH_WANT_DISTANCE = 1u << 1, /* distance, near points, separating plane */
	CLASH_WANT_DEPTH = 1u << 2     /* penetration depth, its normal and points */
};

/* Which members of a clash_result a method filled (clash_result.has). */
enum clash_has {
	CLASH_HAS_DISTANCE = 1u << 0,       /* distance, near_a, near_b */
	CLASH_HAS_PLANE = 1u << 1,          /* normal, offset (when separated) */
	CLASH_HAS_DEPTH_BOUND = 1u << 2,    /* depth_lower_bound (when intersecting) */
	CLASH_HAS_DEPTH = 1u << 3,          /* depth, depth_normal, depth_a, depth_b */
	CLASH_HAS_DISTANCE_BOUND = 1u << 4, /* distance_lower_bound */
	CLASH_HAS_WARM = 1u << 5,           /* warm_count, warm_a, warm_b */
	CLASH_HAS_PARTS = 1u << 6,          /* part_a, part_b */
	CLASH_HAS_MESH = 1u << 7,           /* solid_a, solid_b, contact */
	CLASH_HAS_PAIR_DEPTH = 1u << 8      /* depth ... depth_b: the deepest pair of parts' */
};

/* How two shapes of a mesh query meet (clash_result.contact).  Inside
 * means wholly inside, or, the holder an open solid, reaching in across
 * the film over one of its holes (docs/shapes.md). */
enum clash_contact {
	CLASH_CONTACT_NONE = 0,
	CLASH_CONTACT_SURFACES, /* their surfaces cross or touch */
	CLASH_CONTACT_A_IN_B,   /* a lies inside the solid b, surfaces apart */
	CLASH_CONTACT_B_IN_A    /* b lies inside the solid a, surfaces apart */
};

/* The answer to a query.  Points are in world coordinates. */
typedef struct clash_result {
	int dim;
	/* CLASH_HAS_* bits: the members below that this answer carries. */
	unsigned has;
	/* The closed shapes share a point (within the tolerance). */
	int intersecting;
	/* Euclidean distance between the shapes, radii included; 0 when they
	 * touch or overlap. */
	double distance;
	/* Near points: when separated, the closest pair, |near_a - near_b| =
	 * distance; when intersecting, one point common to both (near_a == near_b). */
	double near_a[CLASH_MAX_DIM];
	double near_b[CLASH_MAX_DIM];
	/* When separated: unit normal n and offset c with n.x <= c on a and
	 * n.x >= c on b (the plane halfway between the near points). */
	double normal[CLASH_MAX_DIM];
	double offset;
	/* When intersecting: a lower bound on the penetration depth (the
	 * distance b must move for the shapes to part), GJK88 eq. (32), radii
	 * included.  0 when the shapes only touch. */
	double depth_lower_bound;
	/* Iterations taken (support-mapping evaluations after the first). */
	int iterations;
	/* 1 when the tolerance was met; 0 when the iteration cap or a numerical
	 * stall ended the search (of the distance, or of the penetration depth),
	 * or rounding left no certain separating plane.  The answer is then the
	 * best found: the distance and the depth are upper bounds. */
	int converged;
	/* Number of times the backup procedure of GJK88 section VI was needed. */
	int backups;
	/* Vertex indices of the final simplex: pass them back as a warm start. */
	size_t warm_count;
	size_t warm_a[CLASH_MAX_DIM + 1];
	size_t warm_b[CLASH_MAX_DIM + 1];
	/* When intersecting (gjk in 1-D, 2-D and 3-D; CLASH_HAS_DEPTH):
	 *   depth: the penetration depth, the least distance b must move for
	 *     the shapes to part (radii included; >= depth_lower_bound); 0 when
	 *     they only touch;
	 *   depth_normal: the unit direction of that move (translating b by
	 *     depth * depth_normal leaves the shapes touching, by any more parts
	 *     them); it points from a towards b like the separating normal;
	 *   depth_a, depth_b: the deepest points, depth_a on a's surface and
	 *     depth_b on b's, with depth_a = depth_b + depth * depth_normal:
	 *     after the move they are the same point, where the shapes touch.
	 * When `converged` is 0 the search stopped early: depth is then an upper
	 * bound (the move still parts the shapes), depth_a is on a's surface and
	 * depth_b = depth_a - depth * depth_normal lies on the plane touching b
	 * on the side facing a.
	 * Compound shapes (gjk in 1-D to 3-D; CLASH_HAS_PAIR_DEPTH instead of
	 * CLASH_HAS_DEPTH): the same four members for the deepest intersecting
	 * pair of convex leaves (part_a, part_b name their top-level parts),
	 * exactly as that pair alone would answer them.  That depth is the
	 * union's depth_lower_bound (parting the unions parts every pair), not
	 * the union's depth in general: translating b by depth * depth_normal
	 * parts those two leaves, but may leave other pairs overlapping or make
	 * new ones (a peg in a slot: each wall overlaps it a little, and the
	 * peg must be pulled out of the slot to part them). */
	double depth;
	double depth_normal[CLASH_MAX_DIM];
	double depth_a[CLASH_MAX_DIM];
	double depth_b[CLASH_MAX_DIM];
	/* Method "simplex" (Kreuzer 2016): a lower bound on the distance from
	 * the 1-norm minimum of problem P2; 0 when intersecting. */
	double distance_lower_bound;
	/* Compound shapes: the top-level parts that gave the answer (the nearest
	 * pair, or an intersecting pair). */
	size_t part_a, part_b;
	/* A query with a mesh on either side (CLASH_HAS_MESH): whether each
	 * side is a solid (1: a convex shape, or a closed and consistently
	 * oriented mesh; 0: an open surface), and, when intersecting, how
	 * (enum clash_contact; CLASH_CONTACT_NONE when separated). */
	int solid_a, solid_b;
	int contact;
} clash_result;

/*
 * GJK distance (GJK88 sections IV-VI): Johnson's distance sub-algorithm with
 * the backup procedure, the convergence test of eq. (35), a hard iteration
 * cap and the origin shift of section VI.  `opt` may be NULL.
 * Returns CLASH_OK and fills *r, or a negative CLASH_E* code (and *r is
 * zeroed).
 */
int clash_gjk(const clash_shape *a, const clash_shape *b, const clash_options *opt,
              clash_result *r);

/*
 * Intersection as a linear program over the vertices, solved by the simplex
 * method with Bland's rule (Kreuzer 2016, problem P2): intersecting and
 * distance_lower_bound.  Any dimension.
 */
int clash_lp_simplex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r);

/*
 * The same LP by a primal-dual interior-point method (2005 interframe paper,
 * eqs. (8)-(16) and section 4): intersecting, and when separated the plane
 * given by the dual variables.  Honours opt->warm_plane.  Any dimension.
 */
int clash_lp_ipm(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                 clash_result *r);

/* The answer to a containment query. */
typedef struct clash_containment {
	int contained;          /* every point of inner lies in outer */
	int has_outside_vertex; /* when not contained: a vertex of inner outside outer */
	size_t outside_part;    /* its top-level part, when inner is compound */
	size_t outside_vertex;  /* its index in that part's (or inner's) vertices */
	/* When not contained and that part is a curved primitive (no
	 * vertices): a point of it outside outer, world coordinates. */
	int has_outside_point;
	double outside_point[CLASH_MAX_DIM];
	int iterations;
	/* 1 when the answer is certain.  0 when some vertex of inner could be
	 * shown neither inside nor outside (its point queries stopped without
	 * a certificate: the iteration cap, or rounding on a nearly flat
	 * outer) and no other vertex is outside: then contained is 0 and
	 * has_outside_vertex 0, "not shown to be contained". */
	int converged;
} clash_containment;

/*
 * Containment (Kreuzer 2016, IsSubsetOf): is inner a subset of outer?
 * Radii count (a rounded inner needs room for its radius).  An outer
 * compound shape (a non-convex union) gives CLASH_ENOTSUP.
 */
int clash_contains(const clash_shape *inner, const clash_shape *outer, const clash_options *opt,
                   clash_containment *out);

/* ==========================================================================
 * Triangle meshes
 *
 * A shape may be a triangle mesh: positions (3 doubles a vertex) and
 * indices (3 a triangle; glTF and three.js layout), or, without indices,
 * consecutive triples of vertices.  Vertices of equal coordinates are one;
 * triangles are turned over where their neighbours disagree.  A mesh that
 * is then closed, or whose holes leak little (clash_mesh_info), is a
 * solid: its inside, the points of winding number 1/2 or more in size
 * (Jacobson, Kavan, Sorkine-Hornung 2013), is part of the shape; shells
 * of the same turn that overlap or nest are their union, an inward shell
 * inside an outward one a cavity.  Any other mesh is a surface.
 * Degenerate triangles are allowed.  Queries with a mesh on
 * either side (clash_gjk; compounds may have mesh leaves) answer
 * `intersecting` (surfaces within the tolerance, or a point of one shape
 * inside a solid other), with a common point and `contact`; when separated,
 * the distance and the near points (no separating plane: a mesh need not
 * have one).  No penetration depth there: clash_mesh_depth (below) answers
 * it for solids.  Other methods give CLASH_ENOTSUP.  See core/mesh_query.c.
 * ========================================================================== */
typedef struct clash_mesh clash_mesh; /* opaque, lives in caller storage */

/* Bytes clash_mesh_build needs for a mesh of nvertices and ntriangles (0
 * when too large). */
size_t clash_mesh_size(size_t nvertices, size_t ntriangles);

/* Build the mesh's bounding-volume tree and topology in caller storage
 * (8-byte aligned, at least clash_mesh_size bytes, kept in place while
 * used).  Borrows positions (3 doubles per vertex; kept unchanged while
 * used); indices (3 per triangle) may be NULL: triangle t is vertices 3t,
 * 3t+1, 3t+2 (then nvertices must be 3*ntriangles).  CLASH_EINVAL (index
 * out of range, bad sizes), CLASH_ERANGE (non-finite coordinate, or an extent over 1e30),
 * CLASH_EEMPTY (no triangles).  *out points into storage. */
int clash_mesh_build(void *storage, size_t size, const double *positions, size_t nvertices,
                     const uint32_t *indices, size_t ntriangles, clash_mesh **out);

/* As clash_mesh_build, with vertices within `weld` times the diagonal of
 * the box of the positions joined into one first: two vertices are joined
 * when their distance is at most that tolerance, and joins chain (the
 * clusters are the connected components).  A joined vertex's triangle
 * corners take the coordinates of its cluster's first vertex (in input
 * order), and the topology (solid, parts) counts the cluster as one
 * vertex; triangles are kept, in their order, even when the weld makes
 * them degenerate.  weld 0: only vertices of equal coordinates, which is
 * clash_mesh_build.  CLASH_EINVAL also for a weld negative or not finite;
 * CLASH_ELIMIT for vertices packed too densely to weld in bounded time
 * (thousands of distinct vertices within the tolerance of each other:
 * build it with weld 0). */
int clash_mesh_build_welded(void *storage, size_t size, const double *positions, size_t nvertices,
                            const uint32_t *indices, size_t ntriangles, double weld,
                            clash_mesh **out);

/* The vertices the weld moved: joined to a cluster whose first vertex has
 * other coordinates (exact duplicates are not counted; 0 for weld 0). */
size_t clash_mesh_welded(const clash_mesh *m);

/* 1 when the mesh counts as a solid (clash_mesh_info.solid), else 0. */
int clash_mesh_is_solid(const clash_mesh *m);

/* How a mesh was read.  Its edges are counted between welded vertices;
 * triangles whose corners weld into fewer than three take no part. */
typedef struct clash_mesh_info {
	/* Its inside is part of the shape: it is closed, or its leak is under
	 * 0.15 (docs/shapes.md, "When a mesh is a solid"). */
	int solid;
	/* Every edge used by exactly two triangles, once each way, after the
	 * turns below: watertight, the winding number an integer off it. */
	int closed;
	size_t triangles;
	size_t parts;             /* connected through shared corners */
	size_t boundary_edges;    /* used by one triangle: the rims of holes */
	size_t nonmanifold_edges; /* used by three triangles or more */
	/* Triangles turned over so that each edge-connected piece is
	 * consistently oriented, the way of the greater part of its area. */
	size_t flipped;
	size_t welded; /* vertices the weld moved (clash_mesh_welded) */
	/* The winding number's mean distance from an integer just in front of
	 * the surface: 0 for a closed mesh, about 1/2 for a single sheet. */
	double leak;
	/* Pairs of its triangles that cross each other, beyond the corners
	 * and edges they share after the weld (a fold counts; triangles of
	 * zero area take no part): exact, unless the work bound (1 << 20 and
	 * 64 per triangle) was reached, then self_intersections_capped is 1
	 * and the count a lower bound.  Informative: a closed mesh that
	 * crosses itself is still a solid, the union of its shells. */
	size_t self_intersections;
	int self_intersections_capped;
} clash_mesh_info;

/* *out for a built mesh: CLASH_OK, or CLASH_EINVAL (not a mesh, NULL).
 * The first call for a mesh counts its self-intersections (about the
 * build's time again), kept in the mesh for later calls: safe from
 * several threads at once (an atomic store; two first calls both count). */
int clash_mesh_info_get(const clash_mesh *m, clash_mesh_info *out);

/* The meshes of shape s (itself, or the leaves of a compound) together:
 * solid and closed when every one is, the counts summed (crossings
 * within each mesh), capped when any is, the greatest leak.  Returns
 * how many meshes s holds (0: *out zeroed). */
size_t clash_shape_mesh_info(const clash_shape *s, clash_mesh_info *out);
/* Whether every mesh of s is a solid, into *solid (untouched when none),
 * without the count of crossings (clash_mesh_info.self_intersections,
 * worked out on a reading's first request): returns 0 when s holds no
 * mesh, else nonzero. */
size_t clash_shape_mesh_solid(const clash_shape *s, int *solid);
size_t clash_mesh_triangles(const clash_mesh *m);
/* The index array the mesh was built from (borrowed, 3 per triangle in
 * input order), or NULL when it was built without one. */
const uint32_t *clash_mesh_indices(const clash_mesh *m);
/* The bytes of storage the built mesh uses (from its start), for caches:
 * the rest of clash_mesh_size was scratch. */
size_t clash_mesh_bytes(const clash_mesh *m);
/* Move a built mesh into other storage: its first clash_mesh_bytes(m)
 * bytes copied to dst (8-byte aligned, at least that size) and made a mesh
 * of its own (*out, at dst; it borrows the same positions and indices), so
 * a mesh kept for long need not hold the scratch of its build.  m is left
 * as it was.  CLASH_EINVAL for NULL, a misaligned dst or not a mesh. */
int clash_mesh_move(void *dst, const clash_mesh *m, clash_mesh **out);

/* A 3-D shape that is the mesh m (identity pose, radius 0; set pose and
 * radius as for any shape).  vertices/count are set to the positions, so
 * bounding boxes and reaches computed from vertices stay right. */
int clash_shape_init_mesh(clash_shape *s, const clash_mesh *m);

/*
 * Penetration depth of two 3-D shapes with a mesh on either side (mesh,
 * compound with mesh leaves, against a mesh, hull, primitive or compound),
 * both solids: fills r as clash_gjk does (intersecting, solid_a/b,
 * contact, near points ...) and, when they intersect, CLASH_HAS_DEPTH with
 * depth, depth_normal, depth_a, depth_b and converged, with the meaning
 * clash_result documents: translating b by depth * depth_normal leaves the
 * shapes touching or apart.  A side that is not a solid: CLASH_HAS_DEPTH
 * not set (solid_a/solid_b say why).  opt as clash_gjk (tolerance, cancel,
 * max_iterations may bound the search).
 * Two convex sides (a hull, a primitive, radius or not, or a convex mesh:
 * closed, one part, every vertex on one side of each face's plane) get
 * clash_gjk's EPA on their hulls, bit for bit.  Two unions of convex
 * leaves (a compound of hulls, primitives and convex meshes, against such
 * a union or a convex side) get the depth of their deepest pair of leaves
 * when b moved by it along that pair's normal clears a (then it is the
 * depth, converged: no shorter move parts that pair).  Otherwise the
 * depth is the least over directions u of the exact directional depth
 * t(u) (how far b must move along u to clear a), over candidate
 * directions refined locally; the move always parts them, and
 * `converged` is 1 when the contacts where it ends admit no shorter move
 * (a local optimum: the global one is not certified).  There a convex leaf is taken as a
 * polytope: exactly a hull or box of radius 0; a curved or rounded one as
 * a polytope that holds it (its circles as 64-gons, its balls as 64-point
 * hulls), so its depth is an upper bound, a little deeper than the truth
 * (a sphere's up to 6.1% of its radius), and converged 0; but a closed
 * mesh leaf against a ball (alone on its side) gets the exact directional
 * depth of the ball (core/sphere_depth.c) over the same kind of search,
 * converged when the best is a confirmed foot of one to three features.
 * A mesh leaf with a radius gives CLASH_ENOTSUP.  max_iterations, when set, caps
 * the directions evaluated (1 200 by default), and 2^25 triangle pairs
 * examined in all (a few seconds) end the search with the best found
 * (converged 0).  docs/shapes.md, "How deep two meshes overlap";
 * core/mesh_depth.c.  Allocates its scratch (freed before it returns;
 * CLASH_ENOMEM); CLASH_EDIM for shapes not 3-D.
 */
int clash_mesh_depth(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r);

/* ==========================================================================
 * Mesh clash reports
 *
 * Where two shapes with a mesh on at least one side cross, and how much
 * they overlap: the regions of contact (one per connected component of
 * A∩B, or connected place where two surfaces cross), each with its
 * intersection curve as polylines of world points, its box, the input
 * triangles of each side that take part and, when both sides are closed,
 * its volume; and the volume of A∩B, exact up to rounding.  Kept apart
 * from clash_gjk, whose queries do not pay for it.  Method, exactness,
 * degenerate configurations and caps: docs/shapes.md, "Where and how much
 * two meshes overlap"; core/overlap.c.
 * ========================================================================== */

/* Defaults of the caps of clash_overlap_options. */
#define CLASH_OVERLAP_MAX_REGIONS 64
#define CLASH_OVERLAP_MAX_POINTS 4096
#define CLASH_OVERLAP_MAX_TRIANGLES 1024

/* What clash_overlap_get lists.  Zero-initialize for the defaults. */
typedef struct clash_overlap_options {
	size_t max_regions;   /* regions listed; 0: CLASH_OVERLAP_MAX_REGIONS */
	size_t max_points;    /* curve points over all regions; 0: CLASH_OVERLAP_MAX_POINTS */
	size_t max_triangles; /* triangle indices listed per side of a region; 0:
	                       * CLASH_OVERLAP_MAX_TRIANGLES */
	/* Curve points lie within it of both surfaces: the offset that
	 * removes degenerate contacts (docs/shapes.md) is at most a quarter
	 * of it, but at least 2^-47 of the scale; 0: 2^-42 of the scale (the
	 * larger of the size and the farthest coordinate), within clash_gjk's
	 * default 1e-12 times the size. */
	double tolerance;
	const volatile int *cancel; /* as clash_options.cancel: CLASH_ECANCELED */
} clash_overlap_options;

/* One region: a connected component of A∩B (solids), or a connected place
 * where the surfaces cross. */
typedef struct clash_overlap_region {
	/* CLASH_CONTACT_SURFACES (the surfaces cross), CLASH_CONTACT_A_IN_B or
	 * CLASH_CONTACT_B_IN_A (a part of one side wholly inside the other,
	 * no crossing: the region is that part; found when both sides are
	 * closed). */
	int kind;
	size_t part_a, part_b; /* top-level parts of compound sides (0 otherwise) */
	double lo[3], hi[3];   /* world axis-aligned box of the region */
	int has_volume;        /* both sides are closed: */
	double volume;         /* the volume of this component of A∩B */
	/* The intersection curve: polyline i is points[polyline[i] ..
	 * polyline[i+1] - 1] (3 doubles a point, world coordinates), each
	 * point on both surfaces within the tolerance; closed[i] = 1 when it
	 * is a closed loop (its last point is not repeated: the loop returns
	 * to the first).  Loops are closed when both sides are closed. */
	size_t npolylines;
	const size_t *polyline;      /* npolylines + 1 offsets, in points */
	const unsigned char *closed; /* npolylines flags */
	const double *points;
	/* The triangles that take part, as input indices (the order given to
	 * clash_mesh_build), ascending: those the curve crosses and those
	 * lying inside the other solid within this component.  Capped at
	 * max_triangles per side; total_* count them all.  None for a side
	 * that is not a mesh (a hull, a box). */
	size_t ntriangles_a, ntriangles_b;
	const uint32_t *triangles_a, *triangles_b;
	size_t total_triangles_a, total_triangles_b;
} clash_overlap_region;

/* The answer; one block, released with clash_overlap_free. */
typedef struct clash_overlap {
	/* The surfaces cross, or one side lies inside the other.  Sides that
	 * only touch (face to face, edge to edge) may answer either way, with
	 * a region of volume about 1e-13 of the size when they do: the
	 * verdict of contact is clash_gjk's. */
	int intersecting;
	int solid_a, solid_b; /* as clash_result's */
	/* Each side is closed (clash_mesh_info.closed; a convex side is): the
	 * volume needs both.  A solid that is not closed (a few triangles
	 * missing) has no volume here. */
	int closed_a, closed_b;
	/* A side's surface does not bound its solid once: shells of one of
	 * its meshes cross each other or nest facing the same way (winding
	 * number 2 somewhere), or leaves of a compound overlap each other.
	 * Its volume is not read from its surface then: has_volume is 0. */
	int overlaps_itself_a, overlaps_itself_b;
	int has_volume; /* both sides are closed, neither overlaps itself: */
	double volume;  /* the volume of A∩B (world units cubed) */
	size_t nregions, total_regions;
	const clash_overlap_region *regions;
	/* A cap bound: fewer regions, points or triangles listed than exist.
	 * total_regions and volume still count every region. */
	int truncated;
} clash_overlap;

/*
 * The overlap of a and b: 3-D shapes with a mesh on at least one side
 * (a mesh, or a compound with a mesh leaf), against a mesh, a polytope
 * (its hull), a box primitive, a ball (a sphere primitive under a pose
 * that scales evenly, or a point with a radius; core/overlap_sphere.c)
 * or a compound of these, any poses.  Other curved primitives (capsule,
 * cylinder, cone, ellipsoid) and rounded shapes (radius > 0), as sides
 * or leaves, give CLASH_ENOTSUP for now.
 * A convex side names no triangles (ntriangles 0).  Compounds are
 * reported pair of leaves by pair of leaves (part_a, part_b name the
 * top-level parts); their volume is the sum over the pairs, that of A∩B
 * because the leaves of each side must not overlap each other (else
 * overlaps_itself_a or _b, and no volume).  *out is allocated in one block (free it with
 * clash_overlap_free); the work allocates O(triangles of both sides +
 * crossing triangle pairs), freed before return.  Returns CLASH_OK,
 * CLASH_EINVAL (NULL, not 3-D, no mesh on either side), CLASH_ENOTSUP,
 * CLASH_ENOMEM, CLASH_ECANCELED (opt->cancel; no answer) or an error of
 * the shapes (CLASH_ELIMIT for a compound over its limits).
 */
int clash_overlap_get(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
                      clash_overlap **out);

/* Release an answer of clash_overlap_get (NULL: nothing). */
void clash_overlap_free(clash_overlap *o);

/* ==========================================================================
 * Motion and scenes
 *
 * Kept apart from the pairwise API above.  A motion is its own value
 * (clash_motion) rather than more members of clash_shape: clash_shape is
 * read by every method and copied for every part of a compound query, none
 * of which cares about motion, and a part cannot move within its compound
 * (objects are rigid), so only whole shapes need one.  Only clash_toi,
 * clash_swept and the scene calls take motions.
 * ========================================================================== */

/* Conservative advancement (clash_toi) stops after this many steps; see
 * clash_toi_result.converged for what is reported then. */
#define CLASH_TOI_MAX_STEPS 10000

/*
 * A motion of a shape over the time t in [0, 1] (2005 interframe paper,
 * section 5): the shape's origin moves along a straight line at constant
 * speed while the shape turns at constant angular speed about a fixed axis
 * through that origin (the slerp of its orientation).  With x -> L x + T the
 * shape's own pose (where it is at t = 0), at time t it is posed by
 *     x -> R(t) L x + T + t d
 * where d is `translation` and R(t) the rotation by t times `rotation`.
 * Zero-initialized, a motion is rest.
 */
typedef struct clash_motion {
	double translation[CLASH_MAX_DIM]; /* d: the displacement of the origin */
	/* The turn over the whole motion, in radians.  3-D: the rotation vector
	 * (unit axis times angle, counter-clockwise about the axis); 2-D:
	 * rotation[0] is the angle (counter-clockwise); other dimensions cannot
	 * turn (all 0). */
	double rotation[3];
} clash_motion;

/*
 * The motion that carries shape `start` to the pose of `end` (the same shape
 * posed where it ends, e.g. by its "pose_end"): d = T_end - T_start, and the
 * rotation L_end L_start^-1 the shortest way (at most pi: the slerp of the
 * two orientations).  That map must be a rotation within
 * CLASH_QUAT_TOLERANCE (then the nearest rotation is used): a change of
 * scale or shear, a reflection, or a rotation in a dimension other than 2
 * and 3 gives CLASH_ENOTSUP.  CLASH_EINVAL for a NULL or a dimension
 * mismatch, CLASH_ESINGULAR when start's linear part cannot be inverted.
 */
int clash_motion_between(clash_motion *m, const clash_shape *start, const clash_shape *end);

/* *out = s posed at time t of motion m (NULL: at rest); t may be any
 * number (t < 0 runs the motion backwards).  CLASH_ERANGE when the pose is
 * not finite. */
int clash_motion_pose(clash_shape *out, const clash_shape *s, const clash_motion *m, double t);

/* The answer to a time-of-impact query (clash_toi). */
typedef struct clash_toi_result {
	int dim;
	/* The shapes touch (come within the tolerance) at some t in [0, 1]. */
	int contact;
	/* The first such t; 0 when they touch at the start. */
	double toi;
	/* At toi: a point of contact (midway between the near points, which
	 * are within the tolerance) and, when has_normal, the unit contact
	 * normal from a towards b: the direction separating them just before
	 * toi (for toi = 0, a moment before the start, the motion run
	 * backwards; none when they already overlap there). */
	double point[CLASH_MAX_DIM];
	int has_normal;
	double normal[CLASH_MAX_DIM];
	/* With a normal: the speed (world units per unit of t) at which the
	 * material points of a and b at `point` approach each other along it;
	 * > 0 when they run into each other, <= 0 when they graze or part. */
	double approach;
	/* They go on into each other after toi: a moment later (when moving at
	 * the approach speed would have taken them 16 tolerances in, or at the
	 * end of the motion) they overlap deeper than the tolerance (judged
	 * as for CLASH_CLASS_CLASH).  0 for a graze, sliding flush, a parting,
	 * or an arrival flush at the end. */
	int runs_in;
	/* The distance falls below `clearance` (or to the tolerance) at some
	 * t in [0, 1]: near_time is the first such t.  Set whenever contact
	 * is, with near_time <= toi. */
	int near;
	double near_time;
	/* Conservative-advancement steps taken (one GJK query each). */
	int steps;
	/* 0 when CLASH_TOI_MAX_STEPS ran out first: contact (and near) are then
	 * reported at the last time before which there certainly is none, so
	 * a contact is never missed, but this one is not certain. */
	int converged;
} clash_toi_result;

/*
 * Time of impact: the first t in [0, 1] at which a and b, moving by ma and
 * mb (NULL: at rest), touch, and the first at which they come closer than
 * `clearance` (>= 0).  By conservative advancement (FCL, Mirtich 1996):
 * at time t GJK gives the distance d and its direction n; no point of a
 * moves towards b along n faster than mu = n.(d_a - d_b) + |w_a| r_a +
 * |w_b| r_b (w the turn, r the reach of the shape from its origin; for
 * compound shapes |d_a - d_b| replaces the first term), so nothing touches
 * before t + d / mu, where the search goes next.  It never steps past a
 * contact, whatever the rotation; for pure translation it is Newton's
 * method on the convex function d(t) and converges in a few steps, after
 * the swept-hull test (clash_swept) has told in one query whether there
 * is a contact at all.  opt: tolerance (contact is a distance within it;
 * default 1e-12 times the shapes' size) and max_iterations (per GJK
 * query).  Returns CLASH_OK, an error of clash_gjk or clash_swept, or
 * CLASH_EINVAL for a bad clearance; CLASH_ERANGE for a motion that is not
 * finite.
 */
int clash_toi(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
              const clash_motion *mb, double clearance, const clash_options *opt,
              clash_toi_result *out);

/*
 * The swept-hull test of the 2005 interframe paper (section 5), in the form
 * that is exact for translations: a convex shape B translated by d sweeps
 * co(B u (B + d)), and the relative motion of two translating shapes is a
 * translation of one, so a (at its start) is tested against b swept by
 * d_b - d_a (each convex part of a compound b swept on its own).  The
 * answer is clash_gjk's for that pair: intersecting when a and b touch at
 * some time of the motion, distance the least distance during it, near
 * points where a is at the start (b's point is where b is relative to a).
 * A motion with a turn gives CLASH_ENOTSUP: the hull of two poses does not
 * hold a turning shape.  Allocates the swept vertices (CLASH_ENOMEM).
 */
int clash_swept(const clash_shape *a, const clash_motion *ma, const clash_shape *b,
                const clash_motion *mb, const clash_options *opt, clash_result *r);

/* A pair of objects of a scene, by their indices (a < b in answers). */
typedef struct clash_pair {
	size_t a, b;
} clash_pair;

/*
 * How a pair of a scene is classed, like CAD clash-detection tools do.  For
 * objects at rest, with tol the pair's tolerance (below) and touch the
 * scene's touch_depth:
 *   DUPLICATE   they coincide within tol: the same dimension and parts,
 *               radii within tol, and the same point set in world space
 *               within tol, in any order (every vertex of a within tol of
 *               some vertex of b and the other way round; a mesh's
 *               positions in order and the same triangles; a primitive's
 *               kind, sizes and pose); parts of compounds compared in
 *               order; found by comparison alone, without a depth search
 *               (CLASH_ENOMEM when its scratch cannot be had);
 *   CLASH       they intersect and the penetration depth exceeds
 *               max(tol, touch);
 *   TOUCH       they intersect (distance within tol) no deeper than that;
 *   CLEARANCE   apart, but closer than the clearance;
 *   NONE        farther: not reported.
 * A pair apart by more than tol is never TOUCH nor CLASH, whatever touch is.
 * The tolerance of a pair is the scene's opt.tolerance, but at most
 * CLASH_SCENE_MAX_RELATIVE_TOLERANCE times the pair's size (the half
 * diagonals of their world boxes added up): a numerical tolerance larger
 * than that is not numerical, and would let a gap pass for contact.  An
 * opt.tolerance of 0 selects 1e-12 times that size.
 * When either moves (never DUPLICATE): CLASH when they overlap deeper than
 * max(tol, touch) at the start, or meet (clash_toi) and go on into each
 * other (runs_in, judged with tol); TOUCH when they meet otherwise
 * (grazing, sliding flush, parting, or arriving flush at the end);
 * CLEARANCE when they never meet but come closer than the clearance.
 * The depth is clash_gjk's when it reports one (CLASH_HAS_DEPTH, exact);
 * otherwise a pair whose lower bound (GJK88 eq. (32)) does not settle it
 * is a clash when b, moved by 2 sqrt(dim) d along each axis either way,
 * still meets a, d being max(tol, touch): then a depth up to d is never
 * taken for a clash, and one above 2 sqrt(dim) d always is.
 */
enum clash_class {
	CLASH_CLASS_NONE = 0,
	CLASH_CLASS_CLASH,
	CLASH_CLASS_TOUCH,
	CLASH_CLASS_CLEARANCE,
	CLASH_CLASS_DUPLICATE
};

/* The largest tolerance of a scene's pair, relative to the pair's size. */
#define CLASH_SCENE_MAX_RELATIVE_TOLERANCE 1e-6

/* In a scene, the group of an object that has none. */
#define CLASH_SCENE_NO_GROUP ((size_t)-1)

/* A scene: many objects, the question "which pairs are closer than the
 * clearance".  Everything is borrowed.
 * Groups: when `group` is not NULL, object i belongs to group group[i]
 * (< ngroups, or CLASH_SCENE_NO_GROUP), and an end of an `only` or
 * `ignore` pair may name a group g as count + g: the pair (x, y) then
 * stands for every pair of an object of x with a different object of y
 * ((g, g) for every pair within group g). */
typedef struct clash_scene {
	size_t count;
	const clash_shape *shapes;   /* count shapes (convex or compound), one dimension */
	const clash_motion *motions; /* NULL: all at rest; else one per shape */
	double clearance;            /* >= 0; 0 reports the intersecting pairs */
	double touch_depth;          /* >= 0: overlaps no deeper are TOUCH, not CLASH */
	clash_options opt;           /* tolerance and max_iterations for every pair */
	const clash_pair *only;      /* when nonly > 0: only these pairs are examined */
	size_t nonly;
	const clash_pair *ignore; /* never these pairs (either order) */
	size_t nignore;
	const size_t *group; /* NULL: no groups; else one per object */
	size_t ngroups;
	size_t max_candidates; /* 0: no limit; more candidates give CLASH_ELIMIT */
} clash_scene;

/* What a scene query did, for tests and measurements. */
typedef struct clash_scene_stats {
	size_t tested;     /* pairs of objects whose boxes were compared (the broad phase's work) */
	size_t candidates; /* pairs whose boxes overlap: handed to the narrow phase */
	size_t reported;   /* of them, the ones classed other than NONE */
} clash_scene_stats;

/* One pair of a scene, classed.  Members other than a, b and cls are those
 * of the pair's clash_result at the start, and the motion's answer.  A
 * DUPLICATE has no depth (depth 0, depth_exact 0). */
typedef struct clash_scene_hit {
	size_t a, b;
	enum clash_class cls;
	int intersecting;
	double distance;
	double near_a[CLASH_MAX_DIM], near_b[CLASH_MAX_DIM];
	double depth;    /* when intersecting: the depth the class was judged by */
	int depth_exact; /* depth is the penetration depth, not a lower bound */
	/* With an exact depth: clash_result's depth_normal, the direction to
	 * move b by depth to part them.  With pair_depth_exact instead: the
	 * deepest pair of parts' (CLASH_HAS_PAIR_DEPTH). */
	double normal[CLASH_MAX_DIM];
	/* Compound shapes, when clash_gjk reports it (CLASH_HAS_PAIR_DEPTH):
	 * the penetration depth of the deepest intersecting pair of convex
	 * parts (part_a, part_b), its direction in normal.  depth then is the
	 * union's lower bound, the same number when converged. */
	int pair_depth_exact;
	double pair_depth;
	int has_parts; /* a or b is compound: part_a, part_b as in clash_result */
	size_t part_a, part_b;
	int converged; /* the start's and, when moving, the motion's */
	int moving;    /* either object moves: toi holds the motion's answer */
	clash_toi_result toi;
	/* A triangle mesh is involved (CLASH_HAS_MESH); when intersecting,
	 * contact says how (clash_result.contact).  Two solids: depth is
	 * clash_mesh_depth's (depth_exact; an upper bound when converged is
	 * 0) and, when clash_overlap_get answers the pair, has_volume and
	 * the volume they share.  An open surface on either side: no depth
	 * (0, depth_exact 0), no volume. */
	int mesh;
	int contact;
	int has_volume;
	double volume;
} clash_scene_hit;

/*
 * Broad phase: the candidate pairs, those whose world boxes overlap (each
 * box covering its object over its motion, radius included, grown by half
 * the clearance and a rounding margin), less the ignored ones; only the
 * listed ones when s->nonly > 0.  By a bounding-volume hierarchy of the
 * boxes walked against itself: O(n log n) to build, about O(n + k) to find
 * k overlaps among objects of similar sizes.  *pairs is malloc'd (release with free()), sorted by (a, b) with
 * a < b; `st` may be NULL.  Returns CLASH_OK, CLASH_EINVAL (a bad scene or
 * pair index), CLASH_EDIM, CLASH_ERANGE, CLASH_ENOMEM or CLASH_ELIMIT.
 */
int clash_scene_candidates(const clash_scene *s, clash_pair **pairs, size_t *npairs,
                           clash_scene_stats *st);

/* Narrow phase for the pair (a, b), a != b: clash_gjk at the start and,
 * when either moves, clash_toi; the class in h->cls (NONE: not reported).
 * Reentrant: threads may run pairs of one scene at once.  Besides what
 * those allocate, the duplicate test sorts two point sets whose boxes
 * agree but whose lists differ in order (freed before it returns;
 * CLASH_ENOMEM when that fails). */
int clash_scene_pair(const clash_scene *s, size_t a, size_t b, clash_scene_hit *h);

/* Both phases on the calling thread: the reported pairs, sorted by (a, b),
 * in *hits (malloc'd; free()).  `st` may be NULL. */
int clash_scene_run(const clash_scene *s, clash_scene_hit **hits, size_t *nhits,
                    clash_scene_stats *st);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CLASH_H */
