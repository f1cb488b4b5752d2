/*
 * result.h — encoding a core answer as a Result (openapi.yaml,
 * components/schemas/Result).
 */
#ifndef PROTO_RESULT_H
#define PROTO_RESULT_H

#include "clash.h"
#include "problem.h"
#include "json_write.h"
#include "proto.h"

/* Encode *r, answered by the method called `method`, as a 200 reply: the
 * members r->has names (distance and near_points, separating_plane when
 * separated, penetration when intersecting), and as "warm" the final
 * simplex's indices (CLASH_HAS_WARM) or else the separating plane.  Every
 * double is written with 17 significant digits, so it reads back bit for bit.
 * A value that is not finite is never written: that is a bug in the core,
 * answered with a 500 problem in *p and a return of 1.  Returns 0 (then *out
 * holds the reply), 1, or -1 when memory ran out. */
int proto_result_encode(const clash_result *r, const char *method, proto_reply *out,
                        proto_problem *p);

/* The same for a query with a motion ("pose_end"): *r is the answer at the
 * start, and the Result also carries "toi" and "contact" from *toi. */
int proto_result_encode_motion(const clash_result *r, const char *method,
                               const clash_toi_result *toi, proto_reply *out, proto_problem *p);

/* What a Query's answer carries beyond the core's result. */
typedef struct proto_result_more {
	const clash_toi_result *toi; /* a motion's (NULL: none) */
	/* The shapes, so that a mesh answer says how their meshes were read:
	 * ,"read":{"a": MeshReading or null, "b": ...} after "solid"
	 * (mesh_reading.h); NULL: not said. */
	const clash_shape *a, *b;
	const char *units;                      /* the request's "units", echoed; or NULL */
	const struct proto_mesh_report *report; /* a mesh pair's clash report, or NULL */
} proto_result_more;

/* Either of the above with what `more` adds. */
int proto_result_encode_more(const clash_result *r, const char *method,
                             const proto_result_more *more, proto_reply *out, proto_problem *p);

/* The members of a motion's answer, appended to a Result or a Clash being
 * written: ,"toi" (null when there is no contact) and, with a contact,
 * ,"contact".  0, or -1 for a value that is not finite (jansson holds none:
 * the tree encoder failed there as if out of memory, and so does this). */
int proto_result_motion(proto_text *t, const clash_toi_result *m, int dim);

#endif /* PROTO_RESULT_H */
