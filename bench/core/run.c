/*
 * run.c — the timing loop and the statistics of the core benchmark.
 *
 * Repeatable numbers on a busy machine: per case, every method that applies
 * is prepared, then timed in R rounds; in each round every method runs one
 * batch of k identical queries (k chosen from an untimed first query so a
 * batch lasts about batch_ns), in an order that rotates from round to
 * round, so a burst of load hits all methods alike.  A cell's time is the
 * median of its R batch times over k; a class's time is the median over its
 * cases.  Instructions retired are counted around the same batches (user
 * mode; unaffected by other processes), allocations during the first one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double run_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char *run_kind_name(enum bench_kind k)
{
	switch (k) {
	case BENCH_DISTANCE: return "distance";
	case BENCH_VERDICT: return "verdict";
	case BENCH_DEPTH: return "depth";
	case BENCH_LP: return "lp";
	default: return "?";
	}
}

const char *run_class_name(int cls)
{
	return cls == BENCH_SEPARATED      ? "separated"
	       : cls == BENCH_TOUCHING     ? "touching"
	       : cls == BENCH_INTERSECTING ? "intersecting"
	                                   : "all";
}

static int applies(const bench_method *m, const bench_case *c)
{
	if (!(m->classes & (1u << c->cls)))
		return 0;
	if (m->max_vertices && c->a.m + c->b.m > m->max_vertices)
		return 0;
	return 1;
}

/* Calibration: what an empty batch costs (two clock reads, two counter
 * reads), subtracted from every batch. */
static double empty_ns, empty_insn;

static void calibrate(void)
{
	double t[31], n[31];
	for (int i = 0; i < 31; i++) {
		uint64_t i0 = bench_instructions();
		uint64_t t0 = bench_ns();
		uint64_t t1 = bench_ns();
		uint64_t i1 = bench_instructions();
		t[i] = (double)(t1 - t0);
		n[i] = (double)(i1 - i0);
	}
	empty_ns = run_median(t, 31);
	empty_insn = run_median(n, 31);
}

void run_all(run_set *s, const run_params *p)
{
	calibrate();
	const int nm = s->nmethods;
	s->cells = calloc((size_t)s->ncases * (size_t)nm, sizeof *s->cells);
	void **h = calloc((size_t)nm, sizeof *h);
	int *k = calloc((size_t)nm, sizeof *k);
	double *times = malloc((size_t)nm * (size_t)p->rounds * sizeof *times);
	double *insns = malloc((size_t)nm * (size_t)p->rounds * sizeof *insns);
	int step = s->ncases / 20 ? s->ncases / 20 : 1;
	for (int ci = 0; ci < s->ncases; ci++) {
		const bench_case *c = &s->cases[ci];
		run_cell *row = &s->cells[(size_t)ci * (size_t)nm];
		if (ci % step == 0)
			fprintf(stderr, "\r%s: case %d of %d ", s->name, ci, s->ncases);
		for (int m = 0; m < nm; m++) {
			h[m] = NULL;
			if (!applies(s->methods[m], c))
				continue;
			h[m] = s->methods[m]->prepare(c);
			if (!h[m])
				continue;
			/* Untimed first query: the answer, the allocations, and
			 * the batch size. */
			uint64_t a0 = bench_allocations();
			uint64_t t0 = bench_ns();
			s->methods[m]->query(h[m], &row[m].ans);
			uint64_t t1 = bench_ns();
			row[m].allocs = (double)(bench_allocations() - a0);
			double once = (double)(t1 - t0) + 1.0;
			int kk = (int)(p->batch_ns / once);
			k[m] = kk < 1 ? 1 : kk > p->max_batch ? p->max_batch : kk;
			row[m].ran = 1;
		}
		for (int r = 0; r < p->rounds; r++) {
			for (int j = 0; j < nm; j++) {
				int m = (j + r) % nm;
				if (!h[m])
					continue;
				bench_answer scratch;
				uint64_t i0 = bench_instructions();
				uint64_t t0 = bench_ns();
				for (int q = 0; q < k[m]; q++)
					s->methods[m]->query(h[m], &scratch);
				uint64_t t1 = bench_ns();
				uint64_t i1 = bench_instructions();
				times[m * p->rounds + r] = ((double)(t1 - t0) - empty_ns) / k[m];
				insns[m * p->rounds + r] = ((double)(i1 - i0) - empty_insn) / k[m];
			}
		}
		for (int m = 0; m < nm; m++) {
			if (!h[m])
				continue;
			row[m].ns = run_median(&times[m * p->rounds], p->rounds);
			row[m].insn = bench_instructions_ok()
			                      ? run_median(&insns[m * p->rounds], p->rounds)
			                      : 0.0;
			s->methods[m]->release(h[m]);
		}
	}
	fprintf(stderr, "\r%s: %d cases done.          \n", s->name, s->ncases);
	free(h);
	free(k);
	free(times);
	free(insns);
}

double run_ns_on_cases_of(const run_set *s, int ref, int m, unsigned class_mask)
{
	double *ns = malloc((size_t)s->ncases * sizeof *ns);
	int n = 0;
	for (int ci = 0; ci < s->ncases; ci++) {
		const run_cell *row = &s->cells[(size_t)ci * (size_t)s->nmethods];
		if ((class_mask & (1u << s->cases[ci].cls)) && row[ref].ran && row[m].ran)
			ns[n++] = row[ref].ns;
	}
	double med = run_median(ns, n);
	free(ns);
	return med;
}

void run_stats_of(const run_set *s, int m, unsigned class_mask, int group, run_stats *out)
{
	memset(out, 0, sizeof *out);
	const bench_method *me = s->methods[m];
	int nc = s->ncases;
	double *ns = malloc((size_t)nc * sizeof *ns), *in = malloc((size_t)nc * sizeof *in);
	double *err = malloc((size_t)nc * sizeof *err);
	double allocs = 0;
	for (int ci = 0; ci < nc; ci++) {
		const bench_case *c = &s->cases[ci];
		const run_cell *cell = &s->cells[(size_t)ci * (size_t)s->nmethods + (size_t)m];
		if (!cell->ran || !(class_mask & (1u << c->cls)) ||
		    (group >= 0 && c->group != group))
			continue;
		ns[out->n] = cell->ns;
		in[out->n] = cell->insn;
		allocs += cell->allocs;
		out->n++;
		const bench_answer *a = &cell->ans;
		if (c->cls != BENCH_TOUCHING && a->intersecting != c->intersecting)
			out->wrong++;
		else if (a->intersecting < 0)
			out->wrong++;
		double e = NAN;
		if (me->kind == BENCH_DISTANCE && !isnan(a->distance))
			e = fabs(a->distance - c->distance);
		else if (me->kind == BENCH_DEPTH && c->intersecting && !isnan(c->depth) &&
		         !isnan(a->depth) && a->intersecting == 1)
			e = fabs(a->depth - c->depth);
		else if (me->kind == BENCH_DEPTH && c->intersecting && !isnan(c->depth) &&
		         a->intersecting == 0 && c->cls == BENCH_INTERSECTING)
			e = c->depth; /* said apart: off by the whole depth */
		if (!isnan(e) || (me->kind == BENCH_DEPTH && c->intersecting && isnan(a->depth) &&
		                  a->intersecting == 1 && !isnan(c->depth)))
			err[out->errors_n++] =
				isnan(e) ? INFINITY : e; /* NaN depth: as bad as it gets */
	}
	out->ns = run_median(ns, out->n);
	out->insn = run_median(in, out->n);
	out->allocs = out->n ? allocs / out->n : 0;
	if (out->errors_n) {
		double mx = 0;
		for (int i = 0; i < out->errors_n; i++) {
			mx = fmax(mx, err[i]);
			out->err_big += !(err[i] <= 1e-6);
		}
		out->err_max = mx;
		out->err_median = run_median(err, out->errors_n);
	} else {
		out->err_max = out->err_median = NAN;
	}
	free(ns);
	free(in);
	free(err);
}

int run_reference(const run_set *s, enum bench_kind k)
{
	for (int m = 0; m < s->nmethods; m++)
		if (s->methods[m]->kind == k && s->methods[m]->reference)
			return m;
	return -1;
}
