/*
 * mpr.h — the intersection verdict of two convex shapes in 3-D by portal
 * refinement (internal; used by gjk.c's verdict-only query).
 *
 * Minkowski Portal Refinement (G. Snethen, "XenoCollide: complex collision
 * made simple", Game Programming Gems 7, 2008; libccd's ccdMPRIntersect)
 * walks from a point c inside K = A - B towards the origin: it finds a
 * triangle of support points (the portal) that the ray from c through the
 * origin crosses, then moves the portal out to K's boundary one support
 * point at a time.  Here it only searches; what it concludes it certifies
 * as GJK's verdict would (clash_gjk falls back to GJK when it cannot):
 *   - apart: a direction d whose support point w has d.w < 0 and
 *     (d.w)^2 > reach^2 |d|^2 (GJK's first step and its APART stop);
 *   - inside: a tetrahedron of c and three support points holding the
 *     origin, each of its four orientations beyond a bound on its rounding;
 *   - within: a point of K within `reach` of the origin (GJK's |v| <= reach).
 * Anything else (a degenerate portal, the iteration cap, an orientation
 * lost in rounding) is MPR_UNDECIDED.  Design notes: docs/design.md,
 * "core/mpr.c, mpr.h".
 */
#ifndef CLASH_MPR_H
#define CLASH_MPR_H

/* The caller's support mapping of K: writes the support point along d into
 * its point number `slot` (1 .. 4; 0 is the first support point it gave)
 * and returns that point's coordinates, which stay valid until the slot is
 * written again. */
typedef const double *(*mpr_support_fn)(void *ctx, const double *d, int slot);

enum mpr_verdict {
	MPR_UNDECIDED,
	MPR_APART,
	MPR_INSIDE,
	MPR_WITHIN
};

typedef struct mpr_answer {
	enum mpr_verdict verdict;
	/* The support points MPR holds at the end (slot numbers; the centre
	 * c is not one): the portal (3), or fewer when it ended earlier. */
	int slots[3];
	int nslots;
	/* MPR_APART: the separating direction (not normalized) and the slot
	 * of its support point. */
	double dir[3];
	int apart_slot;
	int supports; /* support points taken (beyond slot 0) */
} mpr_answer;

/* The verdict for K with interior point c and y0 = s_K(-c) (slot 0), in
 * the caller's frame: `reach` is the verdict's threshold on the distance
 * (radii and tolerance), `max_iter` caps the support points. */
void mpr_verdict3(const double *c, const double *y0, double reach, int max_iter,
                  mpr_support_fn support, void *ctx, mpr_answer *ans);

#endif
