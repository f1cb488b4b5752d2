/*
 * json_gen.h — random JSON documents for the tests of clashd's own byte
 * scanners (batch splitting, the depth scan), which are held to jansson's
 * reading of the same text.
 *
 * Strings are made of the pieces that trip a scanner (brackets, commas,
 * quotes, backslashes, escaped quotes, newlines, UTF-8), keys too; numbers
 * of both kinds, literals, arrays and objects of up to 3 members.  Seeded
 * through prng.h, so a failing document is reproduced from its seed.
 */
#ifndef TESTS_JSON_GEN_H
#define TESTS_JSON_GEN_H

#include <jansson.h>

#include "prng.h"

/* A value nested at most `max_depth` containers deep (at that depth only
 * scalars).  Above it, each of the four kinds of scalar is as likely as
 * one "ticket" of `nesting`: a container comes with odds nesting : 4, so
 * larger values give deeper documents. */
json_t *json_gen(prng *g, int max_depth, int nesting);

#endif
