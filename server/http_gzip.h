/*
 * http_gzip.h — request bodies sent with Content-Encoding: gzip, inflated
 * by zlib as their bytes arrive, so a body is never held compressed and
 * whole, and a gzip bomb is refused at the --max-body bound of what it
 * inflates to rather than after inflating it all.
 */
#ifndef HTTP_GZIP_H
#define HTTP_GZIP_H

#include <stddef.h>

typedef struct http_gzip http_gzip;

/* Where inflated bytes go: 0 to go on, nonzero to stop inflating (the
 * rest of the input is then dropped unread). */
typedef int (*http_gzip_sink)(void *ctx, const char *data, size_t n);

/* A decoder for one gzip stream, or NULL when memory ran out. */
http_gzip *http_gzip_new(void);

/* Inflate n more bytes of the body into sink.  0, or -1 when the bytes
 * are not gzip (or follow its end): then *why says what is wrong. */
int http_gzip_feed(http_gzip *g, const char *in, size_t n, http_gzip_sink sink, void *ctx,
                   const char **why);

/* Whether the stream has reached its end (its trailer checked). */
int http_gzip_ended(const http_gzip *g);

void http_gzip_free(http_gzip *g);

#endif /* HTTP_GZIP_H */
