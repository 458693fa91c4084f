// The run index behind the eval (issue 30, item 1): progressive answers, re-reading only what
// changed, and the digests kept in the user's cache between starts, never beside the runs.
// Apps listen on loopback and are asked over HTTP; the CLI runs as a child process.
import { readFile, readdir, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import type { NginxServer } from "../shared/remote/test-servers/nginx.test-support.js";
import { evalRunPage, evalSummary, summaryOf } from "../shared/viewer/index.js";
import type { EvalSummaryView } from "../shared/viewer/index.js";
import type { WinkApp } from "./app.js";
import { buildApp } from "./app.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { failuresMain } from "./failures.js";
import { indexMain } from "./index-command.js";
import type { EvalWithRuns, GeneratedCall } from "./failures.test-support.js";
import { evalWithRuns, writeSessionRun } from "./failures.test-support.js";
import { RunIndex } from "./library/run-index.js";
import type { RunIndexEntry } from "./library/run-index.js";
import { RUN_INDEX_FORMAT, runIndexFile, runIndexStore, userCacheDir } from "./library/run-index-store.js";
import { cleanUp, tempDir, testApp } from "./server.test-support.js";
import { packageVersion } from "./package-root.js";

/** Tests that start the CLI: each start transpiles the sources (seconds on a loaded 2-core machine). */
const CLI_MS = 120_000;

const apps: WinkApp[] = [];

afterEach(async () => {
  stopClis();
  for (const app of apps.splice(0)) await app.app.close();
  await cleanUp();
});

const missing = (file: string, callId: string): GeneratedCall => ({ tool: "read_file", params: { path: file }, message: `No such file or directory: ${file}`, success: false, callId });
const timeout = (seconds: number, callId: string): GeneratedCall => ({ tool: "shell", params: { command: "make" }, message: `Timed out after ${seconds} s`, success: false, callId });

/** `count` runs in `dir`: run-00.jsonl … each with one missing file; every third also a timeout. */
async function writeEval(dir: string, count: number): Promise<void> {
  for (let at = 0; at < count; at += 1) {
    const calls = [missing(`src/m${at}.py`, `call_${at}a`), ...(at % 3 === 0 ? [timeout(at + 1, `call_${at}b`)] : [])];
    await writeSessionRun(path.join(dir, `run-${String(at).padStart(2, "0")}.jsonl`), `a0000000-0000-4000-8000-${String(at).padStart(12, "0")}`, new Date(Date.UTC(2026, 10, 20, 10, at)), calls);
  }
}

/** Every file under `dir` with its size and mtime: what "nothing written beside the runs" compares. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const lines = await Promise.all(
    entries.map(async (entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const info = await stat(file);
      return `${path.relative(dir, file)} ${entry.isDirectory() ? "dir" : `${info.size} ${info.mtimeMs}`}`;
    }),
  );
  return lines.sort();
}

/** An app on `dir`, listening on loopback; its base URL. */
async function serve(dir: string, cacheDir: string | null, extra: { indexInBackground?: boolean; remoteCacheDir?: string } = {}): Promise<{ app: WinkApp; url: string }> {
  const app = await buildApp({
    path: dir,
    watch: "poll",
    logger: false,
    webDir: path.join(os.tmpdir(), "wink-no-web-dir"),
    runIndexCacheDir: cacheDir,
    indexInBackground: extra.indexInBackground ?? true,
    ...(extra.remoteCacheDir === undefined ? {} : { remote: { cacheDir: extra.remoteCacheDir } }),
  });
  apps.push(app);
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { app, url: `http://127.0.0.1:${address.port}/` };
}

const summary = evalWithRuns;

/** Asks as the page does (every 50 ms here) until the answer is complete. */
async function complete(url: string): Promise<EvalWithRuns> {
  for (;;) {
    const answer = await summary(url);
    if (answer.index.complete) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The eval with its runs (as `/api/failures/runs` lists them) computed from the index's view. */
function afresh(root: string, view: ReturnType<RunIndex["view"]>): EvalWithRuns {
  const overview = evalSummary(root, view.digests, view.progress);
  return { ...summaryOf(overview), runs: evalRunPage(overview, {}, 0, overview.runs.length).runs };
}

const groupsOf = (answer: EvalSummaryView) => answer.groups.map((group) => [group.signature, group.runs, group.occurrences]);

/** Stops an app as a signal does (its index saved on close). */
async function stop(app: WinkApp): Promise<void> {
  apps.splice(apps.indexOf(app), 1);
  await app.app.close();
}

describe("the run index", () => {
  it("answers at once with what it has read, saying how far it got, then every run", async () => {
    const dir = await tempDir();
    await writeEval(dir, 12);
    // Not started in the background: the first question starts it, and is answered before any run is read.
    const { url } = await serve(dir, null, { indexInBackground: false });
    // The summary alone: its runs are another request, by which time runs have been read.
    const first = (await (await fetch(`${url}api/failures`)).json()) as EvalWithRuns;
    expect(first.index).toEqual({ indexed: 0, total: 12, complete: false });
    expect(first.groups).toEqual([]);
    const done = await complete(url);
    expect(done.index).toEqual({ indexed: 12, total: 12, complete: true });
    expect(done.outcomes).toMatchObject({ runs: 12, failed: 12 });
    expect(groupsOf(done)).toEqual([
      ["read_file: No such file or directory: <path>", 12, 12],
      ["shell: Timed out after <n> s", 4, 4],
    ]);
    const occurrences = (await (await fetch(`${url}api/failures/occurrences?signature=${encodeURIComponent("shell: Timed out after <n> s")}`)).json()) as { occurrences: unknown[] };
    expect(occurrences.occurrences).toHaveLength(4);
  });

  it("keeps the indexes the viewer's pages use: after it has read every run, each file still lists its snapshots", async () => {
    const dir = await tempDir();
    await writeEval(dir, 6);
    const { app, url } = await serve(dir, null, { indexInBackground: false });
    // The eval first, so the run index reads every run before anything else indexes them.
    expect((await complete(url)).index).toEqual({ indexed: 6, total: 6, complete: true });
    // A command drops each run's index as it goes (thousands of runs, one digest each); the
    // server did too, and a page that had listed the files lost their snapshots (compare's pickers went empty).
    for (const record of app.state.directory.files()) expect(record.index, record.path).not.toBeNull();
    const files = (await (await fetch(`${url}api/files`)).json()) as { files: { path: string; status: string; snapshot_count: number }[] };
    expect(files.files).toHaveLength(6);
    for (const file of files.files) expect({ path: file.path, status: file.status, snapshots: file.snapshot_count > 0 }).toEqual({ path: file.path, status: "ready", snapshots: true });
    await stop(app);
  });

  it("is kept between starts: a second start reads no run and gives the same groups", async () => {
    const dir = await tempDir();
    const cache = path.join(await tempDir(), "cache");
    await writeEval(dir, 8);
    const before = await tree(dir);
    const first = await serve(dir, cache);
    const answer = await complete(first.url);
    expect(first.app.runIndex.runsRead).toBe(8);
    await stop(first.app);

    const second = await serve(dir, cache);
    const again = await complete(second.url);
    expect(second.app.runIndex.runsRead).toBe(0);
    expect(groupsOf(again)).toEqual(groupsOf(answer));
    expect(again.runs).toEqual(answer.runs);
    // Private: the folder 0700, the file 0600; nothing written beside the runs.
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    const file = runIndexFile(cache, await realpath(dir), false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(cache)).toEqual([path.basename(file)]);
    expect(await tree(dir)).toEqual(before);
  });

  it("reads a rewritten run again and drops a deleted one, in memory and in the saved index", async () => {
    const dir = await tempDir();
    const cache = await tempDir();
    await writeEval(dir, 6);
    const { app, url } = await serve(dir, cache);
    await complete(url);
    expect(app.runIndex.runsRead).toBe(6);
    // run-00 rewritten without its timeout (and a later mtime); run-03 deleted.
    await writeSessionRun(path.join(dir, "run-00.jsonl"), "a0000000-0000-4000-8000-000000000000", new Date(Date.UTC(2026, 10, 21)), [missing("src/other.py", "call_x")]);
    await rm(path.join(dir, "run-03.jsonl"));
    await (app.watcher as { check(): Promise<void> }).check();
    const answer = await complete(url);
    expect(app.runIndex.runsRead).toBe(7);
    expect(answer.index).toEqual({ indexed: 5, total: 5, complete: true });
    expect(answer.runs.map((run) => run.run).sort()).toEqual(["run-00.jsonl", "run-01.jsonl", "run-02.jsonl", "run-04.jsonl", "run-05.jsonl"]);
    // The two timeouts were in run-00 (rewritten without it) and run-03 (deleted).
    expect(groupsOf(answer)).toEqual([["read_file: No such file or directory: <path>", 5, 5]]);
    await app.runIndex.flush();
    const saved = JSON.parse(await readFile(runIndexFile(cache, await realpath(dir), false), "utf8")) as { entries: { run: string; digest: { failures: { message: string }[] } }[] };
    expect(saved.entries.map((entry) => entry.run).sort()).toEqual(["run-00.jsonl", "run-01.jsonl", "run-02.jsonl", "run-04.jsonl", "run-05.jsonl"]);
    expect(saved.entries.find((entry) => entry.run === "run-00.jsonl")?.digest.failures.map((failure) => failure.message)).toEqual(["No such file or directory: src/other.py"]);
  });

  it("keeps the eval's answer until the index changes, the same as computed afresh, and computes it again after a change", async () => {
    const dir = await tempDir();
    await writeEval(dir, 6);
    const { app, url } = await serve(dir, null);
    const first = await complete(url);
    const generation = app.runIndex.generation;
    // Asked again with nothing changed: the same view (not a new pass over the listing), the same answer.
    const view = app.runIndex.view();
    expect(app.runIndex.view()).toBe(view);
    expect(await summary(url)).toEqual(first);
    expect(app.runIndex.generation).toBe(generation);
    expect(first).toEqual(afresh(path.basename(dir), view));
    const shell = `${url}api/failures/occurrences?signature=${encodeURIComponent("shell: Timed out after <n> s")}`;
    expect(((await (await fetch(shell)).json()) as { occurrences: unknown[] }).occurrences).toHaveLength(2);
    // run-01 rewritten with a timeout: a new generation, and an answer computed from it.
    await writeSessionRun(path.join(dir, "run-01.jsonl"), "a0000000-0000-4000-8000-000000000001", new Date(Date.UTC(2026, 10, 21)), [missing("src/m1.py", "call_1a"), timeout(9, "call_1b")]);
    await (app.watcher as { check(): Promise<void> }).check();
    const after = await complete(url);
    expect(app.runIndex.generation).not.toBe(generation);
    expect(app.runIndex.view()).not.toBe(view);
    expect(groupsOf(after)).toEqual([
      ["read_file: No such file or directory: <path>", 6, 6],
      ["shell: Timed out after <n> s", 3, 3],
    ]);
    const now = app.runIndex.view();
    expect(after).toEqual(afresh(path.basename(dir), now));
    expect(((await (await fetch(shell)).json()) as { occurrences: unknown[] }).occurrences).toHaveLength(3);
  });

  it("ignores a corrupt or foreign index file, reads the runs, and writes it anew", async () => {
    const dir = await tempDir();
    const cache = await tempDir();
    await writeEval(dir, 3);
    const file = runIndexFile(cache, await realpath(dir), false);
    for (const content of ["{not json", JSON.stringify({ format: RUN_INDEX_FORMAT, version: 999, entries: [] }), JSON.stringify({ format: "other", entries: [{ run: "run-00.jsonl" }] })]) {
      await writeFile(file, content);
      const { app, url } = await serve(dir, cache);
      const answer = await complete(url);
      expect(app.runIndex.runsRead).toBe(3);
      expect(answer.outcomes.runs).toBe(3);
      await stop(app);
      const saved = JSON.parse(await readFile(file, "utf8")) as { format: string; version: number; entries: unknown[] };
      expect({ format: saved.format, version: saved.version, entries: saved.entries.length }).toEqual({ format: RUN_INDEX_FORMAT, version: 1, entries: 3 });
    }
  });

  it("takes a seeded entry for a run whose file it still describes, and reads the others", async () => {
    const dir = await tempDir();
    await writeEval(dir, 4);
    const first = await serve(dir, null);
    await complete(first.url);
    const entries = first.app.runIndex.entries();
    await stop(first.app);
    await writeSessionRun(path.join(dir, "run-01.jsonl"), "a0000000-0000-4000-8000-000000000001", new Date(Date.UTC(2026, 10, 22)), []);
    const second = await serve(dir, null, { indexInBackground: false });
    // A pre-built index (a Parquet file at the root) gives no size and no ETag: judged by the mtime.
    second.app.runIndex.seed(entries.map((entry) => ({ ...entry, size: null })));
    const answer = await complete(second.url);
    expect(second.app.runIndex.runsRead).toBe(1);
    expect(answer.runs.find((run) => run.run === "run-01.jsonl")?.outcome).toBe("ok");
  });
});

describe("saving the run index", () => {
  it("saves as it reads, not only at the end: a process killed mid-way keeps the runs read so far", async () => {
    const dir = await tempDir();
    await writeEval(dir, 10);
    const app = await testApp({ path: dir });
    const store = runIndexStore(await tempDir(), app.state.directory.root, false, packageVersion());
    const saves: number[] = [];
    const counting = { file: store.file, load: () => store.load(), save: async (entries: readonly RunIndexEntry[]) => {
      saves.push(entries.length);
      await store.save(entries);
    } };
    // One run at a time, and a save as soon as one is read.
    const index = new RunIndex(app.state, { store: counting, concurrency: 1, saveEveryMs: 0 });
    await index.whenComplete();
    await index.close();
    expect(saves[0]).toBeLessThan(10);
    expect(saves.at(-1)).toBe(10);
    expect(await store.load()).toHaveLength(10);
  });
});

describe("the run index of the CLI", () => {
  it("is kept in $XDG_CACHE_HOME/wink-debug (0700), nothing beside the runs; --no-cache keeps nothing", async () => {
    const dir = await tempDir();
    await writeEval(dir, 3);
    const before = await tree(dir);
    const home = await tempDir();
    const env = { ...process.env, XDG_CACHE_HOME: home };
    const cli = startCli([dir, "--port", "0"], { env });
    const url = await waitForUrl(cli.output);
    await complete(url);
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
    const cacheDir = userCacheDir(env);
    expect(cacheDir).toBe(path.join(home, "wink-debug"));
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    const file = runIndexFile(cacheDir, await realpath(dir), false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((JSON.parse(await readFile(file, "utf8")) as { entries: unknown[] }).entries).toHaveLength(3);
    expect(await tree(dir)).toEqual(before);

    const bare = await tempDir();
    const uncached = startCli([dir, "--port", "0", "--no-cache"], { env: { ...process.env, XDG_CACHE_HOME: bare } });
    await complete(await waitForUrl(uncached.output));
    uncached.child.kill("SIGTERM");
    expect(await uncached.exit).toBe(0);
    expect(await readdir(bare)).toEqual([]);
    expect(await tree(dir)).toEqual(before);
  }, CLI_MS);

  it("refuses --no-cache with --cache-dir, and lists --no-cache in --help", async () => {
    const help = startCli(["--help"]);
    expect(await help.exit).toBe(0);
    expect(help.output()).toContain("--no-cache");
    const both = startCli(["s3://bucket/runs/", "--cache-dir", await tempDir(), "--no-cache"]);
    expect(await both.exit).toBe(2);
    expect(both.errors()).toContain("--no-cache and --cache-dir contradict each other");
  }, CLI_MS);

  it("makes a second `wink-debug failures` read no run again (and --no-cache read them all)", async () => {
    const dir = await tempDir();
    await writeEval(dir, 5);
    const run = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await failuresMain([dir, "--json", ...args], { out: (text) => out.push(text), err: (text) => err.push(text), interactive: false });
      return { code, report: JSON.parse(out.join("")) as { groups: unknown[]; runs: number }, stderr: err.join("") };
    };
    const first = await run([]);
    expect(first.stderr).toMatch(/Read 5 runs in [\d.]+ s\n/);
    const second = await run([]);
    expect(second.stderr).toContain("Reading 0 runs of");
    expect(second.stderr).toMatch(/Read 0 runs in [\d.]+ s \(5 from the cache\)/);
    expect(second.report).toEqual(first.report);
    // A new run: only it is read.
    await writeSessionRun(path.join(dir, "run-new.jsonl"), "b0000000-0000-4000-8000-000000000000", new Date(Date.UTC(2026, 10, 23)), [timeout(9, "call_n")]);
    const third = await run([]);
    expect(third.stderr).toMatch(/Read 1 run in [\d.]+ s \(5 from the cache\)/);
    expect(third.report.runs).toBe(6);
    // `wink-debug index` reads the same cache.
    const err: string[] = [];
    const parquet = path.join(await tempDir(), "runs.parquet");
    expect(await indexMain([dir, "-o", parquet], { out: () => undefined, err: (text) => err.push(text), interactive: false })).toBe(0);
    expect(err.join("")).toMatch(/Read 0 runs in [\d.]+ s \(6 from the cache\)/);
    const uncached = await run(["--no-cache"]);
    expect(uncached.stderr).toMatch(/Read 6 runs in [\d.]+ s\n/);
    expect(uncached.report).toEqual(third.report);
    // The setup file's XDG_CACHE_HOME: the one file of this target, nothing beside the runs.
    expect(await readdir(userCacheDir())).toEqual([path.basename(runIndexFile(userCacheDir(), await realpath(dir), false))]);
    expect((await readdir(dir)).filter((name) => !name.endsWith(".jsonl"))).toEqual([]);
  });
});

describe("the run index of a remote store (an HTTP folder served by nginx)", () => {
  let nginx: NginxServer;
  let served: string;
  beforeAll(async () => {
    served = await tempDir("wink-index-served-");
    nginx = await startNginx(served);
  });
  afterAll(async () => {
    await nginx?.stop();
  });

  it("is kept in --cache-dir, beside the store's blocks: a second start reads no run", async () => {
    const folder = path.join(served, "apps");
    await writeEval(folder, 4);
    const before = await tree(served);
    const cacheDir = path.join(await tempDir(), "blocks");
    const first = await serve(`${nginx.url}apps/`, cacheDir, { remoteCacheDir: cacheDir });
    const answer = await complete(first.url);
    expect(answer.outcomes.runs).toBe(4);
    expect(first.app.runIndex.runsRead).toBe(4);
    await stop(first.app);
    const file = runIndexFile(cacheDir, first.app.state.directory.root, false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await serve(`${nginx.url}apps/`, cacheDir, { remoteCacheDir: cacheDir });
    expect(groupsOf(await complete(second.url))).toEqual(groupsOf(answer));
    expect(second.app.runIndex.runsRead).toBe(0);
    expect(await tree(served)).toEqual(before);
  });

  /** The viewer's URL (the store's is on the line before it, also on loopback). */
  async function viewerUrl(output: () => string): Promise<string> {
    await waitForUrl(output, 60_000);
    for (;;) {
      const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/) {3}\(ready/m.exec(output());
      if (match?.[1] !== undefined) return match[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("is kept by the CLI only with --cache-dir", async () => {
    await writeEval(path.join(served, "cli"), 2);
    const home = await tempDir();
    const env = { ...process.env, XDG_CACHE_HOME: home };
    const cacheDir = path.join(await tempDir(), "blocks");
    const cli = startCli([`${nginx.url}cli/`, "--port", "0", "--cache-dir", cacheDir], { env });
    await complete(await viewerUrl(cli.output));
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
    expect((await readdir(cacheDir)).filter((name) => name.startsWith("run-index-"))).toHaveLength(1);
    const bare = startCli([`${nginx.url}cli/`, "--port", "0"], { env });
    await complete(await viewerUrl(bare.output));
    bare.child.kill("SIGTERM");
    expect(await bare.exit).toBe(0);
    // Without --cache-dir a remote store's index is kept nowhere (not in the user's cache either).
    expect(await readdir(home)).toEqual([]);
  }, CLI_MS);
});
