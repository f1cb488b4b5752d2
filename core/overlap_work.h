/*
 * overlap_work.h — the working state of a mesh clash report (internal to the
 * core; core/overlap.c drives it).
 *
 * Both sides are meshes, side 0 (a) in its own frame, which is the common
 * frame of the work, side 1 (b) mapped into it and moved by a tiny offset
 * so that no configuration between the two is degenerate (docs/shapes.md,
 * "Where and how much two meshes overlap").  overlap_pairs.c finds the
 * segments where their triangles cross and the curve's points (ends);
 * overlap_classify.c decides which triangles and edge pieces of a side lie
 * inside the other solid and adds up the volume; overlap_regions.c joins
 * the pieces into regions and writes the answer.
 */
#ifndef CLASH_OVERLAP_WORK_H
#define CLASH_OVERLAP_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "affine.h"
#include "cancel.h"
#include "clash.h"
#include "mesh.h"

/* The generic directions a report moves b (or a ball's centre) in, one
 * attempt after another, when a contact is degenerate (overlap.c). */
#define OV_ATTEMPTS 4
static const double ov_dirs[OV_ATTEMPTS][3] = {{1.0, 0.7548776662466927, 0.5698402909980532},
                                               {-0.6180339887498949, 1.0, -0.4142135623730950},
                                               {0.3819660112501051, -0.8660254037844386, 1.0},
                                               {-1.0, -0.2360679774997897, -0.7071067811865476}};

/* One side: a built mesh and its triangles in the common frame. */
typedef struct ov_side {
	const clash_mesh *m;
	const double *tri; /* 9 doubles a triangle, tree order, common frame */
	double *copy;      /* b: tri, mapped when first needed (ready[i]) */
	uint8_t *ready;
	size_t n;
	int flip;   /* corners 1 and 2 swap to face outward */
	int closed; /* watertight: inside decided by crossings */
	int solid;
	int listed;          /* its triangles are named in answers (a mesh) */
	affine to_common;    /* the mesh's frame to the common frame */
	affine to_mesh;      /* and back */
	double offset[3];    /* added after to_common */
	double lo[3], hi[3]; /* its triangles' box, common frame */
} ov_side;

/* A point of the curve: an edge of side `side` (corners e0 < e1 in
 * lexicographic order) passing through triangle `tri` of the other. */
typedef struct ov_end {
	double p[3];
	double t; /* where along e0 -> e1 */
	const double *e0, *e1;
	uint32_t tri;
	uint8_t side;
	uint8_t exit; /* walking e0 -> e1 leaves the other solid here */
} ov_end;

/* A segment of the curve: triangle t[0] of a crosses t[1] of b, from end
 * `from` to end `to` along n_a x n_b. */
typedef struct ov_seg {
	uint32_t t[2];
	uint32_t from, to;
} ov_seg;

/* A crossing of one of a triangle's edges, along the triangle's order. */
typedef struct ov_cross {
	uint8_t edge, exit;
	double t;
	uint32_t end;
} ov_cross;

/* What classifying a side leaves (overlap_classify.c). */
typedef struct ov_class {
	size_t nplay;   /* triangles near the other side */
	uint32_t *play; /* their tree indices */
	uint32_t *vid;  /* 3 a triangle of play: vertex numbers */
	size_t nv;
	int8_t *status;   /* per vertex: 1 inside the other solid, 0 out, -1 unknown */
	int8_t *tri_in;   /* per play triangle not crossed: 1 inside, 0, -1 */
	uint32_t *xfirst; /* per play triangle: its crossings, nplay + 1 */
	ov_cross *xs;
	uint32_t *sfirst; /* per play triangle: its segments in sorder, nplay + 1 */
	uint32_t *sorder;
	uint32_t *slot; /* per tree index: its play index or UINT32_MAX */
} ov_class;

typedef struct ov_work {
	ov_side s[2];
	ov_end *ends;
	size_t nends, cap_ends;
	uint32_t *slots; /* hash of ends: index + 1, 0 empty */
	size_t nslots;
	ov_seg *segs;
	size_t nsegs, cap_segs;
	const volatile int *cancel;
	size_t visits;
	int degenerate;   /* a degenerate configuration was met: move b again */
	int volume;       /* both sides closed: classify and add up */
	double origin[3]; /* of the volume terms */
	ov_class c[2];
	double *vol;   /* per node: volume terms (common frame) */
	uint32_t *uf;  /* per node: union-find parent */
	size_t nnodes; /* ends, then side 0's vertices, then side 1's */
} ov_work;

#define OV_MIN(x, y) ((x) < (y) ? (x) : (y))
#define OV_MAX(x, y) ((x) > (y) ? (x) : (y))

/* Map triangle i of a mapped side into the common frame, once. */
static inline void ov_ready(ov_side *s, size_t i)
{
	if (s->ready == NULL || s->ready[i])
		return;
	for (int c = 0; c < 3; c++) {
		double *x = s->copy + 9 * i + 3 * c;
		affine_apply(&s->to_common, s->m->tri + 9 * i + 3 * c, x);
		for (int k = 0; k < 3; k++)
			x[k] += s->offset[k];
	}
	s->ready[i] = 1;
}

/* Node n of side s's tree as a box in the common frame. */
static inline void ov_node_box(const ov_side *s, const mesh_node *n, obox *o)
{
	mesh_node_obox(s->m, n, s->ready ? &s->to_common : NULL, o);
	for (int k = 0; k < 3; k++)
		o->c[k] += s->offset[k];
}

/* Corner c of triangle i of side s, in outward order. */
static inline const double *ov_corner(const ov_side *s, size_t i, int c)
{
	static const int perm[2][3] = {{0, 1, 2}, {0, 2, 1}};
	return s->tri + 9 * i + 3 * perm[s->flip][c];
}

/* 1 when the cancel flag is set, read every 256 calls. */
static inline int ov_cancelled(ov_work *w)
{
	return (++w->visits & 255) == 0 && cancel_requested(w->cancel);
}

/* The crossing segments of the two sides into w (overlap_pairs.c):
 * CLASH_OK, CLASH_ENOMEM, CLASH_ECANCELED; w->degenerate on a degenerate
 * pair. */
int ov_pairs(ov_work *w);

/* Side x's triangles near the other side (its box grown by slack),
 * mapped (overlap_pairs.c). */
int ov_near(ov_work *w, int x, double slack, uint32_t *play, size_t *n);

/* Side x's triangles near the other side, which lie inside it, and the
 * status of their vertices (overlap_classify.c). */
int ov_classify(ov_work *w, int x);
/* The volume terms and unions of side x's pieces inside the other. */
void ov_pieces(ov_work *w, int x);

/* Union-find over w->uf. */
uint32_t ov_find(uint32_t *uf, uint32_t i);
void ov_union(uint32_t *uf, uint32_t i, uint32_t j);

/* The answer from w (overlap_regions.c). */
int ov_answer(ov_work *w, const clash_overlap_options *opt, const affine *to_world, double det,
              clash_overlap **out);

void ov_class_free(ov_class *c);

/* The answer for two shapes that are not compound (overlap.c). */
int ov_pair(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
            clash_overlap **out);
/* The answer for compound shapes, pair of leaves by pair of leaves
 * (overlap_compound.c). */
int ov_compound(const clash_shape *a, const clash_shape *b, const clash_overlap_options *opt,
                clash_overlap **out);

#endif
