/*
 * main.c — build/bench-mesh: the native half of the mesh benchmark
 * (bench/mesh, `make bench-mesh`, bench/README.md "Meshes").
 *
 *   build/bench-mesh --out DIR [--rounds N] [--no-brute]
 *       makes the meshes, writes them to DIR (NAME.pos: float64 x, y, z
 *       per vertex; NAME.idx: uint32 triples; cases.json: the cases, read
 *       by the node peer bvh.mjs), times FCL and clashd, computes the
 *       brute-force truth of the small cases and writes DIR/native.json
 *       (read by report.mjs).
 *   build/bench-mesh --sweep [--big] --out DIR [--rounds N]
 *       the sweep (sweep.c): gaps, sizes, poses, two cubes, a drag; its
 *       table on stdout and in DIR/sweep.md.
 *   build/bench-mesh --dump-knot RADIUS TUBE TUBULAR RADIAL P Q [EVERY AT]
 *       prints the C torus knot (float32 positions, then the index) as
 *       JSON, for the comparison with three.js (test/knot.test.js); with
 *       EVERY AT, the leaky knot (bm_drop_triangles).
 *
 * Cases: a = the knot at the origin, b = a copy translated by (dx, 0.1,
 * 0.05), dx = 3.2 (apart), 2.75 (the surfaces cross) and 0.5 (deep); and
 * "inside": b = an icosphere of radius 0.05 centred on the knot's centre
 * curve (u = pi/2, the centre of a ring of the tube, radius 0.3), a closed
 * solid wholly inside the knot's without the surfaces crossing.  Each case
 * on the big knot TorusKnotGeometry(1, 0.3, 800, 64) (timed) and on a small
 * one, (1, 0.3, 64, 8), where the brute force over all triangle pairs is
 * the truth every method is checked against.  The same cases again on each
 * knot made leaky ("apart-leaky" ...): every 100th triangle of three.js's
 * layout removed (t % 100 == 37: 1 %, no two of them sharing an edge), an
 * open mesh that clashd still reads as a solid.
 *
 * Queries: collide (the verdict), distance, report (where they meet:
 * FCL's collide with every contact, clashd's regions and volume) and
 * depth (clashd's penetration depth; FCL has none for meshes).
 *
 * Timing: per case every method is queried once (its answer), once more
 * to calibrate a batch of about 1 ms, then timed in ROUNDS rounds (fewer,
 * at least 3, for a method whose rounds would pass 3 s) of one batch each,
 * the methods in an order rotating per round; the time is the median over
 * rounds of the batch's time per query.  Builds (the big knot, closed and
 * leaky): the median of 5 after one untimed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "peers.h"
#include "clock.h"
#include "sweep.h"

static const bm_peer *const peers[] = {
	&bm_peer_fcl,
	&bm_peer_ours,
};
enum {
	NPEERS = sizeof peers / sizeof peers[0],
	BM_NPEERS_MAX = 4
};

static void die(const char *what)
{
	fprintf(stderr, "bench-mesh: %s\n", what);
	exit(1);
}

static int dump_knot(char **argv, int argc)
{
	bm_mesh m;
	if (bm_torus_knot(&m, atof(argv[0]), atof(argv[1]), atoi(argv[2]), atoi(argv[3]),
	                  atoi(argv[4]), atoi(argv[5]), 1) != 0)
		die("out of memory");
	if (argc >= 8) {
		bm_mesh full = m;
		int every = atoi(argv[6]), at = atoi(argv[7]);
		if (every < 1 || at < 0 || at >= every)
			die("--dump-knot: EVERY >= 1, 0 <= AT < EVERY");
		if (bm_drop_triangles(&full, (size_t)every, (size_t)at, &m) != 0)
			die("out of memory");
		bm_free(&full);
	}
	printf("{\"position\":[");
	for (size_t i = 0; i < 3 * m.nv; i++)
		printf("%s%.17g", i ? "," : "", m.pos[i]);
	printf("],\"index\":[");
	for (size_t i = 0; i < 3 * m.nt; i++)
		printf("%s%u", i ? "," : "", (unsigned)m.idx[i]);
	printf("]}\n");
	bm_free(&m);
	return 0;
}

typedef struct {
	const char *name;
	bm_mesh m;
	const char *from;        /* what three.js would call it */
	int drop_every, drop_at; /* leaky: triangle t of `from` removed when t % every == at */
	char described[BM_NPEERS_MAX][128]; /* each peer's describe() of its tree */
	int closed_raw, closed_welded;
	size_t nv_welded;
	double seam_gap; /* largest distance merged by the weld */
	double volume_welded;
} mesh_info;

enum {
	KNOT,
	SMALL,
	SPHERE,
	LEAKY,
	SMALL_LEAKY,
	NMESH
};
enum {
	DROP_EVERY = 100,
	DROP_AT = 37
};
static mesh_info meshes[NMESH];

typedef struct {
	const char *name;
	int a, b; /* meshes[] */
	double t[3];
	int timed;         /* the big knot: timed; the small: answers and brute force */
	const char *truth; /* by construction */
} bench_case;

/* A peer's build of m: the median of 5 after one untimed; the last tree
 * kept in *tree. */
static double timed_build(const bm_peer *peer, const bm_mesh *m, void *prep, void **tree)
{
	double t5[5];
	peer->destroy(peer->build(m, prep), NULL); /* warm up */
	for (int r = 0; r < 5; r++) {
		double t0 = bm_now_us();
		void *tr = peer->build(m, prep);
		t5[r] = bm_now_us() - t0;
		if (!tr)
			die("build failed");
		if (r < 4)
			peer->destroy(tr, NULL);
		else
			*tree = tr;
	}
	return bm_median(t5, 5);
}

static void write_mesh(const char *dir, const mesh_info *mi)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s.pos", dir, mi->name);
	if (!(f = fopen(path, "wb")) ||
	    fwrite(mi->m.pos, sizeof(double), 3 * mi->m.nv, f) != 3 * mi->m.nv || fclose(f) != 0)
		die("cannot write a mesh");
	snprintf(path, sizeof path, "%s/%s.idx", dir, mi->name);
	if (!(f = fopen(path, "wb")) ||
	    fwrite(mi->m.idx, sizeof(uint32_t), 3 * mi->m.nt, f) != 3 * mi->m.nt || fclose(f) != 0)
		die("cannot write a mesh");
}

/* The weld's largest move: for each vertex, the distance to its
 * representative (the welded position it maps to). */
static double weld_gap(const bm_mesh *raw, const bm_mesh *w)
{
	double gap = 0;
	for (size_t t = 0; t < 3 * raw->nt; t++) {
		const double *p = raw->pos + 3 * (size_t)raw->idx[t],
			     *q = w->pos + 3 * (size_t)w->idx[t];
		gap = fmax(gap,
		           fmax(fabs(p[0] - q[0]), fmax(fabs(p[1] - q[1]), fabs(p[2] - q[2]))));
	}
	return gap;
}

static void inspect(mesh_info *mi)
{
	bm_mesh w;
	double lo[3], hi[3], size = 0;
	bm_bounds(&mi->m, lo, hi);
	for (int k = 0; k < 3; k++)
		size = fmax(size, hi[k] - lo[k]);
	mi->closed_raw = bm_closed(&mi->m);
	if (bm_weld(&mi->m, 1e-9 * size, &w) != 0)
		die("out of memory");
	mi->closed_welded = bm_closed(&w);
	mi->nv_welded = w.nv;
	mi->seam_gap = weld_gap(&mi->m, &w);
	mi->volume_welded = bm_volume(&w);
	bm_free(&w);
}

/* The queries, as native.json names them. */
enum {
	Q_COLLIDE,
	Q_DISTANCE,
	Q_REPORT,
	Q_DEPTH,
	NQUERIES
};
static const char *const query_names[NQUERIES] = {"collide", "distance", "report", "depth"};

typedef struct {
	const bm_peer *peer;
	int query; /* Q_* */
	void *ta, *tb;
	bm_answer ans;
	int ok;
	long batch;
	int nrounds;
	double *rounds;
	double us;
} method;

/* The peer's function for m's query, or NULL when it has none. */
static int (*query_fn(const method *m))(void *, void *, const double *, bm_answer *)
{
	const bm_peer *p = m->peer;
	return m->query == Q_COLLIDE    ? p->collide
	       : m->query == Q_DISTANCE ? p->distance
	       : m->query == Q_REPORT   ? p->report
	                                : p->depth;
}

static int run_one(method *m, const double t[3], bm_answer *r)
{
	memset(r, 0, sizeof *r);
	return query_fn(m)(m->ta, m->tb, t, r);
}

static void time_case(method *ms, int n, const double t[3], int rounds, int timed)
{
	for (int i = 0; i < n; i++) {
		bm_answer a;
		if (!query_fn(&ms[i])) { /* the peer has no such query */
			ms[i].ok = 0;
			ms[i].nrounds = 0;
			ms[i].us = NAN;
			continue;
		}
		ms[i].ok = run_one(&ms[i], t, &ms[i].ans) == 0;
		double t0 = bm_now_us();
		run_one(&ms[i], t, &a);
		double one = bm_now_us() - t0;
		ms[i].batch = one > 1000 ? 1 : (long)(1000 / fmax(one, 0.05)) + 1;
		/* At most about 3 s a method: fewer rounds (at least 3) for slow ones. */
		ms[i].nrounds =
			(int)fmin(rounds, fmax(3, floor(3e6 / (one * (double)ms[i].batch))));
		ms[i].us = NAN;
	}
	if (!timed)
		return;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < n; k++) {
			method *m = &ms[(r + k) % n];
			if (r >= m->nrounds)
				continue;
			bm_answer a;
			double t0 = bm_now_us();
			for (long j = 0; j < m->batch; j++)
				run_one(m, t, &a);
			m->rounds[r] = (bm_now_us() - t0) / (double)m->batch;
		}
	for (int i = 0; i < n; i++)
		if (ms[i].nrounds > 0)
			ms[i].us = bm_median(ms[i].rounds, ms[i].nrounds);
}

static const char *contact_name(int c)
{
	static const char *const names[] = {"none", "surfaces", "a_in_b", "b_in_a", "unknown"};
	return c >= 0 && c <= 4 ? names[c] : "?";
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	int rounds = 21, brute = 1, sweep = 0, big = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dump-knot") && i + 6 < argc)
			return dump_knot(argv + i + 1, argc - i - 1);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-brute"))
			brute = 0;
		else if (!strcmp(argv[i], "--sweep"))
			sweep = 1;
		else if (!strcmp(argv[i], "--big"))
			big = 1;
		else {
			fprintf(stderr,
			        "usage: bench-mesh --out DIR [--rounds N] [--no-brute]\n"
			        "       bench-mesh --sweep [--big] --out DIR [--rounds N]\n"
			        "       bench-mesh --dump-knot RADIUS TUBE TUBULAR RADIAL P Q [EVERY AT]\n");
			return 2;
		}
	}
	if (!out || rounds < 1)
		die("--out DIR is required (rounds >= 1)");
	mkdir(out, 0777);
	if (sweep)
		return bm_sweep(out, rounds, big);

	static const double origin[3] = {0, 0, 0};
	meshes[KNOT] = (mesh_info){.name = "knot", .from = "TorusKnotGeometry(1, 0.3, 800, 64)"};
	meshes[SMALL] =
		(mesh_info){.name = "knot-small", .from = "TorusKnotGeometry(1, 0.3, 64, 8)"};
	meshes[SPHERE] =
		(mesh_info){.name = "icosphere", .from = "icosphere r 0.05, 3 subdivisions"};
	meshes[LEAKY] = (mesh_info){.name = "knot-leaky",
	                            .from = meshes[KNOT].from,
	                            .drop_every = DROP_EVERY,
	                            .drop_at = DROP_AT};
	meshes[SMALL_LEAKY] = (mesh_info){.name = "knot-small-leaky",
	                                  .from = meshes[SMALL].from,
	                                  .drop_every = DROP_EVERY,
	                                  .drop_at = DROP_AT};
	if (bm_torus_knot(&meshes[KNOT].m, 1, 0.3, 800, 64, 2, 3, 1) ||
	    bm_torus_knot(&meshes[SMALL].m, 1, 0.3, 64, 8, 2, 3, 1) ||
	    bm_icosphere(&meshes[SPHERE].m, 0.05, origin, 3) ||
	    bm_drop_triangles(&meshes[KNOT].m, DROP_EVERY, DROP_AT, &meshes[LEAKY].m) ||
	    bm_drop_triangles(&meshes[SMALL].m, DROP_EVERY, DROP_AT, &meshes[SMALL_LEAKY].m))
		die("out of memory");
	for (int i = 0; i < NMESH; i++) {
		inspect(&meshes[i]);
		write_mesh(out, &meshes[i]);
	}

	double inside[3];
	bm_knot_curve(M_PI / 2, 2, 3, 1, inside);
	/* The timed knots first, the closed before the leaky (report.mjs
	 * pairs "NAME" with "NAME-leaky"). */
	static const struct {
		int mesh, timed;
		const char *names[4];
	} knots[] = {
		{KNOT, 1, {"apart", "cross", "deep", "inside"}},
		{LEAKY, 1, {"apart-leaky", "cross-leaky", "deep-leaky", "inside-leaky"}},
		{SMALL, 0, {"apart", "cross", "deep", "inside"}},
		{SMALL_LEAKY, 0, {"apart-leaky", "cross-leaky", "deep-leaky", "inside-leaky"}},
	};
	bench_case cases[16];
	int nc = 0;
	for (size_t s = 0; s < sizeof knots / sizeof knots[0]; s++) {
		int k = knots[s].mesh, timed = knots[s].timed;
		const char *const *nm = knots[s].names;
		cases[nc++] = (bench_case){nm[0], k, k, {3.2, 0.1, 0.05}, timed, "separated"};
		cases[nc++] = (bench_case){nm[1], k, k, {2.75, 0.1, 0.05}, timed, "surfaces cross"};
		cases[nc++] = (bench_case){nm[2], k, k, {0.5, 0.1, 0.05}, timed, "surfaces cross"};
		cases[nc++] =
			(bench_case){nm[3], k,           SPHERE, {inside[0], inside[1], inside[2]},
		                     timed, "b inside a"};
	}

	/* The case list for the node peer. */
	char path[4096];
	snprintf(path, sizeof path, "%s/cases.json", out);
	FILE *cj = fopen(path, "w");
	if (!cj)
		die("cannot write cases.json");
	fprintf(cj, "{\"meshes\":[");
	for (int i = 0; i < NMESH; i++)
		fprintf(cj,
		        "%s{\"name\":\"%s\",\"from\":\"%s\",\"nv\":%zu,\"nt\":%zu,\"drop_every\":%d,\"drop_at\":%d}",
		        i ? "," : "", meshes[i].name, meshes[i].from, meshes[i].m.nv,
		        meshes[i].m.nt, meshes[i].drop_every, meshes[i].drop_at);
	fprintf(cj, "],\"cases\":[");
	for (int c = 0; c < nc; c++)
		fprintf(cj,
		        "%s{\"name\":\"%s\",\"a\":\"%s\",\"b\":\"%s\",\"t\":[%.17g,%.17g,%.17g],\"timed\":%s}",
		        c ? "," : "", cases[c].name, meshes[cases[c].a].name,
		        meshes[cases[c].b].name, cases[c].t[0], cases[c].t[1], cases[c].t[2],
		        cases[c].timed ? "true" : "false");
	fprintf(cj, "]}\n");
	if (fclose(cj) != 0)
		die("cannot write cases.json");

	/* Build every tree; time the big knots' builds (median of 5). */
	void *prep[NPEERS][NMESH], *trees[NPEERS][NMESH];
	double build_us[NPEERS], build_leaky_us[NPEERS];
	for (int p = 0; p < NPEERS; p++) {
		for (int i = 0; i < NMESH; i++) {
			prep[p][i] = peers[p]->prepare ? peers[p]->prepare(&meshes[i].m) : NULL;
			if (peers[p]->prepare && !prep[p][i])
				die("prepare failed");
		}
		build_us[p] =
			timed_build(peers[p], &meshes[KNOT].m, prep[p][KNOT], &trees[p][KNOT]);
		build_leaky_us[p] =
			timed_build(peers[p], &meshes[LEAKY].m, prep[p][LEAKY], &trees[p][LEAKY]);
		for (int i = 0; i < NMESH; i++) {
			if (i != KNOT && i != LEAKY &&
			    !(trees[p][i] = peers[p]->build(&meshes[i].m, prep[p][i])))
				die("build failed");
			if (peers[p]->describe)
				peers[p]->describe(trees[p][i], meshes[i].described[p],
				                   sizeof meshes[i].described[p]);
		}
		fprintf(stderr,
		        "bench-mesh: %s builds the knot's tree in %.0f us, the leaky knot's in %.0f us\n",
		        peers[p]->name, build_us[p], build_leaky_us[p]);
	}

	snprintf(path, sizeof path, "%s/native.json", out);
	FILE *nj = fopen(path, "w");
	if (!nj)
		die("cannot write native.json");
	fprintf(nj, "{\"rounds\":%d,\"meshes\":[", rounds);
	for (int i = 0; i < NMESH; i++) {
		const mesh_info *mi = &meshes[i];
		fprintf(nj,
		        "%s{\"name\":\"%s\",\"from\":\"%s\",\"drop_every\":%d,\"drop_at\":%d,\"nv\":%zu,"
		        "\"nt\":%zu,\"closed\":%d,\"nv_welded\":%zu,\"closed_welded\":%d,\"weld_gap\":%.3g,"
		        "\"volume_welded\":%.17g,\"described\":{",
		        i ? "," : "", mi->name, mi->from, mi->drop_every, mi->drop_at, mi->m.nv,
		        mi->m.nt, mi->closed_raw, mi->nv_welded, mi->closed_welded, mi->seam_gap,
		        mi->volume_welded);
		for (int p = 0, first = 1; p < NPEERS; p++)
			if (peers[p]->describe) {
				fprintf(nj, "%s\"%s\":\"%s\"", first ? "" : ",", peers[p]->name,
				        mi->described[p]);
				first = 0;
			}
		fprintf(nj, "}}");
	}
	fprintf(nj, "],\"build_us\":{");
	for (int p = 0; p < NPEERS; p++)
		fprintf(nj, "%s\"%s\":%.1f", p ? "," : "", peers[p]->name, build_us[p]);
	fprintf(nj, "},\"build_leaky_us\":{");
	for (int p = 0; p < NPEERS; p++)
		fprintf(nj, "%s\"%s\":%.1f", p ? "," : "", peers[p]->name, build_leaky_us[p]);
	fprintf(nj, "},\"cases\":[");

	method ms[NQUERIES * NPEERS];
	for (int i = 0; i < NQUERIES * NPEERS; i++)
		if (!(ms[i].rounds = malloc((size_t)rounds * sizeof(double))))
			die("out of memory");
	for (int c = 0; c < nc; c++) {
		const bench_case *bc = &cases[c];
		for (int p = 0; p < NPEERS; p++)
			for (int q = 0; q < NQUERIES; q++) {
				method *m = &ms[NQUERIES * p + q];
				m->peer = peers[p];
				m->query = q;
				m->ta = trees[p][bc->a];
				m->tb = trees[p][bc->b];
			}
		time_case(ms, NQUERIES * NPEERS, bc->t, rounds, bc->timed);
		double truth = NAN;
		if (brute && !bc->timed) {
			double t0 = bm_now_us();
			truth = bm_brute_distance(&meshes[bc->a].m, &meshes[bc->b].m, bc->t);
			fprintf(stderr, "bench-mesh: brute force %s/%s: %.17g (%.1f s)\n",
			        meshes[bc->a].name, bc->name, truth, (bm_now_us() - t0) * 1e-6);
		}
		fprintf(nj,
		        "%s{\"name\":\"%s\",\"a\":\"%s\",\"b\":\"%s\",\"timed\":%s,\"truth\":\"%s\"",
		        c ? "," : "", bc->name, meshes[bc->a].name, meshes[bc->b].name,
		        bc->timed ? "true" : "false", bc->truth);
		if (!isnan(truth))
			fprintf(nj, ",\"brute_distance\":%.17g", truth);
		fprintf(nj, ",\"methods\":[");
		for (int i = 0, first = 1; i < NQUERIES * NPEERS; i++) {
			const method *m = &ms[i];
			if (!query_fn(m))
				continue;
			fprintf(nj,
			        "%s{\"peer\":\"%s\",\"query\":\"%s\",\"ok\":%s,\"intersecting\":%s,"
			        "\"distance\":%.17g,\"contact\":\"%s\",\"batch\":%ld",
			        first ? "" : ",", m->peer->name, query_names[m->query],
			        m->ok ? "true" : "false", m->ans.intersecting ? "true" : "false",
			        m->query == Q_DISTANCE ? m->ans.distance : 0.0,
			        contact_name(m->ans.contact), m->batch);
			first = 0;
			if (m->query == Q_REPORT)
				fprintf(nj, ",\"contacts\":%ld,\"regions\":%ld", m->ans.contacts,
				        m->ans.regions);
			if (m->query == Q_REPORT && isfinite(m->ans.volume))
				fprintf(nj, ",\"volume\":%.17g", m->ans.volume);
			if (m->query == Q_DEPTH && isfinite(m->ans.depth))
				fprintf(nj, ",\"depth\":%.17g", m->ans.depth);
			if (!isnan(m->us))
				fprintf(nj, ",\"us\":%.3f,\"rounds\":%d", m->us, m->nrounds);
			fprintf(nj, "}");
		}
		fprintf(nj, "]}");
		fprintf(stderr, "bench-mesh: %s/%s done\n", meshes[bc->a].name, bc->name);
	}
	fprintf(nj, "]}\n");
	if (fclose(nj) != 0)
		die("cannot write native.json");
	for (int p = 0; p < NPEERS; p++)
		for (int i = 0; i < NMESH; i++)
			peers[p]->destroy(trees[p][i], prep[p][i]);
	for (int i = 0; i < NMESH; i++)
		bm_free(&meshes[i].m);
	for (int i = 0; i < NQUERIES * NPEERS; i++)
		free(ms[i].rounds);
	return 0;
}
