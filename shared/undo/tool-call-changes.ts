/**
 * What the viewer shows of the per-tool-call undo store (browser-safe): for each tool call,
 * the files it changed, their content before and after, and whether the call was undone.
 *
 * Input is the store's layout as data: the manifests of a session's snapshots (parsed or as
 * text) and a loader for content-addressed bodies. The post-state of a path is the
 * post-image recorded when the call's snapshot was closed; failing that, the pre-image a later
 * snapshot of the session recorded for the same path (the state right after this call, unless
 * something untracked changed it in between); failing that, unknown (use the workspace
 * archive of the session's next snapshot).
 */
import type { UndoManifest, UndoPathState } from "./manifest.js";
import { compareUndoManifests, parseUndoManifest } from "./manifest.js";

export type FileChangeKind = "added" | "modified" | "deleted" | "type-changed" | "unknown";

export interface FileSide {
  readonly state: UndoPathState;
  /** UTF-8 text of a file (null when binary, too large, not loaded or missing). */
  readonly text: string | null;
  /** True when the file's bytes are not valid UTF-8. */
  readonly binary: boolean;
  /** False when the body could not be loaded. */
  readonly available: boolean;
}

export interface ToolCallFileChange {
  readonly path: string;
  readonly change: FileChangeKind;
  readonly before: FileSide;
  /** Null when the post-state is unknown. */
  readonly after: FileSide | null;
  readonly afterSource: "recorded" | "next-snapshot" | "unknown";
}

export interface ToolCallChanges {
  readonly toolCallId: string;
  readonly sessionId: string;
  readonly snapshotId: string;
  readonly turnId: string | null;
  readonly capturedAt: string;
  /** The call's changes were rolled back (restore_tool_call or a turn rollback). */
  readonly undone: boolean;
  readonly restoredAt: string | null;
  /** Changed paths, sorted; directories appear with their kind, files with their content. */
  readonly files: readonly ToolCallFileChange[];
}

export interface ToolCallChangesResult {
  /** In capture order. */
  readonly toolCalls: readonly ToolCallChanges[];
  readonly byToolCallId: Readonly<Record<string, ToolCallChanges>>;
  /** Manifests that could not be parsed, and bodies that could not be loaded. */
  readonly problems: readonly { readonly where: string; readonly message: string }[];
}

export interface ReadToolCallChangesOptions {
  /** Load file contents (default true); false gives states and change kinds only. */
  readonly withContent?: boolean;
  /** Bodies larger than this are not decoded (default 1 MiB). */
  readonly maxTextBytes?: number;
}

/** Returns a body's bytes by sha256, or null when it is missing. */
export type BodyLoader = (hash: string) => Promise<Uint8Array | null>;

function sameState(a: UndoPathState, b: UndoPathState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.bodyHash === b.bodyHash && a.mode === b.mode;
  if (a.kind === "directory" && b.kind === "directory") return a.mode === b.mode;
  return true;
}

function changeKind(before: UndoPathState, after: UndoPathState | null): FileChangeKind | null {
  if (after === null) return "unknown";
  if (sameState(before, after)) return null;
  if (before.kind === "absent") return "added";
  if (after.kind === "absent") return "deleted";
  return before.kind === after.kind ? "modified" : "type-changed";
}

/** Per tool call: the files it changed, before/after content, and whether it was undone. */
export async function readToolCallChanges(manifests: Iterable<UndoManifest | string>, loadBody: BodyLoader, options: ReadToolCallChangesOptions = {}): Promise<ToolCallChangesResult> {
  const withContent = options.withContent ?? true;
  const maxTextBytes = options.maxTextBytes ?? 1024 * 1024;
  const problems: { where: string; message: string }[] = [];
  const parsed: UndoManifest[] = [];
  let index = 0;
  for (const manifest of manifests) {
    index += 1;
    if (typeof manifest !== "string") {
      parsed.push(manifest);
      continue;
    }
    try {
      parsed.push(parseUndoManifest(manifest, `manifest ${index}`));
    } catch (error) {
      problems.push({ where: `manifest ${index}`, message: error instanceof Error ? error.message : String(error) });
    }
  }
  parsed.sort(compareUndoManifests);
  const calls = parsed.filter((manifest) => manifest.kind === "tool_call");

  const decoder = new TextDecoder("utf-8", { fatal: true });
  const cache = new Map<string, Promise<Uint8Array | null>>();
  const side = async (state: UndoPathState, where: string): Promise<FileSide> => {
    if (state.kind !== "file" || !withContent) return { state, text: null, binary: false, available: state.kind !== "file" || !withContent };
    let loading = cache.get(state.bodyHash);
    if (loading === undefined) {
      loading = loadBody(state.bodyHash).catch(() => null);
      cache.set(state.bodyHash, loading);
    }
    const bytes = await loading;
    if (bytes === null) {
      problems.push({ where, message: `body ${state.bodyHash} is missing` });
      return { state, text: null, binary: false, available: false };
    }
    if (bytes.length > maxTextBytes) return { state, text: null, binary: false, available: true };
    try {
      return { state, text: decoder.decode(bytes), binary: false, available: true };
    } catch {
      return { state, text: null, binary: true, available: true };
    }
  };

  const toolCalls: ToolCallChanges[] = [];
  for (const [position, manifest] of calls.entries()) {
    const files: ToolCallFileChange[] = [];
    for (const entry of manifest.entries) {
      let after: UndoPathState | null = entry.after ?? null;
      let afterSource: ToolCallFileChange["afterSource"] = after === null ? "unknown" : "recorded";
      if (after === null) {
        const later = calls.slice(position + 1).find((next) => next.sessionId === manifest.sessionId && next.entries.some((other) => other.path === entry.path));
        const next = later?.entries.find((other) => other.path === entry.path);
        if (next !== undefined) {
          after = next.before;
          afterSource = "next-snapshot";
        }
      }
      const change = changeKind(entry.before, after);
      if (change === null) continue;
      const where = `${manifest.scopeId} ${entry.path}`;
      files.push({ path: entry.path, change, before: await side(entry.before, where), after: after === null ? null : await side(after, where), afterSource });
    }
    toolCalls.push({
      toolCallId: manifest.scopeId,
      sessionId: manifest.sessionId,
      snapshotId: manifest.snapshotId,
      turnId: manifest.turnId,
      capturedAt: manifest.capturedAt,
      undone: manifest.restoredAt !== null,
      restoredAt: manifest.restoredAt,
      files,
    });
  }
  const byToolCallId: Record<string, ToolCallChanges> = {};
  for (const call of toolCalls) Object.defineProperty(byToolCallId, call.toolCallId, { value: call, enumerable: true, configurable: true, writable: true });
  return { toolCalls, byToolCallId, problems };
}
