/*
 * prng.h — a deterministic random source for randomized tests: splitmix64
 * (Steele, Lea, Flood 2014), tiny, seedable and identical on every platform,
 * so a failing case is reproduced from its printed seed alone.
 */
#ifndef TESTS_PRNG_H
#define TESTS_PRNG_H

#include <math.h>
#include <stdint.h>

typedef struct prng {
	uint64_t s;
} prng;

static inline uint64_t prng_next(prng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double prng_unit(prng *r)
{
	return (double)(prng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [lo, hi). */
static inline double prng_range(prng *r, double lo, double hi)
{
	return lo + (hi - lo) * prng_unit(r);
}

/* Uniform integer in [lo, hi] (the tiny modulo bias is irrelevant here). */
static inline int prng_int(prng *r, int lo, int hi)
{
	return lo + (int)(prng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Uniform integer in [0, n), n > 0 (the tiny modulo bias is irrelevant
 * here). */
static inline uint64_t prng_below(prng *r, uint64_t n)
{
	return prng_next(r) % n;
}

/* Log-uniform in [lo, hi], lo > 0: every order of magnitude equally likely. */
static inline double prng_log(prng *r, double lo, double hi)
{
	return exp(prng_range(r, log(lo), log(hi)));
}

/* Standard normal (Box-Muller). */
static inline double prng_normal(prng *r)
{
	double u = 1.0 - prng_unit(r); /* (0, 1]: log is finite */
	double v = prng_unit(r);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* A uniformly random rotation as a unit quaternion (x, y, z, w), by
 * Shoemake's method (three uniforms, no rejection). */
static inline void prng_rotation(prng *r, double q[4])
{
	const double two_pi = 6.283185307179586; /* 2 pi as a double */
	double u1 = prng_unit(r), u2 = prng_range(r, 0, two_pi), u3 = prng_range(r, 0, two_pi);
	double a = sqrt(1 - u1), b = sqrt(u1);
	q[0] = a * sin(u2);
	q[1] = a * cos(u2);
	q[2] = b * sin(u3);
	q[3] = b * cos(u3);
}

/* A random motion: a rotation q (a point of [-1, 1)^4 scaled to unit
 * length, not uniform over rotations as prng_rotation is) and a
 * translation t in [-spread, spread)^3, drawn in that order. */
static inline void prng_motion(prng *r, double spread, double q[4], double t[3])
{
	double n = 0;
	for (int k = 0; k < 4; k++) {
		q[k] = prng_range(r, -1, 1);
		n += q[k] * q[k];
	}
	for (int k = 0; k < 4; k++)
		q[k] /= sqrt(n);
	for (int k = 0; k < 3; k++)
		t[k] = prng_range(r, -spread, spread);
}

/* Uniform direction on the unit sphere in dim dimensions. */
static inline void prng_direction(prng *r, int dim, double *u)
{
	double n2;
	do {
		n2 = 0;
		for (int i = 0; i < dim; i++) {
			u[i] = prng_normal(r);
			n2 += u[i] * u[i];
		}
	} while (n2 < 1e-12);
	double n = sqrt(n2);
	for (int i = 0; i < dim; i++)
		u[i] /= n;
}

#endif
