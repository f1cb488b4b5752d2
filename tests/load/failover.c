/*
 * failover.c — three clashd behind HAProxy under load; one is killed, one
 * drained; no client request may fail.
 *
 *   build/failover [--seconds S] [--haproxy-cfg FILE] [--dir DIR]
 *   (make failover; make test runs it for 20 s)
 *
 * Everything runs on loopback: three clashd processes on free ports, and
 * HAProxy (Debian's 2.6) with deploy/haproxy/haproxy.cfg itself — the file
 * compose uses — its addresses given through the environment variables that
 * file reads.  Four clients send queries through HAProxy at a bounded rate
 * (loadgen.h: each answer is compared byte for byte with the reply the
 * codec gives for that body, so a lost, mixed-up or truncated answer is
 * caught, not only an error status).  About half the requests name stored
 * shapes by ref and carry X-Clashd-Shape (their main shape's id), which
 * haproxy.cfg hashes on: each client uploads the shapes first, and on an
 * unknown-shape answer uploads what is missing and sends the request once
 * more (as clients/js does); the misses, re-uploads and the locality (the
 * requests by ref that found their shapes where they arrived) are
 * printed.  Before the load, with every replica up, a stickiness check
 * (docs/testing.md): boxes uploaded with the header must each be on
 * exactly one replica, over two replicas or more, and their queries by
 * ref through HAProxy must never miss.  During the load:
 *   at 30%  clashd-1 gets SIGKILL: queries in flight on it die with their
 *           connections, new connections to it are refused;
 *   at 55%  clashd-2 gets SIGTERM: it drains (listener closed, /readyz 503,
 *           Connection: close) and must exit 0;
 *   at 70%  clashd-1 is started again on its port and rejoins when HAProxy's
 *           checks see it ready.
 * The requirement: zero failed client requests — HAProxy retries the
 * queries that hit the dead or draining replica on another one (the
 * queries are pure functions of their bodies; see haproxy.cfg).  The
 * numbers are printed: requests and latency, and from HAProxy's stats
 * socket the requests per replica, retries and redispatches.  Every child
 * is killed and reaped on every way out (proc.h), and the whole run is
 * bounded by an alarm.
 *
 * The replicas may be containers (make image-test): CLASH_CLASHD is then
 * tests/deploy/podman-clashd.sh, which runs the image in the foreground,
 * its container named after CLASH_REPLICA (each replica's name, in its
 * environment), and CLASH_SIGNAL is the same script, called as
 * `CLASH_SIGNAL --signal SIG NAME` to signal the clashd inside (a SIGKILL
 * of `podman run` would leave its container running).  When every
 * replica reports a shared store (clashd_store_redis_up 1), the
 * stickiness check asks the opposite of each box: found by every replica
 * (HEAD reads it from Redis), still never unknown-shape by ref.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loadgen.h"
#include "proc.h"
#include "proto.h"
#include "store.h"

#define REPLICAS 3
#define NQUERIES 16
/* Stored shapes, named by ref in requests that carry the routing header. */
#define NSHAPES 6
#define NCONTAINS_REF 2
#define NREF (2 * NSHAPES + NCONTAINS_REF)
#define NREQS (NQUERIES + 2 + NREF)

typedef struct replica {
	char name[16];
	char log[512];
	int port;
	pid_t pid;
} replica;

static const char *clashd_bin;
static char workdir[256];

/* Start clashd on 127.0.0.1:port (0: any) and learn its port. */
static void start_clashd(replica *r, int port)
{
	char listen[64];
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	/* Behind HAProxy every request comes from its address: no
	 * per-client limits, as in deploy/compose. */
	const char *argv[] = {clashd_bin, "--listen",
	                      listen,     "--threads",
	                      "1",        "--drain-timeout",
	                      "5s",       "--max-connections-per-client",
	                      "0",        "--max-queue-per-client",
	                      "0",        NULL};
	char name[32];
	snprintf(name, sizeof name, "CLASH_REPLICA=%s", r->name);
	const char *env[] = {name, NULL};
	r->pid = proc_spawn(argv, env, r->log);
	/* Lines from an earlier run of the same replica are in the log too:
	 * proc_clashd_port looks for this port when it is known. */
	r->port = proc_clashd_port(r->log, port, r->name);
}

/* Send sig to a replica's clashd: the process started, or through
 * CLASH_SIGNAL (see the top). */
static void signal_replica(const replica *r, int sig)
{
	const char *via = getenv("CLASH_SIGNAL");
	if (!via) {
		kill(r->pid, sig);
		return;
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "%s --signal %s %s", via, sig == SIGKILL ? "KILL" : "TERM",
	         r->name);
	if (system(cmd) != 0)
		proc_fail("failover: %s failed", cmd);
}

/* "show stat" from HAProxy's stats socket, into buf.  0 or -1. */
static int show_stat(const char *sock, char *buf, size_t cap)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {0};
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	static const char cmd[] = "show stat\n";
	if (write(fd, cmd, sizeof cmd - 1) != (ssize_t)(sizeof cmd - 1)) {
		close(fd);
		return -1;
	}
	size_t n = 0;
	ssize_t k;
	while (n + 1 < cap && (k = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	close(fd);
	return n > 0 ? 0 : -1;
}

/* The field `col` of the row of proxy `px`, server `sv`, from a "show
 * stat" CSV; copied into out ("" when absent). */
static const char *stat_field(const char *csv, const char *px, const char *sv, const char *col,
                              char *out, size_t outlen)
{
	out[0] = '\0';
	if (strncmp(csv, "# ", 2) != 0)
		return out;
	/* Column index from the header. */
	int idx = -1, i = 0;
	const char *h = csv + 2;
	size_t hl = strcspn(h, "\n");
	for (const char *f = h; f < h + hl; i++) {
		size_t fl = strcspn(f, ",\n");
		if (fl == strlen(col) && strncmp(f, col, fl) == 0)
			idx = i;
		f += fl + 1;
	}
	if (idx < 0)
		return out;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "\n%s,%s,", px, sv);
	const char *row = strstr(csv, prefix);
	if (!row)
		return out;
	row++;
	for (i = 0; i < idx; i++) {
		row = strchr(row, ',');
		if (!row)
			return out;
		row++;
	}
	size_t fl = strcspn(row, ",\n");
	if (fl >= outlen)
		fl = outlen - 1;
	memcpy(out, row, fl);
	out[fl] = '\0';
	return out;
}

/* The backends of deploy/haproxy/haproxy.cfg: by least connections, and
 * hashed on X-Clashd-Shape; the same servers. */
#define BACKEND "clashd"
#define BACKEND_SHAPE "clashd-shape"

/* The stats when the load starts: the counters below count from there
 * (the stickiness check's requests are not the load's). */
static char csv_base[1 << 16];

static long stat_px(const char *csv, const char *px, const char *sv, const char *col)
{
	char v[64], v0[64];
	return atol(stat_field(csv, px, sv, col, v, sizeof v)) -
	       atol(stat_field(csv_base, px, sv, col, v0, sizeof v0));
}

/* A counter summed over both backends. */
static long stat_num(const char *csv, const char *sv, const char *col)
{
	return stat_px(csv, BACKEND, sv, col) + stat_px(csv, BACKEND_SHAPE, sv, col);
}

static double now_since(double t0)
{
	return load_now() - t0;
}

static void sleep_until(double t0, double at)
{
	double w = at - now_since(t0);
	if (w > 0)
		usleep((useconds_t)(w * 1e6));
}

/* Stickiness, before the load, all replicas up (docs/testing.md): boxes
 * uploaded through HAProxy with X-Clashd-Shape, each twice in a row (a
 * balancer that is not sticky puts the second copy elsewhere), must each be
 * held by exactly one replica (HEAD on each replica's own port), and be
 * spread over two replicas or more; then each one's query by ref, sent
 * STICKY_SENDS times in a row through HAProxy, must never be answered
 * unknown-shape, and no replica's store may count a miss meanwhile. */
#define STICKY_SHAPES 24
#define STICKY_UPLOADS 2
#define STICKY_SENDS 3

/* clashd_shape_store_misses_total from a replica's /metrics, or -1. */
static long store_misses(int port)
{
	static const char name[] = "\nclashd_shape_store_misses_total ";
	char *m = NULL;
	long v = -1;
	if (load_once(port, "GET", "/metrics", NULL, NULL, 0, &m, NULL) == 200 && strstr(m, name))
		v = atol(strstr(m, name) + strlen(name));
	free(m);
	return v;
}

/* How many replicas report a shared store that answers. */
static int redis_up(const replica *rep)
{
	int up = 0;
	for (int i = 0; i < REPLICAS; i++) {
		char *m = NULL;
		if (load_once(rep[i].port, "GET", "/metrics", NULL, NULL, 0, &m, NULL) == 200 &&
		    m && strstr(m, "\nclashd_store_redis_up 1\n"))
			up++;
		free(m);
	}
	return up;
}

/* Whether an answer is the unknown-shape problem. */
static int unknown_shape(int status, const char *body)
{
	return status == 422 && body && strstr(body, "\"urn:clashd:problem:unknown-shape\"");
}

/* What the stickiness check counted. */
typedef struct sticky_counts {
	int none, many, everywhere; /* boxes held by no replica, two or more, all */
	int used;                   /* replicas holding a box */
	int unknown;                /* queries by ref answered unknown-shape */
	long grew;                  /* store misses meanwhile */
	int odd;                    /* other wrong answers */
} sticky_counts;

/* 1 if the counts pass: sticky, or with a shared store (every replica finds
 * every box; a replica that had a box only in Redis counts a miss, and
 * still answers by ref), each fault printed. */
static int sticky_verdict(const sticky_counts *c, int shared)
{
	int ok = 1;
	if (shared && c->everywhere != STICKY_SHAPES) {
		fprintf(stderr,
		        "failover: FAILED: shared store: %d of %d shapes are not found by every "
		        "replica\n",
		        STICKY_SHAPES - c->everywhere, STICKY_SHAPES);
		ok = 0;
	}
	if (!shared && (c->none || c->many)) {
		fprintf(stderr,
		        "failover: FAILED: not sticky: of %d shapes uploaded with %s, %d are on "
		        "more than one replica and %d on none\n",
		        STICKY_SHAPES, LOAD_ROUTE_HEADER, c->many, c->none);
		ok = 0;
	}
	if (!shared && c->used < 2) {
		fprintf(stderr,
		        "failover: FAILED: every shape is on one replica: the stickiness check "
		        "tested nothing\n");
		ok = 0;
	}
	if (c->unknown || (!shared && c->grew)) {
		fprintf(stderr,
		        "failover: FAILED: not sticky: %d of %d queries by ref with %s were "
		        "answered unknown-shape; the replicas' store misses grew by %ld\n",
		        c->unknown, STICKY_SHAPES * STICKY_SENDS, LOAD_ROUTE_HEADER, c->grew);
		ok = 0;
	}
	if (c->odd) {
		fprintf(stderr, "failover: FAILED: %d wrong answers in the stickiness check\n",
		        c->odd);
		ok = 0;
	}
	return ok;
}

/* The check above; 1 if stickiness holds (shared: see sticky_verdict).
 * ctx: a store to learn the ids and the answers by ref. */
static int check_sticky(int port, const replica *rep, const proto_context *ctx, int shared)
{
	char ids[STICKY_SHAPES][80], body[256];
	proto_reply expect[STICKY_SHAPES];
	char *queries[STICKY_SHAPES];
	int odd = 0; /* answers neither expected nor a miss */
	double t0 = load_now();
	for (int k = 0; k < STICKY_SHAPES; k++) {
		snprintf(body, sizeof body, "{\"box\":{\"half_extents\":[%g,0.5,%g]}}",
		         0.5 + 0.05 * k, 0.25 + 0.01 * k);
		proto_call call = {.ctx = ctx};
		proto_reply up;
		const char *id;
		if (proto_shape_put_reply(body, strlen(body), &call, &up) != 0 ||
		    up.status != 201 || !(id = strstr(up.body, "\"sha256:")) ||
		    sscanf(id + 1, "%78[^\"]", ids[k]) != 1)
			proc_fail("failover: box %d does not store: %s", k, up.body ? up.body : "");
		proto_reply_free(&up);
		for (int u = 0; u < STICKY_UPLOADS; u++) {
			char *ans = NULL;
			int st = load_once(port, "POST", "/v1/shapes", ids[k], body, strlen(body),
			                   &ans, NULL);
			/* The id is the one the server answers: the same. */
			if ((st != 200 && st != 201) || !strstr(ans, ids[k])) {
				fprintf(stderr, "failover: upload of box %d: %d %.300s\n", k, st,
				        ans ? ans : "");
				odd++;
			}
			free(ans);
		}
		if (asprintf(&queries[k],
		             "{\"a\":{\"ref\":\"%s\"},\"b\":{\"vertices\":[[3,0,0]],"
		             "\"radius\":0.5}}",
		             ids[k]) < 0)
			proc_fail("failover: out of memory");
		call = (proto_call){.ctx = ctx};
		if (proto_query_reply_ex(queries[k], strlen(queries[k]), &call, &expect[k]) != 0 ||
		    expect[k].status != 200)
			proc_fail("failover: the query of box %d is not a good query", k);
	}
	/* Where each shape is, asked of each replica directly. */
	int held[STICKY_SHAPES] = {0}, per[REPLICAS] = {0}, none = 0, many = 0, everywhere = 0;
	int used = 0;
	char path[128];
	for (int k = 0; k < STICKY_SHAPES; k++) {
		snprintf(path, sizeof path, "/v1/shapes/%.79s", ids[k]);
		for (int i = 0; i < REPLICAS; i++) {
			int st = load_once(rep[i].port, "HEAD", path, NULL, NULL, 0, NULL, NULL);
			if (st == 200) {
				held[k]++;
				per[i]++;
			} else if (st != 404) {
				fprintf(stderr, "failover: HEAD %s on %s: %d\n", path, rep[i].name,
				        st);
				odd++;
			}
		}
		none += held[k] == 0;
		many += held[k] > 1;
		everywhere += held[k] == REPLICAS;
	}
	for (int i = 0; i < REPLICAS; i++)
		used += per[i] > 0;
	/* Each shape's query by ref, through HAProxy with its header. */
	long misses[REPLICAS];
	for (int i = 0; i < REPLICAS; i++)
		misses[i] = store_misses(rep[i].port);
	int unknown = 0;
	for (int k = 0; k < STICKY_SHAPES; k++) {
		for (int r = 0; r < STICKY_SENDS; r++) {
			char *ans = NULL;
			size_t len = 0;
			int st = load_once(port, "POST", "/v1/query", ids[k], queries[k],
			                   strlen(queries[k]), &ans, &len);
			if (unknown_shape(st, ans)) {
				unknown++;
			} else if (st != 200 || len != expect[k].length ||
			           memcmp(ans, expect[k].body, len) != 0) {
				fprintf(stderr, "failover: query of box %d: %d %.300s\n", k, st,
				        ans ? ans : "");
				odd++;
			}
			free(ans);
		}
		free(queries[k]);
		proto_reply_free(&expect[k]);
	}
	long grew = 0;
	char counts[128] = "", grown[128] = "";
	for (int i = 0; i < REPLICAS; i++) {
		long m = store_misses(rep[i].port);
		if (m < 0 || misses[i] < 0) {
			fprintf(stderr, "failover: no clashd_shape_store_misses_total from %s\n",
			        rep[i].name);
			odd++;
			m = misses[i];
		}
		grew += m - misses[i];
		snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%d",
		         i ? " / " : "", per[i]);
		snprintf(grown + strlen(grown), sizeof grown - strlen(grown), "%s+%ld",
		         i ? " / " : "", m - misses[i]);
	}
	printf("failover: sticky: %d boxes uploaded %d times each with %s, held by clashd-1 / 2 / "
	       "3: %s (%d on none, %d on more than one); %d queries by ref: %d unknown-shape, store "
	       "misses %s; %d other wrong answers; %.2f s\n",
	       STICKY_SHAPES, STICKY_UPLOADS, LOAD_ROUTE_HEADER, counts, none, many,
	       STICKY_SHAPES * STICKY_SENDS, unknown, grown, odd, now_since(t0));
	sticky_counts c = {none, many, everywhere, used, unknown, grew, odd};
	return sticky_verdict(&c, shared);
}

int main(int argc, char **argv)
{
	double seconds = 20;
	const char *cfg = "deploy/haproxy/haproxy.cfg";
	const char *dir = "build/failover.d";
	const char *haproxy = getenv("HAPROXY") ? getenv("HAPROXY") : "/usr/sbin/haproxy";
	clashd_bin = getenv("CLASH_CLASHD") ? getenv("CLASH_CLASHD") : "build/clashd";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--haproxy-cfg") == 0)
			cfg = argv[i + 1];
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else {
			fprintf(stderr,
			        "usage: failover [--seconds S] [--haproxy-cfg FILE] [--dir DIR]\n");
			return 2;
		}
	}
	if (seconds < 5 || seconds > 3600) {
		fprintf(stderr, "failover: --seconds from 5 to 3600\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	proc_guard((unsigned)seconds + 60);
	snprintf(workdir, sizeof workdir, "%s", dir);
	mkdir(workdir, 0755);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "rm -f %s/*.log %s/haproxy.sock", workdir, workdir);
	if (system(cmd) != 0)
		proc_fail("failover: cannot clean %s", workdir);

	replica rep[REPLICAS];
	for (int i = 0; i < REPLICAS; i++) {
		memset(&rep[i], 0, sizeof rep[i]);
		snprintf(rep[i].name, sizeof rep[i].name, "clashd-%d", i + 1);
		snprintf(rep[i].log, sizeof rep[i].log, "%s/clashd-%d.log", workdir, i + 1);
		start_clashd(&rep[i], 0);
	}

	/* HAProxy with the deploy file, addresses from the environment. */
	int port = proc_free_port();
	char env[REPLICAS + 3][1024];
	const char *envp[REPLICAS + 4];
	char sock[512], hlog[512];
	/* (HAProxy takes a path for a socket only when it starts with "/".) */
	char absdir[256];
	if (!realpath(workdir, absdir))
		proc_fail("failover: %s: %s", workdir, strerror(errno));
	snprintf(sock, sizeof sock, "%s/haproxy.sock", absdir);
	snprintf(hlog, sizeof hlog, "%s/haproxy.log", workdir);
	snprintf(env[0], sizeof env[0], "HAPROXY_BIND=127.0.0.1:%d", port);
	snprintf(env[1], sizeof env[1], "HAPROXY_STATS=%s", sock);
	/* No name is resolved here (the servers are addresses), but the
	 * resolvers section needs a nameserver: a closed loopback port. */
	snprintf(env[2], sizeof env[2], "HAPROXY_DNS=127.0.0.1:%d", proc_free_port());
	for (int i = 0; i < REPLICAS; i++)
		snprintf(env[3 + i], sizeof env[3 + i], "CLASHD_%d=127.0.0.1:%d", i + 1,
		         rep[i].port);
	for (int i = 0; i < REPLICAS + 3; i++)
		envp[i] = env[i];
	envp[REPLICAS + 3] = NULL;
	const char *hargv[] = {haproxy, "-f", cfg, "-db", NULL};
	pid_t hpid = proc_spawn(hargv, envp, hlog);

	/* Ready when every replica is UP. */
	static char csv[1 << 16];
	double t_wait = load_now();
	for (;;) {
		int up = 0;
		if (show_stat(sock, csv, sizeof csv) == 0)
			for (int i = 0; i < REPLICAS; i++) {
				char v[64];
				up += strcmp(stat_field(csv, BACKEND, rep[i].name, "status", v,
				                        sizeof v),
				             "UP") == 0;
			}
		if (up == REPLICAS)
			break;
		if (proc_wait(hpid, 0) != -1)
			proc_fail("failover: haproxy exited (see %s)", hlog);
		if (now_since(t_wait) > 15)
			proc_fail("failover: haproxy did not see the replicas up (see %s)", hlog);
		usleep(50000);
	}
	printf("failover: haproxy on 127.0.0.1:%d, replicas on ports %d %d %d\n", port, rep[0].port,
	       rep[1].port, rep[2].port);

	/* The queries: cubes at 16 distances (16 different answers, so a
	 * mixed-up reply shows), one ipm query and one containment query. */
	proto_init();
	load_request reqs[NREQS];
	proto_reply expect[NREQS];
	char *bodies[NREQS];
	for (int i = 0; i < NQUERIES + 2; i++) {
		const char *path = "/v1/query";
		double gap = 2 + 0.25 * i;
		if (i < NQUERIES) {
			if (asprintf(
				    &bodies[i],
				    "{\"a\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],"
				    "[0,1,1],[1,1,1]]},\"b\":{\"vertices\":[[%g,0,0],[%g,1,1]],\"radius\":0.5}}",
				    1 + gap, 2 + gap) < 0)
				proc_fail("failover: out of memory");
		} else if (i == NQUERIES) {
			bodies[i] = strdup(
				"{\"a\":{\"vertices\":[[0,0],[1,0],[0,1]]},\"b\":{\"vertices\":"
				"[[2,2],[3,2],[2,3]]},\"method\":\"ipm\"}");
		} else {
			path = "/v1/contains";
			bodies[i] = strdup(
				"{\"inner\":{\"vertices\":[[0.1,0.1,0.1]],\"radius\":0.05},"
				"\"outer\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}");
		}
		int rc = i <= NQUERIES
		                 ? proto_query_reply(bodies[i], strlen(bodies[i]), &expect[i])
		                 : proto_contains_reply(bodies[i], strlen(bodies[i]), &expect[i]);
		if (rc != 0 || expect[i].status != 200)
			proc_fail("failover: query %d is not a good query: %s", i,
			          expect[i].body ? expect[i].body : "");
		reqs[i] = (load_request){"POST",
		                         path,
		                         bodies[i],
		                         strlen(bodies[i]),
		                         200,
		                         expect[i].body,
		                         expect[i].length,
		                         NULL,
		                         0,
		                         NULL};
	}

	/* By ref: NSHAPES convex shapes of 40 points (ellipsoids of different
	 * sizes), stored here too to learn their ids and the answers by ref
	 * (the same code, so the same bytes as a replica's).  The routed
	 * requests name shape k as "a" (b inline, or b by ref: shape k + 1,
	 * moved away) or as a containment's "outer", and carry X-Clashd-Shape:
	 * shape k's id.  (Without that header, the upload after a miss and
	 * the request sent again may reach different replicas: by least
	 * connections, a restarted replica gets most new requests, and
	 * misses again.) */
	proto_store *store = proto_store_new((size_t)64 << 20, 0);
	if (!store)
		proc_fail("failover: out of memory");
	proto_context ctx = {.store = store};
	load_shape shapes[NSHAPES];
	char ids[NSHAPES][80];
	for (int k = 0; k < NSHAPES; k++) {
		char *b = malloc(40 * 3 * 24 + 32), *o = b;
		if (!b)
			proc_fail("failover: out of memory");
		o += sprintf(o, "{\"vertices\":[");
		for (int j = 0; j < 40; j++) {
			double t = 1 - 2 * (j + 0.5) / 40, r = sqrt(1 - t * t), ph = 2.399963 * j;
			o += sprintf(o, "%s[%.4f,%.4f,%.4f]", j ? "," : "",
			             (1 + 0.1 * k) * r * cos(ph), r * sin(ph), 0.8 * t);
		}
		sprintf(o, "]}");
		proto_call call = {.ctx = &ctx};
		proto_reply rep_up;
		if (proto_shape_put_reply(b, strlen(b), &call, &rep_up) != 0 ||
		    rep_up.status != 201)
			proc_fail("failover: shape %d does not store: %s", k,
			          rep_up.body ? rep_up.body : "");
		const char *id = strstr(rep_up.body, "\"sha256:");
		if (!id || sscanf(id + 1, "%78[^\"]", ids[k]) != 1)
			proc_fail("failover: no id in %s", rep_up.body);
		proto_reply_free(&rep_up);
		shapes[k] = (load_shape){ids[k], b, strlen(b)};
	}
	for (int i = NQUERIES + 2; i < NREQS; i++) {
		int j = i - (NQUERIES + 2), k, contains = 0, pair = 0;
		if (j < NSHAPES) { /* a by ref, b inline */
			k = j;
		} else if (j < 2 * NSHAPES) { /* both by ref */
			k = j - NSHAPES;
			pair = 1;
		} else {
			k = j - 2 * NSHAPES;
			contains = 1;
		}
		const char *route = ids[k];
		double gap = 2.5 + 0.25 * j;
		int rc;
		if (contains)
			rc = asprintf(&bodies[i],
			              "{\"inner\":{\"vertices\":[[0.1,0,0]],\"radius\":%g},"
			              "\"outer\":{\"ref\":\"%s\"}}",
			              0.1 + 0.05 * k, ids[k]);
		else if (pair)
			rc = asprintf(&bodies[i],
			              "{\"a\":{\"ref\":\"%s\"},\"b\":{\"ref\":\"%s\","
			              "\"pose\":{\"translation\":[%g,0.5,0]}}}",
			              ids[k], ids[(k + 1) % NSHAPES], gap + 1);
		else
			rc = asprintf(
				&bodies[i],
				"{\"a\":{\"ref\":\"%s\",\"pose\":{\"translation\":[0,0,0.5]}},"
				"\"b\":{\"vertices\":[[%g,0,0],[%g,1,1]],\"radius\":0.5}}",
				ids[k], 1 + gap, 2 + gap);
		if (rc < 0)
			proc_fail("failover: out of memory");
		proto_call call = {.ctx = &ctx};
		rc = contains ? proto_contains_reply_ex(bodies[i], strlen(bodies[i]), &call,
		                                        &expect[i])
		              : proto_query_reply_ex(bodies[i], strlen(bodies[i]), &call,
		                                     &expect[i]);
		if (rc != 0 || expect[i].status != 200)
			proc_fail("failover: query %d by ref is not a good query: %s", j,
			          expect[i].body ? expect[i].body : "");
		reqs[i] = (load_request){"POST",
		                         contains ? "/v1/contains" : "/v1/query",
		                         bodies[i],
		                         strlen(bodies[i]),
		                         200,
		                         expect[i].body,
		                         expect[i].length,
		                         &shapes[k],
		                         1 + pair,
		                         route};
		if (pair) {
			/* Its two shapes, adjacent in a list of their own. */
			static load_shape pairs[NSHAPES][2];
			pairs[k][0] = shapes[k];
			pairs[k][1] = shapes[(k + 1) % NSHAPES];
			reqs[i].shapes = pairs[k];
		}
	}

	int up = redis_up(rep);
	if (up != 0 && up != REPLICAS)
		proc_fail("failover: %d of %d replicas report a shared store that answers", up,
		          REPLICAS);
	if (up)
		printf("failover: every replica shares one store (clashd_store_redis_up 1)\n");
	int sticky = check_sticky(port, rep, &ctx, up == REPLICAS);
	if (show_stat(sock, csv_base, sizeof csv_base) != 0)
		proc_fail("failover: no stats from haproxy (see %s)", hlog);

	char llog[512];
	snprintf(llog, sizeof llog, "%s/failures.log", workdir);
	FILE *flog = fopen(llog, "w");
	load_config lc = {port, 4, 150, seconds, reqs, NREQS, flog, 0};
	double t0 = load_now();
	load_run *run = load_start(&lc);
	if (!run)
		proc_fail("failover: cannot start the clients");

	/* 30%: SIGKILL clashd-1. */
	sleep_until(t0, 0.30 * seconds);
	show_stat(sock, csv, sizeof csv);
	long before_kill = stat_num(csv, rep[0].name, "stot");
	signal_replica(&rep[0], SIGKILL);
	proc_wait(rep[0].pid, 5);
	printf("failover: t=%.1f s: SIGKILL %s (it had served %ld requests), %llu requests sent\n",
	       now_since(t0), rep[0].name, before_kill, (unsigned long long)load_sent(run));

	/* 55%: SIGTERM clashd-2, which drains and must exit 0. */
	sleep_until(t0, 0.55 * seconds);
	show_stat(sock, csv, sizeof csv);
	long before_term = stat_num(csv, rep[1].name, "stot");
	double t_term = now_since(t0);
	signal_replica(&rep[1], SIGTERM);
	int st = proc_wait(rep[1].pid, 10);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		load_stats ls;
		load_finish(run, 0, &ls);
		proc_fail("failover: %s did not exit 0 after SIGTERM (status %d; see %s)",
		          rep[1].name, st, rep[1].log);
	}
	printf("failover: t=%.1f s: SIGTERM %s (it had served %ld requests): drained, exit 0 "
	       "after %.2f s\n",
	       t_term, rep[1].name, before_term, now_since(t0) - t_term);

	/* 70%: clashd-1 again, on its port. */
	sleep_until(t0, 0.70 * seconds);
	start_clashd(&rep[0], rep[0].port);
	printf("failover: t=%.1f s: %s started again on port %d\n", now_since(t0), rep[0].name,
	       rep[0].port);

	load_stats ls;
	load_finish(run, 1, &ls);
	if (flog)
		fclose(flog);
	show_stat(sock, csv, sizeof csv);

	load_print(stdout, "failover: clients", &ls);
	for (int i = 0; i < REPLICAS; i++) {
		char v[64];
		printf("failover: haproxy: %s: %s, %ld requests (%ld 5xx answers, retried), "
		       "%ld connection errors, %ld retries, %ld redispatches\n",
		       rep[i].name, stat_field(csv, BACKEND, rep[i].name, "status", v, sizeof v),
		       stat_num(csv, rep[i].name, "stot"), stat_num(csv, rep[i].name, "hrsp_5xx"),
		       stat_num(csv, rep[i].name, "econ"), stat_num(csv, rep[i].name, "wretr"),
		       stat_num(csv, rep[i].name, "wredis"));
	}
	static const char *const backends[] = {BACKEND, BACKEND_SHAPE};
	for (int b = 0; b < 2; b++) {
		printf("failover: haproxy: backend %s: %ld requests (", backends[b],
		       stat_px(csv, backends[b], "BACKEND", "stot"));
		for (int i = 0; i < REPLICAS; i++)
			printf("%s%ld", i ? " / " : "",
			       stat_px(csv, backends[b], rep[i].name, "stot"));
		printf("), %ld retries, %ld redispatches, %ld answered 5xx to clients\n",
		       stat_px(csv, backends[b], "BACKEND", "wretr"),
		       stat_px(csv, backends[b], "BACKEND", "wredis"),
		       stat_px(csv, backends[b], "BACKEND", "hrsp_5xx"));
	}
	/* Locality: the requests by ref that found their shapes on the
	 * replica they reached. */
	printf("failover: by ref with %s: %llu shapes uploaded first, %llu requests, %llu misses "
	       "(%llu shapes uploaded again, each request sent again once): locality %.2f %%\n",
	       LOAD_ROUTE_HEADER, (unsigned long long)ls.uploads, (unsigned long long)ls.routed,
	       (unsigned long long)ls.routed_misses, (unsigned long long)ls.reuploads,
	       ls.routed ? 100.0 * (double)(ls.routed - ls.routed_misses) / (double)ls.routed
	                 : 0.0);

	int ok = sticky;
	if (ls.failed != 0) {
		fprintf(stderr, "failover: FAILED: %llu of %llu client requests failed (see %s)\n",
		        (unsigned long long)ls.failed, (unsigned long long)ls.sent, llog);
		ok = 0;
	}
	if (ls.routed == 0 || stat_px(csv, BACKEND_SHAPE, "BACKEND", "stot") <= 0) {
		fprintf(stderr, "failover: FAILED: no request went through the hashed backend\n");
		ok = 0;
	}
	if (before_kill <= 0 || before_term <= 0) {
		fprintf(stderr,
		        "failover: FAILED: a replica had no traffic before its failure "
		        "(%ld, %ld): the test tested nothing\n",
		        before_kill, before_term);
		ok = 0;
	}
	if (proc_wait(hpid, 0) != -1) {
		fprintf(stderr, "failover: FAILED: haproxy exited (see %s)\n", hlog);
		ok = 0;
	}
	/* The survivors drain cleanly too. */
	for (int i = 0; i < REPLICAS; i++) {
		if (i == 1)
			continue;
		signal_replica(&rep[i], SIGTERM);
		st = proc_wait(rep[i].pid, 10);
		if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "failover: FAILED: %s did not exit 0 after SIGTERM\n",
			        rep[i].name);
			ok = 0;
		}
	}
	proc_kill_all();
	for (int i = 0; i < NREQS; i++) {
		free(bodies[i]);
		proto_reply_free(&expect[i]);
	}
	for (int k = 0; k < NSHAPES; k++)
		free((char *)shapes[k].body);
	proto_store_free(store);
	if (!ok)
		return 1;
	printf("failover: passed: %llu client requests, 0 failed, through a SIGKILL and a drain\n",
	       (unsigned long long)ls.sent);
	return 0;
}
