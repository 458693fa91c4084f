import { DEFAULT_READ_LIMIT } from "../filesystem/limits.js";
import { splitLines } from "../filesystem/text.js";
import { defineTool } from "./run-tool.js";
import { ok } from "./types.js";
import { TOOL_VALUE_TYPES, type ReadFileValue } from "./values.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

const PARAMETERS = toolParameters({
  file_path: Type.String({ description: "File to read, relative to the workspace root.", minLength: 1 }),
  offset: withDefault(Type.Integer({ description: "0-based line to start at.", minimum: 0 }), 0),
  limit: withDefault(Type.Integer({ description: "Number of lines to return (1-2000).", minimum: 1, maximum: DEFAULT_READ_LIMIT }), DEFAULT_READ_LIMIT),
});

/** `read_file`: a window of lines with line numbers, paginated like the original (≤ 2,000 lines). */
export const readFileTool = defineTool<typeof PARAMETERS, ReadFileValue>({
  name: "read_file",
  description: "Read a text file from the workspace, a window of lines at a time, with line numbers.",
  mutates: false,
  parameters: PARAMETERS,
  async run({ file_path, offset, limit }, fs) {
    const result = await fs.read(file_path, { offset, limit });
    const width = String(Math.max(result.offset + result.limit, 1)).length;
    const numbered = splitLines(result.content)
      .map((line, i) => `${String(result.offset + i + 1).padStart(Math.max(width, 4))} | ${line}`)
      .join("\n");
    const value: ReadFileValue = {
      __type__: TOOL_VALUE_TYPES.readResult,
      path: result.path,
      content: numbered,
      offset: result.offset,
      limit: result.limit,
      total_lines: result.totalLines,
      truncated: result.truncated,
    };
    if (result.limit === 0) {
      return ok(`File ${result.path} has ${result.totalLines} lines; nothing at offset ${result.offset}.`, value);
    }
    const more = result.truncated ? ` Call again with offset ${result.offset + result.limit} for more.` : "";
    return ok(`Read file ${result.path} (lines ${result.offset + 1}-${result.offset + result.limit} of ${result.totalLines}).${more}`, value);
  },
});
