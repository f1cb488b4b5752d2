/*
 * log.c — JSON-lines logging on stdout (see log.h).
 *
 * The line is built as a jansson object and dumped compactly, so field values
 * are always escaped correctly; insertion order is kept (jansson >= 2.8), so
 * ts, level and msg come first and a human can still scan the log.
 */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
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
