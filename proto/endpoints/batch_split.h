/*
 * batch_split.h — finding the queries of a batch body without parsing it
 * (batch_split.c).
 */
#ifndef PROTO_BATCH_SPLIT_H
#define PROTO_BATCH_SPLIT_H

#include <stddef.h>

/* Where one query's text is in the body. */
typedef struct batch_span {
	size_t start, len; /* body[start, start + len): first to last non-blank byte */
	size_t line;       /* the 1-based line of its first byte */
	size_t column;     /* characters (UTF-8 lead bytes) before it on that line */
} batch_span;

enum batch_split_result {
	BATCH_SPLIT_OK = 0,       /* *spans and *n are the queries */
	BATCH_SPLIT_OTHER = 1,    /* not the plain form {"queries": [...]}: parse the
	                           whole body to say why (it may not be JSON) */
	BATCH_SPLIT_TOO_MANY = 2, /* more than max queries (0: no limit) */
	BATCH_SPLIT_NOMEM = -1
};

/*
 * Split `text` as {"queries": [q0, q1, ...]} (any JSON whitespace, the
 * member name possibly written with escapes), each q a non-empty run of
 * bytes.  When the body is valid JSON the spans are exactly its queries;
 * when it is not, some span (or the envelope) fails to parse, which the
 * caller finds out.  *spans is malloc'd (NULL when n is 0).
 */
enum batch_split_result proto_batch_split(const char *text, size_t len, size_t max,
                                          batch_span **spans, size_t *n);

#endif /* PROTO_BATCH_SPLIT_H */
