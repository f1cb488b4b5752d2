/*
 * tri_overlap.h — exact contact tests between triangles and segments in 3-D
 * (internal to the core; see tri_overlap.c).
 *
 * The narrow phase of triangle meshes: two mesh parts touch when a triangle
 * of one meets a triangle of the other, and a point is inside a closed mesh
 * when a ray from it crosses the surface an odd number of times.  Every
 * decision is a sign of core/predicates.h, so the answers are exact for the
 * double coordinates given; triangles of zero area (segments, points) are
 * handled as what they are.  Coordinates must be finite.
 */
#ifndef CLASH_TRI_OVERLAP_H
#define CLASH_TRI_OVERLAP_H

/* The closed triangles p0p1p2 and q0q1q2 share at least one point (exact,
 * by orientation predicates): touching at a point or along an edge counts.
 * Returns 1 or 0. */
int tri_overlap(const double p0[3], const double p1[3], const double p2[3], const double q0[3],
                const double q1[3], const double q2[3]);

/* How the segment s0s1 meets the closed triangle t0t1t2, for ray-crossing
 * point-in-solid tests: 1 it crosses, in the interior of both; 0 no
 * contact; -1 degenerate contact (the segment touches an edge or vertex of
 * the triangle, or lies in its plane touching it, or an endpoint lies on
 * the triangle; any contact with a zero-area triangle or of a zero-length
 * segment): the caller then picks another ray. */
int tri_segment_cross(const double s0[3], const double s1[3], const double t0[3],
                      const double t1[3], const double t2[3]);

/* As tri_overlap, and when the triangles share a point, one such point in
 * out: a vertex when one lies on the other triangle, otherwise where an
 * edge crosses it, placed from the determinants' accurate values, so
 * within rounding of both triangles.  out is untouched on 0. */
int tri_overlap_point(const double p0[3], const double p1[3], const double p2[3],
                      const double q0[3], const double q1[3], const double q2[3], double out[3]);

#endif
