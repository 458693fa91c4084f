// Public API of shared/tools: the agent tool handlers over `context.filesystem`.
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { readFileTool } from "./read-file.js";
import { rmTool } from "./rm.js";
import type { ToolDefinition } from "./types.js";
import { writeFileTool } from "./write-file.js";

export * from "./types.js";
export { defineTool, failureFrom, parseParams } from "./run-tool.js";
export type { ToolSpec } from "./run-tool.js";
export { editFileTool, globTool, grepTool, lsTool, readFileTool, rmTool, writeFileTool };
export { TOOL_VALUE_TYPES } from "./values.js";
export type { EditFileValue, GlobValue, GrepValue, LsEntry, ReadFileValue, RmValue, WriteFileValue } from "./values.js";
export { GREP_TOOL_TIMEOUT_MS } from "./grep.js";

/** The seven filesystem tools, in the order the original registers them. */
export const FILESYSTEM_TOOLS: readonly ToolDefinition[] = [lsTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool, rmTool];
export { createShellTool, runShellCommand, type CommandRunner, type ShellParams, type ShellToolOptions, type ShellValue } from "./shell-tool.js";
