/*
 * pointer_scan.c — proto_pointer_at(): which value a JSON parser was reading
 * when it stopped.
 *
 * jansson reports a parse error as a byte offset (the end of the token it was
 * looking at) and a message, but no path.  Most parse errors are plain syntax
 * errors (400), where a pointer is a courtesy; one class matters more: a
 * number too large for a double (1e400, or a 400-digit integer) is perfectly
 * good JSON, yet jansson refuses the whole document.  Such a request deserves
 * a 422 naming the number, as if the decoder had seen it.  The text up to the
 * failing token was accepted by the parser, so a small structural scanner is
 * enough: a lexer that only finds token boundaries (numbers and literals are
 * runs of their characters, strings run to the closing quote), and a stack of
 * open containers holding, per level, the current member name (as a range of
 * the text, unescaped only when the pointer is rendered) or array index.  It
 * walks tokens until the one that reaches `pos` and names the slot the parser
 * was in.  Nothing here trusts the text further than that: an unexpected
 * token before `pos` simply ends the walk there, and the stack grows on the
 * heap, so any input is safe.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "pointer.h"
#include "text_buf.h"

enum token_kind {
	TOK_EOF,
	TOK_BEGIN_OBJECT, /* { */
	TOK_END_OBJECT,   /* } */
	TOK_BEGIN_ARRAY,  /* [ */
	TOK_END_ARRAY,    /* ] */
	TOK_COLON,
	TOK_COMMA,
	TOK_STRING, /* complete or not (then it runs to the end of the text) */
	TOK_SCALAR, /* a number or true/false/null, or a mistyped one */
	TOK_INVALID /* one byte no token can start with */
};

typedef struct token {
	enum token_kind kind;
	size_t start, end; /* [start, end) in the text, quotes included */
	int complete;      /* strings: the closing quote was found */
} token;

/* What the innermost open container (or the root) expects next. */
enum expect {
	EXPECT_VALUE,
	EXPECT_KEY,
	EXPECT_COLON,
	EXPECT_COMMA_OR_END,
	EXPECT_NOTHING /* the top-level value is complete */
};

typedef struct frame {
	int is_object;
	size_t index;              /* arrays: the element being read */
	size_t key_start, key_end; /* objects: the current name, quotes excluded */
} frame;

typedef struct scanner {
	const char *text;
	size_t len, at;
	frame *frames;
	size_t depth, cap;
	enum expect expect;
	int just_opened; /* the innermost container may still close empty */
} scanner;

/* Lexing: only token boundaries, as jansson draws them for valid JSON. */

static int is_scalar_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-' || c == '+' || c == '.';
}

static token lex(scanner *s)
{
	s->at = json_scan_skip_ws(s->text, s->len, s->at);
	token t = {TOK_EOF, s->at, s->at, 1};
	if (s->at >= s->len)
		return t;
	char c = s->text[s->at];
	switch (c) {
	case '{': t.kind = TOK_BEGIN_OBJECT; break;
	case '}': t.kind = TOK_END_OBJECT; break;
	case '[': t.kind = TOK_BEGIN_ARRAY; break;
	case ']': t.kind = TOK_END_ARRAY; break;
	case ':': t.kind = TOK_COLON; break;
	case ',': t.kind = TOK_COMMA; break;
	case '"': {
		size_t i = json_scan_string_end(s->text, s->len, s->at);
		t.kind = TOK_STRING;
		t.complete = i < s->len;
		if (t.complete)
			i++;
		t.end = i < s->len ? i : s->len;
		s->at = t.end;
		return t;
	}
	default:
		if (is_scalar_char(c)) {
			size_t i = s->at;
			while (i < s->len && is_scalar_char(s->text[i]))
				i++;
			t.kind = TOK_SCALAR;
			t.end = s->at = i;
			return t;
		}
		t.kind = TOK_INVALID;
	}
	t.end = ++s->at;
	return t;
}

/* Rendering the pointer. */

static unsigned hex4(const char *p, const char *end, int *ok)
{
	unsigned v = 0;
	*ok = end - p >= 4;
	for (int i = 0; *ok && i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			*ok = 0;
	}
	return v;
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Append "/" and the member name written as the JSON string body
 * text[start, end), unescaped from JSON and escaped per RFC 6901.  A lone
 * surrogate is written as its 3-byte form; the problem encoder replaces
 * whatever is not valid UTF-8. */
static void put_key(proto_text *b, const char *text, size_t start, size_t end)
{
	proto_text_put(b, "/", 1);
	const char *p = text + start, *e = text + end;
	while (p < e) {
		char dec[8];
		size_t n;
		if (*p != '\\') {
			n = 1;
			dec[0] = *p++;
		} else if (e - p < 2) {
			break; /* a lone backslash at the end of a cut-off string */
		} else {
			char c = p[1];
			p += 2;
			n = 1;
			switch (c) {
			case 'b': dec[0] = '\b'; break;
			case 'f': dec[0] = '\f'; break;
			case 'n': dec[0] = '\n'; break;
			case 'r': dec[0] = '\r'; break;
			case 't': dec[0] = '\t'; break;
			case 'u': {
				int ok;
				unsigned cp = hex4(p, e, &ok);
				if (!ok) {
					dec[0] = 'u';
					break;
				}
				p += 4;
				if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 6 && p[0] == '\\' &&
				    p[1] == 'u') {
					unsigned lo = hex4(p + 2, e, &ok);
					if (ok && lo >= 0xDC00 && lo < 0xE000) {
						cp = 0x10000 + ((cp - 0xD800) << 10) +
						     (lo - 0xDC00);
						p += 6;
					}
				}
				n = put_utf8(dec, cp);
				break;
			}
			default: dec[0] = c; /* \" \\ \/ (and anything malformed) */
			}
		}
		char esc[16];
		size_t m = proto_pointer_escape(esc, dec, n);
		proto_text_put(b, esc, m);
	}
}

static void put_segment(proto_text *b, const scanner *s, const frame *f)
{
	if (f->is_object) {
		put_key(b, s->text, f->key_start, f->key_end);
	} else {
		char num[32];
		int n = snprintf(num, sizeof num, "/%zu", f->index);
		proto_text_put(b, num, (size_t)n);
	}
}

/* The pointer of the innermost container (levels = depth - 1) or of the
 * slot it is reading (levels = depth), and optionally one more member name
 * token after that. */
static char *render(const scanner *s, size_t levels, const token *key)
{
	proto_text b = {0};
	for (size_t i = 0; i < levels; i++)
		put_segment(&b, s, &s->frames[i]);
	if (key) {
		size_t end = key->complete ? key->end - 1 : key->end;
		put_key(&b, s->text, key->start + 1, end);
	}
	return proto_text_finish(&b, NULL);
}

/* The pointer for a walk that stopped at token t (possibly TOK_EOF). */
static char *stopped_at(const scanner *s, const token *t)
{
	size_t container = s->depth ? s->depth - 1 : 0;
	switch (s->expect) {
	case EXPECT_VALUE:
		/* "[]" closing on the offending token is the container itself. */
		if (s->just_opened && t->kind == TOK_END_ARRAY)
			return render(s, container, NULL);
		return render(s, s->depth, NULL);
	case EXPECT_KEY:
		if (t->kind == TOK_STRING)
			return render(s, container, t);
		return render(s, container, NULL);
	case EXPECT_COLON: return render(s, s->depth, NULL);
	case EXPECT_COMMA_OR_END: return render(s, container, NULL);
	case EXPECT_NOTHING: break;
	}
	return render(s, 0, NULL);
}

static int push(scanner *s, int is_object)
{
	if (s->depth == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		frame *f = realloc(s->frames, cap * sizeof *f);
		if (!f)
			return -1;
		s->frames = f;
		s->cap = cap;
	}
	frame *f = &s->frames[s->depth++];
	memset(f, 0, sizeof *f);
	f->is_object = is_object;
	s->expect = is_object ? EXPECT_KEY : EXPECT_VALUE;
	s->just_opened = 1;
	return 0;
}

static void after_value(scanner *s)
{
	s->expect = s->depth ? EXPECT_COMMA_OR_END : EXPECT_NOTHING;
	s->just_opened = 0;
}

/* Advance over one token the parser accepted.  Returns 1 when done, 0 when
 * the token does not fit (the walk ends there), -1 when memory ran out. */
static int accept(scanner *s, const token *t)
{
	frame *top = s->depth ? &s->frames[s->depth - 1] : NULL;
	switch (s->expect) {
	case EXPECT_VALUE:
		switch (t->kind) {
		case TOK_BEGIN_OBJECT: return push(s, 1) == 0 ? 1 : -1;
		case TOK_BEGIN_ARRAY: return push(s, 0) == 0 ? 1 : -1;
		case TOK_END_ARRAY:
			if (!(top && !top->is_object && s->just_opened))
				return 0;
			s->depth--;
			after_value(s);
			return 1;
		case TOK_STRING:
		case TOK_SCALAR: after_value(s); return 1;
		default: return 0;
		}
	case EXPECT_KEY:
		if (t->kind == TOK_STRING) {
			top->key_start = t->start + 1;
			top->key_end = t->end - 1;
			s->expect = EXPECT_COLON;
			s->just_opened = 0;
			return 1;
		}
		if (t->kind == TOK_END_OBJECT && s->just_opened) {
			s->depth--;
			after_value(s);
			return 1;
		}
		return 0;
	case EXPECT_COLON:
		if (t->kind != TOK_COLON)
			return 0;
		s->expect = EXPECT_VALUE;
		return 1;
	case EXPECT_COMMA_OR_END:
		if (t->kind == TOK_COMMA) {
			if (top->is_object) {
				s->expect = EXPECT_KEY;
			} else {
				top->index++;
				s->expect = EXPECT_VALUE;
			}
			return 1;
		}
		if (t->kind == (top->is_object ? TOK_END_OBJECT : TOK_END_ARRAY)) {
			s->depth--;
			after_value(s);
			return 1;
		}
		return 0;
	case EXPECT_NOTHING: return 0;
	}
	return 0;
}

char *proto_pointer_at(const char *text, size_t len, size_t pos)
{
	scanner s = {.text = text, .len = len, .expect = EXPECT_VALUE};
	char *out = NULL;
	for (;;) {
		token t = lex(&s);
		if (t.kind == TOK_EOF || t.end >= pos || t.kind == TOK_INVALID || !t.complete) {
			out = stopped_at(&s, &t);
			break;
		}
		int r = accept(&s, &t);
		if (r < 0)
			break;
		if (r == 0) {
			out = stopped_at(&s, &t);
			break;
		}
	}
	free(s.frames);
	return out;
}
