// The browser-safe viewer functions on small inputs: CRC-32, file content, file trees,
// file-list and slice diffs, text diffs.
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SessionSnapshot, VirtualFile } from "../session/index.js";
import { snapshotFromObject } from "../session/index.js";
import { crc32 } from "./crc32.js";
import { countLines, fileContent, splitLinesKeepEnds, toBase64 } from "./file-content.js";
import { virtualFileSource } from "./file-source.js";
import { buildFileTree, flatFileTree, flatFileTreeJson } from "./file-tree.js";
import { prettyJson } from "./json-text.js";
import { diffFileLists, diffSlice, diffSliceSummaries, diffSourceFile } from "./snapshot-diff.js";
import { diffText, replacementHunk } from "./text-diff.js";

const file = (path: string, content: string): VirtualFile => ({ path, segments: path.split("/"), content, sizeBytes: 0, version: null, createdAt: null, updatedAt: null, encoding: null });

function snapshot(slices: Record<string, Record<string, unknown>[]>): SessionSnapshot {
  const raw = {
    version: "1",
    created_at: "2026-11-22T01:00:00+00:00",
    parent_id: null,
    children_ids: [],
    tags: { session_id: "s" },
    slices: Object.entries(slices).map(([type, items]) => ({ slice_type: type, item_type: type, items })),
  };
  const result = snapshotFromObject(raw as never, 1);
  if (!result.ok) throw new Error(result.error.reason);
  return result.snapshot;
}

describe("crc32", () => {
  it("equals zlib's CRC-32, so slice files and archive entries compare", () => {
    for (const text of ["", "a", "hello world\n", "é🎉".repeat(1000)]) {
      const bytes = new TextEncoder().encode(text);
      expect(crc32(bytes)).toBe(zlib.crc32(bytes));
    }
  });
});

describe("fileContent", () => {
  it("paginates text by lines and counts them", () => {
    const view = fileContent("a.txt", new TextEncoder().encode("line1\nline2\nline3\nline4\n"), { offset: 1, limit: 2 });
    expect(view).toMatchObject({ type: "text", content: "line2\nline3\n", total_lines: 4, truncated: true, offset: 1, limit: 2 });
    expect(fileContent("a.txt", new TextEncoder().encode("x\ny")).total_lines).toBe(2);
    for (const text of ["", "a", "a\n", "a\nb", "\n\n"]) expect(countLines(text), JSON.stringify(text)).toBe(splitLinesKeepEnds(text).length);
  });

  it("tells images (by extension) and binary files from text", () => {
    const png = new Uint8Array([137, 80, 78, 71]);
    expect(fileContent("x.PNG", png)).toMatchObject({ type: "image", mime_type: "image/png", content: Buffer.from(png).toString("base64") });
    expect(fileContent("x.bin", new Uint8Array([0, 1, 2]))).toMatchObject({ type: "binary", content: null });
    expect(fileContent("x.txt", new Uint8Array([0xff, 0xfe]))).toMatchObject({ type: "binary" });
    for (const length of [0, 1, 2, 3, 4, 100]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    }
  });
});

describe("file trees and file-list diffs", () => {
  it("writes the flat tree as the JSON of flatFileTree, sorting unsorted input and escaping odd names", () => {
    const entries = [
      { path: "z/\u0000ctl", size: 3, fingerprint: 1 },
      { path: "a \"quoted\" \\ name", size: 0, fingerprint: 2 },
      { path: "日本/語.txt", size: 2 ** 40, fingerprint: 3 },
      { path: "lone\ud800", size: 1, fingerprint: 4 },
    ];
    for (const list of [entries, [...entries].sort((a, b) => (a.path < b.path ? -1 : 1)), []]) {
      const text = flatFileTreeJson(list);
      expect(text).toBe(JSON.stringify(flatFileTree(list)));
      expect(JSON.parse(text)).toEqual(flatFileTree(list));
    }
    expect(flatFileTreeJson(entries)).toContain("\\ud800");
  });

  it("nests files with badges against a base, including deleted ones", async () => {
    const base = virtualFileSource([file("src/a.ts", "a"), file("src/b.ts", "b"), file("gone.md", "bye")]);
    const target = virtualFileSource([file("src/a.ts", "A"), file("src/b.ts", "b"), file("src/new/c.ts", "c")]);
    const baseEntries = await base.list();
    const targetEntries = await target.list();
    expect(flatFileTree(targetEntries).map((entry) => entry.path)).toEqual(["src/a.ts", "src/b.ts", "src/new/c.ts"]);
    const diff = diffFileLists({ kind: "virtual_filesystem", entries: baseEntries }, { kind: "virtual_filesystem", entries: targetEntries });
    expect(diff).toMatchObject({ added: 1, modified: 1, deleted: 1, unchanged_count: 1 });
    const tree = buildFileTree(targetEntries, diff.diff, new Map(baseEntries.map((entry) => [entry.path, entry.size])));
    expect(tree.children?.map((node) => [node.name, node.type, node.change, node.changed_count])).toEqual([
      ["src", "directory", null, 2],
      ["gone.md", "file", "deleted", 1],
    ]);
    const src = tree.children?.[0];
    expect(src?.children?.map((node) => node.name)).toEqual(["new", "a.ts", "b.ts"]);
    expect(src?.size_bytes).toBe(3);
  });

  it("diffs one file's text on demand", async () => {
    const base = virtualFileSource([file("a.txt", "1\n2\n3\n")]);
    const target = virtualFileSource([file("a.txt", "1\nTWO\n3\n"), file("b.txt", "new\n")]);
    expect(await diffSourceFile(base, target, "a.txt")).toMatchObject({ status: "modified", engine: "jsdiff", hunks: [{ old_start: 1, old_lines: 3, new_start: 1, new_lines: 3, lines: [" 1", "-2", "+TWO", " 3"] }] });
    expect(await diffSourceFile(base, target, "b.txt")).toMatchObject({ status: "added", hunks: [{ lines: ["+new"] }] });
    expect(await diffSourceFile(target, base, "b.txt")).toMatchObject({ status: "deleted", hunks: [{ lines: ["-new"] }] });
    await expect(diffSourceFile(base, target, "none.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("text diffs", () => {
  it("gives no hunks for equal texts and a full replacement hunk as fallback", () => {
    expect(diffText("same\n", "same\n")).toEqual({ status: "ok", hunks: [] });
    expect(replacementHunk("a\nb", "c\n")).toEqual([{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 1, lines: ["-a", "-b", "\\ No newline at end of file", "+c"] }]);
    expect(replacementHunk("", "")).toEqual([]);
  });
});

describe("slice diffs", () => {
  const EVENT = "x:ToolInvoked";
  const STATE = "x:Plan";
  const event = (id: string, name: string) => ({ event_id: id, created_at: `2026-11-22T01:00:0${id}+00:00`, name });

  it("matches events by id and state items by position", () => {
    const base = snapshot({ [EVENT]: [event("1", "ls"), event("2", "read")], [STATE]: [{ step: 1 }, { step: 2 }], "x:Gone": [{ a: 1 }] });
    const target = snapshot({ [EVENT]: [event("0", "new"), event("1", "ls"), event("2", "read")], [STATE]: [{ step: 1 }, { step: 3 }] });
    const summary = diffSliceSummaries(base, target);
    expect(summary.map((slice) => [slice.display_name, slice.status, slice.added, slice.removed, slice.changed])).toEqual([
      ["Gone", "removed", 0, 1, 0],
      ["Plan", "changed", 0, 0, 1],
      ["ToolInvoked", "changed", 1, 0, 0],
    ]);
    const plan = diffSlice(base, target, STATE);
    expect(plan.items).toEqual([
      { key: "#0", status: "unchanged", base_index: 0, target_index: 0 },
      { key: "#1", status: "changed", base_index: 1, target_index: 1 },
    ]);
    expect(plan.hunks.flatMap((hunk) => hunk.lines)).toContain('-    "step": 2');
    expect(diffSlice(base, base, STATE)).toMatchObject({ status: "unchanged", hunks: [] });
  });

  it("writes big integers and non-finite floats readably in slice JSON", () => {
    expect(prettyJson({ big: 18446744073709551617n, nan: Number.NaN, inf: -Infinity, list: [] })).toBe('{\n  "big": 18446744073709551617,\n  "nan": NaN,\n  "inf": -Infinity,\n  "list": []\n}');
  });
});
