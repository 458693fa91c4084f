/**
 * The binary workspace index: what is saved is what is loaded (byte paths that are not
 * UTF-8, newlines, symlinks, odd permission bits, sub-millisecond times), and a file that
 * is truncated, corrupted, of another version or for another root loads as null (a full
 * re-read), never as wrong entries — also through a real restore.
 */
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { HostSnapshots } from "./host-snapshots.js";
import { GitSnapshotRepo } from "./git-repo.js";
import { decodeWorkspaceIndex, encodeWorkspaceIndex, readIndexHead } from "./workspace-index-binary.js";
import { loadWorkspaceIndex, saveWorkspaceIndex, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import { fingerprint, sleep, TempDirs, writeTree } from "./snapshot.test-support.js";

const temps = new TempDirs();
afterEach(() => temps.removeAll());

const ROOT = "/work/spaces/caf\u00e9";

function sampleIndex(): WorkspaceIndex {
  const entries = new Map<string, IndexEntry>([
    ["a.txt", { kind: "file", perm: 0o644, size: 12, mtimeMs: 1_700_000_000_123.456, ctimeMs: 1_700_000_000_987.625, ino: 123_456_789_012, oid: "a".repeat(40) }],
    ["dir/caf\xe9-\xff\xfe.txt", { kind: "file", perm: 0o600, size: 0, mtimeMs: 1, ctimeMs: 2, ino: 3, oid: "b".repeat(64) }],
    ["name with spaces\nand a newline", { kind: "file", perm: 0o4755, size: 2 ** 40, mtimeMs: 5, ctimeMs: 6, ino: 7, oid: "0123456789abcdef0123456789abcdef01234567" }],
    ["links/to-dir", { kind: "symlink", perm: 0o777, size: 6, mtimeMs: 8, ctimeMs: 9, ino: 10, oid: "c".repeat(40) }],
  ]);
  return { ref: "d".repeat(40), scanStartedAtMs: 1_700_000_001_000.25, entries, treeDirs: new Set(["dir", "links"]) };
}

describe("binary workspace index", () => {
  it("loads exactly what was saved, odd byte paths included", () => {
    const index = sampleIndex();
    const loaded = decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, index), ROOT);
    expect(loaded).toEqual(index);
    expect([...(loaded?.entries.keys() ?? [])]).toEqual([...index.entries.keys()]);
    const empty: WorkspaceIndex = { ref: "e".repeat(40), scanStartedAtMs: 42, entries: new Map() };
    expect(decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, empty), ROOT)).toEqual(empty);

    const file = path.join(temps.make("index-bin-"), "wink", "index.bin");
    saveWorkspaceIndex(file, ROOT, index, "binary");
    expect(loadWorkspaceIndex(file, ROOT)).toEqual(index);
    expect(readIndexHead(file)).toEqual({ count: 4, scanStartedAtMs: index.scanStartedAtMs });
    // Unaligned in memory (a slice of a bigger buffer): still read exactly.
    const data = readFileSync(file);
    const shifted = Buffer.concat([Buffer.from([1, 2, 3]), data]).subarray(3);
    expect(decodeWorkspaceIndex(shifted, ROOT)).toEqual(index);
  });

  it("loads a truncated, corrupted, foreign or other-version file as null", () => {
    const data = encodeWorkspaceIndex(ROOT, sampleIndex());
    expect(decodeWorkspaceIndex(data, "/another/root")).toBeNull();
    for (const length of [0, 3, 16, 40, data.length - 21, data.length - 1]) expect(decodeWorkspaceIndex(data.subarray(0, length), ROOT)).toBeNull();
    for (let at = 4; at < data.length; at += 7) {
      const flipped = Buffer.from(data);
      flipped[at] = (flipped[at] as number) ^ 0x01;
      expect(decodeWorkspaceIndex(flipped, ROOT)).toBeNull();
    }
    const file = path.join(temps.make("index-bin-bad-"), "index.bin");
    writeFileSync(file, data.subarray(0, 10));
    expect(readIndexHead(file)).toBeNull();
    expect(loadWorkspaceIndex(file, ROOT)).toBeNull();
    expect(readIndexHead(path.join(path.dirname(file), "missing"))).toBeNull();
  });

  it("a damaged index file costs a full compare, never a wrong restore", async () => {
    const root = temps.make("ws-");
    const state = temps.make("state-");
    const gitDir = path.join(temps.make("git-parent-"), "git");
    const open = (): HostSnapshots => new HostSnapshots(root, { strategy: "git", gitDir, treeApply: { stateDir: state, durable: false } });
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `file ${i}\n`;
    writeTree(root, files);
    await sleep(150);
    const snapshots = open();
    const first = await snapshots.snapshot();
    const firstPrint = fingerprint(root);
    writeTree(root, { "d1/f1.txt": "second\n" });
    await snapshots.snapshot();
    const indexFile = GitSnapshotRepo.indexFileOf(gitDir);
    const intact = readFileSync(indexFile);

    // The head stays readable, the rest is gone or wrong: each time a new filesystem
    // object (nothing loaded) restores the first snapshot over fresh edits.
    const corrupted = Buffer.from(intact);
    corrupted[intact.length - 200] = (corrupted[intact.length - 200] as number) ^ 0x20;
    const damaged = [intact.subarray(0, intact.length - 30), corrupted];
    for (const [round, bytes] of damaged.entries()) {
      writeFileSync(indexFile, bytes);
      writeTree(root, { "d2/f2.txt": `edited in round ${round}\n`, "d3/new.txt": "new\n" });
      await open().restore(first);
      expect(fingerprint(root)).toEqual(firstPrint);
    }
    truncateSync(indexFile, 0);
    writeTree(root, { "d0/f0.txt": "edited last\n" });
    await open().restore(first);
    expect(fingerprint(root)).toEqual(firstPrint);
  });
});
