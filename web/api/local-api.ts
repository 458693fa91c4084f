/**
 * `Api` without a server: session files, `.fs.zip` archives and WINK debug bundles the user
 * dropped or picked (or that a bundled HTML file carries), answered in the browser with the
 * same `shared/viewer` and `shared/debug-bundle` functions the server's routes call. Answers
 * go through strict JSON and the lossless parser, so they have exactly the shapes (and float
 * markers) the HTTP API sends. A bundle is a session file of two lines, as on the server.
 */
import type { DebugBundle } from "../../shared/debug-bundle/index.js";
import { BUNDLE_MEMBERS, bundleMetaView, bundleRunParts } from "../../shared/debug-bundle/index.js";
import { FileNotFoundError } from "../../shared/errors.js";
import { summarizeSnapshot, parseSessionText, findFilesystemSnapshotRef } from "../../shared/session/browser.js";
import type { SessionLineError, SessionSnapshot } from "../../shared/session/browser.js";
import { MAX_VIEW_BYTES, landingRun, fileContent, archiveManifestSummary, buildFileTree, searchSnapshot, sessionFileView, diffFileLists, diffSlice, diffSliceSummaries, diffSourceFile, diffWorkspaces, buildRun, runSessionPage, placeholderRunSummary, runSummary, pageOfRuns, diffStats, searchRun, sessionEvents, slicePage, snapshotMeta, buildTimeline, compareTimes, bundleWorkspace, resolveWorkspace, workspaceMetaView, evalRunPage, evalSummary, failureOccurrences, summaryOf, isOtherJsonDocument, notLoadedDigest, runDigest } from "../../shared/viewer/index.js";
import type { ArchiveManifestRead, RunSearchSession, RunView, IndexedSnapshotLine, ResolvedWorkspace } from "../../shared/viewer/index.js";
import type { Api, RunPageQuery, SearchScope, SnapshotRef } from "./api.js";
import { ASKED_ROUTES } from "./routes.js";
import type { AskedRouteName, RouteCalls, RouteParams } from "./routes.js";
import type { ApiError } from "./api.js";
import type * as T from "./api.js";
import { answer, apiErrorOf, serverError } from "./local-answer.js";
import type { LocalArchive } from "./local-archive.js";
import { openLocalArchive } from "./local-archive.js";
import { LocalBundleApi, isBundleBytes, openLocalBundle } from "./local-bundles.js";
import type { BundleMemberKind } from "./bundle-api.js";
import { COMPUTED_ROUTES, MISSING_MEMBER, ROUTE_TABLE, computationOf, logQueryOf, readLists, searchScopesOf, transcriptQueryOf } from "../../shared/viewer/routes/browser.js";
import type { ComputedRouteName, ViewSource } from "../../shared/viewer/routes/browser.js";
import type { RoutePlace } from "../../shared/viewer/routes/browser.js";
import type { BundleSearchScope } from "../../shared/debug-bundle/index.js";

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
  /** The debug bundle this file is (its session lines above), or null for a session file. */
  readonly bundle: DebugBundle | null;
  /** Why the file could not be opened at all (a refused bundle, answered as the server would), or null. */
  readonly failure: ApiError | null;
}


const SESSION_FILE = /\.jsonl?$/i;
const ARCHIVE_FILE = /\.zip$/i;

const dirname = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "");
const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** A bundle's line that shows its workspace and opens by default: its last (after, else before). */
const defaultLineOf = (file: LocalSessionFile): number | undefined => file.snapshots[file.snapshots.length - 1]?.lineNumber;

export class LocalApi implements Api {
  readonly kind = "local" as const;
  readonly label: string;
  readonly #sessions = new Map<string, LocalSessionFile>();
  readonly #archiveBytes = new Map<string, Uint8Array>();
  readonly #archives = new Map<string, Promise<LocalArchive>>();
  readonly #workspaces = new WeakMap<SessionSnapshot, Promise<ResolvedWorkspace>>();
  /** Debug bundles found among the inputs, opened in the background (`#ready`). */
  readonly #bundleInputs: LocalInput[] = [];
  #ready: Promise<void> = Promise.resolve();
  /** The bundle routes' answers (`ask.bundle…` reads each request into a call of these). */
  readonly #bundles: LocalBundleApi;
  readonly #runs = new Map<string, Promise<RunView>>();

  private constructor(label: string) {
    this.label = label;
    this.#bundles = new LocalBundleApi({
      ready: () => this.#ready,
      bundles: () => new Map([...this.#sessions.values()].filter((file) => file.bundle !== null).map((file) => [file.path, file.bundle as DebugBundle])),
      defaultMeta: (path) => {
        const file = this.#sessions.get(path);
        const line = file === undefined ? undefined : defaultLineOf(file);
        return file === undefined || line === undefined ? null : this.#snapshotMeta({ file: path, line });
      },
      modifiedAt: (path) => this.#sessions.get(path)?.modifiedAt ?? new Date(0).toISOString(),
      failure: (path) => this.#sessions.get(path)?.failure ?? null,
    });
  }

  /**
   * Indexes the inputs: session files are parsed now, archives when first needed, debug
   * bundles (zips whose entries lie under `debug_bundle/`) opened in the background, every
   * answer waiting for them.
   */
  static open(inputs: readonly LocalInput[], label = "dropped files"): LocalApi {
    const api = new LocalApi(label);
    for (const input of inputs) {
      if (!ARCHIVE_FILE.test(input.path)) continue;
      if (isBundleBytes(input.bytes)) api.#bundleInputs.push(input);
      else api.#archiveBytes.set(input.path, input.bytes);
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
        bundle: null,
        failure: null,
      });
    }
    api.#ready = Promise.all(api.#bundleInputs.map((input) => api.#openBundle(input))).then(() => undefined);
    return api;
  }

  async #openBundle(input: LocalInput): Promise<void> {
    const file = { path: input.path, name: basename(input.path), size: input.bytes.length, modifiedAt: new Date(input.lastModified ?? Date.now()).toISOString(), lineCount: 2 };
    try {
      const bundle = await openLocalBundle(input.path, input.bytes);
      const session = await bundle.session();
      const snapshots = session.entries.map((entry) => session.snapshot(entry.lineNumber)).filter((snapshot): snapshot is SessionSnapshot => snapshot !== undefined);
      const lines = session.entries.map((entry) => ({ lineNumber: entry.lineNumber, summary: entry }));
      this.#sessions.set(input.path, { ...file, snapshots, lines, errors: session.errors, bundle, failure: null });
    } catch (error) {
      this.#sessions.set(input.path, { ...file, lineCount: 0, snapshots: [], lines: [], errors: [], bundle: null, failure: apiErrorOf(error) });
    }
  }

  /** Answers once every bundle is open. */
  #answer<R>(work: () => R | Promise<R>): Promise<R> {
    return answer(async () => {
      await this.#ready;
      return work();
    });
  }

  /**
   * The asked routes, read as the server reads them: each takes its route's request and
   * answers what the route answers (the compiler holds this list to the table's, the parity
   * test to the server's answers).
   */
  readonly ask: RouteCalls = {
    ...this.#computed(),
    runs: (params) => this.#runPage(params),
    runSession: (params) => this.#read(params, (p) => this.#runSession(this.#required(p.file, "file"), p.session, p.offset, p.limit)),
    runSearch: (params) => this.#read(params, (p) => this.#runSearch(this.#required(p.file, "file"), p.session ?? null, p.q, p.regex === "1", p.limit ?? 500)),
    failures: () => this.#failures(),
    evalRuns: ({ offset, limit, ...filter }) => this.#answer(async () => evalRunPage(await this.#overview(), filter, offset, limit)),
    failureOccurrences: (params) => this.#failureOccurrences(params.signature),
    meta: (params) => (params.line === undefined && this.#bundleInputs.some((input) => input.path === params.file) ? this.#bundles.meta(params.file ?? "") : this.#read(params, (p) => this.#meta(p.file === undefined && p.line === undefined ? undefined : this.#ref(p)))),
    timeline: (params) => this.#read(params, (p) => this.#timeline(this.#ref(p))),
    slicePage: (params) => this.#read(params, (p) => this.#slicePage(this.#ref(p), p.slice_type, p.offset, p.limit)),
    filesystemMeta: (params) => this.#read(params, (p) => this.#filesystemMeta(this.#ref(p))),
    browse: (params) => this.#read(params, (p) => this.#browse(this.#ref(p), p.compare ?? (p.base_file === undefined ? "previous" : this.#ref({ file: p.base_file, line: p.base_line })))),
    fileContent: (params) => this.#read(params, (p) => this.#fileContent(this.#ref(p), p.path, { offset: p.offset, limit: p.limit })),
    diff: (params) => this.#read(params, (p) => this.#diff(...this.#sides(p), { copies: p.copies === "1" })),
    diffStat: (params) => this.#read(params, (p) => this.#diffStat(...this.#sides(p), { copies: p.copies === "1" })),
    fileDiff: (params) => this.#read(params, (p) => this.#fileDiff(...this.#sides(p), p.path, p.base_path ?? null)),
    sliceDiff: (params) => this.#read(params, (p) => this.#sliceDiff(...this.#sides(p), p.slice_type)),
    search: (params) => this.#read(params, (p) => this.#search(this.#ref(p), p.q, p.scope ?? "all", p.limit ?? 200)),
    toolCallDiff: (params) => this.#read(params, (p) => this.#toolCallDiff(this.#ref(p))),
    // WINK debug bundles: each request read as the server's handler reads it (bundle-queries.ts).
    bundleManifest: (params) => this.#bundleRead(params, (file) => this.#bundles.member(file, "manifest")),
    bundleConfig: (params) => this.#member(params, "config", "bundleConfig"),
    bundleMetrics: (params) => this.#member(params, "metrics", "bundleMetrics"),
    bundleError: (params) => this.#member(params, "error", "bundleError"),
    bundleRunContext: (params) => this.#member(params, "run-context", "bundleRunContext"),
    bundleEval: (params) => this.#member(params, "eval", "bundleEval"),
    bundlePromptOverrides: (params) => this.#member(params, "prompt-overrides", "bundlePromptOverrides"),
    bundleLogs: (params) => this.#bundleRead(params, (file) => this.#bundles.logs(file, logQueryOf(params))),
    bundleLogFacets: (params) => this.#bundleRead(params, (file) => this.#bundles.logFacets(file)),
    bundleTranscript: (params) => this.#bundleRead(params, (file) => this.#bundles.transcript(file, transcriptQueryOf(params))),
    bundleTranscriptFacets: (params) => this.#bundleRead(params, (file) => this.#bundles.transcriptFacets(file)),
    bundleEnvironment: (params) => this.#bundleRead(params, (file) => this.#bundles.environment(file)),
    bundleFile: (params) => this.#bundleRead(params, (file) => this.#bundles.memberFile(file, params["*"])),
    bundleMembers: (params) => this.#bundleRead(params, (file) => this.#bundles.members(file)),
    bundleSummary: (params) => this.#bundleRead(params, (file) => this.#bundles.summary(file)),
    bundleRequest: (params) => this.#bundleRead(params, (file) => this.#bundles.request(file)),
    bundleIntegrity: (params) => this.#bundleRead(params, (file) => this.#bundles.integrity(file)),
    bundles: () => this.#bundles.list(),
    bundleGroups: () => this.#bundles.groups(),
    bundleCompare: (params) => this.#read(params, (p) => this.#bundles.compare(this.#required(p.target_file, "target_file"), p.base_file)),
    bundleSearch: (params) =>
      this.#bundles.search(params.q, { file: params.file, within: params.in, scopes: searchScopesOf(params) as BundleSearchScope[] | undefined, limit: params.limit, regex: params.regex === "1" }),
  } satisfies Omit<RouteCalls, ComputedRouteName>;

  /**
   * The computed routes the views ask (`COMPUTED_ROUTES`): each computation run over the
   * opened files, its request read as the server reads it (server/routes/computed.ts is the
   * other side), so such a route has no answer of its own here.
   */
  #computed(): Pick<RouteCalls, ComputedRouteName & AskedRouteName> {
    const source: ViewSource = { run: (file) => (file === undefined ? this.#landingRun() : this.#run(file)) };
    const calls: Record<string, (params: object) => Promise<unknown>> = {};
    for (const name of Object.keys(COMPUTED_ROUTES) as ComputedRouteName[]) {
      if (!(ASKED_ROUTES as readonly string[]).includes(name)) continue;
      const compute = computationOf(name);
      const place: RoutePlace = ROUTE_TABLE[name];
      calls[name] = (params) => this.#answer(() => compute(source, readLists(place, params)));
    }
    return calls as unknown as Pick<RouteCalls, ComputedRouteName & AskedRouteName>;
  }

  /** A bundle route's request: its `file` (opened files have no current bundle to default to). */
  #bundleRead<R>(params: { readonly file?: string | undefined }, work: (file: string) => Promise<R>): Promise<R> {
    return this.#read(params, (p) => work(this.#required(p.file, "file")));
  }

  /** A member route: the member as written, or the route's 404 when the bundle has none (as the server answers). */
  #member(params: { readonly file?: string | undefined }, kind: Exclude<BundleMemberKind, "manifest">, route: keyof typeof MISSING_MEMBER): Promise<unknown> {
    return this.#bundleRead(params, async (file) => {
      const value = await this.#bundles.member(file, kind);
      if (value === null) throw serverError("WD_ERR_NOT_FOUND", MISSING_MEMBER[route]);
      return value;
    });
  }

  /** Reads a request, a missing selector answered as a rejected request (as the server answers a bad one). */
  async #read<P, R>(params: P, work: (params: P) => Promise<R>): Promise<R> {
    try {
      return await work(params);
    } catch (error) {
      throw apiErrorOf(error);
    }
  }

  /** A request's `file` and `line` (the server's selector); opened files have no current snapshot to default to. */
  #ref(params: { readonly file?: string | undefined; readonly line?: number | undefined }): SnapshotRef {
    return { file: this.#required(params.file, "file"), line: this.#required(params.line, "line") };
  }

  #sides(params: { readonly base_file?: string | undefined; readonly base_line?: number | undefined; readonly target_file?: string | undefined; readonly target_line?: number | undefined }): [SnapshotRef, SnapshotRef] {
    return [this.#ref({ file: params.base_file, line: params.base_line }), this.#ref({ file: params.target_file, line: params.target_line })];
  }

  #required<V>(value: V | undefined, name: string): V {
    if (value === undefined) throw serverError("WD_ERR_BAD_REQUEST", `${name} is required for files opened in the page`);
    return value;
  }

  /** Session files and debug bundles held (paths). */
  get sessionPaths(): string[] {
    return [...this.#sessions.keys(), ...this.#bundleInputs.map((input) => input.path)];
  }

  #file(path: string): LocalSessionFile {
    const file = this.#sessions.get(path);
    if (file === undefined) throw serverError("WD_ERR_NOT_FOUND", `Unknown session file: ${path}`);
    if (file.failure !== null) throw file.failure;
    return file;
  }

  #snapshot(ref: SnapshotRef): { file: LocalSessionFile; snapshot: SessionSnapshot } {
    const file = this.#file(ref.file);
    const snapshot = file.snapshots.find((candidate) => candidate.lineNumber === ref.line);
    if (snapshot === undefined) throw serverError("WD_ERR_NOT_FOUND", `Unknown line_number: ${ref.line}`);
    return { file, snapshot };
  }

  #previous(ref: SnapshotRef): SnapshotRef | null {
    const { file, snapshot } = this.#snapshot(ref);
    const earlier = file.snapshots.filter((candidate) => candidate.sessionId === snapshot.sessionId && candidate.lineNumber < snapshot.lineNumber);
    const last = earlier[earlier.length - 1];
    return last === undefined ? null : { file: file.path, line: last.lineNumber };
  }

  /** The dropped archive at `path`, opened once (it is known to be there). */
  #archive(path: string): Promise<LocalArchive> {
    const running = this.#archives.get(path);
    if (running !== undefined) return running;
    const bytes = this.#archiveBytes.get(path);
    if (bytes === undefined) return Promise.reject(new FileNotFoundError(path));
    const opening = openLocalArchive(basename(path), bytes);
    this.#archives.set(path, opening);
    return opening;
  }

  #workspace(ref: SnapshotRef): Promise<ResolvedWorkspace> {
    const { file, snapshot } = this.#snapshot(ref);
    const cached = this.#workspaces.get(snapshot);
    if (cached !== undefined) return cached;
    const resolving =
      file.bundle !== null
        ? // A bundle's `filesystem/` capture belongs to its last session line (the server does the same).
          Promise.resolve(bundleWorkspace(file.bundle, defaultLineOf(file) === ref.line))
        : resolveWorkspace(file.name, snapshot, {
            missing: "was not opened with the session file",
            status: async (name) => (this.#archiveBytes.has(dirname(file.path) + name) ? "file" : "missing"),
            open: async (name) => {
              const archive = await this.#archive(dirname(file.path) + name);
              const manifest: ArchiveManifestRead = { manifest: archive.manifest === null ? null : archiveManifestSummary(archive.manifest, archive.warnings), error: null };
              return { source: archive.source, manifest: () => Promise.resolve(manifest) };
            },
          });
    this.#workspaces.set(snapshot, resolving);
    return resolving;
  }

  files(): Promise<T.FileListResponse> {
    return this.#answer(async () => ({
      root: this.label,
      indexing: false,
      total: this.#sessions.size,
      offset: 0,
      files: await Promise.all([...this.#sessions.values()].sort(byPath).map((file) =>
        sessionFileView({
          path: file.path,
          name: file.name,
          sizeBytes: file.size,
          modifiedAt: file.modifiedAt,
          status: file.failure === null ? "ready" : "error",
          error: file.failure?.detail ?? null,
          lineCount: file.lineCount,
          lines: file.lines,
          errors: file.errors,
        }),
      )),
    }));
  }

  /** The run of one opened session file or bundle (built once: opened files do not change). */
  #run(path: string): Promise<RunView> {
    const cached = this.#runs.get(path);
    if (cached !== undefined) return cached;
    const file = this.#file(path);
    const building = this.#buildRun(file);
    this.#runs.set(path, building);
    building.catch(() => this.#runs.delete(path));
    return building;
  }

  async #buildRun(file: LocalSessionFile): Promise<RunView> {
    const latestOf = new Map<string, SessionSnapshot>();
    for (const snapshot of file.snapshots) {
      const known = latestOf.get(snapshot.sessionId);
      if (known === undefined || compareTimes(snapshot.createdAt, known.createdAt) >= 0) latestOf.set(snapshot.sessionId, snapshot);
    }
    return buildRun({
      ...(file.bundle === null ? {} : await bundleRunParts(file.bundle)),
      source: { kind: file.bundle === null ? "session_file" : "bundle", path: file.path, name: file.name },
      modifiedAt: file.modifiedAt,
      lines: file.lines,
      lineErrors: file.errors,
      latest: latestOf,
      archives: new Map(file.snapshots.map((snapshot) => [snapshot.lineNumber, findFilesystemSnapshotRef(snapshot)?.archiveName ?? null])),
    });
  }

  /** Session files, newest first (by modification time, then path: the server's order). */
  #newestFirst(): LocalSessionFile[] {
    return [...this.#sessions.values()].sort((a, b) => (a.modifiedAt < b.modifiedAt ? 1 : a.modifiedAt > b.modifiedAt ? -1 : a.path < b.path ? -1 : 1));
  }

  #runPage(query: RunPageQuery): Promise<T.RunListResponse> {
    return this.#answer(async () => {
      const all = this.#newestFirst();
      const { page, matched, kept, offset } = pageOfRuns(all, (file) => ({ path: file.path, timeMs: Date.parse(file.modifiedAt) }), query);
      const notSession = (file: LocalSessionFile) => file.bundle === null && file.failure === null && isOtherJsonDocument(file.name, file.lines.length);
      return {
        root: this.label,
        indexing: false,
        // A refused bundle is listed with its reason, as the server lists it.
        runs: await Promise.all(page.map(async (file) => (file.failure === null ? runSummary(await this.#run(file.path)) : placeholderRunSummary({ kind: "bundle", path: file.path, name: file.name }, file.modifiedAt, "error", file.failure.detail)))),
        total: all.length,
        matched,
        // Every file is read when opened: what is a run is known for all of them (the server's rule).
        not_sessions: { total: all.filter(notSession).length, matched: kept.filter(notSession).length },
        offset,
        store: { kind: "local", location: this.label, listing: { pages: 1, objects: all.length, done: true, skipped_folders: [] }, health: null },
      };
    });
  }

  /** The digests of every opened run, as the server computes them (a refused bundle: not loaded, with why). */
  async #digests() {
    return Promise.all(
      this.#newestFirst().map(async (file) => (file.failure === null ? runDigest(await this.#run(file.path)) : notLoadedDigest({ kind: "bundle", path: file.path, name: file.name }, file.modifiedAt, file.failure.detail))),
    );
  }

  async #overview() {
    return evalSummary(this.label, await this.#digests());
  }

  #failures(): Promise<T.EvalSummaryResponse> {
    return this.#answer(async () => summaryOf(await this.#overview()));
  }

  #failureOccurrences(signature: string): Promise<T.FailureOccurrencesResponse> {
    return this.#answer(async () => failureOccurrences(await this.#digests(), signature));
  }

  /** The landing run, picked as the server picks it. */
  async #landingRun(): Promise<RunView> {
    const landing = await landingRun(this.#newestFirst(), { loads: async (candidate) => candidate.snapshots.length > 0, failed: async (candidate) => candidate.bundle?.has(BUNDLE_MEMBERS.error) === true, failedCalls: async (candidate) => (await this.#run(candidate.path)).stats.outcome === "failed" });
    if (landing === null) throw serverError("WD_ERR_NOT_FOUND", "No session file of the directory holds a loadable line");
    return this.#run(landing.path);
  }

  #runSession(file: string, session: string, offset: number | undefined, limit: number | undefined): Promise<T.RunSessionPageResponse> {
    return this.#answer(async () => {
      const page = runSessionPage(await this.#run(file), session, offset, limit);
      if (page === null) throw serverError("WD_ERR_NOT_FOUND", `Unknown session_id: ${session}`);
      return page;
    });
  }

  #runSearch(file: string, session: string | null, query: string, regex: boolean, limit: number): Promise<T.RunSearchResponse> {
    return this.#answer(async () => {
      const run = await this.#run(file);
      const local = this.#file(file);
      const rootId = session ?? run.root_session_id;
      const root = run.sessions.find((candidate) => candidate.session_id === rootId);
      if (root === undefined) throw serverError("WD_ERR_NOT_FOUND", `Unknown session_id: ${rootId ?? ""}`);
      const wanted = new Set([root.session_id]);
      for (const candidate of run.sessions) if (candidate.parent_session_id !== null && wanted.has(candidate.parent_session_id)) wanted.add(candidate.session_id);
      const sessions: RunSearchSession[] = run.sessions
        .filter((candidate) => wanted.has(candidate.session_id))
        .map((candidate) => {
          const snapshot = this.#snapshot({ file, line: candidate.latest_line }).snapshot;
          return {
            sessionId: candidate.session_id,
            latestLine: candidate.latest_line,
            snapshot,
            events: sessionEvents(snapshot),
            turns: candidate.turns,
            workspaces: candidate.snapshots.map((entry) => ({
              lineNumber: entry.line_number,
              turn: entry.turn,
              label: entry.label,
              source: async () => (local.snapshots.some((line) => line.lineNumber === entry.line_number) ? (await this.#workspace({ file, line: entry.line_number })).source : null),
            })),
          };
        });
      return searchRun(sessions, query, { regex, maxHits: limit });
    });
  }

  /**
   * A snapshot's meta; for a debug bundle, the bundle's meta (WINK's fields, with the
   * snapshot fields null when it has no session), as the server answers `/api/meta`.
   */
  #meta(ref?: SnapshotRef): Promise<T.SnapshotMetaResponse> {
    return this.#answer(() => {
      const chosen = ref ?? this.#firstRef();
      const file = this.#file(chosen.file);
      if (file.bundle === null) return this.#snapshotMeta(chosen);
      const line = ref === undefined ? defaultLineOf(file) : ref.line;
      return bundleMetaView(file.bundle, file.path, line === undefined ? null : this.#snapshotMeta({ file: file.path, line })) as unknown as T.SnapshotMetaResponse;
    });
  }

  #snapshotMeta(ref: SnapshotRef): T.SnapshotMetaResponse {
    const { file, snapshot } = this.#snapshot(ref);
    return snapshotMeta(file.path, { lineNumber: snapshot.lineNumber, summary: summarizeSnapshot(snapshot) });
  }

  /** Where the app starts: the first session file's first line, else the first bundle (its default line, or none). */
  #firstRef(): SnapshotRef {
    const files = [...this.#sessions.values()].sort(byPath);
    for (const file of files) {
      const first = file.bundle === null ? file.snapshots[0]?.lineNumber : defaultLineOf(file);
      if (first !== undefined) return { file: file.path, line: first };
    }
    const bundle = files.find((file) => file.bundle !== null);
    if (bundle !== undefined) return { file: bundle.path, line: 0 };
    throw serverError("WD_ERR_NOT_FOUND", "None of the opened files holds a loadable snapshot line");
  }

  #timeline(ref: SnapshotRef): Promise<T.TimelineResponse> {
    return this.#answer(() => {
      const { file, snapshot } = this.#snapshot(ref);
      return buildTimeline({ file: file.path, snapshot, lines: file.lines, lineErrors: file.errors });
    });
  }

  #slicePage(ref: SnapshotRef, sliceType: string, offset: number | undefined, limit: number | undefined): Promise<T.SlicePageResponse> {
    return this.#answer(() => {
      const slice = this.#snapshot(ref).snapshot.slices.find((candidate) => candidate.sliceType === sliceType);
      if (slice === undefined) throw serverError("WD_ERR_NOT_FOUND", `Unknown slice type: ${sliceType}`);
      return slicePage(slice, { offset: offset ?? 0, limit: limit ?? null });
    });
  }

  #filesystemMeta(ref: SnapshotRef): Promise<T.FilesystemMetaResponse> {
    return this.#answer(async () => {
      return workspaceMetaView(await this.#workspace(ref));
    });
  }

  #browse(ref: SnapshotRef, base: SnapshotRef | "previous" | "none"): Promise<T.BrowseResponse> {
    return this.#answer(async () => {
      const workspace = await this.#workspace(ref);
      const entries = workspace.source === null ? [] : await workspace.source.list();
      const baseRef = base === "none" ? null : base === "previous" ? this.#previous(ref) : base;
      if (baseRef === null) return { source: workspace.source?.kind ?? null, archive: workspace.archive, base: null, root: buildFileTree(entries) };
      const baseWorkspace = await this.#workspace(baseRef);
      const baseEntries = baseWorkspace.source === null ? [] : await baseWorkspace.source.list();
      const diff = diffFileLists({ kind: baseWorkspace.source?.kind ?? null, entries: baseEntries }, { kind: workspace.source?.kind ?? null, entries });
      const deletedSizes = new Map(baseEntries.map((entry) => [entry.path, entry.size]));
      return { source: workspace.source?.kind ?? null, archive: workspace.archive, base: { file: baseRef.file, line_number: baseRef.line }, root: buildFileTree(entries, diff.diff, deletedSizes) };
    });
  }

  #fileContent(ref: SnapshotRef, path: string, range: { offset?: number | undefined; limit?: number | undefined }): Promise<T.FileContentResponse> {
    return this.#answer(async () => {
      const workspace = await this.#workspace(ref);
      if (workspace.source === null) throw serverError("WD_ERR_NOT_FOUND", `No filesystem for line ${ref.line} of ${ref.file}`);
      const bytes = await workspace.source.read(path, MAX_VIEW_BYTES);
      return fileContent(path, bytes, { offset: range.offset ?? 0, limit: range.limit ?? null });
    });
  }

  async download(params: RouteParams<"download">): Promise<void> {
    const [ref, path] = [this.#ref(params), params.path];
    await this.#ready;
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

  #diff(base: SnapshotRef, target: SnapshotRef, options: { copies: boolean }): Promise<T.SnapshotDiffResponse> {
    return this.#answer(async () => {
      const [baseWorkspace, targetWorkspace] = await Promise.all([this.#workspace(base), this.#workspace(target)]);
      const [baseEntries, targetEntries] = await Promise.all([baseWorkspace.source?.list() ?? [], targetWorkspace.source?.list() ?? []]);
      const files = await diffWorkspaces({ base: { source: baseWorkspace.source, entries: baseEntries }, target: { source: targetWorkspace.source, entries: targetEntries } }, { copies: options.copies === true });
      const refOf = (ref: SnapshotRef) => {
        const { snapshot } = this.#snapshot(ref);
        return { file: ref.file, line_number: ref.line, session_id: snapshot.sessionId, created_at: snapshot.createdAt };
      };
      return { base: refOf(base), target: refOf(target), files, slices: diffSliceSummaries(this.#snapshot(base).snapshot, this.#snapshot(target).snapshot) };
    });
  }

  #diffStat(base: SnapshotRef, target: SnapshotRef, options: { copies: boolean }): Promise<T.DiffStatResponse> {
    return answer(async () => {
      const [baseWorkspace, targetWorkspace] = await Promise.all([this.#workspace(base), this.#workspace(target)]);
      const [baseEntries, targetEntries] = await Promise.all([baseWorkspace.source?.list() ?? [], targetWorkspace.source?.list() ?? []]);
      const files = await diffWorkspaces({ base: { source: baseWorkspace.source, entries: baseEntries }, target: { source: targetWorkspace.source, entries: targetEntries } }, { copies: options.copies === true });
      return diffStats(files.changes, baseWorkspace.source, targetWorkspace.source);
    });
  }

  #fileDiff(base: SnapshotRef, target: SnapshotRef, path: string, basePath: string | null): Promise<T.FileDiffResponse> {
    return this.#answer(async () => {
      const [baseWorkspace, targetWorkspace] = await Promise.all([this.#workspace(base), this.#workspace(target)]);
      return diffSourceFile(baseWorkspace.source, targetWorkspace.source, path, basePath === null ? {} : { basePath });
    });
  }

  #sliceDiff(base: SnapshotRef, target: SnapshotRef, sliceType: string): Promise<T.SliceDiffResponse> {
    return this.#answer(() => diffSlice(this.#snapshot(base).snapshot, this.#snapshot(target).snapshot, sliceType));
  }

  #search(ref: SnapshotRef, query: string, scope: SearchScope, limit: number): Promise<T.SearchResponse> {
    return this.#answer(async () => {
      const { snapshot } = this.#snapshot(ref);
      const workspace = await this.#workspace(ref);
      return searchSnapshot(snapshot, workspace.source, query, { maxHits: limit, scopes: scope === "all" ? ["slices", "files"] : [scope] });
    });
  }

  async #toolCallDiff(ref: SnapshotRef): Promise<T.ToolCallFileDiffResponse> {
    // Opened files come without the undo store that lies next to a served session file, so
    // timelines here have no `changes` and nothing asks for this.
    throw serverError("WD_ERR_NOT_FOUND", `No undo store for ${ref.file}: files opened in the page have none`);
  }

  subscribe(): () => void {
    return () => undefined; // files opened in the page do not change
  }
}
