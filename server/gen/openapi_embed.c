/*
 * openapi_embed.c — build-time tool: proto/openapi.yaml -> a C file holding
 * the same document as compact JSON (const char openapi_json[]), which
 * clashd serves at GET /v1/openapi.json.
 *
 *   openapi-embed proto/openapi.yaml build/gen/openapi_json.c
 *
 * YAML is read with libyaml's document API (aliases resolved).  Mappings
 * become objects in document order (a repeated key is an error), sequences
 * arrays.  A plain scalar that is JSON by itself (a number, true, false,
 * null) is written as that literal, byte for byte, so 0.38268343236508978
 * stays exactly what the contract says; every other scalar is a string.
 * This is the reading tests/check_wire_contract.c applies to the same file.
 * The result is parsed back with jansson before anything is written, and
 * the output file is replaced atomically, so a broken contract fails the
 * build instead of shipping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

typedef struct out {
	char *s;
	size_t len, cap;
} out;

static void put(out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *p = realloc(o->s, cap);
		if (!p) {
			fprintf(stderr, "openapi-embed: out of memory\n");
			exit(1);
		}
		o->s = p;
		o->cap = cap;
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void put_string(out *o, const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	if (!text) {
		fprintf(stderr, "openapi-embed: a string is not valid UTF-8: %.*s\n", (int)n, s);
		exit(1);
	}
	put(o, text, strlen(text));
	free(text);
	json_decref(j);
}

static void emit(yaml_document_t *doc, yaml_node_t *node, out *o, const char *path)
{
	switch (node->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)node->data.scalar.value;
		size_t n = node->data.scalar.length;
		if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			json_t *j = json_loadb(v, n, JSON_DECODE_ANY, NULL);
			if (j && !json_is_string(j) && !json_is_array(j) && !json_is_object(j)) {
				json_decref(j);
				put(o, v, n);
				return;
			}
			json_decref(j);
		}
		put_string(o, v, n);
		return;
	}
	case YAML_SEQUENCE_NODE: {
		put(o, "[", 1);
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     i < node->data.sequence.items.top; i++) {
			if (i != node->data.sequence.items.start)
				put(o, ",", 1);
			emit(doc, yaml_document_get_node(doc, *i), o, path);
		}
		put(o, "]", 1);
		return;
	}
	case YAML_MAPPING_NODE: {
		put(o, "{", 1);
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			if (k->type != YAML_SCALAR_NODE) {
				fprintf(stderr, "openapi-embed: %s: a key is not a scalar\n", path);
				exit(1);
			}
			for (yaml_node_pair_t *q = node->data.mapping.pairs.start; q < p; q++) {
				yaml_node_t *kq = yaml_document_get_node(doc, q->key);
				if (kq->data.scalar.length == k->data.scalar.length &&
				    memcmp(kq->data.scalar.value, k->data.scalar.value,
				           k->data.scalar.length) == 0) {
					fprintf(stderr, "openapi-embed: %s: duplicate key %s\n",
					        path, k->data.scalar.value);
					exit(1);
				}
			}
			if (p != node->data.mapping.pairs.start)
				put(o, ",", 1);
			put_string(o, (const char *)k->data.scalar.value, k->data.scalar.length);
			put(o, ":", 1);
			emit(doc, yaml_document_get_node(doc, p->value), o, path);
		}
		put(o, "}", 1);
		return;
	}
	case YAML_NO_NODE: break;
	}
	fprintf(stderr, "openapi-embed: %s: an empty node\n", path);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: openapi-embed IN.yaml OUT.c\n");
		return 2;
	}
	const char *in = argv[1], *outpath = argv[2];
	FILE *f = fopen(in, "rb");
	if (!f) {
		fprintf(stderr, "openapi-embed: %s: %s\n", in, strerror(errno));
		return 1;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		fprintf(stderr, "openapi-embed: cannot start libyaml\n");
		return 1;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		fprintf(stderr, "openapi-embed: %s:%zu: %s\n", in, parser.problem_mark.line + 1,
		        parser.problem ? parser.problem : "YAML error");
		return 1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		fprintf(stderr, "openapi-embed: %s is empty\n", in);
		return 1;
	}
	out o = {0};
	emit(&doc, root, &o, in);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);

	json_error_t err;
	json_t *check = json_loadb(o.s, o.len, JSON_REJECT_DUPLICATES, &err);
	if (!check) {
		fprintf(stderr, "openapi-embed: the JSON made from %s does not parse: %s\n", in,
		        err.text);
		return 1;
	}
	json_decref(check);

	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", outpath);
	FILE *w = fopen(tmp, "wb");
	if (!w) {
		fprintf(stderr, "openapi-embed: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	fprintf(w,
	        "/* Generated from %s by server/gen/openapi_embed.c: do not edit. */\n"
	        "#include <stddef.h>\n\n"
	        "const char openapi_json[] =\n\t\"",
	        in);
	size_t col = 0;
	for (size_t i = 0; i < o.len; i++) {
		unsigned char c = (unsigned char)o.s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?')
			fputc(c, w), col++;
		else
			fprintf(w, "\\%03o", c),
				col += 4; /* octal: never runs into the next byte */
		if (col >= 96 && i + 1 < o.len) {
			fputs("\"\n\t\"", w);
			col = 0;
		}
	}
	fprintf(w, "\";\n\nconst size_t openapi_json_len = %zu;\n", o.len);
	if (fclose(w) != 0 || rename(tmp, outpath) != 0) {
		fprintf(stderr, "openapi-embed: cannot write %s: %s\n", outpath, strerror(errno));
		return 1;
	}
	free(o.s);
	return 0;
}
