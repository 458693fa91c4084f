/**
 * `wink-debug bundle DIR|FILE -o run.html`: one self-contained HTML file holding the web
 * app (the single-chunk build in `dist/web-standalone`, inlined) and the run's session
 * files, archives and WINK debug bundles (base64 in a JSON block that is never executed). It opens offline
 * from `file://` in any browser and reads the data with the in-browser `LocalApi`.
 *
 * The page carries its own CSP: the one inline script is allowed by its SHA-256 hash, no
 * other script can run, nothing can be fetched (`connect-src 'none'`), images only from
 * `data:`/`blob:` URLs.
 */
import { createHash } from "node:crypto";
import { readFile, readdir, realpath, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { hasErrorCode } from "../shared/errors.js";
import type { OpenRegularOptions } from "../shared/filesystem/index.js";
import { openRegularFile, readRegularFile } from "../shared/filesystem/index.js";
import { scanSessionFile } from "../shared/session/index.js";
import { sniffDebugBundle } from "./library/debug-bundles.js";
import { packageRoot } from "./package-root.js";
import { parseSubcommandArgs } from "./subcommand-args.js";

/** Largest run bundled by default (the HTML holds it base64-encoded, in memory, in the browser). */
export const DEFAULT_MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

export interface BundleOptions {
  /** A directory of session files and/or debug bundles, or one session file or bundle. */
  readonly source: string;
  /** The HTML file to write. */
  readonly output: string;
  /** Include session files in subdirectories. */
  readonly recursive?: boolean;
  /** Refuse runs larger than this many bytes (default 64 MiB). */
  readonly maxBytes?: number;
  /** The standalone web build (default `<package>/dist/web-standalone`). */
  readonly webDir?: string;
}

export interface BundleResult {
  readonly output: string;
  readonly files: readonly string[];
  readonly dataBytes: number;
  readonly htmlBytes: number;
}

/** A problem with the bundle's input or output, reported as one line with exit code 2. */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BundleError";
  }
}

const SESSION_FILE = /\.jsonl?$/i;
const ARCHIVE_FILE = /\.zip$/i;

interface RunFile {
  /** Path relative to the bundled directory, `/`-separated. */
  readonly path: string;
  readonly absolute: string;
}

async function listRun(root: string, recursive: boolean, depth = 0, prefix = ""): Promise<RunFile[]> {
  const entries = await readdir(path.join(root, prefix), { withFileTypes: true });
  const files: RunFile[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (recursive && depth < 16 && !entry.name.startsWith(".") && entry.name !== "node_modules") files.push(...(await listRun(root, recursive, depth + 1, relative)));
    } else if (entry.isFile() && (SESSION_FILE.test(entry.name) || ARCHIVE_FILE.test(entry.name))) {
      files.push({ path: relative, absolute: path.join(root, relative) });
    }
  }
  return files;
}

/** The files of a single session file's run: it, plus the archives beside it that it names or that share its stem. */
async function singleFileRun(file: string): Promise<RunFile[]> {
  const directory = path.dirname(file);
  const name = path.basename(file);
  const text = await readFile(file, "utf8");
  const stem = name.replace(/\.jsonl?$/i, "");
  const archives = (await readdir(directory, { withFileTypes: true })).filter(
    (entry) => entry.isFile() && ARCHIVE_FILE.test(entry.name) && (entry.name === `${stem}.fs.zip` || text.includes(JSON.stringify(entry.name).slice(1, -1))),
  );
  return [{ path: name, absolute: file }, ...archives.map((entry) => ({ path: entry.name, absolute: path.join(directory, entry.name) }))];
}

/** "; its subfolders hold 5 runs: add -r …" when `root`'s subfolders hold session files or archives and the listing was flat; else "". */
async function subfolderHint(root: string, recursive: boolean): Promise<string> {
  if (recursive) return "";
  const nested = (await listRun(root, true)).filter((file) => file.path.includes("/") && !file.path.endsWith(".fs.zip"));
  if (nested.length === 0) return "";
  const folders = [...new Set(nested.map((file) => file.path.split("/")[0] ?? ""))];
  return `; its subfolders (${folders.slice(0, 3).join(", ")}${folders.length > 3 ? ", …" : ""}) hold ${nested.length} session file${nested.length === 1 ? "" : "s"} or debug bundle${nested.length === 1 ? "" : "s"}: run it again with -r (--recursive) to bundle them`;
}

/** Script text safe inside `<script>…</script>` (no early end tag, no comment opener). */
function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

/** JSON safe inside a `<script type="application/json">` block. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Reads the standalone build: its HTML, its one script and its stylesheets. */
async function readStandaloneBuild(webDir: string): Promise<{ script: string; styles: string[] }> {
  let html: string;
  try {
    html = await readFile(path.join(webDir, "index.html"), "utf8");
  } catch {
    throw new BundleError(`The standalone web build is missing (${webDir}); run \`npm run build\` first`);
  }
  const scripts = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"[^>]*><\/script>/g)].map((match) => match[1] ?? "");
  const styles = [...html.matchAll(/<link[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"[^>]*>/g)].map((match) => match[1] ?? "");
  if (scripts.length !== 1) throw new BundleError(`Expected one script in the standalone build, found ${scripts.length}`);
  const read = (reference: string) => readFile(path.join(webDir, reference.replace(/^\.?\//, "")), "utf8");
  return { script: await read(scripts[0] ?? ""), styles: await Promise.all(styles.map(read)) };
}

/** Writes the bundle. Throws `BundleError` for a missing input, an empty or too large run, or a missing build. */
export async function buildBundle(options: BundleOptions): Promise<BundleResult> {
  const source = path.resolve(options.source);
  const stats = await stat(source).catch(() => null);
  if (stats === null) throw new BundleError(`No such file or directory: ${source}`);
  const single = !stats.isDirectory();
  const files = !single ? await listRun(source, options.recursive ?? false) : ARCHIVE_FILE.test(source) ? [{ path: path.basename(source), absolute: source }] : await singleFileRun(source);
  const root = await realpath(single ? path.dirname(source) : source);
  // Files of the run are read as the server reads them: never through a symlink swapped in,
  // never waiting on a FIFO, only inside the run's directory.
  // (The file named on the command line is the user's choice: a symlink there is followed.)
  const openOptions = (file: RunFile): OpenRegularOptions => (file.absolute === source ? { follow: true } : { root });
  const isDebugBundle = (file: RunFile) => sniffDebugBundle(file.absolute, (absolute) => openRegularFile(absolute, openOptions(file)));
  const debugBundles = (await Promise.all(files.filter((file) => ARCHIVE_FILE.test(file.path)).map(isDebugBundle))).filter(Boolean).length;
  if (!files.some((file) => SESSION_FILE.test(file.path)) && debugBundles === 0) {
    throw new BundleError(single ? `Not a session file (.jsonl or .json) or a WINK debug bundle: ${source}` : `No session file (.jsonl or .json) or WINK debug bundle in ${source}${await subfolderHint(source, options.recursive ?? false)}`);
  }
  if (!single && debugBundles === 0 && !(options.recursive ?? false)) {
    // A folder whose runs are all in subfolders (a tree of bundles with an index.json on top)
    // made a page of that one .json file that opened on "No loadable snapshot".
    const loadable = await Promise.all(files.filter((file) => SESSION_FILE.test(file.path)).map(async (file) => (await scanSessionFile(file.absolute, { openFile: (absolute) => openRegularFile(absolute, openOptions(file)) }).catch(() => null))?.entries.length ?? 0));
    const hint = loadable.every((count) => count === 0) ? await subfolderHint(source, false) : "";
    if (hint !== "") throw new BundleError(`No loadable session file or WINK debug bundle at the top of ${source} (${files.filter((file) => SESSION_FILE.test(file.path)).map((file) => file.path).join(", ")}: no snapshot line)${hint}`);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BUNDLE_BYTES;
  let total = 0;
  const encoded: { path: string; base64: string; modified_at: string }[] = [];
  for (const file of files) {
    const { bytes, stats: fileStats } = await readRegularFile(file.absolute, { maxBytes: maxBytes - total, ...openOptions(file) }).catch((error: unknown) => {
      if (hasErrorCode(error, "EINVAL")) throw new BundleError(`The run is larger than ${maxBytes} bytes; bundle fewer files or raise --max-size`);
      throw new BundleError(`Cannot read ${file.path}: ${error instanceof Error ? error.message : String(error)}`);
    });
    total += bytes.length;
    encoded.push({ path: file.path, base64: bytes.toString("base64"), modified_at: new Date(fileStats.mtimeMs).toISOString() });
  }

  const label = path.basename(source);
  const { script, styles } = await readStandaloneBuild(options.webDir ?? path.join(packageRoot(), "dist", "web-standalone"));
  const code = inlineScript(script);
  const hash = createHash("sha256").update(code, "utf8").digest("base64");
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    // CodeMirror and React set styles at run time; style injection cannot run code.
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "font-src data:",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join("; ");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="wink-debug bundle">
<title>wink debug — ${escapeHtml(label)}</title>
<link rel="icon" href="data:,">
${styles.map((css) => `<style>${css.replace(/<\/(style)/gi, "<\\/$1")}</style>`).join("\n")}
<script type="application/json" id="wink-bundle">${inlineJson({ format: "wink-debug-bundle", version: 1, label, files: encoded })}</script>
</head>
<body>
<div id="root"></div>
<script type="module">${code}</script>
</body>
</html>
`;
  const output = path.resolve(options.output);
  await writeFile(output, html);
  return { output, files: encoded.map((file) => file.path), dataBytes: total, htmlBytes: Buffer.byteLength(html) };
}

const USAGE = `Usage: wink-debug bundle DIR|FILE -o run.html [--recursive] [--max-size MB]

Write one self-contained HTML file (viewer + data) that opens offline in any browser.
DIR holds session files (with their .fs.zip archives) and/or WINK debug bundles (.zip);
FILE is one session file or one debug bundle.
`;

/** The `bundle` subcommand; returns the process exit code (0 done, 2 bad input). */
export async function bundleMain(argv: readonly string[], out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const { values, positionals } = parseSubcommandArgs(
    argv,
    { output: { type: "string", short: "o" }, recursive: { type: "boolean", short: "r" }, "max-size": { type: "string" }, help: { type: "boolean", short: "h" } },
    USAGE,
    (message) => new BundleError(message),
  );
  if (values.help) {
    out(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new BundleError(`expected one DIR or FILE\n${USAGE}`);
  if (values.output === undefined) throw new BundleError(`-o run.html is required\n${USAGE}`);
  const maxMb = values["max-size"] === undefined ? undefined : Number(values["max-size"]);
  if (maxMb !== undefined && !(Number.isFinite(maxMb) && maxMb > 0)) throw new BundleError(`--max-size must be a positive number of megabytes`);
  const result = await buildBundle({
    source: positionals[0] ?? ".",
    output: values.output,
    recursive: values.recursive === true,
    ...(maxMb === undefined ? {} : { maxBytes: Math.round(maxMb * 1024 * 1024) }),
  });
  out(`wrote ${result.output} (${result.files.length} files, ${(result.htmlBytes / 1024 / 1024).toFixed(1)} MB): open it in a browser, no server needed\n`);
  return 0;
}
