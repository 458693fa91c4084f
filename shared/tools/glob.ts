import { defineTool } from "./run-tool.js";
import { TOOL_VALUE_TYPES, type GlobValue } from "./values.js";
import { ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

const MAX_LISTED = 1_000;

const PARAMETERS = toolParameters({
  pattern: Type.String({ description: "Glob pattern relative to path: * any characters (including /), ? one character, [abc] / [!abc] one character of / not of a set.", minLength: 1 }),
  path: withDefault(Type.String({ description: "Directory to search from (default: the root)." }), "."),
});

/** `glob`: files matching a pattern, matched like WINK's (Python's `fnmatch`: `*` crosses `/`). */
export const globTool = defineTool<typeof PARAMETERS, GlobValue[]>({
  name: "glob",
  description: "Find files by glob pattern, matched against each file's path like Python's fnmatch: \"*.py\" finds Python files at every depth, \"src/*.ts\" every .ts file below src.",
  mutates: false,
  parameters: PARAMETERS,
  async run({ pattern, path }, fs) {
    const matches = await fs.glob(pattern, { path });
    if (matches.length === 0) return ok(`No files match ${JSON.stringify(pattern)}.`, []);
    const listed = matches.slice(0, MAX_LISTED).map((match): GlobValue => ({ __type__: TOOL_VALUE_TYPES.globMatch, path: match.path, is_file: true }));
    const more = matches.length > listed.length ? ` (showing the first ${listed.length})` : "";
    return ok(`Found ${matches.length} files matching ${JSON.stringify(pattern)}${more}.`, listed);
  },
});
