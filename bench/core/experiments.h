/*
 * experiments.h — the experiments beyond the case tables (experiments.c).
 */
#ifndef BENCH_CORE_EXPERIMENTS_H
#define BENCH_CORE_EXPERIMENTS_H

#include <stdio.h>

#endif
