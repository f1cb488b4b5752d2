/*
 * experiments.c — time against vertex count, the crossover between scanning
 * and hill climbing, warm starts, allocations (see experiments.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clash.h"
#include "experiments.h"
#include "prepared.h" /* core internals: PREPARED_CLIMB_MIN, prepared_climb */
#include "support.h"
#include "../../tests/gjk88.h"
#include "../../tests/prng.h"

/* ---- time against M --------------------------------------------------------- */

void exp_scale(FILE *md, const run_set *s, const int *ms, int nm, const char *dir)
{
	for (int k = 0; k < BENCH_KINDS; k++) {
		int ref = run_reference(s, (enum bench_kind)k);
		int any = 0;
		for (int m = 0; m < s->nmethods; m++)
			any |= (int)s->methods[m]->kind == k;
		if (!any)
			continue;
		fprintf(md, "\n#### scale: %s — median µs per query (ratio to ours) against M\n\n",
		        run_kind_name((enum bench_kind)k));
		fprintf(md, "| method | classes |");
		for (int i = 0; i < nm; i++)
			fprintf(md, " M = %d |", ms[i]);
		fprintf(md, " wrong verdicts | max error |\n|---|---|");
		for (int i = 0; i < nm; i++)
			fprintf(md, "---:|");
		fprintf(md, "---:|---:|\n");
		char path[512];
		snprintf(path, sizeof path, "%s/core-scale-%s.dat", dir,
		         run_kind_name((enum bench_kind)k));
		FILE *dat = fopen(path, "w");
		if (dat) {
			fprintf(dat, "M");
			for (int m = 0; m < s->nmethods; m++)
				if ((int)s->methods[m]->kind == k)
					fprintf(dat, " \"%s: %s\"", s->methods[m]->peer,
					        s->methods[m]->name);
			fprintf(dat, "\n");
		}
		double table[64][16];
		for (int m = 0; m < s->nmethods; m++) {
			const bench_method *me = s->methods[m];
			if ((int)me->kind != k)
				continue;
			fprintf(md, "| %s: %s | %s |", me->peer, me->name,
			        me->classes == 7   ? "all"
			        : me->classes == 3 ? "separated, touching"
			        : me->classes == 6 ? "touching, intersecting"
			                           : "?");
			int wrong = 0;
			double emax = 0;
			int have_err = 0;
			for (int i = 0; i < nm; i++) {
				run_stats st, rs;
				run_stats_of(s, m, me->classes, ms[i], &st);
				table[m][i] = st.n ? st.ns / 1000.0 : NAN;
				if (!st.n) {
					fprintf(md, " - |");
					continue;
				}
				wrong += st.wrong;
				if (st.errors_n) {
					have_err = 1;
					emax = fmax(emax, st.err_max);
				}
				run_stats_of(s, ref, me->classes, ms[i], &rs);
				fprintf(md, " %.3g (%.2f) |", st.ns / 1000.0,
				        rs.n ? st.ns / rs.ns : NAN);
			}
			if (have_err)
				fprintf(md, " %d | %s%.1e |\n", wrong, isinf(emax) ? "NaN " : "",
				        emax);
			else
				fprintf(md, " %d | - |\n", wrong);
		}
		if (dat) {
			for (int i = 0; i < nm; i++) {
				fprintf(dat, "%d", ms[i]);
				for (int m = 0; m < s->nmethods; m++)
					if ((int)s->methods[m]->kind == k)
						fprintf(dat, " %.6g", table[m][i]);
				fprintf(dat, "\n");
			}
			fclose(dat);
		}
	}
}

/* ---- scan or climb ---------------------------------------------------------- */

void exp_crossover(FILE *md, int quick)
{
	static const size_t sizes[] = {8, 16, 24, 32, 48, 64, 128, 256, 1024, 10000, 100000};
	const int nd = 1000, rounds = quick ? 3 : 7;
	prng r = {UINT64_C(0x63726f73)};
	double *dirs = malloc(3 * (size_t)nd * sizeof *dirs);
	for (int i = 0; i < nd; i++)
		prng_direction(&r, 3, dirs + 3 * i);
	fprintf(md,
	        "\n### Support point: scan or climb\n\n"
	        "One support point of n points on a sphere, along 1000 random directions: "
	        "the vectorized scan of every vertex (one-shot shapes) against hill climbing "
	        "over the prepared hull from the cube-map start (median of %d rounds). "
	        "Prepared shapes climb from PREPARED_CLIMB_MIN = %d vertices on "
	        "(core/prepared.h).\n\n"
	        "| n | scan ns | climb ns | climb / scan |\n|---:|---:|---:|---:|\n",
	        rounds, PREPARED_CLIMB_MIN);
	size_t crossover = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k];
		double *v = malloc(3 * n * sizeof *v);
		for (size_t i = 0; i < n; i++)
			prng_direction(&r, 3, v + 3 * i);
		clash_shape s;
		clash_shape_init(&s, 3, v, n);
		size_t size = clash_prepared_size(3, n);
		void *st = malloc(size);
		clash_shape_prepare(&s, st, size);
		const prepared *p = s.prepared;
		double ts[16], tc[16];
		volatile size_t sink = 0;
		int reps = n >= 10000 ? 1 : (int)(20000 / n) + 1;
		for (int rd = 0; rd < rounds; rd++) {
			uint64_t t0 = bench_ns();
			for (int q = 0; q < reps; q++)
				for (int i = 0; i < nd; i++)
					sink += support_max_dot(v, n, 3, dirs + 3 * i);
			uint64_t t1 = bench_ns();
			for (int q = 0; q < reps; q++)
				for (int i = 0; i < nd; i++)
					sink += prepared_climb(p, dirs + 3 * i, 0, NULL);
			uint64_t t2 = bench_ns();
			ts[rd] = (double)(t1 - t0) / (reps * nd);
			tc[rd] = (double)(t2 - t1) / (reps * nd);
		}
		(void)sink;
		double a = run_median(ts, rounds), b = run_median(tc, rounds);
		if (!crossover && b < a)
			crossover = n;
		fprintf(md, "| %zu | %.1f | %.1f | %.2f |\n", n, a, b, b / a);
		free(st);
		free(v);
	}
	fprintf(md, "\nThe climb is cheaper from about %zu vertices on.\n", crossover);
	free(dirs);
}

/* ---- warm start along a path ------------------------------------------------ */

static void slerp(const double *a, const double *b, double t, double *out)
{
	double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], bb[4];
	for (int k = 0; k < 4; k++)
		bb[k] = d < 0 ? -b[k] : b[k];
	d = fabs(d);
	double th = acos(fmin(1.0, d)), s = sin(th);
	double wa = s > 1e-9 ? sin((1 - t) * th) / s : 1 - t, wb = s > 1e-9 ? sin(t * th) / s : t;
	double n = 0;
	for (int k = 0; k < 4; k++) {
		out[k] = wa * a[k] + wb * bb[k];
		n += out[k] * out[k];
	}
	for (int k = 0; k < 4; k++)
		out[k] /= sqrt(n);
}

void exp_warm(FILE *md, int quick)
{
	const gjk88_polytope *family = bench_gjk88_family();
	if (!family)
		return;
	/* The moving object (rings 40) and five fixed obstacles along its
	 * path, some of which it passes through. */
	const gjk88_polytope *mover = &family[7];
	static const int obst[5] = {3, 5, 8, 9, 11};
	static const double opos[5][3] = {{-6, 0.5, 0},
	                                  {-3, -3.2, 0.4},
	                                  {0, 1.0, -0.5},
	                                  {3, -0.8, 3.5},
	                                  {6, 3.0, 0}};
	prng r = {UINT64_C(0x7061746800)};
	clash_shape obs[5];
	void *prep[6];
	for (int i = 0; i < 5; i++) {
		double q[4];
		prng_direction(&r, 4, q);
		clash_shape_init(&obs[i], 3, family[obst[i]].v, (size_t)family[obst[i]].m);
		clash_shape_set_quaternion(&obs[i], q);
		clash_shape_set_translation(&obs[i], opos[i]);
		size_t size = clash_prepared_size(3, obs[i].count);
		prep[i] = malloc(size);
		clash_shape tmp = obs[i];
		clash_shape_prepare(&tmp, prep[i], size);
	}
	clash_shape mv;
	clash_shape_init(&mv, 3, mover->v, (size_t)mover->m);
	size_t msize = clash_prepared_size(3, mv.count);
	prep[5] = malloc(msize);
	clash_shape_prepare(&mv, prep[5], msize);
	double q0[4] = {0, 0, 0, 1}, q1[4];
	prng_direction(&r, 4, q1);
	static const int Ts[3] = {10, 100, 1000};
	const int rounds = quick ? 3 : 9;
	fprintf(md,
	        "\n### Warm start along a path (GJK88 section VIII, Table I)\n\n"
	        "A polytope of 40 vertices moves along a path through five fixed polytopes "
	        "of the GJK88 family (12 to 100 vertices), its position and orientation "
	        "interpolated from s = 0 to 1 (it passes through two of them); at each of the "
	        "T + 1 samples s = t / T the distances to all five are queried (clash_gjk, want "
	        "distance: GJK88 computed distances), cold (from the centroids' direction) "
	        "or warm (the previous sample's `warm` for the same obstacle). Total time per "
	        "path, median of %d rounds, cold and warm interleaved; once with one-shot "
	        "shapes (each query reads every vertex once to set up, which warm starts "
	        "cannot save) and once with prepared shapes (clash_shape_prepare: no set-up "
	        "pass).\n\n"
	        "| shapes | T | queries | cold µs | warm µs | cold / warm | mean iterations cold | "
	        "warm | GJK88 Table I |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
	        rounds);
	static const char *paper[3] = {"1.7", "2.9", "3.1"};
	for (int pi = 0; pi < 6; pi++) {
		int T = Ts[pi % 3], prepared_shapes = pi >= 3, ti = pi % 3;
		double tcold[16], twarm[16];
		long icold = 0, iwarm = 0;
		for (int rd = 0; rd < rounds; rd++) {
			for (int mode = 0; mode < 2; mode++) {
				size_t wa[5][CLASH_MAX_DIM + 1], wb[5][CLASH_MAX_DIM + 1],
					wn[5] = {0};
				long iters = 0;
				uint64_t t0 = bench_ns();
				for (int t = 0; t <= T; t++) {
					double s = (double)t / T, q[4],
					       p[3] = {-9 + 18 * s, 0.6 * sin(3.14159 * s), 0};
					slerp(q0, q1, s, q);
					clash_shape a;
					clash_shape_init(&a, 3, mover->v, (size_t)mover->m);
					clash_shape_set_quaternion(&a, q);
					clash_shape_set_translation(&a, p);
					if (prepared_shapes)
						clash_shape_set_prepared(&a, prep[5]);
					for (int i = 0; i < 5; i++) {
						clash_shape o = obs[i];
						if (prepared_shapes)
							clash_shape_set_prepared(&o, prep[i]);
						clash_options opt;
						memset(&opt, 0, sizeof opt);
						opt.want = CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE;
						if (mode == 1 && wn[i]) {
							opt.warm_count = wn[i];
							opt.warm_a = wa[i];
							opt.warm_b = wb[i];
						}
						clash_result res;
						clash_gjk(&a, &o, &opt, &res);
						iters += res.iterations;
						wn[i] = res.warm_count;
						memcpy(wa[i], res.warm_a, sizeof wa[i]);
						memcpy(wb[i], res.warm_b, sizeof wb[i]);
					}
				}
				uint64_t t1 = bench_ns();
				if (mode == 0) {
					tcold[rd] = (double)(t1 - t0) / 1000.0;
					icold = iters;
				} else {
					twarm[rd] = (double)(t1 - t0) / 1000.0;
					iwarm = iters;
				}
			}
		}
		double c = run_median(tcold, rounds), w = run_median(twarm, rounds);
		int nq = 5 * (T + 1);
		fprintf(md, "| %s | %d | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %s |\n",
		        prepared_shapes ? "prepared" : "one-shot", T, nq, c, w, c / w,
		        (double)icold / nq, (double)iwarm / nq, paper[ti]);
	}
	for (int i = 0; i < 6; i++)
		free(prep[i]);
}

/* ---- allocations ------------------------------------------------------------ */

void exp_allocations(FILE *md, const run_set *const *sets, int nsets)
{
	fprintf(md, "\n### Allocations per query\n\n"
	            "Calls to malloc, calloc, realloc and memalign during one query (the bench "
	            "binary interposes them; see counters.c), mean over the cases run.\n\n"
	            "| method | mean | max |\n|---|---:|---:|\n");
	const run_set *s0 = sets[0];
	for (int m = 0; m < s0->nmethods; m++) {
		double sum = 0, mx = 0;
		long n = 0;
		for (int k = 0; k < nsets; k++) {
			const run_set *s = sets[k];
			for (int c = 0; c < s->ncases; c++) {
				const run_cell *cell =
					&s->cells[(size_t)c * (size_t)s->nmethods + (size_t)m];
				if (!cell->ran)
					continue;
				sum += cell->allocs;
				mx = fmax(mx, cell->allocs);
				n++;
			}
		}
		if (n)
			fprintf(md, "| %s: %s | %.1f | %.0f |\n", s0->methods[m]->peer,
			        s0->methods[m]->name, sum / (double)n, mx);
	}
}
