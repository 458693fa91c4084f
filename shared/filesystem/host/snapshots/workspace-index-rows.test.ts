/**
 * A binary index read as rows: every path found by its bytes (odd byte paths included),
 * nothing found that is not there, a restore's updates seen by every reader, and the map
 * made on demand equal to what was saved plus those updates.
 */
import { describe, expect, it } from "vitest";

import { decodeWorkspaceIndex, encodeWorkspaceIndex } from "./workspace-index-binary.js";
import type { IndexEntry, IndexEntryRows, WorkspaceIndex } from "./workspace-index-types.js";

const ROOT = "/work/spaces/rows";

function entry(n: number, kind: "file" | "symlink" = "file"): IndexEntry {
  return { kind, perm: kind === "symlink" ? 0o777 : n % 7 === 0 ? 0o755 : 0o644, size: n * 10, mtimeMs: 1_700_000_000_000 + n + 0.125, ctimeMs: 1_700_000_000_500 + n, ino: 1_000 + n, oid: n.toString(16).padStart(40, "0") };
}

/** 300 leaves in 12 directories (some nested, some at the top), with byte paths that are not UTF-8. */
function sample(): Map<string, IndexEntry> {
  const entries = new Map<string, IndexEntry>();
  for (let i = 0; i < 300; i++) entries.set(i % 25 === 0 ? `top-${i}.txt` : `d${i % 11}/${i % 2 === 0 ? "sub/" : ""}f${i}.txt`, entry(i));
  entries.set("caf\xe9/\xff\xfe-name", entry(1_000));
  entries.set("links/to-dir", entry(1_001, "symlink"));
  entries.set("name with spaces\nand a newline", entry(1_002));
  return entries;
}

function load(entries: Map<string, IndexEntry>): WorkspaceIndex {
  const index = decodeWorkspaceIndex(encodeWorkspaceIndex(ROOT, { ref: "a".repeat(40), scanStartedAtMs: 1_700_000_001_000, entries }), ROOT);
  expect(index).not.toBeNull();
  return index as WorkspaceIndex;
}

function rowsOf(index: WorkspaceIndex): IndexEntryRows {
  expect(index.rows).toBeDefined();
  return index.rows as IndexEntryRows;
}

describe("workspace index rows", () => {
  it("find every leaf by its path, with its directory and fields, and nothing else", () => {
    const entries = sample();
    const rows = rowsOf(load(entries));
    expect(rows.size).toBe(entries.size);
    expect(rows.rowCount).toBe(entries.size);
    for (const [p, e] of entries) {
      const row = rows.rowOf(p);
      expect(row).toBeGreaterThanOrEqual(0);
      expect(rows.pathOf(row)).toBe(p);
      expect(rows.dirOf(row)).toBe(p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
      expect(rows.get(p)).toEqual(e);
      const { oid: _oid, ...stat } = e;
      expect(rows.statOf(row)).toEqual(stat);
      expect(rows.isFile(row)).toBe(e.kind === "file");
      expect(rows.matches(row, e.kind, e.perm, e.size, e.mtimeMs, e.ctimeMs, e.ino)).toBe(true);
      expect(rows.matches(row, e.kind, e.perm, e.size, e.mtimeMs, e.ctimeMs, e.ino + 1)).toBe(false);
      expect(rows.newestTimeOf(row)).toBe(Math.max(e.mtimeMs, e.ctimeMs));
    }
    for (const absent of ["", "d1", "d1/", "d1/f1.tx", "d1/f1.txt/", "top-0.txtx", "caf\u00e9/\u00ff\u00fe-nam", "\u0100", "d1/sub/f1.txt"]) expect(rows.rowOf(absent)).toBe(-1);
    expect(rows.get("missing")).toBeUndefined();
  });

  it("record a restore's changes: replaced, removed and new leaves, for lookups, rows and the map", () => {
    const entries = sample();
    const index = load(entries);
    const rows = rowsOf(index);
    const expected = new Map(entries);
    const apply = (p: string, e: IndexEntry | null): void => {
      rows.update(p, e);
      if (e === null) expected.delete(p);
      else expected.set(p, e);
    };
    apply("d1/f1.txt", entry(5_000)); // replaced
    apply("top-25.txt", null); // removed
    apply("d2/new.txt", entry(5_001)); // new
    apply("d2/new.txt", entry(5_002)); // new, replaced again
    apply("d3/gone-soon.txt", entry(5_003));
    apply("d3/gone-soon.txt", null); // new, then removed
    apply("d3/gone-soon.txt", entry(5_004)); // and back
    apply("never/there.txt", null); // removing what is not there changes nothing
    expect(rows.size).toBe(expected.size);
    for (const [p, e] of expected) {
      expect(rows.get(p)).toEqual(e);
      expect(rows.pathOf(rows.rowOf(p))).toBe(p);
    }
    expect(rows.rowOf("top-25.txt")).toBe(-1);
    const live: string[] = [];
    for (let row = 0; row < rows.rowCount; row++) if (rows.live(row)) live.push(rows.pathOf(row));
    expect(live.sort()).toEqual([...expected.keys()].sort());
    expect(rows.dirOf(rows.rowOf("d2/new.txt"))).toBe("d2");

    // The map, made on first use, is then the index: no rows any more.
    expect(index.entries).toEqual(expected);
    expect(index.rows).toBeUndefined();
    index.entries.delete("d1/f1.txt");
    expect(index.entries.has("d1/f1.txt")).toBe(false);
  });

  it("an empty index has no rows to find", () => {
    const rows = rowsOf(load(new Map()));
    expect(rows.size).toBe(0);
    expect(rows.rowOf("a")).toBe(-1);
    rows.update("a", entry(1));
    expect(rows.get("a")).toEqual(entry(1));
  });
});
