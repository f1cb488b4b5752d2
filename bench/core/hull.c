/*
 * hull.c — the convex hull of a shape's vertices with qhull, for the peers
 * that want a mesh: FCL's Convex takes vertices and faces (and walks their
 * adjacency in its support function).  Not timed: a peer's prepare step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/libqhull_r.h>

#include "bench.h"

int bench_hull(const double *v, size_t m, int **triangles, int **vertices, size_t *nvertices)
{
	*triangles = NULL;
	*vertices = NULL;
	*nvertices = 0;
	qhT qh_qh, *qh = &qh_qh;
	QHULL_LIB_CHECK
	qh_zero(qh, stderr);
	FILE *devnull = fopen("/dev/null", "w");
	double *pts = malloc(3 * m * sizeof *pts);
	memcpy(pts, v, 3 * m * sizeof *pts);
	char opts[] = "qhull Qt";
	int rc = qh_new_qhull(qh, 3, (int)m, pts, 0, opts, NULL, devnull);
	int nt = -1;
	if (rc == 0) {
		int cap = 0;
		facetT *facet;
		FORALLfacets cap++;
		int *tri = malloc(3 * (size_t)cap * sizeof *tri);
		int *used = calloc(m, sizeof *used);
		nt = 0;
		FORALLfacets
		{
			int idx[3], k = 0;
			vertexT *vertex, **vertexp;
			FOREACHvertex_(facet->vertices)
			{
				if (k < 3)
					idx[k] = qh_pointid(qh, vertex->point);
				k++;
			}
			if (k != 3)
				continue;
			/* Orient by the facet's outward normal. */
			const double *p0 = v + 3 * idx[0], *p1 = v + 3 * idx[1],
				     *p2 = v + 3 * idx[2];
			double e1[3], e2[3], c[3];
			for (int i = 0; i < 3; i++) {
				e1[i] = p1[i] - p0[i];
				e2[i] = p2[i] - p0[i];
			}
			c[0] = e1[1] * e2[2] - e1[2] * e2[1];
			c[1] = e1[2] * e2[0] - e1[0] * e2[2];
			c[2] = e1[0] * e2[1] - e1[1] * e2[0];
			if (c[0] * facet->normal[0] + c[1] * facet->normal[1] +
			            c[2] * facet->normal[2] <
			    0) {
				int t = idx[1];
				idx[1] = idx[2];
				idx[2] = t;
			}
			for (int i = 0; i < 3; i++) {
				tri[3 * nt + i] = idx[i];
				used[idx[i]] = 1;
			}
			nt++;
		}
		size_t nv = 0;
		for (size_t i = 0; i < m; i++)
			nv += used[i] != 0;
		int *vs = malloc((nv ? nv : 1) * sizeof *vs);
		nv = 0;
		for (size_t i = 0; i < m; i++)
			if (used[i])
				vs[nv++] = (int)i;
		free(used);
		*triangles = tri;
		*vertices = vs;
		*nvertices = nv;
	}
	int curlong, totlong;
	qh_freeqhull(qh, !qh_ALL);
	qh_memfreeshort(qh, &curlong, &totlong);
	free(pts);
	fclose(devnull);
	return nt;
}
