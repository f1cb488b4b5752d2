/*
 * check_import.c — suite "import": mesh files read with libassimp
 * (proto/shapes/mesh_import.c), by `clash import` and by POST /v1/shapes.
 *
 *   read    files written here with known geometry: a unit cube as ASCII and
 *           binary STL, glTF (buffer inline, base64) and glb (both placed
 *           by a node's translation), ASCII and binary PLY; an OBJ of two
 *           named objects.  Positions and triangles compared as sets (assimp
 *           may reorder), each triangle's orientation kept; names; poses;
 *           the limits; bad files (garbage, truncated STL, empty, an OBJ of
 *           points only, a glTF naming a file on disk) with their messages;
 *           imports on several threads at once, each with its own message;
 *   cli     `clash import` writes the document proto writes, exits 0/1/2;
 *   http    POST /v1/shapes with each file: ids computed here with OpenSSL
 *           from the canonical encoding of the shapes `clash import` wrote,
 *           GET of each id, the JSON upload of the same geometry finding it;
 *           every bad file a 422 with its message; other media types 415;
 *           ?units= in each id (the JSON upload with "units" finding it);
 *           --max-vertices and --max-shapes; --request-timeout.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "check.h"
#include "http_harness.h"
#include "mesh_doc.h"
#include "mesh_import.h"
#include "textbuf.h"

/* ---- files with known geometry ---- */

static void tb_printf(textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_printf(textbuf *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf) /* not ck_assert: each passing one is a write to Check's log */
		ck_abort_msg("tb_printf: %d", n);
	va_start(ap, fmt);
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	va_end(ap);
	textbuf_add(t, buf, (size_t)n);
	free(buf);
}

/* Corner i of the unit cube: (i>>2 & 1, i>>1 & 1, i & 1); its twelve
 * triangles counter-clockwise seen from outside. */
static const int cube_tris[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5},
                                     {0, 4, 5}, {0, 5, 1}, {2, 3, 7}, {2, 7, 6},
                                     {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}};

static void corner(int i, float out[3])
{
	out[0] = (float)((i >> 2) & 1);
	out[1] = (float)((i >> 1) & 1);
	out[2] = (float)(i & 1);
}

static char *cube_ascii_stl(size_t *len)
{
	textbuf t = {0};
	tb_printf(&t, "solid cube\n");
	for (int f = 0; f < 12; f++) {
		tb_printf(&t, "  facet normal 0 0 0\n    outer loop\n");
		for (int c = 0; c < 3; c++) {
			float v[3];
			corner(cube_tris[f][c], v);
			tb_printf(&t, "      vertex %g %g %g\n", v[0], v[1], v[2]);
		}
		tb_printf(&t, "    endloop\n  endfacet\n");
	}
	tb_printf(&t, "endsolid cube\n");
	*len = t.len;
	return t.s;
}

static void put_le32(unsigned char *p, uint32_t x)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

static void put_float(unsigned char *p, float x)
{
	uint32_t b;
	memcpy(&b, &x, 4);
	put_le32(p, b);
}

static char *cube_binary_stl(size_t *len)
{
	*len = 84 + 12 * 50;
	unsigned char *b = calloc(1, *len);
	ck_assert_ptr_nonnull(b);
	memcpy(b, "binary cube", 11);
	put_le32(b + 80, 12);
	for (int f = 0; f < 12; f++) {
		unsigned char *rec = b + 84 + 50 * f; /* normal 0, three corners, 2 bytes */
		for (int c = 0; c < 3; c++) {
			float v[3];
			corner(cube_tris[f][c], v);
			for (int k = 0; k < 3; k++)
				put_float(rec + 12 + 12 * c + 4 * k, v[k]);
		}
	}
	return (char *)b;
}

/* The cube ("left", 1-based corners) and a tetrahedron ("right") at x = 5. */
static char *two_objects_obj(size_t *len)
{
	textbuf t = {0};
	tb_printf(&t, "# two objects\no left\n");
	for (int i = 0; i < 8; i++) {
		float v[3];
		corner(i, v);
		tb_printf(&t, "v %g %g %g\n", v[0], v[1], v[2]);
	}
	for (int f = 0; f < 12; f++)
		tb_printf(&t, "f %d %d %d\n", cube_tris[f][0] + 1, cube_tris[f][1] + 1,
		          cube_tris[f][2] + 1);
	tb_printf(&t, "o right\nv 5 0 0\nv 6 0 0\nv 5 1 0\nv 5 0 1\n"
	              "f 9 11 10\nf 9 10 12\nf 9 12 11\nf 10 11 12\n");
	*len = t.len;
	return t.s;
}

static char *ply(int binary, size_t *len)
{
	textbuf t = {0};
	tb_printf(&t,
	          "ply\nformat %s 1.0\nelement vertex 8\nproperty float x\n"
	          "property float y\nproperty float z\nelement face 12\n"
	          "property list uchar int vertex_indices\nend_header\n",
	          binary ? "binary_little_endian" : "ascii");
	for (int i = 0; i < 8; i++) {
		float v[3];
		corner(i, v);
		if (!binary) {
			tb_printf(&t, "%g %g %g\n", v[0], v[1], v[2]);
			continue;
		}
		unsigned char b[12];
		for (int k = 0; k < 3; k++)
			put_float(b + 4 * k, v[k]);
		textbuf_add(&t, (const char *)b, 12);
	}
	for (int f = 0; f < 12; f++) {
		if (!binary) {
			tb_printf(&t, "3 %d %d %d\n", cube_tris[f][0], cube_tris[f][1],
			          cube_tris[f][2]);
			continue;
		}
		unsigned char b[13] = {3};
		for (int c = 0; c < 3; c++)
			put_le32(b + 1 + 4 * c, (uint32_t)cube_tris[f][c]);
		textbuf_add(&t, (const char *)b, 13);
	}
	*len = t.len;
	return t.s;
}

/* The cube's buffer: 8 float positions, then 36 uint16 indices. */
#define CUBE_POS_BYTES 96
#define CUBE_BUF_BYTES (96 + 72)

static void cube_buffer(unsigned char b[CUBE_BUF_BYTES])
{
	for (int i = 0; i < 8; i++) {
		float v[3];
		corner(i, v);
		for (int k = 0; k < 3; k++)
			put_float(b + 12 * i + 4 * k, v[k]);
	}
	for (int f = 0; f < 12; f++)
		for (int c = 0; c < 3; c++) {
			unsigned char *p = b + CUBE_POS_BYTES + 2 * (3 * f + c);
			p[0] = (unsigned char)cube_tris[f][c];
			p[1] = 0;
		}
}

static char *base64(const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc(4 * ((n + 2) / 3) + 1), *w = o;
	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t x = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? p[i + 2] : 0);
		*w++ = a[x >> 18];
		*w++ = a[(x >> 12) & 63];
		*w++ = i + 1 < n ? a[(x >> 6) & 63] : '=';
		*w++ = i + 2 < n ? a[x & 63] : '=';
	}
	*w = '\0';
	return o;
}

/* A glTF 2.0 document: node "box" at (10, 20, 30) placing mesh "cube",
 * and copies - 1 more nodes "box k" placing it again k further along x;
 * its buffer at `uri` (NULL: none, a glb's). */
static char *gltf_nodes(const char *uri, int copies)
{
	textbuf t = {0};
	tb_printf(&t, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[");
	for (int k = 0; k < copies; k++)
		tb_printf(&t, "%s%d", k ? "," : "", k);
	tb_printf(&t, "]}],\"nodes\":[");
	for (int k = 0; k < copies; k++)
		tb_printf(&t, "%s{\"name\":\"box%s%.0d\",\"mesh\":0,\"translation\":[%d,20,30]}",
		          k ? "," : "", k ? " " : "", k, 10 + k);
	tb_printf(&t, "],\"meshes\":[{\"name\":\"cube\",\"primitives\":[{\"attributes\":"
	              "{\"POSITION\":0},\"indices\":1}]}],\"buffers\":[{");
	if (uri)
		tb_printf(&t, "\"uri\":\"%s\",", uri);
	tb_printf(&t,
	          "\"byteLength\":%d}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,"
	          "\"byteLength\":%d},{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d}],"
	          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,"
	          "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,1]},{\"bufferView\":1,"
	          "\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}]}",
	          CUBE_BUF_BYTES, CUBE_POS_BYTES, CUBE_POS_BYTES, CUBE_BUF_BYTES - CUBE_POS_BYTES);
	return t.s;
}

static char *gltf_json(const char *uri)
{
	return gltf_nodes(uri, 1);
}

/* The cube's buffer as a data: URI (static). */
static const char *cube_data_uri(void)
{
	static char uri[512];
	unsigned char buf[CUBE_BUF_BYTES];
	cube_buffer(buf);
	char *b64 = base64(buf, sizeof buf);
	snprintf(uri, sizeof uri, "data:application/octet-stream;base64,%s", b64);
	free(b64);
	return uri;
}

/* The cube placed three times. */
static char *three_boxes_gltf(size_t *len)
{
	char *s = gltf_nodes(cube_data_uri(), 3);
	*len = strlen(s);
	return s;
}

static char *cube_gltf(size_t *len)
{
	char *s = gltf_json(cube_data_uri());
	*len = strlen(s);
	return s;
}

static char *cube_glb(size_t *len)
{
	char *js = gltf_json(NULL);
	size_t jn = strlen(js), jpad = (4 - jn % 4) % 4, bn = CUBE_BUF_BYTES; /* a multiple of 4 */
	*len = 12 + 8 + jn + jpad + 8 + bn;
	unsigned char *b = malloc(*len), *w = b;
	ck_assert_ptr_nonnull(b);
	memcpy(w, "glTF", 4);
	put_le32(w + 4, 2);
	put_le32(w + 8, (uint32_t)*len);
	w += 12;
	put_le32(w, (uint32_t)(jn + jpad));
	memcpy(w + 4, "JSON", 4);
	memcpy(w + 8, js, jn);
	memset(w + 8 + jn, ' ', jpad);
	w += 8 + jn + jpad;
	put_le32(w, (uint32_t)bn);
	memcpy(w + 4, "BIN\0", 4);
	cube_buffer(w + 8);
	free(js);
	return (char *)b;
}

/* ---- what an import must give ---- */

static proto_mesh_set import_ok(const char *data, size_t len, proto_mesh_format f)
{
	proto_mesh_set set;
	proto_problem p = {0};
	int r = proto_mesh_import(data, len, f, NULL, &set, &p, NULL);
	ck_assert_msg(r == 0, "import: %d %s", r, p.detail);
	proto_problem_release(&p);
	return set;
}

/* The corner of the cube at offset `o` a position is, or -1. */
static int corner_of(const double *x, const double o[3])
{
	int id = 0;
	for (int k = 0; k < 3; k++) {
		double c = x[k] - o[k];
		if (c != 0 && c != 1)
			return -1;
		id = 2 * id + (int)c;
	}
	return id;
}

/* A triangle of corners as a key independent of where it starts. */
static int tri_key(const int c[3])
{
	int s = c[0] < c[1] ? (c[0] < c[2] ? 0 : 2) : (c[1] < c[2] ? 1 : 2);
	return 100 * c[s] + 10 * c[(s + 1) % 3] + c[(s + 2) % 3];
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* s is the unit cube moved by o: 8 vertices, each corner once, and its 12
 * triangles, each oriented as written. */
static void assert_cube(const proto_mesh_shape *s, const double o[3])
{
	ck_assert_uint_eq(s->n, 8);
	ck_assert_uint_eq(s->t, 12);
	int seen = 0;
	for (size_t i = 0; i < 8; i++) {
		int c = corner_of(&s->positions[3 * i], o);
		ck_assert_msg(c >= 0, "vertex %zu (%g %g %g) is no corner", i, s->positions[3 * i],
		              s->positions[3 * i + 1], s->positions[3 * i + 2]);
		seen |= 1 << c;
	}
	ck_assert_int_eq(seen, 255);
	int got[12], want[12];
	for (int f = 0; f < 12; f++) {
		int c[3];
		for (int k = 0; k < 3; k++) {
			uint32_t v = s->indices[3 * f + k];
			ck_assert_uint_lt(v, 8);
			c[k] = corner_of(&s->positions[3 * v], o);
		}
		got[f] = tri_key(c);
		want[f] = tri_key(cube_tris[f]);
	}
	qsort(got, 12, sizeof *got, cmp_int);
	qsort(want, 12, sizeof *want, cmp_int);
	for (int f = 0; f < 12; f++)
		ck_assert_int_eq(got[f], want[f]);
}

static void assert_translation(const proto_mesh_shape *s, double x, double y, double z)
{
	const double want[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1};
	for (int k = 0; k < 16; k++)
		ck_assert_msg(s->matrix[k] == want[k], "matrix[%d] = %g, expected %g", k,
		              s->matrix[k], want[k]);
}

static const double origin[3] = {0, 0, 0};

typedef char *(*file_fn)(size_t *len);

static void check_cube_file(file_fn make, proto_mesh_format f, const char *name, double tx,
                            double ty, double tz)
{
	size_t len;
	char *data = make(&len);
	proto_mesh_set set = import_ok(data, len, f);
	ck_assert_uint_eq(set.n, 1);
	assert_cube(&set.shapes[0], origin);
	ck_assert_str_eq(set.shapes[0].name, name);
	assert_translation(&set.shapes[0], tx, ty, tz);
	proto_mesh_set_free(&set);
	free(data);
}

static char *ascii_ply(size_t *len)
{
	return ply(0, len);
}

static char *binary_ply(size_t *len)
{
	return ply(1, len);
}

START_TEST(stl_cubes)
{
	/* Every corner of an STL is written once a triangle: joined, 8. */
	check_cube_file(cube_ascii_stl, PROTO_MESH_STL, "cube", 0, 0, 0);
	check_cube_file(cube_binary_stl, PROTO_MESH_STL, "mesh 0", 0, 0, 0);
}
END_TEST

START_TEST(gltf_cubes_placed)
{
	/* The node's translation is the pose; the node names the shape. */
	check_cube_file(cube_gltf, PROTO_MESH_GLTF, "box", 10, 20, 30);
	check_cube_file(cube_glb, PROTO_MESH_GLB, "box", 10, 20, 30);
}
END_TEST

START_TEST(gltf_instances)
{
	/* One mesh placed by three nodes: three shapes, one geometry. */
	size_t len;
	char *data = three_boxes_gltf(&len);
	proto_mesh_set set = import_ok(data, len, PROTO_MESH_GLTF);
	ck_assert_uint_eq(set.n, 3);
	const char *names[3] = {"box", "box 1", "box 2"};
	for (int k = 0; k < 3; k++) {
		assert_cube(&set.shapes[k], origin);
		ck_assert_str_eq(set.shapes[k].name, names[k]);
		assert_translation(&set.shapes[k], 10 + k, 20, 30);
		ck_assert_mem_eq(set.shapes[k].positions, set.shapes[0].positions,
		                 24 * sizeof(double));
		ck_assert_mem_eq(set.shapes[k].indices, set.shapes[0].indices,
		                 36 * sizeof(uint32_t));
	}
	proto_mesh_set_free(&set);
	free(data);
}
END_TEST

START_TEST(ply_cubes)
{
	check_cube_file(ascii_ply, PROTO_MESH_PLY, "mesh 0", 0, 0, 0);
	check_cube_file(binary_ply, PROTO_MESH_PLY, "mesh 0", 0, 0, 0);
}
END_TEST

START_TEST(obj_two_objects)
{
	size_t len;
	char *data = two_objects_obj(&len);
	proto_mesh_set set = import_ok(data, len, PROTO_MESH_OBJ);
	ck_assert_uint_eq(set.n, 2);
	const proto_mesh_shape *left = &set.shapes[0], *right = &set.shapes[1];
	if (strcmp(left->name, "left") != 0) {
		const proto_mesh_shape *t = left;
		left = right;
		right = t;
	}
	ck_assert_str_eq(left->name, "left");
	ck_assert_str_eq(right->name, "right");
	assert_cube(left, origin);
	assert_translation(left, 0, 0, 0);
	ck_assert_uint_eq(right->n, 4);
	ck_assert_uint_eq(right->t, 4);
	const double tetra[4][3] = {{5, 0, 0}, {6, 0, 0}, {5, 1, 0}, {5, 0, 1}};
	for (int k = 0; k < 4; k++) {
		int found = 0;
		for (size_t i = 0; i < 4; i++)
			found += memcmp(&right->positions[3 * i], tetra[k], sizeof tetra[k]) == 0;
		ck_assert_int_eq(found, 1);
	}
	proto_mesh_set_free(&set);
	free(data);
}
END_TEST

/* The import of a bad file: a 422 at "" whose detail holds `says`. */
static void assert_refused(const char *data, size_t len, proto_mesh_format f,
                           const proto_request_limits *l, const char *says, enum proto_limit limit)
{
	proto_mesh_set set;
	proto_problem p = {0};
	enum proto_limit which = PROTO_LIMIT_DEPTH;
	ck_assert_int_eq(proto_mesh_import(data, len, f, l, &set, &p, &which), 1);
	ck_assert_int_eq(p.status, 422);
	ck_assert_str_eq(p.pointer, "");
	ck_assert_msg(strstr(p.detail, says) != NULL, "detail \"%s\" lacks \"%s\"", p.detail, says);
	ck_assert_int_eq(which, limit);
	ck_assert_uint_eq(set.n, 0);
	proto_problem_release(&p);
}

START_TEST(bad_files)
{
	char garbage[300];
	for (size_t i = 0; i < sizeof garbage; i++)
		garbage[i] = (char)(i * 131 + 7);
	assert_refused(garbage, sizeof garbage, PROTO_MESH_STL, NULL,
	               "assimp cannot read this stl file: ", PROTO_LIMIT_NONE);
	assert_refused(garbage, sizeof garbage, PROTO_MESH_GLB, NULL,
	               "a binary glTF starts with \"glTF\"", PROTO_LIMIT_NONE);
	assert_refused(garbage, sizeof garbage, PROTO_MESH_GLTF, NULL,
	               "a glTF file is a JSON object", PROTO_LIMIT_NONE);
	size_t len;
	char *stl = cube_binary_stl(&len);
	assert_refused(stl, len - 20, PROTO_MESH_STL, NULL, "assimp cannot read", PROTO_LIMIT_NONE);
	free(stl);
	assert_refused("", 0, PROTO_MESH_OBJ, NULL, "the file is empty", PROTO_LIMIT_NONE);
	const char points[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\np 1\np 2\np 3\nl 1 2\n";
	assert_refused(points, sizeof points - 1, PROTO_MESH_OBJ, NULL, "no triangle",
	               PROTO_LIMIT_NONE);
	/* Nothing a file names is read from disk. */
	char *outside = gltf_json("/etc/passwd");
	assert_refused(outside, strlen(outside), PROTO_MESH_GLTF, NULL,
	               "could not open referenced file", PROTO_LIMIT_NONE);
	free(outside);
}
END_TEST

/* Fuzz finding (tests/fuzz/findings/import/ply-short-face-abort.bin): an
 * ASCII PLY whose last face is cut short made assimp 5.2.5 flag a mesh as
 * holding polygons without any, and its triangulation's assertion aborted
 * the process (clashd with it).  Now the flags are set from the faces
 * before triangulation: the file is read, its good faces kept; a quad is
 * still split in two. */
START_TEST(ply_short_face)
{
	static const char ply[] = "ply\nformat ascii 1.0\nelement vertex 4\n"
				  "property float x\nproperty float y\nproperty float z\n"
				  "element face 4\nproperty list uchar int vertex_indices\n"
				  "end_header\n0 0 0\355\316\337\317 0\n0 1 0\n0 0 1\n"
				  "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 scii 1.0\n"
				  "element vertex 4\nproperty float x\npro2 3\n";
	proto_mesh_set set = import_ok(ply, sizeof ply - 1, PROTO_MESH_PLY);
	ck_assert_uint_eq(set.n, 1);
	ck_assert_uint_eq(set.shapes[0].t, 2);
	proto_mesh_set_free(&set);
	/* (ply-no-end-header-hang.bin) A header without its end_header line:
	 * assimp read it forever; now refused before assimp sees it. */
	static const char open_header[] = "ply\nformat ascii 1.0\nelement vertex 1\n"
					  "property float x\ncomment end_header\n0\n";
	assert_refused(open_header, sizeof open_header - 1, PROTO_MESH_PLY, NULL,
	               "then an end_header line", PROTO_LIMIT_NONE);
	/* (ply-broken-header-line-hang.bin) Sent as a GLB: assimp reads by
	 * the bytes, so a file that starts like a PLY is checked as one. */
	static const char broken[] = "ply\nformat ascii 1.0\nelement vertex 1\n"
				     "propert: 0 0\nend_header\n0\n";
	assert_refused(broken, sizeof broken - 1, PROTO_MESH_GLB, NULL, "then an end_header line",
	               PROTO_LIMIT_NONE);
	static const char quad[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
	set = import_ok(quad, sizeof quad - 1, PROTO_MESH_OBJ);
	ck_assert_uint_eq(set.shapes[0].t, 2);
	proto_mesh_set_free(&set);
}
END_TEST

/* Fuzz findings (tests/fuzz/findings/import/): text that
 * is neither JSON nor a binary glTF, sent as either, made assimp 5.2.5
 * read past its buffer (gltf-not-json-overread.bin); a PLY declaring 10^110
 * faces in 379 bytes ran it out of memory (ply-huge-count-oom.bin).  Both
 * are refused before assimp sees them now; the good files still read. */
START_TEST(gltf_and_ply_checks)
{
	static const char not_json[] = "glTblEndersset\":{\0geometrynode\0000\211\211\342\342"
				       "\"componentType\":5123";
	assert_refused(not_json, sizeof not_json - 1, PROTO_MESH_GLB, NULL,
	               "a binary glTF starts with \"glTF\"", PROTO_LIMIT_NONE);
	assert_refused(not_json, sizeof not_json - 1, PROTO_MESH_GLTF, NULL,
	               "a glTF file is a JSON object", PROTO_LIMIT_NONE);
	static const char with_nul[] = " {\"asset\": {\"version\": \"2.0\"}\0}";
	assert_refused(with_nul, sizeof with_nul - 1, PROTO_MESH_GLTF, NULL, "no NUL byte",
	               PROTO_LIMIT_NONE);
	/* An OBJ holding NUL bytes in a vertex line corrupted assimp's heap
	 * (obj-nul-vertex-heap.bin); the same text without them reads. */
	static const char obj_nul[] = "o tetra\nv 0 0 0\nv 1 0 0\nv \0\0\0 0 1 0\nv 0 0 1\n"
				      "f 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n";
	assert_refused(obj_nul, sizeof obj_nul - 1, PROTO_MESH_OBJ, NULL,
	               "an OBJ file is text: it holds no NUL byte", PROTO_LIMIT_NONE);
	static const char obj_text[] = "o tetra\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
				       "f 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n";
	proto_mesh_set tetra = import_ok(obj_text, sizeof obj_text - 1, PROTO_MESH_OBJ);
	ck_assert_uint_eq(tetra.shapes[0].t, 4);
	proto_mesh_set_free(&tetra);
	static const char huge[] = "ply\nformat ascii 1.0\nelement vertex 3\n"
				   "property float x\nproperty float y\nproperty float z\n"
				   "element face 43333333333333333333333333333333333333\n"
				   "property list uchar int vertex_indices\nend_header\n"
				   "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
	assert_refused(huge, sizeof huge - 1, PROTO_MESH_PLY, NULL,
	               "each element's count no larger than the file", PROTO_LIMIT_NONE);
	/* The same file with its true count reads. */
	char fine[sizeof huge];
	memcpy(fine, huge, sizeof huge);
	char *at = strstr(fine, "face 4");
	memmove(at + 6, at + 6 + 37, strlen(at + 6 + 37) + 1);
	at[5] = '1';
	proto_mesh_set set = import_ok(fine, strlen(fine), PROTO_MESH_PLY);
	ck_assert_uint_eq(set.shapes[0].t, 1);
	proto_mesh_set_free(&set);
}
END_TEST

/* Fuzz findings (tests/fuzz/findings/import/glb-*.bin): assimp 5.2.5
 * trusted a binary glTF's lengths.  A JSON chunk of 0xfc0001cc bytes in a
 * 150-byte file made it allocate 4 GiB; one of 0x1cc00 bytes took seconds;
 * a garbled version read past a buffer.  Now a file that starts with
 * "glTF" must have its total length and each chunk within the file. */
START_TEST(glb_lengths)
{
	size_t len;
	char *glb = cube_glb(&len);
	proto_mesh_set set = import_ok(glb, len, PROTO_MESH_GLB);
	proto_mesh_set_free(&set);
	static const struct {
		size_t at;
		uint32_t value;
	} breaks[] = {
		{4, 0x66646e02},  /* version */
		{8, 0},           /* total length */
		{12, 0xfc0001cc}, /* the JSON chunk's length */
		{12, 0x1cc00},
	};
	for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
		char *bad = malloc(len);
		ck_assert_ptr_nonnull(bad);
		memcpy(bad, glb, len);
		put_le32((unsigned char *)bad + breaks[i].at, breaks[i].value);
		/* Whatever type it is sent as: assimp reads by the bytes too. */
		assert_refused(bad, len, i % 2 ? PROTO_MESH_OBJ : PROTO_MESH_GLB, NULL,
		               "lengths do not fit", PROTO_LIMIT_NONE);
		free(bad);
	}
	/* The BIN chunk running past the end. */
	put_le32((unsigned char *)glb + len - CUBE_BUF_BYTES - 8, CUBE_BUF_BYTES + 4);
	assert_refused(glb, len, PROTO_MESH_GLB, NULL, "lengths do not fit", PROTO_LIMIT_NONE);
	free(glb);
}
END_TEST

/* A glTF 2.0 document placing the cube by the node graph `nodes` (JSON
 * array members), the default scene's roots `roots`. */
static char *gltf_graph(const char *roots, const char *nodes)
{
	textbuf t = {0};
	tb_printf(&t,
	          "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[%s]}],"
	          "\"nodes\":[%s],\"meshes\":[{\"name\":\"cube\",\"primitives\":[{"
	          "\"attributes\":{\"POSITION\":0},\"indices\":1}]}],\"buffers\":[{\"uri\":"
	          "\"%s\",\"byteLength\":%d}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,"
	          "\"byteLength\":%d},{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d}],"
	          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,"
	          "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,1]},{\"bufferView\":1,"
	          "\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}]}",
	          roots, nodes, cube_data_uri(), CUBE_BUF_BYTES, CUBE_POS_BYTES, CUBE_POS_BYTES,
	          CUBE_BUF_BYTES - CUBE_POS_BYTES);
	return t.s;
}

/* A chain of `levels` nodes below the root, each listing the next `fan`
 * times; the last places the cube. */
static char *gltf_chain(int levels, int fan)
{
	textbuf t = {0};
	for (int i = 0; i < levels; i++) {
		tb_printf(&t, "%s{\"children\":[", i ? "," : "");
		for (int k = 0; k < fan; k++)
			tb_printf(&t, "%s%d", k ? "," : "", i + 1);
		tb_printf(&t, "]}");
	}
	tb_printf(&t, "%s{\"mesh\":0}", levels ? "," : "");
	char *doc = gltf_graph("0", t.s);
	free(t.s);
	return doc;
}

static void assert_gltf_refused(char *doc, const char *says)
{
	assert_refused(doc, strlen(doc), PROTO_MESH_GLTF, NULL, says, PROTO_LIMIT_NONE);
	free(doc);
}

/* assimp expands a node graph into a tree: 13 nodes that each list the
 * next four times makes 4^12 placements (gigabytes).
 * glTF 2.0 section 3.5.3: nodes form strict trees. */
START_TEST(gltf_node_graphs)
{
	assert_gltf_refused(gltf_chain(12, 4), "node 1 is listed as a child more than once");
	assert_gltf_refused(gltf_graph("0", "{\"children\":[1,1]},{\"mesh\":0}"),
	                    "listed as a child more than once");
	assert_gltf_refused(gltf_graph("0", "{\"mesh\":0},{\"children\":[2]},{\"children\":[1]}"),
	                    "its own ancestor");
	assert_gltf_refused(gltf_graph("0", "{\"children\":[1]},{\"children\":[0],\"mesh\":0}"),
	                    "a root and a child");
	assert_gltf_refused(gltf_graph("0,0", "{\"mesh\":0}"), "a scene's root twice");
	assert_gltf_refused(gltf_chain(257, 1), "nested deeper than 256");
	/* The same trees without the sharing read, one placement each. */
	const int levels[] = {12, 256};
	for (int i = 0; i < 2; i++) {
		char *doc = gltf_chain(levels[i], 1);
		proto_mesh_set set = import_ok(doc, strlen(doc), PROTO_MESH_GLTF);
		ck_assert_uint_eq(set.n, 1);
		assert_cube(&set.shapes[0], origin);
		proto_mesh_set_free(&set);
		free(doc);
	}
}
END_TEST

/* A PLY's lists are reserved by assimp at their declared length: 2^29
 * indices in a 163-byte file take 4 GiB.  Each list must fit
 * in the rest of the file, in each of the three formats. */
START_TEST(ply_list_lengths)
{
	static const char head[] = "ply\nformat %s 1.0\nelement vertex 3\nproperty float x\n"
				   "property float y\nproperty float z\nelement face 1\n"
				   "property list %s int vertex_indices\nend_header\n";
	char text[512];
	int n = snprintf(text, sizeof text, head, "ascii", "uchar");
	snprintf(text + n, sizeof text - (size_t)n, "0 0 0\n1 0 0\n0 1 0\n536870912 0 1 2\n");
	assert_refused(text, strlen(text), PROTO_MESH_PLY, NULL, "a list longer than the rest",
	               PROTO_LIMIT_NONE);
	/* Sent as another type: assimp reads a PLY by its bytes. */
	assert_refused(text, strlen(text), PROTO_MESH_STL, NULL, "a list longer than the rest",
	               PROTO_LIMIT_NONE);
	const char *formats[] = {"binary_little_endian", "binary_big_endian"};
	for (int f = 0; f < 2; f++)
		for (int count = 0; count < 3; count++) { /* 2^29, -1, then the true 3 */
			unsigned char b[512];
			n = snprintf((char *)b, sizeof b, head, formats[f], "int");
			unsigned char *w = b + n;
			for (int k = 0; k < 9; k++, w += 4)
				put_float(w, (float)(k == 3 || k == 7));
			uint32_t c = count == 0 ? 1u << 29 : count == 1 ? 0xffffffffu : 3;
			uint32_t words[4] = {c, 0, 1, 2};
			for (int k = 0; k < 4; k++, w += 4) {
				put_le32(w, words[k]);
				if (f == 1) { /* big-endian */
					unsigned char x = w[0], y = w[1];
					w[0] = w[3], w[1] = w[2], w[2] = y, w[3] = x;
				}
			}
			size_t len = (size_t)(w - b);
			if (count < 2) {
				assert_refused((char *)b, len, PROTO_MESH_PLY, NULL,
				               "a list longer than the rest", PROTO_LIMIT_NONE);
				continue;
			}
			proto_mesh_set set = import_ok((char *)b, len, PROTO_MESH_PLY);
			ck_assert_uint_eq(set.shapes[0].t, 1);
			proto_mesh_set_free(&set);
		}
}
END_TEST

/* An OBJ of one polygon of n corners on a circle (`polygons` copies of
 * it, each on its own vertices). */
static char *obj_polygons(int corners, int polygons, size_t *len)
{
	textbuf t = {0};
	for (int p = 0; p < polygons; p++)
		for (int i = 0; i < corners; i++)
			tb_printf(&t, "v %.9f %.9f %d\n", cos(2 * M_PI * i / corners),
			          sin(2 * M_PI * i / corners), p);
	for (int p = 0; p < polygons; p++) {
		tb_printf(&t, "f");
		for (int i = 0; i < corners; i++)
			tb_printf(&t, " %d", p * corners + i + 1);
		tb_printf(&t, "\n");
	}
	*len = t.len;
	return t.s;
}

/* assimp triangulates a polygon in time that grows with the square of its
 * corners (eight of 32 000 take minutes): the squares may add up
 * to PROTO_MESH_POLYGON_BUDGET, 2^26. */
START_TEST(polygon_budget)
{
	size_t len;
	char *obj = obj_polygons(8192, 1, &len); /* 8192^2 = 2^26: within */
	proto_mesh_set set = import_ok(obj, len, PROTO_MESH_OBJ);
	ck_assert_uint_eq(set.shapes[0].t, 8190); /* a convex polygon: n - 2 triangles */
	proto_mesh_set_free(&set);
	free(obj);
	obj = obj_polygons(8193, 1, &len);
	assert_refused(obj, len, PROTO_MESH_OBJ, NULL, "polygons are too large", PROTO_LIMIT_NONE);
	free(obj);
	obj = obj_polygons(128, 4097, &len); /* 4097 x 2^14 > 2^26 */
	assert_refused(obj, len, PROTO_MESH_OBJ, NULL, "polygons are too large", PROTO_LIMIT_NONE);
	free(obj);
	obj = obj_polygons(128, 4096, &len);
	set = import_ok(obj, len, PROTO_MESH_OBJ);
	proto_mesh_set_free(&set);
	free(obj);
	/* A PLY face is triangulated the same way. */
	textbuf t = {0};
	tb_printf(&t, "ply\nformat ascii 1.0\nelement vertex 9000\nproperty float x\n"
	              "property float y\nproperty float z\nelement face 1\n"
	              "property list ushort int vertex_indices\nend_header\n");
	for (int i = 0; i < 9000; i++)
		tb_printf(&t, "%.9f %.9f 0\n", cos(2 * M_PI * i / 9000), sin(2 * M_PI * i / 9000));
	tb_printf(&t, "9000");
	for (int i = 0; i < 9000; i++)
		tb_printf(&t, " %d", i);
	tb_printf(&t, "\n");
	assert_refused(t.s, t.len, PROTO_MESH_PLY, NULL, "polygons are too large",
	               PROTO_LIMIT_NONE);
	free(t.s);
}
END_TEST

START_TEST(limits)
{
	size_t len;
	char *obj = two_objects_obj(&len);
	proto_request_limits l = {.max_vertices = 11}; /* 8 + 4 in all */
	assert_refused(obj, len, PROTO_MESH_OBJ, &l, "more than 11 vertices", PROTO_LIMIT_VERTICES);
	l.max_vertices = 12;
	proto_mesh_set set;
	proto_problem p = {0};
	ck_assert_int_eq(proto_mesh_import(obj, len, PROTO_MESH_OBJ, &l, &set, &p, NULL), 0);
	proto_mesh_set_free(&set);
	l = (proto_request_limits){.max_shapes = 1};
	assert_refused(obj, len, PROTO_MESH_OBJ, &l, "more than 1 meshes", PROTO_LIMIT_SHAPES);
	free(obj);
}
END_TEST

/* Imports on several threads at once: each gets its own answer (assimp's
 * error message is process-wide, proto takes turns). */
typedef struct racer {
	int bad;
	int ok;
} racer;

static void *race(void *arg)
{
	racer *r = arg;
	size_t len;
	char *stl = cube_binary_stl(&len);
	r->ok = 1;
	for (int i = 0; i < 40 && r->ok; i++) {
		proto_mesh_set set;
		proto_problem p = {0};
		if (r->bad) {
			r->ok = proto_mesh_import("solid x\nfacet", 13, PROTO_MESH_STL, NULL, &set,
			                          &p, NULL) == 1 &&
			        strstr(p.detail, "assimp cannot read this stl file") != NULL;
			const char bad_obj[] = "v 0 0 0\nf 1 2 3\n";
			proto_problem_release(&p);
			r->ok &= proto_mesh_import(bad_obj, sizeof bad_obj - 1, PROTO_MESH_OBJ,
			                           NULL, &set, &p, NULL) == 1 &&
			         strstr(p.detail, "obj file") != NULL;
		} else {
			r->ok = proto_mesh_import(stl, len, PROTO_MESH_STL, NULL, &set, &p, NULL) ==
			                0 &&
			        set.n == 1 && set.shapes[0].n == 8;
			proto_mesh_set_free(&set);
		}
		proto_problem_release(&p);
	}
	free(stl);
	return NULL;
}

START_TEST(threads)
{
	pthread_t t[4];
	racer r[4] = {{0, 0}, {1, 0}, {0, 0}, {1, 0}};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(r[i].ok, "thread %d (%s files) went wrong", i,
		              r[i].bad ? "bad" : "good");
	}
}
END_TEST

/* ---- clash import ---- */

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/check-import-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write a file into the test's directory; its path (static). */
static const char *write_file(const char *name, const char *data, size_t len)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

typedef struct run {
	int status; /* exit status, or -1 */
	char *out, *err;
} run;

static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	textbuf t = {0};
	char buf[4096];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
		textbuf_add(&t, buf, n);
	if (f)
		fclose(f);
	textbuf_add(&t, "", 0);
	return t.s ? t.s : strdup("");
}

/* `clash import ARGS` through sh. */
static run clash_import(const char *args)
{
	char cmd[1024], err[128];
	snprintf(err, sizeof err, "%s/stderr", dir);
	snprintf(cmd, sizeof cmd, "'%s/clash' import %s 2>'%s'", check_build_dir(), args, err);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	textbuf t = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		textbuf_add(&t, buf, n);
	textbuf_add(&t, "", 0);
	int st = pclose(p);
	run r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, t.s ? t.s : strdup(""), slurp_file(err)};
	return r;
}

static void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

/* The document proto writes for a file, and a newline. */
static char *document_of(const char *data, size_t len, proto_mesh_format f)
{
	proto_mesh_set set = import_ok(data, len, f);
	size_t n;
	char *doc = proto_mesh_document_text(&set, &n);
	ck_assert_ptr_nonnull(doc);
	proto_mesh_set_free(&set);
	char *line = malloc(n + 2);
	memcpy(line, doc, n);
	memcpy(line + n, "\n", 2);
	free(doc);
	return line;
}

START_TEST(cli_writes_the_document)
{
	make_dir();
	struct {
		const char *name;
		file_fn make;
		proto_mesh_format f;
		const char *summary;
	} files[] = {
		{"cube.stl", cube_ascii_stl, PROTO_MESH_STL, "1 shape, 8 vertices, 12 triangles"},
		{"CUBE.STL", cube_binary_stl, PROTO_MESH_STL, "1 shape, 8 vertices, 12 triangles"},
		{"two.obj", two_objects_obj, PROTO_MESH_OBJ, "2 shapes, 12 vertices, 16 triangles"},
		{"cube.gltf", cube_gltf, PROTO_MESH_GLTF, "1 shape, 8 vertices, 12 triangles"},
		{"cube.glb", cube_glb, PROTO_MESH_GLB, "1 shape, 8 vertices, 12 triangles"},
		{"cube.ply", binary_ply, PROTO_MESH_PLY, "1 shape, 8 vertices, 12 triangles"},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		char *data = files[i].make(&len);
		const char *path = write_file(files[i].name, data, len);
		char *want = document_of(data, len, files[i].f);
		char args[256], summary[128];
		snprintf(args, sizeof args, "'%s'", path);
		run r = clash_import(args);
		ck_assert_msg(r.status == 0, "%s: exit %d: %s", files[i].name, r.status, r.err);
		ck_assert_str_eq(r.out, want);
		snprintf(summary, sizeof summary, "clash import: %s\n", files[i].summary);
		ck_assert_str_eq(r.err, summary);
		run_free(&r);
		/* Standard input, with --format. */
		snprintf(args, sizeof args, "--format %s - < '%s'", strrchr(files[i].name, '.') + 1,
		         path);
		r = clash_import(args);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.out, want);
		run_free(&r);
		/* The document parses, as JSON Lines would. */
		json_error_t e;
		json_t *doc = json_loads(want, 0, &e);
		ck_assert_msg(doc != NULL, "%s: %s", files[i].name, e.text);
		json_decref(doc);
		free(want);
		free(data);
	}
	remove_dir();
}
END_TEST

START_TEST(cli_problems_and_usage)
{
	make_dir();
	/* A file assimp cannot read: its problem on stdout, exit 1. */
	const char *path = write_file("junk.stl", "not a mesh at all, not even close", 33);
	char args[256];
	snprintf(args, sizeof args, "'%s'", path);
	run r = clash_import(args);
	ck_assert_int_eq(r.status, 1);
	json_t *p = json_loads(r.out, 0, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "status")), 422);
	ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "detail")),
	                             "assimp cannot read this stl file"));
	json_decref(p);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	/* A format it cannot tell, one it does not know, no file: exit 2. */
	path = write_file("cube.3mf", "x", 1);
	snprintf(args, sizeof args, "'%s'", path);
	r = clash_import(args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "give --format"));
	run_free(&r);
	r = clash_import("--format 3mf -");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "expected stl, obj, glb, gltf or ply"));
	run_free(&r);
	r = clash_import("");
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	snprintf(args, sizeof args, "'%s/none.stl'", dir);
	r = clash_import(args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot open"));
	run_free(&r);
	remove_dir();
}
END_TEST

/* ---- POST /v1/shapes ---- */

/* The id of a mesh from the canonical encoding (openapi.yaml, ShapeId),
 * with its units' byte (1 mm, 2 cm, 3 m, 4 in; 0: none) after node 0x10. */
static void mesh_id_in(const json_t *mesh, int units, char out[72])
{
	const json_t *pos = json_object_get(mesh, "positions");
	const json_t *idx = json_object_get(mesh, "indices");
	size_t n = json_array_size(pos) / 3, t = json_array_size(idx) / 3;
	size_t len = 15 + 1 + (units ? 2 : 0) + 1 + 8 + 24 * n + 8 + 12 * t + 8;
	unsigned char *b = malloc(len), *w = b;
	ck_assert_ptr_nonnull(b);
	memcpy(w, "clashd-shape-v1", 15);
	w += 15;
	*w++ = 3;
	if (units) {
		*w++ = 0x10;
		*w++ = (unsigned char)units;
	}
	*w++ = 3;
	for (int i = 0; i < 8; i++)
		*w++ = (unsigned char)((uint64_t)n >> (8 * i));
	for (size_t i = 0; i < 3 * n; i++) {
		double x = json_number_value(json_array_get(pos, i));
		if (x == 0)
			x = 0.0;
		uint64_t bits;
		memcpy(&bits, &x, 8);
		for (int k = 0; k < 8; k++)
			*w++ = (unsigned char)(bits >> (8 * k));
	}
	for (int i = 0; i < 8; i++)
		*w++ = (unsigned char)((uint64_t)t >> (8 * i));
	for (size_t i = 0; i < 3 * t; i++) {
		put_le32(w, (uint32_t)json_integer_value(json_array_get(idx, i)));
		w += 4;
	}
	memset(w, 0, 8); /* radius 0 */
	w += 8;
	ck_assert_uint_eq((size_t)(w - b), len);
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256(b, len, md);
	free(b);
	char *o = out + sprintf(out, "sha256:");
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
		o += sprintf(o, "%02x", md[i]);
}

static void mesh_id(const json_t *mesh, char out[72])
{
	mesh_id_in(mesh, 0, out);
}

static void post_file(const char *type, const char *data, size_t len, hresp *r)
{
	char headers[128];
	snprintf(headers, sizeof headers, "Content-Type: %s\r\n", type);
	http_do("POST", "/v1/shapes", headers, data, len, r);
}

/* Import the file over HTTP: the answer (status `want`) lists the shapes
 * `clash import` writes for it, in order, with their ids and poses; each is
 * then stored (GET 200), and the JSON upload of its geometry finds it. */
static void assert_imported(const char *type, file_fn make, proto_mesh_format f, int want)
{
	size_t len;
	char *data = make(&len);
	char *doc_text = document_of(data, len, f);
	json_t *doc = json_loads(doc_text, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	hresp r;
	post_file(type, data, len, &r);
	ck_assert_msg(r.status == want, "%s: %d %s", type, r.status, r.body);
	char ct[128];
	ck_assert_str_eq(hresp_header(&r, "Content-Type", ct, sizeof ct), "application/json");
	json_t *got = json_loads(r.body, 0, NULL);
	ck_assert_ptr_nonnull(got);
	const json_t *shapes = json_object_get(got, "shapes");
	const json_t *wanted = json_object_get(doc, "shapes");
	ck_assert_uint_eq(json_array_size(shapes), json_array_size(wanted));
	for (size_t i = 0; i < json_array_size(shapes); i++) {
		const json_t *s = json_array_get(shapes, i), *w = json_array_get(wanted, i);
		ck_assert_str_eq(json_string_value(json_object_get(s, "name")),
		                 json_string_value(json_object_get(w, "name")));
		ck_assert(json_equal(json_object_get(s, "pose"), json_object_get(w, "pose")));
		char id[72];
		mesh_id(json_object_get(w, "mesh"), id);
		ck_assert_str_eq(json_string_value(json_object_get(s, "id")), id);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "dim")), 3);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "vertices")),
		                 (json_int_t)json_array_size(
					 json_object_get(json_object_get(w, "mesh"), "positions")) /
		                         3);
		ck_assert_ptr_nonnull(json_object_get(s, "bytes"));
		char path[128];
		snprintf(path, sizeof path, "/v1/shapes/%s", id);
		hresp g;
		http_do("GET", path, NULL, NULL, 0, &g);
		ck_assert_msg(g.status == 200, "GET %s: %d", path, g.status);
		hresp_free(&g);
		/* The same geometry as JSON: already there, the same id. */
		json_t *geometry = json_pack("{s:O}", "mesh", json_object_get(w, "mesh"));
		char *body = json_dumps(geometry, JSON_COMPACT | JSON_REAL_PRECISION(17));
		http_do("POST", "/v1/shapes", JSON_HEADERS, body, strlen(body), &g);
		ck_assert_msg(g.status == 200, "JSON upload: %d %s", g.status, g.body);
		json_t *sum = json_loads(g.body, 0, NULL);
		ck_assert_str_eq(json_string_value(json_object_get(sum, "id")), id);
		json_decref(sum);
		hresp_free(&g);
		free(body);
		json_decref(geometry);
	}
	json_decref(got);
	json_decref(doc);
	hresp_free(&r);
	free(doc_text);
	free(data);
}

START_TEST(http_import)
{
	server_start();
	assert_imported("model/stl", cube_ascii_stl, PROTO_MESH_STL, 201);
	/* The binary STL of the same cube, in the same order: the same id. */
	assert_imported("model/stl", cube_binary_stl, PROTO_MESH_STL, 200);
	assert_imported("model/obj", two_objects_obj, PROTO_MESH_OBJ, 201);
	assert_imported("Model/GLTF+JSON; charset=utf-8", cube_gltf, PROTO_MESH_GLTF, 200);
	assert_imported("model/gltf-binary", cube_glb, PROTO_MESH_GLB, 200);
	assert_imported("application/x-ply", binary_ply, PROTO_MESH_PLY, 200);
	assert_imported("model/gltf+json", three_boxes_gltf, PROTO_MESH_GLTF, 200);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

/* ?units=u stores each shape of the file as the JSON upload of its
 * geometry with "units": u (the id computed here with the units' byte,
 * found again by that JSON upload), echoed in each summary and beside the
 * shapes; a stored shape named by ref then speaks that unit (a query in
 * another is a 422).  A name not in the list is a 422 at "/units", as the
 * member is; the parameter with a JSON body is a 422. */
START_TEST(http_import_units)
{
	server_start();
	size_t len;
	char *obj = two_objects_obj(&len);
	char *doc_text = document_of(obj, len, PROTO_MESH_OBJ);
	json_t *doc = json_loads(doc_text, 0, NULL);
	const json_t *wanted = json_object_get(doc, "shapes");
	ck_assert_uint_eq(json_array_size(wanted), 2);
	const char *names[] = {NULL, "mm", "cm", "m", "in"};
	char ids[5][2][72];
	for (int u = 0; u < 5; u++) {
		char path[64];
		snprintf(path, sizeof path, "/v1/shapes%s%s", u ? "?units=" : "",
		         u ? names[u] : "");
		hresp r;
		http_do("POST", path, "Content-Type: model/obj\r\n", obj, len, &r);
		ck_assert_msg(r.status == 201, "%s: %d %s", path, r.status, r.body);
		json_t *got = json_loads(r.body, 0, NULL);
		const json_t *units = json_object_get(got, "units");
		if (u)
			ck_assert_str_eq(json_string_value(units), names[u]);
		else
			ck_assert_ptr_null(units);
		const json_t *shapes = json_object_get(got, "shapes");
		ck_assert_uint_eq(json_array_size(shapes), 2);
		for (size_t i = 0; i < 2; i++) {
			const json_t *sh = json_array_get(shapes, i);
			const json_t *mesh = json_object_get(json_array_get(wanted, i), "mesh");
			mesh_id_in(mesh, u, ids[u][i]);
			ck_assert_str_eq(json_string_value(json_object_get(sh, "id")), ids[u][i]);
			if (u)
				ck_assert_str_eq(json_string_value(json_object_get(sh, "units")),
				                 names[u]);
			else
				ck_assert_ptr_null(json_object_get(sh, "units"));
			for (int v = 0; v < u; v++)
				ck_assert_str_ne(ids[u][i], ids[v][i]);
			/* The JSON upload of the same mesh with those units: found. */
			json_t *geometry = json_pack("{s:O}", "mesh", mesh);
			if (u)
				json_object_set_new(geometry, "units", json_string(names[u]));
			char *body = json_dumps(geometry, JSON_COMPACT | JSON_REAL_PRECISION(17));
			hresp g;
			http_do("POST", "/v1/shapes", JSON_HEADERS, body, strlen(body), &g);
			ck_assert_msg(g.status == 200, "JSON upload: %d %s", g.status, g.body);
			json_t *sum = json_loads(g.body, 0, NULL);
			ck_assert_str_eq(json_string_value(json_object_get(sum, "id")), ids[u][i]);
			json_decref(sum);
			hresp_free(&g);
			free(body);
			json_decref(geometry);
		}
		json_decref(got);
		hresp_free(&r);
	}
	/* The shape stored in mm speaks mm: with a sphere in inches, a 422 at
	 * the sphere's units; in mm, an answer that echoes them. */
	for (int same = 0; same < 2; same++) {
		char body[400];
		snprintf(
			body, sizeof body,
			"{\"a\":{\"ref\":\"%s\"},\"b\":{\"sphere\":{\"radius\":0.1},\"units\":\"%s\"}}",
			ids[1][0], same ? "mm" : "in");
		int status;
		char *x = http_post_json("/v1/query", body, &status);
		ck_assert_msg(status == (same ? 200 : 422), "%d %s", status, x);
		json_t *j = json_loads(x, 0, NULL);
		if (same) {
			ck_assert_str_eq(json_string_value(json_object_get(j, "units")), "mm");
		} else {
			ck_assert_str_eq(json_string_value(json_object_get(j, "pointer")),
			                 "/b/units");
			ck_assert_ptr_nonnull(
				strstr(json_string_value(json_object_get(j, "detail")), "\"mm\""));
		}
		json_decref(j);
		free(x);
	}
	const char *bad[] = {"ft",     "MM",       "mm%20",
	                     "",       "%22mm%22", "millimetres-of-a-very-long-name",
	                     "%C2%B5m"};
	const char *shown[] = {"got \"ft\"", "got \"MM\"", NULL, NULL, NULL, NULL, NULL};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char path[96];
		snprintf(path, sizeof path, "/v1/shapes?units=%s", bad[i]);
		hresp r;
		http_do("POST", path, "Content-Type: model/obj\r\n", obj, len, &r);
		json_t *p = assert_problem(&r, 422);
		ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "/units");
		const char *detail = json_string_value(json_object_get(p, "detail"));
		ck_assert_msg(strstr(detail, "query parameter units"), "%s: %s", path, detail);
		ck_assert_msg(!shown[i] ? !strstr(detail, "got") : strstr(detail, shown[i]) != NULL,
		              "%s: %s", path, detail);
		json_decref(p);
		hresp_free(&r);
	}
	/* A JSON upload says its own units. */
	hresp r;
	const char tetra[] = "{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}";
	http_do("POST", "/v1/shapes?units=mm", JSON_HEADERS, tetra, sizeof tetra - 1, &r);
	json_t *p = assert_problem(&r, 422);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "detail")),
	                             "query parameter units is for mesh files"));
	json_decref(p);
	hresp_free(&r);
	json_decref(doc);
	free(doc_text);
	free(obj);
	assert_still_serving();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static void assert_import_refused(const char *type, const char *data, size_t len, int status,
                                  const char *says)
{
	hresp r;
	post_file(type, data, len, &r);
	json_t *p = assert_problem(&r, status);
	const char *detail = json_string_value(json_object_get(p, "detail"));
	ck_assert_msg(detail && strstr(detail, says), "%s: \"%s\" lacks \"%s\"", type, detail,
	              says);
	if (status == 422)
		ck_assert_str_eq(json_string_value(json_object_get(p, "pointer")), "");
	json_decref(p);
	hresp_free(&r);
}

START_TEST(http_bad_files)
{
	server_start();
	char garbage[300];
	for (size_t i = 0; i < sizeof garbage; i++)
		garbage[i] = (char)(i * 131 + 7);
	assert_import_refused("model/stl", garbage, sizeof garbage, 422,
	                      "assimp cannot read this stl file");
	assert_import_refused("model/gltf-binary", garbage, sizeof garbage, 422,
	                      "a binary glTF starts with");
	assert_import_refused("model/obj", garbage, sizeof garbage, 422,
	                      "an OBJ file is text: it holds no NUL byte");
	char text_garbage[sizeof garbage];
	for (size_t i = 0; i < sizeof garbage; i++)
		text_garbage[i] = garbage[i] ? garbage[i] : 'x';
	assert_import_refused("model/obj", text_garbage, sizeof text_garbage, 422,
	                      "assimp cannot read this obj file");
	size_t len;
	char *stl = cube_binary_stl(&len);
	assert_import_refused("model/stl", stl, len - 20, 422, "assimp cannot read");
	free(stl);
	assert_import_refused("model/obj", "", 0, 422, "the file is empty");
	const char points[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\np 1\np 2\np 3\n";
	assert_import_refused("model/obj", points, sizeof points - 1, 422, "no triangle");
	char *outside = gltf_json("/etc/passwd");
	assert_import_refused("model/gltf+json", outside, strlen(outside), 422,
	                      "could not open referenced file");
	free(outside);
	/* Other media types: 415, naming what is taken. */
	assert_import_refused("model/3mf", garbage, sizeof garbage, 415, "model/stl");
	assert_import_refused("text/plain", garbage, sizeof garbage, 415, "application/x-ply");
	/* A mesh type on another route is no JSON. */
	hresp r;
	http_do("POST", "/v1/query", "Content-Type: model/stl\r\n", "x", 1, &r);
	json_decref(assert_problem(&r, 415));
	hresp_free(&r);
	assert_still_serving();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

START_TEST(http_limits)
{
	server_start_with((const char *const[]){"--max-vertices", "11", NULL}, NULL);
	size_t len;
	char *obj = two_objects_obj(&len);
	assert_import_refused("model/obj", obj, len, 422, "more than 11 vertices");
	free(obj);
	assert_clean_exit(server_stop_within(20));
	server_start_with((const char *const[]){"--max-shapes", "2", NULL}, NULL);
	char *gltf = three_boxes_gltf(&len);
	assert_import_refused("model/gltf+json", gltf, len, 422, "more than 2 meshes");
	free(gltf);
	assert_clean_exit(server_stop_within(20));
}
END_TEST

START_TEST(http_deadline)
{
	/* An import is bounded by --request-timeout like any request, and the
	 * server goes on serving meanwhile. */
	server_start_with((const char *const[]){"--request-timeout", "30ms", NULL}, NULL);
	size_t len;
	char *stl = random_stl(200000, &len); /* 10 MB, 600 000 vertices */
	assert_import_refused("model/stl", stl, len, 504, "--request-timeout");
	free(stl);
	assert_still_serving();
	assert_clean_exit(server_stop_within(20));
}
END_TEST

static Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	ck_case(s, "read", 60,
	        CK_TESTS(stl_cubes, gltf_cubes_placed, gltf_instances, ply_cubes, obj_two_objects,
	                 bad_files, ply_short_face, glb_lengths, gltf_and_ply_checks,
	                 gltf_node_graphs, ply_list_lengths, polygon_budget, limits, threads));
	ck_case(s, "cli", 60, CK_TESTS(cli_writes_the_document, cli_problems_and_usage));
	ck_case(s, "http", 90,
	        CK_TESTS(http_import, http_import_units, http_bad_files, http_limits,
	                 http_deadline));
	return s;
}

CHECK_SUITE(import_suite)
