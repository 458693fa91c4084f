/**
 * The `value` of each tool result, in the shape WINK writes into sessions: snake_case keys and
 * a `__type__` naming the type (`module:Qualname`). Where WINK has the type — its Filesystem
 * protocol results in `weakincentives.filesystem._types` — the value is that type's fields
 * (plus ours, which WINK's reader ignores), so WINK's own `parse` loads it; where WINK has none
 * (`rm`, the shell tool), the type id is ours. Values go into `ToolInvoked` events as they are.
 */
import type { EntryKind, WriteMode } from "../filesystem/protocol.js";

const WINK_FILESYSTEM_TYPES = "weakincentives.filesystem._types";

/** Type ids of tool values. */
export const TOOL_VALUE_TYPES = {
  fileEntry: `${WINK_FILESYSTEM_TYPES}:FileEntry`,
  globMatch: `${WINK_FILESYSTEM_TYPES}:GlobMatch`,
  grepMatch: `${WINK_FILESYSTEM_TYPES}:GrepMatch`,
  readResult: `${WINK_FILESYSTEM_TYPES}:ReadResult`,
  writeResult: `${WINK_FILESYSTEM_TYPES}:WriteResult`,
  removeResult: "wink_debug.tools:RemoveResult",
  shellResult: "wink_debug.tools:ShellResult",
} as const;

/** `ls`: one entry (WINK's `FileEntry` plus kind and size). */
export interface LsEntry {
  readonly __type__: typeof TOOL_VALUE_TYPES.fileEntry;
  readonly name: string;
  readonly path: string;
  readonly is_file: boolean;
  readonly is_directory: boolean;
  readonly kind: EntryKind;
  /** Size of a file; null for anything else. */
  readonly size_bytes: number | null;
}

/** `glob`: one matching file (WINK's `GlobMatch`). */
export interface GlobValue {
  readonly __type__: typeof TOOL_VALUE_TYPES.globMatch;
  readonly path: string;
  readonly is_file: true;
}

/** `grep`: one matching line (WINK's `GrepMatch`). */
export interface GrepValue {
  readonly __type__: typeof TOOL_VALUE_TYPES.grepMatch;
  readonly path: string;
  readonly line_number: number;
  readonly line_content: string;
  readonly match_start: number;
  readonly match_end: number;
}

/** `read_file`: a window of lines (WINK's `ReadResult`; `content` carries line numbers). */
export interface ReadFileValue {
  readonly __type__: typeof TOOL_VALUE_TYPES.readResult;
  readonly path: string;
  /** The requested lines, each prefixed with its 1-based number ("  12 | text"). */
  readonly content: string;
  readonly offset: number;
  /** Lines returned. */
  readonly limit: number;
  readonly total_lines: number;
  readonly truncated: boolean;
}

/** `write_file` (WINK's `WriteResult`). */
export interface WriteFileValue {
  readonly __type__: typeof TOOL_VALUE_TYPES.writeResult;
  readonly path: string;
  readonly bytes_written: number;
  readonly mode: WriteMode;
}

/** `edit_file`: the overwrite it made (WINK's `WriteResult`) and how many replacements. */
export interface EditFileValue extends Omit<WriteFileValue, "mode"> {
  readonly mode: "overwrite";
  readonly replacements: number;
}

/** `rm`: what was removed (no WINK type: ours). */
export interface RmValue {
  readonly __type__: typeof TOOL_VALUE_TYPES.removeResult;
  readonly path: string;
  /** Files and directories removed, the path itself included. */
  readonly removed: number;
}
