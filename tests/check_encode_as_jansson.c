/*
 * check_encode_as_jansson.c — suite "encode_as_jansson": the Result and
 * problem encoders (proto/endpoints/result.c, proto/json/problem.c), which write their
 * text directly, against jansson's dump of the same values as trees.
 *
 *   result    random answers (every dimension, every combination of the
 *             `has` bits, both verdicts, warm indices, compound parts,
 *             motions with and without contact and normal, doubles of every
 *             form and magnitude, method names needing escapes): the text
 *             of proto_result_encode(_motion) is byte for byte
 *             json_dumps(JSON_COMPACT | JSON_REAL_PRECISION(17)) of a jansson
 *             tree of the same answer (built here, tree_result), and the
 *             return value and problem are the same — non-finite members
 *             included;
 *   numbers   proto_real_g (the request log's %.6g) against snprintf, every
 *             precision, on the same doubles;
 *   strings   proto_utf8_len against jansson's own UTF-8 check on every
 *             sequence of 1 and 2 bytes and the edges of 3 and 4, and
 *             random texts (escapes, control characters, valid and broken
 *             UTF-8) written by proto_text_string (U+FFFD for broken
 *             bytes, the buffer grown as for those bytes put as they
 *             are) and proto_string_escape ('?', the log's, and cut
 *             short to a random room) against json_dumps of the repaired
 *             text;
 *   problem   random problems (every status, details and pointers with
 *             escapes, control characters, UTF-8 and invalid UTF-8, parse
 *             positions): proto_problem_encode and proto_problem_reply
 *             against json_dumps(JSON_COMPACT) of the previous encoder's
 *             tree (tree_problem).
 *
 * The references use nothing of proto but the status table (slug and
 * title); the numbers are written by jansson itself.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "json_write.h"
#include "prng.h"
#include "problem.h"
#include "proto.h"
#include "result.h"

/* ---- the reference: the tree encoder of the Result ---------------------- */

static void put(json_t *obj, const char *key, json_t *value, int *failed)
{
	if (!value || json_object_set_new(obj, key, value) != 0)
		*failed = 1;
}

static json_t *reals(const double *x, int n)
{
	json_t *a = json_array();
	for (int i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_real(x[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *indices(const size_t *x, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_integer((json_int_t)x[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *pair(json_t *a, json_t *b)
{
	json_t *o = json_object();
	int failed = !o;
	if (o) {
		put(o, "a", a, &failed);
		put(o, "b", b, &failed);
	} else {
		json_decref(a);
		json_decref(b);
	}
	if (failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void put_motion(json_t *o, const clash_toi_result *t, int dim, int *failed)
{
	if (!t->contact) {
		put(o, "toi", json_null(), failed);
		return;
	}
	put(o, "toi", json_real(t->toi), failed);
	json_t *c = json_object();
	int cf = !c;
	if (c) {
		put(c, "point", reals(t->point, dim), &cf);
		if (t->has_normal)
			put(c, "normal", reals(t->normal, dim), &cf);
	}
	if (cf) {
		json_decref(c);
		c = NULL;
	}
	put(o, "contact", c, failed);
}

static json_t *plane_object(const clash_result *r)
{
	json_t *plane = json_object();
	int pf = !plane;
	if (plane) {
		put(plane, "normal", reals(r->normal, r->dim), &pf);
		put(plane, "offset", json_real(r->offset), &pf);
	}
	if (pf) {
		json_decref(plane);
		plane = NULL;
	}
	return plane;
}

/* The members the previous encoder checked before building its tree. */
static const char *tree_non_finite(const clash_result *r)
{
	int dist = (r->has & CLASH_HAS_DISTANCE) != 0;
	int plane = !r->intersecting && (r->has & CLASH_HAS_PLANE);
	int bound = r->intersecting && (r->has & CLASH_HAS_DEPTH_BOUND);
	for (int i = 0; i < r->dim; i++) {
		if (dist && (!isfinite(r->near_a[i]) || !isfinite(r->near_b[i])))
			return "near_points";
		if (plane && !isfinite(r->normal[i]))
			return "separating_plane.normal";
	}
	if (dist && !isfinite(r->distance))
		return "distance";
	if (plane && !isfinite(r->offset))
		return "separating_plane.offset";
	if (bound && !isfinite(r->depth_lower_bound))
		return "penetration.depth_lower_bound";
	if ((r->has & CLASH_HAS_DISTANCE_BOUND) && !isfinite(r->distance_lower_bound))
		return "distance_lower_bound";
	if (r->intersecting && (r->has & CLASH_HAS_DEPTH)) {
		if (!isfinite(r->depth))
			return "penetration.depth";
		for (int i = 0; i < r->dim; i++) {
			if (!isfinite(r->depth_normal[i]))
				return "penetration.normal";
			if (!isfinite(r->depth_a[i]) || !isfinite(r->depth_b[i]))
				return "penetration.points";
		}
	}
	return NULL;
}

/* The tree of the Result, NULL where the previous encoder failed (a value
 * jansson cannot hold: a non-finite time of impact or contact). */
static json_t *tree_result(const clash_result *r, const char *method, const clash_toi_result *toi)
{
	int plane = !r->intersecting && (r->has & CLASH_HAS_PLANE);
	int bound = r->intersecting && (r->has & CLASH_HAS_DEPTH_BOUND);
	json_t *o = json_object();
	ck_assert_ptr_nonnull(o);
	int failed = 0;
	put(o, "intersecting", json_boolean(r->intersecting), &failed);
	if (r->has & CLASH_HAS_DISTANCE) {
		put(o, "distance", json_real(r->distance), &failed);
		put(o, "near_points", pair(reals(r->near_a, r->dim), reals(r->near_b, r->dim)),
		    &failed);
	}
	if (r->has & CLASH_HAS_PARTS)
		put(o, "near_parts",
		    pair(json_integer((json_int_t)r->part_a), json_integer((json_int_t)r->part_b)),
		    &failed);
	if (plane) {
		put(o, "separating_plane", plane_object(r), &failed);
	} else if (bound) {
		json_t *pen = json_object();
		int pf = !pen;
		if (pen)
			put(pen, "depth_lower_bound", json_real(r->depth_lower_bound), &pf);
		if (pen && (r->has & CLASH_HAS_DEPTH)) {
			put(pen, "depth", json_real(r->depth), &pf);
			put(pen, "normal", reals(r->depth_normal, r->dim), &pf);
			put(pen, "points",
			    pair(reals(r->depth_a, r->dim), reals(r->depth_b, r->dim)), &pf);
		}
		if (pf) {
			json_decref(pen);
			pen = NULL;
		}
		put(o, "penetration", pen, &failed);
	}
	if (r->has & CLASH_HAS_DISTANCE_BOUND)
		put(o, "distance_lower_bound", json_real(r->distance_lower_bound), &failed);
	put(o, "method", json_string(method), &failed);
	put(o, "iterations", json_integer(r->iterations), &failed);
	put(o, "converged", json_boolean(r->converged && (!toi || toi->converged)), &failed);
	if (r->has & CLASH_HAS_WARM) {
		put(o, "warm",
		    pair(indices(r->warm_a, r->warm_count), indices(r->warm_b, r->warm_count)),
		    &failed);
	} else if (plane && !(r->has & CLASH_HAS_PARTS)) {
		json_t *warm = json_object();
		if (warm)
			put(warm, "plane", plane_object(r), &failed);
		put(o, "warm", warm, &failed);
	}
	if (toi)
		put_motion(o, toi, r->dim, &failed);
	if (failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- random answers ------------------------------------------------------ */

/* A double of any form jansson writes: small and large exponents (both
 * notations), integers, exact ties, zeros of both signs, subnormals, the
 * extremes; now and then (when `odd`) a NaN or an infinity. */
static double random_real(prng *g, int odd)
{
	uint64_t bits = prng_next(g);
	double x;
	switch (bits % 11) {
	case 0:
		do {
			uint64_t b = prng_next(g);
			memcpy(&x, &b, sizeof x);
		} while (!isfinite(x));
		return x;
	case 1: return prng_unit(g);
	case 2: return (prng_unit(g) - 0.5) * pow(10, (int)((bits >> 8) % 50) - 25);
	case 3: return (double)(int64_t)((bits >> 8) % 2000001) - 1000000;
	case 4: return (double)(int64_t)((bits >> 8) % 200001) / 1000.0;
	case 5: {
		double p = pow(10, (int)((bits >> 8) % 80) - 40);
		return (bits & 256) ? nextafter(p, 0) : (bits & 512) ? nextafter(p, 1e300) : -p;
	}
	case 6: return (bits & 256) ? 0.0 : -0.0;
	case 7: return (bits & 256) ? 5e-324 : -2.2250738585072014e-308;
	case 8: return (bits & 256) ? 1.7976931348623157e308 : -1e-300;
	case 9:
		if (odd) {
			static const double inf = HUGE_VAL;
			return (bits & 256) ? inf : (bits & 512) ? -inf : nan("");
		}
		return 1.0;
	default: return prng_range(g, -10, 10);
	}
}

static void random_reals(prng *g, double *x, int odd)
{
	for (int i = 0; i < CLASH_MAX_DIM; i++)
		x[i] = random_real(g, odd);
}

static size_t random_index(prng *g)
{
	switch (prng_next(g) % 4) {
	case 0: return 0;
	case 1: return (size_t)(prng_next(g) % 100);
	case 2: return (size_t)prng_next(g); /* past INT64_MAX too: written negative by both */
	default: return (size_t)(prng_next(g) % 1000000007);
	}
}

/* `odd`: non-finite values may appear anywhere, written or not. */
static void random_result(prng *g, clash_result *r, int odd)
{
	memset(r, 0, sizeof *r);
	r->dim = prng_int(g, 1, CLASH_MAX_DIM);
	r->has = (unsigned)(prng_next(g) % 128);
	r->intersecting = prng_next(g) % 3 == 0 ? 0 : (int)(prng_next(g) % 3);
	r->distance = random_real(g, odd);
	random_reals(g, r->near_a, odd);
	random_reals(g, r->near_b, odd);
	random_reals(g, r->normal, odd);
	r->offset = random_real(g, odd);
	r->depth_lower_bound = random_real(g, odd);
	switch (prng_next(g) % 4) {
	case 0: r->iterations = 0; break;
	case 1: r->iterations = prng_int(g, 1, 30); break;
	case 2: r->iterations = (int)(int32_t)prng_next(g); break;
	default: r->iterations = (prng_next(g) & 1) ? INT32_MAX : INT32_MIN; break;
	}
	r->converged = (int)(prng_next(g) % 3);
	r->warm_count = (size_t)prng_int(g, 0, r->dim + 1);
	for (int i = 0; i <= CLASH_MAX_DIM; i++) {
		r->warm_a[i] = random_index(g);
		r->warm_b[i] = random_index(g);
	}
	r->depth = random_real(g, odd);
	random_reals(g, r->depth_normal, odd);
	random_reals(g, r->depth_a, odd);
	random_reals(g, r->depth_b, odd);
	r->distance_lower_bound = random_real(g, odd);
	r->part_a = random_index(g);
	r->part_b = random_index(g);
}

static void random_toi(prng *g, clash_toi_result *t, int dim, int odd)
{
	memset(t, 0, sizeof *t);
	t->dim = dim;
	t->contact = prng_next(g) % 4 != 0;
	t->toi = random_real(g, odd);
	random_reals(g, t->point, odd);
	t->has_normal = prng_next(g) % 3 != 0;
	random_reals(g, t->normal, odd);
	t->approach = random_real(g, odd);
	t->converged = prng_next(g) % 4 != 0;
}

static const char *const methods[] = {
	"gjk",
	"simplex",
	"ipm",
	"",
	"a \"quoted\" \\ name",
	"tab\tnew\nline\x01\x1f",
	"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	"slash / \x7f del",
};

static void check_one_result(prng *g, int odd, long i)
{
	clash_result r;
	clash_toi_result toi;
	random_result(g, &r, odd);
	int moving = prng_next(g) % 3 == 0;
	if (moving)
		random_toi(g, &toi, r.dim, odd);
	const char *method = methods[prng_next(g) % (sizeof methods / sizeof methods[0])];

	proto_reply out;
	proto_problem p = {0};
	int rc = moving ? proto_result_encode_motion(&r, method, &toi, &out, &p)
	                : proto_result_encode(&r, method, &out, &p);
	const char *bad = tree_non_finite(&r);
	if (bad) {
		/* The same 500 problem as before, naming the same member. */
		ck_assert_msg(rc == 1, "case %ld: non-finite %s answered %d", i, bad, rc);
		ck_assert_int_eq(p.status, 500);
		ck_assert_ptr_null(p.pointer);
		ck_assert_msg(strstr(p.detail, bad) != NULL, "case %ld: %s not in %s", i, bad,
		              p.detail);
		ck_assert_ptr_null(out.body);
		proto_problem_release(&p);
		return;
	}
	json_t *tree = tree_result(&r, method, moving ? &toi : NULL);
	if (!tree) {
		/* A non-finite time of impact or contact: the tree could not hold
		 * it, and that was answered as running out of memory. */
		ck_assert_msg(rc == -1, "case %ld: a motion the tree could not hold answered %d", i,
		              rc);
		ck_assert_ptr_null(out.body);
		return;
	}
	ck_assert_msg(rc == 0, "case %ld: %d", i, rc);
	char *want = json_dumps(tree, JSON_COMPACT | JSON_REAL_PRECISION(17));
	ck_assert_ptr_nonnull(want);
	ck_assert_msg(strcmp(want, out.body) == 0, "case %ld:\ntree %s\ntext %s", i, want,
	              out.body);
	ck_assert_uint_eq(out.length, strlen(want));
	ck_assert_int_eq(out.status, 200);
	ck_assert_str_eq(out.content_type, PROTO_JSON);
	free(want);
	json_decref(tree);
	proto_reply_free(&out);
}

START_TEST(test_result_random)
{
	prng g = {20261122};
	for (long i = 0; i < 60000; i++)
		check_one_result(&g, 0, i);
}
END_TEST

START_TEST(test_result_non_finite)
{
	prng g = {7};
	for (long i = 0; i < 20000; i++)
		check_one_result(&g, 1, i);
}
END_TEST

/* A small answer as the core gives it, in full. */
START_TEST(test_result_example)
{
	clash_result r = {0};
	r.dim = 2;
	r.has = CLASH_HAS_DISTANCE | CLASH_HAS_PLANE | CLASH_HAS_WARM;
	r.distance = 1;
	r.near_a[0] = 0.5;
	r.near_b[0] = 1.5;
	r.normal[0] = 1;
	r.offset = 1;
	r.iterations = 2;
	r.converged = 1;
	r.warm_count = 1;
	r.warm_a[0] = 3;
	r.warm_b[0] = 0;
	proto_reply out;
	proto_problem p = {0};
	ck_assert_int_eq(proto_result_encode(&r, "gjk", &out, &p), 0);
	ck_assert_str_eq(
		out.body,
		"{\"intersecting\":false,\"distance\":1.0,\"near_points\":{\"a\":[0.5,0.0],"
		"\"b\":[1.5,0.0]},\"separating_plane\":{\"normal\":[1.0,0.0],\"offset\":1.0},"
		"\"method\":\"gjk\",\"iterations\":2,\"converged\":true,"
		"\"warm\":{\"a\":[3],\"b\":[0]}}");
	proto_reply_free(&out);
}
END_TEST

/* ---- numbers: %.Pg without printf ----------------------------------------- */

START_TEST(test_real_g)
{
	prng g = {31337};
	for (long i = 0; i < 400000; i++) {
		double x = random_real(&g, 0);
		if (i % 5 == 0) /* durations, as the request log writes them */
			x = (double)(prng_next(&g) % 100000000000ULL) / 1e9;
		int precision = i % 3 == 0 ? 6 : prng_int(&g, 1, 17);
		char want[64], got[PROTO_REAL_MAX];
		snprintf(want, sizeof want, "%.*g", precision, x);
		size_t n = proto_real_g(x, precision, got);
		ck_assert_msg(strcmp(want, got) == 0, "%a at %d: printf %s, proto_real_g %s", x,
		              precision, want, got);
		ck_assert_uint_eq(n, strlen(got));
	}
}
END_TEST

/* ---- the reference: the tree encoder of problems -------------------------- */

static size_t utf8_len(const unsigned char *s, size_t n)
{
	/* As jansson validates (RFC 3629); written independently of problem.c. */
	unsigned c = s[0];
	size_t len;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c < 0xC2 || c > 0xF4)
		return 0;
	len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* The text with each byte that starts no valid sequence replaced by `bad`
 * (U+FFFD in replies, '?' in the log), as a jansson string (which would
 * refuse the raw text). */
static json_t *repaired_as(const char *text, const char *bad)
{
	size_t n = strlen(text), nbad = strlen(bad);
	char *fixed = malloc(3 * n + 1);
	ck_assert_ptr_nonnull(fixed);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_len((const unsigned char *)text + i, n - i);
		if (k == 0) {
			memcpy(fixed + o, bad, nbad);
			o += nbad;
			i++;
		} else {
			memcpy(fixed + o, text + i, k);
			o += k;
			i += k;
		}
	}
	json_t *v = json_stringn(fixed, o);
	ck_assert_ptr_nonnull(v);
	free(fixed);
	return v;
}

static json_t *repaired(const char *text)
{
	return repaired_as(text, "\xEF\xBF\xBD");
}

static char *tree_problem(int status, const char *detail, const char *pointer,
                          const proto_problem *where)
{
	if (status < 400 || status > 599)
		status = 500;
	char type[64];
	snprintf(type, sizeof type, "%s%s", PROTO_PROBLEM_TYPE_PREFIX, proto_problem_slug(status));
	json_t *obj = json_object();
	int failed = 0;
	put(obj, "type", json_string(type), &failed);
	put(obj, "title", json_string(proto_problem_title(status)), &failed);
	put(obj, "status", json_integer(status), &failed);
	if (detail && detail[0])
		put(obj, "detail", repaired(detail), &failed);
	if (pointer)
		put(obj, "pointer", repaired(pointer), &failed);
	if (where && where->located) {
		put(obj, "line", json_integer(where->line), &failed);
		put(obj, "column", json_integer(where->column), &failed);
		put(obj, "position", json_integer((json_int_t)where->position), &failed);
	}
	ck_assert_int_eq(failed, 0);
	char *body = json_dumps(obj, JSON_COMPACT);
	ck_assert_ptr_nonnull(body);
	json_decref(obj);
	return body;
}

/* Random bytes: mostly printable, some escapes, control characters, valid
 * and broken UTF-8. */
static void random_text(prng *g, char *s, size_t cap)
{
	static const char *const pieces[] = {
		"a",
		"/queries/3/a/vertices/0/1",
		" ",
		"\"",
		"\\",
		"\t",
		"\n",
		"\x01",
		"\x1f",
		"\x7f",
		"~0",
		"~1",
		"\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\xc3",
		"\xe2\x82",
		"\xff",
		"\xc0\xaf",
		"\xed\xa0\x80",
		"\xf4\x90\x80\x80",
		"\x80",
		"number 1e400",
		"\b",
		"\f",
		"\r",
		"\v",
		"\xe0\x9f\xbf",
		"\xef\xbf\xbf",
		"\xf4\x8f\xbf\xbf",
	};
	size_t n = 0, count = (size_t)prng_int(g, 0, 12);
	for (size_t i = 0; i < count; i++) {
		const char *p = pieces[prng_next(g) % (sizeof pieces / sizeof pieces[0])];
		size_t k = strlen(p);
		if (n + k + 1 > cap)
			break;
		memcpy(s + n, p, k);
		n += k;
	}
	s[n] = '\0';
}

START_TEST(test_problem_random)
{
	prng g = {99};
	static const int statuses[] = {400, 401, 404, 405, 406, 408, 411, 413, 414,
	                               415, 422, 429, 431, 500, 501, 503, 504, 418,
	                               499, 502, 599, 200, 0,   -1,  600, 399};
	for (long i = 0; i < 30000; i++) {
		proto_problem p = {0};
		char detail[200], pointer[200];
		random_text(&g, detail, sizeof detail);
		random_text(&g, pointer, sizeof pointer);
		int status = statuses[prng_next(&g) % (sizeof statuses / sizeof statuses[0])];
		int with_pointer = prng_next(&g) % 3 != 0;
		proto_problem_set(&p, status, with_pointer ? strdup(pointer) : NULL, "%s", detail);
		if (prng_next(&g) & 1) {
			p.located = 1;
			p.line = prng_int(&g, 1, 1 << 30);
			p.column = prng_int(&g, 0, 1 << 30);
			p.position = (size_t)prng_next(&g) >> (prng_next(&g) % 64);
		}
		proto_reply out;
		ck_assert_int_eq(proto_problem_encode(&p, &out), 0);
		char *want = tree_problem(status, p.detail, p.pointer, &p);
		ck_assert_msg(strcmp(want, out.body) == 0, "case %ld:\ntree %s\ntext %s", i, want,
		              out.body);
		ck_assert_uint_eq(out.length, strlen(want));
		ck_assert_int_eq(out.status, status < 400 || status > 599 ? 500 : status);
		ck_assert_str_eq(out.content_type, PROTO_PROBLEM_JSON);
		free(want);
		proto_reply_free(&out);

		/* The server's own problems: no parse position. */
		ck_assert_int_eq(proto_problem_reply(status, i % 5 ? detail : NULL,
		                                     with_pointer ? pointer : NULL, &out),
		                 0);
		want = tree_problem(status, i % 5 ? detail : NULL, with_pointer ? pointer : NULL,
		                    NULL);
		ck_assert_msg(strcmp(want, out.body) == 0, "case %ld:\ntree %s\ntext %s", i, want,
		              out.body);
		free(want);
		proto_reply_free(&out);
		proto_problem_release(&p);
	}
}
END_TEST

/* ---- strings: the writer's escapes and UTF-8 check ----------------------- */

/* Whether proto_utf8_len walks the n bytes at s through. */
static int walks_through(const char *s, size_t n)
{
	for (size_t i = 0, k; i < n; i += k)
		if ((k = proto_utf8_len(s + i, n - i)) == 0)
			return 0;
	return 1;
}

/* jansson's own check: json_stringn refuses what is not UTF-8. */
static int jansson_takes(const char *s, size_t n)
{
	json_t *v = json_stringn(s, n);
	json_decref(v);
	return v != NULL;
}

START_TEST(test_utf8_len)
{
	/* Every 1- and 2-byte text, every lead byte of 3 and 4 bytes with
	 * every second byte and the edge values of the others. */
	static const unsigned char edges[] = {0x01, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f,
	                                      0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf0, 0xff};
	static const unsigned char last[] = {0x41, 0x80, 0xbf, 0xc0};
	const size_t ne = sizeof edges;
	long checked = 0;
	for (unsigned a = 1; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			char s[4] = {(char)a, (char)b, 0, 0};
			size_t n = b ? 2 : 1; /* b 0: the 1-byte text */
			ck_assert_msg(walks_through(s, n) == jansson_takes(s, n), "%02x %02x", a,
			              b);
			checked++;
			if (a < 0xe0)
				continue;
			for (size_t c = 0; c < ne; c++)
				for (size_t d = 0; d < (a >= 0xf0 ? sizeof last : 1); d++) {
					s[2] = (char)edges[c];
					s[3] = (char)last[d];
					n = a >= 0xf0 ? 4 : 3;
					ck_assert_msg(walks_through(s, n) == jansson_takes(s, n),
					              "%02x %02x %02x %02x", a, b, edges[c],
					              last[d]);
					checked++;
				}
		}
	ck_assert_int_gt(checked, 300000);
}
END_TEST

/* json_dumps of `v` without its quotes (malloc'd). */
static char *inside(json_t *v)
{
	char *q = json_dumps(v, JSON_ENCODE_ANY);
	ck_assert_ptr_nonnull(q);
	size_t n = strlen(q);
	ck_assert(n >= 2 && q[0] == '"' && q[n - 1] == '"');
	memmove(q, q + 1, n - 2);
	q[n - 2] = '\0';
	json_decref(v);
	return q;
}

START_TEST(test_strings)
{
	prng g = {4242};
	for (long i = 0; i < 20000; i++) {
		char s[400];
		random_text(&g, s, sizeof s);
		size_t n = strlen(s);

		/* Replies: U+FFFD for what is not UTF-8; the buffer grows as
		 * putting the same bytes makes it grow. */
		char *want = inside(repaired(s));
		proto_text t = {0}, same = {0};
		size_t first = (size_t)prng_int(&g, 0, 300), before = (size_t)prng_int(&g, 0, 600);
		if (first) {
			proto_text_reserve(&t, first);
			proto_text_reserve(&same, first);
		}
		for (size_t k = 0; k < before; k++) {
			proto_text_putc(&t, 'x');
			proto_text_putc(&same, 'x');
		}
		proto_text_string(&t, s, n);
		proto_text_putc(&same, '"');
		proto_text_put(&same, want, strlen(want));
		proto_text_putc(&same, '"');
		ck_assert_uint_eq(t.cap, same.cap);
		free(proto_text_finish(&same, NULL));
		size_t len;
		char *got = proto_text_finish(&t, &len);
		ck_assert_ptr_nonnull(got);
		const char *str = got + before;
		ck_assert_msg(len == before + strlen(want) + 2 && str[0] == '"' &&
		                      got[len - 1] == '"' &&
		                      memcmp(str + 1, want, strlen(want)) == 0,
		              "case %ld: jansson \"%s\", proto_text_string %s", i, want, str);
		free(got);
		free(want);

		/* The log: '?' for it, and a text cut short to the room given,
		 * at a character's end, with the margin the closing quote needs. */
		want = inside(repaired_as(s, "?"));
		char out[6 * sizeof s + PROTO_ESCAPE_MARGIN];
		size_t full = PROTO_ESCAPE_WIDEST * n + PROTO_ESCAPE_MARGIN, used;
		len = proto_string_escape(out, full, s, n, "?", &used);
		ck_assert_uint_eq(used, n);
		ck_assert_msg(len == strlen(want) && memcmp(out, want, len) == 0,
		              "case %ld: jansson \"%s\", proto_string_escape \"%.*s\"", i, want,
		              (int)len, out);
		size_t room = (size_t)prng_int(&g, 0, (int)full);
		char cut[sizeof out], again[sizeof out];
		size_t cut_len = proto_string_escape(cut, room, s, n, "?", &used);
		ck_assert(used <= n && cut_len <= len && memcmp(cut, out, cut_len) == 0);
		ck_assert(used == n || room - cut_len < PROTO_ESCAPE_MARGIN);
		ck_assert(room < PROTO_ESCAPE_MARGIN ? cut_len == 0 : cut_len + 2 <= room);
		size_t whole;
		ck_assert_uint_eq(proto_string_escape(again, full, s, used, "?", &whole), cut_len);
		ck_assert(whole == used && memcmp(again, cut, cut_len) == 0);
		free(want);
	}
}
END_TEST

static Suite *encode_as_jansson_suite(void)
{
	Suite *s = suite_create("encode_as_jansson");
	ck_case(s, "result", 60,
	        CK_TESTS(test_result_random, test_result_non_finite, test_result_example));
	ck_case(s, "numbers", 60, CK_TESTS(test_real_g));
	ck_case(s, "problem", 60, CK_TESTS(test_problem_random));
	ck_case(s, "strings", 60, CK_TESTS(test_utf8_len, test_strings));
	return s;
}

CHECK_SUITE(encode_as_jansson_suite)
