/**
 * Which snapshot a request is about. Every route takes an explicit selector in its query
 * (`file`, `line`, `session`), so tabs and deep links never depend on shared state; without
 * one, the server's "current" snapshot (WINK's `/api/select` and `/api/switch`) is used.
 */
import path from "node:path";
import type { CompactSessionIndex, SessionIndexEntry, SessionSnapshot } from "../../shared/session/index.js";
import { SessionLoadError, SourceError } from "../../shared/errors.js";
import type { IndexedSnapshotLine } from "../../shared/viewer/index.js";
import { ServerError, echoedName, notFound } from "../http/errors.js";
import type { DebugBundle } from "../../shared/debug-bundle/index.js";
import type { ArchiveCache } from "./archive-cache.js";
import type { DebugBundles } from "./debug-bundles.js";
import type { SessionFileRecord, SnapshotDirectory } from "./snapshot-directory.js";
import type { ResolvedWorkspace } from "./workspace-source.js";
import { bundleWorkspace, resolveWorkspace } from "./workspace-source.js";

/** The snapshot selector of a request. */
export interface SnapshotSelector {
  /** Session file, relative to the served directory. */
  file?: string | undefined;
  /** 1-based physical line number. */
  line?: number | undefined;
  /** Session id (the first line with this id, in file order). */
  session?: string | undefined;
}

/** A resolved snapshot line. */
export interface Selection {
  readonly record: SessionFileRecord;
  readonly index: CompactSessionIndex;
  readonly entry: SessionIndexEntry;
}

/** A debug bundle of the served directory, opened. */
export interface BundleSelection {
  readonly record: SessionFileRecord;
  readonly bundle: DebugBundle;
}

/** The line a file opens on: a session file's first line, a bundle's last (its state after the run, else before). */
function defaultEntry(record: SessionFileRecord, index: CompactSessionIndex): SessionIndexEntry | undefined {
  return index.lines.at(record.kind === "bundle" ? -1 : 0);
}

/** The line of a session: in a session file its first line, in a bundle its last (both lines share the id). */
function entryOfSession(record: SessionFileRecord, index: CompactSessionIndex, sessionId: string): SessionIndexEntry | undefined {
  return index.lines.ofSession(sessionId, record.kind === "bundle");
}

function sameSession(entry: SessionIndexEntry | undefined, sessionId: string): SessionIndexEntry | undefined {
  return entry?.sessionId === sessionId ? entry : undefined;
}

/** What the summary-level views need from an index entry. */
export function indexedLine(entry: SessionIndexEntry): IndexedSnapshotLine {
  return { lineNumber: entry.lineNumber, summary: entry };
}

/**
 * How long a resolved workspace is reused without looking at the disk again. Expired ones
 * are dropped, not only replaced: a resolved workspace holds its archive's index (or a
 * line's virtual files), which the memory budget may since have let go of.
 */
const WORKSPACE_TTL_MS = 1000;
/** Files of a remote store tried at start for one that loads (each costs a whole object). */
const MAX_REMOTE_CANDIDATES = 8;
/** Store failures that are not about one object: no other object will load either. */
const STORE_WIDE = new Set(["E_SOURCE_UNREACHABLE", "E_SOURCE_CREDENTIALS_MISSING", "E_SOURCE_CREDENTIALS_EXPIRED", "E_SOURCE_CREDENTIALS_INVALID", "E_SOURCE_THROTTLED", "E_SOURCE_TIMEOUT"]);

function storeWide(error: unknown): boolean {
  return error instanceof SourceError && STORE_WIDE.has(error.code);
}
const MAX_CACHED_WORKSPACES = 1000;

/** What to say of a target with no session file or bundle. */
export function noRunsFound(displayRoot: string, recursive: boolean): string {
  return `No session files or debug bundles found under ${displayRoot}${recursive ? "" : " (-r also looks in subdirectories, e.g. an EvalLoop's {request_id}/ folders)"}`;
}

export class ViewerState {
  #current: { file: string; line: number; sessionId: string } | null = null;
  /** Recently resolved workspaces: a file request then costs no `lstat` of candidate archives. */
  readonly #workspaces = new Map<string, { index: CompactSessionIndex; at: number; value: Promise<ResolvedWorkspace> }>();

  constructor(
    readonly directory: SnapshotDirectory,
    readonly archives: ArchiveCache,
    /** The root as the user gave it (switch accepts paths under it as well as under the real root). */
    readonly displayRoot: string = directory.root,
    /** Reads the directory's debug bundles (none: bundles are not served). */
    readonly bundles: DebugBundles | null = null,
  ) {}

  /** The current file and line, or null before anything loaded. */
  get current(): { file: string; line: number } | null {
    return this.#current === null ? null : { file: this.#current.file, line: this.#current.line };
  }

  /**
   * Makes the newest loadable file (or `preferred`) current. Throws when no file loads. A
   * debug bundle that opens is loadable even without a session (its logs and error still
   * are worth showing); it is current with line 0 then.
   */
  async initialize(preferred?: string): Promise<void> {
    const candidates = preferred === undefined ? this.directory.newestFirst() : [this.directory.get(preferred)].filter((r): r is SessionFileRecord => r !== undefined);
    if (candidates.length === 0) {
      throw new SessionLoadError(preferred === undefined ? noRunsFound(this.displayRoot, this.directory.recursive) : `Not a session file: ${preferred}`, { path: preferred ?? this.displayRoot });
    }
    let lastError: unknown = null;
    // A remote file that does not load cost a whole object: try only the newest few.
    for (const record of this.directory.store.remote ? candidates.slice(0, MAX_REMOTE_CANDIDATES) : candidates) {
      try {
        if (await this.#bundleWithoutSession(record)) {
          this.#current = { file: record.path, line: 0, sessionId: "" };
          return;
        }
        const selection = await this.#firstLine(record);
        this.#setCurrent(selection);
        return;
      } catch (error) {
        // The store itself failing (unreachable, credentials, throttled…) is not about this file.
        if (storeWide(error)) throw error;
        lastError = error;
      }
    }
    throw lastError instanceof Error ? lastError : new SessionLoadError(`No loadable snapshot under ${this.displayRoot}`);
  }

  /** Resolves a request's selector (falling back to the current snapshot). */
  async resolve(selector: SnapshotSelector = {}): Promise<Selection> {
    const file = selector.file ?? this.#current?.file;
    if (file === undefined) throw notFound("No session file is selected");
    const record = this.directory.get(file);
    if (record === undefined) throw notFound(`Unknown session file: ${echoedName(file)}`);
    // The file a request is about is the open one: its index stays while others give way to the budget.
    this.directory.hold(record);
    const index = await this.directory.ensureIndexed(record);
    if (selector.line !== undefined) {
      const entry = index.lines.ofLine(selector.line);
      if (entry === undefined) throw notFound(`Unknown line_number: ${selector.line}`);
      return { record, index, entry };
    }
    if (selector.session !== undefined) {
      const entry = entryOfSession(record, index, selector.session);
      if (entry === undefined) throw notFound(`Unknown session_id: ${selector.session}`);
      return { record, index, entry };
    }
    const current = this.#current;
    if (current !== null && current.file === file) {
      const entry =
        sameSession(index.lines.ofLine(current.line), current.sessionId) ??
        entryOfSession(record, index, current.sessionId) ??
        defaultEntry(record, index);
      if (entry !== undefined) return { record, index, entry };
    }
    return this.#firstLine(record);
  }

  /** The selected line parsed in full. */
  async snapshot(selection: Selection): Promise<SessionSnapshot> {
    return this.directory.readSnapshot(selection.record, selection.entry.lineNumber);
  }

  /**
   * The debug bundle a request is about: its `file`, else the current file. 404 when that is
   * not a bundle; the bundle's own error (corrupt, refused, no manifest) otherwise.
   */
  async bundle(selector: Pick<SnapshotSelector, "file"> = {}): Promise<BundleSelection> {
    const file = selector.file ?? this.#current?.file;
    if (file === undefined) throw notFound("No debug bundle is selected");
    const record = this.directory.get(file);
    if (record === undefined) throw notFound(`Unknown debug bundle: ${echoedName(file)}`);
    if (record.kind !== "bundle" || this.bundles === null) throw notFound(`${file} is a session file, not a debug bundle`);
    return { record, bundle: await this.bundles.open(record.absolutePath, record.path) };
  }

  /** True when `file` (else the current file) is a debug bundle of the directory. */
  isBundle(file?: string): boolean {
    const name = file ?? this.#current?.file;
    return name !== undefined && this.directory.get(name)?.kind === "bundle";
  }

  /** The selected line's workspace. */
  async workspace(selection: Selection): Promise<ResolvedWorkspace> {
    if (selection.record.kind === "bundle" && this.bundles !== null) {
      const bundle = await this.bundles.open(selection.record.absolutePath, selection.record.path);
      return bundleWorkspace(bundle, selection.entry.lineNumber === defaultEntry(selection.record, selection.index)?.lineNumber);
    }
    const key = `${selection.record.path}\n${selection.entry.lineNumber}`;
    const now = Date.now();
    const hit = this.#workspaces.get(key);
    if (hit !== undefined && hit.index === selection.index && now - hit.at < WORKSPACE_TTL_MS) {
      // Answers cached per source (rendered files) must not outlive the archive they came from.
      const workspace = await hit.value.catch(() => null);
      if (workspace !== null && (workspace.source === null || (await this.archives.isCurrent(workspace.source)))) return workspace;
    }
    const value = resolveWorkspace(this.directory.store, selection.record.path, selection.entry, () => this.snapshot(selection), this.archives);
    this.#workspaces.delete(key);
    // Insertion order is age order (a refreshed key moves to the end): drop from the start.
    for (const [oldKey, old] of this.#workspaces) {
      if (now - old.at < WORKSPACE_TTL_MS && this.#workspaces.size < MAX_CACHED_WORKSPACES) break;
      this.#workspaces.delete(oldKey);
    }
    this.#workspaces.set(key, { index: selection.index, at: now, value });
    // An archive that could not be opened (truncated, being rewritten) is looked at again by the next request.
    value.then((workspace) => workspace.error === null || this.#workspaces.delete(key)).catch(() => this.#workspaces.delete(key));
    return value;
  }

  /** WINK's `/api/select`: another line of the current file, by session id (wins) or line number. */
  async select(sessionId: string | undefined, lineNumber: number | undefined): Promise<Selection> {
    const current = await this.resolve();
    const entry = sessionId !== undefined ? entryOfSession(current.record, current.index, sessionId) : lineNumber === undefined ? undefined : current.index.lines.ofLine(lineNumber);
    if (entry === undefined) {
      throw new ServerError("WD_ERR_BAD_REQUEST", sessionId !== undefined ? `Unknown session_id: ${sessionId}` : `Unknown line_number: ${lineNumber}`);
    }
    const selection = { record: current.record, index: current.index, entry };
    this.#setCurrent(selection);
    return selection;
  }

  /**
   * WINK's `/api/switch`: another file (or the newest file of a directory) under the served
   * directory, then optionally a line of it. The current state is unchanged on failure.
   * Null when the file is a debug bundle without a session (it is current nonetheless).
   */
  async switchTo(input: string, sessionId?: string, lineNumber?: number): Promise<Selection | null> {
    const relative = this.relativeToRoot(input);
    if (relative === null) throw new ServerError("WD_ERR_OUTSIDE_ROOT", `Snapshot must live under ${this.displayRoot}`);
    let record = this.directory.get(relative);
    if (record === undefined) {
      await this.directory.refresh();
      record = this.directory.get(relative);
    }
    if (record === undefined) {
      const prefix = relative === "" ? "" : `${relative}/`;
      record = this.directory.newestFirst().find((candidate) => candidate.path.startsWith(prefix));
    }
    if (record === undefined) throw new ServerError("WD_ERR_NOT_LOADABLE", `No snapshot file at ${relative === "" ? "the served directory" : relative}`);
    if (sessionId === undefined && lineNumber === undefined && (await this.#bundleWithoutSession(record))) {
      this.#current = { file: record.path, line: 0, sessionId: "" };
      return null;
    }
    this.directory.hold(record);
    const index = await this.directory.ensureIndexed(record);
    let entry = defaultEntry(record, index);
    if (sessionId !== undefined || lineNumber !== undefined) {
      entry = sessionId !== undefined ? entryOfSession(record, index, sessionId) : lineNumber === undefined ? undefined : index.lines.ofLine(lineNumber);
      if (entry === undefined) throw new ServerError("WD_ERR_BAD_REQUEST", sessionId !== undefined ? `Unknown session_id: ${sessionId}` : `Unknown line_number: ${lineNumber}`);
    }
    if (entry === undefined) throw new ServerError("WD_ERR_NOT_LOADABLE", `${record.path} contained no loadable snapshot line`);
    const selection = { record, index, entry };
    this.#setCurrent(selection);
    return selection;
  }

  /**
   * WINK's `/api/reload`: reads the current file again; keeps the selected session when it
   * still exists, else the first line. On failure the previous state stays served.
   */
  async reload(): Promise<Selection | null> {
    if (this.#current !== null && this.#current.line === 0) {
      // A bundle without a session: open it again; it may have one now.
      const record = this.directory.get(this.#current.file);
      if (record === undefined) throw new ServerError("WD_ERR_NOT_LOADABLE", `Reload failed: ${this.#current.file} is gone`);
      await this.directory.reindex(record).catch((error: unknown) => {
        throw new ServerError("WD_ERR_NOT_LOADABLE", `Reload failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (await this.#bundleWithoutSession(record)) return null;
      const selection = await this.#firstLine(record);
      this.#setCurrent(selection);
      return selection;
    }
    const current = await this.resolve();
    const previous = current.record.index;
    let index: CompactSessionIndex;
    try {
      index = await this.directory.reindex(current.record);
    } catch (error) {
      throw new ServerError("WD_ERR_NOT_LOADABLE", `Reload failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A bundle's two lines share one session id: keep the line; a session file keeps WINK's rule (the session's line).
    const sameLine = current.record.kind === "bundle" ? sameSession(index.lines.ofLine(current.entry.lineNumber), current.entry.sessionId) : undefined;
    const entry = sameLine ?? entryOfSession(current.record, index, current.entry.sessionId) ?? defaultEntry(current.record, index);
    if (entry === undefined) {
      // Keep serving what loaded before.
      if (previous !== null) this.directory.keepIndex(current.record, previous);
      else this.directory.forgetIndex(current.record);
      const reason = index.errors[0] === undefined ? "it contains no snapshot line" : `line ${index.errors[0].lineNumber}: ${index.errors[0].reason}`;
      throw new ServerError("WD_ERR_NOT_LOADABLE", `Reload failed: ${current.record.path} does not load (${reason})`);
    }
    const selection = { record: current.record, index, entry };
    this.#setCurrent(selection);
    return selection;
  }

  /** `input` (absolute, or relative to the root) as a path relative to the root, or null when outside. */
  relativeToRoot(input: string): string | null {
    if (input.includes("\0")) return null;
    if (this.directory.store.remote) {
      // A store's key, or its URL under the root.
      const root = this.directory.root;
      const key = input.startsWith(root) ? input.slice(root.length) : input;
      const relative = path.posix.normalize(`/${key}`).slice(1).replace(/\/$/, "");
      return relative === ".." || relative.startsWith("../") || /^[a-z0-9]+:\/\//i.test(key) ? null : relative;
    }
    for (const root of new Set([this.directory.root, this.displayRoot])) {
      const resolved = path.resolve(root, input);
      const relative = path.relative(root, resolved);
      if (relative === "") return "";
      if (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
    }
    return null;
  }

  /** True for a bundle that opens but has no session line (no before.jsonl or after.jsonl that loads). */
  async #bundleWithoutSession(record: SessionFileRecord): Promise<boolean> {
    if (record.kind !== "bundle") return false;
    const index = await this.directory.ensureIndexed(record);
    return index.lines.length === 0;
  }

  async #firstLine(record: SessionFileRecord): Promise<Selection> {
    this.directory.hold(record);
    const index = await this.directory.ensureIndexed(record);
    const entry = defaultEntry(record, index);
    if (entry === undefined && record.kind === "bundle") {
      const reason = index.errors[0] === undefined ? "it holds neither session/before.jsonl nor session/after.jsonl" : index.errors.map((error) => error.reason).join("; ");
      throw notFound(`Debug bundle ${record.path} has no session snapshot: ${reason}`);
    }
    if (entry === undefined) {
      const reason = index.errors[0] === undefined ? "contained no entries" : `line ${index.errors[0].lineNumber}: ${index.errors[0].reason}`;
      throw new ServerError("WD_ERR_NOT_LOADABLE", `${record.path} has no loadable snapshot line (${reason})`);
    }
    return { record, index, entry };
  }

  #setCurrent(selection: Selection): void {
    this.#current = { file: selection.record.path, line: selection.entry.lineNumber, sessionId: selection.entry.sessionId };
  }
}
