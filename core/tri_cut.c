/*
 * tri_cut.c — the segment in which two triangles cross (tri_cut.h).
 *
 * In general position two triangles cross in a segment whose two ends are
 * the points where an edge of one passes through the interior of the
 * other, so the six edge-triangle tests of tri_overlap.h (exact) find
 * both ends; any other count, or a touching contact, is degenerate.  The
 * direction of the segment comes from how each edge passes: along the
 * boundary of the part of t inside the other solid, counter-clockwise
 * about t's normal, the boundary leaves an edge of t where that edge goes
 * out of the solid and joins one where it goes in; for an edge of s the
 * roles swap, because s's boundary runs the other way along the segment.
 */
#include "tri_cut.h"
#include "predicates.h"
#include "tri_overlap.h"

/* 1 when walking p->q enters the solid bounded (outward) by triangle s
 * here: p lies in front of s (orient3d < 0, the side n_s points to). */
static int enters(const double *p, const double *const s[3])
{
	return pred_orient3d(s[0], s[1], s[2], p) < 0.0;
}

int tri_cut(const double *const t[3], const double *const s[3], tri_cut_end end[2])
{
	const double *const *tri[2] = {t, s};
	int found = 0, starts = 0;
	for (int side = 0; side < 2; side++) {
		const double *const *x = tri[side], *const *y = tri[1 - side];
		for (int e = 0; e < 3; e++) {
			const int r = tri_segment_cross(x[e], x[(e + 1) % 3], y[0], y[1], y[2]);
			if (r < 0)
				return -1;
			if (r == 0)
				continue;
			if (found == 2)
				return -1;
			const int in = enters(x[e], y);
			/* t's edge going in ends the segment; s's edge going in
			 * starts it. */
			const int start = side == 0 ? !in : in;
			end[found++] = (tri_cut_end){side, e, in};
			starts += start;
			if (start && found == 2) {
				const tri_cut_end k = end[0];
				end[0] = end[1];
				end[1] = k;
			}
		}
	}
	if (found == 0)
		return 0;
	if (found != 2 || starts != 1)
		return -1;
	return 1;
}

double tri_cut_param(const double *p, const double *q, const double *const s[3])
{
	const double dp = pred_orient3d_value(s[0], s[1], s[2], p);
	const double dq = pred_orient3d_value(s[0], s[1], s[2], q);
	return dp / (dp - dq);
}
