/*
 * tri_dist.h — closest points of two triangles in closed form (internal).
 */
#ifndef CLASH_TRI_DIST_H
#define CLASH_TRI_DIST_H

/* Triangles s and t, 9 coordinates each (three corners).  Returns the
 * squared distance between the closed triangles and the closest points
 * (ps on s, pt on t); 0 with ps = pt a common point when they meet.
 * Degenerate triangles (segments, points) are allowed. */
double tri_dist2(const double *s, const double *t, double *ps, double *pt);

/* A lower bound on the squared distance of triangles s and t, cheaper
 * than tri_dist2: the largest squared gap along three separating-axis
 * candidates, each triangle's normal and the line through their
 * centroids (0 when none separates them). */
double tri_plane_gap2(const double *s, const double *t);

/* Squared distance from point p to triangle t and the closest point q. */
double tri_point_dist2(const double *p, const double *t, double *q);

#endif
