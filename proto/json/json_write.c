/*
 * json_write.c — JSON text without jansson and without printf (see
 * json_write.h): the bytes json_dumps writes for numbers and strings,
 * several times faster for number-heavy Results and log lines.
 *
 * A double's P significant digits are computed exactly with 128-bit
 * integers (snprintf for the rare exponents out of their range and for
 * subnormals), rounded half to even as glibc rounds, laid out as %g lays
 * them out and patched as jansson patches them.  Strings are escaped as
 * jansson escapes them without flags; a byte that does not start valid
 * UTF-8 is replaced (jansson would refuse the string; the log writes '?',
 * replies U+FFFD).  The test suite compares every form with jansson's own
 * dump and with snprintf on millions of values.  Why, and the exact rules:
 * docs/design.md, "proto/json/json_write.c".
 */
#include "json_write.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* 5^n for 0 <= n <= 54. */
static u128 pow5(int n)
{
	static const uint64_t small[28] = {
		1ULL,
		5ULL,
		25ULL,
		125ULL,
		625ULL,
		3125ULL,
		15625ULL,
		78125ULL,
		390625ULL,
		1953125ULL,
		9765625ULL,
		48828125ULL,
		244140625ULL,
		1220703125ULL,
		6103515625ULL,
		30517578125ULL,
		152587890625ULL,
		762939453125ULL,
		3814697265625ULL,
		19073486328125ULL,
		95367431640625ULL,
		476837158203125ULL,
		2384185791015625ULL,
		11920928955078125ULL,
		59604644775390625ULL,
		298023223876953125ULL,
		1490116119384765625ULL,
		7450580596923828125ULL,
	};
	return n < 28 ? small[n] : (u128)small[27] * small[n - 27];
}

static const uint64_t pow10_u64[18] = {
	1ULL,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
};

/* x (finite, > 0, normal) as P significant digits D (10^(P-1) <= D < 10^P,
 * 1 <= P <= 17) and k with x ~ D * 10^(k-P+1), rounded half to even on the
 * exact value.  0 when out of the exact range. */
static int digits_of(double x, int P, uint64_t *digits, int *k_out)
{
	const uint64_t lo = pow10_u64[P - 1], hi = pow10_u64[P];
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	int e2 = (int)((bits >> 52) & 0x7FF) - 1075; /* x = m * 2^e2 exactly (normal) */
	/* 2^(e2+52) <= x < 2^(e2+53): a first guess of floor(log10 x), off
	 * by at most one; the loop below settles it. */
	int k = (int)floor((double)(e2 + 52) * 0.30102999566398120);
	for (int attempt = 0; attempt < 3; attempt++) {
		/* x * 10^p = q + r / den exactly, 0 <= r < den */
		int p = P - 1 - k;
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
		/* k is right when 10^(P-1) <= floor(x * 10^(P-1-k)) < 10^P. */
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

/* jansson's touches to a %.{P}g text (jsonp_dtostr). */
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

/* %.{P}g of x, or with `jansson` that text as jansson patches it: no '+'
 * and no leading zeros in the exponent, ".0" when there is neither '.'
 * nor 'e'. */
static size_t real_g(double x, int P, int jansson, char *b)
{
	uint64_t d;
	int k;
	char *o = b;
	if (x == 0) {
		const char *z = signbit(x) ? (jansson ? "-0.0" : "-0") : (jansson ? "0.0" : "0");
		size_t n = strlen(z);
		memcpy(b, z, n + 1);
		return n;
	}
	if (!isnormal(x) || !digits_of(fabs(x), P, &d, &k)) {
		int n = snprintf(b, PROTO_REAL_MAX - 3, "%.*g", P, x);
		return jansson ? jansson_patch(b, (size_t)n) : (size_t)n;
	}
	if (x < 0)
		*o++ = '-';
	/* The digits, two at a time (a Result writes a dozen numbers). */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char dig[18];
	int i = P;
	for (; i >= 2; i -= 2) {
		memcpy(dig + i - 2, pairs + 2 * (d % 100), 2);
		d /= 100;
	}
	if (i == 1)
		dig[0] = (char)('0' + d);
	int nd = P; /* significant digits once trailing zeros are dropped */
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (k < -4 || k >= P) {
		/* d.ddde-X / d.ddde+X; jansson's exponent has no '+' and no
		 * leading zeros, printf's at least two digits */
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
		} else if (!jansson) {
			*o++ = '+';
		}
		char t[8];
		int nt = 0;
		while (e > 0) {
			t[nt++] = (char)('0' + e % 10);
			e /= 10;
		}
		if (!jansson)
			while (nt < 2)
				t[nt++] = '0';
		while (nt > 0)
			*o++ = t[--nt];
	} else if (k >= 0) {
		/* k + 1 integer digits, then the rest ("." and the rest only
		 * when some is left; jansson then writes ".0") */
		memcpy(o, dig, (size_t)k + 1);
		o += k + 1;
		if (nd > k + 1) {
			*o++ = '.';
			memcpy(o, dig + k + 1, (size_t)(nd - k - 1));
			o += nd - k - 1;
		} else if (jansson) {
			*o++ = '.';
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

size_t proto_real_json(double x, int precision, char *b)
{
	assert(precision >= 1 && precision <= 17);
	return real_g(x, precision, 1, b);
}

size_t proto_real_g(double x, int precision, char *b)
{
	assert(precision >= 1 && precision <= 17);
	return real_g(x, precision, 0, b);
}

/* "%lld" of x written backwards, ending at `end`; returns its start. */
static char *int_digits(long long x, char *end)
{
	char *p = end;
	unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		*--p = '-';
	return p;
}

size_t proto_int_text(long long x, char *out)
{
	char b[PROTO_INT_MAX];
	char *p = int_digits(x, b + sizeof b);
	size_t n = (size_t)(b + sizeof b - p);
	memcpy(out, p, n);
	return n;
}

size_t proto_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0];
	if (c < 0x80)
		return 1;
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (len == 0 || c > 0xf4 || n < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3- and 4-byte forms, surrogates, past U+10FFFF */
	if ((c == 0xe0 && u[1] < 0xa0) || (c == 0xed && u[1] >= 0xa0) ||
	    (c == 0xf0 && u[1] < 0x90) || (c == 0xf4 && u[1] >= 0x90))
		return 0;
	return len;
}

/* A byte written as it is: printable ASCII but the quote and backslash. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* n bytes of src at out + o, unless only counting (out NULL). */
static size_t put(char *out, size_t o, const char *src, size_t n)
{
	if (out)
		memcpy(out + o, src, n);
	return o + n;
}

size_t proto_string_escape(char *out, size_t room, const char *s, size_t n, const char *bad,
                           size_t *used)
{
	static const char hex[] = "0123456789ABCDEF", shortcut[] = "btn\0fr";
	size_t nbad = strlen(bad), o = 0, i = 0;
	while (i < n && room - o >= PROTO_ESCAPE_MARGIN) {
		unsigned char c = (unsigned char)s[i];
		if (plain(c)) {
			/* A run at once, as long as the margin holds after each byte. */
			size_t end = room - o - PROTO_ESCAPE_MARGIN < n - i - 1
			                     ? i + (room - o - PROTO_ESCAPE_MARGIN) + 1
			                     : n,
			       j = i + 1;
			while (j < end && plain((unsigned char)s[j]))
				j++;
			o = put(out, o, s + i, j - i);
			i = j;
		} else if (c >= 0x80) {
			size_t k = proto_utf8_len(s + i, n - i);
			o = k ? put(out, o, s + i, k) : put(out, o, bad, nbad);
			i += k ? k : 1;
		} else {
			char esc[6] = {'\\', (char)c}; /* \" and \\ */
			size_t k = 2;
			if (c >= '\b' && c <= '\r' && c != '\v') {
				esc[1] = shortcut[c - '\b'];
			} else if (c < 0x20) {
				memcpy(esc + 1, "u00", 3);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				k = 6;
			}
			o = put(out, o, esc, k);
			i++;
		}
	}
	*used = i;
	return o;
}

void proto_text_real(proto_text *t, double x)
{
	if (PROTO_REAL_MAX >= t->cap - t->len && proto_text_reserve(t, PROTO_REAL_MAX) != 0)
		return;
	t->len += real_g(x, 17, 1, t->s + t->len);
}

void proto_text_reals(proto_text *t, const double *x, int n)
{
	proto_text_put(t, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			proto_text_put(t, ",", 1);
		proto_text_real(t, x[i]);
	}
	proto_text_put(t, "]", 1);
}

void proto_text_int(proto_text *t, long long x)
{
	char b[PROTO_INT_MAX];
	char *p = int_digits(x, b + sizeof b);
	proto_text_put(t, p, (size_t)(b + sizeof b - p));
}

void proto_text_string(proto_text *t, const char *s, size_t n)
{
	/* Most strings (ids, method names) need no escape: copied at once. */
	size_t run = 0;
	while (run < n && plain((unsigned char)s[run]))
		run++;
	proto_text_putc(t, '"');
	if (run < n) {
		/* Sized first, so that the buffer grows as putting the text
		 * would make it grow, and no more (a reply sized up front stays
		 * the size it was given). */
		size_t used, len = proto_string_escape(NULL, SIZE_MAX, s, n, PROTO_UTF8_REPLACEMENT,
		                                       &used);
		if (len >= t->cap - t->len && proto_text_reserve(t, len) != 0)
			return;
		t->len += proto_string_escape(t->s + t->len, SIZE_MAX, s, n, PROTO_UTF8_REPLACEMENT,
		                              &used);
	} else {
		proto_text_put(t, s, n);
	}
	proto_text_putc(t, '"');
}
