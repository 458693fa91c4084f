/**
 * A WINK debug bundle read through the entries of its zip (`FileSource`: the server's lazy
 * archive reader, or jszip in the browser — both validate names, sizes and CRCs with the
 * archive rules). Opening reads the listing and `manifest.json` only; every other member is
 * read when something asks for it (and its checksum checked then), and what is derived from
 * it (the log index, the transcript, the session) is kept in memory: nothing is written
 * anywhere, no cache file beside the bundle.
 *
 * Tolerates what WINK really writes: failed runs without `after.jsonl`, output, config or
 * metrics; bare NaN/Infinity and integers beyond 2^53; transcript lines holding U+2028;
 * top-level workspace names whose leading dot WINK stripped; STORED entries.
 */
import { DEFAULT_ARCHIVE_LIMITS } from "../filesystem/archive-limits.js";
import { ArchiveError, FileNotFoundError } from "../errors.js";
import type { JsonValue } from "../session/json-value.js";
import { isJsonObject, ownValue } from "../session/json-value.js";
import { lineFromBytes } from "../session/line-text.js";
import { parsePythonJson } from "../session/python-json-parse.js";
import type { EnvelopeSummary } from "../session/envelope-scan.js";
import { summarizeSnapshot } from "../session/envelope-scan.js";
import type { SessionLineError, SessionSnapshot } from "../session/snapshot-line.js";
import { parseSnapshotLine } from "../session/snapshot-line.js";
import { MAX_VIEW_BYTES, decodeText, imageMimeType, toBase64 } from "../viewer/file-content.js";
import type { FileIndexEntry, FileSource } from "../viewer/file-source.js";
import type { ArchiveManifestRead } from "../viewer/filesystem-meta.js";
import { renderMarkdown } from "../viewer/markdown.js";
import { environmentView } from "./environment.js";
import { groupIdOf } from "./grouping.js";
import type { Sha256 } from "./integrity.js";
import { IntegrityTracker, webCryptoSha256 } from "./integrity.js";
import { BUNDLE_MEMBERS, BUNDLE_ROOT, FILESYSTEM_PREFIX, SESSION_LINES } from "./layout.js";
import { LogIndex } from "./logs.js";
import type { BundleManifest } from "./manifest.js";
import { parseBundleManifest } from "./manifest.js";
import { TranscriptIndex } from "./transcript.js";
import type { BundleErrorView, BundleFileView, BundleIntegrityView, BundleSessionLineView, BundleSummaryView, EnvironmentView } from "./types.js";

/** Caps on the members a reader parses into memory (the archive limits bound everything else). */
export interface DebugBundleLimits {
  /** `manifest.json` and the other JSON members (default 16 MiB). */
  readonly maxJsonBytes: number;
  /** `logs/app.jsonl` and `transcript.jsonl` (default 128 MiB). */
  readonly maxLogBytes: number;
  /** `session/before.jsonl` and `after.jsonl` (default 128 MiB). */
  readonly maxSessionBytes: number;
}

export const DEFAULT_DEBUG_BUNDLE_LIMITS: DebugBundleLimits = Object.freeze({
  maxJsonBytes: 16 * 1024 * 1024,
  maxLogBytes: 128 * 1024 * 1024,
  maxSessionBytes: 128 * 1024 * 1024,
});

export interface OpenDebugBundleOptions {
  /** The bundle's path as shown (relative to the served directory, or the dropped name). */
  readonly path: string;
  readonly limits?: Partial<DebugBundleLimits>;
  /** SHA-256 for the checksums (default Web Crypto). */
  readonly sha256?: Sha256;
  /** Called whenever the reader keeps something more in memory (see `retainedBytes`), so a memory budget can count it. */
  readonly onGrow?: () => void;
}

/** One session line of a bundle, as the session machinery indexes it (same fields as a session file's index entry). */
export interface BundleSessionEntry extends EnvelopeSummary {
  readonly lineNumber: number;
  readonly byteOffset: number;
  readonly byteLength: number;
}

/** The bundle's session: its loadable lines (before = 1, after = 2) and the lines that did not load. */
export interface BundleSession {
  readonly entries: readonly BundleSessionEntry[];
  readonly errors: readonly SessionLineError[];
  /** Both virtual lines. */
  readonly lineCount: number;
  /** The line shown by default: after when it loads, else before; null without a session. */
  readonly defaultLine: number | null;
  snapshot(lineNumber: number): SessionSnapshot | undefined;
}

/** Top-level names WINK's writer would have stored without their leading dot (`file_path.lstrip("./")`). */
const STRIPPED_DOTFILES = new Set(["gitignore", "gitattributes", "gitmodules", "github", "gitlab-ci.yml", "editorconfig", "dockerignore", "env", "envrc", "npmrc", "nvmrc", "python-version", "pre-commit-config.yaml", "prettierrc", "eslintrc", "eslintrc.json", "flake8", "pylintrc", "vscode", "idea", "devcontainer", "circleci", "ruff.toml"]);

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

export class DebugBundle {
  readonly path: string;
  readonly name: string;
  readonly manifest: BundleManifest;
  readonly limits: DebugBundleLimits;
  readonly #zip: FileSource;
  /** Members (relative to the root) → their listing entry. */
  readonly #members: ReadonlyMap<string, FileIndexEntry>;
  readonly #warnings: string[];
  readonly #integrity: IntegrityTracker;
  #logs: Promise<LogIndex | null> | null = null;
  #transcript: Promise<TranscriptIndex> | null = null;
  #session: Promise<BundleSession> | null = null;
  #workspace: FileSource | null | undefined;
  #summary: Promise<Omit<BundleSummaryView, "integrity">> | null = null;
  /** What the promises above resolved to, for `retainedBytes`. */
  #kept: { logs: LogIndex | null; transcript: TranscriptIndex | null; sessionBytes: number } = { logs: null, transcript: null, sessionBytes: 0 };
  readonly #onGrow: () => void;

  private constructor(zip: FileSource, path: string, manifest: BundleManifest, members: Map<string, FileIndexEntry>, warnings: string[], limits: DebugBundleLimits, sha256: Sha256, onGrow: () => void) {
    this.#zip = zip;
    this.#onGrow = onGrow;
    this.path = path;
    this.name = path.slice(path.lastIndexOf("/") + 1);
    this.manifest = manifest;
    this.#members = members;
    this.#warnings = warnings;
    this.limits = limits;
    const present = new Set([...members.keys()].filter((member) => member !== BUNDLE_MEMBERS.manifest));
    this.#integrity = new IntegrityTracker(manifest.checksums, manifest.checksumAlgorithm, present, sha256);
    if (!this.#integrity.supported) warnings.push(`Checksums use ${manifest.checksumAlgorithm}, which is not checked (only sha256 is)`);
  }

  /**
   * Opens a bundle from its zip's entries: reads the listing and `manifest.json`. Throws
   * `E_ARCHIVE_MANIFEST` when there is no `debug_bundle/manifest.json` or it is not JSON.
   */
  static async open(zip: FileSource, options: OpenDebugBundleOptions): Promise<DebugBundle> {
    const limits = Object.freeze({ ...DEFAULT_DEBUG_BUNDLE_LIMITS, ...options.limits });
    const members = new Map<string, FileIndexEntry>();
    const outside: string[] = [];
    for (const entry of await zip.list()) {
      if (entry.path.startsWith(BUNDLE_ROOT) && entry.path.length > BUNDLE_ROOT.length) members.set(entry.path.slice(BUNDLE_ROOT.length), entry);
      else outside.push(entry.path);
    }
    const manifestEntry = members.get(BUNDLE_MEMBERS.manifest);
    if (manifestEntry === undefined) {
      throw new ArchiveError("E_ARCHIVE_MANIFEST", `Not a WINK debug bundle (no ${BUNDLE_ROOT}${BUNDLE_MEMBERS.manifest}): ${options.path}`, { archive: options.path, entry: `${BUNDLE_ROOT}${BUNDLE_MEMBERS.manifest}` });
    }
    if (manifestEntry.size > limits.maxJsonBytes) {
      throw new ArchiveError("E_ARCHIVE_LIMIT", `${BUNDLE_MEMBERS.manifest} of ${options.path} is larger than ${limits.maxJsonBytes} bytes`, { archive: options.path, entry: manifestEntry.path, limit: limits.maxJsonBytes });
    }
    const { manifest, warnings } = parseBundleManifest(await zip.read(manifestEntry.path, limits.maxJsonBytes));
    const shown = [...warnings];
    if (outside.length > 0) shown.push(`Ignored ${outside.length} entr${outside.length === 1 ? "y" : "ies"} outside ${BUNDLE_ROOT}: ${outside.slice(0, 5).join(", ")}${outside.length > 5 ? ", …" : ""}`);
    for (const listed of manifest.files) if (!members.has(listed)) shown.push(`The manifest lists ${listed}, which the bundle does not hold`);
    return new DebugBundle(zip, options.path, manifest, members, shown, limits, options.sha256 ?? webCryptoSha256, options.onGrow ?? (() => undefined));
  }

  /**
   * Bytes this reader keeps alive beyond its listing, estimated: the log index (the log's
   * bytes and what was built on them), the transcript's rows, the parsed session lines
   * (1.5 times their bytes, as the server counts a parsed session line), and the manifest
   * and listing. What its zip reader caches is counted by whoever holds the zip.
   */
  get retainedBytes(): number {
    const kept = this.#kept;
    return 16 * 1024 + this.#members.size * 200 + (kept.logs?.retainedBytes ?? 0) + (kept.transcript?.retainedBytes ?? 0) + Math.round(kept.sessionBytes * 1.5);
  }

  /** Members (paths relative to `debug_bundle/`), sorted. */
  members(): string[] {
    return [...this.#members.keys()].sort();
  }

  has(member: string): boolean {
    return this.#members.has(member);
  }

  /** Problems that do not stop the bundle from opening. */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** A member's bytes (its checksum is checked as a side effect). Throws ENOENT when absent. */
  async read(member: string, maxBytes: number = MAX_VIEW_BYTES): Promise<Uint8Array> {
    const entry = this.#members.get(member);
    if (entry === undefined) throw new FileNotFoundError(member);
    if (entry.size > maxBytes) {
      throw new ArchiveError("E_ARCHIVE_LIMIT", `${member} of ${this.path} is ${entry.size} bytes, more than the ${maxBytes} read at once`, { archive: this.path, entry: member, limit: maxBytes, actual: entry.size });
    }
    const bytes = await this.#zip.read(entry.path, maxBytes);
    this.#integrity.observe(member, bytes);
    return bytes;
  }

  /** A JSON member parsed (Python JSON: NaN and big integers kept), or null when absent. */
  async json(member: string): Promise<JsonValue | null> {
    const text = await this.text(member, this.limits.maxJsonBytes);
    if (text === null) return null;
    try {
      return parsePythonJson(text);
    } catch (error) {
      throw new ArchiveError("E_ARCHIVE_CORRUPT", `${member} of ${this.path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { archive: this.path, entry: member });
    }
  }

  /** A text member (UTF-8), or null when absent. */
  async text(member: string, maxBytes: number = this.limits.maxJsonBytes): Promise<string | null> {
    if (!this.has(member)) return null;
    try {
      return fatalUtf8.decode(await this.read(member, maxBytes));
    } catch (error) {
      if (error instanceof TypeError) throw new ArchiveError("E_ARCHIVE_CORRUPT", `${member} of ${this.path} is not UTF-8 text`, { archive: this.path, entry: member });
      throw error;
    }
  }

  /** `logs/app.jsonl` indexed (built once), or null when the bundle has no logs. */
  logs(): Promise<LogIndex | null> {
    this.#logs ??= this.has(BUNDLE_MEMBERS.logs)
      ? this.read(BUNDLE_MEMBERS.logs, this.limits.maxLogBytes).then((bytes) => {
          const index = new LogIndex(bytes, this.#onGrow);
          this.#kept.logs = index;
          this.#onGrow();
          return index;
        })
      : Promise.resolve(null);
    this.#logs.catch(() => (this.#logs = null));
    return this.#logs;
  }

  /** The transcript (built once): from the logs, or `transcript.jsonl` when that holds more. */
  transcript(): Promise<TranscriptIndex> {
    this.#transcript ??= (async () => {
      const [logs, file] = await Promise.all([this.logs(), this.has(BUNDLE_MEMBERS.transcript) ? this.read(BUNDLE_MEMBERS.transcript, this.limits.maxLogBytes) : null]);
      const transcript = TranscriptIndex.build(logs, file, this.#onGrow);
      this.#kept.transcript = transcript;
      this.#onGrow();
      return transcript;
    })();
    this.#transcript.catch(() => (this.#transcript = null));
    return this.#transcript;
  }

  /** The session before and after the run, parsed once. */
  session(): Promise<BundleSession> {
    this.#session ??= this.#readSession();
    this.#session.catch(() => (this.#session = null));
    return this.#session;
  }

  async #readSession(): Promise<BundleSession> {
    const entries: BundleSessionEntry[] = [];
    const errors: SessionLineError[] = [];
    const snapshots = new Map<number, SessionSnapshot>();
    for (const { lineNumber, member } of SESSION_LINES) {
      if (!this.has(member)) continue;
      const loaded = await this.#sessionLine(member, lineNumber).catch((error: unknown) => ({ lineNumber, kind: "json" as const, reason: `${member}: ${error instanceof Error ? error.message : String(error)}` }));
      if ("slices" in loaded) {
        snapshots.set(lineNumber, loaded);
        entries.push({ ...summarizeSnapshot(loaded), lineNumber, byteOffset: 0, byteLength: (this.#members.get(member) as FileIndexEntry).size });
      } else errors.push(loaded);
    }
    const last = entries[entries.length - 1];
    this.#kept.sessionBytes = entries.reduce((sum, entry) => sum + entry.byteLength, 0);
    this.#onGrow();
    return { entries, errors, lineCount: SESSION_LINES.length, defaultLine: last?.lineNumber ?? null, snapshot: (lineNumber) => snapshots.get(lineNumber) };
  }

  async #sessionLine(member: string, lineNumber: number): Promise<SessionSnapshot | SessionLineError> {
    const bytes = await this.read(member, this.limits.maxSessionBytes);
    // WINK writes one line; a second one would be another snapshot we do not number, so it is reported.
    let start = 0;
    let lines = 0;
    let first: Uint8Array | null = null;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      const end = newline === -1 ? bytes.length : newline;
      const line = lineFromBytes(bytes.subarray(start, end), start === 0 ? 1 : 2);
      if (line.kind !== "blank") {
        lines += 1;
        first ??= bytes.subarray(start, end);
      }
      start = end + 1;
    }
    if (first === null) return { lineNumber, kind: "json", reason: `${member} is empty` };
    if (lines > 1) this.#warnings.push(`${member} holds ${lines} lines; only the first is shown (WINK writes one)`);
    const text = lineFromBytes(first, 1);
    if (text.kind === "error") return { ...text.error, lineNumber, reason: `${member}: ${text.error.reason}` };
    if (text.kind === "blank") return { lineNumber, kind: "json", reason: `${member} is empty` };
    const parsed = parseSnapshotLine(text.text, lineNumber);
    return parsed.ok ? parsed.snapshot : { ...parsed.error, reason: `${member}: ${parsed.error.reason}` };
  }

  /** The captured workspace (`filesystem/`), or null when the bundle has none (failed runs). */
  workspace(): FileSource | null {
    if (this.#workspace !== undefined) return this.#workspace;
    const files: FileIndexEntry[] = [];
    for (const [member, entry] of this.#members) {
      if (member.startsWith(FILESYSTEM_PREFIX) && member.length > FILESYSTEM_PREFIX.length) files.push({ path: member.slice(FILESYSTEM_PREFIX.length), size: entry.size, fingerprint: entry.fingerprint });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const paths = new Set(files.map((file) => file.path));
    this.#workspace =
      files.length === 0
        ? null
        : {
            kind: "archive",
            label: this.name,
            list: async () => files,
            read: async (path, maxBytes) => {
              if (!paths.has(path)) throw new FileNotFoundError(path);
              return this.read(`${FILESYSTEM_PREFIX}${path}`, maxBytes);
            },
          };
    return this.#workspace;
  }

  /** Notes about the captured workspace: truncation, and names that probably lost their leading dot. */
  workspaceNotes(): string[] {
    const notes: string[] = [];
    if (this.manifest.filesystemTruncated) notes.push("WINK stopped capturing the workspace at its size limit (filesystem_truncated): files are missing");
    const topLevel = new Set<string>();
    for (const member of this.#members.keys()) {
      if (!member.startsWith(FILESYSTEM_PREFIX)) continue;
      const rest = member.slice(FILESYSTEM_PREFIX.length);
      topLevel.add(rest.split("/")[0] ?? rest);
    }
    const stripped = [...topLevel].filter((name) => STRIPPED_DOTFILES.has(name)).sort();
    if (stripped.length > 0) notes.push(`WINK strips leading dots from top-level names: ${stripped.map((name) => `${name} was probably .${name}`).join(", ")}`);
    return notes;
  }

  /** The workspace capture as `/api/filesystem/meta` shows an archive's manifest (capture notes as warnings). */
  async workspaceManifest(): Promise<ArchiveManifestRead> {
    const files = (await this.workspace()?.list()) ?? [];
    return {
      manifest: {
        source: BUNDLE_MEMBERS.manifest,
        version: this.manifest.formatVersion,
        created_at: this.manifest.createdAt,
        file_count: files.length,
        total_bytes: files.reduce((sum, file) => sum + file.size, 0),
        session_id: this.manifest.sessionId,
        warnings: this.workspaceNotes(),
      },
      error: null,
    };
  }

  /** `/api/environment`. */
  environment(): Promise<EnvironmentView> {
    return environmentView({ json: (member) => this.json(member), text: (member) => this.text(member) });
  }

  /** The checksums as verified so far. */
  integrity(): BundleIntegrityView {
    return this.#integrity.view();
  }

  /** Reads every member with a checksum and returns the verdict. */
  async verifyIntegrity(): Promise<BundleIntegrityView> {
    await this.#integrity.verifyAll((member) => this.read(member, DEFAULT_ARCHIVE_LIMITS.maxFileBytes));
    return this.#integrity.view();
  }

  /** False when the member's checksum did not match, null while unchecked. */
  checksumOk(member: string): boolean | null {
    return this.#integrity.verdictOf(member);
  }

  /** `error.json` with its traceback, or null. */
  async error(): Promise<BundleErrorView | null> {
    const error = await this.json(BUNDLE_MEMBERS.error);
    if (error === null) return null;
    const object = isJsonObject(error) ? error : {};
    const traceback = ownValue(object, "traceback");
    const frames = Array.isArray(traceback) ? traceback.map((frame) => (typeof frame === "string" ? frame : String(frame))) : typeof traceback === "string" ? [traceback] : [];
    const text = (key: string): string => {
      const value = ownValue(object, key);
      return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
    };
    return { type: text("type"), message: text("message"), traceback: frames, traceback_text: frames.join("") };
  }

  /** The run at a glance (reads only small members: error, run context, request input, metrics, eval). */
  async summary(): Promise<BundleSummaryView> {
    this.#summary ??= this.#buildSummary();
    this.#summary.catch(() => (this.#summary = null));
    const summary = await this.#summary;
    // The checksums of what has been read so far: wait for the hashes still running.
    await this.#integrity.settled();
    return { ...summary, integrity: this.integrity(), warnings: [...this.#warnings] };
  }

  async #buildSummary(): Promise<Omit<BundleSummaryView, "integrity">> {
    const tolerant = async (member: string): Promise<JsonValue | null> => {
      try {
        return await this.json(member);
      } catch (error) {
        this.#warnings.push(error instanceof Error ? error.message : String(error));
        return null;
      }
    };
    const [error, runContext, input, metrics, evaluation] = await Promise.all([
      this.error().catch((cause: unknown) => {
        this.#warnings.push(cause instanceof Error ? cause.message : String(cause));
        return null;
      }),
      tolerant(BUNDLE_MEMBERS.runContext),
      tolerant(BUNDLE_MEMBERS.requestInput),
      tolerant(BUNDLE_MEMBERS.metrics),
      tolerant(BUNDLE_MEMBERS.eval),
    ]);
    const context = isJsonObject(runContext) ? runContext : {};
    const inputContext = isJsonObject(input) && isJsonObject(ownValue(input, "run_context")) ? (ownValue(input, "run_context") as Record<string, JsonValue>) : {};
    const request = isJsonObject(input) ? ownValue(input, "request") : undefined;
    const iteration = isJsonObject(request) ? ownValue(request, "iteration") : undefined;
    const stringOf = (...values: (JsonValue | undefined)[]): string | null => {
      for (const value of values) if (typeof value === "string" && value !== "") return value;
      return null;
    };
    const attempt = ownValue(context, "attempt") ?? ownValue(inputContext, "attempt");
    const traceId = stringOf(ownValue(context, "trace_id"), ownValue(inputContext, "trace_id"));
    const { manifest } = this;
    const workspace = this.workspace();
    const workspaceFiles = workspace === null ? [] : await workspace.list();
    const sessionLines: BundleSessionLineView[] = SESSION_LINES.map(({ lineNumber, member, label }) => ({
      line_number: lineNumber,
      label,
      member,
      present: this.has(member),
      error: this.has(member) ? null : label === "after" && manifest.status === "error" ? "Not written: WINK writes no after.jsonl for a failed run" : "Not written by WINK",
    }));
    const present = sessionLines.filter((line) => line.present);
    return {
      path: this.path,
      name: this.name,
      bundle_id: manifest.bundleId,
      format_version: manifest.formatVersion,
      created_at: manifest.createdAt,
      started_at: manifest.startedAt,
      ended_at: manifest.endedAt,
      duration_ms: durationOf(metrics, manifest),
      status: manifest.status,
      trigger: manifest.trigger,
      request_id: manifest.requestId,
      session_id: manifest.sessionId,
      run_id: stringOf(ownValue(context, "run_id")),
      attempt: typeof attempt === "number" && Number.isInteger(attempt) ? attempt : null,
      iteration: typeof iteration === "number" && Number.isInteger(iteration) ? iteration : null,
      trace_id: traceId,
      worker_id: stringOf(ownValue(context, "worker_id")),
      group_id: groupIdOf({ path: this.path, bundleId: manifest.bundleId, requestId: manifest.requestId, traceId }).id,
      prompt: { ...manifest.prompt },
      build: { ...manifest.build },
      error,
      metrics,
      eval: evaluation,
      members: this.members(),
      session: { lines: sessionLines, default_line: present[present.length - 1]?.line_number ?? null },
      workspace: { files: workspaceFiles.length, bytes: workspaceFiles.reduce((sum, file) => sum + file.size, 0), truncated: manifest.filesystemTruncated, notes: this.workspaceNotes() },
      warnings: [],
    };
  }

  /** One member as WINK's `/api/files/{path}` shows it: image, markdown, JSON, text or binary. */
  async fileView(member: string): Promise<BundleFileView> {
    const bytes = await this.read(member, MAX_VIEW_BYTES);
    const mime = imageMimeType(member);
    if (mime !== null) return { content: toBase64(bytes), type: "image", mime_type: mime };
    const text = decodeText(bytes);
    if (member.toLowerCase().endsWith(".md")) return text === null ? { content: null, type: "binary" } : { content: text, html: renderMarkdown(text), type: "markdown" };
    if (text !== null) {
      try {
        return { content: parsePythonJson(text), type: "json" };
      } catch {
        return { content: text, type: "text" };
      }
    }
    return { content: null, type: "binary" };
  }
}

function durationOf(metrics: JsonValue | null, manifest: BundleManifest): number | null {
  const timing = isJsonObject(metrics) ? ownValue(metrics, "timing") : undefined;
  const duration = isJsonObject(timing) ? ownValue(timing, "duration_ms") : undefined;
  if (typeof duration === "number" && Number.isFinite(duration)) return duration;
  if (manifest.startedAt === null || manifest.endedAt === null) return null;
  const ms = Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt);
  return Number.isFinite(ms) ? ms : null;
}

