/*
 * healthcheck.h — `clashd --healthcheck URL`: the probe a container runs
 * (Docker HEALTHCHECK, a Kubernetes exec probe) where there is no curl.
 *
 * One GET of URL (http://HOST:PORT/PATH or https://...; HOST may be
 * [IPv6]), answered within HEALTHCHECK_TIMEOUT_MS: status 2xx is healthy.
 * Over https the certificate is not verified (see healthcheck.c).
 */
#ifndef SERVER_HEALTHCHECK_H
#define SERVER_HEALTHCHECK_H

#define HEALTHCHECK_TIMEOUT_MS 5000

/* Probe `url`; a one-line verdict goes to `out` (stdout) or, on failure,
 * to stderr.  Returns the process exit status: 0 healthy, 1 not. */
int healthcheck_run(const char *url);

#endif
