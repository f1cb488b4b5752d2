/*
 * http_peer.c — the kernel's count of a connection's received bytes (see
 * http_peer.h).  glibc's <netinet/tcp.h> stops short of tcpi_bytes_received
 * and cannot be included with <linux/tcp.h>, which has it: this file
 * includes only the latter.
 */
#include "http_peer.h"

#include <stddef.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#ifdef __linux__
#include <linux/tcp.h>
#endif

long long http_peer_received(int fd)
{
#if defined(__linux__) && defined(TCP_INFO)
	struct tcp_info info;
	socklen_t len = sizeof info;
	memset(&info, 0, sizeof info);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
		return -1;
	return (long long)info.tcpi_bytes_received;
#else
	(void)fd;
	return -1;
#endif
}
