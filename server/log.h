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

#include <jansson.h>

/* Start the writer thread (once, before any other thread logs); its
 * buffered lines are written at exit, with a bounded wait.  Until then lines
 * are written directly.  0, or -1 when out of memory or threads. */
int log_start(void);

/* Lines dropped so far: the buffer was full, or stdout failed. */
unsigned long long log_lines_dropped(void);

/* Write one line.  `fields` (may be NULL) is an object whose members follow
 * ts/level/msg; the reference is stolen.  Failures to allocate or to write
 * are ignored: logging never stops the server. */
void log_emit(const char *level, const char *msg, json_t *fields);

/* The per-request line, written straight as text (the hot path: no jansson
 * objects; `error`, `rejected` may be NULL, `iterations` and `queries` are
 * left out when 0 or less).  The same fields and order as log_emit would
 * give them. */
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
 * can go into JSON strings (jansson rejects invalid UTF-8) and messages
 * without surprises.  Returns dst. */
char *log_printable(char *dst, size_t dstlen, const char *src);

#endif
