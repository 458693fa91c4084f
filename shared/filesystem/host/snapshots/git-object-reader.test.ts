/**
 * Tree objects as the restore reads them: parsed whole, or compared with the tree they
 * came from without parsing what is the same.
 */
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";

import { changedTreeEntries, parseTree } from "./git-object-reader.js";

const id = (byte: number): Buffer => Buffer.alloc(20, byte);
const hex = (byte: number): string => id(byte).toString("hex");

/** A raw tree object from [mode, name, id byte] entries, in the order given. */
function tree(...entries: [string, string, number][]): Buffer {
  return Buffer.concat(entries.map(([mode, name, byte]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`, "latin1"), id(byte)])));
}

describe("tree objects", () => {
  it("parse into entries with six-digit modes and byte-string names", () => {
    expect(parseTree(tree(["100644", "a.txt", 1], ["40000", "d\xe9", 2]))).toEqual([
      { mode: "100644", name: "a.txt", oid: hex(1) },
      { mode: "040000", name: "d\xe9", oid: hex(2) },
    ]);
    expect(() => parseTree(Buffer.from("100644 a.txt\0short"))).toThrow(/malformed/);
  });

  it("compare entry by entry while the names line up, and give up (null) when they do not", () => {
    const base = tree(["100644", "a.txt", 1], ["40000", "dir", 2], ["100755", "run.sh", 3]);
    expect(changedTreeEntries(base, base)).toEqual([]);
    const changed = tree(["100644", "a.txt", 9], ["40000", "dir", 8], ["100644", "run.sh", 3]);
    expect(changedTreeEntries(changed, base)).toEqual([
      [{ mode: "100644", name: "a.txt", oid: hex(9) }, { mode: "100644", name: "a.txt", oid: hex(1) }],
      [{ mode: "040000", name: "dir", oid: hex(8) }, { mode: "040000", name: "dir", oid: hex(2) }],
      [{ mode: "100644", name: "run.sh", oid: hex(3) }, { mode: "100755", name: "run.sh", oid: hex(3) }],
    ]);
    // Same-length names that differ, a name added, a name removed: compared by name instead.
    expect(changedTreeEntries(tree(["100644", "b.txt", 1], ["40000", "dir", 2], ["100755", "run.sh", 3]), base)).toBeNull();
    expect(changedTreeEntries(tree(["100644", "a.txt", 1], ["100644", "b.txt", 4], ["40000", "dir", 2], ["100755", "run.sh", 3]), base)).toBeNull();
    expect(changedTreeEntries(tree(["100644", "a.txt", 1], ["40000", "dir", 2]), base)).toBeNull();
  });
});
