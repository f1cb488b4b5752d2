/*
 * weld.h — joining a mesh's vertices that lie within a tolerance of each
 * other (internal to the core; used by mesh_build.c).
 *
 * The rule: two vertices are joined when their distance is at most `tol`
 * (tol 0: when their coordinates are equal, -0 as +0), and joining is
 * transitive: the clusters are the connected components of that relation,
 * so a chain of vertices each within tol of the next is one cluster even
 * when its ends are farther apart.  Each cluster is numbered in the order
 * of its first vertex (input order), which is its representative.  No
 * allocation: the caller hands the scratch.
 */
#ifndef CLASH_WELD_H
#define CLASH_WELD_H

#include <stddef.h>
#include <stdint.h>

/* The caller's scratch: slots, a power of two at least 2 nv numbers;
 * first, next and parent, nv numbers each. */
typedef struct weld_scratch {
	uint32_t *slots;
	size_t nslots;
	uint32_t *first, *next, *parent;
} weld_scratch;

/* The diagonal of the box of the nv points p (3 doubles each); 0 for none. */
double weld_diagonal(const double *p, size_t nv);

/* weld_join's answer for points packed too densely to weld in bounded
 * time: more than WELD_BUDGET(n) points and grid slots looked at for n
 * distinct points (a mesh looks at about 20 a point; thousands of
 * distinct points within a tolerance of each other exceed it). */
#define WELD_DENSE ((size_t)-1)
#define WELD_BUDGET(n) (128 * (size_t)(n) + ((size_t)1 << 22))

/* canon[v]: a number 0..nu-1 shared by the vertices of one cluster (the
 * rule above, tol >= 0); returns nu, or WELD_DENSE.  Afterwards
 * s->first[c] is cluster c's first vertex, for c < nu. */
size_t weld_join(const double *p, size_t nv, double tol, const weld_scratch *s, uint32_t *canon);

/* The vertices whose coordinates differ from their cluster's first
 * vertex's (first, canon from weld_join); when some do and out is not
 * NULL, every vertex's coordinates in it (3 nv doubles): its first
 * vertex's when they differ, else its own (out untouched when none do). */
size_t weld_place(const double *p, size_t nv, const uint32_t *canon, const uint32_t *first,
                  double *out);

#endif
