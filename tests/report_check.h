/*
 * report_check.h — what every clash-report suite asks of an answer of
 * clash_overlap_get (tests/check_overlap.c, tests/check_sphere_clash.c).
 */
#ifndef CLASH_TESTS_REPORT_CHECK_H
#define CLASH_TESTS_REPORT_CHECK_H

#include <math.h>

#include "check.h"
#include "clash.h"

/* The report of a and b (opt may be NULL), which must be answered. */
static inline clash_overlap *report_of(const clash_shape *a, const clash_shape *b,
                                       const clash_overlap_options *opt)
{
	clash_overlap *o = NULL;
	const int err = clash_overlap_get(a, b, opt, &o);
	ck_assert_msg(err == CLASH_OK, "clash_overlap_get: %s", clash_strerror(err));
	return o;
}

/* o's volume within 1e-9 of the scale, the larger of want and least (so a
 * volume near 0 is held to the bound of the work's offset, not to 0), and
 * its regions adding up to it when all are listed. */
static inline void check_report_volume(const clash_overlap *o, double want, double least)
{
	ck_assert(o->has_volume);
	const double scale = fmax(fabs(want), least);
	ck_assert_msg(fabs(o->volume - want) <= 1e-9 * scale, "volume %.17g, expected %.17g (%.3g)",
	              o->volume, want, (o->volume - want) / scale);
	double sum = 0.0;
	for (size_t r = 0; r < o->nregions; r++)
		sum += o->regions[r].volume;
	if (o->nregions == o->total_regions)
		ck_assert_msg(fabs(sum - o->volume) <= 1e-9 * scale,
		              "regions add to %.17g of %.17g", sum, o->volume);
}

#endif
