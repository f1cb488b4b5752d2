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
 * precision values, widened exactly (as a Float32Array's elements are).
 * The C API keeps the last failed import's message in one string of the
 * process (aiGetErrorString): every assimp call is made under one mutex.
 */
#include "mesh_import.h"

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

/* Nodes nested deeper than this are a 422 (the walk recurses). */
#define MESH_MAX_NODE_DEPTH 256

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
	default:
		return aiReturn_FAILURE;
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
	m->file = (struct aiFile){mem_read, mem_write, mem_tell, mem_size, mem_seek, mem_flush,
	                          NULL};
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
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = u[i] < 0x80 ? 1 : (u[i] >> 5) == 6 ? 2 : (u[i] >> 4) == 14 ? 3
		         : (u[i] >> 3) == 30 ? 4 : 0;
		int ok = k > 0 && i + k <= n && (k != 2 || u[i] >= 0xc2);
		for (size_t j = 1; ok && j < k; j++)
			ok = (u[i + j] & 0xc0) == 0x80;
		if (ok && k == 3)
			ok = !(u[i] == 0xe0 && u[i + 1] < 0xa0) && !(u[i] == 0xed && u[i + 1] >= 0xa0);
		if (ok && k == 4)
			ok = !(u[i] == 0xf0 && u[i + 1] < 0x90) && !(u[i] == 0xf4 && u[i + 1] >= 0x90) &&
			     u[i] <= 0xf4;
		if (!ok) {
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
				proto_problem_set(im->p, 422, strdup(""), "the file's mesh \"%s\" has a "
				                  "face with vertex index %u of %zu vertices",
				                  s->name, v, nv);
				r = im->p->pointer ? 1 : -1;
				goto done;
			}
			if (remap[v] == UINT32_MAX) {
				const struct aiVector3D *q = &m->mVertices[v];
				if (!isfinite(q->x) || !isfinite(q->y) || !isfinite(q->z)) {
					proto_problem_set(im->p, 422, strdup(""), "the file's mesh \"%s\" "
					                  "has a vertex that is not finite", s->name);
					r = im->p->pointer ? 1 : -1;
					goto done;
				}
				uint32_t k[3] = {coord_bits(q->x), coord_bits(q->y), coord_bits(q->z)};
				size_t h = position_hash(k) & (cap - 1);
				while (slot[h] && memcmp(&keys[3 * (slot[h] - 1)], k, sizeof k) != 0)
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
	                          ? &node->mName : m->mName.length ? &m->mName : NULL;
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
		proto_problem_set(im->p, 422, strdup(""), "the file's meshes have more than %zu "
		                  "vertices in all, the server's limit (--max-vertices)",
		                  l->max_vertices);
		return im->p->pointer ? 1 : -1;
	}
	if (l && l->max_shapes && im->out->n >= l->max_shapes) {
		shape_free(&s);
		*im->which = PROTO_LIMIT_SHAPES;
		proto_problem_set(im->p, 422, strdup(""), "the file places more than %zu meshes, "
		                  "the server's limit of shapes in one request (--max-shapes)",
		                  l->max_shapes);
		return im->p->pointer ? 1 : -1;
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
	if (depth > MESH_MAX_NODE_DEPTH) {
		proto_problem_set(im->p, 422, strdup(""), "the file's nodes nest deeper than %d",
		                  MESH_MAX_NODE_DEPTH);
		return im->p->pointer ? 1 : -1;
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
		proto_problem_set(im->p, 422, strdup(""), "the file has no mesh");
		return im->p->pointer ? 1 : -1;
	}
	im->placed = calloc(sc->mNumMeshes, 1);
	if (!im->placed)
		return -1;
	int r = sc->mRootNode ? walk(im, sc->mRootNode, identity, 0) : 0;
	for (unsigned i = 0; r == 0 && i < sc->mNumMeshes; i++)
		if (!im->placed[i])
			r = add_shape(im, i, NULL, identity);
	if (r == 0 && im->out->n == 0) {
		proto_problem_set(im->p, 422, strdup(""), "the file's meshes have no triangle (points "
		                  "and lines are not shapes)");
		r = im->p->pointer ? 1 : -1;
	}
	return r;
}

/*
 * Whether a PLY file's header is well formed as far as lines go: "ply",
 * then lines whose first word is format, comment, obj_info, element or
 * property, up to one whose first word is end_header, followed by more;
 * each element's count no larger than the file.
 * Debian's assimp 5.2.5 reads some headers that break this forever, at the
 * end of the file (no end_header line, or one it does not take for the
 * header's end): in clashd that would pin a worker and hold the import
 * mutex for good.  Such a file is refused before assimp sees it
 * (tests/fuzz/findings/import/), whatever its declared type.
 */
static int ply_count_ok(const char *rest, size_t n, size_t len)
{
	/* " <name> <count>": the count a number no larger than the file (an
	 * element takes a byte at least; assimp 5.2.5 reserves room for the
	 * count before reading: 10^110 faces in a 379-byte file ran it out of
	 * memory, tests/fuzz/findings/import/ply-huge-count-oom.bin). */
	size_t i = 0;
	while (i < n && (rest[i] == ' ' || rest[i] == '\t'))
		i++;
	while (i < n && rest[i] != ' ' && rest[i] != '\t')
		i++;
	while (i < n && (rest[i] == ' ' || rest[i] == '\t'))
		i++;
	size_t count = 0, digits = 0;
	for (; i < n && rest[i] >= '0' && rest[i] <= '9'; i++, digits++) {
		count = 10 * count + (size_t)(rest[i] - '0');
		if (count > len)
			return 0;
	}
	while (i < n && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r'))
		i++;
	return digits > 0 && i == n;
}

static int ply_header_ok(const char *d, size_t len)
{
	static const char *const words[] = {"format", "comment", "obj_info", "element",
	                                    "property", "end_header"};
	for (size_t i = 0, line = 0; i < len; line++) {
		const char *nl = memchr(d + i, '\n', len - i);
		if (!nl)
			return 0; /* the header does not end */
		size_t e = (size_t)(nl - d), w = i;
		while (w < e && (d[w] == ' ' || d[w] == '\t'))
			w++;
		size_t we = w;
		while (we < e && d[we] != ' ' && d[we] != '\t' && d[we] != '\r')
			we++;
		size_t n = we - w;
		if (line == 0) {
			if (n != 3 || memcmp(d + w, "ply", 3) != 0)
				return 0;
		} else {
			size_t k = 0;
			while (k < 6 && !(strlen(words[k]) == n && memcmp(d + w, words[k], n) == 0))
				k++;
			if (k == 6 || (k == 3 && !ply_count_ok(d + we, e - we, len)))
				return 0;
			if (k == 5)
				return 1;
		}
		i = e + 1;
	}
	return 0;
}

static uint32_t le32(const char *d)
{
	const unsigned char *u = (const unsigned char *)d;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/*
 * Whether a binary glTF (a file that starts with "glTF") holds together:
 * its total length within the file, and each chunk (the JSON one first)
 * within that length; glTF 1's binary header, its content within it.
 * Debian's assimp 5.2.5 trusts these lengths: a chunk longer than the file
 * made it allocate 4 GiB, or spend seconds on a 427-byte file, and a
 * garbled version read past its buffer (tests/fuzz/findings/import/).
 */
static int glb_ok(const char *d, size_t len)
{
	if (len < 20)
		return 0;
	const uint32_t version = le32(d + 4), length = le32(d + 8);
	if (length > len || length < 20)
		return 0;
	if (version == 1) /* KHR_binary_glTF: content length, format 0 (JSON) */
		return le32(d + 16) == 0 && le32(d + 12) <= length - 20 &&
		       !memchr(d + 20, 0, le32(d + 12));
	if (version != 2 || memcmp(d + 16, "JSON", 4) != 0)
		return 0;
	for (size_t pos = 12; pos < length;) {
		if (length - pos < 8 || le32(d + pos) > length - pos - 8)
			return 0;
		pos += 8 + (size_t)le32(d + pos);
	}
	return !memchr(d + 20, 0, le32(d + 12)); /* JSON holds no NUL byte */
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
			types |= n == 1 ? aiPrimitiveType_POINT : n == 2 ? aiPrimitiveType_LINE
			       : n == 3 ? aiPrimitiveType_TRIANGLE : aiPrimitiveType_POLYGON;
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
		proto_problem_set(p, 422, strdup(""), "not a mesh file format");
		return p->pointer ? 1 : -1;
	}
	if (len == 0 || len > 0x7fffffff) {
		proto_problem_set(p, 422, strdup(""), len ? "the file is larger than 2 GiB"
		                                          : "the file is empty");
		return p->pointer ? 1 : -1;
	}
	/* assimp picks its reader by the bytes as well: a file of any type
	 * that starts like a PLY is read as one. */
	size_t lead = 0;
	while (lead < len && strchr(" \t\r\n", data[lead]) && data[lead])
		lead++;
	int ply_like = len - lead >= 3 && strncasecmp(data + lead, "ply", 3) == 0;
	if ((f == PROTO_MESH_PLY || ply_like) && !ply_header_ok(data, len)) {
		proto_problem_set(p, 422, strdup(""), "the PLY file's header is not \"ply\", then "
		                  "format, comment, obj_info, element and property lines, then an "
		                  "end_header line (each element's count no larger than the file)");
		return p->pointer ? 1 : -1;
	}
	if ((f == PROTO_MESH_GLB && (len < 4 || memcmp(data, "glTF", 4) != 0)) ||
	    (f == PROTO_MESH_GLTF && (lead == len || data[lead] != '{' || memchr(data, 0, len)))) {
		/* assimp 5.2.5 read past its buffer on such text sent as either
		 * (tests/fuzz/findings/import/gltf-not-json-overread.bin). */
		proto_problem_set(p, 422, strdup(""), f == PROTO_MESH_GLB
		                  ? "a binary glTF starts with \"glTF\""
		                  : "a glTF file is a JSON object (\"{\" first, no NUL byte)");
		return p->pointer ? 1 : -1;
	}
	if (len >= 4 && memcmp(data, "glTF", 4) == 0 && !glb_ok(data, len)) {
		proto_problem_set(p, 422, strdup(""), "the binary glTF's lengths do not fit the "
		                  "file (\"glTF\", version 2, the total length, then chunks of "
		                  "JSON and BIN within it)");
		return p->pointer ? 1 : -1;
	}
	mem_source src = {.data = data, .len = len};
	snprintf(src.name, sizeof src.name, "clashd-mesh.%s", ext);
	struct aiFileIO io = {mem_open, mem_close, (aiUserData)&src};
	import im = {.limits = l, .out = out, .p = p, .which = which};
	pthread_mutex_lock(&assimp_lock);
	im.scene = aiImportFileEx(src.name, aiProcess_ValidateDataStructure, &io);
	if (im.scene && primitive_types(im.scene))
		im.scene = aiApplyPostProcessing(im.scene, aiProcess_Triangulate);
	int r;
	if (!im.scene) {
		const char *why = aiGetErrorString();
		proto_problem_set(p, 422, strdup(""), "assimp cannot read this %s file: %s", ext,
		                  why && *why ? why : "no reason given");
		r = p->pointer ? 1 : -1;
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
