/**
 * The web app: hashed assets from `dist/web` with a year of caching, `index.html` with
 * `no-cache`, and the same `index.html` for any other page URL (deep links such as
 * `/sessions/abc/files/src/main.py`). Before the web app is built, a small placeholder page
 * stands in for it. Unknown `/api/` routes and non-HTML requests get JSON 404s.
 *
 * The built files are listed once at start-up and each gets a route of its own: nothing
 * else under `dist/web` can be asked for (no path from a request ever reaches the disk), and
 * no static-file package is needed (the one we used pulled in dependencies that declare
 * Node ≥ 22, and ~100 kB more of bundle for every start).
 */
import type { Dirent } from "node:fs";
import { existsSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { LandingRenderer, withRenderedLanding } from "./server-render.js";

export interface SpaOptions {
  /**
   * The public URL's path (`/wink/`; default "/"): the page's asset URLs and the app's API
   * calls start with it (`pageForBase`). Routes here are written at "/" (app.ts takes it off).
   */
  basePath?: string;
  /** Directory of the built web app (`dist/web`); may not exist. */
  webDir: string;
  /**
   * The built landing-page renderer (server-render.ts); by default `entry-server.cjs` in
   * `web-ssr` beside `webDir`. `null`, or a path with no file: the landing page is not
   * rendered on the server.
   */
  ssrModule?: string | null;
  /**
   * Render the landing page once as soon as the app is ready (the CLI: the browser it opens
   * asks for `/` a moment later), so the first page need not wait for the renderer to load
   * nor the newest run to be read. Default false (an app built for a test renders on demand).
   */
  prerenderLanding?: boolean;
  /**
   * Told once, after `ready`, when the start-up render is done (at once when there is none).
   * The run index waits for it: digesting the landing run beside its render parsed the newest
   * line twice, and a big one held both parses at once (issue 33's peak RSS bound).
   */
  onStartupRendered?: () => void;
  /** Served with sign-in (`--auth`): the page says so, and the app asks who is signed in. */
  signIn?: boolean;
  /**
   * How many runs the target holds now (the run list's length). With more than one, the bare
   * landing URL is sent to the eval (`?view=eval`): a target of many runs is looked at across
   * them first (issue 30). Absent: the landing stays the newest run.
   */
  runCount?: () => number;
}

const IMMUTABLE = "public, max-age=31536000, immutable";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
};

/** Every regular file under `dir` (no dotfiles, no symlinks), as URL paths relative to it. */
function builtFiles(dir: string, prefix = ""): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...builtFiles(dir, relative));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

/** Shown at `/` when `dist/web` has not been built. No script, so the CSP has nothing to allow. */
export const PLACEHOLDER_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>wink-debug</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>wink-debug</h1>
<p>The server is running, but the web app has not been built yet (<code>npm run build</code> builds it into <code>dist/web</code>).</p>
<p>The JSON API answers meanwhile: <a href="/api/files">/api/files</a>, <a href="/api/meta">/api/meta</a>, <a href="/api/filesystem/tree">/api/filesystem/tree</a>.</p>
</body>
</html>
`;

function wantsPage(request: FastifyRequest): boolean {
  const pathname = request.url.split("?")[0] ?? "";
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (pathname === "/api" || pathname.startsWith("/api/")) return false;
  return (request.headers.accept ?? "").includes("text/html");
}

/**
 * The request the app makes first where it lands without a link (the newest run), as a
 * preload: the browser starts it while the app's script is still loading, and the app's own
 * `fetch` is answered from it. Same origin, so the CSP's `connect-src 'self'` covers it.
 */
export function landingPreload(basePath: string): string {
  return `<link rel="preload" href="${basePath}api/run" as="fetch" crossorigin="anonymous">`;
}

export const LANDING_PRELOAD = landingPreload("/");

/** The eval's first question (`/api/failures`), asked while the app's script loads, as `landingPreload` is for a run. */
export function evalPreload(basePath: string): string {
  return `<link rel="preload" href="${basePath}api/failures" as="fetch" crossorigin="anonymous">`;
}

export const EVAL_PRELOAD = evalPreload("/");

function withPreload(html: string, link: string): string {
  return html.includes("</head>") ? html.replace("</head>", () => `  ${link}\n  </head>`) : html;
}

/** The name of the `<meta>` that tells the web app its base path (web/api/page-base.ts reads it). */
export const BASE_PATH_META = "wink-base-path";
/** The `<meta>` present when sign-in is on (web/api/signed-in-user.ts reads it): the local default asks no one who is signed in. */
export const SIGN_IN_META = "wink-sign-in";

/**
 * The built `index.html` for a base path: Vite writes its assets' URLs relative ("./assets/…",
 * vite.config.ts), which would resolve against a deep link's path, so they are made absolute
 * under the base path here, and a `<meta>` gives the app the base for its API calls. (A
 * `<base href>` would do both, but the CSP says `base-uri 'none'`.)
 */
export function pageForBase(html: string, basePath: string, signIn = false): string {
  const withAssets = html.replace(/(\s(?:src|href)=")\.\//g, (_match, attribute: string) => `${attribute}${basePath}`);
  const base = `<meta name="${BASE_PATH_META}" content="${basePath.replace(/[&"<>]/g, (character) => `&#${character.charCodeAt(0)};`)}" />`;
  const meta = signIn ? `${base}\n    <meta name="${SIGN_IN_META}" content="on" />` : base;
  return withAssets.includes("<head>") ? withAssets.replace("<head>", () => `<head>\n    ${meta}`) : withAssets;
}

/** Who the landing page's inner `/api/run` request is made as. */
interface InnerRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly remoteAddress?: string;
}

/**
 * The page request's headers minus those that would change the inner answer's form (a 304,
 * a range, a compressed body): what stays is its host and its credentials (the session
 * cookie, a trusted proxy's user header), and its address, which the proxy sign-in checks.
 */
function innerRequest(request: FastifyRequest): InnerRequest {
  const { accept: _accept, "accept-encoding": _encoding, "if-none-match": _etag, "if-modified-since": _since, range: _range, "content-length": _length, ...headers } = request.headers;
  return { headers, ...(request.socket.remoteAddress === undefined ? {} : { remoteAddress: request.socket.remoteAddress }) };
}

/** The one URL rendered on the server: `/` with no query (the app's state is all default there). */
function isBareLanding(request: FastifyRequest): boolean {
  return request.url === "/" || request.url === "/?";
}

/**
 * The landing URL's query when it opens the eval instead: `/` (or `/index.html`) whose query
 * names neither a run (`file`) nor a view; null for any other URL. The rest of the query is
 * kept (an eval filter such as `outcome=failed` still applies there).
 */
export function evalLandingQuery(request: FastifyRequest): string | null {
  const query = request.url.indexOf("?");
  const pathname = query === -1 ? request.url : request.url.slice(0, query);
  if (pathname !== "/" && pathname !== "/index.html") return null;
  const params = new URLSearchParams(query === -1 ? "" : request.url.slice(query + 1));
  if (params.has("file") || params.has("view")) return null;
  const rest = params.toString();
  return `view=eval${rest === "" ? "" : `&${rest}`}`;
}

/** What a page URL opens first: the eval (`view=eval`), a run it names (`file`), or else the newest run. */
function pageLanding(request: FastifyRequest): "eval" | "named-run" | "newest-run" {
  const query = request.url.indexOf("?");
  if (query === -1) return "newest-run";
  const params = new URLSearchParams(request.url.slice(query + 1));
  return params.get("view") === "eval" ? "eval" : params.has("file") ? "named-run" : "newest-run";
}

const plugin: FastifyPluginAsync<SpaOptions> = async (app, options) => {
  const basePath = options.basePath ?? "/";
  const indexPath = path.join(options.webDir, "index.html");
  const readIndex = async (): Promise<string> => pageForBase(await readFile(indexPath, "utf8"), basePath, options.signIn === true);
  const built = existsSync(indexPath);
  let indexHtml: string | null = null;
  let landingHtml: string | null = null;
  let evalHtml: string | null = null;
  const renderer = new LandingRenderer(built ? (options.ssrModule === undefined ? path.join(options.webDir, "..", "web-ssr", "entry-server.cjs") : options.ssrModule) : null);
  const manyRuns = (): boolean => (options.runCount?.() ?? 0) > 1;
  const sendIndex = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const evalQuery = manyRuns() ? evalLandingQuery(request) : null;
    // 302, not 301/308: the answer changes as runs come and go, and must not be remembered.
    if (evalQuery !== null) return reply.code(302).header("cache-control", "no-cache").header("location", `${basePath}?${evalQuery}`).send();
    indexHtml ??= built ? await readIndex() : PLACEHOLDER_PAGE;
    landingHtml ??= built ? withPreload(indexHtml, landingPreload(basePath)) : indexHtml;
    evalHtml ??= built ? withPreload(indexHtml, evalPreload(basePath)) : indexHtml;
    const rendered = built && isBareLanding(request) ? await renderedLanding(request, indexHtml) : null;
    const landing = pageLanding(request);
    return reply
      .code(200)
      .header("cache-control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(rendered ?? (landing === "eval" ? evalHtml : landing === "newest-run" ? landingHtml : indexHtml));
  };
  /** The last page rendered and the run answer it was rendered from: the same answer gets the same page, unrendered. */
  let lastRendered: { run: string; html: string } | null = null;
  /**
   * The landing page with the newest run drawn in it (the same answer `/api/run` gives the
   * page's own request: its credentials, so that under `--auth` the run is asked for as the
   * signed-in user who asked for the page); null to send the page as before.
   */
  const renderLanding = async (asker: InnerRequest, page: string): Promise<string | null> => {
    if ((await renderer.module()) === null) return null;
    const run = await app.inject({ method: "GET", url: `${basePath}api/run`, headers: { ...asker.headers, accept: "application/json" }, ...(asker.remoteAddress === undefined ? {} : { remoteAddress: asker.remoteAddress }) });
    if (run.statusCode !== 200) return null;
    if (lastRendered?.run === run.body) return lastRendered.html;
    const markup = await renderer.render(run.body, basePath);
    const html = markup === null ? null : withRenderedLanding(page, markup, run.body);
    if (html !== null) lastRendered = { run: run.body, html };
    return html;
  };
  /** The start-up render (`prerenderLanding`) while it runs: a request arriving meanwhile waits for it rather than doing the same work beside it. */
  let prerendering: Promise<unknown> | null = null;
  const renderedLanding = async (request: FastifyRequest, page: string): Promise<string | null> => {
    try {
      if (prerendering !== null) await prerendering;
      return await renderLanding(innerRequest(request), page);
    } catch (error) {
      request.log.warn({ err: error }, "the landing page could not be rendered on the server; sent without it");
      return null;
    }
  };
  const startupRendered = (): void => options.onStartupRendered?.();
  // After `ready` (not in it): the server answers meanwhile; a failure here only means the first page renders on demand.
  app.addHook("onReady", async () => {
    // With many runs the browser the CLI opens is sent to the eval: no run page to draw for it.
    // Under sign-in no one has asked yet: the run is asked for as the first user to come.
    if (!built || options.prerenderLanding !== true || manyRuns() || options.signIn === true) return startupRendered();
    setImmediate(() => {
      prerendering = readIndex()
        .then((html) => renderLanding({ headers: { host: "127.0.0.1" } }, (indexHtml ??= html)))
        .catch(() => null)
        .finally(() => {
          prerendering = null;
          startupRendered();
        });
    });
  });
  // Otherwise the renderer loads after the server's first answer (not during start-up), so
  // the first landing page need not wait for it.
  let warmed = false;
  app.addHook("onResponse", async () => {
    if (warmed) return;
    warmed = true;
    setImmediate(() => renderer.warm());
  });

  if (built) {
    for (const relative of builtFiles(options.webDir)) {
      // index.html is sent by sendIndex below; a name a route pattern would read as syntax is not served.
      if (relative === "index.html" || /[:*?#%\s]/.test(relative)) continue;
      const file = path.join(options.webDir, ...relative.split("/"));
      const type = CONTENT_TYPES[path.extname(relative).toLowerCase()] ?? "application/octet-stream";
      const cacheControl = relative.startsWith("assets/") ? IMMUTABLE : "no-cache";
      app.get(`/${relative}`, async (_request, reply) => {
        const bytes = await readFile(file).catch(() => null);
        if (bytes === null) return reply.code(404).type("application/json; charset=utf-8").send(JSON.stringify({ detail: `Not found: /${relative}`, code: "WD_ERR_NOT_FOUND" }));
        return reply.header("cache-control", cacheControl).type(type).send(bytes);
      });
    }
  }

  // Paths with dot segments never reach the file server (it would answer 403 for escapes).
  app.addHook("onRequest", async (request, reply) => {
    const pathname = request.url.split("?")[0] ?? "";
    if (pathname.startsWith("/api/")) return;
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      decoded = "..";
    }
    if (decoded.split(/[\\/]/).some((segment) => segment === ".." || segment === ".") || decoded.includes("\0")) {
      return reply.code(404).type("application/json; charset=utf-8").send(JSON.stringify({ detail: `Not found: ${pathname.slice(0, 300)}`, code: "WD_ERR_NOT_FOUND" }));
    }
  });

  app.get("/", async (request, reply) => sendIndex(request, reply));
  app.get("/index.html", async (request, reply) => sendIndex(request, reply));

  app.setNotFoundHandler(async (request, reply) => {
    if (wantsPage(request)) return sendIndex(request, reply);
    const pathname = (request.url.split("?")[0] ?? "").slice(0, 300);
    return reply.code(404).type("application/json; charset=utf-8").send(JSON.stringify({ detail: `Not found: ${request.method} ${pathname}`, code: "WD_ERR_NOT_FOUND" }));
  });
};

export const spaFallback = fp(plugin, { name: "wink-spa-fallback", fastify: "5.x" });
