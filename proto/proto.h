/*
 * proto.h — the v1 wire contract (proto/openapi.yaml) between JSON and the
 * collision core.
 *
 * clashd (server/) and the clash command-line tool (cli/) both turn request
 * bodies into replies through these calls, so the two always speak exactly
 * the same contract.  Decoding uses jansson; every error becomes an RFC 9457
 * problem object whose "pointer" member is the JSON Pointer (RFC 6901) of the
 * offending value.
 *
 * All calls are thread-safe (jansson is, once json_object_seed() has run;
 * proto_init() does that and must be called once before threads start).
 */
#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>

/* Media types of replies. */
#define PROTO_JSON "application/json"
#define PROTO_PROBLEM_JSON "application/problem+json"

/* A complete reply: HTTP status, media type and a malloc'd JSON body. */
typedef struct proto_reply {
	int status;               /* 200, or the 4xx/5xx of a problem */
	const char *content_type; /* PROTO_JSON or PROTO_PROBLEM_JSON (static) */
	char *body;               /* NUL-terminated JSON text, owned by the reply */
	size_t length;            /* strlen(body) */
} proto_reply;

/* Process-wide set-up (seeds jansson's hash function).  Call once, before
 * any thread uses the other calls.  Returns 0. */
int proto_init(void);

/* Handle one Query (the body of POST /v1/query, or one line of
 * `clash query`): decode it, run the requested method, encode the Result.
 * On malformed or invalid input *out holds a problem (400 or 422).
 * Returns 0, or -1 when memory ran out (then *out is empty). */
int proto_query_reply(const char *body, size_t len, proto_reply *out);

/* Handle one Scene (the body of POST /v1/scene, or the document of `clash
 * scene`): {"objects": [{"id": ..., "shape": Shape}, ...], "clearance": c,
 * "tolerance": t, "pairs": [[id, id], ...], "ignore": [[id, id], ...],
 * "max_clashes": n} answered {"clashes": [...], "candidates": n, "counts":
 * {"clash": n, "touch": n, "clearance": n}, "truncated": bool}: every pair
 * closer than the clearance, classed clash / touch / clearance, in input
 * order, the list cut short (truncated) at max_clashes or the reply limit
 * (proto_request_limits) while counts covers every pair (see
 * proto/openapi.yaml).  The narrow phase runs on the context's parallel
 * runner when it has one (proto_context).  Problems and the return value
 * as for proto_query_reply(). */
int proto_scene_reply(const char *body, size_t len, proto_reply *out);

/* A piece of one request's work: piece(ctx, i) for i in [0, n). */
typedef void (*proto_piece_fn)(void *ctx, size_t i);

/* A way to run the independent pieces of one request at once (clashd's
 * fanout threads).  run(self, piece, ctx, n) calls piece(ctx, i) once for
 * every i in [0, n), from any threads, and returns when all have returned;
 * pieces never touch shared state. */
typedef struct proto_parallel {
	void (*run)(void *self, proto_piece_fn piece, void *ctx, size_t n);
	void *self;
} proto_parallel;

/* Handle one containment query (the body of POST /v1/contains, or one
 * line of `clash contains`): {"inner": Shape, "outer": Shape, "tolerance":
 * t} answered {"contained": bool, "outside_vertex": index or null,
 * ["outside_part": index,] "converged": bool, "iterations": n}.  Problems and the return
 * value as for proto_query_reply(). */
int proto_contains_reply(const char *body, size_t len, proto_reply *out);

/*
 * Request limits, for a server facing untrusted clients (clashd sets them
 * from its flags; `clash query` sets none).  A member of 0 means no limit.
 * The body size is the caller's to bound (it never reaches proto whole
 * otherwise); these bound what a body of that size may ask for.
 */
typedef struct proto_request_limits {
	size_t max_depth;      /* arrays and objects nested in each other: deeper
	                          is a 400 at the first container past it */
	size_t max_vertices;   /* points of one shape (or one part of a
	                          compound): more is a 422 at its "vertices"
	                          (or "positions") */
	size_t max_shapes;     /* shapes in one request, each part of a compound
	                          counted: more is a 422 at the first one over */
	size_t max_part_depth; /* compound shapes nested in compound shapes (a
	                          top-level shape's parts are level 1): deeper is
	                          a 422 at the part */
	size_t max_clashes;    /* clashes listed in one Scene answer (a scene's
	                          "max_clashes" may ask for fewer; more is a 422):
	                          the rest are counted, the answer "truncated" */
	size_t max_reply;      /* bytes of one answer: a Scene's list stops short
	                          of it ("truncated"), a batch whose answers take
	                          more is a 422 */
} proto_request_limits;

/* clashd's defaults.  A Query nests 4 deep ({"a": {"vertices": [[...]]}}),
 * plus 2 per level of compound "parts". */
#define PROTO_DEFAULT_MAX_DEPTH 64
/* The largest shape fits in the default body (16 MiB) as text, whatever the
 * digits: 200 000 x 3 coordinates of at most 24 characters and a comma make
 * 15 MB in "positions", 15.4 MB in "vertices" (docs/operations.md). */
#define PROTO_DEFAULT_MAX_VERTICES 200000
#define PROTO_DEFAULT_MAX_SHAPES 1024
#define PROTO_DEFAULT_MAX_PART_DEPTH 8 /* = CLASH_COMPOUND_MAX_DEPTH, the core's own bound */
#define PROTO_DEFAULT_MAX_QUERIES 10000
#define PROTO_DEFAULT_MAX_CLASHES 10000
#define PROTO_DEFAULT_MAX_REPLY (16u << 20)
/* A mesh's vertices closer than this times its box's diagonal are joined
 * (clash_mesh_build_welded): far below any CAD tolerance, far above the
 * rounding of coordinates to float (2^-24 of their size). */
#define PROTO_DEFAULT_WELD 1e-6
/* All of them as one proto_request_limits. */
#define PROTO_DEFAULT_LIMITS                                                    \
	((proto_request_limits){.max_depth = PROTO_DEFAULT_MAX_DEPTH,           \
	                        .max_vertices = PROTO_DEFAULT_MAX_VERTICES,     \
	                        .max_shapes = PROTO_DEFAULT_MAX_SHAPES,         \
	                        .max_part_depth = PROTO_DEFAULT_MAX_PART_DEPTH, \
	                        .max_clashes = PROTO_DEFAULT_MAX_CLASHES,       \
	                        .max_reply = PROTO_DEFAULT_MAX_REPLY})

/* The limit a request broke (proto_call.limit). */
enum proto_limit {
	PROTO_LIMIT_NONE = 0,
	PROTO_LIMIT_DEPTH,
	PROTO_LIMIT_VERTICES,
	PROTO_LIMIT_SHAPES,
	PROTO_LIMIT_PART_DEPTH,
	PROTO_LIMIT_QUERIES /* a batch */
};

/* The shape store (POST /v1/shapes, {"ref": id}): a bounded cache shared
 * by every call of a server, thread-safe (proto/shapes/store.h). */
typedef struct proto_store proto_store;

/*
 * How a mesh file is read (POST /v1/shapes with a mesh media type): as
 * proto_mesh_import() (mesh_import.h) does, with the same results, but
 * where the caller chooses; clashd reads files in a helper process
 * (server/import_sandbox.c).  `cancel` is the call's flag: once it is set
 * the reader may stop and fail (the caller answers the stop).  .run NULL:
 * proto_mesh_import() on the calling thread.
 */
struct proto_mesh_set;
struct proto_problem;
typedef struct proto_importer {
	int (*run)(void *self, const char *data, size_t len, int format,
	           const proto_request_limits *l, const volatile int *cancel,
	           struct proto_mesh_set *out, struct proto_problem *p, enum proto_limit *which);
	void *self;
} proto_importer;

/* The caps of a mesh pair's clash report (clashd's --overlap-*; 0: the
 * core's defaults, CLASH_OVERLAP_MAX_*): regions listed, curve points
 * over all of them, triangles listed per side of a region. */
typedef struct proto_overlap_caps {
	size_t regions, points, triangles;
} proto_overlap_caps;

/*
 * The context a call runs in, handed to it explicitly (proto_call.ctx): no
 * call reads a process global or keeps state between calls.  A shape is
 * any object with a "vertices", "positions" or "parts" member, so the
 * limits cover every route and shape kind without knowing the schema.
 */
typedef struct proto_context {
	proto_request_limits limits; /* a zero member: no such limit */
	size_t max_queries;          /* in one batch (POST /v1/batch): more is
	                                a 422 at the first one over, none
	                                answered; 0: no limit.  The limits apply
	                                to each query of a batch as if it came
	                                alone (the nesting depth counted from the
	                                query, not the body) */
	proto_parallel parallel;     /* how a request's independent pieces run
	                                (.run NULL: one after the other on the
	                                calling thread) */
	int plain_parse;             /* 1: the Query parser never reads vertex
	                                arrays itself (for tests comparing the
	                                two parses; the answers are the same) */
	proto_store *store;          /* where {"ref": id} shapes are found and
	                                uploads kept; NULL: none (every ref is
	                                an unknown shape, uploads a 503) */
	proto_importer importer;     /* how mesh files are read */
	double weld;                 /* every mesh built is welded by this,
	                                relative to its box's diagonal, unless
	                                it says its own "weld" (0: only equal
	                                coordinates; clashd's --weld;
	                                proto_context_none: PROTO_DEFAULT_WELD) */
	proto_overlap_caps overlap;  /* of clash reports (mesh_report.h) */
} proto_context;

/* No limits, pieces in turn, the default weld: the context of a call
 * without one. */
extern const proto_context proto_context_none;

/* Why a call bounded by max_cost was not answered (proto_call.deferred). */
enum proto_deferred {
	PROTO_DEFERRED_NONE = 0,
	PROTO_DEFERRED_HEAVY, /* it (a batch: the next item) costs more than
	                         max_cost: to be answered with no bound */
	PROTO_DEFERRED_SPENT  /* a batch range: the items answered cost
	                         max_cost in all; the rest, each within it,
	                         are for another call with the bound */
};

/* What a server needs around one call: its context, a way to stop it, and
 * what happened. */
typedef struct proto_call {
	/* In: the context, or NULL for proto_context_none. */
	const proto_context *ctx;
	/* In: NULL, or a flag another thread may set (to nonzero) to stop the
	 * query; it is handed to the core (clash_options.cancel) and checked
	 * between parsing and running.  A stopped call has cancelled set and
	 * a 503 problem as its reply, which the caller may replace. */
	const volatile int *cancel;
	/* In: NULL, or the client's address (16 bytes, IPv4 as ::ffff:a.b.c.d)
	 * whose share of the shape store an upload counts against. */
	const unsigned char *client;
	/* In: 0, or the most the request may cost (about microseconds of one
	 * thread, proto/endpoints/request_cost.h), judged once it is parsed, before
	 * anything is decoded or run: a request (a batch item) that would
	 * cost more is not answered, `deferred` is set and *out left empty,
	 * for the caller to call again with no bound when it may run long
	 * (clashd: when one of its heavy share of workers is free). */
	double max_cost;
	/* Out. */
	int deferred; /* not answered (enum proto_deferred) */
	double cost;  /* what it was judged to cost; 0 when not judged (no
	                  max_cost, or it did not parse) */
	int cancelled;
	enum proto_limit limit; /* the limit the request broke, if any */
	int iterations;         /* of the method; -1 when it did not run */
} proto_call;

/* The context of a call (`call` may be NULL). */
static inline const proto_context *proto_context_of(const proto_call *call)
{
	return call && call->ctx ? call->ctx : &proto_context_none;
}

/* proto_query_reply() with a proto_call (which may be NULL). */
int proto_query_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out);

/* proto_scene_reply() with a proto_call (which may be NULL).  The request
 * limits apply to each object's shape (a scene's objects are bounded by
 * their own count, 100 000); the cancel flag stops the narrow phase. */
int proto_scene_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out);

/* proto_contains_reply() with a proto_call (which may be NULL). */
int proto_contains_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out);

/*
 * Batches (POST /v1/batch): {"queries": [Query, ...]} is answered
 * {"results": [item, ...]}, item i being exactly what POST /v1/query would
 * answer for query i alone: its Result, or its problem object (with
 * "status") whose pointer names the value in the batch body
 * ("/queries/17/a/vertices/3/2") and whose line, column and position count
 * from the start of the body.  One bad query does not fail the batch; the
 * whole body is answered with one problem only when it is not JSON (400),
 * not a batch or holds more queries than its context's max_queries allows
 * (422).
 *
 * The queries are answered in ranges, so that threads can share one batch:
 * proto_batch_open() splits the body (a byte scan, no parse), then any
 * number of threads call proto_batch_answer() on disjoint ranges, then
 * proto_batch_reply() joins the answers in order.  `clash query` answers
 * its input lines through the same proto_batch_answer()
 * (proto_batch_of_texts), so its lines are the bytes /v1/query answers.
 */
typedef struct proto_batch proto_batch;

/* Split a batch body (borrowed: it must outlive the batch).  Returns 0 and
 * either *batch (its queries to answer) or, when the body as a whole is at
 * fault, *batch NULL and the problem in *out (call->limit names a limit it
 * broke: PROTO_LIMIT_QUERIES, or PROTO_LIMIT_DEPTH for a body nested deeper
 * than the limit plus the batch's own two levels).  -1 when memory ran out.
 * `call` may be NULL. */
int proto_batch_open(const char *body, size_t len, proto_call *call, proto_batch **batch,
                     proto_reply *out);

/* A batch of independent Query texts (each answered as the body of POST
 * /v1/query; pointers and positions relative to the text), borrowed.
 * NULL when memory ran out. */
proto_batch *proto_batch_of_texts(const char *const *texts, const size_t *lens, size_t n);

/* The number of queries. */
size_t proto_batch_size(const proto_batch *b);

/* Answer queries [from, to).  Threads may answer disjoint ranges at once.
 * call->cancel (may be NULL) is checked before each query and handed to
 * the core; when it stops the range, call->cancelled is set and the rest
 * of the range is left unanswered.  With call->max_cost set, the range
 * also stops at an item costing more than it (call->deferred
 * PROTO_DEFERRED_HEAVY), or once the items answered cost that much in all
 * (PROTO_DEFERRED_SPENT); answering the range again (without the bound,
 * for a heavy item) answers the rest, items answered already skipped.  call->iterations: the sum over the
 * queries answered.  Returns 0, or -1 when memory ran out. */
int proto_batch_answer(proto_batch *b, size_t from, size_t to, proto_call *call);

/* Query i's answer once answered: its reply body (NUL-terminated, owned by
 * the batch; NULL if unanswered), length, status and iterations (-1 when
 * its method did not run). */
const char *proto_batch_item(const proto_batch *b, size_t i, size_t *len, int *status,
                             int *iterations);

/* The reply of a batch body: {"results": [...]} (200) once every query is
 * answered; the whole-body 400 when one turned out not to be JSON at all;
 * a 503 problem with call->cancelled set when some were left unanswered
 * (stopped).  `call` may be NULL.  Returns 0 or -1. */
int proto_batch_reply(proto_batch *b, proto_call *call, proto_reply *out);

void proto_batch_free(proto_batch *b);

/* All of the above on the calling thread (the route table's form). */
int proto_batch_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out);

/*
 * The shape store's routes (openapi.yaml, /v1/shapes).  POST /v1/shapes:
 * the body is a Shape without pose (vertices, positions or parts, and
 * radius), decoded as a query's shape is, stored in the context's store and
 * answered 201 (200 when it was there) with its summary {"id":
 * "sha256:...", "dim", "vertices", "hull_vertices", "parts", "bytes"}.
 * Problems and the return value as for proto_query_reply().
 */
int proto_shape_put_reply(const char *body, size_t len, proto_call *call, proto_reply *out);

/* Whether a Content-Type names a mesh file POST /v1/shapes imports:
 * model/stl, model/obj, model/gltf-binary, model/gltf+json or
 * application/x-ply (any case, parameters allowed). */
int proto_media_is_mesh(const char *content_type);

/* POST /v1/shapes with a mesh file of that Content-Type (openapi.yaml,
 * ImportResult): read with libassimp, one shape stored for each place a
 * node of the file puts a mesh, each exactly as the upload of its
 * {"mesh": ...} geometry would store it, answered 201 (200 when every one
 * was there) with {"shapes": [{"name", "id", "pose", ShapeSummary
 * members}, ...]}.  A file assimp cannot read, or with no triangle, is a
 * 422 with pointer ""; a file whose meshes break the context's
 * max_vertices (all together) or max_shapes limits a 422.  Imports run one
 * at a time (libassimp's error message is process-wide).  `weld`: the
 * request's "weld" query parameter (a decimal number >= 0, else a 422 with
 * pointer ""), or NULL: when given, each shape is stored with it as its
 * mesh's "weld" member.  `units`: its "units" query parameter ("mm", "cm",
 * "m" or "in", else a 422 with pointer "/units"), or NULL: when given,
 * each shape is stored with it as its "units" member (in its id, in its
 * summary) and the answer says "units" beside "shapes".  Problems and the
 * return value as for proto_query_reply(). */
int proto_shape_import_reply(const char *body, size_t len, const char *content_type,
                             const char *weld, const char *units, proto_call *call,
                             proto_reply *out);

/* A weld as text (the import's "weld" query parameter, clashd's --weld):
 * a decimal number >= 0 (digits first: no sign, "inf", "nan" or hex; not
 * so small it rounds to 0 but is not 0, nor over 1e300).  0 with *out, or
 * -1. */
int proto_weld_parse(const char *text, double *out);

/* GET (the summary, 200), HEAD (the same, the caller drops the body) and
 * DELETE (204 with an empty body) of /v1/shapes/{id}, `id` the path's last
 * segment; a 404 problem for an id not stored, a 400 for one not an id.
 * Returns 0, or -1 when memory ran out. */
int proto_shape_reply(const proto_context *ctx, const char *method, const char *id,
                      proto_reply *out);

/* proto_shape_reply, a GET or HEAD of a shape the memory lacks looked up
 * in the store's second tier too (shape_tier.h): it may wait (the tier
 * bounds the wait), so it runs on a worker, never on the event loop. */
int proto_shape_reply_through(const proto_context *ctx, const char *method, const char *id,
                              proto_reply *out);

/* Build a problem reply for an error found outside the decoder (404, 405,
 * 413, 415, 503 ...).  `detail` and `pointer` may be NULL.  Returns 0 or -1. */
int proto_problem_reply(int status, const char *detail, const char *pointer, proto_reply *out);

/* The same for a request refused for its HTTP form (framing, header fields,
 * target) before any JSON is read: a 400 has the type "malformed-request",
 * other statuses (501) their usual one.  Returns 0 or -1. */
int proto_request_problem_reply(int status, const char *detail, proto_reply *out);

/* The slug of that 400 ("malformed-request"). */
const char *proto_request_problem_slug(void);

/* Release the body of a reply; the struct may be reused. */
void proto_reply_free(proto_reply *r);

/*
 * Reading JSON text and answers without a JSON library of one's own: what
 * the clash tool (cli/) needs beyond the calls above.
 */

/* How a JSON parser judges a text. */
enum proto_json_state {
	PROTO_JSON_BROKEN = -1, /* not JSON, nor the start of it */
	PROTO_JSON_OPEN = 0,    /* the parser stopped at the end of the text:
	                            the value unfinished ("{", "{\"a\": {"),
	                            or its last token bad ("{]") */
	PROTO_JSON_COMPLETE = 1 /* one JSON value of any type */
};

/* How jansson judges text[0 .. len) (any top-level value; with `prefix`,
 * what follows a complete value is not read).  proto/json/json_state.c. */
enum proto_json_state proto_json_state_of(const char *text, size_t len, int prefix);

/* One class of a Scene answer's "counts" ("clash", "touch", ...). */
typedef struct proto_scene_count {
	const char *name;
	long long n; /* 0 when the member is not an integer */
} proto_scene_count;

/* The closing members of a Scene answer: "candidates", "counts" (every
 * class, in the answer's order) and "truncated". */
typedef struct proto_scene_tally {
	long long candidates;
	proto_scene_count *counts; /* malloc'd, the names with them */
	size_t ncounts;
	int truncated;
} proto_scene_tally;

/* Read the tally of a Scene answer (the body of a 200 of
 * proto_scene_reply(), `len` bytes): only its closing members are parsed,
 * so a list of clashes of any length costs a byte search.  Returns 1 with
 * *out filled (release it with proto_scene_tally_free), 0 when the body
 * has no such members ("candidates" an integer, "counts" an object), -1
 * when memory ran out; *out is empty but for 1.  proto/endpoints/scene_tally.c. */
int proto_scene_tally_of(const char *body, size_t len, proto_scene_tally *out);

void proto_scene_tally_free(proto_scene_tally *t);

#endif /* PROTO_H */
