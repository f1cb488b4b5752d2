/*
 * config.h — clashd's run-time configuration: command-line flags with
 * environment fallbacks (flag, then environment, then default).
 *
 *   --listen HOST:PORT   CLASHD_LISTEN    default 127.0.0.1:8080
 *   --threads N          CLASHD_THREADS   default: the usable cores
 *   --help
 *
 * HOST is an IPv4 address, a name, or an IPv6 address in brackets
 * ([::1]:8080); an empty HOST (":8080") means every IPv4 interface.  PORT 0
 * lets the kernel pick a free port (the start-up log line names it).
 */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include <stdio.h>
#include <sys/socket.h>

/* libuv 1.44 refuses thread pools larger than this (MAX_THREADPOOL_SIZE). */
#define CONFIG_MAX_THREADS 1024

typedef struct server_config {
	char listen[256];               /* HOST:PORT as given */
	struct sockaddr_storage addr;   /* what it resolved to */
	socklen_t addrlen;
	unsigned threads;               /* worker threads, 1..CONFIG_MAX_THREADS */
	const char *listen_source;      /* "flag", "env" or "default" (static) */
	const char *threads_source;
} server_config;

enum config_status {
	CONFIG_RUN = 0,   /* *cfg is complete: serve */
	CONFIG_HELP = 1,  /* --help was asked for: print config_usage, exit 0 */
	CONFIG_ERROR = 2  /* err holds a one-line message: exit 2 */
};

/* Fill *cfg from argv and the environment.  Returns a config_status; on
 * CONFIG_ERROR `err` (errlen bytes) names the bad flag or variable and value. */
enum config_status config_load(server_config *cfg, int argc, char **argv,
                               char *err, size_t errlen);

/* The --help text. */
void config_usage(FILE *out);

/* The default worker count: the cores this process may run on (affinity
 * mask), lowered to a cgroup v2 CPU quota when one is set. */
unsigned config_default_threads(void);

#endif
