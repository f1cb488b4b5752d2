/*
 * json_dump.c — replies written without printf: the same bytes as
 * json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17)), several times
 * faster for number-heavy Results.
 *
 * Why: a Result holds a dozen doubles, each written with 17 significant
 * digits so that it reads back bit for bit; glibc's printf("%.17g") works
 * in arbitrary precision and was a third of answering a small query after
 * parsing it.  Here the 17 digits are computed exactly with 128-bit
 * integers: for x = m * 2^e (m < 2^53) and 10^k <= x < 10^(k+1), the digits
 * are round(x * 10^(16-k)), a quotient of integers that fit in 128 bits
 * whenever k is within about [-16, 40] (any coordinate, distance or
 * normal a query sensibly has); it is rounded half to even on the exact
 * remainder, as glibc rounds.  Outside that range (and for subnormals)
 * snprintf does it.  Then the text is laid out as %g lays it out, and
 * patched as jansson patches it (jsonp_dtostr: ".0" when there is neither
 * '.' nor 'e'; no '+' and no leading zeros in the exponent).  The test
 * suite compares every form with jansson's own dump on millions of values.
 *
 * Strings are escaped as jansson escapes them without flags: '"', '\\'
 * and control characters (\b \f \n \r \t, else \u00XX); UTF-8 (valid in
 * any json_t string) passes through.  Object members keep insertion
 * order, as jansson's dump does without JSON_SORT_KEYS.
 */
#include "json_dump.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

typedef struct out {
	char *s;
	size_t len, cap;
	int failed;
} out;

static void reserve(out *o, size_t more)
{
	if (o->failed || o->len + more + 1 <= o->cap)
		return;
	size_t cap = o->cap ? o->cap : 256;
	while (cap < o->len + more + 1)
		cap *= 2;
	char *s = realloc(o->s, cap);
	if (!s) {
		o->failed = 1;
		return;
	}
	o->s = s;
	o->cap = cap;
}

static void put(out *o, const char *p, size_t n)
{
	reserve(o, n);
	if (o->failed)
		return;
	memcpy(o->s + o->len, p, n);
	o->len += n;
}

static void putc1(out *o, char c)
{
	reserve(o, 1);
	if (!o->failed)
		o->s[o->len++] = c;
}

/* 5^n for 0 <= n <= 54. */
static u128 pow5(int n)
{
	static const uint64_t small[28] = {
		1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
		9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
		152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL, 95367431640625ULL,
		476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
		298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL,
	};
	return n < 28 ? small[n] : (u128)small[27] * small[n - 27];
}

/* x (finite, > 0, normal) as 17 digits D (10^16 <= D < 10^17) and k with
 * x ~ D * 10^(k-16).  0 when out of the exact range. */
static int digits17(double x, uint64_t *digits, int *k_out)
{
	static const uint64_t lo = 10000000000000000ULL, hi = 100000000000000000ULL;
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	int e2 = (int)((bits >> 52) & 0x7FF) - 1075; /* x = m * 2^e2 exactly (normal) */
	/* 2^(e2+52) <= x < 2^(e2+53): a first guess of floor(log10 x), off
	 * by at most one; the loop below settles it. */
	int k = (int)floor((double)(e2 + 52) * 0.30102999566398120);
	for (int attempt = 0; attempt < 3; attempt++) {
		/* x * 10^p = q + r / den exactly, 0 <= r < den */
		int p = 16 - k;
		u128 q, r, den;
		if (p >= 0) {
			if (p > 32)
				return 0;
			u128 n = (u128)m * pow5(p); /* < 2^53 * 5^32 < 2^128 */
			int sh = p + e2;
			if (sh >= 0) {
				if (sh > 10)
					return 0;
				q = n << sh;
				r = 0;
				den = 1;
			} else {
				if (-sh > 126)
					return 0;
				den = (u128)1 << -sh;
				q = n >> -sh;
				r = n & (den - 1);
			}
		} else {
			int nq = -p, sh = e2 - nq;
			if (nq > 54 || sh < 0 || sh > 74)
				return 0;
			u128 n = (u128)m << sh; /* < 2^127 */
			den = pow5(nq);         /* 5^54 < 2^126 */
			q = n / den;
			r = n % den;
		}
		/* k is right when 10^16 <= floor(x * 10^(16-k)) < 10^17. */
		if (q < lo) {
			k--;
			continue;
		}
		if (q >= hi) {
			k++;
			continue;
		}
		/* Round half to even on the exact remainder (r < den <= 2^126). */
		u128 twice = r * 2;
		if (twice > den || (twice == den && (q & 1)))
			q++;
		if (q == hi) { /* 99...9.5 rounds up to the next power of ten */
			q = lo;
			k++;
		}
		*digits = (uint64_t)q;
		*k_out = k;
		return 1;
	}
	return 0;
}

/* jansson's touches to a %.17g text (jsonp_dtostr). */
static size_t jansson_patch(char *b, size_t len)
{
	if (!strchr(b, '.') && !strchr(b, 'e')) {
		b[len++] = '.';
		b[len++] = '0';
		b[len] = '\0';
	}
	char *start = strchr(b, 'e');
	if (start) {
		start++;
		char *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - b) + 1);
			len -= (size_t)(end - start);
		}
	}
	return len;
}

size_t proto_real_text(double x, char *b)
{
	uint64_t d;
	int k;
	char *o = b;
	if (x == 0) {
		const char *z = signbit(x) ? "-0.0" : "0.0";
		size_t n = strlen(z);
		memcpy(b, z, n + 1);
		return n;
	}
	if (!isnormal(x) || !digits17(fabs(x), &d, &k)) {
		int n = snprintf(b, PROTO_REAL_MAX - 3, "%.17g", x);
		return jansson_patch(b, (size_t)n);
	}
	if (x < 0)
		*o++ = '-';
	char dig[17];
	for (int i = 16; i >= 0; i--) {
		dig[i] = (char)('0' + d % 10);
		d /= 10;
	}
	int nd = 17; /* significant digits once trailing zeros are dropped */
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (k < -4 || k >= 17) {
		/* d.ddde-X / d.ddde+X, then jansson's exponent without '+' or
		 * leading zeros */
		*o++ = dig[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		*o++ = 'e';
		int e = k;
		if (e < 0) {
			*o++ = '-';
			e = -e;
		}
		char t[8];
		int nt = 0;
		while (e > 0) {
			t[nt++] = (char)('0' + e % 10);
			e /= 10;
		}
		while (nt > 0)
			*o++ = t[--nt];
	} else if (k >= 0) {
		/* k + 1 integer digits, then the rest; ".0" when none is left */
		memcpy(o, dig, (size_t)k + 1);
		o += k + 1;
		*o++ = '.';
		if (nd > k + 1) {
			memcpy(o, dig + k + 1, (size_t)(nd - k - 1));
			o += nd - k - 1;
		} else {
			*o++ = '0';
		}
	} else {
		/* 0.000ddd */
		*o++ = '0';
		*o++ = '.';
		for (int z = 0; z < -k - 1; z++)
			*o++ = '0';
		memcpy(o, dig, (size_t)nd);
		o += nd;
	}
	*o = '\0';
	return (size_t)(o - b);
}

static void dump_string(out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	putc1(o, '"');
	size_t run = 0; /* bytes copied as they are, pending */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\') {
			run++;
			continue;
		}
		put(o, s + i - run, run);
		run = 0;
		char esc[6] = {'\\', 0};
		size_t len = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			len = 6;
			break;
		}
		put(o, esc, len);
	}
	put(o, s + n - run, run);
	putc1(o, '"');
}

static void dump(out *o, const json_t *v)
{
	char buf[PROTO_REAL_MAX];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		putc1(o, '{');
		const char *key;
		json_t *member;
		int first = 1;
		json_object_foreach((json_t *)v, key, member) {
			if (!first)
				putc1(o, ',');
			first = 0;
			dump_string(o, key, strlen(key));
			putc1(o, ':');
			dump(o, member);
		}
		putc1(o, '}');
		break;
	}
	case JSON_ARRAY:
		putc1(o, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i)
				putc1(o, ',');
			dump(o, json_array_get(v, i));
		}
		putc1(o, ']');
		break;
	case JSON_STRING:
		dump_string(o, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		int n = snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		put(o, buf, (size_t)n);
		break;
	}
	case JSON_REAL:
		put(o, buf, proto_real_text(json_real_value(v), buf));
		break;
	case JSON_TRUE:
		put(o, "true", 4);
		break;
	case JSON_FALSE:
		put(o, "false", 5);
		break;
	case JSON_NULL:
		put(o, "null", 4);
		break;
	}
}

char *proto_json_dump(const json_t *v, size_t *len)
{
	out o = {0};
	dump(&o, v);
	reserve(&o, 0);
	if (o.failed || !o.s) {
		free(o.s);
		return NULL;
	}
	o.s[o.len] = '\0';
	if (len)
		*len = o.len;
	return o.s;
}
