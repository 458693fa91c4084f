/**
 * What `C` (diff of the files the selected tool call changed) says when it has nothing to
 * open: a key that does nothing silently reads as broken.
 */
import type { TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";

export function noChangesReason(selected: TimelineEventResponse | undefined, changes: TimelineResponse["changes"] | null, selectedChanges: ToolCallChangesResponse | undefined): string | null {
  if (selected === undefined) return "Select a tool call first (J/K): C opens the diff of the files it changed";
  if (selected.kind !== "tool_call") return `C opens a tool call's changed files; the selected event is ${selected.title}, not a tool call`;
  if (changes === null || changes === undefined) return "No file changes are known for this session: its undo store is not served with it";
  if (selectedChanges === undefined || selectedChanges.files.length === 0) return `${selected.title} changed no files`;
  return null;
}
