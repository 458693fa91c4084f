#!/usr/bin/env node
/**
 * `wink-debug [DIR|FILE|URL] [--host 127.0.0.1] [--port 8000] [--open|--no-open] [--recursive] [--cache-dir DIR]
 *   [--public-url URL] [--tls-cert FILE --tls-key FILE]`
 * (and the subcommands `wink-debug bundle …`, `wink-debug failures …`, `wink-debug index …`)
 *
 * Serves a directory of WINK session files and debug bundles (or the directory of one
 * file), an S3 bucket or prefix (`s3://bucket/prefix`) or an HTTP folder
 * (`https://host/runs/`) on loopback and prints the URL. Without an argument it serves the
 * bundled example run. Problems with the input are one line on stderr, never a stack trace
 * nor a credential:
 *   exit 0  stopped normally (Ctrl-C, SIGTERM)
 *   exit 2  bad arguments (a --public-url that cannot be used, a TLS file that cannot be
 *           read or does not fit, a --host that is not loopback without --auth, a sign-in
 *           secret or token file that cannot be read or is too short), or nothing to serve (missing path, empty directory, unreadable file),
 *           or a --cache-dir that cannot be created, read or written, or that another user
 *           owns or may write (the folder, or one above it that is not sticky)
 *   exit 3  the server could not start (port in use, address not available)
 *   exit 4  the remote store could not be read (unreachable, credentials, permissions, throttled)
 */
import { spawn } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { SourceError } from "../shared/errors.js";
import { DEFAULT_DISK_CACHE_BYTES, isRemoteTarget } from "../shared/remote/index.js";
import { PROXY_CLI_OPTIONS, ProxyOptionsError, TrustedProxies, proxyOptionsFromCli, proxySignIn } from "./auth/proxy-sign-in.js";
import type { ProxySignInOptions } from "./auth/proxy-sign-in.js";
import { oidcSignIn } from "./auth/served-sign-in.js";
import type { OidcCliOptions } from "./auth/served-sign-in.js";
import type { ServedAuth } from "./auth/guard.js";
import { tokenSignIn, tokenUrl } from "./auth/token-sign-in.js";
import type { TokenCliOptions } from "./auth/token-sign-in.js";
import { createFirstStage } from "./first-stage.js";
import { PublicUrlError, parsePublicUrl } from "./http/public-address.js";
import type { PublicAddress } from "./http/public-address.js";
import { TlsFilesError, readTlsFiles } from "./http/tls-files.js";
import type { TlsFiles } from "./http/tls-files.js";
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_RESERVE, FILE_HEADROOM, MAX_DEFAULT_CONNECTIONS, MIN_CONNECTIONS, defaultMaxConnections, openFileLimit } from "./http/connection-limits.js";
import type { RemoteTargetOptions } from "./library/open-target.js";
import { boundCommandHeapGrowth, boundHeapGrowth } from "./library/memory-pressure.js";
import { runIndexDir } from "./library/run-index-store.js";
import { DEFAULT_MEMORY_BYTES, closeServedState, openServedState } from "./library/served-state.js";
import { packageRoot, packageVersion } from "./package-root.js";
import { REMOTE_CLI_OPTIONS, S3_OPTIONS_USAGE, openFailure, remoteOptionsFromCli, shownTarget } from "./remote-cli.js";

const MIB = 1024 * 1024;
/** The least `--memory` accepted: below it a 25 MB session line could never stay parsed. */
const MIN_MEMORY_MIB = 16;

/** How long the first stage waits for a first request before it loads the full app anyway. */
const FULL_APP_DELAY_MS = 100;

/** Runs to read at start from which the run index's progress is shown on stderr. */
const INDEX_PROGRESS_RUNS = 10;

/** Longest and shortest `--poll` interval, in seconds. */
const MAX_POLL_SECONDS = 86_400;

const USAGE = `Usage: wink-debug [DIR|FILE|URL] [options]

Serve WINK session snapshots (*.jsonl, *.json, with their .fs.zip workspaces) and WINK
debug bundles (*.zip with a debug_bundle/ root) in a local web viewer. DIR defaults to
the bundled example run; FILE may be a session file or a bundle. URL is a remote store,
read by range requests without downloading it:
  s3://bucket/prefix        an S3 bucket or prefix (or an S3-compatible store)
  https://host/runs/        an HTTP folder: nginx JSON listings (autoindex_format json)
                            or a wink-index.json at its root; user:pass@ for Basic auth
  either one ending in a session file or bundle name opens that file first.

Options:
  --host HOST      address to listen on (default 127.0.0.1; only loopback names are
                   answered); one that is not loopback (0.0.0.0, a LAN address) needs --auth
  --port PORT      port (default 8000, or the next free one; 0 picks any free port)
  --open           open the viewer in a browser, when one is available
  --no-open        do not open a browser (default)
  -r, --recursive  also serve subdirectories (e.g. an EvalLoop's {target}/{request_id}/*.zip)
  --memory MIB     memory for caches (parsed session lines, archive indexes, file
                   contents, blocks read from a remote store and its reads in flight),
                   in MiB (default ${DEFAULT_MEMORY_BYTES / MIB});
                   the process uses about this plus 70 MiB, plus ~3x the largest
                   line while it parses it (~1.3x a line of 100 MiB while /api/raw writes it)
  --cache-dir DIR  keep what is read from a remote store (blocks, session indexes) in DIR
                   (created 0700), so a later start reads it from disk instead of the
                   store (only for the same ETag); without it nothing is written anywhere.
                   DIR must be yours and not group/world-writable (exit 2 otherwise)
  --no-cache       keep no run index between starts: by default the digests of the runs
                   (what the eval counts) are kept in $XDG_CACHE_HOME/wink-debug (else
                   ~/.cache/wink-debug; in --cache-dir for a remote store, none without
                   it), so a second start reads no run again. Never beside the runs
  --cache-size MIB most MiB kept in --cache-dir, least recently used dropped first
                   (default ${DEFAULT_DISK_CACHE_BYTES / MIB})
  --store-timeout SECONDS
                   a remote store's time budget per request (default 30): to begin
                   answering, then between two chunks; a read must also end within it
                   plus its length at 16 KiB/s, or it fails as too slow
  --poll SECONDS   live reload of a remote store: list it again every SECONDS (and
                   revalidate the ETags of open files); without it a remote store is
                   read as it was at start. For a local DIR: poll instead of watching
  --max-connections N
                   most connections open at once (default: the open-file limit less
                   ${FILE_HEADROOM} for files, at most ${MAX_DEFAULT_CONNECTIONS}: ${defaultMaxConnections(1024)} under ulimit -n 1024). Idle ones
                   (kept alive ${DEFAULT_KEEP_ALIVE_TIMEOUT_MS / 1000} s after an answer) are closed first, the longest idle
                   first; ${DEFAULT_RESERVE} (a quarter of a smaller cap) are kept free of them, so
                   the viewer's own page always gets through
  --log-format FORMAT
                   json: one JSON access-log line per request on stdout (method, route,
                   status, ms, signed-in user, run opened; never a token nor a cookie);
                   default: errors only
  --metrics-token-file FILE
                   serve Prometheus metrics at /metrics to requests bearing this file's
                   token (Authorization: Bearer …); without it there is no /metrics
  --auth oidc      sign-in for a team (OpenID Connect, code flow with PKCE): every page and
                   API route needs it; with --oidc-issuer URL, --oidc-client-id ID, the
                   client secret in --oidc-client-secret-file FILE (or
                   WINK_DEBUG_OIDC_CLIENT_SECRET), who may sign in in
                   --oidc-allowed-domains a.com,b.org and/or --oidc-allowed-groups g1,g2,
                   and the cookies' secret in --session-secret-file FILE (or
                   WINK_SESSION_SECRET, at least 32 bytes); the callback is
                   <public URL>auth/oidc/callback
  --auth proxy     sign-in done by a reverse proxy in front (oauth2-proxy, nginx
                   auth_request) that names the user in --user-header NAME (e.g.
                   X-Forwarded-User); the header is believed only on connections from
                   --trusted-proxy ADDR[,ADDR|CIDR...] (the proxy's own addresses as this
                   server sees them, not X-Forwarded-For), any other request is signed
                   out; optionally --groups-header NAME (comma-separated groups) with
                   --proxy-allowed-groups g1,g2 to let in only those groups
  --auth token     sign-in with a random token, as Jupyter does: printed once in the URL
                   (…/?token=…); opening any page with it sets the session cookie and
                   drops it from the address. The token is made at each start, or read
                   from --token-file FILE (or WINK_DEBUG_TOKEN, at least 32 characters;
                   not printed then); the cookies' secret as for oidc, else one of this
                   process only (a restart signs everyone out)
  --trusted-proxy ADDR[,ADDR|CIDR...]
                   with any --auth: the reverse proxies in front. Sign-in attempts are
                   limited to 30 a minute per address; behind a proxy every request
                   comes from the proxy, so the limit counts the client its
                   X-Forwarded-For names instead (read from the right, past these
                   addresses)
  --public-url URL the address users open, when a reverse proxy (or DNS) puts the viewer
                   elsewhere, e.g. https://tools.example/wink/: its host and origin are
                   accepted besides loopback, and its path (ending in /) is the base
                   path every page, asset and API route is served under (the proxy
                   passes it on unchanged); other paths are 404
  --tls-cert FILE  serve HTTPS with this PEM certificate (chain) ...
  --tls-key FILE   ... and this PEM private key (unencrypted); both or neither
  -h, --help       show this help
  -v, --version    print the version

${S3_OPTIONS_USAGE}
Commands:
  wink-debug bundle DIR|FILE -o run.html
                   write one self-contained HTML file (viewer + data) that opens offline
  wink-debug failures DIR|FILE|URL [-r] [--json] [--since DATE] [--baseline FILE] [--fail-on-new] [--no-cache] [--cache-dir DIR]
                   what failed across the runs, grouped by signature (--help for more)
  wink-debug index DIR|FILE|URL [-r] -o FILE.parquet [--no-cache] [--cache-dir DIR]
                   write the run index (a row per run and per failure) as Parquet
                   (both take the S3 options above for an s3:// URL)
`;

class UsageError extends Error {}

interface CliOptions {
  target: string;
  host: string;
  port: number;
  portGiven: boolean;
  open: boolean;
  recursive: boolean;
  memoryBytes: number;
  maxConnections: number;
  publicAddress: PublicAddress | undefined;
  /** The certificate and key files (`--tls-cert`, `--tls-key`), read after parsing. */
  tlsFiles: { cert: string; key: string } | undefined;
  /** Seconds between two polls (remote live reload, or local polling), or undefined. */
  pollSeconds: number | undefined;
  remote: RemoteTargetOptions;
  /** Keep the run index between starts (false: `--no-cache`). */
  cache: boolean;
  logFormat: "default" | "json";
  /** The bearer token of /metrics, read from --metrics-token-file, or null. */
  metricsToken: string | null;
  /** `--auth oidc`'s options, or undefined in the local default (no sign-in). */
  oidc: OidcCliOptions | undefined;
  /** `--auth proxy`'s options, or undefined. */
  proxy: ProxySignInOptions | undefined;
  /** `--trusted-proxy`: the reverse proxies in front, for any `--auth` (the sign-in rate limit counts their clients), or undefined. */
  trustedProxies: TrustedProxies | undefined;
  /** `--auth token`'s options, or undefined. */
  token: TokenCliOptions | undefined;
}

/** The token in `file` (its first line, trimmed): never from argv, where `ps` would show it. */
function readMetricsToken(file: string): string {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--metrics-token-file: cannot read ${file}: ${error instanceof Error && "code" in error ? String(error.code) : "unreadable"}`);
  }
  const token = (text.split(/\r?\n/)[0] ?? "").trim();
  if (token.length < 16) throw new UsageError(`--metrics-token-file: ${file} must hold a token of at least 16 characters on its first line`);
  return token;
}

function parseCli(argv: string[]): CliOptions | "help" | "version" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        open: { type: "boolean" },
        "no-open": { type: "boolean" },
        recursive: { type: "boolean", short: "r" },
        memory: { type: "string" },
        "max-connections": { type: "string" },
        poll: { type: "string" },
        ...REMOTE_CLI_OPTIONS,
        "no-cache": { type: "boolean" },
        "log-format": { type: "string" },
        "metrics-token-file": { type: "string" },
        auth: { type: "string" },
        "oidc-issuer": { type: "string" },
        "oidc-client-id": { type: "string" },
        "oidc-client-secret-file": { type: "string" },
        "oidc-allowed-domains": { type: "string" },
        "oidc-allowed-groups": { type: "string" },
        "session-secret-file": { type: "string" },
        "user-header": { type: "string" },
        "trusted-proxy": { type: "string" },
        "groups-header": { type: "string" },
        "proxy-allowed-groups": { type: "string" },
        "token-file": { type: "string" },
        "public-url": { type: "string" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return "version";
  if (positionals.length > 1) throw new UsageError(`expected one DIR, FILE or URL, got ${positionals.length}: ${positionals.map(shownTarget).join(" ")}`);
  const portText = values.port ?? "8000";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got ${portText}`);
  const memoryText = values.memory ?? String(DEFAULT_MEMORY_BYTES / MIB);
  if (!/^\d{1,7}$/.test(memoryText) || Number(memoryText) < MIN_MEMORY_MIB) throw new UsageError(`--memory must be a whole number of MiB, at least ${MIN_MEMORY_MIB}, got ${memoryText}`);
  const fileLimit = openFileLimit();
  const maxConnectionsText = values["max-connections"] ?? String(defaultMaxConnections(fileLimit));
  if (!/^\d{1,7}$/.test(maxConnectionsText) || Number(maxConnectionsText) < MIN_CONNECTIONS) throw new UsageError(`--max-connections must be a whole number, at least ${MIN_CONNECTIONS}, got ${maxConnectionsText}`);
  if (fileLimit !== null && Number(maxConnectionsText) >= fileLimit) {
    throw new UsageError(`--max-connections must be below the open-file limit (ulimit -n: ${fileLimit}), which files need too (default here: ${defaultMaxConnections(fileLimit)}), got ${maxConnectionsText}`);
  }
  const target = positionals[0] ?? path.join(packageRoot(), "examples", "snapshots");
  let publicAddress: PublicAddress | undefined;
  try {
    publicAddress = values["public-url"] === undefined ? undefined : parsePublicUrl(values["public-url"]);
  } catch (error) {
    if (error instanceof PublicUrlError) throw new UsageError(error.message);
    throw error;
  }
  const certFile = values["tls-cert"];
  const keyFile = values["tls-key"];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError(certFile === undefined ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key");
  if (certFile === "" || keyFile === "") throw new UsageError("--tls-cert and --tls-key must name files");
  const pollText = values.poll;
  if (pollText !== undefined && (!/^\d{1,6}$/.test(pollText) || Number(pollText) < 1 || Number(pollText) > MAX_POLL_SECONDS)) {
    throw new UsageError(`--poll must be a whole number of seconds from 1 to ${MAX_POLL_SECONDS}, got ${pollText}`);
  }
  const remote = remoteOptionsFromCli(values, target, (message) => new UsageError(message));
  const logFormat = values["log-format"] ?? "default";
  if (logFormat !== "default" && logFormat !== "json") throw new UsageError(`--log-format must be json or default, got ${logFormat}`);
  const tokenFile = values["metrics-token-file"];
  const metricsToken = tokenFile === undefined ? null : readMetricsToken(tokenFile);
  const list = (text: string | undefined): string[] => (text ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "");
  let oidc: OidcCliOptions | undefined;
  let proxy: ProxySignInOptions | undefined;
  for (const name of PROXY_CLI_OPTIONS) if (values[name] !== undefined && values.auth !== "proxy") throw new UsageError(`--${name} is for --auth proxy`);
  if (values.auth === "proxy") {
    try {
      proxy = proxyOptionsFromCli(values);
    } catch (error) {
      if (error instanceof ProxyOptionsError) throw new UsageError(error.message);
      throw error;
    }
  } else if (values.auth !== undefined && values.auth !== "oidc" && values.auth !== "token") {
    throw new UsageError(`--auth must be oidc, proxy or token, got ${values.auth}`);
  }
  if (values["trusted-proxy"] !== undefined && values.auth === undefined) throw new UsageError("--trusted-proxy is for --auth (oidc, proxy or token)");
  let trustedProxies = proxy?.trusted;
  if (trustedProxies === undefined && values["trusted-proxy"] !== undefined) {
    try {
      trustedProxies = TrustedProxies.parse(values["trusted-proxy"]);
    } catch (error) {
      if (error instanceof ProxyOptionsError) throw new UsageError(error.message);
      throw error;
    }
  }
  const host = values.host ?? "127.0.0.1";
  if (values.auth === undefined && !isLoopbackHost(host)) {
    throw new UsageError(`--host ${host} is not a loopback address: anyone who reaches it could read every run. Choose a sign-in with --auth oidc|proxy|token, or keep the default --host 127.0.0.1`);
  }
  if (values["token-file"] !== undefined && values.auth !== "token") throw new UsageError("--token-file is for --auth token");
  const token: TokenCliOptions | undefined = values.auth === "token" ? { tokenFile: values["token-file"], sessionSecretFile: values["session-secret-file"] } : undefined;
  if (values.auth === "oidc") {
    const issuer = values["oidc-issuer"];
    const clientId = values["oidc-client-id"];
    if (issuer === undefined || clientId === undefined) throw new UsageError("--auth oidc needs --oidc-issuer URL and --oidc-client-id ID");
    oidc = {
      issuer,
      clientId,
      clientSecretFile: values["oidc-client-secret-file"],
      allowedDomains: list(values["oidc-allowed-domains"]).map((domain) => domain.toLowerCase()),
      allowedGroups: list(values["oidc-allowed-groups"]),
      sessionSecretFile: values["session-secret-file"],
    };
  }
  return {
    target,
    host,
    port: Number(portText),
    portGiven: values.port !== undefined,
    open: values.open === true && values["no-open"] !== true,
    recursive: values.recursive === true,
    memoryBytes: Number(memoryText) * MIB,
    publicAddress,
    tlsFiles: certFile === undefined || keyFile === undefined ? undefined : { cert: path.resolve(certFile), key: path.resolve(keyFile) },
    maxConnections: Number(maxConnectionsText),
    pollSeconds: pollText === undefined ? undefined : Number(pollText),
    remote,
    cache: values["no-cache"] !== true,
    logFormat,
    metricsToken,
    oidc,
    proxy,
    trustedProxies,
    token,
  };
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: addresses only this machine reaches. */
function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (name === "localhost") return true;
  const v4 = name.replace(/^::ffff:/, "");
  if (net.isIPv4(v4)) return v4.startsWith("127.");
  return net.isIPv6(name) && /^(0{0,4}:){1,7}0{0,3}1$/.test(name);
}

/** True when `port` can be bound on `host` right now. */
function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function urlOf(host: string, port: number, scheme: "http" | "https", basePath: string): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `${scheme}://${shown.includes(":") ? `[${shown}]` : shown}:${port}${basePath}`;
}

/** Opens `url` with the platform's opener when there is one; never fails the server. */
function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open";
  const args = process.platform === "win32" ? ["/c", "start", "", url] : [url];
  const onPath = (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!onPath || (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)) {
    process.stdout.write("  (no browser available here: open the URL yourself)\n");
    return;
  }
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => process.stdout.write("  (could not open a browser: open the URL yourself)\n"));
  child.unref();
}

/** A subcommand: its main (returning the exit code) and the error it refuses bad input with (exit 2). */
interface Subcommand {
  readonly run: (argv: readonly string[]) => Promise<number>;
  readonly Refusal: new (message: string) => Error;
  /** It reads every run of its target once (COMMAND_HEAP_GROWING_PERCENT says why its heap is bounded). */
  readonly readsRuns?: boolean;
}

/** `wink-debug bundle …` (server/bundle.ts), `wink-debug failures …` (server/failures.ts) and `wink-debug index …` (server/index-command.ts), each loaded only when asked for. */
const SUBCOMMANDS = new Map<string, () => Promise<Subcommand>>([
  ["bundle", async () => import("./bundle.js").then(({ BundleError, bundleMain }) => ({ run: bundleMain, Refusal: BundleError }))],
  ["failures", async () => import("./failures.js").then(({ FailuresError, failuresMain }) => ({ run: failuresMain, Refusal: FailuresError, readsRuns: true }))],
  ["index", async () => import("./index-command.js").then(({ IndexError, indexMain }) => ({ run: indexMain, Refusal: IndexError, readsRuns: true }))],
]);

function fail(code: number, message: string): never {
  process.stderr.write(`wink-debug: error: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const subcommand = SUBCOMMANDS.get(process.argv[2] ?? "");
  if (subcommand !== undefined) {
    const { run, Refusal, readsRuns } = await subcommand();
    if (readsRuns === true) boundCommandHeapGrowth();
    try {
      process.exitCode = await run(process.argv.slice(3));
    } catch (error) {
      if (error instanceof Refusal) fail(2, error.message);
      // A remote target's store failing (listing it, or reading the index) is told as the viewer tells it.
      if (error instanceof SourceError) {
        const { code, message } = openFailure(error);
        fail(code, message);
      }
      throw error;
    }
    return;
  }
  let options: CliOptions | "help" | "version";
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail(2, `${error.message}\n${USAGE}`);
    throw error;
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (options === "version") {
    process.stdout.write(`wink-debug ${packageVersion()}\n`);
    return;
  }

  // Before anything is opened: a wrong file is exit 2 naming it, not a failed handshake later.
  let tls: TlsFiles | undefined;
  try {
    tls = options.tlsFiles === undefined ? undefined : readTlsFiles(options.tlsFiles.cert, options.tlsFiles.key);
  } catch (error) {
    if (error instanceof TlsFilesError) fail(2, error.message);
    throw error;
  }
  const { publicAddress } = options;
  // Made before listening, so that the one URL printed holds it; a bad file is exit 2 here.
  let token: ReturnType<typeof tokenSignIn> | undefined;
  try {
    token = options.token === undefined ? undefined : tokenSignIn(options.token, process.env, publicAddress?.basePath ?? "/", publicAddress?.secure ?? tls !== undefined);
  } catch (error) {
    fail(2, error instanceof Error ? error.message : String(error));
  }

  // A server from here on: its heap follows what it keeps, not the garbage of its busiest minute.
  boundHeapGrowth();
  const interactive = process.stderr.isTTY === true;
  const started = Date.now();
  const remote = isRemoteTarget(options.target);
  // The AWS SDK warns that its 2027 releases will need Node 22: nothing a viewer's user can act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  if (remote) process.stderr.write(`Listing ${shownTarget(options.target)}…\n`);
  let served;
  try {
    served = await openServedState({
      path: options.target,
      recursive: options.recursive,
      memoryBytes: options.memoryBytes,
      remote: options.remote,
      onListing: (progress) => {
        if (remote && interactive && (progress.pages > 1 || progress.done)) process.stderr.write(`\rListing: ${progress.objects} objects in ${progress.pages} page${progress.pages === 1 ? "" : "s"}${progress.done ? "\n" : ""}`);
      },
    });
  } catch (error) {
    const { code, message } = openFailure(error);
    fail(code, message);
  }
  const { state } = served;
  // Left out, not fatal: the rest of the store is served (issue 33, item 2).
  for (const skipped of state.directory.listing.skippedFolders) process.stderr.write(`Skipped ${skipped.prefix}: ${skipped.reason}\n`);

  let port = options.port;
  if (port !== 0 && !(await portIsFree(options.host, port))) {
    if (options.portGiven) {
      await closeServedState(served);
      fail(3, `port ${port} on ${options.host} is already in use (choose another with --port, or --port 0 for any free port)`);
    }
    const original = port;
    for (port = original + 1; port < original + 50 && !(await portIsFree(options.host, port)); port++);
    if (port >= original + 50) {
      await closeServedState(served);
      fail(3, `ports ${original}–${original + 49} on ${options.host} are all in use (choose one with --port)`);
    }
    process.stdout.write(`Port ${original} is in use; using ${port} instead.\n`);
  }
  // The first stage listens and answers the first /api/meta while Fastify and the routes load (server/first-stage.ts).
  const stage = createFirstStage(state, {
    bindHost: options.host,
    maxConnections: options.maxConnections,
    ...(publicAddress === undefined ? {} : { publicAddress }),
    ...(tls === undefined ? {} : { tls }),
    // Signed in or not is the full app's to tell: the first stage answers nothing itself.
    holdEverything: options.oidc !== undefined || options.proxy !== undefined || options.token !== undefined,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      stage.server.once("error", reject);
      stage.server.listen({ host: options.host, port }, () => {
        stage.server.removeListener("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await closeServedState(served).catch(() => undefined);
    fail(3, `cannot listen on ${options.host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const address = stage.server.address();
  const actualPort = typeof address === "object" && address !== null ? address.port : port;
  const url = urlOf(options.host, actualPort, tls === undefined ? "http" : "https", publicAddress?.basePath ?? "/");
  const files = state.directory.files();
  const bundles = files.filter((record) => record.kind === "bundle").length;
  const sessions = files.length - bundles;
  const counted = [
    ...(sessions > 0 || bundles === 0 ? [`${sessions} session file${sessions === 1 ? "" : "s"}`] : []),
    ...(bundles > 0 ? [`${bundles} debug bundle${bundles === 1 ? "" : "s"}`] : []),
  ].join(", ");
  const polling = remote && options.pollSeconds !== undefined ? `, polled every ${options.pollSeconds} s` : "";
  process.stdout.write(`wink-debug ${packageVersion()} serving ${state.displayRoot} (${counted}${options.recursive ? ", recursive" : ""}${polling})\n`);
  // The token once, in the address to open (the public one when there is one); an operator's own token is not printed.
  const signedUrl = (shown: string): string => (token === undefined ? shown : token.generated ? tokenUrl(shown, token.token) : `${shown}   (sign in with ?token= and the token of ${options.token?.tokenFile ?? "WINK_DEBUG_TOKEN"})`);
  process.stdout.write(`  ${publicAddress === undefined ? signedUrl(url) : url}   (ready in ${Date.now() - started} ms; Ctrl-C to stop)\n`);
  if (publicAddress !== undefined) process.stdout.write(`  public URL: ${signedUrl(publicAddress.href)}\n`);
  if (!["127.0.0.1", "localhost", "::1"].includes(options.host)) {
    process.stdout.write(`  note: listening on ${options.host}; requests are still answered only for loopback names, ${options.host}${publicAddress === undefined ? "" : ` and ${publicAddress.origin}`}\n`);
  }
  if (options.open) openBrowser(publicAddress?.href ?? url);

  // Before the hand-over a signal closes the first stage and what it opened; after it, the app (which owns both then).
  let close = async (): Promise<void> => {
    await stage.close();
    await closeServedState(served);
  };
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write("wink-debug: forced exit\n");
      process.exit(130);
    }
    stopping = true;
    process.stdout.write(`\nwink-debug: ${signal} received, shutting down\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => fail(1, `shutdown failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  // The full app: Fastify and every route, built on what the first stage opened and served.
  // Loading it keeps the event loop busy for a while (~0.2 s of CPU): not before the first
  // request has its answer or waits for the app, or a moment without any.
  await Promise.race([stage.wanted, new Promise((resolve) => setTimeout(resolve, FULL_APP_DELAY_MS))]);
  if (stopping) return;
  let auth: ServedAuth | undefined = token === undefined ? undefined : { method: token.method, context: token.context };
  if (options.oidc !== undefined) {
    try {
      auth = oidcSignIn(options.oidc, process.env, new URL(publicAddress?.href ?? url));
    } catch (error) {
      await close();
      fail(2, error instanceof Error ? error.message : String(error));
    }
  }
  if (options.proxy !== undefined) auth = proxySignIn(options.proxy, publicAddress?.basePath ?? "/");
  if (auth !== undefined) auth = { ...auth, trustedProxies: options.trustedProxies };
  const { buildApp } = await import("./app.js");
  const { ReadingProgress, processIo } = await import("./target-digests.js");
  // The run index is kept in the user's cache (a local folder) or in --cache-dir (a remote store): never beside the runs.
  const indexDir = runIndexDir({ remote, cacheDir: options.remote.cacheDir, cache: options.cache });
  const indexing = new ReadingProgress(processIo, { doing: "Indexing", done: "Indexed" });
  let toIndex: { cached: number; total: number } | null = null;
  // A signal while the app is built closes what it is built on: what fails then is the stop's
  // to report (exit 0 once closed), not a failure of the server (exit 1).
  const built = await buildApp({
    path: options.target,
    served,
    server: stage.server,
    bindHost: options.host,
    ...(publicAddress === undefined ? {} : { publicAddress }),
    secure: tls !== undefined,
    prerenderLanding: true,
    logFormat: options.logFormat,
    metricsToken: options.metricsToken,
    ...(auth === undefined ? {} : { auth }),
    ...(options.pollSeconds === undefined ? {} : { pollSeconds: options.pollSeconds }),
    onIndexProgress: (done, total) => {
      if (interactive && total > 1) process.stderr.write(`\rIndexing session files: ${done}/${total}${done === total ? "\n" : ""}`);
    },
    onNote: (line) => process.stderr.write(`${line}\n`),
    runIndexCacheDir: indexDir,
    onRunIndexUnusable: (message) => process.stderr.write(`${message}\n`),
    onRunIndexProgress: ({ indexed, total }) => {
      if (toIndex === null) return;
      indexing.step(indexed - toIndex.cached, toIndex.total);
      if (indexed === total) {
        indexing.end(indexed - toIndex.cached, runIndex.digests().filter((digest) => digest.outcome === "not_loaded").length);
        toIndex = null;
      }
    },
  }).catch((error: unknown) => {
    if (stopping) return null;
    throw error;
  });
  if (stopping || built === null) return;
  const { app, handler, runIndex } = built;
  try {
    await app.ready();
  } catch (error) {
    if (stopping) return;
    throw error;
  }
  if (stopping || handler === null) return;
  // The eval's index, on stderr when it has many runs to read (docs/eval.md "The run index"),
  // once it starts: with the server for a local folder, with the eval for a remote store.
  void runIndex.whenStarted().then(() => {
    const { indexed, total } = runIndex.progress();
    if (total - indexed < INDEX_PROGRESS_RUNS) return;
    toIndex = { cached: indexed, total: total - indexed };
    indexing.begin(total - indexed, indexed, state.displayRoot);
  });
  stage.handOver(handler);
  close = () => app.close();
}

main().catch((error: unknown) => fail(1, `unexpected failure: ${error instanceof Error ? error.message : String(error)}`));
