import { describe, expect, it } from "vitest";
import { ArchiveError } from "../errors.js";
import { indexEntries } from "./entry-set.js";

const file = (name: string) => ({ name, path: name, isDirectory: false });
const dir = (name: string) => ({ name: `${name}/`, path: name, isDirectory: true });

function refusal(entries: { name: string; path: string; isDirectory: boolean }[]): unknown {
  try {
    indexEntries(entries);
  } catch (error) {
    return error;
  }
  return null;
}

describe("indexEntries", () => {
  const listed = [dir("a"), file("a/b"), file("a/c"), dir("a/d"), file("a/d/e"), file("b"), file("c d"), file("é")];

  it("finds every entry by path, whether the entries come in path order (searched in place) or not (mapped)", () => {
    for (const entries of [listed, [...listed].reverse()]) {
      const lookup = indexEntries(entries);
      for (const entry of entries) expect(lookup(entry.path)).toBe(entry);
      for (const missing of ["", "a/", "a/b/", "a/d/e/f", "aa", "z"]) expect(lookup(missing)).toBeUndefined();
    }
  });

  it("refuses duplicates and a file and a directory with the same path, in any order", () => {
    expect(refusal([file("a"), file("a")])).toMatchObject({ code: "E_ARCHIVE_ENTRY", message: "Duplicate entry: a", data: { entry: "a", reason: "duplicate" } });
    expect(refusal([file("x"), file("x!"), dir("x")])).toMatchObject({ message: "Entry conflicts with file x: x/", data: { conflictsWith: "x" } });
    expect(refusal([dir("x"), file("x")])).toMatchObject({ message: "Entry conflicts with directory x/: x", data: { conflictsWith: "x/" } });
  });

  it("refuses an entry below a file, sorted or not, however far apart they are listed", () => {
    for (const entries of [
      [file("a"), file("a!"), file("a/b")],
      [file("a/b"), file("a!"), file("a")],
      [file("p/q"), file("p/q!"), file("p/q/r/s")],
    ]) {
      const error = refusal(entries);
      expect(error).toBeInstanceOf(ArchiveError);
      expect(error).toMatchObject({ code: "E_ARCHIVE_ENTRY", message: expect.stringMatching(/^Entry lies inside file /) });
    }
  });
});
