/*
 * check_parse_as_jansson.c — suite "parse_as_jansson": the query parser's
 * own tree builder (proto/shapes/vertex_scan.c, proto_parse_query_text) against
 * jansson's parse of the same text (the same call with the shortcut off:
 * proto_parse_ex).
 *
 *   tree      random documents — objects and arrays nested at random,
 *             member names and strings with escapes, UTF-8, invalid UTF-8
 *             and control characters, numbers of every textual form,
 *             literals and near-literals, plain and irregular vertex
 *             arrays (nested "vertices", flat "positions" with their
 *             "dim", and a mesh's flat "indices"), every kind of blank, duplicates, and now and then a
 *             byte deleted, doubled or replaced — with and without limits
 *             (depth, vertices, shapes): the result code and problem
 *             (status, detail, pointer, line, column, position) are the
 *             same, and on success the trees are the same value for value,
 *             member order included, where each vertex array read from
 *             the text holds exactly (bit for bit) the numbers of jansson's
 *             array;
 *   replies   the same documents as queries: proto_query_reply with the
 *             shortcut equals it without, byte for byte;
 *   depth_at  the depth limit's problem is located as jansson counts: its
 *             column counts every character of the line, escapes and
 *             UTF-8 in strings before the bracket included; and on the
 *             random documents jansson parses, the byte scanner
 *             (json_scan.h) finds their depth: the limit at the depth of
 *             jansson's tree passes, one less stops.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "prng.h"
#include "textbuf.h"
#include "parse.h"
#include "problem.h"
#include "proto.h"
#include "request_limits.h"
#include "vertex_scan.h"

/* ---- random documents ---------------------------------------------------- */

static void blank(prng *g, textbuf *t)
{
	static const char *const ws[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
	textbuf_str(t, ws[prng_next(g) % 7]);
}

/* A number; `odd`: now and then one jansson or the shortcut refuses. */
static void number(prng *g, textbuf *t, int odd)
{
	char b[200];
	double x = (prng_unit(g) - 0.5) * pow(10, prng_int(g, -6, 6));
	uint64_t form = prng_next(g) % 100;
	switch (!odd || form < 85 ? form % 8 : form < 95 ? 8 + form % 3 : form % 16) {
	case 0: snprintf(b, sizeof b, "%d", prng_int(g, -1000, 1000)); break;
	case 1: snprintf(b, sizeof b, "%.17g", x); break;
	case 2: snprintf(b, sizeof b, "%.3f", x); break;
	case 3: snprintf(b, sizeof b, "%.6e", x); break;
	case 4: snprintf(b, sizeof b, "%.20f", x); break;
	case 5: snprintf(b, sizeof b, "%.6fE+%d", x, prng_int(g, 0, 30)); break;
	case 6: snprintf(b, sizeof b, "-0"); break;
	case 7: snprintf(b, sizeof b, "%.9fe-%d", x, prng_int(g, 300, 330)); break;
	case 8: snprintf(b, sizeof b, "123456789012345678901234567890.5"); break;
	case 9: snprintf(b, sizeof b, "0.%0130d1", 0); break;
	case 10: snprintf(b, sizeof b, "1e999"); break; /* out of range */
	case 11: {
		static const char *const bad[] = {"01",  "1.",       ".5",   "+1",   "1e",
		                                  "-",   "1.5.3",    "1e5x", "0x10", "--1",
		                                  "1E+", "Infinity", "NaN",  "-.5"};
		snprintf(b, sizeof b, "%s", bad[prng_next(g) % 14]);
		break;
	}
	default: snprintf(b, sizeof b, "%.1f", x); break;
	}
	textbuf_str(t, b);
}

static void string(prng *g, textbuf *t)
{
	static const char *const pieces[] = {
		"a",       "vertices", "gjk",      " ",
		"~/",      "\\\"",     "\\\\",     "\\/",
		"\\n",     "\\u0041",  "\\u00e9",  "\\ud83d\\ude00",
		"\\ud800", "\\u0000",  "\xc3\xa9", "\xe2\x82\xac",
		"\xff",    "\xc3",     "\x01",     "\t",
		"\x7f",    "\\x",      "simplex",
	};
	textbuf_str(t, "\"");
	int n = prng_int(g, 0, 3);
	for (int i = 0; i < n; i++) {
		int k = prng_next(g) % 12 ? prng_int(g, 0, 2) : prng_int(g, 0, 22);
		textbuf_str(t, pieces[k]);
	}
	textbuf_str(t, "\"");
}

/* Element i of an array of numbers, blanks about it: when `odd`, one
 * in `rare` is not a number. */
static void element(prng *g, textbuf *t, size_t i, int odd, unsigned rare)
{
	if (i)
		textbuf_str(t, ",");
	blank(g, t);
	if (odd && prng_next(g) % rare == 0) {
		static const char *const other[] = {"\"1\"", "[1]", "null", "true", "{}"};
		textbuf_str(t, other[prng_next(g) % 5]);
	} else {
		number(g, t, odd);
	}
	blank(g, t);
}

/* A vertex array of points of `dim` numbers (0: any). */
static void vertex_text(prng *g, textbuf *t, int dim)
{
	if (!dim)
		dim = prng_int(g, 1, 4);
	int odd = prng_next(g) % 8 == 0; /* a fault somewhere in this array */
	size_t n = prng_next(g) % 25 == 0 ? 0 : (size_t)prng_int(g, 1, 10);
	textbuf_str(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			textbuf_str(t, ",");
		blank(g, t);
		textbuf_str(t, "[");
		int d = odd && prng_next(g) % 20 == 0 ? dim + 1 : dim;
		if (odd && prng_next(g) % 50 == 0)
			d = 9; /* more than a point may have */
		for (int k = 0; k < d; k++)
			element(g, t, k, odd, 40);
		textbuf_str(t, "]");
	}
	blank(g, t);
	textbuf_str(t, "]");
}

/* A flat "positions" array of about n points of `dim` numbers (0: any),
 * now and then a number short, empty, or with a fault in it. */
static void flat_text(prng *g, textbuf *t, int dim)
{
	if (!dim)
		dim = prng_int(g, 1, 4);
	int odd = prng_next(g) % 8 == 0;
	size_t n = prng_next(g) % 25 == 0 ? 0 : (size_t)prng_int(g, 1, 10) * (size_t)dim;
	if (odd && n && prng_next(g) % 3 == 0)
		n--;
	textbuf_str(t, "[");
	for (size_t i = 0; i < n; i++)
		element(g, t, i, odd, 20);
	textbuf_str(t, "]");
}

static void value(prng *g, textbuf *t, int depth);

static void key(prng *g, textbuf *t)
{
	static const char *const keys[] = {
		"\"a\"",         "\"b\"",      "\"vertices\"",
		"\"parts\"",     "\"method\"", "\"tolerance\"",
		"\"radius\"",    "\"x\"",      "\"vertic\\u0065s\"",
		"\"\xc3\xa9\"",  "\"\"",       "\"a b\"",
		"\"positions\"", "\"dim\"",    "\"indices\"",
	};
	int k = prng_next(g) % 10 ? prng_int(g, 0, 7) : prng_int(g, 0, 14);
	textbuf_str(t, keys[k]);
}

static void object(prng *g, textbuf *t, int depth)
{
	textbuf_str(t, "{");
	blank(g, t);
	int n = prng_int(g, 0, 4);
	for (int i = 0; i < n; i++) {
		if (i) {
			textbuf_str(t, ",");
			blank(g, t);
		}
		size_t at = t->len;
		key(g, t);
		int is_vertices = strcmp(t->s + at, "\"vertices\"") == 0;
		int is_positions = strcmp(t->s + at, "\"positions\"") == 0 ||
		                   strcmp(t->s + at, "\"indices\"") == 0;
		blank(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		if (is_vertices && prng_next(g) % 5)
			vertex_text(g, t, 0);
		else if (is_positions && prng_next(g) % 5)
			flat_text(g, t, 0);
		else
			value(g, t, depth + 1);
		blank(g, t);
	}
	textbuf_str(t, "}");
}

static void value(prng *g, textbuf *t, int depth)
{
	int pick = depth > 5 ? prng_int(g, 2, 5) : prng_int(g, 0, 7);
	switch (pick) {
	case 0:
	case 6: object(g, t, depth); break;
	case 1: {
		textbuf_str(t, "[");
		int n = prng_int(g, 0, 3);
		for (int i = 0; i < n; i++) {
			if (i)
				textbuf_str(t, ",");
			blank(g, t);
			value(g, t, depth + 1);
			blank(g, t);
		}
		textbuf_str(t, "]");
		break;
	}
	case 2: number(g, t, 1); break;
	case 3: string(g, t); break;
	case 4: {
		static const char *const lit[] = {"true", "false", "null",  "True",
		                                  "nul",  "truex", "null1", "fals"};
		textbuf_str(t, lit[prng_next(g) % 10 ? prng_int(g, 0, 2) : prng_int(g, 0, 7)]);
		break;
	}
	case 5: vertex_text(g, t, 0); break; /* a plain array under another name */
	default: {
		/* a query-like object: two shapes */
		textbuf_str(t, "{\"a\":{\"vertices\":");
		vertex_text(g, t, 0);
		textbuf_str(t, "},");
		blank(g, t);
		textbuf_str(t, "\"b\":{\"vertices\":");
		vertex_text(g, t, 0);
		textbuf_str(t, "}}");
		break;
	}
	}
}

/* A shape: vertices, now and then a radius, a pose, parts or something
 * else. */
static void shape(prng *g, textbuf *t, int depth, int dim)
{
	textbuf_str(t, "{");
	blank(g, t);
	int first = 1;
	if (depth < 2 && prng_next(g) % 8 == 0) {
		textbuf_str(t, "\"parts\":[");
		int n = prng_int(g, 1, 3);
		for (int i = 0; i < n; i++) {
			if (i)
				textbuf_str(t, ",");
			shape(g, t, depth + 1, dim);
		}
		textbuf_str(t, "]");
		first = 0;
	} else if (prng_next(g) % 4 == 0) {
		/* The flat form: "dim" given (now and then a wrong one, or
		 * after the numbers), or left at 3. */
		int d = dim ? dim : prng_int(g, 1, 4);
		int give = d != 3 || prng_next(g) % 2;
		int late = prng_next(g) % 3 == 0;
		static const char *const bad_dim[] = {"0", "9", "2.5", "\"3\""};
		char b[64];
		if (prng_next(g) % 30)
			snprintf(b, sizeof b, "\"dim\":%d,", d);
		else
			snprintf(b, sizeof b, "\"dim\":%s,", bad_dim[prng_next(g) % 4]);
		if (give && !late)
			textbuf_str(t, b);
		textbuf_str(t, prng_next(g) % 40 ? "\"positions\"" : "\"posit\\u0069ons\"");
		blank(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		flat_text(g, t, d);
		if (give && late) {
			b[strlen(b) - 1] = '\0';
			textbuf_str(t, ",");
			textbuf_str(t, b);
		}
		first = 0;
	} else if (prng_next(g) % 20) {
		textbuf_str(t, prng_next(g) % 40 ? "\"vertices\"" : "\"vertic\\u0065s\"");
		blank(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		vertex_text(g, t, dim);
		first = 0;
	}
	int extra = prng_next(g) % 3 == 0 ? prng_int(g, 1, 2) : 0;
	for (int i = 0; i < extra; i++) {
		if (!first)
			textbuf_str(t, ",");
		first = 0;
		blank(g, t);
		key(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		value(g, t, 3);
	}
	blank(g, t);
	textbuf_str(t, "}");
}

/* A query: "a" and "b" in either order, now and then more members. */
static void query(prng *g, textbuf *t)
{
	textbuf_str(t, "{");
	blank(g, t);
	int swap = prng_next(g) % 4 == 0;
	int dim = prng_next(g) % 10 ? prng_int(g, 1, 4) : 0;
	for (int s = 0; s < 2; s++) {
		if (s)
			textbuf_str(t, ",");
		blank(g, t);
		textbuf_str(t, (s ^ swap) ? "\"b\"" : "\"a\"");
		blank(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		shape(g, t, 0, dim);
	}
	int extra = prng_next(g) % 6 == 0 ? prng_int(g, 1, 3) : 0;
	for (int i = 0; i < extra; i++) {
		textbuf_str(t, ",");
		blank(g, t);
		key(g, t);
		blank(g, t);
		textbuf_str(t, ":");
		blank(g, t);
		value(g, t, 2);
	}
	blank(g, t);
	textbuf_str(t, "}");
}

static char *document(prng *g)
{
	textbuf t = {0};
	blank(g, &t);
	if (prng_next(g) % 5)
		query(g, &t);
	else
		value(g, &t, 0);
	blank(g, &t);
	if (prng_next(g) % 30 == 0)
		textbuf_str(&t, prng_next(g) & 1 ? "}" : " x");
	/* Now and then a byte deleted, doubled or replaced. */
	if (t.len > 2 && prng_next(g) % 10 == 0) {
		size_t at = (size_t)(prng_next(g) % t.len);
		switch (prng_next(g) % 3) {
		case 0:
			memmove(t.s + at, t.s + at + 1, t.len - at);
			t.len--;
			break;
		case 1: {
			char c = t.s[at];
			textbuf_add(&t, " ", 1);
			memmove(t.s + at + 1, t.s + at, t.len - at - 1);
			t.s[at] = c;
			break;
		}
		default: t.s[at] = "{}[],:\"0a\\ "[prng_next(g) % 11]; break;
		}
	}
	return t.s;
}

/* ---- comparison ----------------------------------------------------------- */

/* jansson's value `u` and the built value `f` (a vertex array read from the
 * text stands as an empty array; the table `vt` finds it). */
static void same_value(const json_t *u, const json_t *f, const vertex_table *vt, const char *doc)
{
	const vertex_array *read = proto_vertex_lookup(vt, f);
	if (read && read->flat) {
		ck_assert_msg(json_is_array(u) && json_array_size(u) == read->n, "%s", doc);
		for (size_t i = 0; i < read->n; i++) {
			double x = json_real_value(json_array_get(u, i));
			ck_assert_msg(json_is_real(json_array_get(u, i)) &&
			                      memcmp(&x, &read->xyz[i], sizeof x) == 0,
			              "%s: %a read as %a", doc, x, read->xyz[i]);
		}
		return;
	}
	if (read) {
		ck_assert_msg(json_is_array(u) && json_array_size(u) == read->n, "%s", doc);
		for (size_t i = 0; i < read->n; i++) {
			const json_t *pt = json_array_get(u, i);
			ck_assert_msg(json_is_array(pt) && json_array_size(pt) == read->d, "%s",
			              doc);
			for (size_t k = 0; k < read->d; k++) {
				double x = json_real_value(json_array_get(pt, k));
				ck_assert_msg(json_is_real(json_array_get(pt, k)) &&
				                      memcmp(&x, &read->xyz[i * read->d + k],
				                             sizeof x) == 0,
				              "%s: %a read as %a", doc, x,
				              read->xyz[i * read->d + k]);
			}
		}
		return;
	}
	ck_assert_msg(json_typeof(u) == json_typeof(f), "%s", doc);
	switch (json_typeof(u)) {
	case JSON_OBJECT: {
		ck_assert_msg(json_object_size(u) == json_object_size(f), "%s", doc);
		/* Member order: jansson keeps document order. */
		void *iu = json_object_iter((json_t *)u), *jf = json_object_iter((json_t *)f);
		for (; iu; iu = json_object_iter_next((json_t *)u, iu),
		           jf = json_object_iter_next((json_t *)f, jf)) {
			ck_assert_ptr_nonnull(jf);
			ck_assert_msg(strcmp(json_object_iter_key(iu), json_object_iter_key(jf)) ==
			                      0,
			              "%s", doc);
			same_value(json_object_iter_value(iu), json_object_iter_value(jf), vt, doc);
		}
		break;
	}
	case JSON_ARRAY:
		ck_assert_msg(json_array_size(u) == json_array_size(f), "%s", doc);
		for (size_t i = 0; i < json_array_size(u); i++)
			same_value(json_array_get(u, i), json_array_get(f, i), vt, doc);
		break;
	case JSON_STRING:
		ck_assert_msg(json_string_length(u) == json_string_length(f) &&
		                      memcmp(json_string_value(u), json_string_value(f),
		                             json_string_length(u)) == 0,
		              "%s", doc);
		break;
	case JSON_REAL: {
		double x = json_real_value(u), y = json_real_value(f);
		ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "%s: %a and %a", doc, x, y);
		break;
	}
	default: break; /* true, false, null (JSON_DECODE_INT_AS_REAL: no integers) */
	}
}

/* Random limits for the next document, in both contexts. */
static void limits(prng *g, proto_context *usual, proto_context *built)
{
	proto_request_limits l = {0};
	switch (prng_next(g) % 4) {
	case 0: break;
	case 1: l.max_depth = (size_t)prng_int(g, 2, 7); break;
	case 2:
		l.max_vertices = (size_t)prng_int(g, 1, 8);
		l.max_shapes = (size_t)prng_int(g, 1, 3);
		break;
	default:
		l = (proto_request_limits){.max_depth = PROTO_DEFAULT_MAX_DEPTH,
		                           .max_vertices = PROTO_DEFAULT_MAX_VERTICES,
		                           .max_shapes = PROTO_DEFAULT_MAX_SHAPES,
		                           .max_part_depth = PROTO_DEFAULT_MAX_PART_DEPTH};
		break;
	}
	*usual = (proto_context){.limits = l, .plain_parse = 1};
	*built = (proto_context){.limits = l};
}

START_TEST(test_tree)
{
	proto_init();
	prng g = {20261122};
	long built = 0, failed = 0;
	for (long i = 0; i < 40000; i++) {
		proto_context cu, cf;
		limits(&g, &cu, &cf);
		char *doc = document(&g);
		size_t len = strlen(doc);
		json_t *tu = NULL, *tf = NULL;
		vertex_table *vu = NULL, *vf = NULL;
		proto_problem pu = {0}, pf = {0};
		enum proto_limit wu = PROTO_LIMIT_NONE, wf = PROTO_LIMIT_NONE;
		int ru = proto_parse_query_text(doc, len, &cu, &tu, &pu, &wu, &vu);
		int rf = proto_parse_query_text(doc, len, &cf, &tf, &pf, &wf, &vf);
		ck_assert_ptr_null(vu);
		ck_assert_msg(ru == rf, "%s: %d, built %d", doc, ru, rf);
		ck_assert_msg(wu == wf, "%s", doc);
		if (ru == 1) {
			failed++;
			ck_assert_msg(pu.status == pf.status && strcmp(pu.detail, pf.detail) == 0,
			              "%s\n%d %s\n%d %s", doc, pu.status, pu.detail, pf.status,
			              pf.detail);
			ck_assert_msg((!pu.pointer && !pf.pointer) ||
			                      (pu.pointer && pf.pointer &&
			                       strcmp(pu.pointer, pf.pointer) == 0),
			              "%s: pointer %s, built %s", doc, pu.pointer, pf.pointer);
			ck_assert_msg(pu.located == pf.located && pu.line == pf.line &&
			                      pu.column == pf.column && pu.position == pf.position,
			              "%s", doc);
		} else {
			ck_assert_int_eq(ru, 0);
			built += vf != NULL;
			same_value(tu, tf, vf, doc);
		}
		json_decref(tu);
		json_decref(tf);
		proto_vertex_table_free(vf);
		proto_problem_release(&pu);
		proto_problem_release(&pf);
		free(doc);
	}
	/* Both sides were exercised. */
	ck_assert_int_gt(built, 5000);
	ck_assert_int_gt(failed, 5000);
}
END_TEST

START_TEST(test_replies)
{
	proto_init();
	prng g = {7};
	int ok = 0;
	for (long i = 0; i < 15000; i++) {
		proto_context cu, cf;
		limits(&g, &cu, &cf);
		char *doc = document(&g);
		size_t len = strlen(doc);
		proto_reply fast, usual;
		proto_call call_u = {.ctx = &cu}, call_f = {.ctx = &cf};
		ck_assert_int_eq(proto_query_reply_ex(doc, len, &call_u, &usual), 0);
		ck_assert_int_eq(proto_query_reply_ex(doc, len, &call_f, &fast), 0);
		ck_assert_msg(fast.status == usual.status && strcmp(fast.body, usual.body) == 0,
		              "%s\nbuilt: %s\nusual: %s", doc, fast.body, usual.body);
		ok += fast.status == 200;
		proto_reply_free(&fast);
		proto_reply_free(&usual);
		free(doc);
	}
	ck_assert_int_gt(ok, 1000);
}
END_TEST

START_TEST(test_depth_at)
{
	static const struct {
		const char *text;
		int line, column;
		size_t position;
	} cases[] = {
		{"[[[1]]]", 1, 3, 3},
		{"{\"a\\\"b\":[[1]]}", 1, 10, 10},
		{"{\"\\u00e9\\n\": [\n  [[0]]]}", 2, 3, 18},
		{"[\"\\u00e9\", \"\xc3\xa9\", [[0]]]", 1, 18, 19},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const char *t = cases[k].text;
		proto_request_limits l = {.max_depth = 2};
		json_t *root = NULL;
		proto_problem p = {0};
		enum proto_limit which;
		ck_assert_int_eq(proto_parse_ex(t, strlen(t), &l, &root, &p, &which), 1);
		ck_assert_int_eq(which, PROTO_LIMIT_DEPTH);
		ck_assert_msg(p.status == 400 && p.located && p.line == cases[k].line &&
		                      p.column == cases[k].column &&
		                      p.position == cases[k].position,
		              "%s: %d at %d:%d (%zu)", t, p.status, p.line, p.column, p.position);
		proto_problem_release(&p);
	}
}
END_TEST

/* Arrays and objects nested in v, as jansson built them. */
static size_t tree_depth(const json_t *v)
{
	size_t d = 0;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			size_t k = tree_depth(json_array_get(v, i));
			d = k > d ? k : d;
		}
		return d + 1;
	}
	if (!json_is_object(v))
		return 0;
	const char *key;
	json_t *m;
	json_object_foreach((json_t *)v, key, m) {
		size_t k = tree_depth(m);
		d = k > d ? k : d;
	}
	return d + 1;
}

START_TEST(test_depth_scan)
{
	prng g = {11};
	int nested = 0;
	for (long i = 0; i < 20000; i++) {
		char *doc = document(&g);
		size_t len = strlen(doc);
		json_error_t e;
		/* Duplicates refused: jansson keeps a duplicate's last value,
		 * which may nest less than the text does. */
		json_t *v = json_loadb(doc, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
		size_t d = v ? tree_depth(v) : 0;
		json_decref(v);
		if (d >= 2) {
			proto_problem p = {0};
			ck_assert_msg(proto_limits_depth(doc, len, d, &p) == 0, "%s: depth %zu",
			              doc, d);
			ck_assert_msg(proto_limits_depth(doc, len, d - 1, &p) == 1, "%s: depth %zu",
			              doc, d);
			proto_problem_release(&p);
			nested++;
		}
		free(doc);
	}
	ck_assert_int_gt(nested, 5000);
}
END_TEST

static Suite *parse_as_jansson_suite(void)
{
	Suite *s = suite_create("parse_as_jansson");
	ck_case(s, "tree", 60, CK_TESTS(test_tree, test_replies, test_depth_at, test_depth_scan));
	return s;
}

CHECK_SUITE(parse_as_jansson_suite)
