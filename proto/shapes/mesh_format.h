/*
 * mesh_format.h — the mesh file formats clashd reads (mesh_import.h reads
 * them, mesh_precheck.h checks them first).
 */
#ifndef PROTO_MESH_FORMAT_H
#define PROTO_MESH_FORMAT_H

typedef enum proto_mesh_format {
	PROTO_MESH_NONE = 0,
	PROTO_MESH_STL,  /* model/stl, ASCII or binary */
	PROTO_MESH_OBJ,  /* model/obj (materials not read) */
	PROTO_MESH_GLB,  /* model/gltf-binary */
	PROTO_MESH_GLTF, /* model/gltf+json, buffers inline (data: URIs) */
	PROTO_MESH_PLY   /* application/x-ply, ASCII or binary */
} proto_mesh_format;

#endif /* PROTO_MESH_FORMAT_H */
