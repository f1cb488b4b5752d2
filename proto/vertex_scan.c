/*
 * vertex_scan.c — plain vertex arrays read without jansson.
 *
 * Why: a Query is mostly vertex coordinates, and jansson spends most of a
 * small query's time on them: a lexer that reads byte by byte through a
 * callback, a json_t allocated (and later freed) per number, an array per
 * point.  Here a "vertices" member whose value is plain — an array of one
 * or more arrays of 1 to 8 numbers, all of the same length — is read
 * straight into doubles, and jansson parses a copy of the text in which
 * that value is "[]" (a short document: the rest of the query).
 *
 * The answer never changes, only its speed:
 *   - a number is read exactly as jansson reads it: the same grammar
 *     (RFC 8259), then strtod on the same characters — or, for at most 15
 *     digits and a power of ten within 10^±22, one exact multiplication or
 *     division of two doubles, which IEEE rounds exactly as strtod does
 *     (Clinger's fast path);
 *   - an array with anything else in it (a string, a nested array, points
 *     of different lengths, a number out of range ...) is left in the text
 *     for jansson and the decoder, which report it as always;
 *   - the copy parses exactly when the text does (only valid arrays were
 *     replaced); when it does not, or anything else looks odd (a member
 *     name with an escape, structure the scan did not expect), the text is
 *     parsed the usual way, so every problem is the usual one;
 *   - the scan measures how deep the text nests, so the byte scan of the
 *     depth limit (request_limits.c) runs only when that is exceeded, for
 *     its problem; a number is read in the same pass that finds its end;
 *   - the tree's empty arrays are matched to the arrays read by counting
 *     "vertices" members in document order (jansson keeps insertion order,
 *     duplicates are refused), and the decoder (query.c) and the limits
 *     (request_limits.c) ask proto_vertex_lookup() for them.
 * The table lives in a thread-local pointer while the one query is decoded,
 * so no signature of the decoder had to change.
 */
#include "vertex_scan.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "query.h"
#include "request_limits.h"

#define MAX_POINT_DIM 8

typedef struct read_array {
	size_t start, end;   /* the array's text, [start, end) */
	size_t occurrence;   /* which "vertices" member of the document */
	vertex_array a;
} read_array;

struct vertex_table {
	read_array *arrays;
	size_t n, cap;
};

static _Thread_local const vertex_table *current;
static int enabled = 1;

void proto_set_vertex_scan(int on)
{
	enabled = on;
}

void proto_vertex_use(const vertex_table *t)
{
	current = t;
}

const vertex_array *proto_vertex_lookup(const json_t *v)
{
	const vertex_table *t = current;
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->arrays[i].a.marker == v)
			return &t->arrays[i].a;
	return NULL;
}

void proto_vertex_table_free(vertex_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->arrays[i].a.xyz);
	free(t->arrays);
	free(t);
}

/* ---- numbers ------------------------------------------------------------- */

static const double exact_pow10[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

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

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && is_ws(s[i]))
		i++;
	return i;
}

static int is_number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* A plain vertex array at s[i] ('['): 1 on success (*end past its ']',
 * the numbers in *a); 0 when it is anything else; -1 out of memory. */
static int plain_array(const char *s, size_t len, size_t i, size_t *end, vertex_array *a)
{
	size_t cap = 0, count = 0, d = 0;
	double *xyz = NULL;
	i = skip_ws(s, len, i + 1);
	for (;;) {
		if (i >= len || s[i] != '[')
			goto not_plain;
		i = skip_ws(s, len, i + 1);
		size_t k = 0;
		for (;;) {
			/* The number, which must be all of the run of number
			 * characters there (as jansson's lexer takes them). */
			double x;
			int bad;
			size_t j = i + number_prefix(s + i, len - i, &x, &bad);
			if (j == i || bad || (j < len && is_number_char(s[j])))
				goto not_plain;
			if (k == MAX_POINT_DIM || (d && k == d))
				goto not_plain;
			/* Point 0 sets the length d; until then it is the only one. */
			size_t at = d ? count * d + k : k;
			if (at >= cap) {
				/* From 64 numbers (512 bytes: a small pair's shape
				 * fits; glibc serves it from its per-thread cache,
				 * where 4 KiB would make it sort its free lists). */
				size_t grown = cap ? 2 * cap : 64;
				double *g = realloc(xyz, grown * sizeof *g);
				if (!g) {
					free(xyz);
					return -1;
				}
				xyz = g;
				cap = grown;
			}
			xyz[at] = x;
			k++;
			i = skip_ws(s, len, j);
			if (i < len && s[i] == ',') {
				i = skip_ws(s, len, i + 1);
				continue;
			}
			if (i < len && s[i] == ']')
				break;
			goto not_plain;
		}
		if (!d) {
			d = k;
		} else if (k != d) {
			goto not_plain;
		}
		count++;
		i = skip_ws(s, len, i + 1);
		if (i < len && s[i] == ',') {
			i = skip_ws(s, len, i + 1);
			continue;
		}
		if (i < len && s[i] == ']')
			break;
		goto not_plain;
	}
	*end = i + 1;
	a->n = count;
	a->d = d;
	a->xyz = xyz;
	a->marker = NULL;
	return 1;
not_plain:
	free(xyz);
	return 0;
}

static int table_add(vertex_table *t, const read_array *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4;
		read_array *g = realloc(t->arrays, cap * sizeof *g);
		if (!g)
			return -1;
		t->arrays = g;
		t->cap = cap;
	}
	t->arrays[t->n++] = *r;
	return 0;
}

/* Find the plain "vertices" arrays.  0 (t may hold none), -1 out of
 * memory, 1 when the text is not one the scan understands (then the usual
 * parse answers).  *deepest: how deep arrays and objects nest (a plain
 * array and its points count two levels), as proto_limits_depth counts
 * them in valid JSON. */
static int scan(const char *s, size_t len, vertex_table *t, size_t *deepest)
{
	enum { VALUE, KEY, COLON, AFTER } state = VALUE;
	char stack[64]; /* '{' or '[' of the open containers */
	size_t depth = 0, occurrence = 0;
	int vertices_key = 0; /* the key just read is "vertices" */
	size_t i = 0;
	while ((i = skip_ws(s, len, i)) < len) {
		char c = s[i];
		if (c == '"') {
			size_t j = i + 1;
			int escaped = 0;
			for (; j < len && s[j] != '"'; j++)
				if (s[j] == '\\') {
					escaped = 1;
					j++;
				}
			if (j >= len)
				return 1;
			if (state == KEY) {
				if (escaped)
					return 1; /* a name we would have to decode */
				vertices_key = j - i - 1 == 8 && memcmp(s + i + 1, "vertices", 8) == 0;
				if (vertices_key)
					occurrence++;
				state = COLON;
			} else if (state == VALUE) {
				vertices_key = 0;
				state = AFTER;
			} else {
				return 1;
			}
			i = j + 1;
			continue;
		}
		switch (c) {
		case '{':
		case '[': {
			if (state != VALUE || depth == sizeof stack)
				return 1;
			int want = c == '[' && vertices_key;
			vertices_key = 0;
			if (want) {
				read_array r = {.start = i, .occurrence = occurrence - 1};
				int rc = plain_array(s, len, i, &r.end, &r.a);
				if (rc < 0)
					return -1;
				if (rc == 1) {
					if (depth + 2 > *deepest)
						*deepest = depth + 2;
					if (table_add(t, &r) != 0) {
						free(r.a.xyz);
						return -1;
					}
					i = r.end;
					state = AFTER;
					continue;
				}
			}
			stack[depth++] = c;
			if (depth > *deepest)
				*deepest = depth;
			state = c == '{' ? KEY : VALUE;
			i++;
			/* an empty container closes at once */
			i = skip_ws(s, len, i);
			if (i < len && s[i] == (c == '{' ? '}' : ']')) {
				depth--;
				state = AFTER;
				i++;
			}
			continue;
		}
		case '}':
		case ']':
			if (state != AFTER || depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '['))
				return 1;
			depth--;
			i++;
			continue;
		case ':':
			if (state != COLON)
				return 1;
			state = VALUE;
			i++;
			continue;
		case ',':
			if (state != AFTER || depth == 0)
				return 1;
			state = stack[depth - 1] == '{' ? KEY : VALUE;
			vertices_key = 0;
			i++;
			continue;
		default:
			if (state != VALUE)
				return 1;
			while (i < len && !is_ws(s[i]) && s[i] != ',' && s[i] != ']' && s[i] != '}')
				i++;
			vertices_key = 0;
			state = AFTER;
			continue;
		}
	}
	return depth == 0 && state == AFTER ? 0 : 1;
}

/* Match the tree's "vertices" members, in document order, with the
 * arrays read.  0, or 1 when they do not match (then the usual parse). */
static int match(const json_t *v, vertex_table *t, size_t *occurrence, size_t *next)
{
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			if (match(json_array_get(v, i), t, occurrence, next))
				return 1;
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	const char *key;
	json_t *member;
	json_object_foreach((json_t *)v, key, member) {
		if (strcmp(key, "vertices") == 0) {
			size_t k = (*occurrence)++;
			if (*next < t->n && t->arrays[*next].occurrence == k) {
				if (!json_is_array(member) || json_array_size(member) != 0)
					return 1;
				t->arrays[(*next)++].a.marker = member;
				continue;
			}
		}
		if (match(member, t, occurrence, next))
			return 1;
	}
	return 0;
}

int proto_parse_query_text(const char *body, size_t len, json_t **root, proto_problem *p,
                           enum proto_limit *which, vertex_table **table)
{
	*table = NULL;
	if (!enabled)
		return proto_parse_ex(body, len, root, p, which);
	vertex_table *t = calloc(1, sizeof *t);
	if (!t)
		return -1;
	size_t deepest = 0;
	int rc = scan(body, len, t, &deepest);
	if (rc < 0) {
		proto_vertex_table_free(t);
		return -1;
	}
	if (rc != 0 || t->n == 0)
		goto usual;

	/* The text with each array read replaced by "[]". */
	char *copy = malloc(len + 1);
	if (!copy) {
		proto_vertex_table_free(t);
		return -1;
	}
	size_t o = 0, from = 0;
	for (size_t i = 0; i < t->n; i++) {
		memcpy(copy + o, body + from, t->arrays[i].start - from);
		o += t->arrays[i].start - from;
		copy[o++] = '[';
		copy[o++] = ']';
		from = t->arrays[i].end;
	}
	memcpy(copy + o, body + from, len - from);
	o += len - from;

	const proto_request_limits *limits = proto_get_limits();
	*which = PROTO_LIMIT_NONE;
	/* The scan has measured the nesting: the byte scan of the limit runs
	 * only when it is exceeded (for its problem).  Should the text not be
	 * JSON after all, the usual parse below checks the depth itself. */
	int r = 0;
	if (limits->max_depth && deepest > limits->max_depth)
		r = proto_limits_depth(body, len, limits->max_depth, p);
	if (r) {
		free(copy);
		proto_vertex_table_free(t);
		if (r == 1)
			*which = PROTO_LIMIT_DEPTH;
		return r;
	}
	json_error_t e;
	json_t *tree = json_loadb(copy, o,
	                          JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL,
	                          &e);
	free(copy);
	size_t occurrence = 0, next = 0;
	if (!tree || match(tree, t, &occurrence, &next) != 0 || next != t->n) {
		json_decref(tree);
		goto usual;
	}
	proto_vertex_use(t);
	r = proto_limits_tree(tree, limits, p, which);
	proto_vertex_use(NULL);
	if (r) {
		json_decref(tree);
		proto_vertex_table_free(t);
		return r;
	}
	*root = tree;
	*table = t;
	return 0;
usual:
	proto_vertex_table_free(t);
	return proto_parse_ex(body, len, root, p, which);
}
