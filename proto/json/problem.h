/*
 * problem.h — RFC 9457 problem details, as the decoder and the query path
 * build them before they become a proto_reply.
 *
 * A problem is plain data: a status, a short detail (never longer than the
 * buffer; it names what was wrong and what is allowed, not the client's own
 * text), the JSON Pointer of the offending value and, for JSON that could not
 * be parsed, where the parser stopped.  proto_problem_encode() turns it into
 * the application/problem+json body:
 *   {"type": "urn:clashd:problem:<slug>", "title": ..., "status": N,
 *    "detail": ..., "pointer": ..., "line": L, "column": C, "position": P}
 * with "missing": [id, ...] in place of the parser's stop for an
 * unknown-shape problem.
 */
#ifndef PROTO_PROBLEM_H
#define PROTO_PROBLEM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* Prefix of every problem "type" URI; the slug follows it. */
#define PROTO_PROBLEM_TYPE_PREFIX "urn:clashd:problem:"

/* A shape id's text and its NUL ("sha256:" and 64 hex digits). */
#define PROTO_PROBLEM_ID_SIZE 72

/* The slug of a problem with missing ids. */
#define PROTO_PROBLEM_UNKNOWN_SHAPE "unknown-shape"

typedef struct proto_problem {
	int status;
	char detail[240];
	char *pointer;   /* malloc'd JSON Pointer, or NULL to leave it out */
	int located;     /* line, column and position are set (a parse error) */
	int line;        /* 1-based line of the parser's stop */
	int column;      /* 1-based column, in characters, of the last one read */
	size_t position; /* byte offset just past the token the parser stopped at */
	int overflow;    /* the parse stopped at a number out of the range of a
	                  double (a 422): the rest of the text was not read */
	/* A ref to a shape the store does not hold (a 422 of its own type,
	 * "unknown-shape"): the ids of the request's missing shapes, each
	 * once, "sha256:" and 64 hex digits (malloc'd; see refs.h). */
	char (*missing)[PROTO_PROBLEM_ID_SIZE];
	size_t nmissing;
} proto_problem;

/* Fill *p with a status, a pointer (ownership passes to *p; NULL for none)
 * and a printf-style detail.  Any pointer already held is freed. */
void proto_problem_set(proto_problem *p, int status, char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same with a va_list. */
void proto_problem_setv(proto_problem *p, int status, char *pointer, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* A 422 about a whole body or file (pointer ""), as a file's import
 * refuses it.  Returns 1, or -1 when memory ran out. */
int proto_problem_whole(proto_problem *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* p's pointer with `prefix` (n bytes) in front (a problem of a part of a
 * request placed in the whole: "/queries/3" + "/a/vertices"); a problem
 * without a pointer gets the prefix itself.  0, or -1 out of memory (the
 * pointer then unchanged). */
int proto_problem_prefix(proto_problem *p, const char *prefix, size_t n);

/* Release the pointer and ids held by *p (the struct may be reused). */
void proto_problem_release(proto_problem *p);

/* The slug and title for a status: the table of the contract, with other
 * 4xx answered as "client-error" and other 5xx as "server-error". */
const char *proto_problem_slug(int status);
const char *proto_problem_title(int status);

/* Encode *p as a reply.  Text that is not valid UTF-8 (a pointer naming a
 * mangled key) is repaired with U+FFFD rather than refused.  Returns 0, or
 * -1 when memory ran out (then *out is empty). */
int proto_problem_encode(const proto_problem *p, proto_reply *out);

/* A problem body (as proto_problem_encode() writes it, `len` bytes) placed
 * in a larger input, as `clash` places a line's problem in its input: its
 * "line" member set to `line` (added last when it has none), its
 * "position", when it has one, moved by `offset`; the other members, their
 * order and bytes as they were.  Returns the new body (malloc'd,
 * NUL-terminated, its length in *out_len when out_len is not NULL), or
 * NULL when memory ran out or `body` is not a JSON object. */
char *proto_problem_place(const char *body, size_t len, uint64_t line, uint64_t offset,
                          size_t *out_len);

#endif /* PROTO_PROBLEM_H */
