import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { memorySource } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { diffArchives } from "./archive-diff.js";
import fc from "fast-check";
import { diffFileIndexEntries, diffFileIndexes, type FileIndexEntry } from "./index-diff.js";
import { openArchive } from "./reader.node.js";
import { writeArchive } from "./writer.node.js";

describe("diffFileIndexes", () => {
  it("sorts added, modified and deleted paths and counts the unchanged ones", () => {
    const base = [
      { path: "z.txt", size: 1, fingerprint: "a" },
      { path: "same.txt", size: 3, fingerprint: 7 },
      { path: "grown.txt", size: 3, fingerprint: 1 },
      { path: "edited.txt", size: 3, fingerprint: 1 },
      { path: "gone/b", size: 0, fingerprint: 0 },
      { path: "gone/a", size: 0, fingerprint: 0 },
    ];
    const target = [
      { path: "same.txt", size: 3, fingerprint: 7 },
      { path: "grown.txt", size: 4, fingerprint: 1 },
      { path: "edited.txt", size: 3, fingerprint: 2 },
      { path: "new/b", size: 1, fingerprint: 1 },
      { path: "new/a", size: 1, fingerprint: 1 },
      { path: "z.txt", size: 1, fingerprint: "a" },
    ];
    expect(diffFileIndexes(base, target)).toEqual({
      added: ["new/a", "new/b"],
      modified: ["edited.txt", "grown.txt"],
      deleted: ["gone/a", "gone/b"],
      unchangedCount: 2,
    });
  });

  it("accepts one-shot iterables and lets the last duplicate win", () => {
    function* once(entries: { path: string; size: number; fingerprint: number }[]) {
      yield* entries;
    }
    const diff = diffFileIndexes(once([{ path: "a", size: 1, fingerprint: 1 }]), once([{ path: "a", size: 1, fingerprint: 2 }, { path: "a", size: 1, fingerprint: 1 }]));
    expect(diff).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 1 });
  });
});

describe("diffFileIndexEntries", () => {
  /** The definition: maps by path (last duplicate wins), then compare. */
  function byMaps(base: FileIndexEntry[], target: FileIndexEntry[]) {
    const before = new Map(base.map((entry) => [entry.path, entry]));
    const after = new Map(target.map((entry) => [entry.path, entry]));
    const sorted = (paths: string[]) => paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      added: sorted([...after.keys()].filter((path) => !before.has(path))),
      modified: sorted([...after.values()].filter((e) => before.has(e.path) && (before.get(e.path)?.size !== e.size || before.get(e.path)?.fingerprint !== e.fingerprint)).map((e) => e.path)),
      deleted: sorted([...before.keys()].filter((path) => !after.has(path))),
      unchangedCount: [...after.values()].filter((e) => before.get(e.path)?.size === e.size && before.get(e.path)?.fingerprint === e.fingerprint).length,
    };
  }

  it("agrees with a diff by maps on sorted, unsorted and duplicated lists", () => {
    const entry = fc.record({ path: fc.constantFrom("a", "a/b", "a/c", "b", "B", "é", "z/y", "a b"), size: fc.integer({ min: 0, max: 2 }), fingerprint: fc.constantFrom(1, 2, "1") });
    const list = fc.array(entry, { maxLength: 12 });
    fc.assert(
      fc.property(list, list, fc.boolean(), (base, target, sort) => {
        const order = (entries: FileIndexEntry[]) => (sort ? [...new Map(entries.map((e) => [e.path, e])).values()].sort((x, y) => (x.path < y.path ? -1 : 1)) : entries);
        const [a, b] = [order(base), order(target)];
        expect(diffFileIndexes(a, b)).toEqual(byMaps(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it("returns the entries of both sides for modified files", () => {
    const changes = diffFileIndexEntries([{ path: "x", size: 1, fingerprint: 1 }], [{ path: "x", size: 2, fingerprint: 1 }, { path: "y", size: 5, fingerprint: 0 }]);
    expect(changes).toEqual({
      added: [{ path: "y", size: 5, fingerprint: 0 }],
      modified: [[{ path: "x", size: 1, fingerprint: 1 }, { path: "x", size: 2, fingerprint: 1 }]],
      deleted: [],
      unchangedCount: 0,
    });
  });
});

describe("diffArchives", () => {
  const tempDir = useTempDir();

  it("compares two archives by size and CRC-32 from their central directories", async () => {
    const a = nodePath.join(tempDir(), "a.fs.zip");
    const b = nodePath.join(tempDir(), "b.fs.zip");
    await writeArchive(a, memorySource([{ path: "keep", content: "same" }, { path: "edit", content: "abcd" }, { path: "drop", content: "x" }]));
    await writeArchive(b, memorySource([{ path: "keep", content: "same" }, { path: "edit", content: "abce" }, { path: "add/new", content: "y" }]));
    const [ra, rb] = await Promise.all([openArchive(a), openArchive(b)]);
    try {
      expect(diffArchives(ra, rb)).toEqual({ added: ["add/new"], modified: ["edit"], deleted: ["drop"], unchangedCount: 1 });
      expect(diffArchives(rb, rb)).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 3 });
    } finally {
      await Promise.all([ra.close(), rb.close()]);
    }
  });
});
