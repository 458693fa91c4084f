import type { WriteMode } from "../filesystem/protocol.js";
import { defineTool } from "./run-tool.js";
import { TOOL_VALUE_TYPES, type WriteFileValue } from "./values.js";
import { ok } from "./types.js";

const VERB: Record<WriteMode, string> = { create: "Created", overwrite: "Overwrote", append: "Appended to" };

/** `write_file`: creates a new file by default (the original refused existing targets); overwrite/append on request. */
export const writeFileTool = defineTool<{ file_path: string; content: string; mode: WriteMode }, WriteFileValue>({
  name: "write_file",
  description: "Create a new text file in the workspace. To change an existing file use edit_file, or pass mode \"overwrite\"/\"append\".",
  mutates: true,
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "File to write, relative to the workspace root.", minLength: 1 },
      content: { type: "string", description: "UTF-8 text content (at most 48,000 characters)." },
      mode: { type: "string", description: "create (default; fails if the file exists), overwrite or append.", enum: ["create", "overwrite", "append"], default: "create" },
    },
    required: ["file_path", "content"],
    additionalProperties: false,
  },
  async run({ file_path, content, mode }, fs) {
    const result = await fs.write(file_path, content, { mode });
    return ok(`${VERB[mode]} ${result.path} (${result.bytesWritten} bytes).`, { __type__: TOOL_VALUE_TYPES.writeResult, path: result.path, bytes_written: result.bytesWritten, mode });
  },
});
