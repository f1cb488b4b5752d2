/*
 * log.c — JSON-lines logging on stdout (see log.h).
 *
 * Lines are written as JSON text here, with json_write.h's pieces: the bytes
 * json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(6)) gave when jansson
 * built them, in the order given (ts, level and msg first, so a human can
 * still scan the log).  A line is sized before it is written, on the stack
 * unless it is long (the start-up line).  The per-request line is written
 * the same way without a field list, and without printf (%.6g and the
 * timestamp by hand: printf and strftime were half of the line's cost).
 *
 * Logging never blocks serving: after log_start a line is copied into a
 * ring of RING_BYTES under a mutex and one writer thread alone write(2)s
 * the ring to fd 1, GATHER_US after the first line it finds and then
 * every GATHER_US while lines keep coming (under a steady stream one
 * wake-up per GATHER_US and none from the producers, not a context switch
 * per request).  When stdout is stuck the ring fills, a line that does not
 * fit is dropped and counted (metric clashd_log_lines_dropped_total), and
 * once there is room again a "log lines dropped" line says how many.  fd 1
 * is not made O_NONBLOCK (a file description shared with other
 * processes).  At exit the writer gets EXIT_WAIT_MS to empty the ring.
 */
#include "log.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_write.h"

#define RING_BYTES ((size_t)1 << 20)
#define EXIT_WAIT_MS 2000
#define GATHER_US 1000

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

static struct {
	pthread_mutex_t mu;
	pthread_cond_t more;           /* to the writer: bytes in the ring, or stop */
	pthread_cond_t done;           /* from the writer: it has emptied the ring and ended */
	char *ring;                    /* NULL until log_start: lines are written directly */
	size_t head, len;              /* the buffered bytes: ring[head], wrapping */
	unsigned long long unreported; /* dropped since the last "dropped" line */
	int stopping;
} g = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .more = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER};

static atomic_ullong dropped;

unsigned long long log_lines_dropped(void)
{
	return atomic_load_explicit(&dropped, memory_order_relaxed);
}

/* Write n bytes to fd 1; what cannot be written (an error other than
 * EINTR or EAGAIN, e.g. EPIPE) is thrown away and its lines counted as
 * dropped.  Returns how many bytes are done with (> 0 when n > 0). */
static size_t write_out(const char *p, size_t n)
{
	for (;;) {
		ssize_t w = write(STDOUT_FILENO, p, n);
		if (w > 0)
			return (size_t)w;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* Someone else made the description non-blocking. */
			struct pollfd pfd = {STDOUT_FILENO, POLLOUT, 0};
			poll(&pfd, 1, 1000);
			continue;
		}
		unsigned long long lines = 0;
		for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + n - q))); q++)
			lines++;
		atomic_fetch_add_explicit(&dropped, lines, memory_order_relaxed);
		return n;
	}
}

static void write_all(const char *p, size_t n)
{
	while (n > 0) {
		size_t w = write_out(p, n);
		p += w;
		n -= w;
	}
}

/* Copy n bytes into the ring after what is buffered (the caller checked
 * the room and holds the lock). */
static void ring_put(const char *p, size_t n)
{
	size_t tail = (g.head + g.len) % RING_BYTES;
	size_t first = n < RING_BYTES - tail ? n : RING_BYTES - tail;
	memcpy(g.ring + tail, p, first);
	memcpy(g.ring, p + first, n - first);
	g.len += n;
}

/* After drops: a line saying how many, if there is room for it and `then`
 * more bytes (the lock held). */
static void put_note(size_t then)
{
	char ts[40], note[160];
	timestamp(ts, sizeof ts);
	int n = snprintf(note, sizeof note,
	                 "{\"ts\":\"%s\",\"level\":\"warn\",\"msg\":\"log lines dropped\","
	                 "\"dropped\":%llu}\n",
	                 ts, g.unreported);
	if (n > 0 && (size_t)n < sizeof note && g.len + (size_t)n + then <= RING_BYTES) {
		ring_put(note, (size_t)n);
		g.unreported = 0;
	}
}

static void *writer_main(void *arg)
{
	(void)arg;
	int streaming = 0; /* the last GATHER_US brought lines */
	pthread_mutex_lock(&g.mu);
	for (;;) {
		while (g.len == 0 && !g.stopping && !streaming)
			pthread_cond_wait(&g.more, &g.mu);
		if (g.len == 0 && g.stopping) { /* later lines are written directly */
			free(g.ring);
			g.ring = NULL;
			pthread_cond_broadcast(&g.done);
			break;
		}
		/* A write every GATHER_US while lines keep coming: the writer
		 * blocks on `more` again (where a producer's signal wakes it)
		 * only after a GATHER_US that brought none, so under a steady
		 * stream it wakes from this sleep alone. */
		if (!g.stopping) {
			pthread_mutex_unlock(&g.mu);
			struct timespec gather = {0, GATHER_US * 1000L};
			nanosleep(&gather, NULL);
			pthread_mutex_lock(&g.mu);
		}
		streaming = g.len > 0;
		/* The ring's end, then its start; producers only append after
		 * the bytes being written, so they can be written without the
		 * lock. */
		for (int part = 0; part < 2 && g.len > 0; part++) {
			const char *p = g.ring + g.head;
			size_t n = g.len < RING_BYTES - g.head ? g.len : RING_BYTES - g.head;
			pthread_mutex_unlock(&g.mu);
			size_t w = write_out(p, n);
			pthread_mutex_lock(&g.mu);
			g.head = (g.head + w) % RING_BYTES;
			g.len -= w;
			if (w < n)
				break;
		}
		if (g.unreported)
			put_note(0);
	}
	pthread_mutex_unlock(&g.mu);
	return NULL;
}

/* Hand one whole line (ending in '\n') to the writer, or drop it. */
static void emit(const char *line, size_t n)
{
	pthread_mutex_lock(&g.mu);
	if (!g.ring) { /* before log_start, or the writer has ended */
		write_all(line, n);
		pthread_mutex_unlock(&g.mu);
		return;
	}
	if (g.unreported)
		put_note(n);
	if (g.unreported || g.len + n > RING_BYTES) {
		g.unreported++;
		atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
	} else {
		ring_put(line, n);
	}
	if (g.len)
		pthread_cond_signal(&g.more);
	pthread_mutex_unlock(&g.mu);
}

/* Let the writer empty the ring and end, waiting for it up to ms (if
 * stdout is stuck, it is left in its write). */
static void log_stop(int ms)
{
	pthread_mutex_lock(&g.mu);
	g.stopping = 1;
	pthread_cond_signal(&g.more);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	int rc = 0;
	while (g.ring && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&g.done, &g.mu, &until);
	pthread_mutex_unlock(&g.mu);
}

static void log_stop_at_exit(void)
{
	log_stop(EXIT_WAIT_MS);
}

int log_start(void)
{
	char *ring = malloc(RING_BYTES);
	if (!ring)
		return -1;
	/* The writer takes no signal: they are the loop's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_mutex_lock(&g.mu);
	g.ring = ring;
	g.stopping = 0;
	pthread_t writer;
	int rc = pthread_create(&writer, NULL, writer_main, NULL);
	if (rc == 0)
		pthread_detach(writer); /* log_stop waits for its end, bounded */
	else
		g.ring = NULL;
	pthread_mutex_unlock(&g.mu);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		free(ring);
		return -1;
	}
	atexit(log_stop_at_exit);
	return 0;
}

/* ---- JSON text ----------------------------------------------------------- */

/* Room for put_string to write s whole: at most 6 bytes a byte, the quotes
 * and the margin it keeps before lim. */
static size_t string_room(const char *s)
{
	return PROTO_ESCAPE_WIDEST * (s ? strlen(s) : 0) + PROTO_ESCAPE_MARGIN;
}

/* Append s (NULL: empty) as a JSON string (json_write.h), any byte that is
 * not UTF-8 as '?'.  Cut short near lim: started 2 bytes or more before lim
 * it ends before lim, else it is just "".  Returns the new end. */
static char *put_string(char *p, const char *lim, const char *s)
{
	*p++ = '"';
	size_t used;
	p += proto_string_escape(p, lim > p ? (size_t)(lim - p) : 0, s, s ? strlen(s) : 0, "?",
	                         &used);
	*p++ = '"';
	return p;
}

/* Append a literal / a number ("%lld"). */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_ll(char *p, long long v)
{
	return p + proto_int_text(v, p);
}

/* A real as jansson writes it with JSON_REAL_PRECISION(6); null when not
 * finite (jansson holds no such real). */
static char *put_real(char *p, double x)
{
	return isfinite(x) ? p + proto_real_json(x, 6, p) : PUT_LIT(p, "null");
}

/* {"ts":"...","level":...,"msg":... : HEAD_ROOM bytes and the two
 * strings' room at most. */
#define HEAD_ROOM 64
static char *put_head(char *p, const char *lim, const char *level, const char *msg)
{
	char ts[40];
	timestamp(ts, sizeof ts);
	p = PUT_LIT(p, "{\"ts\":\"");
	size_t n = strlen(ts);
	memcpy(p, ts, n);
	p = PUT_LIT(p + n, "\",\"level\":");
	p = put_string(p, lim, level);
	p = PUT_LIT(p, ",\"msg\":");
	return put_string(p, lim, msg);
}

/* Bytes put_field may write. */
static size_t field_room(const log_field *f)
{
	size_t n = string_room(f->key) + 2;
	switch (f->kind) {
	case LOG_KIND_STR: return n + string_room(f->s);
	case LOG_KIND_STRV:
		n += 2;
		for (size_t i = 0; i < f->n; i++)
			n += string_room(f->strv[i]) + 1;
		return n;
	default: return n + 32; /* a number or a literal */
	}
}

static char *put_field(char *p, const char *lim, const log_field *f)
{
	*p++ = ',';
	p = put_string(p, lim, f->key);
	*p++ = ':';
	switch (f->kind) {
	case LOG_KIND_STR: return f->s ? put_string(p, lim, f->s) : PUT_LIT(p, "null");
	case LOG_KIND_INT: return put_ll(p, f->i);
	case LOG_KIND_REAL: return put_real(p, f->d);
	case LOG_KIND_BOOL: return f->i ? PUT_LIT(p, "true") : PUT_LIT(p, "false");
	case LOG_KIND_NULL: break;
	case LOG_KIND_STRV:
		*p++ = '[';
		for (size_t i = 0; i < f->n; i++) {
			if (i)
				*p++ = ',';
			p = put_string(p, lim, f->strv[i]);
		}
		*p++ = ']';
		return p;
	}
	return PUT_LIT(p, "null");
}

void log_emit(const char *level, const char *msg, const log_field *fields, size_t n)
{
	size_t room = HEAD_ROOM + string_room(level) + string_room(msg);
	for (size_t i = 0; i < n; i++)
		room += field_room(&fields[i]);
	char stack[2048];
	char *line = room <= sizeof stack ? stack : malloc(room);
	if (!line)
		return;
	const char *lim = line + room;
	char *p = put_head(line, lim, level, msg);
	for (size_t i = 0; i < n; i++)
		p = put_field(p, lim, &fields[i]);
	p = PUT_LIT(p, "}\n");
	emit(line, (size_t)(p - line));
	if (line != stack)
		free(line);
}

void log_request(const log_request_line *l)
{
	char line[2048];
	/* Room: the strings are bounded (level, id <= 128, method, path
	 * <= 255, each escaped at most 6 bytes a character, and cut at lim),
	 * the numbers and member names take under 300 bytes. */
	const char *lim = line + sizeof line - 320;
	char *p = put_head(line, lim, l->level, "request");
	p = PUT_LIT(p, ",\"request_id\":");
	p = put_string(p, lim, l->request_id);
	p = PUT_LIT(p, ",\"method\":");
	p = put_string(p, lim, l->method);
	p = PUT_LIT(p, ",\"path\":");
	p = put_string(p, lim, l->path);
	p = PUT_LIT(p, ",\"status\":");
	p = put_ll(p, l->status);
	/* %.6g: six significant digits keep microseconds; never NaN or inf. */
	p = PUT_LIT(p, ",\"duration_s\":");
	double duration = l->duration_s >= 0 && isfinite(l->duration_s) ? l->duration_s : 0.0;
	p += proto_real_g(duration, 6, p);
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
	emit(line, (size_t)(p - line));
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
