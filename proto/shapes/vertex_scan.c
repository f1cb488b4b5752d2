/*
 * vertex_scan.c — a Query's tree built without jansson's parser, its plain
 * vertex arrays read straight into doubles.
 *
 * A Query is mostly vertex coordinates, and jansson spends most of a small
 * query's time on them.  Here a plain "vertices" member (an array of one or
 * more arrays of 1 to 8 numbers, all of the same length), "positions" or
 * "indices" member (a flat array of one or more numbers: a mesh's corners
 * as jansson values take about 50 bytes a number, 8 bytes here) is read
 * straight into doubles and stands in the tree as an empty array; the rest
 * of the query
 * is built into the jansson tree the parser would have built, without the
 * parser.  The decoder (query.c) and the limits (request_limits.c) are
 * handed the table (vertex_table.h) and find the arrays read by the empty
 * arrays standing for them.  Numbers are read exactly as jansson reads
 * them, and anything not plain is parsed the usual way, so the answer never
 * changes, only its speed.
 *
 * Why, and the rules that keep every answer the same: docs/design.md,
 * "proto/endpoints/query.c, shapes/vertex_scan.c".
 */
#include "vertex_scan.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "parse.h"
#include "request_limits.h"

#define MAX_POINT_DIM 8

/* ---- numbers ------------------------------------------------------------- */

static const double exact_pow10[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* 5^k for k <= 27 (the largest below 2^63). */
/* clang-format off */
static const uint64_t pow5_u64[28] = {
	1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull,
	1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull,
	30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull,
	19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull,
	11920928955078125ull, 59604644775390625ull, 298023223876953125ull,
	1490116119384765625ull, 7450580596923828125ull,
};
/* clang-format on */

typedef unsigned __int128 u128;

/* n * 2^e (+ a fraction of n's last unit when `sticky`: then n has more
 * than 54 bits), rounded to the nearest double, ties to even, as strtod
 * rounds.  -1 when the result is not a normal double (let strtod say). */
static int round_scaled(u128 n, int sticky, int e, int neg, double *out)
{
	int hi = (uint64_t)(n >> 64) ? 128 - __builtin_clzll((uint64_t)(n >> 64))
	                             : 64 - __builtin_clzll((uint64_t)n); /* n > 0 */
	uint64_t mant;
	if (hi > 53) {
		int shift = hi - 53;
		mant = (uint64_t)(n >> shift);
		u128 rem = n & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
		if (rem > half || (rem == half && (sticky || (mant & 1))))
			mant++;
		e += shift;
		if (mant >> 53) { /* rounded up to the next power of two */
			mant >>= 1;
			e++;
		}
	} else {
		mant = (uint64_t)n << (53 - hi); /* exact: sticky needs more bits */
		e -= 53 - hi;
	}
	int biased = e + 52 + 1023; /* mant * 2^e = 1.f * 2^(e + 52) */
	if (biased < 1 || biased > 2046)
		return -1;
	uint64_t bits =
		((uint64_t)neg << 63) | ((uint64_t)biased << 52) | (mant & ((1ull << 52) - 1));
	memcpy(out, &bits, sizeof bits);
	return 0;
}

/* m * 10^p10 (m < 2^64 exact, the digits as written), rounded as strtod
 * rounds, by integers: for p10 >= 0 the product m * 10^p10 (< 2^128 up to
 * 10^19); for p10 < 0, m / 5^k / 2^k (k = -p10 <= 27): m shifted so the
 * quotient by 5^k has 63 or 64 bits, one 128-by-64-bit division, its
 * remainder deciding ties.  -1 outside that range (and for results that
 * are not normal doubles): strtod then. */
static int exact_decimal(uint64_t m, long p10, int neg, double *out)
{
	if (m == 0) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	if (p10 >= 0 && p10 <= 19) {
		u128 p = 1;
		for (long k = 0; k < p10; k++)
			p *= 10;
		return round_scaled((u128)m * p, 0, 0, neg, out);
	}
	if (p10 < 0 && p10 >= -27) {
		int k = (int)-p10;
		uint64_t d = pow5_u64[k];
		int lz = __builtin_clzll(m);
		int c = 64 - __builtin_clzll(d); /* bits of 5^k: 5^k >= 2^(c-1) */
		/* (m << lz) * 2^(c-1) / 5^k in [2^62, 2^64): its high half < d */
		u128 num = (u128)(m << lz) << (c - 1);
		u128 q = num / d;
		int sticky = num - q * d != 0;
		return round_scaled(q, sticky, -lz - (c - 1) - k, neg, out);
	}
	return -1;
}

/* The JSON number at the start of s[0, n): its length (the longest text
 * the grammar takes there; 0 when none) and its value, read as jansson
 * reads it.  *out_of_range when the text is a number strtod cannot hold
 * (then the length is still its length). */
static size_t number_prefix(const char *s, size_t n, double *out, int *out_of_range)
{
	size_t i = 0;
	int neg = 0;
	*out_of_range = 0;
	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	/* int: 0 | [1-9][0-9]* */
	if (i >= n || (unsigned)(s[i] - '0') > 9)
		return 0;
	uint64_t m = 0;
	int digits = 0, frac_digits = 0;
	if (s[i] == '0') {
		i++;
	} else {
		for (; i < n && (unsigned)(s[i] - '0') <= 9; i++) {
			if (digits < 19)
				m = m * 10 + (uint64_t)(s[i] - '0');
			digits++;
		}
	}
	/* frac: . [0-9]+ */
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n || (unsigned)(s[i] - '0') > 9)
			return 0;
		if (digits == 0) /* "0.": leading zeros are not significant */
			for (; i < n && s[i] == '0'; i++)
				frac_digits++;
		for (; i < n && (unsigned)(s[i] - '0') <= 9; i++) {
			if (digits < 19)
				m = m * 10 + (uint64_t)(s[i] - '0');
			digits++;
			frac_digits++;
		}
	}
	/* exp: [eE] [+-]? [0-9]+ */
	long e = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		int eneg = 0;
		if (i < n && (s[i] == '+' || s[i] == '-')) {
			eneg = s[i] == '-';
			i++;
		}
		if (i >= n || (unsigned)(s[i] - '0') > 9)
			return 0;
		for (; i < n && (unsigned)(s[i] - '0') <= 9; i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		if (eneg)
			e = -e;
	}
	/* Value = m * 10^(e - frac_digits) when digits <= 19 (m exact). */
	long p10 = e - frac_digits;
	if (digits <= 15 && p10 >= -22 && p10 <= 22) {
		double x = (double)m; /* exact: m < 10^15 < 2^53 */
		x = p10 < 0 ? x / exact_pow10[-p10] : x * exact_pow10[p10];
		*out = neg ? -x : x;
		return i;
	}
	if (digits <= 19 && exact_decimal(m, p10, neg, out) == 0)
		return i;
	/* Anything else as jansson reads it. */
	char buf[128];
	if (i >= sizeof buf) {
		*out_of_range = 1; /* a very long number: let jansson read it */
		return i;
	}
	memcpy(buf, s, i);
	buf[i] = '\0';
	char *end;
	errno = 0;
	double x = strtod(buf, &end);
	if (end != buf + i || ((x == HUGE_VAL || x == -HUGE_VAL) && errno == ERANGE))
		*out_of_range = 1;
	*out = x;
	return i;
}

int proto_read_number(const char *s, size_t n, double *out)
{
	int bad;
	double x;
	if (number_prefix(s, n, &x, &bad) != n || n == 0 || bad)
		return -1;
	*out = x;
	return 0;
}

/* ---- the scan ------------------------------------------------------------ */

/* The number at s[*i], which must be all of the run of number characters
 * there (as jansson's lexer takes them): 1 with *x and *i past it, else 0. */
static int plain_number(const char *s, size_t len, size_t *i, double *x)
{
	int bad;
	size_t j = *i + number_prefix(s + *i, len - *i, x, &bad);
	if (j == *i || bad || (j < len && json_scan_is_number_char(s[j])))
		return 0;
	*i = j;
	return 1;
}

/* Room in *xyz (capacity *cap) for index `at`: from `first` numbers,
 * doubling.  0, or -1 out of memory (then *xyz is freed). */
static int room_for(double **xyz, size_t *cap, size_t at, size_t first)
{
	if (at < *cap)
		return 0;
	size_t grown = *cap ? 2 * *cap : first;
	double *g = realloc(*xyz, grown * sizeof *g);
	if (!g) {
		free(*xyz);
		*xyz = NULL;
		return -1;
	}
	*xyz = g;
	*cap = grown;
	return 0;
}

/* A plain vertex array at s[i] ('['): 1 on success (*end past its ']',
 * the numbers in *a); 0 when it is anything else; -1 out of memory. */
static int plain_array(const char *s, size_t len, size_t i, size_t *end, vertex_array *a)
{
	size_t cap = 0, count = 0, d = 0;
	double *xyz = NULL;
	i = json_scan_skip_ws(s, len, i + 1);
	for (;;) {
		if (i >= len || s[i] != '[')
			goto not_plain;
		i = json_scan_skip_ws(s, len, i + 1);
		size_t k = 0;
		for (;;) {
			double x;
			if (!plain_number(s, len, &i, &x))
				goto not_plain;
			if (k == MAX_POINT_DIM || (d && k == d))
				goto not_plain;
			/* Point 0 sets the length d; until then it is the only one.
			 * From 64 numbers (512 bytes: a small pair's shape fits;
			 * glibc serves it from its per-thread cache, where 4 KiB
			 * would make it sort its free lists). */
			size_t at = d ? count * d + k : k;
			if (room_for(&xyz, &cap, at, 64) != 0)
				return -1;
			xyz[at] = x;
			k++;
			enum json_scan_next next = json_scan_after(s, len, &i, ']');
			if (next == JSON_SCAN_CLOSED)
				break;
			if (next != JSON_SCAN_MORE)
				goto not_plain;
		}
		if (!d) {
			d = k;
		} else if (k != d) {
			goto not_plain;
		}
		count++;
		enum json_scan_next next = json_scan_after(s, len, &i, ']');
		if (next == JSON_SCAN_CLOSED)
			break;
		if (next != JSON_SCAN_MORE)
			goto not_plain;
	}
	*end = i;
	a->n = count;
	a->d = d;
	a->xyz = xyz;
	a->marker = NULL;
	a->flat = 0;
	return 1;
not_plain:
	free(xyz);
	return 0;
}

/* A plain flat "positions" or "indices" array at s[i] ('['): one or more
 * numbers.  As
 * plain_array(): 1 (*end past its ']', the numbers in *a), 0 when it is
 * anything else (for the decoder to report), -1 out of memory. */
static int plain_flat(const char *s, size_t len, size_t i, size_t *end, vertex_array *a)
{
	size_t cap = 0, count = 0;
	double *xyz = NULL;
	i = json_scan_skip_ws(s, len, i + 1);
	for (;;) {
		double x;
		if (!plain_number(s, len, &i, &x))
			goto not_plain;
		if (room_for(&xyz, &cap, count, 192) != 0) /* 64 points first */
			return -1;
		xyz[count++] = x;
		enum json_scan_next next = json_scan_after(s, len, &i, ']');
		if (next == JSON_SCAN_CLOSED)
			break;
		if (next != JSON_SCAN_MORE)
			goto not_plain;
	}
	*end = i;
	a->n = count;
	a->d = 1;
	a->xyz = xyz;
	a->marker = NULL;
	a->flat = 1;
	return 1;
not_plain:
	free(xyz);
	return 0;
}

/* The tree jansson would build, built straight from the text: ASCII
 * strings without escapes, numbers, literals, objects and arrays, with each
 * plain "vertices" (or "positions") array read into the table and standing
 * in the tree as an empty array.  Anything else (an escape, a byte outside printable
 * ASCII in a string, a duplicate member, malformed text, nesting past
 * SCAN_MAX_DEPTH) ends the build with status 1, and the text is parsed
 * the usual way. */
#define SCAN_MAX_DEPTH 64

typedef struct builder {
	const char *s;
	size_t len, i;
	vertex_table *t;
	size_t depth, deepest; /* open containers; the most ever open */
	int status;            /* 0; 1 not understood; -1 out of memory */
} builder;

static json_t *give_up(builder *b, int status)
{
	if (!b->status)
		b->status = status;
	return NULL;
}

/* A string at b->s[b->i] ('"') of plain ASCII: its text [*start, *start +
 * *n); b->i past the closing quote.  0, or 1 for anything else. */
static int plain_string(builder *b, size_t *start, size_t *n)
{
	size_t j = b->i + 1;
	for (; j < b->len; j++) {
		unsigned char c = (unsigned char)b->s[j];
		if (c == '"')
			break;
		/* jansson refuses control characters; escapes and UTF-8
		 * would need decoding and checking: the usual parse. */
		if (c < 0x20 || c >= 0x80 || c == '\\')
			return 1;
	}
	if (j >= b->len)
		return 1;
	*start = b->i + 1;
	*n = j - b->i - 1;
	b->i = j + 1;
	return 0;
}

/* What a member's name says of its value: a "vertices", "positions" or
 * "indices" array to read into the table when plain. */
enum read_as {
	READ_NONE,
	READ_VERTICES,
	READ_FLAT
};

static json_t *build_value(builder *b, enum read_as as);

/* Past a container's opening bracket and the blanks after it: 0, an
 * element follows; 2, it closes at once (`close`: b->i past it); 1, it
 * opens a level past SCAN_MAX_DEPTH. */
static int open_container(builder *b, char close)
{
	if (b->depth == SCAN_MAX_DEPTH)
		return 1;
	b->depth++;
	if (b->depth > b->deepest)
		b->deepest = b->depth;
	b->i = json_scan_skip_ws(b->s, b->len, b->i + 1);
	if (b->i < b->len && b->s[b->i] == close) {
		b->i++;
		b->depth--;
		return 2;
	}
	return 0;
}

/* After an element: a ',' (more) or the closing byte (one level less). */
static enum json_scan_next after_element(builder *b, char close)
{
	enum json_scan_next next = json_scan_after(b->s, b->len, &b->i, close);
	if (next == JSON_SCAN_CLOSED)
		b->depth--;
	return next;
}

/* An object's member name and its colon; how to read the value (plain
 * vertex arrays by name) into *as.  0 when they are not there. */
static int member_key(builder *b, const char **k, size_t *klen, enum read_as *as)
{
	size_t key;
	if (b->i >= b->len || b->s[b->i] != '"' || plain_string(b, &key, klen) != 0)
		return 0;
	b->i = json_scan_skip_ws(b->s, b->len, b->i);
	if (b->i >= b->len || b->s[b->i] != ':')
		return 0;
	b->i = json_scan_skip_ws(b->s, b->len, b->i + 1);
	*k = b->s + key;
	*as = READ_NONE;
	if (*klen == 8 && memcmp(*k, "vertices", 8) == 0)
		*as = READ_VERTICES;
	else if ((*klen == 9 && memcmp(*k, "positions", 9) == 0) ||
	         (*klen == 7 && memcmp(*k, "indices", 7) == 0))
		*as = READ_FLAT;
	return 1;
}

/* An object (close '}') or an array (']'): its elements built in turn,
 * an object's under their names (a duplicate name is jansson's error). */
static json_t *build_container(builder *b, char close)
{
	int opened = open_container(b, close);
	if (opened == 1)
		return give_up(b, 1);
	json_t *c = close == '}' ? json_object() : json_array();
	if (!c || opened == 2)
		return c ? c : give_up(b, -1);
	for (;;) {
		const char *k = NULL;
		size_t klen = 0;
		enum read_as as = READ_NONE;
		if (close == '}' && !member_key(b, &k, &klen, &as))
			goto fail;
		json_t *v = build_value(b, as);
		if (!v)
			goto fail;
		if (close == '}' && json_object_getn(c, k, klen)) {
			json_decref(v);
			goto fail;
		}
		if ((close == '}' ? json_object_setn_new_nocheck(c, k, klen, v)
		                  : json_array_append_new(c, v)) != 0) {
			give_up(b, -1);
			goto fail;
		}
		enum json_scan_next next = after_element(b, close);
		if (next == JSON_SCAN_CLOSED)
			return c;
		if (next != JSON_SCAN_MORE)
			goto fail;
	}
fail:
	json_decref(c);
	return give_up(b, 1);
}

/* true, false, null: the whole word (jansson's lexer reads a run of
 * letters, then compares). */
static json_t *build_literal(builder *b)
{
	static const struct {
		const char *word;
		size_t n;
	} words[] = {{"true", 4}, {"false", 5}, {"null", 4}};
	size_t j = b->i;
	while (j < b->len &&
	       ((b->s[j] >= 'a' && b->s[j] <= 'z') || (b->s[j] >= 'A' && b->s[j] <= 'Z')))
		j++;
	for (int w = 0; w < 3; w++) {
		if (j - b->i == words[w].n && memcmp(b->s + b->i, words[w].word, words[w].n) == 0) {
			b->i = j;
			json_t *v = w == 0 ? json_true() : w == 1 ? json_false() : json_null();
			return v ? v : give_up(b, -1);
		}
	}
	return give_up(b, 1);
}

/* The value at b->s[b->i] (no blank before it). */
static json_t *build_value(builder *b, enum read_as as)
{
	const char *s = b->s;
	if (b->i >= b->len)
		return give_up(b, 1);
	char c = s[b->i];
	if (c == '{')
		return build_container(b, '}');
	if (c == '[') {
		if (as != READ_NONE) {
			vertex_array a;
			size_t end;
			int rc = as == READ_VERTICES ? plain_array(s, b->len, b->i, &end, &a)
			                             : plain_flat(s, b->len, b->i, &end, &a);
			if (rc < 0)
				return give_up(b, -1);
			if (rc == 1) {
				/* The array and its points: two levels (a flat
				 * array, one). */
				size_t levels = as == READ_VERTICES ? 2 : 1;
				if (b->depth + levels > b->deepest)
					b->deepest = b->depth + levels;
				json_t *marker = json_array();
				a.marker = marker;
				if (!marker || proto_vertex_table_add(b->t, &a) != 0) {
					json_decref(marker);
					free(a.xyz);
					return give_up(b, -1);
				}
				b->i = end;
				return marker;
			}
		}
		return build_container(b, ']');
	}
	if (c == '"') {
		size_t start, n;
		if (plain_string(b, &start, &n) != 0)
			return give_up(b, 1);
		json_t *v = json_stringn_nocheck(s + start, n); /* ASCII: valid UTF-8 */
		return v ? v : give_up(b, -1);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		/* All of the run of number characters, as jansson's lexer
		 * takes them (DECODE_INT_AS_REAL: every number a real). */
		double x;
		int bad;
		size_t j = b->i + number_prefix(s + b->i, b->len - b->i, &x, &bad);
		if (j == b->i || bad || (j < b->len && json_scan_is_number_char(s[j])))
			return give_up(b, 1);
		b->i = j;
		json_t *v = json_real(x);
		return v ? v : give_up(b, -1);
	}
	return build_literal(b);
}

int proto_parse_query_text(const char *body, size_t len, const proto_context *ctx, json_t **root,
                           proto_problem *p, enum proto_limit *which, vertex_table **table)
{
	*table = NULL;
	if (ctx->plain_parse)
		return proto_parse_ex(body, len, &ctx->limits, root, p, which);
	vertex_table *t = proto_vertex_table_new();
	if (!t)
		return -1;
	builder b = {.s = body, .len = len, .t = t};
	b.i = json_scan_skip_ws(body, len, 0);
	json_t *tree = build_value(&b, READ_NONE);
	if (tree && json_scan_skip_ws(body, len, b.i) != len) {
		json_decref(tree); /* more after the value: jansson's error */
		tree = NULL;
		b.status = 1;
	}
	if (b.status < 0) {
		proto_vertex_table_free(t);
		return -1;
	}
	if (!tree) /* for the usual problem */
		goto usual;

	proto_vertex_table_seal(t);
	const proto_request_limits *limits = &ctx->limits;
	*which = PROTO_LIMIT_NONE;
	/* The build has measured the nesting: the byte scan of the limit runs
	 * only when it is exceeded (for its problem; the text is JSON, so the
	 * two count alike). */
	int r = 0;
	if (limits->max_depth && b.deepest > limits->max_depth)
		r = proto_limits_depth(body, len, limits->max_depth, p);
	if (r == 0) {
		r = proto_limits_tree(tree, t, limits, p, which);
	} else if (r == 1) {
		*which = PROTO_LIMIT_DEPTH;
	}
	if (r) {
		json_decref(tree);
		proto_vertex_table_free(t);
		return r;
	}
	*root = tree;
	if (proto_vertex_table_count(t) == 0) { /* e.g. every shape by ref */
		proto_vertex_table_free(t);
		t = NULL;
	}
	*table = t;
	return 0;
usual:
	proto_vertex_table_free(t);
	return proto_parse_ex(body, len, &ctx->limits, root, p, which);
}
