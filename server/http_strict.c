/*
 * http_strict.c — the request heads clashd refuses (see http_strict.h).
 */
#include "http_strict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"

/* tchar of RFC 9110 section 5.6.2: the bytes of a token. */
static int is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* The bytes of Host: uri-host (reg-name, IPv4, IP-literal) and ":" port
 * (RFC 3986 section 3.2.2); an empty value is allowed. */
static int is_host_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("-._~%!$&'()*+,;=:[]", c) != NULL;
}

static int is_control(unsigned char c, int tab_ok)
{
	return (c < 0x20 && !(tab_ok && c == '\t')) || c == 0x7f;
}

int http_strict_has_control(const char *text, size_t len, int tab_ok)
{
	for (size_t i = 0; i < len; i++)
		if (is_control((unsigned char)text[i], tab_ok))
			return 1;
	return 0;
}

static int all_bytes(const char *text, size_t len, int (*ok)(unsigned char))
{
	for (size_t i = 0; i < len; i++)
		if (!ok((unsigned char)text[i]))
			return 0;
	return 1;
}

static int named(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

/* One Transfer-Encoding line: a comma-separated list of codings (RFC 9110
 * section 5.6.1: empty elements are skipped), each a bare token. */
static void add_codings(http_strict *s, const char *v, size_t len)
{
	size_t i = 0;
	for (;;) {
		while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		if (i == len)
			return;
		size_t start = i;
		while (i < len && is_tchar((unsigned char)v[i]))
			i++;
		size_t n = i - start;
		while (i < len && (v[i] == ' ' || v[i] == '\t'))
			i++;
		if (n == 0 || (i < len && v[i] != ',')) {
			s->codings_invalid = 1;
			return;
		}
		int chunked = named(v + start, n, "chunked");
		s->codings++;
		s->chunked += (unsigned)chunked;
		s->chunked_last = chunked;
		if (!chunked && !s->other_coding[0]) {
			size_t keep = n < sizeof s->other_coding ? n : sizeof s->other_coding - 1;
			memcpy(s->other_coding, v + start, keep);
			s->other_coding[keep] = '\0';
		}
	}
}

void http_strict_field(http_strict *s, const char *name, size_t name_len, const char *value,
                       size_t value_len, int folded)
{
	s->folded |= folded;
	if (name_len == 0 || !all_bytes(name, name_len, is_tchar)) {
		if (!s->bad_name[0])
			log_printable(s->bad_name, sizeof s->bad_name, name);
		return;
	}
	if (!s->bad_value[0] && http_strict_has_control(value, value_len, 1))
		log_printable(s->bad_value, sizeof s->bad_value, name);
	if (named(name, name_len, "Host")) {
		s->hosts++;
		s->host_invalid |= !all_bytes(value, value_len, is_host_char);
	} else if (named(name, name_len, "Content-Length")) {
		s->lengths++;
	} else if (named(name, name_len, "Transfer-Encoding")) {
		s->encodings++;
		add_codings(s, value, value_len);
	} else if (named(name, name_len, "Authorization")) {
		s->authorizations++;
	} else if (named(name, name_len, "Content-Type")) {
		s->content_types++;
	}
}

static int fault(http_strict_fault *f, int status, int framing, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Fill *f; returns 1 (a refusal). */
static int fault(http_strict_fault *f, int status, int framing, const char *fmt, ...)
{
	va_list ap;
	f->status = status;
	f->framing = framing;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
	return 1;
}

/* Where the body ends (RFC 9112 section 6.3); 1 and *f filled if unclear. */
static int judge_framing(const http_strict *s, int http11, http_strict_fault *f)
{
	/* First: a fold also makes the names that are not tokens. */
	if (s->folded)
		return fault(f, 400, 1,
		             "a header field line starts with a space or tab (obs-fold, "
		             "RFC 9112 section 5.2); send each field on one line");
	if (s->bad_name[0])
		return fault(f, 400, 1,
		             "the header field name \"%s\" is not a token (no space "
		             "may precede the colon)",
		             s->bad_name);
	if (s->encodings && s->lengths)
		return fault(f, 400, 1,
		             "both Transfer-Encoding and Content-Length were sent; "
		             "send one");
	if (s->encodings && !http11)
		return fault(f, 400, 1, "Transfer-Encoding is not allowed in an HTTP/1.0 request");
	if (s->codings_invalid || (s->encodings && s->codings == 0))
		return fault(f, 400, 1, "Transfer-Encoding is not a list of transfer codings");
	if (s->encodings && !s->chunked_last)
		return fault(f, 400, 1, "the last transfer coding must be chunked");
	if (s->chunked > 1)
		return fault(f, 400, 1, "the chunked transfer coding was applied more than once");
	if (s->lengths > 1)
		return fault(f, 400, 1, "Content-Length was sent more than once");
	if (s->codings > 1)
		return fault(f, 501, 1,
		             "the transfer coding \"%s\" is not supported; send the "
		             "body chunked only",
		             s->other_coding);
	return 0;
}

int http_strict_judge(const http_strict *s, int http11, int bad_target, http_strict_fault *f)
{
	memset(f, 0, sizeof *f);
	if (judge_framing(s, http11, f))
		return 1;
	if (http11 && s->hosts == 0)
		return fault(f, 400, 0, "an HTTP/1.1 request needs a Host field");
	if (s->hosts > 1)
		return fault(f, 400, 0, "Host was sent more than once");
	if (s->host_invalid)
		return fault(f, 400, 0, "the Host field is not a host[:port]");
	if (s->authorizations > 1)
		return fault(f, 400, 0, "Authorization was sent more than once");
	if (s->content_types > 1)
		return fault(f, 400, 0, "Content-Type was sent more than once");
	if (s->bad_value[0])
		return fault(f, 400, 0,
		             "the value of the header field \"%s\" holds a control "
		             "character",
		             s->bad_value);
	if (bad_target)
		return fault(f, 400, 0,
		             "the path or query decodes to a control character "
		             "(such as %%00)");
	return 0;
}
