/*
 * run.h — running methods over a case set and summarizing (run.c).
 */
#ifndef BENCH_CORE_RUN_H
#define BENCH_CORE_RUN_H

#include <stdio.h>

#include "bench.h"

/* One method on one case. */
typedef struct run_cell {
	int ran;
	bench_answer ans;
	double ns;     /* median over the rounds, per query */
	double insn;   /* median over the rounds, per query (0: no counter) */
	double allocs; /* per query, first round */
} run_cell;

typedef struct run_set {
	const char *name;
	const bench_case *cases;
	int ncases;
	const bench_method *const *methods;
	int nmethods;
	run_cell *cells; /* ncases * nmethods, case-major */
} run_set;

typedef struct run_params {
	int rounds;      /* timed rounds per case and method */
	double batch_ns; /* aim of one timed batch */
	int max_batch;   /* queries per batch at most */
} run_params;

/* Run every method that applies (class mask, vertex limit) on every case,
 * interleaved: per case, round after round, each method one batch, in an
 * order that rotates with the round.  Prints progress to stderr. */
void run_all(run_set *s, const run_params *p);

/* Summary of one method over a subset of the cases. */
typedef struct run_stats {
	int n;
	int wrong;    /* verdicts off the truth (touching cases excluded), or no answer */
	int errors_n; /* cases with an error measured */
	double err_max, err_median; /* distance (DISTANCE) or depth (DEPTH) error */
	int err_big;   /* cases off by more than 1e-6 (absolute; scenes are 2 to 8 units) */
	double ns;     /* median ns per query */
	double insn;   /* median instructions per query */
	double allocs; /* mean allocations per query */
} run_stats;

/* Stats of method m over the cases with cls in mask and group == group
 * (group < 0: any). */
void run_stats_of(const run_set *s, int m, unsigned class_mask, int group, run_stats *out);

/* The median ns per query of method ref over the cases with cls in mask
 * that method m also ran (a peer may decline cases: FCL's Convex needs a
 * 3-D hull), so that a ratio compares the same cases. */
double run_ns_on_cases_of(const run_set *s, int ref, int m, unsigned class_mask);

/* The reference (ours) method of kind k, or -1. */
int run_reference(const run_set *s, enum bench_kind k);

/* The median of v[0..n-1] (sorts v in place); NaN for n <= 0. */
double run_median(double *v, int n);

const char *run_kind_name(enum bench_kind k);
const char *run_class_name(int cls);

#endif
