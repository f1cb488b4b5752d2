/*
 * mesh_report.h — the clash report of a pair with a mesh: how
 * deep (clash_mesh_depth, written as the Result's `penetration`), where
 * and how much (clash_overlap_get, written as its `overlap`).
 *
 * A report costs far more than a verdict, so a query gets one only when
 * its `want` names it ("depth", "regions", "volume"); a query that names
 * none runs exactly as before.  The same run serves /v1/query, each query
 * of /v1/batch and `clash query` (they share proto_query_answer).
 */
#ifndef PROTO_MESH_REPORT_H
#define PROTO_MESH_REPORT_H

#include "clash.h"
#include "proto.h"
#include "text_buf.h"

struct proto_query;

/* What a query's run adds to its Result. */
typedef struct proto_mesh_report {
	unsigned asked;         /* the PROTO_REPORT_* bits that apply: a mesh pair's */
	clash_overlap *overlap; /* regions and volume, when asked and found */
	const char *no_volume;  /* why overlap has no volume (static text), or NULL */
	const char *no_depth;   /* why a depth asked for is not answered, or NULL */
	int compound;           /* a side is compound: regions name their parts */
} proto_mesh_report;

/* Run decoded query q: its method's answer in *res or, when its want
 * names "depth" and a side holds a mesh, clash_mesh_depth's; then, when
 * it names "regions" or "volume", the overlap.  Returns 0 or a CLASH_E*
 * code (CLASH_ECANCELED, CLASH_ENOMEM, ...; *rep then holds nothing). */
int proto_mesh_report_run(const struct proto_query *q, const proto_overlap_caps *caps,
                          clash_result *res, proto_mesh_report *rep);

/* ,"overlap":{...} and ,"no_depth":"..." for *rep, as openapi.yaml's
 * Result describes them (nothing when nothing was asked). */
void proto_mesh_report_text(proto_text *t, const proto_mesh_report *rep);

void proto_mesh_report_free(proto_mesh_report *rep);

#endif
