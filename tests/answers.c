/*
 * answers.c — the inputs and the core's own answers for `make
 * answers-compare` (tests/answers_compare.sh), which compares them byte for
 * byte between this tree and another revision.
 *
 *   answers gen DIR   writes deterministic inputs (fixed seeds, tests/prng.h)
 *                     to DIR: JSON Lines queries (the GJK88 set, random
 *                     pairs in 2-D to 8-D, radii, poses, compounds,
 *                     primitives, meshes, every method and want, damaged
 *                     lines), motions, containment queries and scenes;
 *   answers core      prints, one line each in hexadecimal floating point,
 *                     every member of clash_gjk's answers on the GJK88 set
 *                     and on random 3-D pairs, plain and prepared, for
 *                     every want, warm started from the plain answer too:
 *                     what the clash tool cannot reach (prepared shapes,
 *                     the iteration and backup counts).
 *
 * The script compiles this file against each revision's core (clash.h and
 * libclash.a); only the public API is used.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clash.h"
#include "gjk88.h"
#include "prng.h"

/* ---- JSON writing ---- */

static void num(FILE *f, double x)
{
	fprintf(f, "%.17g", x);
}

static void nums(FILE *f, const double *x, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		num(f, x[i]);
	}
	fputc(']', f);
}

static void points(FILE *f, const double *v, int count, int dim)
{
	fputc('[', f);
	for (int i = 0; i < count; i++) {
		if (i)
			fputc(',', f);
		nums(f, v + (size_t)i * dim, dim);
	}
	fputc(']', f);
}

/* ---- random shapes ---- */

#define MAXV 48

/* count points of dim coordinates scaled by s: on a sphere, in a ball, the
 * corners of a box with extra points, or on an elongated ellipsoid. */
static void random_points(prng *r, int dim, int count, double s, double *v)
{
	int style = prng_int(r, 0, 3);
	double axes[CLASH_MAX_DIM];
	for (int k = 0; k < dim; k++)
		axes[k] = style == 3 ? s * prng_log(r, 0.05, 1.0) : s;
	for (int i = 0; i < count; i++) {
		double *p = v + (size_t)i * dim;
		if (style == 2 && i < (1 << dim)) {
			for (int k = 0; k < dim; k++)
				p[k] = (i >> k & 1) ? axes[k] : -axes[k];
			continue;
		}
		prng_direction(r, dim, p);
		double len = style == 1 ? prng_unit(r) : 1.0;
		for (int k = 0; k < dim; k++)
			p[k] *= len * axes[k];
	}
}

/* A pose member ("pose" or "pose_end") placing a shape near centre c;
 * rigid: never a matrix (a motion's poses must differ by a rigid map). */
static void pose(FILE *f, prng *r, const char *name, int dim, const double *c, int rigid)
{
	fprintf(f, ",\"%s\":{", name);
	int kind = prng_int(r, 0, rigid ? 4 : 5);
	if (kind == 5) { /* a homogeneous matrix: rotation-free scale and shear */
		int m = dim + 1;
		double a[(CLASH_MAX_DIM + 1) * (CLASH_MAX_DIM + 1)];
		for (int j = 0; j < m; j++)
			for (int i = 0; i < m; i++) {
				double x = 0.0;
				if (i == dim)
					x = j == dim ? 1.0 : 0.0;
				else if (j == dim)
					x = c[i];
				else if (i == j)
					x = prng_range(r, 0.5, 2.0);
				else if (prng_int(r, 0, 2) == 0)
					x = prng_range(r, -0.3, 0.3);
				a[j * m + i] = x;
			}
		fputs("\"matrix\":", f);
		nums(f, a, m * m);
		fputc('}', f);
		return;
	}
	if (dim == 3 && kind >= 2) {
		double q[4];
		prng_rotation(r, q);
		fputs("\"rotation\":", f);
		nums(f, q, 4);
		fputc(',', f);
	} else if (dim == 2 && kind >= 2) {
		fputs("\"angle\":", f);
		num(f, prng_range(r, -4.0, 4.0));
		fputc(',', f);
	}
	fputs("\"translation\":", f);
	nums(f, c, dim);
	fputc('}', f);
}

static void polytope(FILE *f, prng *r, int dim, double s)
{
	double v[MAXV * CLASH_MAX_DIM];
	int count = prng_int(r, 0, 4) == 0 ? prng_int(r, 1, 3) : prng_int(r, 4, MAXV);
	random_points(r, dim, count, s, v);
	if (prng_int(r, 0, 9) == 0) {
		fprintf(f, "{\"positions\":");
		nums(f, v, count * dim);
		fprintf(f, ",\"dim\":%d", dim);
	} else {
		fputs("{\"vertices\":", f);
		points(f, v, count, dim);
	}
}

static void primitive(FILE *f, prng *r, double s)
{
	double x = s * prng_log(r, 0.1, 1.0), y = s * prng_log(r, 0.1, 1.0),
	       z = s * prng_log(r, 0.1, 1.0);
	switch (prng_int(r, 0, 5)) {
	case 0:
		fputs("{\"sphere\":{\"radius\":", f);
		num(f, x);
		break;
	case 1: fprintf(f, "{\"box\":{\"half_extents\":[%.17g,%.17g,%.17g]", x, y, z); break;
	case 2: fprintf(f, "{\"capsule\":{\"radius\":%.17g,\"half_height\":%.17g", x, y); break;
	case 3: fprintf(f, "{\"cylinder\":{\"radius\":%.17g,\"half_height\":%.17g", x, y); break;
	case 4: fprintf(f, "{\"cone\":{\"radius\":%.17g,\"half_height\":%.17g", x, y); break;
	default: fprintf(f, "{\"ellipsoid\":{\"radii\":[%.17g,%.17g,%.17g]", x, y, z); break;
	}
	fputc('}', f);
}

/* A closed tetrahedron, a closed box (outward triangles), or an open
 * surface (a square of two triangles, or a bent strip). */
static void mesh(FILE *f, prng *r, double s)
{
	static const double tet[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	static const int tet_i[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
	static const double box[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
	                             -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
	static const int box_i[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
	                            1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
	static const double strip[] = {0, 0, 0, 1, 0, 0, 0, 1, 0.3, 1, 1, 0, 0, 2, 0.5, 1, 2, 0.1};
	static const int strip_i[] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4};
	const double *p;
	const int *t;
	int np, nt;
	switch (prng_int(r, 0, 3)) {
	case 0: p = tet, t = tet_i, np = 4, nt = 4; break;
	case 1: p = box, t = box_i, np = 8, nt = 12; break;
	case 2: p = strip, t = strip_i, np = 4, nt = 2; break;
	default: p = strip, t = strip_i, np = 6, nt = 4; break;
	}
	double q[24];
	double k = s * prng_range(r, 0.3, 1.5);
	for (int i = 0; i < np * 3; i++)
		q[i] = p[i] * k;
	fputs("{\"mesh\":{\"positions\":", f);
	nums(f, q, np * 3);
	fputs(",\"indices\":[", f);
	for (int i = 0; i < nt * 3; i++)
		fprintf(f, "%s%d", i ? "," : "", t[i]);
	fputs("]}", f);
}

/* One shape at centre c, of size s: its JSON object without the closing
 * brace, so that the caller may add members (pose_end, then rigid is 1).
 * kinds: 0 polytopes only, 1 anything the dimension has. */
static void shape_open(FILE *f, prng *r, int dim, double s, const double *c, int kinds, int rigid)
{
	int kind = kinds ? prng_int(r, 0, 9) : 0;
	if (kind >= 5 && kind <= 7 && dim == 3)
		primitive(f, r, s);
	else if (kind == 8 && dim == 3)
		mesh(f, r, s);
	else if (kind == 9 || (kind == 8 && dim != 3)) {
		int parts = prng_int(r, 2, 4);
		fputs("{\"parts\":[", f);
		for (int i = 0; i < parts; i++) {
			double pc[CLASH_MAX_DIM];
			for (int k = 0; k < dim; k++)
				pc[k] = prng_range(r, -s, s);
			if (i)
				fputc(',', f);
			if (dim == 3 && prng_int(r, 0, 3) == 0)
				primitive(f, r, 0.5 * s);
			else
				polytope(f, r, dim, 0.5 * s);
			pose(f, r, "pose", dim, pc, 0);
			fputc('}', f);
		}
		fputc(']', f);
	} else
		polytope(f, r, dim, s);
	if (prng_int(r, 0, 3) == 0) {
		fputs(",\"radius\":", f);
		num(f, prng_int(r, 0, 1) ? s * prng_log(r, 1e-3, 0.5) : 0.0);
	}
	pose(f, r, "pose", dim, c, rigid);
}

static int random_dim(prng *r)
{
	int d = prng_int(r, 0, 9);
	return d < 4   ? 3
	       : d < 7 ? 2
	       : d < 8 ? 1 + 3 * prng_int(r, 0, 1)
	               : prng_int(r, 5, CLASH_MAX_DIM);
}

/* Centres of a pair of size s apart by about `near` (in sizes): from deep
 * overlap to well apart, a fifth of them far from the origin. */
static void centres(prng *r, int dim, double s, double *ca, double *cb)
{
	double far = prng_int(r, 0, 4) == 0 ? 1e5 : 0.0, u[CLASH_MAX_DIM];
	double len = s * prng_range(r, 0.0, 3.0);
	prng_direction(r, dim, u);
	for (int k = 0; k < dim; k++) {
		ca[k] = far + prng_range(r, -0.1, 0.1) * s;
		cb[k] = ca[k] + len * u[k];
	}
}

/* The variants every pair is asked in: each method, each want. */
static const char *const variants[] = {
	"",
	",\"want\":[\"intersecting\"]",
	",\"want\":[\"distance\"]",
	",\"want\":[\"depth\"]",
	",\"want\":[\"intersecting\",\"distance\"]",
	",\"want\":[\"distance\",\"depth\",\"intersecting\"]",
	",\"method\":\"simplex\"",
	",\"method\":\"ipm\"",
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* Extra query members now and then: tolerance, iteration cap, warm. */
static void extras(FILE *f, prng *r)
{
	int k = prng_int(r, 0, 11);
	if (k == 0)
		fprintf(f, ",\"tolerance\":%.17g", prng_log(r, 1e-9, 1e-2));
	else if (k == 1)
		fprintf(f, ",\"max_iterations\":%d", prng_int(r, 1, 6));
	else if (k == 2) /* vertex 0 of each: a warm start any polytope takes */
		fputs(",\"warm\":{\"a\":[0],\"b\":[0]}", f);
}

/* Write line (len bytes) to f, damaged when r says so: cut short, or one
 * byte replaced; the answers are then problems. */
static void put_line(FILE *f, prng *r, const char *line, size_t len)
{
	static const char junk[] = "\"]}x,0-e[{:";
	if (prng_int(r, 0, 39) == 0) {
		size_t at = (size_t)prng_int(r, 0, (int)len - 1);
		if (prng_int(r, 0, 1))
			len = at;
		else {
			fwrite(line, 1, at, f);
			fputc(junk[prng_int(r, 0, (int)sizeof junk - 2)], f);
			line += at + 1;
			len -= at + 1;
		}
	}
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

/* A pair as the opening of a query line (without the closing brace). */
static char *pair_text(prng *r, int dim, int kinds, int moving, size_t *len)
{
	char *buf;
	FILE *m = open_memstream(&buf, len);
	double s = prng_log(r, 1e-3, 1e3), ca[CLASH_MAX_DIM], cb[CLASH_MAX_DIM];
	centres(r, dim, s, ca, cb);
	fputs("{\"a\":", m);
	int a_moves = moving && prng_int(r, 0, 1);
	shape_open(m, r, dim, s, ca, kinds, a_moves);
	if (a_moves) {
		double e[CLASH_MAX_DIM];
		for (int k = 0; k < dim; k++)
			e[k] = cb[k] + s * prng_range(r, -2.0, 2.0);
		pose(m, r, "pose_end", dim, e, 1);
	}
	fputs("},\"b\":", m);
	shape_open(m, r, dim, s * prng_log(r, 0.2, 5.0), cb, kinds, moving);
	if (moving) {
		double e[CLASH_MAX_DIM];
		for (int k = 0; k < dim; k++)
			e[k] = ca[k] + s * prng_range(r, -2.0, 2.0);
		pose(m, r, "pose_end", dim, e, 1);
	}
	fputc('}', m);
	fclose(m);
	return buf;
}

static void query_lines(FILE *f, prng *r, const char *pair, size_t plen)
{
	for (size_t v = 0; v < NVARIANTS; v++) {
		char *line;
		size_t len;
		FILE *m = open_memstream(&line, &len);
		fwrite(pair, 1, plen, m);
		fputs(variants[v], m);
		extras(m, r);
		fputc('}', m);
		fclose(m);
		put_line(f, r, line, len);
		free(line);
	}
}

/* The GJK88 set (section VII): every case by quaternion and translation,
 * in every variant. */
static void gen_gjk88(const char *dir)
{
	static gjk88_set set;
	if (gjk88_build(&set) != 0) {
		fprintf(stderr, "answers: the GJK88 set could not be built\n");
		exit(2);
	}
	FILE *f = open_out(dir, "q_gjk88.jsonl");
	prng r = {88};
	for (int i = 0; i < GJK88_CASES; i++) {
		const gjk88_case *c = &set.cases[i];
		char *pair;
		size_t plen;
		FILE *m = open_memstream(&pair, &plen);
		fputs("{\"a\":{\"vertices\":", m);
		points(m, c->a->v, c->a->m, 3);
		fputs(",\"pose\":{\"rotation\":", m);
		nums(m, c->qa, 4);
		fputs(",\"translation\":", m);
		nums(m, c->ta, 3);
		fputs("}},\"b\":{\"vertices\":", m);
		points(m, c->b->v, c->b->m, 3);
		fputs(",\"pose\":{\"rotation\":", m);
		nums(m, c->qb, 4);
		fputs(",\"translation\":", m);
		nums(m, c->tb, 3);
		fputs("}}", m);
		fclose(m);
		query_lines(f, &r, pair, plen);
		free(pair);
	}
	fclose(f);
}

static void gen_random(const char *dir)
{
	FILE *f = open_out(dir, "q_random.jsonl");
	prng r = {17};
	for (int i = 0; i < 3000; i++) {
		int dim = random_dim(&r);
		size_t len;
		char *pair = pair_text(&r, dim, 1, 0, &len);
		query_lines(f, &r, pair, len);
		free(pair);
	}
	fclose(f);
	f = open_out(dir, "q_motion.jsonl");
	for (int i = 0; i < 600; i++) {
		int dim = prng_int(&r, 0, 2) ? 3 : 2;
		size_t len;
		char *pair = pair_text(&r, dim, 1, 1, &len);
		/* Motion is gjk's: the plain query and a few wants. */
		for (int v = 0; v < 3; v++) {
			char *line;
			size_t llen;
			FILE *m = open_memstream(&line, &llen);
			fwrite(pair, 1, len, m);
			fputs(variants[v * 2], m);
			extras(m, &r);
			fputc('}', m);
			fclose(m);
			put_line(f, &r, line, llen);
			free(line);
		}
		free(pair);
	}
	fclose(f);
}

static void gen_contains(const char *dir)
{
	FILE *f = open_out(dir, "c_random.jsonl");
	prng r = {4};
	for (int i = 0; i < 3000; i++) {
		int dim = random_dim(&r);
		double s = prng_log(&r, 1e-3, 1e3), ci[CLASH_MAX_DIM], co[CLASH_MAX_DIM];
		for (int k = 0; k < dim; k++) {
			co[k] = prng_range(&r, -s, s);
			ci[k] = co[k] + prng_range(&r, -0.7, 0.7) * s;
		}
		char *line;
		size_t len;
		FILE *m = open_memstream(&line, &len);
		fputs("{\"inner\":", m);
		shape_open(m, &r, dim, s * prng_log(&r, 0.05, 1.0), ci, prng_int(&r, 0, 1), 0);
		fputs("},\"outer\":", m);
		if (dim == 3 && prng_int(&r, 0, 4) == 0) {
			primitive(m, &r, 2.0 * s);
			pose(m, &r, "pose", dim, co, 0);
		} else
			shape_open(m, &r, dim, s, co, 0, 0);
		fputc('}', m);
		if (prng_int(&r, 0, 4) == 0)
			fprintf(m, ",\"tolerance\":%.17g", s * prng_log(&r, 1e-9, 1e-2));
		fputc('}', m);
		fclose(m);
		put_line(f, &r, line, len);
		free(line);
	}
	fclose(f);
}

static void gen_scenes(const char *dir)
{
	prng r = {1988};
	for (int i = 0; i < 24; i++) {
		char name[32];
		snprintf(name, sizeof name, "s_%02d.json", i);
		FILE *f = open_out(dir, name);
		int dim = i % 4 == 3 ? 2 : 3, count = prng_int(&r, 2, 60);
		double box = prng_range(&r, 2.0, 12.0);
		fputs("{\"objects\":[", f);
		for (int o = 0; o < count; o++) {
			double c[CLASH_MAX_DIM];
			for (int k = 0; k < dim; k++)
				c[k] = prng_range(&r, 0.0, box);
			fprintf(f, "%s\n{\"id\":\"o%d\",", o ? "," : "", o);
			if (prng_int(&r, 0, 2) == 0)
				fprintf(f, "\"group\":\"g%d\",", prng_int(&r, 0, 2));
			fputs("\"shape\":", f);
			int moves = prng_int(&r, 0, 5) == 0;
			shape_open(f, &r, dim, prng_range(&r, 0.2, 1.5), c, 1, moves);
			if (moves) {
				for (int k = 0; k < dim; k++)
					c[k] += prng_range(&r, -2.0, 2.0);
				pose(f, &r, "pose_end", dim, c, 1);
			}
			fputs("}}", f);
		}
		fputs("\n]", f);
		if (prng_int(&r, 0, 1))
			fprintf(f, ",\"clearance\":%.17g", prng_range(&r, 0.0, 1.0));
		if (prng_int(&r, 0, 3) == 0)
			fprintf(f, ",\"tolerance\":%.17g", prng_log(&r, 1e-12, 1e-3));
		if (prng_int(&r, 0, 3) == 0)
			fprintf(f, ",\"touch_depth\":%.17g", prng_range(&r, 0.0, 0.3));
		if (prng_int(&r, 0, 3) == 0)
			fprintf(f, ",\"max_clashes\":%d", prng_int(&r, 0, 10));
		if (count >= 12 && prng_int(&r, 0, 3) == 0)
			fputs(",\"pairs\":[[{\"group\":\"g0\"},{\"group\":\"g1\"}],[\"o0\",\"o1\"]]",
			      f);
		if (count >= 12 && prng_int(&r, 0, 3) == 0)
			fputs(",\"ignore\":[[{\"group\":\"g2\"},{\"group\":\"g2\"}],[\"o1\",\"o0\"]]",
			      f);
		fputs("}\n", f);
		fclose(f);
	}
}

/* ---- the core's answers ---- */

static void put_doubles(const char *name, const double *x, int n)
{
	printf(" %s", name);
	for (int i = 0; i < n; i++)
		printf("%c%a", i ? ',' : '=', x[i]);
}

static void put_result(const char *what, int rc, const clash_result *r)
{
	int n = r->dim;
	printf("%s rc=%d dim=%d has=%#x int=%d it=%d conv=%d bk=%d", what, rc, n, r->has,
	       r->intersecting, r->iterations, r->converged, r->backups);
	put_doubles("d", &r->distance, 1);
	put_doubles("na", r->near_a, n);
	put_doubles("nb", r->near_b, n);
	put_doubles("n", r->normal, n);
	put_doubles("c", &r->offset, 1);
	put_doubles("dlb", &r->depth_lower_bound, 1);
	put_doubles("p", &r->depth, 1);
	put_doubles("pn", r->depth_normal, n);
	put_doubles("pa", r->depth_a, n);
	put_doubles("pb", r->depth_b, n);
	put_doubles("dislb", &r->distance_lower_bound, 1);
	printf(" warm=");
	for (size_t i = 0; i < r->warm_count && i <= CLASH_MAX_DIM; i++)
		printf("%s%zu:%zu", i ? "," : "", r->warm_a[i], r->warm_b[i]);
	printf("\n");
}

static const unsigned wants[] = {
	0,
	CLASH_WANT_VERDICT,
	CLASH_WANT_DISTANCE,
	CLASH_WANT_DEPTH,
	CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE,
	CLASH_WANT_VERDICT | CLASH_WANT_DISTANCE | CLASH_WANT_DEPTH,
};

/* Every want on a and b, then warm started from the full answer. */
static void ask(const char *tag, const clash_shape *a, const clash_shape *b)
{
	char what[64];
	clash_result full;
	for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w++) {
		clash_options o;
		memset(&o, 0, sizeof o);
		o.want = wants[w];
		clash_result r;
		int rc = clash_gjk(a, b, &o, &r);
		snprintf(what, sizeof what, "%s want=%u", tag, wants[w]);
		put_result(what, rc, &r);
		if (w == 0)
			full = r;
	}
	for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w += 3) {
		clash_options o;
		memset(&o, 0, sizeof o);
		o.want = wants[w];
		o.warm_count = full.warm_count;
		o.warm_a = full.warm_a;
		o.warm_b = full.warm_b;
		clash_result r;
		int rc = clash_gjk(a, b, &o, &r);
		snprintf(what, sizeof what, "%s warm want=%u", tag, wants[w]);
		put_result(what, rc, &r);
	}
}

/* The pair plain, then prepared (3-D), asked in every way. */
static void ask_both(const char *tag, const clash_shape *a, const clash_shape *b)
{
	char what[48];
	snprintf(what, sizeof what, "%s plain", tag);
	ask(what, a, b);
	if (a->dim != 3)
		return;
	clash_shape pa = *a, pb = *b;
	void *sa = malloc(clash_prepared_size(3, a->count));
	void *sb = malloc(clash_prepared_size(3, b->count));
	int ea = clash_shape_prepare(&pa, sa, clash_prepared_size(3, a->count));
	int eb = clash_shape_prepare(&pb, sb, clash_prepared_size(3, b->count));
	printf("%s prepare %d %d\n", tag, ea, eb);
	snprintf(what, sizeof what, "%s prepared", tag);
	ask(what, &pa, &pb);
	free(sa);
	free(sb);
}

static void core(void)
{
	static gjk88_set set;
	if (gjk88_build(&set) != 0) {
		fprintf(stderr, "answers: the GJK88 set could not be built\n");
		exit(2);
	}
	char tag[32];
	for (int i = 0; i < GJK88_CASES; i++) {
		const gjk88_case *c = &set.cases[i];
		clash_shape a, b;
		clash_shape_init(&a, 3, c->a->v, (size_t)c->a->m);
		clash_shape_init(&b, 3, c->b->v, (size_t)c->b->m);
		clash_shape_set_quaternion(&a, c->qa);
		clash_shape_set_translation(&a, c->ta);
		clash_shape_set_quaternion(&b, c->qb);
		clash_shape_set_translation(&b, c->tb);
		snprintf(tag, sizeof tag, "gjk88 %d", i);
		ask_both(tag, &a, &b);
	}
	prng r = {2024};
	static double va[4096 * 3], vb[4096 * 3];
	for (int i = 0; i < 2000; i++) {
		int dim = random_dim(&r);
		int na = prng_int(&r, 0, 9) == 0 ? prng_int(&r, 100, 4096) : prng_int(&r, 1, MAXV);
		int nb = prng_int(&r, 0, 9) == 0 ? prng_int(&r, 100, 4096) : prng_int(&r, 1, MAXV);
		double s = prng_log(&r, 1e-3, 1e3), ca[CLASH_MAX_DIM], cb[CLASH_MAX_DIM];
		random_points(&r, dim, na, s, va);
		random_points(&r, dim, nb, s * prng_log(&r, 0.2, 5.0), vb);
		centres(&r, dim, s, ca, cb);
		clash_shape a, b;
		clash_shape_init(&a, dim, va, (size_t)na);
		clash_shape_init(&b, dim, vb, (size_t)nb);
		if (dim == 3) {
			double q[4];
			prng_rotation(&r, q);
			clash_shape_set_quaternion(&a, q);
			prng_rotation(&r, q);
			clash_shape_set_quaternion(&b, q);
		}
		clash_shape_set_translation(&a, ca);
		clash_shape_set_translation(&b, cb);
		if (prng_int(&r, 0, 3) == 0) {
			clash_shape_set_radius(&a, s * prng_log(&r, 1e-3, 0.5));
			clash_shape_set_radius(&b, s * prng_log(&r, 1e-3, 0.5));
		}
		snprintf(tag, sizeof tag, "random %d", i);
		ask_both(tag, &a, &b);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "gen") == 0) {
		gen_gjk88(argv[2]);
		gen_random(argv[2]);
		gen_contains(argv[2]);
		gen_scenes(argv[2]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "core") == 0) {
		core();
		return fflush(stdout) != 0;
	}
	fprintf(stderr, "usage: answers gen DIR | answers core\n");
	return 2;
}
