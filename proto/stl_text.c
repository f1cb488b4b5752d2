/*
 * stl_text.c — an ASCII STL file's vertex coordinates, rounded as
 * JavaScript rounds them (stl_text.h).
 *
 * The walk follows libassimp 5.2.5's ASCII STL reader token by token, so
 * that the n-th vertex found here is the n-th vertex assimp made: a token
 * is "facet" (a face begins: three vertices may follow), "vertex" and its
 * three numbers, "endsolid" (the rest of its line skipped, then another
 * solid may begin) or anything else, skipped to the next space.  Bytes
 * past the end count as the NUL assimp puts there.  Whatever assimp would
 * refuse needs no care: mesh_import.c uses these values only when their
 * count is assimp's and each is within a few float steps of assimp's own.
 */
#include "stl_text.h"

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

long proto_stl_text_vertices(const char *data, size_t len, float *out, size_t most)
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
				if ((size_t)found < most)
					memcpy(out + 3 * found, xyz, sizeof xyz);
				found++;
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
