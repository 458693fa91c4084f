import type { WriteMode } from "../filesystem/protocol.js";
import { defineTool } from "./run-tool.js";
import { TOOL_VALUE_TYPES, type WriteFileValue } from "./values.js";
import { ok } from "./types.js";
import { Type } from "typebox";
import { toolParameters, withDefault } from "./parameters.js";

const VERB: Record<WriteMode, string> = { create: "Created", overwrite: "Overwrote", append: "Appended to" };

const PARAMETERS = toolParameters({
  file_path: Type.String({ description: "File to write, relative to the workspace root.", minLength: 1 }),
  content: Type.String({ description: "UTF-8 text content (at most 48,000 characters)." }),
  mode: withDefault(Type.Enum(["create", "overwrite", "append"], { type: "string", description: "create (default; fails if the file exists), overwrite or append." }), "create"),
});

/** `write_file`: creates a new file by default (the original refused existing targets); overwrite/append on request. */
export const writeFileTool = defineTool<typeof PARAMETERS, WriteFileValue>({
  name: "write_file",
  description: "Create a new text file in the workspace. To change an existing file use edit_file, or pass mode \"overwrite\"/\"append\".",
  mutates: true,
  parameters: PARAMETERS,
  async run({ file_path, content, mode }, fs) {
    const result = await fs.write(file_path, content, { mode });
    return ok(`${VERB[mode]} ${result.path} (${result.bytesWritten} bytes).`, { __type__: TOOL_VALUE_TYPES.writeResult, path: result.path, bytes_written: result.bytesWritten, mode });
  },
});
