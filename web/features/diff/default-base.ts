/**
 * The snapshot a comparison starts from when the user has not picked one: the session's
 * previous line, else the file's previous line, else its next one.
 */
import type { SnapshotRef } from "../../api/api.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";

export function defaultBase(entries: readonly SnapshotEntry[], target: SnapshotRef): SnapshotRef | null {
  const current = entries.find((entry) => entry.file === target.file && entry.line === target.line);
  const sameFile = entries.filter((entry) => entry.file === target.file && entry.line !== target.line).sort((a, b) => a.line - b.line);
  const earlier = sameFile.filter((entry) => entry.line < target.line);
  const sameSession = current === undefined ? [] : earlier.filter((entry) => entry.sessionId === current.sessionId);
  const pick = sameSession[sameSession.length - 1] ?? earlier[earlier.length - 1] ?? sameFile[0];
  return pick === undefined ? null : { file: pick.file, line: pick.line };
}
