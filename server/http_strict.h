/*
 * http_strict.h — the request heads clashd refuses although libmicrohttpd
 * let them through (RFC 9112, RFC 9110).
 *
 * libmicrohttpd 0.9.75 is lenient: it takes the first of two Content-Length
 * fields, reads a body chunked when Transfer-Encoding and Content-Length
 * both came, reads a body of any other transfer coding to the end of the
 * connection, keeps field names with a space before the colon, and passes
 * on missing or repeated Host fields.  Each of these lets a proxy in front
 * and clashd disagree on where a request ends or what it says (request
 * smuggling), so clashd refuses them before routing, in two kinds:
 *   - body framing (Content-Length, Transfer-Encoding, a field name that is
 *     not a token, a field line folded onto the next, RFC 9112 section 5.2:
 *     a proxy may read a folded Transfer-Encoding that libmicrohttpd does
 *     not): 400 or 501, answered at once and the connection closed, as
 *     RFC 9112 section 6.3 requires (the body's end is unknown);
 *   - the rest (Host; Authorization or Content-Type twice; a control
 *     character in a field value or the decoded path or query): 400, the
 *     body, framed soundly, read and dropped; the connection stays open.
 * Every case is a row of docs/operations.md, "Strict framing".  The scan is
 * fed every field line (duplicates included) and judges once.
 */
#ifndef SERVER_HTTP_STRICT_H
#define SERVER_HTTP_STRICT_H

#include <stddef.h>

/* What the field lines of one request showed. */
typedef struct http_strict {
	unsigned hosts, lengths, encodings, authorizations, content_types;
	int host_invalid;      /* a Host value that is no host[:port] */
	int folded;            /* a field continued on a line starting with
	                          space or tab (obs-fold) */
	char bad_name[48];     /* the first field name that is not a token */
	char bad_value[48];    /* the name of the first field with a control character */
	int codings_invalid;   /* Transfer-Encoding is not a list of tokens */
	unsigned codings;      /* transfer codings listed, over every line */
	unsigned chunked;      /* of them, "chunked" */
	int chunked_last;      /* the last one listed is chunked */
	char other_coding[32]; /* the first coding other than chunked */
} http_strict;

/* A refusal. */
typedef struct http_strict_fault {
	int status;  /* 400, or 501 for a transfer coding clashd does not know */
	int framing; /* where the body ends is unclear: close after the answer */
	char detail[240];
} http_strict_fault;

/* Add one field (name and value as received, with their lengths);
 * `folded`: it came on more than one line (obs-fold). */
void http_strict_field(http_strict *s, const char *name, size_t name_len, const char *value,
                       size_t value_len, int folded);

/* Judge a request: `http11` it is HTTP/1.1 (else 1.0), `bad_target` its
 * decoded path or query holds a control character.  Returns 1 with *f
 * filled when it is to be refused, 0 when it may go on. */
int http_strict_judge(const http_strict *s, int http11, int bad_target, http_strict_fault *f);

/* Whether text[0, len) holds a control character (a NUL included): bytes
 * 0-31 and 127, tab excepted when `tab_ok` (a field value may hold tabs). */
int http_strict_has_control(const char *text, size_t len, int tab_ok);

#endif
