/**
 * Reading an undo store from disk for viewers (read-only, never modifies it): where a
 * session's store lies next to a snapshots directory, its manifests, and a body loader that
 * only ever opens `bodies/<sha256>` inside it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { UNDO_BODIES_DIR, UNDO_MANIFEST_NAME, UNDO_SNAPSHOTS_DIR, isUndoBodyHash, isValidUndoSessionId } from "./manifest.js";
import type { BodyLoader, ReadToolCallChangesOptions, ToolCallChangesResult } from "./tool-call-changes.js";
import { readToolCallChanges } from "./tool-call-changes.js";

/** Name of the undo state directory placed next to session files (`<dir>/undo/snapshots/<session_id>/…`). */
export const UNDO_STATE_DIR_NAME = "undo";

/** The session directory of an undo store whose state directory is `stateDir`, or null for an unusable id. */
export function undoSessionDir(stateDir: string, sessionId: string): string | null {
  return isValidUndoSessionId(sessionId) ? join(stateDir, UNDO_SNAPSHOTS_DIR, sessionId) : null;
}

/** Manifest texts of a session directory (empty when there is none) and a loader for its bodies. */
export async function loadUndoSessionFiles(sessionDir: string, options: { maxBodyBytes?: number } = {}): Promise<{ manifests: string[]; loadBody: BodyLoader }> {
  const manifests: string[] = [];
  let names: string[] = [];
  try {
    names = await readdir(sessionDir);
  } catch {
    // No store for this session.
  }
  for (const name of names.sort()) {
    if (name === UNDO_BODIES_DIR || name.startsWith(".")) continue;
    const text = await readFile(join(sessionDir, name, UNDO_MANIFEST_NAME), "utf8").catch(() => null);
    if (text !== null) manifests.push(text);
  }
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const loadBody: BodyLoader = async (hash) => {
    if (!isUndoBodyHash(hash)) return null;
    const bytes = await readFile(join(sessionDir, UNDO_BODIES_DIR, hash)).catch(() => null);
    return bytes === null || bytes.length > maxBodyBytes ? null : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  };
  return { manifests, loadBody };
}

/** `readToolCallChanges` over the store of `sessionId` in `stateDir` (e.g. `<snapshots dir>/undo`). */
export async function readToolCallChangesFromStore(stateDir: string, sessionId: string, options: ReadToolCallChangesOptions = {}): Promise<ToolCallChangesResult> {
  const dir = undoSessionDir(stateDir, sessionId);
  if (dir === null) return { toolCalls: [], byToolCallId: {}, problems: [{ where: sessionId, message: "session id cannot name an undo store directory" }] };
  const { manifests, loadBody } = await loadUndoSessionFiles(dir);
  return readToolCallChanges(manifests, loadBody, options);
}
