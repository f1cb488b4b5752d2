/*
 * request_id.c — validating and generating request ids (see request_id.h).
 */
#include "request_id.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int request_id_valid(const char *id)
{
	if (!id)
		return 0;
	size_t n = 0;
	for (; id[n]; n++) {
		char c = id[n];
		if (n >= REQUEST_ID_MAX ||
		    !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return n > 0;
}

_Static_assert(REQUEST_ID_MAX >= 32, "a fresh id is 32 hex digits");

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void request_id_init(request_id_gen *g)
{
	memset(g, 0, sizeof *g);
	if (getrandom(g->seed, sizeof g->seed, 0) != (ssize_t)sizeof g->seed) {
		/* No entropy source: ids need only be unlikely to repeat. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		g->seed[0] = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		g->seed[1] = (uint64_t)getpid();
	}
}

char *request_id_pick(request_id_gen *g, const char *incoming, char *out)
{
	if (request_id_valid(incoming)) {
		memcpy(out, incoming, strlen(incoming) + 1); /* valid: at most REQUEST_ID_MAX */
		return out;
	}
	g->counter++;
	uint64_t hi = splitmix64(g->seed[0] ^ g->counter);
	uint64_t lo = splitmix64(g->seed[1] + hi);
	/* "%016llx%016llx", without printf (once per request). */
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[15 - i] = hex[(hi >> (4 * i)) & 15];
		out[31 - i] = hex[(lo >> (4 * i)) & 15];
	}
	out[32] = '\0';
	return out;
}
