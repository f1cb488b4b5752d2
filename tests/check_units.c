/*
 * check_units.c — suite "units": the length units a shape or a scene may
 * name (proto/shapes/units.c).
 *
 * A unit is a label: every answer that names one must be, member for
 * member, the answer to the same request without it, plus "units"; a
 * request whose shapes name two different units is a 422 at the first
 * one that differs, whatever carries it (a side, a part, a scene object,
 * a scene, a stored shape named by ref).  Stored shapes keep their units:
 * the id covers them (the same geometry in mm and in inches are two
 * shapes), the upload's reply echoes them, and a ref brings them into
 * the request it is named in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "proto.h"

typedef int (*reply_fn)(const char *, size_t, proto_reply *);

/* The reply to `text` with ' for " (parsed); its status in *status. */
static json_t *reply_to(reply_fn fn, const char *single_quoted, int *status)
{
	char *t = strdup(single_quoted);
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	proto_reply r;
	ck_assert_int_eq(fn(t, strlen(t), &r), 0);
	free(t);
	json_t *j = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(j);
	*status = r.status;
	proto_reply_free(&r);
	return j;
}

static int batch_reply(const char *body, size_t len, proto_reply *out)
{
	return proto_batch_reply_ex(body, len, NULL, out);
}

/* `with` names units `name` and `without` is the same request without
 * them: both answered 200, the first with "units": name and otherwise
 * equal to the second (member for member; `sub` names a member holding
 * the units instead of the top level, as a batch's "results"[0]). */
static void echoed(reply_fn fn, const char *with, const char *without, const char *name)
{
	int s1, s2;
	json_t *a = reply_to(fn, with, &s1), *b = reply_to(fn, without, &s2);
	ck_assert_int_eq(s1, 200);
	ck_assert_int_eq(s2, 200);
	json_t *ra = a, *rb = b;
	if (json_object_get(a, "results")) { /* a batch: its first answer */
		ra = json_array_get(json_object_get(a, "results"), 0);
		rb = json_array_get(json_object_get(b, "results"), 0);
	}
	ck_assert_str_eq(json_string_value(json_object_get(ra, "units")), name);
	ck_assert_ptr_null(json_object_get(rb, "units"));
	json_object_del(ra, "units");
	ck_assert_msg(json_equal(a, b), "%s: the answer differs beyond units", with);
	json_decref(a);
	json_decref(b);
}

/* `text` is a 422 whose pointer is `pointer` (and whose detail names
 * `needle`, when not NULL). */
static void refused(reply_fn fn, const char *text, const char *pointer, const char *needle)
{
	int st;
	json_t *whole = reply_to(fn, text, &st), *j = whole;
	if (st == 200 && json_object_get(whole, "results")) { /* a batch's item */
		j = json_array_get(json_object_get(whole, "results"), 0);
		st = (int)json_integer_value(json_object_get(j, "status"));
	}
	ck_assert_msg(st == 422, "%s: status %d", text, st);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	ck_assert_msg(ptr && strcmp(ptr, pointer) == 0, "%s: pointer %s, expected %s", text,
	              ptr ? ptr : "(none)", pointer);
	const char *detail = json_string_value(json_object_get(j, "detail"));
	ck_assert_msg(!needle || (detail && strstr(detail, needle)), "%s: detail %s", text,
	              detail ? detail : "(none)");
	json_decref(whole);
}

#define BOX_A "'vertices':[[0,0,0],[2,0,0],[0,2,0],[0,0,2],[2,2,2]]"
#define BOX_B "'vertices':[[1,1,1],[3,1,1],[1,3,1],[1,1,3],[3,3,3]]"
#define MESH_TET \
	"'mesh':{'positions':[0,0,0,1,0,0,0,1,0,0,0,1],'indices':[0,2,1,0,1,3,0,3,2,1,2,3]}"

START_TEST(query_echoes_units)
{
	echoed(proto_query_reply, "{'a':{" BOX_A ",'units':'mm'},'b':{" BOX_B ",'units':'mm'}}",
	       "{'a':{" BOX_A "},'b':{" BOX_B "}}", "mm");
	/* One side alone names them. */
	echoed(proto_query_reply, "{'a':{" BOX_A "},'b':{" BOX_B ",'units':'in'}}",
	       "{'a':{" BOX_A "},'b':{" BOX_B "}}", "in");
	/* A part names them; a mesh; a primitive; a motion. */
	echoed(proto_query_reply,
	       "{'a':{'parts':[{" BOX_A ",'units':'cm'},{'sphere':{'radius':1}}]},'b':{" MESH_TET
	       "}}",
	       "{'a':{'parts':[{" BOX_A "},{'sphere':{'radius':1}}]},'b':{" MESH_TET "}}", "cm");
	echoed(proto_query_reply,
	       "{'a':{'box':{'half_extents':[1,1,1]},'units':'m'},'b':{" BOX_B
	       ",'pose_end':{'translation':[-5,0,0]},'units':'m'}}",
	       "{'a':{'box':{'half_extents':[1,1,1]}},'b':{" BOX_B
	       ",'pose_end':{'translation':[-5,0,0]}}}",
	       "m");
}
END_TEST

START_TEST(batch_contains_and_scene_echo_units)
{
	echoed(batch_reply, "{'queries':[{'a':{" BOX_A ",'units':'mm'},'b':{" BOX_B "}}]}",
	       "{'queries':[{'a':{" BOX_A "},'b':{" BOX_B "}}]}", "mm");
	echoed(proto_contains_reply, "{'inner':{" BOX_B ",'units':'mm'},'outer':{" BOX_A "}}",
	       "{'inner':{" BOX_B "},'outer':{" BOX_A "}}", "mm");
	echoed(proto_scene_reply,
	       "{'units':'mm','objects':[{'id':'p','shape':{" BOX_A "}},{'id':'q','shape':{" BOX_B
	       ",'units':'mm'}}]}",
	       "{'objects':[{'id':'p','shape':{" BOX_A "}},{'id':'q','shape':{" BOX_B "}}]}", "mm");
	echoed(proto_scene_reply,
	       "{'objects':[{'id':'p','shape':{" MESH_TET
	       ",'units':'in'}},{'id':'q','shape':{" BOX_B "}}]}",
	       "{'objects':[{'id':'p','shape':{" MESH_TET "}},{'id':'q','shape':{" BOX_B "}}]}",
	       "in");
}
END_TEST

START_TEST(different_units_refused)
{
	refused(proto_query_reply, "{'a':{" BOX_A ",'units':'mm'},'b':{" BOX_B ",'units':'in'}}",
	        "/b/units", "/a/units says \"mm\"");
	refused(proto_query_reply,
	        "{'a':{'parts':[{" BOX_A ",'units':'mm'},{" BOX_B ",'units':'cm'}]},'b':{" BOX_B
	        "}}",
	        "/a/parts/1/units", "converts no units");
	refused(proto_query_reply, "{'a':{" BOX_A ",'units':'ft'},'b':{" BOX_B "}}", "/a/units",
	        "\"ft\"");
	refused(proto_query_reply, "{'a':{" BOX_A ",'units':3},'b':{" BOX_B "}}", "/a/units",
	        "a number");
	refused(proto_scene_reply,
	        "{'units':'m','objects':[{'id':'p','shape':{" BOX_A "}},{'id':'q','shape':{" BOX_B
	        ",'units':'mm'}}]}",
	        "/objects/1/shape/units", "/units says \"m\"");
	refused(proto_scene_reply, "{'units':'yd','objects':[]}", "/units", "\"yd\"");
	refused(batch_reply,
	        "{'queries':[{'a':{" BOX_A ",'units':'m'},'b':{" BOX_B ",'units':'mm'}}]}",
	        "/queries/0/b/units", NULL);
	refused(proto_contains_reply,
	        "{'inner':{" BOX_B ",'units':'m'},'outer':{" BOX_A ",'units':'in'}}",
	        "/outer/units", NULL);
}
END_TEST

/* Upload `shape` (a JSON text): its reply, parsed; status in *status. */
static json_t *upload(const char *shape, int *status)
{
	char *text = http_post_json("/v1/shapes", shape, status);
	json_t *j = json_loads(text, 0, NULL);
	ck_assert_msg(j != NULL, "upload: %s", text);
	free(text);
	return j;
}

static json_t *post(const char *path, const char *body, int *status)
{
	char *text = http_post_json(path, body, status);
	json_t *j = json_loads(text, 0, NULL);
	ck_assert_msg(j != NULL, "%s: %s", path, text);
	free(text);
	return j;
}

START_TEST(stored_shapes_keep_units)
{
	server_start();
	const char *bare = "{\"vertices\":[[0,0,0],[2,0,0],[0,2,0],[0,0,2]]}";
	const char *mm = "{\"vertices\":[[0,0,0],[2,0,0],[0,2,0],[0,0,2]],\"units\":\"mm\"}";
	const char *in = "{\"vertices\":[[0,0,0],[2,0,0],[0,2,0],[0,0,2]],\"units\":\"in\"}";
	int s0, s1, s2;
	json_t *u0 = upload(bare, &s0), *u1 = upload(mm, &s1), *u2 = upload(in, &s2);
	ck_assert_int_eq(s0, 201);
	ck_assert_int_eq(s1, 201); /* another id: a new shape */
	ck_assert_int_eq(s2, 201);
	ck_assert_ptr_null(json_object_get(u0, "units"));
	ck_assert_str_eq(json_string_value(json_object_get(u1, "units")), "mm");
	ck_assert_str_eq(json_string_value(json_object_get(u2, "units")), "in");
	const char *id0 = json_string_value(json_object_get(u0, "id"));
	const char *id1 = json_string_value(json_object_get(u1, "id"));
	const char *id2 = json_string_value(json_object_get(u2, "id"));
	ck_assert_str_ne(id0, id1);
	ck_assert_str_ne(id1, id2);
	/* Uploaded again: the same id, not a new shape. */
	int s3;
	json_t *again = upload(mm, &s3);
	ck_assert_int_eq(s3, 200);
	ck_assert_str_eq(json_string_value(json_object_get(again, "id")), id1);
	json_decref(again);

	char body[600];
	/* A ref brings its units: echoed, and checked against the other side. */
	snprintf(body, sizeof body,
	         "{\"a\":{\"ref\":\"%s\"},\"b\":{\"vertices\":[[1,1,1],[3,1,1],"
	         "[1,3,1],[1,1,3]]}}",
	         id1);
	int st;
	json_t *q = post("/v1/query", body, &st);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(json_string_value(json_object_get(q, "units")), "mm");
	json_decref(q);
	snprintf(body, sizeof body, "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\"}}", id1, id2);
	q = post("/v1/query", body, &st);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(q, "pointer")), "/b/ref");
	json_decref(q);
	/* The bare shape takes any side's units; the ref's own "units" must agree. */
	snprintf(body, sizeof body,
	         "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\",\"units\":\"in\"}}", id0, id0);
	q = post("/v1/query", body, &st);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(json_string_value(json_object_get(q, "units")), "in");
	json_decref(q);
	snprintf(body, sizeof body,
	         "{\"a\":{\"ref\":\"%s\",\"units\":\"cm\"},\"b\":{\"ref\":\"%s\"}}", id1, id0);
	q = post("/v1/query", body, &st);
	ck_assert_int_eq(st, 422);
	ck_assert_str_eq(json_string_value(json_object_get(q, "pointer")), "/a/units");
	json_decref(q);
	json_decref(u0);
	json_decref(u1);
	json_decref(u2);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	ck_case(s, "wire", 30,
	        CK_TESTS(query_echoes_units, batch_contains_and_scene_echo_units,
	                 different_units_refused));
	ck_case(s, "store", 60, CK_TESTS(stored_shapes_keep_units));
	return s;
}

CHECK_SUITE(units_suite)
