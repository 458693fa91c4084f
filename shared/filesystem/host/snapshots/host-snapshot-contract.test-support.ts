/**
 * The behaviour every host snapshot strategy must have (conformance 3.13 and the
 * exactness rules of MISSION.md), as one suite each strategy's test file runs. A strategy
 * that cannot store something says so with a named flag.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { SnapshotRestoreError } from "../../../errors.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import type { HostSnapshots } from "./host-snapshots.js";
import { allBytes, fingerprint, isDir, sleep, TempDirs, writeTree } from "./snapshot.test-support.js";

export interface ContractSetup {
  readonly name: string;
  /** A directory to make workspaces and storage in (a reflink strategy needs a cloning filesystem). */
  parent(): string | undefined;
  /** A snapshotter over `root` keeping its storage in `storage` (null: the strategy's default) and its applier state in `stateDir`. */
  create(root: string, storage: string | null, stateDir: string): HostSnapshots;
  /** Where the instance keeps its snapshots (git dir / snapshot dir), once known. */
  storageOf(snapshots: HostSnapshots): string | null;
  /** What `commitRef` looks like. */
  readonly refPattern: RegExp;
  /** A record pointing at nothing, for the "unknown snapshot" case. */
  unknown(existing: FilesystemSnapshot): FilesystemSnapshot;
  readonly flags: {
    /** Symlinks are stored and restored as links. */
    readonly symlinks: boolean;
    /** `.git` directories (nested repositories, hooks, config) are stored like any directory. */
    readonly gitMetadata: boolean;
    /** Names with control characters (tab, newline) or backslashes are stored. */
    readonly exoticNames: boolean;
    /** Permission bits of non-empty directories are stored. */
    readonly directoryModes: boolean;
    /** A restore leaves unchanged files alone (same inode), rather than replacing the tree. */
    readonly touchesOnlyChanges: boolean;
    /** A permission change alone shows up in diffs. */
    readonly diffSeesModes: boolean;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function hostSnapshotContract(setup: ContractSetup): void {
  describe(`host snapshots: ${setup.name} strategy`, () => {
    const temps = new TempDirs();
    const open: HostSnapshots[] = [];

    const workspace = (): { root: string; state: string; storage: string } => {
      const base = setup.parent();
      const make = (prefix: string): string => {
        if (base === undefined) return temps.make(prefix);
        const dir = path.join(base, `${prefix}${Math.random().toString(36).slice(2, 10)}`);
        mkdirSync(dir);
        temps.track(dir);
        return dir;
      };
      return { root: make("ws-"), state: temps.make("state-"), storage: path.join(make("store-"), "snapshots") };
    };
    const create = (root: string, storage: string | null, state: string): HostSnapshots => {
      const snapshots = setup.create(root, storage, state);
      open.push(snapshots);
      return snapshots;
    };

    afterEach(async () => {
      for (const snapshots of open.splice(0)) {
        temps.track(setup.storageOf(snapshots));
        await snapshots.cleanup();
      }
      temps.removeAll();
    });

    it("returns a record with a UUID, the tag, the root and a strategy reference", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a.txt": "hello", "dir/b.txt": "world!" });
      const snapshots = create(root, storage, state);
      const first = await snapshots.snapshot({ tag: "my-tag" });
      expect(first.snapshotId).toMatch(UUID);
      expect(first.tag).toBe("my-tag");
      expect(first.backend).toBe("host");
      expect(first.strategy).toBe(setup.name);
      expect(first.rootPath).toBe(root);
      expect(first.commitRef).toMatch(setup.refPattern);
      expect(first.fileCount).toBe(2);
      expect(first.totalBytes).toBe(11);
      expect(first.parentId).toBeNull();
      expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
      const second = await snapshots.snapshot();
      expect(second.tag).toBeNull();
      expect(second.parentId).toBe(first.snapshotId);
      expect(snapshots.currentSnapshotId).toBe(second.snapshotId);
      expect(JSON.parse(JSON.stringify(second))).toEqual(second);
    });

    it("restores old content and removes files created after the snapshot", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "config.py": "DEBUG = True" });
      const snapshots = create(root, storage, state);
      const v1 = await snapshots.snapshot({ tag: "initial" });
      writeTree(root, { "config.py": "DEBUG = False", "tests.py": "import pytest", "new/dir/deep.txt": "x" });
      await snapshots.restore(v1);
      expect(readFileSync(path.join(root, "config.py"), "utf8")).toBe("DEBUG = True");
      expect(existsSync(path.join(root, "tests.py"))).toBe(false);
      expect(existsSync(path.join(root, "new"))).toBe(false);
      expect(snapshots.currentSnapshotId).toBe(v1.snapshotId);
    });

    it("re-creates deleted files and directories", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a/b/c/file.txt": "deep", "top.txt": "top" });
      const snapshots = create(root, storage, state);
      const before = fingerprint(root);
      const snap = await snapshots.snapshot();
      rmSync(path.join(root, "a"), { recursive: true });
      rmSync(path.join(root, "top.txt"));
      await snapshots.restore(snap);
      expect(readFileSync(path.join(root, "a/b/c/file.txt"), "utf8")).toBe("deep");
      expect(fingerprint(root)).toEqual(before);
    });

    it("moves between several snapshots in any order", async () => {
      const { root, state, storage } = workspace();
      const snapshots = create(root, storage, state);
      writeTree(root, { "config.py": "v1" });
      const v1 = await snapshots.snapshot();
      writeTree(root, { "config.py": "v2", "tests.py": "t" });
      const v2 = await snapshots.snapshot();
      writeTree(root, { "config.py": "v3" });
      await snapshots.restore(v1);
      expect(readFileSync(path.join(root, "config.py"), "utf8")).toBe("v1");
      expect(existsSync(path.join(root, "tests.py"))).toBe(false);
      await snapshots.restore(v2);
      expect(readFileSync(path.join(root, "config.py"), "utf8")).toBe("v2");
      expect(readFileSync(path.join(root, "tests.py"), "utf8")).toBe("t");
      await snapshots.restore(v1);
      expect(readFileSync(path.join(root, "config.py"), "utf8")).toBe("v1");
    });

    it("round-trips every byte, mode, empty directory, ignored and oddly named file", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, {
        "bin/all-bytes.bin": allBytes(),
        "crlf.txt": "line one\r\nline two\r\n",
        "lf.txt": "no final newline",
        "empty.txt": "",
        "run.sh": { content: "#!/bin/sh\necho hi\n", mode: 0o755 },
        "private.key": { content: "secret", mode: 0o600 },
        "locked": { dir: true, mode: setup.flags.directoryModes ? 0o700 : 0o755 },
        "locked/inside.txt": "in a 0700 directory",
        "empty-dir": { dir: true },
        "nested/empty/dirs": { dir: true },
        ".gitignore": "*\n!.gitignore\n",
        ".gitattributes": "* text eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs -text\n",
        "build/output.pyc": "ignored",
        "__pycache__/mod.cpython-312.pyc": "ignored too",
        "debug.log": "ignored log",
        "-rf": "option-like",
        "--upload-pack=touch wink-canary-opt": "option-like 2",
        "-": "dash",
        "with space and \"quotes\".txt": "odd",
        ...(setup.flags.exoticNames ? { "tab\tand\nnewline.txt": "control characters", "back\\slash.txt": "backslash" } : {}),
        "ünïcödé/日本語.txt": "utf-8 names",
        ...(setup.flags.gitMetadata
          ? {
              "nested-repo/.git/HEAD": "ref: refs/heads/main\n",
              "nested-repo/.git/config": "[core]\n\tfsmonitor = touch /tmp/wink-canary-contract-ran\n",
              "nested-repo/.git/objects": { dir: true },
              "nested-repo/.git/hooks/pre-commit": { content: "#!/bin/sh\ntouch /tmp/wink-canary-contract-hook-ran\n", mode: 0o755 },
              "nested-repo/code.py": "print('nested')\n",
              ".GIT/x": "upper-case git dir",
            }
          : {}),
        ...(setup.flags.symlinks ? { "link-to-file": { symlink: "lf.txt" }, "dangling": { symlink: "../outside/nowhere" } } : {}),
      });
      const snapshots = create(root, storage, state);
      const before = fingerprint(root);
      const snap = await snapshots.snapshot();
      // Change everything: contents, modes, kinds, and add and remove entries.
      writeTree(root, { "bin/all-bytes.bin": "text now", "crlf.txt": "x", "later.txt": "created after", "empty-dir/now-full.txt": "x" });
      chmodSync(path.join(root, "run.sh"), 0o644);
      chmodSync(path.join(root, "private.key"), 0o644);
      chmodSync(path.join(root, "locked"), 0o755);
      rmSync(path.join(root, "nested"), { recursive: true });
      rmSync(path.join(root, "-rf"));
      rmSync(path.join(root, "lf.txt"));
      mkdirSync(path.join(root, "lf.txt"));
      writeFileSync(path.join(root, "lf.txt", "now a dir"), "x");
      if (setup.flags.gitMetadata) rmSync(path.join(root, "nested-repo/.git"), { recursive: true });
      await snapshots.restore(snap);
      expect(fingerprint(root)).toEqual(before);
    });

    it("gives consecutive snapshots without changes different references", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a.txt": "same" });
      const snapshots = create(root, storage, state);
      const first = await snapshots.snapshot();
      const second = await snapshots.snapshot();
      expect(second.commitRef).not.toBe(first.commitRef);
      expect(second.snapshotId).not.toBe(first.snapshotId);
      expect(await snapshots.diff(first, second)).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 1 });
    });

    it("lets a fresh instance restore a stored record and list the snapshots", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a.txt": "v1", "keep/b.txt": "b" });
      const snapshots = create(root, storage, state);
      const v1 = await snapshots.snapshot({ tag: "first" });
      writeTree(root, { "a.txt": "v2", "c.txt": "c" });
      const v2 = await snapshots.snapshot({ tag: "second" });
      const record = JSON.parse(JSON.stringify(v1)) as FilesystemSnapshot;

      // Another process: the record from a session, no storage configured.
      const fresh = create(root, null, state);
      await fresh.restore(record);
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v1");
      expect(existsSync(path.join(root, "c.txt"))).toBe(false);
      const sameStorage = create(root, setup.storageOf(snapshots), state);
      expect((await sameStorage.list()).map((s) => [s.snapshotId, s.tag])).toEqual([
        [v1.snapshotId, "first"],
        [v2.snapshotId, "second"],
      ]);
    });

    it(setup.flags.touchesOnlyChanges ? "restores only what differs" : "restores after a few edits", async () => {
      const { root, state, storage } = workspace();
      const files: Record<string, string> = {};
      for (let i = 0; i < 50; i++) files[`d${i % 5}/f${i}.txt`] = `content ${i}`;
      writeTree(root, files);
      const snapshots = create(root, storage, state);
      await sleep(150); // past the racy window, so the index trusts these files
      const snap = await snapshots.snapshot();
      const untouched = statSync(path.join(root, "d1/f1.txt"));
      writeTree(root, { "d0/f0.txt": "edited", "d2/new.txt": "new" });
      await snapshots.restore(snap);
      const after = statSync(path.join(root, "d1/f1.txt"));
      if (setup.flags.touchesOnlyChanges) {
        expect(after.ino).toBe(untouched.ino);
        expect(after.mtimeMs).toBe(untouched.mtimeMs);
      }
      expect(readFileSync(path.join(root, "d1/f1.txt"), "utf8")).toBe("content 1");
      expect(readFileSync(path.join(root, "d0/f0.txt"), "utf8")).toBe("content 0");
      expect(existsSync(path.join(root, "d2/new.txt"))).toBe(false);
    });

    it("diffs two snapshots, and a snapshot against the workspace", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "config.py": "DEBUG = True", "app.py": "from config import DEBUG", "old.txt": "old", "run.sh": "#!/bin/sh\n" });
      const snapshots = create(root, storage, state);
      const v1 = await snapshots.snapshot();
      writeTree(root, { "config.py": "DEBUG = False", "tests/test_app.py": "import pytest" });
      rmSync(path.join(root, "old.txt"));
      chmodSync(path.join(root, "run.sh"), 0o755);
      const v2 = await snapshots.snapshot();
      const modes = setup.flags.diffSeesModes;
      const expected = { added: ["tests/test_app.py"], modified: modes ? ["config.py", "run.sh"] : ["config.py"], deleted: ["old.txt"], unchangedCount: modes ? 1 : 2 };
      expect(await snapshots.diff(v1, v2)).toEqual(expected);
      expect(await snapshots.diff(v1)).toEqual(expected);
      expect(await snapshots.diff(v2)).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 4 });
      expect(await snapshots.diff(v2, v1)).toEqual({ added: ["old.txt"], modified: expected.modified, deleted: ["tests/test_app.py"], unchangedCount: expected.unchangedCount });
    });

    it("fails with SnapshotRestoreError for an unknown snapshot and leaves the workspace alone", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a.txt": "v1" });
      const snapshots = create(root, storage, state);
      const snap = await snapshots.snapshot();
      writeTree(root, { "a.txt": "v2" });
      const before = fingerprint(root);
      const restoring = snapshots.restore(setup.unknown(snap));
      await expect(restoring).rejects.toBeInstanceOf(SnapshotRestoreError);
      await expect(restoring).rejects.toThrow(/Failed to restore/);
      expect(fingerprint(root)).toEqual(before);
    });

    it("releases one snapshot's storage and cleans up all of it, idempotently", async () => {
      const { root, state, storage } = workspace();
      writeTree(root, { "a.txt": "v1" });
      const snapshots = create(root, storage, state);
      await snapshots.cleanup(); // safe before any snapshot
      const v1 = await snapshots.snapshot();
      writeTree(root, { "a.txt": "v2" });
      const v2 = await snapshots.snapshot();
      await snapshots.release(v1);
      await snapshots.release(v1);
      expect((await snapshots.list()).map((s) => s.snapshotId)).toEqual([v2.snapshotId]);
      await snapshots.restore(v2);
      const where = setup.storageOf(snapshots);
      expect(where).not.toBeNull();
      expect(isDir(where as string)).toBe(true);
      await snapshots.cleanup();
      expect(existsSync(where as string)).toBe(false);
      await snapshots.cleanup();
      await expect(snapshots.restore(v2)).rejects.toBeInstanceOf(SnapshotRestoreError);
      // Usable again afterwards.
      const v3 = await snapshots.snapshot();
      writeTree(root, { "a.txt": "v3" });
      await snapshots.restore(v3);
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v2");
    });

    it("keeps two filesystems' snapshots apart", async () => {
      const one = workspace();
      const two = workspace();
      writeTree(one.root, { "a.txt": "one" });
      writeTree(two.root, { "a.txt": "two" });
      const first = create(one.root, null, one.state);
      const second = create(two.root, null, two.state);
      const s1 = await first.snapshot();
      const s2 = await second.snapshot();
      expect(setup.storageOf(first)).not.toBe(setup.storageOf(second));
      writeTree(one.root, { "a.txt": "changed" });
      writeTree(two.root, { "a.txt": "changed" });
      await first.restore(s1);
      await second.restore(s2);
      expect(readFileSync(path.join(one.root, "a.txt"), "utf8")).toBe("one");
      expect(readFileSync(path.join(two.root, "a.txt"), "utf8")).toBe("two");
    });

    it("keeps snapshot storage outside the workspace", async () => {
      const { root, state } = workspace();
      writeTree(root, { "a.txt": "x" });
      const snapshots = create(root, null, state);
      await snapshots.snapshot();
      const where = setup.storageOf(snapshots) as string;
      expect(path.relative(root, where).startsWith("..")).toBe(true);
      const listed = fingerprint(root);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatch(/^F "a\.txt" /);
    });
  });
}
