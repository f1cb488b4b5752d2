/*
 * http_static.h — the demo page's files (web/, built into build/web by
 * `make web`), read once at start-up and served from memory under /web/,
 * so the demo needs no second server.
 *
 * Only the directory's own regular files whose names are plain
 * ([A-Za-z0-9._-], not starting with '.') are taken, and those of its
 * subdirectories with plain names one level down (gen/, the core in the
 * page: "gen/clashd-core.wasm" in the URL), at most
 * HTTP_STATIC_MAX_FILES of them and HTTP_STATIC_MAX_BYTES in all: the
 * page is a few files, and nothing on disk is read after start-up, so a
 * request can never name a path outside them.
 */
#ifndef SERVER_HTTP_STATIC_H
#define SERVER_HTTP_STATIC_H

#include <stddef.h>

#define HTTP_STATIC_MAX_FILES 64
#define HTTP_STATIC_MAX_BYTES ((size_t)64 << 20)

typedef struct http_static_file {
	char *name;       /* as in the URL after /web/ ("demo.js", "gen/x.wasm") */
	const char *type; /* its Content-Type, from the extension */
	char *data;
	size_t len;
} http_static_file;

typedef struct http_static {
	http_static_file files[HTTP_STATIC_MAX_FILES];
	size_t count;
	size_t bytes;
} http_static;

/* Read dir's files into *s.  0, or -1 with a reason in err (no
 * index.html, too many or too large files, a read error). */
int http_static_load(http_static *s, const char *dir, char *err, size_t errlen);

/* The file called `name` ("" is index.html), or NULL. */
const http_static_file *http_static_find(const http_static *s, const char *name);

void http_static_free(http_static *s);

#endif
