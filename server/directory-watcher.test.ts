// Live reload of a recursive folder (an EvalLoop's `{target}/{request_id}/…`): a run written
// into a new folder is told at once, and is in the eval's groups, without the rest of the
// folder's files being indexed first. Real files, real inotify watches, a real app on loopback.
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EvalSummaryView } from "../shared/viewer/index.js";
import type { WinkApp } from "./app.js";
import { buildApp } from "./app.js";
import { writeSessionRun } from "./failures.test-support.js";
import type { ChangeNotice } from "./library/directory-watcher.js";
import { DirectoryWatcher } from "./library/directory-watcher.js";
import { closeServedState, openServedState } from "./library/served-state.js";
import { cleanUp, tempDir } from "./server.test-support.js";

const apps: WinkApp[] = [];
const closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  for (const app of apps.splice(0)) await app.app.close();
  await cleanUp();
});

/** Runs `sample-N/run.jsonl`, each with one file not found. */
async function writeSamples(dir: string, count: number): Promise<void> {
  for (let at = 0; at < count; at += 1) {
    const file = path.join(dir, `sample-${at}`, "run.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeSessionRun(file, `b0000000-0000-4000-8000-${String(at).padStart(12, "0")}`, new Date(Date.UTC(2026, 10, 20, 10, at)), [{ tool: "read_file", params: { path: `src/m${at}.py` }, message: `No such file or directory: src/m${at}.py`, success: false, callId: `call_${at}` }]);
  }
}

/** A run in a new folder whose one call fails in a way no other run does. */
async function writeNewKind(dir: string): Promise<string> {
  const file = path.join(dir, "sample-new", "run.jsonl");
  await mkdir(path.dirname(file), { recursive: true });
  await writeSessionRun(file, "b0000000-0000-4000-8000-00000000beef", new Date(Date.UTC(2026, 10, 21)), [{ tool: "fetch", params: { url: "x" }, message: "Quota of 17 requests a minute exceeded", success: false, callId: "call_new" }]);
  return "sample-new/run.jsonl";
}

/** A folder of `count` samples, opened recursively (closed after the test). */
async function openSamples(count: number) {
  const dir = await tempDir();
  await writeSamples(dir, count);
  const served = await openServedState({ path: dir, recursive: true });
  closing.push(() => closeServedState(served));
  return { dir, served, directory: served.state.directory };
}

describe("live reload of a recursive folder", () => {
  it("tells a run written into a new folder, indexed, without indexing the folder's other files first", async () => {
    const { dir, served, directory } = await openSamples(5);
    const notices: ChangeNotice[] = [];
    let told: () => void = () => undefined;
    const notice = new Promise<void>((resolve) => (told = resolve));
    const watcher = new DirectoryWatcher(directory, served.archives, (change) => {
      notices.push(change);
      if (change.added.length > 0) told();
    }, { perFolder: true, debounceMs: 50 });
    watcher.start();
    closing.unshift(async () => watcher.close());
    // Opening the folder indexed the run shown first (the newest) and nothing else.
    const unindexed = () => directory.files().filter((record) => record.index === null).map((record) => record.path);
    const waiting = unindexed();
    expect(waiting).toEqual(["sample-0/run.jsonl", "sample-1/run.jsonl", "sample-2/run.jsonl", "sample-3/run.jsonl"]);
    const added = await writeNewKind(dir);
    await notice;
    expect(notices.flatMap((change) => change.added)).toEqual([added]);
    expect(directory.get(added)?.index).not.toBeNull();
    // The notice waited for the new run only: the others wait for the background indexing
    // (with 10,000 runs, waiting for them held the notice for minutes).
    expect(unindexed()).toEqual(waiting);
  });

  it("lists again only what events named, finding there what a whole listing finds", async () => {
    const { dir, directory } = await openSamples(3);
    const added = await writeNewKind(dir);
    await mkdir(path.join(dir, "sample-new", "deeper"), { recursive: true });
    await writeSessionRun(path.join(dir, "sample-new", "deeper", "run.jsonl"), "b0000000-0000-4000-8000-0000000beef3", new Date(Date.UTC(2026, 10, 22)), []);
    // Never listed: a hidden folder, and a file that is no run.
    await mkdir(path.join(dir, "sample-new", ".hidden"), { recursive: true });
    await writeSessionRun(path.join(dir, "sample-new", ".hidden", "run.jsonl"), "b0000000-0000-4000-8000-0000000beef4", new Date(Date.UTC(2026, 10, 22)), []);
    await writeFile(path.join(dir, "sample-0", "notes.txt"), "x");
    await rm(path.join(dir, "sample-1", "run.jsonl"));
    // sample-2's run is rewritten but not named: left as it was listed.
    await writeSessionRun(path.join(dir, "sample-2", "run.jsonl"), "b0000000-0000-4000-8000-000000000002", new Date(Date.UTC(2026, 10, 23)), []);
    const changes = await directory.refreshPaths(["sample-new", "sample-0/notes.txt", "sample-1/run.jsonl", "sample-new/.hidden/run.jsonl"]);
    // In the order the folder lists them (the file system's): compared sorted.
    expect({ ...changes, added: [...(changes?.added ?? [])].sort() }).toEqual({ added: ["sample-new/deeper/run.jsonl", added], changed: [], removed: ["sample-1/run.jsonl"] });
    expect(directory.files().map((record) => record.path)).toEqual(["sample-0/run.jsonl", "sample-2/run.jsonl", "sample-new/deeper/run.jsonl", added]);
    // A whole listing then finds the one change nobody named, and nothing else.
    expect(await directory.refresh()).toEqual({ added: [], changed: ["sample-2/run.jsonl"], removed: [] });
  });

  it("puts a run written into a new folder into its group in /api/failures, and one written into that folder next", async () => {
    const dir = await tempDir();
    await writeSamples(dir, 4);
    const app = await buildApp({ path: dir, recursive: true, watch: true, logger: false, webDir: path.join(os.tmpdir(), "wink-no-web-dir"), runIndexCacheDir: null });
    apps.push(app);
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.app.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const url = `http://127.0.0.1:${address.port}/api/failures`;
    /** Asks as the page does until `done` holds (the test's own timeout bounds it). */
    const until = async (done: (answer: EvalSummaryView) => boolean): Promise<EvalSummaryView> => {
      for (;;) {
        const answer = (await (await fetch(url)).json()) as EvalSummaryView;
        if (done(answer)) return answer;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until((answer) => answer.index.complete && answer.outcomes.runs === 4);
    await writeNewKind(dir);
    const seen = await until((answer) => answer.groups.some((group) => group.signature === "fetch: Quota of <n> requests a minute exceeded"));
    expect(seen.groups.find((group) => group.signature === "fetch: Quota of <n> requests a minute exceeded")).toMatchObject({ runs: 1, occurrences: 1 });
    // The new folder is watched now: a second run written into it is seen too.
    await writeSessionRun(path.join(dir, "sample-new", "again.jsonl"), "b0000000-0000-4000-8000-0000000beef2", new Date(Date.UTC(2026, 10, 22)), [{ tool: "fetch", params: { url: "y" }, message: "Quota of 18 requests a minute exceeded", success: false, callId: "call_again" }]);
    const again = await until((answer) => answer.groups.some((group) => group.signature === "fetch: Quota of <n> requests a minute exceeded" && group.runs === 2));
    expect(again.outcomes).toMatchObject({ runs: 6, failed: 6 });
  }, 60_000);
});
