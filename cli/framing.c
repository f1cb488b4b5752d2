/*
 * framing.c — recognising an input that is not JSON Lines.
 *
 * A line-oriented command reads one JSON object per line.  Given a
 * pretty-printed request, or a JSON array of requests, it would answer a
 * malformed-JSON problem for nearly every line and never say why; instead
 * the first non-blank lines are judged once, before any answer:
 *
 *   - the first one starts with '[': a JSON array (of requests, on one line
 *     or many), which no line-oriented command takes;
 *   - the first one parses alone: JSON Lines;
 *   - it leaves JSON open (the parser stops at its end, as at "{" or
 *     "{\"a\": {"), the next one does not parse alone, and the two joined
 *     still parse, or stop only at their end: a document spread over lines;
 *   - anything else: JSON Lines, some broken (each line answered alone).
 *
 * The third rule needs the second line to be a fragment, so a truncated
 * line followed by good ones is not taken for a document.  Whether a text
 * parses is jansson's judgment, asked through proto_json_state_of().
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *first_char(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t')
			return text + i;
	return NULL;
}

int cli_framing_of(const cli_lines *lines, int eof, cli_framing *out)
{
	*out = CLI_FRAMING_LINES;
	const char *first = first_char(lines->text[0], lines->len[0]);
	if (first && *first == '[') {
		*out = CLI_FRAMING_ARRAY;
		return 0;
	}
	if (proto_json_state_of(lines->text[0], lines->len[0], 0) != PROTO_JSON_OPEN)
		return 0;
	if (lines->n < 2) {
		*out = eof ? CLI_FRAMING_LINES : CLI_FRAMING_MORE;
		return 0;
	}
	if (proto_json_state_of(lines->text[1], lines->len[1], 0) == PROTO_JSON_COMPLETE)
		return 0;
	size_t n0 = lines->len[0], n1 = lines->len[1];
	char *joined = malloc(n0 + 1 + n1);
	if (!joined)
		return -1;
	memcpy(joined, lines->text[0], n0);
	joined[n0] = '\n';
	memcpy(joined + n0 + 1, lines->text[1], n1);
	if (proto_json_state_of(joined, n0 + 1 + n1, 1) != PROTO_JSON_BROKEN)
		*out = CLI_FRAMING_DOCUMENT;
	free(joined);
	return 0;
}

int cli_framing_problem(const char *prog, cli_framing framing, proto_reply *out)
{
	char detail[320];
	if (framing == CLI_FRAMING_ARRAY)
		snprintf(detail, sizeof detail,
		         "%s reads JSON Lines: one JSON object per line, each a request; this "
		         "input is a JSON array. Give one element per line: jq -c '.[]' FILE | %s",
		         prog, prog);
	else
		snprintf(detail, sizeof detail,
		         "%s reads JSON Lines: one JSON object per line, each a request; this "
		         "input is a JSON document spread over lines (pretty-printed). Give one "
		         "per line: jq -c . FILE | %s",
		         prog, prog);
	return proto_problem_reply(400, detail, NULL, out);
}
