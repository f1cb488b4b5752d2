/*
 * clash.c — the clash command-line tool: main() and the command table.
 *
 * clash answers the same contract as clashd (proto/openapi.yaml) without a
 * server: `clash query` reads Queries as JSON Lines and writes one Result or
 * problem per line, answering blocks of lines as batches on several threads
 * through the very per-query code of the server's POST /v1/batch
 * (proto_batch_answer), itself the code of POST /v1/query.  A command is
 * one entry of `commands` below; line-oriented ones reuse cli_jsonl() and
 * differ only in how a block of lines is answered.
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
		return CLI_EXIT_USAGE;
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
		return CLI_EXIT_USAGE;
	}
	cli_reply_fn reply = proto_contains_reply;
	return cli_jsonl(PROG, first < argc ? argv[first] : NULL, cli_answer_each, &reply);
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
				return CLI_EXIT_USAGE;
			}
			v = argv[++i];
		} else if (strncmp(a, "--threads=", 10) == 0) {
			v = a + 10;
		} else {
			break;
		}
		if (parse_threads(v, &threads) != 0) {
			fprintf(stderr, "%s %s: --threads: expected a whole number from 1 to 64, not "
			                "\"%s\"\n",
			        PROG, cmd->name, v);
			return CLI_EXIT_USAGE;
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
		return CLI_EXIT_USAGE;
	}
	return cli_jsonl(PROG, first < argc ? argv[first] : NULL, cli_answer_batch, &threads);
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
	 "Lines are answered in blocks on N threads (--threads N or -j N, from 1 to\n"
	 "64; default: the cores this process may use), by the same code as\n"
	 "clashd's POST /v1/batch; the output order is the input order.\n"
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
	 "\"converged\": true|false, \"iterations\": n} (a vertex of inner that is outside\n"
	 "outer, when one is; converged false: some vertex could not be placed), or\n"
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
