/*
 * main.c — `make bench` for the core: clash against libccd, FCL, Bullet,
 * GLPK and (built with OPENGJK_DIR) openGJK on the same cases in one
 * process run (see ../README.md).
 *
 *   build/bench-core [--quick] [--out DIR] [--cpu N] [--only PEER[,PEER...]]
 *
 * Experiments, in order:
 *   1. the GJK88 section VII set (6000 cases, qhull oracle): every method,
 *      tables per question (distance, verdict, depth, LP) and class;
 *   2. the scale set (M = 10 .. 100 000 vertices, constructed truth): the
 *      same, tables of time against M, and the plot (gnuplot) of time per
 *      query against M, after GJK88 Fig. 4;
 *   3. warm start along paths (GJK88 section VIII, Table I);
 *   4. allocations per query of the core.
 * Results go to stdout and to DIR (default bench/out): core.md, the plot's
 * data (core-scale-*.dat) and, drawn by bench/core/scale.gp, core-scale.png.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "experiments.h"
#include "run.h"

static FILE *md; /* the report, echoed to stdout at the end */

/* Whether peer is one of the comma-separated names in only. */
static int listed(const char *only, const char *peer)
{
	size_t n = strlen(peer);
	for (const char *p = only; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, peer, n))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static void collect(const bench_method *table, const char *only, const bench_method **out, int *n)
{
	for (const bench_method *m = table; m->name; m++)
		if (!only || listed(only, m->peer) || !strcmp(m->peer, "clash"))
			out[(*n)++] = m;
}

static void fmt_err(char *buf, size_t n, double e)
{
	if (isnan(e))
		snprintf(buf, n, "-");
	else if (isinf(e))
		snprintf(buf, n, "NaN/inf");
	else
		snprintf(buf, n, "%.1e", e);
}

/* The per-question tables of a set, over all its cases (GJK88). */
static void tables_by_class(const run_set *s)
{
	for (int k = 0; k < BENCH_KINDS; k++) {
		int ref = run_reference(s, (enum bench_kind)k);
		fprintf(md, "\n#### %s: %s\n\n", s->name, run_kind_name((enum bench_kind)k));
		fprintf(md,
		        "| method | class | cases | wrong verdicts | max error | median error | "
		        "errors > 1e-6 | median ns/query | ratio to ours | instructions/query | "
		        "allocations/query |\n");
		fprintf(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (int m = 0; m < s->nmethods; m++) {
			const bench_method *me = s->methods[m];
			if ((int)me->kind != k)
				continue;
			for (int cls = 0; cls <= BENCH_CLASSES; cls++) {
				unsigned mask = cls == BENCH_CLASSES ? me->classes : 1u << cls;
				if (!(me->classes & mask))
					continue;
				if (cls == BENCH_CLASSES && __builtin_popcount(me->classes) < 2)
					continue;
				run_stats st;
				run_stats_of(s, m, mask, -1, &st);
				if (st.n == 0)
					continue;
				double ratio = NAN;
				if (ref >= 0)
					ratio = st.ns / run_ns_on_cases_of(s, ref, m, mask);
				char emax[32], emed[32];
				fmt_err(emax, sizeof emax, st.err_max);
				fmt_err(emed, sizeof emed, st.err_median);
				char big[16] = "-";
				if (st.errors_n)
					snprintf(big, sizeof big, "%d", st.err_big);
				fprintf(md,
				        "| %s: %s | %s | %d | %d | %s | %s | %s | %.0f | %.2f | %.0f | %.1f |\n",
				        me->peer, me->name, run_class_name(cls), st.n, st.wrong,
				        emax, emed, big, st.ns, ratio, st.insn, st.allocs);
			}
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-core [--quick] [--out DIR] [--cpu N] [--only PEER[,PEER...]] "
	                "[--skip gjk88,warm,scale,crossover]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = "bench/out", *only = NULL, *skip = "";
	int quick = 0, cpu = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
			skip = argv[++i];
		else
			usage();
	}
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0)
			perror("sched_setaffinity");
	}
	mkdir(out, 0777);
	int have_insn = bench_instructions_open() == 0;

	char *mdbuf = NULL;
	size_t mdlen = 0;
	md = open_memstream(&mdbuf, &mdlen);

	const bench_method *methods[64];
	int nm = 0;
	collect(bench_ours, only, methods, &nm);
	collect(bench_ccd, only, methods, &nm);
	collect(bench_fcl, only, methods, &nm);
	collect(bench_bullet, only, methods, &nm);
	collect(bench_glpk, only, methods, &nm);
	collect(bench_opengjk, only, methods, &nm);

	struct utsname u;
	uname(&u);
	time_t now = time(NULL);
	char date[64];
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	char cpuname[128] = "?";
	FILE *ci = fopen("/proc/cpuinfo", "r");
	if (ci) {
		char line[256];
		while (fgets(line, sizeof line, ci))
			if (!strncmp(line, "model name", 10)) {
				char *c = strchr(line, ':');
				if (c) {
					snprintf(cpuname, sizeof cpuname, "%s", c + 2);
					cpuname[strcspn(cpuname, "\n")] = 0;
				}
				break;
			}
		fclose(ci);
	}
	double load[3] = {0, 0, 0};
	getloadavg(load, 3);
	fprintf(md, "## Core benchmark results\n\n");
	fprintf(md, "%s; %s, %ld CPUs, %s %s; load average %.2f at the start; %s%s.\n", date,
	        cpuname, sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, load[0],
	        have_insn ? "instructions counted with perf events" : "no instruction counter",
	        quick ? "; --quick" : "");
	fprintf(md, "\nMethods (peer: call):\n\n");
	for (int m = 0; m < nm; m++)
		fprintf(md, "- %s (%s): %s%s\n", methods[m]->peer, run_kind_name(methods[m]->kind),
		        methods[m]->name,
		        methods[m]->reference ? " — the reference of its question" : "");

	run_params p = {quick ? 3 : 15, 10000.0, 32};

	/* 1. GJK88 */
	bench_case *g = NULL;
	int ng = bench_cases_gjk88(&g);
	if (ng < 0) {
		fprintf(stderr, "bench: cannot build the GJK88 set\n");
		return 1;
	}
	if (strstr(skip, "gjk88"))
		ng = 0;
	if (quick) { /* every fourth motion of each pair and class */
		int j = 0;
		for (int i = 0; i < ng; i++)
			if ((g[i].index / 3) % 4 == 0)
				g[j++] = g[i];
		ng = j;
	}
	run_set gs = {"GJK88", g, ng, methods, nm, NULL};
	run_all(&gs, &p);
	bench_ours_forget();
	if (ng) {
		fprintf(md, "\n### GJK88 section VII set (%d cases; truth: qhull oracle)\n", ng);
		tables_by_class(&gs);
	}

	/* 3. warm starts (needs the GJK88 family, still built) */
	if (!strstr(skip, "warm"))
		exp_warm(md, quick);

	/* 2. the scale set */
	static const int ms[] = {10, 100, 1000, 10000, 100000};
	const int nms = (int)(sizeof ms / sizeof ms[0]);
	bench_case *sc = NULL;
	int nsc = strstr(skip, "scale")
	                  ? 0
	                  : bench_cases_scale(ms, nms, quick ? 6 : 24, UINT64_C(0x7363616c65), &sc);
	if (nsc < 0) {
		fprintf(stderr, "bench: cannot build the scale set\n");
		return 1;
	}
	fprintf(md,
	        "\n### Scale set (%d cases, M = 10 .. 100 000 vertices; truth: construction)\n\n",
	        nsc);
	bench_cases_check(sc, nsc, 200, md);
	fprintf(md, "(bench/core/cases.c describes the construction.)\n");
	run_params ps = {quick ? 3 : 9, 20000.0, 32};
	run_set ss = {"scale", sc, nsc, methods, nm, NULL};
	run_all(&ss, &ps);
	bench_ours_forget();
	if (nsc)
		exp_scale(md, &ss, ms, nms, out);
	if (!strstr(skip, "crossover"))
		exp_crossover(md, quick);
	const run_set *sets[2] = {&gs, &ss};
	exp_allocations(md, sets, 2);

	fclose(md);
	fwrite(mdbuf, 1, mdlen, stdout);
	char path[512];
	snprintf(path, sizeof path, "%s/core.md", out);
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(mdbuf, 1, mdlen, f);
		fclose(f);
	}
	free(mdbuf);
	free(gs.cells);
	free(ss.cells);
	bench_cases_free(g, ng);
	bench_cases_free(sc, nsc);
	return 0;
}
