/*
 * config.c — parse clashd's flags and environment into a server_config.
 *
 * Precedence is flag, then environment, then default, so a container can set
 * CLASHD_* once and an operator can still override one value on the command
 * line.  Every value is checked strictly (no trailing junk, no silent
 * clamping): a typo must stop the server at start-up with a message naming
 * the flag or variable, not run it with a value nobody asked for.  An empty
 * environment variable counts as unset (orchestrators often template empty
 * strings).
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#define DEFAULT_LISTEN "127.0.0.1:8080"

void config_usage(FILE *out)
{
	fprintf(out,
	        "usage: clashd [--listen HOST:PORT] [--threads N]\n"
	        "\n"
	        "Serve collision queries over HTTP (POST /v1/query; GET /livez, /readyz).\n"
	        "\n"
	        "  --listen HOST:PORT  address to listen on (env CLASHD_LISTEN,\n"
	        "                      default " DEFAULT_LISTEN "); [::1]:PORT for IPv6,\n"
	        "                      :PORT for every IPv4 interface, PORT 0 for any\n"
	        "                      free port (the start-up log line names it)\n"
	        "  --threads N         worker threads for decoding and queries, 1..%d\n"
	        "                      (env CLASHD_THREADS, default: usable cores)\n"
	        "  --help              show this text\n"
	        "\n"
	        "Logs are JSON lines on stdout.  SIGTERM or SIGINT drains: the listener\n"
	        "closes, /readyz answers 503, requests in flight finish, exit status 0.\n",
	        CONFIG_MAX_THREADS);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Strict unsigned decimal: digits only, no sign, no spaces, <= max. */
static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	if (*s == '\0')
		return -1;
	unsigned long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

/* HOST:PORT, [V6]:PORT or :PORT -> socket address.  Returns 0 or -1 with a
 * reason in `why`. */
static int parse_listen(const char *s, server_config *cfg, char *why, size_t whylen)
{
	char host[256];
	const char *port;

	if (strlen(s) >= sizeof cfg->listen) {
		snprintf(why, whylen, "too long");
		return -1;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':') {
			snprintf(why, whylen, "expected [IPV6]:PORT");
			return -1;
		}
		size_t n = (size_t)(close - s - 1);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		port = close + 2;
	} else {
		const char *colon = strrchr(s, ':');
		if (!colon) {
			snprintf(why, whylen, "expected HOST:PORT");
			return -1;
		}
		size_t n = (size_t)(colon - s);
		memcpy(host, s, n);
		host[n] = '\0';
		if (strchr(host, ':')) {
			snprintf(why, whylen, "write IPv6 addresses in brackets, [::1]:PORT");
			return -1;
		}
		port = colon + 1;
	}

	unsigned long portnum;
	if (parse_uint(port, 65535, &portnum) != 0) {
		snprintf(why, whylen, "port must be a number from 0 to 65535");
		return -1;
	}

	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (s[0] == '[')
		hints.ai_flags |= AI_NUMERICHOST;
	int rc = getaddrinfo(host[0] ? host : "0.0.0.0", NULL, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(why, whylen, "cannot resolve the host: %s",
		         rc ? gai_strerror(rc) : "no address");
		return -1;
	}
	if ((res->ai_family != AF_INET && res->ai_family != AF_INET6) ||
	    res->ai_addrlen > sizeof cfg->addr) {
		freeaddrinfo(res);
		snprintf(why, whylen, "the host is not an IP address");
		return -1;
	}
	memset(&cfg->addr, 0, sizeof cfg->addr);
	memcpy(&cfg->addr, res->ai_addr, res->ai_addrlen);
	cfg->addrlen = (socklen_t)res->ai_addrlen;
	freeaddrinfo(res);
	if (cfg->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&cfg->addr)->sin_port = htons((uint16_t)portnum);
	else
		((struct sockaddr_in6 *)&cfg->addr)->sin6_port = htons((uint16_t)portnum);
	snprintf(cfg->listen, sizeof cfg->listen, "%s", s);
	return 0;
}

/* The cgroup v2 CPU quota ("max 100000" or "QUOTA PERIOD"), rounded up to
 * whole cores; 0 when there is none.  uv_available_parallelism() in libuv
 * 1.44 looks only at the affinity mask, so a container limited to 2 CPUs on
 * a 64-core node would otherwise start 64 workers. */
static unsigned cgroup_cpu_quota(void)
{
	FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (!f)
		return 0;
	char quota[32];
	unsigned long long period = 0;
	int n = fscanf(f, "%31s %llu", quota, &period);
	fclose(f);
	if (n != 2 || period == 0 || strcmp(quota, "max") == 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long q = strtoull(quota, &end, 10);
	if (errno || *end || q == 0)
		return 0;
	unsigned long long cores = (q + period - 1) / period;
	return cores > CONFIG_MAX_THREADS ? CONFIG_MAX_THREADS : (unsigned)cores;
}

unsigned config_default_threads(void)
{
	unsigned n = uv_available_parallelism(); /* affinity mask, >= 1 */
	unsigned q = cgroup_cpu_quota();
	if (q && q < n)
		n = q;
	if (n < 1)
		n = 1;
	return n > CONFIG_MAX_THREADS ? CONFIG_MAX_THREADS : n;
}

/* The value of --name VALUE or --name=VALUE at argv[*i]; advances *i past a
 * separate value.  NULL when argv[*i] is not this flag; *missing is set when
 * it is but the value is absent. */
static const char *flag_value(const char *name, int argc, char **argv, int *i,
                              int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static const char *env_value(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

enum config_status config_load(server_config *cfg, int argc, char **argv,
                               char *err, size_t errlen)
{
	const char *listen = NULL, *threads = NULL;

	memset(cfg, 0, sizeof *cfg);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int missing = 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return CONFIG_HELP;
		if ((v = flag_value("--listen", argc, argv, &i, &missing)) != NULL) {
			listen = v;
		} else if ((v = flag_value("--threads", argc, argv, &i, &missing)) != NULL) {
			threads = v;
		} else if (missing) {
			set_err(err, errlen, "%s needs a value", argv[i]);
			return CONFIG_ERROR;
		} else {
			set_err(err, errlen, "unknown argument \"%s\"", argv[i]);
			return CONFIG_ERROR;
		}
	}

	const char *listen_name = "--listen", *threads_name = "--threads";
	cfg->listen_source = cfg->threads_source = "flag";
	if (!listen) {
		listen_name = "CLASHD_LISTEN";
		cfg->listen_source = "env";
		if (!(listen = env_value("CLASHD_LISTEN"))) {
			listen = DEFAULT_LISTEN;
			cfg->listen_source = "default";
		}
	}
	if (!threads) {
		threads_name = "CLASHD_THREADS";
		cfg->threads_source = "env";
		if (!(threads = env_value("CLASHD_THREADS")))
			cfg->threads_source = "default";
	}

	char why[160];
	if (parse_listen(listen, cfg, why, sizeof why) != 0) {
		set_err(err, errlen, "%s: bad address \"%s\": %s", listen_name, listen, why);
		return CONFIG_ERROR;
	}
	if (threads) {
		unsigned long n;
		if (parse_uint(threads, CONFIG_MAX_THREADS, &n) != 0 || n == 0) {
			set_err(err, errlen, "%s: expected a whole number from 1 to %d, got \"%s\"",
			        threads_name, CONFIG_MAX_THREADS, threads);
			return CONFIG_ERROR;
		}
		cfg->threads = (unsigned)n;
	} else {
		cfg->threads = config_default_threads();
	}
	return CONFIG_RUN;
}
