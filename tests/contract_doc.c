/*
 * contract_doc.c — proto/openapi.yaml read as JSON with libyaml, for the
 * suites that check the contract (wire_contract, contains, scene,
 * pairdepth, operations: the last keeps integers as integers, to compare
 * the document with the JSON clashd serves).
 */
#include "contract_doc.h"

#include <stdio.h>

#include <yaml.h>

#include "check.h"

#define OPENAPI_PATH "proto/openapi.yaml"

/* A YAML node as JSON: mappings become objects, sequences arrays; a plain
 * scalar that reads as JSON (a number, true, false, null) becomes that
 * value (`flags`: jansson's decoding flags), any other scalar a string. */
static json_t *yaml_to_json(yaml_document_t *ydoc, yaml_node_t *node, size_t flags)
{
	switch (node->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)node->data.scalar.value;
		size_t n = node->data.scalar.length;
		if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			json_t *j = json_loadb(v, n, JSON_DECODE_ANY | flags, NULL);
			if (j)
				return j;
		}
		return json_stringn(v, n);
	}
	case YAML_SEQUENCE_NODE: {
		json_t *a = json_array();
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     i < node->data.sequence.items.top; i++)
			json_array_append_new(a,
			                      yaml_to_json(ydoc, yaml_document_get_node(ydoc, *i),
			                                   flags));
		return a;
	}
	case YAML_MAPPING_NODE: {
		json_t *o = json_object();
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(ydoc, p->key);
			ck_assert(k->type == YAML_SCALAR_NODE);
			ck_assert_msg(json_object_get(o, (const char *)k->data.scalar.value) ==
			                      NULL,
			              "duplicate key %s", k->data.scalar.value);
			json_object_set_new(o, (const char *)k->data.scalar.value,
			                    yaml_to_json(ydoc,
			                                 yaml_document_get_node(ydoc, p->value),
			                                 flags));
		}
		return o;
	}
	default: ck_abort_msg("empty YAML node");
	}
	return NULL;
}

json_t *contract_doc_read(const char *path, int ints_as_reals)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository)", path);
	yaml_parser_t parser;
	yaml_document_t ydoc;
	ck_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_file(&parser, f);
	ck_assert_msg(yaml_parser_load(&parser, &ydoc), "%s: YAML error at line %zu: %s", path,
	              parser.problem_mark.line + 1, parser.problem);
	yaml_node_t *root = yaml_document_get_root_node(&ydoc);
	ck_assert_ptr_nonnull(root);
	json_t *j = yaml_to_json(&ydoc, root, ints_as_reals ? JSON_DECODE_INT_AS_REAL : 0);
	yaml_document_delete(&ydoc);
	yaml_parser_delete(&parser);
	fclose(f);
	return j;
}

json_t *contract_doc_load(void)
{
	return contract_doc_read(OPENAPI_PATH, 1);
}

int contract_doc_same(json_t *x, json_t *y)
{
	if (json_is_number(x) && json_is_number(y))
		return json_number_value(x) == json_number_value(y);
	if (json_typeof(x) != json_typeof(y))
		return 0;
	if (json_is_array(x)) {
		if (json_array_size(x) != json_array_size(y))
			return 0;
		for (size_t i = 0; i < json_array_size(x); i++)
			if (!contract_doc_same(json_array_get(x, i), json_array_get(y, i)))
				return 0;
		return 1;
	}
	if (json_is_object(x)) {
		if (json_object_size(x) != json_object_size(y))
			return 0;
		const char *k;
		json_t *v;
		json_object_foreach(x, k, v) {
			json_t *w = json_object_get(y, k);
			if (!w || !contract_doc_same(v, w))
				return 0;
		}
		return 1;
	}
	return json_equal(x, y);
}
