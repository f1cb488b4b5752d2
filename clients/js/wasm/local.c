/*
 * local.c — the exports of the WebAssembly build of proto/ and core/
 * (clients/js/local.js loads it): a Query body in, the reply clashd would
 * give out, through proto_query_reply_ex() itself, so the page's answer is
 * the server's by construction (one parser, one decoder, one encoder); and
 * POST /v1/shapes's upload, through proto_shape_put_reply(), into a shape
 * store of the page's own, so that {"ref": id} queries are answered here
 * against shapes prepared once.
 *
 * The context is clashd's defaults (PROTO_DEFAULT_LIMITS, the default
 * weld) with a store of the page's budget.  The module is single-threaded;
 * the reply of the last call is kept until the next one, for the page to
 * copy out.
 */
#include <stdlib.h>

#include "proto.h"
#include "store.h"

#define EXPORT(name) __attribute__((export_name(name)))

static proto_context ctx = {
	.limits = PROTO_DEFAULT_LIMITS,
	.weld = PROTO_DEFAULT_WELD,
};
static proto_reply last;

/* Once, before any other call: a store keeping at most `budget` bytes of
 * shapes.  0, or -1 when memory ran out. */
EXPORT("clashd_init") int clashd_init(size_t budget)
{
	proto_init();
	if (!ctx.store)
		ctx.store = proto_store_new(budget, 0);
	return ctx.store ? 0 : -1;
}

/* Memory for a request body the page writes in. */
EXPORT("clashd_alloc") void *clashd_alloc(size_t n)
{
	return malloc(n ? n : 1);
}

EXPORT("clashd_free") void clashd_free(void *p)
{
	free(p);
}

enum route { ROUTE_QUERY = 0, ROUTE_SHAPES = 1 };

/* Answer body[0 .. len) as POST /v1/query (route 0) or POST /v1/shapes
 * (route 1) would: the reply's status (200 or 201, or a problem's), or -1
 * when memory ran out or the route is unknown. */
EXPORT("clashd_answer") int clashd_answer(int route, const char *body, size_t len)
{
	proto_call call = {.ctx = &ctx};
	proto_reply_free(&last);
	int rc = route == ROUTE_QUERY    ? proto_query_reply_ex(body, len, &call, &last)
	         : route == ROUTE_SHAPES ? proto_shape_put_reply(body, len, &call, &last)
	                                 : -1;
	return rc == 0 ? last.status : -1;
}

/* The last reply's body (NUL-terminated) and its length in bytes. */
EXPORT("clashd_reply_body") const char *clashd_reply_body(void)
{
	return last.body;
}

EXPORT("clashd_reply_length") size_t clashd_reply_length(void)
{
	return last.length;
}
