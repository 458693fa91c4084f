/**
 * The walk on worker threads gives exactly what the walk on the main thread gives, fails
 * the same way, never keeps a process alive, and carries git restores above its threshold.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { toBytePath } from "./byte-paths.js";
import { HostSnapshots } from "./host-snapshots.js";
import { closeScanPool, PARALLEL_SCAN_MIN_ENTRIES, scanInParallel, scanPoolStarted, scanWorkspaceFast } from "./scan-pool.js";
import { comparableScan, indexThenChange, fingerprint, hostileTree, TempDirs, writeTree } from "./snapshot.test-support.js";
import { scanAgainstIndex, ScanError, scanWorkspace, type LeafStat } from "./workspace-scan.js";

const temps = new TempDirs();
afterEach(() => temps.removeAll());
afterAll(() => closeScanPool());

describe("scan pool", () => {
  it("walks exactly like the main thread, with and without an index", async () => {
    const root = temps.make("scan-pool-");
    hostileTree(root);
    const rootBytes = toBytePath(root);
    const options = { excludeTopLevelPrefix: ".wink-apply-" };
    const plain = scanAgainstIndex(rootBytes, null, options);
    expect(comparableScan(await scanInParallel(rootBytes, null, options))).toEqual(comparableScan(plain));
    expect(plain.leafCount).toBeGreaterThan(45);
    expect(plain.others).toEqual(["pipe"]);

    // An index from a while ago: untouched leaves are trusted, the rest set aside or missing.
    const baseline = indexThenChange(root, options);
    const sequential = scanAgainstIndex(rootBytes, baseline, options);
    const parallel = await scanInParallel(rootBytes, baseline, options);
    expect(comparableScan(parallel)).toEqual(comparableScan(sequential));
    expect(sequential.missing.sort()).toEqual(["deep/er/y.txt", ...Array.from({ length: 10 }, (_, k) => `many/d2/f${2 + 4 * k}.txt`)].sort());
    expect(sequential.untrusted.has("new.txt")).toBe(true);
    expect(sequential.untrusted.has("a.txt")).toBe(true);
    expect(sequential.untrusted.has("tool.sh")).toBe(true);
    expect(sequential.untrusted.has("secret.txt")).toBe(false);
  });

  it("trusts what an index recorded long enough before its scan, like the main thread", async () => {
    const root = temps.make("scan-pool-trust-");
    for (let i = 0; i < 30; i++) writeTree(root, { [`d${i % 3}/f${i}.txt`]: `v${i}` });
    const rootBytes = toBytePath(root);
    const entries = new Map<string, LeafStat & { oid: string }>();
    for (const [p, stat] of scanWorkspace(rootBytes).leaves) entries.set(p, { ...stat, oid: "0".repeat(40) });
    const settled = { scanStartedAtMs: Date.now() + 10_000, entries };
    const racy = { scanStartedAtMs: Date.now() - 10_000, entries };
    for (const baseline of [settled, racy]) {
      const parallel = await scanInParallel(rootBytes, baseline);
      expect(comparableScan(parallel)).toEqual(comparableScan(scanAgainstIndex(rootBytes, baseline)));
    }
    expect((await scanInParallel(rootBytes, settled)).untrusted.size).toBe(0);
    expect((await scanInParallel(rootBytes, racy)).untrusted.size).toBe(30);
  });

  it("fails like the main thread when the root cannot be read", async () => {
    const missing = path.join(temps.make("scan-pool-gone-"), "gone");
    const sequential = (() => {
      try {
        scanAgainstIndex(missing, null);
        return null;
      } catch (error) {
        return error;
      }
    })();
    const parallel = await scanInParallel(missing, null).catch((error: unknown) => error);
    expect(sequential).toBeInstanceOf(ScanError);
    expect(parallel).toBeInstanceOf(ScanError);
    expect((parallel as ScanError).errno).toBe("ENOENT");
    expect((parallel as ScanError).message).toBe((sequential as ScanError).message);
  });

  it("never keeps a process alive", () => {
    const root = temps.make("scan-pool-exit-");
    writeTree(root, { "a/b.txt": "b" });
    const module = path.join(path.dirname(fileURLToPath(import.meta.url)), "scan-pool.ts");
    const script = `const { scanInParallel } = await import(${JSON.stringify(module)}); const scan = await scanInParallel(${JSON.stringify(root)}, null); console.log(scan.leafCount);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("1");
    expect(child.signal).toBeNull(); // not killed by the timeout: it exited by itself
  });

  it("never keeps a process alive when a walk started the pool and none used it", () => {
    const root = temps.make("scan-pool-started-");
    for (let i = 0; i < PARALLEL_SCAN_MIN_ENTRIES; i++) writeTree(root, { [`d${i % 20}/f${i}.txt`]: "x" });
    const module = path.join(path.dirname(fileURLToPath(import.meta.url)), "scan-pool.ts");
    const script = `const { scanWorkspaceFast } = await import(${JSON.stringify(module)}); const scan = await scanWorkspaceFast(${JSON.stringify(root)}, null); console.log(scan.leafCount);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe(String(PARALLEL_SCAN_MIN_ENTRIES)); // enough to start the pool
    expect(child.signal).toBeNull(); // not killed by the timeout: it exited by itself
  });

  it("starts the threads a first restore's big walk asks for once the restore is over, not during it", async () => {
    const root = temps.make("scan-pool-first-");
    const state = temps.make("scan-pool-first-state-");
    const gitDir = path.join(temps.make("scan-pool-first-git-"), "git");
    const files = PARALLEL_SCAN_MIN_ENTRIES + 100;
    for (let i = 0; i < files; i++) writeTree(root, { [`d${i % 40}/f${i}.txt`]: `file ${i}\n` });
    const first = await new HostSnapshots(root, { strategy: "git", gitDir, treeApply: { stateDir: state, durable: false } }).snapshot();
    const firstPrint = fingerprint(root);
    writeTree(root, { "d3/f3.txt": "edited" });
    // As in a new process: no threads yet, and an instance that has walked nothing.
    await closeScanPool();
    const startedDuringApply: boolean[] = [];
    const fresh = new HostSnapshots(root, {
      strategy: "git",
      gitDir,
      treeApply: { stateDir: state, durable: false, onStep: async (step) => void (step === "committed" && startedDuringApply.push(await scanPoolStarted())) },
    });
    await fresh.restore(first);
    expect(fingerprint(root)).toEqual(firstPrint);
    expect(startedDuringApply).toEqual([false]);
    expect(await scanPoolStarted()).toBe(true);
  }, 60_000);

  it("lets a process run big operations back to back with nothing else keeping it alive", () => {
    const root = temps.make("scan-pool-back-to-back-");
    const state = temps.make("scan-pool-back-to-back-state-");
    const gitDir = path.join(temps.make("scan-pool-back-to-back-git-"), "git");
    for (let i = 0; i < PARALLEL_SCAN_MIN_ENTRIES + 100; i++) writeTree(root, { [`d${i % 20}/f${i}.txt`]: "x" });
    const module = path.join(path.dirname(fileURLToPath(import.meta.url)), "host-snapshots.ts");
    // The first snapshot walks on this thread and starts the threads as it ends; the second
    // waits for them (no git process running meanwhile), and so does the restore.
    const script = [
      `const { HostSnapshots } = await import(${JSON.stringify(module)});`,
      `const { writeFileSync } = await import("node:fs");`,
      `const s = new HostSnapshots(${JSON.stringify(root)}, { strategy: "git", gitDir: ${JSON.stringify(gitDir)}, treeApply: { stateDir: ${JSON.stringify(state)}, durable: false } });`,
      `const first = await s.snapshot();`,
      `writeFileSync(${JSON.stringify(path.join(root, "d1", "f1.txt"))}, "changed");`,
      `await s.snapshot();`,
      `await s.restore(first);`,
      `console.log("done");`,
    ].join(" ");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("done");
    expect(child.signal).toBeNull();
  }, 90_000);

  it("carries git snapshots and restores of a workspace above its threshold", async () => {
    const root = temps.make("scan-pool-git-");
    const state = temps.make("scan-pool-state-");
    const files = PARALLEL_SCAN_MIN_ENTRIES + 100;
    for (let i = 0; i < files; i++) writeTree(root, { [`d${i % 40}/f${i}.txt`]: `file ${i}\n` });
    const snapshots = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: state, durable: false } });
    try {
      const first = await snapshots.snapshot();
      const firstPrint = fingerprint(root);
      // The first walk (no index yet) ran here and started the pool for the next ones.
      expect(await scanPoolStarted()).toBe(true);
      writeTree(root, { "d3/f3.txt": "edited", "d7/new.txt": "new" });
      rmSync(path.join(root, "d9/f9.txt"));
      const second = await snapshots.snapshot();
      expect(snapshots.lastStats).toMatchObject({ leaves: files, changed: 3 });
      const secondPrint = fingerprint(root);
      await snapshots.restore(first);
      expect(fingerprint(root)).toEqual(firstPrint);
      expect(snapshots.lastStats).toMatchObject({ leaves: files, changed: 3 });
      await snapshots.restore(second);
      expect(fingerprint(root)).toEqual(secondPrint);
      expect(await snapshots.diff(first)).toMatchObject({ added: ["d7/new.txt"], modified: ["d3/f3.txt"], deleted: ["d9/f9.txt"] });
      // The fast path agrees with the main-thread walk on the restored tree.
      const rootBytes = toBytePath(root);
      expect(comparableScan(await scanWorkspaceFast(rootBytes, null))).toEqual(comparableScan(scanAgainstIndex(rootBytes, null)));
    } finally {
      temps.track(snapshots.gitDir);
      await snapshots.cleanup();
    }
  }, 60_000);
});
