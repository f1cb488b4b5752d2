/*
 * http_peer.h — what the kernel knows of a connection's peer.
 *
 * Connection pressure (http_loop.c) closes first the connections whose
 * client has sent nothing at all since the accept; libmicrohttpd reads
 * whatever arrives into its own buffers and does not say how much, so the
 * count comes from the kernel (Linux 4.1+: TCP_INFO's tcpi_bytes_received).
 */
#ifndef SERVER_HTTP_PEER_H
#define SERVER_HTTP_PEER_H

/* Bytes received on connected TCP socket fd since it was established; -1
 * when unknown (not Linux, an older kernel, not a TCP socket). */
long long http_peer_received(int fd);

#endif
