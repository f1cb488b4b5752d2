/*
 * sweep.c — `build/bench-mesh --sweep`: the mesh cases a CAD user meets,
 * FCL and clashd side by side (bench/README.md, "Meshes: the sweep").
 *
 * Knots of three sizes (three.js TorusKnotGeometry(1, 0.3, T, R): 12 800,
 * 102 400 and, with --big, 1 024 000 triangles), two of them apart by
 * 0.02, 0.1, 0.4 and 1.0 of the knot's size (its bounding box's longest
 * side), in the identity pose (b moved along x) and rotated (a and b each
 * turned, then b moved); two 12-triangle unit cubes, faces parallel, at
 * the same fractions of their size, identity and rotated; collide,
 * distance and the clash report (FCL: collide with every contact) on each;
 * and a drag: b over 100 poses along a path near a (102 400 triangles,
 * every step apart), the distance at each step.
 *
 * b's translation for a gap is found with clashd's distance (untimed):
 * from far along x, moved in by the distance still to go, which never
 * overshoots (the distance changes no faster than the translation).
 * Timing as in main.c: per case each method answers once, a batch of about
 * 1 ms is calibrated, then ROUNDS rounds of one batch, the methods in an
 * order rotating per round; the median per query.  The table gives FCL's
 * time over ours (above 1: clashd is faster) and checks the distances of
 * the two within 1e-9 relative.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "peers.h"
#include "sweep.h"

enum {
	NPEER = 2,
	DRAG_STEPS = 100,
	MAX_ROUNDS = 64
};
static const bm_peer *const sweep_peers[NPEER] = {&bm_peer_fcl, &bm_peer_ours};

typedef struct {
	void *prep, *tree;
} built;

typedef struct {
	const bm_peer *peer;
	int q;
	void *a, *b;
	const bm_pose *pa, *pb; /* npose poses each: the drag's path */
	int npose;
	bm_answer ans;
	int ok;
	long batch;
	double rounds[MAX_ROUNDS];
	double us; /* per query */
} smethod;

static int run_all(smethod *m, bm_answer *r)
{
	int err = 0;
	for (int i = 0; i < m->npose; i++) {
		memset(r, 0, sizeof *r);
		err |= m->peer->posed(m->a, m->b, &m->pa[i], &m->pb[i], m->q, r);
	}
	return err;
}

static void time_methods(smethod *ms, int n, int rounds)
{
	for (int i = 0; i < n; i++) {
		bm_answer a;
		ms[i].ok = run_all(&ms[i], &ms[i].ans) == 0;
		double t0 = bm_now_us();
		run_all(&ms[i], &a);
		double one = bm_now_us() - t0;
		ms[i].batch = one > 1000 ? 1 : (long)(1000 / fmax(one, 0.05)) + 1;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < n; k++) {
			smethod *m = &ms[(r + k) % n];
			bm_answer a;
			double t0 = bm_now_us();
			for (long j = 0; j < m->batch; j++)
				run_all(m, &a);
			m->rounds[r] = (bm_now_us() - t0) / (double)(m->batch * m->npose);
		}
	for (int i = 0; i < n; i++)
		ms[i].us = bm_median(ms[i].rounds, rounds);
}

static void die(const char *what)
{
	fprintf(stderr, "bench-mesh --sweep: %s\n", what);
	exit(1);
}

static double mesh_size(const bm_mesh *m)
{
	double lo[3], hi[3], s = 0;
	bm_bounds(m, lo, hi);
	for (int k = 0; k < 3; k++)
		s = fmax(s, hi[k] - lo[k]);
	return s;
}

static void build_all(const bm_mesh *m, built *b)
{
	for (int p = 0; p < NPEER; p++) {
		const bm_peer *peer = sweep_peers[p];
		b[p].prep = peer->prepare ? peer->prepare(m) : NULL;
		if (!(b[p].tree = peer->build(m, b[p].prep)))
			die("build failed");
	}
}

static void destroy_all(built *b)
{
	for (int p = 0; p < NPEER; p++)
		sweep_peers[p]->destroy(b[p].tree, b[p].prep);
}

static double ours_distance(const built *b, const bm_pose *pa, const bm_pose *pb)
{
	bm_answer r;
	memset(&r, 0, sizeof r);
	if (bm_peer_ours.posed(b[1].tree, b[1].tree, pa, pb, BM_DISTANCE, &r) != 0)
		die("distance failed");
	return r.intersecting ? 0 : r.distance;
}

/* b's translation along x (y and z as given) for a gap of `target`. */
static double place(const built *b, const bm_pose *pa, bm_pose *pb, double size, double target)
{
	double d = 0;
	pb->t[0] = 3 * size + target;
	for (int it = 0; it < 200; it++) {
		d = ours_distance(b, pa, pb);
		if (d - target <= 1e-4 * target)
			break;
		pb->t[0] -= d - target;
	}
	return d;
}

static const char *const qnames[] = {"collide", "distance", "report"};

static FILE *md;

static void row(const char *mesh, size_t nt, const char *pose, const char *gap, const smethod *ms,
                int nq)
{
	for (int q = 0; q < nq; q++) {
		const smethod *f = &ms[q], *o = &ms[nq + q];
		const char *check = "ok";
		if (!f->ok || !o->ok)
			check = "WARN: error";
		else if (f->ans.intersecting != o->ans.intersecting)
			check = "WARN: verdicts differ";
		else if (f->q == BM_DISTANCE && !(fabs(f->ans.distance - o->ans.distance) <=
		                                  1e-9 * fmax(f->ans.distance, 1e-3)))
			check = "WARN: distances differ";
		char line[512];
		snprintf(line, sizeof line,
		         "| %s | %zu | %s | %s | %s | %.2f | %.2f | %.2fx | %s |\n", mesh, nt, pose,
		         gap, qnames[f->q], f->us, o->us, f->us / o->us, check);
		fputs(line, stdout);
		fputs(line, md);
	}
	fflush(stdout);
}

static void set_quat(bm_pose *p, double x, double y, double z, double w)
{
	double n = sqrt(x * x + y * y + z * z + w * w);
	p->q[0] = x / n;
	p->q[1] = y / n;
	p->q[2] = z / n;
	p->q[3] = w / n;
}

/* The pair's cases: both poses, each gap fraction, the three queries. */
static void gaps(const char *name, const bm_mesh *m, const built *b, int rounds)
{
	static const double fracs[] = {0.02, 0.1, 0.4, 1.0};
	const double size = mesh_size(m);
	for (int rot = 0; rot < 2; rot++)
		for (size_t g = 0; g < sizeof fracs / sizeof fracs[0]; g++) {
			bm_pose pa = {{0, 0, 0, 1}, {0, 0, 0}}, pb = {{0, 0, 0, 1}, {0, 0.1, 0.05}};
			if (rot) {
				set_quat(&pa, 0.1, 0.2, 0.3, 0.9);
				set_quat(&pb, -0.3, 0.4, 0.1, 0.85);
			}
			double d = place(b, &pa, &pb, size, fracs[g] * size);
			smethod ms[2 * 3];
			for (int p = 0; p < NPEER; p++)
				for (int q = 0; q < 3; q++)
					ms[3 * p + q] = (smethod){.peer = sweep_peers[p],
					                          .q = q,
					                          .a = b[p].tree,
					                          .b = b[p].tree,
					                          .pa = &pa,
					                          .pb = &pb,
					                          .npose = 1};
			time_methods(ms, 6, rounds);
			char gap[64];
			snprintf(gap, sizeof gap, "%.2f (%.4g)", fracs[g], d);
			row(name, m->nt, rot ? "rotated" : "identity", gap, ms, 3);
		}
}

/* b over 100 poses near a: turning about z by up to 0.5 rad and sliding
 * in y, at 0.05 of the size from a at every step. */
static void drag(const bm_mesh *m, const built *b, int rounds)
{
	static bm_pose pa[DRAG_STEPS], pb[DRAG_STEPS];
	const double size = mesh_size(m);
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < DRAG_STEPS; i++) {
		double s = (double)i / (DRAG_STEPS - 1), th = 0.5 * s;
		pa[i] = (bm_pose){{0, 0, 0, 1}, {0, 0, 0}};
		pb[i] = (bm_pose){{0, 0, sin(th / 2), cos(th / 2)},
		                  {0, 0.1 + 0.3 * sin(M_PI * s), 0.05}};
		double d = place(b, &pa[i], &pb[i], size, 0.05 * size);
		lo = fmin(lo, d);
		hi = fmax(hi, d);
	}
	smethod ms[NPEER];
	for (int p = 0; p < NPEER; p++)
		ms[p] = (smethod){.peer = sweep_peers[p],
		                  .q = BM_DISTANCE,
		                  .a = b[p].tree,
		                  .b = b[p].tree,
		                  .pa = pa,
		                  .pb = pb,
		                  .npose = DRAG_STEPS};
	time_methods(ms, NPEER, rounds);
	char gap[64];
	snprintf(gap, sizeof gap, "%.4g-%.4g", lo, hi);
	row("knot drag, 100 steps (per step)", m->nt, "moving", gap, ms, 1);
}

int bm_sweep(const char *out, int rounds, int big)
{
	static const int sizes[][2] = {{200, 32}, {800, 64}, {3200, 160}};
	char path[4096];
	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;
	snprintf(path, sizeof path, "%s/sweep.md", out);
	if (!(md = fopen(path, "w")))
		die("cannot write sweep.md");
	const char *head =
		"| pair | triangles | pose | gap: of size (distance) | query | FCL us | clashd us | "
		"FCL/clashd | check |\n|---|---|---|---|---|---|---|---|---|\n";
	fputs(head, stdout);
	fputs(head, md);

	bm_mesh box;
	built bb[NPEER];
	if (bm_box(&box, (const double[3]){0, 0, 0}, (const double[3]){0.5, 0.5, 0.5}) != 0)
		die("out of memory");
	build_all(&box, bb);
	gaps("two cubes", &box, bb, rounds);
	destroy_all(bb);
	bm_free(&box);

	for (int s = 0; s < (big ? 3 : 2); s++) {
		bm_mesh knot;
		built kb[NPEER];
		if (bm_torus_knot(&knot, 1, 0.3, sizes[s][0], sizes[s][1], 2, 3, 1) != 0)
			die("out of memory");
		build_all(&knot, kb);
		gaps("two knots", &knot, kb, rounds);
		if (s == 1)
			drag(&knot, kb, rounds);
		destroy_all(kb);
		bm_free(&knot);
	}
	if (fclose(md) != 0)
		die("cannot write sweep.md");
	return 0;
}
