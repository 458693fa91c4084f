/**
 * LocalApi gives the same answers as the server for the same files: every route the web
 * app uses, asked of a real `buildApp` (through `inject`) and of LocalApi over the same
 * bytes, on the WINK fixtures and on a multi-turn run written by our writer.
 */
import { copyFile, mkdtemp, readFile, readdir, rm, stat, utimes } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIG_FILE, FAILED_RUN_RENAME, writeFailedRun, writeMultiTurnRun } from "../../e2e/fixtures/runs.js";
import { ROOT_SESSION_ID } from "../../examples/agent-run.js";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../../fixtures/paths.js";
import { buildApp } from "../../server/app.js";
import type { WinkApp } from "../../server/app.js";
import { parsePythonJson } from "../../shared/session/python-json-parse.js";
import type { Api, SnapshotRef } from "./api.js";
import { ApiError, at, between } from "./api.js";
import { LocalApi } from "./local-api.js";
import type { LocalInput } from "./local-api.js";

async function inputsOf(dir: string): Promise<LocalInput[]> {
  const names = (await readdir(dir)).filter((name) => /\.(jsonl?|zip)$/i.test(name));
  return Promise.all(names.map(async (name) => ({ path: name, bytes: new Uint8Array(await readFile(path.join(dir, name))), lastModified: (await stat(path.join(dir, name))).mtimeMs })));
}

interface Pair {
  server: WinkApp;
  local: LocalApi;
}

async function pairFor(dir: string): Promise<Pair> {
  const server = await buildApp({ path: dir, watch: false, indexInBackground: false });
  return { server, local: LocalApi.open(await inputsOf(dir), path.basename(dir)) };
}

async function served(pair: Pair, url: string): Promise<unknown> {
  const response = await pair.server.app.inject({ method: "GET", url, headers: { host: "127.0.0.1" } });
  const body = parsePythonJson(response.body);
  if (response.statusCode !== 200) throw new ApiError(response.statusCode, (body as { detail: string }).detail);
  return body;
}

const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)])).toString()}`;
const sel = (ref: SnapshotRef) => ({ file: ref.file, line: ref.line });
const side = (prefix: string, ref: SnapshotRef) => ({ [`${prefix}_file`]: ref.file, [`${prefix}_line`]: ref.line });

/**
 * Route by route, LocalApi against the server. `undoStore`: the server has the per-tool-call
 * undo store next to the session file, which dropped files never carry: its timeline has
 * `changes`, LocalApi's is otherwise the same and has none.
 */
async function compareSnapshot(pair: Pair, ref: SnapshotRef, base: SnapshotRef | null, { undoStore = false } = {}): Promise<void> {
  expect(await pair.local.ask.meta(at(ref))).toEqual(await served(pair, `/api/meta${q(sel(ref))}`));
  const { changes, ...servedTimeline } = (await served(pair, `/api/timeline${q(sel(ref))}`)) as Record<string, unknown>;
  const localTimeline = await pair.local.ask.timeline(at(ref));
  expect(localTimeline).toEqual(undoStore ? servedTimeline : { ...servedTimeline, ...(changes === undefined ? {} : { changes }) });
  expect("changes" in localTimeline).toBe(false);
  if (undoStore) expect(changes).toMatchObject({ tool_calls: expect.any(Array) });
  const meta = await pair.local.ask.meta(at(ref));
  for (const slice of meta.slices) {
    expect(await pair.local.ask.slicePage({ slice_type: slice.slice_type, ...at(ref), offset: 1, limit: 3 }), slice.slice_type).toEqual(await served(pair, `/api/slices/${encodeURIComponent(slice.slice_type)}${q({ ...sel(ref), offset: 1, limit: 3 })}`));
  }
  expect(await pair.local.ask.filesystemMeta(at(ref))).toEqual(await served(pair, `/api/filesystem/meta${q(sel(ref))}`));
  const browse = await pair.local.ask.browse({ ...at(ref), compare: "previous" });
  expect(browse).toEqual(await served(pair, `/api/filesystem/browse${q(sel(ref))}`));
  const firstFile = browse.root.children?.find((child) => child.type === "file");
  if (firstFile !== undefined) {
    expect(await pair.local.ask.fileContent({ ...at(ref), path: firstFile.path, offset: 1, limit: 2 })).toEqual(await served(pair, `/api/filesystem/file${q({ ...sel(ref), path: firstFile.path, offset: 1, limit: 2 })}`));
  }
  expect(await pair.local.ask.search({ ...at(ref), q: "def ", scope: "all", limit: 50 })).toEqual(await served(pair, `/api/search${q({ ...sel(ref), q: "def ", scope: "all", limit: 50 })}`));
  if (base === null) return;
  const diff = await pair.local.ask.diff(between(base, ref));
  expect(diff).toEqual(await served(pair, `/api/diff${q({ ...side("base", base), ...side("target", ref) })}`));
  for (const change of diff.files.changes) {
    expect(await pair.local.ask.fileDiff({ ...between(base, ref), path: change.path }), change.path).toEqual(await served(pair, `/api/diff/file${q({ ...side("base", base), ...side("target", ref), path: change.path })}`));
  }
  for (const slice of diff.slices) {
    expect(await pair.local.ask.sliceDiff({ ...between(base, ref), slice_type: slice.slice_type }), slice.slice_type).toEqual(await served(pair, `/api/diff/slice${q({ ...side("base", base), ...side("target", ref), slice_type: slice.slice_type })}`));
  }
}

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "snapshots");
let runDir: string;
const pairs: Pair[] = [];

beforeAll(async () => {
  runDir = await mkdtemp(path.join(os.tmpdir(), "wink-local-api-"));
  await writeMultiTurnRun(runDir);
});
afterAll(async () => {
  for (const pair of pairs) await pair.server.app.close();
  await rm(runDir, { recursive: true, force: true });
});

describe("LocalApi answers like the server", () => {
  it("on the WINK fixtures (session tree, VirtualFileSystem slices, line errors)", async () => {
    const pair = await pairFor(WINK_FIXTURES);
    pairs.push(pair);
    const list = await pair.local.files();
    const servedList = (await served(pair, "/api/files?wait=1")) as typeof list;
    expect(list).toEqual({ ...servedList, files: servedList.files.map((file) => ({ ...file, modified_at: list.files.find((candidate) => candidate.path === file.path)?.modified_at })) });
    const tree = "db5c4ea2-559a-52c5-8313-741e72978682.jsonl";
    await compareSnapshot(pair, { file: tree, line: 2 }, { file: tree, line: 1 });
    await compareSnapshot(pair, { file: "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", line: 1 }, { file: tree, line: 3 });
  }, 60_000);

  it("on a multi-turn run with one archive per turn", async () => {
    const pair = await pairFor(runDir);
    pairs.push(pair);
    const [file] = pair.local.sessionPaths;
    expect(file).toBeDefined();
    const ref = (line: number) => ({ file: file ?? "", line });
    await compareSnapshot(pair, ref(3), ref(1));
    await compareSnapshot(pair, ref(5), ref(1));
    const diff = await pair.local.ask.fileDiff({ ...between(ref(1), ref(5)), path: BIG_FILE });
    expect(diff.hunks).toHaveLength(50);
  }, 60_000);

  it("on the bundled example, whose undo store only the server sees", async () => {
    const pair = await pairFor(EXAMPLE);
    pairs.push(pair);
    const file = `${ROOT_SESSION_ID}.jsonl`;
    await compareSnapshot(pair, { file, line: 2 }, { file, line: 1 }, { undoStore: true });
    await compareSnapshot(pair, { file, line: 4 }, null, { undoStore: true });
    const asked: Api = pair.local;
    await expect(asked.ask.toolCallDiff({ ...at({ file, line: 2 }), call_id: "call_012", path: "README.md" })).rejects.toMatchObject({ status: 404 });
  }, 60_000);

  it("on a failed run: runs, the run, run search, and renames in diffs", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "wink-local-run-"));
    try {
      const file = await writeFailedRun(dir, { turns: 6, callsPerTurn: 10 });
      const pair = await pairFor(dir);
      pairs.push(pair);
      expect(await pair.local.ask.runs({})).toEqual(await served(pair, "/api/runs"));
      const run = await pair.local.ask.run({});
      expect(run).toEqual(await served(pair, "/api/run"));
      // The eval's run list, once the server's run index has read the run (it is answered as it grows).
      for (let tries = 0; !((await served(pair, "/api/failures")) as { index: { complete: boolean } }).index.complete && tries < 100; tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      const failedRuns = await pair.local.ask.evalRuns({ outcome: "failed", limit: 10 });
      expect(failedRuns.total).toBe(1);
      expect(failedRuns).toEqual(await served(pair, "/api/failures/runs?outcome=failed&limit=10"));
      expect(await pair.local.ask.runSearch({ file: file, q: "settings", limit: 100 })).toEqual(await served(pair, `/api/run/search${q({ file, q: "settings", limit: 100 })}`));
      expect(await pair.local.ask.runSearch({ file: file, q: "not found: [a-z]+", regex: "1", limit: 100 })).toEqual(await served(pair, `/api/run/search${q({ file, q: "not found: [a-z]+", regex: 1, limit: 100 })}`));
      const snapshots = run.sessions[0]?.snapshots ?? [];
      const base = { file, line: snapshots[1]?.line_number ?? 0 };
      const target = { file, line: snapshots[2]?.line_number ?? 0 };
      const diff = await pair.local.ask.diff(between(base, target));
      expect(diff.files.changes.find((change) => change.status === "renamed")?.old_path).toBe(FAILED_RUN_RENAME.from);
      await compareSnapshot(pair, target, base);
      const stat = await pair.local.ask.diffStat(between(base, target));
      expect(stat).toEqual(await served(pair, `/api/diff/stat${q({ ...side("base", base), ...side("target", target) })}`));
      expect(stat.files.find((entry) => entry.path === FAILED_RUN_RENAME.to)).toEqual({ path: FAILED_RUN_RENAME.to, added: 1, removed: 1, binary: false });
      expect(await pair.local.ask.fileDiff({ ...between(base, target), path: FAILED_RUN_RENAME.to, base_path: FAILED_RUN_RENAME.from })).toEqual(
        await served(pair, `/api/diff/file${q({ ...side("base", base), ...side("target", target), path: FAILED_RUN_RENAME.to, base_path: FAILED_RUN_RENAME.from })}`),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("on runs beside a truth.json: the same run list, the JSON document counted apart (not a run)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "wink-local-truth-"));
    try {
      const names = (await readdir(WINK_FIXTURES)).filter((entry) => entry.endsWith(".jsonl"));
      for (const name of names) await copyFile(path.join(WINK_FIXTURES, name), path.join(dir, name));
      await copyFile(path.join(WINK_BUNDLE_FIXTURES, "index.json"), path.join(dir, "truth.json"));
      // A second apart: copies made in the same millisecond tie, and the server's times have a
      // fraction of a millisecond that a browser's File does not, so a tie could order apart.
      // (Whole seconds ahead: the server lists a file by the later of its mtime and ctime, and
      // the ctime is when these times were set.)
      const now = Math.floor(Date.now() / 1000) * 1000;
      for (const [index, name] of [...names, "truth.json"].entries()) await utimes(path.join(dir, name), new Date(now + (index + 10) * 1000), new Date(now + (index + 10) * 1000));
      const pair = await pairFor(dir);
      pairs.push(pair);
      // The server counts a file apart once it has read it: compare once it has read them all.
      await served(pair, "/api/files?wait=1");
      const all = await pair.local.ask.runs({});
      expect(all).toEqual(await served(pair, "/api/runs"));
      expect({ total: all.total, not_sessions: all.not_sessions }).toEqual({ total: 3, not_sessions: { total: 1, matched: 1 } });
      expect(all.total - all.not_sessions.total).toBe((await pair.local.ask.failures({})).outcomes.runs);
      const filtered = await pair.local.ask.runs({ q: "acc0" });
      expect(filtered).toEqual(await served(pair, "/api/runs?q=acc0"));
      expect({ matched: filtered.matched, not_sessions: filtered.not_sessions }).toEqual({ matched: 1, not_sessions: { total: 1, matched: 0 } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("reports unknown files, lines and slices as the server does", async () => {
    const pair = pairs[0] ?? (await pairFor(WINK_FIXTURES));
    await expect(pair.local.ask.meta({ file: "nope.jsonl", line: 1 })).rejects.toMatchObject({ status: 404, code: "WD_ERR_NOT_FOUND" });
    await expect(pair.local.ask.meta({ file: "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", line: 9 })).rejects.toMatchObject({ status: 404, code: "WD_ERR_NOT_FOUND", detail: "Unknown line_number: 9" });
    await expect(pair.local.ask.slicePage({ slice_type: "missing", file: "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", line: 1 , offset: 0, limit: 1 })).rejects.toMatchObject({ status: 404, code: "WD_ERR_NOT_FOUND", detail: "Unknown slice type: missing" });
  });
});
