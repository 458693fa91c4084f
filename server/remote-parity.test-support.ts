/**
 * Helpers of the remote-target tests. One fixture set served three ways (a local folder,
 * nginx, radosgw) and the same tour of route answers asked of each, so a test can require
 * that a remote target answers exactly as the local folder does. The tour is derived from
 * the local answers: every file, its run and entries, then per line its meta, timeline, raw
 * line, slices, workspace, search, and diffs between lines and across files.
 */
import { cp, mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { packageRoot } from "./package-root.js";
import type { WinkApp } from "./app.js";
import { get, tempDir } from "./server.test-support.js";

/**
 * The fixture set, in a fresh folder: two real WINK session files at the root, two broken
 * ones a level down, a run with its archive beside it, the bundled example run with three
 * archives (without its undo store: remote stores have none yet), and two real WINK debug
 * bundles (a success and a failure of one request). Without `archives`, the `.fs.zip` files
 * and the bundles are left out.
 */
export async function parityFolder(options: { archives: boolean }): Promise<string> {
  const dir = await tempDir("wink-parity-");
  for (const name of ["acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"]) {
    await cp(path.join(WINK_FIXTURES, name), path.join(dir, name));
  }
  await cp(path.join(WINK_FIXTURES, "invalid-for-wink-debug"), path.join(dir, "invalid"), { recursive: true });
  const wanted = (name: string) => options.archives || !name.endsWith(".fs.zip");
  await mkdir(path.join(dir, "fszip-pr633"));
  for (const name of (await readdir(path.join(WINK_FIXTURES, "fszip-pr633"))).filter(wanted)) await cp(path.join(WINK_FIXTURES, "fszip-pr633", name), path.join(dir, "fszip-pr633", name));
  await mkdir(path.join(dir, "example"));
  const example = path.join(packageRoot(), "examples", "snapshots");
  for (const name of (await readdir(example)).filter(wanted)) if (name !== "undo") await cp(path.join(example, name), path.join(dir, "example", name));
  if (options.archives) {
    await mkdir(path.join(dir, "bundles"));
    for (const bundle of ["01-small-success", "02-failed-run"]) {
      for (const name of await readdir(path.join(WINK_BUNDLE_FIXTURES, bundle))) await cp(path.join(WINK_BUNDLE_FIXTURES, bundle, name), path.join(dir, "bundles", name));
    }
  }
  return dir;
}

/** Every file under `dir` as [key, bytes] (keys with "/"), for uploading to a bucket. */
export async function folderObjects(dir: string): Promise<[string, Uint8Array][]> {
  const out: [string, Uint8Array][] = [];
  for (const name of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile())) {
    const absolute = path.join(name.parentPath, name.name);
    out.push([path.relative(dir, absolute).split(path.sep).join("/"), await readFile(absolute)]);
  }
  return out;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return search.toString();
}

async function json(app: WinkApp, url: string): Promise<Json> {
  const response = await get(app, url);
  return response.statusCode === 200 ? (JSON.parse(response.body) as Json) : null;
}

/** At most the first two and the last of `items` (a tour, not an exhaustive walk). */
function sample<T>(items: readonly T[]): T[] {
  return items.length <= 3 ? [...items] : [items[0] as T, items[1] as T, items[items.length - 1] as T];
}

/** The URLs of the tour, derived from `app`'s answers (the local folder's). */
export async function routeTour(app: WinkApp): Promise<string[]> {
  // Every file indexed first (a remote store indexes only what is shown): the run list then has every outcome.
  const urls = ["/api/files?wait=1", "/api/runs", "/api/runs?limit=2", "/api/runs?offset=1&limit=2", "/api/runs?q=DB5C", "/api/runs?since=2000-01-01&until=2999-12-31", "/api/snapshots"];
  const files = ((await json(app, "/api/files?wait=1")) as { files: { path: string }[] }).files.map((file) => file.path);
  const firstLines: { file: string; line: number }[] = [];
  for (const file of files) {
    urls.push(`/api/files?${query({ file })}`, `/api/run?${query({ file })}`, `/api/entries?${query({ file })}`, `/api/run/search?${query({ file, q: "file" })}`);
    const entries = ((await json(app, `/api/entries?${query({ file })}`)) ?? []) as { line_number: number }[];
    const lines = sample(entries.map((entry) => entry.line_number));
    if (lines[0] !== undefined) firstLines.push({ file, line: lines[0] });
    for (const line of lines) {
      const at = { file, line };
      urls.push(
        `/api/meta?${query(at)}`,
        `/api/timeline?${query(at)}`,
        `/api/raw?${query(at)}`,
        `/api/filesystem/meta?${query(at)}`,
        `/api/filesystem/browse?${query({ ...at, compare: "none" })}`,
        `/api/filesystem/browse?${query(at)}`,
        `/api/filesystem/tree?${query(at)}`,
        `/api/search?${query({ ...at, q: "the", limit: 20 })}`,
      );
      const meta = (await json(app, `/api/meta?${query(at)}`)) as { slices?: { slice_type: string }[] } | null;
      for (const slice of sample(meta?.slices ?? [])) urls.push(`/api/slices/${encodeURIComponent(slice.slice_type)}?${query({ ...at, limit: 5 })}`);
      const tree = (await json(app, `/api/filesystem/tree?${query(at)}`)) as { path: string }[] | null;
      for (const entry of sample(tree ?? [])) {
        urls.push(`/api/filesystem/file?${query({ ...at, path: entry.path })}`, `/api/filesystem/download?${query({ ...at, path: entry.path })}`);
      }
    }
    if (lines.length >= 2) {
      const sides = { base_file: file, base_line: lines[0], target_file: file, target_line: lines[lines.length - 1] };
      urls.push(`/api/diff?${query(sides)}`, `/api/diff/stat?${query(sides)}`);
      const diff = (await json(app, `/api/diff?${query(sides)}`)) as { files?: { changes?: { path: string }[] }; slices?: { slice_type: string }[] } | null;
      for (const change of sample(diff?.files?.changes ?? [])) urls.push(`/api/diff/file?${query({ ...sides, path: change.path })}`);
      for (const slice of sample(diff?.slices ?? [])) urls.push(`/api/diff/slice?${query({ ...sides, slice_type: slice.slice_type })}`);
    }
  }
  // Debug bundles: WINK's routes and ours, each bundle, then across bundles.
  const bundles = files.filter((file) => file.endsWith(".zip"));
  for (const file of bundles) {
    for (const route of ["bundle", "manifest", "config", "metrics", "error", "logs/facets", "transcript/facets", "environment", "bundle/files", "bundle/integrity", "bundle/request", "bundle/run-context"]) urls.push(`/api/${route}?${query({ file })}`);
    urls.push(`/api/logs?${query({ file, limit: 20 })}`, `/api/transcript?${query({ file, limit: 20 })}`, `/api/bundles/search?${query({ file, q: "tool", limit: 20 })}`);
    const members = ((await json(app, `/api/bundle/files?${query({ file })}`)) ?? []) as string[];
    for (const member of sample(members)) urls.push(`/api/files/${member.split("/").map(encodeURIComponent).join("/")}?${query({ file })}`);
  }
  if (bundles.length > 0) urls.push("/api/bundles", "/api/bundles/groups");
  if (bundles.length >= 2) urls.push(`/api/bundles/compare?${query({ base_file: bundles[0], target_file: bundles[1] })}`);
  // Across files: each file's first line against the next file's.
  for (let i = 0; i + 1 < firstLines.length; i++) {
    const [base, target] = [firstLines[i], firstLines[i + 1]] as [{ file: string; line: number }, { file: string; line: number }];
    urls.push(`/api/diff?${query({ base_file: base.file, base_line: base.line, target_file: target.file, target_line: target.line })}`);
  }
  return urls;
}

/**
 * What may differ between a folder and a store serving the same bytes: where it is served
 * from (`root`, `store`), file times (a copy's mtime, an upload's time) and so the order of
 * runs by time and which file is current (the newest). Runs are compared by path; a page of
 * runs by its counts.
 */
function normalize(url: string, body: Json): Json {
  const strip = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !["modified_at", "store", "root", "indexing"].includes(key)).map(([key, inner]) => [key, strip(inner)]));
  };
  const byPath = (items: Json[], pathOf: (item: Json) => string) => [...items].sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : 1));
  if (url.startsWith("/api/runs?") && url.includes("limit=")) {
    const page = body as { runs: Json[]; total: number; matched: number; offset: number };
    return { runs: page.runs.length, total: page.total, matched: page.matched, offset: page.offset };
  }
  if (url.startsWith("/api/runs")) {
    const list = strip(body) as { runs: Json[] };
    return { ...list, runs: byPath(list.runs, (run) => (run as { source: { path: string } }).source.path) };
  }
  // Bundles listed with their file's time, and which one is the server's current file (the newest).
  if (url === "/api/bundles") return byPath((body as Json[]).map((bundle) => Object.fromEntries(Object.entries(bundle as Record<string, Json>).filter(([key]) => key !== "created_at" && key !== "selected"))), (bundle) => (bundle as { path: string }).path);
  if (url.startsWith("/api/snapshots")) return byPath((body as { path: string; name: string }[]).map((file) => ({ path: file.path, name: file.name })), (file) => (file as { path: string }).path);
  return strip(body);
}

export interface TourAnswer {
  readonly status: number;
  readonly body: Json;
}

/** The app's answers to `urls`, normalized (see `normalize`). */
export async function tourAnswers(app: WinkApp, urls: readonly string[]): Promise<Record<string, TourAnswer>> {
  const answers: Record<string, TourAnswer> = {};
  for (const url of urls) {
    const response = await get(app, url);
    const type = String(response.headers["content-type"] ?? "");
    const body = type.startsWith("application/json") ? (JSON.parse(response.body) as Json) : `${type} ${response.rawPayload.length} bytes ${Buffer.from(response.rawPayload).toString("base64").slice(0, 64)}`;
    answers[url] = { status: response.statusCode, body: response.statusCode === 200 ? normalize(url, body) : body };
  }
  return answers;
}

/** The code and message `promise` is rejected with (a test fails when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error("expected a failure");
}
