import { describe, expect, it } from "vitest";
import { MAX_ALIGNMENT_CELLS, alignCalls } from "./call-alignment.js";
import type { AlignableCall } from "./call-alignment.js";

const call = (tool: string, argument: string | null = null, success: boolean | null = true): AlignableCall => ({ tool, argument, success });
const kinds = (left: AlignableCall[], right: AlignableCall[]) => alignCalls(left, right).rows.map((row) => `${row.kind}:${row.left ?? "-"}/${row.right ?? "-"}`);

describe("alignCalls", () => {
  it("says two equal sequences agree, with no divergence", () => {
    const calls = [call("read_file", "a.py"), call("write_file", "a.py")];
    expect(alignCalls(calls, calls)).toEqual({ rows: [{ kind: "same", left: 0, right: 0 }, { kind: "same", left: 1, right: 1 }], firstDivergence: null, approximate: false });
  });

  it("marks the same call with another result, and makes it the first divergence", () => {
    const alignment = alignCalls([call("ls", "."), call("read_file", "a.py", false)], [call("ls", "."), call("read_file", "a.py", true)]);
    expect(alignment.rows.map((row) => row.kind)).toEqual(["same", "result"]);
    expect(alignment.firstDivergence).toBe(1);
  });

  it("pairs the same tool with another key argument as one changed step", () => {
    expect(kinds([call("ls", "."), call("read_file", "b.py", false), call("finish")], [call("ls", "."), call("read_file", "a.py"), call("finish")])).toEqual(["same:0/0", "changed:1/1", "same:2/2"]);
  });

  it("keeps calls only one run made apart, aligning what follows them", () => {
    const failed = [call("ls", "."), call("grep", "TODO"), call("grep", "FIXME"), call("edit", "a.py"), call("test")];
    const passed = [call("ls", "."), call("edit", "a.py"), call("bash", "pytest"), call("test")];
    const alignment = alignCalls(failed, passed);
    expect(kinds(failed, passed)).toEqual(["same:0/0", "left:1/-", "left:2/-", "same:3/1", "right:-/2", "same:4/3"]);
    expect(alignment.firstDivergence).toBe(1);
  });

  it("aligns against an empty side", () => {
    expect(kinds([], [call("a"), call("b")])).toEqual(["right:-/0", "right:-/1"]);
    expect(kinds([call("a")], [])).toEqual(["left:0/-"]);
    expect(alignCalls([], [])).toEqual({ rows: [], firstDivergence: null, approximate: false });
  });

  it("treats an unknown result as agreeing", () => {
    expect(alignCalls([call("a", null, null)], [call("a", null, false)]).rows[0]?.kind).toBe("same");
  });

  it("finds a long common subsequence through reordered steps, every call on exactly one row", () => {
    const left = ["a", "b", "c", "d", "e", "f"].map((tool) => call(tool));
    const right = ["a", "c", "b", "d", "f", "e"].map((tool) => call(tool));
    const alignment = alignCalls(left, right);
    expect(alignment.rows.filter((row) => row.kind === "same")).toHaveLength(4);
    expect(alignment.rows.flatMap((row) => (row.left === null ? [] : [row.left]))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(alignment.rows.flatMap((row) => (row.right === null ? [] : [row.right]))).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("pairs the middle in order past the table's budget, keeping the common head and tail", () => {
    const size = Math.ceil(Math.sqrt(MAX_ALIGNMENT_CELLS)) + 2;
    const left = [call("start"), ...Array.from({ length: size }, (_, i) => call("x", `l${i}`)), call("end")];
    const right = [call("start"), ...Array.from({ length: size }, (_, i) => call("y", `r${i}`)), call("end")];
    const alignment = alignCalls(left, right);
    expect(alignment.approximate).toBe(true);
    expect(alignment.rows[0]).toEqual({ kind: "same", left: 0, right: 0 });
    expect(alignment.rows.at(-1)).toEqual({ kind: "same", left: size + 1, right: size + 1 });
    expect(alignment.rows).toHaveLength(2 + 2 * size);
    expect(alignment.firstDivergence).toBe(1);
  });
});
