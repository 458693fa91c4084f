// Debug bundles of the served folder: sniffing a `.zip` for a bundle opens it as every served
// file is opened (issue 14): a FIFO swapped in is never waited on, and the directory's checked
// opener refuses a symlink, so a bundle outside the folder is never looked into through one.
// And what open bundles keep in memory is counted in the server's one budget (`--memory`):
// weighed when a reader builds something it keeps, let go of when the budget is full (the
// next request reads the bundle again), never counted when it alone is over the budget.
import { execFileSync } from "node:child_process";
import { copyFile, realpath, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES, winkBundleFixture } from "../../fixtures/paths.js";
import { fixtureBundle } from "../../shared/debug-bundle/bundle.test-support.js";
import { openRegularFile } from "../../shared/filesystem/open-regular.node.js";
import { cleanUp, tempDir } from "../server.test-support.js";
import { ArchiveCache } from "./archive-cache.js";
import { DebugBundles, sniffDebugBundle } from "./debug-bundles.js";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

afterEach(cleanUp);

const BUNDLE = winkBundleFixture("01-small-success/c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");

describe("sniffDebugBundle", () => {
  it("knows a real bundle, and answers false at once for a FIFO (no writer ever comes)", async () => {
    const dir = await realpath(await tempDir());
    await copyFile(BUNDLE, path.join(dir, "run.zip"));
    execFileSync("mkfifo", [path.join(dir, "fifo.zip")]);
    const checked = (file: string) => openRegularFile(file, { root: dir });
    expect(await sniffDebugBundle(path.join(dir, "run.zip"), checked)).toBe(true);
    const started = Date.now();
    // Both openers open without blocking: the default one (a path the caller named) and the directory's.
    expect(await sniffDebugBundle(path.join(dir, "fifo.zip"))).toBe(false);
    expect(await sniffDebugBundle(path.join(dir, "fifo.zip"), checked)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("does not look through a symlink with the served directory's opener, while a bundle named by the caller is followed", async () => {
    const outside = await realpath(await tempDir());
    const served = await realpath(await tempDir());
    await copyFile(BUNDLE, path.join(outside, "secret.zip"));
    await symlink(path.join(outside, "secret.zip"), path.join(served, "link.zip"));
    expect(await sniffDebugBundle(path.join(served, "link.zip"), (file) => openRegularFile(file, { root: served }))).toBe(false);
    expect(await sniffDebugBundle(path.join(served, "link.zip"))).toBe(true);
  });
});

const MiB = 1024 * 1024;
const caches: ArchiveCache[] = [];
afterEach(async () => {
  for (const cache of caches.splice(0)) await cache.close();
});

function setUp(bytes: number): { memory: MemoryBudget; bundles: DebugBundles } {
  const memory = new MemoryBudget(bytes);
  const archives = new ArchiveCache({ memory });
  caches.push(archives);
  return { memory, bundles: new DebugBundles(archives, { memory }) };
}

const LONG = fixtureBundle("03-long-run");
const LONG_PATH = path.join(WINK_BUNDLE_FIXTURES, LONG.file);
/** logs/app.jsonl of the long run, inflated (2.9 MB). */
const LONG_LOG_BYTES = 2_900_000;

describe("debug bundles in the memory budget", () => {
  it("counts what a reader keeps as it builds it: the log, its columns, the transcript, a search's lower-cased text", async () => {
    const { memory, bundles } = setUp(96 * MiB);
    const bundle = await bundles.open(LONG_PATH, LONG.file);
    const opened = bundles.weight;
    expect(opened).toBeLessThan(MiB);
    const logs = await bundle.logs();
    const withLog = bundles.weight;
    expect(withLog).toBeGreaterThan(LONG_LOG_BYTES);
    logs?.facets();
    expect(bundles.weight).toBeGreaterThan(withLog);
    const transcript = await bundle.transcript();
    const withTranscript = bundles.weight;
    expect(withTranscript).toBeGreaterThan(withLog + 500_000);
    transcript.matching({ search: "decimal" });
    expect(bundles.weight).toBeGreaterThan(withTranscript);
    expect(bundles.weight).toBe(bundle.retainedBytes);
    expect(memory.used).toBeGreaterThanOrEqual(bundles.weight);
    // The same reader serves the next request.
    expect(await bundles.open(LONG_PATH, LONG.file)).toBe(bundle);
  });

  it("lets a bundle go when other caches need the room, and reads it again on the next request", async () => {
    const { memory, bundles } = setUp(16 * MiB);
    const bundle = await bundles.open(LONG_PATH, LONG.file);
    await bundle.logs();
    expect(bundles.weight).toBeGreaterThan(LONG_LOG_BYTES);
    // Another cache of the same budget (parsed session lines, file contents…) fills it.
    const other = new WeightedCache<string, string>(memory);
    for (let i = 0; i < 15; i++) other.set(`line ${i}`, "x", MiB);
    expect(bundles.weight).toBe(0);
    expect(memory.used).toBeLessThanOrEqual(memory.bytes);
    const again = await bundles.open(LONG_PATH, LONG.file);
    expect(again).not.toBe(bundle);
    expect((await again.logs())?.count).toBe(LONG.log_lines);
  });

  it("never counts a reader heavier than the whole budget: it answers, and is read again next time", async () => {
    const { memory, bundles } = setUp(2 * MiB);
    const bundle = await bundles.open(LONG_PATH, LONG.file);
    const logs = await bundle.logs();
    expect(logs?.count).toBe(LONG.log_lines);
    expect(bundles.weight).toBe(0);
    expect(memory.used).toBeLessThanOrEqual(memory.bytes);
    expect(await bundles.open(LONG_PATH, LONG.file)).not.toBe(bundle);
  });
});
