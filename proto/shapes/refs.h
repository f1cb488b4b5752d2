/*
 * refs.h — shapes named by id ({"ref": "sha256:..."}, openapi.yaml
 * ShapeRef) in a request: finding them in the call's store, and, when one
 * is missing, listing every missing id of the request in the problem so
 * that a client uploads them all and retries once.
 */
#ifndef PROTO_REFS_H
#define PROTO_REFS_H

#include <jansson.h>

#include "pointer.h"
#include "problem.h"
#include "store.h"

/* The stored shape a "ref" value (`v`, at `at`) names, held: 0 with
 * *entry.  1 with a 422 problem: an id that is not "sha256:" and 64
 * lowercase hex digits, or none the store holds nor its second tier
 * (shape_tier.h: an unknown-shape problem
 * with that id in "missing"; a NULL store holds nothing).  -1 when memory
 * ran out. */
int proto_ref_acquire(proto_store *store, const json_t *v, const proto_path *at,
                      proto_store_entry **entry, proto_problem *p);

/* After an unknown-shape problem (p->nmissing > 0) from decoding `root`:
 * add every other id that a "ref" member of the document names and the
 * store lacks, each once, in document order.  0, or -1 when memory ran
 * out.  Does nothing for other problems. */
int proto_refs_missing(const json_t *root, proto_store *store, proto_problem *p);

#endif /* PROTO_REFS_H */
