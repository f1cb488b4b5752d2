/*
 * healthcheck.c — the --healthcheck probe (see healthcheck.h).
 *
 * A minimal HTTP/1.1 client: resolve, connect without blocking (poll for
 * the remaining time), send one GET with "Connection: close", read the
 * status line.  Every step shares one deadline, so a server that accepts
 * and then stalls fails the probe on time instead of hanging it.
 *
 * https:// goes through GnuTLS (which libmicrohttpd already links).  The
 * certificate is not verified: the probe asks "is this process answering",
 * usually over loopback with a self-signed or internal certificate, and
 * sends nothing secret.
 */
#include "healthcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for `events` on fd until the deadline: 1 ready, 0 timed out, -1 error. */
static int wait_for(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {fd, events, 0};
		int n = poll(&p, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -1 : n;
	}
}

static int fail(const char *url, const char *what)
{
	fprintf(stderr, "clashd --healthcheck %s: %s\n", url, what);
	return 1;
}

/* A connection, plain or TLS, with the probe's deadline. */
typedef struct stream {
	int fd;
	gnutls_session_t tls;
	gnutls_certificate_credentials_t cred;
	long long deadline;
} stream;

/* Returns NULL, or why the handshake failed. */
static const char *tls_start(stream *st, const char *host)
{
	if (gnutls_certificate_allocate_credentials(&st->cred) < 0 ||
	    gnutls_init(&st->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK) < 0 ||
	    gnutls_set_default_priority(st->tls) < 0 ||
	    gnutls_credentials_set(st->tls, GNUTLS_CRD_CERTIFICATE, st->cred) < 0)
		return "cannot set up TLS";
	/* SNI for names; an IP address is not sent (RFC 6066). */
	if (strspn(host, "0123456789.:abcdefABCDEF") != strlen(host) || !strpbrk(host, ".:"))
		gnutls_server_name_set(st->tls, GNUTLS_NAME_DNS, host, strlen(host));
	gnutls_transport_set_int(st->tls, st->fd);
	for (;;) {
		int rc = gnutls_handshake(st->tls);
		if (rc == GNUTLS_E_SUCCESS)
			return NULL;
		if (gnutls_error_is_fatal(rc))
			return gnutls_strerror(rc);
		short ev = gnutls_record_get_direction(st->tls) ? POLLOUT : POLLIN;
		if (wait_for(st->fd, ev, st->deadline) <= 0)
			return "TLS handshake timed out";
	}
}

static const char *stream_send(stream *st, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = st->tls ? gnutls_record_send(st->tls, b, n)
		                    : send(st->fd, b, n, MSG_NOSIGNAL);
		int again = st->tls ? (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)
		                    : (w < 0 && (errno == EAGAIN || errno == EINTR));
		if (again) {
			if (wait_for(st->fd, POLLOUT, st->deadline) <= 0)
				return "send timed out";
			continue;
		}
		if (w <= 0)
			return st->tls ? gnutls_strerror((int)w) : strerror(errno);
		b += w;
		n -= (size_t)w;
	}
	return NULL;
}

/* Bytes read, 0 at the end, -1 with *why set. */
static ssize_t stream_recv(stream *st, char *b, size_t n, const char **why)
{
	for (;;) {
		ssize_t r = st->tls ? gnutls_record_recv(st->tls, b, n) : recv(st->fd, b, n, 0);
		int again = st->tls ? (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
		                    : (r < 0 && (errno == EAGAIN || errno == EINTR));
		if (again) {
			/* GnuTLS may hold decrypted bytes the socket no longer shows. */
			if (st->tls && gnutls_record_check_pending(st->tls) > 0)
				continue;
			if (wait_for(st->fd, POLLIN, st->deadline) <= 0) {
				*why = "no answer in time";
				return -1;
			}
			continue;
		}
		if (st->tls && r == GNUTLS_E_PREMATURE_TERMINATION)
			return 0;
		if (r < 0) {
			*why = st->tls ? gnutls_strerror((int)r) : strerror(errno);
			return -1;
		}
		return r;
	}
}

static void stream_close(stream *st)
{
	if (st->tls)
		gnutls_deinit(st->tls);
	if (st->cred)
		gnutls_certificate_free_credentials(st->cred);
	close(st->fd);
}

int healthcheck_run(const char *url)
{
	char host[256], port[8] = "80", path[1024] = "/";
	const char *p;
	int tls = 0;
	if (strncmp(url, "http://", 7) == 0) {
		p = url + 7;
	} else if (strncmp(url, "https://", 8) == 0) {
		p = url + 8;
		tls = 1;
		strcpy(port, "443");
	} else {
		return fail(url, "expected http://HOST:PORT/PATH or https://...");
	}
	size_t hl;
	if (*p == '[') {
		const char *close = strchr(p, ']');
		if (!close)
			return fail(url, "unclosed [ in the host");
		hl = (size_t)(close - p - 1);
		if (hl == 0 || hl >= sizeof host)
			return fail(url, "bad host");
		memcpy(host, p + 1, hl);
		p = close + 1;
	} else {
		hl = strcspn(p, ":/");
		if (hl == 0 || hl >= sizeof host)
			return fail(url, "bad host");
		memcpy(host, p, hl);
		p += hl;
	}
	host[hl] = '\0';
	if (*p == ':') {
		size_t pl = strspn(p + 1, "0123456789");
		if (pl == 0 || pl >= sizeof port)
			return fail(url, "bad port");
		memcpy(port, p + 1, pl);
		port[pl] = '\0';
		p += 1 + pl;
	}
	if (*p == '/') {
		if (strlen(p) >= sizeof path || strpbrk(p, " \r\n"))
			return fail(url, "bad path");
		snprintf(path, sizeof path, "%s", p);
	} else if (*p) {
		return fail(url, "expected http://HOST:PORT/PATH");
	}

	long long deadline = now_ms() + HEALTHCHECK_TIMEOUT_MS;
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || !res)
		return fail(url, rc ? gai_strerror(rc) : "no address");
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(res);
		return fail(url, strerror(errno));
	}
	rc = connect(fd, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (rc != 0 && errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return fail(url, strerror(e));
	}
	if (rc != 0) {
		int err = 0;
		socklen_t el = sizeof err;
		if (wait_for(fd, POLLOUT, deadline) <= 0) {
			close(fd);
			return fail(url, "connect timed out");
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err) {
			close(fd);
			return fail(url, strerror(err));
		}
	}

	char req[1400];
	int n = snprintf(req, sizeof req,
	                 "GET %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: clashd-healthcheck\r\n"
	                 "Connection: close\r\n\r\n",
	                 path, strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
	                 port);
	stream st = {fd, NULL, NULL, deadline};
	const char *why = tls ? tls_start(&st, host) : NULL;
	if (!why)
		why = stream_send(&st, req, (size_t)n);
	char line[256];
	size_t got = 0;
	while (!why && got < sizeof line - 1 && !memchr(line, '\n', got)) {
		ssize_t r = stream_recv(&st, line + got, sizeof line - 1 - got, &why);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	stream_close(&st);
	if (why)
		return fail(url, why);
	line[got] = '\0';
	int status = 0;
	if (sscanf(line, "HTTP/1.%*d %d", &status) != 1)
		return fail(url,
		            got ? "not an HTTP answer" : "the connection closed without an answer");
	if (status < 200 || status > 299) {
		char what[64];
		snprintf(what, sizeof what, "status %d", status);
		return fail(url, what);
	}
	printf("clashd --healthcheck %s: status %d\n", url, status);
	return 0;
}
