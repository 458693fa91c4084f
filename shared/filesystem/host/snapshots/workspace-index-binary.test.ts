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
import { PackedIndexEntries } from "./packed-index-entries.js";
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

/** An index with its entries as a plain map (a loaded one reads them in place). */
function plain(index: WorkspaceIndex | null): WorkspaceIndex | null {
  return index === null ? null : { ...index, entries: new Map(index.entries) };
}

describe("binary workspace index", () => {
  it("loads exactly what was saved, odd byte paths included", () => {
    const index = sampleIndex();
    const loaded = decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, index), ROOT);
    expect(plain(loaded)).toEqual(index);
    expect([...(loaded?.entries.keys() ?? [])]).toEqual([...index.entries.keys()]);
    for (const [p, entry] of index.entries) expect(loaded?.entries.get(p)).toEqual(entry);
    expect(loaded?.entries.get("dir")).toBeUndefined();
    expect(loaded?.entries.get("a.tx")).toBeUndefined();
    const empty: WorkspaceIndex = { ref: "e".repeat(40), scanStartedAtMs: 42, entries: new Map() };
    expect(plain(decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, empty), ROOT))).toEqual(empty);

    const file = path.join(temps.make("index-bin-"), "wink", "index.bin");
    saveWorkspaceIndex(file, ROOT, index, "binary");
    expect(plain(loadWorkspaceIndex(file, ROOT))).toEqual(index);
    expect(readIndexHead(file)).toEqual({ count: 4, scanStartedAtMs: index.scanStartedAtMs });
    // Unaligned in memory (a slice of a bigger buffer): still read exactly.
    const data = readFileSync(file);
    const shifted = Buffer.concat([Buffer.from([1, 2, 3]), data]).subarray(3);
    expect(plain(decodeWorkspaceIndex(shifted, ROOT))).toEqual(index);
  });

  it("reads its entries in place and behaves as a map when changed (set, delete, clear)", () => {
    // Enough entries that the path table has collisions to probe past.
    const many = new Map<string, IndexEntry>();
    for (let i = 0; i < 3000; i++) many.set(`d${i % 37}/f${i}.txt`, { kind: "file", perm: 0o644, size: i, mtimeMs: i + 0.5, ctimeMs: i + 0.25, ino: 1000 + i, oid: i.toString(16).padStart(40, "0") });
    const loaded = decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, { ref: "d".repeat(40), scanStartedAtMs: 1, entries: many }), ROOT) as WorkspaceIndex;
    const entries = loaded.entries;
    expect(entries).toBeInstanceOf(PackedIndexEntries);
    const model = new Map(many);
    const same = (): void => {
      expect(entries.size).toBe(model.size);
      expect(new Map(entries)).toEqual(model);
      expect(new Set(entries.keys())).toEqual(new Set(model.keys()));
      expect([...entries.values()].length).toBe(model.size);
      let visited = 0;
      entries.forEach((entry, p) => {
        expect(model.get(p)).toEqual(entry);
        visited += 1;
      });
      expect(visited).toBe(model.size);
    };
    same();
    expect((entries as PackedIndexEntries).pristine).toBe(true);
    const changed: IndexEntry = { kind: "symlink", perm: 0o777, size: 1, mtimeMs: 2, ctimeMs: 3, ino: 4, oid: "e".repeat(40) };
    for (const map of [entries, model]) {
      map.set("d1/f1.txt", changed); // replaces a row
      map.set("new/file.txt", changed); // adds one
      map.delete("d2/f2.txt"); // deletes a row
      map.delete("d3/f3.txt");
      map.set("d3/f3.txt", changed); // a deleted row set again
    }
    expect(entries.delete("d2/f2.txt")).toBe(false);
    expect(entries.delete("never/there")).toBe(false);
    expect(entries.has("d2/f2.txt")).toBe(false);
    expect(entries.get("d1/f1.txt")).toEqual(changed);
    expect((entries as PackedIndexEntries).pristine).toBe(false);
    same();
    const packed = entries as PackedIndexEntries;
    // In-place comparison, as a walk does it: same stat and old enough, changed, racy; rows
    // replaced or deleted are no longer live (a replaced one is in the overlay).
    const row = packed.liveRow("d4/f4.txt");
    expect(row).toBeGreaterThanOrEqual(0);
    expect(packed.rowTrusted(row, "file", 0o644, 4, 4.5, 4.25, 1004, 10)).toBe(true);
    expect(packed.rowTrusted(row, "file", 0o644, 5, 4.5, 4.25, 1004, 10)).toBe(false);
    expect(packed.rowTrusted(row, "file", 0o644, 4, 4.5, 4.25, 1004, 4)).toBe(false);
    expect(packed.liveRow("d1/f1.txt")).toBe(-1);
    expect(packed.overlay.get("d1/f1.txt")).toEqual(changed);
    expect(packed.liveRow("d2/f2.txt")).toBe(-1);
    expect(packed.overlay.has("d2/f2.txt")).toBe(false);
    entries.clear();
    model.clear();
    same();
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
