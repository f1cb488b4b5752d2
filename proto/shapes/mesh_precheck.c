/*
 * mesh_precheck.c — what a mesh file must pass before libassimp reads it
 * (mesh_precheck.h).  Each check reads the file once:
 *  - PLY: the header's lines and counts (no end_header, or a count larger
 *    than the file, hung or exhausted assimp), then the body walked element
 *    by element so that every list's length fits in what is left of the
 *    file (assimp reserves a declared list before reading it: 2^29 indices
 *    in a 163-byte file took 4 GiB), and faces' corners are within the
 *    polygon budget;
 *  - OBJ: text (no NUL byte: assimp corrupted its heap on one), each
 *    face's corners within the polygon budget (assimp's triangulation of
 *    32 000 corners took ten seconds);
 *  - glTF (text, or the JSON chunk of a binary one): its lengths within the
 *    file, and the nodes strict trees as glTF 2.0 (section 3.5.3) requires,
 *    each node the child of one node at most, no node a root and a child,
 *    none its own ancestor, none deeper than PROTO_MESH_MAX_NODE_DEPTH:
 *    assimp expands a node graph that shares children into a tree, so 13
 *    nodes that list one child four times make 4^12 nodes.
 * assimp picks its reader by the bytes as well as by the name: a file that
 * starts like a PLY or a glTF is checked as one whatever its declared type.
 */
#include "mesh_precheck.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Adds corners^2 of a polygon to *spent: 0 while within the budget. */
static int polygon_spend(size_t corners, size_t *spent)
{
	if (corners <= 3)
		return 0;
	if (corners > PROTO_MESH_POLYGON_BUDGET / corners)
		return -1;
	*spent += corners * corners;
	return *spent > PROTO_MESH_POLYGON_BUDGET ? -1 : 0;
}

static int polygons_refused(proto_problem *p)
{
	return proto_problem_whole(p,
	                           "the file's polygons are too large to triangulate: the "
	                           "squares of their corner counts add up to more than %zu (one "
	                           "polygon of 8192 corners, or 4096 of 128)",
	                           PROTO_MESH_POLYGON_BUDGET);
}

/* ---- PLY ------------------------------------------------------------------ */

/* " <name> <count>": the count a number no larger than the file (an
 * element takes a byte at least; assimp reserves room for the count before
 * reading: 10^110 faces in a 379-byte file ran it out of memory,
 * tests/fuzz/findings/import/ply-huge-count-oom.bin).  *count set. */
static int ply_count_ok(const char *rest, size_t n, size_t len, size_t *count)
{
	size_t i = 0;
	while (i < n && (rest[i] == ' ' || rest[i] == '\t'))
		i++;
	while (i < n && rest[i] != ' ' && rest[i] != '\t')
		i++;
	while (i < n && (rest[i] == ' ' || rest[i] == '\t'))
		i++;
	size_t digits = 0;
	*count = 0;
	for (; i < n && rest[i] >= '0' && rest[i] <= '9'; i++, digits++) {
		*count = 10 * *count + (size_t)(rest[i] - '0');
		if (*count > len)
			return 0;
	}
	while (i < n && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r'))
		i++;
	return digits > 0 && i == n;
}

enum ply_type {
	PLY_BAD,
	PLY_I8,
	PLY_U8,
	PLY_I16,
	PLY_U16,
	PLY_I32,
	PLY_U32,
	PLY_F32,
	PLY_F64
};

#define PLY_MAX_ELEMENTS 64
#define PLY_MAX_PROPERTIES 256

typedef struct ply_prop {
	enum ply_type type;  /* a scalar's, or a list's items' */
	enum ply_type count; /* a list's length's; PLY_BAD for a scalar */
} ply_prop;

typedef struct ply_elem {
	size_t count, first, nprops; /* its properties: props[first, first + nprops) */
	int face;                    /* "face": its lists are polygons */
} ply_elem;

typedef struct ply_header {
	int format; /* 0 ascii, 1 little-endian, 2 big-endian, -1 unknown */
	ply_elem elems[PLY_MAX_ELEMENTS];
	ply_prop props[PLY_MAX_PROPERTIES];
	size_t nelems, nprops;
	size_t body; /* offset of the first byte after end_header's line */
} ply_header;

static size_t ply_size(enum ply_type t)
{
	static const size_t size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
	return size[t];
}

static enum ply_type ply_type_of(const char *w, size_t n)
{
	static const struct {
		const char *name;
		enum ply_type t;
	} names[] = {{"char", PLY_I8},    {"int8", PLY_I8},     {"uchar", PLY_U8},
	             {"uint8", PLY_U8},   {"short", PLY_I16},   {"int16", PLY_I16},
	             {"ushort", PLY_U16}, {"uint16", PLY_U16},  {"int", PLY_I32},
	             {"int32", PLY_I32},  {"uint", PLY_U32},    {"uint32", PLY_U32},
	             {"float", PLY_F32},  {"float32", PLY_F32}, {"double", PLY_F64},
	             {"float64", PLY_F64}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && strncasecmp(w, names[i].name, n) == 0)
			return names[i].t;
	return PLY_BAD;
}

/* The words of line [i, e): up to `most`, as offsets and lengths. */
static size_t words_of(const char *d, size_t i, size_t e, size_t *at, size_t *len, size_t most)
{
	size_t n = 0;
	while (i < e && n < most) {
		while (i < e && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r'))
			i++;
		if (i == e)
			break;
		at[n] = i;
		while (i < e && d[i] != ' ' && d[i] != '\t' && d[i] != '\r')
			i++;
		len[n] = i - at[n];
		n++;
	}
	return n;
}

#define WORD_IS(k, lit) (wl[k] == sizeof(lit) - 1 && memcmp(d + wa[k], lit, wl[k]) == 0)

/* One header line's meaning added to *h: 1 at end_header, 0 to go on,
 * -1 when it is not a line of a PLY header. */
static int ply_line(const char *d, size_t i, size_t e, size_t len, ply_header *h)
{
	size_t wa[6], wl[6], n = words_of(d, i, e, wa, wl, 6);
	if (n == 0)
		return -1;
	if (WORD_IS(0, "end_header"))
		return 1;
	if (WORD_IS(0, "comment") || WORD_IS(0, "obj_info"))
		return 0;
	if (WORD_IS(0, "format") && n >= 2) {
		h->format = WORD_IS(1, "ascii")                  ? 0
		            : WORD_IS(1, "binary_little_endian") ? 1
		            : WORD_IS(1, "binary_big_endian")    ? 2
		                                                 : -1;
		return 0;
	}
	if (WORD_IS(0, "element")) {
		ply_elem *el = &h->elems[h->nelems];
		if (h->nelems == PLY_MAX_ELEMENTS ||
		    !ply_count_ok(d + wa[0] + wl[0], e - wa[0] - wl[0], len, &el->count))
			return -1;
		el->first = h->nprops;
		el->nprops = 0;
		el->face = n >= 2 && WORD_IS(1, "face");
		h->nelems++;
		return 0;
	}
	if (!WORD_IS(0, "property") || h->nelems == 0 || h->nprops == PLY_MAX_PROPERTIES)
		return -1;
	ply_prop *pr = &h->props[h->nprops++];
	h->elems[h->nelems - 1].nprops++;
	if (n >= 2 && WORD_IS(1, "list")) {
		pr->count = n >= 3 ? ply_type_of(d + wa[2], wl[2]) : PLY_BAD;
		pr->type = n >= 4 ? ply_type_of(d + wa[3], wl[3]) : PLY_BAD;
		return pr->count == PLY_BAD || pr->type == PLY_BAD ? -1 : 0;
	}
	pr->count = PLY_BAD;
	pr->type = n >= 2 ? ply_type_of(d + wa[1], wl[1]) : PLY_BAD;
	return pr->type == PLY_BAD ? -1 : 0;
}

/*
 * The header: "ply", then format, comment, obj_info, element and property
 * lines up to an end_header line, followed by more.  Debian's assimp 5.2.5
 * reads some headers that break this forever, at the end of the file (no
 * end_header line, or one it does not take for the header's end).
 */
static int ply_header_read(const char *d, size_t len, ply_header *h)
{
	h->format = -1;
	for (size_t i = 0, line = 0; i < len; line++) {
		const char *nl = memchr(d + i, '\n', len - i);
		if (!nl)
			return 0; /* the header does not end */
		size_t e = (size_t)(nl - d);
		if (line == 0) {
			size_t wa[2], wl[2];
			if (words_of(d, i, e, wa, wl, 2) != 1 || !WORD_IS(0, "ply"))
				return 0;
		} else {
			int r = ply_line(d, i, e, len, h);
			if (r < 0)
				return 0;
			if (r == 1) {
				h->body = e + 1;
				return h->body < len || h->nelems == 0;
			}
		}
		i = e + 1;
	}
	return 0;
}

/* A walk through the body: where it is, and the polygons' cost so far. */
typedef struct ply_walk {
	const char *d;
	size_t len, pos, spent;
	int big_endian;
} ply_walk;

/* The next ASCII token: 0 with [*at, *n), or -1 at the end. */
static int ascii_token(ply_walk *w, size_t *at, size_t *n)
{
	while (w->pos < w->len && strchr(" \t\r\n", w->d[w->pos]) && w->d[w->pos])
		w->pos++;
	if (w->pos == w->len)
		return -1;
	*at = w->pos;
	while (w->pos < w->len && !(strchr(" \t\r\n", w->d[w->pos]) && w->d[w->pos]))
		w->pos++;
	*n = w->pos - *at;
	return 0;
}

/* A list's length from the body: 0 with *count, 1 at the body's end (the
 * rest is assimp's to refuse), -1 when it is not a length that fits. */
static int list_length(ply_walk *w, const ply_prop *pr, int ascii, size_t *count)
{
	if (ascii) {
		size_t at, n;
		if (ascii_token(w, &at, &n) != 0)
			return 1;
		*count = 0;
		for (size_t k = 0; k < n; k++) {
			if (w->d[at + k] < '0' || w->d[at + k] > '9' || *count > w->len)
				return -1;
			*count = 10 * *count + (size_t)(w->d[at + k] - '0');
		}
		/* Each item takes a digit and a separator at least. */
		return *count <= (w->len - w->pos) / 2 ? 0 : -1;
	}
	size_t size = ply_size(pr->count);
	if (w->len - w->pos < size)
		return 1;
	unsigned char b[4];
	for (size_t k = 0; k < size; k++)
		b[k] = (unsigned char)w->d[w->pos + (w->big_endian ? size - 1 - k : k)];
	w->pos += size;
	int64_t v =
		size == 1 ? (pr->count == PLY_I8 ? (int8_t)b[0] : b[0])
		: size == 2
			? (pr->count == PLY_I16 ? (int16_t)(b[0] | b[1] << 8) : (b[0] | b[1] << 8))
			: (int64_t)(pr->count == PLY_I32 || pr->count == PLY_F32
	                                    ? (int64_t)(int32_t)((uint32_t)b[0] |
	                                                         (uint32_t)b[1] << 8 |
	                                                         (uint32_t)b[2] << 16 |
	                                                         (uint32_t)b[3] << 24)
	                                    : (int64_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
	                                                (uint32_t)b[2] << 16 |
	                                                (uint32_t)b[3] << 24));
	if (v < 0 || (uint64_t)v > (w->len - w->pos) / ply_size(pr->type))
		return -1;
	*count = (size_t)v;
	return 0;
}

/* Skips n values of type t: 0, or 1 at the body's end. */
static int skip_values(ply_walk *w, enum ply_type t, size_t n, int ascii)
{
	for (size_t k = 0; ascii && k < n; k++) {
		size_t at, len;
		if (ascii_token(w, &at, &len) != 0)
			return 1;
	}
	if (ascii)
		return 0;
	if (n > (w->len - w->pos) / ply_size(t))
		return 1;
	w->pos += n * ply_size(t);
	return 0;
}

/* The body within the header's promises: 0; 1 with a problem; -1. */
static int ply_body_ok(const char *d, size_t len, const ply_header *h, proto_problem *p)
{
	ply_walk w = {d, len, h->body, 0, h->format == 2};
	int ascii = h->format == 0;
	if (h->format < 0)
		return 0; /* assimp refuses an unknown format itself */
	for (size_t e = 0; e < h->nelems; e++) {
		const ply_elem *el = &h->elems[e];
		for (size_t i = 0; i < el->count; i++)
			for (size_t k = 0; k < el->nprops; k++) {
				const ply_prop *pr = &h->props[el->first + k];
				size_t n = 1;
				int r = pr->count == PLY_BAD ? 0 : list_length(&w, pr, ascii, &n);
				if (r < 0)
					return proto_problem_whole(
						p,
						"the PLY file declares a list longer "
						"than the rest of the file (element %zu, "
						"item %zu)",
						e, i);
				if (r > 0 || skip_values(&w, pr->type, n, ascii) != 0)
					return 0;
				if (el->face && pr->count != PLY_BAD &&
				    polygon_spend(n, &w.spent) != 0)
					return polygons_refused(p);
			}
	}
	return 0;
}

static int ply_ok(const char *d, size_t len, proto_problem *p)
{
	ply_header *h = calloc(1, sizeof *h);
	if (!h)
		return -1;
	int r = ply_header_read(d, len, h)
	                ? ply_body_ok(d, len, h, p)
	                : proto_problem_whole(
				  p,
				  "the PLY file's header is not \"ply\", then format, "
				  "comment, obj_info, element and property lines (at most %d "
				  "elements and %d properties, each element's count no larger "
				  "than the file), then an end_header line",
				  PLY_MAX_ELEMENTS, PLY_MAX_PROPERTIES);
	free(h);
	return r;
}

/* ---- OBJ ------------------------------------------------------------------ */

static int obj_ok(const char *d, size_t len, proto_problem *p)
{
	size_t spent = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && (d[i] == ' ' || d[i] == '\t'))
			i++;
		int face = i + 1 < len && d[i] == 'f' && (d[i + 1] == ' ' || d[i + 1] == '\t');
		size_t corners = 0;
		int in_word = 0;
		for (i += face; i < len && d[i] != '\n'; i++) {
			if (d[i] == '\\' && i + 1 < len && (d[i + 1] == '\n' || d[i + 1] == '\r')) {
				i += d[i + 1] == '\r' && i + 2 < len && d[i + 2] == '\n' ? 2 : 1;
				in_word = 0; /* a line continued */
				continue;
			}
			int space = d[i] == ' ' || d[i] == '\t' || d[i] == '\r';
			corners += face && !space && !in_word;
			in_word = !space;
		}
		i++;
		if (polygon_spend(corners, &spent) != 0)
			return polygons_refused(p);
	}
	return 0;
}

/* ---- glTF ----------------------------------------------------------------- */

static uint32_t le32(const char *d)
{
	const unsigned char *u = (const unsigned char *)d;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/*
 * Whether a binary glTF (a file that starts with "glTF") holds together:
 * its total length within the file, and each chunk (the JSON one first)
 * within that length; glTF 1's binary header, its content within it.
 * assimp trusts these lengths: a chunk longer than the file made it
 * allocate 4 GiB, or spend seconds on a 427-byte file, and a garbled
 * version read past its buffer (tests/fuzz/findings/import/).
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

/* Node `ref` (an index in glTF 2, a name in glTF 1) as an index, or -1. */
static long node_index(const json_t *ref, const json_t *names, size_t n)
{
	if (json_is_string(ref))
		ref = json_object_get(names, json_string_value(ref));
	json_int_t i = json_is_integer(ref) ? json_integer_value(ref) : -1;
	return i >= 0 && (size_t)i < n ? (long)i : -1;
}

/* The glTF's nodes as an array, and (glTF 1: an object by name) each
 * name's index in *names. */
static json_t *node_list(json_t *nodes, json_t **names)
{
	*names = json_object();
	json_t *list = json_array();
	if (json_is_array(nodes))
		json_array_extend(list, nodes);
	const char *key;
	json_t *v;
	json_object_foreach(json_is_object(nodes) ? nodes : NULL, key, v) {
		json_object_set_new(*names, key, json_integer((json_int_t)json_array_size(list)));
		json_array_append(list, v);
	}
	return list;
}

/* Each node's parent from the children lists: 0, or the node listed twice. */
static long parents_of(const json_t *list, const json_t *names, long *parent)
{
	size_t n = json_array_size(list);
	for (size_t i = 0; i < n; i++) {
		const json_t *c = json_object_get(json_array_get(list, i), "children"), *ref;
		size_t k;
		json_array_foreach(c, k, ref) {
			long j = node_index(ref, names, n);
			if (j < 0)
				continue; /* assimp refuses a child that is no node */
			if (parent[j] != -1 || (size_t)j == i)
				return j + 1;
			parent[j] = (long)i;
		}
	}
	return 0;
}

/* A node that is its own ancestor or deeper than the bound: 0 when none,
 * else the node + 1.  depth[] starts at -1 (not yet known). */
static long depths_of(const long *parent, long *depth, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long d = 0, j = (long)i;
		while (j != -1 && depth[j] == -1 && d <= PROTO_MESH_MAX_NODE_DEPTH + 1)
			j = parent[j], d++;
		long top = j == -1 ? d - 1 : depth[j] + d; /* i's depth (too deep: a cycle) */
		if (top > PROTO_MESH_MAX_NODE_DEPTH)
			return (long)i + 1;
		for (j = (long)i; j != -1 && depth[j] == -1; j = parent[j])
			depth[j] = top--;
	}
	return 0;
}

/* A scene's roots: none a child, none listed twice (mark[] holds the
 * scene's stamp for a root seen).  0, or the node + 1. */
static long roots_of(const json_t *scene, const json_t *names, const long *parent, long *mark,
                     long stamp, size_t n)
{
	const json_t *root;
	size_t k;
	json_array_foreach(json_object_get(scene, "nodes"), k, root) {
		long j = node_index(root, names, n);
		if (j >= 0 && (parent[j] != -1 || mark[j] == stamp))
			return j + 1;
		if (j >= 0)
			mark[j] = stamp;
	}
	return 0;
}

static int gltf_nodes_ok(json_t *doc, proto_problem *p)
{
	json_t *names, *list = node_list(json_object_get(doc, "nodes"), &names);
	size_t n = json_array_size(list), m = n ? n : 1;
	long *parent = malloc(m * sizeof *parent), *depth = malloc(m * sizeof *depth);
	int r = -1;
	if (!list || !names || !parent || !depth)
		goto done;
	for (size_t i = 0; i < n; i++)
		parent[i] = depth[i] = -1;
	long bad = parents_of(list, names, parent);
	if (bad) {
		r = proto_problem_whole(
			p,
			"the glTF's node %ld is listed as a child more than once "
			"(nodes form trees: each node the child of one node at most)",
			bad - 1);
		goto done;
	}
	/* depth[] marks each scene's roots first (stamps below -1), then
	 * holds the depths. */
	json_t *scenes = json_object_get(doc, "scenes"), *scene;
	const char *key;
	size_t k;
	long stamp = -1;
	json_array_foreach(scenes, k, scene)
		if (!bad)
			bad = roots_of(scene, names, parent, depth, --stamp, n);
	json_object_foreach(json_is_object(scenes) ? scenes : NULL, key, scene)
		if (!bad)
			bad = roots_of(scene, names, parent, depth, --stamp, n);
	if (bad) {
		r = proto_problem_whole(p,
		                        "the glTF's node %ld is a scene's root twice, or a root "
		                        "and a child (nodes form trees)",
		                        bad - 1);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		depth[i] = -1;
	bad = depths_of(parent, depth, n);
	r = bad ? proto_problem_whole(p,
	                              "the glTF's node %ld is its own ancestor or nested "
	                              "deeper than %d",
	                              bad - 1, PROTO_MESH_MAX_NODE_DEPTH)
	        : 0;
done:
	json_decref(list);
	json_decref(names);
	free(parent);
	free(depth);
	return r;
}

/* A glTF's JSON: the text itself, or a binary one's JSON chunk (its
 * lengths checked first).  0, 1 or -1. */
static int gltf_ok(const char *d, size_t len, int binary, proto_problem *p)
{
	if (binary && !glb_ok(d, len))
		return proto_problem_whole(p,
		                           "the binary glTF's lengths do not fit the file "
		                           "(\"glTF\", version 2, the total length, then chunks of "
		                           "JSON and BIN within it)");
	const char *text = binary ? d + 20 : d;
	size_t n = binary ? le32(d + 12) : len;
	json_error_t e;
	json_t *doc = json_loadb(text, n, 0, &e);
	if (!doc)
		return 0; /* not JSON: assimp refuses it */
	int r = gltf_nodes_ok(doc, p);
	json_decref(doc);
	return r;
}

/* ---- the checks ------------------------------------------------------------ */

int proto_mesh_precheck(const char *data, size_t len, proto_mesh_format f, proto_problem *p)
{
	size_t lead = 0;
	while (lead < len && strchr(" \t\r\n", data[lead]) && data[lead])
		lead++;
	int ply_like = len - lead >= 3 && strncasecmp(data + lead, "ply", 3) == 0;
	int glb_like = len >= 4 && memcmp(data, "glTF", 4) == 0;
	if (f == PROTO_MESH_PLY || ply_like)
		return ply_ok(data, len, p);
	if ((f == PROTO_MESH_GLB && !glb_like) ||
	    (f == PROTO_MESH_GLTF && (lead == len || data[lead] != '{' || memchr(data, 0, len))))
		/* assimp 5.2.5 read past its buffer on such text sent as either
		 * (tests/fuzz/findings/import/gltf-not-json-overread.bin). */
		return proto_problem_whole(
			p, f == PROTO_MESH_GLB
				   ? "a binary glTF starts with \"glTF\""
				   : "a glTF file is a JSON object (\"{\" first, no NUL "
				     "byte)");
	if (glb_like || f == PROTO_MESH_GLTF || (lead < len && data[lead] == '{'))
		return gltf_ok(data, len, glb_like, p);
	if (f == PROTO_MESH_OBJ && memchr(data, 0, len))
		/* OBJ is text; assimp 5.2.5 corrupted its heap on a vertex line
		 * holding NUL bytes (tests/fuzz/findings/import/
		 * obj-nul-vertex-heap.bin). */
		return proto_problem_whole(p, "an OBJ file is text: it holds no NUL byte");
	if (f == PROTO_MESH_OBJ)
		return obj_ok(data, len, p);
	return 0;
}
