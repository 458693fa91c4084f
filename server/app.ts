/**
 * `buildApp(options)`: the wink-debug HTTP server for one directory of session files,
 * assembled from encapsulated plugins. It never listens (the CLI does; tests `inject()`).
 *
 * Order matters: the host/origin checks and security headers wrap everything, JSON-only
 * bodies and strict JSON serialisation apply to every route, then the API routes, then the
 * web app with its history fallback.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { type ServedAuth, signInGuard } from "./auth/guard.js";
import { decorateViewerUser } from "./auth/viewer-user.js";
import { CpuPool } from "./cpu/cpu-pool.js";
import { limitConnections } from "./http/connection-limits.js";
import type { ConnectionLimits } from "./http/connection-limits.js";
import { basePathOf, stripBasePath } from "./http/public-address.js";
import type { PublicAddress } from "./http/public-address.js";
import { refuseUpgrades } from "./http/request-origin.js";
import { ComputedResponses } from "./library/computed-responses.js";
import { DirectoryWatcher } from "./library/directory-watcher.js";
import type { ChangeNotice } from "./library/directory-watcher.js";
import { EventStream } from "./library/event-stream.js";
import { RemoteFiles } from "./library/remote-files.js";
import { RemotePoller } from "./library/remote-poller.js";
import { INDEX_MEMORY_SHARE, readIndexSeed } from "./library/index-seed.js";
import { RunIndex } from "./library/run-index.js";
import type { RunIndexProgress } from "./library/run-index.js";
import { runIndexStore } from "./library/run-index-store.js";
import { requestValidatorFactory } from "./library/request-validators.js";
import type { RequestSchemaNotice } from "./library/request-validators.js";
import { openServedState } from "./library/served-state.js";
import type { ServedState, ServedStateOptions } from "./library/served-state.js";
import { UndoStores } from "./library/undo-stores.js";
import type { ViewerState } from "./library/viewer-state.js";
import { accessLog, jsonLoggerOptions } from "./ops/access-log.js";
import { healthRoutes } from "./ops/health.js";
import { metrics } from "./ops/metrics.js";
import { packageRoot, packageVersion } from "./package-root.js";
import { errorHandler } from "./plugins/error-handler.js";
import { hostCheck } from "./plugins/host-check.js";
import { jsonBody } from "./plugins/json-body.js";
import { securityHeaders } from "./plugins/security-headers.js";
import { spaFallback } from "./plugins/spa-fallback.js";
import { strictJson, strictJsonSerializerFactory } from "./plugins/strict-json.js";
import { bundleRoutes } from "./routes/debug-bundles.js";
import { computedRoutes } from "./routes/computed.js";
import { diffRoutes } from "./routes/diffs.js";
import { eventRoutes } from "./routes/events.js";
import { filesystemRoutes } from "./routes/filesystem.js";
import { legacyRoutes } from "./routes/legacy.js";
import { searchRoutes } from "./routes/search.js";
import { sessionRoutes } from "./routes/sessions.js";
import { runRoutes } from "./routes/runs.js";
import { failureRoutes } from "./routes/failures.js";
import { toolCallRoutes } from "./routes/tool-calls.js";
import type { HeavyWork } from "./routes/request-helpers.js";

export interface AppOptions extends ServedStateOptions {
  /**
   * A directory of session files and debug bundles, or one such file (its directory is then
   * served); or a remote store: `s3://bucket/prefix`, `http(s)://host/folder/`, or the URL of
   * one file in one.
   */
  path: string;
  /**
   * Seconds between two polls of a remote store's listing for live reload (none: no live
   * reload of a remote store). For a local folder: poll at this interval instead of watching.
   */
  pollSeconds?: number;
  /** The address the server will listen on (allowed as a Host header when not loopback). */
  bindHost?: string;
  /**
   * The public address (`--public-url`, `http/public-address.ts`): Host and Origin are
   * checked against it too, and its path is the base path the app is served under (taken off
   * each URL before routing; anything outside it is 404).
   */
  publicAddress?: PublicAddress;
  /** The server speaks TLS itself (`--tls-cert`, on the given `server`): its own origin is `https://<Host>`. */
  secure?: boolean;
  /** Built web app (default `<package>/dist/web`). */
  webDir?: string;
  /** The built landing-page renderer (plugins/server-render.ts); default: `web-ssr/entry-server.cjs` beside `webDir`, `null` for none. */
  ssrModule?: string | null;
  /** Render the landing page once when the app is ready, before anyone asks (plugins/spa-fallback.ts; the CLI does). */
  prerenderLanding?: boolean;
  /** Watch the directory for changes (default true); `"poll"` polls (tests). */
  watch?: boolean | "poll";
  /** Index every file in the background after start-up (default true). */
  indexInBackground?: boolean;
  /** Called while files are indexed in the background. */
  onIndexProgress?: (done: number, total: number, file: string) => void;
  /** Told what the server made of the target's `index.parquet` (used, ignored and why), a line each (default: the log, as warnings). */
  onNote?: (line: string) => void;
  /**
   * The folder the run index (the eval's digests) is kept in between starts, one file per
   * target (`runIndexStore`); none: in memory only, nothing written (the default; the CLI
   * passes the user's cache directory or `--cache-dir`, unless `--no-cache`).
   */
  runIndexCacheDir?: string | null;
  /** Told once when `runIndexCacheDir` cannot be used (then nothing is kept). */
  onRunIndexUnusable?: (message: string) => void;
  /** Told as the run index reads runs (`RunIndexOptions.onProgress`). */
  onRunIndexProgress?: (progress: RunIndexProgress) => void;
  /** Pino logger settings (default: errors only). Ignored with `logFormat: "json"`. */
  logger?: boolean | { level: string };
  /** `"json"`: one JSON access-log line per request on stdout (or `logStream`), the audit trail (ops/access-log.ts). */
  logFormat?: "default" | "json";
  /** Where the JSON access log goes (default stdout; tests). */
  logStream?: NodeJS.WritableStream;
  /** The bearer token of `/metrics` (`--metrics-token-file`); none: no `/metrics` (404). */
  metricsToken?: string | null;
  /** Wall-clock budget of one `/api/diff/stat` answer (default 4 s): on a busy machine it counts fewer pairs and says truncated. */
  diffStatTimeoutMs?: number;
  /** What to serve, opened already (`openServedState`): then `path` and the other target options are not read again. */
  served?: ServedState;
  /**
   * A server that listens already (the CLI's first stage answered requests on it): the app
   * serves on it instead of creating one (never call `listen`), and returns its request
   * handler as `handler` for the caller to attach once the app is ready.
   */
  server?: Server;
  /** The connection cap, reserve and keep-alive of the server the app creates (a given `server` has its own: `createFirstStage`'s). */
  connections?: ConnectionLimits;
  /** Hears of each route's request schema as routes are registered (the validator generator and its test use it). */
  onRequestSchema?: (notice: RequestSchemaNotice) => void;
  /** Hears of each route as it is registered (the route table's test checks them against the table). */
  onRoute?: (route: { method: string | readonly string[]; url: string }) => void;
  /** Served mode (`--auth`): every route behind this sign-in method and its session cookies (none: the local default). */
  auth?: ServedAuth;
}

export { DEFAULT_MEMORY_BYTES } from "./library/served-state.js";

/** Fastify's handler of one request, for a server given in `AppOptions.server`. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Requests whose URL is not under the base path, as `rewriteUrl` found them: answered 404 (or, for the bare base path, redirected). */
const outsideBase = new WeakMap<IncomingMessage, "bare" | "outside">();

export interface WinkApp {
  readonly app: FastifyInstance;
  readonly state: ViewerState;
  readonly events: EventStream;
  readonly watcher: DirectoryWatcher | RemotePoller | null;
  /** The digests of every run (the eval's answers), built in the background unless `indexInBackground` is false. */
  readonly runIndex: RunIndex;
  /** The worker thread and the answers it computed (big diffs, huge raw lines). */
  readonly heavy: HeavyWork;
  /** Fastify's request handler when `AppOptions.server` was given (attach it after `app.ready()`), else null. */
  readonly handler: RequestHandler | null;
}

/**
 * Opens the directory (listing only: nothing is parsed but the first line's envelope of the
 * file to show first), unless `served` was opened already, and builds the app. Throws
 * `SessionLoadError` when the path does not exist or holds no session file that loads.
 */
export async function buildApp(options: AppOptions): Promise<WinkApp> {
  const served = options.served ?? (await openServedState(options));
  const { memory, files, archives, state } = served;
  const { directory } = state;

  const validators = requestValidatorFactory(options.onRequestSchema);
  const given = options.server;
  let handler: RequestHandler | null = null;
  const basePath = basePathOf(options.publicAddress);
  const app = Fastify({
    // A server that already listens (the CLI's first stage): Fastify gets it, and its request handler is handed back.
    ...(given === undefined
      ? {}
      : {
          serverFactory: (fastifyHandler: RequestHandler) => {
            handler = fastifyHandler;
            return given;
          },
        }),
    // The base path comes off before routing, so every route is written as if at "/".
    ...(options.publicAddress === undefined
      ? {}
      : {
          rewriteUrl: (request: IncomingMessage): string => {
            const routed = stripBasePath(request.url ?? "/", basePath);
            if (routed !== "bare" && routed !== "outside") return routed;
            outsideBase.set(request, routed);
            return "/";
          },
        }),
    ...(options.logFormat === "json" ? jsonLoggerOptions(options.logStream) : { logger: options.logger ?? { level: "error" } }),
    forceCloseConnections: true,
    return503OnClosing: true,
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 4096 },
    // Request validators are generated ahead of time (nothing is compiled at start-up), and
    // answers are written by toStrictJson: neither Ajv nor fast-json-stringify is loaded.
    schemaController: { compilersFactory: { buildValidator: validators.buildValidator, buildSerializer: strictJsonSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const { onRoute } = options;
  if (onRoute !== undefined) app.addHook("onRoute", (route) => onRoute({ method: route.method, url: route.url }));

  const events = new EventStream();
  const indexDir = options.runIndexCacheDir ?? null;
  // Settled by the SPA plugin once its start-up render of the landing page is done (or at once).
  let startupRenderedNow = (): void => undefined;
  const startupRendered = { promise: new Promise<void>((resolve) => (startupRenderedNow = resolve)), resolve: () => startupRenderedNow() };
  const runIndex = new RunIndex(state, {
    store: indexDir === null ? null : runIndexStore(indexDir, directory.root, directory.recursive, packageVersion(), options.onRunIndexUnusable),
    ...(options.onRunIndexProgress === undefined ? {} : { onProgress: options.onRunIndexProgress }),
    // The viewer's pages use the indexes the run index reads runs with: kept (the memory budget bounds them).
    forgetIndexes: false,
    prebuilt: () => readIndexSeed(state, { maxBytes: memory.bytes / INDEX_MEMORY_SHARE, onNote: options.onNote ?? ((line) => app.log.warn(line)) }),
  });
  const onChange = (notice: ChangeNotice) => {
    // New and rewritten runs are read again, deleted ones leave, before the pages ask.
    runIndex.update(notice.changed);
    events.send("change", notice);
  };
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

  decorateViewerUser(app);
  await app.register(errorHandler);
  // Before every route: their answers are counted and logged.
  if (options.logFormat === "json") await app.register(accessLog);
  // CPU-heavy answers (big diffs, huge raw lines) run on a worker thread and are kept in the memory budget.
  const heavy: HeavyWork = { pool: new CpuPool(), responses: new ComputedResponses(memory) };
  await app.register(metrics, { token: options.metricsToken ?? null, sources: { memory, directory, archives, computed: heavy.responses, store: files instanceof RemoteFiles ? files.source : null } });
  const origin = { bindHost: options.bindHost, publicAddress: options.publicAddress, secure: options.secure === true };
  await app.register(hostCheck, origin);
  // After the host check (a foreign Host is 403 wherever it points), before everything else.
  app.addHook("onRequest", (request, reply, done) => {
    const outside = outsideBase.get(request.raw);
    if (outside === undefined) return done();
    const original = request.originalUrl;
    if (outside === "bare") {
      const query = original.indexOf("?");
      void reply.code(308).header("location", `${basePath}${query === -1 ? "" : original.slice(query)}`).send();
      return;
    }
    void reply
      .code(404)
      .type("application/json; charset=utf-8")
      .send(JSON.stringify({ detail: `Not found: ${request.method} ${(original.split("?")[0] ?? "").slice(0, 300)} (the viewer is served under ${basePath})`, code: "WD_ERR_NOT_FOUND" }));
  });
  if (options.auth !== undefined) await app.register(signInGuard, options.auth);
  await app.register(securityHeaders);
  await app.register(jsonBody);
  await app.register(strictJson);
  const onSelect = (current: { file: string; line: number }) => events.send("select", { file: current.file, line_number: current.line });
  // Readiness: the first listing is done (it was, to build the app); with --poll, the store answered the last poll.
  await app.register(healthRoutes, { ready: () => !(watcher instanceof RemotePoller) || watcher.health.ok });
  await app.register(legacyRoutes, { state, onSelect, heavy });
  // Undo stores are folders beside local session files; a remote store's are not read (yet).
  const undoStores = files.remote ? null : new UndoStores({ root: files.root });
  await app.register(sessionRoutes, { state, ...(undoStores === null ? {} : { undoStores }) });
  await app.register(toolCallRoutes, { state, undoStores });
  await app.register(filesystemRoutes, { state, memory });
  await app.register(diffRoutes, { state, heavy, ...(options.diffStatTimeoutMs === undefined ? {} : { statTimeoutMs: options.diffStatTimeoutMs }) });
  await app.register(searchRoutes, { state });
  await app.register(bundleRoutes, { state });
  await app.register(computedRoutes, { state });
  await app.register(runRoutes, {
    state,
    health: () => (watcher instanceof RemotePoller ? watcher.health : null),
    // One event for the runs of a page that become ready together, not one each.
    onIndexed: () => events.sendSoon("indexed", () => ({ files: directory.files().length })),
  });
  await app.register(failureRoutes, { state, index: runIndex });
  await app.register(eventRoutes, { state, events });
  await app.register(spaFallback, { basePath, webDir: options.webDir ?? path.join(packageRoot(), "dist", "web"), ...(options.ssrModule === undefined ? {} : { ssrModule: options.ssrModule }), prerenderLanding: options.prerenderLanding === true, onStartupRendered: () => startupRendered.resolve(), signIn: options.auth !== undefined, runCount: () => directory.runCount() });

  // WebSocket upgrades never reach Fastify's hooks: answered with the same checks (a given server answers them already).
  if (given === undefined) app.server.on("upgrade", refuseUpgrades(origin));
  // The same cap and keep-alive as the CLI's server (a given one is held to them already).
  if (given === undefined) limitConnections(app.server, options.connections);

  app.addHook("onReady", async () => {
    // Only a schema without a generated validator (run from source) loads Ajv.
    await validators.loaded();
    watcher?.start();
    if (options.indexInBackground !== false) {
      // A remote store's runs are whole objects fetched from it: its run index starts when the
      // eval is first asked for (routes/failures.ts), not for every start of every instance.
      // After the start-up render of the landing run (10 s at most): its run is then built and
      // kept, and the index digests it from there instead of parsing its newest line again.
      if (!(files instanceof RemoteFiles)) void Promise.race([startupRendered.promise, delay(10_000, undefined, { ref: false })]).then(() => runIndex.start());
      void directory
        .indexAll((done, total, record) => options.onIndexProgress?.(done, total, record.path))
        .then(() => events.send("indexed", { files: directory.files().length }));
    }
  });
  app.addHook("preClose", async () => {
    events.close();
    watcher?.close();
    // Saves what was read, so that the next start goes on from there.
    await runIndex.close();
    directory.close();
    // Fastify closes only a server it listened on; a given one is closed here, as Fastify would (forceCloseConnections).
    if (given !== undefined) {
      given.closeAllConnections();
      await new Promise<void>((resolve) => given.close(() => resolve()));
    }
  });
  app.addHook("onClose", async () => {
    await Promise.all([archives.close(), heavy.pool.close(), files.close()]);
  });

  return { app, state, events, watcher, runIndex, heavy, handler };
}
