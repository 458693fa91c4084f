import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { memorySource } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { diffArchives } from "./archive-diff.js";
import { diffFileIndexes } from "./index-diff.js";
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
