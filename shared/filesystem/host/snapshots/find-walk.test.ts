/**
 * The `find` walk gives exactly what the walk in JavaScript gives (same entries, same stat
 * numbers, same trust decisions against an index), and answers null — so the caller walks
 * in JavaScript — whenever `find` fails or is not GNU find.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { toBytePath } from "./byte-paths.js";
import { ctimesBoundIndex, FindWalk, type ShellSpawner } from "./find-walk.js";
import { comparableScan, indexThenChange, hostileTree, sleep, TempDirs, writeTree } from "./snapshot.test-support.js";
import { PackedIndexEntries } from "./packed-index-entries.js";
import { decodeWorkspaceIndex, encodeWorkspaceIndex } from "./workspace-index-binary.js";
import type { IndexEntry, WorkspaceIndex } from "./workspace-index-types.js";
import { scanAgainstIndex, scanWorkspace, type LeafStat, type ScanBaseline } from "./workspace-scan.js";

const temps = new TempDirs();
afterEach(() => temps.removeAll());

const options = { excludeTopLevelPrefix: ".wink-apply-" };

/** `baseline` written and read back as the git strategy's binary index (entries read in place). */
function packedBaseline(baseline: ScanBaseline): ScanBaseline {
  const entries = new Map<string, IndexEntry>([...baseline.entries].map(([p, stat]) => [p, { ...stat, oid: "0".repeat(40) }]));
  const index = decodeWorkspaceIndex(encodeWorkspaceIndex("/root", { ref: "f".repeat(40), scanStartedAtMs: baseline.scanStartedAtMs, entries }), "/root");
  expect(index?.entries).toBeInstanceOf(PackedIndexEntries);
  return { scanStartedAtMs: baseline.scanStartedAtMs, entries: (index as WorkspaceIndex).entries };
}

async function findWalk(rootBytes: string, baseline: Parameters<FindWalk["collect"]>[0]): Promise<ReturnType<typeof scanAgainstIndex> | null> {
  const walk = FindWalk.start(rootBytes, options);
  expect(walk).not.toBeNull();
  return (walk as FindWalk).collect(baseline);
}

describe("find walk", () => {
  it("walks exactly like the walk in JavaScript, with and without an index", async () => {
    const root = temps.make("find-walk-");
    hostileTree(root);
    // Sub-millisecond timestamps: the numbers must be Node's own `mtimeMs`, to the last bit.
    utimesSync(path.join(root, "a.txt"), 1_700_000_000.123456, 1_700_000_000.987654);
    const rootBytes = toBytePath(root);
    const plain = scanAgainstIndex(rootBytes, null, options);
    const found = await findWalk(rootBytes, null);
    expect(found).not.toBeNull();
    expect(comparableScan(found as NonNullable<typeof found>)).toEqual(comparableScan(plain));
    expect(plain.others).toEqual(["pipe"]);
    expect([...plain.untrusted.keys()].some((p) => p.includes("\xff\xfe"))).toBe(true);

    const baseline = indexThenChange(root, options);
    const sequential = scanAgainstIndex(rootBytes, baseline, options);
    const viaFind = await findWalk(rootBytes, baseline);
    expect(comparableScan(viaFind as NonNullable<typeof viaFind>)).toEqual(comparableScan(sequential));
    expect(viaFind?.untrusted.has("a.txt")).toBe(true);
    expect(viaFind?.untrusted.has("tool.sh")).toBe(true);
    expect(viaFind?.untrusted.has("secret.txt")).toBe(false);
    expect(viaFind?.missing).toContain("deep/er/y.txt");
  });

  it("told the index's scan time, prints only what the index cannot vouch for, and completes to the same walk", async () => {
    const root = temps.make("find-walk-since-");
    hostileTree(root);
    // In a directory whose names do not change: an mtime in the future (the index cannot
    // vouch for that file however old its ctime), and a file edited invisibly but for its ctime.
    writeTree(root, { "quiet/future.txt": "f", "quiet/same-size.txt": "a", "quiet/kept.txt": "k" });
    const future = Date.now() / 1000 + 3600;
    utimesSync(path.join(root, "quiet/future.txt"), future, future);
    await sleep(150); // older than the racy margin
    const rootBytes = toBytePath(root);
    const indexed = scanWorkspace(rootBytes, options);
    const entries = new Map<string, LeafStat>(indexed.leaves);
    const baseline: ScanBaseline = { scanStartedAtMs: indexed.startedAtMs, entries };

    // Every kind of change, several of them invisible to the directory they are in.
    const aTime = statSync(path.join(root, "quiet/same-size.txt")).mtime;
    writeFileSync(path.join(root, "quiet/same-size.txt"), "b"); // same size, mtime set back: only its ctime tells
    utimesSync(path.join(root, "quiet/same-size.txt"), aTime, aTime);
    writeTree(root, { "many/d1/f5.txt": "changed", "many/d0/new.txt": "new", "fresh/sub/x.txt": "x" });
    chmodSync(path.join(root, "tool.sh"), 0o700);
    rmSync(path.join(root, "deep/er/y.txt"));
    rmSync(path.join(root, "many/d2"), { recursive: true });
    rmSync(path.join(root, "many/d3/f3.txt"));
    writeTree(root, { "many/d3/f3.txt/inner.txt": "a file became a directory" });
    rmSync(path.join(root, "links/dangling"));
    symlinkSync("elsewhere", path.join(root, "links/dangling"));

    // The index as a map, as the git strategy loads it (packed rows read in place), and
    // so loaded then updated (entries set again live beside the rows: one in a directory
    // whose names changed, one in a directory that did not).
    const updated = packedBaseline(baseline);
    for (const p of ["many/d0/f0.txt", "quiet/kept.txt", "a.txt"]) (updated.entries as Map<string, IndexEntry>).set(p, { ...(baseline.entries.get(p) as LeafStat), oid: "1".repeat(40) });
    expect((updated.entries as PackedIndexEntries).pristine).toBe(false);
    // A packed index compared as of another scan time decides raciness from the timestamps.
    const otherTime = { ...packedBaseline(baseline), scanStartedAtMs: baseline.scanStartedAtMs + 1 };
    for (const base of [baseline, packedBaseline(baseline), updated, otherTime]) {
      const walk = FindWalk.start(rootBytes, { ...options, unchangedSince: base.scanStartedAtMs });
      expect(walk).not.toBeNull();
      const viaFind = await (walk as FindWalk).collect(base);
      expect(viaFind).not.toBeNull();
      const sequential = scanAgainstIndex(rootBytes, base, options);
      expect(comparableScan(viaFind as NonNullable<typeof viaFind>)).toEqual(comparableScan(sequential));
      expect(comparableScan(sequential)).toEqual(comparableScan(scanAgainstIndex(rootBytes, baseline, options)));
      const untrusted = [...(viaFind?.untrusted.keys() ?? [])].sort();
      expect(untrusted).toEqual(["fresh/sub/x.txt", "links/dangling", "many/d0/new.txt", "many/d1/f5.txt", "many/d3/f3.txt/inner.txt", "quiet/future.txt", "quiet/same-size.txt", "tool.sh"]);
      expect([...(viaFind?.missing ?? [])].sort()).toEqual(["deep/er/y.txt", "many/d2/f10.txt", "many/d2/f14.txt", "many/d2/f18.txt", "many/d2/f2.txt", "many/d2/f22.txt", "many/d2/f26.txt", "many/d2/f30.txt", "many/d2/f34.txt", "many/d2/f38.txt", "many/d2/f6.txt", "many/d3/f3.txt"]);
      expect(viaFind?.leafCount).toBe(sequential.leafCount);
      expect(viaFind?.oddPerms.length).toBeGreaterThan(0);
    }
  });

  it("told an index's scan time, answers null for another index or none (the caller walks in JS)", async () => {
    const root = temps.make("find-walk-other-");
    writeTree(root, { "a.txt": "a" });
    const baseline: ScanBaseline = { scanStartedAtMs: Date.now() - 10_000, entries: new Map() };
    const other: ScanBaseline = { scanStartedAtMs: baseline.scanStartedAtMs - 5_000, entries: new Map() };
    expect(await (FindWalk.start(toBytePath(root), { ...options, unchangedSince: baseline.scanStartedAtMs }) as FindWalk).collect(other)).toBeNull();
    expect(await (FindWalk.start(toBytePath(root), { ...options, unchangedSince: baseline.scanStartedAtMs }) as FindWalk).collect(null)).toBeNull();
    expect((await (FindWalk.start(toBytePath(root), { ...options, unchangedSince: baseline.scanStartedAtMs }) as FindWalk).collect(baseline))?.untrusted.has("a.txt")).toBe(true);
  });

  it("runs beside another process started with it (one process start), which does not hold find's output open", async () => {
    const root = temps.make("find-walk-beside-");
    hostileTree(root);
    await sleep(150);
    const rootBytes = toBytePath(root);
    const indexed = scanWorkspace(rootBytes, options);
    const baseline: ScanBaseline = { scanStartedAtMs: indexed.startedAtMs, entries: new Map<string, LeafStat>(indexed.leaves) };
    writeTree(root, { "many/d1/f5.txt": "changed", "new.txt": "new" });
    // `cat` stands for git: it runs until its stdin ends, long after find is done.
    const spawner: ShellSpawner = (prelude, env) => spawn("/bin/sh", ["-c", prelude, "sh", "cat"], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe", "pipe"] });
    const { child, walk } = FindWalk.besideGit(rootBytes, { ...options, unchangedSince: baseline.scanStartedAtMs }, spawner, () => {
      throw new Error("find is usable here");
    });
    expect(walk).not.toBeNull();
    const viaFind = await (walk as FindWalk).collect(baseline);
    expect(child.exitCode).toBeNull(); // the walk ended while the other process still runs
    expect(comparableScan(viaFind as NonNullable<typeof viaFind>)).toEqual(comparableScan(scanAgainstIndex(rootBytes, baseline, options)));
    expect([...(viaFind?.untrusted.keys() ?? [])].sort()).toEqual(["many/d1/f5.txt", "new.txt"]);
    const echoed = new Promise<string>((resolve) => child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    child.stdin?.end("still there\n");
    expect(await echoed).toBe("still there\n");

    // find failing (the root is gone): null, and the other process is started all the same.
    const gone = path.join(temps.make("find-walk-beside-gone-"), "missing");
    const failed = FindWalk.besideGit(toBytePath(gone), { ...options, unchangedSince: baseline.scanStartedAtMs }, spawner, () => {
      throw new Error("find is usable here");
    });
    expect(await failed.walk?.collect(baseline)).toBeNull();
    failed.child.stdin?.end();
    expect(await new Promise((resolve) => failed.child.on("close", resolve))).toBe(0);
  });

  it("bounds an index by ctimes on local filesystems only", () => {
    expect(ctimesBoundIndex(toBytePath(temps.make("find-walk-fs-")))).toBe(true); // ext4 or tmpfs here
    expect(ctimesBoundIndex("/proc")).toBe(false);
    expect(ctimesBoundIndex(path.join(temps.make("find-walk-fs-gone-"), "missing"))).toBe(false);
  });

  it("dates the walk from its start, before `find` ran", async () => {
    const root = temps.make("find-walk-start-");
    writeTree(root, { "a.txt": "a" });
    const before = Date.now();
    const walk = FindWalk.start(toBytePath(root), options) as FindWalk;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const scan = await walk.collect(null);
    expect(scan?.startedAtMs).toBeGreaterThanOrEqual(before);
    expect(scan?.startedAtMs).toBeLessThan(before + 40);
  });

  it("follows a symlinked root, and no symlink below it", async () => {
    const parent = temps.make("find-walk-link-");
    writeTree(path.join(parent, "real"), { "in/a.txt": "a", "out-link": { symlink: "/etc" } });
    symlinkSync(path.join(parent, "real"), path.join(parent, "root"));
    const rootBytes = toBytePath(path.join(parent, "root"));
    const found = await findWalk(rootBytes, null);
    expect(comparableScan(found as NonNullable<typeof found>)).toEqual(comparableScan(scanAgainstIndex(rootBytes, null, options)));
    expect(found?.untrusted.get("out-link")?.kind).toBe("symlink");
    expect(found?.leafCount).toBe(2);
  });

  it("answers null when find fails (the caller then walks, and reports, in JavaScript), and is used again after", async () => {
    const gone = path.join(temps.make("find-walk-gone-"), "missing");
    expect(await (FindWalk.start(toBytePath(gone), options) as FindWalk).collect(null)).toBeNull();
    const root = temps.make("find-walk-after-");
    mkdirSync(path.join(root, "d"));
    expect((await findWalk(toBytePath(root), null))?.dirs.has("d")).toBe(true);
  });

  // Last: a find without -printf is remembered for the rest of the process.
  it("answers null with a find that has no -printf (BusyBox), then is not started again", async () => {
    const bin = temps.make("find-walk-busybox-");
    symlinkSync("/bin/busybox", path.join(bin, "find"));
    const root = temps.make("find-walk-bb-");
    writeTree(root, { "a.txt": "a" });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ""}`;
    try {
      expect(await (FindWalk.start(toBytePath(root), options) as FindWalk).collect(null)).toBeNull();
    } finally {
      process.env.PATH = saved;
    }
    expect(FindWalk.start(toBytePath(root), options)).toBeNull();
  });
});
