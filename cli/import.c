/*
 * import.c — `clash import`: a mesh file (STL, OBJ, glTF, PLY) read with
 * libassimp into the import document, {"shapes": [{"name", "mesh", "pose"},
 * ...]}, the very shapes POST /v1/shapes stores for the same file (proto's
 * mesh_import.h and mesh_doc.h), with a one-line summary on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mesh_doc.h"
#include "mesh_import.h"
#include "problem.h"

/* The format of --format, else of the file's extension. */
static proto_mesh_format format_of(const char *prog, const char *path, const char *format)
{
	if (format) {
		proto_mesh_format f = proto_mesh_format_of_name(format);
		if (!f)
			fprintf(stderr,
			        "%s: --format: expected stl, obj, glb, gltf or ply, not \"%s\"\n",
			        prog, format);
		return f;
	}
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *dot = path ? strrchr(slash ? slash : path, '.') : NULL;
	proto_mesh_format f = dot ? proto_mesh_format_of_name(dot + 1) : PROTO_MESH_NONE;
	if (!f)
		fprintf(stderr,
		        "%s: cannot tell the format of %s from its name: give --format "
		        "stl, obj, glb, gltf or ply\n",
		        prog, path && strcmp(path, "-") != 0 ? path : "standard input");
	return f;
}

static void summary(const char *prog, const proto_mesh_set *set)
{
	size_t vertices = 0, triangles = 0;
	for (size_t i = 0; i < set->n; i++) {
		vertices += set->shapes[i].n;
		triangles += set->shapes[i].t;
	}
	fprintf(stderr, "%s: %zu shape%s, %zu vert%s, %zu triangle%s\n", prog, set->n,
	        set->n == 1 ? "" : "s", vertices, vertices == 1 ? "ex" : "ices", triangles,
	        triangles == 1 ? "" : "s");
}

int cli_import(const char *prog, const char *path, const char *format)
{
	proto_mesh_format f = format_of(prog, path, format);
	if (!f)
		return CLI_EXIT_ERROR;
	char *data;
	size_t len;
	int status = cli_read_input(prog, path, &data, &len);
	if (status != CLI_EXIT_OK)
		return status;
	proto_mesh_set set;
	proto_problem p = {0};
	int r = proto_mesh_import(data ? data : "", len, f, NULL, &set, &p, NULL);
	free(data);
	char *text = NULL;
	size_t n = 0;
	proto_reply problem = {0};
	if (r == 0)
		text = proto_mesh_document_text(&set, &n);
	else if (r == 1 && proto_problem_encode(&p, &problem) == 0)
		text = problem.body, n = problem.length, problem.body = NULL;
	proto_problem_release(&p);
	if (!text) {
		fprintf(stderr, "%s: out of memory\n", prog);
		status = CLI_EXIT_ERROR;
	} else {
		fwrite(text, 1, n, stdout);
		putchar('\n');
		free(text);
		status = r == 0 ? CLI_EXIT_OK : CLI_EXIT_PROBLEMS;
		if (r == 0 && fflush(stdout) == 0)
			summary(prog, &set);
	}
	proto_mesh_set_free(&set);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the answer: %s\n", prog, strerror(errno));
		status = CLI_EXIT_ERROR;
	}
	return status;
}
