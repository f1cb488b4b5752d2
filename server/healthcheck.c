/*
 * healthcheck.c — the --healthcheck probe (see healthcheck.h).
 *
 * A minimal HTTP/1.1 client: resolve, connect without blocking (poll for
 * the remaining time), send one GET with "Connection: close", read the
 * status line.  Every step shares one deadline, so a server that accepts
 * and then stalls fails the probe on time instead of hanging it.
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

int healthcheck_run(const char *url)
{
	char host[256], port[8] = "80", path[1024] = "/";
	const char *p;
	if (strncmp(url, "http://", 7) != 0)
		return fail(url, strncmp(url, "https://", 8) == 0
		                     ? "https is not supported: probe a plain-HTTP address"
		                     : "expected http://HOST:PORT/PATH");
	p = url + 7;
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
	for (int sent = 0; sent < n;) {
		ssize_t w = send(fd, req + sent, (size_t)(n - sent), MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_for(fd, POLLOUT, deadline) <= 0) {
				close(fd);
				return fail(url, "send timed out");
			}
			continue;
		}
		if (w <= 0) {
			int e = errno;
			close(fd);
			return fail(url, strerror(e));
		}
		sent += (int)w;
	}

	char line[256];
	size_t got = 0;
	while (got < sizeof line - 1 && !memchr(line, '\n', got)) {
		ssize_t r = recv(fd, line + got, sizeof line - 1 - got, 0);
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_for(fd, POLLIN, deadline) <= 0) {
				close(fd);
				return fail(url, "no answer in time");
			}
			continue;
		}
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	line[got] = '\0';
	int status = 0;
	if (sscanf(line, "HTTP/1.%*d %d", &status) != 1)
		return fail(url, got ? "not an HTTP answer" : "the connection closed without an answer");
	if (status < 200 || status > 299) {
		char what[64];
		snprintf(what, sizeof what, "status %d", status);
		return fail(url, what);
	}
	printf("clashd --healthcheck %s: status %d\n", url, status);
	return 0;
}
