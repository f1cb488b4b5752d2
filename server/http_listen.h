/*
 * http_listen.h — closing a listening socket without resetting anyone.
 *
 * Closing a listener resets every connection the kernel has completed but
 * the server has not yet accepted, and a client that connects in the
 * instant before the close sees its connect() succeed and then a reset: a
 * lost request.  The remedy, in order:
 *   1. http_listen_refuse_new(): a socket filter on the listener drops
 *      incoming SYNs (pure SYN: no ACK), so no new handshake starts, while
 *      handshakes already under way complete (their ACKs pass);
 *   2. wait a round trip or so (HTTP_DRAIN_HANDSHAKE_MS) for those;
 *   3. once the accept queue is empty (http_listen_queued: the HTTP library
 *      takes them in as its connection slots free up), accept whatever
 *      raced in (the caller hands each socket to its HTTP library), then
 *      close.
 * A client whose SYN was dropped retransmits it (after 1 s on Linux), finds
 * no listener, and gets "connection refused": refused at connect, never
 * reset after it.  Without the filter (not Linux, or refused), step 1 is
 * skipped and a connect in the last instant can still be reset.
 */
#ifndef SERVER_HTTP_LISTEN_H
#define SERVER_HTTP_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/* Attach the SYN-dropping filter to listening socket fd.  Returns 0, or a
 * negative errno (then nothing changed). */
int http_listen_refuse_new(int fd);

/* How many connections the kernel has completed on listening socket fd and
 * nobody has accepted yet (Linux: TCP_INFO's tcpi_unacked on a listener);
 * -1 when unknown.  While the HTTP library is at its connection limit they
 * wait there; the drain keeps the listener until they are taken in. */
int http_listen_queued(int fd);

/* Accept one queued connection without blocking: its socket (non-blocking,
 * close-on-exec) and address, or -1 when none is left (or on error). */
int http_listen_accept(int fd, struct sockaddr_storage *addr, socklen_t *len);

#endif
