import { TOOL_VALUE_TYPES, type EditFileValue } from "./values.js";
import { defineTool } from "./run-tool.js";
import { fail, ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

const PARAMETERS = toolParameters({
  file_path: Type.String({ description: "File to edit, relative to the workspace root.", minLength: 1 }),
  old_string: Type.String({ description: "Exact text to replace (must be non-empty).", minLength: 1 }),
  new_string: Type.String({ description: "Replacement text." }),
  replace_all: withDefault(Type.Boolean({ description: "Replace every occurrence instead of requiring exactly one." }), false),
});

/** `edit_file`: replace an exact, unique `old_string` (or every occurrence with `replace_all`). */
export const editFileTool = defineTool<typeof PARAMETERS, EditFileValue>({
  name: "edit_file",
  description: "Replace an exact piece of text in a file. old_string must occur exactly once unless replace_all is true.",
  mutates: true,
  parameters: PARAMETERS,
  async run({ file_path, old_string, new_string, replace_all }, fs) {
    if (old_string === new_string) return fail("old_string and new_string are identical: nothing to change.");
    const current = await fs.read(file_path, { limit: -1 });
    const count = countOccurrences(current.content, old_string);
    if (count === 0) {
      return fail(`old_string was not found in ${current.path}. Read the file again and copy the exact text, including whitespace.`);
    }
    if (count > 1 && !replace_all) {
      return fail(`old_string occurs ${count} times in ${current.path}. Include more surrounding text to make it unique, or pass replace_all: true.`);
    }
    const updated = replace_all ? current.content.split(old_string).join(new_string) : current.content.replace(old_string, () => new_string);
    const result = await fs.write(current.path, updated, { mode: "overwrite" });
    const noun = count === 1 ? "occurrence" : "occurrences";
    return ok(`Replaced ${count} ${noun} in ${result.path}.`, { __type__: TOOL_VALUE_TYPES.writeResult, path: result.path, bytes_written: result.bytesWritten, mode: "overwrite", replacements: count });
  },
});
