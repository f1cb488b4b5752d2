/*
 * tri_list.h — a mesh being written by a test: its vertices (x, y, z
 * each) and triangles (three vertex numbers each) appended to flat arrays
 * the caller sized, in the layout clash_mesh_build reads.
 */
#ifndef TESTS_TRI_LIST_H
#define TESTS_TRI_LIST_H

#include <stddef.h>
#include <stdint.h>

/* Appends (x, y, z) after the *nv vertices of pos; its number. */
static inline uint32_t tri_list_vertex(double *pos, size_t *nv, double x, double y, double z)
{
	double *v = pos + 3 * *nv;
	v[0] = x, v[1] = y, v[2] = z;
	return (uint32_t)(*nv)++;
}

/* Appends triangle (a, b, c) after the *nt triangles of idx. */
static inline void tri_list_triangle(uint32_t *idx, size_t *nt, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t *t = idx + 3 * (*nt)++;
	t[0] = a, t[1] = b, t[2] = c;
}

#endif
