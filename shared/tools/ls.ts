import { TOOL_VALUE_TYPES, type LsEntry } from "./values.js";
import { defineTool } from "./run-tool.js";
import { fail, ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

/** Entries listed before the output says how many more there are. */
const MAX_LISTED = 1_000;

const PARAMETERS = toolParameters({
  path: withDefault(Type.String({ description: "Directory to list, relative to the workspace root." }), "."),
});

/** `ls`: the entries of a directory, directories first, with file sizes. */
export const lsTool = defineTool<typeof PARAMETERS, LsEntry[]>({
  name: "ls",
  description: "List the files and directories in a workspace directory (default: the root).",
  mutates: false,
  parameters: PARAMETERS,
  async run({ path }, fs) {
    const stat = await fs.stat(path);
    if (!stat.isDirectory) return fail(`${stat.path} is a file, not a directory. Use read_file to read it.`);
    const entries = await fs.list(path);
    const listed = entries.slice(0, MAX_LISTED);
    const value: LsEntry[] = [];
    for (const entry of listed) {
      const sizeBytes = entry.isFile ? (await fs.stat(entry.path)).sizeBytes : null;
      value.push({ __type__: TOOL_VALUE_TYPES.fileEntry, name: entry.name, path: entry.path, is_file: entry.isFile, is_directory: entry.isDirectory, kind: entry.kind, size_bytes: sizeBytes });
    }
    value.sort((a, b) => Number(b.kind === "directory") - Number(a.kind === "directory"));
    const where = stat.path === "" ? "the workspace root" : stat.path;
    if (entries.length === 0) return ok(`${where} is empty.`, value);
    const more = entries.length > listed.length ? ` (showing ${listed.length})` : "";
    return ok(`Listed ${entries.length} entries in ${where}${more}.`, value);
  },
});
