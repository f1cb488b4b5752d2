/*
 * scan3_copy.h — the by-coordinate copy of a small shape's vertices that
 * the 3-D support scans read (scan3.h), as a type alone: support.c makes
 * the copy in its set-up pass and scan3.c scans it, and neither needs the
 * other's functions for that.
 */
#ifndef CLASH_SCAN3_COPY_H
#define CLASH_SCAN3_COPY_H

/* Shapes of at most this many vertices get the copy. */
#define SCAN3_MAX 128

typedef struct scan3 {
	int state; /* enum scan3_state; the caller's to keep */
	double x[SCAN3_MAX], y[SCAN3_MAX], z[SCAN3_MAX];
} scan3;

enum scan3_state {
	SCAN3_NONE = 0,     /* no copy: the caller scans the vertex array */
	SCAN3_WANT_RAW,     /* the next scan makes the copy (of v_i) */
	SCAN3_WANT_REL,     /* the next scan makes the copy (of v_i - v_0) */
	SCAN3_RAW,          /* a copy of the vertices v_i */
	SCAN3_RAW_WANT_REL, /* that, to be turned into v_i - v_0 by the next scan */
	SCAN3_REL           /* a copy of v_i - v_0 (what the relative scan scores) */
};

#endif
