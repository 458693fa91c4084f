import { TOOL_VALUE_TYPES, type RmValue } from "./values.js";
import { defineTool } from "./run-tool.js";
import { ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters } from "./parameters.js";

const PARAMETERS = toolParameters({
  path: Type.String({ description: "File or directory to delete, relative to the workspace root.", minLength: 1 }),
});

/** `rm`: remove a file or a whole directory tree. The path must exist. */
export const rmTool = defineTool<typeof PARAMETERS, RmValue>({
  name: "rm",
  description: "Delete a file, or a directory with everything in it.",
  mutates: true,
  parameters: PARAMETERS,
  async run({ path }, fs) {
    const stat = await fs.stat(path);
    let removed = 1;
    if (stat.isDirectory) {
      // Count first so the agent learns how much it removed.
      const pending = [stat.path];
      while (pending.length > 0) {
        for (const entry of await fs.list(pending.pop() as string)) {
          removed++;
          if (entry.isDirectory) pending.push(entry.path);
        }
      }
    }
    await fs.delete(path, { recursive: true });
    return ok(`Deleted ${removed} ${removed === 1 ? "entry" : "entries"} under ${stat.path}.`, { __type__: TOOL_VALUE_TYPES.removeResult, path: stat.path, removed });
  },
});
