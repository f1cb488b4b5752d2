/*
 * pointer.h — JSON Pointers (RFC 6901) naming the value a problem is about.
 *
 * Two sources of pointers share this module:
 *  - the decoder walks a parsed jansson tree and keeps its position as a
 *    proto_path chain on the C stack (no allocation while all is well); only
 *    when it finds a problem does it render the chain into a string;
 *  - when jansson cannot parse the text at all, proto_pointer_at() recovers
 *    the position from the text itself (pointer_scan.c).
 * Every returned string is malloc'd and NUL-terminated; NULL means that
 * memory ran out.
 */
#ifndef PROTO_POINTER_H
#define PROTO_POINTER_H

#include <stddef.h>

/* One step of a path from the root of a document: a member name (key !=
 * NULL) or an array index.  `up` is the step to the enclosing value; the
 * root itself is a NULL path. */
typedef struct proto_path {
	const struct proto_path *up;
	const char *key; /* NUL-terminated member name, or NULL for an index */
	size_t index;
} proto_path;

/* Render `path` as a JSON Pointer ("" for the root, "/a/vertices/3/2").
 * Member names are escaped: "~" as "~0", "/" as "~1". */
char *proto_path_render(const proto_path *path);

/* Write the reference-token form of the n bytes at `name` to `dst` (which
 * may be NULL to only measure) and return its length. */
size_t proto_pointer_escape(char *dst, const char *name, size_t n);

/*
 * The JSON Pointer of the innermost value being parsed at byte offset `pos`
 * of `text` (len bytes), for reporting where a parser stopped.  The text is
 * taken to be valid JSON up to the token ending at `pos` — the token a
 * parser such as jansson was looking at when it failed (its error position
 * is the end of that token).  `pos` greater than `len` means the parser ran
 * out of input.  What is named, by what the parser expected there:
 *  - a value (after "[", ",", ":" or at the start): the slot of that value,
 *    e.g. "/a/vertices/3/2" for a number that cannot be read, or "/b/1" for
 *    "[1,]" (the missing element) — whatever token stands in it;
 *  - a member name: the member, when the token is a string (a duplicate
 *    key), else the object;
 *  - a ":" after a name: the member;
 *  - a "," or the end of the container: the container;
 *  - anything after the complete top-level value: the root, "".
 * Member names are unescaped from JSON and escaped per RFC 6901.  Returns a
 * malloc'd string, or NULL when memory ran out.
 */
char *proto_pointer_at(const char *text, size_t len, size_t pos);

#endif /* PROTO_POINTER_H */
