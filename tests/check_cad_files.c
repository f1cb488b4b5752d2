/*
 * check_cad_files.c — suite cad_files: parts as CAD tools write them
 * through HTTP against a real clashd.
 *
 * The part is a torus of 100 000 triangles (250 x 200 quads), its
 * coordinates float32 values, written here in every format the import
 * takes: ASCII STL as OpenSCAD lays it out (each number printed with 9
 * digits, which names its float exactly: about 23 MB), binary STL, OBJ,
 * ASCII and binary PLY, glTF (its buffer inline) and GLB; each sent plain
 * and gzip-encoded.  Each is answered 201 with one solid of 50 000
 * vertices and 100 000 triangles: with clashd's defaults, and with the
 * settings deploy/k8s/deployment.yaml gives it (read from the manifest,
 * under its 512 MiB memory limit as an address-space limit).  The files
 * whose coordinates are the floats themselves (binary STL and PLY, glTF)
 * get one id, and the text files (ASCII STL, OBJ, ASCII PLY) must get the
 * same: their numbers read as (float)strtod, as a browser's parseFloat and
 * Float32Array read them (libassimp's own reading is a float step off for
 * a few in a hundred of these).
 * A file ten times larger is a 413 problem naming --max-import-body,
 * announced by its Content-Length or found once inflated.  And in-process:
 * numbers libassimp reads a float step off, in an ASCII STL of two solids
 * (a facet of four vertices), an OBJ (a w, vertex colours) and an ASCII
 * PLY (x, y, z among other properties), each equal to (float)strtod of
 * its text; a number assimp reads by a rule of its own ("1,5") left so.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "check.h"
#include "http_harness.h"
#include "mesh_import.h"
#include "textbuf.h"

#define NU 250
#define NV 200
#define NVERT (NU * NV)
#define NTRI (2 * NU * NV)

typedef struct part {
	float p[NVERT][3];
	uint32_t t[NTRI][3];
} part;

static part *torus(void)
{
	part *m = malloc(sizeof *m);
	ck_assert_ptr_nonnull(m);
	for (int i = 0; i < NU; i++)
		for (int j = 0; j < NV; j++) {
			double a = 2 * M_PI * i / NU, b = 2 * M_PI * j / NV, r = 40 + 12.5 * cos(b);
			float *q = m->p[i * NV + j];
			q[0] = (float)(r * cos(a));
			q[1] = (float)(r * sin(a));
			q[2] = (float)(12.5 * sin(b));
		}
	for (uint32_t i = 0, k = 0; i < NU; i++)
		for (uint32_t j = 0; j < NV; j++) {
			uint32_t a = i * NV + j, b = (i + 1) % NU * NV + j;
			uint32_t c = (i + 1) % NU * NV + (j + 1) % NV, d = i * NV + (j + 1) % NV;
			memcpy(m->t[k++], (uint32_t[3]){a, b, c}, sizeof m->t[0]);
			memcpy(m->t[k++], (uint32_t[3]){a, c, d}, sizeof m->t[0]);
		}
	return m;
}

static void addf(textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(textbuf *t, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	textbuf_add(t, line, (size_t)n);
}

static void add_le32(textbuf *t, uint32_t x)
{
	unsigned char b[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16),
	                      (unsigned char)(x >> 24)};
	textbuf_add(t, (const char *)b, 4);
}

static void add_f32(textbuf *t, float x)
{
	uint32_t b;
	memcpy(&b, &x, 4);
	add_le32(t, b);
}

static void normal_of(const part *m, size_t k, float n[3])
{
	const float *a = m->p[m->t[k][0]], *b = m->p[m->t[k][1]], *c = m->p[m->t[k][2]];
	double u[3], v[3];
	for (int i = 0; i < 3; i++)
		u[i] = b[i] - a[i], v[i] = c[i] - a[i];
	double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
	               u[0] * v[1] - u[1] * v[0]};
	double l = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
	for (int i = 0; i < 3; i++)
		n[i] = (float)(w[i] / l);
}

static void stl_ascii(const part *m, textbuf *t)
{
	textbuf_str(t, "solid OpenSCAD_Model\n");
	for (size_t k = 0; k < NTRI; k++) {
		float n[3];
		normal_of(m, k, n);
		addf(t, "  facet normal %g %g %g\n    outer loop\n", n[0], n[1], n[2]);
		for (int c = 0; c < 3; c++) {
			const float *q = m->p[m->t[k][c]];
			addf(t, "      vertex %.9g %.9g %.9g\n", q[0], q[1], q[2]);
		}
		textbuf_str(t, "    endloop\n  endfacet\n");
	}
	textbuf_str(t, "endsolid OpenSCAD_Model\n");
}

static void stl_binary(const part *m, textbuf *t)
{
	static const char header[80] = "binary STL";
	textbuf_add(t, header, sizeof header);
	add_le32(t, NTRI);
	for (size_t k = 0; k < NTRI; k++) {
		float n[3];
		normal_of(m, k, n);
		for (int i = 0; i < 3; i++)
			add_f32(t, n[i]);
		for (int c = 0; c < 3; c++)
			for (int i = 0; i < 3; i++)
				add_f32(t, m->p[m->t[k][c]][i]);
		textbuf_add(t, "\0\0", 2);
	}
}

static void obj(const part *m, textbuf *t)
{
	for (size_t i = 0; i < NVERT; i++)
		addf(t, "v %.9g %.9g %.9g\n", m->p[i][0], m->p[i][1], m->p[i][2]);
	for (size_t k = 0; k < NTRI; k++)
		addf(t, "f %u %u %u\n", m->t[k][0] + 1, m->t[k][1] + 1, m->t[k][2] + 1);
}

static void ply(const part *m, textbuf *t, int binary)
{
	addf(t,
	     "ply\nformat %s 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
	     "property float z\nelement face %d\nproperty list uchar uint vertex_indices\n"
	     "end_header\n",
	     binary ? "binary_little_endian" : "ascii", NVERT, NTRI);
	for (size_t i = 0; i < NVERT; i++)
		for (int c = 0; c < 3; c++)
			if (binary)
				add_f32(t, m->p[i][c]);
			else
				addf(t, c < 2 ? "%.9g " : "%.9g\n", m->p[i][c]);
	for (size_t k = 0; k < NTRI; k++)
		if (binary) {
			textbuf_add(t, "\3", 1);
			for (int c = 0; c < 3; c++)
				add_le32(t, m->t[k][c]);
		} else {
			addf(t, "3 %u %u %u\n", m->t[k][0], m->t[k][1], m->t[k][2]);
		}
}

/* The glTF document of the part; `uri` its buffer's data: URI (NULL: a
 * GLB's own chunk). */
static char *gltf_json(const part *m, const char *uri)
{
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < NVERT; i++)
		for (int c = 0; c < 3; c++) {
			lo[c] = fminf(lo[c], m->p[i][c]);
			hi[c] = fmaxf(hi[c], m->p[i][c]);
		}
	size_t ib = sizeof m->t, pb = sizeof m->p;
	json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)(ib + pb));
	if (uri)
		json_object_set_new(buffer, "uri", json_string(uri));
	json_t *doc =
		json_pack("{s:{s:s}, s:[{s:[i]}], s:i, s:[{s:i}], s:[{s:[{s:{s:i}, s:i}]}], s:[o],"
	                  " s:[{s:i, s:i, s:I, s:i}, {s:i, s:I, s:I, s:i}],"
	                  " s:[{s:i, s:i, s:I, s:s}, {s:i, s:i, s:I, s:s, s:[f,f,f], s:[f,f,f]}]}",
	                  "asset", "version", "2.0", "scenes", "nodes", 0, "scene", 0, "nodes",
	                  "mesh", 0, "meshes", "primitives", "attributes", "POSITION", 1, "indices",
	                  0, "buffers", buffer, "bufferViews", "buffer", 0, "byteOffset", 0,
	                  "byteLength", (json_int_t)ib, "target", 34963, "buffer", 0, "byteOffset",
	                  (json_int_t)ib, "byteLength", (json_int_t)pb, "target", 34962,
	                  "accessors", "bufferView", 0, "componentType", 5125, "count",
	                  (json_int_t)(3 * NTRI), "type", "SCALAR", "bufferView", 1,
	                  "componentType", 5126, "count", (json_int_t)NVERT, "type", "VEC3", "min",
	                  lo[0], lo[1], lo[2], "max", hi[0], hi[1], hi[2]);
	ck_assert_ptr_nonnull(doc);
	char *s = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return s;
}

static void gltf(const part *m, textbuf *t)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *d[2] = {(const unsigned char *)m->t, (const unsigned char *)m->p};
	size_t n[2] = {sizeof m->t, sizeof m->p};
	textbuf u = {0};
	textbuf_str(&u, "data:application/octet-stream;base64,");
	/* Both halves are multiples of 3 bytes: encoded one after the other. */
	ck_assert_uint_eq(n[0] % 3 + n[1] % 3, 0);
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < n[h]; i += 3) {
			uint32_t v =
				(uint32_t)d[h][i] << 16 | (uint32_t)d[h][i + 1] << 8 | d[h][i + 2];
			char q[4] = {b64[v >> 18], b64[v >> 12 & 63], b64[v >> 6 & 63],
			             b64[v & 63]};
			textbuf_add(&u, q, 4);
		}
	textbuf_add(&u, "", 1);
	char *s = gltf_json(m, u.s);
	textbuf_str(t, s);
	free(s);
	free(u.s);
}

static void glb(const part *m, textbuf *t)
{
	char *s = gltf_json(m, NULL);
	size_t jn = strlen(s), pad = (4 - jn % 4) % 4, bn = sizeof m->t + sizeof m->p;
	textbuf_str(t, "glTF");
	add_le32(t, 2);
	add_le32(t, (uint32_t)(12 + 8 + jn + pad + 8 + bn));
	add_le32(t, (uint32_t)(jn + pad));
	textbuf_str(t, "JSON");
	textbuf_add(t, s, jn);
	textbuf_add(t, "    ", pad);
	add_le32(t, (uint32_t)bn);
	textbuf_add(t, "BIN\0", 4);
	textbuf_add(t, (const char *)m->t, sizeof m->t);
	textbuf_add(t, (const char *)m->p, sizeof m->p);
	free(s);
}

enum {
	F_STL,
	F_STL_BIN,
	F_OBJ,
	F_PLY,
	F_PLY_BIN,
	F_GLTF,
	F_GLB,
	NFILES
};

static const struct {
	const char *what, *type;
} files[NFILES] = {
	{"ASCII STL", "model/stl"},
	{"binary STL", "model/stl"},
	{"OBJ", "model/obj"},
	{"ASCII PLY", "application/x-ply"},
	{"binary PLY", "application/x-ply"},
	{"glTF", "model/gltf+json"},
	{"GLB", "model/gltf-binary"},
};

static void write_file(const part *m, int f, textbuf *t)
{
	switch (f) {
	case F_STL: stl_ascii(m, t); break;
	case F_STL_BIN: stl_binary(m, t); break;
	case F_OBJ: obj(m, t); break;
	case F_PLY: ply(m, t, 0); break;
	case F_PLY_BIN: ply(m, t, 1); break;
	case F_GLTF: gltf(m, t); break;
	case F_GLB: glb(m, t); break;
	}
}

/* POST the file (gzip-encoded when `gz`): 201, one solid shape of the
 * part's counts; its id in id[72], the shape deleted again. */
static void import_one(int f, const char *body, size_t len, int gz, char id[72])
{
	char headers[160];
	snprintf(headers, sizeof headers, "Content-Type: %s\r\n%s", files[f].type,
	         gz ? "Content-Encoding: gzip\r\n" : "");
	hresp r;
	double t0 = now_s();
	http_do("POST", "/v1/shapes", headers, body, len, &r);
	fprintf(stderr, "cad_files: %-10s %s %9zu bytes: %d in %.2f s\n", files[f].what,
	        gz ? "gzip " : "plain", len, r.status, now_s() - t0);
	ck_assert_msg(r.status == 201, "%s%s: %d %.300s", files[f].what, gz ? " (gzip)" : "",
	              r.status, r.body);
	json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
	ck_assert_ptr_nonnull(j);
	json_t *shapes = json_object_get(j, "shapes"), *s = json_array_get(shapes, 0);
	ck_assert_uint_eq(json_array_size(shapes), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "vertices")), NVERT);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "triangles")), NTRI);
	ck_assert(json_is_true(json_object_get(s, "solid")));
	snprintf(id, 72, "%s", json_string_value(json_object_get(s, "id")));
	json_decref(j);
	hresp_free(&r);
	char path[96];
	snprintf(path, sizeof path, "/v1/shapes/%s", id);
	http_do("DELETE", path, "", NULL, 0, &r);
	ck_assert_int_lt(r.status, 300);
	hresp_free(&r);
}

/* Every format, plain and gzipped, into the running server. */
static void import_every_format(void)
{
	part *m = torus();
	char first[72] = "";
	for (int f = 0; f < NFILES; f++) {
		textbuf t = {0};
		write_file(m, f, &t);
		for (int gz = 0; gz < 2; gz++) {
			size_t n = t.len;
			char *z = gz ? gzip_repeated(t.s, t.len, 1, &n) : NULL;
			char id[72];
			import_one(f, gz ? z : t.s, n, gz, id);
			free(z);
			if (!first[0])
				snprintf(first, sizeof first, "%s", id);
			ck_assert_msg(strcmp(id, first) == 0, "%s: id %s, the ASCII STL's %s",
			              files[f].what, id, first);
		}
		free(t.s);
	}
	free(m);
	assert_still_serving();
}

START_TEST(part_of_1e5_triangles_imports_in_every_format_by_default)
{
	/* Each part is deleted after its import: the store keeps room. */
	server_start_with((const char *const[]){"--store-delete", "1", NULL}, NULL);
	import_every_format();
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* The env values deploy/k8s/deployment.yaml sets ("NAME=VALUE", those
 * from valueFrom left out), NULL-terminated, in `out`. */
static size_t manifest_env(char out[][96], const char **env, size_t most)
{
	FILE *fp = fopen("deploy/k8s/deployment.yaml", "r");
	ck_assert_ptr_nonnull(fp);
	char line[512], name[64] = "";
	size_t n = 0;
	while (fgets(line, sizeof line, fp)) {
		char v[64];
		if (sscanf(line, " - name: %63s", name) == 1)
			continue;
		if (name[0] && sscanf(line, " value: \"%63[^\"]\"", v) == 1) {
			ck_assert_uint_lt(n, most - 1);
			snprintf(out[n], 96, "%s=%s", name, v);
			env[n] = out[n];
			n++;
		}
		if (strstr(line, "value"))
			name[0] = '\0';
	}
	fclose(fp);
	env[n] = NULL;
	return n;
}

START_TEST(part_of_1e5_triangles_imports_in_every_format_as_deployed)
{
	char vals[32][96];
	const char *env[32];
	size_t n = manifest_env(vals, env, 32);
	int body = 0, imports = 0;
	for (size_t i = 0; i < n; i++) {
		body |= strncmp(env[i], "CLASHD_MAX_IMPORT_BODY=", 23) == 0;
		imports |= strncmp(env[i], "CLASHD_IMPORT_MEMORY=", 21) == 0;
	}
	ck_assert(body && imports);
	ck_assert_uint_lt(n, 31);
	env[n++] = "CLASHD_STORE_DELETE=1"; /* each part deleted after its import */
	env[n] = NULL;
	/* The harness gives --listen (a free port) and --threads 2, which
	 * CLASHD_THREADS is too (limits.cpu through the Downward API). */
	if (!clashd_sanitized())
		server_as_limit = (size_t)512 << 20; /* the pod's memory limit */
	server_start_with(NULL, env);
	import_every_format();
	assert_clean_exit(server_stop_within(30));
}
END_TEST

START_TEST(file_ten_times_larger_is_refused)
{
	server_start();
	part *m = torus();
	textbuf t = {0};
	stl_ascii(m, &t);
	free(m);
	/* Announced: answered from the head, the body never sent. */
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c,
	                             "POST /v1/shapes HTTP/1.1\r\nHost: x\r\nContent-Type: "
	                             "model/stl\r\nContent-Length: %zu\r\n\r\n",
	                             10 * t.len),
	                 0);
	hresp r;
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	json_t *p = assert_problem(&r, 413);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(p, "detail")), "--max-import-body"));
	json_decref(p);
	hresp_free(&r);
	hconn_close(&c);
	/* Gzip-encoded (about 30 MB): refused once inflated past the bound. */
	size_t zn;
	char *z = gzip_repeated(t.s, t.len, 10, &zn);
	http_do("POST", "/v1/shapes", "Content-Type: model/stl\r\nContent-Encoding: gzip\r\n", z,
	        zn, &r);
	p = assert_problem(&r, 413);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(p, "detail")), "--max-import-body"));
	json_decref(p);
	hresp_free(&r);
	free(z);
	free(t.s);
	assert_still_serving();
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* Mesh files beyond --max-imports wait their turn at the client: a 503
 * with Retry-After while one is still arriving, then answered again. */
START_TEST(mesh_files_past_max_imports_are_told_to_retry)
{
	server_start_with((const char *const[]){"--max-imports", "1", NULL}, NULL);
	size_t len;
	char *stl = random_stl(200, &len);
	hconn c;
	ck_assert_int_eq(hconn_open(&c, srv.port), 0);
	ck_assert_int_eq(hconn_sendf(&c,
	                             "POST /v1/shapes HTTP/1.1\r\nHost: x\r\nContent-Type: "
	                             "model/stl\r\nContent-Length: %zu\r\n\r\n",
	                             len),
	                 0);
	ck_assert_int_eq(hconn_send(&c, stl, len / 2), 0);
	/* The first is admitted once its head is read: wait for that. */
	for (int i = 0; i < 200 && server_metric("clashd_queries_admitted") < 1; i++)
		usleep(10000);
	hresp r;
	char retry[16];
	http_do("POST", "/v1/shapes", "Content-Type: model/stl\r\n", stl, len, &r);
	json_t *p = assert_problem(&r, 503);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(p, "detail")), "--max-imports"));
	ck_assert_str_eq(hresp_header(&r, "Retry-After", retry, sizeof retry), "1");
	json_decref(p);
	hresp_free(&r);
	/* A query is not a mesh file: admitted meanwhile. */
	char *q = cubes_query(1);
	http_do("POST", "/v1/query", "Content-Type: application/json\r\n", q, strlen(q), &r);
	ck_assert_int_eq(r.status, 200);
	hresp_free(&r);
	free(q);
	ck_assert_int_eq(hconn_send(&c, stl + len / 2, len - len / 2), 0);
	ck_assert_int_eq(hconn_read(&c, &r, 0), 0);
	ck_assert_int_eq(r.status, 201);
	hresp_free(&r);
	hconn_close(&c);
	http_do("POST", "/v1/shapes", "Content-Type: model/stl\r\n", stl, len, &r);
	ck_assert_int_eq(r.status, 200); /* its turn now: the same part, stored */
	hresp_free(&r);
	free(stl);
	assert_clean_exit(server_stop_within(30));
}
END_TEST

/* ---- numbers as JavaScript reads them --------------------------------- */

/* Numbers libassimp 5.2.5 reads a float step away from (float)strtod. */
static const char *const off[] = {"8.25275470e+3", "4.261069e-2",    "-8.57393333e-3",
                                  "-6.957487e+3",  "-5.52766389e+2", "3.57664e+0",
                                  "1.29349",       "4.96435",        "7.66134",
                                  "9.6195752e-3",  "3.9050787e-2",   "8.99079667e+1"};

/* The file of format f imported in-process: its shapes in *set (0). */
static void import_text(const char *text, proto_mesh_format f, proto_mesh_set *set)
{
	proto_problem p = {0};
	int r = proto_mesh_import(text, strlen(text), f, NULL, set, &p, NULL);
	ck_assert_msg(r == 0, "import: %s", p.detail);
}

/* Shape s's vertex i is the numbers off[k], off[k + 1], off[k + 2] as
 * parseFloat and a Float32Array make them. */
static void assert_vertex(const proto_mesh_shape *s, size_t i, size_t k)
{
	ck_assert_uint_lt(i, s->n);
	for (int c = 0; c < 3; c++)
		ck_assert_msg(s->positions[3 * i + c] == (double)(float)strtod(off[k + c], NULL),
		              "vertex %zu, coordinate %d: %a, not %s", i, c,
		              s->positions[3 * i + c], off[k + c]);
}

/* One shape whose four vertices are off[0, 12), three a vertex. */
static void assert_four_vertices(const char *text, proto_mesh_format f)
{
	proto_mesh_set set;
	import_text(text, f, &set);
	ck_assert_uint_eq(set.n, 1);
	for (size_t k = 0; k < 4; k++)
		assert_vertex(&set.shapes[0], k, 3 * k);
	proto_mesh_set_free(&set);
}

START_TEST(text_numbers_are_read_as_javascript_reads_them)
{
	char text[2048];
	proto_mesh_set set;
	/* STL: two solids, a facet of four vertices (assimp skips the
	 * fourth), words the reader skips. */
	snprintf(text, sizeof text,
	         "solid one two\nfacet normal 0 0 1\nouter loop\nvertex %s %s %s\n"
	         "vertex %s %s %s\nvertex %s %s %s\nvertex 9 9 9\nendloop\nendfacet\n"
	         "endsolid one\nsolid three\n  facet normal 0 0 1\r\n  outer loop\r\n"
	         "\tvertex %s %s %s\r\n\tvertex %s %s %s\r\n\tvertex %s %s %s\r\n endloop\r\n"
	         " endfacet\r\nendsolid three\r\n",
	         off[0], off[1], off[2], off[3], off[4], off[5], off[6], off[7], off[8], off[3],
	         off[4], off[5], off[9], off[10], off[11], off[0], off[1], off[2]);
	import_text(text, PROTO_MESH_STL, &set);
	ck_assert_uint_eq(set.n, 2);
	for (int k = 0; k < 3; k++) {
		assert_vertex(&set.shapes[0], (size_t)k, 3 * (size_t)k);
		assert_vertex(&set.shapes[1], (size_t)k, (size_t)(k == 0 ? 3 : k == 1 ? 9 : 0));
	}
	proto_mesh_set_free(&set);
	/* OBJ: a w, and vertex colours after the position. */
	snprintf(text, sizeof text,
	         "# part\nv %s %s %s 1.0\nv\t%s %s %s 0.5 0.25 1\nv %s %s %s\n"
	         "v %s %s %s\nf 1 2 3\nf 4 3 2\n",
	         off[0], off[1], off[2], off[3], off[4], off[5], off[6], off[7], off[8], off[9],
	         off[10], off[11]);
	assert_four_vertices(text, PROTO_MESH_OBJ);
	/* PLY: the coordinates among other properties, in another order. */
	snprintf(text, sizeof text,
	         "ply\nformat ascii 1.0\ncomment x y z\nelement vertex 4\nproperty float nx\n"
	         "property float z\nproperty uchar red\nproperty float x\nproperty double y\n"
	         "element face 2\nproperty list uchar int vertex_indices\nend_header\n"
	         "0 %s 7 %s %s\n0 %s 7 %s %s\n0 %s 7 %s %s\n0 %s 7 %s %s\n3 0 1 2\n3 3 2 1\n",
	         off[2], off[0], off[1], off[5], off[3], off[4], off[8], off[6], off[7], off[11],
	         off[9], off[10]);
	assert_four_vertices(text, PROTO_MESH_PLY);
	/* A number that is no plain decimal (assimp reads "1,5" as 1.5):
	 * the file is read as assimp reads it. */
	import_text("solid\nfacet normal 0 0 1\nouter loop\nvertex 1,5 0 0\nvertex 0 1 0\n"
	            "vertex 0 0 1\nendloop\nendfacet\nendsolid\n",
	            PROTO_MESH_STL, &set);
	ck_assert_uint_eq(set.n, 1);
	ck_assert(set.shapes[0].positions[0] == 1.5);
	proto_mesh_set_free(&set);
}
END_TEST

static Suite *cad_files_suite(void)
{
	Suite *s = suite_create("cad_files");
	/* The whole suite takes 12 s here (30 s sanitized), each import
	 * under a second. */
	ck_case(s, "cad_files", 120,
	        CK_TESTS(part_of_1e5_triangles_imports_in_every_format_by_default,
	                 part_of_1e5_triangles_imports_in_every_format_as_deployed,
	                 file_ten_times_larger_is_refused,
	                 mesh_files_past_max_imports_are_told_to_retry,
	                 text_numbers_are_read_as_javascript_reads_them));
	return s;
}

CHECK_SUITE(cad_files_suite)
