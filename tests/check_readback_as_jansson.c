/*
 * check_readback_as_jansson.c — suite "readback_as_jansson": proto's
 * calls that read JSON text back for the clash tool (proto_json_state_of,
 * proto_problem_place, proto_scene_tally_of), each against jansson asked
 * directly, as cli/ did before it left JSON to proto.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "problem.h"
#include "proto.h"

/* jansson's own verdict, as cli/framing.c asked it. */
static enum proto_json_state jansson_state(const char *text, int prefix)
{
	json_error_t e;
	size_t len = strlen(text);
	json_t *j =
		json_loadb(text, len, JSON_DECODE_ANY | (prefix ? JSON_DISABLE_EOF_CHECK : 0), &e);
	json_decref(j);
	if (j)
		return PROTO_JSON_COMPLETE;
	return e.position >= 0 && (size_t)e.position >= len ? PROTO_JSON_OPEN : PROTO_JSON_BROKEN;
}

START_TEST(json_states)
{
	static const struct {
		const char *text;
		enum proto_json_state plain, prefix;
	} cases[] = {
		{"{}", PROTO_JSON_COMPLETE, PROTO_JSON_COMPLETE},
		{"42", PROTO_JSON_COMPLETE, PROTO_JSON_COMPLETE},
		{"{", PROTO_JSON_OPEN, PROTO_JSON_OPEN},
		{"{\"a\": {", PROTO_JSON_OPEN, PROTO_JSON_OPEN},
		{"", PROTO_JSON_OPEN, PROTO_JSON_OPEN},
		{"{} {", PROTO_JSON_OPEN, PROTO_JSON_COMPLETE},
		{"{]}", PROTO_JSON_BROKEN, PROTO_JSON_BROKEN},
		{"tru ", PROTO_JSON_BROKEN, PROTO_JSON_BROKEN},
		{"{} x ", PROTO_JSON_BROKEN, PROTO_JSON_COMPLETE},
		/* The parser stopped at the end, at a bad last token: open too. */
		{"{]", PROTO_JSON_OPEN, PROTO_JSON_OPEN},
		{"tru", PROTO_JSON_OPEN, PROTO_JSON_OPEN},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i].text;
		ck_assert_int_eq(proto_json_state_of(t, strlen(t), 0), cases[i].plain);
		ck_assert_int_eq(proto_json_state_of(t, strlen(t), 1), cases[i].prefix);
		ck_assert_int_eq(proto_json_state_of(t, strlen(t), 0), jansson_state(t, 0));
		ck_assert_int_eq(proto_json_state_of(t, strlen(t), 1), jansson_state(t, 1));
	}
}
END_TEST

/* The placed problem as jansson writes it. */
static char *jansson_place(const char *body, json_int_t line, json_int_t offset)
{
	json_t *j = json_loads(body, 0, NULL);
	ck_assert(json_is_object(j));
	json_t *pos = json_object_get(j, "position");
	json_object_set_new(j, "line", json_integer(line));
	if (json_is_integer(pos))
		json_integer_set(pos, json_integer_value(pos) + offset);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

static void check_place(const char *request, const char *expect)
{
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(request, strlen(request), &r), 0);
	ck_assert_int_ne(r.status, 200);
	size_t len = 0;
	char *placed = proto_problem_place(r.body, r.length, 17, 1000, &len);
	ck_assert_ptr_nonnull(placed);
	ck_assert_uint_eq(len, strlen(placed));
	char *want = jansson_place(r.body, 17, 1000);
	ck_assert_str_eq(placed, want);
	ck_assert_msg(strstr(placed, expect) != NULL, "%s: no %s", placed, expect);
	free(want);
	free(placed);
	proto_reply_free(&r);
}

START_TEST(problems_placed)
{
	/* Located: "line" replaced where it stands, "position" moved. */
	check_place("{\"a\": tru}", "\"line\":17,\"column\":9,\"position\":1009}");
	/* Not located: "line" added last, after "pointer" or "missing". */
	check_place("{\"a\":{\"vertices\":[]},\"b\":{\"vertices\":[[0,0,0]]}}",
	            "\"pointer\":\"/a/vertices\",\"line\":17}");
	check_place("{\"a\":{\"ref\":\"sha256:00000000000000000000000000000000000000000000000000000"
	            "00000000000\"},\"b\":{\"vertices\":[[0,0,0]]}}",
	            "\"],\"line\":17}");
	/* Escapes in a pointer come back as they were. */
	check_place("{\"a\":{\"vertices\":[[0,0,0]]},\"b\":{\"vertices\":[[0,0,0]]},"
	            "\"w~x/\\u00e9\\t\":1}",
	            "\"pointer\":\"/w~0x~1\xc3\xa9\\t\",\"line\":17}");
	/* Not an object: NULL. */
	ck_assert_ptr_null(proto_problem_place("[1]", 3, 1, 0, NULL));
	ck_assert_ptr_null(proto_problem_place("{", 1, 1, 0, NULL));
}
END_TEST

#define BALL(id, x) "{\"id\":\"" id "\",\"shape\":{\"vertices\":[[" #x ",0,0]],\"radius\":1}}"

/* The tally of a Scene answer read whole by jansson. */
static void check_tally(const char *scene)
{
	proto_reply r;
	ck_assert_int_eq(proto_scene_reply(scene, strlen(scene), &r), 0);
	ck_assert_int_eq(r.status, 200);
	proto_scene_tally t;
	ck_assert_int_eq(proto_scene_tally_of(r.body, r.length, &t), 1);
	json_t *j = json_loads(r.body, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(t.candidates, json_integer_value(json_object_get(j, "candidates")));
	ck_assert_int_eq(t.truncated, json_is_true(json_object_get(j, "truncated")));
	json_t *counts = json_object_get(j, "counts");
	ck_assert_uint_eq(t.ncounts, json_object_size(counts));
	size_t i = 0;
	const char *cls;
	json_t *n;
	json_object_foreach(counts, cls, n) {
		ck_assert_str_eq(t.counts[i].name, cls);
		ck_assert_int_eq(t.counts[i].n, json_integer_value(n));
		i++;
	}
	json_decref(j);
	proto_scene_tally_free(&t);
	ck_assert_ptr_null(t.counts);
	proto_reply_free(&r);
}

START_TEST(scene_tallies)
{
	/* clang-format off */
	check_tally("{\"objects\": [" BALL("a", 0) ", " BALL("b", 1.5) ", " BALL("c", 2.5) ", "
	            BALL("d", 4.5) "], \"clearance\": 1}");
	check_tally("{\"objects\": [" BALL("a", 0) ", " BALL("b", 1.5) ", " BALL("c", 2.5)
	            "], \"max_clashes\": 1}");
	/* clang-format on */
	/* An id with the key in it, escaped, is not taken for the answer's. */
	/* clang-format off */
	check_tally("{\"objects\": [" BALL("a", 0) ", " BALL("x\\\"candidates\\\":9", 1.5) "]}");
	/* clang-format on */
	check_tally("{\"objects\": []}");
	/* Not a Scene answer: 0, nothing to free. */
	static const char *others[] = {"{\"intersecting\":false}", "", "{\"candidates\":1}",
	                               "{\"candidates\":1.5,\"counts\":{}}", "\"candidates\":"};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		proto_scene_tally t;
		ck_assert_int_eq(proto_scene_tally_of(others[i], strlen(others[i]), &t), 0);
		ck_assert_ptr_null(t.counts);
	}
}
END_TEST

static Suite *readback_as_jansson_suite(void)
{
	Suite *s = suite_create("readback_as_jansson");
	ck_case(s, "readback", 0, CK_TESTS(json_states, problems_placed, scene_tallies));
	return s;
}

CHECK_SUITE(readback_as_jansson_suite)
