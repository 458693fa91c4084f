/**
 * `buildApp(options)`: the wink-debug HTTP server for one directory of session files,
 * assembled from encapsulated plugins. It never listens (the CLI does; tests `inject()`).
 *
 * Order matters: the host/origin checks and security headers wrap everything, JSON-only
 * bodies and strict JSON serialisation apply to every route, then the API routes, then the
 * web app with its history fallback.
 */
import type { IncomingMessage } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import type { DebugBundleLimits } from "../shared/debug-bundle/index.js";
import { SessionLoadError, WinkError } from "../shared/errors.js";
import { CpuPool } from "./cpu-pool.js";
import { ArchiveCache } from "./library/archive-cache.js";
import type { ArchiveCacheOptions } from "./library/archive-cache.js";
import { ComputedResponses } from "./library/computed-responses.js";
import { DebugBundles } from "./library/debug-bundles.js";
import { DirectoryWatcher } from "./library/directory-watcher.js";
import type { ChangeNotice } from "./library/directory-watcher.js";
import { EventStream } from "./library/event-stream.js";
import type { RemoteTargetOptions } from "./library/open-target.js";
import { openTarget } from "./library/open-target.js";
import { RemoteFiles } from "./library/remote-files.js";
import { RemotePoller } from "./library/remote-poller.js";
import type { ListingProgress } from "./library/served-files.js";
import { requestValidatorFactory } from "./library/request-validators.js";
import type { RequestSchemaNotice } from "./library/request-validators.js";
import { SnapshotDirectory } from "./library/snapshot-directory.js";
import { UndoStores } from "./library/undo-stores.js";
import { MemoryBudget } from "./library/weighted-cache.js";
import { ViewerState } from "./library/viewer-state.js";
import { packageRoot } from "./package-root.js";
import { errorHandler } from "./plugins/error-handler.js";
import { hostCheck, upgradeVerdict } from "./plugins/host-check.js";
import { jsonBody } from "./plugins/json-body.js";
import { securityHeaders } from "./plugins/security-headers.js";
import { spaFallback } from "./plugins/spa-fallback.js";
import { strictJson, strictJsonSerializerFactory } from "./plugins/strict-json.js";
import { bundleRoutes } from "./routes/debug-bundles.js";
import { diffRoutes } from "./routes/diffs.js";
import { eventRoutes } from "./routes/events.js";
import { filesystemRoutes } from "./routes/filesystem.js";
import { legacyRoutes } from "./routes/legacy.js";
import { searchRoutes } from "./routes/search.js";
import { sessionRoutes } from "./routes/sessions.js";
import { runRoutes } from "./routes/runs.js";
import { toolCallRoutes } from "./routes/tool-calls.js";
import type { HeavyWork } from "./routes/request-helpers.js";

export interface AppOptions {
  /**
   * A directory of session files and debug bundles, or one such file (its directory is then
   * served); or a remote store: `s3://bucket/prefix`, `http(s)://host/folder/`, or the URL of
   * one file in one.
   */
  path: string;
  /**
   * How to reach a remote store (S3 endpoint, region, profile, path style; HTTP headers; time
   * budget, retries) and where to keep what is read from it between processes (`cacheDir`,
   * `cacheBytes`: the CLI's `--cache-dir`, `--cache-size`; none: nothing is written).
   */
  remote?: RemoteTargetOptions;
  /**
   * Seconds between two polls of a remote store's listing for live reload (none: no live
   * reload of a remote store). For a local folder: poll at this interval instead of watching.
   */
  pollSeconds?: number;
  /** Told after each page of the first listing (a remote store lists in pages). */
  onListing?: (progress: ListingProgress) => void;
  /** Include session files in subdirectories. */
  recursive?: boolean;
  /** The address the server will listen on (allowed as a Host header when not loopback). */
  bindHost?: string;
  /** Built web app (default `<package>/dist/web`). */
  webDir?: string;
  /** The built landing-page renderer (plugins/server-render.ts); default: `web-ssr/entry-server.cjs` beside `webDir`, `null` for none. */
  ssrModule?: string | null;
  /** Watch the directory for changes (default true); `"poll"` polls (tests). */
  watch?: boolean | "poll";
  /** Index every file in the background after start-up (default true). */
  indexInBackground?: boolean;
  /** Called while files are indexed in the background. */
  onIndexProgress?: (done: number, total: number, file: string) => void;
  /** Pino logger settings (default: errors only). */
  logger?: boolean | { level: string };
  archiveCache?: Omit<ArchiveCacheOptions, "memory" | "root">;
  /** Caps on the debug-bundle members parsed into memory (defaults: `DEFAULT_DEBUG_BUNDLE_LIMITS`). */
  bundleLimits?: Partial<DebugBundleLimits>;
  /**
   * Bytes the server may keep in its caches, all together: parsed session lines, archive
   * indexes, file contents and rendered file answers (default {@link DEFAULT_MEMORY_BYTES};
   * the CLI's `--memory`). What a request builds while it runs is not cached and not counted.
   */
  memoryBytes?: number;
  /** Wall-clock budget of one `/api/diff/stat` answer (default 4 s): on a busy machine it counts fewer pairs and says truncated. */
  diffStatTimeoutMs?: number;
  /** Hears of each route's request schema as routes are registered (the validator generator and its test use it). */
  onRequestSchema?: (notice: RequestSchemaNotice) => void;
}

/** The default cache budget: a 25 MB session line parsed (counted 1.5×) and room for archives and files beside it. */
export const DEFAULT_MEMORY_BYTES = 96 * 1024 * 1024;

export interface WinkApp {
  readonly app: FastifyInstance;
  readonly state: ViewerState;
  readonly events: EventStream;
  readonly watcher: DirectoryWatcher | RemotePoller | null;
  /** The worker thread and the answers it computed (big diffs, huge raw lines). */
  readonly heavy: HeavyWork;
}

/**
 * Opens the directory (listing only: nothing is parsed but the first line's envelope of the
 * file to show first) and builds the app. Throws `SessionLoadError` when the path does not
 * exist or holds no session file that loads.
 */
export async function buildApp(options: AppOptions): Promise<WinkApp> {
  const memory = new MemoryBudget(options.memoryBytes ?? DEFAULT_MEMORY_BYTES);
  const target = await openTarget(options.path, memory, options.remote);
  const { files } = target;
  // A remote store's archives and bundles are opened by range (end record, directory, then members).
  const archives = new ArchiveCache({ ...options.archiveCache, memory, ...(files instanceof RemoteFiles ? { openRemote: (id, limits) => files.openArchive(id, limits) } : { root: files.root }) });
  const bundles = new DebugBundles(archives, { memory, ...(options.bundleLimits === undefined ? {} : { limits: options.bundleLimits }) });
  let state: ViewerState;
  try {
    const directory = await SnapshotDirectory.open(files, { recursive: options.recursive ?? false, bundles, memory, ...(options.onListing === undefined ? {} : { onListing: options.onListing }) });
    state = new ViewerState(directory, archives, target.displayRoot, bundles);
    if (target.preferred !== null) {
      if (directory.get(target.preferred) === undefined) throw new SessionLoadError(`Not a session file (.jsonl or .json) or a WINK debug bundle (.zip): ${target.shown}`, { path: target.shown });
      await state.initialize(target.preferred);
    } else {
      await state.initialize();
    }
  } catch (error) {
    await archives.close();
    await files.close();
    // A store's failure keeps its code (E_SOURCE_*): the CLI and tests tell them apart.
    throw error instanceof WinkError ? error : new SessionLoadError(error instanceof Error ? error.message : String(error), { path: target.shown }, { cause: error });
  }
  const { directory } = state;

  const validators = requestValidatorFactory(options.onRequestSchema);
  const app = Fastify({
    logger: options.logger ?? { level: "error" },
    forceCloseConnections: true,
    return503OnClosing: true,
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 4096 },
    // Request validators are generated ahead of time (nothing is compiled at start-up), and
    // answers are written by toStrictJson: neither Ajv nor fast-json-stringify is loaded.
    schemaController: { compilersFactory: { buildValidator: validators.buildValidator, buildSerializer: strictJsonSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const events = new EventStream();
  const onChange = (notice: ChangeNotice) => events.send("change", notice);
  const watcher =
    options.watch === false
      ? null
      : files instanceof RemoteFiles
        ? options.pollSeconds === undefined
          ? null
          : new RemotePoller(directory, files, archives, onChange, { intervalMs: options.pollSeconds * 1000 })
        : new DirectoryWatcher(directory, archives, onChange, {
            poll: options.watch === "poll" || options.pollSeconds !== undefined,
            ...(options.pollSeconds === undefined ? {} : { pollMs: options.pollSeconds * 1000 }),
          });

  await app.register(errorHandler);
  await app.register(hostCheck, { ...(options.bindHost === undefined ? {} : { bindHost: options.bindHost }) });
  await app.register(securityHeaders);
  await app.register(jsonBody);
  await app.register(strictJson);
  const onSelect = (current: { file: string; line: number }) => events.send("select", { file: current.file, line_number: current.line });
  // CPU-heavy answers (big diffs, huge raw lines) run on a worker thread and are kept in the memory budget.
  const heavy: HeavyWork = { pool: new CpuPool(), responses: new ComputedResponses(memory) };
  await app.register(legacyRoutes, { state, onSelect, heavy });
  // Undo stores are folders beside local session files; a remote store's are not read (yet).
  const undoStores = files.remote ? null : new UndoStores({ root: files.root });
  await app.register(sessionRoutes, { state, ...(undoStores === null ? {} : { undoStores }) });
  await app.register(toolCallRoutes, { state, undoStores });
  await app.register(filesystemRoutes, { state, memory });
  await app.register(diffRoutes, { state, heavy, ...(options.diffStatTimeoutMs === undefined ? {} : { statTimeoutMs: options.diffStatTimeoutMs }) });
  await app.register(searchRoutes, { state });
  await app.register(bundleRoutes, { state });
  await app.register(runRoutes, {
    state,
    health: () => (watcher instanceof RemotePoller ? watcher.health : null),
    onIndexed: () => events.send("indexed", { files: directory.files().length }),
  });
  await app.register(eventRoutes, { state, events });
  await app.register(spaFallback, { webDir: options.webDir ?? path.join(packageRoot(), "dist", "web"), ...(options.ssrModule === undefined ? {} : { ssrModule: options.ssrModule }) });

  // WebSocket upgrades never reach Fastify's hooks: answer them here, with the same checks.
  app.server.on("upgrade", (request: IncomingMessage, socket: Duplex) => {
    const { status, detail, code } = upgradeVerdict(request.headers, options.bindHost === undefined ? {} : { bindHost: options.bindHost });
    const body = JSON.stringify({ detail, code });
    socket.end(`HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Not Found"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });

  app.addHook("onReady", async () => {
    // Only a schema without a generated validator (run from source) loads Ajv.
    await validators.loaded();
    watcher?.start();
    if (options.indexInBackground !== false) {
      void directory
        .indexAll((done, total, record) => options.onIndexProgress?.(done, total, record.path))
        .then(() => events.send("indexed", { files: directory.files().length }));
    }
  });
  app.addHook("preClose", async () => {
    events.close();
    watcher?.close();
    directory.close();
  });
  app.addHook("onClose", async () => {
    await Promise.all([archives.close(), heavy.pool.close(), files.close()]);
  });

  return { app, state, events, watcher, heavy };
}
