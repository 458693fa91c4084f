/**
 * Reliability of git restores (and snapshots) under faults, with real processes:
 * SIGKILL at random moments (then the next start's recovery), a full disk (a small
 * tmpfs) and read-only mounts (mount namespaces via `unshare -Urm`, so root's permission
 * bypass cannot make the test pass vacuously).
 */
import type { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { recoverTreeChanges } from "../tree-apply/index.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { compileForChild } from "./child-compiler.test-support.js";
import { HostSnapshots } from "./host-snapshots.js";
import { fingerprint, TempDirs, writeTree } from "./snapshot.test-support.js";

const temps = new TempDirs();
let child = "";

beforeAll(() => {
  child = compileForChild(path.join(import.meta.dirname, "fault-child.test-support.ts"), temps.make("fault-child-"));
}, 120_000);

afterAll(() => temps.removeAll());

interface ChildResult {
  before: string[] | null;
  after: string[] | null;
  error: { name: string; code: string | null; message: string } | null;
}

/**
 * Run the child (optionally inside `unshare -Urm sh -c <prelude>`); SIGKILL its process
 * group `killAfterMs` after it reports "ready" (its modules loaded, the operation starting).
 */
function runChild(
  env: Record<string, string>,
  options: { killAfterMs?: number; namespacePrelude?: string } = {},
): Promise<{ signal: string | null; result: ChildResult | null; stderr: string; ranMs: number }> {
  return new Promise((resolve, reject) => {
    const args = options.namespacePrelude === undefined ? [process.execPath, child] : ["unshare", "-Urm", "sh", "-c", `${options.namespacePrelude} && exec "$0" "$1"`, process.execPath, child];
    const proc = spawn(args[0] as string, args.slice(1), { env: { PATH: process.env.PATH ?? "", ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let readyAt = 0;
    let timer: NodeJS.Timeout | null = null;
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (readyAt === 0 && stdout.includes("ready\n")) {
        readyAt = Date.now();
        if (options.killAfterMs !== undefined) {
          timer = setTimeout(() => {
            try {
              process.kill(-(proc.pid as number), "SIGKILL");
            } catch {
              // already gone
            }
          }, options.killAfterMs);
        }
      }
    });
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (_code, signal) => {
      if (timer !== null) clearTimeout(timer);
      const line = stdout.trim().split("\n").pop() ?? "";
      let result: ChildResult | null;
      try {
        result = line.startsWith("{") ? (JSON.parse(line) as ChildResult) : null;
      } catch {
        result = null;
      }
      resolve({ signal, result, stderr, ranMs: readyAt === 0 ? 0 : Date.now() - readyAt });
    });
  });
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function describeDifference(actual: readonly string[], expected: readonly string[]): string {
  const have = new Set(actual);
  const want = new Set(expected);
  const missing = expected.filter((line) => !have.has(line));
  const extra = actual.filter((line) => !want.has(line));
  return `${missing.length} missing ${JSON.stringify(missing.slice(0, 5))}, ${extra.length} extra ${JSON.stringify(extra.slice(0, 5))}`;
}

/** Two states of a workspace that differ in every way a restore handles. */
function buildStates(root: string): { a: Record<string, string | { content: string; mode: number } | { dir: true }>; b: () => void } {
  const a: Record<string, string | { content: string; mode: number } | { dir: true }> = {};
  for (let i = 0; i < 150; i++) a[`d${i % 12}/s${i % 5}/f${i}.txt`] = `old ${i} ${"a".repeat(i * 13)}`;
  a["bin/tool"] = { content: "#!/bin/sh\n", mode: 0o755 };
  a["empty/a"] = { dir: true };
  writeTree(root, a);
  return {
    a,
    b: () => {
      for (let i = 0; i < 150; i += 3) writeTree(root, { [`d${i % 12}/s${i % 5}/f${i}.txt`]: `new ${i} ${"b".repeat(i * 7)}` });
      for (let i = 1; i < 150; i += 6) rmSync(path.join(root, `d${i % 12}/s${i % 5}/f${i}.txt`));
      for (let i = 0; i < 60; i++) writeTree(root, { [`fresh${i % 9}/n${i}.txt`]: `fresh ${i}` });
      rmSync(path.join(root, "empty"), { recursive: true });
      chmodSync(path.join(root, "bin/tool"), 0o644);
      writeTree(root, { "d3/s3": { dir: true }, "now-empty/x": { dir: true } });
      rmSync(path.join(root, "d11"), { recursive: true });
      writeTree(root, { d11: "a file where a directory was" });
    },
  };
}

describe("restore interrupted by kill -9", () => {
  it("leaves the tree fully old or fully new after recovery, in 120 random kills", async () => {
    const root = temps.make("kill-ws-");
    const state = temps.make("kill-state-");
    const snapshots = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: state, durable: false } });
    const states = buildStates(root);
    const old = await snapshots.snapshot();
    const oldPrint = fingerprint(root);
    states.b();
    const next = await snapshots.snapshot();
    const newPrint = fingerprint(root);
    expect(newPrint).not.toEqual(oldPrint);
    temps.track(snapshots.gitDir);

    const env = (record: FilesystemSnapshot): Record<string, string> => ({
      WINK_OP: "restore",
      WINK_ROOT: root,
      WINK_STATE: state,
      WINK_GITDIR: snapshots.gitDir as string,
      WINK_RECORD: JSON.stringify(record),
    });
    // How long an uninterrupted restore takes here.
    const full = await runChild(env(old));
    const duration = full.ranMs;
    expect(full.result?.error ?? null).toBeNull();
    expect(fingerprint(root)).toEqual(oldPrint);

    const seen = { old: 0, new: 0, interrupted: 0 };
    let current: "old" | "new" = "old";
    for (let i = 0; i < 120; i++) {
      const target = current === "old" ? next : old;
      const run = await runChild(env(target), { killAfterMs: Math.floor(Math.random() * duration * 1.2) });
      if (run.signal === "SIGKILL") seen.interrupted += 1;
      else expect(run.result?.error ?? null, run.stderr).toBeNull();
      await recoverTreeChanges(root, { stateDir: state });
      const print = fingerprint(root);
      if (sameLines(print, oldPrint)) current = "old";
      else if (sameLines(print, newPrint)) current = "new";
      else expect.fail(`iteration ${i} (${run.signal ?? "exited"}): mixed state after a kill; against the old tree ${describeDifference(print, oldPrint)}; against the new tree ${describeDifference(print, newPrint)}`);
      seen[current] += 1;
    }
    expect(seen.interrupted).toBeGreaterThan(30);
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
    // No applier leftovers, and the snapshots still work from this process.
    await snapshots.restore(old);
    expect(fingerprint(root)).toEqual(oldPrint);
  }, 120_000);

  it("keeps every snapshot usable when snapshots are killed half-way", async () => {
    const root = temps.make("kill-snap-ws-");
    const state = temps.make("kill-snap-state-");
    const snapshots = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: state, durable: false } });
    buildStates(root);
    const first = await snapshots.snapshot();
    const firstPrint = fingerprint(root);
    temps.track(snapshots.gitDir);
    for (let i = 0; i < 20; i++) {
      writeTree(root, { [`round/${i}.bin`]: randomBytes(64 * 1024).toString("hex") });
      await runChild({ WINK_OP: "snapshot", WINK_ROOT: root, WINK_STATE: state, WINK_GITDIR: snapshots.gitDir as string }, { killAfterMs: Math.floor(Math.random() * 120) });
    }
    const last = await snapshots.snapshot();
    const lastPrint = fingerprint(root);
    await snapshots.restore(first);
    expect(fingerprint(root)).toEqual(firstPrint);
    await snapshots.restore(last);
    expect(fingerprint(root)).toEqual(lastPrint);
  }, 120_000);
});

describe("restore and snapshot on a full or read-only disk", () => {
  /** A workspace prepared on disk, snapshotted twice (A small, B with a 3 MB file), left at A. */
  async function prepared(): Promise<{ source: string; mount: string; state: string; gitDir: string; big: FilesystemSnapshot }> {
    const source = temps.make("fault-src-");
    const state = temps.make("fault-state-");
    const mount = temps.make("fault-mnt-");
    const snapshots = new HostSnapshots(source, { strategy: "git", treeApply: { stateDir: state, durable: false } });
    writeTree(source, { "keep.txt": "keep", "dir/a.txt": "a" });
    const small = await snapshots.snapshot();
    writeTree(source, { "big.bin": randomBytes(3 * 1024 * 1024), "dir/a.txt": "changed" });
    const big = await snapshots.snapshot();
    await snapshots.restore(small);
    temps.track(snapshots.gitDir);
    return { source, mount, state, gitDir: snapshots.gitDir as string, big };
  }

  it("reports a full disk cleanly and leaves the workspace unchanged", async () => {
    const { source, mount, state, gitDir, big } = await prepared();
    const run = await runChild(
      { WINK_OP: "restore", WINK_ROOT: mount, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_RECORD: JSON.stringify({ ...big, rootPath: mount }), WINK_FINGERPRINT: "1" },
      { namespacePrelude: `mount -t tmpfs -o size=1m tmpfs "${mount}" && cp -a "${source}/." "${mount}/"` },
    );
    expect(run.result, run.stderr).not.toBeNull();
    const result = run.result as ChildResult;
    expect(result.error?.name).toBe("SnapshotRestoreError");
    expect(result.error?.message).toMatch(/Failed to restore snapshot .*(space|ENOSPC)/i);
    expect(result.after).toEqual(result.before);
    expect(result.before).toEqual(fingerprint(source));
  });

  it("reports a read-only workspace cleanly and leaves it unchanged", async () => {
    const { source, state, gitDir, big } = await prepared();
    const run = await runChild(
      { WINK_OP: "restore", WINK_ROOT: source, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_RECORD: JSON.stringify(big), WINK_FINGERPRINT: "1" },
      { namespacePrelude: `mount --bind "${source}" "${source}" && mount -o remount,bind,ro "${source}"` },
    );
    const result = run.result as ChildResult;
    expect(result, run.stderr).not.toBeNull();
    expect(result.error?.name).toBe("SnapshotRestoreError");
    expect(result.error?.message).toMatch(/Failed to restore snapshot .*read-only/i);
    expect(result.after).toEqual(result.before);
  });

  it("reports a full or read-only git directory when snapshotting, and the snapshots stay usable", async () => {
    const { source, state, gitDir } = await prepared();
    writeTree(source, { "incompressible.bin": randomBytes(2 * 1024 * 1024) });
    const full = await runChild(
      { WINK_OP: "snapshot", WINK_ROOT: source, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_FINGERPRINT: "1" },
      { namespacePrelude: `mount -t tmpfs -o size=1m tmpfs "${gitDir}/objects"` },
    );
    expect(full.result?.error?.name, full.stderr).toBe("SnapshotCreationError");
    expect(full.result?.error?.message).toMatch(/Failed to create snapshot commit/);
    expect(full.result?.after).toEqual(full.result?.before);
    const readOnly = await runChild(
      { WINK_OP: "snapshot", WINK_ROOT: source, WINK_STATE: state, WINK_GITDIR: gitDir },
      { namespacePrelude: `mount --bind "${gitDir}" "${gitDir}" && mount -o remount,bind,ro "${gitDir}"` },
    );
    expect(readOnly.result?.error?.name, readOnly.stderr).toBe("SnapshotCreationError");
    const snapshots = new HostSnapshots(source, { strategy: "git", gitDir, treeApply: { stateDir: state, durable: false } });
    const after = await snapshots.snapshot();
    rmSync(path.join(source, "incompressible.bin"));
    await snapshots.restore(after);
    expect(fingerprint(source).some((line) => line.includes("incompressible.bin"))).toBe(true);
  });
});
