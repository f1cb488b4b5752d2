/*
 * trig.h — the core's own sine, cosine and arc tangent (internal; trig.c).
 *
 * Answers that go through an angle (a 2-D pose's "angle", a motion's turn)
 * must have the same bits wherever the core runs: the server (glibc's libm)
 * and the page (the core in WebAssembly, wasi-libc's).  Two C libraries
 * round their sin, cos and atan2 differently in the last bit, so the core
 * does not call them: these are plain IEEE double arithmetic (+, -, *, /,
 * sqrt, all correctly rounded everywhere), written so that no expression
 * depends on contraction into fused multiply-adds (the core is compiled
 * with -ffp-contract=off where the compiler would contract by default).
 * Each is within about one ulp of the true value (tests/check_trig.c
 * measures it against libm); they are pure and reentrant.
 */
#ifndef CLASH_TRIG_H
#define CLASH_TRIG_H

/* sin x and cos x; NaN for an infinite or NaN x.  Within an ulp while
 * |x| < 2^29 pi/2 (about 8.4e8), within about 2^-53 until |x| is about
 * 2^80; beyond, still deterministic and within [-1, 1], with an error
 * growing with |x| (trig.c, reduce). */
double trig_sin(double x);
double trig_cos(double x);
void trig_sincos(double x, double *s, double *c);

/* The angle of (x, y) in [-pi, pi], with C99 Annex F's special cases
 * (signed zeros and infinities); NaN if either is NaN. */
double trig_atan2(double y, double x);

/* arccos x in [0, pi]; NaN outside [-1, 1]. */
double trig_acos(double x);

#endif
