/*
 * mesh_import.c — mesh files read with libassimp (mesh_import.h).
 *
 * assimp reads the bytes through a file system of one file, held in memory:
 * whatever else a file names (an OBJ's material library, a glTF's external
 * buffer or image, even an absolute path) cannot be opened, so a file never
 * reads the server's disk; a glTF must carry its buffers inline.  The only
 * post-processing is triangulation (and assimp's own validation): vertices
 * are joined here, by exact position (-0 as +0), not by assimp's
 * JoinIdenticalVertices, which keeps apart vertices whose normals differ
 * (every corner of an STL, where each triangle has its own normal) and
 * merges positions up to 1e-5 apart.  A mesh is a solid only when its
 * triangles share edges, so this join is what makes one.  Triangles left
 * with two equal vertices are dropped, points and lines skipped; a file
 * with no triangle at all is a 422.  Coordinates are assimp's single
 * precision values, widened exactly (as a Float32Array's elements are);
 * a text file's are its numbers rounded as JavaScript rounds them
 * (mesh_rounding.h), which assimp's own reading is not.
 * The C API keeps the last failed import's message in one string of the
 * process (aiGetErrorString): every assimp call is made under one mutex.
 */
#include "mesh_import.h"
#include "json_write.h"
#include "mesh_precheck.h"
#include "mesh_rounding.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

static pthread_mutex_t assimp_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct {
	const char *media, *name, *ext;
	proto_mesh_format f;
} formats[] = {
	{"model/stl", "stl", "stl", PROTO_MESH_STL},
	{"model/obj", "obj", "obj", PROTO_MESH_OBJ},
	{"model/gltf-binary", "glb", "glb", PROTO_MESH_GLB},
	{"model/gltf+json", "gltf", "gltf", PROTO_MESH_GLTF},
	{"application/x-ply", "ply", "ply", PROTO_MESH_PLY},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

proto_mesh_format proto_mesh_format_of_media(const char *ct)
{
	if (!ct)
		return PROTO_MESH_NONE;
	ct += strspn(ct, " \t");
	size_t n = strcspn(ct, ";");
	while (n > 0 && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strlen(formats[i].media) == n && strncasecmp(ct, formats[i].media, n) == 0)
			return formats[i].f;
	return PROTO_MESH_NONE;
}

proto_mesh_format proto_mesh_format_of_name(const char *name)
{
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (strcasecmp(name, formats[i].name) == 0)
			return formats[i].f;
	return PROTO_MESH_NONE;
}

static const char *format_ext(proto_mesh_format f)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].f == f)
			return formats[i].ext;
	return NULL;
}

/* ---- the file system of one file ---------------------------------------- */

typedef struct mem_source {
	char name[24]; /* "clashd-mesh.EXT": the only name that opens */
	const char *data;
	size_t len;
} mem_source;

typedef struct mem_file {
	struct aiFile file; /* first: the aiFile * is the mem_file * */
	const char *data;
	size_t len, pos;
} mem_file;

static size_t mem_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
	mem_file *m = (mem_file *)f;
	if (size == 0)
		return 0;
	size_t n = (m->len - m->pos) / size;
	if (n > count)
		n = count;
	memcpy(buf, m->data + m->pos, n * size);
	m->pos += n * size;
	return n;
}

static size_t mem_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
	(void)f, (void)buf, (void)size, (void)count;
	return 0;
}

static size_t mem_tell(struct aiFile *f)
{
	return ((mem_file *)f)->pos;
}

static size_t mem_size(struct aiFile *f)
{
	return ((mem_file *)f)->len;
}

/* As assimp's own memory stream: from the end means back from it. */
static enum aiReturn mem_seek(struct aiFile *f, size_t off, enum aiOrigin origin)
{
	mem_file *m = (mem_file *)f;
	switch (origin) {
	case aiOrigin_SET:
		if (off > m->len)
			return aiReturn_FAILURE;
		m->pos = off;
		return aiReturn_SUCCESS;
	case aiOrigin_CUR:
		if (off > m->len - m->pos)
			return aiReturn_FAILURE;
		m->pos += off;
		return aiReturn_SUCCESS;
	case aiOrigin_END:
		if (off > m->len)
			return aiReturn_FAILURE;
		m->pos = m->len - off;
		return aiReturn_SUCCESS;
	default: return aiReturn_FAILURE;
	}
}

static void mem_flush(struct aiFile *f)
{
	(void)f;
}

static struct aiFile *mem_open(struct aiFileIO *io, const char *name, const char *mode)
{
	const mem_source *src = (const mem_source *)io->UserData;
	if (!name || strcmp(name, src->name) != 0 || !mode || mode[0] != 'r')
		return NULL;
	mem_file *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->file =
		(struct aiFile){mem_read, mem_write, mem_tell, mem_size, mem_seek, mem_flush, NULL};
	m->data = src->data;
	m->len = src->len;
	return &m->file;
}

static void mem_close(struct aiFileIO *io, struct aiFile *f)
{
	(void)io;
	free(f);
}

/* ---- shapes -------------------------------------------------------------- */

typedef struct import {
	const struct aiScene *scene;
	const proto_request_limits *limits;
	proto_mesh_set *out;
	size_t cap;
	size_t vertices;       /* of every shape so far */
	unsigned char *placed; /* mesh i placed by some node */
	proto_problem *p;
	enum proto_limit *which;
} import;

/* A copy of the n bytes at s, each byte of a sequence that is not UTF-8
 * written '?'. */
static char *utf8_copy(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = proto_utf8_len(s + i, n - i);
		if (k == 0) {
			o[i++] = '?';
			continue;
		}
		memcpy(o + i, s + i, k);
		i += k;
	}
	o[n] = '\0';
	return o;
}

/* The bits of a coordinate for the join: -0 as +0. */
static uint32_t coord_bits(float x)
{
	if (x == 0.0f)
		x = 0.0f;
	uint32_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}

static size_t position_hash(const uint32_t k[3])
{
	uint64_t h = k[0] * 0x9e3779b97f4a7c15u;
	h = (h ^ k[1]) * 0xc2b2ae3d27d4eb4fu;
	h = (h ^ k[2]) * 0x165667b19e3779f9u;
	return (size_t)(h ^ (h >> 29));
}

/* Join m's vertices by position, keeping its triangles: s->positions and
 * s->indices, vertices in order of first use.  0, 1 (a problem) or -1. */
static int join_mesh(import *im, const struct aiMesh *m, proto_mesh_shape *s)
{
	size_t nv = m->mNumVertices, cap = 16;
	while (cap < 2 * nv)
		cap *= 2;
	uint32_t *remap = malloc((nv ? nv : 1) * sizeof *remap);
	uint32_t *slot = malloc(cap * sizeof *slot); /* joined index + 1, 0 empty */
	uint32_t *keys = malloc((nv ? nv : 1) * 3 * sizeof *keys);
	s->positions = malloc((nv ? nv : 1) * 3 * sizeof *s->positions);
	s->indices = malloc((m->mNumFaces ? m->mNumFaces : 1) * 3 * sizeof *s->indices);
	int r = -1;
	if (!remap || !slot || !keys || !s->positions || !s->indices)
		goto done;
	memset(remap, 0xff, nv * sizeof *remap);
	memset(slot, 0, cap * sizeof *slot);
	for (unsigned f = 0; f < m->mNumFaces; f++) {
		const struct aiFace *face = &m->mFaces[f];
		if (face->mNumIndices != 3)
			continue; /* a point or a line */
		uint32_t tri[3];
		for (int c = 0; c < 3; c++) {
			unsigned v = face->mIndices[c];
			if (v >= nv) {
				r = proto_problem_whole(im->p,
				                        "the file's mesh \"%s\" has a "
				                        "face with vertex index %u of %zu vertices",
				                        s->name, v, nv);
				goto done;
			}
			if (remap[v] == UINT32_MAX) {
				const struct aiVector3D *q = &m->mVertices[v];
				if (!isfinite(q->x) || !isfinite(q->y) || !isfinite(q->z)) {
					r = proto_problem_whole(im->p,
					                        "the file's mesh \"%s\" "
					                        "has a vertex that is not finite",
					                        s->name);
					goto done;
				}
				uint32_t k[3] = {coord_bits(q->x), coord_bits(q->y),
				                 coord_bits(q->z)};
				size_t h = position_hash(k) & (cap - 1);
				while (slot[h] &&
				       memcmp(&keys[3 * (slot[h] - 1)], k, sizeof k) != 0)
					h = (h + 1) & (cap - 1);
				if (!slot[h]) {
					memcpy(&keys[3 * s->n], k, sizeof k);
					s->positions[3 * s->n] = q->x;
					s->positions[3 * s->n + 1] = q->y;
					s->positions[3 * s->n + 2] = q->z;
					slot[h] = (uint32_t)++s->n;
				}
				remap[v] = slot[h] - 1;
			}
			tri[c] = remap[v];
		}
		if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
			continue; /* no area: two corners at one place */
		memcpy(&s->indices[3 * s->t++], tri, sizeof tri);
	}
	r = 0;
done:
	free(remap);
	free(slot);
	free(keys);
	return r;
}

static void shape_free(proto_mesh_shape *s)
{
	free(s->name);
	free(s->positions);
	free(s->indices);
}

/* A shape for mesh i placed by `node` (NULL: by none) with the transform
 * g (row-major).  0, 1 or -1. */
static int add_shape(import *im, unsigned i, const struct aiNode *node, const double g[4][4])
{
	const struct aiMesh *m = im->scene->mMeshes[i];
	proto_mesh_shape s = {0};
	/* The node names an instance when it places this mesh alone; else the
	 * mesh's own name; else its number in the file. */
	const struct aiString *nm = node && node->mNumMeshes == 1 && node->mName.length
	                                    ? &node->mName
	                            : m->mName.length ? &m->mName
	                                              : NULL;
	char num[32];
	snprintf(num, sizeof num, "mesh %u", i);
	s.name = nm ? utf8_copy(nm->data, nm->length < MAXLEN ? nm->length : MAXLEN - 1)
	            : strdup(num);
	if (!s.name)
		return -1;
	int r = join_mesh(im, m, &s);
	if (r != 0 || s.t == 0) { /* no triangle: skipped */
		shape_free(&s);
		return r;
	}
	const proto_request_limits *l = im->limits;
	im->vertices += s.n;
	if (l && l->max_vertices && im->vertices > l->max_vertices) {
		shape_free(&s);
		*im->which = PROTO_LIMIT_VERTICES;
		return proto_problem_whole(im->p,
		                           "the file's meshes have more than %zu "
		                           "vertices in all, the server's limit (--max-vertices)",
		                           l->max_vertices);
	}
	if (l && l->max_shapes && im->out->n >= l->max_shapes) {
		shape_free(&s);
		*im->which = PROTO_LIMIT_SHAPES;
		return proto_problem_whole(
			im->p,
			"the file places more than %zu meshes, "
			"the server's limit of shapes in one request (--max-shapes)",
			l->max_shapes);
	}
	for (int r2 = 0; r2 < 4; r2++)
		for (int c = 0; c < 4; c++)
			s.matrix[4 * c + r2] = g[r2][c];
	if (im->out->n == im->cap) {
		size_t cap = im->cap ? 2 * im->cap : 8;
		proto_mesh_shape *grown = realloc(im->out->shapes, cap * sizeof *grown);
		if (!grown) {
			shape_free(&s);
			return -1;
		}
		im->out->shapes = grown;
		im->cap = cap;
	}
	im->out->shapes[im->out->n++] = s;
	return 0;
}

/* Every mesh `node` and its children place, g the transform of its parent
 * (row-major).  0, 1 or -1. */
static int walk(import *im, const struct aiNode *node, const double parent[4][4], int depth)
{
	if (depth > PROTO_MESH_MAX_NODE_DEPTH) {
		return proto_problem_whole(im->p, "the file's nodes nest deeper than %d",
		                           PROTO_MESH_MAX_NODE_DEPTH);
	}
	const struct aiMatrix4x4 *t = &node->mTransformation;
	const double local[4][4] = {{t->a1, t->a2, t->a3, t->a4},
	                            {t->b1, t->b2, t->b3, t->b4},
	                            {t->c1, t->c2, t->c3, t->c4},
	                            {t->d1, t->d2, t->d3, t->d4}};
	double g[4][4];
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++) {
			double sum = 0;
			for (int k = 0; k < 4; k++)
				sum += parent[r][k] * local[k][c];
			g[r][c] = sum;
		}
	for (unsigned k = 0; k < node->mNumMeshes; k++) {
		unsigned i = node->mMeshes[k];
		if (i >= im->scene->mNumMeshes)
			continue; /* assimp's validation refuses it first */
		im->placed[i] = 1;
		int r = add_shape(im, i, node, g);
		if (r)
			return r;
	}
	for (unsigned k = 0; k < node->mNumChildren; k++) {
		int r = walk(im, node->mChildren[k], g, depth + 1);
		if (r)
			return r;
	}
	return 0;
}

static const double identity[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

/* The shapes of a scene read.  0, 1 or -1. */
static int shapes_of(import *im)
{
	const struct aiScene *sc = im->scene;
	if (sc->mNumMeshes == 0) {
		return proto_problem_whole(im->p, "the file has no mesh");
	}
	im->placed = calloc(sc->mNumMeshes, 1);
	if (!im->placed)
		return -1;
	int r = sc->mRootNode ? walk(im, sc->mRootNode, identity, 0) : 0;
	for (unsigned i = 0; r == 0 && i < sc->mNumMeshes; i++)
		if (!im->placed[i])
			r = add_shape(im, i, NULL, identity);
	if (r == 0 && im->out->n == 0) {
		r = proto_problem_whole(im->p, "the file's meshes have no triangle (points "
		                               "and lines are not shapes)");
	}
	return r;
}

/*
 * Set each mesh's primitive types from its faces, as assimp's loaders
 * should.  Its triangulation (TriangulateProcess.cpp) asserts that a mesh
 * flagged as holding polygons has some, and a failed assertion aborts the
 * process: Debian's assimp 5.2.5 reads an ASCII PLY whose last face is cut
 * short into such a mesh (tests/fuzz/findings/import/).  So the file is
 * read and validated first, the flags are made true here, and only then
 * is it triangulated.  The scene is assimp's to post-process in place
 * (aiApplyPostProcessing).  Returns 1 (the flags set), 0 when a face has
 * no index (validation refuses those; nothing to triangulate then).
 */
static int primitive_types(const struct aiScene *sc)
{
	for (unsigned i = 0; i < sc->mNumMeshes; i++) {
		struct aiMesh *m = sc->mMeshes[i];
		unsigned types = 0;
		for (unsigned f = 0; f < m->mNumFaces; f++) {
			unsigned n = m->mFaces[f].mNumIndices;
			if (n == 0)
				return 0;
			types |= n == 1   ? aiPrimitiveType_POINT
			         : n == 2 ? aiPrimitiveType_LINE
			         : n == 3 ? aiPrimitiveType_TRIANGLE
			                  : aiPrimitiveType_POLYGON;
		}
		m->mPrimitiveTypes = types;
	}
	return 1;
}

int proto_mesh_import(const char *data, size_t len, proto_mesh_format f,
                      const proto_request_limits *l, proto_mesh_set *out, proto_problem *p,
                      enum proto_limit *which)
{
	memset(out, 0, sizeof *out);
	enum proto_limit none;
	which = which ? which : &none;
	*which = PROTO_LIMIT_NONE;
	const char *ext = format_ext(f);
	if (!ext) {
		return proto_problem_whole(p, "not a mesh file format");
	}
	if (len == 0 || len > 0x7fffffff) {
		return proto_problem_whole(p, len ? "the file is larger than 2 GiB"
		                                  : "the file is empty");
	}
	int r = proto_mesh_precheck(data, len, f, p);
	if (r)
		return r;
	mem_source src = {.data = data, .len = len};
	snprintf(src.name, sizeof src.name, "clashd-mesh.%s", ext);
	struct aiFileIO io = {mem_open, mem_close, (aiUserData)&src};
import im = {.limits = l, .out = out, .p = p, .which = which };
	pthread_mutex_lock(&assimp_lock);
	im.scene = aiImportFileEx(src.name, aiProcess_ValidateDataStructure, &io);
	if (im.scene && proto_mesh_rounding(im.scene, f, data, len) != 0) {
		aiReleaseImport(im.scene);
		pthread_mutex_unlock(&assimp_lock);
		return -1;
	}
	if (im.scene && primitive_types(im.scene))
		im.scene = aiApplyPostProcessing(im.scene, aiProcess_Triangulate);
	if (!im.scene) {
		const char *why = aiGetErrorString();
		r = proto_problem_whole(p, "assimp cannot read this %s file: %s", ext,
		                        why && *why ? why : "no reason given");
	} else {
		r = shapes_of(&im);
		aiReleaseImport(im.scene);
	}
	pthread_mutex_unlock(&assimp_lock);
	free(im.placed);
	if (r)
		proto_mesh_set_free(out);
	return r;
}

void proto_mesh_set_free(proto_mesh_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		shape_free(&set->shapes[i]);
	free(set->shapes);
	memset(set, 0, sizeof *set);
}
