/**
 * The on-disk format of the per-tool-call undo store (browser-safe: the viewer parses it too).
 *
 *   <stateDir>/snapshots/<session_id>/<snapshot_id>/manifest.json
 *   <stateDir>/snapshots/<session_id>/bodies/<sha256>      content-addressed, shared by the session's snapshots
 *
 * A manifest maps each captured path to its pre-image — `{kind: "file", body_hash, mode,
 * size_bytes}`, `{kind: "absent"}` or `{kind: "directory", mode}` — plus, once the tool call
 * has finished, the path's post-image under `after` (same shape), so a reader can show the
 * change without the workspace. A `directory` pre-image always comes with its whole subtree:
 * restoring it replaces whatever is at that path by exactly the captured tree.
 *
 * Keys are snake_case like the spec's; readers ignore keys they do not know.
 */
import { InvalidArgumentError } from "../errors.js";

export const UNDO_MANIFEST_FORMAT = "wink-undo";
export const UNDO_MANIFEST_VERSION = 1;
export const UNDO_MANIFEST_NAME = "manifest.json";
export const UNDO_BODIES_DIR = "bodies";
export const UNDO_SNAPSHOTS_DIR = "snapshots";

/** What a path was (pre-image) or became (post-image). */
export type UndoPathState =
  | { readonly kind: "file"; readonly bodyHash: string; readonly sizeBytes: number; readonly mode: number | null }
  | { readonly kind: "directory"; readonly mode: number | null }
  | { readonly kind: "absent" };

export interface UndoEntry {
  /** Normalised workspace path ("" is the root). */
  readonly path: string;
  readonly before: UndoPathState;
  /** State when the snapshot was closed (the tool call's result), if recorded. */
  readonly after?: UndoPathState;
}

/**
 * `tool_call`: pre-images of one tool call (or any scope); `redo`: the state a turn rollback
 * replaced, so that redo can put it back.
 */
export type UndoSnapshotKind = "tool_call" | "redo";

export interface UndoManifest {
  readonly snapshotId: string;
  readonly sessionId: string;
  /** The scope the snapshot belongs to; canonically the ACP toolCallId. */
  readonly scopeId: string;
  readonly kind: UndoSnapshotKind;
  /** The turn it belongs to (null outside turns). */
  readonly turnId: string | null;
  /** ISO-8601 with offset. */
  readonly capturedAt: string;
  /** Registration order within the session (ties of `capturedAt` are broken by it). */
  readonly sequence: number;
  /** Root of the workspace the paths belong to. */
  readonly workspaceRoot: string;
  /** True while mutating calls may still add pre-images. */
  readonly open: boolean;
  readonly closedAt: string | null;
  /** When the snapshot was restored (the tool call undone); null when it is in effect. */
  readonly restoredAt: string | null;
  /** Entries sorted by path. */
  readonly entries: readonly UndoEntry[];
  /** For a `redo` snapshot: the scopes its rollback undid (redo puts them back in effect). */
  readonly undoneScopeIds?: readonly string[];
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** True when a session id can name an undo store directory: 1–200 of letters, digits, "_", "-", "." (not first). */
export function isValidUndoSessionId(sessionId: unknown): sessionId is string {
  return typeof sessionId === "string" && SESSION_ID.test(sessionId);
}

export function isUndoBodyHash(value: unknown): value is string {
  return typeof value === "string" && SHA256_HEX.test(value);
}

function stateToJson(state: UndoPathState): Record<string, unknown> {
  switch (state.kind) {
    case "file":
      return { kind: "file", body_hash: state.bodyHash, size_bytes: state.sizeBytes, ...(state.mode === null ? {} : { mode: state.mode }) };
    case "directory":
      return { kind: "directory", ...(state.mode === null ? {} : { mode: state.mode }) };
    case "absent":
      return { kind: "absent" };
  }
}

/** The manifest as the JSON object written to disk. */
export function undoManifestToJson(manifest: UndoManifest): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const entry of manifest.entries) {
    const json = stateToJson(entry.before);
    if (entry.after !== undefined) json.after = stateToJson(entry.after);
    Object.defineProperty(paths, entry.path, { value: json, enumerable: true, writable: true, configurable: true });
  }
  return {
    format: UNDO_MANIFEST_FORMAT,
    version: UNDO_MANIFEST_VERSION,
    snapshot_id: manifest.snapshotId,
    session_id: manifest.sessionId,
    scope_id: manifest.scopeId,
    kind: manifest.kind,
    turn_id: manifest.turnId,
    captured_at: manifest.capturedAt,
    sequence: manifest.sequence,
    workspace_root: manifest.workspaceRoot,
    open: manifest.open,
    closed_at: manifest.closedAt,
    restored_at: manifest.restoredAt,
    ...(manifest.undoneScopeIds === undefined ? {} : { undone_scope_ids: [...manifest.undoneScopeIds] }),
    paths,
  };
}

export function serializeUndoManifest(manifest: UndoManifest): string {
  return `${JSON.stringify(undoManifestToJson(manifest), null, 2)}\n`;
}

function bad(where: string, problem: string): never {
  throw new InvalidArgumentError(`Invalid undo manifest${where === "" ? "" : ` (${where})`}: ${problem}`, { manifest: where });
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function stringField(object: Record<string, unknown>, key: string, where: string): string {
  const value = own(object, key);
  if (typeof value !== "string" || value === "") bad(where, `"${key}" must be a non-empty string`);
  return value;
}

function nullableString(object: Record<string, unknown>, key: string, where: string): string | null {
  const value = own(object, key);
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") bad(where, `"${key}" must be a string or null`);
  return value;
}

function modeField(object: Record<string, unknown>, where: string): number | null {
  const value = own(object, "mode");
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0o7777) bad(where, '"mode" must be permission bits (0–0o7777)');
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseState(value: unknown, where: string): UndoPathState {
  if (!isPlainObject(value)) bad(where, "entry must be an object");
  const kind = own(value, "kind");
  if (kind === "absent") return { kind: "absent" };
  if (kind === "directory") return { kind: "directory", mode: modeField(value, where) };
  if (kind === "file") {
    const bodyHash = own(value, "body_hash");
    if (!isUndoBodyHash(bodyHash)) bad(where, '"body_hash" must be a lowercase sha256 hex digest');
    const size = own(value, "size_bytes");
    if (size !== undefined && (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0)) bad(where, '"size_bytes" must be a non-negative integer');
    return { kind: "file", bodyHash, sizeBytes: typeof size === "number" ? size : -1, mode: modeField(value, where) };
  }
  return bad(where, `unknown kind ${JSON.stringify(kind)} (expected "file", "absent" or "directory")`);
}

/** A workspace path as stored: relative, "/"-separated, no empty, "." or ".." segments. */
function checkEntryPath(path: string, where: string): void {
  if (path === "") return;
  if (path.startsWith("/") || path.includes("\\") || path.includes("\u0000")) bad(where, `unsafe path ${JSON.stringify(path)}`);
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") bad(where, `unsafe path ${JSON.stringify(path)}`);
  }
}

/** Parse and validate a manifest (text or already-parsed JSON). Throws EINVAL naming the problem. */
export function parseUndoManifest(input: string | unknown, where = ""): UndoManifest {
  let json: unknown = input;
  if (typeof input === "string") {
    try {
      json = JSON.parse(input);
    } catch (error) {
      bad(where, `not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (!isPlainObject(json)) bad(where, "must be a JSON object");
  if (own(json, "format") !== UNDO_MANIFEST_FORMAT) bad(where, `"format" must be "${UNDO_MANIFEST_FORMAT}"`);
  if (own(json, "version") !== UNDO_MANIFEST_VERSION) bad(where, `unsupported version ${JSON.stringify(own(json, "version"))}`);
  const kind = own(json, "kind") ?? "tool_call";
  if (kind !== "tool_call" && kind !== "redo") bad(where, `unknown snapshot kind ${JSON.stringify(kind)}`);
  const sequence = own(json, "sequence");
  if (typeof sequence !== "number" || !Number.isSafeInteger(sequence) || sequence < 0) bad(where, '"sequence" must be a non-negative integer');
  const paths = own(json, "paths");
  if (!isPlainObject(paths)) bad(where, '"paths" must be an object');
  const entries: UndoEntry[] = [];
  for (const path of Object.keys(paths).sort()) {
    const at = `${where === "" ? "" : `${where} `}path ${JSON.stringify(path)}`;
    checkEntryPath(path, at);
    const raw = paths[path];
    const before = parseState(raw, at);
    const afterRaw = isPlainObject(raw) ? own(raw, "after") : undefined;
    entries.push(afterRaw === undefined || afterRaw === null ? { path, before } : { path, before, after: parseState(afterRaw, `${at} after`) });
  }
  const open = own(json, "open");
  const undone = own(json, "undone_scope_ids");
  if (undone !== undefined && (!Array.isArray(undone) || !undone.every((id) => typeof id === "string"))) bad(where, '"undone_scope_ids" must be a list of strings');
  return {
    snapshotId: stringField(json, "snapshot_id", where),
    sessionId: stringField(json, "session_id", where),
    scopeId: stringField(json, "scope_id", where),
    kind,
    turnId: nullableString(json, "turn_id", where),
    capturedAt: stringField(json, "captured_at", where),
    sequence,
    workspaceRoot: typeof own(json, "workspace_root") === "string" ? (own(json, "workspace_root") as string) : "",
    open: open === true,
    closedAt: nullableString(json, "closed_at", where),
    restoredAt: nullableString(json, "restored_at", where),
    entries,
    ...(undone === undefined ? {} : { undoneScopeIds: undone as string[] }),
  };
}

/** Order of `list()`: capture time, then registration order. */
export function compareUndoManifests(a: Pick<UndoManifest, "capturedAt" | "sequence">, b: Pick<UndoManifest, "capturedAt" | "sequence">): number {
  const ta = Date.parse(a.capturedAt);
  const tb = Date.parse(b.capturedAt);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a.sequence - b.sequence;
}

/** Body hashes a manifest references (pre- and post-images). */
export function undoManifestBodies(manifest: Pick<UndoManifest, "entries">): string[] {
  const hashes: string[] = [];
  for (const entry of manifest.entries) {
    if (entry.before.kind === "file") hashes.push(entry.before.bodyHash);
    if (entry.after?.kind === "file") hashes.push(entry.after.bodyHash);
  }
  return hashes;
}
