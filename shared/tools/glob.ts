import { defineTool } from "./run-tool.js";
import { ok } from "./types.js";

const MAX_LISTED = 1_000;

/** `glob`: files matching a pattern (`*` stays within a directory, `**` crosses them). */
export const globTool = defineTool<{ pattern: string; path: string }, string[]>({
  name: "glob",
  description: "Find files by glob pattern, e.g. \"**/*.py\" (every depth) or \"src/*.ts\" (one directory).",
  mutates: false,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob pattern relative to path: * ? [abc] {a,b} and ** for any depth.", minLength: 1 },
      path: { type: "string", description: "Directory to search from (default: the root).", default: "." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  async run({ pattern, path }, fs) {
    const matches = (await fs.glob(pattern, { path })).map((m) => m.path);
    if (matches.length === 0) return ok(`No files match ${JSON.stringify(pattern)}.`, []);
    const listed = matches.slice(0, MAX_LISTED);
    const more = matches.length > listed.length ? ` (showing the first ${listed.length})` : "";
    return ok(`Found ${matches.length} files matching ${JSON.stringify(pattern)}${more}.`, listed);
  },
});
