/*
 * http_head.h — a request's head, judged at the first handler call
 * (http_head.c).  Loop thread only.
 */
#ifndef SERVER_HTTP_HEAD_H
#define SERVER_HTTP_HEAD_H

#include "http_internal.h"
#include "http_strict.h"

/* MHD's unescape callback: notes a target decoding to a control character. */
size_t http_head_unescape(void *cls, struct MHD_Connection *conn, char *text);

/* Whether the head is one clashd refuses (then *f says why), and its
 * answer. */
int http_head_refused(http_request *r, const char *url, const char *version, http_strict_fault *f);
enum MHD_Result http_head_malformed(http_request *r, const http_strict_fault *f);

/* Decide all the head can decide: an answer, or a query admitted. */
enum MHD_Result http_head_begin(http_request *r, const char *url, const char *method);

#endif
