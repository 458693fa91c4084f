/**
 * `Api` without a server: session files and `.fs.zip` archives the user dropped or picked
 * (or that a bundled HTML file carries), answered in the browser with the same
 * `shared/viewer` functions the server's routes call. Answers go through strict JSON and
 * the lossless parser, so they have exactly the shapes (and float markers) the HTTP API sends.
 */
import { FileNotFoundError } from "../../shared/errors.js";
import { parsePythonJson } from "../../shared/session/python-json-parse.js";
import { summarizeSnapshot } from "../../shared/session/envelope-scan.js";
import { parseSessionText } from "../../shared/session/session-text.js";
import type { SessionLineError, SessionSnapshot } from "../../shared/session/snapshot-line.js";
import { toStrictJson } from "../../shared/session/strict-json.js";
import { extractVirtualFiles } from "../../shared/session/workspace-items.js";
import { MAX_VIEW_BYTES, fileContent } from "../../shared/viewer/file-content.js";
import type { FileSource } from "../../shared/viewer/file-source.js";
import { archiveManifestSummary, filesystemMetaView } from "../../shared/viewer/filesystem-meta.js";
import { virtualFileSource } from "../../shared/viewer/file-source.js";
import { buildFileTree } from "../../shared/viewer/file-tree.js";
import { searchSnapshot } from "../../shared/viewer/search.js";
import { sessionFileView } from "../../shared/viewer/session-list.js";
import { diffFileLists, diffSlice, diffSliceSummaries, diffSourceFile } from "../../shared/viewer/snapshot-diff.js";
import type { IndexedSnapshotLine } from "../../shared/viewer/snapshot-view.js";
import { slicePage, snapshotMeta } from "../../shared/viewer/snapshot-view.js";
import { buildTimeline } from "../../shared/viewer/timeline.js";
import { archiveCandidates } from "../../shared/viewer/workspace-archives.js";
import type { Api, SearchScope, SnapshotRef } from "./api.js";
import { ApiError } from "./api.js";
import type * as T from "./api.js";
import type { LocalArchive } from "./local-archive.js";
import { openLocalArchive } from "./local-archive.js";

/** A file given to the local API: a path (the dropped name, or its path in a dropped folder) and its bytes. */
export interface LocalInput {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly lastModified?: number;
}

interface LocalSessionFile {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly modifiedAt: string;
  readonly lineCount: number;
  readonly snapshots: readonly SessionSnapshot[];
  readonly lines: readonly IndexedSnapshotLine[];
  readonly errors: readonly SessionLineError[];
}

interface Workspace {
  readonly source: FileSource | null;
  readonly archive: LocalArchive | null;
  readonly archiveName: string | null;
  readonly error: string | null;
}

const SESSION_FILE = /\.jsonl?$/i;
const ARCHIVE_FILE = /\.zip$/i;

const dirname = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "");
const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The same value as the HTTP API would deliver it (bigints exact, non-finite floats as markers). */
function asServed<R>(value: unknown): R {
  return parsePythonJson(toStrictJson(value)) as R;
}

/** Runs `work`, turning shared errors into `ApiError`s with the status the server would give. */
async function answer<R>(work: () => R | Promise<R>): Promise<R> {
  try {
    return asServed<R>(await work());
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    const status = code === "ENOENT" ? 404 : code === "EINVAL" ? 400 : 422;
    throw new ApiError(status, error instanceof Error ? error.message : String(error));
  }
}

export class LocalApi implements Api {
  readonly kind = "local" as const;
  readonly label: string;
  readonly #sessions = new Map<string, LocalSessionFile>();
  readonly #archiveBytes = new Map<string, Uint8Array>();
  readonly #archives = new Map<string, Promise<LocalArchive>>();
  readonly #workspaces = new WeakMap<SessionSnapshot, Promise<Workspace>>();

  private constructor(label: string) {
    this.label = label;
  }

  /** Indexes the inputs: session files are parsed now, archives when first needed. */
  static open(inputs: readonly LocalInput[], label = "dropped files"): LocalApi {
    const api = new LocalApi(label);
    for (const input of inputs) {
      if (ARCHIVE_FILE.test(input.path)) api.#archiveBytes.set(input.path, input.bytes);
    }
    for (const input of inputs) {
      if (!SESSION_FILE.test(input.path)) continue;
      const contents = parseSessionText(input.bytes);
      api.#sessions.set(input.path, {
        path: input.path,
        name: basename(input.path),
        size: input.bytes.length,
        modifiedAt: new Date(input.lastModified ?? Date.now()).toISOString(),
        lineCount: contents.lineCount,
        snapshots: contents.snapshots,
        lines: contents.snapshots.map((snapshot) => ({ lineNumber: snapshot.lineNumber, summary: summarizeSnapshot(snapshot) })),
        errors: contents.errors,
      });
    }
    return api;
  }

  /** Session files held (paths). */
  get sessionPaths(): string[] {
    return [...this.#sessions.keys()];
  }

  #file(path: string): LocalSessionFile {
    const file = this.#sessions.get(path);
    if (file === undefined) throw new ApiError(404, `Unknown session file: ${path}`);
    return file;
  }

  #snapshot(ref: SnapshotRef): { file: LocalSessionFile; snapshot: SessionSnapshot } {
    const file = this.#file(ref.file);
    const snapshot = file.snapshots.find((candidate) => candidate.lineNumber === ref.line);
    if (snapshot === undefined) throw new ApiError(404, `Unknown line_number: ${ref.line}`);
    return { file, snapshot };
  }

  #previous(ref: SnapshotRef): SnapshotRef | null {
    const { file, snapshot } = this.#snapshot(ref);
    const earlier = file.snapshots.filter((candidate) => candidate.sessionId === snapshot.sessionId && candidate.lineNumber < snapshot.lineNumber);
    const last = earlier[earlier.length - 1];
    return last === undefined ? null : { file: file.path, line: last.lineNumber };
  }

  #archive(path: string): Promise<LocalArchive> | null {
    const running = this.#archives.get(path);
    if (running !== undefined) return running;
    const bytes = this.#archiveBytes.get(path);
    if (bytes === undefined) return null;
    const opening = openLocalArchive(basename(path), bytes);
    this.#archives.set(path, opening);
    return opening;
  }

  #workspace(ref: SnapshotRef): Promise<Workspace> {
    const { file, snapshot } = this.#snapshot(ref);
    const cached = this.#workspaces.get(snapshot);
    if (cached !== undefined) return cached;
    const resolving = (async (): Promise<Workspace> => {
      const { referenced, names } = archiveCandidates(file.name, snapshot);
      let error: string | null = null;
      for (const name of names) {
        const opening = this.#archive(dirname(file.path) + name);
        if (opening === null) {
          if (name === referenced) error = `Archive ${name} (named by FilesystemSnapshotRef) was not opened with the session file`;
          continue;
        }
        try {
          const archive = await opening;
          return { source: archive.source, archive, archiveName: name, error: null };
        } catch (cause) {
          error = `Archive ${name} cannot be opened: ${cause instanceof Error ? cause.message : String(cause)}`;
        }
      }
      const files = extractVirtualFiles(snapshot);
      return { source: files === null ? null : virtualFileSource(files), archive: null, archiveName: null, error: files === null ? error : null };
    })();
    this.#workspaces.set(snapshot, resolving);
    return resolving;
  }

  files(): Promise<T.FileListResponse> {
    return answer(() => ({
      root: this.label,
      indexing: false,
      files: [...this.#sessions.values()]
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .map((file) =>
          sessionFileView({ path: file.path, name: file.name, sizeBytes: file.size, modifiedAt: file.modifiedAt, status: "ready", lineCount: file.lineCount, lines: file.lines, errors: file.errors }),
        ),
    }));
  }

  meta(ref?: SnapshotRef): Promise<T.SnapshotMetaResponse> {
    return answer(() => {
      const chosen = ref ?? this.#firstRef();
      const { file, snapshot } = this.#snapshot(chosen);
      return snapshotMeta(file.path, { lineNumber: snapshot.lineNumber, summary: summarizeSnapshot(snapshot) });
    });
  }

  #firstRef(): SnapshotRef {
    for (const file of [...this.#sessions.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const first = file.snapshots[0];
      if (first !== undefined) return { file: file.path, line: first.lineNumber };
    }
    throw new ApiError(404, "None of the opened files holds a loadable snapshot line");
  }

  timeline(ref: SnapshotRef): Promise<T.TimelineResponse> {
    return answer(() => {
      const { file, snapshot } = this.#snapshot(ref);
      return buildTimeline({ file: file.path, snapshot, lines: file.lines, lineErrors: file.errors });
    });
  }

  slicePage(ref: SnapshotRef, sliceType: string, offset: number, limit: number): Promise<T.SlicePageResponse> {
    return answer(() => {
      const slice = this.#snapshot(ref).snapshot.slices.find((candidate) => candidate.sliceType === sliceType);
      if (slice === undefined) throw new ApiError(404, `Unknown slice type: ${sliceType}`);
      return slicePage(slice, { offset, limit });
    });
  }

  filesystemMeta(ref: SnapshotRef): Promise<T.FilesystemMetaResponse> {
    return answer(async () => {
      const { source, archive, archiveName, error } = await this.#workspace(ref);
      const manifest = archive === null ? null : { manifest: archive.manifest === null ? null : archiveManifestSummary(archive.manifest, archive.warnings), error: null };
      return filesystemMetaView({ source, archive: archiveName, manifest, error });
    });
  }

  browse(ref: SnapshotRef, base: SnapshotRef | "previous" | "none"): Promise<T.BrowseResponse> {
    return answer(async () => {
      const workspace = await this.#workspace(ref);
      const entries = workspace.source === null ? [] : await workspace.source.list();
      const baseRef = base === "none" ? null : base === "previous" ? this.#previous(ref) : base;
      if (baseRef === null) return { source: workspace.source?.kind ?? null, archive: workspace.archiveName, base: null, root: buildFileTree(entries) };
      const baseWorkspace = await this.#workspace(baseRef);
      const baseEntries = baseWorkspace.source === null ? [] : await baseWorkspace.source.list();
      const diff = diffFileLists({ kind: baseWorkspace.source?.kind ?? null, entries: baseEntries }, { kind: workspace.source?.kind ?? null, entries });
      const deletedSizes = new Map(baseEntries.map((entry) => [entry.path, entry.size]));
      return { source: workspace.source?.kind ?? null, archive: workspace.archiveName, base: { file: baseRef.file, line_number: baseRef.line }, root: buildFileTree(entries, diff.diff, deletedSizes) };
    });
  }

  fileContent(ref: SnapshotRef, path: string, range: { offset?: number; limit?: number } = {}): Promise<T.FileContentResponse> {
    return answer(async () => {
      const workspace = await this.#workspace(ref);
      if (workspace.source === null) throw new ApiError(404, `No filesystem for line ${ref.line} of ${ref.file}`);
      const bytes = await workspace.source.read(path, MAX_VIEW_BYTES);
      return fileContent(path, bytes, { offset: range.offset ?? 0, limit: range.limit ?? null });
    });
  }

  async download(ref: SnapshotRef, path: string): Promise<void> {
    const workspace = await this.#workspace(ref);
    if (workspace.source === null) throw new FileNotFoundError(path);
    const bytes = await workspace.source.read(path, 256 * 1024 * 1024);
    // application/octet-stream and a download attribute: saved, never rendered.
    const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: "application/octet-stream" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = basename(path);
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  diff(base: SnapshotRef, target: SnapshotRef): Promise<T.SnapshotDiffResponse> {
    return answer(async () => {
      const [baseWorkspace, targetWorkspace] = await Promise.all([this.#workspace(base), this.#workspace(target)]);
      const [baseEntries, targetEntries] = await Promise.all([baseWorkspace.source?.list() ?? [], targetWorkspace.source?.list() ?? []]);
      const { diff: _diff, ...files } = diffFileLists({ kind: baseWorkspace.source?.kind ?? null, entries: baseEntries }, { kind: targetWorkspace.source?.kind ?? null, entries: targetEntries });
      const refOf = (ref: SnapshotRef) => {
        const { snapshot } = this.#snapshot(ref);
        return { file: ref.file, line_number: ref.line, session_id: snapshot.sessionId, created_at: snapshot.createdAt };
      };
      return { base: refOf(base), target: refOf(target), files, slices: diffSliceSummaries(this.#snapshot(base).snapshot, this.#snapshot(target).snapshot) };
    });
  }

  fileDiff(base: SnapshotRef, target: SnapshotRef, path: string): Promise<T.FileDiffResponse> {
    return answer(async () => {
      const [baseWorkspace, targetWorkspace] = await Promise.all([this.#workspace(base), this.#workspace(target)]);
      return diffSourceFile(baseWorkspace.source, targetWorkspace.source, path);
    });
  }

  sliceDiff(base: SnapshotRef, target: SnapshotRef, sliceType: string): Promise<T.SliceDiffResponse> {
    return answer(() => diffSlice(this.#snapshot(base).snapshot, this.#snapshot(target).snapshot, sliceType));
  }

  search(ref: SnapshotRef, query: string, scope: SearchScope, limit: number): Promise<T.SearchResponse> {
    return answer(async () => {
      const { snapshot } = this.#snapshot(ref);
      const workspace = await this.#workspace(ref);
      return searchSnapshot(snapshot, workspace.source, query, { maxHits: limit, scopes: scope === "all" ? ["slices", "files"] : [scope] });
    });
  }

  async toolCallDiff(ref: SnapshotRef): Promise<T.ToolCallFileDiffResponse> {
    // Opened files come without the undo store that lies next to a served session file, so
    // timelines here have no `changes` and nothing asks for this.
    throw new ApiError(404, `No undo store for ${ref.file}: files opened in the page have none`);
  }

  subscribe(): () => void {
    return () => undefined; // files opened in the page do not change
  }
}
