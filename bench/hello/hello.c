/*
 * hello.c — the baseline for `make bench-http`: clashd's threading design
 * with nothing else.  libmicrohttpd in external-epoll mode inside a libuv
 * loop (its epoll fd watched by a uv_poll; MHD_run and a uv_timer armed
 * from MHD_get_timeout after every event), each POST's body read, the
 * connection suspended, an empty job run on the uv_queue_work pool, the
 * connection resumed and a fixed body sent.  No parsing, logging, metrics
 * or limits: what is left is the cost of the HTTP and threading machinery
 * clashd is built on, so clashd's requests per second as a fraction of
 * hello's is what clashd's own work (decode, query, encode, log, metrics)
 * costs.
 *
 * usage: hello PORT THREADS [BODY-FILE]
 * Answers every POST 200 with the file's content (default {"hello":true})
 * as application/json; runs until SIGINT or SIGTERM.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>
#include <uv.h>

typedef struct app {
	uv_loop_t loop;
	struct MHD_Daemon *d;
	uv_poll_t poll;
	uv_timer_t timer;
	uv_signal_t sigint, sigterm;
	char *body;
	size_t len;
	int stopping;
} app;

typedef struct request {
	app *a;
	struct MHD_Connection *conn;
	uv_work_t work;
	int done; /* back from the pool: answer */
} request;

static void pump(app *a);

static void on_timer(uv_timer_t *t)
{
	pump(t->data);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
	(void)status;
	(void)events;
	pump(p->data);
}

static void pump(app *a)
{
	if (a->stopping)
		return;
	MHD_run(a->d);
	MHD_UNSIGNED_LONG_LONG ms;
	if (MHD_get_timeout(a->d, &ms) == MHD_YES)
		uv_timer_start(&a->timer, on_timer, ms > INT_MAX ? INT_MAX : ms, 0);
	else
		uv_timer_stop(&a->timer);
}

static void work_run(uv_work_t *w)
{
	(void)w; /* the work clashd would do */
}

static void work_done(uv_work_t *w, int status)
{
	request *r = w->data;
	(void)status;
	r->done = 1;
	MHD_resume_connection(r->conn);
	pump(r->a);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
	app *a = cls;
	request *r = *con_cls;
	(void)url;
	(void)method;
	(void)version;
	(void)data;
	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		r->a = a;
		r->conn = conn;
		*con_cls = r;
		return MHD_YES;
	}
	if (*size) {
		*size = 0; /* the body: dropped */
		return MHD_YES;
	}
	if (!r->done) {
		MHD_suspend_connection(conn);
		r->work.data = r;
		uv_queue_work(&a->loop, &r->work, work_run, work_done);
		return MHD_YES;
	}
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(a->len, a->body, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	enum MHD_Result ret = MHD_queue_response(conn, 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

static void on_signal(uv_signal_t *h, int signum)
{
	app *a = h->data;
	(void)signum;
	a->stopping = 1;
	uv_close((uv_handle_t *)&a->poll, NULL);
	uv_close((uv_handle_t *)&a->timer, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
	uv_close((uv_handle_t *)&a->sigterm, NULL);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			char *grown = realloc(buf, cap);
			if (!grown)
				break;
			buf = grown;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hello PORT THREADS [BODY-FILE]\n");
		return 2;
	}
	static app a;
	int port = atoi(argv[1]);
	setenv("UV_THREADPOOL_SIZE", argv[2], 1);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 3) {
		a.body = read_file(argv[3], &a.len);
		if (!a.body) {
			fprintf(stderr, "hello: cannot read %s\n", argv[3]);
			return 2;
		}
	} else {
		a.body = strdup("{\"hello\":true}");
		a.len = strlen(a.body);
	}
	uv_loop_init(&a.loop);
	struct sockaddr_in addr = {0};
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
	a.d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
	                       (uint16_t)port, NULL, NULL, on_request, &a,
	                       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
	                       MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1000,
	                       MHD_OPTION_NOTIFY_COMPLETED, on_completed, &a,
	                       MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1, MHD_OPTION_SOCK_ADDR,
	                       (struct sockaddr *)&addr, MHD_OPTION_END);
	if (!a.d) {
		fprintf(stderr, "hello: cannot listen on port %d\n", port);
		return 1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(a.d, MHD_DAEMON_INFO_EPOLL_FD);
	uv_poll_init(&a.loop, &a.poll, info->epoll_fd);
	uv_timer_init(&a.loop, &a.timer);
	uv_signal_init(&a.loop, &a.sigint);
	uv_signal_init(&a.loop, &a.sigterm);
	a.poll.data = a.timer.data = a.sigint.data = a.sigterm.data = &a;
	uv_poll_start(&a.poll, UV_READABLE, on_poll);
	uv_signal_start(&a.sigint, on_signal, SIGINT);
	uv_signal_start(&a.sigterm, on_signal, SIGTERM);
	printf("hello: listening on 127.0.0.1:%d, %s threads\n", port, argv[2]);
	fflush(stdout);
	pump(&a);
	uv_run(&a.loop, UV_RUN_DEFAULT);
	/* The pool has returned every job, so every connection is resumed;
	 * one run lets MHD take the resumptions in before it stops. */
	MHD_run(a.d);
	MHD_stop_daemon(a.d);
	uv_loop_close(&a.loop);
	free(a.body);
	return 0;
}
