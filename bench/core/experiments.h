/*
 * experiments.h — the experiments beyond the per-class tables
 * (experiments.c): time against vertex count, the scan/climb crossover,
 * warm starts along paths, allocations.
 */
#ifndef BENCH_CORE_EXPERIMENTS_H
#define BENCH_CORE_EXPERIMENTS_H

#include <stdio.h>

#include "run.h"

/* Tables of median time per query against M (one per question) for the
 * scale set, correctness per method, and the plot's data files in dir. */
void exp_scale(FILE *md, const run_set *s, const int *ms, int nm, const char *dir);

/* Support point by scan and by hill climbing (prepared), per vertex count:
 * where the climb starts to pay. */
void exp_crossover(FILE *md, int quick);

/* GJK88 section VIII: distance queries along a path sampled at T steps,
 * cold and warm started (Table I). */
void exp_warm(FILE *md, int quick);

/* Allocations per query of every method of every set run. */
void exp_allocations(FILE *md, const run_set *const *sets, int nsets);

#endif
