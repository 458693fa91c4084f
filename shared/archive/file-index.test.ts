import { describe, expect, it } from "vitest";
import type { CentralEntry } from "./central-directory.js";
import { FileIndex } from "./file-index.js";

function entry(name: string, index: number, extra: Partial<CentralEntry> = {}): CentralEntry {
  return {
    name,
    path: name,
    isDirectory: false,
    flags: index % 2 === 0 ? 0x800 : 0,
    method: index % 3 === 0 ? 0 : 8,
    crc32: (0xfffffff0 + index) >>> 0,
    compressedSize: 2 ** 33 + index,
    size: 2 ** 40 + index,
    localHeaderOffset: 2 ** 35 + index * 100,
    nameLength: Buffer.byteLength(name),
    extraLength: 9,
    mode: index % 2 === 0 ? 0o644 : null,
    mtimeMs: index % 2 === 0 ? -86_400_000 + index : null,
    ...extra,
  };
}

describe("FileIndex", () => {
  const names = ["files/zeta", "files/a/b.txt", "files/a b", "files/é", "files/a/a", "files/A", "files/a!"];

  for (const [label, order] of [
    ["sorted", [...names].sort()],
    ["unsorted", names],
  ] as const) {
    it(`finds every file by path and gives back its records (${label} names)`, () => {
      const entries = order.map((name, index) => entry(name, index));
      const index = new FileIndex(entries, "files/");
      expect(index.count).toBe(entries.length);
      entries.forEach((original, at) => {
        const path = original.name.slice("files/".length);
        expect(index.indexOf(path)).toBe(at);
        expect(index.path(at)).toBe(path);
        expect(index.size(at)).toBe(original.size);
        expect(index.crc32(at)).toBe(original.crc32);
        expect(index.entry(at)).toEqual(original);
        expect(index.file(at)).toEqual({ path, entryName: original.name, size: original.size, compressedSize: original.compressedSize, crc32: original.crc32, mode: original.mode, mtimeMs: original.mtimeMs });
      });
      for (const missing of ["", "a", "a/", "files/zeta", "zet", "zetaa", "a/b.tx", "\u0000"]) expect(index.indexOf(missing), missing).toBe(-1);
    });
  }

  it("works without a prefix (root-metadata archives) and when empty", () => {
    const index = new FileIndex([entry("b", 0), entry("a", 1)], "");
    expect([index.indexOf("a"), index.indexOf("b"), index.indexOf("c")]).toEqual([1, 0, -1]);
    expect(new FileIndex([], "files/").indexOf("x")).toBe(-1);
  });
});
