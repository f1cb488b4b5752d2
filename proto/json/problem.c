/*
 * problem.c — building application/problem+json replies (RFC 9457).
 *
 * The status table is the contract's list of problem types (openapi.yaml,
 * components/schemas/Problem); both the query path and the server's own
 * errors (proto_problem_reply) go through proto_problem_encode(), so every
 * error clashd or clash emits has the same members and type URIs.  The
 * body is written straight as text (json_write.h), as for a Result.
 * proto_problem_place() reads such a body back (jansson) to place it in a
 * larger input.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dump.h"
#include "problem.h"

typedef struct problem_kind {
	int status;
	const char *slug;
	const char *title;
} problem_kind;

static const problem_kind kinds[] = {
	{400, "malformed-json", "Malformed JSON"},
	{404, "not-found", "Not found"},
	{401, "unauthorized", "Unauthorized"},
	{403, "forbidden", "Forbidden"},
	{405, "method-not-allowed", "Method not allowed"},
	{406, "not-acceptable", "Not acceptable"},
	{408, "request-timeout", "Request timeout"},
	{411, "length-required", "Length required"},
	{413, "payload-too-large", "Payload too large"},
	{414, "uri-too-long", "URI too long"},
	{415, "unsupported-media-type", "Unsupported media type"},
	{422, "invalid-query", "Invalid query"},
	{429, "too-many-requests", "Too many requests"},
	{431, "header-fields-too-large", "Request header fields too large"},
	{500, "internal", "Internal error"},
	{501, "not-implemented", "Not implemented"},
	{503, "unavailable", "Service unavailable"},
	{504, "timeout", "Timeout"},
};

/* A 400 about the HTTP message itself (its framing, header fields or
 * target) rather than its JSON. */
static const problem_kind malformed_request = {400, "malformed-request", "Malformed request"};

/* A 422 naming shapes the store does not hold (refs.h). */
static const problem_kind unknown_shape = {422, PROTO_PROBLEM_UNKNOWN_SHAPE, "Unknown shape"};

static const problem_kind client_error = {0, "client-error", "Client error"};
static const problem_kind server_error = {0, "server-error", "Server error"};

static const problem_kind *kind_of(int status)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (kinds[i].status == status)
			return &kinds[i];
	return status >= 400 && status <= 499 ? &client_error : &server_error;
}

const char *proto_problem_slug(int status)
{
	return kind_of(status)->slug;
}

const char *proto_problem_title(int status)
{
	return kind_of(status)->title;
}

void proto_problem_setv(proto_problem *p, int status, char *pointer, const char *fmt, va_list ap)
{
	free(p->pointer);
	free(p->missing);
	memset(p, 0, sizeof *p);
	p->status = status;
	p->pointer = pointer;
	vsnprintf(p->detail, sizeof p->detail, fmt, ap);
}

void proto_problem_set(proto_problem *p, int status, char *pointer, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	proto_problem_setv(p, status, pointer, fmt, ap);
	va_end(ap);
}

int proto_problem_whole(proto_problem *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	proto_problem_setv(p, 422, strdup(""), fmt, ap);
	va_end(ap);
	return p->pointer ? 1 : -1;
}

int proto_problem_prefix(proto_problem *p, const char *prefix, size_t n)
{
	proto_text t = {0};
	proto_text_put(&t, prefix, n);
	if (p->pointer)
		proto_text_put(&t, p->pointer, strlen(p->pointer));
	char *pointer = proto_text_finish(&t, NULL);
	if (!pointer)
		return -1;
	free(p->pointer);
	p->pointer = pointer;
	return 0;
}

void proto_problem_release(proto_problem *p)
{
	free(p->pointer);
	p->pointer = NULL;
	free(p->missing);
	p->missing = NULL;
	p->nmissing = 0;
}

/* The text as a JSON string, each byte that does not start a valid UTF-8
 * sequence written U+FFFD (json_string() would refuse the text). */
static void put_text(proto_text *t, const char *text)
{
	proto_text_string(t, text, strlen(text));
}

/* The body of every problem; `where` (may be NULL) adds the parser's stop.
 * Written as text, the bytes json_dumps(JSON_COMPACT) gives for the object
 * of the same members (the suite "encode_as_jansson" compares the two). */
static int encode(const problem_kind *k, int status, const char *detail, const char *pointer,
                  const proto_problem *where, proto_reply *out)
{
	memset(out, 0, sizeof *out);
	proto_text t = {0};
	if (proto_text_reserve(&t, 512) != 0)
		return -1;
	PROTO_TEXT_LIT(&t, "{\"type\":\"" PROTO_PROBLEM_TYPE_PREFIX);
	proto_text_put(&t, k->slug, strlen(k->slug)); /* plain ASCII, as the title */
	PROTO_TEXT_LIT(&t, "\",\"title\":\"");
	proto_text_put(&t, k->title, strlen(k->title));
	PROTO_TEXT_LIT(&t, "\",\"status\":");
	proto_text_int(&t, status);
	if (detail && detail[0]) {
		PROTO_TEXT_LIT(&t, ",\"detail\":");
		put_text(&t, detail);
	}
	if (pointer) {
		PROTO_TEXT_LIT(&t, ",\"pointer\":");
		put_text(&t, pointer);
	}
	if (where && where->located) {
		PROTO_TEXT_LIT(&t, ",\"line\":");
		proto_text_int(&t, where->line);
		PROTO_TEXT_LIT(&t, ",\"column\":");
		proto_text_int(&t, where->column);
		PROTO_TEXT_LIT(&t, ",\"position\":");
		proto_text_int(&t, (long long)where->position);
	}
	if (where && where->nmissing) {
		PROTO_TEXT_LIT(&t, ",\"missing\":[");
		for (size_t i = 0; i < where->nmissing; i++) {
			if (i)
				PROTO_TEXT_LIT(&t, ",");
			put_text(&t, where->missing[i]);
		}
		PROTO_TEXT_LIT(&t, "]");
	}
	PROTO_TEXT_LIT(&t, "}");
	size_t length = 0;
	char *body = proto_text_finish(&t, &length);
	if (!body)
		return -1;
	out->status = status;
	out->content_type = PROTO_PROBLEM_JSON;
	out->body = body;
	out->length = length;
	return 0;
}

/* A status of the contract's range: anything else is a bug (500). */
static int problem_status(int status)
{
	return status < 400 || status > 599 ? 500 : status;
}

int proto_problem_encode(const proto_problem *p, proto_reply *out)
{
	int status = problem_status(p->status);
	const problem_kind *k = p->nmissing ? &unknown_shape : kind_of(status);
	return encode(k, status, p->detail, p->pointer, p, out);
}

int proto_problem_reply(int status, const char *detail, const char *pointer, proto_reply *out)
{
	status = problem_status(status);
	return encode(kind_of(status), status, detail, pointer, NULL, out);
}

int proto_request_problem_reply(int status, const char *detail, proto_reply *out)
{
	status = problem_status(status);
	const problem_kind *k = status == 400 ? &malformed_request : kind_of(status);
	return encode(k, status, detail, NULL, NULL, out);
}

const char *proto_request_problem_slug(void)
{
	return malformed_request.slug;
}

char *proto_problem_place(const char *body, size_t len, uint64_t line, uint64_t offset,
                          size_t *out_len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	json_t *pos = json_object_get(j, "position");
	int err = json_object_set_new(j, "line", json_integer((json_int_t)line));
	if (json_is_integer(pos))
		err |= json_integer_set(pos, json_integer_value(pos) + (json_int_t)offset);
	char *placed = err ? NULL : proto_json_dump(j, out_len);
	json_decref(j);
	return placed;
}
