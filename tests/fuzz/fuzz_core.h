/*
 * fuzz_core.h — what fuzz_core.c shares with fuzz_solids.c (the recipe's
 * reader, poses, the members check, how a violation aborts).
 */
#ifndef FUZZ_CORE_H
#define FUZZ_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"

typedef struct input {
	const uint8_t *p;
	size_t n;
} input;

unsigned u8(input *in);
int i16(input *in);
_Noreturn void oops(const char *what, double x, double y);
#define REQUIRE(cond, what, x, y)             \
	do {                                  \
		if (!(cond))                  \
			oops(what, (x), (y)); \
	} while (0)

int pose_shape(input *in, int dim, double scale, const double *offset, clash_shape *s, int *rigid);
void world(const clash_shape *s, const double *x, double *out);
void check_members(const clash_result *r, int n, const char *method);
int known_error(int rc);

/* The 3-D mode (head >= 0xc0): meshes, primitives and polytopes. */
void fuzz_solids(input *in, unsigned flags, int show);

#endif
