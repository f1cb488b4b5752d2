/*
 * http_static.c — the demo page's files in memory (http_static.h).
 */
#include "http_static.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
	const char *ext, *type;
} types[] = {
	{".html", "text/html; charset=utf-8"},
	{".js", "text/javascript; charset=utf-8"},
	{".mjs", "text/javascript; charset=utf-8"},
	{".css", "text/css; charset=utf-8"},
	{".map", "application/json"},
	{".json", "application/json"},
	{".svg", "image/svg+xml"},
	{".png", "image/png"},
	{".ico", "image/x-icon"},
	{".txt", "text/plain; charset=utf-8"},
	{".wasm", "application/wasm"},
};

static const char *type_of(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		size_t k = strlen(types[i].ext);
		if (n > k && strcmp(name + n - k, types[i].ext) == 0)
			return types[i].type;
	}
	return "application/octet-stream";
}

static int plain_name(const char *name)
{
	if (name[0] == '.' || name[0] == '\0')
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return 0;
	return strlen(name) < 128;
}

/* The whole regular file dir/name into f. */
static int read_one(http_static *s, const char *dir, const char *name, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *in = fopen(path, "rb");
	struct stat st;
	if (!in || fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
		if (in)
			fclose(in);
		return 0; /* not a regular file: left out */
	}
	if (s->count == HTTP_STATIC_MAX_FILES ||
	    (size_t)st.st_size > HTTP_STATIC_MAX_BYTES - s->bytes) {
		fclose(in);
		snprintf(err, errlen, "%s: more than %d files or %zu MiB", dir,
		         HTTP_STATIC_MAX_FILES, HTTP_STATIC_MAX_BYTES >> 20);
		return -1;
	}
	http_static_file *f = &s->files[s->count];
	f->len = (size_t)st.st_size;
	f->data = malloc(f->len ? f->len : 1);
	f->name = strdup(name);
	int ok = f->data && f->name && fread(f->data, 1, f->len, in) == f->len;
	fclose(in);
	if (!ok) {
		free(f->data);
		free(f->name);
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	f->type = type_of(name);
	s->count++;
	s->bytes += f->len;
	return 0;
}

/* dir/sub's regular files with plain names into s, as "sub/name"; at the
 * top (sub "") its plain subdirectories too, one level: the page's gen/
 * holds the core in the page, which clients/js/local.js loads from
 * ./gen/ beside the bundle. */
static int read_dir(http_static *s, const char *dir, const char *sub, char *err, size_t errlen)
{
	char path[4096], name[272];
	snprintf(path, sizeof path, "%s%s%s", dir, *sub ? "/" : "", sub);
	DIR *d = opendir(path);
	if (!d) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (!plain_name(e->d_name))
			continue;
		snprintf(name, sizeof name, "%s%s%s", sub, *sub ? "/" : "", e->d_name);
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			r = *sub ? 0 : read_dir(s, dir, name, err, errlen);
		else
			r = read_one(s, dir, name, err, errlen);
	}
	closedir(d);
	return r;
}

int http_static_load(http_static *s, const char *dir, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	int r = read_dir(s, dir, "", err, errlen);
	if (r == 0 && !http_static_find(s, "")) {
		snprintf(err, errlen, "%s has no index.html", dir);
		r = -1;
	}
	if (r)
		http_static_free(s);
	return r;
}

const http_static_file *http_static_find(const http_static *s, const char *name)
{
	if (name[0] == '\0')
		name = "index.html";
	for (size_t i = 0; i < s->count; i++)
		if (strcmp(s->files[i].name, name) == 0)
			return &s->files[i];
	return NULL;
}

void http_static_free(http_static *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->files[i].name);
		free(s->files[i].data);
	}
	memset(s, 0, sizeof *s);
}
