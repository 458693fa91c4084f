import { describe, expect, it } from "vitest";
import { splitRows, unifiedRows } from "./hunk-rows.js";

const hunk = { old_start: 3, old_lines: 3, new_start: 3, new_lines: 4, lines: [" same", "-old a", "-old b", "+new a", "+new b", "+new c", " tail"] };

describe("hunk rows", () => {
  it("numbers unified rows on both sides", () => {
    expect(unifiedRows([hunk]).map((row) => [row.kind, row.oldLine, row.newLine])).toEqual([
      ["hunk", null, null],
      ["context", 3, 3],
      ["del", 4, null],
      ["del", 5, null],
      ["add", null, 4],
      ["add", null, 5],
      ["add", null, 6],
      ["context", 6, 7],
    ]);
  });

  it("pairs removed and added lines side by side", () => {
    const rows = splitRows([hunk]);
    expect(rows.map((row) => [row.left?.text ?? null, row.right?.text ?? null])).toEqual([
      [null, null],
      ["same", "same"],
      ["old a", "new a"],
      ["old b", "new b"],
      [null, "new c"],
      ["tail", "tail"],
    ]);
  });

  it("places insertions into an empty side after the named line", () => {
    expect(unifiedRows([{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 1, lines: ["+x"] }])[1]).toEqual({ kind: "add", oldLine: null, newLine: 1, text: "x" });
  });
});
