/*
 * summary.c — the one line `clash scene` writes to stderr beside its
 * answer:
 *
 *   clash scene: 3 clash, 1 touch, 0 clearance (12 candidate pairs)
 *
 * every class of the answer's "counts" in its order (so a class the
 * contract adds shows up without a change here), then the candidate pairs
 * of the broad phase, and ", list truncated" when "truncated" is true.
 * Those members are read back from the answer's text by proto
 * (proto_scene_tally_of), which parses only its tail.
 */
#include <stdio.h>

#include "cli.h"

void cli_scene_summary(const char *prog, const proto_reply *answer)
{
	proto_scene_tally t;
	if (proto_scene_tally_of(answer->body, answer->length, &t) != 1)
		return; /* not a Scene answer, or no memory: the answer stands alone */
	fprintf(stderr, "%s: ", prog);
	for (size_t i = 0; i < t.ncounts; i++)
		fprintf(stderr, "%s%lld %s", i ? ", " : "", t.counts[i].n, t.counts[i].name);
	fprintf(stderr, " (%lld candidate pair%s%s)\n", t.candidates, t.candidates == 1 ? "" : "s",
	        t.truncated ? ", list truncated" : "");
	proto_scene_tally_free(&t);
}
