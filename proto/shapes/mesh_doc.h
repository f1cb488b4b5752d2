/*
 * mesh_doc.h — the text of imported meshes (mesh_doc.c): the import document
 * `clash import` writes,
 *   {"shapes": [{"name": ..., "mesh": {"positions": [...], "indices": [...]},
 *                "pose": {"matrix": [16 numbers, column-major]}}, ...]}
 * and the geometry of one shape alone, {"mesh": {...}}, the StoredShape
 * POST /v1/shapes stores for it.  Numbers are written as every reply writes
 * them (json_write.h); indices as integers.
 */
#ifndef PROTO_MESH_DOC_H
#define PROTO_MESH_DOC_H

#include <stddef.h>

#include "mesh_import.h"

/* The import document of `set` (malloc'd, NUL-terminated, its length in
 * *len); NULL when memory ran out. */
char *proto_mesh_document_text(const proto_mesh_set *set, size_t *len);

/* {"mesh": {"positions": [...], "indices": [...]}} of one shape, the same
 * bytes as in the document, and "weld": *weld last in the mesh when weld
 * is not NULL, and "units": units after the mesh when units (a name of
 * units.h) is not NULL.  NULL when memory ran out. */
char *proto_mesh_geometry_text(const proto_mesh_shape *s, const double *weld, const char *units,
                               size_t *len);

/* Its "pose" member's value, {"matrix": [...]}, as a JSON text. */
char *proto_mesh_pose_text(const proto_mesh_shape *s, size_t *len);

#endif /* PROTO_MESH_DOC_H */
