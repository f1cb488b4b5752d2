/*
 * clash.c — the clash command-line tool: main() and the command table.
 *
 * clash answers the same contract as clashd (proto/openapi.yaml) without a
 * server: `clash query` reads Queries as JSON Lines and writes one Result or
 * problem per line, through the very proto_query_reply() the server calls.
 * A command is one entry of `commands` below; line-oriented ones reuse
 * cli_jsonl() and differ only in the proto_* call that answers a line.
 */
#include <stdio.h>
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
		return CLI_EXIT_USAGE;
	}
	*first = i;
	return -1;
}

static int run_lines(const command *cmd, int argc, char **argv, cli_reply_fn reply)
{
	int first;
	int r = common_options(cmd, argc, argv, &first);
	if (r >= 0)
		return r;
	if (argc - first > 1) {
		fprintf(stderr, "%s %s: at most one FILE\n", PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_USAGE;
	}
	return cli_jsonl(PROG, first < argc ? argv[first] : NULL, reply);
}

static int run_contains(const command *cmd, int argc, char **argv)
{
	return run_lines(cmd, argc, argv, proto_contains_reply);
}

static int run_query(const command *cmd, int argc, char **argv)
{
	int first;
	int r = common_options(cmd, argc, argv, &first);
	if (r >= 0)
		return r;
	if (argc - first > 1) {
		fprintf(stderr, "%s %s: at most one FILE\n", PROG, cmd->name);
		command_usage(cmd, stderr);
		return CLI_EXIT_USAGE;
	}
	return cli_jsonl(PROG, first < argc ? argv[first] : NULL, proto_query_reply);
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
		return CLI_EXIT_USAGE;
	}
	return cli_document(PROG, first < argc ? argv[first] : NULL, proto_scene_reply);
}

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
	 "\n"
	 "Exit status: 0 when every line was answered, even if some answers are\n"
	 "problems; 1 when reading, writing or memory failed part way; 2 for a bad\n"
	 "command line or a FILE that cannot be opened.\n",
	 run_query},
	{"scene", "[FILE]", "Find the clashing pairs of a scene (one JSON document).",
	 "\n"
	 "Reads one Scene from FILE, or from standard input when FILE is absent or\n"
	 "\"-\": the whole input is one JSON document, laid out in any way\n"
	 "  {\"objects\": [{\"id\": \"pump\", \"shape\": {\"vertices\": [...], ...}}, ...],\n"
	 "   \"clearance\": c, \"tolerance\": t, \"pairs\": [[\"pump\", \"pipe\"], ...],\n"
	 "   \"ignore\": [[\"pump\", \"base\"], ...]}\n"
	 "as for POST /v1/scene of clashd (see proto/openapi.yaml), and writes one\n"
	 "line: {\"clashes\": [{\"a\": id, \"b\": id, \"class\": \"clash\"|\"touch\"|\n"
	 "\"clearance\", ...}, ...], \"candidates\": n}, every pair closer than the\n"
	 "clearance in input order, or the RFC 9457 problem object (\"status\" 400 or\n"
	 "422, \"pointer\" naming the offending value).  A shape with \"pose_end\"\n"
	 "moves from \"pose\" to it; its pairs then carry the time of impact.\n"
	 "\n"
	 "Exit status: 0 when the scene was answered, even by a problem; 1 when\n"
	 "reading, writing or memory failed; 2 for a bad command line or a FILE\n"
	 "that cannot be opened.\n",
	 run_scene},
	{"contains", "[FILE]", "Answer containment queries, one JSON object per line.",
	 "\n"
	 "Reads containment queries as JSON Lines from FILE, or from standard input\n"
	 "when FILE is absent or \"-\": each non-blank line is one JSON object\n"
	 "  {\"inner\": {\"vertices\": [[x,y,z], ...], \"radius\": r, \"pose\": {...}},\n"
	 "   \"outer\": {...}, \"tolerance\": t}\n"
	 "as for POST /v1/contains of clashd (see proto/openapi.yaml), and writes one\n"
	 "line per query, in order: {\"contained\": true|false, \"outside_vertex\": i|null,\n"
	 "\"iterations\": n} (a vertex of inner that is outside outer, when one is), or\n"
	 "for a bad line the RFC 9457 problem object (\"status\" 400 or 422, \"pointer\"\n"
	 "naming the offending value).  Blank lines get no answer.\n"
	 "\n"
	 "Exit status: as for clash query.\n",
	 run_contains},
};

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
	fprintf(to, "\nExit status: 0 on success, 1 when I/O or memory failed, 2 for a bad\n"
	            "command line or unreadable input.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
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
		return CLI_EXIT_USAGE;
	}
	proto_init();
	return cmd->run(cmd, argc - 1, argv + 1);
}
