/*
 * scene.c — the Scene request (POST /v1/scene, `clash scene`): which pairs
 * of many objects clash, touch or come closer than a clearance.
 *
 * One request, four stages: parse and decode (every object's Shape through
 * the Query's own decoder, so shapes mean the same everywhere; ids checked
 * unique, pairs and ignore lists resolved to indices), the broad phase
 * (clash_scene_candidates, on the calling thread: O(n log n)), the narrow
 * phase in pieces of SCENE_PIECE_PAIRS candidate pairs (clash_scene_pair
 * each; a piece only writes its own list, so the pieces may run on any
 * threads, see proto_context's parallel), and the encoding, which
 * concatenates the pieces' lists in order: the candidates are sorted by
 * (a, b), so the answer is in input order however the pieces ran.  Memory
 * and time are bounded whatever the body asks (objects, candidates, listed
 * clashes, reply bytes), and the server's cancel flag stops every piece.
 *
 * Why the bounds: docs/design.md, "proto/endpoints/batch.c, batch_split.c, scene.c".
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "call.h"
#include "decode.h"
#include "endpoint.h"
#include "request_cost.h"
#include "refs.h"
#include "json_write.h"
#include "parse.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "query.h"
#include "request_limits.h"
#include "mesh_reading.h"
#include "result.h"

/* Limits (openapi.yaml documents the same numbers). */
#define PROTO_SCENE_MAX_OBJECTS 100000
#define PROTO_SCENE_MAX_CANDIDATES 200000

/* Candidate pairs per piece of the narrow phase: a few milliseconds of
 * GJK, small enough that threads share a scene evenly and are never tied
 * to one for long. */
#define SCENE_PIECE_PAIRS 256
/* Pieces per wave: enough to keep every thread busy, few enough that the
 * hits of one wave (about 7 MB at most) are small beside a body. */
#define SCENE_WAVE_PIECES 64

/* The classes of a reported pair: clash, touch, clearance and duplicate. */
#define SCENE_CLASSES 4

/* The output of one piece. */
typedef struct scene_piece {
	clash_scene_hit *hits; /* the reported pairs, when its wave keeps them */
	size_t n;
	size_t counts[SCENE_CLASSES]; /* reported pairs by class (clash_class - 1) */
	int err;
} scene_piece;

typedef struct scene_job {
	proto_query owner;                  /* owns every array the shapes borrow */
	const proto_request_limits *limits; /* applied to each object's shape */
	const proto_parallel *parallel;     /* how the pieces run */
	proto_store *store;                 /* where refs are found */
	double weld;                        /* of meshes without their own */
	enum proto_limit *limit_broken;     /* which, when one is */
	size_t count;
	clash_shape *shapes;
	clash_motion *motions;     /* one per object; rest when it has no pose_end */
	int moving;                /* some object has a pose_end */
	char *idtext;              /* the ids, NUL-terminated, one after another */
	const char **ids;          /* ids[i] into idtext */
	struct id_entry *by_id;    /* the ids sorted, with their objects */
	struct id_entry *by_group; /* objects with a group, sorted by it */
	size_t ngrouped;
	size_t *group; /* each object's group number, or CLASH_SCENE_NO_GROUP */
	size_t ngroups;
	clash_pair *lists[2]; /* "pairs" and "ignore", as indices */
	size_t nlist[2];
	clash_scene scene;
	clash_pair *cand;
	size_t ncand;
	scene_piece *pieces;
	size_t npieces;
	size_t max_clashes;           /* hits to list; SIZE_MAX: all */
	size_t max_reply;             /* bytes of the answer; 0: no limit */
	size_t kept;                  /* hits kept by the waves so far */
	int keeping;                  /* the running wave keeps its hits */
	size_t counts[SCENE_CLASSES]; /* every reported pair, by class */
} scene_job;

/* An id and its object, for sorting and lookup. */
struct id_entry {
	const char *id;
	size_t i;
};

static int id_cmp(const void *x, const void *y)
{
	const struct id_entry *p = x, *q = y;
	int c = strcmp(p->id, q->id);
	if (c)
		return c;
	return (p->i > q->i) - (p->i < q->i);
}

/* The object whose id is `id`, or -1. */
static long find_id(const scene_job *job, const char *id)
{
	size_t lo = 0, hi = job->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(job->by_id[mid].id, id);
		if (c == 0) /* the first of equal ids: they sort by index */
			while (mid > 0 && strcmp(job->by_id[mid - 1].id, id) == 0)
				mid--;
		if (c == 0)
			return (long)job->by_id[mid].i;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The number of the group called `name`, or -1. */
static long find_group(const scene_job *job, const char *name)
{
	size_t lo = 0, hi = job->ngrouped;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(job->by_group[mid].id, name);
		if (c == 0)
			return (long)job->group[job->by_group[mid].i];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The request limits on one object's shape at `at`: the walk names the
 * offending value from the shape down, so its pointer gets the object's in
 * front. */
static int shape_limits(const json_t *shape, const proto_path *at, scene_job *job, proto_problem *p)
{
	enum proto_limit which = PROTO_LIMIT_NONE;
	int r = proto_limits_tree(shape, NULL, job->limits, p, &which);
	if (r != 1)
		return r;
	*job->limit_broken = which;
	char *prefix = proto_path_render(at);
	r = prefix ? proto_problem_prefix(p, prefix, strlen(prefix)) : -1;
	free(prefix);
	return r == 0 ? 1 : -1;
}

static const char *const object_members[] = {"id", "shape", "group", NULL};

/* An object's "group", when it has one: a non-empty string. */
static int object_group(const json_t *o, const proto_path *el, size_t *bytes, proto_problem *p)
{
	const json_t *g = json_object_get(o, "group");
	if (!g)
		return 0;
	proto_path gp = {el, "group", 0};
	if (!json_is_string(g))
		return proto_fail(p, &gp,
		                  "group must be a non-empty string naming the object's "
		                  "group, got %s",
		                  proto_kind_of(g));
	if (json_string_length(g) == 0)
		return proto_fail(p, &gp, "group must not be empty");
	*bytes += json_string_length(g) + 1;
	return 0;
}

/* The groups numbered: by_group sorted by name, the distinct names
 * numbered in that order. */
static void number_groups(scene_job *job)
{
	qsort(job->by_group, job->ngrouped, sizeof *job->by_group, id_cmp);
	for (size_t k = 0; k < job->count; k++)
		job->group[k] = CLASH_SCENE_NO_GROUP;
	for (size_t k = 0; k < job->ngrouped; k++) {
		if (k > 0 && strcmp(job->by_group[k].id, job->by_group[k - 1].id) != 0)
			job->ngroups++;
		job->group[job->by_group[k].i] = job->ngroups;
	}
	if (job->ngrouped > 0)
		job->ngroups++;
}

/* Copy object i's id (and group) into the text block at *text. */
static void copy_names(scene_job *job, const json_t *o, size_t i, char **text)
{
	const json_t *id = json_object_get(o, "id"), *g = json_object_get(o, "group");
	size_t len = json_string_length(id);
	memcpy(*text, json_string_value(id), len + 1);
	job->ids[i] = *text;
	job->by_id[i] = (struct id_entry){*text, i};
	*text += len + 1;
	if (!g)
		return;
	len = json_string_length(g);
	memcpy(*text, json_string_value(g), len + 1);
	job->by_group[job->ngrouped++] = (struct id_entry){*text, i};
	*text += len + 1;
}

static int objects(const json_t *v, scene_job *job, proto_problem *p)
{
	proto_path at = {NULL, "objects", 0};
	if (!json_is_array(v))
		return proto_fail(p, &at,
		                  "objects must be an array of {\"id\": string, \"shape\": "
		                  "Shape}, got %s",
		                  proto_kind_of(v));
	size_t n = json_array_size(v);
	if (n > PROTO_SCENE_MAX_OBJECTS) {
		proto_path el = {&at, NULL, PROTO_SCENE_MAX_OBJECTS};
		return proto_fail(p, &el,
		                  "a scene may have at most %d objects; this one is beyond that",
		                  PROTO_SCENE_MAX_OBJECTS);
	}
	/* The objects' members first (they are small), so the ids can be
	 * copied in one block before any shape is decoded. */
	size_t idbytes = 0;
	for (size_t i = 0; i < n; i++) {
		proto_path el = {&at, NULL, i};
		const json_t *o = json_array_get(v, i);
		if (!json_is_object(o))
			return proto_fail(
				p, &el,
				"an object must be {\"id\": string, \"shape\": Shape}, got %s",
				proto_kind_of(o));
		int r = proto_known_members(o, &el, object_members,
		                            "an object has id, shape and group", p);
		if (!r)
			r = object_group(o, &el, &idbytes, p);
		if (r)
			return r;
		const json_t *id = json_object_get(o, "id"), *shape = json_object_get(o, "shape");
		if (!id)
			return proto_fail(p, &el,
			                  "id is required: a non-empty string naming the object");
		if (!shape)
			return proto_fail(p, &el, "shape is required: the object's Shape");
		proto_path ip = {&el, "id", 0};
		if (!json_is_string(id))
			return proto_fail(p, &ip, "id must be a non-empty string, got %s",
			                  proto_kind_of(id));
		if (json_string_length(id) == 0)
			return proto_fail(p, &ip, "id must not be empty");
		/* jansson refuses \u0000, so an id is a C string. */
		idbytes += json_string_length(id) + 1;
	}
	job->count = n;
	job->shapes = calloc(n ? n : 1, sizeof *job->shapes);
	job->motions = calloc(n ? n : 1, sizeof *job->motions);
	job->ids = calloc(n ? n : 1, sizeof *job->ids);
	job->by_id = calloc(n ? n : 1, sizeof *job->by_id);
	job->by_group = calloc(n ? n : 1, sizeof *job->by_group);
	job->group = calloc(n ? n : 1, sizeof *job->group);
	job->idtext = malloc(idbytes ? idbytes : 1);
	if (!job->shapes || !job->motions || !job->ids || !job->by_id || !job->by_group ||
	    !job->group || !job->idtext)
		return -1;
	char *text = job->idtext;
	for (size_t i = 0; i < n; i++)
		copy_names(job, json_array_get(v, i), i, &text);
	number_groups(job);
	/* Unique ids: sorted by (id, index), a duplicate is next to its
	 * first; the one reported is the first duplicate in document order. */
	qsort(job->by_id, n, sizeof *job->by_id, id_cmp);
	size_t dup = n;
	for (size_t k = 1; k < n; k++)
		if (strcmp(job->by_id[k].id, job->by_id[k - 1].id) == 0 && job->by_id[k].i < dup)
			dup = job->by_id[k].i;
	if (dup < n) {
		proto_path el = {&at, NULL, dup}, ip = {&el, "id", 0};
		return proto_fail(p, &ip,
		                  "ids must be unique: this is already the id of /objects/%ld",
		                  find_id(job, job->ids[dup]));
	}
	/* The shapes, in document order, all of one dimension. */
	proto_shape_doc doc = {.store = job->store, .weld = job->weld};
	for (size_t i = 0; i < n; i++) {
		proto_path el = {&at, NULL, i}, sp = {&el, "shape", 0};
		const json_t *shape = json_object_get(json_array_get(v, i), "shape");
		int r = shape_limits(shape, &sp, job, p);
		if (!r)
			r = proto_shape_decode_in(shape, &sp, &job->owner, &doc, &job->shapes[i],
			                          &job->motions[i], &job->moving, p);
		if (r)
			return r;
	}
	return 0;
}

static const char *const group_end_members[] = {"group", NULL};

/* One end of a pair at `ep`: an id (its object's index) or {"group":
 * name} (count + the group's number), in *end. */
static int pair_end(const json_t *v, const proto_path *ep, const scene_job *job, size_t *end,
                    proto_problem *p)
{
	if (json_is_string(v)) {
		long i = find_id(job, json_string_value(v));
		if (i < 0)
			return proto_fail(p, ep, "no object has this id");
		*end = (size_t)i;
		return 0;
	}
	if (!json_is_object(v))
		return proto_fail(p, ep,
		                  "an end of a pair must be an id or {\"group\": name}, got %s",
		                  proto_kind_of(v));
	int r = proto_known_members(v, ep, group_end_members, "an end naming a group has group", p);
	if (r)
		return r;
	const json_t *g = json_object_get(v, "group");
	if (!g)
		return proto_fail(p, ep, "group is required: the name of a group of objects");
	proto_path gp = {ep, "group", 0};
	if (!json_is_string(g))
		return proto_fail(p, &gp, "group must be a string, got %s", proto_kind_of(g));
	long k = find_group(job, json_string_value(g));
	if (k < 0)
		return proto_fail(p, &gp, "no object has this group");
	*end = job->count + (size_t)k;
	return 0;
}

/* "pairs" (which = 0) or "ignore" (1): arrays of two ids or groups. */
static int pair_list(const json_t *v, const char *name, int which, scene_job *job, proto_problem *p)
{
	proto_path at = {NULL, name, 0};
	if (!json_is_array(v))
		return proto_fail(
			p, &at, "%s must be an array of pairs of ids [[\"a\", \"b\"], ...], got %s",
			name, proto_kind_of(v));
	size_t n = json_array_size(v);
	job->lists[which] = malloc((n ? n : 1) * sizeof *job->lists[which]);
	if (!job->lists[which])
		return -1;
	for (size_t i = 0; i < n; i++) {
		proto_path el = {&at, NULL, i};
		const json_t *pr = json_array_get(v, i);
		if (!json_is_array(pr) || json_array_size(pr) != 2)
			return proto_fail(p, &el,
			                  "a pair must be an array of two ids or groups, got %s",
			                  json_is_array(pr) ? "another number of elements"
			                                    : proto_kind_of(pr));
		size_t ends[2];
		for (size_t k = 0; k < 2; k++) {
			proto_path ep = {&el, NULL, k};
			int r = pair_end(json_array_get(pr, k), &ep, job, &ends[k], p);
			if (r)
				return r;
		}
		if (ends[0] == ends[1] && ends[0] < job->count) {
			proto_path ep = {&el, NULL, 1};
			return proto_fail(
				p, &ep,
				"a pair names two different objects; this is the first one "
				"again");
		}
		job->lists[which][i] = (clash_pair){ends[0], ends[1]};
	}
	job->nlist[which] = n;
	return 0;
}

static const char *const scene_members[] = {"objects",     "clearance", "tolerance",
                                            "touch_depth", "pairs",     "ignore",
                                            "max_clashes", "units",     NULL};

/* "max_clashes": how many clashes to list, at most the server's limit. */
static int max_clashes(const json_t *v, scene_job *job, proto_problem *p)
{
	size_t limit = job->limits->max_clashes;
	job->max_clashes = limit ? limit : SIZE_MAX;
	if (!v)
		return 0;
	proto_path at = {NULL, "max_clashes", 0};
	if (!json_is_number(v))
		return proto_fail(p, &at, "max_clashes must be an integer >= 0, got %s",
		                  proto_kind_of(v));
	double n = json_number_value(v); /* integers may come as reals */
	if (!(n >= 0) || n != floor(n))
		return proto_fail(p, &at, "max_clashes must be an integer >= 0, got %.17g", n);
	if (limit && n > (double)limit)
		return proto_fail(p, &at,
		                  "max_clashes may be at most %zu on this server "
		                  "(--max-clashes); the answer counts every pair beyond "
		                  "the list anyway",
		                  limit);
	if (n > 1e15)
		n = 1e15; /* all there can be: candidates are bounded far below */
	job->max_clashes = (size_t)n;
	return 0;
}

static int decode(const json_t *root, scene_job *job, proto_problem *p)
{
	if (!json_is_object(root))
		return proto_fail(p, NULL,
		                  "a scene must be a JSON object {\"objects\": [...]}, got %s",
		                  proto_kind_of(root));
	int r = proto_known_members(
		root, NULL, scene_members,
		"a scene has objects, clearance, tolerance, touch_depth, pairs, "
		"ignore, max_clashes and units",
		p);
	if (r)
		return r;
	/* The scene's units first: its objects must name the same. */
	const json_t *uv = json_object_get(root, "units");
	if (uv) {
		proto_path at = {NULL, "units", 0};
		int units = 0;
		if ((r = proto_units_read(uv, &at, &units, p)) ||
		    (r = proto_units_note(&job->owner.units, units, &at, p)))
			return r;
	}
	if ((r = max_clashes(json_object_get(root, "max_clashes"), job, p)))
		return r;
	const json_t *v = json_object_get(root, "objects");
	if (!v)
		return proto_fail(p, NULL,
		                  "objects is required: an array of {\"id\": string, \"shape\": "
		                  "Shape}");
	if ((r = objects(v, job, p)))
		return r;
	job->scene.count = job->count;
	job->scene.shapes = job->shapes;
	job->scene.motions = job->moving ? job->motions : NULL;
	job->scene.max_candidates = PROTO_SCENE_MAX_CANDIDATES;
	if (job->ngroups > 0) {
		job->scene.group = job->group;
		job->scene.ngroups = job->ngroups;
	}
	if ((v = json_object_get(root, "clearance"))) {
		proto_path at = {NULL, "clearance", 0};
		if (!json_is_number(v))
			return proto_fail(p, &at, "clearance must be a number, got %s",
			                  proto_kind_of(v));
		double c = json_number_value(v);
		if (!(c >= 0))
			return proto_fail(p, &at, "clearance must be a distance >= 0, got %.17g",
			                  c);
		job->scene.clearance = c;
	}
	if ((v = json_object_get(root, "tolerance"))) {
		proto_path at = {NULL, "tolerance", 0};
		if (!json_is_number(v))
			return proto_fail(p, &at, "tolerance must be a number, got %s",
			                  proto_kind_of(v));
		double t = json_number_value(v);
		if (!(t > 0))
			return proto_fail(p, &at, "tolerance must be a distance > 0, got %.17g", t);
		job->scene.opt.tolerance = t;
	}
	if ((v = json_object_get(root, "touch_depth"))) {
		proto_path at = {NULL, "touch_depth", 0};
		if (!json_is_number(v))
			return proto_fail(p, &at, "touch_depth must be a number, got %s",
			                  proto_kind_of(v));
		double d = json_number_value(v);
		if (!(d >= 0) || !isfinite(d))
			return proto_fail(p, &at, "touch_depth must be a depth >= 0, got %.17g", d);
		job->scene.touch_depth = d;
	}
	if ((v = json_object_get(root, "pairs"))) {
		if ((r = pair_list(v, "pairs", 0, job, p)))
			return r;
		if (job->nlist[0] == 0) {
			proto_path at = {NULL, "pairs", 0};
			return proto_fail(
				p, &at,
				"pairs must not be empty: leave it out to examine every pair");
		}
		job->scene.only = job->lists[0];
		job->scene.nonly = job->nlist[0];
	}
	if ((v = json_object_get(root, "ignore"))) {
		if ((r = pair_list(v, "ignore", 1, job, p)))
			return r;
		job->scene.ignore = job->lists[1];
		job->scene.nignore = job->nlist[1];
	}
	return 0;
}

static void release(scene_job *job)
{
	proto_query_release(&job->owner);
	free(job->shapes);
	free(job->motions);
	free(job->ids);
	free(job->by_id);
	free(job->by_group);
	free(job->group);
	free(job->idtext);
	free(job->lists[0]);
	free(job->lists[1]);
	free(job->cand);
	for (size_t i = 0; i < job->npieces; i++)
		free(job->pieces[i].hits);
	free(job->pieces);
	memset(job, 0, sizeof *job);
}

/* ---- the two phases ------------------------------------------------------ */

/* A wave: pieces [base, base + n) run by wave_piece(ctx, i - base). */
typedef struct scene_wave {
	scene_job *job;
	size_t base;
} scene_wave;

/* Piece i: the narrow phase of candidates [i * SCENE_PIECE_PAIRS, ...),
 * each reported pair counted and, while its wave keeps them, kept. */
static void run_piece(scene_job *job, size_t i)
{
	scene_piece *pc = &job->pieces[i];
	size_t end = (i + 1) * SCENE_PIECE_PAIRS;
	if (end > job->ncand)
		end = job->ncand;
	size_t cap = 0;
	const volatile int *cancel = job->scene.opt.cancel;
	if (proto_cancel_requested(cancel)) {
		pc->err = CLASH_ECANCELED;
		return;
	}
	for (size_t k = i * SCENE_PIECE_PAIRS; k < end; k++) {
		clash_scene_hit h;
		int err = clash_scene_pair(&job->scene, job->cand[k].a, job->cand[k].b, &h);
		if (err) {
			pc->err = err;
			return;
		}
		if (h.cls == CLASH_CLASS_NONE)
			continue;
		assert(h.cls >= CLASH_CLASS_CLASH && h.cls <= CLASH_CLASS_DUPLICATE);
		pc->counts[h.cls - CLASH_CLASS_CLASH]++;
		if (!job->keeping)
			continue;
		if (pc->n == cap) {
			size_t grown_cap = cap ? 2 * cap : 8;
			clash_scene_hit *grown = realloc(pc->hits, grown_cap * sizeof *grown);
			if (!grown) {
				pc->err = CLASH_ENOMEM;
				return;
			}
			pc->hits = grown;
			cap = grown_cap;
		}
		pc->hits[pc->n++] = h;
	}
}

static void wave_piece(void *ctx, size_t i)
{
	const scene_wave *w = ctx;
	run_piece(w->job, w->base + i);
}

/* After a wave, in piece order: the counts added up, and the hits past
 * max_clashes dropped, so that memory stays within the list's bound. */
static void wave_done(scene_job *job, size_t base, size_t n)
{
	for (size_t i = base; i < base + n; i++) {
		scene_piece *pc = &job->pieces[i];
		for (int c = 0; c < SCENE_CLASSES; c++)
			job->counts[c] += pc->counts[c];
		size_t room = job->max_clashes - job->kept;
		if (pc->n > room) {
			pc->n = room;
			if (room == 0) {
				free(pc->hits);
				pc->hits = NULL;
			}
		}
		job->kept += pc->n;
	}
}

/* A core error while answering, as a problem (1) or -1 for memory. */
static int run_problem(int err, proto_request *rq, proto_problem *p)
{
	if (err != CLASH_ELIMIT)
		return proto_core_problem(err, rq, "scene", p);
	proto_problem_set(p, 422, strdup("/objects"),
	                  "more than %d pairs of objects have overlapping boxes (grown by "
	                  "the clearance): split the scene, or narrow it with pairs or "
	                  "ignore",
	                  PROTO_SCENE_MAX_CANDIDATES);
	return p->pointer ? 1 : -1;
}

static int run(scene_job *job, proto_request *rq, proto_problem *p)
{
	const volatile int *cancel = job->scene.opt.cancel;
	if (proto_cancel_requested(cancel)) /* parsing took the time there was */
		return run_problem(CLASH_ECANCELED, rq, p);
	int err = clash_scene_candidates(&job->scene, &job->cand, &job->ncand, NULL);
	if (err)
		return run_problem(err, rq, p);
	job->npieces = (job->ncand + SCENE_PIECE_PAIRS - 1) / SCENE_PIECE_PAIRS;
	if (job->npieces == 0)
		return 0;
	job->pieces = calloc(job->npieces, sizeof *job->pieces);
	if (!job->pieces)
		return -1;
	for (size_t base = 0; base < job->npieces; base += SCENE_WAVE_PIECES) {
		size_t n = job->npieces - base;
		if (n > SCENE_WAVE_PIECES)
			n = SCENE_WAVE_PIECES;
		job->keeping = job->kept < job->max_clashes;
		scene_wave w = {job, base};
		if (job->parallel->run && n > 1)
			job->parallel->run(job->parallel->self, wave_piece, &w, n);
		else
			for (size_t i = 0; i < n; i++)
				wave_piece(&w, i);
		/* A cancelled piece speaks for the scene: the others may have
		 * failed only because of it. */
		for (size_t i = base; i < base + n; i++)
			if (job->pieces[i].err == CLASH_ECANCELED)
				return run_problem(CLASH_ECANCELED, rq, p);
		for (size_t i = base; i < base + n; i++)
			if (job->pieces[i].err)
				return run_problem(job->pieces[i].err, rq, p);
		wave_done(job, base, n);
	}
	return 0;
}

/* ---- encoding ------------------------------------------------------------ */

/* Written straight as text, the bytes json_dumps(JSON_COMPACT |
 * JSON_REAL_PRECISION(17)) gives for the same members added in this order
 * (json_write.h), so the text is what a jansson tree would have printed. */
static void id_text(proto_text *t, const char *id)
{
	proto_text_string(t, id, strlen(id));
}

static const char *const class_names[SCENE_CLASSES] = {"clash", "touch", "clearance", "duplicate"};

/* ,"penetration":{...}: the exact depth with its direction (convex
 * shapes), or the lower bound, with the deepest pair of parts' exact depth
 * and direction when the core gave them (compound shapes). */
static void penetration_text(proto_text *t, const clash_scene_hit *h, int dim)
{
	if (h->depth_exact)
		PROTO_TEXT_LIT(t, ",\"penetration\":{\"depth\":");
	else
		PROTO_TEXT_LIT(t, ",\"penetration\":{\"depth_lower_bound\":");
	proto_text_real(t, h->depth);
	if (h->pair_depth_exact) {
		PROTO_TEXT_LIT(t, ",\"deepest_pair\":{\"depth\":");
		proto_text_real(t, h->pair_depth);
	}
	if (h->depth_exact || h->pair_depth_exact) {
		PROTO_TEXT_LIT(t, ",\"normal\":");
		proto_text_reals(t, h->normal, dim);
	}
	if (h->pair_depth_exact)
		PROTO_TEXT_LIT(t, "}");
	PROTO_TEXT_LIT(t, "}");
}

static void clash_text(proto_text *t, const scene_job *job, const clash_scene_hit *h, int dim)
{
	PROTO_TEXT_LIT(t, "{\"a\":");
	id_text(t, job->ids[h->a]);
	PROTO_TEXT_LIT(t, ",\"b\":");
	id_text(t, job->ids[h->b]);
	PROTO_TEXT_LIT(t, ",\"class\":\"");
	const char *cls = class_names[h->cls - CLASH_CLASS_CLASH];
	proto_text_put(t, cls, strlen(cls));
	if (h->intersecting)
		PROTO_TEXT_LIT(t, "\",\"intersecting\":true,\"distance\":");
	else
		PROTO_TEXT_LIT(t, "\",\"intersecting\":false,\"distance\":");
	proto_text_real(t, h->distance);
	PROTO_TEXT_LIT(t, ",\"near_points\":{\"a\":");
	proto_text_reals(t, h->near_a, dim);
	PROTO_TEXT_LIT(t, ",\"b\":");
	proto_text_reals(t, h->near_b, dim);
	PROTO_TEXT_LIT(t, "}");
	if (h->has_parts) {
		PROTO_TEXT_LIT(t, ",\"near_parts\":{\"a\":");
		proto_text_int(t, (long long)h->part_a);
		PROTO_TEXT_LIT(t, ",\"b\":");
		proto_text_int(t, (long long)h->part_b);
		PROTO_TEXT_LIT(t, "}");
	}
	if (h->mesh) {
		/* How each side's meshes were read (Result.solid, Result.read). */
		const clash_shape *sa = &job->shapes[h->a], *sb = &job->shapes[h->b];
		clash_mesh_info ia, ib;
		const int solid_a = clash_shape_mesh_info(sa, &ia) == 0 || ia.solid;
		const int solid_b = clash_shape_mesh_info(sb, &ib) == 0 || ib.solid;
		PROTO_TEXT_LIT(t, ",\"solid\":{\"a\":");
		proto_text_put(t, solid_a ? "true" : "false", solid_a ? 4 : 5);
		PROTO_TEXT_LIT(t, ",\"b\":");
		proto_text_put(t, solid_b ? "true" : "false", solid_b ? 4 : 5);
		PROTO_TEXT_LIT(t, "},\"read\":{\"a\":");
		proto_mesh_reading_text(t, sa);
		PROTO_TEXT_LIT(t, ",\"b\":");
		proto_mesh_reading_text(t, sb);
		PROTO_TEXT_LIT(t, "}");
	}
	if (h->intersecting && h->mesh) {
		/* A mesh pair: how they meet (Result.intersection); between
		 * solids, how deep and how much (penetration, overlap). */
		static const char *const how[] = {NULL, "surfaces", "a_inside_b", "b_inside_a"};
		if (h->contact > 0 && h->contact <= 3) {
			PROTO_TEXT_LIT(t, ",\"intersection\":\"");
			proto_text_put(t, how[h->contact], strlen(how[h->contact]));
			PROTO_TEXT_LIT(t, "\"");
		}
		if (h->depth_exact)
			penetration_text(t, h, dim);
		if (h->has_volume) {
			PROTO_TEXT_LIT(t, ",\"overlap\":{\"volume\":");
			proto_text_real(t, h->volume);
			PROTO_TEXT_LIT(t, "}");
		}
	} else if (h->intersecting && h->cls != CLASH_CLASS_DUPLICATE) {
		penetration_text(t, h, dim);
	}
	if (h->moving) {
		const clash_toi_result *m = &h->toi;
		int finite = proto_result_motion(t, m, dim) == 0;
		assert(finite); /* encode() checked every number */
		(void)finite;
		if (job->scene.clearance > 0 && m->near) {
			PROTO_TEXT_LIT(t, ",\"clearance_time\":");
			proto_text_real(t, m->near_time);
		}
	}
	if (h->converged)
		PROTO_TEXT_LIT(t, ",\"converged\":true}");
	else
		PROTO_TEXT_LIT(t, ",\"converged\":false}");
}

/* Whether a hit holds a number JSON cannot carry (a bug in the core). */
static int non_finite(const clash_scene_hit *h, int dim)
{
	int bad = !isfinite(h->distance) || !isfinite(h->depth) || !isfinite(h->pair_depth) ||
	          !isfinite(h->volume);
	for (int k = 0; k < dim; k++)
		bad |= !isfinite(h->near_a[k]) || !isfinite(h->near_b[k]) ||
		       !isfinite(h->normal[k]) || !isfinite(h->toi.point[k]) ||
		       !isfinite(h->toi.normal[k]);
	return bad || !isfinite(h->toi.toi) || !isfinite(h->toi.near_time);
}

/* Bytes kept free for what follows the list: "],\"candidates\":" and the
 * counts, five integers of at most 20 digits, with their names (189 at
 * most). */
#define SCENE_TAIL_MAX 200

/* Clashes written between two looks at the cancel flag. */
#define SCENE_ENCODE_STRIDE 256

/* The objects listed by id in the summary's "surfaces": those holding a
 * mesh that is no solid. */
#define SCENE_SURFACES_LISTED 100

/* ,"surfaces":{"ids":[...],"count":n} when some object holds a mesh: the
 * objects whose meshes were treated as open surfaces, the first
 * SCENE_SURFACES_LISTED by id. */
static void surfaces_text(proto_text *t, const scene_job *job)
{
	size_t n = 0, meshes = 0;
	for (size_t i = 0; i < job->count; i++) {
		/* Not clash_shape_mesh_info: the objects without a reported
		 * pair need not have their crossings counted. */
		int solid;
		if (clash_shape_mesh_solid(&job->shapes[i], &solid) == 0)
			continue;
		if (meshes++ == 0)
			PROTO_TEXT_LIT(t, ",\"surfaces\":{\"ids\":[");
		if (solid)
			continue;
		if (n < SCENE_SURFACES_LISTED) {
			if (n)
				PROTO_TEXT_LIT(t, ",");
			id_text(t, job->ids[i]);
		}
		n++;
	}
	if (meshes == 0)
		return;
	PROTO_TEXT_LIT(t, "],\"count\":");
	proto_text_int(t, (long long)n);
	PROTO_TEXT_LIT(t, "}");
}

static int encode(const scene_job *job, proto_request *rq, proto_reply *out, proto_problem *p)
{
	const int dim = job->count ? job->shapes[0].dim : 0;
	for (size_t i = 0; i < job->npieces; i++)
		for (size_t k = 0; k < job->pieces[i].n; k++)
			if (non_finite(&job->pieces[i].hits[k], dim)) {
				proto_problem_set(p, 500, NULL,
				                  "the answer has a non-finite number; please "
				                  "report this scene");
				return 1;
			}
	proto_text tail = {0};
	surfaces_text(&tail, job);
	const char *units = proto_units_name(job->owner.units.units);
	if (units) {
		PROTO_TEXT_LIT(&tail, ",\"units\":");
		proto_text_string(&tail, units, strlen(units));
	}
	if (tail.failed) {
		free(proto_text_finish(&tail, NULL));
		return -1;
	}
	size_t room = SIZE_MAX;
	if (job->max_reply) {
		const size_t keep = SCENE_TAIL_MAX + tail.len;
		room = job->max_reply > keep ? job->max_reply - keep : 0;
	}
	size_t listed = 0, written = 0;
	int full = 0;
	proto_text t = {0};
	PROTO_TEXT_LIT(&t, "{\"clashes\":[");
	for (size_t i = 0; !full && i < job->npieces; i++)
		for (size_t k = 0; !full && k < job->pieces[i].n; k++) {
			if (++written % SCENE_ENCODE_STRIDE == 0 &&
			    proto_cancel_requested(job->scene.opt.cancel)) {
				free(proto_text_finish(&t, NULL));
				free(proto_text_finish(&tail, NULL));
				return run_problem(CLASH_ECANCELED, rq, p);
			}
			size_t before = t.len;
			if (listed)
				PROTO_TEXT_LIT(&t, ",");
			clash_text(&t, job, &job->pieces[i].hits[k], dim);
			if (t.len > room) { /* the list ends before this clash */
				t.len = before;
				full = 1;
			} else {
				listed++;
			}
		}
	size_t total = 0;
	for (int c = 0; c < SCENE_CLASSES; c++)
		total += job->counts[c];
	PROTO_TEXT_LIT(&t, "],\"candidates\":");
	proto_text_int(&t, (long long)job->ncand);
	for (int c = 0; c < SCENE_CLASSES; c++) {
		if (c)
			PROTO_TEXT_LIT(&t, ",\"");
		else
			PROTO_TEXT_LIT(&t, ",\"counts\":{\"");
		proto_text_put(&t, class_names[c], strlen(class_names[c]));
		PROTO_TEXT_LIT(&t, "\":");
		proto_text_int(&t, (long long)job->counts[c]);
	}
	if (listed < total)
		PROTO_TEXT_LIT(&t, "},\"truncated\":true");
	else
		PROTO_TEXT_LIT(&t, "},\"truncated\":false");
	if (tail.len)
		proto_text_put(&t, tail.s, tail.len);
	free(proto_text_finish(&tail, NULL));
	PROTO_TEXT_LIT(&t, "}");
	size_t len = 0;
	char *body = proto_text_finish(&t, &len);
	assert(!body || !job->max_reply || len <= job->max_reply);
	return proto_reply_json(out, 200, body, len);
}

/* A Scene's tree decoded, run and encoded. */
static int answer(proto_request *rq, proto_reply *out, proto_problem *p)
{
	/* call->iterations stays -1: many methods' runs, none of them the
	 * request's. */
	scene_job job;
	memset(&job, 0, sizeof job);
	job.limits = &rq->ctx->limits;
	job.parallel = &rq->ctx->parallel;
	job.store = rq->ctx->store;
	job.weld = rq->ctx->weld;
	job.limit_broken = &rq->call->limit;
	job.max_clashes = job.limits->max_clashes ? job.limits->max_clashes : SIZE_MAX;
	job.max_reply = job.limits->max_reply;
	int r = decode(rq->root, &job, p);
	if (r == 1 && proto_refs_missing(rq->root, job.store, p) != 0)
		r = -1;
	proto_request_drop(rq); /* the job holds copies of everything it needs */
	job.scene.opt.cancel = rq->call->cancel;
	if (r == 0)
		r = run(&job, rq, p);
	if (r == 0)
		r = encode(&job, rq, out, p);
	release(&job);
	return r;
}

/* The depth limit on the whole body, the counts on each object's shape
 * (shape_limits). */
static const proto_endpoint scene_endpoint = {"a JSON object", PROTO_PARSE_DEPTH, 0, answer,
                                              proto_cost_scene};

int proto_scene_reply(const char *body, size_t len, proto_reply *out)
{
	return proto_scene_reply_ex(body, len, NULL, out);
}

int proto_scene_reply_ex(const char *body, size_t len, proto_call *call, proto_reply *out)
{
	return proto_endpoint_reply(&scene_endpoint, body, len, call, NULL, out);
}
