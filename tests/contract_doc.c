/*
 * contract_doc.c — proto/openapi.yaml read as JSON with libyaml, for the
 * suites that check the contract (proto, contains, scene, pairdepth).
 * check_service reads the document its own way, keeping integers as
 * integers to compare it with the JSON clashd serves.
 */
#include "contract_doc.h"

#include <stdio.h>

#include <yaml.h>

#include "check.h"

#define OPENAPI_PATH "proto/openapi.yaml"

/* A YAML node as JSON: mappings become objects, sequences arrays; a plain
 * scalar that reads as JSON (a number, true, false, null) becomes that
 * value, any other scalar a string. */
static json_t *yaml_to_json(yaml_document_t *ydoc, yaml_node_t *node)
{
	switch (node->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)node->data.scalar.value;
		size_t n = node->data.scalar.length;
		if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			json_t *j = json_loadb(v, n, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
			if (j)
				return j;
		}
		return json_stringn(v, n);
	}
	case YAML_SEQUENCE_NODE: {
		json_t *a = json_array();
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     i < node->data.sequence.items.top; i++)
			json_array_append_new(a, yaml_to_json(ydoc, yaml_document_get_node(ydoc, *i)));
		return a;
	}
	case YAML_MAPPING_NODE: {
		json_t *o = json_object();
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(ydoc, p->key);
			ck_assert(k->type == YAML_SCALAR_NODE);
			ck_assert_msg(json_object_get(o, (const char *)k->data.scalar.value) == NULL,
			              "duplicate key %s", k->data.scalar.value);
			json_object_set_new(o, (const char *)k->data.scalar.value,
			                    yaml_to_json(ydoc, yaml_document_get_node(ydoc, p->value)));
		}
		return o;
	}
	default:
		ck_abort_msg("empty YAML node");
	}
	return NULL;
}

json_t *contract_doc_load(void)
{
	FILE *f = fopen(OPENAPI_PATH, "rb");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository)", OPENAPI_PATH);
	yaml_parser_t parser;
	yaml_document_t ydoc;
	ck_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_file(&parser, f);
	ck_assert_msg(yaml_parser_load(&parser, &ydoc), "%s: YAML error at line %zu: %s",
	              OPENAPI_PATH, parser.problem_mark.line + 1, parser.problem);
	yaml_node_t *root = yaml_document_get_root_node(&ydoc);
	ck_assert_ptr_nonnull(root);
	json_t *j = yaml_to_json(&ydoc, root);
	yaml_document_delete(&ydoc);
	yaml_parser_delete(&parser);
	fclose(f);
	return j;
}

