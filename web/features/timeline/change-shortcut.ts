/**
 * What `C` (diff of the files the selected tool call changed) opens, and what it says when it
 * has nothing to open: a key that does nothing silently reads as broken.
 *
 * With the session's undo store, a call's own changes are known. Without one (WINK's session
 * files and debug bundles never have one) a call that names a file (`write_file path=…`,
 * `codex:file_change file=…`) is looked up in the workspace diff between the snapshots
 * written just before and just after it, and C opens that file's diff there.
 */
import type { FileChangeResponse, TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";

export function noChangesReason(selected: TimelineEventResponse | undefined, changes: TimelineResponse["changes"] | null, selectedChanges: ToolCallChangesResponse | undefined): string | null {
  if (selected === undefined) return "Select a tool call first (J/K): C opens the diff of the files it changed";
  if (selected.kind !== "tool_call") return `C opens a tool call's changed files; the selected event is ${selected.title}, not a tool call`;
  if ((changes === null || changes === undefined) && readsOnly(selected)) return `${selected.title} only reads: C opens the files a call changed (select a write or an edit)`;
  if (changes === null || changes === undefined) return "No file changes are known for this session: its undo store is not served with it";
  if (selectedChanges === undefined || selectedChanges.files.length === 0) return `${selected.title} changed no files`;
  return null;
}

/** Tools that only look: the file a `read_file` names changed, if at all, by another call. */
const READS = /(^|[_:.-])(read|reads|list|ls|glob|grep|search|find|view|cat|head|tail|stat|open|show|get)([_:.-]|$)/i;

/** Whether `C` tells a reading call apart: it names a file it did not change. */
export function readsOnly(event: TimelineEventResponse): boolean {
  return READS.test(event.title);
}

/** The file a tool call that may write names in its key argument (`path`, `file_path`, `file`…), if any. */
export function calledPath(event: TimelineEventResponse): string | null {
  const argument = event.argument;
  if (event.kind !== "tool_call" || readsOnly(event) || argument === null || !/path|file/i.test(argument.name)) return null;
  const value = argument.value.trim();
  return value === "" || value === "." ? null : value;
}

/**
 * The change of the workspace diff that is the file `named` by a call: the same path, or one
 * it ends with (a call may name it from its working directory, `/repo/src/a.py` for `src/a.py`).
 */
export function changeOfPath(changes: readonly FileChangeResponse[], named: string): FileChangeResponse | undefined {
  const clean = named.replace(/^\.\//, "");
  const moved = (change: FileChangeResponse) => change.path === clean || change.old_path === clean;
  return changes.find(moved) ?? changes.find((change) => clean.endsWith(`/${change.path}`) || (change.old_path !== null && clean.endsWith(`/${change.old_path}`)));
}
