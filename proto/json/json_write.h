/*
 * json_write.h — JSON text written without jansson (json_write.c): numbers
 * as json_dumps or printf write them, strings quoted and escaped as
 * json_dumps escapes them, and the one UTF-8 check of proto/ and server/.
 * Replies and problems write into a proto_text; clashd's log writes into
 * its own line with the same pieces (server/ includes this header, so it
 * brings no jansson: json_dump.h walks a jansson tree with these pieces).
 */
#ifndef PROTO_JSON_WRITE_H
#define PROTO_JSON_WRITE_H

#include <stddef.h>

#include "text_buf.h"

/* Room a number's text needs, its NUL included. */
#define PROTO_REAL_MAX 32
#define PROTO_INT_MAX 24

/* A finite double as json_dumps writes it with JSON_REAL_PRECISION(p),
 * 1 <= p <= 17: %.{p}g, then ".0" when neither '.' nor 'e' is in it, no
 * '+' and no leading zeros in the exponent.  Replies use p = 17, the log
 * p = 6.  `out` has room for PROTO_REAL_MAX bytes; returns the length (the
 * text is NUL-terminated). */
size_t proto_real_json(double x, int precision, char *out);

/* snprintf(out, PROTO_REAL_MAX, "%.*g", precision, x), byte for byte, for
 * 1 <= precision <= 17 (finite x; several times faster: no printf).
 * Returns the length (the text is NUL-terminated). */
size_t proto_real_g(double x, int precision, char *out);

/* "%lld" of x, without printf, into PROTO_INT_MAX bytes (no NUL written);
 * returns the length. */
size_t proto_int_text(long long x, char *out);

/* The length of the valid UTF-8 sequence at s (n > 0 bytes left): 1 for
 * ASCII, 0 when the bytes there are not one (RFC 3629, as jansson checks:
 * no overlong form, no surrogate, nothing above U+10FFFF). */
size_t proto_utf8_len(const char *s, size_t n);

/* The widest character proto_string_escape writes (\u00XX), and the room
 * it keeps free: it writes a character only while this many bytes are
 * left, so a text cut short still has room for its closing quote. */
#define PROTO_ESCAPE_WIDEST 6
#define PROTO_ESCAPE_MARGIN 8

/* The n bytes at s as the inside of a JSON string, escaped as json_dumps
 * escapes without flags: '"' and '\\' escaped, control characters as \b
 * \f \n \r \t or \u00XX, valid UTF-8 as it is, and each other byte written
 * as `bad` (valid UTF-8 of 1 to 3 bytes that needs no escape: "?" or
 * U+FFFD).  Writes into out while PROTO_ESCAPE_MARGIN of its `room` bytes
 * are left (SIZE_MAX: no limit); the bytes of s written go to *used.
 * Returns the length; with out NULL only that (to size a buffer). */
size_t proto_string_escape(char *out, size_t room, const char *s, size_t n, const char *bad,
                           size_t *used);

/* U+FFFD, the replacement character, as UTF-8. */
#define PROTO_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Into a proto_text (text_buf.h), as json_dumps(v, JSON_COMPACT |
 * JSON_REAL_PRECISION(17)) writes them: a finite double; an array of n;
 * an integer; a string of n bytes, quoted, whose bytes that are not UTF-8
 * are written U+FFFD (jansson would refuse such a string). */
void proto_text_real(proto_text *t, double x);
void proto_text_reals(proto_text *t, const double *x, int n);
void proto_text_int(proto_text *t, long long x);
void proto_text_string(proto_text *t, const char *s, size_t n);

#endif /* PROTO_JSON_WRITE_H */
