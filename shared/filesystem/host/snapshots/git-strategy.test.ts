/**
 * What only the git strategy promises: the external repository (conformance 3.13 "Host"),
 * hardening against hostile workspaces and callers, and real git seeing what we stored.
 */
import { Buffer } from "node:buffer";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { securityFixture } from "../../../../fixtures/paths.js";
import { extractArchive } from "../../../archive/index.js";
import { SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotRestoreError } from "../../../errors.js";
import { HostDriver } from "../host-driver.js";
import { HostSnapshots } from "./host-snapshots.js";
import { canaries, fingerprint, sleep, TempDirs, writeTree } from "./snapshot.test-support.js";

const POISON_ZIP = securityFixture("zips/70-git-poison.zip");

const temps = new TempDirs();
const open: HostSnapshots[] = [];

function setup(options: { gitDir?: string | null } = {}): { root: string; state: string; snapshots: HostSnapshots } {
  const root = temps.make("ws-");
  const state = temps.make("state-");
  const snapshots = new HostSnapshots(root, { strategy: "git", gitDir: options.gitDir ?? null, treeApply: { stateDir: state, durable: false } });
  open.push(snapshots);
  return { root, state, snapshots };
}

/** A workspace with one git snapshot, and where a fast-import's lock of refs/wink/base and its noted pid go. */
async function snapshottedRepo(): Promise<{ root: string; snapshots: HostSnapshots; gitDir: string; lock: string; noted: string }> {
  const { root, snapshots } = setup();
  writeTree(root, { "a.txt": "v1" });
  await snapshots.snapshot();
  const gitDir = snapshots.gitDir as string;
  return { root, snapshots, gitDir, lock: path.join(gitDir, "refs", "wink", "base.lock"), noted: path.join(gitDir, "wink", "fast-import.pid") };
}

/** Real git, outside our hardening, reading our repository. */
function git(gitDir: string, ...args: string[]): string {
  return execFileSync("git", [`--git-dir=${gitDir}`, ...args], { env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: "1" } }).toString("latin1");
}

afterEach(async () => {
  for (const snapshots of open.splice(0)) {
    temps.track(snapshots.gitDir);
    await snapshots.cleanup();
  }
  temps.removeAll();
});

describe("git strategy: the external repository", () => {
  it("creates it on the first snapshot, under the temp dir as wink-git-*, and keeps using it", async () => {
    const { root, snapshots } = setup();
    writeTree(root, { "a.txt": "x" });
    expect(snapshots.gitDir).toBeNull();
    const first = await snapshots.snapshot();
    const gitDir = snapshots.gitDir as string;
    expect(path.dirname(gitDir)).toBe(tmpdir());
    expect(path.basename(gitDir)).toMatch(/^wink-git-/);
    expect(first.gitDir).toBe(gitDir);
    expect(existsSync(path.join(root, ".git"))).toBe(false);
    expect(readdirSync(root)).toEqual(["a.txt"]);
    const second = await snapshots.snapshot();
    expect(second.gitDir).toBe(gitDir);
    expect(git(gitDir, "rev-parse", "--is-bare-repository").trim()).toBe("true");
    expect(git(gitDir, "cat-file", "-t", second.commitRef).trim()).toBe("commit");
    expect(git(gitDir, "rev-parse", `${second.commitRef}^`).trim()).toBe(first.commitRef);
  });

  it("honours a custom git directory and refuses one inside the workspace", async () => {
    const custom = path.join(temps.make("custom-"), "nested", "repo.git");
    const { root, snapshots } = setup({ gitDir: custom });
    writeTree(root, { "a.txt": "x" });
    expect(snapshots.gitDir).toBe(custom);
    const snap = await snapshots.snapshot();
    expect(snap.gitDir).toBe(custom);
    expect(existsSync(path.join(custom, "HEAD"))).toBe(true);

    const inside = setup();
    const bad = new HostSnapshots(inside.root, { strategy: "git", gitDir: path.join(inside.root, ".snapshots"), treeApply: { stateDir: inside.state } });
    await expect(bad.snapshot()).rejects.toBeInstanceOf(SnapshotIncompatibleError);
    expect(existsSync(path.join(inside.root, ".snapshots"))).toBe(false);
  });

  it("stores what git itself would skip, as real git sees it", async () => {
    const { root, snapshots } = setup();
    writeTree(root, {
      ".gitignore": "*\n",
      "ignored.log": "log",
      "-rf": "x",
      "--upload-pack=touch wink-canary-opt": "y",
      "nested/.git/HEAD": "ref: refs/heads/main\n",
      "nested/code.py": "print(1)\n",
      "empty": { dir: true },
    });
    const snap = await snapshots.snapshot();
    const names = git(snapshots.gitDir as string, "ls-tree", "-r", "-z", "--name-only", snap.commitRef).split("\0").filter(Boolean).sort();
    expect(names).toEqual(["--upload-pack=touch wink-canary-opt", "-rf", ".gitignore", "ignored.log", "nested/.git/HEAD", "nested/code.py"]);
    const message = git(snapshots.gitDir as string, "log", "-1", "--format=%B", snap.commitRef);
    expect(message).toContain('"emptyDirs":["empty"]');
  });

  it("lets a fresh instance adopt the git directory a snapshot carries", async () => {
    const { root, state, snapshots } = setup();
    writeTree(root, { "a.txt": "v1" });
    const snap = await snapshots.snapshot();
    writeTree(root, { "a.txt": "v2" });
    const fresh = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: state, durable: false } });
    expect(fresh.gitDir).toBeNull();
    await fresh.restore(snap);
    expect(fresh.gitDir).toBe(snapshots.gitDir);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v1");
    const next = await fresh.snapshot();
    expect(next.gitDir).toBe(snapshots.gitDir);
  });

  it("restores another filesystem's snapshot without adopting its repository", async () => {
    const source = setup();
    writeTree(source.root, { "from-source.txt": "s" });
    const snap = await source.snapshots.snapshot();
    const target = setup();
    writeTree(target.root, { "own.txt": "o" });
    await target.snapshots.snapshot();
    const ownGitDir = target.snapshots.gitDir;
    // Restoring another workspace's snapshot is refused unless asked for by name (issue 29).
    await expect(target.snapshots.restore(snap)).rejects.toMatchObject({ code: "E_SNAPSHOT_INCOMPATIBLE" });
    await target.snapshots.restore(snap, { restoreIntoOtherWorkspace: true });
    expect(target.snapshots.gitDir).toBe(ownGitDir);
    expect(fingerprint(target.root)).toEqual(fingerprint(source.root));
  });

  it("reads only changed files on an incremental snapshot", async () => {
    const { root, snapshots } = setup();
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`d${i % 10}/f${i}.txt`] = `content ${i}`;
    writeTree(root, files);
    await sleep(150);
    await snapshots.snapshot();
    expect(snapshots.lastStats).toMatchObject({ operation: "capture", leaves: 200, read: 200, changed: 200 });
    await sleep(150);
    writeTree(root, { "d0/f0.txt": "edited", "d1/new.txt": "new" });
    rmSync(path.join(root, "d2/f2.txt"));
    const second = await snapshots.snapshot();
    expect(snapshots.lastStats).toMatchObject({ operation: "capture", leaves: 200, read: 2, changed: 3 });
    // A new process reads the persisted index instead of every file; the two files written
    // just before the last scan were too recent to trust ("racy") and are read once more.
    const fresh = new HostSnapshots(root, { strategy: "git", gitDir: snapshots.gitDir, treeApply: { durable: false } });
    await sleep(150);
    await fresh.snapshot();
    expect(fresh.lastStats).toMatchObject({ read: 2, changed: 0 });
    await fresh.snapshot();
    expect(fresh.lastStats).toMatchObject({ read: 0, changed: 0 });
    expect(git(snapshots.gitDir as string, "diff-tree", "-r", "--name-status", `${second.commitRef}^`, second.commitRef).trim().split("\n").sort()).toEqual([
      "A\td1/new.txt",
      "D\td2/f2.txt",
      "M\td0/f0.txt",
    ]);
  });

  it("fails cleanly when the commit cannot be written, and recovers", async () => {
    const { root, snapshots } = setup();
    writeTree(root, { "a.txt": "v1" });
    const first = await snapshots.snapshot();
    const refs = path.join(snapshots.gitDir as string, "refs", "wink");
    renameSync(refs, `${refs}.aside`);
    writeFileSync(refs, "not a directory\n"); // refs/wink/snapshots/<id> cannot be created
    writeTree(root, { "a.txt": "v2" });
    const failing = snapshots.snapshot();
    await expect(failing).rejects.toBeInstanceOf(SnapshotCreationError);
    await expect(failing).rejects.toThrow(/Failed to create snapshot commit/);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v2");
    expect(readdirSync(snapshots.gitDir as string).filter((n) => n.startsWith("fast_import_crash"))).toEqual([]);
    rmSync(refs);
    renameSync(`${refs}.aside`, refs);
    const third = await snapshots.snapshot();
    await snapshots.restore(first);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v1");
    await snapshots.restore(third);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v2");
  });

  it("removes the ref locks of a fast-import killed mid-update, never those of a live one", async () => {
    const { root, snapshots, gitDir, lock, noted } = await snapshottedRepo();
    // As after kill -9 of the process group while fast-import held the lock of refs/wink/base.
    const gone = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).toString();
    writeFileSync(lock, "");
    writeFileSync(noted, gone);
    writeTree(root, { "a.txt": "v2" });
    const second = await snapshots.snapshot();
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(noted)).toBe(false);
    expect(git(gitDir, "rev-parse", "refs/wink/base").trim()).toBe(second.commitRef);
    // A writer that is still running keeps its lock: the snapshot fails clearly instead.
    writeFileSync(lock, "");
    writeFileSync(noted, String(process.pid));
    writeTree(root, { "a.txt": "v3" });
    await expect(snapshots.snapshot()).rejects.toThrow(/Failed to create snapshot commit.*refs\/wink\/base/s);
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
  });

  it("takes a killed writer that is still a zombie (not yet reaped) for gone", async () => {
    const { root, snapshots, gitDir, lock, noted } = await snapshottedRepo();
    // The child exits at once and its parent never waits for it: a zombie for as long as the parent sleeps.
    // (A shell is no good here: dash may reap its background job before it execs into sleep.)
    const parent = spawn(
      "python3",
      ["-c", "import os, sys, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    try {
      const zombie = await new Promise<string>((resolve) => parent.stdout.once("data", (data: Buffer) => resolve(data.toString().trim())));
      for (let tries = 0; !readFileSync(`/proc/${zombie}/stat`, "latin1").includes(") Z "); tries++) {
        if (tries > 100) throw new Error(`process ${zombie} never became a zombie`);
        await sleep(20);
      }
      writeFileSync(lock, "");
      writeFileSync(noted, zombie);
      writeTree(root, { "a.txt": "v2" });
      const second = await snapshots.snapshot();
      expect(existsSync(lock)).toBe(false);
      expect(git(gitDir, "rev-parse", "refs/wink/base").trim()).toBe(second.commitRef);
    } finally {
      parent.kill("SIGKILL");
    }
  });

  it("reports a corrupt snapshot (a missing object) and leaves the workspace unchanged", async () => {
    const { root, snapshots } = setup();
    writeTree(root, { "a.txt": "precious v1", "b.txt": "b" });
    const snap = await snapshots.snapshot();
    writeTree(root, { "a.txt": "v2", "c.txt": "new" });
    const blob = git(snapshots.gitDir as string, "rev-parse", `${snap.commitRef}:a.txt`).trim();
    const loose = path.join(snapshots.gitDir as string, "objects", blob.slice(0, 2), blob.slice(2));
    expect(existsSync(loose)).toBe(true);
    rmSync(loose);
    const before = fingerprint(root);
    const restoring = snapshots.restore(snap);
    await expect(restoring).rejects.toBeInstanceOf(SnapshotRestoreError);
    await expect(restoring).rejects.toThrow(/Failed to restore snapshot .*corrupt.*missing/);
    expect(fingerprint(root)).toEqual(before);
  });

  it("refuses a malformed commit reference and a missing git directory", async () => {
    const { root, snapshots } = setup();
    writeTree(root, { "a.txt": "x" });
    const snap = await snapshots.snapshot();
    await expect(snapshots.restore({ ...snap, commitRef: "--upload-pack=touch /tmp/wink-canary-ref" })).rejects.toThrow(/Failed to restore.*not a git commit id/);
    await expect(snapshots.restore({ ...snap, gitDir: path.join(tmpdir(), "wink-git-does-not-exist") })).rejects.toThrow(/Failed to restore.*does not exist/);
    expect(canaries()).toEqual([]);
  });

  it("refuses to diff a git snapshot against another strategy's", async () => {
    const { root, snapshots } = setup();
    writeTree(root, { "a.txt": "x" });
    const snap = await snapshots.snapshot();
    await expect(snapshots.diff(snap, { ...snap, strategy: "copy" })).rejects.toBeInstanceOf(SnapshotIncompatibleError);
    await expect(snapshots.restore({ ...snap, backend: "in_memory" })).rejects.toBeInstanceOf(SnapshotError);
  });
});

describe("git strategy: hostile workspaces and callers", () => {
  it("round-trips the git-poison archive byte for byte and runs nothing", async () => {
    const { root, state, snapshots } = setup();
    const driver = new HostDriver({ root, stateDir: state, durable: false });
    await driver.replaceTree((tx) => extractArchive(POISON_ZIP, tx, { allowGitMetadata: true }).then(() => undefined));
    const before = fingerprint(root);
    expect(before.some((line) => line.includes('".git/hooks/pre-commit"'))).toBe(true);
    expect(before.some((line) => line.includes('"nested/.git/HEAD"'))).toBe(true);
    const snap = await snapshots.snapshot();
    // Mutate: drop the hooks, rewrite the attributes, plant files git would ignore.
    rmSync(path.join(root, ".git"), { recursive: true });
    rmSync(path.join(root, "nested"), { recursive: true });
    writeTree(root, { ".gitattributes": "* text\n", "lf.txt": "changed\r\n", "-rf": "replaced", "new/ignored.txt": "x" });
    await snapshots.restore(snap);
    expect(fingerprint(root)).toEqual(before);
    const again = await snapshots.snapshot();
    expect(await snapshots.diff(snap, again)).toMatchObject({ added: [], modified: [], deleted: [] });
    expect(canaries()).toEqual([]);
  });

  it("ignores the caller's git environment, global config and a poisoned custom repository", async () => {
    const evil = temps.make("evil-home-");
    const canary = path.join(tmpdir(), `wink-canary-env-${process.pid}-ran`);
    const hookDir = path.join(evil, "hooks");
    mkdirSync(hookDir);
    for (const hook of ["pre-commit", "post-commit", "pre-auto-gc", "reference-transaction", "post-checkout"]) {
      writeFileSync(path.join(hookDir, hook), `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
    }
    const config = `[core]\n\tfsmonitor = touch ${canary}\n\thooksPath = ${hookDir}\n\tautocrlf = true\n[filter "evil"]\n\tclean = touch ${canary}\n\tsmudge = touch ${canary}\n`;
    writeFileSync(path.join(evil, ".gitconfig"), config);
    writeFileSync(path.join(evil, "attributes"), "* filter=evil text eol=crlf\n");
    const gitDir = path.join(temps.make("poisoned-repo-"), "repo.git");
    execFileSync("git", ["init", "--bare", "-q", gitDir]);
    writeFileSync(path.join(gitDir, "config"), `${readFileSync(path.join(gitDir, "config"), "utf8")}${config}[core]\n\tattributesFile = ${path.join(evil, "attributes")}\n`);
    const saved = { ...process.env };
    Object.assign(process.env, {
      HOME: evil,
      XDG_CONFIG_HOME: evil,
      GIT_CONFIG_GLOBAL: path.join(evil, ".gitconfig"),
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='touch ${canary}'`,
      GIT_DIR: evil,
      GIT_WORK_TREE: evil,
      GIT_INDEX_FILE: path.join(evil, "index"),
      GIT_OBJECT_DIRECTORY: path.join(evil, "objects"),
    });
    try {
      const { root, snapshots } = setup({ gitDir });
      writeTree(root, { "crlf.txt": "a\r\nb\n", "bin.dat": Buffer.from([0, 13, 10, 255]), ".gitattributes": "* filter=evil\n" });
      const before = fingerprint(root);
      const snap = await snapshots.snapshot();
      writeTree(root, { "crlf.txt": "changed", "more.txt": "x" });
      await snapshots.restore(snap);
      expect(fingerprint(root)).toEqual(before);
      expect(existsSync(canary)).toBe(false);
      expect(existsSync(path.join(evil, "index"))).toBe(false);
    } finally {
      process.env = saved;
      rmSync(canary, { force: true });
    }
  });
});
