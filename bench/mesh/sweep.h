/*
 * sweep.h — the mesh benchmark's sweep (sweep.c): gaps, sizes, poses,
 * two cubes and a drag, FCL and clashd side by side.
 */
#ifndef BENCH_MESH_SWEEP_H
#define BENCH_MESH_SWEEP_H

/* Runs the sweep, prints its table and writes it to OUT/sweep.md; with
 * big, the 1 024 000-triangle knots too.  Returns 0 (exits on failure). */
int bm_sweep(const char *out, int rounds, int big);

#endif
