import { describe, expect, it } from "vitest";
import { diffText } from "../../shared/viewer/text-diff.js";
import { hunkLineStarts, hunksToChanges } from "./hunk-changes.js";

/** Applies character changes of `a` → `b` to `a`: must give `b`. */
function apply(a: string, b: string, changes: { fromA: number; toA: number; fromB: number; toB: number }[]): string {
  let out = "";
  let at = 0;
  for (const change of changes) {
    out += a.slice(at, change.fromA) + b.slice(change.fromB, change.toB);
    at = change.toA;
  }
  return out + a.slice(at);
}

const cases: [string, string][] = [
  ["a\nb\nc\n", "a\nB\nc\n"],
  ["a\nb\nc\n", "a\nc\n"],
  ["a\nb\nc\n", "x\na\nb\nc\ny\n"],
  ["", "new\nfile\n"],
  ["old\n", ""],
  ["no newline", "no newline at all"],
  [Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n"), Array.from({ length: 300 }, (_, i) => (i % 37 === 5 ? `edited ${i}` : i % 53 === 0 ? "" : `line ${i}`)).join("\n")],
];

describe("server hunks as merge-view changes", () => {
  it.each(cases)("rebuilds the target from the base (%#)", (a, b) => {
    const result = diffText(a, b);
    expect(result.status).toBe("ok");
    if (result.status !== "ok") return;
    expect(apply(a, b, hunksToChanges(result.hunks, a, b))).toBe(b);
  });

  it("refines a changed block with a character diff", () => {
    const a = "keep\nvalue = 1\nkeep\n";
    const b = "keep\nvalue = 2\nkeep\n";
    const result = diffText(a, b);
    if (result.status !== "ok") throw new Error("diff failed");
    const inner = (x: string, y: string) => [{ fromA: x.indexOf("1"), toA: x.indexOf("1") + 1, fromB: y.indexOf("2"), toB: y.indexOf("2") + 1 }];
    expect(hunksToChanges(result.hunks, a, b, inner)).toEqual([{ fromA: 13, toA: 14, fromB: 13, toB: 14 }]);
  });

  it("lists line starts with the end", () => {
    expect(hunkLineStarts("ab\ncd")).toEqual([0, 3, 5]);
    expect(hunkLineStarts("ab\n")).toEqual([0, 3]);
  });
});
