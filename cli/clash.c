/*
 * clash.c — the clash command-line tool: main() and the command table.
 *
 * clash answers the same contract as clashd (proto/openapi.yaml) without a
 * server: `clash query` reads Queries as JSON Lines and writes one Result or
 * problem per line, answering blocks of lines as batches on several threads
 * through the very per-query code of the server's POST /v1/batch
 * (proto_batch_answer), itself the code of POST /v1/query.  A command is
 * one entry of `commands` below; line-oriented ones reuse cli_jsonl() and
 * differ only in how a block of lines is answered.  Every command exits 0
 * when each request got a result, 1 when some got a problem, 2 for usage,
 * I/O or memory errors (CLI_EXIT_*), and its help ends with an example
 * that the suite "cli" runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PROG "clash"

typedef struct command {
	const char *name;
	const char *args;    /* synopsis after the name */
	const char *summary; /* one line for `clash --help` */
	const char *help;    /* the body of `clash NAME --help` */
	int (*run)(const struct command *cmd, int argc, char **argv);
} command;

static void command_usage(const command *cmd, FILE *to)
{
	fprintf(to, "usage: %s %s %s\n\n%s\n%s", PROG, cmd->name, cmd->args, cmd->summary,
	        cmd->help);
}

/* The options every command takes: --help; "--" ends options.  Leaves the
 * operands in argv[*first .. argc).  Returns -1 to go on, else an exit status. */
static int common_options(const command *cmd, int argc, char **argv, int *first)
{
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			command_usage(cmd, stdout);
			return CLI_EXIT_OK;
		}
		if (a[0] != '-' || a[1] == '\0')
			break; /* an operand; "-" is stdin */
		fprintf(stderr, "%s %s: unknown option %s\n", PROG, cmd->name, a);
		command_usage(cmd, stderr);
		return CLI_EXIT_ERROR;
	}
	*first = i;
	return -1;
}

static int run_contains(const command *cmd, int argc, char **argv)
{
	int first;
	int r = common_options(cmd, argc, argv, &first);
	if (r >= 0)
		return r;
	if (argc - first > 1) {
		fprintf(stderr, "%s %s: at most one FILE\n", PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_ERROR;
	}
	cli_reply_fn reply = proto_contains_reply;
	return cli_jsonl(PROG " contains", first < argc ? argv[first] : NULL, cli_answer_each,
	                 &reply);
}

/* --threads N (or -j N): a whole number from 1 to 64. */
static int parse_threads(const char *v, unsigned *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 1 || n > 64)
		return -1;
	*out = (unsigned)n;
	return 0;
}

static int run_query(const command *cmd, int argc, char **argv)
{
	unsigned threads = cli_default_threads();
	/* --threads comes before the operand; the rest as for every command. */
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (strcmp(a, "--threads") == 0 || strcmp(a, "-j") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s %s: %s needs a value\n", PROG, cmd->name, a);
				return CLI_EXIT_ERROR;
			}
			v = argv[++i];
		} else if (strncmp(a, "--threads=", 10) == 0) {
			v = a + 10;
		} else {
			break;
		}
		if (parse_threads(v, &threads) != 0) {
			fprintf(stderr,
			        "%s %s: --threads: expected a whole number from 1 to 64, not "
			        "\"%s\"\n",
			        PROG, cmd->name, v);
			return CLI_EXIT_ERROR;
		}
	}
	int first;
	int r = common_options(cmd, argc - (i - 1), argv + (i - 1), &first);
	if (r >= 0)
		return r;
	first += i - 1;
	if (argc - first > 1) {
		fprintf(stderr, "%s %s: at most one FILE\n", PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_ERROR;
	}
	return cli_jsonl(PROG " query", first < argc ? argv[first] : NULL, cli_answer_batch,
	                 &threads);
}

static int run_scene(const command *cmd, int argc, char **argv)
{
	int first;
	int r = common_options(cmd, argc, argv, &first);
	if (r >= 0)
		return r;
	if (argc - first > 1) {
		fprintf(stderr, "%s %s: at most one FILE\n", PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_ERROR;
	}
	return cli_document(PROG " scene", first < argc ? argv[first] : NULL, proto_scene_reply,
	                    cli_scene_summary);
}

static int run_import(const command *cmd, int argc, char **argv)
{
	const char *format = NULL;
	/* --format comes before the operand; the rest as for every command. */
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--format") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s %s: %s needs a value\n", PROG, cmd->name, a);
				return CLI_EXIT_ERROR;
			}
			format = argv[++i];
		} else if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
		} else {
			break;
		}
	}
	int first;
	int r = common_options(cmd, argc - (i - 1), argv + (i - 1), &first);
	if (r >= 0)
		return r;
	first += i - 1;
	if (argc - first != 1) {
		fprintf(stderr, "%s %s: expected one FILE (\"-\": standard input, with --format)\n",
		        PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_ERROR;
	}
	return cli_import(PROG " import", argv[first], format);
}

/* The paragraphs every line-oriented command shares. */
/* clang-format off */
#define LINES_PROBLEMS \
	"A problem names the input line it answers: \"line\" is that line's number\n" \
	"in the input (from 1, blank lines counted); for malformed JSON (400),\n" \
	"\"column\" is the character of that line where the parser stopped and\n" \
	"\"position\" its byte offset from the start of the input (as in a batch\n" \
	"body).\n" \
	"\n" \
	"The input must be JSON Lines.  A pretty-printed document, or a JSON array\n" \
	"of requests, is answered with one problem (400, at its first line) that\n" \
	"says so, and is not read further; convert it with jq -c . FILE (one\n" \
	"document or several) or jq -c '.[]' FILE (an array).\n"
#define LINES_EXIT \
	"Exit status: 0 when every line was answered with a result; 1 when some\n" \
	"were answered with a problem, or the input is not JSON Lines; 2 for a bad\n" \
	"command line, a FILE that cannot be opened or read, output that cannot\n" \
	"be written, or memory that ran out.\n"

/* Each help ends with an example that runs as written (the suite "cli"
 * runs it): "  $ " and the command, then its output, standard error
 * included, one line each; a line ending in "..." is cut short. */
static const command commands[] = {
	{"query", "[FILE]", "Answer collision queries, one JSON object per line.",
	 "\n"
	 "Reads Queries as JSON Lines from FILE, or from standard input when FILE is\n"
	 "absent or \"-\": each non-blank line is one JSON object\n"
	 "  {\"a\": {\"vertices\": [[x,y,z], ...], \"radius\": r, \"pose\": {...}},\n"
	 "   \"b\": {...}, \"method\": \"gjk\", \"tolerance\": t, \"max_iterations\": n,\n"
	 "   \"warm\": {\"a\": [i, ...], \"b\": [j, ...]}}\n"
	 "as for POST /v1/query of clashd (see proto/openapi.yaml).  For each one it\n"
	 "writes one line to standard output, in order: the Result object, or for a\n"
	 "bad line the RFC 9457 problem object, whose \"status\" is the HTTP status\n"
	 "clashd would answer (400 malformed JSON, 422 invalid query) and whose\n"
	 "\"pointer\" names the offending value.  Blank lines get no answer.\n"
	 "\n" LINES_PROBLEMS
	 "\n"
	 "Lines are answered in blocks on N threads (--threads N or -j N, from 1 to\n"
	 "64; default: the cores this process may use), by the same code as\n"
	 "clashd's POST /v1/batch; the output order is the input order.\n"
	 "\n" LINES_EXIT
	 "\n"
	 "Example (a segment and a point 2 apart):\n"
	 "  $ echo '{\"a\":{\"vertices\":[[0,0,0],[1,0,0]]},\"b\":{\"vertices\":[[3,0,0]]}}' "
	 "| clash query\n"
	 "  {\"intersecting\":false,\"distance\":2.0,\"near_points\":{\"a\":[1.0,0.0,0.0],...\n",
	 run_query},
	{"scene", "[FILE]", "Find the clashing pairs of a scene (one JSON document).",
	 "\n"
	 "Reads one Scene from FILE, or from standard input when FILE is absent or\n"
	 "\"-\": the whole input is one JSON document, laid out in any way\n"
	 "  {\"objects\": [{\"id\": \"pump\", \"shape\": {\"vertices\": [...], ...}}, ...],\n"
	 "   \"clearance\": c, \"tolerance\": t, \"touch_depth\": d,\n"
	 "   \"pairs\": [[\"pump\", \"pipe\"], [{\"group\": \"g\"}, \"pipe\"], ...],\n"
	 "   \"ignore\": [[\"pump\", \"base\"], ...], \"max_clashes\": n}\n"
	 "as for POST /v1/scene of clashd (see proto/openapi.yaml), and writes one\n"
	 "line: {\"clashes\": [{\"a\": id, \"b\": id, \"class\": \"clash\"|\"touch\"|\n"
	 "\"clearance\"|\"duplicate\", ...}, ...], \"candidates\": n, \"counts\": {\"clash\": n, ...},\n"
	 "\"truncated\": false}, every pair closer than the clearance in input order,\n"
	 "or the RFC 9457 problem object (\"status\" 400 or 422, \"pointer\" naming\n"
	 "the offending value; \"line\", \"column\" and \"position\" of malformed JSON\n"
	 "count in the whole input).  A shape with \"pose_end\" moves from \"pose\"\n"
	 "to it; its pairs then carry the time of impact.\n"
	 "\n"
	 "After an answer that is not a problem, one line on standard error sums\n"
	 "it up: the pairs of each class (every one found, even when the list is\n"
	 "truncated), the candidate pairs of the broad phase, and \"list\n"
	 "truncated\" when the list stops short.\n"
	 "\n"
	 "Exit status: 0 when the scene was answered; 1 when it was answered with\n"
	 "a problem; 2 for a bad command line, a FILE that cannot be opened or\n"
	 "read, output that cannot be written, or memory that ran out.\n"
	 "\n"
	 "Example (a ball of radius 1 and a pipe of radius 0.5 whose axis is 1.2\n"
	 "from its centre: they overlap 0.3 deep):\n"
	 "  $ echo '{\"objects\":[{\"id\":\"pump\",\"shape\":{\"vertices\":[[0,0,0]],\"radius\":1}},"
	 "{\"id\":\"pipe\",\"shape\":{\"vertices\":[[1.2,0,0],[1.2,5,0]],\"radius\":0.5}}]}' "
	 "| clash scene\n"
	 "  {\"clashes\":[{\"a\":\"pump\",\"b\":\"pipe\",\"class\":\"clash\",...\n"
	 "  clash scene: 1 clash, 0 touch, 0 clearance, 0 duplicate (1 candidate pair)\n",
	 run_scene},
	{"contains", "[FILE]", "Answer containment queries, one JSON object per line.",
	 "\n"
	 "Reads containment queries as JSON Lines from FILE, or from standard input\n"
	 "when FILE is absent or \"-\": each non-blank line is one JSON object\n"
	 "  {\"inner\": {\"vertices\": [[x,y,z], ...], \"radius\": r, \"pose\": {...}},\n"
	 "   \"outer\": {...}, \"tolerance\": t}\n"
	 "as for POST /v1/contains of clashd (see proto/openapi.yaml), and writes one\n"
	 "line per query, in order: {\"contained\": true|false, \"outside_vertex\": i|null,\n"
	 "\"converged\": true|false, \"iterations\": n} (a vertex of inner that is outside\n"
	 "outer, when one is; converged false: some vertex could not be placed), or\n"
	 "for a bad line the RFC 9457 problem object (\"status\" 400 or 422, \"pointer\"\n"
	 "naming the offending value).  Blank lines get no answer.\n"
	 "\n" LINES_PROBLEMS
	 "\n" LINES_EXIT
	 "\n"
	 "Example (a point inside a tetrahedron):\n"
	 "  $ echo '{\"inner\":{\"vertices\":[[0.2,0.2,0.2]]},"
	 "\"outer\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}' | clash contains\n"
	 "  {\"contained\":true,\"outside_vertex\":null,\"converged\":true,\"iterations\":4}\n",
	 run_contains},
	{"import", "[--format F] FILE", "Read the meshes of an STL, OBJ, glTF or PLY file as Shapes.",
	 "\n"
	 "Reads the mesh file FILE (\"-\": standard input) with libassimp and writes\n"
	 "one JSON document, the shapes clashd's POST /v1/shapes stores for the same\n"
	 "file (see proto/openapi.yaml, ImportResult):\n"
	 "  {\"shapes\": [{\"name\": ..., \"mesh\": {\"positions\": [x0, y0, z0, ...],\n"
	 "    \"indices\": [i0, i1, i2, ...]}, \"pose\": {\"matrix\": [16 numbers]}}, ...]}\n"
	 "one shape for each place a node of the file puts a mesh: its triangles,\n"
	 "vertices joined by exact position (so a closed mesh is a solid), and the\n"
	 "node's transform, column-major.  Points and lines are left out.  Each\n"
	 "\"mesh\" object, alone, is a StoredShape (its id is clashd's).\n"
	 "\n"
	 "The format is --format F (stl, obj, glb, gltf or ply), else FILE's\n"
	 "extension.  A glTF must hold its buffers (data: URIs); other files a\n"
	 "file names (an OBJ's materials, say) are not read.  A file assimp cannot\n"
	 "read, or with no triangle, is answered with the RFC 9457 problem clashd\n"
	 "answers (status 422, assimp's message in \"detail\").  After a document,\n"
	 "one line on standard error sums it up.\n"
	 "\n"
	 "Exit status: 0 when the file was read; 1 when it was answered with a\n"
	 "problem; 2 for a bad command line, a format not known, a FILE that cannot\n"
	 "be opened or read, output that cannot be written, or memory that ran out.\n"
	 "\n"
	 "Example (one triangle, as an ASCII STL on standard input):\n"
	 "  $ printf 'solid t\\nfacet normal 0 0 1\\nouter loop\\nvertex 0 0 0\\nvertex 1 0 0\\n"
	 "vertex 0 1 0\\nendloop\\nendfacet\\nendsolid t\\n' | clash import --format stl -\n"
	 "  {\"shapes\":[{\"name\":\"t\",\"mesh\":{\"positions\":[0.0,0.0,0.0,1.0,0.0,0.0,...\n"
	 "  clash import: 1 shape, 3 vertices, 1 triangle\n",
	 run_import},
};
/* clang-format on */

static const command *find(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: %s COMMAND [ARGS]\n       %s COMMAND --help\n\ncommands:\n", PROG,
	        PROG);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(to, "  %-8s %-8s %s\n", commands[i].name, commands[i].args,
		        commands[i].summary);
	fprintf(to, "\nExit status: 0 when every request was answered with a result, 1 when\n"
	            "some were answered with a problem, 2 for a bad command line, input or\n"
	            "output that failed, or memory that ran out.  Each command's --help\n"
	            "says more and ends with an example.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	const command *cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s'\n", PROG, argv[1]);
		usage(stderr);
		return CLI_EXIT_ERROR;
	}
	proto_init();
	return cmd->run(cmd, argc - 1, argv + 1);
}
