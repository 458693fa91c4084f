import { defineTool } from "./run-tool.js";
import { TOOL_VALUE_TYPES, type GrepValue } from "./values.js";
import { ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

/** Budget of one grep call: an agent waits for it, and a pathological pattern must not stall a run. */
export const GREP_TOOL_TIMEOUT_MS = 1_500;
const MAX_MATCHES = 200;

const PARAMETERS = toolParameters({
  pattern: Type.String({ description: "Regular expression to search for (a leading (?i) makes it case-insensitive)." }),
  path: withDefault(Type.String({ description: "Directory to search (default: the root)." }), "."),
  glob: Type.Optional(Type.String({ description: "Only search files whose path relative to path matches this glob (Python fnmatch: \"*.ts\" matches at every depth)." })),
});

/** `grep`: lines matching a regular expression, with file and line number. */
export const grepTool = defineTool<typeof PARAMETERS, GrepValue[]>({
  name: "grep",
  description: "Search file contents with a regular expression (JavaScript syntax); returns matching lines with file and line number.",
  mutates: false,
  parameters: PARAMETERS,
  async run({ pattern, path, glob }, fs, context) {
    const matches = await fs.grep(pattern, {
      path,
      glob: glob ?? null,
      maxMatches: MAX_MATCHES + 1,
      timeoutMs: GREP_TOOL_TIMEOUT_MS,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (matches.length === 0) return ok(`No matches for pattern ${JSON.stringify(pattern)}.`, []);
    const shown = matches.slice(0, MAX_MATCHES).map(
      (match): GrepValue => ({
        __type__: TOOL_VALUE_TYPES.grepMatch,
        path: match.path,
        line_number: match.lineNumber,
        line_content: match.lineContent,
        match_start: match.matchStart,
        match_end: match.matchEnd,
      }),
    );
    const more = matches.length > MAX_MATCHES ? ` (showing the first ${MAX_MATCHES}; narrow the path or pattern)` : "";
    return ok(`Found ${shown.length} matches for pattern ${JSON.stringify(pattern)}${more}.`, shown);
  },
});
