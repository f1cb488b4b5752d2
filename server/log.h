/*
 * log.h — clashd's log: one JSON object per line on stdout.
 *
 * Every line starts {"ts":"2026-11-22T10:00:00.123Z","level":...,"msg":...}
 * followed by the caller's fields.  After log_start a line goes to a bounded
 * buffer that a writer thread empties onto stdout at once (a reader on a
 * pipe sees it without waiting for a buffer to fill); a caller never waits
 * for stdout, and a line that finds the buffer full is dropped and counted.
 * Any thread may log.
 */
#ifndef SERVER_LOG_H
#define SERVER_LOG_H

#include <stddef.h>

/* Start the writer thread (once, before any other thread logs); its
 * buffered lines are written at exit, with a bounded wait.  Until then lines
 * are written directly.  0, or -1 when out of memory or threads. */
int log_start(void);

/* Lines dropped so far: the buffer was full, or stdout failed. */
unsigned long long log_lines_dropped(void);

/*
 * A line's fields: a typed list, written in order after ts/level/msg.
 * Build them with the macros; LOG_STR of NULL writes null, LOG_STRV n
 * strings as an array, LOG_REAL six significant digits (as jansson's
 * JSON_REAL_PRECISION(6) would; not finite: null).  Strings are escaped
 * here; bytes that are not UTF-8 become '?'.
 */
enum log_kind {
	LOG_KIND_STR,
	LOG_KIND_INT,
	LOG_KIND_REAL,
	LOG_KIND_BOOL,
	LOG_KIND_NULL,
	LOG_KIND_STRV
};
typedef struct log_field {
	const char *key;
	enum log_kind kind;
	const char *s;           /* STR */
	long long i;             /* INT, BOOL (0 or 1) */
	double d;                /* REAL */
	const char *const *strv; /* STRV: n strings */
	size_t n;
} log_field;

#define LOG_STR(k, v) ((log_field){.key = (k), .kind = LOG_KIND_STR, .s = (v)})
#define LOG_INT(k, v) ((log_field){.key = (k), .kind = LOG_KIND_INT, .i = (long long)(v)})
#define LOG_REAL(k, v) ((log_field){.key = (k), .kind = LOG_KIND_REAL, .d = (v)})
#define LOG_BOOL(k, v) ((log_field){.key = (k), .kind = LOG_KIND_BOOL, .i = !!(v)})
#define LOG_NULL(k) ((log_field){.key = (k), .kind = LOG_KIND_NULL})
#define LOG_STRV(k, v, count) \
	((log_field){.key = (k), .kind = LOG_KIND_STRV, .strv = (v), .n = (count)})

/* Write one line: ts, level, msg, then the n fields.  Failures to allocate
 * or to write are ignored: logging never stops the server. */
void log_emit(const char *level, const char *msg, const log_field *fields, size_t n);

/* log_emit with the fields listed in place:
 * LOG_EMIT("info", "stopped", LOG_INT("connections_dropped", n)). */
#define LOG_EMIT(level, msg, ...)                                  \
	log_emit((level), (msg), (const log_field[]){__VA_ARGS__}, \
	         sizeof((const log_field[]){__VA_ARGS__}) / sizeof(log_field))

/* The per-request line, without building a field list (the hot path:
 * `error`, `rejected` may be NULL, `iterations` and `queries` are left out
 * when 0 or less; duration_s is written as printf's %.6g). */
typedef struct log_request_line {
	const char *level;
	const char *request_id, *method, *path;
	int status;
	double duration_s;
	long long bytes_in, bytes_out;
	const char *error, *rejected;
	long long iterations, queries;
} log_request_line;
void log_request(const log_request_line *l);

/* Copy untrusted text (a path, a header) into dst as printable ASCII, every
 * other byte as '?', cut to dstlen - 1 bytes with a "..." mark, so that it
 * can go into log lines and messages without surprises.  Returns dst. */
char *log_printable(char *dst, size_t dstlen, const char *src);

#endif
