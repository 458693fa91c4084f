import { describe, expect, it } from "vitest";
import { applyPatch, parseViewState, selectSnapshotPatch, selectedRef, serializeViewState } from "./view-state.js";
import type { ViewState } from "./view-state.js";

describe("view state in the URL", () => {
  it("round-trips every field", () => {
    const state: ViewState = {
      file: "run 1/a&b.jsonl",
      line: 3,
      view: "compare",
      slice: "m:ToolInvoked",
      item: 0,
      path: "src/ü & ?.py",
      at: 12,
      base: { file: "x.jsonl", line: 1 },
      layout: "unified",
      q: "a=b&c",
      event: 7,
      change: "docs/a b.md",
      side: "base",
      regex: true,
      panel: "logs",
    };
    expect(parseViewState(serializeViewState(state))).toEqual(state);
  });

  it("ignores malformed and unknown parameters, defaulting the view", () => {
    const state = parseViewState(new URLSearchParams("file=a.jsonl&line=0&view=evil&item=-1&at=1e3&base_file=b.jsonl&layout=3d&x=1"));
    expect(state).toEqual({ view: "run", file: "a.jsonl" });
    expect(selectedRef(state)).toBeNull();
  });

  it("leaves the default view out of the URL", () => {
    expect(serializeViewState({ view: "run", file: "f", line: 1 }).toString()).toBe("file=f&line=1");
  });

  it("selecting another snapshot keeps view, slice and path, drops item, event (and its open change) and line", () => {
    const next = applyPatch({ view: "files", file: "a", line: 1, path: "p", at: 9, item: 2, event: 3, change: "p", slice: "s" }, selectSnapshotPatch({ file: "b", line: 4 }));
    expect(next).toEqual({ view: "files", file: "b", line: 4, path: "p", slice: "s" });
  });
});
