/*
 * http_listen.c — the listener side of a graceful drain (see http_listen.h).
 *
 * The filter is classic BPF run by the kernel on each packet for the
 * listening socket (tcp_filter(), before the listener handles it), where
 * the packet data starts at the TCP header: byte 13 holds the flags, SYN
 * 0x02 and ACK 0x10.  A socket filter returns how many bytes to keep; 0
 * drops the packet.  Accepted sockets inherit the filter, harmlessly: an
 * established connection never receives a pure SYN.
 */
#include "http_listen.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#ifdef __linux__
#include <linux/filter.h>
#endif

int http_listen_refuse_new(int fd)
{
#if defined(__linux__) && defined(SO_ATTACH_FILTER)
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13),          /* A = TCP flags */
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),       /* SYN | ACK */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1), /* SYN alone? */
		BPF_STMT(BPF_RET | BPF_K, 0),                    /* drop */
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),          /* keep all */
	};
	struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]), code};
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0)
		return -errno;
	return 0;
#else
	(void)fd;
	return -ENOTSUP;
#endif
}

int http_listen_queued(int fd)
{
#if defined(__linux__) && defined(TCP_INFO)
	struct tcp_info info;
	socklen_t len = sizeof info;
	memset(&info, 0, sizeof info);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
	    info.tcpi_state != TCP_LISTEN)
		return -1;
	return (int)info.tcpi_unacked;
#else
	(void)fd;
	return -1;
#endif
}

int http_listen_accept(int fd, struct sockaddr_storage *addr, socklen_t *len)
{
	/* The listener may be a blocking socket: never wait on it here. */
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	for (;;) {
		*len = sizeof *addr;
		int c = accept4(fd, (struct sockaddr *)addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c >= 0)
			return c;
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		return -1;
	}
}
