/**
 * A git restore as the first operation of a new process (an agent rolling back, a CLI):
 * the git processes it starts, counted through a logging `git` put first on PATH, and the
 * message it gives when git cannot run at all. The restore runs in a child process
 * (fault-child.test-support.ts), so nothing of this process (a cached `git --version`
 * check, a loaded workspace index) helps it.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { compileForChild } from "./child-compiler.test-support.js";
import { GitSnapshotRepo } from "./git-repo.js";
import { HostSnapshots } from "./host-snapshots.js";
import { PARALLEL_SCAN_MIN_ENTRIES } from "./scan-pool.js";
import { fingerprint, sleep, TempDirs, writeTree } from "./snapshot.test-support.js";

const temps = new TempDirs();
let child = "";

beforeAll(() => {
  child = compileForChild(path.join(import.meta.dirname, "fault-child.test-support.ts"), temps.make("first-restore-child-"));
}, 120_000);

afterAll(() => temps.removeAll());

interface ChildError {
  name: string;
  code: string | null;
  message: string;
}

/** Runs one restore in a fresh process with `PATH`; resolves with its error (null: it succeeded). */
function restoreInChild(env: Record<string, string>, pathVariable: string): Promise<ChildError | null> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child], { env: { PATH: pathVariable, WINK_OP: "restore", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        resolve((JSON.parse(line) as { error: ChildError | null }).error);
      } catch {
        reject(new Error(`child exited with ${code}: ${stdout}${stderr}`));
      }
    });
  });
}

/** A workspace with two snapshots, changed again after the second (what a rollback meets). */
async function rollbackCase(fileCount = 60): Promise<{ root: string; state: string; gitDir: string; first: FilesystemSnapshot; firstPrint: string[] }> {
  const root = temps.make("ws-");
  const state = temps.make("state-");
  const snapshots = new HostSnapshots(root, { strategy: "git", gitDir: path.join(temps.make("git-parent-"), "git"), treeApply: { stateDir: state, durable: false } });
  const files: Record<string, string> = {};
  for (let i = 0; i < fileCount; i++) files[`d${i % 6}/f${i}.txt`] = `file ${i}\n`;
  writeTree(root, files);
  await sleep(150); // older than the racy margin: the index vouches for the files
  const first = await snapshots.snapshot();
  const firstPrint = fingerprint(root);
  writeTree(root, { "d1/f1.txt": "second\n", "d2/new.txt": "new\n" });
  await snapshots.snapshot();
  writeTree(root, { "d3/f3.txt": "edited after\n" });
  return { root, state, gitDir: snapshots.gitDir as string, first, firstPrint };
}

describe("git restore as the first operation of a process", () => {
  it("starts one git process (cat-file), no `git --version` check, and restores", async () => {
    const { root, state, gitDir, first, firstPrint } = await rollbackCase();
    const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
    const shims = temps.make("git-shim-");
    const log = path.join(shims, "calls.log");
    writeFileSync(path.join(shims, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
    chmodSync(path.join(shims, "git"), 0o755);

    const error = await restoreInChild({ WINK_ROOT: root, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_RECORD: JSON.stringify(first) }, `${shims}:${process.env.PATH ?? ""}`);
    expect(error).toBeNull();
    expect(fingerprint(root)).toEqual(firstPrint);
    const calls = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/ cat-file --batch$/);
  }, 60_000);

  it("walks a big workspace with one `find` started ahead, and restores exactly also when find cannot be used", async () => {
    const { root, state, gitDir, first, firstPrint } = await rollbackCase(PARALLEL_SCAN_MIN_ENTRIES);
    const shims = temps.make("find-shim-");
    const log = path.join(shims, "find.log");
    const realFind = execFileSync("sh", ["-c", "command -v find"]).toString().trim();
    writeFileSync(path.join(shims, "find"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realFind}' "$@"\n`);
    chmodSync(path.join(shims, "find"), 0o755);
    const env = { WINK_ROOT: root, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_RECORD: JSON.stringify(first) };
    expect(await restoreInChild(env, `${shims}:${process.env.PATH ?? ""}`)).toBeNull();
    expect(fingerprint(root)).toEqual(firstPrint);
    const calls = readFileSync(log, "utf8").trim().split("\n");
    expect(calls).toHaveLength(1);
    // Told the index's scan time, find prints only what the index cannot vouch for by itself.
    expect(calls[0]).toContain(`-H ${root} -mindepth 1 ( ( -type f -o -type l ) ! -newerct @`);
    expect(calls[0]).toContain(") -o -printf");

    // An index file whose head reads but whose body is damaged: find is started for it, the
    // load fails, the walk falls back to JavaScript against no index, and the result is the same.
    const indexFile = GitSnapshotRepo.indexFileOf(gitDir);
    const intact = readFileSync(indexFile);
    writeFileSync(indexFile, intact.subarray(0, intact.length - 100));
    writeTree(root, { "d3/f3.txt": "edited once more\n", "d5/extra.txt": "extra\n" });
    expect(await restoreInChild(env, `${shims}:${process.env.PATH ?? ""}`)).toBeNull();
    expect(fingerprint(root)).toEqual(firstPrint);
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(2);
    writeFileSync(indexFile, intact);

    // BusyBox's find has no -printf: the walk falls back to JavaScript, the result is the same.
    writeTree(root, { "d3/f3.txt": "edited again\n", "d4/extra.txt": "extra\n" });
    const busybox = temps.make("busybox-find-");
    symlinkSync("/bin/busybox", path.join(busybox, "find"));
    expect(await restoreInChild(env, `${busybox}:${process.env.PATH ?? ""}`)).toBeNull();
    expect(fingerprint(root)).toEqual(firstPrint);
  }, 120_000);

  it("still says that git is missing when it is, and leaves the workspace as it was", async () => {
    const { root, state, gitDir, first } = await rollbackCase();
    const before = fingerprint(root);
    const noGit = temps.make("no-git-path-");
    const error = await restoreInChild({ WINK_ROOT: root, WINK_STATE: state, WINK_GITDIR: gitDir, WINK_RECORD: JSON.stringify(first) }, noGit);
    expect(error?.name).toBe("SnapshotRestoreError");
    expect(error?.message).toContain(`Failed to restore snapshot ${first.snapshotId}: The git snapshot strategy needs the \`git\` command`);
    expect(fingerprint(root)).toEqual(before);
  }, 60_000);
});
