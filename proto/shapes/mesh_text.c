/*
 * mesh_text.c — a text mesh file's vertex coordinates, rounded as
 * JavaScript rounds them (mesh_text.h).
 *
 * The STL walk follows libassimp 5.2.5's ASCII STL reader token by token,
 * so that the n-th vertex found here is the n-th vertex assimp made: a
 * token is "facet" (a face begins: three vertices may follow), "vertex"
 * and its three numbers, "endsolid" (the rest of its line skipped, then
 * another solid may begin) or anything else, skipped to the next space.
 * OBJ and PLY give their vertex lists, which assimp copies to each corner
 * that uses them.  Bytes past the end count as the NUL assimp puts there.
 * Whatever assimp would refuse needs no care: mesh_import.c uses these
 * values only where each is within a few float steps of assimp's own.
 */
#include "mesh_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk {
	const char *d;
	size_t len, pos;
} walk;

static char at(const walk *w, size_t i)
{
	return i < w->len ? w->d[i] : '\0';
}

static int line_end(char c)
{
	return c == '\r' || c == '\n' || c == '\0' || c == '\f';
}

static int space_or_line_end(char c)
{
	return c == ' ' || c == '\t' || line_end(c);
}

static void skip_spaces(walk *w)
{
	while (at(w, w->pos) == ' ' || at(w, w->pos) == '\t')
		w->pos++;
}

/* Spaces and line ends: 0 at the end of the text. */
static int skip_spaces_and_lines(walk *w)
{
	while (w->pos < w->len && (w->d[w->pos] == ' ' || w->d[w->pos] == '\t' ||
	                           w->d[w->pos] == '\r' || w->d[w->pos] == '\n'))
		w->pos++;
	return at(w, w->pos) != '\0';
}

static int word_is(const walk *w, const char *word)
{
	size_t n = strlen(word);
	return w->pos <= w->len && w->len - w->pos >= n && memcmp(w->d + w->pos, word, n) == 0;
}

/* assimp's test: the size is 84 + 50 x the count at byte 80 (in 32 bits). */
static int binary_sized(const char *d, size_t len)
{
	if (len < 84)
		return 0;
	uint32_t count;
	memcpy(&count, d + 80, sizeof count);
	return (uint32_t)(count * 50u + 84u) == (uint32_t)len;
}

/* Another solid begins at w->pos (spaces before it). */
static int solid_begins(const walk *w)
{
	walk v = *w;
	if (binary_sized(w->d + w->pos, w->len - w->pos))
		return 0;
	skip_spaces(&v);
	return v.pos + 5 < v.len && word_is(&v, "solid");
}

/* A plain decimal at w->pos, rounded to a double and that to a float:
 * 0, or -1 when it is none. */
static int number(walk *w, float *out)
{
	char buf[128];
	size_t i = w->pos, n = 0;
	if (at(w, i) == '+' || at(w, i) == '-')
		i++;
	for (; at(w, i) >= '0' && at(w, i) <= '9'; i++)
		n++;
	if (at(w, i) == '.')
		for (i++; at(w, i) >= '0' && at(w, i) <= '9'; i++)
			n++;
	if (n == 0)
		return -1;
	if (at(w, i) == 'e' || at(w, i) == 'E') {
		size_t e = 0;
		i += at(w, i + 1) == '+' || at(w, i + 1) == '-' ? 2 : 1;
		for (; at(w, i) >= '0' && at(w, i) <= '9'; i++)
			e++;
		if (e == 0)
			return -1;
	}
	if (!space_or_line_end(at(w, i)) || i - w->pos >= sizeof buf)
		return -1;
	memcpy(buf, w->d + w->pos, i - w->pos);
	buf[i - w->pos] = '\0';
	*out = (float)strtod(buf, NULL);
	w->pos = i;
	return 0;
}

/* The three numbers of a vertex (after "vertex" and one byte). */
static int vertex(walk *w, float *xyz)
{
	for (int k = 0; k < 3; k++) {
		skip_spaces(w);
		if (number(w, &xyz[k]) != 0)
			return -1;
	}
	return 0;
}

static void store(float *out, size_t most, long i, const float xyz[3])
{
	if ((size_t)i < most)
		memcpy(out + 3 * i, xyz, 3 * sizeof *xyz);
}

long proto_mesh_text_stl(const char *data, size_t len, float *out, size_t most)
{
	walk w = {data, len, 0};
	long found = 0;
	while (solid_begins(&w)) {
		skip_spaces(&w);
		w.pos += 5;
		skip_spaces(&w);
		while (!space_or_line_end(at(&w, w.pos)))
			w.pos++; /* the solid's name */
		int corners = 3;
		while (skip_spaces_and_lines(&w)) {
			if (word_is(&w, "facet") && space_or_line_end(at(&w, w.pos + 5)) &&
			    at(&w, w.pos + 5) != '\0') {
				corners = 0;
				w.pos += 5;
			} else if (word_is(&w, "vertex") && space_or_line_end(at(&w, w.pos + 6))) {
				if (corners >= 3) {
					w.pos++; /* assimp skips a fourth corner so */
					continue;
				}
				float xyz[3];
				w.pos += 7;
				if (vertex(&w, xyz) != 0)
					return -1;
				store(out, most, found++, xyz);
				corners++;
			} else if (word_is(&w, "endsolid")) {
				do
					w.pos++;
				while (!line_end(at(&w, w.pos)));
				skip_spaces_and_lines(&w);
				break;
			} else {
				do
					w.pos++;
				while (!space_or_line_end(at(&w, w.pos)));
			}
		}
	}
	return found;
}

/* Past the next line feed (or to the end). */
static void next_line(walk *w)
{
	const char *nl = w->pos < w->len ? memchr(w->d + w->pos, '\n', w->len - w->pos) : NULL;
	w->pos = nl ? (size_t)(nl - w->d) + 1 : w->len;
}

long proto_mesh_text_obj(const char *data, size_t len, float *out, size_t most)
{
	walk w = {data, len, 0};
	long found = 0;
	while (w.pos < w.len) {
		skip_spaces(&w);
		if (at(&w, w.pos) == 'v' &&
		    (at(&w, w.pos + 1) == ' ' || at(&w, w.pos + 1) == '\t')) {
			float xyz[3];
			w.pos += 2;
			if (vertex(&w, xyz) != 0)
				return -1;
			store(out, most, found++, xyz);
		}
		next_line(&w);
	}
	return found;
}

/* The next word of the line, [*at, *at + *n): 0, or -1 at the line's end. */
static int next_word(walk *w, size_t *at_, size_t *n)
{
	skip_spaces(w);
	*at_ = w->pos;
	while (!space_or_line_end(at(w, w->pos)))
		w->pos++;
	*n = w->pos - *at_;
	return *n ? 0 : -1;
}

static int word_eq(const walk *w, size_t i, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(w->d + i, word, n) == 0;
}

/* The header up to end_header: *count vertices of *props properties, x, y
 * and z the properties xyz[].  1 when it is an ASCII PLY whose first
 * element is "vertex" with scalar x, y and z; else 0. */
static int ply_header(walk *w, size_t *count, size_t *props, size_t xyz[3])
{
	size_t i, n, elements = 0;
	int ascii = 0, have = 0;
	skip_spaces_and_lines(w);
	if (next_word(w, &i, &n) != 0 || !word_eq(w, i, n, "ply"))
		return 0;
	for (next_line(w); w->pos < w->len; next_line(w)) {
		if (next_word(w, &i, &n) != 0)
			continue;
		if (word_eq(w, i, n, "end_header")) {
			next_line(w);
			return ascii && have == 7 && *count > 0;
		}
		if (word_eq(w, i, n, "format"))
			ascii = next_word(w, &i, &n) == 0 && word_eq(w, i, n, "ascii");
		else if (word_eq(w, i, n, "element") && ++elements == 1) {
			char num[24];
			if (next_word(w, &i, &n) != 0 || !word_eq(w, i, n, "vertex") ||
			    next_word(w, &i, &n) != 0 || n >= sizeof num)
				return 0;
			memcpy(num, w->d + i, n);
			num[n] = '\0';
			*count = strtoul(num, NULL, 10);
		} else if (word_eq(w, i, n, "property") && elements == 1) {
			if (next_word(w, &i, &n) != 0 || word_eq(w, i, n, "list") ||
			    next_word(w, &i, &n) != 0)
				return 0;
			for (int k = 0; k < 3; k++)
				if (word_eq(w, i, n, (const char *[]){"x", "y", "z"}[k])) {
					xyz[k] = *props;
					have |= 1 << k;
				}
			++*props;
		}
	}
	return 0;
}

long proto_mesh_text_ply(const char *data, size_t len, float *out, size_t most)
{
	walk w = {data, len, 0};
	size_t count = 0, props = 0, xyz[3] = {0, 0, 0};
	if (!ply_header(&w, &count, &props, xyz))
		return 0;
	for (size_t v = 0; v < count; v++) {
		float row[3] = {0, 0, 0};
		for (size_t k = 0; k < props; k++) {
			size_t i, n;
			if (!skip_spaces_and_lines(&w))
				return -1;
			int which = k == xyz[0] ? 0 : k == xyz[1] ? 1 : k == xyz[2] ? 2 : -1;
			if (which < 0)
				next_word(&w, &i, &n);
			else if (number(&w, &row[which]) != 0)
				return -1;
		}
		store(out, most, (long)v, row);
	}
	return (long)count;
}
