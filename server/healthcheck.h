/*
 * healthcheck.h — `clashd --healthcheck URL`: the probe a container runs
 * (Docker HEALTHCHECK, a Kubernetes exec probe) where there is no curl.
 *
 * One GET of URL (http://HOST:PORT/PATH; HOST may be [IPv6]), answered
 * within HEALTHCHECK_TIMEOUT_MS: status 2xx is healthy.  Only plain HTTP:
 * for a TLS-only server, probe its /livez through the orchestrator's own
 * HTTPS probe instead.
 */
#ifndef SERVER_HEALTHCHECK_H
#define SERVER_HEALTHCHECK_H

#define HEALTHCHECK_TIMEOUT_MS 5000

/* Probe `url`; a one-line verdict goes to `out` (stdout) or, on failure,
 * to stderr.  Returns the process exit status: 0 healthy, 1 not. */
int healthcheck_run(const char *url);

#endif
