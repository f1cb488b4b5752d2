/*
 * vertex_scan.h — a Query's plain vertex arrays read straight from the
 * text into doubles (vertex_scan.c), so that jansson parses (and the
 * decoder walks) only the rest of the query.
 */
#ifndef PROTO_VERTEX_SCAN_H
#define PROTO_VERTEX_SCAN_H

#include <stddef.h>

#include <jansson.h>

#include "problem.h"
#include "proto.h"
#include "vertex_table.h"

/*
 * proto_parse_ex() for a Query under ctx's limits, faster (unless
 * ctx->plain_parse): "vertices" arrays of plain numbers (and flat
 * "positions" arrays) are read here and stand as empty arrays in the tree
 * (*root); *table says which (NULL when none was read: a query naming
 * its shapes by ref is still built here, without jansson's lexer).  The answer is always the one proto_parse_ex would give:
 * whenever the shortcut cannot be sure (anything unusual, any error), the
 * text is parsed the usual way.  The decoder and the limits are handed the
 * table and find the arrays with proto_vertex_lookup() (vertex_table.h).
 * Release with proto_vertex_table_free().
 */
int proto_parse_query_text(const char *body, size_t len, const proto_context *ctx, json_t **root,
                           proto_problem *p, enum proto_limit *which, vertex_table **table);

/* Read one JSON number (RFC 8259 grammar, the whole of s[0, n)) as jansson
 * does (strtod), faster for up to 19 digits.  0, or -1 when the text is not
 * a number or out of the range of a double. */
int proto_read_number(const char *s, size_t n, double *out);

#endif /* PROTO_VERTEX_SCAN_H */
