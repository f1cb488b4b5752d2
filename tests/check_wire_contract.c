/*
 * check_wire_contract.c — suite "wire_contract": the v1 wire contract
 * (proto/openapi.yaml).
 *
 * Every error class is checked for its exact status, problem type and JSON
 * Pointer; the pointer scanner is checked on hand-made tricky inputs and
 * against randomly generated documents whose generator knows the true path
 * of the number it planted (and jansson supplies the error position); the
 * encoder is checked to round-trip doubles bit for bit and never to write a
 * non-finite number; success answers are checked against closed forms
 * (boxes, intervals, spheres worked out by hand), not against the core.
 *
 * The contract document itself (proto/openapi.yaml, read from the working
 * directory, which `make check` sets to the repository) is checked against
 * the code: every field documented, its examples answered as shown, its
 * member names and problem types the ones the code knows.
 *
 * Queries are written with single quotes for readability; q() turns them
 * into JSON.
 */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "contract_doc.h"
#include "pointer.h"
#include "problem.h"
#include "proto.h"
#include "query.h"
#include "result.h"

/* ---- helpers ------------------------------------------------------------ */

/* The text with every ' turned into " (malloc'd). */
static char *q(const char *s)
{
	char *t = strdup(s);
	ck_assert_ptr_nonnull(t);
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	return t;
}

/* Answer len bytes and parse the reply; checks what every reply must be. */
static json_t *answer_n(const char *text, size_t len, int *status)
{
	proto_reply r;
	ck_assert_int_eq(proto_query_reply(text, len, &r), 0);
	ck_assert_ptr_nonnull(r.body);
	ck_assert_uint_eq(r.length, strlen(r.body));
	ck_assert_str_eq(r.content_type, r.status == 200 ? PROTO_JSON : PROTO_PROBLEM_JSON);
	/* jansson below would refuse NaN or Infinity; a result has no strings
	 * these could hide in. */
	if (r.status == 200)
		ck_assert_msg(strstr(r.body, "nan") == NULL && strstr(r.body, "inf") == NULL,
		              "non-finite number written: %s", r.body);
	json_error_t e;
	json_t *j = json_loadb(r.body, r.length, JSON_REJECT_DUPLICATES, &e);
	ck_assert_msg(j != NULL, "reply is not JSON (%s): %s", e.text, r.body);
	*status = r.status;
	proto_reply_free(&r);
	return j;
}

static json_t *answer(const char *single_quoted, int *status)
{
	char *t = q(single_quoted);
	json_t *j = answer_n(t, strlen(t), status);
	free(t);
	return j;
}

/* The reply to len bytes must be a problem with `status` whose pointer is
 * `pointer` (NULL: no pointer member).  Returns the problem object. */
static json_t *problem_n(const char *text, size_t len, int status, const char *pointer)
{
	int st;
	json_t *j = answer_n(text, len, &st);
	char *dump = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == status, "%.*s: status %d, expected %d: %s", (int)len, text, st, status,
	              dump);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), status);
	char type[80];
	snprintf(type, sizeof type, "urn:clashd:problem:%s", proto_problem_slug(status));
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), type);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(j, "title")));
	const char *detail = json_string_value(json_object_get(j, "detail"));
	ck_assert_msg(detail && *detail, "no detail: %s", dump);
	const json_t *ptr = json_object_get(j, "pointer");
	if (pointer) {
		ck_assert_msg(json_is_string(ptr) && strcmp(json_string_value(ptr), pointer) == 0,
		              "%.*s: pointer %s, expected \"%s\"", (int)len, text, dump, pointer);
	} else {
		ck_assert_msg(ptr == NULL, "unexpected pointer: %s", dump);
	}
	free(dump);
	return j;
}

static json_t *problem(const char *single_quoted, int status, const char *pointer)
{
	char *t = q(single_quoted);
	json_t *j = problem_n(t, strlen(t), status, pointer);
	free(t);
	return j;
}

static void expect_problem(const char *single_quoted, int status, const char *pointer)
{
	json_decref(problem(single_quoted, status, pointer));
}

/* The detail of a problem must mention `word`. */
static void expect_detail(const char *single_quoted, int status, const char *pointer,
                          const char *word)
{
	json_t *j = problem(single_quoted, status, pointer);
	const char *d = json_string_value(json_object_get(j, "detail"));
	ck_assert_msg(strstr(d, word) != NULL, "detail \"%s\" does not mention %s", d, word);
	json_decref(j);
}

static json_t *success(const char *single_quoted)
{
	int st;
	json_t *j = answer(single_quoted, &st);
	char *dump = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(st == 200, "status %d: %s", st, dump);
	free(dump);
	return j;
}

static double num(const json_t *obj, const char *path)
{
	/* path like "near_points.a.0" */
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	const json_t *v = obj;
	for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
		if (json_is_array(v))
			v = json_array_get(v, (size_t)atoi(tok));
		else
			v = json_object_get(v, tok);
		ck_assert_msg(v != NULL, "no %s in the result", path);
	}
	ck_assert_msg(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}

#define CUBE "[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]"
#define TET "[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]"
#define A_TET "'a':{'vertices':" TET "}"
#define B_TET "'b':{'vertices':" TET "}"
/* A valid query with room for more members: QUERY("") or QUERY(",'x':1"). */
#define QUERY(more) "{" A_TET "," B_TET more "}"

/* ---- subnormal numbers ---------------------------------------------------- */

START_TEST(subnormal_coordinates)
{
	/* Subnormal doubles are numbers like any other, on both parse paths
	 * (plain vertex arrays without jansson; radius and pose through it):
	 * tetrahedra of edge 1e-310, b 3e-310 along x, answered as the same
	 * shapes 1e310 times larger would be, each length rounded once to the
	 * subnormal grid. */
	json_t *j = success("{'a':{'vertices':[[0,0,0],[1e-310,0,0],[0,1e-310,0],[0,0,1e-310]]},"
	                    "'b':{'vertices':[[3e-310,0,0],[4e-310,0,0],[3e-310,1e-310,0],"
	                    "[3e-310,0,1e-310]]}}");
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	volatile double hi = 3e-310, lo = 1e-310;
	ck_assert(num(j, "distance") == hi - lo); /* exact: both on the grid */
	ck_assert(num(j, "near_points.a.0") == lo);
	ck_assert(num(j, "near_points.b.0") == hi);
	ck_assert(num(j, "separating_plane.normal.0") == 1.0);
	json_decref(j);
	j = success("{'a':{'vertices':[[0,0,0],[1e-310,0,0],[0,1e-310,0],[0,0,1e-310]],"
	            "'radius':5e-311},"
	            "'b':{'vertices':[[0,0,0],[1e-310,0,0],[0,1e-310,0],[0,0,1e-310]],"
	            "'radius':4.9e-324,'pose':{'translation':[3e-310,0,0]}}}");
	ck_assert(json_is_false(json_object_get(j, "intersecting")));
	volatile double r = 5e-311, min = 4.9e-324;
	ck_assert(num(j, "distance") == hi - lo - r - min);
	json_decref(j);
	/* Overlapping: depth 0.1e-310 / sqrt(3) through the face x+y+z = 1e-310. */
	j = success("{'a':{'vertices':[[0,0,0],[1e-310,0,0],[0,1e-310,0],[0,0,1e-310]]},"
	            "'b':{'vertices':[[0.5e-310,0.2e-310,0.2e-310],[4e-310,0,0],[3e-310,1e-310,0],"
	            "[3e-310,0,1e-310]]}}");
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	double depth = num(j, "penetration.depth");
	ck_assert_msg(fabs(depth - 0.1e-310 / sqrt(3.0)) <= 4 * 4.9e-324, "depth %.17g", depth);
	json_decref(j);
	/* Below the smallest subnormal, a number reads as 0 (as strtod has
	 * it); above the largest double it is a 422. */
	j = success("{'a':{'vertices':[[1e-400,0,0]]},'b':{'vertices':[[1,0,0]]}}");
	ck_assert(num(j, "distance") == 1.0);
	json_decref(j);
	expect_problem("{'a':{'vertices':[[1e400,0,0]]},'b':{'vertices':[[1,0,0]]}}", 422,
	               "/a/vertices/0/0");
}
END_TEST

/* ---- 400: malformed JSON ----------------------------------------------- */

START_TEST(malformed_syntax)
{
	json_t *j = problem("{'a': }", 400, "/a");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "column")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "position")), 7);
	json_decref(j);
	expect_problem("{'a':{'vertices':[[0,0,x]]}," B_TET "}", 400, "/a/vertices/0/2");
	expect_problem("{'a':{'vertices':[[0,0,0]],}}", 400, "/a");
	expect_problem("{'a' {}}", 400, "/a");
	expect_problem("{'a':{'vertices':[[1,2] [3,4]]}}", 400, "/a/vertices");
	expect_problem("{'a':tru}", 400, "/a");
	expect_problem("{'a':01}", 400, "/a");
	expect_problem("{'a':.5}", 400, "/a");
	expect_problem("{'a':NaN}", 400, "/a");
	expect_problem("{'a':[Infinity]}", 400, "/a/0");
	expect_problem("[1,,2]", 400, "/1");
	expect_problem("[1,]", 400, "/1");
	expect_problem("{'a':'\\x'}", 400, "/a");
	expect_problem("{a:1}", 400, "");
	/* Line and column count from 1 (the column of the last character read);
	 * the position is the byte offset just past it. */
	const char *text = "{\n  'a': {'vertices': [[0,0,0]]},\n  'b': x\n}";
	j = problem(text, 400, "/b");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "line")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "column")), 8);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "position")),
	                 strchr(text, 'x') - text + 1);
	json_decref(j);
}
END_TEST

START_TEST(malformed_duplicates_trailing_empty)
{
	expect_problem("{" A_TET "," A_TET "}", 400, "/a");
	expect_problem("{'a':{'vertices':[[0]],'radius':1,'radius':1}}", 400, "/a/radius");
	expect_problem("{'a':{'pose':{'angle':1,'angle':2}}}", 400, "/a/pose/angle");
	expect_problem("{'a':[{},{'x~y':1,'x~y':2}]}", 400, "/a/1/x~0y");
	expect_detail("{'a':1,'a':1}", 400, "/a", "duplicate");
	expect_problem(QUERY("") " x", 400, "");
	expect_problem(QUERY("") "{}", 400, "");
	expect_problem(QUERY("") "]", 400, "");
	expect_detail("", 400, "", "empty");
	expect_detail(" \r\n\t ", 400, "", "empty");
	json_decref(problem_n(NULL, 0, 400, ""));
}
END_TEST

/* The line, column and position of a problem. */
static void expect_located(const char *what, const char *body, size_t len, int line, int column,
                           int position)
{
	json_error_t e;
	json_t *j = json_loadb(body, len, 0, &e);
	ck_assert_msg(j != NULL, "%s: reply is not JSON: %.*s", what, (int)len, body);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 400);
	ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "");
	ck_assert_msg(json_integer_value(json_object_get(j, "line")) == line &&
	                      json_integer_value(json_object_get(j, "column")) == column &&
	                      json_is_integer(json_object_get(j, "position")) &&
	                      json_integer_value(json_object_get(j, "position")) == position,
	              "%s: expected line %d, column %d, position %d: %.*s", what, line, column,
	              position, (int)len, body);
	json_decref(j);
}

START_TEST(malformed_empty_located)
{
	/* An empty or blank body is a parse error like any other: located at
	 * its end, as jansson counts (the column of the last character read,
	 * the position just past it), the column at least 1; the same on
	 * every endpoint's reply function. */
	static const struct {
		const char *text;
		int line, column, position;
	} cases[] = {
		{"", 1, 1, 0},
		{"   ", 1, 3, 3},
		{" \r\n\t ", 2, 2, 5},
		{"\n", 2, 1, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i].text;
		size_t n = strlen(t);
		proto_reply r;
		ck_assert_int_eq(proto_query_reply(t, n, &r), 0);
		expect_located("query", r.body, r.length, cases[i].line, cases[i].column,
		               cases[i].position);
		proto_reply_free(&r);
		ck_assert_int_eq(proto_scene_reply(t, n, &r), 0);
		expect_located("scene", r.body, r.length, cases[i].line, cases[i].column,
		               cases[i].position);
		proto_reply_free(&r);
		ck_assert_int_eq(proto_contains_reply(t, n, &r), 0);
		expect_located("contains", r.body, r.length, cases[i].line, cases[i].column,
		               cases[i].position);
		proto_reply_free(&r);
		ck_assert_int_eq(proto_batch_reply_ex(t, n, NULL, &r), 0);
		expect_located("batch", r.body, r.length, cases[i].line, cases[i].column,
		               cases[i].position);
		proto_reply_free(&r);
	}
}
END_TEST

START_TEST(malformed_bytes_and_ends)
{
	/* Invalid UTF-8 in a value, in a key; a NUL byte; NUL and lone
	 * surrogate escapes. */
	const char bad_value[] = "{\"a\":\"\xff\"}";
	json_decref(problem_n(bad_value, sizeof bad_value - 1, 400, "/a"));
	const char bad_key[] = "{\"a\":{\"k\xc3\":1}}";
	json_decref(problem_n(bad_key, sizeof bad_key - 1, 400, "/a/k\xEF\xBF\xBD"));
	const char nul[] = "{\"a\":[1,\0 2]}";
	json_decref(problem_n(nul, sizeof nul - 1, 400, "/a/1"));
	expect_problem("{'a':'\\u0000'}", 400, "/a");
	expect_problem("{'a':['\\ud800']}", 400, "/a/0");
	/* Cut short: the value left open at the end. */
	expect_problem("{'a':{'vertices':[[1,2", 400, "/a/vertices/0");
	expect_problem("{'a':{'vertices':[[1,2],", 400, "/a/vertices/1");
	expect_problem("{'a':", 400, "/a");
	expect_problem("{'a'", 400, "/a");
	expect_problem("{'ab", 400, "/ab");
	expect_problem("{'a':'xyz", 400, "/a");
	expect_problem("{", 400, "");
	expect_problem("[", 400, "/0");
}
END_TEST

START_TEST(malformed_too_deep)
{
	/* Deeper than jansson's limit (2048 levels): a 400 naming the array at
	 * which the parser gave up, not a crash. */
	size_t n = 100000;
	char *deep = malloc(n);
	memset(deep, '[', n);
	int st;
	json_t *j = answer_n(deep, n, &st);
	ck_assert_int_eq(st, 400);
	const char *ptr = json_string_value(json_object_get(j, "pointer"));
	ck_assert_ptr_nonnull(ptr);
	size_t len = strlen(ptr);
	ck_assert_uint_ge(len, 2 * 2000);
	ck_assert_uint_le(len, 2 * 2100);
	for (size_t i = 0; i < len; i += 2)
		ck_assert(ptr[i] == '/' && ptr[i + 1] == '0');
	json_decref(j);
	free(deep);
}
END_TEST

/* ---- 422: numbers a double cannot hold --------------------------------- */

START_TEST(number_overflow)
{
	expect_detail("{'a':{'vertices':[[0,0,0],[1,0,0],[0,1,0],[0,0,1e400]]}," B_TET "}", 422,
	              "/a/vertices/3/2", "range");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,-1e400,0]]}}", 422, "/b/vertices/0/1");
	expect_problem("{'a':{'vertices':[[0]],'radius':1E+999}}", 422, "/a/radius");
	expect_problem(QUERY(",'tolerance':1e400"), 422, "/tolerance");
	expect_problem(QUERY(",'warm':{'a':[1e400],'b':[0]}"), 422, "/warm/a/0");
	expect_problem("{'a':{'vertices':[[0]],'colour':1e400}}", 422, "/a/colour");
	expect_problem("{'x~/y':1e400}", 422, "/x~0~1y");
	expect_problem("{'a\\u002fb':[1e400]}", 422, "/a~1b/0");
	expect_problem("1e400", 422, "");
	expect_problem(" [ [ ] , { } , { 'k' : [ 0 , -2e308 ] } ] ", 422, "/2/k/1");
	/* Big integers too: 400 digits. */
	char text[600];
	char digits[401];
	memset(digits, '9', 400);
	digits[400] = '\0';
	snprintf(text, sizeof text, "{" A_TET ",'b':{'vertices':[[%s,0,0]]}}", digits);
	json_t *j = problem(text, 422, "/b/vertices/0/0");
	ck_assert_ptr_null(json_object_get(j, "line")); /* not a syntax error */
	json_decref(j);
	snprintf(text, sizeof text, "{" A_TET "," B_TET ",'max_iterations':-%s}", digits);
	expect_problem(text, 422, "/max_iterations");
	/* Tiny numbers are fine: they round to 0 or a subnormal. */
	j = success("{'a':{'vertices':[[1e-400]]},'b':{'vertices':[[5e-324]]}}");
	json_decref(j);
}
END_TEST

/* ---- 422: the shape of a query ----------------------------------------- */

START_TEST(top_level)
{
	expect_problem("42", 422, "");
	expect_problem("[]", 422, "");
	expect_problem("'query'", 422, "");
	expect_problem("null", 422, "");
	expect_problem("true", 422, "");
	expect_detail("{" B_TET "}", 422, "", "a is required");
	expect_detail("{" A_TET "}", 422, "", "b is required");
	expect_problem("{}", 422, "");
}
END_TEST

START_TEST(vertices_required_and_nonempty)
{
	expect_detail("{'a':{}," B_TET "}", 422, "/a", "vertices is required");
	expect_detail("{'a':{'radius':1}," B_TET "}", 422, "/a", "vertices");
	expect_detail("{" A_TET ",'b':{'pose':{}}}", 422, "/b", "vertices");
	expect_problem("{'a':{'vertices':[]}," B_TET "}", 422, "/a/vertices");
	expect_problem("{" A_TET ",'b':{'vertices':[]}}", 422, "/b/vertices");
}
END_TEST

START_TEST(mixed_dimensions)
{
	expect_detail("{'a':{'vertices':[[0,0,0],[1,1]]}," B_TET "}", 422, "/a/vertices/1",
	              "dimension");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,0,0],[1,0,0],[1,1]]}}", 422,
	               "/b/vertices/2");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,0]]}}", 422, "/b/vertices/0");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,0,0,0]]}}", 422, "/b/vertices/0");
	expect_problem("{'a':{'vertices':[[1,2,3,4,5,6,7,8,9]]}," B_TET "}", 422, "/a/vertices/0");
	expect_problem("{'a':{'vertices':[[]]}," B_TET "}", 422, "/a/vertices/0");
	/* 8-D is the most; 1-D the least. */
	json_decref(success("{'a':{'vertices':[[1,2,3,4,5,6,7,8]]},"
	                    "'b':{'vertices':[[1,2,3,4,5,6,7,9]]}}"));
	json_decref(success("{'a':{'vertices':[[1]]},'b':{'vertices':[[2]]}}"));
}
END_TEST

START_TEST(radius)
{
	expect_detail("{'a':{'vertices':[[0,0,0]],'radius':-1}," B_TET "}", 422, "/a/radius",
	              ">= 0");
	expect_problem("{'a':{'vertices':[[0,0,0]],'radius':-0.5e-300}," B_TET "}", 422,
	               "/a/radius");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,0,0]],'radius':'1'}}", 422, "/b/radius");
	expect_problem("{" A_TET ",'b':{'vertices':[[0,0,0]],'radius':null}}", 422, "/b/radius");
	json_decref(success("{'a':{'vertices':[[0,0,0]],'radius':0}," B_TET "}"));
}
END_TEST

#define POSED_A(pose) "{'a':{'vertices':" TET ",'pose':" pose "}," B_TET "}"
#define POSED_B(pose) "{" A_TET ",'b':{'vertices':" TET ",'pose':" pose "}}"
#define SQ "[[0,0],[1,0],[0,1]]"
#define POSED_2D(pose) "{'a':{'vertices':" SQ ",'pose':" pose "},'b':{'vertices':" SQ "}}"

START_TEST(pose_rotation_angle_translation)
{
	expect_detail(POSED_A("{'rotation':[0,0,0,2]}"), 422, "/a/pose/rotation", "unit");
	expect_problem(POSED_B("{'rotation':[0,0,0,0]}"), 422, "/b/pose/rotation");
	expect_problem(POSED_B("{'rotation':[0.1,0,0,1]}"), 422, "/b/pose/rotation");
	json_decref(success(POSED_B("{'rotation':[0,0,0,1.0005]}"))); /* within 1e-3 */
	expect_detail(POSED_2D("{'rotation':[0,0,0,1]}"), 422, "/a/pose/rotation", "3-D");
	expect_problem(POSED_A("{'rotation':[0,0,1]}"), 422, "/a/pose/rotation");
	expect_problem(POSED_A("{'rotation':[0,'0',0,1]}"), 422, "/a/pose/rotation/1");
	expect_problem(POSED_A("{'rotation':{'w':1}}"), 422, "/a/pose/rotation");
	expect_detail(POSED_A("{'angle':1}"), 422, "/a/pose/angle", "2-D");
	expect_problem(POSED_2D("{'angle':'1'}"), 422, "/a/pose/angle");
	expect_problem(POSED_A("{'translation':[1,2]}"), 422, "/a/pose/translation");
	expect_problem(POSED_A("{'translation':[1,2,3,4]}"), 422, "/a/pose/translation");
	expect_problem(POSED_A("{'translation':[1,true,3]}"), 422, "/a/pose/translation/1");
	expect_problem(POSED_A("{'translation':5}"), 422, "/a/pose/translation");
	expect_problem(POSED_A("[]"), 422, "/a/pose");
	expect_problem(POSED_A("null"), 422, "/a/pose");
	json_decref(success(POSED_A("{}")));
}
END_TEST

/* Column-major 4x4 matrices (three.js Matrix4.elements order). */
#define M_SINGULAR "[1,0,0,0, 0,1,0,0, 0,0,0,0, 0,0,0,1]"
#define M_SHEAR_ROW "[1,0,0,0.5, 0,1,0,0, 0,0,1,0, 0,0,0,1]"
#define M_PERSPECTIVE "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,2]"
#define M_IDENTITY "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]"

START_TEST(pose_matrix)
{
	expect_detail(POSED_B("{'matrix':" M_SINGULAR "}"), 422, "/b/pose/matrix", "singular");
	expect_problem(POSED_B("{'matrix':[0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,1]}"), 422,
	               "/b/pose/matrix");
	expect_detail(POSED_B("{'matrix':" M_SHEAR_ROW "}"), 422, "/b/pose/matrix", "last row");
	expect_problem(POSED_A("{'matrix':" M_PERSPECTIVE "}"), 422, "/a/pose/matrix");
	expect_detail(POSED_A("{'matrix':" M_IDENTITY ",'translation':[1,2,3]}"), 422,
	              "/a/pose/matrix", "combined");
	expect_problem(POSED_A("{'rotation':[0,0,0,1],'matrix':" M_IDENTITY "}"), 422,
	               "/a/pose/matrix");
	expect_problem(POSED_2D("{'matrix':[1,0,0,0,1,0,0,0,1],'angle':0}"), 422, "/a/pose/matrix");
	expect_problem(POSED_A("{'matrix':[1,0,0,0,1,0,0,0,1]}"), 422, "/a/pose/matrix");
	expect_problem(POSED_A("{'matrix':[1,0,0,0, 0,'1',0,0, 0,0,1,0, 0,0,0,1]}"), 422,
	               "/a/pose/matrix/5");
	json_decref(success(POSED_A("{'matrix':" M_IDENTITY "}")));
	json_decref(success(POSED_2D("{'matrix':[1,0,0,0,1,0,0,0,1]}")));
}
END_TEST

START_TEST(method_and_options)
{
	expect_detail(QUERY(",'method':'epa'"), 422, "/method", "gjk");
	expect_problem(QUERY(",'method':'GJK'"), 422, "/method");
	expect_problem(QUERY(",'method':1"), 422, "/method");
	expect_problem(QUERY(",'method':null"), 422, "/method");
	expect_problem(QUERY(",'tolerance':0"), 422, "/tolerance");
	expect_problem(QUERY(",'tolerance':-1e-9"), 422, "/tolerance");
	expect_problem(QUERY(",'tolerance':'1e-9'"), 422, "/tolerance");
	expect_problem(QUERY(",'tolerance':null"), 422, "/tolerance");
	expect_problem(QUERY(",'max_iterations':0"), 422, "/max_iterations");
	expect_problem(QUERY(",'max_iterations':-3"), 422, "/max_iterations");
	expect_problem(QUERY(",'max_iterations':1.5"), 422, "/max_iterations");
	expect_problem(QUERY(",'max_iterations':100001"), 422, "/max_iterations");
	expect_problem(QUERY(",'max_iterations':true"), 422, "/max_iterations");
	json_t *j = success(QUERY(",'method':'gjk','tolerance':1e-300,'max_iterations':100000"));
	ck_assert_str_eq(json_string_value(json_object_get(j, "method")), "gjk");
	json_decref(j);
	json_decref(success(QUERY(",'tolerance':1,'max_iterations':1")));
	json_decref(success(QUERY(",'max_iterations':7.0")));
}
END_TEST

START_TEST(unknown_members)
{
	expect_detail(QUERY(",'colour':'red'"), 422, "/colour", "unknown");
	expect_problem("{'a':{'vertices':" TET ",'colour':1}," B_TET "}", 422, "/a/colour");
	expect_problem("{" A_TET ",'b':{'vertices':" TET ",'Vertices':1}}", 422, "/b/Vertices");
	expect_problem(POSED_B("{'scale':[1,1,1]}"), 422, "/b/pose/scale");
	expect_problem(QUERY(",'warm':{'a':[0],'b':[0],'c':[0]}"), 422, "/warm/c");
	expect_problem("{'a':{'vertices':" TET ",'x/y~z':1}," B_TET "}", 422, "/a/x~1y~0z");
	expect_problem(QUERY(",'':1"), 422, "/");
	/* Reported before anything else, in document order. */
	expect_problem("{'a':5,'zz':1,'yy':2,'b':6}", 422, "/zz");
}
END_TEST

START_TEST(wrong_types)
{
	expect_problem("{'a':[]," B_TET "}", 422, "/a");
	expect_problem("{'a':null," B_TET "}", 422, "/a");
	expect_problem("{'a':{'vertices':{}}," B_TET "}", 422, "/a/vertices");
	expect_problem("{'a':{'vertices':[[0,0,0],'x']}," B_TET "}", 422, "/a/vertices/1");
	expect_problem("{'a':{'vertices':[[0,0,0],[true,0,0]]}," B_TET "}", 422, "/a/vertices/1/0");
	expect_problem("{'a':{'vertices':[[0,0,0],[0,null,0]]}," B_TET "}", 422, "/a/vertices/1/1");
	expect_problem("{'a':{'vertices':[[0,0,0],[0,0,'1']]}," B_TET "}", 422, "/a/vertices/1/2");
	expect_problem("{'a':{'vertices':[[0,0,0],[0,0,[1]]]}," B_TET "}", 422, "/a/vertices/1/2");
	expect_problem(QUERY(",'warm':[0]"), 422, "/warm");
	expect_problem(QUERY(",'warm':{'a':0,'b':[0]}"), 422, "/warm/a");
	expect_problem(QUERY(",'warm':{'a':[0],'b':'0'}"), 422, "/warm/b");
}
END_TEST

START_TEST(warm_indices)
{
	expect_problem(QUERY(",'warm':{'a':[-1],'b':[0]}"), 422, "/warm/a/0");
	expect_problem(QUERY(",'warm':{'a':[0],'b':[1.5]}"), 422, "/warm/b/0");
	expect_detail(QUERY(",'warm':{'a':[0,1,2],'b':[0,1,4]}"), 422, "/warm/b/2", "vertex");
	expect_problem(QUERY(",'warm':{'a':[0,1],'b':[0]}"), 422, "/warm/b");
	expect_problem(QUERY(",'warm':{'a':[0,1,2,3,0],'b':[0,1,2,3,0]}"), 422, "/warm/a");
	expect_problem(QUERY(",'warm':{'a':[],'b':[]}"), 422, "/warm/a");
	expect_problem(QUERY(",'warm':{'a':[0]}"), 422, "/warm");
	expect_problem(QUERY(",'warm':{}"), 422, "/warm");
	expect_problem(QUERY(",'warm':{'a':[0,'1'],'b':[0,1]}"), 422, "/warm/a/1");
	json_decref(success(QUERY(",'warm':{'a':[0,1,2,3],'b':[3,2,1,0.0]}")));
}
END_TEST

START_TEST(answer_out_of_range)
{
	/* The Minkowski difference of these points is 2e308: not a double. */
	expect_detail("{'a':{'vertices':[[1e308,0,0]]},'b':{'vertices':[[-1e308,0,0]]}}", 422, "",
	              "range");
}
END_TEST

/* ---- success answers against closed forms ------------------------------ */

START_TEST(cubes_two_apart)
{
	/* [0,1]^3 and [3,4]^3 given as vertices, and as [0,1]^3 moved by a
	 * translation: x-gap of 2, near points at x = 1 and x = 3 with equal y
	 * and z, plane x = 2. */
	const char *texts[] = {
		"{'a':{'vertices':" CUBE "},'b':{'vertices':[[3,0,0],[4,0,0],[3,1,0],[3,0,1],"
		"[4,1,0],[4,0,1],[3,1,1],[4,1,1]]}}",
		"{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
		",'pose':{'translation':[3,0,0]}}}",
		"{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE ",'pose':{'translation':[3,0,0],"
		"'rotation':[0,0,0,1]}}}",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		json_t *j = success(texts[i]);
		ck_assert(json_is_false(json_object_get(j, "intersecting")));
		ck_near(num(j, "distance"), 2, 1e-12);
		ck_near(num(j, "near_points.a.0"), 1, 1e-12);
		ck_near(num(j, "near_points.b.0"), 3, 1e-12);
		for (int k = 1; k < 3; k++) {
			char pa[32], pb[32];
			snprintf(pa, sizeof pa, "near_points.a.%d", k);
			snprintf(pb, sizeof pb, "near_points.b.%d", k);
			ck_near(num(j, pa), num(j, pb), 1e-12);
			ck_assert(num(j, pa) >= -1e-12 && num(j, pa) <= 1 + 1e-12);
		}
		ck_near(num(j, "separating_plane.normal.0"), 1, 1e-12);
		ck_near(num(j, "separating_plane.normal.1"), 0, 1e-12);
		ck_near(num(j, "separating_plane.normal.2"), 0, 1e-12);
		ck_near(num(j, "separating_plane.offset"), 2, 1e-12);
		ck_assert_ptr_null(json_object_get(j, "penetration"));
		ck_assert_str_eq(json_string_value(json_object_get(j, "method")), "gjk");
		ck_assert(json_is_true(json_object_get(j, "converged")));
		ck_assert(json_is_integer(json_object_get(j, "iterations")));
		const json_t *wa = json_object_get(json_object_get(j, "warm"), "a");
		const json_t *wb = json_object_get(json_object_get(j, "warm"), "b");
		ck_assert(json_array_size(wa) >= 1 && json_array_size(wa) == json_array_size(wb));
		json_decref(j);
	}
}
END_TEST

START_TEST(overlapping_cubes)
{
	/* [0,1]^3 and [0.5,1.5]x[0,1]^2 overlap by 0.5: the penetration depth is
	 * 0.5, so the bound lies in [0, 0.5]. */
	json_t *j = success("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	                    ",'pose':{'translation':[0.5,0,0]}}}");
	ck_assert(json_is_true(json_object_get(j, "intersecting")));
	ck_assert(num(j, "distance") == 0);
	ck_assert_ptr_null(json_object_get(j, "separating_plane"));
	double d = num(j, "penetration.depth_lower_bound");
	ck_assert(d >= 0 && d <= 0.5 + 1e-12);
	/* The near points coincide, inside both cubes. */
	for (int k = 0; k < 3; k++) {
		char pa[32], pb[32];
		snprintf(pa, sizeof pa, "near_points.a.%d", k);
		snprintf(pb, sizeof pb, "near_points.b.%d", k);
		ck_near(num(j, pa), num(j, pb), 1e-12);
	}
	ck_assert(num(j, "near_points.a.0") >= 0.5 - 1e-12 &&
	          num(j, "near_points.a.0") <= 1 + 1e-12);
	json_decref(j);
}
END_TEST

START_TEST(poses_radii_dimensions)
{
	/* Spheres: points 5 apart with radii 1 and 2 are 2 apart. */
	json_t *j = success("{'a':{'vertices':[[0,0,0]],'radius':1},"
	                    "'b':{'vertices':[[5,0,0]],'radius':2}}");
	ck_near(num(j, "distance"), 2, 1e-12);
	ck_near(num(j, "near_points.a.0"), 1, 1e-12);
	ck_near(num(j, "near_points.b.0"), 3, 1e-12);
	json_decref(j);
	/* three.js matrix: scale 2 then move by (0,0,5): [0,2]^2 x [5,7]. */
	j = success("{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
	            ",'pose':{'matrix':[2,0,0,0, 0,2,0,0, 0,0,2,0, 0,0,5,1]}}}");
	ck_near(num(j, "distance"), 4, 1e-12);
	ck_near(num(j, "near_points.a.2"), 1, 1e-12);
	ck_near(num(j, "near_points.b.2"), 5, 1e-12);
	ck_near(num(j, "separating_plane.normal.2"), 1, 1e-12);
	json_decref(j);
	/* Quaternion: 90 degrees about z turns the x-segment [0,1] into the
	 * y-segment; moved to x = 5 it is 5 from the origin. */
	j = success("{'a':{'vertices':[[0,0,0]]},'b':{'vertices':[[0,0,0],[1,0,0]],"
	            "'pose':{'rotation':[0,0,0.70710678118654752,0.70710678118654752],"
	            "'translation':[5,0,0]}}}");
	ck_near(num(j, "distance"), 5, 1e-12);
	ck_near(num(j, "near_points.b.0"), 5, 1e-12);
	ck_near(num(j, "near_points.b.1"), 0, 1e-12);
	json_decref(j);
	/* 2-D: the square [-1,1]^2 turned by 45 degrees and moved to (3,0)
	 * reaches x = 3 - sqrt(2); the other square ends at x = 1. */
	j = success("{'a':{'vertices':[[-1,-1],[1,-1],[1,1],[-1,1]]},"
	            "'b':{'vertices':[[-1,-1],[1,-1],[1,1],[-1,1]],"
	            "'pose':{'angle':0.78539816339744831,'translation':[3,0]}}}");
	ck_near(num(j, "distance"), 2 - sqrt(2), 1e-12);
	ck_near(num(j, "near_points.b.0"), 3 - sqrt(2), 1e-12);
	ck_near(num(j, "near_points.b.1"), 0, 1e-12);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "near_points"), "a")),
	                  2);
	json_decref(j);
	/* 1-D: [0,1] and [3,5]. */
	j = success("{'a':{'vertices':[[0],[1]]},'b':{'vertices':[[5],[3]]}}");
	ck_near(num(j, "distance"), 2, 1e-12);
	ck_near(num(j, "separating_plane.normal.0"), 1, 0);
	ck_near(num(j, "separating_plane.offset"), 2, 1e-12);
	json_decref(j);
}
END_TEST

START_TEST(integers_are_numbers)
{
	/* The same query with integers and with reals: the same bytes back. */
	const char *ints = "{'a':{'vertices':" CUBE ",'radius':1},'b':{'vertices':" CUBE
			   ",'pose':{'translation':[4,1,0]}},'max_iterations':50}";
	const char *reals = "{'a':{'vertices':[[0.0,0.0,0.0],[1.0,0.0,0.0],[0.0,1.0,0.0],"
			    "[0.0,0.0,1.0],[1.0,1.0,0.0],[1.0,0.0,1.0],[0.0,1.0,1.0],"
			    "[1.0,1.0,1.0]],'radius':1.0},'b':{'vertices':" CUBE
			    ",'pose':{'translation':[4.0,1e0,0.0]}},'max_iterations':5e1}";
	char *t1 = q(ints), *t2 = q(reals);
	proto_reply r1, r2;
	ck_assert_int_eq(proto_query_reply(t1, strlen(t1), &r1), 0);
	ck_assert_int_eq(proto_query_reply(t2, strlen(t2), &r2), 0);
	ck_assert_int_eq(r1.status, 200);
	ck_assert_str_eq(r1.body, r2.body);
	proto_reply_free(&r1);
	proto_reply_free(&r2);
	free(t1);
	free(t2);
}
END_TEST

START_TEST(warm_round_trip)
{
	/* An answer's warm indices, sent back, give the same answer. */
	const char *base = "{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE
			   ",'pose':{'translation':[2,3,0.5],'rotation':[0,0,0.38268343236508978,"
			   "0.92387953251128674]}}";
	char text[2048];
	snprintf(text, sizeof text, "%s}", base);
	json_t *j1 = success(text);
	char *warm = json_dumps(json_object_get(j1, "warm"), JSON_COMPACT);
	for (char *c = warm; *c; c++)
		if (*c == '"')
			*c = '\'';
	snprintf(text, sizeof text, "%s,'warm':%s}", base, warm);
	json_t *j2 = success(text);
	ck_near(num(j2, "distance"), num(j1, "distance"), 1e-12);
	ck_assert(num(j2, "iterations") <= num(j1, "iterations"));
	free(warm);
	json_decref(j1);
	json_decref(j2);
}
END_TEST

/* ---- the decoder's output ------------------------------------------------ */

START_TEST(decoded_values)
{
	char *t = q("{'a':{'vertices':[[1,2,3],[4,5,6]],'radius':0.25,'pose':{'matrix':"
	            "[1,0,0,0, 0,2,0,0, 0,0,3,0, 7,8,9,1]}},'b':{'vertices':[[0,0,0]],'pose':"
	            "{'translation':[1,2,3]}},'tolerance':1e-6,'max_iterations':12,"
	            "'warm':{'a':[1,0],'b':[0,0]}}");
	json_t *root = json_loads(t, JSON_DECODE_INT_AS_REAL, NULL);
	ck_assert_ptr_nonnull(root);
	proto_query qq;
	proto_problem p = {0};
	ck_assert_int_eq(proto_query_decode(root, NULL, NULL, &qq, &p), 0);
	ck_assert_int_eq(qq.a.dim, 3);
	ck_assert_uint_eq(qq.a.count, 2);
	const double want[] = {1, 2, 3, 4, 5, 6};
	ck_assert(memcmp(qq.a.vertices, want, sizeof want) == 0);
	ck_assert(qq.a.radius == 0.25);
	/* Column-major: the diagonal and the last column. */
	ck_assert(qq.a.linear[0] == 1 && qq.a.linear[4] == 2 && qq.a.linear[8] == 3);
	ck_assert(qq.a.translation[0] == 7 && qq.a.translation[1] == 8 && qq.a.translation[2] == 9);
	ck_assert(qq.b.translation[0] == 1 && qq.b.translation[2] == 3);
	ck_assert(qq.opt.tolerance == 1e-6);
	ck_assert_int_eq(qq.opt.max_iterations, 12);
	ck_assert_uint_eq(qq.opt.warm_count, 2);
	ck_assert(qq.opt.warm_a[0] == 1 && qq.opt.warm_a[1] == 0);
	ck_assert(qq.opt.warm_b[0] == 0 && qq.opt.warm_b[1] == 0);
	ck_assert_str_eq(qq.method->name, "gjk");
	proto_query_release(&qq);
	json_decref(root);
	free(t);
	/* Absent options are the core's defaults. */
	t = q(QUERY(""));
	root = json_loads(t, JSON_DECODE_INT_AS_REAL, NULL);
	ck_assert_int_eq(proto_query_decode(root, NULL, NULL, &qq, &p), 0);
	ck_assert(qq.opt.tolerance == 0 && qq.opt.max_iterations == 0 && qq.opt.warm_count == 0);
	ck_assert(qq.a.radius == 0 && qq.a.posed == 0);
	proto_query_release(&qq);
	json_decref(root);
	free(t);
}
END_TEST

/* ---- the encoder --------------------------------------------------------- */

static clash_result separated_result(int dim)
{
	clash_result r;
	memset(&r, 0, sizeof r);
	r.dim = dim;
	/* What gjk fills: the encoder writes only the members `has` names. */
	r.has = CLASH_HAS_DISTANCE | CLASH_HAS_PLANE | CLASH_HAS_DEPTH_BOUND | CLASH_HAS_WARM;
	r.converged = 1;
	r.warm_count = 1;
	return r;
}

/* Encode r and return the parsed body (must be a 200). */
static json_t *encode(const clash_result *r)
{
	proto_reply out;
	proto_problem p = {0};
	ck_assert_int_eq(proto_result_encode(r, "gjk", &out, &p), 0);
	ck_assert_int_eq(out.status, 200);
	json_t *j = json_loads(out.body, 0, NULL);
	ck_assert_ptr_nonnull(j);
	proto_reply_free(&out);
	return j;
}

static uint64_t bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

START_TEST(doubles_round_trip)
{
	double tricky[] = {0.1 + 0.2,
	                   0.1,
	                   1.0 / 3.0,
	                   DBL_MAX,
	                   DBL_MIN,
	                   5e-324,
	                   -0.0,
	                   9007199254740993.0,
	                   123456789012345680.0,
	                   2.2250738585072009e-308,
	                   -1.7976931348623157e308,
	                   1e23,
	                   8.41e21,
	                   0.30000000000000004};
	size_t n = sizeof tricky / sizeof tricky[0];
	uint64_t seed = 0x9E3779B97F4A7C15u;
	for (size_t i = 0; i < n + 2000; i++) {
		double x;
		if (i < n) {
			x = tricky[i];
		} else {
			/* Random bit patterns: every exponent, every mantissa. */
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			memcpy(&x, &seed, sizeof x);
			if (!isfinite(x))
				continue;
		}
		clash_result r = separated_result(2);
		r.distance = fabs(x);
		r.near_a[0] = x;
		r.near_b[1] = -x;
		r.normal[0] = x;
		r.offset = x;
		json_t *j = encode(&r);
		ck_assert_msg(bits(num(j, "distance")) == bits(fabs(x)), "%.17g", x);
		ck_assert_msg(bits(num(j, "near_points.a.0")) == bits(x), "%.17g", x);
		ck_assert_msg(bits(num(j, "near_points.b.1")) == bits(-x), "%.17g", x);
		ck_assert_msg(bits(num(j, "separating_plane.normal.0")) == bits(x), "%.17g", x);
		ck_assert_msg(bits(num(j, "separating_plane.offset")) == bits(x), "%.17g", x);
		json_decref(j);
	}
	/* The literal form of the classic case. */
	clash_result r = separated_result(1);
	r.distance = 0.1 + 0.2;
	proto_reply out;
	proto_problem p = {0};
	ck_assert_int_eq(proto_result_encode(&r, "gjk", &out, &p), 0);
	ck_assert_ptr_nonnull(strstr(out.body, "\"distance\":0.30000000000000004,"));
	proto_reply_free(&out);
}
END_TEST

START_TEST(never_non_finite)
{
	double bad[] = {NAN, INFINITY, -INFINITY};
	for (size_t i = 0; i < 3; i++) {
		for (int where = 0; where < 5; where++) {
			clash_result r = separated_result(3);
			switch (where) {
			case 0: r.distance = bad[i]; break;
			case 1: r.near_a[2] = bad[i]; break;
			case 2: r.near_b[0] = bad[i]; break;
			case 3: r.normal[1] = bad[i]; break;
			case 4: r.offset = bad[i]; break;
			}
			proto_reply out;
			proto_problem p = {0};
			ck_assert_int_eq(proto_result_encode(&r, "gjk", &out, &p), 1);
			ck_assert_ptr_null(out.body);
			ck_assert_int_eq(p.status, 500);
			ck_assert_int_eq(proto_problem_encode(&p, &out), 0);
			ck_assert_int_eq(out.status, 500);
			ck_assert_ptr_nonnull(strstr(out.body, "urn:clashd:problem:internal"));
			proto_reply_free(&out);
			proto_problem_release(&p);
		}
	}
	/* Members that are not written may hold anything: the plane of an
	 * intersecting answer, the depth of a separated one. */
	clash_result r = separated_result(3);
	r.intersecting = 1;
	r.normal[0] = NAN;
	r.offset = INFINITY;
	json_t *j = encode(&r);
	ck_assert_ptr_null(json_object_get(j, "separating_plane"));
	ck_assert(num(j, "penetration.depth_lower_bound") == 0);
	json_decref(j);
	r.intersecting = 1;
	r.depth_lower_bound = NAN;
	proto_reply out;
	proto_problem p = {0};
	ck_assert_int_eq(proto_result_encode(&r, "gjk", &out, &p), 1);
	r = separated_result(3);
	r.depth_lower_bound = NAN;
	json_decref(encode(&r));
}
END_TEST

START_TEST(problem_replies)
{
	struct {
		int status;
		const char *slug;
	} cases[] = {
		{400, "malformed-json"},
		{404, "not-found"},
		{405, "method-not-allowed"},
		{413, "payload-too-large"},
		{415, "unsupported-media-type"},
		{422, "invalid-query"},
		{500, "internal"},
		{503, "unavailable"},
		{418, "client-error"},
		{599, "server-error"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		proto_reply r;
		ck_assert_int_eq(proto_problem_reply(cases[i].status, "why", "/x~1y", &r), 0);
		ck_assert_int_eq(r.status, cases[i].status);
		ck_assert_str_eq(r.content_type, PROTO_PROBLEM_JSON);
		json_t *j = json_loads(r.body, 0, NULL);
		ck_assert_ptr_nonnull(j);
		char type[80];
		snprintf(type, sizeof type, "urn:clashd:problem:%s", cases[i].slug);
		ck_assert_str_eq(json_string_value(json_object_get(j, "type")), type);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), cases[i].status);
		ck_assert_str_eq(json_string_value(json_object_get(j, "detail")), "why");
		ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")), "/x~1y");
		ck_assert_ptr_nonnull(json_string_value(json_object_get(j, "title")));
		json_decref(j);
		proto_reply_free(&r);
	}
	/* Optional members left out; a status that is no error becomes 500;
	 * text that is not UTF-8 is repaired, not refused. */
	proto_reply r;
	ck_assert_int_eq(proto_problem_reply(404, NULL, NULL, &r), 0);
	ck_assert_str_eq(r.body, "{\"type\":\"urn:clashd:problem:not-found\",\"title\":\"Not "
	                         "found\",\"status\":404}");
	proto_reply_free(&r);
	ck_assert_int_eq(proto_problem_reply(200, "ok?", NULL, &r), 0);
	ck_assert_int_eq(r.status, 500);
	proto_reply_free(&r);
	ck_assert_int_eq(proto_problem_reply(503, "bad \xff byte", NULL, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.body, "bad \xEF\xBF\xBD byte"));
	proto_reply_free(&r);
	/* A long detail is kept whole. */
	char longer[2000];
	memset(longer, 'x', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	ck_assert_int_eq(proto_problem_reply(503, longer, NULL, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.body, longer));
	proto_reply_free(&r);
}
END_TEST

/* ---- the pointer scanner ------------------------------------------------- */

/* proto_pointer_at() on a single-quoted text, at the end of the first
 * occurrence of `mark` (or past the end when mark is NULL). */
static void expect_at(const char *single_quoted, const char *mark, const char *pointer)
{
	char *t = q(single_quoted);
	size_t len = strlen(t), pos = len + 1;
	if (mark) {
		char *m = q(mark);
		const char *hit = strstr(t, m);
		ck_assert_msg(hit != NULL, "no %s in %s", m, t);
		pos = (size_t)(hit - t) + strlen(m);
		free(m);
	}
	char *got = proto_pointer_at(t, len, pos);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(strcmp(got, pointer) == 0, "%s at %zu: got \"%s\", expected \"%s\"", t, pos,
	              got, pointer);
	free(got);
	free(t);
}

START_TEST(scanner_tricky)
{
	expect_at("{'a':1e400}", "1e400", "/a");
	expect_at(" {\n\t'a' :\r\n [ 1 , [ 2 ,\n 1e400 ] ] } ", "1e400", "/a/1/1");
	expect_at("{'a~b/c':1e400}", "1e400", "/a~0b~1c");
	expect_at("{'\\u0061\\'x':1e400}", "1e400", "/a\"x");
	expect_at("{'\\\\':1e400}", "1e400", "/\\");
	expect_at("{'\\/':1e400}", "1e400", "/~1");
	expect_at("{'\\ud83d\\ude00':1e400}", "1e400", "/\xF0\x9F\x98\x80");
	expect_at("{'\\u00e9\\n':1e400}", "1e400", "/\xC3\xA9\n");
	expect_at("{'[,]:{}':[0,1e400]}", "1e400", "/[,]:{}/1");
	expect_at("['a\\']}\\\\', 1e400]", "1e400", "/1");
	expect_at("[[[],[1]],[2,[3,1e400]]]", "1e400", "/1/1/1");
	expect_at("{'a':{},'b':[],'c':{'d':[{}]},'e':1e400}", "1e400", "/e");
	expect_at("{'':{'':1e400}}", "1e400", "//");
	expect_at("[0,1,2,3,4,5,6,7,8,9,10,11,12]", ",12", "/12");
	/* A string value, a literal. */
	expect_at("{'a':'x]}y'}", "y'", "/a");
	expect_at("[true,false,null]", "null", "/2");
	/* A duplicate key: the member. */
	expect_at("{'a':{'k':1,'k'", ",'k'", "/a/k");
	/* Containers themselves, and after the end. */
	expect_at("{'a':[[", "[[", "/a/0");
	expect_at("{'a':[", "[", "/a");
	expect_at("{'a':[1 2]}", "2", "/a");
	expect_at("{'a':1} x", "x", "");
	expect_at("{'a':1}", "}", "");
	expect_at("{'a':[]}", "]", "/a");
	expect_at("{'a':{}}", "{}", "/a");
	/* Where a value was expected. */
	expect_at("[1,]", "]", "/1");
	expect_at("{'a':@}", "@", "/a");
	expect_at("{'a',}", ",", "/a");
	expect_at("{1:2}", "1", "");
	/* Out of input (pos past the end). */
	expect_at("", NULL, "");
	expect_at("   ", NULL, "");
	expect_at("{", NULL, "");
	expect_at("{'a'", NULL, "/a");
	expect_at("{'a':", NULL, "/a");
	expect_at("{'a':[1,2", NULL, "/a");
	expect_at("{'a':[1,2,", NULL, "/a/2");
	expect_at("{'a':'xy", NULL, "/a");
	expect_at("{'a':'xy\\", NULL, "/a");
	expect_at("{'ab", NULL, "/ab");
	expect_at("{'a':1,", NULL, "");
	expect_at("[[1],[2]]", NULL, "");
	/* At the very start. */
	char *p = proto_pointer_at("x", 1, 0);
	ck_assert_str_eq(p, "");
	free(p);
}
END_TEST

/* A tiny deterministic generator (xorshift). */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 32);
}

typedef struct doc {
	char text[1 << 20];
	size_t len;
	char path[4096];   /* pointer of the value being written */
	char target[4096]; /* pointer of the planted value */
	size_t target_end; /* offset just past the planted token */
	int leaves, plant; /* leaf counter; the leaf that gets the plant */
	const char *planted;
	uint64_t seed;
} doc;

static void put(doc *d, const char *s)
{
	size_t n = strlen(s);
	/* Not ck_assert: Check logs every passing assertion, and this runs for
	 * every token. */
	if (d->len + n >= sizeof d->text)
		ck_abort_msg("document too long");
	memcpy(d->text + d->len, s, n);
	d->len += n;
}

static void space(doc *d)
{
	static const char *const ws[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
	put(d, ws[rnd(&d->seed) % 7]);
}

/* Member names as JSON source and as a pointer token. */
static const char *const keys[][2] = {
	{"a", "a"},           {"x~y", "x~0y"},    {"x/y", "x~1y"},
	{"q\\\"q", "q\"q"},   {"b\\\\s", "b\\s"}, {"\\u00e9", "\xC3\xA9"},
	{"\\/", "~1"},        {"", ""},           {"\\ud83d\\ude00", "\xF0\x9F\x98\x80"},
	{"[,]:{}", "[,]:{}"}, {"\\n\\t", "\n\t"}, {"~1", "~01"},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static void value(doc *d, int depth)
{
	size_t mark = strlen(d->path);
	/* The root is a container; below it, half the values are, down to
	 * depth 6. */
	unsigned r = rnd(&d->seed);
	if (depth == 0 || (depth < 6 && r % 2)) {
		int object = (r >> 1) % 2;
		unsigned n = 1 + (r >> 2) % 4;
		unsigned first = rnd(&d->seed) % NKEYS;
		put(d, object ? "{" : "[");
		for (unsigned i = 0; i < n; i++) {
			space(d);
			if (i)
				put(d, ",");
			space(d);
			char seg[64];
			if (object) {
				/* Distinct names: a rotation of the list, then a suffix. */
				const char *const *k = keys[(first + i) % NKEYS];
				char src[64];
				snprintf(src, sizeof src, "\"%s%s\"", k[0], i >= NKEYS ? "z" : "");
				put(d, src);
				space(d);
				put(d, ":");
				space(d);
				snprintf(seg, sizeof seg, "/%s%s", k[1], i >= NKEYS ? "z" : "");
			} else {
				snprintf(seg, sizeof seg, "/%u", i);
			}
			strcat(d->path, seg);
			value(d, depth + 1);
			d->path[mark] = '\0';
		}
		space(d);
		put(d, object ? "}" : "]");
		return;
	}
	static const char *const leaves[] = {"1",  "-2.5e3", "\"a]}\\\"\"", "true",        "null",
	                                     "{}", "[]",     "0.125",       "\"\\u005d,\""};
	if (d->leaves++ == d->plant) {
		snprintf(d->target, sizeof d->target, "%s", d->path);
		put(d, d->planted);
		d->target_end = d->len;
	} else {
		put(d, leaves[rnd(&d->seed) % 9]);
	}
}

/* Start a document (the text buffer is large: only the bookkeeping is
 * cleared). */
static void doc_reset(doc *d, uint64_t trial, int plant, const char *planted)
{
	d->len = 0;
	d->path[0] = d->target[0] = '\0';
	d->target_end = 0;
	d->leaves = 0;
	d->plant = plant;
	d->planted = planted;
	d->seed = trial * 0x9E3779B97F4A7C15u;
}

START_TEST(scanner_against_jansson)
{
	/* Random documents with one number jansson cannot hold planted at a
	 * random leaf: jansson gives the position, the generator the path. */
	static const char *const plants[] = {"1e400", "-1E+309", "123456789e999",
	                                     "1000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000000000000000000000000000000000000000000000000"
	                                     "0000"};
	static doc d;
	int checked = 0;
	for (uint64_t trial = 1; trial <= 3000; trial++) {
		/* First pass counts the leaves; the second plants at one. */
		doc_reset(&d, trial, -1, "0");
		space(&d);
		value(&d, 0);
		int leaves = d.leaves;
		if (leaves == 0)
			continue; /* only empty containers */
		uint64_t pick = trial;
		int plant = (int)(rnd(&pick) % (uint32_t)leaves);
		doc_reset(&d, trial, plant, plants[trial % 4]);
		space(&d);
		value(&d, 0);
		space(&d);
		json_error_t e;
		json_t *j = json_loadb(d.text, d.len,
		                       JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL |
		                               JSON_REJECT_DUPLICATES,
		                       &e);
		ck_assert_msg(j == NULL, "parsed: %.*s", (int)d.len, d.text);
		ck_assert_int_eq(json_error_code(&e), json_error_numeric_overflow);
		ck_assert_int_eq((size_t)e.position, d.target_end);
		char *got = proto_pointer_at(d.text, d.len, (size_t)e.position);
		ck_assert_msg(strcmp(got, d.target) == 0, "%.*s\ngot \"%s\", expected \"%s\"",
		              (int)d.len, d.text, got, d.target);
		free(got);
		/* And through the whole reply path. */
		if (trial % 10 == 0) {
			json_decref(problem_n(d.text, d.len, 422, d.target));
			checked++;
		}
	}
	ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(scanner_any_bytes)
{
	/* Whatever the bytes and the position, an answer and no fault. */
	uint64_t s = 42;
	static const char alphabet[] = "{}[]:,\"\\ \n0123456789eE+-.truefalsnl\xff\x00u";
	char text[256];
	for (int trial = 0; trial < 20000; trial++) {
		size_t len = rnd(&s) % sizeof text;
		for (size_t i = 0; i < len; i++)
			text[i] = alphabet[rnd(&s) % (sizeof alphabet - 1)];
		size_t pos = rnd(&s) % (len + 2);
		char *p = proto_pointer_at(text, len, pos);
		if (!p || (p[0] != '\0' && p[0] != '/'))
			ck_abort_msg("bad pointer %s for %.*s at %zu", p ? p : "(null)", (int)len,
			             text, pos);
		free(p);
	}
}
END_TEST

/* ---- threads ------------------------------------------------------------- */

static const char *const thread_queries[] = {
	"{'a':{'vertices':" CUBE "},'b':{'vertices':" CUBE ",'pose':{'translation':[3,0.5,0]}}}",
	"{'a':{'vertices':" CUBE ",'radius':0.5},'b':{'vertices':" TET ",'pose':{'rotation':"
	"[0,0.6,0,0.8],'translation':[0,0,2]}}}",
	"{'a':{'vertices':[[0,0],[1,0],[0,1]]},'b':{'vertices':[[3,3]]},'method':'gjk'}",
	"{'a':{'vertices':[[0,0,0]]},'b':{'vertices':[[1,1]]}}",
	"{'a':[1,2",
	"{'a':1e400}",
};
#define NTQ (sizeof thread_queries / sizeof thread_queries[0])

typedef struct thread_work {
	char *text[NTQ];
	char *expect[NTQ];
	int mismatches;
} thread_work;

static void *thread_main(void *arg)
{
	thread_work *w = arg;
	for (int round = 0; round < 200; round++) {
		size_t i = (size_t)round % NTQ;
		proto_reply r;
		if (proto_query_reply(w->text[i], strlen(w->text[i]), &r) != 0 ||
		    strcmp(r.body, w->expect[i]) != 0)
			__atomic_add_fetch(&w->mismatches, 1, __ATOMIC_RELAXED);
		proto_reply_free(&r);
	}
	return NULL;
}

START_TEST(concurrent_replies)
{
	thread_work w = {0};
	for (size_t i = 0; i < NTQ; i++) {
		w.text[i] = q(thread_queries[i]);
		proto_reply r;
		ck_assert_int_eq(proto_query_reply(w.text[i], strlen(w.text[i]), &r), 0);
		w.expect[i] = r.body;
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &w), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(w.mismatches, 0);
	for (size_t i = 0; i < NTQ; i++) {
		free(w.text[i]);
		free(w.expect[i]);
	}
}
END_TEST

/* ---- the contract document ----------------------------------------------- */

/* json_object_get along a path of member names. */
static json_t *get(json_t *j, const char *const *path)
{
	for (; *path; path++) {
		j = json_object_get(j, *path);
		ck_assert_msg(j != NULL, "openapi.yaml has no %s", *path);
	}
	return j;
}
#define GET(j, ...) get((j), (const char *const[]){__VA_ARGS__, NULL})

/* Every property, at any depth, has a description. */
static void check_described(const char *where, json_t *schema)
{
	json_t *props = json_object_get(schema, "properties");
	const char *name;
	json_t *prop;
	json_object_foreach(props, name, prop) {
		ck_assert_msg(json_is_string(json_object_get(prop, "description")),
		              "%s.%s has no description", where, name);
		char inner[256];
		snprintf(inner, sizeof inner, "%s.%s", where, name);
		check_described(inner, prop);
	}
}

START_TEST(contract_document)
{
	json_t *api = contract_doc_load();
	ck_assert(strncmp(json_string_value(GET(api, "openapi")), "3.1.", 4) == 0);
	json_t *responses = GET(api, "paths", "/v1/query", "post", "responses");
	const char *codes[] = {"200", "400", "413", "415", "422"};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		ck_assert_msg(json_object_get(responses, codes[i]), "no %s response", codes[i]);
	GET(api, "paths", "/livez", "get", "responses", "200");
	GET(api, "paths", "/readyz", "get", "responses", "503");
	json_t *schemas = GET(api, "components", "schemas");
	const char *names[] = {"Query", "Shape", "Pose", "Warm", "Result", "Problem"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		json_t *s = GET(schemas, names[i]);
		ck_assert_msg(json_is_string(json_object_get(s, "description")), "%s", names[i]);
		check_described(names[i], s);
	}
	/* The problem types are the code's: one per status, and the 400 of a
	 * malformed HTTP request. */
	json_t *types = GET(schemas, "Problem", "properties", "type", "enum");
	char request_type[80];
	snprintf(request_type, sizeof request_type, "urn:clashd:problem:%s",
	         proto_request_problem_slug());
	size_t found = 0;
	for (size_t i = 0; i < json_array_size(types); i++)
		found += strcmp(json_string_value(json_array_get(types, i)), request_type) == 0;
	ck_assert_msg(found == 1, "%s is not documented", request_type);
	/* And the 422 of a ref to a shape the store lacks. */
	size_t unknown = 0;
	for (size_t i = 0; i < json_array_size(types); i++)
		unknown += strcmp(json_string_value(json_array_get(types, i)),
		                  PROTO_PROBLEM_TYPE_PREFIX PROTO_PROBLEM_UNKNOWN_SHAPE) == 0;
	ck_assert_msg(unknown == 1, "unknown-shape is not documented");
	found += unknown;
	for (int status = 400; status <= 599; status++) {
		char type[80];
		snprintf(type, sizeof type, "urn:clashd:problem:%s", proto_problem_slug(status));
		int listed = 0;
		for (size_t i = 0; i < json_array_size(types); i++)
			listed |= strcmp(json_string_value(json_array_get(types, i)), type) == 0;
		ck_assert_msg(listed, "%s is not documented", type);
	}
	for (size_t i = 0; i < json_array_size(types); i++) {
		const char *t = json_string_value(json_array_get(types, i));
		for (int status = 400; status <= 599; status++) {
			char type[80];
			snprintf(type, sizeof type, "urn:clashd:problem:%s",
			         proto_problem_slug(status));
			if (strcmp(t, type) == 0) {
				found++;
				break;
			}
		}
	}
	ck_assert_uint_eq(found, json_array_size(types));
	/* So are the methods. */
	json_t *methods = GET(schemas, "Query", "properties", "method", "enum");
	ck_assert_uint_eq(json_array_size(methods), proto_method_count());
	for (size_t i = 0; i < proto_method_count(); i++)
		ck_assert_str_eq(json_string_value(json_array_get(methods, i)),
		                 proto_method_at(i)->name);
	json_decref(api);
}
END_TEST

/* Every member a Result may have is documented, with the right JSON types. */
static void check_documented(json_t *schemas, const char *schema, json_t *value, const char *where)
{
	json_t *props = GET(schemas, schema, "properties");
	const char *name;
	json_t *v;
	json_object_foreach(value, name, v) {
		ck_assert_msg(json_object_get(props, name) != NULL, "%s/%s is not documented",
		              where, name);
	}
	json_t *required = json_object_get(json_object_get(schemas, schema), "required");
	for (size_t i = 0; i < json_array_size(required); i++) {
		const char *r = json_string_value(json_array_get(required, i));
		ck_assert_msg(json_object_get(value, r) != NULL, "%s lacks required %s", where, r);
	}
}

START_TEST(contract_examples)
{
	json_t *api = contract_doc_load();
	json_t *schemas = GET(api, "components", "schemas");
	json_t *examples = GET(api, "paths", "/v1/query", "post", "requestBody", "content",
	                       "application/json", "examples");
	ck_assert_uint_ge(json_object_size(examples), 3);
	const char *name;
	json_t *ex;
	json_object_foreach(examples, name, ex) {
		char *text = json_dumps(GET(ex, "value"), JSON_COMPACT);
		int st;
		json_t *res = answer_n(text, strlen(text), &st);
		ck_assert_msg(st == 200, "example %s: %d", name, st);
		check_documented(schemas, "Result", res, name);
		if (json_object_get(res, "warm")) /* compound answers have none */
			check_documented(schemas, "Warm", json_object_get(res, "warm"), name);
		/* A documented response example is the real answer. */
		json_t *shown =
			json_object_get(json_object_get(GET(api, "paths", "/v1/query", "post",
		                                            "responses", "200", "content",
		                                            "application/json", "examples"),
		                                        name),
		                        "value");
		if (shown) {
			char *want = json_dumps(shown, JSON_COMPACT),
			     *got = json_dumps(res, JSON_COMPACT);
			ck_assert_msg(contract_doc_same(shown, res),
			              "example %s shows %s, the answer is %s", name, want, got);
			free(want);
			free(got);
		}
		json_decref(res);
		free(text);
	}
	json_decref(api);
}
END_TEST

/* Every documented member of the request objects is one the decoder knows:
 * given a value of a wrong type, it is answered as a bad value of that
 * member, never as an unknown member. */
START_TEST(contract_members_known)
{
	json_t *api = contract_doc_load();
	json_t *schemas = GET(api, "components", "schemas");
	static const struct {
		const char *schema;
		const char *prefix; /* JSON Pointer of an object of that schema */
	} objects[] = {{"Query", ""}, {"Shape", "/a"}, {"Pose", "/a/pose"}, {"Warm", "/warm"}};
	for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
		json_t *props = GET(schemas, objects[i].schema, "properties");
		const char *name;
		json_t *prop;
		json_object_foreach(props, name, prop) {
			json_t *qy = json_loads("{\"a\":{\"vertices\":[[0,0,0]],\"pose\":{}},"
			                        "\"b\":{\"vertices\":[[1,1,1]]},"
			                        "\"warm\":{\"a\":[0],\"b\":[0]}}",
			                        0, NULL);
			json_t *obj = qy;
			if (strcmp(objects[i].prefix, "/a") == 0)
				obj = json_object_get(qy, "a");
			else if (strcmp(objects[i].prefix, "/a/pose") == 0)
				obj = json_object_get(json_object_get(qy, "a"), "pose");
			else if (strcmp(objects[i].prefix, "/warm") == 0)
				obj = json_object_get(qy, "warm");
			json_object_set_new(obj, name, json_pack("{s:b}", "zz", 1));
			char *text = json_dumps(qy, JSON_COMPACT);
			int st;
			json_t *res = answer_n(text, strlen(text), &st);
			char where[128];
			snprintf(where, sizeof where, "%s/%s", objects[i].prefix, name);
			const char *ptr = json_string_value(json_object_get(res, "pointer"));
			const char *detail = json_string_value(json_object_get(res, "detail"));
			ck_assert_int_eq(st, 422);
			ck_assert_msg(!(strcmp(ptr, where) == 0 &&
			                strstr(detail, "unknown member")),
			              "%s is documented but unknown to the decoder", where);
			json_decref(res);
			json_decref(qy);
			free(text);
		}
	}
	json_decref(api);
}
END_TEST

static void setup(void)
{
	proto_init();
}

static Suite *wire_contract_suite(void)
{
	Suite *s = suite_create("wire_contract");
	TCase *tc = ck_case(s, "malformed", 0,
	                    CK_TESTS(malformed_syntax, malformed_duplicates_trailing_empty,
	                             malformed_empty_located, malformed_bytes_and_ends,
	                             malformed_too_deep, number_overflow));
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tc = ck_case(s, "invalid", 0,
	             CK_TESTS(top_level, vertices_required_and_nonempty, mixed_dimensions, radius,
	                      pose_rotation_angle_translation, pose_matrix, method_and_options,
	                      unknown_members, wrong_types, warm_indices, answer_out_of_range));
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tc = ck_case(s, "answers", 0,
	             CK_TESTS(cubes_two_apart, overlapping_cubes, poses_radii_dimensions,
	                      integers_are_numbers, subnormal_coordinates, warm_round_trip,
	                      decoded_values, concurrent_replies));
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tc = ck_case(s, "encoding", 0,
	             CK_TESTS(doubles_round_trip, never_non_finite, problem_replies));
	tcase_add_unchecked_fixture(tc, setup, NULL);
	ck_case(s, "scanner", 30,
	        CK_TESTS(scanner_tricky, scanner_against_jansson, scanner_any_bytes));
	tc = ck_case(s, "contract", 0,
	             CK_TESTS(contract_document, contract_examples, contract_members_known));
	tcase_add_unchecked_fixture(tc, setup, NULL);
	return s;
}

CHECK_SUITE(wire_contract_suite)
