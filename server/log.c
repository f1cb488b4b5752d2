/*
 * log.c — JSON-lines logging on stdout (see log.h).
 *
 * A line is built as a jansson object and dumped compactly, so field values
 * are always escaped correctly; insertion order is kept (jansson >= 2.8), so
 * ts, level and msg come first and a human can still scan the log.  The one
 * line written per request is formatted straight as text instead (a
 * profile put the two jansson objects at 12% of a small query's CPU), and
 * without printf (the same bytes: proto_real_g is %.6g exactly; printf and
 * strftime were still half of the line's cost).
 */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_dump.h"

/* "2026-11-22T10:00:00.123Z".  The part up to the seconds changes once a
 * second: it is kept (per thread) and only the milliseconds are written
 * each time, which spares gmtime's time zone lock and strftime on every
 * request. */
static void timestamp(char *buf, size_t len)
{
	static _Thread_local time_t cached_sec = (time_t)-1;
	static _Thread_local char cached[32];
	static _Thread_local size_t cached_len;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != cached_sec) {
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		cached_len = strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
		cached_sec = ts.tv_sec;
	}
	long ms = ts.tv_nsec / 1000000;
	if (len < cached_len + 6) {
		if (len)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, cached, cached_len);
	char *p = buf + cached_len;
	p[0] = '.';
	p[1] = (char)('0' + ms / 100);
	p[2] = (char)('0' + ms / 10 % 10);
	p[3] = (char)('0' + ms % 10);
	p[4] = 'Z';
	p[5] = '\0';
}

void log_emit(const char *level, const char *msg, json_t *fields)
{
	char ts[40];
	timestamp(ts, sizeof ts);
	json_t *line = json_object();
	if (!line) {
		json_decref(fields);
		return;
	}
	json_object_set_new(line, "ts", json_string(ts));
	json_object_set_new(line, "level", json_string(level));
	json_object_set_new(line, "msg", json_string(msg));
	if (fields)
		json_object_update(line, fields);
	json_decref(fields);
	/* Six significant digits: durations in seconds keep microseconds. */
	char *text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(line);
	if (!text)
		return;
	size_t n = strlen(text);
	text[n] = '\n'; /* overwrite the NUL: one write for the whole line */
	fwrite(text, 1, n + 1, stdout);
	fflush(stdout);
	free(text);
}

/* Append s as a JSON string: quotes and backslashes escaped, control
 * characters as \u00XX (other bytes are copied: callers pass ASCII from
 * log_printable or validated ids).  Returns the new end, never past lim. */
static char *put_string(char *p, const char *lim, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	if (p < lim)
		*p++ = '"';
	for (; s && *s && p + 6 < lim; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			p += 6;
		} else {
			*p++ = (char)c;
		}
	}
	if (p < lim)
		*p++ = '"';
	return p;
}

/* Append a literal / a number ("%lld"), without printf. */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_ll(char *p, long long v)
{
	char t[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';
	while (n > 0)
		*p++ = t[--n];
	return p;
}

void log_request(const log_request_line *l)
{
	char ts[40], line[2048];
	timestamp(ts, sizeof ts);
	/* Room: the strings are bounded (level, id <= 128, method, path
	 * <= 255, each escaped at most 6 bytes a character, and cut at lim),
	 * the numbers and member names take under 300 bytes. */
	const char *lim = line + sizeof line - 320;
	char *p = line;
	p = PUT_LIT(p, "{\"ts\":\"");
	size_t n = strlen(ts);
	memcpy(p, ts, n);
	p = PUT_LIT(p + n, "\",\"level\":");
	p = put_string(p, lim, l->level);
	p = PUT_LIT(p, ",\"msg\":\"request\",\"request_id\":");
	p = put_string(p, lim, l->request_id);
	p = PUT_LIT(p, ",\"method\":");
	p = put_string(p, lim, l->method);
	p = PUT_LIT(p, ",\"path\":");
	p = put_string(p, lim, l->path);
	p = PUT_LIT(p, ",\"status\":");
	p = put_ll(p, l->status);
	/* %.6g as log_emit's six significant digits; never NaN or inf. */
	p = PUT_LIT(p, ",\"duration_s\":");
	p += proto_real_g(l->duration_s >= 0 ? l->duration_s : 0.0, 6, p);
	p = PUT_LIT(p, ",\"bytes_in\":");
	p = put_ll(p, l->bytes_in);
	p = PUT_LIT(p, ",\"bytes_out\":");
	p = put_ll(p, l->bytes_out);
	const char *end = line + sizeof line;
	if (l->error) {
		p = PUT_LIT(p, ",\"error\":");
		p = put_string(p, end - 200, l->error);
	}
	if (l->rejected) {
		p = PUT_LIT(p, ",\"rejected\":");
		p = put_string(p, end - 100, l->rejected);
	}
	if (l->iterations > 0) {
		p = PUT_LIT(p, ",\"iterations\":");
		p = put_ll(p, l->iterations);
	}
	if (l->queries > 0) {
		p = PUT_LIT(p, ",\"queries\":");
		p = put_ll(p, l->queries);
	}
	p = PUT_LIT(p, "}\n");
	fwrite(line, 1, (size_t)(p - line), stdout);
	fflush(stdout);
}

char *log_printable(char *dst, size_t dstlen, const char *src)
{
	if (dstlen == 0)
		return dst;
	size_t i = 0;
	for (; src && src[i] && i + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[i] = '\0';
	if (src && src[i] && dstlen >= 4)
		memcpy(dst + dstlen - 4, "...", 4);
	return dst;
}
