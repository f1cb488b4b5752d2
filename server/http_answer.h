/*
 * http_answer.h — queue a request's answer (loop thread).  Each returns
 * what libmicrohttpd's handler returns; MHD_NO closes the connection.
 */
#ifndef SERVER_HTTP_ANSWER_H
#define SERVER_HTTP_ANSWER_H

#include "http_internal.h"

/* Count a refusal in the metrics and the log line. */
void http_answer_reject(http_request *r, enum http_reject why);

/* Queue now: a static body (copied); a reply (its body passes to MHD, *p
 * is left empty); a problem; the fixed 500 of out of memory. */
enum MHD_Result http_answer_now(http_request *r, unsigned status, const char *type,
                                const char *body, size_t len);
enum MHD_Result http_answer_now_reply(http_request *r, proto_reply *p);
enum MHD_Result http_answer_now_problem(http_request *r, int status, const char *detail);
enum MHD_Result http_answer_oom(http_request *r);

/* Decided from the headers: sent once the body is read (or at once, see
 * http_answer.c).  `p`, `body` are taken; NULL: out of memory. */
enum MHD_Result http_answer_early(http_request *r, proto_reply *p);
enum MHD_Result http_answer_problem(http_request *r, int status, const char *detail);
enum MHD_Result http_answer_text(http_request *r, int status, const char *type, char *body,
                                 size_t len);
enum MHD_Result http_answer_json(http_request *r, int status, const char *json);

/* Not admitted now: `status` (503 or 429) with Retry-After. */
enum MHD_Result http_answer_refuse(http_request *r, int status, enum http_reject why,
                                   const char *detail);

/* The resumed call: send what the worker produced. */
enum MHD_Result http_answer_reply(http_request *r);

#endif
