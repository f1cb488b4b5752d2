/*
 * http_gzip.c — streaming inflate of gzip request bodies (see http_gzip.h),
 * zlib doing the work: one z_stream per body, a small output window handed
 * to the sink as it fills.  A sink that says stop (the body is over its
 * bound) ends the work at once; what follows is dropped by the caller.
 */
#include "http_gzip.h"

#include <stdint.h>
#include <stdlib.h>

#include <zlib.h>

struct http_gzip {
	z_stream z;
	int ended;   /* Z_STREAM_END seen */
	int stopped; /* the sink said stop */
};

http_gzip *http_gzip_new(void)
{
	http_gzip *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	/* 16 + MAX_WBITS: a gzip header and trailer, not a zlib one. */
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return NULL;
	}
	return g;
}

int http_gzip_feed(http_gzip *g, const char *in, size_t n, http_gzip_sink sink, void *ctx,
                   const char **why)
{
	char out[16384];
	if (g->stopped || n == 0)
		return 0;
	if (g->ended) {
		*why = "bytes after the end of the gzip stream";
		return -1;
	}
	g->z.next_in = (Bytef *)(uintptr_t)in;
	g->z.avail_in = (uInt)n; /* MHD hands the body in pieces far below 4 GiB */
	for (;;) {
		g->z.next_out = (Bytef *)out;
		g->z.avail_out = sizeof out;
		int rc = inflate(&g->z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			*why = g->z.msg ? g->z.msg : "not a gzip stream";
			return -1;
		}
		size_t got = sizeof out - g->z.avail_out;
		if (got && sink(ctx, out, got) != 0) {
			g->stopped = 1;
			return 0;
		}
		if (rc == Z_STREAM_END) {
			g->ended = 1;
			break;
		}
		/* Input used up and output not full: nothing is pending. */
		if ((g->z.avail_in == 0 && g->z.avail_out != 0) || (rc == Z_BUF_ERROR && got == 0))
			break;
	}
	if (g->ended && g->z.avail_in > 0) {
		*why = "bytes after the end of the gzip stream";
		return -1;
	}
	return 0;
}

int http_gzip_ended(const http_gzip *g)
{
	return g->ended;
}

void http_gzip_free(http_gzip *g)
{
	if (!g)
		return;
	inflateEnd(&g->z);
	free(g);
}
