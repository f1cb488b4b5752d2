/*
 * request_id.h — the id that ties a request's log line to its response
 * (X-Request-Id) and to the caller's own logs.
 *
 * A valid incoming X-Request-Id is kept, so a proxy or client can trace a
 * request through several services: 1 to 128 characters of [A-Za-z0-9._-]
 * (what fits in a log field and a header without escaping; UUIDs and the
 * usual trace ids qualify).  Anything else is replaced by a fresh id of 32
 * hex digits.
 */
#ifndef SERVER_REQUEST_ID_H
#define SERVER_REQUEST_ID_H

#include <stddef.h>
#include <stdint.h>

#define REQUEST_ID_MAX 128

/* Whether `id` may be kept. */
int request_id_valid(const char *id);

/* A generator of fresh ids: a 128-bit counter mixed by splitmix64, seeded
 * from the kernel's random source, so ids do not repeat across restarts
 * and do not reveal the request count.  One per thread. */
typedef struct request_id_gen {
	uint64_t seed[2];
	uint64_t counter;
} request_id_gen;

void request_id_init(request_id_gen *g);

/* Write the id for a request (out: REQUEST_ID_MAX + 1 bytes): `incoming`
 * when valid, else a fresh one.  Returns out. */
char *request_id_pick(request_id_gen *g, const char *incoming, char *out);

#endif
