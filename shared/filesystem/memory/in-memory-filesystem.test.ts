import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError, WinkError } from "../../errors.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../snapshot-contract.js";
import { InMemoryFilesystem } from "./in-memory-filesystem.js";
import { type Observed, observe } from "./memory.test-support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("InMemoryFilesystem snapshots (conformance 3.13)", () => {
  it("has root / and returns snapshots with UUID ids, tags, mem- refs and counts", async () => {
    const fs = new InMemoryFilesystem();
    expect(fs.root).toBe("/");
    await fs.write("a.txt", "hello");
    await fs.write("dir/b.txt", "abc");
    const first = await fs.snapshot();
    expect(first.snapshotId).toMatch(UUID);
    expect(first.tag).toBeNull();
    expect(first).toMatchObject({ backend: "in_memory", strategy: "memory-cow", rootPath: "/", fileCount: 2, totalBytes: 8, parentId: null });
    expect(first.commitRef).toMatch(/^mem-\d+$/);
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
    const tagged = await fs.snapshot({ tag: "my-tag" });
    expect(tagged.tag).toBe("my-tag");
    expect(tagged.snapshotId).not.toBe(first.snapshotId);
    expect(tagged.commitRef).not.toBe(first.commitRef);
    expect(tagged.parentId).toBe(first.snapshotId);
    expect(fs.currentSnapshotId).toBe(tagged.snapshotId);
    expect(JSON.parse(JSON.stringify(tagged))).toEqual(tagged);
  });

  it("round-trips: modify, then restore gives the old content", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("file.txt", "original");
    const snapshot = await fs.snapshot();
    await fs.write("file.txt", "modified");
    expect((await fs.read("file.txt")).content).toBe("modified");
    await fs.restore(snapshot);
    expect((await fs.read("file.txt")).content).toBe("original");
  });

  it("restore removes files created later and re-creates deleted files and directories", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("a/b/c/file.txt", "deep");
    await fs.mkdir("empty/dir");
    const snapshot = await fs.snapshot();
    await fs.write("new.txt", "new");
    await fs.delete("a", { recursive: true });
    await fs.delete("empty", { recursive: true });
    await fs.restore(snapshot);
    expect(await fs.exists("new.txt")).toBe(false);
    expect((await fs.read("a/b/c/file.txt")).content).toBe("deep");
    for (const dir of ["a", "a/b", "a/b/c", "empty/dir"]) expect((await fs.stat(dir)).isDirectory).toBe(true);
  });

  it("restores several snapshots in any order", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("file.txt", "v1");
    const v1 = await fs.snapshot({ tag: "v1" });
    await fs.write("file.txt", "v2");
    await fs.write("only-v2.txt", "x");
    const v2 = await fs.snapshot({ tag: "v2" });
    await fs.restore(v1);
    expect((await fs.read("file.txt")).content).toBe("v1");
    expect(fs.currentSnapshotId).toBe(v1.snapshotId);
    await fs.restore(v2);
    expect((await fs.read("file.txt")).content).toBe("v2");
    expect(await fs.exists("only-v2.txt")).toBe(true);
    await fs.restore(v1);
    expect(await fs.exists("only-v2.txt")).toBe(false);
    const v3 = await fs.snapshot();
    expect(v3.parentId).toBe(v1.snapshotId);
  });

  it("writes after a restore do not change the restored snapshot", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("f.txt", "kept");
    const snapshot = await fs.snapshot();
    await fs.restore(snapshot);
    await fs.write("f.txt", "changed");
    await fs.write("g.txt", "new");
    await fs.restore(snapshot);
    expect((await fs.read("f.txt")).content).toBe("kept");
    expect(await fs.exists("g.txt")).toBe(false);
  });

  it("refuses an unknown snapshot with SnapshotRestoreError and another backend's with SnapshotIncompatibleError", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("f.txt", "x");
    const real = await fs.snapshot();
    const unknown: FilesystemSnapshot = { ...real, snapshotId: "00000000-0000-4000-8000-000000000000", commitRef: "mem-999" };
    await expect(fs.restore(unknown)).rejects.toThrow(SnapshotRestoreError);
    await expect(fs.restore(unknown)).rejects.toThrow(/Unknown snapshot/);
    const fromOther = await new InMemoryFilesystem().snapshot();
    await expect(fs.restore(fromOther)).rejects.toThrow(/Unknown snapshot/);
    const hostSnapshot: FilesystemSnapshot = { ...real, backend: "host", strategy: "git", commitRef: "a".repeat(40) };
    await expect(fs.restore(hostSnapshot)).rejects.toThrow(SnapshotIncompatibleError);
    await expect(fs.diff(hostSnapshot)).rejects.toThrow(SnapshotIncompatibleError);
    await expect(fs.diff(unknown)).rejects.toThrow(SnapshotNotFoundError);
    expect((await fs.read("f.txt")).content).toBe("x");
  });

  it("a dropped snapshot is released and can no longer be restored", async () => {
    const fs = new InMemoryFilesystem();
    const kept = await fs.snapshot({ tag: "kept" });
    const dropped = await fs.snapshot({ tag: "dropped" });
    expect(fs.listSnapshots().map((s) => s.tag)).toEqual(["kept", "dropped"]);
    expect(fs.dropSnapshot(dropped.snapshotId)).toBe(true);
    expect(fs.dropSnapshot(dropped.snapshotId)).toBe(false);
    expect(fs.listSnapshots()).toEqual([kept]);
    const error = await fs.restore(dropped).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SnapshotRestoreError);
    expect((error as WinkError).code).toBe("E_SNAPSHOT_RESTORE");
    await fs.restore(kept);
  });

  it("keeps the spec's 10 snapshots by default, a policy's count when given, and every snapshot with retention null", async () => {
    const take = async (fs: InMemoryFilesystem, count: number, tag: (i: number) => string | null = () => null): Promise<void> => {
      for (let i = 0; i < count; i++) {
        await fs.write("f.txt", String(i));
        await fs.snapshot({ tag: tag(i) });
      }
    };
    const byDefault = new InMemoryFilesystem();
    await take(byDefault, 12, (i) => (i === 0 ? "first" : null));
    expect(byDefault.listSnapshots().map((s) => s.tag ?? s.commitRef)).toEqual(["first", ...Array.from({ length: 9 }, (_, i) => `mem-${i + 4}`)]);
    const three = new InMemoryFilesystem({ snapshots: { retention: { maxCount: 3, keepTagged: false } } });
    await take(three, 5, () => "tagged");
    expect(three.listSnapshots().map((s) => s.commitRef)).toEqual(["mem-3", "mem-4", "mem-5"]);
    const all = new InMemoryFilesystem({ snapshots: { retention: null } });
    await take(all, 12);
    expect(all.listSnapshots()).toHaveLength(12);
  });

  it("a read-only filesystem refuses restore", async () => {
    const fs = new InMemoryFilesystem({ readOnly: true });
    const snapshot = await fs.snapshot();
    await expect(fs.restore(snapshot)).rejects.toThrow(SnapshotRestoreError);
  });

  it("diffs two snapshots, and a snapshot against the current state", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("config.py", "DEBUG = True");
    await fs.write("app.py", "from config import DEBUG");
    await fs.write("old.py", "x");
    const v1 = await fs.snapshot({ tag: "initial" });
    await fs.write("config.py", "DEBUG = False");
    await fs.write("tests.py", "import pytest");
    await fs.delete("old.py");
    const v2 = await fs.snapshot({ tag: "with-tests" });
    expect(await fs.diff(v1, v2)).toEqual({ added: ["tests.py"], modified: ["config.py"], deleted: ["old.py"], unchangedCount: 1 });
    expect(await fs.diff(v2, v1)).toEqual({ added: ["old.py"], modified: ["config.py"], deleted: ["tests.py"], unchangedCount: 1 });
    await fs.writeBytes("app.py", new TextEncoder().encode("from config import DEBUG"));
    await fs.write("src/new.py", "y");
    expect(await fs.diff(v2)).toEqual({ added: ["src/new.py"], modified: [], deleted: [], unchangedCount: 3 });
    expect(await fs.diff(v2, v2)).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 3 });
  });

  it("diff compares bytes and permission bits, not identity or times", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("same-length.txt", "ab");
    await fs.write("rewritten.txt", "same");
    await fs.writeBytes("tool.sh", new TextEncoder().encode("#!/bin/sh"), { fileMode: 0o644 });
    const before = await fs.snapshot();
    await fs.write("same-length.txt", "cd");
    await fs.write("rewritten.txt", "same");
    await fs.delete("tool.sh");
    await fs.writeBytes("tool.sh", new TextEncoder().encode("#!/bin/sh"), { fileMode: 0o755 });
    expect(await fs.diff(before)).toEqual({ added: [], modified: ["same-length.txt", "tool.sh"], deleted: [], unchangedCount: 1 });
  });

  it("diff reports a file replaced by a directory as deleted plus the files below it as added", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("x", "file");
    const before = await fs.snapshot();
    await fs.delete("x");
    await fs.write("x/inner.txt", "now a dir");
    await fs.write("x/deeper/more.txt", "more");
    expect(await fs.diff(before)).toEqual({ added: ["x/deeper/more.txt", "x/inner.txt"], modified: [], deleted: ["x"], unchangedCount: 0 });
  });
});

// ---------------------------------------------------------------------------------------
// Property: random operations with snapshots taken at random points.

function naiveDiff(base: Observed, target: Observed): FilesystemDiff {
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  let unchangedCount = 0;
  for (const [path, state] of base.files) {
    const other = target.files.get(path);
    if (other === undefined) deleted.push(path);
    else if (other.base64 !== state.base64 || other.mode !== state.mode) modified.push(path);
    else unchangedCount++;
  }
  for (const path of target.files.keys()) if (!base.files.has(path)) added.push(path);
  return { added: added.sort(), modified: modified.sort(), deleted: deleted.sort(), unchangedCount };
}

const segment = fc.constantFrom("a", "b", "c");
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("/"));
// Weighted towards writes and snapshots so that files are often changed between snapshots.
const operation = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("write" as const), path, text: fc.constantFrom("", "x", "y", "xy", "yx", "é"), mode: fc.constantFrom("create" as const, "overwrite" as const, "append" as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("writeBytes" as const), path, bytes: fc.uint8Array({ min: 0, max: 2, maxLength: 3 }), fileMode: fc.constantFrom(0o644, 0o755) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), path, recursive: fc.boolean() }) },
  // A new file at an old path may come back with other permission bits.
  { weight: 1, arbitrary: fc.record({ op: fc.constant("recreate" as const), path, fileMode: fc.constantFrom(0o644, 0o755) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("mkdir" as const), path }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("snapshot" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("restore" as const), pick: fc.nat() }) },
);

async function apply(fs: InMemoryFilesystem, step: Operation, taken: { snapshot: FilesystemSnapshot; state: Observed }[]): Promise<void> {
  switch (step.op) {
    case "write":
      await fs.write(step.path, step.text, { mode: step.mode });
      return;
    case "writeBytes":
      await fs.writeBytes(step.path, step.bytes, { fileMode: step.fileMode });
      return;
    case "delete":
      await fs.delete(step.path, { recursive: step.recursive });
      return;
    case "mkdir":
      await fs.mkdir(step.path);
      return;
    case "recreate": {
      const old = await fs.readBytes(step.path);
      await fs.delete(step.path);
      await fs.writeBytes(step.path, old.content, { mode: "create", fileMode: step.fileMode });
      return;
    }
    case "snapshot":
      taken.push({ snapshot: await fs.snapshot(), state: await observe(fs) });
      return;
    case "restore": {
      const chosen = taken[step.pick % Math.max(1, taken.length)];
      if (chosen === undefined) return;
      await fs.restore(chosen.snapshot);
      expect(await observe(fs)).toEqual(chosen.state);
    }
  }
}

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

describe("InMemoryFilesystem snapshot property", () => {
  it("restoring any snapshot gives the state observed when it was taken, and diff equals a naive diff", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 60, size: "max" }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }), async (steps, pairs) => {
        // Every snapshot stays restorable here (no retention): that is what this property checks.
        const fs = new InMemoryFilesystem({ snapshots: { retention: null } });
        const taken: { snapshot: FilesystemSnapshot; state: Observed }[] = [];
        for (const step of steps) {
          // Refused operations (EEXIST, ENOTDIR, ENOTEMPTY, …) are part of the sequence too.
          await apply(fs, step, taken).catch((error: unknown) => {
            if (!(error instanceof WinkError) || error.code.startsWith("E_SNAPSHOT")) throw error;
          });
        }
        const now = await observe(fs);
        for (const { snapshot, state } of taken) {
          expect(await fs.diff(snapshot)).toEqual(naiveDiff(state, now));
          expect(snapshot.fileCount).toBe(state.files.size);
          expect(snapshot.totalBytes).toBe([...state.files.values()].reduce((sum, file) => sum + Buffer.from(file.base64, "base64").byteLength, 0));
        }
        for (const [i, j] of pairs) {
          const base = taken[i % Math.max(1, taken.length)];
          const target = taken[j % Math.max(1, taken.length)];
          if (base && target) expect(await fs.diff(base.snapshot, target.snapshot)).toEqual(naiveDiff(base.state, target.state));
        }
        for (const { snapshot, state } of taken) {
          await fs.restore(snapshot);
          expect(await observe(fs)).toEqual(state);
        }
      }),
      { numRuns: 200 },
    );
  });
});
