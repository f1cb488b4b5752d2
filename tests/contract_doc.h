/*
 * contract_doc.h — proto/openapi.yaml as a JSON document, for tests.
 */
#ifndef TESTS_CONTRACT_DOC_H
#define TESTS_CONTRACT_DOC_H

#include <jansson.h>

/* proto/openapi.yaml (read from the repository's root) as JSON: mappings
 * become objects (a duplicate key fails the test), sequences arrays, a
 * plain scalar that reads as JSON (a number, true, false, null) that
 * value, any other scalar a string.  A new reference. */
json_t *contract_doc_load(void);

/* The YAML file at path the same way, integers read as reals or not. */
json_t *contract_doc_read(const char *path, int ints_as_reals);

/* Whether x and y are equal as JSON values, numbers compared by value
 * (1 == 1.0, -0.0 == 0): an example in the document against an answer. */
int contract_doc_same(json_t *x, json_t *y);

#endif
